//===- Residual.cpp - lowering of residual mixing to linalg ---------------===//
//
// residual_add: one elementwise generic, `residual + scale * branch` formed in f32 and rounded
// once to the storage type (the same arithmetic as the sum of the fused add_*_norm lowerings, so
// fusing never changes a result).
//
// hyper_connection (mHC), all coefficients and mixing in f32:
//   A = σ(Ã), C = 2σ(C̃)                          elementwise over the logits' own shapes
//   B = Sinkhorn(exp(B̃ - rowmax(B̃)))             scf.for over the iterations, rows then columns
//   h = round(Σ_i A_i X_i)                         reduction over the stream dim
//   y = body(h)                                    the region, inlined with h for its argument
//   X'_i = round(Σ_j B_ij X_j + C_i · y)           reduction over j, then the epilogue
// Static logits ([n], [n, n]) are read through maps that ignore the leading (token) dims,
// per-token logits through maps that include them.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

#include "Utils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::lowering;

namespace {
struct LowerResidualAdd : public OpRewritePattern<ResidualAddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ResidualAddOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    double scale = op.getScale().convertToDouble();
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    Value out = buildMap(rewriter, loc, ValueRange{op.getResidual(), op.getBranch()}, {id, id},
                         emptyLike(rewriter, loc, op.getResidual()),
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           Value r = toF32(b, l, args[0]), x = toF32(b, l, args[1]);
                           if (scale != 1.0)
                             x = arith::MulFOp::create(b, l, x, f32Const(b, l, scale));
                           Value s = arith::AddFOp::create(b, l, r, x);
                           return fromF32(b, l, s, type.getElementType());
                         });
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// Lowering state of one hyper_connection: streams `[L..., n, d]`, `lead` = L leading dims.
struct HyperConnectionBuilder {
  OpBuilder &b;
  Location loc;
  int64_t lead;       // number of leading (token) dims
  MLIRContext *ctx;

  /// Exprs of the leading dims of an iteration space (dims 0 .. lead-1).
  SmallVector<AffineExpr> leadExprs() const {
    SmallVector<AffineExpr> e;
    for (int64_t i = 0; i < lead; ++i)
      e.push_back(getAffineDimExpr(i, ctx));
    return e;
  }

  /// Map of a logit tensor of rank `rank` whose trailing dims are `tail` (iteration-space
  /// exprs); per-token logits also take the leading dims.
  AffineMap logitMap(Value logits, unsigned numDims, ArrayRef<AffineExpr> tail) const {
    int64_t rank = cast<RankedTensorType>(logits.getType()).getRank();
    SmallVector<AffineExpr> e;
    if (rank > static_cast<int64_t>(tail.size()))
      e = leadExprs();
    e.append(tail.begin(), tail.end());
    return AffineMap::get(numDims, 0, e, ctx);
  }

  /// f32 tensor with the shape of `logits` holding `scale * σ(logits)`.
  Value sigmoidOf(Value logits, double scale) const {
    auto t = cast<RankedTensorType>(logits.getType());
    AffineMap id = b.getMultiDimIdentityMap(t.getRank());
    return buildMap(b, loc, ValueRange{logits}, {id},
                    emptyLike(b, loc, logits, b.getF32Type()),
                    [&](OpBuilder &nb, Location nl, ValueRange args) {
                      Value s = sigmoid(nb, nl, toF32(nb, nl, args[0]));
                      if (scale != 1.0)
                        s = arith::MulFOp::create(nb, nl, s, f32Const(nb, nl, scale));
                      return s;
                    });
  }

