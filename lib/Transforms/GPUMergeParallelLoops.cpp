//===- GPUMergeParallelLoops.cpp - independent parallel loops as one kernel -===//
//
// decoda-gpu-merge-parallel-loops (GPUPasses.td): consecutive outermost scf.parallel nests
// that touch disjoint memory (q's and k's RoPE, the K and V cache appends of a cached
// attention) become one 1-D scf.parallel over the concatenation of their iteration spaces,
//
//   scf.parallel (%i) = (0) to (N1 + ... + Nk) step (1) {
//     if (%i < N1) { body 1 at delinearize(%i) }
//     else if (%i < N1 + N2) { body 2 at delinearize(%i - N1) } ...
//   } {decoda.merged_loops = k}
//
// so decoda-gpu-map-parallel-loops gives them one kernel (block-x * block-y threads a block)
// instead of k launches of a few microseconds each. Row-major delinearisation keeps
// consecutive threads on consecutive innermost elements (coalesced as before).
//
// Independence, per pair in the run: no memref one loop writes is read or written by another,
// memrefs compared by their root (through view-like ops) -- allocations are distinct from each
// other and from arguments; distinct function arguments do not overlap when one of them is
// written (only donated arguments are written, and the runtime refuses a donated buffer that
// overlaps another input, docs/ABI.md); the same global is the same root. A body with a side
// effect on no particular value, or an op whose effects are unknown, is not merged. Between
// two loops only allocations and side-effect-free ops may stand: they move before the run.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "GPUIndependence.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUMERGEPARALLELLOOPSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
using namespace mlir::decoda::gpu_independence;

struct GPUMergeParallelLoopsPass
    : public mlir::decoda::impl::GPUMergeParallelLoopsPassBase<GPUMergeParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      // Outermost loops only (a nest inside a loop or a kernel is that op's business).
      Operation *parent = block->getParentOp();
      bool outermost = true;
      for (Operation *p = parent; p; p = p->getParentOp())
        if (isa<scf::ParallelOp, gpu::LaunchOp, scf::ForOp, scf::WhileOp>(p))
          outermost = false;
      if (!outermost)
        continue;
      mergeRuns(block);
    }
  }

  void mergeRuns(Block *block) {
    RunCounts counts = mlir::decoda::gpu_independence::mergeRuns<scf::ParallelOp>(
        block, maxLoops, /*barriersAllowed=*/false,
        [](scf::ParallelOp, scf::ParallelOp loop) { return loop.getNumReductions() == 0; },
        [](scf::ParallelOp loop) -> Region & { return loop.getRegion(); },
        [&](MutableArrayRef<scf::ParallelOp> run) { return merge(run); });
    numMerged += counts.runs;
    numLoops += counts.pieces;
  }

  /// One 1-D loop over the concatenated iteration spaces of `run`, replacing them.
  scf::ParallelOp merge(MutableArrayRef<scf::ParallelOp> run) {
    OpBuilder b(run.front());
    Location loc = run.front().getLoc();
    auto idx = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
    // Per loop and dim: the trip count ceil((ub - lb) / step) (0 when ub <= lb).
    SmallVector<SmallVector<Value>> trips;
    SmallVector<Value> offsets; // the first flat index of each loop
    Value total = idx(0);
    for (scf::ParallelOp loop : run) {
      SmallVector<Value> t;
      Value count = idx(1);
      // Folded where static (the canonical lb 0, step 1 of convert-linalg-to-parallel-loops).
      for (auto [lb, ub, step] :
           llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
        Value span = b.createOrFold<arith::MaxSIOp>(
            loc, b.createOrFold<arith::SubIOp>(loc, ub, lb), idx(0));
        Value n = b.createOrFold<arith::CeilDivUIOp>(loc, span, step);
        t.push_back(n);
        count = b.createOrFold<arith::MulIOp>(loc, count, n);
      }
      trips.push_back(t);
      offsets.push_back(total);
      total = b.createOrFold<arith::AddIOp>(loc, total, count);
    }
    offsets.push_back(total);
    auto merged = scf::ParallelOp::create(b, loc, ValueRange{idx(0)}, ValueRange{total},
                                          ValueRange{idx(1)});
    merged->setAttr("decoda.merged_loops", b.getI64IntegerAttr(run.size()));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(merged.getBody());
    Value flat = merged.getInductionVars()[0];
    for (size_t l = 0; l < run.size(); ++l) {
      scf::ParallelOp loop = run[l];
      // if (flat < offsets[l + 1]) { ... } else { the next loops }; the last one unguarded.
      bool last = l + 1 == run.size();
      scf::IfOp branch;
      if (!last) {
        Value inside =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, flat, offsets[l + 1]);
        branch = scf::IfOp::create(b, loc, TypeRange{}, inside, /*withElseRegion=*/true);
        b.setInsertionPointToStart(&branch.getThenRegion().front());
      }
      // Row-major delinearisation of flat - offsets[l].
      Value rest = b.createOrFold<arith::SubIOp>(loc, flat, offsets[l]);
      unsigned rank = loop.getNumLoops();
      SmallVector<Value> ivs(rank);
      for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
        Value i = d == 0 ? rest : b.createOrFold<arith::RemUIOp>(loc, rest, trips[l][d]);
        if (d > 0)
          rest = b.createOrFold<arith::DivUIOp>(loc, rest, trips[l][d]);
        ivs[d] = b.createOrFold<arith::AddIOp>(
            loc, loop.getLowerBound()[d],
            b.createOrFold<arith::MulIOp>(loc, i, loop.getStep()[d]));
      }
      IRMapping map;
      map.map(loop.getInductionVars(), ivs);
      for (Operation &op : loop.getBody()->without_terminator())
        b.clone(op, map);
      if (!last)
        b.setInsertionPointToStart(&branch.getElseRegion().front());
    }
    for (scf::ParallelOp loop : run)
      loop.erase();
    return merged;
  }
};
} // namespace
