//===- ExpandTensorReshapes.cpp - reshapes with known shapes as views -----===//
//
// decoda-expand-tensor-reshapes (Passes.td): `tensor.reshape %x(%shape)` whose shape elements
// are known values (tensor.from_elements or a constant) becomes collapse_shape to 1-D and
// expand_shape to the result with those values as output_shape: no shape buffer, no host
// memory access once bufferized. On buffers, a memref.expand_shape that splits one extent
// into several dynamic ones becomes memref.reinterpret_cast (MLIR 22's expand-strided-metadata
// crashes on it).
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_EXPANDTENSORRESHAPESPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
/// The elements of a 1-D shape operand as constants or integer/index values, or nothing.
std::optional<SmallVector<OpFoldResult>> shapeElements(OpBuilder &b, Value shape) {
  SmallVector<OpFoldResult> out;
  DenseIntElementsAttr constant;
  if (matchPattern(shape, m_Constant(&constant))) {
    for (const APInt &v : constant.getValues<APInt>())
      out.push_back(b.getIndexAttr(v.getSExtValue()));
    return out;
  }
  auto fromElements = shape.getDefiningOp<tensor::FromElementsOp>();
  if (!fromElements)
    return std::nullopt;
  for (Value e : fromElements.getElements()) {
    if (std::optional<int64_t> c = getConstantIntValue(e))
      out.push_back(b.getIndexAttr(*c));
    else if (e.getType().isIntOrIndex())
      out.push_back(e);
    else
      return std::nullopt;
  }
  return out;
}

struct ExpandReshape : public OpRewritePattern<tensor::ReshapeOp> {
  ExpandReshape(MLIRContext *ctx, int64_t &count) : OpRewritePattern(ctx), count(count) {}

  LogicalResult matchAndRewrite(tensor::ReshapeOp op, PatternRewriter &rw) const override {
    auto src = dyn_cast<RankedTensorType>(op.getSource().getType());
    auto dst = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!src || !dst || src.getRank() == 0 || dst.getRank() == 0)
      return failure();
    Location loc = op.getLoc();
    std::optional<SmallVector<OpFoldResult>> elements = shapeElements(rw, op.getShape());
    if (!elements || (int64_t)elements->size() != dst.getRank())
      return failure();
    // A constant extent must agree with a static one of the written result type.
    for (auto [i, e] : llvm::enumerate(*elements))
      if (std::optional<int64_t> c = getConstantIntValue(e);
          c && (*c < 0 || (!dst.isDynamicDim(i) && dst.getDimSize(i) != *c)))
        return failure();
    SmallVector<OpFoldResult> sizes = *elements;
    for (OpFoldResult &e : sizes)
      if (auto v = dyn_cast<Value>(e); v && !v.getType().isIndex())
        e = arith::IndexCastOp::create(rw, loc, rw.getIndexType(), v).getResult();

    Value flat = op.getSource();
    if (src.getRank() != 1) {
      ReassociationIndices all;
      for (int64_t d = 0; d < src.getRank(); ++d)
        all.push_back(d);
      flat = tensor::CollapseShapeOp::create(rw, loc, flat, ArrayRef<ReassociationIndices>{all});
    }
    SmallVector<int64_t> shape;
    for (auto [i, e] : llvm::enumerate(sizes)) {
      std::optional<int64_t> c = getConstantIntValue(e);
      shape.push_back(c ? *c : dst.getDimSize(i));
      if (!c && !dst.isDynamicDim(i))
        e = rw.getIndexAttr(dst.getDimSize(i));
    }
    auto type = RankedTensorType::get(shape, dst.getElementType(), dst.getEncoding());
    // The flat extent static exactly when the result's are (an expansion verifies only so: a
    // dynamic extent into static ones, or a static one into dynamic ones, does not).
    bool flatDynamic = cast<RankedTensorType>(flat.getType()).isDynamicDim(0);
    if (type.hasStaticShape() && flatDynamic)
      flat = tensor::CastOp::create(
          rw, loc, RankedTensorType::get({type.getNumElements()}, dst.getElementType()), flat);
    else if (!type.hasStaticShape() && !flatDynamic)
      flat = tensor::CastOp::create(
          rw, loc, RankedTensorType::get({ShapedType::kDynamic}, dst.getElementType()), flat);
    Value result = flat;
    if (dst.getRank() != 1) {
      ReassociationIndices all;
      for (int64_t d = 0; d < dst.getRank(); ++d)
        all.push_back(d);
      result = tensor::ExpandShapeOp::create(rw, loc, type, flat,
                                             ArrayRef<ReassociationIndices>{all}, sizes);
    } else if (cast<RankedTensorType>(flat.getType()) != type) {
      result = tensor::CastOp::create(rw, loc, type, flat);
    }
    if (result.getType() != dst)
      result = tensor::CastOp::create(rw, loc, dst, result);
    rw.replaceOp(op, result);
    ++count;
    return success();
  }
  int64_t &count;
};

