//===- OpsShape.cpp - ONNX shape and data-movement ops --------------------===//
//
// Shape, Reshape, Transpose, (Un)Squeeze, Expand, Concat, Slice, Split, Gather, Range,
// ConstantOfShape, Trilu, Tile, Flatten, Constant. On shape values these evaluate at import
// (the Shape -> Gather -> Concat -> Reshape chains of exporters fold away); on run-time tensors
// they become tensor/linalg ops.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <onnx/onnx_pb.h>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::onnx_import;

namespace {


bool isShapeLike(OnnxValue &v) { return shapeElements(v).has_value(); }

/// Axes from the attribute (before `inputSince`) or the given input.
FailureOr<SmallVector<int64_t>> axesOf(NodeContext &n, unsigned inputIndex, int64_t inputSince,
                                       bool required) {
  if (n.opset < inputSince)
    return n.intsAttr("axes");
  if (!n.hasInput(inputIndex)) {
    if (required)
      return n.error() << "the axes input is required", failure();
    return SmallVector<int64_t>();
  }
  auto c = n.constInts(inputIndex);
  if (!c)
    return n.error() << "axes must be known at compile time", failure();
  return *c;
}

Type i64(NodeContext &n) { return n.b.getI64Type(); }

LogicalResult setTensor(NodeContext &n, unsigned out, FailureOr<OnnxValue> v) {
  if (failed(v))
    return failure();
  n.setOutput(out, *v);
  return success();
}

/// Normalises an ONNX slice bound against dim `d`: negative counts from the end, then clamps to
/// [lo, d + hiOffset]. Symbolic bounds are normalised at run time.
OpFoldResult sliceBound(NodeContext &n, OpFoldResult x, OpFoldResult d, int64_t lo,
                        int64_t hiOffset) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  OpFoldResult hi = foldIndexBinary(b, loc, '+', d, b.getIndexAttr(hiOffset));
  if (std::optional<int64_t> c = getConstantIntValue(x)) {
    if (*c >= (INT64_MAX >> 2))
      return hi;
    if (*c <= (INT64_MIN >> 2))
      return b.getIndexAttr(lo);
    OpFoldResult r = *c < 0 ? foldIndexBinary(b, loc, '+', d, x) : x;
    r = foldIndexBinary(b, loc, 'M', r, b.getIndexAttr(lo));
    std::optional<int64_t> rc = getConstantIntValue(r), hc = getConstantIntValue(hi);
    if (rc && hc)
      return b.getIndexAttr(std::min(*rc, *hc));
    return foldIndexBinary(b, loc, 'm', r, hi);
  }
  Value v = cast<Value>(x);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, zero);
  Value wrapped = arith::AddIOp::create(b, loc, v, indexValue(b, loc, d));
  Value r = arith::SelectOp::create(b, loc, neg, wrapped, v);
  r = arith::MaxSIOp::create(b, loc, r, arith::ConstantIndexOp::create(b, loc, lo));
  return arith::MinSIOp::create(b, loc, r, indexValue(b, loc, hi)).getResult();
}

/// Run-time slice of one axis per entry; sizes computed with index arithmetic (folds when
/// static). Negative steps read backwards through a gather-style linalg.generic.
FailureOr<OnnxValue> sliceTensor(NodeContext &n, OnnxValue in, ArrayRef<int64_t> axes,
                                 ArrayRef<OpFoldResult> starts, ArrayRef<OpFoldResult> ends,
                                 ArrayRef<int64_t> steps) {
  Value v = n.importer.materialize(in, n.loc);
  SmallVector<OpFoldResult> dims = n.importer.dimsOf(in, n.loc);
  int64_t rank = dims.size();
  SmallVector<OpFoldResult> offs(rank, n.b.getIndexAttr(0)), sizes(dims),
      strides(rank, n.b.getIndexAttr(1));
  SmallVector<int64_t> stepOf(rank, 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> ax = n.axis(axes[i], rank);
    if (failed(ax))
      return failure();
    int64_t step = steps.empty() ? 1 : steps[i];
    if (step == 0)
      return n.error() << "slice step 0", failure();
    OpFoldResult d = dims[*ax];
    OpFoldResult len;
    if (step > 0) {
      OpFoldResult s = sliceBound(n, starts[i], d, 0, 0), e = sliceBound(n, ends[i], d, 0, 0);
      len = foldIndexBinary(n.b, n.loc, '-', e, s);
      len = foldIndexBinary(n.b, n.loc, 'M', len, n.b.getIndexAttr(0));
      if (step != 1)
        len = foldIndexBinary(n.b, n.loc, '/',
                              foldIndexBinary(n.b, n.loc, '+', len, n.b.getIndexAttr(step - 1)),
                              n.b.getIndexAttr(step));
      offs[*ax] = s;
    } else {
      // Backwards: start clamps to [0, d-1], end to [-1, d-1].
      OpFoldResult s = sliceBound(n, starts[i], d, 0, -1), e = sliceBound(n, ends[i], d, -1, -1);
      len = foldIndexBinary(n.b, n.loc, '-', s, e);
      len = foldIndexBinary(n.b, n.loc, 'M', len, n.b.getIndexAttr(0));
      len = foldIndexBinary(n.b, n.loc, '/',
                            foldIndexBinary(n.b, n.loc, '+', len, n.b.getIndexAttr(-step - 1)),
                            n.b.getIndexAttr(-step));
      offs[*ax] = s;
    }
    sizes[*ax] = len;
    strides[*ax] = n.b.getIndexAttr(step);
    stepOf[*ax] = step;
  }
  if (llvm::all_of(stepOf, [](int64_t s) { return s > 0; })) {
    Value r = tensor::ExtractSliceOp::create(n.b, n.loc, v, offs, sizes, strides);
    return OnnxValue::tensor(r, sizes);
  }
  // out[i] = in[off + i * step] on every axis.
  Type et = cast<ShapedType>(v.getType()).getElementType();
  Value init = tensor::EmptyOp::create(n.b, n.loc, sizes, et);
  MLIRContext *ctx = n.b.getContext();
  SmallVector<Value> offVals;
  for (OpFoldResult o : offs)
    offVals.push_back(indexValue(n.b, n.loc, o));
  auto g = linalg::GenericOp::create(
      n.b, n.loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange) {
        SmallVector<Value> idx;
        for (int64_t a = 0; a < rank; ++a) {
          Value i = linalg::IndexOp::create(b, loc, a);
          Value st = arith::ConstantIndexOp::create(b, loc, stepOf[a]);
          idx.push_back(arith::AddIOp::create(b, loc, offVals[a],
                                              arith::MulIOp::create(b, loc, i, st)));
        }
        linalg::YieldOp::create(b, loc, tensor::ExtractOp::create(b, loc, v, idx).getResult());
      });
  return OnnxValue::tensor(g.getResult(0), sizes);
}

