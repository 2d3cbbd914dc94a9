//===- GPUTensorCoreMatmul.cpp - projection contractions on tensor cores --===//
//
// decoda-gpu-tensorcore-matmul (GPUPasses.td): a bf16/f16 x bf16/f16 -> f32 or an
// i8 x i8 -> i32 contraction C[m, n] += A[m, k] * B[n, k] becomes one gpu.launch per
// contraction:
//
//   block (bn, bm): C[bm*TM : +TM, bn*TN : +TN], threads = 32 * WM * WN (warps WM x WN)
//   shared As[2][TM][SK + P], Bs[2][TN][SK + P]   (two stages, rows padded by P = 16 bytes)
//   stage 0 <- tile 0 (cp.async, zero-filled past M / N)
//   for kt in [0, K / TK):
//     if kt + 1 < K / TK: stage (kt+1)%2 <- tile kt+1; wait until 1 group is pending
//     else: wait for all
//     barrier
//     for each 32-byte k slice: ldmatrix A (x4) and B (x2) fragments, one mma.sync
//     barrier
//   store the f32 / i32 accumulators (guarded by M and N), or, when the contraction starts
//   from zero and an elementwise consumer of C follows (GPUContraction.h, fusableEpilogue:
//   the bf16/f16 rounding, residual adds, a GLU product, the INT8 dequantisation), the
//   consumer's result of each accumulator pair (one 4-byte store of two bf16/f16)
//
// With `wgmma` (sm_90a) a bf16/f16 contraction, and an INT8 one whose K is a multiple of the
// 64-byte stage, gets the warpgroup-MMA kernel of GPUWgmmaKernel.cpp instead (the epilogue
// fused the same way, through its store callback and storeThroughEpilogue); other INT8 ones
// keep the kernel here. With TMA, a GLU's gate and up projections (one A, the gate read only
// by the up projection's fused epilogue) are first paired into one kernel of two weights
// (`gate-up`; GateUp below), their dynamic-M dispatches merged into one before.
//
// The kernel is written in bytes: a k slice is 32 bytes of a row (16 bf16/f16 for m16n8k16,
// 32 i8 for m16n8k32), a stage SK = 2 * tile-k bytes (tile-k bf16 elements; for i8 2 * tile-k
// elements when K allows, else tile-k), a cp.async chunk 16 bytes.
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
// The same bytes for mma.m16n8k32 with .s8 (PTX ISA, "Matrix fragments for mma.m16n8k32"):
//   A (16x32): a0..a3 = 4 bytes each, A[g][4q..], A[g+8][4q..], A[g][4q+16..], A[g+8][4q+16..];
//   B (32x8): b0, b1 = B[k = 4q..][n = g], B[k = 4q+16..][n = g]; C (s32) as f32 above.
// Byte for byte these are the b16 fragments above (an 8x8 b16 matrix of ldmatrix is 8 rows of
// 16 bytes either way), so the same ldmatrix addressing in bytes loads both.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "GPUContraction.h"
#include "GPUMmaFragments.h"
#include "GPUWgmmaKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

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
  int64_t pitch() const { return tileK + 8; } // bf16 elements of a padded shared row
};

using decoda::gpu_contraction::Emitter;
using decoda::gpu_contraction::isIdentityLayout;
using ProjectionMatch = decoda::gpu_contraction::Match;
using decoda::gpu_contraction::Epilogue;

/// k elements per shared-memory stage: tile-k for bf16/f16; for i8 a stage is 2 * tile-k
/// elements (the same bytes per row), or tile-k (half of that) when K is not a multiple of
/// 2 * tile-k, if its 16-byte chunks still divide among the threads.
int64_t stageKFor(const ProjectionMatch &m, const Config &cfg) {
  if (!m.integer())
    return cfg.tileK;
  int64_t stageK = 2 * cfg.tileK;
  if (m.k % stageK != 0 && cfg.tileK % 32 == 0 &&
      (cfg.tileM * cfg.tileK / 16) % cfg.threads() == 0 &&
      (cfg.tileN * cfg.tileK / 16) % cfg.threads() == 0)
    stageK = cfg.tileK;
  return stageK;
}

