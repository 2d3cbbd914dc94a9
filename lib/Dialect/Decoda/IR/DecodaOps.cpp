//===- DecodaOps.cpp - verifiers and type inference of decoda ops ---------===//

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::decoda;

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

namespace {
bool isDyn(int64_t d) { return ShapedType::isDynamic(d); }

/// Two extents that can be equal at run time.
bool compatible(int64_t a, int64_t b) { return isDyn(a) || isDyn(b) || a == b; }

std::string dimStr(int64_t d) { return isDyn(d) ? std::string("?") : std::to_string(d); }

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Emits "<what> must have rank <rank>, found <type>" unless `v` has that rank.
LogicalResult expectRank(function_ref<InFlightDiagnostic()> emitError, Value v, int64_t rank,
                         StringRef what) {
  RankedTensorType t = tensorType(v);
  if (t.getRank() == rank)
    return success();
  return emitError() << what << " must have rank " << rank << ", found " << t;
}

/// Checks extent `found` (of `what`) against `expected`; `expectedWhat` names where it comes from.
LogicalResult expectDim(function_ref<InFlightDiagnostic()> emitError, int64_t found,
                        int64_t expected, StringRef what, StringRef expectedWhat) {
  if (compatible(found, expected))
    return success();
  return emitError() << what << " is " << dimStr(found) << ", expected " << dimStr(expected)
                     << " (" << expectedWhat << ")";
}

LogicalResult expectStatic(function_ref<InFlightDiagnostic()> emitError, int64_t d,
                           StringRef what) {
  if (!isDyn(d))
    return success();
  return emitError() << what << " must be static";
}

/// A per-feature vector of a norm or a bias: rank 1 with `features` entries.
LogicalResult expectVector(function_ref<InFlightDiagnostic()> emitError, Value v,
                           int64_t features, StringRef what, StringRef featuresWhat) {
  if (failed(expectRank(emitError, v, 1, what)))
    return failure();
  return expectDim(emitError, tensorType(v).getDimSize(0), features,
                   (Twine(what) + " size").str(), featuresWhat);
}

LogicalResult expectSameElementType(function_ref<InFlightDiagnostic()> emitError, Value a,
                                    Value b, StringRef aWhat, StringRef bWhat) {
  Type ea = tensorType(a).getElementType(), eb = tensorType(b).getElementType();
  if (ea == eb)
    return success();
  return emitError() << bWhat << " element type " << eb << " must match " << aWhat << " ("
                     << ea << ")";
}

bool isPositiveFinite(double v) { return std::isfinite(v) && v > 0.0; }

/// Splits a projection weight into (out, in) according to its layout; `weightShape` holds the
/// last two dims.
std::pair<int64_t, int64_t> outIn(ArrayRef<int64_t> lastTwo, WeightLayout layout) {
  return layout == WeightLayout::out_in ? std::make_pair(lastTwo[0], lastTwo[1])
                                        : std::make_pair(lastTwo[1], lastTwo[0]);
}

StringRef layoutName(WeightLayout layout) {
  return layout == WeightLayout::out_in ? "out_in" : "in_out";
}

/// Checks a 2-D projection weight of `layout` that maps `in` features to `out` features.
LogicalResult expectProjection(function_ref<InFlightDiagnostic()> emitError, Value w,
                               WeightLayout layout, int64_t out, int64_t in, StringRef what,
                               StringRef outWhat, StringRef inWhat) {
  if (failed(expectRank(emitError, w, 2, what)))
    return failure();
  auto [o, i] = outIn(tensorType(w).getShape(), layout);
  std::string lay = (" [" + layoutName(layout) + "]").str();
  if (failed(expectDim(emitError, o, out, (Twine(what) + " output dim" + lay).str(), outWhat)) ||
      failed(expectDim(emitError, i, in, (Twine(what) + " input dim" + lay).str(), inWhat)))
    return failure();
  return success();
}

/// A scale (or zero point) that broadcasts against `data` with the same rank, or rank 0.
LogicalResult expectBroadcastable(function_ref<InFlightDiagnostic()> emitError, Value scale,
                                  Value data, StringRef what) {
  RankedTensorType s = tensorType(scale), d = tensorType(data);
  if (s.getRank() == 0)
    return success();
  if (s.getRank() != d.getRank())
    return emitError() << what << " must be rank 0 or have the rank of the data ("
                       << d.getRank() << "), found " << s;
  for (int64_t i = 0; i < s.getRank(); ++i) {
    int64_t sd = s.getDimSize(i), dd = d.getDimSize(i);
    if (sd != 1 && !compatible(sd, dd))
      return emitError() << what << " dim " << i << " is " << dimStr(sd) << "; expected 1 or "
                         << dimStr(dd) << " to broadcast against " << d;
  }
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// NormOpInterface
//===----------------------------------------------------------------------===//

LogicalResult mlir::decoda::detail::verifyNormOp(Operation *op) {
  auto norm = cast<NormOpInterface>(op);
  auto emitError = [&]() { return op->emitOpError(); };
  double eps = norm.getEpsValue();
  if (!(eps >= 0.0) || !std::isfinite(eps))
    return op->emitOpError() << "eps must be finite and non-negative, found " << eps;
  RankedTensorType in = tensorType(norm.getNormInput());
  if (in.getRank() < 1)
    return op->emitOpError() << "normalises the last axis and needs rank >= 1, found " << in;
  int64_t features = in.getDimSize(in.getRank() - 1);
  if (failed(expectVector(emitError, norm.getNormWeight(), features, "weight",
                          "the last dim of the input")))
    return failure();
  if (Value bias = norm.getNormBias())
    if (failed(expectVector(emitError, bias, features, "bias", "the last dim of the input")))
      return failure();
  return success();
}

bool RMSNormOp::isCentered() { return false; }
Value RMSNormOp::getNormInput() { return getInput(); }
Value RMSNormOp::getNormWeight() { return getWeight(); }
Value RMSNormOp::getNormBias() { return {}; }
double RMSNormOp::getEpsValue() { return getEps().convertToDouble(); }

bool LayerNormOp::isCentered() { return true; }
Value LayerNormOp::getNormInput() { return getInput(); }
Value LayerNormOp::getNormWeight() { return getWeight(); }
Value LayerNormOp::getNormBias() { return getBias(); }
double LayerNormOp::getEpsValue() { return getEps().convertToDouble(); }

bool AddRMSNormOp::isCentered() { return false; }
Value AddRMSNormOp::getNormInput() { return getResidual(); }
Value AddRMSNormOp::getNormWeight() { return getWeight(); }
Value AddRMSNormOp::getNormBias() { return {}; }
double AddRMSNormOp::getEpsValue() { return getEps().convertToDouble(); }

bool AddLayerNormOp::isCentered() { return true; }
Value AddLayerNormOp::getNormInput() { return getResidual(); }
Value AddLayerNormOp::getNormWeight() { return getWeight(); }
Value AddLayerNormOp::getNormBias() { return getBias(); }
double AddLayerNormOp::getEpsValue() { return getEps().convertToDouble(); }

//===----------------------------------------------------------------------===//
// ResidualAddOp
//===----------------------------------------------------------------------===//

LogicalResult ResidualAddOp::verify() {
  double scale = getScale().convertToDouble();
  if (!std::isfinite(scale))
    return emitOpError() << "branch scale must be finite, found " << scale;
  return success();
}

//===----------------------------------------------------------------------===//
// HyperConnectionOp
//===----------------------------------------------------------------------===//

int64_t HyperConnectionOp::getNumStreams() {
  RankedTensorType t = getStreams().getType();
  return t.getDimSize(t.getRank() - 2);
}

RankedTensorType HyperConnectionOp::getLayerType() {
  RankedTensorType t = getStreams().getType();
  SmallVector<int64_t> shape(t.getShape());
  shape.erase(shape.end() - 2);
  return RankedTensorType::get(shape, t.getElementType());
}

LogicalResult HyperConnectionOp::verify() {
  auto emitError = [&]() { return emitOpError(); };
  RankedTensorType streams = getStreams().getType();
  if (streams.getRank() < 2)
    return emitOpError() << "streams must be [..., n, d] (rank >= 2), found " << streams;
  int64_t n = streams.getDimSize(streams.getRank() - 2);
  if (failed(expectStatic(emitError, n, "the number of streams n (dim -2 of streams)")))
    return failure();
  // I64Attr getters return uint64_t: read the value as signed so that a negative count is caught.
  int64_t iters = static_cast<int64_t>(getSinkhornIters());
  if (iters < 1)
    return emitOpError() << "sinkhorn_iters must be >= 1 to make the mixing matrix doubly "
                            "stochastic, found "
                         << iters;
  ArrayRef<int64_t> leading = streams.getShape().drop_back(2);

  // Each logit tensor is either static (`suffix` only) or one per token (leading + suffix).
  auto checkLogits = [&](Value v, ArrayRef<int64_t> suffix, StringRef what) -> LogicalResult {
    RankedTensorType t = tensorType(v);
    std::string staticShape, dynShape;
    for (int64_t d : suffix)
      staticShape += (staticShape.empty() ? "" : "x") + std::to_string(d);
    if (t.getRank() == static_cast<int64_t>(suffix.size())) {
      if (t.getShape() == suffix)
        return success();
    } else if (t.getRank() == static_cast<int64_t>(leading.size() + suffix.size())) {
      bool ok = true;
      for (auto [i, d] : llvm::enumerate(leading))
        ok &= compatible(t.getDimSize(i), d);
      for (auto [i, d] : llvm::enumerate(suffix))
        ok &= t.getDimSize(leading.size() + i) == d;
      if (ok)
        return success();
    }
    return emitOpError() << what << " must be [" << staticShape
                         << "] (one set per layer) or [..., " << staticShape
                         << "] with the leading dims of the streams (one per token), found "
                         << t;
  };
  if (failed(checkLogits(getReadLogits(), {n}, "read logits (Ã)")) ||
      failed(checkLogits(getMixLogits(), {n, n}, "mix logits (B̃)")) ||
      failed(checkLogits(getWriteLogits(), {n}, "write logits (C̃)")))
    return failure();
  return success();
}

LogicalResult HyperConnectionOp::verifyRegions() {
  Block &body = getBody().front();
  RankedTensorType layerType = getLayerType();
  if (body.getNumArguments() != 1 || body.getArgument(0).getType() != layerType)
    return emitOpError() << "body must take one argument, the layer input " << layerType;
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getValues().size() != 1 ||
      yield.getValues().front().getType() != layerType)
    return emitOpError() << "body must yield one value, the layer output " << layerType;
  return success();
}

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto in = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto w = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
  if (!in || !w)
    return emitOptionalError(loc, "'decoda.linear' expects ranked tensors");
  if (w.getRank() != 2 && w.getRank() != 3)
    return emitOptionalError(loc, "'decoda.linear' weight must be [N, K] or per-head [H, N, K], "
                                  "found ",
                             w);
  if (in.getRank() < w.getRank() - 1)
    return emitOptionalError(loc, "'decoda.linear' input must have rank >= ", w.getRank() - 1,
                             " for a rank-", w.getRank(), " weight, found ", in);
  // Default-valued attributes are not populated yet when the parser infers the result type.
  WeightLayoutAttr layoutAttr = adaptor.getWeightLayoutAttr();
  // Nor is the attr-dict moved into the properties yet (upstream llvm/llvm-project#193284): a
  // `weight_layout` written there is only in the attribute dictionary, and it wins.
  if (DictionaryAttr attrs = adaptor.getAttributes())
    if (auto parsed = attrs.getAs<WeightLayoutAttr>("weight_layout"))
      layoutAttr = parsed;
  WeightLayout layout = layoutAttr ? layoutAttr.getValue() : WeightLayout::out_in;
  int64_t out = outIn(w.getShape().take_back(2), layout).first;
  SmallVector<int64_t> shape(in.getShape());
  shape.back() = out;
  results.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult LinearOp::verify() {
  auto emitError = [&]() { return emitOpError(); };
  RankedTensorType in = getInput().getType(), w = getWeight().getType();
  WeightLayout layout = getWeightLayout();
  auto [out, inDim] = outIn(w.getShape().take_back(2), layout);
  std::string lay = (" [" + layoutName(layout) + "]").str();
  if (failed(expectDim(emitError, inDim, in.getDimSize(in.getRank() - 1),
                       "weight input dim" + lay, "the last dim of the input")))
    return failure();
  if (w.getRank() == 3) {
    int64_t heads = w.getDimSize(0);
    if (failed(expectDim(emitError, in.getDimSize(in.getRank() - 2), heads,
                         "input dim -2 (heads)", "dim 0 of the per-head weight")))
      return failure();
    if (Value bias = getBias()) {
      RankedTensorType b = tensorType(bias);
      if (b.getRank() != 2 || !compatible(b.getDimSize(0), heads) ||
          !compatible(b.getDimSize(1), out))
        return emitOpError() << "bias of a per-head linear must be [" << dimStr(heads) << ", "
                             << dimStr(out) << "], found " << b;
    }
  } else if (Value bias = getBias()) {
    if (failed(expectVector(emitError, bias, out, "bias", "the weight's output dim")))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto ids = dyn_cast<RankedTensorType>(adaptor.getIds().getType());
  auto table = dyn_cast<RankedTensorType>(adaptor.getTable().getType());
  if (!ids || !table)
    return emitOptionalError(loc, "'decoda.embedding' expects ranked tensors");
  if (table.getRank() != 2)
    return emitOptionalError(loc, "'decoda.embedding' table must be [V, D], found ", table);
  SmallVector<int64_t> shape(ids.getShape());
  shape.push_back(table.getDimSize(1));
  results.push_back(RankedTensorType::get(shape, table.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// MLPs
//===----------------------------------------------------------------------===//

LogicalResult MLPOp::verify() {
  auto emitError = [&]() { return emitOpError(); };
  RankedTensorType in = getInput().getType();
  if (in.getRank() < 1)
    return emitOpError() << "input must have rank >= 1, found " << in;
  int64_t d = in.getDimSize(in.getRank() - 1);
  WeightLayout layout = getWeightLayout();
  if (failed(expectRank(emitError, getWUp(), 2, "w_up")))
    return failure();
  int64_t f = outIn(getWUp().getType().getShape(), layout).first;
  if (failed(expectProjection(emitError, getWUp(), layout, f, d, "w_up", "hidden width",
                              "the last dim of the input")) ||
      failed(expectProjection(emitError, getWDown(), layout, d, f, "w_down",
                              "the last dim of the input", "w_up's hidden width")))
    return failure();
  if (static_cast<bool>(getBUp()) != static_cast<bool>(getBDown()))
    return emitOpError() << "biases come in pairs: b_up and b_down are both present or both "
                            "absent";
  if (getBUp() &&
      (failed(expectVector(emitError, getBUp(), f, "b_up", "w_up's hidden width")) ||
       failed(expectVector(emitError, getBDown(), d, "b_down", "the last dim of the input"))))
    return failure();
  return success();
}

LogicalResult GatedMLPOp::verify() {
  auto emitError = [&]() { return emitOpError(); };
  RankedTensorType in = getInput().getType();
  if (in.getRank() < 1)
    return emitOpError() << "input must have rank >= 1, found " << in;
  int64_t d = in.getDimSize(in.getRank() - 1);
  WeightLayout layout = getWeightLayout();
  if (failed(expectRank(emitError, getWGate(), 2, "w_gate")))
    return failure();
  int64_t f = outIn(getWGate().getType().getShape(), layout).first;
  if (failed(expectProjection(emitError, getWGate(), layout, f, d, "w_gate", "hidden width",
                              "the last dim of the input")) ||
      failed(expectProjection(emitError, getWUp(), layout, f, d, "w_up", "w_gate's hidden width",
                              "the last dim of the input")) ||
      failed(expectProjection(emitError, getWDown(), layout, d, f, "w_down",
                              "the last dim of the input", "w_gate's hidden width")))
    return failure();
  int numBiases = (getBGate() ? 1 : 0) + (getBUp() ? 1 : 0) + (getBDown() ? 1 : 0);
  if (numBiases != 0 && numBiases != 3)
    return emitOpError() << "biases come in triples: b_gate, b_up and b_down are all present "
                            "or all absent, found "
                         << numBiases;
  if (numBiases == 3 &&
      (failed(expectVector(emitError, getBGate(), f, "b_gate", "w_gate's hidden width")) ||
       failed(expectVector(emitError, getBUp(), f, "b_up", "w_gate's hidden width")) ||
       failed(expectVector(emitError, getBDown(), d, "b_down", "the last dim of the input"))))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// SoftcapOp
//===----------------------------------------------------------------------===//

LogicalResult SoftcapOp::verify() {
  double cap = getCap().convertToDouble();
  if (!(cap > 0.0))
    return emitOpError() << "cap must be positive (+inf for no cap), found " << cap;
  return success();
}

//===----------------------------------------------------------------------===//
// RopeOp
//===----------------------------------------------------------------------===//

int64_t RopeOp::getRotaryDimOrHeadDim() {
  if (std::optional<int64_t> r = getRotaryDim())
    return *r;
  return getInput().getType().getDimSize(3);
}

LogicalResult RopeOp::verify() {
  auto emitError = [&]() { return emitOpError(); };
  RankedTensorType in = getInput().getType();
  if (in.getRank() != 4)
    return emitOpError() << "input must be [B, T, H, D] (rank 4), found " << in;
  int64_t headDim = in.getDimSize(3);
  if (failed(expectStatic(emitError, headDim, "the head dim (dim 3 of the input)")))
    return failure();
  int64_t rotary = getRotaryDimOrHeadDim();
  if (rotary <= 0 || rotary > headDim)
    return emitOpError() << "rotary_dim must be in [1, head dim = " << headDim << "], found "
                         << rotary;
  if (rotary % 2 != 0)
    return emitOpError() << "rotary_dim must be even (features rotate in pairs), found "
                         << rotary;
  double theta = getTheta().convertToDouble();
  if (!(theta > 1.0) || !std::isfinite(theta))
    return emitOpError() << "theta must be finite and > 1, found " << theta;
  if (Value pos = getPositions()) {
    RankedTensorType p = tensorType(pos);
    if (p.getRank() == 1) {
      if (failed(expectDim(emitError, p.getDimSize(0), in.getDimSize(1), "positions size",
                           "the sequence dim of the input")))
        return failure();
    } else if (p.getRank() == 2) {
      if (failed(expectDim(emitError, p.getDimSize(0), in.getDimSize(0), "positions dim 0",
                           "the batch dim of the input")) ||
          failed(expectDim(emitError, p.getDimSize(1), in.getDimSize(1), "positions dim 1",
                           "the sequence dim of the input")))
        return failure();
    } else {
      return emitOpError() << "positions must be [T] or [B, T], found " << p;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

namespace {
/// The attributes every attention form shares, checked once.
LogicalResult verifyAttentionConfig(Operation *op, int64_t numHeads, int64_t numKvHeads,
                                    std::optional<APFloat> scale, bool causal,
                                    std::optional<int64_t> window,
                                    std::optional<int64_t> chunk,
                                    std::optional<APFloat> softcap) {
  if (numHeads <= 0 || numKvHeads <= 0)
    return op->emitOpError() << "num_heads and num_kv_heads must be positive, found "
                             << numHeads << " and " << numKvHeads;
  if (numHeads % numKvHeads != 0)
    return op->emitOpError() << "num_heads (" << numHeads
                             << ") must be a multiple of num_kv_heads (" << numKvHeads
                             << ") so that each KV head serves a whole group of query heads";
  if (scale && !isPositiveFinite(scale->convertToDouble()))
    return op->emitOpError() << "scale must be finite and positive, found "
                             << scale->convertToDouble();
  if (softcap && !(softcap->convertToDouble() > 0.0))
    return op->emitOpError() << "softcap must be positive, found "
                             << softcap->convertToDouble();
  if (window) {
    if (*window <= 0)
      return op->emitOpError() << "window must be positive, found " << *window;
    if (!causal)
      return op->emitOpError() << "a sliding window needs 'causal' (it bounds how far back a "
                                  "query looks)";
  }
  if (chunk && *chunk <= 0)
    return op->emitOpError() << "chunk_size must be positive, found " << *chunk;
  return success();
}

/// Checks q [B, Tq, Hq, D], k [B, Tk, Hkv, D], v [B, Tk, Hkv, Dv] against the head counts.
LogicalResult verifyQKV(Operation *op, Value q, Value k, Value v, int64_t numHeads,
                        int64_t numKvHeads, StringRef kName, StringRef vName) {
  auto emitError = [&]() { return op->emitOpError(); };
  if (failed(expectRank(emitError, q, 4, "query [B, T, num_heads, D]")) ||
      failed(expectRank(emitError, k, 4, (kName + " [B, T, num_kv_heads, D]").str())) ||
      failed(expectRank(emitError, v, 4, (vName + " [B, T, num_kv_heads, Dv]").str())))
    return failure();
  RankedTensorType qt = tensorType(q), kt = tensorType(k), vt = tensorType(v);
  if (qt.getDimSize(2) != numHeads)
    return op->emitOpError() << "query has " << dimStr(qt.getDimSize(2))
                             << " heads (dim 2), expected num_heads = " << numHeads;
  if (kt.getDimSize(2) != numKvHeads)
    return op->emitOpError() << kName << " has " << dimStr(kt.getDimSize(2))
                             << " heads (dim 2), expected num_kv_heads = " << numKvHeads;
  if (vt.getDimSize(2) != numKvHeads)
    return op->emitOpError() << vName << " has " << dimStr(vt.getDimSize(2))
                             << " heads (dim 2), expected num_kv_heads = " << numKvHeads;
  if (failed(expectStatic(emitError, qt.getDimSize(3), "the query head dim")) ||
      failed(expectStatic(emitError, vt.getDimSize(3), "the value head dim")))
    return failure();
  if (failed(expectDim(emitError, kt.getDimSize(3), qt.getDimSize(3), (kName + " head dim").str(),
                       "the query head dim")) ||
      failed(expectDim(emitError, kt.getDimSize(0), qt.getDimSize(0), (kName + " batch").str(),
                       "the query batch")) ||
      failed(expectDim(emitError, vt.getDimSize(0), qt.getDimSize(0), (vName + " batch").str(),
                       "the query batch")) ||
      failed(expectDim(emitError, vt.getDimSize(1), kt.getDimSize(1),
                       (vName + " length").str(), ("the " + kName + " length").str())))
    return failure();
  if (failed(expectSameElementType(emitError, q, k, "query", kName)) ||
      failed(expectSameElementType(emitError, q, v, "query", vName)))
    return failure();
  return success();
}

/// [B, Tq, Hq, Dv] with the element type of q.
Type attentionResultType(RankedTensorType q, RankedTensorType v) {
  return RankedTensorType::get(
      {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), v.getDimSize(3)}, q.getElementType());
}

LogicalResult inferAttentionResult(std::optional<Location> loc, StringRef opName, Value q,
                                   Value v, SmallVectorImpl<Type> &results) {
  auto qt = dyn_cast<RankedTensorType>(q.getType());
  auto vt = dyn_cast<RankedTensorType>(v.getType());
  if (!qt || !vt || qt.getRank() != 4 || vt.getRank() != 4)
    return emitOptionalError(loc, "'", opName,
                             "' expects query [B, Tq, num_heads, D] and value "
                             "[B, Tk, num_kv_heads, Dv] of rank 4, found ",
                             q.getType(), " and ", v.getType());
  results.push_back(attentionResultType(qt, vt));
  return success();
}

/// The INT8 form's `quantize(q_scale, k_scale, v_scale)`: all three or none, each rank 0 (the
/// element type is ODS's).
LogicalResult verifyQuantizeScales(Operation *op, Value qs, Value ks, Value vs) {
  Value scales[3] = {qs, ks, vs};
  const char *scaleNames[3] = {"q_scale", "k_scale", "v_scale"};
  int present = 0;
  for (int i = 0; i < 3; ++i) {
    if (!scales[i])
      continue;
    ++present;
    if (tensorType(scales[i]).getRank() != 0)
      return op->emitOpError() << scaleNames[i] << " must be a rank-0 f32 tensor, found "
                               << scales[i].getType();
  }
  if (present != 0 && present != 3)
    return op->emitOpError() << "quantize needs all three of q_scale, k_scale, v_scale, found "
                             << present;
  return success();
}

LogicalResult verifySinks(Operation *op, Value sinks, int64_t numHeads) {
  if (!sinks)
    return success();
  auto emitError = [&]() { return op->emitOpError(); };
  return expectVector(emitError, sinks, numHeads, "sinks", "num_heads");
}
} // namespace

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferAttentionResult(loc, "decoda.attention", adaptor.getQuery(), adaptor.getValue(),
                              results);
}

LogicalResult AttentionOp::verify() {
  auto emitError = [&]() { return emitOpError(); };
  if (failed(verifyAttentionConfig(*this, getNumHeads(), getNumKvHeads(), getScale(),
                                   getCausal(), getWindow(), getChunkSize(), getSoftcap())) ||
      failed(verifyQKV(*this, getQuery(), getKey(), getValue(), getNumHeads(), getNumKvHeads(),
                       "key", "value")) ||
      failed(verifySinks(*this, getSinks(), getNumHeads())))
    return failure();
  RankedTensorType q = getQuery().getType(), k = getKey().getType();
  int64_t batch = q.getDimSize(0), tq = q.getDimSize(1), tk = k.getDimSize(1);
  if (!isDyn(tq) && !isDyn(tk) && tq > tk)
    return emitOpError() << "has " << tq << " queries but only " << tk
                         << " keys; queries are aligned to the end of the keys, so Tq <= Tk";
  if (Value mask = getMask()) {
    if (failed(expectRank(emitError, mask, 4, "mask [B|1, num_heads|1, Tq, Tk]")))
      return failure();
    RankedTensorType m = tensorType(mask);
    int64_t expected[4] = {batch, static_cast<int64_t>(getNumHeads()), tq, tk};
    const char *names[4] = {"batch", "num_heads", "Tq", "Tk"};
    for (int i = 0; i < 4; ++i) {
      int64_t d = m.getDimSize(i);
      bool ok = compatible(d, expected[i]) || (i < 2 && d == 1);
      if (!ok)
        return emitOpError() << "mask dim " << i << " is " << dimStr(d) << ", expected "
                             << (i < 2 ? "1 or " : "") << dimStr(expected[i]) << " ("
                             << names[i] << ")";
    }
  }
  if (Value seg = getSegmentIds()) {
    if (failed(expectRank(emitError, seg, 2, "segment_ids [B, Tk]")))
      return failure();
    RankedTensorType s = tensorType(seg);
    if (failed(expectDim(emitError, s.getDimSize(0), batch, "segment_ids dim 0",
                         "the batch")) ||
        failed(expectDim(emitError, s.getDimSize(1), tk, "segment_ids dim 1",
                         "the key length Tk")))
      return failure();
  }
  return verifyQuantizeScales(*this, getQScale(), getKScale(), getVScale());
}

LogicalResult CachedAttentionOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                  Adaptor adaptor,
                                                  SmallVectorImpl<Type> &results) {
  if (failed(inferAttentionResult(loc, "decoda.cached_attention", adaptor.getQuery(),
                                  adaptor.getValue(), results)))
    return failure();
  results.push_back(adaptor.getKeyCache().getType());
  results.push_back(adaptor.getValueCache().getType());
  return success();
}

LogicalResult CachedAttentionOp::verify() {
  auto emitError = [&]() { return emitOpError(); };
  if (failed(verifyAttentionConfig(*this, getNumHeads(), getNumKvHeads(), getScale(),
                                   getCausal(), getWindow(), getChunkSize(), getSoftcap())) ||
      failed(verifyQKV(*this, getQuery(), getKey(), getValue(), getNumHeads(), getNumKvHeads(),
                       "key", "value")) ||
      failed(verifyQKV(*this, getQuery(), getKeyCache(), getValueCache(), getNumHeads(),
                       getNumKvHeads(), "key_cache", "value_cache")) ||
      failed(verifySinks(*this, getSinks(), getNumHeads())))
    return failure();
  RankedTensorType q = getQuery().getType(), k = getKey().getType(), v = getValue().getType();
  RankedTensorType kc = getKeyCache().getType(), vc = getValueCache().getType();
  if (failed(expectDim(emitError, k.getDimSize(1), q.getDimSize(1), "new key length",
                       "the number of queries")) ||
      failed(expectDim(emitError, vc.getDimSize(3), v.getDimSize(3), "value_cache head dim",
                       "the value head dim")) ||
      failed(expectDim(emitError, kc.getDimSize(1), vc.getDimSize(1), "value_cache capacity",
                       "the key_cache capacity")))
    return failure();
  int64_t t = q.getDimSize(1), s = kc.getDimSize(1);
  if (!isDyn(t) && !isDyn(s) && t > s)
    return emitOpError() << "appends " << t << " tokens to a cache with room for only " << s;
  return verifyQuantizeScales(*this, getQScale(), getKScale(), getVScale());
}

LogicalResult MLAOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto q = dyn_cast<RankedTensorType>(adaptor.getQNope().getType());
  auto wuv = dyn_cast<RankedTensorType>(adaptor.getWUv().getType());
  if (!q || !wuv || q.getRank() != 4 || wuv.getRank() != 3)
    return emitOptionalError(loc, "'decoda.mla' expects q_nope [B, Tq, H, Dn] and w_uv "
                                  "[H, Dv, Dc], found ",
                             adaptor.getQNope().getType(), " and ", adaptor.getWUv().getType());
  results.push_back(RankedTensorType::get(
      {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), wuv.getDimSize(1)},
      q.getElementType()));
  return success();
}

LogicalResult MLAOp::verify() {
  auto emitError = [&]() { return emitOpError(); };
  int64_t h = getNumHeads();
  if (h <= 0)
    return emitOpError() << "num_heads must be positive, found " << h;
  if (std::optional<APFloat> scale = getScale())
    if (!isPositiveFinite(scale->convertToDouble()))
      return emitOpError() << "scale must be finite and positive, found "
                           << scale->convertToDouble();
  if (failed(expectRank(emitError, getQRope(), 4, "q_rope [B, Tq, H, Dr]")) ||
      failed(expectRank(emitError, getLatent(), 3, "latent [B, Tk, Dc]")) ||
      failed(expectRank(emitError, getKRope(), 3, "k_rope [B, Tk, Dr]")) ||
      failed(expectRank(emitError, getWUk(), 3, "w_uk [H, Dn, Dc]")))
    return failure();
  RankedTensorType qn = getQNope().getType(), qr = getQRope().getType();
  RankedTensorType c = getLatent().getType(), kr = getKRope().getType();
  RankedTensorType wuk = getWUk().getType(), wuv = getWUv().getType();
  int64_t dn = qn.getDimSize(3), dr = qr.getDimSize(3), dc = c.getDimSize(2);
  if (qn.getDimSize(2) != h || qr.getDimSize(2) != h || wuk.getDimSize(0) != h ||
      wuv.getDimSize(0) != h)
    return emitOpError() << "q_nope, q_rope, w_uk and w_uv must all have num_heads = " << h
                         << " heads, found " << dimStr(qn.getDimSize(2)) << ", "
                         << dimStr(qr.getDimSize(2)) << ", " << dimStr(wuk.getDimSize(0))
                         << ", " << dimStr(wuv.getDimSize(0));
  if (failed(expectStatic(emitError, dn, "Dn (dim 3 of q_nope)")) ||
      failed(expectStatic(emitError, dr, "Dr (dim 3 of q_rope)")) ||
      failed(expectStatic(emitError, dc, "Dc (dim 2 of latent)")))
    return failure();
  if (failed(expectDim(emitError, qr.getDimSize(0), qn.getDimSize(0), "q_rope batch",
                       "the q_nope batch")) ||
      failed(expectDim(emitError, qr.getDimSize(1), qn.getDimSize(1), "q_rope length",
                       "the q_nope length")) ||
      failed(expectDim(emitError, c.getDimSize(0), qn.getDimSize(0), "latent batch",
                       "the q_nope batch")) ||
      failed(expectDim(emitError, kr.getDimSize(0), c.getDimSize(0), "k_rope batch",
                       "the latent batch")) ||
      failed(expectDim(emitError, kr.getDimSize(1), c.getDimSize(1), "k_rope length",
                       "the latent length")) ||
      failed(expectDim(emitError, kr.getDimSize(2), dr, "k_rope dim", "Dr of q_rope")) ||
      failed(expectDim(emitError, wuk.getDimSize(1), dn, "w_uk dim 1", "Dn of q_nope")) ||
      failed(expectDim(emitError, wuk.getDimSize(2), dc, "w_uk dim 2", "Dc of the latent")) ||
      failed(expectDim(emitError, wuv.getDimSize(2), dc, "w_uv dim 2", "Dc of the latent")))
    return failure();
  for (Value v : {Value(getQRope()), Value(getLatent()), Value(getKRope()), Value(getWUk()),
                  Value(getWUv())})
    if (failed(expectSameElementType(emitError, getQNope(), v, "q_nope", "every operand")))
      return failure();
  int64_t tq = qn.getDimSize(1), tk = c.getDimSize(1);
  if (!isDyn(tq) && !isDyn(tk) && tq > tk)
    return emitOpError() << "has " << tq << " queries but only " << tk
                         << " latent keys; queries are aligned to the end of the keys";
  return success();
}

//===----------------------------------------------------------------------===//
// MoEOp
//===----------------------------------------------------------------------===//

LogicalResult MoEOp::verify() {
  auto emitError = [&]() { return emitOpError(); };
  RankedTensorType in = getInput().getType();
  if (in.getRank() < 1)
    return emitOpError() << "input must have rank >= 1, found " << in;
  int64_t d = in.getDimSize(in.getRank() - 1);
  if (failed(expectRank(emitError, getRouter(), 2, "router [E, D]")) ||
      failed(expectRank(emitError, getWGate(), 3, "w_gate [E, F, D]")) ||
      failed(expectRank(emitError, getWUp(), 3, "w_up [E, F, D]")) ||
      failed(expectRank(emitError, getWDown(), 3, "w_down [E, D, F]")))
    return failure();
  RankedTensorType router = getRouter().getType();
  int64_t e = router.getDimSize(0);
  if (failed(expectStatic(emitError, e, "the number of experts (dim 0 of the router)")) ||
      failed(expectDim(emitError, router.getDimSize(1), d, "router dim 1",
                       "the last dim of the input")))
    return failure();
  WeightLayout layout = getWeightLayout();
  std::string lay = (" [" + layoutName(layout) + "]").str();
  int64_t f = outIn(getWGate().getType().getShape().drop_front(), layout).first;
  auto checkExperts = [&](Value w, int64_t out, int64_t inDim, StringRef what) {
    RankedTensorType t = tensorType(w);
    auto [o, i] = outIn(t.getShape().drop_front(), layout);
    if (failed(expectDim(emitError, t.getDimSize(0), e, (Twine(what) + " experts").str(),
                         "the router's expert count")) ||
        failed(expectDim(emitError, o, out, (Twine(what) + " output dim" + lay).str(),
                         "expected width")) ||
        failed(expectDim(emitError, i, inDim, (Twine(what) + " input dim" + lay).str(),
                         "expected width")))
      return failure();
    return success();
  };
  if (failed(checkExperts(getWGate(), f, d, "w_gate")) ||
      failed(checkExperts(getWUp(), f, d, "w_up")) ||
      failed(checkExperts(getWDown(), d, f, "w_down")))
    return failure();
  if (Value bias = getSelectionBias())
    if (failed(expectVector(emitError, bias, e, "selection_bias", "the number of experts")))
      return failure();
  int numShared = (getSharedGate() ? 1 : 0) + (getSharedUp() ? 1 : 0) + (getSharedDown() ? 1 : 0);
  if (numShared != 0 && numShared != 3)
    return emitOpError() << "a shared expert needs shared_gate, shared_up and shared_down, found "
                         << numShared << " of them";
  if (numShared == 3) {
    if (failed(expectRank(emitError, getSharedGate(), 2, "shared_gate")))
      return failure();
    int64_t fs = outIn(tensorType(getSharedGate()).getShape(), layout).first;
    if (failed(expectProjection(emitError, getSharedGate(), layout, fs, d, "shared_gate",
                                "shared width", "the last dim of the input")) ||
        failed(expectProjection(emitError, getSharedUp(), layout, fs, d, "shared_up",
                                "shared_gate's width", "the last dim of the input")) ||
        failed(expectProjection(emitError, getSharedDown(), layout, d, fs, "shared_down",
                                "the last dim of the input", "shared_gate's width")))
      return failure();
  }
  int64_t k = getTopK();
  if (k < 1 || k > e)
    return emitOpError() << "top_k must be in [1, " << e << "] (the number of experts), found "
                         << k;
  double scale = getRoutedScale().convertToDouble();
  if (!isPositiveFinite(scale))
    return emitOpError() << "routed_scale must be finite and positive, found " << scale;
  return success();
}

//===----------------------------------------------------------------------===//
// Quantisation
//===----------------------------------------------------------------------===//

namespace {
LogicalResult verifyScaleAndZeroPoint(Operation *op, Value scale, Value zeroPoint,
                                      Value data) {
  auto emitError = [&]() { return op->emitOpError(); };
  if (failed(expectBroadcastable(emitError, scale, data, "scale")))
    return failure();
  if (zeroPoint && tensorType(zeroPoint).getShape() != tensorType(scale).getShape())
    return op->emitOpError() << "zero_point must have the shape of scale ("
                             << tensorType(scale) << "), found " << tensorType(zeroPoint);
  return success();
}
} // namespace

LogicalResult QuantizeOp::verify() {
  return verifyScaleAndZeroPoint(*this, getScale(), getZeroPoint(), getInput());
}

LogicalResult DequantizeOp::verify() {
  if (failed(verifyScaleAndZeroPoint(*this, getScale(), getZeroPoint(), getInput())))
    return failure();
  if (getResult().getType().getShape() != getInput().getType().getShape())
    return emitOpError() << "result shape must match the input, found " << getResult().getType()
                         << " for " << getInput().getType();
  return success();
}

LogicalResult DequantizeBlocksOp::verify() {
  int64_t bits = getBits(), bs = getBlockSize();
  if (bits != 2 && bits != 4 && bits != 8)
    return emitOpError() << "bits must be 2, 4 or 8, found " << bits;
  if (bs < 16 || !llvm::isPowerOf2_64(bs))
    return emitOpError() << "block_size must be a power of two of at least 16, found " << bs;
  RankedTensorType codes = getCodes().getType(), scales = getScales().getType();
  RankedTensorType res = getResult().getType();
  for (auto [t, what] : {std::pair{codes, "codes [N, P]"}, std::pair{scales, "scales [N, blocks]"},
                         std::pair{res, "result [N, K]"}})
    if (t.getRank() != 2 || !t.hasStaticShape())
      return emitOpError() << what << " must be a static rank-2 tensor, found " << t;
  int64_t n = res.getDimSize(0), k = res.getDimSize(1), blocks = (k + bs - 1) / bs;
  if (scales.getElementType() != res.getElementType())
    return emitOpError() << "scales must have the result's element type "
                         << res.getElementType() << ", found " << scales;
  if (scales.getDimSize(0) != n || scales.getDimSize(1) != blocks)
    return emitOpError() << "scales must be [" << n << ", " << blocks << "] (N, ceil(K / "
                         << bs << ")), found " << scales;
  if (codes.getDimSize(0) != n || codes.getDimSize(1) != blocks * bs * bits / 8)
    return emitOpError() << "codes must be [" << n << ", " << blocks * bs * bits / 8
                         << "] (N, blocks · block_size · bits / 8), found " << codes;
  if (Value zp = getZeroPoints())
    if (tensorType(zp) != scales)
      return emitOpError() << "zero_points must have the type of scales (" << scales
                           << "), found " << zp.getType();
  return success();
}

LogicalResult QLinearOp::verify() {
  auto emitError = [&]() { return emitOpError(); };
  RankedTensorType in = getInput().getType(), res = getResult().getType();
  if (in.getRank() < 1)
    return emitOpError() << "input must have rank >= 1, found " << in;
  if (failed(expectRank(emitError, getWeight(), 2, "weight [N, K]")))
    return failure();
  RankedTensorType w = getWeight().getType();
  int64_t n = w.getDimSize(0), k = w.getDimSize(1);
  if (failed(expectDim(emitError, k, in.getDimSize(in.getRank() - 1), "weight dim 1 (K)",
                       "the last dim of the input")))
    return failure();
  // x_scale: per-tensor (rank 0) or per-token [..., 1].
  RankedTensorType xs = getXScale().getType();
  if (xs.getRank() != 0) {
    bool ok = xs.getRank() == in.getRank() && xs.getDimSize(xs.getRank() - 1) == 1;
    for (int64_t i = 0; ok && i + 1 < in.getRank(); ++i)
      ok = compatible(xs.getDimSize(i), in.getDimSize(i));
    if (!ok)
      return emitOpError() << "x_scale must be rank 0 (per tensor) or [..., 1] with the leading "
                              "dims of the input (per token), found "
                           << xs;
  }
  if (Value zp = getXZeroPoint())
    if (tensorType(zp).getShape() != xs.getShape())
      return emitOpError() << "x_zero_point must have the shape of x_scale (" << xs
                           << "), found " << tensorType(zp);
  RankedTensorType ws = getWScale().getType();
  if (ws.getRank() != 0 &&
      failed(expectVector(emitError, getWScale(), n, "w_scale", "the weight's N")))
    return failure();
  if (Value bias = getBias())
    if (failed(expectVector(emitError, bias, n, "bias", "the weight's N")))
      return failure();
  SmallVector<int64_t> shape(in.getShape());
  shape.back() = n;
  bool shapeOk = res.getRank() == in.getRank();
  for (int64_t i = 0; shapeOk && i < res.getRank(); ++i)
    shapeOk = compatible(res.getDimSize(i), shape[i]);
  if (!shapeOk)
    return emitOpError() << "result must be the input shape with the last dim replaced by N = "
                         << dimStr(n) << ", found " << res;
  bool requantize = static_cast<bool>(getOutScale());
  if (requantize != res.getElementType().isInteger(8))
    return emitOpError() << (requantize ? "requantize(out_scale) produces i8, found "
                                        : "without requantize the result is float, found ")
                         << res.getElementType();
  if (requantize && getOutScale().getType().getRank() != 0)
    return emitOpError() << "out_scale must be rank 0 (per tensor), found "
                         << getOutScale().getType();
  return success();
}

#define GET_OP_CLASSES
#include "Decoda/DecodaOps.cpp.inc"

#include "Decoda/DecodaInterfaces.cpp.inc"
