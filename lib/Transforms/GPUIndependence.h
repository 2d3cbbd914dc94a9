//===- GPUIndependence.h - which buffers a piece of GPU code touches ------*- C++ -*-===//
//
// Shared by the passes that merge neighbouring GPU work into one kernel
// (decoda-gpu-merge-parallel-loops, decoda-gpu-merge-launches): the buffers a region reads and
// writes, by their root through view-like ops, and whether two such sets conflict.
//
// Roots: a fresh allocation is distinct from everything else; distinct function arguments do
// not overlap when one of them is written (only donated arguments are written, and the runtime
// refuses a donated buffer that overlaps another input, docs/ABI.md); the same global is the
// same root.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_TRANSFORMS_GPUINDEPENDENCE_H
#define DECODA_LIB_TRANSFORMS_GPUINDEPENDENCE_H

#include "GPUContraction.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::decoda::gpu_independence {

/// Whether two roots can be the same memory.
inline bool mayAlias(Value a, Value b) {
  if (a == b)
    return true;
  auto isAlloc = [](Value v) {
    return v.getDefiningOp<memref::AllocOp>() || v.getDefiningOp<memref::AllocaOp>();
  };
  if (isAlloc(a) || isAlloc(b))
    return false; // a fresh allocation is distinct from everything else
  if (isa<BlockArgument>(a) && isa<BlockArgument>(b))
    return false; // distinct arguments: a written one is donated and overlaps no other input
  auto ga = a.getDefiningOp<memref::GetGlobalOp>(), gb = b.getDefiningOp<memref::GetGlobalOp>();
  if (ga && gb)
    return ga.getName() == gb.getName();
  if ((ga && isa<BlockArgument>(b)) || (gb && isa<BlockArgument>(a)))
    return false;
  return true;
}

