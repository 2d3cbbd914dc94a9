//===- InsertQDQ.cpp - decoda-insert-qdq ----------------------------------===//
//
// The W8A8 precision policy as explicit quantize/dequantize boundaries: projections compute
// on dequantize(quantize(x)) and dequantize(W_i8), the attention BMMs get their INT8 scales;
// everything else stays float. decoda-fold-qlinear then turns the projection pattern into
// decoda.qlinear. See the pass description in QuantPasses.td.
//
//===----------------------------------------------------------------------===//

#include "QuantUtils.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

namespace mlir::decoda {
#define GEN_PASS_DEF_INSERTQDQPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::quant;

namespace {
constexpr float kQMax = 127.0f;
constexpr float kTiny = 1e-30f; // keeps an all-zero tensor's scale finite

/// Symmetric INT8 weight `[N, K]` (out_in) with its scales (N of them, or one).
struct QuantizedWeight {
  std::vector<int8_t> values;
  std::vector<float> scales;
};

QuantizedWeight quantizeWeight(ArrayRef<float> w, int64_t n, int64_t k, bool outIn,
                               bool perChannel) {
  auto at = [&](int64_t r, int64_t c) { return outIn ? w[r * k + c] : w[c * n + r]; };
  QuantizedWeight q;
  q.scales.assign(perChannel ? n : 1, 0.0f);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      float &m = q.scales[perChannel ? r : 0];
      m = std::max(m, std::fabs(at(r, c)));
    }
  for (float &s : q.scales)
    s = s > 0 ? s / kQMax : 1.0f;
  q.values.resize(n * k);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      float v = std::nearbyint(at(r, c) / q.scales[perChannel ? r : 0]); // ties to even
      q.values[r * k + c] = int8_t(std::clamp(v, -kQMax, kQMax));
    }
  return q;
}

/// `max(max |x|, kTiny) / 127` over the last axis (`[..., 1]`) or over everything (rank 0),
/// computed at run time.
Value dynamicScale(OpBuilder &b, Location loc, Value x, bool perToken) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Type f32 = b.getF32Type();
  SmallVector<int64_t> shape;
  SmallVector<Value> dynSizes;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iters;
  for (int64_t d = 0; d < rank; ++d) {
    bool kept = perToken && d + 1 < rank;
    iters.push_back(kept ? utils::IteratorType::parallel : utils::IteratorType::reduction);
    if (!perToken)
      continue;
    if (kept) {
      shape.push_back(type.getDimSize(d));
      outExprs.push_back(b.getAffineDimExpr(d));
      if (type.isDynamicDim(d))
        dynSizes.push_back(tensor::DimOp::create(b, loc, x, d));
    } else {
      shape.push_back(1);
      outExprs.push_back(b.getAffineConstantExpr(0));
    }
  }
  auto outType = RankedTensorType::get(shape, f32);
  Value empty = tensor::EmptyOp::create(b, loc, shape, f32, dynSizes);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, outExprs, ctx)};
  auto reduce =
      linalg::GenericOp::create(
          b, loc, outType, ValueRange{x}, ValueRange{init}, maps, iters,
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value a = math::AbsFOp::create(nb, nl, args[0]);
            Value m = arith::MaximumFOp::create(nb, nl, a, args[1]);
            linalg::YieldOp::create(nb, nl, m);
          });
  reduce->setAttr(kDynamicScale, b.getUnitAttr());
  Value absmax = reduce.getResult(0);
  SmallVector<AffineMap> ewMaps(2, AffineMap::getMultiDimIdentityMap(shape.size(), ctx));
  SmallVector<utils::IteratorType> ewIters(shape.size(), utils::IteratorType::parallel);
  Value out = tensor::EmptyOp::create(b, loc, shape, f32, dynSizes);
  auto scale = linalg::GenericOp::create(
             b, loc, outType, ValueRange{absmax}, ValueRange{out}, ewMaps, ewIters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value tiny = arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(kTiny));
               Value qmax = arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(kQMax));
               Value m = arith::MaximumFOp::create(nb, nl, args[0], tiny);
               linalg::YieldOp::create(nb, nl, arith::DivFOp::create(nb, nl, m, qmax).getResult());
             });
  scale->setAttr(kDynamicScale, b.getUnitAttr());
  return scale.getResult(0);
}

