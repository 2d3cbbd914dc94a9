//===- CPUParallelLoops.cpp - one level of scf.parallel for OpenMP --------===//
//
// `convert-linalg-to-parallel-loops` and decoda-cpu-contraction-codegen leave scf.parallel
// loops, some nested in others, some over dims of extent 1 (the batch). OpenMP would collapse
// every dim of a parallel loop into one iteration space (index arithmetic in the innermost
// loop, no vectorisation) and fork again in nested ones. This pass keeps, per loop nest, one
// parallel loop over the leading dims up to the first that is not statically 1 and turns
// everything else into scf.for.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_CPUPARALLELLOOPSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
/// Static trip count of dim `i` of `op`, if known.
std::optional<int64_t> tripCount(scf::ParallelOp op, unsigned i) {
  std::optional<int64_t> lb = getConstantIntValue(op.getLowerBound()[i]);
  std::optional<int64_t> ub = getConstantIntValue(op.getUpperBound()[i]);
  std::optional<int64_t> step = getConstantIntValue(op.getStep()[i]);
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
}

/// Replaces `op` (no reductions) by a parallel loop over its first `numParallel` dims (none
/// when 0) around an scf.for nest over the others.
void split(scf::ParallelOp op, unsigned numParallel) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  unsigned rank = op.getNumLoops();
  IRMapping map;
  Block *body = op.getBody();

  auto buildFors = [&](OpBuilder &ob, unsigned from) {
    OpBuilder::InsertionGuard g(ob);
    for (unsigned i = from; i < rank; ++i) {
      auto f = scf::ForOp::create(ob, loc, op.getLowerBound()[i], op.getUpperBound()[i],
                                  op.getStep()[i]);
      map.map(body->getArgument(i), f.getInductionVar());
      ob.setInsertionPoint(f.getBody()->getTerminator());
    }
    for (Operation &inner : body->without_terminator())
      ob.clone(inner, map);
  };

  if (numParallel == 0) {
    buildFors(b, 0);
  } else {
    scf::ParallelOp::create(
        b, loc, op.getLowerBound().take_front(numParallel),
        op.getUpperBound().take_front(numParallel), op.getStep().take_front(numParallel),
        [&](OpBuilder &nb, Location, ValueRange ivs) {
          for (unsigned i = 0; i < numParallel; ++i)
            map.map(body->getArgument(i), ivs[i]);
          buildFors(nb, numParallel);
        });
  }
  op.erase();
}

struct CPUParallelLoopsPass
    : public mlir::decoda::impl::CPUParallelLoopsPassBase<CPUParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Post-order: inner loops are handled (serialised) before the loop that contains them.
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp op) { loops.push_back(op); });
    for (scf::ParallelOp op : loops) {
      if (op.getNumReductions() != 0)
        continue; // left as is; convert-scf-to-openmp handles reductions
      bool nested = op->getParentOfType<scf::ParallelOp>() != nullptr;
      unsigned rank = op.getNumLoops();
      unsigned keep = 0;
      if (!nested && op->hasAttr("decoda.parallel_all_dims")) {
        keep = rank; // heavy bodies (tiled contractions): distribute every dim
        op->removeAttr("decoda.parallel_all_dims");
      } else if (!nested) {
        // Leading dims while they give fewer than kEnough static iterations; a dynamic dim is
        // taken and ends the run; the innermost dim stays sequential (vectorisable) unless it
        // is the only one.
        constexpr int64_t kEnough = 16;
        int64_t staticTrips = 1;
        bool dynamic = false;
        for (unsigned i = 0; i < rank; ++i) {
          if (i > 0 && i + 1 == rank)
            break;
          std::optional<int64_t> t = tripCount(op, i);
          keep = i + 1;
          if (!t) {
            dynamic = true;
            break;
          }
          staticTrips *= *t;
          if (staticTrips >= kEnough)
            break;
        }
        if (!dynamic && staticTrips < minTripCount)
          keep = 0;
      }
      if (keep == rank) {
        ++numParallel;
        continue;
      }
      numSerialized += rank - keep;
      if (keep > 0)
        ++numParallel;
      split(op, keep);
    }
  }
};
} // namespace
