//===- FoldQLinear.cpp - decoda-fold-qlinear ------------------------------===//
//
// dequantize -> linear <- dequantize becomes decoda.qlinear (i8 x i8 -> i32 with a fused
// dequantising epilogue); a qlinear read only by a per-tensor quantize takes the requantising
// epilogue. See the pass description in QuantPasses.td.
//
//===----------------------------------------------------------------------===//

#include "QuantUtils.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_FOLDQLINEARPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::quant;

namespace {
bool isRank0(Value v) { return cast<RankedTensorType>(v.getType()).getRank() == 0; }

struct FoldLinear : public OpRewritePattern<LinearOp> {
  FoldLinear(MLIRContext *ctx, int64_t &counter)
      : OpRewritePattern<LinearOp>(ctx), counter(counter) {}

  LogicalResult matchAndRewrite(LinearOp linear, PatternRewriter &rewriter) const override {
    auto xd = linear.getInput().getDefiningOp<DequantizeOp>();
    auto wd = linear.getWeight().getDefiningOp<DequantizeOp>();
    if (!xd || !wd)
      return rewriter.notifyMatchFailure(linear, "operands are not dequantized");
    if (linear.getWeightLayout() != WeightLayout::out_in || wd.getZeroPoint())
      return rewriter.notifyMatchFailure(linear, "weight not symmetric out_in");
    auto wType = cast<RankedTensorType>(wd.getInput().getType());
    auto xType = cast<RankedTensorType>(xd.getInput().getType());
    auto resultType = cast<RankedTensorType>(linear.getType());
    if (wType.getRank() != 2 || resultType.getElementType() != xd.getType().getElementType())
      return rewriter.notifyMatchFailure(linear, "not a rank-2 weight of the input's type");
    // x scale: rank 0 or [..., 1] with the input's leading dims.
    auto xsType = cast<RankedTensorType>(xd.getScale().getType());
    if (xsType.getRank() != 0) {
      if (xsType.getRank() != xType.getRank() || xsType.getShape().back() != 1 ||
          xsType.getShape().drop_back() != xType.getShape().drop_back())
        return rewriter.notifyMatchFailure(linear, "x scale is neither per tensor nor per token");
    }
    // w scale: rank 0, or [N, 1] as a constant that becomes [N].
    Value ws = wd.getScale();
    auto wsType = cast<RankedTensorType>(ws.getType());
    if (wsType.getRank() != 0) {
      std::optional<std::vector<float>> values = readF32Constant(ws);
      if (wsType.getRank() != 2 || wsType.getDimSize(0) != wType.getDimSize(0) ||
          wsType.getDimSize(1) != 1 || !values)
        return rewriter.notifyMatchFailure(linear, "weight scale is not per channel [N, 1]");
      ws = makeConstant<float>(
          rewriter, linear.getLoc(),
          RankedTensorType::get({wType.getDimSize(0)}, rewriter.getF32Type()), *values);
    }
    auto q = QLinearOp::create(rewriter, linear.getLoc(), resultType, xd.getInput(),
                               wd.getInput(), xd.getScale(), ws, xd.getZeroPoint(),
                               linear.getBias(), Value());
    for (NamedAttribute attr : linear->getDiscardableAttrs())
      q->setAttr(attr.getName(), attr.getValue());
    rewriter.replaceOp(linear, q.getResult());
    ++counter;
    return success();
  }
  int64_t &counter;
};

/// qlinear (f32 epilogue) -> quantize(rank-0 scale) becomes the requantising epilogue.
struct FoldRequantize : public OpRewritePattern<QuantizeOp> {
  using OpRewritePattern<QuantizeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeOp quant, PatternRewriter &rewriter) const override {
    auto q = quant.getInput().getDefiningOp<QLinearOp>();
    if (!q || q.getOutScale() || !q->hasOneUse() || quant.getZeroPoint() ||
        !isRank0(quant.getScale()) ||
        !cast<RankedTensorType>(q.getType()).getElementType().isF32())
      return rewriter.notifyMatchFailure(quant, "not a per-tensor requantize of a qlinear");
    auto folded = QLinearOp::create(rewriter, q.getLoc(), quant.getType(), q.getInput(),
                                    q.getWeight(), q.getXScale(), q.getWScale(),
                                    q.getXZeroPoint(), q.getBias(), quant.getScale());
    for (NamedAttribute attr : q->getDiscardableAttrs())
      folded->setAttr(attr.getName(), attr.getValue());
    rewriter.replaceOp(quant, folded.getResult());
    rewriter.eraseOp(q);
    return success();
  }
};

struct FoldQLinearPass : public decoda::impl::FoldQLinearPassBase<FoldQLinearPass> {
  void runOnOperation() override {
    int64_t folded = 0;
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldLinear>(&getContext(), folded);
    patterns.add<FoldRequantize>(&getContext());
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    numFolded += folded;
  }
};
} // namespace
