//===- WriteThroughTransposes.cpp - write gathers through transposed views -===//
//
// decoda-write-through-transposes (Passes.td): after bufferization,
//
//   %tmp = memref.alloc(...)
//   linalg.generic ins(...) outs(%tmp)                  // a gather: RoPE, a table lookup
//   ... ops that write nothing the generic reads ...
//   linalg.transpose ins(%tmp) outs(%dst) permutation = P
//   memref.dealloc %tmp
//
// becomes the generic writing `memref.transpose %dst (P^-1)` where the copy was, the buffer,
// the copy and the deallocations gone. The case it is for: Hugging Face exports rotate the new
// keys in [B, T, H, D] and transpose them into the present cache's [B, H, S, D] slice; the
// rotation now writes the slice itself (one pass over the keys instead of two; on the GPU one
// kernel less a layer: decoda-gpu-rope writes any view with unit-stride rows).
//
// Only generics whose body loads from memory (a gather) are moved: an elementwise generic may
// be a projection's epilogue, which the GPU kernels fuse only into identity-layout outputs, and
// a gather never is. Further conditions: the generic's loops are all parallel, its one output is
// %tmp indexed by a permutation (every element written once) and its payload does not read it;
// %tmp is used only by the generic, the copy, memref.dim (answered by the allocation's sizes)
// and deallocations after the copy; the
// permutation keeps the last dim last (unit-stride rows); nothing between the generic and the
// copy may write memory the generic reads (GPUIndependence.h: by root; an op of unknown effects
// counts as a write); and nothing the generic reads may be %dst's memory (it now writes %dst
// while it reads).
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "GPUIndependence.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_WRITETHROUGHTRANSPOSESPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
namespace gi = mlir::decoda::gpu_independence;

namespace {

/// The roots of the buffers `g` reads: its inputs and what its body loads (through views).
/// Failure when its body has an op of unknown effects.
FailureOr<SmallVector<Value>> readRoots(linalg::GenericOp g) {
  SmallVector<Value> roots;
  for (Value in : g.getDpsInputs())
    if (isa<MemRefType>(in.getType()))
      roots.push_back(decoda::gpu_contraction::viewRoot(in));
  FailureOr<gi::Access> body = gi::accessesOf(g, g.getRegion(), /*barriersAllowed=*/false);
  if (failed(body) || !body->writes.empty())
    return failure();
  llvm::append_range(roots, body->reads);
  return roots;
}

struct WriteThroughTransposesPass
    : public mlir::decoda::impl::WriteThroughTransposesPassBase<WriteThroughTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> copies;
    getOperation().walk([&](linalg::TransposeOp t) {
      if (t.hasPureBufferSemantics())
        copies.push_back(t);
    });
    for (linalg::TransposeOp copy : copies)
      if (succeeded(rewrite(copy)))
        ++numRewritten;
  }

  LogicalResult rewrite(linalg::TransposeOp copy) {
    ArrayRef<int64_t> perm = copy.getPermutation();
    if (perm.empty() || perm.back() != (int64_t)perm.size() - 1)
      return failure();
    Value tmp = copy.getInput();
    auto alloc = tmp.getDefiningOp<memref::AllocOp>();
    Block *block = copy->getBlock();
    if (!alloc || alloc->getBlock() != block)
      return failure();
    // The one writer of %tmp, the copy, dims and deallocations after the copy.
    linalg::GenericOp producer;
    SmallVector<Operation *> deallocs;
    for (OpOperand &use : tmp.getUses()) {
      Operation *user = use.getOwner();
      if (user == copy.getOperation())
        continue;
      if (auto dim = dyn_cast<memref::DimOp>(user)) {
        if (!dim.getConstantIndex())
          return failure();
        continue;
      }
      if (isa<memref::DeallocOp>(user) && user->getBlock() == block &&
          copy->isBeforeInBlock(user)) {
        deallocs.push_back(user);
        continue;
      }
      auto g = dyn_cast<linalg::GenericOp>(user);
      if (!g || producer || g->getBlock() != block || !g.isDpsInit(&use) ||
          g.getNumDpsInits() != 1 || !g->isBeforeInBlock(copy))
        return failure();
      producer = g;
    }
    if (!producer || producer.getNumParallelLoops() != producer.getNumLoops() ||
        !producer.getIndexingMapsArray().back().isPermutation() ||
        producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)))
      return failure();
    // A gather: the body loads from memory (never a projection's epilogue).
    bool gathers = false;
    producer.getRegion().walk([&](memref::LoadOp) { gathers = true; });
    if (!gathers)
      return failure();
    FailureOr<SmallVector<Value>> reads = readRoots(producer);
    if (failed(reads))
      return failure();
    Value dstRoot = decoda::gpu_contraction::viewRoot(copy.getInit());
    for (Value root : *reads)
      if (gi::mayAlias(root, dstRoot) || gi::mayWriteBetween(producer, copy, root))
        return failure();

    // The generic moves to the copy (its operands dominate it) and writes the destination
    // through the inverse permutation: view dim j is the destination's dim perm^-1[j].
    producer->moveBefore(copy);
    OpBuilder b(producer);
    SmallVector<AffineExpr> exprs(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      exprs[perm[i]] = b.getAffineDimExpr(i);
    AffineMap inverse = AffineMap::get(perm.size(), 0, exprs, b.getContext());
    Value view = memref::TransposeOp::create(b, copy.getLoc(), copy.getInit(),
                                             AffineMapAttr::get(inverse));
    producer.getDpsInitOperand(0)->set(view);
    // The buffer's extents, wherever they are asked for: the allocation's sizes.
    for (Operation *user : llvm::make_early_inc_range(tmp.getUsers()))
      if (auto dim = dyn_cast<memref::DimOp>(user)) {
        OpBuilder db(dim);
        OpFoldResult size = alloc.getMixedSizes()[*dim.getConstantIndex()];
        dim.replaceAllUsesWith(getValueOrCreateConstantIndexOp(db, dim.getLoc(), size));
        dim.erase();
      }
    copy.erase();
    for (Operation *d : deallocs)
      d->erase();
    if (alloc->use_empty())
      alloc.erase();
    return success();
  }
};
} // namespace