/// A projection taken by the tensor cores, with its shared-memory stage.
struct Match : ProjectionMatch {
  int64_t stageK = 0; // k elements per shared-memory stage
  int64_t perChunk() const { return 16 / elementBytes(); } // elements per 16 bytes
  int64_t sliceK() const { return 32 / elementBytes(); }   // k of one mma.sync
  int64_t pitch() const { return stageK + perChunk(); }    // 16 bytes of padding per row
};

/// Why a projection contraction is not for the tensor cores, or "".
std::string refuse(const ProjectionMatch &m, const Config &cfg, bool tma) {
  if (m.elementType.isF32())
    return "operands are not bf16, f16 or i8 (f32 contractions stay SIMT: TF32 would change "
           "the numerics)";
  // The TMA kernel zero-fills past K: any K whose rows are 16-byte aligned.
  if (tma && !decoda::gpu_contraction::tmaAccepts(m))
    return "K = " + std::to_string(m.k) + ": rows of " + std::to_string(m.k * m.elementBytes()) +
           " bytes are not 16-byte aligned (TMA tensor maps need it)";
  int64_t stageK = stageKFor(m, cfg);
  if (!tma && m.k % stageK != 0)
    return "K = " + std::to_string(m.k) + " is not a multiple of " +
           (m.integer() ? std::to_string(stageK) + " (the shortest i8 stage)"
                        : "tile-k = " + std::to_string(stageK));
  if (m.n % 8 != 0)
    return "N = " + std::to_string(m.n) + " is not a multiple of 8";
  return "";
}

