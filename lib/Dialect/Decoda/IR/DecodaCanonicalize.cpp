//===- DecodaCanonicalize.cpp - folders and canonicalization patterns -----===//

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::decoda;

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

// softcap with an infinite cap is the identity: inf * tanh(x / inf) -> x in the limit.
OpFoldResult SoftcapOp::fold(FoldAdaptor) {
  double cap = getCap().convertToDouble();
  if (std::isinf(cap) && cap > 0)
    return getInput();
  return {};
}

// residual + scale * 0 is the residual for any finite scale (up to the sign of a zero residual:
// -0 + 0 is +0, the fold keeps -0, which no later op can tell apart arithmetically).
OpFoldResult ResidualAddOp::fold(FoldAdaptor) {
  if (matchPattern(getBranch(), m_AnyZeroFloat()))
    return getResidual();
  return {};
}

// quantize(dequantize(q, s, zp), s, zp) == q when the float in between is f32: (q - zp) * s
// rounded to f32, divided by s, is within an ulp of the integer q - zp, so rounding recovers it.
// Through f16/bf16 the intermediate rounding can move it by more than half a step; no fold.
OpFoldResult QuantizeOp::fold(FoldAdaptor) {
  auto dq = getInput().getDefiningOp<DequantizeOp>();
  if (!dq || !dq.getResult().getType().getElementType().isF32())
    return {};
  if (dq.getScale() != getScale() || dq.getZeroPoint() != getZeroPoint())
    return {};
  return dq.getInput();
}

//===----------------------------------------------------------------------===//
// GLU canonical form
//===----------------------------------------------------------------------===//

namespace {
/// SiTU-GLU with β1 = β2 = +inf and clamped SwiGLU with L = +inf are SwiGLU pointwise; rewrite
/// the kind so that later passes and lowerings see (and specialise for) plain SwiGLU.
GluAttr getUncappedForm(GluAttr kind) {
  auto isInf = [](const std::optional<APFloat> &v) {
    return v && v->isInfinity() && !v->isNegative();
  };
  bool uncapped = (kind.getKind() == GluKind::situ && isInf(kind.getBeta1()) &&
                   isInf(kind.getBeta2())) ||
                  (kind.getKind() == GluKind::clamped_swiglu && isInf(kind.getLimit()));
  if (!uncapped)
    return {};
  return GluAttr::get(kind.getContext(), GluKind::swiglu, std::nullopt, std::nullopt,
                      std::nullopt);
}

template <typename OpTy>
struct CanonicalizeUncappedGlu : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    GluAttr swiglu = getUncappedForm(op.getKind());
    if (!swiglu)
      return rewriter.notifyMatchFailure(op, "GLU has a finite cap");
    rewriter.modifyOpInPlace(op, [&] { op.setKindAttr(swiglu); });
    return success();
  }
};
} // namespace

void GluOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<CanonicalizeUncappedGlu<GluOp>>(context);
}

void GatedMLPOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<CanonicalizeUncappedGlu<GatedMLPOp>>(context);
}

void MoEOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<CanonicalizeUncappedGlu<MoEOp>>(context);
}
