//===- ForwardTransposedCopies.cpp - read transposed copies as views ------===//
//
// decoda-forward-transposed-copies (Passes.td): after bufferization,
//
//   %buf = memref.alloc(...)
//   linalg.transpose ins(%src) outs(%buf) permutation = P
//   ... linalg ops reading %buf (or subviews of it, in nested loops too) ...
//   memref.dealloc %buf
//
// becomes `%v = memref.transpose %src (P)` read in place of %buf (each subview rebuilt on %v,
// its strided result type inferred), the copy, its buffer and its deallocations gone. Linalg
// ops index any strided buffer, so the readers compute the same values from the same memory.
// The case it is for: ONNX attention keeps KV caches as [B, H, S, D] and decoda.attention reads
// [B, S, H, D], so every step copied the attended keys and values into a transposed buffer
// (GroupQueryAttention on the CPU: a read and a write of the whole cache per step).
//
// Only when the permutation keeps the last dim last and %src is contiguous along it (readers
// keep their unit-stride rows); every use of %buf is the copy itself, a deallocation, a memref.dim, a subview
// (whose uses obey the same rule) or an input (not an init) of a linalg op; every reader lies
// after the copy in its block (or inside ops after it); and nothing between the copy and the
// last reader may write memory %src views (GPUIndependence.h: a write to an aliasing root, or
// an op of unknown effects).
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "GPUIndependence.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_FORWARDTRANSPOSEDCOPIESPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {

/// Whether every use of `v` (a copy's buffer or a view of it) only reads it through linalg
/// inputs, memref.dim and subviews; deallocations of the buffer itself go to `deallocs`.
bool onlyRead(Value v, linalg::TransposeOp copy, SmallVectorImpl<memref::DeallocOp> &deallocs,
              SmallVectorImpl<Operation *> &readers) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (user == copy.getOperation())
      continue;
    if (auto d = dyn_cast<memref::DeallocOp>(user)) {
      if (v != copy.getInit())
        return false;
      deallocs.push_back(d);
      continue;
    }
    if (isa<memref::DimOp>(user)) {
      readers.push_back(user);
      continue;
    }
    if (auto sub = dyn_cast<memref::SubViewOp>(user)) {
      readers.push_back(user);
      if (!onlyRead(sub.getResult(), copy, deallocs, readers))
        return false;
      continue;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    if (!linalgOp || !linalgOp.isDpsInput(&use))
      return false;
    readers.push_back(user);
  }
  return true;
}

/// Rebuilds the uses of `from` on `to` (a value of the same shape, another layout): subviews
/// are created anew on it (their result types inferred), dims and linalg inputs take it as is.
void rebuildUses(Value from, Value to) {
  for (OpOperand &use : llvm::make_early_inc_range(from.getUses())) {
    Operation *user = use.getOwner();
    if (auto sub = dyn_cast<memref::SubViewOp>(user)) {
      OpBuilder b(sub);
      auto type = memref::SubViewOp::inferRankReducedResultType(
          sub.getType().getShape(), cast<MemRefType>(to.getType()), sub.getMixedOffsets(),
          sub.getMixedSizes(), sub.getMixedStrides());
      auto fresh = memref::SubViewOp::create(b, sub.getLoc(), cast<MemRefType>(type), to,
                                             sub.getMixedOffsets(), sub.getMixedSizes(),
                                             sub.getMixedStrides());
      rebuildUses(sub.getResult(), fresh.getResult());
      sub.erase();
      continue;
    }
    use.set(to);
  }
}

struct ForwardTransposedCopiesPass
    : public mlir::decoda::impl::ForwardTransposedCopiesPassBase<ForwardTransposedCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> copies;
    getOperation().walk([&](linalg::TransposeOp t) {
      if (t.hasPureBufferSemantics())
        copies.push_back(t);
    });
    for (linalg::TransposeOp copy : copies) {
      // Readers keep unit-stride rows (vector loads along the last dim): the permutation
      // keeps the last dim last and the source is contiguous along it.
      ArrayRef<int64_t> permutation = copy.getPermutation();
      auto srcType = cast<MemRefType>(copy.getInput().getType());
      auto [srcStrides, srcOffset] = srcType.getStridesAndOffset();
      (void)srcOffset;
      if (permutation.empty() || permutation.back() != (int64_t)permutation.size() - 1 ||
          srcStrides.empty() || srcStrides.back() != 1)
        continue;
      Value buf = copy.getInit();
      auto alloc = buf.getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != copy->getBlock())
        continue;
      SmallVector<memref::DeallocOp> deallocs;
      SmallVector<Operation *> readers;
      if (!onlyRead(buf, copy, deallocs, readers))
        continue;
      // Every reader after the copy, in its block; the last one bounds the span the source
      // must stay unwritten. Deallocations after the last reader.
      Block *block = copy->getBlock();
      Operation *last = copy;
      bool ordered = true;
      for (Operation *r : readers) {
        Operation *a = block->findAncestorOpInBlock(*r);
        if (!a || !copy->isBeforeInBlock(a)) {
          ordered = false;
          break;
        }
        if (last->isBeforeInBlock(a))
          last = a;
      }
      for (memref::DeallocOp d : deallocs) {
        Operation *a = block->findAncestorOpInBlock(*d);
        if (!a || (last != a && !last->isBeforeInBlock(a)))
          ordered = false;
      }
      Value src = copy.getInput();
      if (!ordered ||
          decoda::gpu_independence::mayWriteBetween(
              copy, last->getNextNode(), decoda::gpu_contraction::viewRoot(src)))
        continue;
      OpBuilder b(copy);
      SmallVector<unsigned> perm(llvm::map_range(copy.getPermutation(),
                                                 [](int64_t p) { return (unsigned)p; }));
      AffineMap map = AffineMap::getPermutationMap(perm, b.getContext());
      Value view = memref::TransposeOp::create(b, copy.getLoc(), src, AffineMapAttr::get(map));
      copy.erase();
      for (memref::DeallocOp d : deallocs)
        d.erase();
      rebuildUses(buf, view);
      alloc.erase();
      ++numForwarded;
    }
  }
};
} // namespace