  /// Sum (or max, with `isMax`) in f32 of a `[P..., n, n]` tensor over its last (`overRows`) or
  /// second-to-last dim, giving `[P..., n]`.
  Value reduceMatrix(Value m, bool overRows, bool isMax) const {
    auto t = cast<RankedTensorType>(m.getType());
    int64_t rank = t.getRank();
    SmallVector<OpFoldResult> sizes = getDims(b, loc, m);
    sizes.erase(sizes.end() - (overRows ? 1 : 2));
    double initValue = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value init = filledTensor(b, loc, sizes, b.getF32Type(), initValue);
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap outMap = id.dropResult(overRows ? rank - 1 : rank - 2);
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters[overRows ? rank - 1 : rank - 2] = utils::IteratorType::reduction;
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{m}, ValueRange{init},
               ArrayRef<AffineMap>{id, outMap}, iters,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 Value v = toF32(nb, nl, args[0]);
                 Value r = isMax ? arith::MaximumFOp::create(nb, nl, args[1], v).getResult()
                                 : arith::AddFOp::create(nb, nl, args[1], v).getResult();
                 linalg::YieldOp::create(nb, nl, ValueRange{r});
               })
        .getResult(0);
  }

  /// m / v broadcast along rows (`overRows`: v[..., i]) or columns (v[..., j]), written into m
  /// itself (destination-passing style, so the Sinkhorn loop bufferizes in place).
  Value divideBy(OpBuilder &nb, Value m, Value v, bool overRows) const {
    auto t = cast<RankedTensorType>(m.getType());
    int64_t rank = t.getRank();
    AffineMap vMap = nb.getMultiDimIdentityMap(rank).dropResult(overRows ? rank - 1 : rank - 2);
    return buildMap(nb, loc, ValueRange{v}, {vMap}, m,
                    [](OpBuilder &bb, Location l, ValueRange args) -> Value {
                      return arith::DivFOp::create(bb, l, args[1], args[0]);
                    });
  }

  /// B = Sinkhorn(exp(B̃)) on the logits' own shape ([n, n] or [L..., n, n]), in f32.
  Value sinkhorn(Value logits, int64_t iters) const {
    auto t = cast<RankedTensorType>(logits.getType());
    int64_t rank = t.getRank();
    AffineMap id = b.getMultiDimIdentityMap(rank);
    // exp(B̃ - rowmax): the shift is a no-op after the first row normalisation.
    Value rowMax = reduceMatrix(logits, /*overRows=*/true, /*isMax=*/true);
    Value e = buildMap(b, loc, ValueRange{logits, rowMax}, {id, id.dropResult(rank - 1)},
                       emptyLike(b, loc, logits, b.getF32Type()),
                       [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                         Value v = toF32(nb, nl, args[0]);
                         return math::ExpOp::create(nb, nl,
                                                    arith::SubFOp::create(nb, nl, v, args[1]));
                       });
    Value lb = arith::ConstantIndexOp::create(b, loc, 0);
    Value ub = arith::ConstantIndexOp::create(b, loc, iters);
    Value step = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(
        b, loc, lb, ub, step, ValueRange{e},
        [&](OpBuilder &nb, Location nl, Value, ValueRange iterArgs) {
          HyperConnectionBuilder inner{nb, nl, lead, ctx};
          Value m = iterArgs[0];
          m = inner.divideBy(nb, m, inner.reduceMatrix(m, /*overRows=*/true, false), true);
          m = inner.divideBy(nb, m, inner.reduceMatrix(m, /*overRows=*/false, false), false);
          scf::YieldOp::create(nb, nl, ValueRange{m});
        });
    return loop.getResult(0);
  }
};

