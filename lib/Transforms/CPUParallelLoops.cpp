//===- CPUParallelLoops.cpp - one level of scf.parallel for OpenMP --------===//
//
// `convert-linalg-to-parallel-loops` and decoda-cpu-contraction-codegen leave scf.parallel
// loops, some nested in others, some over dims of extent 1 (the batch). OpenMP would collapse
// every dim of a parallel loop into one iteration space (index arithmetic in the innermost
// loop, no vectorisation) and fork again in nested ones. This pass keeps, per loop nest, one
// parallel loop over the leading dims up to the first that is not statically 1 and turns
// everything else into scf.for. A nest whose static work estimate is below `min-work` element
// operations runs sequentially.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"

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

constexpr int64_t kWorkCap = int64_t(1) << 40;

int64_t mulCapped(int64_t a, int64_t b) {
  return (a != 0 && b > kWorkCap / a) ? kWorkCap : std::min(a * b, kWorkCap);
}

std::optional<int64_t> blockWork(Block &block);

/// A static estimate of the element operations `op` performs: its widest vector operand or
/// result (1 for scalars), 10 times that for math functions (libm calls or long polynomials);
/// loops multiply their bodies by static trip counts, copies count their elements. nullopt
/// when unknown: a dynamic trip count, a call, a while loop, a copy of a dynamic shape.
std::optional<int64_t> opWork(Operation *op) {
  if (auto f = dyn_cast<scf::ForOp>(op)) {
    std::optional<int64_t> lb = getConstantIntValue(f.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(f.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(f.getStep());
    std::optional<int64_t> body = blockWork(*f.getBody());
    if (!lb || !ub || !step || *step <= 0 || !body)
      return std::nullopt;
    return mulCapped(std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step), *body);
  }
  if (auto p = dyn_cast<scf::ParallelOp>(op)) {
    std::optional<int64_t> work = blockWork(*p.getBody());
    for (unsigned i = 0; work && i < p.getNumLoops(); ++i) {
      std::optional<int64_t> t = tripCount(p, i);
      work = t ? std::optional<int64_t>(mulCapped(*t, *work)) : std::nullopt;
    }
    return work;
  }
  if (isa<scf::WhileOp, CallOpInterface>(op))
    return std::nullopt;
  if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    auto t = cast<MemRefType>(copy.getSource().getType());
    return t.hasStaticShape() ? std::optional<int64_t>(t.getNumElements()) : std::nullopt;
  }
  int64_t work = 0;
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    for (Region &r : ifOp->getRegions())
      for (Block &b : r) {
        std::optional<int64_t> w = blockWork(b);
        if (!w)
          return std::nullopt;
        work = std::max(work, *w); // one branch runs
      }
    return work;
  }
  for (Region &r : op->getRegions())
    for (Block &b : r) {
      std::optional<int64_t> w = blockWork(b);
      if (!w)
        return std::nullopt;
      work = std::min(work + *w, kWorkCap);
    }
  int64_t elements = 1;
  for (Type t : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto v = dyn_cast<VectorType>(t))
      elements = std::max(elements, v.getNumElements());
  int64_t weight = op->getDialect() && op->getDialect()->getNamespace() == "math" ? 10 : 1;
  return std::min(work + weight * elements, kWorkCap);
}

std::optional<int64_t> blockWork(Block &block) {
  int64_t work = 0;
  for (Operation &op : block) {
    std::optional<int64_t> w = opWork(&op);
    if (!w)
      return std::nullopt;
    work = std::min(work + *w, kWorkCap);
  }
  return work;
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
      // Too little work for a parallel region: forking and joining the threads costs more
      // (microseconds on a quiet machine, far more when a thread has to be scheduled first),
      // e.g. a one-token decode step's RoPE, norms, epilogues and fills.
      std::optional<int64_t> work = nested ? std::nullopt : opWork(op);
      if (!nested && work && *work < minWork) {
        ++numSmall;
        numSerialized += rank;
        op->removeAttr("decoda.parallel_all_dims");
        split(op, 0);
        continue;
      }
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
