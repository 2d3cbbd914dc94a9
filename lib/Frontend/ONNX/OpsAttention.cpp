//===- OpsAttention.cpp - ONNX attention and rotary-embedding ops ---------===//
//
// Attention (opset 23), com.microsoft GroupQueryAttention / MultiHeadAttention, and
// RotaryEmbedding (opset 23 and com.microsoft). Heads are brought into decoda's [B, T, H, D]
// layout, attention becomes one `decoda.attention` (GQA by index, masks from attributes where
// they exist), and a KV cache given as past/present tensors is a concatenation. RoPE with
// constant cos/sin caches that are a plain `theta` table becomes `decoda.rope`; any other table
// is applied by gathering rows at the position ids.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <onnx/onnx_pb.h>

#include <cmath>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::onnx_import;

namespace {


/// A tensor in decoda's head layout [B, T, H, D] and how to return to the ONNX layout.
struct Heads {
  OnnxValue v;
  bool fromBNSH = false; // ONNX 4D [B, H, S, D]
};

/// [B, H, S, D] -> [B, S, H, D], or [B, S, H*D] -> [B, S, H, D] with `numHeads` (0: infer from
/// a 4D input).
FailureOr<Heads> toHeads(NodeContext &n, OnnxValue x, int64_t numHeads, StringRef what) {
  // A node may omit any input; these are required (found by fuzzing, docs/Reliability.md).
  if (!x.present())
    return n.error() << "input " << what << " is required", failure();
  SmallVector<OpFoldResult> d = n.importer.dimsOf(x, n.loc);
  Heads h;
  if (d.size() == 4) {
    h.v = emitTranspose(n, x, {0, 2, 1, 3});
    h.fromBNSH = true;
    return h;
  }
  if (d.size() != 3)
    return n.error() << what << " must be 3-D [B, S, H*D] or 4-D [B, H, S, D]", failure();
  std::optional<int64_t> hidden = getConstantIntValue(d[2]);
  if (numHeads <= 0 || !hidden || *hidden % numHeads)
    return n.error() << what << ": hidden size must be static and divisible by the head count "
                     << numHeads, failure();
  FailureOr<OnnxValue> r =
      emitReshape(n, x, {d[0], d[1], n.b.getIndexAttr(numHeads), n.b.getIndexAttr(*hidden / numHeads)});
  if (failed(r))
    return failure();
  h.v = *r;
  return h;
}

/// Back from [B, T, H, D] to the layout the node's input had.
FailureOr<OnnxValue> fromHeads(NodeContext &n, OnnxValue x, bool toBNSH) {
  if (toBNSH)
    return emitTranspose(n, x, {0, 2, 1, 3});
  SmallVector<OpFoldResult> d = n.importer.dimsOf(x, n.loc);
  return emitReshape(n, x, {d[0], d[1], foldIndexBinary(n.b, n.loc, '*', d[2], d[3])});
}

int64_t staticDim(NodeContext &n, OnnxValue &v, unsigned i) {
  return getConstantIntValue(n.importer.dimsOf(v, n.loc)[i]).value_or(-1);
}

/// An additive float mask for decoda.attention: [B|1, H|1, Tq, Tk] from a bool (true = attend)
/// or float mask broadcastable to it.
FailureOr<Value> additiveMask(NodeContext &n, OnnxValue mask, Type et) {
  Type mt = n.importer.materialize(mask, n.loc).getType();
  Type met = cast<ShapedType>(mt).getElementType();
  OnnxValue m = mask;
  if (met.isInteger(1)) {
    FailureOr<OnnxValue> f = emitElementwise(
        n, {mask}, et, [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
          const llvm::fltSemantics &sem = cast<FloatType>(et).getFloatSemantics();
          Value ninf = arith::ConstantOp::create(b, loc, b.getFloatAttr(et, APFloat::getInf(sem, true)));
          return arith::SelectOp::create(b, loc, a[0], scalarConst(b, loc, et, 0.0), ninf);
        });
    if (failed(f))
      return failure();
    m = *f;
  } else if (met != et) {
    return n.error() << "the attention mask must be bool or " << et << ", got " << met, failure();
  }
  SmallVector<OpFoldResult> d = n.importer.dimsOf(m, n.loc);
  if (d.size() > 4)
    return n.error() << "the attention mask has rank " << d.size() << " (at most 4)", failure();
  if (d.size() < 4) {
    SmallVector<OpFoldResult> full(4 - d.size(), n.b.getIndexAttr(1));
    full.append(d.begin(), d.end());
    FailureOr<OnnxValue> r = emitReshape(n, m, full);
    if (failed(r))
      return failure();
    m = *r;
  }
  return n.importer.materialize(m, n.loc);
}

struct AttentionConfig {
  int64_t numHeads = 0, numKvHeads = 0;
  std::optional<double> scale, softcap;
  std::optional<int64_t> window;
  bool causal = false;
};

Value emitDecodaAttention(NodeContext &n, Value q, Value k, Value v, Value mask,
                          const AttentionConfig &c, Value sinks = Value()) {
  Builder &b = n.b;
  return AttentionOp::create(
      n.b, n.loc, q, k, v, mask, Value(), sinks, b.getI64IntegerAttr(c.numHeads),
      b.getI64IntegerAttr(c.numKvHeads), c.scale ? b.getF64FloatAttr(*c.scale) : FloatAttr(),
      c.causal ? b.getUnitAttr() : UnitAttr(),
      c.window ? b.getI64IntegerAttr(*c.window) : IntegerAttr(), IntegerAttr(),
      c.softcap ? b.getF64FloatAttr(*c.softcap) : FloatAttr());
}

/// Result dims of decoda.attention: query's [B, Tq, H] and value's D.
SmallVector<OpFoldResult> attentionDims(NodeContext &n, OnnxValue &q, OnnxValue &v) {
  SmallVector<OpFoldResult> qd = n.importer.dimsOf(q, n.loc), vd = n.importer.dimsOf(v, n.loc);
  return {qd[0], qd[1], qd[2], vd[3]};
}

/// present = concat(past, new) along the sequence axis of [B, H, S, D].
FailureOr<OnnxValue> appendCache(NodeContext &n, OnnxValue past, OnnxValue newBNSH) {
  SmallVector<OpFoldResult> pd = n.importer.dimsOf(past, n.loc),
                            nd = n.importer.dimsOf(newBNSH, n.loc);
  if (pd.size() != 4)
    return n.error() << "past key/value must be 4-D [B, H, P, D]", failure();
  if (getConstantIntValue(pd[2]) == 0)
    return newBNSH;
  Value pv = n.importer.materialize(past, n.loc), nv = n.importer.materialize(newBNSH, n.loc);
  SmallVector<OpFoldResult> out = {nd[0], nd[1], foldIndexBinary(n.b, n.loc, '+', pd[2], nd[2]),
                                   nd[3]};
  RankedTensorType rt = tensorType(out, cast<ShapedType>(nv.getType()).getElementType());
  auto castTo = [&](Value x, OpFoldResult seq) {
    SmallVector<OpFoldResult> d = {out[0], out[1], seq, out[3]};
    RankedTensorType t = tensorType(d, rt.getElementType());
    return x.getType() == t ? x : tensor::CastOp::create(n.b, n.loc, t, x).getResult();
  };
  pv = castTo(pv, pd[2]);
  nv = castTo(nv, nd[2]);
  Value r = tensor::ConcatOp::create(n.b, n.loc, 2, ValueRange{pv, nv});
  if (r.getType() != rt)
    r = tensor::CastOp::create(n.b, n.loc, rt, r);
  return OnnxValue::tensor(r, out);
}

/// The scalar value of an integer tensor (rank 0 or [1]) as an index.
Value scalarIndex(NodeContext &n, OnnxValue v) {
  if (auto e = shapeElements(v); e && e->size() == 1)
    return indexValue(n.b, n.loc, (*e)[0]);
  Value t = n.importer.materialize(v, n.loc);
  auto tt = cast<RankedTensorType>(t.getType());
  SmallVector<Value> idx(tt.getRank(), arith::ConstantIndexOp::create(n.b, n.loc, 0));
  Value s = tensor::ExtractOp::create(n.b, n.loc, t, idx);
  return arith::IndexCastOp::create(n.b, n.loc, n.b.getIndexType(), s);
}

//===----------------------------------------------------------------------===//
// RoPE
//===----------------------------------------------------------------------===//

/// If constant caches [P, R/2] are cos/sin(p * theta^(-2k/R)), returns theta.
std::optional<double> recogniseTheta(OnnxValue &cosV, OnnxValue &sinV, int64_t rotDim) {
  if (!cosV.isConst() || !sinV.isConst())
    return std::nullopt;
  auto c = dyn_cast<DenseElementsAttr>(cosV.cst);
  auto s = dyn_cast<DenseElementsAttr>(sinV.cst);
  if (!c || !s || !isa<FloatType>(c.getElementType()) || c.getType().getRank() != 2)
    return std::nullopt;
  int64_t P = c.getType().getDimSize(0), half = c.getType().getDimSize(1);
  if (P < 2 || half < 1 || half * 2 != rotDim || s.getType() != c.getType())
    return std::nullopt;
  SmallVector<double> cv, sv;
  for (APFloat x : c.getValues<APFloat>())
    cv.push_back(x.convertToDouble());
  for (APFloat x : s.getValues<APFloat>())
    sv.push_back(x.convertToDouble());
  double theta = 10000.0;
  if (half > 1) {
    double f1 = std::atan2(sv[half + 1], cv[half + 1]); // position 1, pair 1
    if (!(f1 > 0))
      return std::nullopt;
    theta = std::exp(-std::log(f1) * rotDim / 2.0);
  }
  double tol = cast<FloatType>(c.getElementType()).getWidth() >= 32 ? 2e-5 : 2e-2;
  for (int64_t p = 0; p < P; ++p)
    for (int64_t k = 0; k < half; ++k) {
      double a = p * std::pow(theta, -2.0 * k / rotDim);
      if (std::fabs(cv[p * half + k] - std::cos(a)) > tol * std::max(1.0, (double)p) ||
          std::fabs(sv[p * half + k] - std::sin(a)) > tol * std::max(1.0, (double)p))
        return std::nullopt;
    }
  // Round to the nearest value that reproduces the table (usually an integer like 10000).
  double rounded = std::round(theta);
  if (std::fabs(rounded - theta) < 1e-3 * theta)
    theta = rounded;
  return theta;
}

/// Element `at` = (b, t, h, d) of `xv` [B, T, H, D] rotated by row `p` (an index) of the cos
/// and sin tables [P, rotDim / 2]: x0 c - x1 s for the first of a pair, x0 c + x1 s for the
/// second (x1 the pair partner), in the storage type; features past rotDim as they are.
Value rotatedElement(OpBuilder &b, Location loc, Value xv, ValueRange at, Value p, Value cosT,
                     Value sinT, int64_t rotDim, bool interleaved) {
  int64_t half = rotDim / 2;
  Value x0 = tensor::ExtractOp::create(b, loc, xv, at);
  Value cRot = arith::ConstantIndexOp::create(b, loc, rotDim);
  Value inRot = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at[3], cRot);
  // Clamp indices so the (discarded) rotated value of a pass-through feature stays in
  // bounds.
  Value dClamped = arith::MinSIOp::create(b, loc, at[3], arith::ConstantIndexOp::create(b, loc, rotDim - 1));
  Value cHalf = arith::ConstantIndexOp::create(b, loc, half);
  Value c2 = arith::ConstantIndexOp::create(b, loc, 2);
  Value pair, partner, first;
  if (interleaved) {
    pair = arith::DivUIOp::create(b, loc, dClamped, c2);
    Value odd = arith::RemUIOp::create(b, loc, dClamped, c2);
    first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, odd,
                                  arith::ConstantIndexOp::create(b, loc, 0));
    partner = arith::SelectOp::create(b, loc, first,
                                      arith::AddIOp::create(b, loc, dClamped, arith::ConstantIndexOp::create(b, loc, 1)),
                                      arith::SubIOp::create(b, loc, dClamped, arith::ConstantIndexOp::create(b, loc, 1)));
  } else {
    first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, dClamped, cHalf);
    pair = arith::SelectOp::create(b, loc, first, dClamped,
                                   arith::SubIOp::create(b, loc, dClamped, cHalf));
    partner = arith::SelectOp::create(b, loc, first,
                                      arith::AddIOp::create(b, loc, dClamped, cHalf),
                                      arith::SubIOp::create(b, loc, dClamped, cHalf));
  }
  Value x1 = tensor::ExtractOp::create(b, loc, xv, ValueRange{at[0], at[1], at[2], partner});
  Value c = tensor::ExtractOp::create(b, loc, cosT, ValueRange{p, pair});
  Value s = tensor::ExtractOp::create(b, loc, sinT, ValueRange{p, pair});
  // first: x0 c - x1 s; second: x0 c + x1 s.
  Value xc = arith::MulFOp::create(b, loc, x0, c);
  Value xs = arith::MulFOp::create(b, loc, x1, s);
  Value rot = arith::SelectOp::create(b, loc, first, arith::SubFOp::create(b, loc, xc, xs),
                                      arith::AddFOp::create(b, loc, xc, xs));
  return arith::SelectOp::create(b, loc, inRot, rot, x0);
}

