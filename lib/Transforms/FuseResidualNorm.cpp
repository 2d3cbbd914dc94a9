//===- FuseResidualNorm.cpp - residual add + norm -> add_*_norm -----------===//

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_FUSERESIDUALNORMPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;

namespace {
/// The residual_add feeding `norm`'s input when the two can be fused; null otherwise.
ResidualAddOp fusibleAdd(Operation *norm, Value input, ValueRange params) {
  auto add = input.getDefiningOp<ResidualAddOp>();
  if (!add || add->getBlock() != norm->getBlock())
    return {};
  // The fused op replaces the add, so the norm's parameters must already exist there.
  DominanceInfo dominance;
  for (Value p : params)
    if (p && !dominance.properlyDominates(p, add))
      return {};
  return add;
}

template <typename NormOp, typename FusedOp>
struct FuseAddNorm : public OpRewritePattern<NormOp> {
  FuseAddNorm(MLIRContext *ctx, int64_t &counter)
      : OpRewritePattern<NormOp>(ctx), counter(counter) {}

  LogicalResult matchAndRewrite(NormOp norm, PatternRewriter &rewriter) const override {
    Value bias;
    if constexpr (std::is_same_v<NormOp, LayerNormOp>)
      bias = norm.getBias();
    ResidualAddOp add = fusibleAdd(norm, norm.getInput(), {norm.getWeight(), bias});
    if (!add)
      return rewriter.notifyMatchFailure(norm, "input is not a fusible residual_add");
    rewriter.setInsertionPoint(add);
    FusedOp fused;
    if constexpr (std::is_same_v<NormOp, LayerNormOp>)
      fused = FusedOp::create(rewriter, norm.getLoc(), add.getResidual(), add.getBranch(),
                              norm.getWeight(), bias, norm.getEpsAttr(), add.getScaleAttr());
    else
      fused = FusedOp::create(rewriter, norm.getLoc(), add.getResidual(), add.getBranch(),
                              norm.getWeight(), norm.getEpsAttr(), norm.getWeightOffsetAttr(),
                              add.getScaleAttr());
    rewriter.replaceOp(norm, fused.getNormalized());
    rewriter.replaceOp(add, fused.getSum());
    ++counter;
    return success();
  }

  int64_t &counter;
};

struct FuseResidualNormPass
    : public mlir::decoda::impl::FuseResidualNormPassBase<FuseResidualNormPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t fused = 0;
    RewritePatternSet patterns(&getContext());
    if (fuseRMSNorm)
      patterns.add<FuseAddNorm<RMSNormOp, AddRMSNormOp>>(&getContext(), fused);
    if (fuseLayerNorm)
      patterns.add<FuseAddNorm<LayerNormOp, AddLayerNormOp>>(&getContext(), fused);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    numFused += fused;
  }
};
} // namespace
