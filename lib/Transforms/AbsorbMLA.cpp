//===- AbsorbMLA.cpp - decoda.mla -> MQA attention over the latent --------===//

#include "decoda/Transforms/AbsorbMLA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::decoda {
#define GEN_PASS_DEF_ABSORBMLAPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;

//===----------------------------------------------------------------------===//
// KV-cache figures
//===----------------------------------------------------------------------===//

MLACacheFigures mlir::decoda::computeMLACacheFigures(MLAOp op) {
  auto staticOr0 = [](int64_t d) { return ShapedType::isDynamic(d) ? 0 : d; };
  MLACacheFigures f;
  f.numHeads = static_cast<int64_t>(op.getNumHeads());
  f.nopeDim = staticOr0(op.getQNope().getType().getDimSize(3));
  f.ropeDim = staticOr0(cast<RankedTensorType>(op.getQRope().getType()).getDimSize(3));
  f.latentDim = staticOr0(cast<RankedTensorType>(op.getLatent().getType()).getDimSize(2));
  f.valueDim = staticOr0(cast<RankedTensorType>(op.getWUv().getType()).getDimSize(1));
  f.bytesPerNumber = op.getQNope().getType().getElementTypeBitWidth() / 8;
  return f;
}

std::string MLACacheFigures::describe() const {
  int64_t absorbed = absorbedPerToken(), decompressed = decompressedPerToken();
  std::string ratio =
      absorbed ? llvm::formatv("{0:F1}", static_cast<double>(decompressed) / absorbed).str() : "?";
  return llvm::formatv("KV cache per token and layer: absorbed {0} numbers ({1} bytes: latent "
                       "{2} + RoPE key {3}), decompressed {4} numbers ({5} bytes: {6} heads x "
                       "({7} + {3}) keys + {6} heads x {8} values{9}); {10}x smaller",
                       absorbed, absorbed * bytesPerNumber, latentDim, ropeDim, decompressed,
                       decompressed * bytesPerNumber, numHeads, nopeDim, valueDim,
                       valueDim ? "" : ", value width dynamic", ratio)
      .str();
}

namespace {
//===----------------------------------------------------------------------===//
// Folding W_UV into the output projection
//===----------------------------------------------------------------------===//

/// The elements of an f32 arith.constant (`dense` or `dense_resource` with its data).
struct F32Constant {
  SmallVector<float> values;
  bool isResource = false;
};

std::optional<F32Constant> f32Constant(Value v) {
  auto cst = v ? v.getDefiningOp<arith::ConstantOp>() : nullptr;
  auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
  if (!cst || !type || !type.hasStaticShape() || !type.getElementType().isF32())
    return std::nullopt;
  F32Constant out;
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue())) {
    auto values = dense.getValues<float>();
    out.values.assign(values.begin(), values.end());
  } else if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(cst.getValue())) {
    std::optional<ArrayRef<float>> values = resource.tryGetAsArrayRef();
    if (!values)
      return std::nullopt;
    out.values.assign(values->begin(), values->end());
    out.isResource = true;
  } else {
    return std::nullopt;
  }
  if (static_cast<int64_t>(out.values.size()) != type.getNumElements())
    return std::nullopt;
  return out;
}

/// `mla → collapse_shape [[0], [1], [2, 3]] → decoda.linear` with constant f32 W_UV and W_O,
/// each the only user of the value before it.
struct OutputProjection {
  tensor::CollapseShapeOp collapse;
  LinearOp projection;
  F32Constant wuv, wo;
};

std::optional<OutputProjection> matchOutputProjection(MLAOp op) {
  if (!op->hasOneUse())
    return std::nullopt;
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(*op->getUsers().begin());
  SmallVector<ReassociationIndices> heads{{0}, {1}, {2, 3}};
  if (!collapse || collapse.getReassociationIndices() != heads || !collapse->hasOneUse())
    return std::nullopt;
  auto projection = dyn_cast<LinearOp>(*collapse->getUsers().begin());
  if (!projection || projection.getInput() != collapse.getResult() ||
      cast<RankedTensorType>(projection.getWeight().getType()).getRank() != 2)
    return std::nullopt;
  std::optional<F32Constant> wuv = f32Constant(op.getWUv());
  std::optional<F32Constant> wo = f32Constant(projection.getWeight());
  if (!wuv || !wo)
    return std::nullopt;
  return OutputProjection{collapse, projection, std::move(*wuv), std::move(*wo)};
}