/// Rotates [B, T, H, D] by rows of explicit cos/sin tables gathered at `pos` ([B, T]).
/// `posBound`, where the caller knows the positions lie in [0, posBound), is checked against
/// the table's rows instead of the positions themselves (no reduction of device data read on
/// the host).
FailureOr<OnnxValue> ropeWithTables(NodeContext &n, OnnxValue x, Value pos, Value cosT,
                                    Value sinT, int64_t rotDim, bool interleaved,
                                    Value posBound = Value()) {
  Value xv = n.importer.materialize(x, n.loc);
  SmallVector<OpFoldResult> d = n.importer.dimsOf(x, n.loc);
  Type et = cast<ShapedType>(xv.getType()).getElementType();
  MLIRContext *ctx = n.b.getContext();
  // Positions must index the table: check max(pos) < rows and min(pos) >= 0.
  auto posT = cast<RankedTensorType>(pos.getType());
  auto cosType = cast<RankedTensorType>(cosT.getType()),
       sinType = cast<RankedTensorType>(sinT.getType());
  if (cosType.getRank() != 2 || sinType.getRank() != 2)
    return n.error() << "cos_cache and sin_cache must be 2-D [max_position, rotary_dim / 2], got "
                     << cosType << " and " << sinType,
           failure();
  if (cosType.getElementType() != et || sinType.getElementType() != et)
    return n.error() << "cos_cache and sin_cache must be of the input's element type " << et
                     << ", got " << cosType << " and " << sinType,
           failure();
  for (int64_t d : {0, 1})
    if (!cosType.isDynamicDim(d) && !sinType.isDynamicDim(d) &&
        cosType.getDimSize(d) != sinType.getDimSize(d))
      return n.error() << "cos_cache " << cosType << " and sin_cache " << sinType
                       << " differ in shape",
             failure();
  if (cosType.getDimSize(1) >= 0 && 2 * cosType.getDimSize(1) < rotDim)
    return n.error() << "the cos/sin caches' " << cosType.getDimSize(1)
                     << " columns do not cover rotary dim " << rotDim,
           failure();
  // Both tables are read at the positions: the shorter bounds them.
  Value rows = arith::MinSIOp::create(n.b, n.loc, tensor::DimOp::create(n.b, n.loc, cosT, 0),
                                      tensor::DimOp::create(n.b, n.loc, sinT, 0));
  if (posBound) {
    // Once per bound and tables in a block (q and k of a node, every layer of a model read
    // the same): a second assert between the rotations would keep their loops apart
    // (decoda-gpu-merge-parallel-loops merges only loops with nothing effectful between).
    std::vector<const void *> key = {"rope table rows", n.b.getInsertionBlock(),
                                     posBound.getAsOpaquePointer(), cosT.getAsOpaquePointer(),
                                     sinT.getAsOpaquePointer()};
    if (n.importer.emittedChecks.try_emplace(key).second)
      cf::AssertOp::create(n.b, n.loc,
                           arith::CmpIOp::create(n.b, n.loc, arith::CmpIPredicate::sle, posBound,
                                                 rows),
                           ("ONNX node '" + n.name() + "' (" + n.opType() +
                            "): the cos/sin cache has fewer rows than total_sequence_length")
                               .str());
  } else {
    OnnxValue pv = OnnxValue::tensor(pos, tensor::getMixedSizes(n.b, n.loc, pos));
    SmallVector<int64_t> axes;
    for (int64_t i = 0; i < posT.getRank(); ++i)
      axes.push_back(i);
    FailureOr<OnnxValue> mx = emitReduce(n, pv, axes, false, ReduceKind::Max);
    FailureOr<OnnxValue> mn = emitReduce(n, pv, axes, false, ReduceKind::Min);
    if (failed(mx) || failed(mn))
      return failure();
    Value mxs = tensor::ExtractOp::create(n.b, n.loc, mx->value, ValueRange{});
    Value mns = tensor::ExtractOp::create(n.b, n.loc, mn->value, ValueRange{});
    Value mxi = arith::IndexCastOp::create(n.b, n.loc, n.b.getIndexType(), mxs);
    Value mni = arith::IndexCastOp::create(n.b, n.loc, n.b.getIndexType(), mns);
    Value ok = arith::AndIOp::create(
        n.b, n.loc,
        arith::CmpIOp::create(n.b, n.loc, arith::CmpIPredicate::slt, mxi, rows),
        arith::CmpIOp::create(n.b, n.loc, arith::CmpIPredicate::sge, mni,
                              arith::ConstantIndexOp::create(n.b, n.loc, 0)));
    cf::AssertOp::create(n.b, n.loc, ok,
                         ("ONNX node '" + n.name() + "' (" + n.opType() +
                          "): a position id is outside the cos/sin cache")
                             .str());
  }
  Value init = tensor::EmptyOp::create(n.b, n.loc, d, et);
  // pos map: [B, T] -> (b, t) or [T] -> (t); [1] broadcast offsets are not handled here.
  AffineMap posMap = posT.getRank() == 2
                         ? AffineMap::get(4, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)}, ctx)
                         : AffineMap::get(4, 0, {getAffineDimExpr(1, ctx)}, ctx);
  SmallVector<AffineMap> maps = {posMap, AffineMap::getMultiDimIdentityMap(4, ctx)};
  SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
  auto g = linalg::GenericOp::create(
      n.b, n.loc, TypeRange{init.getType()}, ValueRange{pos}, ValueRange{init}, maps, iters,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value bi = linalg::IndexOp::create(b, loc, 0), ti = linalg::IndexOp::create(b, loc, 1),
              hi = linalg::IndexOp::create(b, loc, 2), di = linalg::IndexOp::create(b, loc, 3);
        Value p = arith::IndexCastOp::create(b, loc, b.getIndexType(), args[0]);
        linalg::YieldOp::create(b, loc,
                                rotatedElement(b, loc, xv, {bi, ti, hi, di}, p, cosT, sinT,
                                               rotDim, interleaved));
      });
  return OnnxValue::tensor(g.getResult(0), d);
}