/// Elements of a rank-0/1 integer input of static length: folded when known at import, read
/// from the tensor at run time otherwise.
std::optional<SmallVector<OpFoldResult>> elementsOrRuntime(NodeContext &n, unsigned i) {
  if (auto e = shapeElements(n.input(i)))
    return e;
  RankedTensorType t = n.inputType(i);
  if (!isa<IntegerType>(t.getElementType()) || t.getRank() > 1 || !t.hasStaticShape())
    return std::nullopt;
  Value v = n.tensorInput(i);
  SmallVector<OpFoldResult> r;
  int64_t len = t.getRank() ? t.getDimSize(0) : 1;
  for (int64_t k = 0; k < len; ++k) {
    SmallVector<Value> idx;
    if (t.getRank())
      idx.push_back(arith::ConstantIndexOp::create(n.b, n.loc, k));
    Value x = tensor::ExtractOp::create(n.b, n.loc, v, idx);
    r.push_back(arith::IndexCastOp::create(n.b, n.loc, n.b.getIndexType(), x).getResult());
  }
  return r;
}

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> xs) {
  SmallVector<OpFoldResult> r;
  for (int64_t x : xs)
    r.push_back(b.getIndexAttr(x));
  return r;
}

LogicalResult unsqueeze(NodeContext &n, OnnxValue in, ArrayRef<int64_t> axesIn) {
  SmallVector<OpFoldResult> dims = n.importer.dimsOf(in, n.loc);
  int64_t outRank = dims.size() + axesIn.size();
  SmallVector<bool> isNew(outRank, false);
  for (int64_t a : axesIn) {
    FailureOr<int64_t> ax = n.axis(a, outRank);
    if (failed(ax))
      return failure();
    if (isNew[*ax])
      return n.error() << "axis " << a << " appears twice";
    isNew[*ax] = true;
  }
  // Shape values: scalar -> [1].
  if (auto elems = shapeElements(in)) {
    bool scalar = in.isShape() ? in.scalar : cast<ShapedType>(in.cst.getType()).getRank() == 0;
    if (scalar && outRank == 1) {
      Type it = in.isShape() ? in.elementType : cast<ShapedType>(in.cst.getType()).getElementType();
      n.setOutput(0, makeShapeValue(n.b.getContext(), *elems, false, it));
      return success();
    }
  }
  SmallVector<OpFoldResult> out;
  unsigned k = 0;
  for (int64_t i = 0; i < outRank; ++i)
    out.push_back(isNew[i] ? OpFoldResult(n.b.getIndexAttr(1)) : dims[k++]);
  if (in.isConst()) {
    if (auto d = dyn_cast<DenseElementsAttr>(in.cst)) {
      n.setOutput(0, OnnxValue::constant(d.reshape(tensorType(out, d.getElementType()))));
      return success();
    }
  }
  return setTensor(n, 0, emitReshape(n, in, out));
}

LogicalResult squeeze(NodeContext &n, OnnxValue in, ArrayRef<int64_t> axesIn) {
  SmallVector<OpFoldResult> dims = n.importer.dimsOf(in, n.loc);
  int64_t rank = dims.size();
  SmallVector<bool> drop(rank, false);
  if (axesIn.empty()) {
    for (int64_t i = 0; i < rank; ++i)
      drop[i] = getConstantIntValue(dims[i]) == 1;
  } else {
    for (int64_t a : axesIn) {
      FailureOr<int64_t> ax = n.axis(a, rank);
      if (failed(ax))
        return failure();
      std::optional<int64_t> c = getConstantIntValue(dims[*ax]);
      if (c && *c != 1)
        return n.error() << "cannot squeeze axis " << a << " of size " << *c;
      drop[*ax] = true;
    }
  }
  SmallVector<OpFoldResult> out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i])
      out.push_back(dims[i]);
  if (auto elems = shapeElements(in)) {
    if (out.empty() && elems->size() == 1) {
      Type it = in.isShape() ? in.elementType : cast<ShapedType>(in.cst.getType()).getElementType();
      n.setOutput(0, makeShapeValue(n.b.getContext(), *elems, true, it));
      return success();
    }
  }
  if (in.isConst()) {
    if (auto d = dyn_cast<DenseElementsAttr>(in.cst)) {
      n.setOutput(0, OnnxValue::constant(d.reshape(tensorType(out, d.getElementType()))));
      return success();
    }
  }
  // A dynamic dim squeezed away must be 1 at run time: the reshape asserts nothing, so check.
  for (int64_t i = 0; i < rank; ++i) {
    if (drop[i] && !getConstantIntValue(dims[i])) {
      Value one = arith::ConstantIndexOp::create(n.b, n.loc, 1);
      Value eq = arith::CmpIOp::create(n.b, n.loc, arith::CmpIPredicate::eq,
                                       cast<Value>(dims[i]), one);
      cf::AssertOp::create(n.b, n.loc, eq,
                           ("ONNX node '" + n.name() + "' (" + n.opType() + "): axis " +
                            std::to_string(i) + " must be 1 to be squeezed")
                               .str());
      Value v = n.importer.materialize(in, n.loc);
      SmallVector<OpFoldResult> staticDims(dims);
      staticDims[i] = n.b.getIndexAttr(1);
      auto castType = tensorType(staticDims, cast<ShapedType>(v.getType()).getElementType());
      Value c = tensor::CastOp::create(n.b, n.loc, castType, v);
      in = OnnxValue::tensor(c, staticDims);
      dims = staticDims;
    }
  }
  return setTensor(n, 0, emitReshape(n, in, out));
}

} // namespace

