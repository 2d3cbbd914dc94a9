//===- GPUPromoteAccumulators.cpp - reduction accumulators in registers ---===//
//
// decoda-gpu-promote-accumulators (GPUPasses.td): a linalg reduction that no dedicated kernel
// takes becomes, after convert-linalg-to-parallel-loops, an scf.for over the reduced dims
// that loads its output element, adds to it and stores it back every iteration:
//
//   scf.for %k = 0 to %K {
//     %a = memref.load %acc[%i, %j]        // loop-invariant indices
//     ...                                  // loads of the inputs, arithmetic
//     memref.store %s, %acc[%i, %j]
//   }
//
// On the GPU each iteration then ends with a global store that may alias the next iteration's
// input loads (distinct kernel parameters), so neither LLVM nor ptxas hoists those loads over
// it: the loop waits one global latency per iteration or two (a per-head decoda.linear at a
// decode step, 64 to 512 of them). When nothing else in the loop may touch %acc's memory (its
// root, through views, is an allocation or an argument distinct from every other buffer the
// loop reads or writes: the independence rules of decoda-gpu-merge-parallel-loops) and the
// loop has no op of unknown effects, the element is loaded once before the loop, carried as
// an iter_arg and stored once after it. The same additions in the same order: bit-identical
// results. Loops are visited innermost first, so a nest of reduction loops is promoted level
// by level; loops inside a gpu.launch (the dedicated kernels) are left alone. (A loop of zero
// iterations now stores back the value it loaded.)
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "GPUContraction.h"
#include "GPUIndependence.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUPROMOTEACCUMULATORSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
using decoda::gpu_contraction::viewRoot;
using decoda::gpu_independence::mayAlias;

/// A load and a later store of one element at loop-invariant indices, directly in the body.
struct Accumulator {
  memref::LoadOp load;
  memref::StoreOp store;
};

/// The accumulators of `loop` that can live in registers (none when the body has an op of
/// unknown effects).
SmallVector<Accumulator> accumulatorsOf(scf::ForOp loop) {
  SmallVector<Operation *> accesses; // every memref.load / memref.store, nested ones too
  bool unknown = false;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp>(op)) {
      accesses.push_back(op);
      return;
    }
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || isMemoryEffectFree(op))
      return; // (nested ops are walked)
    // Allocation alone (a temporary of the body) touches nothing that exists before it.
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (effects && effects.hasEffect<MemoryEffects::Allocate>() &&
        !effects.hasEffect<MemoryEffects::Read>() && !effects.hasEffect<MemoryEffects::Write>())
      return;
    unknown = true;
  });
  if (unknown)
    return {};
  auto memrefOf = [](Operation *op) {
    if (auto l = dyn_cast<memref::LoadOp>(op))
      return l.getMemRef();
    return cast<memref::StoreOp>(op).getMemRef();
  };
  auto invariant = [&](ValueRange indices) {
    return llvm::all_of(indices, [&](Value v) { return loop.isDefinedOutsideOfLoop(v); });
  };

  SmallVector<Accumulator> out;
  Block *body = loop.getBody();
  for (Operation &op : *body) {
    auto store = dyn_cast<memref::StoreOp>(&op);
    if (!store || !invariant(store.getIndices()) ||
        !loop.isDefinedOutsideOfLoop(store.getMemRef()))
      continue;
    Value root = viewRoot(store.getMemRef());
    memref::LoadOp load;
    bool ok = true;
    for (Operation *access : accesses) {
      if (access == store.getOperation())
        continue;
      Value other = viewRoot(memrefOf(access));
      if (!mayAlias(root, other))
        continue;
      auto l = dyn_cast<memref::LoadOp>(access);
      // The one other access to the element: its load, directly in the body before the store,
      // through the same memref value at the same indices.
      if (!load && l && l->getBlock() == body && l->isBeforeInBlock(store) &&
          l.getMemRef() == store.getMemRef() && l.getIndices() == store.getIndices()) {
        load = l;
        continue;
      }
      ok = false;
      break;
    }
    if (ok && load)
      out.push_back({load, store});
  }
  return out;
}

struct GPUPromoteAccumulatorsPass
    : public mlir::decoda::impl::GPUPromoteAccumulatorsPassBase<GPUPromoteAccumulatorsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    // Post-order: inner loops before the loops around them (whose bodies then hold the
    // promoted inner loop with its hoisted load and sunk store).
    // Loops already inside a kernel (the flash-attention, GEMV, norm kernels) are its own
    // business: threads there may share memory.
    getOperation().walk([&](scf::ForOp loop) {
      if (!loop->getParentOfType<gpu::LaunchOp>())
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      SmallVector<Accumulator> accs = accumulatorsOf(loop);
      if (accs.empty())
        continue;
      rewriter.setInsertionPoint(loop);
      SmallVector<Value> inits;
      for (Accumulator &a : accs)
        inits.push_back(memref::LoadOp::create(rewriter, a.load.getLoc(), a.load.getMemRef(),
                                               a.load.getIndices()));
      unsigned first = loop.getNumResults();
      FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
          rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
          [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
            SmallVector<Value> yielded;
            for (Accumulator &a : accs)
              yielded.push_back(a.store.getValueToStore());
            return yielded;
          });
      if (failed(replaced))
        continue;
      auto newLoop = cast<scf::ForOp>(replaced->getOperation());
      rewriter.setInsertionPointAfter(newLoop);
      for (auto [i, a] : llvm::enumerate(accs)) {
        Value carried = newLoop.getRegionIterArgs()[first + i];
        rewriter.replaceAllUsesWith(a.load.getResult(), carried);
        memref::StoreOp::create(rewriter, a.store.getLoc(), newLoop.getResult(first + i),
                                a.store.getMemRef(), a.store.getIndices());
        rewriter.eraseOp(a.store);
        rewriter.eraseOp(a.load);
      }
      numPromoted += accs.size();
    }
  }
};
} // namespace