/// W_O' = W_O · blockdiag(W_UV[h]) in W_O's layout: [D, H·Dc] (`out_in`) or [H·Dc, D]
/// (`in_out`), accumulated in f64.
SmallVector<float> foldOutputWeight(ArrayRef<float> wo, ArrayRef<float> wuv, WeightLayout layout,
                                    int64_t d, int64_t h, int64_t dv, int64_t dc) {
  SmallVector<double> acc(d * h * dc, 0.0);
  for (int64_t head = 0; head < h; ++head)
    for (int64_t v = 0; v < dv; ++v)
      for (int64_t c = 0; c < dc; ++c) {
        double u = wuv[(head * dv + v) * dc + c];
        for (int64_t o = 0; o < d; ++o) {
          if (layout == WeightLayout::out_in)
            acc[o * h * dc + head * dc + c] += wo[o * h * dv + head * dv + v] * u;
          else
            acc[(head * dc + c) * d + o] += wo[(head * dv + v) * d + o] * u;
        }
      }
  return SmallVector<float>(acc.begin(), acc.end());
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

/// `[B, T, D]` → `[B, T, 1, D]`: one KV head.
Value oneHead(PatternRewriter &rewriter, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  auto result = RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(1), 1, type.getDimSize(2)}, type.getElementType());
  return tensor::ExpandShapeOp::create(rewriter, loc, result, v,
                                       SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

struct AbsorbMLAPattern : public OpRewritePattern<MLAOp> {
  AbsorbMLAPattern(MLIRContext *ctx, const AbsorbMLAPassOptions &options, AbsorbMLACounts &counts)
      : OpRewritePattern(ctx), options(options), counts(counts) {}

  LogicalResult matchAndRewrite(MLAOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t h = static_cast<int64_t>(op.getNumHeads());
    int64_t dn = op.getQNope().getType().getDimSize(3);
    int64_t dr = cast<RankedTensorType>(op.getQRope().getType()).getDimSize(3);
    int64_t dc = cast<RankedTensorType>(op.getLatent().getType()).getDimSize(2);
    int64_t dv = cast<RankedTensorType>(op.getWUv().getType()).getDimSize(1);

    // Decide the output side before rewriting anything.
    std::optional<OutputProjection> fold;
    if (options.foldOutputProjection != "never" && !ShapedType::isDynamic(dv))
      fold = matchOutputProjection(op);
    if (fold && options.foldOutputProjection == "cost") {
      int64_t d = *fold->projection.getResult().getType().getShape().rbegin();
      // Multiply-adds per query token: folded D·H·Dc, unfolded H·Dv·Dc + D·H·Dv.
      if (ShapedType::isDynamic(d) || d * h * dc > h * dv * dc + d * h * dv)
        fold.reset();
    }

    // q_lat[h] = q_nope[h] · W_UK[h]: w_uk [H, Dn, Dc] is the per-head [H, K, N] (`in_out`).
    auto inOut = WeightLayoutAttr::get(ctx, WeightLayout::in_out);
    Value qLat = LinearOp::create(rewriter, loc, op.getQNope(), op.getWUk(), Value(), inOut);
    Value query = tensor::ConcatOp::create(rewriter, loc, 3, ValueRange{qLat, op.getQRope()});
    Value key = oneHead(
        rewriter, loc,
        tensor::ConcatOp::create(rewriter, loc, 2, ValueRange{op.getLatent(), op.getKRope()}));
    // V = c is the first Dc columns of K: taken as that slice of K rather than from the
    // latent, so that a kernel sees V as a prefix of K (the GPU's SIMT attention kernel then
    // computes P·V from its K tile: one tile of K/V bytes a key instead of two).
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, key);
    sizes[3] = rewriter.getIndexAttr(dc); // (the verifier wants a static Dc)
    Value value = tensor::ExtractSliceOp::create(
        rewriter, loc, key, SmallVector<OpFoldResult>(4, rewriter.getIndexAttr(0)), sizes,
        SmallVector<OpFoldResult>(4, rewriter.getIndexAttr(1)));
    FloatAttr scale = op.getScaleAttr()
                          ? op.getScaleAttr()
                          : rewriter.getF64FloatAttr(1.0 / std::sqrt(static_cast<double>(dn + dr)));
    Value attended = AttentionOp::create(
        rewriter, loc, query, key, value, /*mask=*/Value(), /*segment_ids=*/Value(),
        /*sinks=*/Value(), rewriter.getI64IntegerAttr(h), rewriter.getI64IntegerAttr(1), scale,
        op.getCausalAttr(), /*window=*/IntegerAttr(), /*chunk_size=*/IntegerAttr(),
        /*softcap=*/FloatAttr());
    ++counts.absorbed;

    if (!fold) {
      auto outIn = WeightLayoutAttr::get(ctx, WeightLayout::out_in);
      rewriter.replaceOp(
          op, LinearOp::create(rewriter, loc, attended, op.getWUv(), Value(), outIn).getResult());
      return success();
    }

    LinearOp projection = fold->projection;
    WeightLayout layout = projection.getWeightLayout();
    auto woType = cast<RankedTensorType>(projection.getWeight().getType());
    int64_t d = layout == WeightLayout::out_in ? woType.getDimSize(0) : woType.getDimSize(1);
    SmallVector<float> folded =
        foldOutputWeight(fold->wo.values, fold->wuv.values, layout, d, h, dv, dc);
    SmallVector<int64_t> shape = layout == WeightLayout::out_in ? SmallVector<int64_t>{d, h * dc}
                                                                : SmallVector<int64_t>{h * dc, d};
    auto type = RankedTensorType::get(shape, rewriter.getF32Type());
    TypedAttr attr;
    if (fold->wo.isResource || fold->wuv.isResource)
      attr = cast<TypedAttr>(DenseF32ResourceElementsAttr::get(
          type, "decoda_absorbed", HeapAsmResourceBlob::allocateAndCopyInferAlign<float>(folded)));
    else
      attr = DenseElementsAttr::get(type, ArrayRef<float>(folded));

    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc, attended, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
    rewriter.setInsertionPoint(projection);
    Value weight = arith::ConstantOp::create(rewriter, projection.getLoc(), type, attr);
    auto absorbed = LinearOp::create(rewriter, projection.getLoc(), flat, weight,
                                     projection.getBias(), projection.getWeightLayoutAttr());
    Operation *oldWo = projection.getWeight().getDefiningOp();
    Operation *oldWuv = op.getWUv().getDefiningOp();
    rewriter.replaceOp(projection, absorbed.getResult());
    rewriter.eraseOp(fold->collapse);
    rewriter.eraseOp(op);
    for (Operation *cst : {oldWo, oldWuv})
      if (cst && cst->use_empty())
        rewriter.eraseOp(cst);
    ++counts.foldedOutputProjections;
    return success();
  }

  AbsorbMLAPassOptions options;
  AbsorbMLACounts &counts;
};