Value scalarConstant(OpBuilder &b, Location loc, float value) {
  auto type = RankedTensorType::get({}, b.getF32Type());
  return makeConstant<float>(b, loc, type, {value});
}

struct InsertQDQPass : public decoda::impl::InsertQDQPassBase<InsertQDQPass> {
  using InsertQDQPassBase::InsertQDQPassBase;

  bool keepsFloat(Operation *op) {
    if (op->hasAttr(kKeepFloat))
      return true;
    std::string loc;
    llvm::raw_string_ostream os(loc);
    os << op->getLoc();
    StringRef name = op->getName().getStringRef();
    for (const std::string &entry : keepFloat)
      if (name == entry || name == "decoda." + entry || StringRef(loc).contains(entry))
        return true;
    return false;
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    if (activations != "per-token" && activations != "per-tensor") {
      root->emitError() << "decoda-insert-qdq: activations must be per-token or per-tensor, got '"
                        << activations << "'";
      return signalPassFailure();
    }
    if (scales != "dynamic" && scales != "static") {
      root->emitError() << "decoda-insert-qdq: scales must be dynamic or static, got '" << scales
                        << "'";
      return signalPassFailure();
    }
    if (weights != "per-channel" && weights != "per-tensor") {
      root->emitError() << "decoda-insert-qdq: weights must be per-channel or per-tensor, got '"
                        << weights << "'";
      return signalPassFailure();
    }
    if (scales == "static" && activations == "per-token") {
      root->emitError() << "decoda-insert-qdq: static activation scales are per tensor "
                           "(activations=per-tensor); per-token scales are dynamic";
      return signalPassFailure();
    }
    SmallVector<LinearOp> linears;
    SmallVector<Operation *> attentions;
    root->walk([&](Operation *op) {
      if (auto l = dyn_cast<LinearOp>(op))
        linears.push_back(l);
      else if (isa<AttentionOp, CachedAttentionOp>(op))
        attentions.push_back(op);
    });
    bool ok = true;
    for (LinearOp linear : linears)
      if (!keepsFloat(linear))
        ok &= succeeded(quantizeLinear(linear));
    if (attention)
      for (Operation *op : attentions)
        if (!keepsFloat(op)) {
          if (auto a = dyn_cast<AttentionOp>(op))
            ok &= succeeded(quantizeAttention(a));
          else
            ok &= succeeded(quantizeAttention(cast<CachedAttentionOp>(op)));
        }
    if (!ok)
      signalPassFailure();
  }

