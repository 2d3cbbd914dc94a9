//===- GPUTensorCoreMatmul.cpp - projection contractions on tensor cores --===//
//
// decoda-gpu-tensorcore-matmul (GPUPasses.td): a bf16/f16 x bf16/f16 -> f32 contraction
// C[m, n] += A[m, k] * B[n, k] becomes one gpu.launch per contraction:
//
//   block (bn, bm): C[bm*TM : +TM, bn*TN : +TN], threads = 32 * WM * WN (warps WM x WN)
//   shared As[2][TM][TK + 8], Bs[2][TN][TK + 8]     (two stages, rows padded by 16 bytes)
//   stage 0 <- tile 0 (cp.async, zero-filled past M / N)
//   for kt in [0, K / TK):
//     if kt + 1 < K / TK: stage (kt+1)%2 <- tile kt+1; wait until 1 group is pending
//     else: wait for all
//     barrier
//     for each 16-wide slice: ldmatrix A (x4) and B (x2) fragments, mma.sync m16n8k16
//     barrier
//   store the f32 accumulators (guarded by M and N)
//
// Fragment coordinates (PTX ISA, "Matrix fragments for mma.m16n8k16" with .f16/.bf16; lane
// l, g = l / 4, q = l % 4):
//   A (16x16, row): a0..a3 = A[g][2q..], A[g+8][2q..], A[g][2q+8..], A[g+8][2q+8..]; ldmatrix
//     x4 loads exactly these when lanes 0-7 / 8-15 / 16-23 / 24-31 give the rows of the
//     8x8 matrices (rows 0-7, k 0), (rows 8-15, k 0), (rows 0-7, k 8), (rows 8-15, k 8):
//     lane l points at row l % 16, column (l / 16) * 8.
//   B (16x8, col): b0, b1 = B[k = 2q..][n = g], B[k = 2q+8..][n = g]; with B stored as
//     Bs[n][k] these are the rows of two 8x8 matrices (n 0-7, k 0) and (n 0-7, k 8): lane
//     l < 16 points at row l % 8, column ((l / 8) % 2) * 8. Two adjacent n-fragments load
//     with one x4, lanes 16-31 pointing 8 rows further.
//   C (16x8, f32): c0, c1 = C[g][2q], C[g][2q+1]; c2, c3 = C[g+8][2q], C[g+8][2q+1].
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "GPUContraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUTENSORCOREMATMULPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
struct Config {
  int64_t tileM, tileN, tileK, warpsM, warpsN;
  int64_t threads() const { return 32 * warpsM * warpsN; }
  int64_t fragsM() const { return tileM / warpsM / 16; }
  int64_t fragsN() const { return tileN / warpsN / 8; }
  int64_t pitch() const { return tileK + 8; } // 16 bytes of padding per shared row
};

using decoda::gpu_contraction::Emitter;
using decoda::gpu_contraction::Match;

/// Why a projection contraction is not for the tensor cores, or "".
std::string refuse(const Match &match, const Config &cfg) {
  if (match.elementType.isF32())
    return "operands are not bf16 or f16 (f32 contractions stay SIMT: TF32 would change the "
           "numerics)";
  if (match.k % cfg.tileK != 0)
    return "K = " + std::to_string(match.k) + " is not a multiple of tile-k = " +
           std::to_string(cfg.tileK);
  if (match.n % 8 != 0)
    return "N = " + std::to_string(match.n) + " is not a multiple of 8";
  return "";
}

