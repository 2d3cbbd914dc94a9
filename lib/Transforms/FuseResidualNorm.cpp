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
bool isNorm(Operation *op) { return isa<RMSNormOp, LayerNormOp>(op); }

/// Moves every norm of a value that several norms read next to the first of them (when its
/// operands are defined there), so their kernels can run as one launch (GPT-NeoX's parallel
/// block: both norms of the layer's input).
void groupNormsOfOneInput(Operation *root) {
  DominanceInfo dominance(root);
  SmallVector<Operation *> norms;
  root->walk([&](Operation *op) {
    if (isNorm(op))
      norms.push_back(op);
  });
  for (Operation *norm : norms) {
    Value input = norm->getOperand(0);
    Operation *first = norm;
    for (Operation *user : input.getUsers())
      if (isNorm(user) && user->getOperand(0) == input && user->getBlock() == norm->getBlock() &&
          user->isBeforeInBlock(first))
        first = user;
    if (first == norm)
      continue;
    // After `first` and the norms of `input` already moved behind it.
    Operation *after = first;
    while (Operation *next = after->getNextNode()) {
      if (next == norm || !isNorm(next) || next->getOperand(0) != input)
        break;
      after = next;
    }
    if (after->getNextNode() == norm)
      continue;
    if (llvm::all_of(norm->getOperands(), [&](Value v) {
          return dominance.properlyDominates(v, after->getNextNode());
        }))
      norm->moveAfter(after);
  }
}

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
    if (llvm::count_if(add.getResult().getUsers(), isNorm) > 1)
      return rewriter.notifyMatchFailure(norm, "the sum feeds several norms");
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
    groupNormsOfOneInput(getOperation());
    numFused += fused;
  }
};
} // namespace