/// memref.expand_shape with a group of two or more dynamic extents (from the reshapes above:
/// [B·T, F] -> [B, T, F]) as memref.reinterpret_cast of the same buffer: MLIR 22's
/// expand-strided-metadata crashes on such an expansion (it builds the result strides from an
/// attribute that is not there), so the GPU pipeline's host code takes this form.
struct MultiDynamicExpandToCast : public OpRewritePattern<memref::ExpandShapeOp> {
  MultiDynamicExpandToCast(MLIRContext *ctx, int64_t &count)
      : OpRewritePattern(ctx), count(count) {}

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op, PatternRewriter &rw) const override {
    MemRefType dst = op.getResultType();
    SmallVector<ReassociationIndices> groups = op.getReassociationIndices();
    if (llvm::none_of(groups, [&](const ReassociationIndices &g) {
          return llvm::count_if(g, [&](int64_t d) { return dst.isDynamicDim(d); }) > 1;
        }))
      return failure();
    MemRefType src = op.getSrcType();
    SmallVector<int64_t> srcStrides;
    int64_t srcOffset;
    if (failed(src.getStridesAndOffset(srcStrides, srcOffset)))
      return failure();
    Location loc = op.getLoc();
    auto meta = memref::ExtractStridedMetadataOp::create(rw, loc, op.getSrc());
    // The source's offset and strides: static where its layout says so.
    auto known = [&](int64_t v, Value dynamic) -> OpFoldResult {
      return ShapedType::isDynamic(v) ? OpFoldResult(dynamic) : rw.getIndexAttr(v);
    };
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(dst.getRank());
    for (auto [j, g] : llvm::enumerate(groups)) {
      // The last dim of a group keeps the source dim's stride; each one before it that
      // stride times the extents after it.
      OpFoldResult stride = known(srcStrides[j], meta.getStrides()[j]);
      for (int64_t d : llvm::reverse(g)) {
        strides[d] = stride;
        std::optional<int64_t> a = getConstantIntValue(stride), b = getConstantIntValue(sizes[d]);
        if (a && b)
          stride = rw.getIndexAttr(*a * *b);
        else
          stride = arith::MulIOp::create(rw, loc, getValueOrCreateConstantIndexOp(rw, loc, stride),
                                         getValueOrCreateConstantIndexOp(rw, loc, sizes[d]))
                       .getResult();
      }
    }
    rw.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, dst, op.getSrc(), known(srcOffset, meta.getOffset()), sizes, strides);
    ++count;
    return success();
  }
  int64_t &count;
};

struct ExpandTensorReshapesPass
    : public mlir::decoda::impl::ExpandTensorReshapesPassBase<ExpandTensorReshapesPass> {
  using Base::Base;
  void runOnOperation() override {
    int64_t count = 0;
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandReshape, MultiDynamicExpandToCast>(&getContext(), count);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    numExpanded += count;
  }
};
} // namespace
