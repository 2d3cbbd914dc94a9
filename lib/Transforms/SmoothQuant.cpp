//===- SmoothQuant.cpp - decoda-smooth-quant ------------------------------===//
//
// SmoothQuant (Xiao et al., 2023): per input channel j of the linears that read a norm's
// output, s_j = a_j^alpha / w_j^(1-alpha) moves the activation's outlier channels into the
// weights: the norm's weight (and bias) are divided by s, the weights' columns multiplied by s.
// See the pass description in QuantPasses.td.
//
//===----------------------------------------------------------------------===//

#include "QuantUtils.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Transforms/Passes.h"

#include <cmath>

namespace mlir::decoda {
#define GEN_PASS_DEF_SMOOTHQUANTPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::quant;

namespace {
/// A norm whose normalised output may be smoothed: its weight, optional bias and offset.
struct NormParts {
  Operation *op;
  Value normalized;
  OpOperand *weight;
  OpOperand *bias = nullptr;
  double weightOffset = 0;
};

std::optional<NormParts> normParts(Operation *op) {
  NormParts p{op, {}, nullptr};
  if (auto n = dyn_cast<RMSNormOp>(op)) {
    p.normalized = n.getResult();
    p.weight = &n.getWeightMutable();
    p.weightOffset = n.getWeightOffset().convertToDouble();
  } else if (auto n = dyn_cast<AddRMSNormOp>(op)) {
    p.normalized = n.getNormalized();
    p.weight = &n.getWeightMutable();
    p.weightOffset = n.getWeightOffset().convertToDouble();
  } else if (auto n = dyn_cast<LayerNormOp>(op)) {
    p.normalized = n.getResult();
    p.weight = &n.getWeightMutable();
    if (n.getBias())
      p.bias = &n.getBiasMutable()[0];
  } else if (auto n = dyn_cast<AddLayerNormOp>(op)) {
    p.normalized = n.getNormalized();
    p.weight = &n.getWeightMutable();
    if (n.getBias())
      p.bias = &n.getBiasMutable()[0];
  } else {
    return std::nullopt;
  }
  return p;
}

struct SmoothQuantPass : public decoda::impl::SmoothQuantPassBase<SmoothQuantPass> {
  using SmoothQuantPassBase::SmoothQuantPassBase;

  void runOnOperation() override {
    if (!(alpha >= 0.0 && alpha <= 1.0)) {
      getOperation()->emitError() << "decoda-smooth-quant: alpha must be in [0, 1], got "
                                  << alpha;
      return signalPassFailure();
    }
    SmallVector<NormParts> norms;
    getOperation()->walk([&](Operation *op) {
      if (std::optional<NormParts> p = normParts(op))
        norms.push_back(*p);
    });
    for (NormParts &norm : norms)
      if (smooth(norm))
        ++numSmoothed;
  }

  /// Smooths one norm output; false (nothing changed) when the group does not qualify.
  bool smooth(NormParts &norm) {
    Value x = norm.normalized;
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || !xType.getElementType().isF32() || x.use_empty())
      return false;
    int64_t k = xType.getDimSize(xType.getRank() - 1);
    if (ShapedType::isDynamic(k))
      return false;
    SmallVector<LinearOp> linears;
    SmallVector<std::vector<float>> weights;
    std::vector<float> act(k, 0.0f);
    for (OpOperand &use : x.getUses()) {
      auto linear = dyn_cast<LinearOp>(use.getOwner());
      if (!linear || use.getOperandNumber() != 0 || linear->hasAttr(kKeepFloat))
        return false;
      auto wType = cast<RankedTensorType>(linear.getWeight().getType());
      if (wType.getRank() != 2 || linear.getWeight() == x)
        return false;
      std::optional<std::vector<float>> w = readF32Constant(linear.getWeight());
      std::optional<std::vector<float>> a = calibAbsmax(linear);
      if (!w || !a || int64_t(a->size()) != k)
        return false;
      if (llvm::is_contained(linears, linear))
        continue;
      for (int64_t j = 0; j < k; ++j)
        act[j] = std::max(act[j], (*a)[j]);
      linears.push_back(linear);
      weights.push_back(std::move(*w));
    }
    std::optional<std::vector<float>> gamma = readF32Constant(norm.weight->get());
    std::optional<std::vector<float>> beta;
    if (norm.bias && !(beta = readF32Constant(norm.bias->get())))
      return false;
    if (!gamma || int64_t(gamma->size()) != k || (beta && int64_t(beta->size()) != k))
      return false;

    // w_j: the largest |W[., j]| over every linear of the group.
    std::vector<float> wmax(k, 0.0f);
    for (auto [linear, w] : llvm::zip_equal(linears, weights)) {
      bool outIn = linear.getWeightLayout() == WeightLayout::out_in;
      int64_t n = int64_t(w.size()) / k;
      for (int64_t r = 0; r < n; ++r)
        for (int64_t j = 0; j < k; ++j)
          wmax[j] = std::max(wmax[j], std::fabs(outIn ? w[r * k + j] : w[j * n + r]));
    }
    std::vector<float> s(k, 1.0f);
    for (int64_t j = 0; j < k; ++j) {
      if (!(act[j] > 0) || !(wmax[j] > 0))
        continue;
      double v = std::pow(double(act[j]), double(alpha)) /
                 std::pow(double(wmax[j]), 1.0 - double(alpha));
      s[j] = float(std::clamp(v, 1e-5, 1e5));
    }

    // Norm: (o + gamma) / s - o, beta / s.
    OpBuilder b(norm.op);
    Location loc = norm.op->getLoc();
    for (int64_t j = 0; j < k; ++j) {
      (*gamma)[j] = float((norm.weightOffset + (*gamma)[j]) / s[j] - norm.weightOffset);
      if (beta)
        (*beta)[j] /= s[j];
    }
    auto vecType = RankedTensorType::get({k}, b.getF32Type());
    replaceConstantOperand(*norm.weight, makeConstant<float>(b, loc, vecType, *gamma));
    if (beta)
      replaceConstantOperand(*norm.bias, makeConstant<float>(b, loc, vecType, *beta));

    // Weights: column j times s_j; statistics divided by s.
    for (auto [linear, w] : llvm::zip_equal(linears, weights)) {
      bool outIn = linear.getWeightLayout() == WeightLayout::out_in;
      int64_t n = int64_t(w.size()) / k;
      for (int64_t r = 0; r < n; ++r)
        for (int64_t j = 0; j < k; ++j)
          (outIn ? w[r * k + j] : w[j * n + r]) *= s[j];
      OpBuilder lb(linear);
      auto wType = cast<RankedTensorType>(linear.getWeight().getType());
      replaceConstantOperand(linear.getWeightMutable(),
                             makeConstant<float>(lb, linear.getLoc(), wType, w));
      std::vector<float> a = *calibAbsmax(linear);
      for (int64_t j = 0; j < k; ++j)
        a[j] /= s[j];
      linear->setAttr(kCalibAbsmax, DenseF32ArrayAttr::get(linear.getContext(), a));
      linear->setAttr(kSmoothed, UnitAttr::get(linear.getContext()));
    }
    return true;
  }

  /// Points `operand` at `value`, erasing the old constant when nothing else reads it.
  static void replaceConstantOperand(OpOperand &operand, Value value) {
    Value old = operand.get();
    operand.set(value);
    if (Operation *def = old.getDefiningOp(); def && def->use_empty())
      def->erase();
  }
};
} // namespace
