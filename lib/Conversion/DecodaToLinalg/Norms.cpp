//===- Norms.cpp - lowering of decoda norms to linalg ---------------------===//
//
// rms_norm, layer_norm and the fused add_* forms: row statistics in f32 (one reduction for
// RMSNorm, two for LayerNorm: mean, then the centred variance), then one elementwise pass that
// normalises, applies the affine parameters and rounds to the storage type.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

#include "Utils.h"

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::lowering;

namespace {
/// Maps of a rank-`rank` iteration space onto (all dims) and (all but the last).
std::pair<AffineMap, AffineMap> rowMaps(OpBuilder &b, int64_t rank) {
  AffineMap id = b.getMultiDimIdentityMap(rank);
  return {id, id.dropResult(rank - 1)};
}

/// The last extent of `x` as an f32 scalar.
Value featureCount(OpBuilder &b, Location loc, Value x) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  Value d = tensor::DimOp::create(b, loc, x, rank - 1); // folds to a constant when static
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), d);
  return arith::SIToFPOp::create(b, loc, b.getF32Type(), i64);
}

/// Row reduction over the last axis: acc = sum_d f(x[..., d], row[...]) in f32. `row` is an
/// optional per-row f32 tensor (the mean, for the variance pass).
Value reduceRows(OpBuilder &b, Location loc, Value x, Value row,
                 function_ref<Value(OpBuilder &, Location, Value, Value)> term) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  auto [id, rowMap] = rowMaps(b, rank);
  SmallVector<OpFoldResult> sizes = getDims(b, loc, x);
  sizes.pop_back();
  Value acc = filledTensor(b, loc, sizes, b.getF32Type(), 0.0);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters.back() = utils::IteratorType::reduction;
  SmallVector<Value> ins{x};
  SmallVector<AffineMap> maps{id};
  if (row) {
    ins.push_back(row);
    maps.push_back(rowMap);
  }
  maps.push_back(rowMap);
  return linalg::GenericOp::create(
             b, loc, acc.getType(), ins, ValueRange{acc}, maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value v = toF32(nb, nl, args[0]);
               Value t = term(nb, nl, v, row ? args[1] : Value());
               linalg::YieldOp::create(
                   nb, nl, ValueRange{arith::AddFOp::create(nb, nl, args.back(), t)});
             })
      .getResult(0);
}

/// residual + scale * branch, rounded to the storage type (the new residual stream).
Value residualSum(OpBuilder &b, Location loc, Value residual, Value branch, double scale) {
  auto type = cast<RankedTensorType>(residual.getType());
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> par(type.getRank(), utils::IteratorType::parallel);
  Value out = emptyLike(b, loc, residual);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{residual, branch}, ValueRange{out},
             ArrayRef<AffineMap>{id, id, id}, par,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value r = toF32(nb, nl, args[0]), x = toF32(nb, nl, args[1]);
               if (scale != 1.0)
                 x = arith::MulFOp::create(nb, nl, x, f32Const(nb, nl, scale));
               Value s = arith::AddFOp::create(nb, nl, r, x);
               linalg::YieldOp::create(nb, nl,
                                       ValueRange{fromF32(nb, nl, s, type.getElementType())});
             })
      .getResult(0);
}

