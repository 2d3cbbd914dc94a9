//===- GPUWgmmaKernel.cpp - projection contractions on sm_90a wgmma -------===//
//
// The kernel decoda-gpu-tensorcore-matmul emits with `wgmma` (sm_90a) for a bf16/f16 x
// bf16/f16 -> f32 or an i8 x i8 -> i32 contraction C[m, n] += A[m, k] * B[n, k] (in bytes the
// two are the same kernel: a stage row is 2 * TK bytes, TK bf16/f16 or 2 * TK i8 elements, and
// one wgmma reads 32 bytes of it, m64nNk16 .f32.bf16.bf16 / .f16.f16 or m64nNk32 .s32.s8.s8,
// the wrapping form without .satfinite):
//
//   block (bn, bm): C[bm*TM : +TM, bn*TN : +TN]; TM / 64 warpgroups of 128 threads, warpgroup
//   w computes rows 64w .. 64w + 63 with one wgmma.m64n{TN}k16 per 16 k (f32 accumulators,
//   TN / 2 registers a thread)
//   shared As[S][TM * TK], Bs[S][TN * TK] (S stages, the no-swizzle layout below)
//   stages 0 .. S-3 <- tiles 0 .. S-3 (cp.async, zero-filled past M / N), one group each
//   for kt in [0, K / TK):
//     cp.async.wait_group S-3          (tile kt has landed for this thread)
//     fence.proxy.async.shared::cta    (its bytes are visible to wgmma, the async proxy)
//     barrier                          (for every thread; and every warpgroup has finished
//                                       the wgmma of tile kt-2, whose stage is refilled now)
//     stage (kt+S-2)%S <- tile kt+S-2 if it exists; cp.async.commit_group (always)
//     wgmma.fence; TK/16 x wgmma.mma_async on stage kt%S; wgmma.commit_group;
//     wgmma.wait_group 1               (the wgmma of tile kt-1 is done; kt's stays in flight)
//   wgmma.wait_group 0; store the accumulators (guarded by M and N)
//
// Shared-memory layout (PTX ISA, "Shared Memory Matrix Layout", K-major, no swizzle): a
// "core matrix" is 8 rows x 16 bytes stored as 128 contiguous bytes (row r at 16 r). The
// 16-byte chunk c (k elements 8c .. 8c+7 for bf16/f16) of tile row r lives at
//   (r / 8) * SBO + c * LBO + (r % 8) * 16,   LBO = 128, SBO = 128 * TK * 2 / 16,
// so core matrices adjacent in K are LBO apart (the descriptor's leading-dimension byte
// offset) and those adjacent in M/N are SBO apart (its stride-dimension byte offset). A warp's
// 32 cp.async chunks (8 rows x 4 chunks for TK = 32) fill 512 contiguous bytes.
//
// Matrix descriptor (PTX ISA, "Matrix Descriptor Format"), 64 bits: bits 0-13 the start
// address >> 4 (shared window), 16-29 LBO >> 4, 32-45 SBO >> 4, 49-51 base offset (0), 62-63
// swizzle (0: none). A's operand of k slice j for warpgroup w starts at
// stage + w * 8 * SBO + 2 j * LBO, B's at stage + 2 j * LBO (all TN rows).
//
// Accumulators (PTX ISA, "Matrix fragments for wgmma .m64nNk16", D): warp v of the warpgroup,
// lane l, g = l / 4, q = l % 4: registers 4i + 2h + e hold D[16 v + 8 h + g][8 i + 2 q + e].
//
// Two weights (`secondB`, TMA only: a GLU's up and gate projections of one A): B's stage is
// TN rows of B then TN rows of the second weight (a TMA box each, one mbarrier), each k slice
// one wgmma m64n{2 TN}k16, so registers 4i + 2h + e (i < TN / 8) are B's column 8i + 2q + e
// and registers TN / 2 + 4i + 2h + e the second weight's same column; the store callback
// gets both pairs.
//
//===----------------------------------------------------------------------===//

#include "GPUWgmmaKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace mlir::decoda::gpu_contraction {