void emitKernel(OpBuilder &b, Match m, const Config &cfg, bool zeroInit) {
  Location loc = m.op.getLoc();
  MLIRContext *ctx = b.getContext();
  Emitter e{b, loc};
  Value a2 = decoda::gpu_contraction::collapseLead(b, loc, m.a, m.lead);
  Value c2 = decoda::gpu_contraction::collapseLead(b, loc, m.c, m.lead);
  Value rowsM = memref::DimOp::create(b, loc, a2, 0);
  Value rowsN = e.idx(m.n);
  Value gridX = e.idx((m.n + cfg.tileN - 1) / cfg.tileN);
  Value gridY = e.div(e.add(rowsM, e.idx(cfg.tileM - 1)), cfg.tileM);
  Value one = e.idx(1);

  auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto aTileType = MemRefType::get({2, cfg.tileM, cfg.pitch()}, m.elementType,
                                   MemRefLayoutAttrInterface(), shared);
  auto bTileType = MemRefType::get({2, cfg.tileN, cfg.pitch()}, m.elementType,
                                   MemRefLayoutAttrInterface(), shared);
  auto launch = gpu::LaunchOp::create(b, loc, gridX, gridY, one, e.idx(cfg.threads()), one, one,
                                      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/
                                      nullptr, /*asyncDependencies=*/{},
                                      TypeRange{aTileType, bTileType});
  Value aTiles = launch.getWorkgroupAttributions()[0];
  Value bTiles = launch.getWorkgroupAttributions()[1];

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value tid = launch.getThreadIds().x;
  Value m0 = e.mul(launch.getBlockIds().y, cfg.tileM);
  Value n0 = e.mul(launch.getBlockIds().x, cfg.tileN);
  Value warp = e.div(tid, 32), lane = e.rem(tid, 32);
  Value wm = e.div(warp, cfg.warpsN), wn = e.rem(warp, cfg.warpsN);
  int64_t warpRows = cfg.tileM / cfg.warpsM, warpCols = cfg.tileN / cfg.warpsN;
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);

  // One stage: every thread copies 16-byte chunks of the A and B tiles of k offset `k0`.
  auto copyStage = [&](Value stage, Value k0) -> Value {
    SmallVector<Value> tokens;
    auto copyTile = [&](Value src, Value dst, int64_t rows, Value base, Value limit) {
      int64_t chunksPerRow = cfg.tileK / 8;
      int64_t chunks = rows * chunksPerRow;
      for (int64_t i = 0; i < chunks / cfg.threads(); ++i) {
        Value c = e.add(tid, e.idx(i * cfg.threads()));
        Value r = e.div(c, chunksPerRow);
        Value col = e.mul(e.rem(c, chunksPerRow), 8);
        Value g = e.add(base, r);
        Value inside = e.lt(g, limit);
        // A row past the end reads nothing (source size 0: zero fill) from a valid address.
        Value row = e.select(inside, g, base);
        Value count = e.select(inside, e.idx(8), e.idx(0));
        auto copy = nvgpu::DeviceAsyncCopyOp::create(
            b, loc, tokenType, dst, ValueRange{stage, r, col}, src,
            ValueRange{row, e.add(k0, col)}, b.getIndexAttr(8), count, b.getUnitAttr());
        tokens.push_back(copy.getAsyncToken());
      }
    };
    copyTile(a2, aTiles, cfg.tileM, m0, rowsM);
    copyTile(m.b, bTiles, cfg.tileN, n0, rowsN);
    return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokenType, tokens).getAsyncToken();
  };

  // Accumulators: fragsM x fragsN values of vector<2x2xf32> (rows g and g + 8 of a 16x8 tile).
  auto accType = VectorType::get({2, 2}, b.getF32Type());
  auto pairType = VectorType::get({2}, b.getF32Type());
  Value g = e.div(lane, 4), q2 = e.mul(e.rem(lane, 4), 2);
  auto fragRow = [&](int64_t mi, int64_t half) {
    return e.add(e.add(m0, e.add(e.mul(wm, warpRows), e.idx(mi * 16 + half * 8))), g);
  };
  auto fragCol = [&](int64_t ni) {
    return e.add(e.add(n0, e.add(e.mul(wn, warpCols), e.idx(ni * 8))), q2);
  };
  Value zeroAcc = arith::ConstantOp::create(b, loc, accType, b.getZeroAttr(accType));
  Value zeroPair = arith::ConstantOp::create(b, loc, pairType, b.getZeroAttr(pairType));
  SmallVector<Value> init;
  for (int64_t mi = 0; mi < cfg.fragsM(); ++mi) {
    for (int64_t ni = 0; ni < cfg.fragsN(); ++ni) {
      if (zeroInit) {
        init.push_back(zeroAcc);
        continue;
      }
      Value acc = zeroAcc;
      Value col = fragCol(ni);
      for (int64_t half = 0; half < 2; ++half) {
        Value row = fragRow(mi, half);
        Value inside = arith::AndIOp::create(b, loc, e.lt(row, rowsM), e.lt(col, rowsN));
        auto load = scf::IfOp::create(b, loc, pairType, inside, /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(&load.getThenRegion().front());
          // 8-byte aligned: C has an identity layout, N and the column are even.
          Value v = vector::LoadOp::create(b, loc, pairType, c2, ValueRange{row, col},
                                           /*nontemporal=*/false, llvm::MaybeAlign(8));
          scf::YieldOp::create(b, loc, v);
          b.setInsertionPointToStart(&load.getElseRegion().front());
          scf::YieldOp::create(b, loc, zeroPair);
        }
        acc = vector::InsertOp::create(b, loc, load.getResult(0), acc, ArrayRef<int64_t>{half});
      }
      init.push_back(acc);
    }
  }

  int64_t kTiles = m.k / cfg.tileK;
  Value first = copyStage(e.idx(0), e.idx(0));
  auto loop = scf::ForOp::create(b, loc, e.idx(0), e.idx(kTiles), one, init);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value next = e.add(kt, one);
    auto prefetch = scf::IfOp::create(b, loc, TypeRange{}, e.lt(next, e.idx(kTiles)),
                                      /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g3(b);
      b.setInsertionPointToStart(&prefetch.getThenRegion().front());
      Value group = copyStage(e.rem(next, 2), e.mul(next, cfg.tileK));
      nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(1));
      b.setInsertionPointToStart(&prefetch.getElseRegion().front());
      nvgpu::DeviceAsyncWaitOp::create(b, loc, first, b.getI32IntegerAttr(0));
    }
    gpu::BarrierOp::create(b, loc);
    Value stage = e.rem(kt, 2);
    SmallVector<Value> acc(loop.getRegionIterArgs().begin(), loop.getRegionIterArgs().end());
    auto aFragType = VectorType::get({4, 2}, m.elementType);
    auto bFragType = VectorType::get({2, 2}, m.elementType);
    Value aRow = e.rem(lane, 16), aCol = e.mul(e.div(lane, 16), 8);
    Value bRow = e.rem(lane, 8), bCol = e.mul(e.rem(e.div(lane, 8), 2), 8);
    // x4 over two n-fragments: lanes 16-31 address the rows of the second (n + 8).
    Value bRow4 = e.add(bRow, e.mul(e.div(lane, 16), 8));
    Value zeroB = arith::ConstantOp::create(b, loc, bFragType, b.getZeroAttr(bFragType));
    for (int64_t kk = 0; kk < cfg.tileK; kk += 16) {
      SmallVector<Value> aFrags, bFrags;
      for (int64_t mi = 0; mi < cfg.fragsM(); ++mi) {
        Value row = e.add(e.add(e.mul(wm, warpRows), e.idx(mi * 16)), aRow);
        aFrags.push_back(nvgpu::LdMatrixOp::create(b, loc, aFragType, aTiles,
                                                   ValueRange{stage, row, e.add(aCol, e.idx(kk))},
                                                   /*transpose=*/false, /*numTiles=*/4));
      }
      // Two n-fragments per x4 (fewer address registers); an odd last one with x2.
      for (int64_t ni = 0; ni < cfg.fragsN(); ni += 2) {
        if (ni + 1 < cfg.fragsN()) {
          Value row = e.add(e.add(e.mul(wn, warpCols), e.idx(ni * 8)), bRow4);
          Value pair = nvgpu::LdMatrixOp::create(b, loc, aFragType, bTiles,
                                                 ValueRange{stage, row, e.add(bCol, e.idx(kk))},
                                                 /*transpose=*/false, /*numTiles=*/4);
          // Registers 0-1 and 2-3 (row extracts and inserts: a 2-D strided slice has no
          // LLVM lowering).
          for (int64_t h = 0; h < 2; ++h) {
            Value frag = zeroB;
            for (int64_t r = 0; r < 2; ++r) {
              Value reg = vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{2 * h + r});
              frag = vector::InsertOp::create(b, loc, reg, frag, ArrayRef<int64_t>{r});
            }
            bFrags.push_back(frag);
          }
          continue;
        }
        Value row = e.add(e.add(e.mul(wn, warpCols), e.idx(ni * 8)), bRow);
        bFrags.push_back(nvgpu::LdMatrixOp::create(b, loc, bFragType, bTiles,
                                                   ValueRange{stage, row, e.add(bCol, e.idx(kk))},
                                                   /*transpose=*/false, /*numTiles=*/2));
      }
      for (int64_t mi = 0; mi < cfg.fragsM(); ++mi)
        for (int64_t ni = 0; ni < cfg.fragsN(); ++ni) {
          Value &c = acc[mi * cfg.fragsN() + ni];
          c = nvgpu::MmaSyncOp::create(b, loc, aFrags[mi], bFrags[ni], c,
                                       ArrayRef<int64_t>{16, 8, 16});
        }
    }
    // Nobody overwrites this stage (the next iteration's copy) before every warp is done.
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, acc);
  }

  // Epilogue: each thread's accumulator pairs, rows g and g + 8 of each fragment.
  for (int64_t mi = 0; mi < cfg.fragsM(); ++mi)
    for (int64_t ni = 0; ni < cfg.fragsN(); ++ni) {
      Value acc = loop.getResult(mi * cfg.fragsN() + ni);
      Value col = fragCol(ni);
      for (int64_t half = 0; half < 2; ++half) {
        Value row = fragRow(mi, half);
        Value inside = arith::AndIOp::create(b, loc, e.lt(row, rowsM), e.lt(col, rowsN));
        auto store = scf::IfOp::create(b, loc, TypeRange{}, inside, /*withElseRegion=*/false);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&store.getThenRegion().front());
        Value pair = vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{half});
        vector::StoreOp::create(b, loc, pair, c2, ValueRange{row, col}, /*nontemporal=*/false,
                                llvm::MaybeAlign(8));
      }
    }
  gpu::TerminatorOp::create(b, loc);
}