/// Shared RoPE import: x (3-D or 4-D ONNX layout), tables, positions.
LogicalResult importRope(NodeContext &n, unsigned xIdx, unsigned cosIdx, unsigned sinIdx,
                         unsigned posIdx) {
  int64_t numHeads = n.intAttr("num_heads", 0);
  bool interleaved = n.intAttr("interleaved", 0) != 0;
  OnnxValue x = n.input(xIdx);
  int64_t rank = n.inputRank(xIdx);
  if (rank == 3 && numHeads <= 0) {
    // com.microsoft allows inferring heads from the cache width when rotary dim = head dim.
    int64_t half = staticDim(n, n.input(cosIdx), n.inputRank(cosIdx) - 1);
    int64_t hidden = staticDim(n, x, 2);
    if (half > 0 && hidden > 0 && hidden % (2 * half) == 0)
      numHeads = hidden / (2 * half);
  }
  FailureOr<Heads> h = toHeads(n, x, numHeads, "input");
  if (failed(h))
    return failure();
  int64_t headDim = staticDim(n, h->v, 3);
  if (headDim <= 0)
    return n.error() << "the head dim must be static";
  int64_t rotDim = n.intAttr("rotary_embedding_dim", 0);
  if (rotDim <= 0)
    rotDim = 2 * staticDim(n, n.input(cosIdx), n.inputRank(cosIdx) - 1);
  if (rotDim <= 0 || rotDim % 2 || rotDim > headDim)
    return n.error() << "rotary dim " << rotDim << " is invalid for head dim " << headDim;
  if (!n.hasInput(posIdx))
    return n.error() << "position_ids is required (per-token cos/sin inputs are not supported)";
  if (n.inputRank(cosIdx) != 2 || n.inputRank(sinIdx) != 2)
    return n.error() << "cos_cache and sin_cache must be 2-D [max_position, rotary_dim / 2]";
  Value pos = n.tensorInput(posIdx);
  if (cast<RankedTensorType>(pos.getType()).getRank() != 2)
    return n.error() << "position_ids must be [B, S]";
  OnnxValue rotated;
  if (std::optional<double> theta = recogniseTheta(n.input(cosIdx), n.input(sinIdx), rotDim)) {
    // A plain theta table: decoda.rope computes the same angles (positions must still be
    // inside the table the model was exported with).
    Value xv = n.importer.materialize(h->v, n.loc);
    int64_t rows = staticDim(n, n.input(cosIdx), 0);
    {
      OnnxValue pv = OnnxValue::tensor(pos, tensor::getMixedSizes(n.b, n.loc, pos));
      FailureOr<OnnxValue> mx = emitReduce(n, pv, {0, 1}, false, ReduceKind::Max);
      if (failed(mx))
        return failure();
      Value m = tensor::ExtractOp::create(n.b, n.loc, mx->value, ValueRange{});
      Value ok = arith::CmpIOp::create(
          n.b, n.loc, arith::CmpIPredicate::slt, m,
          arith::ConstantOp::create(n.b, n.loc, n.b.getIntegerAttr(m.getType(), rows)));
      cf::AssertOp::create(n.b, n.loc, ok,
                           ("ONNX node '" + n.name() + "' (" + n.opType() +
                            "): a position id is outside the cos/sin cache")
                               .str());
    }
    Value r = RopeOp::create(
        n.b, n.loc, xv, pos, n.b.getF64FloatAttr(*theta),
        rotDim == headDim ? IntegerAttr() : n.b.getI64IntegerAttr(rotDim),
        RopeLayoutAttr::get(n.b.getContext(),
                            interleaved ? RopeLayout::interleaved : RopeLayout::half_split),
        RopeScalingAttr());
    rotated = OnnxValue::tensor(r, n.importer.dimsOf(h->v, n.loc));
  } else {
    FailureOr<OnnxValue> r = ropeWithTables(n, h->v, pos, n.tensorInput(cosIdx),
                                            n.tensorInput(sinIdx), rotDim, interleaved);
    if (failed(r))
      return failure();
    rotated = *r;
  }
  FailureOr<OnnxValue> out = fromHeads(n, rotated, h->fromBNSH);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

} // namespace