struct LowerHyperConnection : public OpRewritePattern<HyperConnectionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(HyperConnectionOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = op.getStreams();
    RankedTensorType type = op.getStreams().getType();
    Type elem = type.getElementType(), f32 = rewriter.getF32Type();
    int64_t rank = type.getRank(), lead = rank - 2;
    HyperConnectionBuilder hc{rewriter, loc, lead, ctx};

    // A = σ(Ã); h = round(Σ_i A_i X_i). Iteration space (L..., d, i).
    Value a = hc.sigmoidOf(op.getReadLogits(), 1.0);
    SmallVector<OpFoldResult> layerSizes = getDims(rewriter, loc, x);
    layerSizes.erase(layerSizes.end() - 2);
    Value h;
    {
      AffineExpr d = getAffineDimExpr(lead, ctx), i = getAffineDimExpr(lead + 1, ctx);
      SmallVector<AffineExpr> xe = hc.leadExprs(), oe = hc.leadExprs();
      xe.append({i, d});
      oe.push_back(d);
      unsigned numDims = rank;
      AffineMap xMap = AffineMap::get(numDims, 0, xe, ctx);
      AffineMap aMap = hc.logitMap(a, numDims, {i});
      AffineMap oMap = AffineMap::get(numDims, 0, oe, ctx);
      Value acc = filledTensor(rewriter, loc, layerSizes, f32, 0.0);
      SmallVector<utils::IteratorType> iters(numDims, utils::IteratorType::parallel);
      iters.back() = utils::IteratorType::reduction;
      Value sum = linalg::GenericOp::create(
                      rewriter, loc, acc.getType(), ValueRange{x, a}, ValueRange{acc},
                      ArrayRef<AffineMap>{xMap, aMap, oMap}, iters,
                      [&](OpBuilder &nb, Location nl, ValueRange args) {
                        Value p = arith::MulFOp::create(nb, nl, toF32(nb, nl, args[0]), args[1]);
                        linalg::YieldOp::create(nb, nl,
                                                ValueRange{arith::AddFOp::create(nb, nl, args[2], p)});
                      })
                      .getResult(0);
      h = sum;
      if (elem != f32) {
        AffineMap id = rewriter.getMultiDimIdentityMap(rank - 1);
        h = buildMap(rewriter, loc, ValueRange{sum}, {id},
                     emptyTensor(rewriter, loc, layerSizes, elem),
                     [&](OpBuilder &nb, Location nl, ValueRange args) {
                       return fromF32(nb, nl, args[0], elem);
                     });
      }
    }
    h = castIfNeeded(rewriter, loc, h, op.getLayerType());

    // The layer: inline the body with h for its argument. Decoda ops in it are lowered by the
    // same greedy driver afterwards.
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    Value f = yield.getValues().front();
    if (f == body.getArgument(0))
      f = h;
    rewriter.inlineBlockBefore(&body, op, ValueRange{h});
    rewriter.eraseOp(yield);

    // C = 2σ(C̃), B = Sinkhorn(exp(B̃)).
    Value c = hc.sigmoidOf(op.getWriteLogits(), 2.0);
    Value bm = hc.sinkhorn(op.getMixLogits(), op.getSinkhornIters());

    // acc[L..., i, d] = Σ_j B_ij X_j. Iteration space (L..., i, d, j).
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, x);
    Value mixed;
    {
      unsigned numDims = rank + 1;
      AffineExpr i = getAffineDimExpr(lead, ctx), d = getAffineDimExpr(lead + 1, ctx),
                 j = getAffineDimExpr(lead + 2, ctx);
      SmallVector<AffineExpr> xe = hc.leadExprs(), oe = hc.leadExprs();
      xe.append({j, d});
      oe.append({i, d});
      AffineMap xMap = AffineMap::get(numDims, 0, xe, ctx);
      AffineMap bMap = hc.logitMap(bm, numDims, {i, j});
      AffineMap oMap = AffineMap::get(numDims, 0, oe, ctx);
      Value acc = filledTensor(rewriter, loc, sizes, f32, 0.0);
      SmallVector<utils::IteratorType> iters(numDims, utils::IteratorType::parallel);
      iters.back() = utils::IteratorType::reduction;
      mixed = linalg::GenericOp::create(
                  rewriter, loc, acc.getType(), ValueRange{x, bm}, ValueRange{acc},
                  ArrayRef<AffineMap>{xMap, bMap, oMap}, iters,
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    Value p = arith::MulFOp::create(nb, nl, args[1], toF32(nb, nl, args[0]));
                    linalg::YieldOp::create(nb, nl,
                                            ValueRange{arith::AddFOp::create(nb, nl, args[2], p)});
                  })
                  .getResult(0);
    }

    // X'[L..., i, d] = round(acc + C_i · y[L..., d]).
    AffineExpr i = getAffineDimExpr(lead, ctx), d = getAffineDimExpr(lead + 1, ctx);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap cMap = hc.logitMap(c, rank, {i});
    SmallVector<AffineExpr> ye = hc.leadExprs();
    ye.push_back(d);
    AffineMap yMap = AffineMap::get(rank, 0, ye, ctx);
    Value out = buildMap(rewriter, loc, ValueRange{mixed, c, f}, {id, cMap, yMap},
                         emptyLike(rewriter, loc, x),
                         [&](OpBuilder &nb, Location nl, ValueRange args) {
                           Value w = arith::MulFOp::create(nb, nl, args[1],
                                                           toF32(nb, nl, args[2]));
                           Value s = arith::AddFOp::create(nb, nl, args[0], w);
                           return fromF32(nb, nl, s, elem);
                         });
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, out, op.getResult().getType()));
    return success();
  }
};
} // namespace

void mlir::decoda::populateResidualLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerResidualAdd, LowerHyperConnection>(patterns.getContext());
}