struct GPUTensorCoreMatmulPass
    : public mlir::decoda::impl::GPUTensorCoreMatmulPassBase<GPUTensorCoreMatmulPass> {
  using Base::Base;

  void runOnOperation() override {
    Config cfg{tileM, tileN, tileK, warpsM, warpsN};
    if (cfg.tileK < 16 || cfg.tileK % 16 != 0 || cfg.warpsM < 1 || cfg.warpsN < 1 ||
        cfg.tileM % (16 * cfg.warpsM) != 0 || cfg.tileN % (8 * cfg.warpsN) != 0 ||
        cfg.threads() > 1024 || (cfg.tileM * cfg.tileK / 8) % cfg.threads() != 0 ||
        (cfg.tileN * cfg.tileK / 8) % cfg.threads() != 0) {
      getOperation().emitError()
          << "decoda-gpu-tensorcore-matmul: invalid tiling tile-m=" << cfg.tileM
          << " tile-n=" << cfg.tileN << " tile-k=" << cfg.tileK << " warps-m=" << cfg.warpsM
          << " warps-n=" << cfg.warpsN
          << " (need tile-k a multiple of 16, tile-m a multiple of 16*warps-m, tile-n of "
             "8*warps-n, at most 1024 threads, and the 16-byte chunks of each tile a multiple "
             "of the thread count)";
      return signalPassFailure();
    }
    int64_t sharedBytes = 2 * (cfg.tileM + cfg.tileN) * cfg.pitch() * 2;
    if (sharedBytes > 48 * 1024) {
      getOperation().emitError() << "decoda-gpu-tensorcore-matmul: the tiles need "
                                 << sharedBytes
                                 << " bytes of shared memory, over the 48 KiB static limit";
      return signalPassFailure();
    }
    auto counts = decoda::gpu_contraction::rewriteProjections(
        getOperation(), [&](const Match &m) { return refuse(m, cfg); },
        [&](OpBuilder &b, const Match &m, bool zeroInit) { emitKernel(b, m, cfg, zeroInit); },
        [&](linalg::GenericOp op, const std::string &why) {
          if (report)
            op.emitRemark() << "decoda-gpu-tensorcore-matmul: left to the SIMT path: " << why;
        });
    numRewritten += counts.rewritten;
    numFillsFolded += counts.fillsFolded;
  }
};
} // namespace