std::string invalidWgmmaConfig(const WgmmaConfig &cfg) {
  if (cfg.tileM != 64 && cfg.tileM != 128)
    return "tile-m must be 64 or 128 (one or two warpgroups of 64 rows)";
  if (cfg.tileN < 8 || cfg.tileN > 256 || cfg.tileN % 8 != 0)
    return "tile-n must be a multiple of 8 from 8 to 256 (the N of wgmma.m64nNk16)";
  if (cfg.dualB && (!cfg.tma || cfg.bRows() > 256))
    return "two weights per kernel need TMA and 2 tile-n <= 256 (the N of one wgmma)";
  if (cfg.tma) {
    // The stage row is the 128-byte swizzle span, whatever tile-k is.
    if (cfg.tmaStages < 2)
      return "tma-stages must be at least 2 (one stage being loaded while one is read)";
    if (cfg.tmaSharedBytes() > kMaxDynamicSharedBytes)
      return "the TMA stages need " + std::to_string(cfg.tmaSharedBytes()) +
             " bytes of shared memory, over the " + std::to_string(kMaxDynamicSharedBytes) +
             "-byte limit of a block";
    return "";
  }
  if (cfg.tileK < 16 || cfg.tileK % 16 != 0)
    return "tile-k must be a multiple of 16";
  if (cfg.stages < 3)
    return "wgmma-stages must be at least 3 (one stage being copied, one read by the wgmma "
           "in flight, one by the wgmma being issued)";
  int64_t chunks = cfg.tileK * 2 / 16;
  if ((cfg.tileM * chunks) % cfg.threads() != 0 || (cfg.tileN * chunks) % cfg.threads() != 0)
    return "the 16-byte chunks of each tile must be a multiple of the thread count";
  if (cfg.sharedBytes(2) > 48 * 1024)
    return "the stages need " + std::to_string(cfg.sharedBytes(2)) +
           " bytes of shared memory, over the 48 KiB static limit";
  return "";
}

bool tmaAccepts(const Match &m) { return (m.k * m.elementBytes()) % 16 == 0; }

namespace {
/// `int64_t decoda_cuda_tensor_map(int64_t base, int64_t inner, int64_t rows, int64_t
/// row_stride_bytes, int64_t element_bytes, int64_t box_inner, int64_t box_rows, int64_t
/// swizzle_bytes)` (lib/Target/CUDA/CUDATarget.cpp): the device address of a 2-D tensor map
/// (CUtensorMap) of the row-major matrix at `base`, encoded once per thread and kept.
constexpr llvm::StringLiteral kTensorMapFn = "decoda_cuda_tensor_map";

/// Host code: the tensor map of the identity-layout matrix `m2` ([rows, inner]) in boxes of
/// `boxRows` x `boxInner` elements, 128-byte swizzle.
Value tensorMap(OpBuilder &b, Location loc, Value m2, int64_t elementBytes, int64_t boxInner,
                int64_t boxRows) {
  Type i64 = b.getI64Type();
  auto toI64 = [&](Value v) { return arith::IndexCastOp::create(b, loc, i64, v).getResult(); };
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i64, v).getResult(); };
  Value base = toI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m2));
  auto type = cast<MemRefType>(m2.getType());
  Value inner = c(type.getDimSize(1));
  Value rows = type.isDynamicDim(0) ? toI64(memref::DimOp::create(b, loc, m2, 0))
                                    : c(type.getDimSize(0));
  return callI64Support(b, loc, kTensorMapFn,
                        {base, inner, rows, c(type.getDimSize(1) * elementBytes),
                         c(elementBytes), c(boxInner), c(boxRows),
                         c(WgmmaConfig::kTmaRowBytes)});
}
} // namespace

Value callI64Support(OpBuilder &b, Location loc, StringRef name, ValueRange args) {
  Type i64 = b.getI64Type();
  ModuleOp module = b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!fn) {
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    fn = LLVM::LLVMFuncOp::create(
        mb, module.getLoc(), name,
        LLVM::LLVMFunctionType::get(i64, SmallVector<Type>(args.size(), i64)));
  }
  return LLVM::CallOp::create(b, loc, fn, args).getResult();
}

