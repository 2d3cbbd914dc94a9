//===- ConcatsInPlace.cpp - concatenated parts computed in their slices -----===//
//
// decoda-concats-in-place (Passes.td): a tensor.concat some of whose operands are computed by
// a linalg op into a tensor.empty of their own (and read by nothing else) becomes
//
//   %e  = tensor.empty(sizes of the result)                  (before the first such op)
//   %c0 = tensor.insert_slice %plain into %e[..]             (each other operand, copied)
//   ...
//   %s  = tensor.extract_slice %c_k[offsets of operand i]    (before its op)
//   %r  = linalg op ins(...) outs(%s)
//   %c_k+1 = tensor.insert_slice %r into %c_k[offsets of operand i]
//
// so one-shot bufferization computes each such operand in its slice of the result buffer (the
// extract/insert pair at equal offsets is in place) instead of into a temporary that a copy
// then moves. The case it is for: Hugging Face exports build every layer's present as
// Concat(past, Transpose(new keys)), and on the GPU the transpose and the copy were a kernel
// each. Concatenations without such an operand, or whose other operands or sizes are not
// available before the first such op, are left as they are.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_CONCATSINPLACEPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
/// The linalg op computing `v` into a tensor.empty of its own, read by nothing but `concat`
/// (and tensor.dim), or null.
linalg::LinalgOp computedInEmpty(Value v, tensor::ConcatOp concat) {
  auto op = v.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumDpsInits() != 1 || op->getBlock() != concat->getBlock())
    return nullptr;
  OpOperand &init = op.getDpsInitsMutable()[0];
  auto empty = init.get().getDefiningOp<tensor::EmptyOp>();
  if (!empty || !empty->hasOneUse() || op.payloadUsesValueFromOperand(&init))
    return nullptr;
  for (Operation *user : v.getUsers())
    if (user != concat.getOperation() && !isa<tensor::DimOp>(user))
      return nullptr;
  if (llvm::count(concat.getInputs(), v) != 1)
    return nullptr;
  return op;
}

struct ConcatsInPlacePass
    : public mlir::decoda::impl::ConcatsInPlacePassBase<ConcatsInPlacePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<tensor::ConcatOp> concats;
    getOperation()->walk([&](tensor::ConcatOp c) { concats.push_back(c); });
    for (tensor::ConcatOp concat : concats)
      if (rewrite(concat))
        ++numRewritten;
  }

  bool rewrite(tensor::ConcatOp concat) {
    DominanceInfo dom(concat->getParentOp());
    SmallVector<linalg::LinalgOp> computed;
    for (Value v : concat.getInputs())
      computed.push_back(computedInEmpty(v, concat));
    Operation *first = nullptr;
    for (linalg::LinalgOp op : computed)
      if (op && (!first || op->isBeforeInBlock(first)))
        first = op;
    if (!first)
      return false;
    // Everything the empty result and the copies need must be available before `first`: the
    // other operands, and the sizes of the computed ones (their empties' operands).
    for (auto [v, op] : llvm::zip(concat.getInputs(), computed)) {
      if (!op) {
        if (!dom.properlyDominates(v, first))
          return false;
        continue;
      }
      auto empty = op.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>();
      for (Value size : empty.getDynamicSizes())
        if (!dom.properlyDominates(size, first))
          return false;
    }

    // The result's empty and the copies of the other operands go as early as their values
    // allow (every past copy of an exported model at the start: independent neighbours, one
    // kernel on the GPU); each computed operand's op moves down to the concatenation when
    // nothing reads its result before (the key and value transposes of a layer then neighbour
    // each other: one kernel too).
    Block *block = concat->getBlock();
    Operation *after = nullptr;
    auto needs = [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == block && (!after || after->isBeforeInBlock(def)))
        after = def;
    };
    for (auto [v, op] : llvm::zip(concat.getInputs(), computed)) {
      if (!op) {
        needs(v);
        continue;
      }
      for (Value size : op.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>().getDynamicSizes())
        needs(size);
    }
    OpBuilder b(concat.getContext());
    if (after)
      b.setInsertionPointAfter(after);
    else
      b.setInsertionPointToStart(block);
    Location loc = concat.getLoc();
    int64_t dim = concat.getDim();
    auto type = cast<RankedTensorType>(concat.getType());
    int64_t rank = type.getRank();
    // Each operand's sizes, and the running offset along `dim`.
    SmallVector<SmallVector<OpFoldResult>> sizes;
    for (auto [v, op] : llvm::zip(concat.getInputs(), computed))
      sizes.push_back(op ? op.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>().getMixedSizes()
                         : tensor::getMixedSizes(b, loc, v));
    // a + b, folded when both are constants or a is 0.
    auto add = [&](OpFoldResult x, OpFoldResult y) -> OpFoldResult {
      std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
      if (cx && cy)
        return b.getIndexAttr(*cx + *cy);
      if (cx == 0)
        return y;
      return arith::AddIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, x),
                                   getValueOrCreateConstantIndexOp(b, loc, y))
          .getResult();
    };
    SmallVector<OpFoldResult> offsets;
    OpFoldResult total = b.getIndexAttr(0);
    for (const SmallVector<OpFoldResult> &s : sizes) {
      offsets.push_back(total);
      total = add(total, s[dim]);
    }
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        dynamic.push_back(
            getValueOrCreateConstantIndexOp(b, loc, d == dim ? total : sizes.front()[d]));
    Value current = tensor::EmptyOp::create(b, loc, type, dynamic);
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    auto at = [&](size_t i) {
      SmallVector<OpFoldResult> o(rank, b.getIndexAttr(0));
      o[dim] = offsets[i];
      return o;
    };
    for (auto [i, v, op] : llvm::enumerate(concat.getInputs(), computed))
      if (!op)
        current = tensor::InsertSliceOp::create(b, loc, v, current, at(i), sizes[i], strides);
    // The computed operands in block order, each into its slice of the running result.
    SmallVector<size_t> order;
    for (size_t i = 0; i < computed.size(); ++i)
      if (computed[i])
        order.push_back(i);
    llvm::sort(order, [&](size_t x, size_t y) {
      return computed[x]->isBeforeInBlock(computed[y]);
    });
    for (size_t i : order) {
      linalg::LinalgOp op = computed[i];
      OpOperand &init = op.getDpsInitsMutable()[0];
      auto empty = init.get().getDefiningOp<tensor::EmptyOp>();
      if (llvm::all_of(op->getUsers(), [&](Operation *user) {
            return user == concat.getOperation() || concat->isBeforeInBlock(user);
          }))
        op->moveBefore(concat);
      b.setInsertionPoint(op);
      // The empty's own sizes: the slice has its type.
      init.set(tensor::ExtractSliceOp::create(b, loc, current, at(i), sizes[i], strides));
      empty->erase();
      b.setInsertionPointAfter(op);
      current = tensor::InsertSliceOp::create(b, loc, op->getResult(0), current, at(i),
                                              sizes[i], strides);
    }
    concat.replaceAllUsesWith(current);
    concat->erase();
    return true;
  }
};
} // namespace