/// Whether an op strictly between `from` and `to` (same block, nested ops included) may write
/// memory viewed from `root`: a write to a buffer whose root may alias it, or an op whose
/// effects are unknown (a call, say). A run-time check's "write" is its failure report.
inline bool mayWriteBetween(Operation *from, Operation *to, Value root) {
  for (Operation *op = from->getNextNode(); op && op != to; op = op->getNextNode()) {
    WalkResult r = op->walk([&](Operation *inner) {
      if (isa<cf::AssertOp>(inner))
        return WalkResult::advance();
      // An op's own effects first: linalg ops declare theirs and are also recursive.
      auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
      if (!effects)
        return inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                   ? WalkResult::advance() // its nested ops are visited
                   : WalkResult::interrupt();
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (auto &e : list) {
        if (!isa<MemoryEffects::Write>(e.getEffect()))
          continue;
        if (!e.getValue() || mayAlias(gpu_contraction::viewRoot(e.getValue()), root))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return true;
  }
  return false;
}

/// The roots a piece of code reads and writes.
struct Access {
  SmallVector<Value> reads, writes;
};

/// The roots the ops of `body` (the region of `owner`) read and write; buffers defined inside
/// `owner` (allocated in it, or its own block arguments: a kernel's shared memory) are private
/// and left out. Failure when an effect cannot be attributed to a buffer: an op of unknown
/// effects, or an effect on no value other than allocation -- except a `gpu.barrier` when
/// `barriersAllowed` (the caller keeps the code block-uniform).
inline FailureOr<Access> accessesOf(Operation *owner, Region &body, bool barriersAllowed) {
  Access acc;
  WalkResult result = body.walk([&](Operation *op) {
    // Recursive ops without effects of their own: their nested ops are visited (a linalg op
    // is recursive too but declares its own, read below).
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() && !isa<MemoryEffectOpInterface>(op))
      return WalkResult::advance();
    if (barriersAllowed && isa<gpu::BarrierOp>(op))
      return WalkResult::advance();
    // An L2 prefetch (a GEMV kernel's weight rows) is a hint: it changes no memory and
    // reads nothing into the kernel.
    if (isa<NVVM::CpAsyncBulkPrefetchOp>(op))
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return WalkResult::interrupt(); // unknown effects
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &e : effects) {
      Value v = e.getValue();
      if (!v) {
        // Allocation-like effects on no value (a private alloca) are harmless; anything else
        // (a barrier, a call) is not attributable.
        if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(e.getEffect()))
          continue;
        return WalkResult::interrupt();
      }
      Value root = gpu_contraction::viewRoot(v);
      if (root.getParentRegion() && owner->isAncestor(root.getParentRegion()->getParentOp()))
        continue;
      if (isa<MemoryEffects::Read>(e.getEffect()))
        acc.reads.push_back(root);
      else if (isa<MemoryEffects::Write>(e.getEffect()))
        acc.writes.push_back(root);
      else if (!isa<MemoryEffects::Allocate, MemoryEffects::Free>(e.getEffect()))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return acc;
}

/// Whether the two may touch the same memory with at least one of them writing it.
inline bool conflict(const Access &x, const Access &y) {
  auto any = [](ArrayRef<Value> as, ArrayRef<Value> bs) {
    for (Value a : as)
      for (Value b : bs)
        if (mayAlias(a, b))
          return true;
    return false;
  };
  return any(x.writes, y.reads) || any(x.writes, y.writes) || any(x.reads, y.writes);
}

/// Ops that may stand between two merged pieces (moved before the first).
inline bool movable(Operation *op) {
  if (isa<memref::AllocOp>(op))
    return true;
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// What mergeRuns did: runs merged, and the pieces they held.
struct RunCounts {
  int64_t runs = 0, pieces = 0;
};

/// Merges every run of consecutive pieces (ops of type OpT) of `block` that `joins` accepts
/// (`joins(first, first)` for the first of a run, `joins(first, op)` for each next one), at
/// most `maxRun` long, with pairwise independent accesses (of `body(op)`: accessesOf) and only
/// `movable` ops between them, which move before the first; `merge` replaces a run by one op
/// and returns it; the scan goes on after it.
template <typename OpT>
RunCounts mergeRuns(Block *block, int64_t maxRun, bool barriersAllowed,
                    llvm::function_ref<bool(OpT first, OpT op)> joins,
                    llvm::function_ref<Region &(OpT)> body,
                    llvm::function_ref<OpT(MutableArrayRef<OpT>)> merge) {
  RunCounts counts;
  for (auto it = block->begin(); it != block->end();) {
    auto first = dyn_cast<OpT>(&*it);
    ++it;
    if (!first || !joins(first, first))
      continue;
    FailureOr<Access> firstAcc = accessesOf(first, body(first), barriersAllowed);
    if (failed(firstAcc))
      continue;
    SmallVector<OpT> run{first};
    SmallVector<Access> accesses{*firstAcc};
    SmallVector<Operation *> between, pending;
    for (auto next = it; next != block->end(); ++next) {
      Operation *op = &*next;
      auto piece = dyn_cast<OpT>(op);
      if (!piece) {
        if (!movable(op))
          break;
        pending.push_back(op);
        continue;
      }
      if (!joins(first, piece) || static_cast<int64_t>(run.size()) >= maxRun)
        break;
      FailureOr<Access> acc = accessesOf(piece, body(piece), barriersAllowed);
      if (failed(acc) ||
          llvm::any_of(accesses, [&](const Access &a) { return conflict(a, *acc); }))
        break;
      run.push_back(piece);
      accesses.push_back(*acc);
      between.append(pending);
      pending.clear();
    }
    if (run.size() < 2)
      continue;
    for (Operation *op : between)
      op->moveBefore(first);
    OpT merged = merge(run);
    it = std::next(Block::iterator(merged));
    ++counts.runs;
    counts.pieces += run.size();
  }
  return counts;
}

} // namespace mlir::decoda::gpu_independence

#endif // DECODA_LIB_TRANSFORMS_GPUINDEPENDENCE_H