void onnx_import::registerAttentionOps(std::vector<OpEntry> &t) {
  // RotaryEmbedding-23: (X, cos_cache, sin_cache, position_ids).
  addOp(t, "", "RotaryEmbedding", 23, [](NodeContext &n) { return importRope(n, 0, 1, 2, 3); });
  // com.microsoft RotaryEmbedding: (input, position_ids, cos_cache, sin_cache).
  addOp(t, "com.microsoft", "RotaryEmbedding", 1, [](NodeContext &n) -> LogicalResult {
    if (n.floatAttr("scale", 1.0) != 1.0)
      return n.error() << "scale != 1 is not supported";
    if (n.intAttr("is_packed_batching", 0))
      return n.error() << "packed batching is not supported";
    if (n.hasInput(1) && n.inputRank(1) != 2)
      return n.error() << "position_ids must be [B, S] (a scalar offset is not supported)";
    return importRope(n, 0, 2, 3, 1);
  });

  // Attention-23.
  addOp(t, "", "Attention", 23, [](NodeContext &n) -> LogicalResult {
    if (n.hasOutput(3))
      return n.error() << "output 3 (qk_matmul_output) is not supported";
    if (n.hasInput(6))
      return n.error() << "nonpad_kv_seqlen is not supported";
    AttentionConfig c;
    int64_t qh = n.intAttr("q_num_heads", 0), kvh = n.intAttr("kv_num_heads", 0);
    FailureOr<Heads> q = toHeads(n, n.input(0), qh, "Q");
    FailureOr<Heads> k = toHeads(n, n.input(1), kvh, "K");
    FailureOr<Heads> v = toHeads(n, n.input(2), kvh, "V");
    if (failed(q) || failed(k) || failed(v))
      return failure();
    c.numHeads = staticDim(n, q->v, 2);
    c.numKvHeads = staticDim(n, k->v, 2);
    if (c.numHeads <= 0 || c.numKvHeads <= 0 || c.numHeads % c.numKvHeads)
      return n.error() << "head counts must be static and q heads a multiple of kv heads";
    if (n.hasAttr("scale"))
      c.scale = n.floatAttr("scale", 0.0);
    if (double sc = n.floatAttr("softcap", 0.0); sc > 0)
      c.softcap = sc;
    c.causal = n.intAttr("is_causal", 0) != 0;
    OnnxValue keys = k->v, values = v->v;
    if (n.hasInput(4) != n.hasInput(5))
      return n.error() << "past_key and past_value come together";
    if (n.hasInput(4)) {
      // present = concat(past, new) in [B, H, S, D]; attend over all of it.
      OnnxValue kB = emitTranspose(n, k->v, {0, 2, 1, 3}), vB = emitTranspose(n, v->v, {0, 2, 1, 3});
      FailureOr<OnnxValue> pk = appendCache(n, n.input(4), kB);
      FailureOr<OnnxValue> pv = appendCache(n, n.input(5), vB);
      if (failed(pk) || failed(pv))
        return failure();
      n.setOutput(1, *pk);
      n.setOutput(2, *pv);
      keys = emitTranspose(n, *pk, {0, 2, 1, 3});
      values = emitTranspose(n, *pv, {0, 2, 1, 3});
    } else if (n.hasOutput(1) || n.hasOutput(2)) {
      OnnxValue kB = emitTranspose(n, k->v, {0, 2, 1, 3}), vB = emitTranspose(n, v->v, {0, 2, 1, 3});
      n.setOutput(1, kB);
      n.setOutput(2, vB);
    }
    Value mask;
    if (n.hasInput(3)) {
      FailureOr<Value> m = additiveMask(n, n.input(3), n.inputType(0).getElementType());
      if (failed(m))
        return failure();
      mask = *m;
    }
    Value r = emitDecodaAttention(n, n.importer.materialize(q->v, n.loc),
                                  n.importer.materialize(keys, n.loc),
                                  n.importer.materialize(values, n.loc), mask, c);
    FailureOr<OnnxValue> out =
        fromHeads(n, OnnxValue::tensor(r, attentionDims(n, q->v, values)), q->fromBNSH);
    if (failed(out))
      return failure();
    n.setOutput(0, *out);
    return success();
  });

  // com.microsoft GroupQueryAttention (ONNX Runtime's semantics). Row b holds
  // seqlens_k[b] + 1 tokens; this step's S tokens are at positions past_b + s with past_b = 0
  // for a prompt (S = total_sequence_length, rows may be right-padded) and seqlens_k[b] + 1 - S
  // otherwise, so rows of a batch may differ. The past [B, Hkv, P, D] is either exactly the
  // earlier tokens (present = [B, Hkv, P + S, D]) or a buffer of a maximum length shared with
  // present (onnxruntime-genai on CUDA: present has the buffer's length, P >= total): present
  // has max(P, total) entries: row b's first past_b entries of the past, its new tokens at
  // [past_b, past_b + S), zeros after them (ONNX Runtime's unshared present; a shared buffer
  // keeps whatever it held there, which no later step reads). Query s of row b sees keys
  // [0, past_b + s] within seqlens_k[b] (and the local window); head_sink / smooth_softmax
  // are sink logits. A step writes all of present, except with ImportOptions::sharedKVBuffers
  // (decoda-compile --shared-kv-buffers): present is then the past buffer with only the window
  // of the rows' new positions rewritten, the past donated to it.
  addOp(t, "com.microsoft", "GroupQueryAttention", 1, [](NodeContext &n) -> LogicalResult {
    if (n.hasInput(9))
      return n.error() << "input 9 (position_ids) is not supported";
    if (n.hasInput(10))
      return n.error() << "input 10 (attention_bias) is not supported";
    for (unsigned i = 12; i < n.numInputs(); ++i)
      if (n.hasInput(i))
        return n.error() << "input " << i << " is not supported";
    if (n.hasOutput(3) || n.intAttr("qk_output", 0))
      return n.error() << "output 3 (output_qk, qk_output) is not supported";
    for (StringRef q : {"k_quant_type", "v_quant_type"})
      if (std::string kind = n.stringAttr(q, "NONE"); kind != "NONE")
        return n.error() << q << " = \"" << kind << "\" (a quantised KV cache) is not supported";
    if (!n.hasInput(1) || !n.hasInput(2))
      return n.error() << "packed QKV (no key/value inputs) is not supported";
    if (!n.hasInput(5) || !n.hasInput(6))
      return n.error() << "seqlens_k (input 5) and total_sequence_length (input 6) are required";
    AttentionConfig c;
    c.numHeads = n.intAttr("num_heads", 0);
    c.numKvHeads = n.intAttr("kv_num_heads", 0);
    if (c.numHeads <= 0 || c.numKvHeads <= 0 || c.numHeads % c.numKvHeads)
      return n.error() << "num_heads must be a positive multiple of kv_num_heads";
    if (double s = n.floatAttr("scale", 0.0); s != 0.0)
      c.scale = s;
    if (double sc = n.floatAttr("softcap", 0.0); sc > 0)
      c.softcap = sc;
    c.causal = true;
    std::optional<int64_t> window;
    if (int64_t w = n.intAttr("local_window_size", -1); w >= 0)
      window = w; // ONNX Runtime: the query and the w - 1 keys before it
    FailureOr<Heads> q = toHeads(n, n.input(0), c.numHeads, "query");
    FailureOr<Heads> k = toHeads(n, n.input(1), c.numKvHeads, "key");
    FailureOr<Heads> v = toHeads(n, n.input(2), c.numKvHeads, "value");
    if (failed(q) || failed(k) || failed(v))
      return failure();
    if (q->fromBNSH || k->fromBNSH || v->fromBNSH)
      return n.error() << "query, key and value must be 3-D [B, S, H*D]";
    Type et = n.inputType(0).getElementType();
    MLIRContext *ctx = n.b.getContext();
    Location loc = n.loc;
    OpBuilder &b = n.b;
    Type i64 = b.getI64Type();
    auto cIndex = [&](int64_t x) { return arith::ConstantIndexOp::create(b, loc, x).getResult(); };
    auto fail = [&](const Twine &msg) {
      return ("ONNX node '" + n.name() + "' (GroupQueryAttention): " + msg).str();
    };

    // Sink logits: head_sink [num_heads], or smooth_softmax's 0 for every head.
    Value sinks;
    if (n.hasInput(11)) {
      sinks = n.tensorInput(11);
      auto st = cast<RankedTensorType>(sinks.getType());
      if (st.getElementType() != et || st.getRank() != 1 ||
          (!st.isDynamicDim(0) && st.getDimSize(0) != c.numHeads))
        return n.error() << "head_sink must be [num_heads] = [" << c.numHeads << "] of " << et
                         << ", got " << st;
    } else if (n.intAttr("smooth_softmax", 0)) {
      auto st = RankedTensorType::get({c.numHeads}, et);
      sinks = arith::ConstantOp::create(b, loc, st, DenseElementsAttr::get(
                  st, b.getFloatAttr(et, 0.0))).getResult();
    }

    SmallVector<OpFoldResult> qd = n.importer.dimsOf(q->v, loc);
    OpFoldResult seqOfr = qd[1];
    Value seq = indexValue(b, loc, seqOfr);
    OpFoldResult totalOfr;
    OnnxValue totalIn = n.input(6);
    if (auto e = shapeElements(totalIn); e && e->size() == 1)
      totalOfr = (*e)[0];
    else
      totalOfr = scalarIndex(n, n.input(6));
    Value total = indexValue(b, loc, totalOfr);
    const bool hasPast = n.hasInput(3) || n.hasInput(4);
    if (hasPast && (!n.hasInput(3) || !n.hasInput(4)))
      return n.error() << "past_key and past_value come together";
    OpFoldResult pastLen = b.getIndexAttr(0);
    if (hasPast) {
      SmallVector<OpFoldResult> pd = n.importer.dimsOf(n.input(3), loc);
      if (pd.size() != 4)
        return n.error() << "past_key must be 4-D [B, kv_num_heads, P, D]";
      pastLen = pd[2];
    }

    // Row lengths. Checked here when the lengths and sizes are constants; else at run time,
    // row by row on the host (a GPU build reads seqlens_k there: an argument's host view, or a
    // host copy of the kernels' result, decoda-gpu-device-buffers).
    OnnxValue slV = n.input(5);
    std::optional<SmallVector<int64_t>> slConst = n.constInts(5);
    std::optional<int64_t> totalConst = getConstantIntValue(totalOfr),
                           seqConst = getConstantIntValue(seqOfr),
                           pastConst = getConstantIntValue(pastLen);
    std::optional<bool> promptConst;
    if (totalConst && seqConst)
      promptConst = *totalConst == *seqConst;
    if (!hasPast && promptConst == false)
      return n.error() << "without a past, total_sequence_length (" << *totalConst
                       << ") must equal the sequence length (" << *seqConst << ")";
    if (totalConst && seqConst && *totalConst < *seqConst)
      return n.error() << "total_sequence_length " << *totalConst
                       << " is less than the sequence length " << *seqConst;
    bool rowsFull = false;
    const bool checkedAtImport =
        slConst && totalConst && promptConst && (!hasPast || pastConst);
    if (checkedAtImport) {
      rowsFull = true;
      for (int64_t x : *slConst) {
        int64_t past = *promptConst ? 0 : x + 1 - *seqConst;
        if (x < 0 || x + 1 > *totalConst || past < 0 || (pastConst && past > *pastConst))
          return n.error() << "seqlens_k " << x << " does not fit total sequence length "
                           << *totalConst << ", sequence length " << *seqConst
                           << (pastConst ? ", past length " + std::to_string(*pastConst) : "");
        rowsFull &= x + 1 == *totalConst;
      }
    }
    Value isPrompt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, seq, total);
    if (!promptConst) {
      Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, total, seq);
      cf::AssertOp::create(b, loc, ge, fail("total_sequence_length is less than the sequence "
                                            "length"));
      if (!hasPast)
        cf::AssertOp::create(b, loc, isPrompt,
                             fail("without a past, total_sequence_length must equal the "
                                  "sequence length"));
    }
    Value lens = n.importer.materialize(slV, loc);
    auto lensType = cast<RankedTensorType>(lens.getType());
    if (lensType.getRank() != 1 || !isa<IntegerType>(lensType.getElementType()))
      return n.error() << "seqlens_k must be a 1-D integer tensor, got " << lensType;
    OpFoldResult batch = qd[0];
    Value pastIdx = indexValue(b, loc, pastLen);
    // With a shared past/present buffer, the rows' new tokens lie in [lo, hi + S) of the
    // buffer, lo and hi the least and greatest past_b: known on the host from the row pass.
    const bool shared = n.importer.options.sharedKVBuffers && hasPast;
    Value pbLo, pbHi;
    // Run-time lengths: whether every row holds `total` tokens (the row pass's and of
    // seqlens_k[b] + 1 == total). Then the positions are end-aligned in every row and the
    // attention needs no per-row mask (a branch on it below).
    Value allFull;
    // One check per model of the same lengths, sizes and block (every layer reads them).
    std::vector<const void *> checkKey = {
        "GroupQueryAttention rows", b.getInsertionBlock(), lens.getAsOpaquePointer(),
        totalOfr.getOpaqueValue(), seqOfr.getOpaqueValue(),
        hasPast ? pastLen.getOpaqueValue() : nullptr, shared ? "window" : nullptr};
    if (checkedAtImport && shared) {
      int64_t mn = slConst->empty() ? 0 : *llvm::min_element(*slConst),
              mx = slConst->empty() ? 0 : *llvm::max_element(*slConst);
      auto pb = [&](int64_t x) {
        Value p = arith::SubIOp::create(b, loc, cIndex(x + 1), seq);
        return arith::SelectOp::create(b, loc, isPrompt, cIndex(0), p).getResult();
      };
      pbLo = pb(mn);
      pbHi = pb(mx);
    } else if (!checkedAtImport && n.importer.emittedChecks.try_emplace(checkKey).second) {
      // One pass over the rows on the host, the conditions and-ed (asserts inside the loop
      // would split its region when lowered), then one assert per condition. A GPU build
      // reads seqlens_k on the host: an argument's, or a copy of the kernels' result (one
      // synchronisation of the call; decoda-gpu-device-buffers).
      Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      SmallVector<Value> inits = {yes, yes, yes};
      if (shared)
        inits.append({total, cIndex(0)});
      auto rows = scf::ForOp::create(
          b, loc, cIndex(0), indexValue(b, loc, batch), cIndex(1), inits,
          [&](OpBuilder &lb, Location l, Value row, ValueRange acc) {
            Value x = arith::IndexCastOp::create(
                lb, l, lb.getIndexType(), tensor::ExtractOp::create(lb, l, lens, ValueRange{row}));
            Value one = arith::ConstantIndexOp::create(lb, l, 1);
            Value zero = arith::ConstantIndexOp::create(lb, l, 0);
            Value len = arith::AddIOp::create(lb, l, x, one);
            Value inTotal = arith::AndIOp::create(
                lb, l, arith::CmpIOp::create(lb, l, arith::CmpIPredicate::sge, x, zero),
                arith::CmpIOp::create(lb, l, arith::CmpIPredicate::sle, len, total));
            // past_b = len - S when not a prompt: at least 0, at most the past's length.
            Value past = arith::SubIOp::create(lb, l, len, seq);
            Value fits = arith::OrIOp::create(
                lb, l, isPrompt,
                arith::AndIOp::create(
                    lb, l, arith::CmpIOp::create(lb, l, arith::CmpIPredicate::sge, past, zero),
                    arith::CmpIOp::create(lb, l, arith::CmpIPredicate::sle, past, pastIdx)));
            Value full = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::eq, len, total);
            SmallVector<Value> next = {arith::AndIOp::create(lb, l, acc[0], inTotal),
                                       arith::AndIOp::create(lb, l, acc[1], fits),
                                       arith::AndIOp::create(lb, l, acc[2], full)};
            if (shared) {
              Value pb = arith::SelectOp::create(lb, l, isPrompt, zero, past);
              next.push_back(arith::MinSIOp::create(lb, l, acc[3], pb));
              next.push_back(arith::MaxSIOp::create(lb, l, acc[4], pb));
            }
            scf::YieldOp::create(lb, l, next);
          });
      cf::AssertOp::create(b, loc, rows.getResult(0),
                           fail("seqlens_k[b] + 1 must be in [1, total_sequence_length]"));
      if (hasPast)
        cf::AssertOp::create(b, loc, rows.getResult(1),
                             fail("seqlens_k[b] + 1 - sequence length (the row's earlier tokens) "
                                  "must be in [0, past length]"));
      allFull = rows.getResult(2);
      if (shared) {
        pbLo = rows.getResult(3);
        pbHi = rows.getResult(4);
      }
      n.importer.emittedChecks[checkKey] = {allFull, pbLo, pbHi};
    } else if (!checkedAtImport) {
      SmallVector<Value> &r = n.importer.emittedChecks[checkKey];
      allFull = r[0];
      pbLo = r[1];
      pbHi = r[2];
    }

    // past_b per row (i64 [B]).
    auto lensToI64 = [&](OpBuilder &bb, Location l, Value x) -> Value {
      return x.getType() == i64 ? x : arith::ExtSIOp::create(bb, l, i64, x).getResult();
    };
    Value seqI64 = arith::IndexCastOp::create(b, loc, i64, seq);
    Value pastRow;
    {
      Value init = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{batch}, i64);
      pastRow = linalg::GenericOp::create(
                    b, loc, TypeRange{init.getType()}, ValueRange{lens}, ValueRange{init},
                    ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(1, ctx),
                                        AffineMap::getMultiDimIdentityMap(1, ctx)},
                    ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
                    [&](OpBuilder &bb, Location l, ValueRange a) {
                      Value x = lensToI64(bb, l, a[0]);
                      Value one = arith::ConstantIntOp::create(bb, l, i64, 1);
                      Value p = arith::SubIOp::create(
                          bb, l, arith::AddIOp::create(bb, l, x, one), seqI64);
                      Value zero = arith::ConstantIntOp::create(bb, l, i64, 0);
                      linalg::YieldOp::create(
                          bb, l, arith::SelectOp::create(bb, l, isPrompt, zero, p).getResult());
                    })
                    .getResult(0);
    }

    // Checked before the rotations (an assert between their loops and present's writes would
    // keep them in separate kernels).
    if (shared) {
      if (pastConst && totalConst && *totalConst > *pastConst)
        return n.error() << "--shared-kv-buffers: total_sequence_length " << *totalConst
                         << " exceeds the past buffer's " << *pastConst << " entries";
      cf::AssertOp::create(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, total, pastIdx),
          fail("total_sequence_length exceeds the past buffer's length (a shared past/present "
               "buffer, --shared-kv-buffers, holds every token)"));
    }
    // q is rotated here; the keys where present needs them (present's writes rotate them as
    // they store them: no rotated copy of k, one kernel writing the cache instead of a RoPE
    // kernel and a copy).
    OnnxValue qv = q->v, kv = k->v;
    struct {
      bool on = false, interleaved = false;
      int64_t dim = 0;
      Value cosT, sinT, pos;
    } rot;
    if (n.intAttr("do_rotary", 0)) {
      if (!n.hasInput(7) || !n.hasInput(8))
        return n.error() << "do_rotary needs cos_cache and sin_cache";
      // Token s of row b is at position past_b + s.
      Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{qd[0], qd[1]}, i64);
      Value pos = linalg::GenericOp::create(
                      b, loc, TypeRange{empty.getType()}, ValueRange{pastRow}, ValueRange{empty},
                      ArrayRef<AffineMap>{AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx),
                                          AffineMap::getMultiDimIdentityMap(2, ctx)},
                      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                                    utils::IteratorType::parallel},
                      [&](OpBuilder &bb, Location l, ValueRange a) {
                        Value s = arith::IndexCastOp::create(bb, l, i64,
                                                             linalg::IndexOp::create(bb, l, 1));
                        linalg::YieldOp::create(bb, l,
                                                arith::AddIOp::create(bb, l, s, a[0]).getResult());
                      })
                      .getResult(0);
      bool interleaved = n.intAttr("rotary_interleaved", 0) != 0;
      int64_t headDim = staticDim(n, qv, 3);
      int64_t rotDim = 2 * staticDim(n, n.input(7), 1);
      if (rotDim <= 0 || rotDim > headDim)
        return n.error() << "the cos/sin caches do not fit the head dim";
      // Positions are in [0, total): the row checks above.
      FailureOr<OnnxValue> qr = ropeWithTables(n, qv, pos, n.tensorInput(7), n.tensorInput(8),
                                               rotDim, interleaved, total);
      if (failed(qr))
        return failure();
      qv = *qr;
      rot.on = true;
      rot.interleaved = interleaved;
      rot.dim = rotDim;
      rot.cosT = n.tensorInput(7);
      rot.sinT = n.tensorInput(8);
      rot.pos = pos;
    }

    // Keys this step attends to: total_sequence_length of them (the new ones without a past).
    OpFoldResult keyLen = hasPast ? totalOfr : seqOfr;
    OpFoldResult presentLen;
    if (pastConst && totalConst)
      presentLen = b.getIndexAttr(std::max(*pastConst, *totalConst));
    else if (hasPast && !shared)
      presentLen = arith::MaxUIOp::create(b, loc, pastIdx, total).getResult();

    // present: row b's first past_b entries of the past, its new tokens at [past_b, past_b + S),
    // zeros after them. With every row full and the past exactly the earlier tokens (constant
    // lengths), a concatenation.
    // A generic over `init` ([B, Hkv, L, D] entries of present from `first` on; null: 0) whose
    // element (b, h, j, d) is new token j - past_b of row b where there is one (read from
    // `freshT` [B, S, Hkv, D], the projection's layout: no transposed copy of it is made),
    // else what `other(builder, loc, init's element, the indices (b, h, j, d), j - past_b)`
    // yields.
    // With `rotate`, freshT holds the keys before RoPE, rotated here at their position j
    // (the rotation of ropeWithTables, the same ops).
    auto writeNewTokens =
        [&](Value init, Value first, Value freshT, bool rotate,
            function_ref<Value(OpBuilder &, Location, Value, ValueRange, Value)> other) -> Value {
      return linalg::GenericOp::create(
                 b, loc, TypeRange{init.getType()}, ValueRange{pastRow}, ValueRange{init},
                 ArrayRef<AffineMap>{AffineMap::get(4, 0, {getAffineDimExpr(0, ctx)}, ctx),
                                     AffineMap::getMultiDimIdentityMap(4, ctx)},
                 SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
                 [&](OpBuilder &bb, Location l, ValueRange a) {
                   // linalg.index must sit in the generic's own block.
                   Value jIdx = linalg::IndexOp::create(bb, l, 2);
                   if (first)
                     jIdx = arith::AddIOp::create(bb, l, jIdx, first);
                   Value r = arith::SubIOp::create(
                       bb, l, arith::IndexCastOp::create(bb, l, i64, jIdx), a[0]);
                   Value zero = arith::ConstantIntOp::create(bb, l, i64, 0);
                   Value isNew = arith::AndIOp::create(
                       bb, l, arith::CmpIOp::create(bb, l, arith::CmpIPredicate::sge, r, zero),
                       arith::CmpIOp::create(bb, l, arith::CmpIPredicate::slt, r, seqI64));
                   Value i0 = linalg::IndexOp::create(bb, l, 0),
                         i1 = linalg::IndexOp::create(bb, l, 1),
                         i3 = linalg::IndexOp::create(bb, l, 3);
                   auto pick = scf::IfOp::create(
                       bb, l, isNew,
                       [&](OpBuilder &tb, Location tl) {
                         Value ri = arith::IndexCastOp::create(tb, tl, tb.getIndexType(), r);
                         SmallVector<Value> at = {i0, ri, i1, i3};
                         scf::YieldOp::create(
                             tb, tl,
                             rotate ? rotatedElement(tb, tl, freshT, at, jIdx, rot.cosT,
                                                     rot.sinT, rot.dim, rot.interleaved)
                                    : tensor::ExtractOp::create(tb, tl, freshT, at).getResult());
                       },
                       [&](OpBuilder &eb, Location el) {
                         scf::YieldOp::create(
                             eb, el, other(eb, el, a[1], ValueRange{i0, i1, jIdx, i3}, r));
                       });
                   linalg::YieldOp::create(bb, l, pick.getResult(0));
                 })
          .getResult(0);
    };
    // `freshBSHD`: the new tokens as [B, S, Hkv, D], with `rotate` before RoPE. Where present
    // is made of them as [B, Hkv, S, D] (no past, or a concatenation) they are rotated and
    // transposed there.
    auto present = [&](unsigned pastInput, OnnxValue &freshBSHD,
                       bool rotate) -> FailureOr<OnnxValue> {
      auto freshBNSH = [&]() -> FailureOr<OnnxValue> {
        OnnxValue x = freshBSHD;
        if (rotate) {
          FailureOr<OnnxValue> r = ropeWithTables(n, x, rot.pos, rot.cosT, rot.sinT, rot.dim,
                                                  rot.interleaved, total);
          if (failed(r))
            return failure();
          x = *r;
        }
        return emitTranspose(n, x, {0, 2, 1, 3});
      };
      if (!hasPast)
        return freshBNSH();
      if (shared) {
        // The past buffer with each row's new tokens written at [past_b, past_b + S): only the
        // window [lo, hi + S) of the buffer is rewritten (in place when the past is donated),
        // entries after a row's tokens are the buffer's.
        Value pastT = n.importer.materialize(n.input(pastInput), loc);
        Value freshT = n.importer.materialize(freshBSHD, loc);
        SmallVector<OpFoldResult> pd = n.importer.dimsOf(n.input(pastInput), loc);
        Value width = arith::SubIOp::create(b, loc, arith::AddIOp::create(b, loc, pbHi, seq),
                                            pbLo);
        width = arith::MaxSIOp::create(b, loc, width, cIndex(0));
        SmallVector<OpFoldResult> offs = {b.getIndexAttr(0), b.getIndexAttr(0), pbLo,
                                          b.getIndexAttr(0)};
        SmallVector<OpFoldResult> sizes = {pd[0], pd[1], width, pd[3]};
        SmallVector<OpFoldResult> one4(4, b.getIndexAttr(1));
        Value window = tensor::ExtractSliceOp::create(b, loc, pastT, offs, sizes, one4);
        Value upd = writeNewTokens(window, pbLo, freshT, rotate,
                                   [](OpBuilder &, Location, Value out, ValueRange, Value) {
                                     return out; // not a new token: the buffer's entry
                                   });
        Value out = tensor::InsertSliceOp::create(b, loc, upd, pastT, offs, sizes, one4);
        n.importer.donations.push_back({pastT, out});
        return OnnxValue::tensor(out, pd);
      }
      if (rowsFull && pastConst && *pastConst + *seqConst == *totalConst) {
        FailureOr<OnnxValue> fresh = freshBNSH();
        if (failed(fresh))
          return failure();
        return appendCache(n, n.input(pastInput), *fresh);
      }
      SmallVector<OpFoldResult> pd = n.importer.dimsOf(n.input(pastInput), loc),
                                fd = n.importer.dimsOf(freshBSHD, loc);
      if (pd.size() != 4)
        return n.error() << "past key/value must be 4-D [B, H, P, D]", failure();
      SmallVector<OpFoldResult> dims = {fd[0], fd[2], presentLen, fd[3]};
      Value pastT = n.importer.materialize(n.input(pastInput), loc);
      Value freshT = n.importer.materialize(freshBSHD, loc);
      Value empty = tensor::EmptyOp::create(b, loc, dims, et);
      // One pass over present: the new tokens; before them (j < past_b) the past; after them
      // 0 (as ONNX Runtime's unshared present).
      Value out = writeNewTokens(
          empty, Value(), freshT, rotate,
          [&](OpBuilder &eb, Location el, Value, ValueRange at, Value r) {
            Value zero = arith::ConstantIntOp::create(eb, el, i64, 0);
            return scf::IfOp::create(
                       eb, el, arith::CmpIOp::create(eb, el, arith::CmpIPredicate::slt, r, zero),
                       [&](OpBuilder &tb, Location tl) {
                         scf::YieldOp::create(tb, tl, tensor::ExtractOp::create(tb, tl, pastT, at)
                                                          .getResult());
                       },
                       [&](OpBuilder &zb, Location zl) {
                         scf::YieldOp::create(zb, zl, scalarConst(zb, zl, et, 0.0));
                       })
                .getResult(0);
          });
      return OnnxValue::tensor(out, dims);
    };
    OnnxValue vBSHD = v->v;
    FailureOr<OnnxValue> presentK = present(3, kv, rot.on), presentV = present(4, vBSHD, false);
    if (failed(presentK) || failed(presentV))
      return failure();
    n.setOutput(1, *presentK);
    n.setOutput(2, *presentV);

    // Keys [0, total) of present in decoda's [B, T, H, D].
    auto attended = [&](OnnxValue &p) -> OnnxValue {
      SmallVector<OpFoldResult> d = n.importer.dimsOf(p, loc);
      if (sameDim(d[2], keyLen))
        return emitTranspose(n, p, {0, 2, 1, 3});
      SmallVector<OpFoldResult> sd = {d[0], d[1], keyLen, d[3]};
      SmallVector<OpFoldResult> zero4(4, b.getIndexAttr(0)), one4(4, b.getIndexAttr(1));
      Value s = tensor::ExtractSliceOp::create(b, loc, n.importer.materialize(p, loc), zero4, sd,
                                               one4);
      return emitTranspose(n, OnnxValue::tensor(s, sd), {0, 2, 1, 3});
    };
    // Rows that are not all full need a mask: key j is seen by query s of row b when
    // j <= past_b + s, j <= seqlens_k[b] (a padded prompt's queries past the row's length see
    // all of it) and, with a window w, j > past_b + s - w. The attributes give the same mask
    // where every row is full (positions end-aligned); `causal` holds for every row anyway.
    auto keyMaskOf = [&]() -> Value {
      SmallVector<OpFoldResult> md = {qd[0], b.getIndexAttr(1), qd[1], keyLen};
      Value init = tensor::EmptyOp::create(b, loc, md, et);
      AffineMap row = AffineMap::get(4, 0, {getAffineDimExpr(0, ctx)}, ctx);
      std::optional<int64_t> w = window;
      return linalg::GenericOp::create(
                 b, loc, TypeRange{init.getType()}, ValueRange{lens, pastRow}, ValueRange{init},
                 ArrayRef<AffineMap>{row, row, AffineMap::getMultiDimIdentityMap(4, ctx)},
                 SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
                 [&](OpBuilder &bb, Location l, ValueRange a) {
                   Value j =
                       arith::IndexCastOp::create(bb, l, i64, linalg::IndexOp::create(bb, l, 3));
                   Value s =
                       arith::IndexCastOp::create(bb, l, i64, linalg::IndexOp::create(bb, l, 2));
                   Value pos = arith::AddIOp::create(bb, l, a[1], s);
                   Value keep = arith::AndIOp::create(
                       bb, l, arith::CmpIOp::create(bb, l, arith::CmpIPredicate::sle, j, pos),
                       arith::CmpIOp::create(bb, l, arith::CmpIPredicate::sle, j,
                                             lensToI64(bb, l, a[0])));
                   if (w) {
                     Value lo = arith::SubIOp::create(
                         bb, l, pos, arith::ConstantIntOp::create(bb, l, i64, *w));
                     keep = arith::AndIOp::create(
                         bb, l, keep,
                         arith::CmpIOp::create(bb, l, arith::CmpIPredicate::sgt, j, lo));
                   }
                   linalg::YieldOp::create(
                       bb, l,
                       arith::SelectOp::create(bb, l, keep, scalarConst(bb, l, et, 0.0),
                                               scalarConst(bb, l, et, -INFINITY))
                           .getResult());
                 })
          .getResult(0);
    };
    // The attention over keys [0, total) of present (transposed to decoda's [B, T, H, D] where
    // it is built: a GPU build then reads the cache through a view, decoda-gpu-flash-attention),
    // with the per-row mask or, where positions are end-aligned in every row (full rows, or a
    // prompt without a past: positions s), with the attributes alone.
    Value qT = n.importer.materialize(qv, loc);
    auto attend = [&](bool masked) -> Value {
      OnnxValue keys = attended(*presentK), values = attended(*presentV);
      AttentionConfig cc = c;
      if (!masked || !hasPast)
        cc.window = window;
      return emitDecodaAttention(n, qT, n.importer.materialize(keys, loc),
                                 n.importer.materialize(values, loc),
                                 masked ? keyMaskOf() : Value(), cc, sinks);
    };
    Value r;
    if (rowsFull || !allFull) {
      r = attend(!rowsFull);
    } else {
      // Run-time lengths: `if (every row full) attention else mask + attention`. Decode steps
      // of a batch of equal rows and unpadded prompts (every batch-1 call) take the first:
      // no mask built or read, and the tensor-core kernels' unmasked tiles. The if's result
      // type is inferred from the branches' yields.
      auto branch = [&](bool masked) {
        return [&, masked](OpBuilder &bb, Location l) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(bb.getInsertionBlock(), bb.getInsertionPoint());
          scf::YieldOp::create(b, l, attend(masked));
        };
      };
      r = scf::IfOp::create(b, loc, allFull, branch(false), branch(true)).getResult(0);
    }
    // The result's head dim is the values' (present's last dim).
    FailureOr<OnnxValue> out =
        fromHeads(n, OnnxValue::tensor(r, attentionDims(n, qv, *presentV)), false);
    if (failed(out))
      return failure();
    n.setOutput(0, *out);
    return success();
  });

  // com.microsoft MultiHeadAttention: 3-D query/key/value, optional bias and attention_bias.
  addOp(t, "com.microsoft", "MultiHeadAttention", 1, [](NodeContext &n) -> LogicalResult {
    for (unsigned i : {4u, 6u, 7u})
      if (n.hasInput(i))
        return n.error() << "input " << i << " (key_padding_mask / past) is not supported";
    if (!n.hasInput(1) || !n.hasInput(2))
      return n.error() << "packed QKV is not supported";
    AttentionConfig c;
    c.numHeads = n.intAttr("num_heads", 0);
    c.numKvHeads = c.numHeads;
    if (c.numHeads <= 0)
      return n.error() << "num_heads must be positive";
    if (double s = n.floatAttr("scale", 0.0); s != 0.0)
      c.scale = s;
    c.causal = n.intAttr("unidirectional", 0) != 0;
    Type et = n.inputType(0).getElementType();
    OnnxValue qIn = n.input(0), kIn = n.input(1), vIn = n.input(2);
    if (n.hasInput(3)) {
      // bias [3 * hidden]: q, k, v biases.
      int64_t hq = staticDim(n, qIn, n.inputRank(0) - 1);
      if (n.inputRank(0) != 3 || hq <= 0)
        return n.error() << "bias needs 3-D inputs with a static hidden size";
      OnnxValue bias = n.input(3);
      OnnxValue *targets[3] = {&qIn, &kIn, &vIn};
      for (int i = 0; i < 3; ++i) {
        FailureOr<OnnxValue> piece;
        {
          SmallVector<OpFoldResult> bd = n.importer.dimsOf(bias, n.loc);
          Value bv = n.importer.materialize(bias, n.loc);
          Value s = tensor::ExtractSliceOp::create(
              n.b, n.loc, bv, ArrayRef<OpFoldResult>{n.b.getIndexAttr(i * hq)},
              ArrayRef<OpFoldResult>{n.b.getIndexAttr(hq)},
              ArrayRef<OpFoldResult>{n.b.getIndexAttr(1)});
          (void)bd;
          piece = emitElementwise(n, {*targets[i], OnnxValue::tensor(s, {n.b.getIndexAttr(hq)})}, et,
                                  [](OpBuilder &b, Location loc, ValueRange a) -> Value {
                                    return arith::AddFOp::create(b, loc, a[0], a[1]);
                                  });
        }
        if (failed(piece))
          return failure();
        *targets[i] = *piece;
      }
    }
    FailureOr<Heads> q = toHeads(n, qIn, c.numHeads, "query");
    FailureOr<Heads> k = toHeads(n, kIn, c.numHeads, "key");
    FailureOr<Heads> v = toHeads(n, vIn, c.numHeads, "value");
    if (failed(q) || failed(k) || failed(v))
      return failure();
    Value mask;
    if (n.hasInput(5)) {
      FailureOr<Value> m = additiveMask(n, n.input(5), et);
      if (failed(m))
        return failure();
      mask = *m;
    }
    Value r = emitDecodaAttention(n, n.importer.materialize(q->v, n.loc),
                                  n.importer.materialize(k->v, n.loc),
                                  n.importer.materialize(v->v, n.loc), mask, c);
    FailureOr<OnnxValue> out =
        fromHeads(n, OnnxValue::tensor(r, attentionDims(n, q->v, v->v)), false);
    if (failed(out))
      return failure();
    n.setOutput(0, *out);
    return success();
  });
}