struct AbsorbMLAPass : public mlir::decoda::impl::AbsorbMLAPassBase<AbsorbMLAPass> {
  using Base::Base;

  void runOnOperation() override {
    AbsorbMLAPassOptions options{foldOutputProjection, report};
    AbsorbMLACounts counts;
    if (failed(absorbMLA(getOperation(), options, counts)))
      return signalPassFailure();
    numAbsorbed += counts.absorbed;
    numFoldedOutputProjections += counts.foldedOutputProjections;
  }
};
} // namespace

void mlir::decoda::populateAbsorbMLAPatterns(RewritePatternSet &patterns,
                                             const AbsorbMLAPassOptions &options,
                                             AbsorbMLACounts &counts) {
  patterns.add<AbsorbMLAPattern>(patterns.getContext(), options, counts);
}

LogicalResult mlir::decoda::absorbMLA(Operation *root, const AbsorbMLAPassOptions &options,
                                      AbsorbMLACounts &counts) {
  StringRef policy = options.foldOutputProjection;
  if (policy != "cost" && policy != "always" && policy != "never")
    return root->emitError() << "decoda-absorb-mla: fold-output-projection must be 'cost', "
                                "'always' or 'never', found '"
                             << policy << "'";
  if (options.report)
    root->walk([](MLAOp op) { op.emitRemark() << computeMLACacheFigures(op).describe(); });
  RewritePatternSet patterns(root->getContext());
  populateAbsorbMLAPatterns(patterns, options, counts);
  GreedyRewriteConfig config;
  config.enableFolding(false);
  if (failed(applyPatternsGreedily(root, std::move(patterns), config)))
    return root->emitError() << "decoda-absorb-mla did not converge";
  return success();
}