/// The norm of `x` over its last axis: (x - mean) * rstd * (w + offset) + bias, where `mean` is
/// null for RMSNorm. rstd = 1 / sqrt(stat / D + eps) with stat the sum of squares (centred for
/// LayerNorm).
Value buildNorm(OpBuilder &b, Location loc, Value x, Value weight, Value bias, double eps,
                double weightOffset, bool centered) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Value d = featureCount(b, loc, x);
  Value mean;
  if (centered) {
    Value sum = reduceRows(b, loc, x, {}, [](OpBuilder &, Location, Value v, Value) { return v; });
    AffineMap rowId = b.getMultiDimIdentityMap(rank - 1);
    SmallVector<utils::IteratorType> par(rank - 1, utils::IteratorType::parallel);
    mean = linalg::GenericOp::create(
               b, loc, sum.getType(), ValueRange{}, ValueRange{sum},
               ArrayRef<AffineMap>{rowId}, par,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 linalg::YieldOp::create(nb, nl,
                                         ValueRange{arith::DivFOp::create(nb, nl, args[0], d)});
               })
               .getResult(0);
  }
  Value sumSq = reduceRows(b, loc, x, mean, [](OpBuilder &nb, Location nl, Value v, Value m) {
    Value c = m ? arith::SubFOp::create(nb, nl, v, m).getResult() : v;
    return arith::MulFOp::create(nb, nl, c, c).getResult();
  });

  auto [id, rowMap] = rowMaps(b, rank);
  AffineMap featMap = AffineMap::get(rank, 0, b.getAffineDimExpr(rank - 1));
  SmallVector<Value> ins{x, sumSq, weight};
  SmallVector<AffineMap> maps{id, rowMap, featMap};
  if (mean) {
    ins.push_back(mean);
    maps.push_back(rowMap);
  }
  if (bias) {
    ins.push_back(bias);
    maps.push_back(featMap);
  }
  maps.push_back(id);
  Value out = emptyLike(b, loc, x);
  SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, ins, ValueRange{out}, maps, par,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value v = toF32(nb, nl, args[0]);
               unsigned next = 3;
               if (mean)
                 v = arith::SubFOp::create(nb, nl, v, args[next++]);
               Value var = arith::DivFOp::create(nb, nl, args[1], d);
               Value rstd = math::RsqrtOp::create(
                   nb, nl, arith::AddFOp::create(nb, nl, var, f32Const(nb, nl, eps)));
               Value w = toF32(nb, nl, args[2]);
               if (weightOffset != 0.0)
                 w = arith::AddFOp::create(nb, nl, w, f32Const(nb, nl, weightOffset));
               Value y = arith::MulFOp::create(nb, nl, arith::MulFOp::create(nb, nl, v, rstd), w);
               if (bias)
                 y = arith::AddFOp::create(nb, nl, y, toF32(nb, nl, args[next++]));
               linalg::YieldOp::create(nb, nl,
                                       ValueRange{fromF32(nb, nl, y, type.getElementType())});
             })
      .getResult(0);
}

struct LowerRMSNorm : public OpRewritePattern<RMSNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RMSNormOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildNorm(rewriter, op.getLoc(), op.getInput(), op.getWeight(), {},
                                     op.getEpsValue(), op.getWeightOffset().convertToDouble(),
                                     /*centered=*/false));
    return success();
  }
};

struct LowerLayerNorm : public OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildNorm(rewriter, op.getLoc(), op.getInput(), op.getWeight(),
                                     op.getBias(), op.getEpsValue(), 0.0, /*centered=*/true));
    return success();
  }
};

struct LowerAddRMSNorm : public OpRewritePattern<AddRMSNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddRMSNormOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value sum = residualSum(rewriter, loc, op.getResidual(), op.getBranch(),
                            op.getScale().convertToDouble());
    Value norm = buildNorm(rewriter, loc, sum, op.getWeight(), {}, op.getEpsValue(),
                           op.getWeightOffset().convertToDouble(), /*centered=*/false);
    rewriter.replaceOp(op, {sum, norm});
    return success();
  }
};

struct LowerAddLayerNorm : public OpRewritePattern<AddLayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddLayerNormOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value sum = residualSum(rewriter, loc, op.getResidual(), op.getBranch(),
                            op.getScale().convertToDouble());
    Value norm = buildNorm(rewriter, loc, sum, op.getWeight(), op.getBias(), op.getEpsValue(),
                           0.0, /*centered=*/true);
    rewriter.replaceOp(op, {sum, norm});
    return success();
  }
};
} // namespace

void mlir::decoda::populateNormLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerRMSNorm, LowerLayerNorm, LowerAddRMSNorm, LowerAddLayerNorm>(
      patterns.getContext());
}