void onnx_import::registerShapeOps(std::vector<OpEntry> &t) {
  addOp(t, "", "Shape", 1, [](NodeContext &n) -> LogicalResult {
    SmallVector<OpFoldResult> dims = n.importer.dimsOf(n.input(0), n.loc);
    int64_t rank = dims.size();
    int64_t start = n.intAttr("start", 0), end = n.intAttr("end", rank);
    if (start < 0)
      start += rank;
    if (end < 0)
      end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
    SmallVector<OpFoldResult> elems;
    for (int64_t i = start; i < end; ++i)
      elems.push_back(dims[i]);
    n.setOutput(0, makeShapeValue(n.b.getContext(), elems, false, i64(n)));
    return success();
  });
  addOp(t, "", "Size", 1, [](NodeContext &n) -> LogicalResult {
    OpFoldResult p = n.b.getIndexAttr(1);
    for (OpFoldResult d : n.importer.dimsOf(n.input(0), n.loc))
      p = foldIndexBinary(n.b, n.loc, '*', p, d);
    n.setOutput(0, makeShapeValue(n.b.getContext(), {p}, true, i64(n)));
    return success();
  });
  addOp(t, "", "Constant", 1, [](NodeContext &n) -> LogicalResult {
    if (const onnx::AttributeProto *a = n.attr("value")) {
      FailureOr<ElementsAttr> c = n.importer.convertTensor(a->t(), n.loc, /*forceInline=*/false);
      if (failed(c))
        return n.error() << "bad 'value' tensor";
      n.setOutput(0, OnnxValue::constant(*c));
      return success();
    }
    MLIRContext *ctx = n.b.getContext();
    if (const onnx::AttributeProto *a = n.attr("value_float")) {
      n.setOutput(0, OnnxValue::constant(DenseElementsAttr::get(
                         RankedTensorType::get({}, Float32Type::get(ctx)), a->f())));
      return success();
    }
    if (const onnx::AttributeProto *a = n.attr("value_floats")) {
      SmallVector<float> v(a->floats().begin(), a->floats().end());
      n.setOutput(0, OnnxValue::constant(DenseElementsAttr::get(
                         RankedTensorType::get({(int64_t)v.size()}, Float32Type::get(ctx)),
                         ArrayRef<float>(v))));
      return success();
    }
    if (const onnx::AttributeProto *a = n.attr("value_int")) {
      n.setOutput(0, OnnxValue::constant(DenseElementsAttr::get(
                         RankedTensorType::get({}, IntegerType::get(ctx, 64)), (int64_t)a->i())));
      return success();
    }
    if (const onnx::AttributeProto *a = n.attr("value_ints")) {
      SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
      n.setOutput(0, OnnxValue::constant(DenseElementsAttr::get(
                         RankedTensorType::get({(int64_t)v.size()}, IntegerType::get(ctx, 64)),
                         ArrayRef<int64_t>(v))));
      return success();
    }
    return n.error() << "needs one of value, value_float(s), value_int(s) (sparse and string "
                        "constants are not supported)";
  });
  addOp(t, "", "Reshape", 1, [](NodeContext &n) -> LogicalResult {
    OnnxValue in = n.input(0);
    SmallVector<OpFoldResult> inDims = n.importer.dimsOf(in, n.loc);
    std::optional<SmallVector<OpFoldResult>> target = shapeElements(n.input(1));
    bool allowZero = n.intAttr("allowzero", 0) != 0;
    if (!target) {
      // A run-time shape tensor: resolve 0 (copy) and -1 (infer) at run time, check that the
      // element count is kept, then reshape.
      Value shape = n.tensorInput(1);
      auto st = cast<RankedTensorType>(shape.getType());
      if (st.getRank() != 1 || st.isDynamicDim(0))
        return n.error() << "the shape input must be a 1-D tensor of static length";
      int64_t outRank = st.getDimSize(0);
      Value v = n.importer.materialize(in, n.loc);
      OpBuilder &b = n.b;
      Location loc = n.loc;
      Value c0 = arith::ConstantIndexOp::create(b, loc, 0),
            c1 = arith::ConstantIndexOp::create(b, loc, 1),
            cm1 = arith::ConstantIndexOp::create(b, loc, -1);
      Value total = c1;
      for (OpFoldResult d : inDims)
        total = arith::MulIOp::create(b, loc, total, indexValue(b, loc, d));
      SmallVector<Value> raw, resolved;
      Value known = c1, inferCount = c0, ok = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
      for (int64_t i = 0; i < outRank; ++i) {
        Value e = tensor::ExtractOp::create(b, loc, shape,
                                            ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
        Value x = arith::IndexCastOp::create(b, loc, b.getIndexType(), e);
        if (!allowZero && i < (int64_t)inDims.size()) {
          Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, c0);
          x = arith::SelectOp::create(b, loc, isZero, indexValue(b, loc, inDims[i]), x);
        } else if (!allowZero) {
          Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, c0);
          ok = arith::AndIOp::create(b, loc, ok, arith::XOrIOp::create(b, loc, isZero,
              arith::ConstantOp::create(b, loc, b.getBoolAttr(true))));
        }
        Value isInfer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, cm1);
        Value valid = arith::OrIOp::create(
            b, loc, isInfer, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, x, c0));
        ok = arith::AndIOp::create(b, loc, ok, valid);
        inferCount = arith::AddIOp::create(b, loc, inferCount,
                                           arith::SelectOp::create(b, loc, isInfer, c1, c0));
        known = arith::MulIOp::create(b, loc, known,
                                      arith::SelectOp::create(b, loc, isInfer, c1, x));
        raw.push_back(x);
      }
      // At most one -1; the known dims divide the element count (and match it without -1).
      Value knownNonZero = arith::MaxSIOp::create(b, loc, known, c1);
      Value inferred = arith::DivSIOp::create(b, loc, total, knownNonZero);
      Value noInfer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, inferCount, c0);
      Value oneInfer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, inferCount, c1);
      Value exact = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, known, total);
      Value divides = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::MulIOp::create(b, loc, inferred, knownNonZero), total);
      ok = arith::AndIOp::create(
          b, loc, ok,
          arith::OrIOp::create(b, loc, arith::AndIOp::create(b, loc, noInfer, exact),
                               arith::AndIOp::create(b, loc, oneInfer, divides)));
      cf::AssertOp::create(b, loc, ok,
                           ("ONNX node '" + n.name() + "' (Reshape): the run-time shape does "
                            "not fit the input's element count")
                               .str());
      SmallVector<OpFoldResult> outDims;
      for (Value x : raw) {
        Value isInfer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, cm1);
        Value d = arith::SelectOp::create(b, loc, isInfer, inferred, x);
        resolved.push_back(d);
        outDims.push_back(d);
      }
      Value shapeIdx = tensor::FromElementsOp::create(
          b, loc, RankedTensorType::get({outRank}, b.getIndexType()), resolved);
      SmallVector<int64_t> dyn(outRank, ShapedType::kDynamic);
      auto outType = RankedTensorType::get(dyn, cast<ShapedType>(v.getType()).getElementType());
      Value r = tensor::ReshapeOp::create(b, loc, outType, v, shapeIdx);
      n.setOutput(0, OnnxValue::tensor(r, outDims));
      return success();
    }
    SmallVector<OpFoldResult> dims(*target);
    int inferAt = -1;
    for (size_t i = 0; i < dims.size(); ++i) {
      std::optional<int64_t> c = getConstantIntValue(dims[i]);
      if (!c)
        continue;
      if (*c == 0 && !allowZero) {
        if (i >= inDims.size())
          return n.error() << "shape entry " << i << " is 0 (copy) but the input has rank "
                           << inDims.size();
        dims[i] = inDims[i];
      } else if (*c == -1) {
        if (inferAt >= 0)
          return n.error() << "more than one -1 in the target shape";
        inferAt = i;
      } else if (*c < 0) {
        return n.error() << "invalid target dim " << *c;
      }
    }
    if (inferAt >= 0) {
      // Cancel identical symbolic factors so [B, T, 2048] -> [B, T, -1, 64] stays static.
      SmallVector<OpFoldResult> num(inDims), den;
      for (size_t i = 0; i < dims.size(); ++i)
        if ((int)i != inferAt)
          den.push_back(dims[i]);
      for (auto it = den.begin(); it != den.end();) {
        auto m = llvm::find_if(num, [&](OpFoldResult x) { return sameDim(x, *it); });
        if (m != num.end()) {
          num.erase(m);
          it = den.erase(it);
        } else {
          ++it;
        }
      }
      OpFoldResult np = n.b.getIndexAttr(1), dp = n.b.getIndexAttr(1);
      for (OpFoldResult x : num)
        np = foldIndexBinary(n.b, n.loc, '*', np, x);
      for (OpFoldResult x : den)
        dp = foldIndexBinary(n.b, n.loc, '*', dp, x);
      std::optional<int64_t> nc = getConstantIntValue(np), dc = getConstantIntValue(dp);
      if (nc && dc && (*dc == 0 || *nc % *dc != 0))
        return n.error() << "cannot infer the -1 dim: " << *nc << " elements do not divide by "
                         << *dc;
      dims[inferAt] = foldIndexBinary(n.b, n.loc, '/', np, dp);
    }
    if (auto elems = shapeElements(in)) {
      // Reshape of a shape value ([n] <-> [1, n] and scalars) keeps it symbolic when possible.
      if (dims.size() <= 1) {
        Type it = in.isShape() ? in.elementType
                               : cast<ShapedType>(in.cst.getType()).getElementType();
        n.setOutput(0, makeShapeValue(n.b.getContext(), *elems, dims.empty(), it));
        return success();
      }
    }
    if (in.isConst()) {
      if (auto d = dyn_cast<DenseElementsAttr>(in.cst)) {
        RankedTensorType rt = tensorType(dims, d.getElementType());
        if (rt.hasStaticShape() && rt.getNumElements() == d.getNumElements()) {
          n.setOutput(0, OnnxValue::constant(d.reshape(rt)));
          return success();
        }
      }
    }
    return setTensor(n, 0, emitReshape(n, in, dims));
  });
  addOp(t, "", "Flatten", 1, [](NodeContext &n) -> LogicalResult {
    OnnxValue in = n.input(0);
    SmallVector<OpFoldResult> dims = n.importer.dimsOf(in, n.loc);
    int64_t rank = dims.size();
    int64_t a = n.intAttr("axis", 1);
    if (a < 0)
      a += rank;
    if (a < 0 || a > rank)
      return n.error() << "axis out of range";
    OpFoldResult p0 = n.b.getIndexAttr(1), p1 = n.b.getIndexAttr(1);
    for (int64_t i = 0; i < rank; ++i)
      (i < a ? p0 : p1) = foldIndexBinary(n.b, n.loc, '*', i < a ? p0 : p1, dims[i]);
    return setTensor(n, 0, emitReshape(n, in, {p0, p1}));
  });
  addOp(t, "", "Transpose", 1, [](NodeContext &n) -> LogicalResult {
    int64_t rank = n.inputRank(0);
    SmallVector<int64_t> perm = n.intsAttr("perm");
    if (perm.empty())
      for (int64_t i = rank - 1; i >= 0; --i)
        perm.push_back(i);
    if ((int64_t)perm.size() != rank)
      return n.error() << "perm has " << perm.size() << " entries for rank " << rank;
    SmallVector<bool> seen(rank, false);
    for (int64_t &p : perm) {
      if (p < 0)
        p += rank;
      if (p < 0 || p >= rank || seen[p])
        return n.error() << "perm is not a permutation";
      seen[p] = true;
    }
    n.setOutput(0, emitTranspose(n, n.input(0), perm));
    return success();
  });
  addOp(t, "", "Unsqueeze", 1, [](NodeContext &n) -> LogicalResult {
    FailureOr<SmallVector<int64_t>> axes = axesOf(n, 1, 13, true);
    if (failed(axes))
      return failure();
    return unsqueeze(n, n.input(0), *axes);
  });
  addOp(t, "", "Squeeze", 1, [](NodeContext &n) -> LogicalResult {
    FailureOr<SmallVector<int64_t>> axes = axesOf(n, 1, 13, false);
    if (failed(axes))
      return failure();
    return squeeze(n, n.input(0), *axes);
  });
  addOp(t, "", "Expand", 1, [](NodeContext &n) -> LogicalResult {
    std::optional<SmallVector<OpFoldResult>> target = shapeElements(n.input(1));
    if (!target)
      return n.error() << "the target shape must be known at compile time (a constant or "
                          "shape arithmetic)";
    // Expand's shape may use 1 where the input is larger (bidirectional broadcast).
    return setTensor(n, 0, emitBroadcastTo(n, n.input(0), *target));
  });
  addOp(t, "", "Concat", 1, [](NodeContext &n) -> LogicalResult {
    int64_t axisAttr = n.intAttr("axis", 0);
    bool allShape = true;
    for (unsigned i = 0; i < n.numInputs(); ++i)
      allShape &= n.hasInput(i) && isShapeLike(n.input(i)) && n.inputRank(i) == 1;
    if (allShape) {
      SmallVector<OpFoldResult> elems;
      Type it = n.inputType(0).getElementType();
      for (unsigned i = 0; i < n.numInputs(); ++i)
        llvm::append_range(elems, *shapeElements(n.input(i)));
      n.setOutput(0, makeShapeValue(n.b.getContext(), elems, false, it));
      return success();
    }
    SmallVector<Value> vals;
    SmallVector<OpFoldResult> dims;
    int64_t rank = n.inputRank(0);
    FailureOr<int64_t> ax = n.axis(axisAttr, rank);
    if (failed(ax))
      return failure();
    OpFoldResult total = n.b.getIndexAttr(0);
    for (unsigned i = 0; i < n.numInputs(); ++i) {
      if (!n.hasInput(i))
        continue;
      OnnxValue &v = n.input(i);
      SmallVector<OpFoldResult> d = n.importer.dimsOf(v, n.loc);
      if ((int64_t)d.size() != rank)
        return n.error() << "input " << i << " has rank " << d.size() << ", expected " << rank;
      if (getConstantIntValue(d[*ax]) == 0)
        continue; // empty pieces (e.g. an empty past KV cache) contribute nothing
      if (dims.empty())
        dims = d;
      total = foldIndexBinary(n.b, n.loc, '+', total, d[*ax]);
      vals.push_back(n.importer.materialize(v, n.loc));
    }
    if (vals.empty())
      return n.error() << "every input is empty";
    dims[*ax] = total;
    if (vals.size() == 1) {
      n.setOutput(0, vals[0]);
      return success();
    }
    // Operands must agree on the static-ness of non-concatenated dims: cast to the result's.
    RankedTensorType rt = tensorType(dims, cast<ShapedType>(vals[0].getType()).getElementType());
    for (Value &v : vals) {
      auto vt = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape(rt.getShape());
      shape[*ax] = vt.getDimSize(*ax);
      auto want = RankedTensorType::get(shape, vt.getElementType());
      if (want != vt)
        v = tensor::CastOp::create(n.b, n.loc, want, v);
    }
    Value r = tensor::ConcatOp::create(n.b, n.loc, *ax, vals);
    if (r.getType() != rt)
      r = tensor::CastOp::create(n.b, n.loc, rt, r);
    n.setOutput(0, OnnxValue::tensor(r, dims));
    return success();
  });
  addOp(t, "", "Slice", 10, [](NodeContext &n) -> LogicalResult {
    auto starts = elementsOrRuntime(n, 1), ends = elementsOrRuntime(n, 2);
    if (!starts || !ends)
      return n.error() << "starts and ends must be 1-D integer tensors of static length";
    int64_t rank = n.inputRank(0);
    SmallVector<int64_t> axes, steps;
    if (n.hasInput(3)) {
      auto a = n.constInts(3);
      if (!a)
        return n.error() << "axes must be known at compile time";
      axes = *a;
    } else {
      for (size_t i = 0; i < starts->size(); ++i)
        axes.push_back(i);
    }
    if (n.hasInput(4)) {
      auto s = n.constInts(4);
      if (!s)
        return n.error() << "steps must be known at compile time";
      steps = *s;
    }
    if (axes.size() != starts->size() || ends->size() != starts->size() ||
        (!steps.empty() && steps.size() != starts->size()))
      return n.error() << "starts, ends, axes and steps must have the same length";
    OnnxValue in = n.input(0);
    auto cs = n.constInts(1), ce = n.constInts(2);
    if (auto elems = shapeElements(in); elems && rank == 1 && cs && ce) {
      int64_t len = elems->size();
      int64_t s = (*cs)[0], e = (*ce)[0], st = steps.empty() ? 1 : steps[0];
      if (st > 0) {
        if (s < 0) s += len;
        if (e < 0) e += len;
        s = std::clamp<int64_t>(s, 0, len);
        e = std::clamp<int64_t>(e, 0, len);
        SmallVector<OpFoldResult> out;
        for (int64_t i = s; i < e; i += st)
          out.push_back((*elems)[i]);
        Type it = in.isShape() ? in.elementType
                               : cast<ShapedType>(in.cst.getType()).getElementType();
        n.setOutput(0, makeShapeValue(n.b.getContext(), out, false, it));
        return success();
      }
    }
    return setTensor(n, 0, sliceTensor(n, in, axes, *starts, *ends, steps));
  });
  addOp(t, "", "Split", 13, [](NodeContext &n) -> LogicalResult {
    int64_t rank = n.inputRank(0);
    FailureOr<int64_t> ax = n.axis(n.intAttr("axis", 0), rank);
    if (failed(ax))
      return failure();
    OnnxValue in = n.input(0);
    OpFoldResult d = n.importer.dimsOf(in, n.loc)[*ax];
    SmallVector<int64_t> sizes;
    if (n.hasInput(1)) {
      auto s = n.constInts(1);
      if (!s)
        return n.error() << "split sizes must be known at compile time";
      sizes = *s;
    } else {
      std::optional<int64_t> dc = getConstantIntValue(d);
      int64_t parts = n.opset >= 18 ? n.intAttr("num_outputs", n.numOutputs()) : n.numOutputs();
      if (!dc)
        return n.error() << "an even split of a dynamic axis is not supported";
      int64_t chunk = (*dc + parts - 1) / parts;
      for (int64_t i = 0; i < parts; ++i)
        sizes.push_back(std::max<int64_t>(0, std::min(chunk, *dc - i * chunk)));
    }
    if (sizes.size() != n.numOutputs())
      return n.error() << sizes.size() << " split sizes for " << n.numOutputs() << " outputs";
    int64_t off = 0;
    for (unsigned i = 0; i < sizes.size(); ++i) {
      FailureOr<OnnxValue> piece = sliceTensor(n, in, {*ax}, indexAttrs(n.b, {off}), indexAttrs(n.b, {off + sizes[i]}), {});
      if (failed(piece))
        return failure();
      n.setOutput(i, *piece);
      off += sizes[i];
    }
    return success();
  });
  addOp(t, "", "Gather", 1, [](NodeContext &n) -> LogicalResult {
    OnnxValue data = n.input(0), idx = n.input(1);
    int64_t rank = n.inputRank(0);
    FailureOr<int64_t> ax = n.axis(n.intAttr("axis", 0), rank);
    if (failed(ax))
      return failure();
    auto cidx = n.constInts(1);
    // Picking elements of a shape value.
    if (auto elems = shapeElements(data); elems && cidx) {
      SmallVector<OpFoldResult> out;
      int64_t len = elems->size();
      for (int64_t i : *cidx) {
        if (i < 0)
          i += len;
        if (i < 0 || i >= len)
          return n.error() << "index out of range for a shape of length " << len;
        out.push_back((*elems)[i]);
      }
      bool scalar = n.inputRank(1) == 0;
      Type it = data.isShape() ? data.elementType
                               : cast<ShapedType>(data.cst.getType()).getElementType();
      n.setOutput(0, makeShapeValue(n.b.getContext(), out, scalar, it));
      return success();
    }
    // Constant indices on a run-time tensor: slices.
    if (cidx && n.inputRank(1) <= 1) {
      SmallVector<OpFoldResult> dims = n.importer.dimsOf(data, n.loc);
      std::optional<int64_t> dc = getConstantIntValue(dims[*ax]);
      SmallVector<Value> pieces;
      SmallVector<OpFoldResult> pieceDims;
      for (int64_t i : *cidx) {
        if (i < 0) {
          if (!dc)
            return n.error() << "negative index on a dynamic axis";
          i += *dc;
        }
        if (dc && (i < 0 || i >= *dc))
          return n.error() << "index " << i << " out of range for axis size " << *dc;
        FailureOr<OnnxValue> s = sliceTensor(n, data, {*ax}, indexAttrs(n.b, {i}), indexAttrs(n.b, {i + 1}), {});
        if (failed(s))
          return failure();
        pieces.push_back(s->value);
        pieceDims = s->dims;
      }
      OnnxValue joined;
      if (pieces.size() == 1) {
        joined = OnnxValue::tensor(pieces[0], pieceDims);
      } else {
        Value r = tensor::ConcatOp::create(n.b, n.loc, *ax, pieces);
        SmallVector<OpFoldResult> d(pieceDims);
        d[*ax] = n.b.getIndexAttr(pieces.size());
        joined = OnnxValue::tensor(r, d);
      }
      if (n.inputRank(1) == 0)
        return squeeze(n, joined, {*ax});
      return setTensor(n, 0, FailureOr<OnnxValue>(joined));
    }
    // Run-time ids into a [V, D] table along axis 0: an embedding lookup (ids checked).
    if (rank == 2 && *ax == 0 && isa<FloatType>(n.inputType(0).getElementType())) {
      Value table = n.tensorInput(0), ids = n.tensorInput(1);
      Value r = EmbeddingOp::create(n.b, n.loc, ids, table);
      SmallVector<OpFoldResult> dims = n.importer.dimsOf(idx, n.loc);
      dims.push_back(n.importer.dimsOf(data, n.loc)[1]);
      n.setOutput(0, OnnxValue::tensor(r, dims));
      return success();
    }
    // General gather: out[a..., i..., b...] = data[a..., idx[i...], b...], with every index
    // checked against the axis (negative ones count from the end) before any is used.
    if (!isa<IntegerType>(n.inputType(1).getElementType()))
      return n.error() << "indices must be integers";
    Value dataV = n.tensorInput(0), idxV = n.tensorInput(1);
    SmallVector<OpFoldResult> dd = n.importer.dimsOf(data, n.loc), id = n.importer.dimsOf(idx, n.loc);
    int64_t ri = id.size();
    Value axisSize = indexValue(n.b, n.loc, dd[*ax]);
    {
      Value lo, hi;
      if (ri == 0) {
        lo = hi = tensor::ExtractOp::create(n.b, n.loc, idxV, ValueRange{});
      } else {
        SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, ri));
        FailureOr<OnnxValue> mx = emitReduce(n, idx, all, false, ReduceKind::Max);
        FailureOr<OnnxValue> mn = emitReduce(n, idx, all, false, ReduceKind::Min);
        if (failed(mx) || failed(mn))
          return failure();
        hi = tensor::ExtractOp::create(n.b, n.loc, mx->value, ValueRange{});
        lo = tensor::ExtractOp::create(n.b, n.loc, mn->value, ValueRange{});
      }
      Value hiI = arith::IndexCastOp::create(n.b, n.loc, n.b.getIndexType(), hi);
      Value loI = arith::IndexCastOp::create(n.b, n.loc, n.b.getIndexType(), lo);
      Value negSize = arith::SubIOp::create(n.b, n.loc, arith::ConstantIndexOp::create(n.b, n.loc, 0), axisSize);
      Value ok = arith::AndIOp::create(
          n.b, n.loc, arith::CmpIOp::create(n.b, n.loc, arith::CmpIPredicate::slt, hiI, axisSize),
          arith::CmpIOp::create(n.b, n.loc, arith::CmpIPredicate::sge, loI, negSize));
      cf::AssertOp::create(n.b, n.loc, ok,
                           ("ONNX node '" + n.name() + "' (Gather): an index is out of range")
                               .str());
    }
    SmallVector<OpFoldResult> outDims(dd.begin(), dd.begin() + *ax);
    outDims.append(id.begin(), id.end());
    outDims.append(dd.begin() + *ax + 1, dd.end());
    int64_t ro = outDims.size();
    MLIRContext *ctx = n.b.getContext();
    SmallVector<AffineExpr> idxExprs;
    for (int64_t k = 0; k < ri; ++k)
      idxExprs.push_back(getAffineDimExpr(*ax + k, ctx));
    Type et = cast<ShapedType>(dataV.getType()).getElementType();
    Value init = tensor::EmptyOp::create(n.b, n.loc, outDims, et);
    auto g = linalg::GenericOp::create(
        n.b, n.loc, TypeRange{init.getType()}, ValueRange{idxV}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::get(ro, 0, idxExprs, ctx),
                            AffineMap::getMultiDimIdentityMap(ro, ctx)},
        SmallVector<utils::IteratorType>(ro, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), args[0]);
          Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i,
                                            arith::ConstantIndexOp::create(b, loc, 0));
          i = arith::SelectOp::create(b, loc, neg, arith::AddIOp::create(b, loc, i, axisSize), i);
          SmallVector<Value> at;
          for (int64_t k = 0; k < *ax; ++k)
            at.push_back(linalg::IndexOp::create(b, loc, k));
          at.push_back(i);
          for (int64_t k = *ax + 1; k < rank; ++k)
            at.push_back(linalg::IndexOp::create(b, loc, k - 1 + ri));
          linalg::YieldOp::create(b, loc, tensor::ExtractOp::create(b, loc, dataV, at).getResult());
        });
    n.setOutput(0, OnnxValue::tensor(g.getResult(0), outDims));
    return success();
  });
  addOp(t, "", "Range", 11, [](NodeContext &n) -> LogicalResult {
    Type et = n.inputType(0).getElementType();
    auto cs = n.constInts(0), cl = n.constInts(1), cd = n.constInts(2);
    auto fs = n.constFloat(0), fl = n.constFloat(1), fd = n.constFloat(2);
    if (isa<FloatType>(et)) {
      if (!fs || !fl || !fd)
        return n.error() << "a floating-point Range needs compile-time start, limit and delta";
      if (*fd == 0)
        return n.error() << "delta is 0";
      int64_t len = std::max<int64_t>(0, (int64_t)std::ceil((*fl - *fs) / *fd));
      SmallVector<APFloat> v;
      for (int64_t i = 0; i < len; ++i) {
        APFloat x(*fs + i * *fd);
        bool lost;
        x.convert(cast<FloatType>(et).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
        v.push_back(x);
      }
      n.setOutput(0, OnnxValue::constant(DenseElementsAttr::get(RankedTensorType::get({len}, et), v)));
      return success();
    }
    auto es = shapeElements(n.input(0)), el = shapeElements(n.input(1));
    if (!cd || cd->size() != 1 || !es || !el || es->size() != 1 || el->size() != 1)
      return n.error() << "Range needs a compile-time delta and scalar start/limit known at "
                          "compile time or from shape arithmetic";
    int64_t delta = (*cd)[0];
    if (delta == 0)
      return n.error() << "delta is 0";
    OpFoldResult start = (*es)[0], limit = (*el)[0];
    if (cs && cl) {
      int64_t s = (*cs)[0], l = (*cl)[0];
      int64_t len = std::max<int64_t>(0, delta > 0 ? (l - s + delta - 1) / delta
                                                   : (s - l - delta - 1) / -delta);
      SmallVector<OpFoldResult> elems;
      for (int64_t i = 0; i < len; ++i)
        elems.push_back(n.b.getIndexAttr(s + i * delta));
      n.setOutput(0, makeShapeValue(n.b.getContext(), elems, false, et));
      return success();
    }
    if (delta < 0)
      return n.error() << "a negative delta with a symbolic bound is not supported";
    OpFoldResult len = foldIndexBinary(
        n.b, n.loc, '/',
        foldIndexBinary(n.b, n.loc, '+', foldIndexBinary(n.b, n.loc, '-', limit, start),
                        n.b.getIndexAttr(delta - 1)),
        n.b.getIndexAttr(delta));
    len = foldIndexBinary(n.b, n.loc, 'M', len, n.b.getIndexAttr(0));
    Value startV = indexValue(n.b, n.loc, start);
    Value empty = tensor::EmptyOp::create(n.b, n.loc, ArrayRef<OpFoldResult>{len}, et);
    MLIRContext *ctx = n.b.getContext();
    auto g = linalg::GenericOp::create(
        n.b, n.loc, TypeRange{empty.getType()}, ValueRange{}, ValueRange{empty},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(1, ctx)},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &b, Location loc, ValueRange) {
          Value i = linalg::IndexOp::create(b, loc, 0);
          Value v = arith::AddIOp::create(
              b, loc, startV,
              arith::MulIOp::create(b, loc, i, arith::ConstantIndexOp::create(b, loc, delta)));
          linalg::YieldOp::create(b, loc, arith::IndexCastOp::create(b, loc, et, v).getResult());
        });
    n.setOutput(0, OnnxValue::tensor(g.getResult(0), {len}));
    return success();
  });
  addOp(t, "", "ConstantOfShape", 9, [](NodeContext &n) -> LogicalResult {
    std::optional<SmallVector<OpFoldResult>> dims = shapeElements(n.input(0));
    if (!dims)
      return n.error() << "the shape must be known at compile time or from shape arithmetic";
    Attribute value = n.b.getF32FloatAttr(0.0f);
    Type et = n.b.getF32Type();
    if (const onnx::AttributeProto *a = n.attr("value")) {
      FailureOr<ElementsAttr> c = n.importer.convertTensor(a->t(), n.loc, /*forceInline=*/true);
      if (failed(c) || c->getNumElements() != 1)
        return n.error() << "'value' must be a one-element tensor";
      et = c->getElementType();
      value = *cast<DenseElementsAttr>(*c).value_begin<Attribute>();
    }
    RankedTensorType rt = tensorType(*dims, et);
    if (rt.hasStaticShape()) {
      if (rt.getRank() == 1 && isa<IntegerType>(et) && !et.isInteger(1) && rt.getNumElements() <= 64) {
        SmallVector<OpFoldResult> elems(rt.getNumElements(),
                                        n.b.getIndexAttr(cast<IntegerAttr>(value).getInt()));
        n.setOutput(0, makeShapeValue(n.b.getContext(), elems, false, et));
        return success();
      }
      n.setOutput(0, OnnxValue::constant(DenseElementsAttr::get(rt, value)));
      return success();
    }
    Value empty = tensor::EmptyOp::create(n.b, n.loc, *dims, et);
    Value cst = arith::ConstantOp::create(n.b, n.loc, cast<TypedAttr>(value));
    Value r = linalg::FillOp::create(n.b, n.loc, cst, empty).getResult(0);
    n.setOutput(0, OnnxValue::tensor(r, *dims));
    return success();
  });
  addOp(t, "", "Trilu", 14, [](NodeContext &n) -> LogicalResult {
    bool upper = n.intAttr("upper", 1) != 0;
    OpFoldResult k = n.b.getIndexAttr(0);
    if (n.hasInput(1)) {
      auto c = elementsOrRuntime(n, 1);
      if (!c || c->size() != 1)
        return n.error() << "k must be an integer scalar";
      k = (*c)[0];
    }
    Value kValue = indexValue(n.b, n.loc, k);
    OnnxValue in = n.input(0);
    SmallVector<OpFoldResult> dims = n.importer.dimsOf(in, n.loc);
    int64_t rank = dims.size();
    if (rank < 2)
      return n.error() << "input must have rank >= 2";
    Value v = n.importer.materialize(in, n.loc);
    Type et = cast<ShapedType>(v.getType()).getElementType();
    MLIRContext *ctx = n.b.getContext();
    Value empty = tensor::EmptyOp::create(n.b, n.loc, dims, et);
    SmallVector<AffineMap> maps(2, AffineMap::getMultiDimIdentityMap(rank, ctx));
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    auto g = linalg::GenericOp::create(
        n.b, n.loc, TypeRange{empty.getType()}, ValueRange{v}, ValueRange{empty}, maps, iters,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value i = linalg::IndexOp::create(b, loc, rank - 2);
          Value j = linalg::IndexOp::create(b, loc, rank - 1);
          Value diff = arith::SubIOp::create(b, loc, j, i);
          Value kk = kValue;
          Value keep = arith::CmpIOp::create(
              b, loc, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle, diff, kk);
          Value zero = scalarConst(b, loc, et, 0.0);
          if (et.isInteger(1))
            zero = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
          linalg::YieldOp::create(b, loc,
                                  arith::SelectOp::create(b, loc, keep, args[0], zero).getResult());
        });
    n.setOutput(0, OnnxValue::tensor(g.getResult(0), dims));
    return success();
  });
  addOp(t, "", "Tile", 13, [](NodeContext &n) -> LogicalResult {
    auto reps = n.constInts(1);
    OnnxValue in = n.input(0);
    SmallVector<OpFoldResult> dims = n.importer.dimsOf(in, n.loc);
    if (!reps || reps->size() != dims.size())
      return n.error() << "repeats must be known at compile time, one per axis";
    // [d0, d1, ...] -> [1, d0, 1, d1, ...] -> broadcast [r0, d0, r1, d1, ...] -> collapse pairs.
    SmallVector<OpFoldResult> interleaved, target, out;
    for (size_t i = 0; i < dims.size(); ++i) {
      if ((*reps)[i] < 0)
        return n.error() << "negative repeat";
      std::optional<int64_t> extent = getConstantIntValue(dims[i]);
      int64_t product;
      if (extent && llvm::MulOverflow((*reps)[i], *extent, product))
        return n.error() << "repeat " << (*reps)[i] << " of axis " << i << " (extent " << *extent
                         << ") overflows a 64-bit extent";
      interleaved.push_back(n.b.getIndexAttr(1));
      interleaved.push_back(dims[i]);
      target.push_back(n.b.getIndexAttr((*reps)[i]));
      target.push_back(dims[i]);
      out.push_back(foldIndexBinary(n.b, n.loc, '*', n.b.getIndexAttr((*reps)[i]), dims[i]));
    }
    FailureOr<OnnxValue> e = emitReshape(n, in, interleaved);
    if (failed(e))
      return failure();
    FailureOr<OnnxValue> bc = emitBroadcastTo(n, *e, target);
    if (failed(bc))
      return failure();
    Value v = n.importer.materialize(*bc, n.loc);
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i < (int64_t)dims.size(); ++i)
      groups.push_back({2 * i, 2 * i + 1});
    Value r = tensor::CollapseShapeOp::create(
        n.b, n.loc, tensorType(out, cast<ShapedType>(v.getType()).getElementType()), v, groups);
    n.setOutput(0, OnnxValue::tensor(r, out));
    return success();
  });
}