  LogicalResult quantizeLinear(LinearOp linear) {
    Value x = linear.getInput();
    auto xType = cast<RankedTensorType>(x.getType());
    auto wType = cast<RankedTensorType>(linear.getWeight().getType());
    if (linear.getWeight().getDefiningOp<DequantizeBlocksOp>()) {
      // An int4/int2/int8 weight-only checkpoint (MatMulNBits): its codes already carry their
      // own per-block scales; requantising them per channel would only lose precision.
      linear.emitRemark("decoda-insert-qdq: stays float (its weight is block-quantised, a "
                        "decoda.dequantize_blocks: kept as its codes)");
      return success();
    }
    std::optional<std::vector<float>> w = readF32Constant(linear.getWeight());
    if (!xType.getElementType().isF32() || wType.getRank() != 2 || !w ||
        !cast<RankedTensorType>(linear.getType()).getElementType().isF32()) {
      linear.emitRemark("decoda-insert-qdq: stays float (INT8 needs an f32 linear with a "
                        "constant rank-2 weight)");
      return success();
    }
    bool outIn = linear.getWeightLayout() == WeightLayout::out_in;
    int64_t k = xType.getDimSize(xType.getRank() - 1);
    int64_t n = outIn ? wType.getDimSize(0) : wType.getDimSize(1);

    OpBuilder b(linear);
    Location loc = linear.getLoc();
    Value xs;
    if (scales == "static") {
      double amax = -1;
      if (auto glu = x.getDefiningOp<GluOp>(); glu && gluBound) {
        double bound = glu.getKind().getOutputBound();
        if (std::isfinite(bound)) {
          amax = bound;
          linear->setAttr(kScaleFromGluBound, b.getF64FloatAttr(bound));
        }
      }
      if (amax < 0) {
        std::optional<std::vector<float>> a = calibAbsmax(linear);
        if (!a || int64_t(a->size()) != k)
          return linear.emitError("decoda-insert-qdq: a static activation scale needs "
                                  "calibration statistics ('")
                 << kCalibAbsmax << "' with " << k << " values) on this linear";
        amax = *std::max_element(a->begin(), a->end());
      }
      xs = scalarConstant(b, loc, std::max(float(amax), kTiny) / kQMax);
    } else {
      xs = dynamicScale(b, loc, x, activations == "per-token");
    }
    QuantizedWeight qw = quantizeWeight(*w, n, k, outIn, weights == "per-channel");
    auto i8 = b.getIntegerType(8);
    Value wq = makeConstant<int8_t>(b, loc, RankedTensorType::get({n, k}, i8), qw.values);
    SmallVector<int64_t> wsShape;
    if (weights == "per-channel")
      wsShape = {n, 1};
    Value ws = makeConstant<float>(b, loc, RankedTensorType::get(wsShape, b.getF32Type()),
                                   qw.scales);
    Value xq = QuantizeOp::create(b, loc, x, xs, Value());
    Value xd = DequantizeOp::create(b, loc, xType, xq, xs, Value());
    Value wd = DequantizeOp::create(b, loc, RankedTensorType::get({n, k}, b.getF32Type()), wq,
                                    ws, Value());
    auto q = LinearOp::create(b, loc, linear.getType(), xd, wd, linear.getBias(),
                              WeightLayoutAttr::get(b.getContext(), WeightLayout::out_in));
    for (NamedAttribute attr : linear->getDiscardableAttrs())
      q->setAttr(attr.getName(), attr.getValue());
    linear.replaceAllUsesWith(q.getResult());
    Value oldWeight = linear.getWeight();
    linear.erase();
    if (Operation *def = oldWeight.getDefiningOp(); def && def->use_empty())
      def->erase();
    ++numLinears;
    return success();
  }

  /// attention and cached_attention (whose K/V caches stay float: quantised when read).
  template <typename OpTy>
  LogicalResult quantizeAttention(OpTy op) {
    if (op.getQScale())
      return success(); // already INT8
    for (Value v : {op.getQuery(), op.getKey(), op.getValue()})
      if (!cast<RankedTensorType>(v.getType()).getElementType().isF32()) {
        op.emitRemark("decoda-insert-qdq: attention stays float (INT8 BMMs need f32 q, k, v)");
        return success();
      }
    std::optional<std::vector<float>> a = calibAbsmax(op);
    if (!a || a->size() != 3)
      return op.emitError("decoda-insert-qdq: INT8 attention needs calibration statistics ('")
             << kCalibAbsmax << "' = array<f32: q, k, v> absmax) on this op";
    OpBuilder b(op);
    Location loc = op.getLoc();
    op.getQScaleMutable().assign(scalarConstant(b, loc, std::max((*a)[0], kTiny) / kQMax));
    op.getKScaleMutable().assign(scalarConstant(b, loc, std::max((*a)[1], kTiny) / kQMax));
    op.getVScaleMutable().assign(scalarConstant(b, loc, std::max((*a)[2], kTiny) / kQMax));
    ++numAttention;
    return success();
  }
};
} // namespace