/// The kernel of `m`; with `epilogue` (fusableEpilogue, zeroInit) its body is applied to each
/// accumulator and the result stored to its output instead of `m.c`.
void emitKernel(OpBuilder &b, Match m, const Config &cfg, bool zeroInit, Epilogue epilogue) {
  Location loc = m.op.getLoc();
  MLIRContext *ctx = b.getContext();
  Emitter e{b, loc};
  Value a2 = decoda::gpu_contraction::collapseLead(b, loc, m.a, m.lead);
  Value c2 =
      decoda::gpu_contraction::collapseLead(
          b, loc, epilogue ? decoda::gpu_contraction::outputAsC(b, loc, epilogue, m.lead) : m.c,
          m.lead);
  // The lead extents, to recover (lead..., n) from a row of M for the epilogue's operands.
  SmallVector<Value> leadDims;
  if (epilogue)
    leadDims = decoda::gpu_contraction::leadExtents(b, loc, m, epilogue);
  Value rowsM = memref::DimOp::create(b, loc, a2, 0);
  Value rowsN = e.idx(m.n);
  Value one = e.idx(1);
  OpBuilder::InsertionGuard guard(b);
  decoda::gpu_contraction::TiledLaunch tiled = decoda::gpu_contraction::createTiledLaunch(
      b, loc, rowsM, m.n, cfg.tileM, cfg.tileN, cfg.threads(), {2, cfg.tileM, m.pitch()},
      {2, cfg.tileN, m.pitch()}, m.elementType);
  Value aTiles = tiled.aTiles, bTiles = tiled.bTiles, tid = tiled.tid, m0 = tiled.m0,
        n0 = tiled.n0;
  Value warp = e.div(tid, 32), lane = e.rem(tid, 32);
  Value wm = e.div(warp, cfg.warpsN), wn = e.rem(warp, cfg.warpsN);
  int64_t warpRows = cfg.tileM / cfg.warpsM, warpCols = cfg.tileN / cfg.warpsN;
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);

  // One stage: every thread copies 16-byte chunks of the A and B tiles of k offset `k0`.
  auto copyStage = [&](Value stage, Value k0) -> Value {
    SmallVector<Value> tokens;
    auto copyTile = [&](Value src, Value dst, int64_t rows, Value base, Value limit) {
      int64_t chunksPerRow = m.stageK / m.perChunk();
      int64_t chunks = rows * chunksPerRow;
      for (int64_t i = 0; i < chunks / cfg.threads(); ++i) {
        Value c = e.add(tid, e.idx(i * cfg.threads()));
        Value r = e.div(c, chunksPerRow);
        Value col = e.mul(e.rem(c, chunksPerRow), m.perChunk());
        Value g = e.add(base, r);
        Value inside = e.lt(g, limit);
        // A row past the end reads nothing (source size 0: zero fill) from a valid address.
        Value row = e.select(inside, g, base);
        Value count = e.select(inside, e.idx(m.perChunk()), e.idx(0));
        auto copy = nvgpu::DeviceAsyncCopyOp::create(
            b, loc, tokenType, dst, ValueRange{stage, r, col}, src,
            ValueRange{row, e.add(k0, col)}, b.getIndexAttr(m.perChunk()), count,
            b.getUnitAttr());
        tokens.push_back(copy.getAsyncToken());
      }
    };
    copyTile(a2, aTiles, cfg.tileM, m0, rowsM);
    copyTile(m.b, bTiles, cfg.tileN, n0, rowsN);
    return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokenType, tokens).getAsyncToken();
  };

  // Accumulators: fragsM x fragsN values of vector<2x2xf32> or vector<2x2xi32> (rows g and
  // g + 8 of a 16x8 tile).
  Type accElement = m.integer() ? Type(b.getI32Type()) : Type(b.getF32Type());
  auto accType = VectorType::get({2, 2}, accElement);
  auto pairType = VectorType::get({2}, accElement);
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
        Value pair = decoda::gpu_contraction::loadPairOrZero(b, loc, c2, row, col, rowsM, rowsN,
                                                             pairType, zeroPair);
        acc = vector::InsertOp::create(b, loc, pair, acc, ArrayRef<int64_t>{half});
      }
      init.push_back(acc);
    }
  }

  int64_t kTiles = m.k / m.stageK;
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
      Value group = copyStage(e.rem(next, 2), e.mul(next, m.stageK));
      nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(1));
      b.setInsertionPointToStart(&prefetch.getElseRegion().front());
      nvgpu::DeviceAsyncWaitOp::create(b, loc, first, b.getI32IntegerAttr(0));
    }
    gpu::BarrierOp::create(b, loc);
    Value stage = e.rem(kt, 2);
    SmallVector<Value> acc(loop.getRegionIterArgs().begin(), loop.getRegionIterArgs().end());
    // Registers of 32 bits: two bf16/f16 or four i8 each.
    int64_t perReg = 4 / m.elementBytes();
    auto aFragType = VectorType::get({4, perReg}, m.elementType);
    auto bFragType = VectorType::get({2, perReg}, m.elementType);
    Value aRow = e.rem(lane, 16), aCol = e.mul(e.div(lane, 16), m.perChunk());
    Value bRow = e.rem(lane, 8), bCol = e.mul(e.rem(e.div(lane, 8), 2), m.perChunk());
    // x4 over two n-fragments: lanes 16-31 address the rows of the second (n + 8).
    Value bRow4 = e.add(bRow, e.mul(e.div(lane, 16), 8));
    for (int64_t kk = 0; kk < m.stageK; kk += m.sliceK()) {
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
          auto [lo, hi] = decoda::gpu_mma::splitX4(b, loc, pair);
          bFrags.append({lo, hi});
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
                                       ArrayRef<int64_t>{16, 8, m.sliceK()});
        }
    }
    // Nobody overwrites this stage (the next iteration's copy) before every warp is done.
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, acc);
  }

  // Epilogue: each thread's accumulator pairs, rows g and g + 8 of each fragment. The
  // epilogue's other inputs of every pair are loaded first, unguarded at clamped indices (a
  // valid address; the stores stay guarded): issued together, they wait out one memory latency
  // rather than one per pair (ptxas does not hoist loads out of the stores' guards).
  SmallVector<SmallVector<Value>> operands;
  if (epilogue && epilogue.op.getNumDpsInputs() > 1 &&
      decoda::gpu_contraction::epilogueLoadsFit(epilogue,
                                                cfg.fragsM() * cfg.fragsN() * 4)) {
    Value lastRow = arith::SubIOp::create(b, loc, rowsM, e.idx(1));
    Value lastCol = e.idx(m.n - 2); // N is a multiple of 8
    auto minu = [&](Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y).getResult(); };
    for (int64_t mi = 0; mi < cfg.fragsM(); ++mi)
      for (int64_t ni = 0; ni < cfg.fragsN(); ++ni)
        for (int64_t half = 0; half < 2; ++half)
          operands.push_back(decoda::gpu_contraction::loadEpilogueOperands(
              b, loc, epilogue, leadDims, minu(fragRow(mi, half), lastRow),
              minu(fragCol(ni), lastCol), 2));
  }
  auto fusedStore = [&](Value pair, Value row, Value col, ArrayRef<Value> pre) {
    SmallVector<Value> accs;
    for (int64_t j = 0; j < 2; ++j)
      accs.push_back(vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{j}));
    decoda::gpu_contraction::storeThroughEpilogue(b, loc, epilogue, leadDims, c2, accs, row,
                                                  col, pre);
  };
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
        if (epilogue) {
          fusedStore(pair, row, col,
                     operands.empty()
                         ? ArrayRef<Value>()
                         : ArrayRef<Value>(operands[(mi * cfg.fragsN() + ni) * 2 + half]));
          continue;
        }
        vector::StoreOp::create(b, loc, pair, c2, ValueRange{row, col}, /*nontemporal=*/false,
                                llvm::MaybeAlign(8));
      }
    }
  gpu::TerminatorOp::create(b, loc);
}