void emitWgmmaKernel(OpBuilder &b, Match m, const WgmmaConfig &kernelCfg, bool zeroInit,
                     Value out, StorePairFn storePair, EpilogueLoadFn loadOperands,
                     Value secondB) {
  Location loc = m.op.getLoc();
  WgmmaConfig cfg = kernelCfg;
  cfg.dualB = static_cast<bool>(secondB);
  assert((!cfg.dualB || (cfg.tma && zeroInit && storePair && cfg.bRows() <= 256)) &&
         "two weights need TMA, zero-initialised accumulators, a store callback, N <= 256");
  MLIRContext *ctx = b.getContext();
  Emitter e{b, loc};
  // In bytes a stage row is 2 * tile-k (tile-k bf16/f16, 2 * tile-k i8) with cp.async, 128
  // with TMA, and one wgmma reads 32 bytes of it (k16 bf16/f16, k32 s8).
  const int64_t eb = m.elementBytes();
  const int64_t perChunk = 16 / eb;
  const int64_t rowBytes = cfg.tma ? WgmmaConfig::kTmaRowBytes : cfg.tileK * 2;
  const int64_t stageK = rowBytes / eb, sliceK = 32 / eb; // elements
  const int64_t chunksPerRow = stageK / perChunk;
  const int64_t stages = cfg.tma ? cfg.tmaStages : cfg.stages;
  // cp.async: the no-swizzle core-matrix layout; TMA: 8-row x 128-byte swizzle atoms.
  const int64_t lbo = cfg.tma ? 16 : 128, sbo = cfg.tma ? 1024 : 128 * chunksPerRow;
  // B's stage: tile-n rows of B, then (dualB) tile-n rows of the second weight.
  const int64_t aStage = cfg.tileM * stageK, bStage = cfg.bRows() * stageK; // elements
  // TMA zero-fills past K, so a partial last tile is fine there.
  const int64_t kTiles = cfg.tma ? (m.k + stageK - 1) / stageK : m.k / stageK;
  const int64_t lookahead = cfg.tma ? stages - 1 : stages - 2;

  Value a2 = collapseLead(b, loc, m.a, m.lead);
  Value c2 = collapseLead(b, loc, out, m.lead);
  Value rowsM = memref::DimOp::create(b, loc, a2, 0);
  Value rowsN = e.idx(m.n);
  Value one = e.idx(1);
  Type i64 = b.getI64Type();
  Value mapA, mapB, mapB2;
  if (cfg.tma) {
    mapA = tensorMap(b, loc, a2, eb, stageK, cfg.tileM);
    mapB = tensorMap(b, loc, m.b, eb, stageK, cfg.tileN);
    if (cfg.dualB)
      mapB2 = tensorMap(b, loc, secondB, eb, stageK, cfg.tileN);
  }
  OpBuilder::InsertionGuard guard(b);
  // TMA: no static shared memory but the stages, aligned at run time, and the mbarriers.
  decoda::gpu_contraction::TiledLaunch tiled = decoda::gpu_contraction::createTiledLaunch(
      b, loc, rowsM, m.n, cfg.tileM, cfg.tileN, cfg.launchThreads(),
      cfg.tma ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{stages, aStage},
      {stages, bStage}, m.elementType,
      cfg.tma ? arith::ConstantIntOp::create(b, loc, b.getI32Type(), cfg.tmaSharedBytes())
                    .getResult()
              : Value());
  Value aTiles = tiled.aTiles, bTiles = tiled.bTiles, tid = tiled.tid, m0 = tiled.m0,
        n0 = tiled.n0;
  const bool ws = cfg.producerWarpgroup();
  Value wg = e.div(tid, 128);
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);

  // cp.async, one stage: every thread copies 16-byte chunks of the A and B tiles of k offset
  // `k0`, each to its place in the core-matrix layout.
  auto copyStage = [&](Value stage, Value k0) {
    auto copyTile = [&](Value src, Value dst, int64_t rows, Value base, Value limit) {
      int64_t chunks = rows * chunksPerRow;
      for (int64_t i = 0; i < chunks / cfg.threads(); ++i) {
        Value c = e.add(tid, e.idx(i * cfg.threads()));
        Value r = e.div(c, chunksPerRow), ch = e.rem(c, chunksPerRow);
        Value off = e.add(e.add(e.mul(e.div(r, 8), sbo / eb), e.mul(ch, lbo / eb)),
                          e.mul(e.rem(r, 8), perChunk));
        Value g = e.add(base, r);
        Value inside = e.lt(g, limit);
        // A row past the end reads nothing (source size 0: zero fill) from a valid address.
        Value row = e.select(inside, g, base);
        Value count = e.select(inside, e.idx(perChunk), e.idx(0));
        nvgpu::DeviceAsyncCopyOp::create(b, loc, tokenType, dst, ValueRange{stage, off}, src,
                                         ValueRange{row, e.add(k0, e.mul(ch, perChunk))},
                                         b.getIndexAttr(perChunk), count, b.getUnitAttr());
      }
    };
    copyTile(a2, aTiles, cfg.tileM, m0, rowsM);
    copyTile(m.b, bTiles, cfg.tileN, n0, rowsN);
  };

  // Shared-window addresses of the stage arrays (TMA: stage s's A tile at aBase + s *
  // stageBytes, its B tile after it; the mbarriers after the stages: "full" ones, then with a
  // producer warpgroup "empty" ones), and the descriptor bits that do not depend on the
  // address (LBO, SBO, swizzle; base offset 0).
  auto i64c = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i64, v).getResult(); };
  auto addressOf = [&](Value tiles) {
    Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, tiles);
    return arith::IndexCastUIOp::create(b, loc, i64, p).getResult();
  };
  const int64_t stageBytes = (aStage + bStage) * eb;
  Value aBase, bBase, aStride, bStride, barriers;
  if (cfg.tma) {
    auto dynType = MemRefType::get(
        {ShapedType::kDynamic}, b.getI8Type(), MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
    Value dyn = gpu::DynamicSharedMemoryOp::create(b, loc, dynType);
    // The swizzle pattern repeats every 1024 bytes and TMA and wgmma apply it to address bits
    // 4-9: the stages start at a multiple of 1024.
    Value raw = addressOf(dyn);
    aBase = arith::AndIOp::create(b, loc, arith::AddIOp::create(b, loc, raw, i64c(1023)),
                                  i64c(~int64_t(1023)));
    bBase = arith::AddIOp::create(b, loc, aBase, i64c(aStage * eb));
    aStride = bStride = i64c(stageBytes);
    barriers = arith::AddIOp::create(b, loc, aBase, i64c(stages * stageBytes));
  } else {
    aBase = addressOf(aTiles), bBase = addressOf(bTiles);
    aStride = i64c(aStage * eb), bStride = i64c(bStage * eb);
  }
  Value descHigh = i64c(((lbo >> 4) << 16) | ((sbo >> 4) << 32) |
                        (cfg.tma ? int64_t(1) << 62 : 0)); // swizzle mode 1: 128 bytes
  auto descriptor = [&](Value addr) {
    Value start = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, addr, i64c(4)), i64c(0x3FFF));
    return arith::OrIOp::create(b, loc, start, descHigh).getResult();
  };

  // TMA: pointers into shared memory, the maps, and one stage's load (by one thread): the
  // stage's full mbarrier expects the two boxes' bytes (counted whole, zero-filled parts too)
  // and completes when both have landed.
  auto sharedPtrType = LLVM::LLVMPointerType::get(ctx, 3);
  auto clusterPtrType = LLVM::LLVMPointerType::get(ctx, 7);
  auto sharedPtr = [&](Value addr) {
    return LLVM::IntToPtrOp::create(b, loc, sharedPtrType, addr).getResult();
  };
  // Barrier `i` (full: the stage; empty: stages + the stage).
  auto barrierOf = [&](Value i) {
    return sharedPtr(
        arith::AddIOp::create(b, loc, barriers, arith::MulIOp::create(b, loc, i, i64c(8))));
  };
  auto i32 = b.getI32Type();
  auto toI32 = [&](Value v) { return arith::IndexCastUIOp::create(b, loc, i32, v).getResult(); };
  auto toI64 = [&](Value v) { return arith::IndexCastUIOp::create(b, loc, i64, v).getResult(); };
  auto fullOf = [&](Value stage) { return barrierOf(toI64(stage)); };
  auto emptyOf = [&](Value stage) { return barrierOf(toI64(e.add(stage, e.idx(stages)))); };
  auto wait = [&](Value bar, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, bar, toI32(parity),
        arith::ConstantIntOp::create(b, loc, i32, 0x989680)); // suspend hint: 10 ms
  };
  auto loadStage = [&](Value stage, Value tile) {
    Value s64 = toI64(stage);
    Value bar = fullOf(stage);
    NVVM::MBarrierArriveExpectTxOp::create(
        b, loc, Type(), bar,
        arith::ConstantIntOp::create(b, loc, i32, stageBytes).getResult(),
        NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA), b.getBoolAttr(false),
        Value());
    Value k0 = toI32(e.mul(tile, stageK));
    auto load = [&](Value base, Value stride, Value map, Value row0) {
      Value dst = arith::AddIOp::create(b, loc, base, arith::MulIOp::create(b, loc, s64, stride));
      Value cluster = LLVM::AddrSpaceCastOp::create(b, loc, clusterPtrType, sharedPtr(dst));
      Value desc = LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx), map);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, cluster, desc, ValueRange{k0, toI32(row0)}, bar, ValueRange{}, Value(),
          Value(), NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE),
          b.getBoolAttr(false), nullptr, Value());
    };
    load(aBase, aStride, mapA, m0);
    load(bBase, bStride, mapB, n0);
    if (cfg.dualB) // the second weight's rows n0 .. below B's in the stage
      load(arith::AddIOp::create(b, loc, bBase, i64c(cfg.tileN * rowBytes)), bStride, mapB2, n0);
  };
  auto ifThen = [&](Value cond, llvm::function_ref<void()> body) {
    auto op = scf::IfOp::create(b, loc, TypeRange{}, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g3(b);
    b.setInsertionPointToStart(&op.getThenRegion().front());
    body();
  };
  auto isZero = [&](Value v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v, e.idx(0)).getResult();
  };
  Value thread0 = isZero(tid);

  // With a producer warpgroup, the rest of the kernel is the consumers' (warpgroups 1..).
  OpBuilder::InsertPoint afterRoles;
  Value mmaWg = wg;
  if (cfg.tma) {
    // A full mbarrier completes a phase on one arrival (the expect_tx) and the transaction
    // bytes; an empty one on an arrival by each consumer warp.
    ifThen(thread0, [&] {
      Value one32 = arith::ConstantIntOp::create(b, loc, i32, 1);
      Value warps = arith::ConstantIntOp::create(b, loc, i32, 4 * cfg.warpgroups());
      for (int64_t s = 0; s < stages; ++s) {
        NVVM::MBarrierInitOp::create(b, loc, fullOf(e.idx(s)), one32, Value());
        if (ws)
          NVVM::MBarrierInitOp::create(b, loc, emptyOf(e.idx(s)), warps, Value());
      }
      NVVM::FenceMbarrierInitOp::create(b, loc);
    });
    gpu::BarrierOp::create(b, loc);
    if (ws) {
      // The role branch on the warpgroup index broadcast from lane 0 (shfl.sync.idx): ptxas
      // then knows it is warp-uniform and keeps the wgmma inside it asynchronous (on tid / 128
      // it serialises them: "compiler-inserted WG.AR in divergent path").
      Value wg32 = arith::IndexCastUIOp::create(b, loc, i32, wg);
      Value uniform = gpu::ShuffleOp::create(b, loc, wg32, 0, 32, gpu::ShuffleMode::IDX)
                          .getShuffleResult();
      wg = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), uniform);
      auto roles = scf::IfOp::create(b, loc, TypeRange{}, isZero(wg), /*withElseRegion=*/true);
      {
        // Producer: thread 0 loads every tile, into a stage once its consumers released it
        // (tile t waits for the release of tile t - stages: phase t / stages - 1).
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(&roles.getThenRegion().front());
        ifThen(thread0, [&] {
          auto tiles = scf::ForOp::create(b, loc, e.idx(0), e.idx(kTiles), one);
          OpBuilder::InsertionGuard g4(b);
          b.setInsertionPointToStart(tiles.getBody());
          Value t = tiles.getInductionVar();
          Value stage = e.rem(t, stages);
          ifThen(e.lt(e.idx(stages - 1), t), [&] {
            wait(emptyOf(stage), e.rem(e.add(e.div(t, stages), e.idx(1)), 2));
          });
          loadStage(stage, t);
        });
      }
      afterRoles = b.saveInsertionPoint();
      b.setInsertionPointToStart(&roles.getElseRegion().front());
      mmaWg = arith::SubIOp::create(b, loc, wg, e.idx(1));
    } else {
      ifThen(thread0, [&] {
        for (int64_t t = 0; t < std::min(lookahead, kTiles); ++t)
          loadStage(e.idx(t), e.idx(t));
      });
    }
  } else {
    // Always `lookahead` groups (empty past the last tile), so the waits below count right.
    for (int64_t t = 0; t < lookahead; ++t) {
      if (t < kTiles)
        copyStage(e.idx(t), e.idx(t * stageK));
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }
  }

  // A's rows of this (MMA) warpgroup.
  Value aWarpgroup = arith::AddIOp::create(
      b, loc, aBase, arith::MulIOp::create(b, loc, toI64(mmaWg), i64c(8 * sbo)));

  // Accumulators: one struct of TN / 2 f32 or i32 (the D fragment; dualB: B's columns in
  // registers 0 .. TN / 2 - 1, the second weight's in TN / 2 .. TN - 1).
  Type f32 = m.integer() ? Type(b.getI32Type()) : Type(b.getF32Type());
  int64_t regs = cfg.bRows() / 2;
  auto accType = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(regs, f32));
  Value lane = e.rem(tid, 32), warpInGroup = e.rem(e.div(tid, 32), 4);
  Value g = e.div(lane, 4), q2 = e.mul(e.rem(lane, 4), 2);
  Value rowBase = e.add(e.add(m0, e.mul(mmaWg, 64)), e.add(e.mul(warpInGroup, 16), g));
  auto fragRow = [&](int64_t half) { return e.add(rowBase, e.idx(8 * half)); };
  auto fragCol = [&](int64_t i) { return e.add(e.add(n0, e.idx(8 * i)), q2); };
  auto pairType = VectorType::get({2}, f32);
  Value init;
  if (zeroInit) {
    init = LLVM::ZeroOp::create(b, loc, accType);
  } else {
    init = LLVM::UndefOp::create(b, loc, accType);
    Value zeroPair = arith::ConstantOp::create(b, loc, pairType, b.getZeroAttr(pairType));
    for (int64_t i = 0; i < cfg.tileN / 8; ++i) {
      Value col = fragCol(i);
      for (int64_t half = 0; half < 2; ++half) {
        Value row = fragRow(half);
        Value pair = decoda::gpu_contraction::loadPairOrZero(b, loc, c2, row, col, rowsM, rowsN,
                                                             pairType, zeroPair);
        for (int64_t j = 0; j < 2; ++j) {
          Value x = vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{j});
          init = LLVM::InsertValueOp::create(b, loc, init, x,
                                             ArrayRef<int64_t>{4 * i + 2 * half + j});
        }
      }
    }
  }

  // The epilogue's operands of every pair, loaded before the K loop so that their latency
  // hides behind it (they live in registers through the loop: 64 more a thread for one bf16 or
  // f32 operand of a 128-column tile, as many as the accumulators they meet at the end anyway):
  // at a clamped row and column (a valid address; the stores below stay guarded).
  SmallVector<SmallVector<Value>> operands;
  if (loadOperands) {
    Value lastRow = arith::SubIOp::create(b, loc, rowsM, one);
    Value lastCol = e.idx(m.n - 2); // N is a multiple of 8
    auto minu = [&](Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y).getResult(); };
    for (int64_t i = 0; i < cfg.tileN / 8; ++i)
      for (int64_t half = 0; half < 2; ++half)
        operands.push_back(
            loadOperands(b, minu(fragRow(half), lastRow), minu(fragCol(i), lastCol)));
  }

  auto loop = scf::ForOp::create(b, loc, e.idx(0), e.idx(kTiles), one, ValueRange{init});
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value stageIndex = e.rem(kt, stages);
    if (cfg.tma) {
      // The n-th use of a stage waits for phase n of its full mbarrier.
      wait(fullOf(stageIndex), e.rem(e.div(kt, stages), 2));
    } else {
      // Groups committed after tile kt's: stages - 3 (tile t is group t).
      NVVM::CpAsyncWaitGroupOp::create(b, loc, stages - 3);
      NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                                 NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      gpu::BarrierOp::create(b, loc);
      Value next = e.add(kt, e.idx(lookahead));
      ifThen(e.lt(next, e.idx(kTiles)), [&] { copyStage(e.rem(next, stages), e.mul(next, stageK)); });
      // Always one group per iteration (empty near the end), so the wait above counts right.
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }

    Value stage = toI64(stageIndex);
    Value aStageAddr = arith::AddIOp::create(b, loc, aWarpgroup,
                                             arith::MulIOp::create(b, loc, stage, aStride));
    Value bStageAddr =
        arith::AddIOp::create(b, loc, bBase, arith::MulIOp::create(b, loc, stage, bStride));
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    Value acc = loop.getRegionIterArgs()[0];
    auto type = m.integer()              ? NVVM::WGMMATypes::s8
                : m.elementType.isBF16() ? NVVM::WGMMATypes::bf16
                                         : NVVM::WGMMATypes::f16;
    auto typeD = m.integer() ? NVVM::WGMMATypes::s32 : NVVM::WGMMATypes::f32;
    for (int64_t j = 0; j < stageK / sliceK; ++j) {
      // Slice j: 32 bytes further along the row (swizzled: inside the 128-byte row; without
      // swizzle: two core matrices further).
      Value off = i64c(cfg.tma ? 32 * j : 2 * j * lbo);
      Value descA = descriptor(arith::AddIOp::create(b, loc, aStageAddr, off));
      Value descB = descriptor(arith::AddIOp::create(b, loc, bStageAddr, off));
      // B[n][k] is K-major: "col" (no transpose), like A's "row".
      acc = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, accType, acc, descA, descB,
          NVVM::MMAShapeAttr::get(ctx, 64, cfg.bRows(), sliceK), type, type, typeD,
          NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
          NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row, NVVM::MMALayout::col,
          /*satfinite=*/nullptr);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    if (ws) {
      // This warp's wgmma of tile kt - 1 is done: lane 0 releases its stage to the producer.
      Value release = arith::AndIOp::create(b, loc, isZero(lane), e.lt(e.idx(0), kt));
      ifThen(release, [&] {
        NVVM::MBarrierArriveOp::create(
            b, loc, Type(), emptyOf(e.rem(e.add(kt, e.idx(stages - 1)), stages)), Value(),
            NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA));
      });
    } else if (cfg.tma) {
      // Every warpgroup's wgmma of tile kt - 1 is done: its stage takes tile kt + stages - 1.
      gpu::BarrierOp::create(b, loc);
      Value next = e.add(kt, e.idx(lookahead));
      ifThen(arith::AndIOp::create(b, loc, thread0, e.lt(next, e.idx(kTiles))),
             [&] { loadStage(e.rem(next, stages), next); });
    }
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);

  Value acc = loop.getResult(0);
  for (int64_t i = 0; i < cfg.tileN / 8; ++i) {
    Value col = fragCol(i);
    for (int64_t half = 0; half < 2; ++half) {
      Value row = fragRow(half);
      Value inside = arith::AndIOp::create(b, loc, e.lt(row, rowsM), e.lt(col, rowsN));
      auto store = scf::IfOp::create(b, loc, TypeRange{}, inside, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      SmallVector<Value> xs;
      for (int64_t j = 0; j < 2; ++j)
        xs.push_back(LLVM::ExtractValueOp::create(b, loc, acc,
                                                  ArrayRef<int64_t>{4 * i + 2 * half + j}));
      Value pair = vector::FromElementsOp::create(b, loc, pairType, xs);
      Value second;
      if (cfg.dualB) {
        SmallVector<Value> ys;
        for (int64_t j = 0; j < 2; ++j)
          ys.push_back(LLVM::ExtractValueOp::create(
              b, loc, acc, ArrayRef<int64_t>{cfg.tileN / 2 + 4 * i + 2 * half + j}));
        second = vector::FromElementsOp::create(b, loc, pairType, ys);
      }
      if (storePair) {
        storePair(b, pair, row, col, c2,
                  loadOperands ? ArrayRef<Value>(operands[2 * i + half]) : ArrayRef<Value>(),
                  second);
        continue;
      }
      vector::StoreOp::create(b, loc, pair, c2, ValueRange{row, col}, /*nontemporal=*/false,
                              llvm::MaybeAlign(8));
    }
  }
  if (ws)
    b.restoreInsertionPoint(afterRoles);
  gpu::TerminatorOp::create(b, loc);
}

} // namespace mlir::decoda::gpu_contraction
