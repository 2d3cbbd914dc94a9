//===- Activations.cpp - lowering of decoda glu and softcap to linalg -----===//
//
// glu and softcap: one elementwise linalg.generic each, evaluated in f32 (extf at the input edge,
// truncf at the output edge for f16/bf16 storage).
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

#include "Utils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::lowering;

namespace {
struct LowerGlu : public OpRewritePattern<GluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GluOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    GluAttr kind = op.getKind();
    Value out = buildMap(rewriter, loc, ValueRange{op.getGate(), op.getUp()}, {id, id},
                         emptyLike(rewriter, loc, op.getGate()),
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           Value g = toF32(b, l, args[0]);
                           Value u = toF32(b, l, args[1]);
                           Value h = applyGlu(b, l, kind, g, u);
                           return fromF32(b, l, h, type.getElementType());
                         });
    rewriter.replaceOp(op, out);
    return success();
  }
};

struct LowerSoftcap : public OpRewritePattern<SoftcapOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftcapOp op, PatternRewriter &rewriter) const override {
    double cap = op.getCap().convertToDouble();
    if (std::isinf(cap)) { // the identity (canonicalization folds it; the pass runs without folds)
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    Value out = buildMap(rewriter, loc, ValueRange{op.getInput()}, {id},
                         emptyLike(rewriter, loc, op.getInput()),
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           Value y = softcapScalar(b, l, toF32(b, l, args[0]), cap);
                           return fromF32(b, l, y, type.getElementType());
                         });
    rewriter.replaceOp(op, out);
    return success();
  }
};
} // namespace

void mlir::decoda::populateActivationLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGlu, LowerSoftcap>(patterns.getContext());
}