/// Whether `a` and `b` are the same value or computed alike: the same result of equivalent
/// pure ops (OperationEquivalence: name, properties, attributes, result types) whose operands
/// are so, at most `depth` ops deep (the row-count tests that decoda-gpu-gemv puts before each
/// projection's dispatch).
bool sameValue(Value a, Value b, int depth = 6) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth == 0 || !isPure(x) || x->getNumRegions() ||
      cast<OpResult>(a).getResultNumber() != cast<OpResult>(b).getResultNumber())
    return false;
  return OperationEquivalence::isEquivalentTo(
      x, y,
      [&](Value u, Value v) { return success(sameValue(u, v, depth - 1)); },
      /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

/// Merges the dispatch `second` into `first`: two result-less scf.if on the same condition,
/// `first` before `second` with only allocations and effect-free ops between (moved before
/// `first`). Each branch of `second` goes to the end of the same branch of `first` (so the
/// ops keep their order), and two ifs that end up last in a branch and test the same
/// condition are merged in turn (the nested `M <= max-m` test of the dispatch). Returns false,
/// changing nothing, when the two do not have that form.
bool mergeDispatches(scf::IfOp first, scf::IfOp second) {
  if (first->getBlock() != second->getBlock() || first.getNumResults() ||
      second.getNumResults() || !sameValue(first.getCondition(), second.getCondition()) ||
      !first->isBeforeInBlock(second) ||
      first.getElseRegion().empty() != second.getElseRegion().empty())
    return false;
  for (Operation *o = first->getNextNode(); o != second.getOperation(); o = o->getNextNode())
    if (!isa<memref::AllocOp>(o) && !isMemoryEffectFree(o))
      return false;
  while (first->getNextNode() != second.getOperation())
    first->getNextNode()->moveBefore(first);
  auto append = [](Region &from, Region &to) {
    if (from.empty())
      return;
    Block &src = from.front(), &dst = to.front();
    while (!src.without_terminator().empty())
      src.front().moveBefore(dst.getTerminator());
  };
  append(second.getThenRegion(), first.getThenRegion());
  append(second.getElseRegion(), first.getElseRegion());
  second.erase();
  for (Region *r : {&first.getThenRegion(), &first.getElseRegion()}) {
    if (r->empty())
      continue;
    Block &blk = r->front();
    Operation *term = blk.getTerminator();
    auto last = dyn_cast_or_null<scf::IfOp>(term->getPrevNode());
    if (!last)
      continue;
    // The ifs of the two dispatches: the last one came from `second`; its partner is the
    // closest if before it.
    for (Operation *o = last->getPrevNode(); o; o = o->getPrevNode())
      if (auto prev = dyn_cast<scf::IfOp>(o)) {
        mergeDispatches(prev, last);
        break;
      }
  }
  return true;
}

/// The ancestors of `op1` and `op2` in their closest common block, when both are result-less
/// scf.if (the dynamic-M dispatches decoda-gpu-gemv made around two projections).
std::optional<std::pair<scf::IfOp, scf::IfOp>> dispatchesOf(Operation *op1, Operation *op2) {
  for (Operation *a = op1->getParentOp(); a; a = a->getParentOp()) {
    if (isa<func::FuncOp>(a))
      break;
    Operation *b2 = a->getBlock()->findAncestorOpInBlock(*op2);
    if (!b2)
      continue;
    auto i1 = dyn_cast<scf::IfOp>(a), i2 = dyn_cast<scf::IfOp>(b2);
    if (i1 && i2 && i1 != i2)
      return std::make_pair(i1, i2);
    return std::nullopt;
  }
  return std::nullopt;
}

struct GPUTensorCoreMatmulPass
    : public mlir::decoda::impl::GPUTensorCoreMatmulPassBase<GPUTensorCoreMatmulPass> {
  using Base::Base;

  /// The kernel of a gate/up pair, where the second projection's epilogue was; the two
  /// contractions, their fills and the epilogue are erased (C's temporaries once unused).
  void emitGateUp(decoda::gpu_contraction::GateUp &p,
                  const decoda::gpu_contraction::WgmmaConfig &wgCfg,
                  SmallVectorImpl<memref::AllocOp> &fusedTemporaries) {
    Location loc = p.m2.op.getLoc();
    Epilogue epi = p.epi;
    OpBuilder b(epi.op);
    SmallVector<Value> leadDims = decoda::gpu_contraction::leadExtents(b, loc, p.m2, epi);
    auto store = [&](OpBuilder &b2, Value pair, Value row, Value col, Value out2,
                     ArrayRef<Value>, Value firstPair) {
      SmallVector<Value> accs, gates;
      for (int64_t j = 0; j < 2; ++j) {
        accs.push_back(vector::ExtractOp::create(b2, loc, pair, ArrayRef<int64_t>{j}));
        gates.push_back(vector::ExtractOp::create(b2, loc, firstPair, ArrayRef<int64_t>{j}));
      }
      decoda::gpu_contraction::storeThroughEpilogue(
          b2, loc, epi, leadDims, out2, accs, row, col,
          decoda::gpu_contraction::gateUpOperands(b2, loc, p, leadDims, row, col, gates));
    };
    decoda::gpu_contraction::emitWgmmaKernel(
        b, p.m2, wgCfg, /*zeroInit=*/true,
        decoda::gpu_contraction::outputAsC(b, loc, epi, p.m2.lead), store,
        /*loadOperands=*/nullptr, /*secondB=*/p.m1.b);
    decoda::gpu_contraction::eraseGateUp(p, fusedTemporaries);
    numRewritten += 2;
    numWgmma += 1;
    numFillsFolded += 2;
    numEpiloguesFused += 1;
    ++numGateUp;
  }

  void runOnOperation() override {
    decoda::gpu_contraction::WgmmaConfig wgCfg{tileM, tileN, tileK, wgmmaStages};
    wgCfg.tma = wgmma && wgmmaTma;
    wgCfg.tmaStages = tmaStages;
    wgCfg.warpSpecialize = tmaWarpSpecialize;
    // The wgmma tiling first (without TMA INT8 may still take the mma.sync kernel, checked
    // next).
    if (wgmma) {
      std::string why = decoda::gpu_contraction::invalidWgmmaConfig(wgCfg);
      if (!why.empty()) {
        getOperation().emitError() << "decoda-gpu-tensorcore-matmul: invalid wgmma tiling tile-m="
                                   << wgCfg.tileM << " tile-n=" << wgCfg.tileN
                                   << " tile-k=" << wgCfg.tileK
                                   << (wgCfg.tma ? " tma-stages=" : " wgmma-stages=")
                                   << (wgCfg.tma ? wgCfg.tmaStages : wgCfg.stages) << ": " << why;
        return signalPassFailure();
      }
    }
    Config cfg{tileM, tileN, tileK, warpsM, warpsN};
    std::string mmaWhy;
    if (cfg.tileK < 16 || cfg.tileK % 16 != 0 || cfg.warpsM < 1 || cfg.warpsN < 1 ||
        cfg.tileM % (16 * cfg.warpsM) != 0 || cfg.tileN % (8 * cfg.warpsN) != 0 ||
        cfg.threads() > 1024 || (cfg.tileM * cfg.tileK / 8) % cfg.threads() != 0 ||
        (cfg.tileN * cfg.tileK / 8) % cfg.threads() != 0) {
      mmaWhy = "invalid tiling tile-m=" + std::to_string(cfg.tileM) +
               " tile-n=" + std::to_string(cfg.tileN) + " tile-k=" + std::to_string(cfg.tileK) +
               " warps-m=" + std::to_string(cfg.warpsM) +
               " warps-n=" + std::to_string(cfg.warpsN) +
               " (need tile-k a multiple of 16, tile-m a multiple of 16*warps-m, tile-n of "
               "8*warps-n, at most 1024 threads, and the 16-byte chunks of each tile a "
               "multiple of the thread count)";
    } else if (int64_t sharedBytes = 2 * (cfg.tileM + cfg.tileN) * cfg.pitch() * 2;
               sharedBytes > 48 * 1024) {
      mmaWhy = "the tiles need " + std::to_string(sharedBytes) +
               " bytes of shared memory, over the 48 KiB static limit";
    }
    // With TMA every contraction taken goes to the TMA wgmma kernel: the mma.sync tiling is
    // not used.
    if (!mmaWhy.empty() && !wgCfg.tma) {
      getOperation().emitError() << "decoda-gpu-tensorcore-matmul: " << mmaWhy;
      return signalPassFailure();
    }
    auto remarkEpilogue = [&](linalg::GenericOp op, const std::string &why) {
      if (report)
        op.emitRemark() << "decoda-gpu-tensorcore-matmul: epilogue not fused: " << why;
    };
    SmallVector<memref::AllocOp> fusedTemporaries;
    auto refuseMatch = [&](const ProjectionMatch &m) { return refuse(m, cfg, wgCfg.tma); };
    // A GLU's gate and up projections first: one kernel of two weights each.
    // Each weight's tile is at most 128 columns: both together are the 256 of one wgmma
    // (with tile-n = 256 the other projections keep their 256).
    decoda::gpu_contraction::WgmmaConfig dualCfg = wgCfg;
    dualCfg.dualB = true;
    dualCfg.tileN = std::min<int64_t>(wgCfg.tileN, 128);
    if (gateUp && fuseEpilogue && wgmma &&
        decoda::gpu_contraction::invalidWgmmaConfig(dualCfg).empty()) {
      decoda::gpu_contraction::zeroCopiesToFills(getOperation());
      SmallVector<linalg::GenericOp> contractions =
          decoda::gpu_contraction::contractionsUnder(getOperation());
      for (size_t i = 0; i + 1 < contractions.size(); ++i) {
        linalg::GenericOp op1 = contractions[i], op2 = contractions[i + 1];
        // Under dynamic-M dispatches (decoda-gpu-gemv: the GEMV kernels for a few rows, these
        // contractions for more), the two dispatches merge into one first when the pair is
        // otherwise plausible: float projections taken here, the same A, and op2's next op
        // reads op1's result.
        ProjectionMatch m1, m2;
        if (op1->getBlock() != op2->getBlock() &&
            decoda::gpu_contraction::matchProjection(op1, m1).empty() &&
            decoda::gpu_contraction::matchProjection(op2, m2).empty() && m1.a == m2.a &&
            !m1.integer() && refuseMatch(m1).empty() && refuseMatch(m2).empty() &&
            op2->getNextNode() && llvm::is_contained(op2->getNextNode()->getOperands(), m1.c))
          if (auto ifs = dispatchesOf(op1, op2))
            mergeDispatches(ifs->first, ifs->second);
        std::optional<decoda::gpu_contraction::GateUp> p =
            decoda::gpu_contraction::gateUpPair(op1, op2, refuseMatch);
        if (!p)
          continue;
        emitGateUp(*p, dualCfg, fusedTemporaries);
        ++i; // both taken
      }
    }
    auto counts = decoda::gpu_contraction::rewriteProjections(
        getOperation(), refuseMatch,
        [&](const ProjectionMatch &pm, bool zeroInit) {
          Match m;
          static_cast<ProjectionMatch &>(m) = pm;
          // The elementwise consumer of C (the INT8 dequantisation, a bf16/f16 rounding and
          // what decoda-fuse-elementwise joined to it) is fused when the accumulators start
          // at zero; the kernel then goes where the epilogue was (after its operands).
          Epilogue epilogue;
          if (zeroInit && fuseEpilogue)
            epilogue = decoda::gpu_contraction::fusableEpilogue(pm, remarkEpilogue);
          auto alloc = pm.c.getDefiningOp<memref::AllocOp>();
          OpBuilder b(epilogue ? epilogue.op.getOperation() : m.op.getOperation());
          // TMA (refuse() took only what its maps describe), else cp.async: INT8 there when K
          // is a multiple of its stage (2 * tile-k i8), else mma.sync.
          if (wgCfg.tma || (wgmma && (!pm.integer() || pm.k % (2 * tileK) == 0))) {
            SmallVector<Value> leadDims;
            if (epilogue)
              leadDims = decoda::gpu_contraction::leadExtents(b, m.op.getLoc(), pm, epilogue);
            auto store = [&](OpBuilder &b2, Value pair, Value row, Value col, Value out2,
                             ArrayRef<Value> operands, Value) {
              SmallVector<Value> accs;
              for (int64_t j = 0; j < 2; ++j)
                accs.push_back(
                    vector::ExtractOp::create(b2, m.op.getLoc(), pair, ArrayRef<int64_t>{j}));
              decoda::gpu_contraction::storeThroughEpilogue(
                  b2, m.op.getLoc(), epilogue, leadDims, out2, accs, row, col, operands);
            };
            // The epilogue's other inputs (the gate of a SwiGLU, a residual) are loaded ahead
            // of the stores (EpilogueLoadFn).
            auto load = [&](OpBuilder &b2, Value row, Value col) {
              return decoda::gpu_contraction::loadEpilogueOperands(b2, m.op.getLoc(), epilogue,
                                                                   leadDims, row, col, 2);
            };
            bool operandsToLoad = epilogue && epilogue.op.getNumDpsInputs() > 1 &&
                                  decoda::gpu_contraction::epilogueLoadsFit(epilogue,
                                                                            wgCfg.tileN / 2);
            decoda::gpu_contraction::emitWgmmaKernel(
                b, pm, wgCfg, zeroInit,
                epilogue ? decoda::gpu_contraction::outputAsC(b, m.op.getLoc(), epilogue, pm.lead)
                         : pm.c,
                epilogue ? decoda::gpu_contraction::StorePairFn(store) : nullptr,
                operandsToLoad ? decoda::gpu_contraction::EpilogueLoadFn(load) : nullptr);
            ++numWgmma;
          } else {
            m.stageK = stageKFor(pm, cfg);
            emitKernel(b, m, cfg, zeroInit, epilogue);
          }
          if (epilogue) {
            decoda::gpu_contraction::eraseEpilogue(epilogue);
            fusedTemporaries.push_back(alloc);
            ++numEpiloguesFused;
          }
        },
        [&](linalg::GenericOp op, const std::string &why) {
          if (report)
            op.emitRemark() << "decoda-gpu-tensorcore-matmul: left to the SIMT path: " << why;
        });
    // C is no longer written nor read once its epilogue is fused.
    for (memref::AllocOp alloc : fusedTemporaries)
      decoda::gpu_contraction::eraseIfUnused(alloc);
    numRewritten += counts.rewritten;
    numFillsFolded += counts.fillsFolded;
  }
};
} // namespace
