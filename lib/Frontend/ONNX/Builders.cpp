//===- Builders.cpp - IR the ONNX op handlers share -----------------------===//
//
// Broadcasting elementwise maps, reductions, reshapes, transposes and batched matmuls over
// run-time tensors, all as linalg/tensor ops whose dims are tracked symbolically.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::onnx_import;

RankedTensorType onnx_import::tensorType(ArrayRef<OpFoldResult> dims, Type elementType) {
  SmallVector<int64_t> shape;
  for (OpFoldResult d : dims)
    shape.push_back(getConstantIntValue(d).value_or(ShapedType::kDynamic));
  return RankedTensorType::get(shape, elementType);
}

Value onnx_import::indexValue(OpBuilder &b, Location loc, OpFoldResult ofr) {
  return getValueOrCreateConstantIndexOp(b, loc, ofr);
}

bool onnx_import::sameDim(OpFoldResult a, OpFoldResult b) {
  std::optional<int64_t> ca = getConstantIntValue(a), cb = getConstantIntValue(b);
  if (ca || cb)
    return ca && cb && *ca == *cb;
  return cast<Value>(a) == cast<Value>(b);
}

OpFoldResult onnx_import::foldIndexBinary(OpBuilder &b, Location loc, char op, OpFoldResult lhs,
                                          OpFoldResult rhs) {
  std::optional<int64_t> l = getConstantIntValue(lhs), r = getConstantIntValue(rhs);
  if (l && r) {
    // A result outside int64 (a fuzzed shape, docs/Reliability.md) is not folded: that would be
    // undefined behaviour here; the run-time index arithmetic is emitted instead.
    int64_t v;
    bool divides = *r != 0 && !(*r == -1 && *l == std::numeric_limits<int64_t>::min());
    switch (op) {
    case '+':
      if (!llvm::AddOverflow(*l, *r, v))
        return b.getIndexAttr(v);
      break;
    case '-':
      if (!llvm::SubOverflow(*l, *r, v))
        return b.getIndexAttr(v);
      break;
    case '*':
      if (!llvm::MulOverflow(*l, *r, v))
        return b.getIndexAttr(v);
      break;
    case '/':
      if (divides)
        return b.getIndexAttr(llvm::divideFloorSigned(*l, *r));
      break;
    case '%':
      if (divides)
        return b.getIndexAttr(*l - llvm::divideFloorSigned(*l, *r) * *r);
      break;
    case 'M': return b.getIndexAttr(std::max(*l, *r));
    case 'm': return b.getIndexAttr(std::min(*l, *r));
    }
  }
  if (op == '*' && ((l && *l == 1) || (r && *r == 1)))
    return l && *l == 1 ? rhs : lhs;
  if ((op == '+' || op == '-') && r && *r == 0)
    return lhs;
  if (op == '+' && l && *l == 0)
    return rhs;
  if (op == '/' && r && *r == 1)
    return lhs;
  Value a = indexValue(b, loc, lhs), c = indexValue(b, loc, rhs);
  switch (op) {
  case '+': return arith::AddIOp::create(b, loc, a, c).getResult();
  case '-': return arith::SubIOp::create(b, loc, a, c).getResult();
  case '*': return arith::MulIOp::create(b, loc, a, c).getResult();
  case '/': return arith::FloorDivSIOp::create(b, loc, a, c).getResult();
  case '%': return arith::RemSIOp::create(b, loc, a, c).getResult();
  case 'M': return arith::MaxSIOp::create(b, loc, a, c).getResult();
  default: return arith::MinSIOp::create(b, loc, a, c).getResult();
  }
}

Value onnx_import::scalarConst(OpBuilder &b, Location loc, Type t, double v) {
  if (isa<FloatType>(t))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
  if (t.isIndex())
    return arith::ConstantIndexOp::create(b, loc, (int64_t)v);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, (int64_t)v));
}

Value onnx_import::castScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(to);
  if (fromF && toF)
    return fromF.getWidth() < toF.getWidth() ? arith::ExtFOp::create(b, loc, to, v).getResult()
                                             : arith::TruncFOp::create(b, loc, to, v).getResult();
  if (fromF && to.isInteger(1)) {
    Value zero = scalarConst(b, loc, from, 0.0);
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
  }
  if (fromF)
    return arith::FPToSIOp::create(b, loc, to, v);
  if (from.isInteger(1) && toF)
    return arith::UIToFPOp::create(b, loc, to, v);
  if (toF)
    return arith::SIToFPOp::create(b, loc, to, v);
  if (to.isInteger(1)) {
    Value zero = scalarConst(b, loc, from, 0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (from.isInteger(1))
    return arith::ExtUIOp::create(b, loc, to, v);
  if (fw < tw)
    return arith::ExtSIOp::create(b, loc, to, v);
  return arith::TruncIOp::create(b, loc, to, v);
}

std::optional<SmallVector<OpFoldResult>> onnx_import::shapeElements(OnnxValue &v) {
  if (v.isShape())
    return v.dims;
  if (!v.isConst())
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(v.cst);
  auto t = cast<ShapedType>(v.cst.getType());
  if (!dense || t.getRank() > 1 || !isa<IntegerType>(t.getElementType()) ||
      t.getElementType().isInteger(1))
    return std::nullopt;
  MLIRContext *ctx = t.getContext();
  SmallVector<OpFoldResult> r;
  for (APInt x : dense.getValues<APInt>())
    r.push_back(IntegerAttr::get(IndexType::get(ctx), x.getSExtValue()));
  return r;
}

OnnxValue onnx_import::makeShapeValue(MLIRContext *ctx, ArrayRef<OpFoldResult> elems,
                                      bool scalar, Type intType) {
  SmallVector<int64_t> consts;
  for (OpFoldResult e : elems) {
    std::optional<int64_t> c = getConstantIntValue(e);
    if (!c) {
      OnnxValue r;
      r.kind = OnnxValue::Kind::Shape;
      r.dims.assign(elems.begin(), elems.end());
      r.scalar = scalar;
      r.elementType = intType;
      return r;
    }
    consts.push_back(*c);
  }
  auto type = scalar ? RankedTensorType::get({}, intType)
                     : RankedTensorType::get({(int64_t)consts.size()}, intType);
  SmallVector<APInt> vals;
  for (int64_t c : consts)
    vals.push_back(APInt(intType.getIntOrFloatBitWidth(), (uint64_t)c, /*isSigned=*/true,
                         /*implicitTrunc=*/true));
  return OnnxValue::constant(DenseElementsAttr::get(type, vals));
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

namespace {
/// Broadcast result dims of `shapes` (numpy rules, right-aligned). Dynamic dims that must be
/// equal get a run-time assertion; a dynamic dim is never assumed to be 1.
FailureOr<SmallVector<OpFoldResult>> broadcastDims(NodeContext &n,
                                                   ArrayRef<SmallVector<OpFoldResult>> shapes) {
  size_t rank = 0;
  for (const auto &s : shapes)
    rank = std::max(rank, s.size());
  SmallVector<OpFoldResult> out;
  for (size_t j = 0; j < rank; ++j) {
    std::optional<int64_t> staticDim;
    Value dynDim;
    SmallVector<Value> otherDyn;
    for (const auto &s : shapes) {
      if (j + s.size() < rank)
        continue;
      OpFoldResult d = s[j + s.size() - rank];
      if (std::optional<int64_t> c = getConstantIntValue(d)) {
        if (*c == 1)
          continue;
        if (staticDim && *staticDim != *c) {
          n.error() << "cannot broadcast dimension sizes " << *staticDim << " and " << *c;
          return failure();
        }
        staticDim = *c;
      } else if (!dynDim) {
        dynDim = cast<Value>(d);
      } else if (cast<Value>(d) != dynDim) {
        otherDyn.push_back(cast<Value>(d));
      }
    }
    Location loc = n.loc;
    auto check = [&](Value a, Value bv) {
      Value eq = arith::CmpIOp::create(n.b, loc, arith::CmpIPredicate::eq, a, bv);
      cf::AssertOp::create(n.b, loc, eq,
                           ("ONNX node '" + n.name() + "' (" + n.opType() +
                            "): operand dimensions differ at run time (broadcasting of a "
                            "dynamic dimension is not supported)")
                               .str());
    };
    if (staticDim) {
      if (dynDim) {
        Value c = arith::ConstantIndexOp::create(n.b, loc, *staticDim);
        check(dynDim, c);
        for (Value o : otherDyn)
          check(o, c);
      }
      out.push_back(n.b.getIndexAttr(*staticDim));
    } else if (dynDim) {
      for (Value o : otherDyn)
        check(dynDim, o);
      out.push_back(dynDim);
    } else {
      out.push_back(n.b.getIndexAttr(1));
    }
  }
  return out;
}

AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<OpFoldResult> in, ArrayRef<OpFoldResult> out) {
  SmallVector<AffineExpr> exprs;
  size_t off = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    std::optional<int64_t> c = getConstantIntValue(in[i]);
    std::optional<int64_t> o = getConstantIntValue(out[i + off]);
    if (c && *c == 1 && !(o && *o == 1))
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(i + off, ctx));
  }
  return AffineMap::get(out.size(), 0, exprs, ctx);
}
} // namespace

FailureOr<OnnxValue> onnx_import::emitElementwise(NodeContext &n, ArrayRef<OnnxValue> inputs,
                                                  Type resultElementType,
                                                  const ScalarBody &body) {
  SmallVector<Value> vals;
  SmallVector<SmallVector<OpFoldResult>> shapes;
  for (OnnxValue v : inputs) {
    vals.push_back(n.importer.materialize(v, n.loc));
    shapes.push_back(n.importer.dimsOf(v, n.loc));
  }
  FailureOr<SmallVector<OpFoldResult>> dims = broadcastDims(n, shapes);
  if (failed(dims))
    return failure();
  MLIRContext *ctx = n.b.getContext();
  SmallVector<AffineMap> maps;
  for (const auto &s : shapes)
    maps.push_back(broadcastMap(ctx, s, *dims));
  maps.push_back(AffineMap::getMultiDimIdentityMap(dims->size(), ctx));
  Value init = tensor::EmptyOp::create(n.b, n.loc, *dims, resultElementType);
  SmallVector<utils::IteratorType> iters(dims->size(), utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      n.b, n.loc, TypeRange{init.getType()}, vals, ValueRange{init}, maps, iters,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value r = body(b, loc, args.drop_back());
        linalg::YieldOp::create(b, loc, r);
      });
  return OnnxValue::tensor(generic.getResult(0), *dims);
}

FailureOr<OnnxValue> onnx_import::emitBroadcastTo(NodeContext &n, OnnxValue input,
                                                  ArrayRef<OpFoldResult> target) {
  SmallVector<OpFoldResult> inDims = n.importer.dimsOf(input, n.loc);
  SmallVector<SmallVector<OpFoldResult>> shapes = {inDims,
                                                   SmallVector<OpFoldResult>(target)};
  FailureOr<SmallVector<OpFoldResult>> dims = broadcastDims(n, shapes);
  if (failed(dims))
    return failure();
  // Nothing to do when the shape does not change.
  if (dims->size() == inDims.size() &&
      llvm::all_of(llvm::zip(*dims, inDims), [](auto p) {
        return sameDim(std::get<0>(p), std::get<1>(p));
      }))
    return input;
  Value v = n.importer.materialize(input, n.loc);
  MLIRContext *ctx = n.b.getContext();
  Type et = cast<ShapedType>(v.getType()).getElementType();
  SmallVector<AffineMap> maps = {broadcastMap(ctx, inDims, *dims),
                                 AffineMap::getMultiDimIdentityMap(dims->size(), ctx)};
  Value init = tensor::EmptyOp::create(n.b, n.loc, *dims, et);
  SmallVector<utils::IteratorType> iters(dims->size(), utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      n.b, n.loc, TypeRange{init.getType()}, ValueRange{v}, ValueRange{init}, maps, iters,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
  return OnnxValue::tensor(generic.getResult(0), *dims);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

FailureOr<OnnxValue> onnx_import::emitReduce(NodeContext &n, OnnxValue input,
                                             ArrayRef<int64_t> axes, bool keepDims,
                                             ReduceKind kind) {
  Value v = n.importer.materialize(input, n.loc);
  SmallVector<OpFoldResult> inDims = n.importer.dimsOf(input, n.loc);
  auto type = cast<RankedTensorType>(v.getType());
  Type et = type.getElementType();
  int64_t rank = type.getRank();
  llvm::SmallBitVector reduced(rank);
  for (int64_t a : axes) {
    FailureOr<int64_t> ax = n.axis(a, rank);
    if (failed(ax))
      return failure();
    reduced.set(*ax);
  }
  MLIRContext *ctx = n.b.getContext();
  SmallVector<OpFoldResult> outDims;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iters;
  OpFoldResult count = n.b.getIndexAttr(1);
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      iters.push_back(utils::IteratorType::reduction);
      count = foldIndexBinary(n.b, n.loc, '*', count, inDims[d]);
      if (keepDims) {
        outDims.push_back(n.b.getIndexAttr(1));
        outExprs.push_back(getAffineConstantExpr(0, ctx));
      }
    } else {
      iters.push_back(utils::IteratorType::parallel);
      outDims.push_back(inDims[d]);
      outExprs.push_back(getAffineDimExpr(d, ctx));
    }
  }
  double initValue = 0.0;
  bool isFloat = isa<FloatType>(et);
  if (kind == ReduceKind::Prod)
    initValue = 1.0;
  Value initScalar;
  if (kind == ReduceKind::Max || kind == ReduceKind::Min) {
    if (isFloat) {
      const llvm::fltSemantics &sem = cast<FloatType>(et).getFloatSemantics();
      initScalar = arith::ConstantOp::create(
          n.b, n.loc, n.b.getFloatAttr(et, APFloat::getInf(sem, kind == ReduceKind::Max)));
    } else {
      unsigned w = et.getIntOrFloatBitWidth();
      APInt lim = kind == ReduceKind::Max ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w);
      initScalar = arith::ConstantOp::create(n.b, n.loc, n.b.getIntegerAttr(et, lim));
    }
  } else {
    initScalar = scalarConst(n.b, n.loc, et, initValue);
  }
  Value empty = tensor::EmptyOp::create(n.b, n.loc, outDims, et);
  Value init = linalg::FillOp::create(n.b, n.loc, initScalar, empty).getResult(0);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, outExprs, ctx)};
  auto generic = linalg::GenericOp::create(
      n.b, n.loc, TypeRange{init.getType()}, ValueRange{v}, ValueRange{init}, maps, iters,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value x = args[0], acc = args[1], r;
        switch (kind) {
        case ReduceKind::Sum:
        case ReduceKind::Mean:
          r = isFloat ? arith::AddFOp::create(b, loc, acc, x).getResult()
                      : arith::AddIOp::create(b, loc, acc, x).getResult();
          break;
        case ReduceKind::Prod:
          r = isFloat ? arith::MulFOp::create(b, loc, acc, x).getResult()
                      : arith::MulIOp::create(b, loc, acc, x).getResult();
          break;
        case ReduceKind::Max:
          r = isFloat ? arith::MaximumFOp::create(b, loc, acc, x).getResult()
                      : arith::MaxSIOp::create(b, loc, acc, x).getResult();
          break;
        case ReduceKind::Min:
          r = isFloat ? arith::MinimumFOp::create(b, loc, acc, x).getResult()
                      : arith::MinSIOp::create(b, loc, acc, x).getResult();
          break;
        }
        linalg::YieldOp::create(b, loc, r);
      });
  OnnxValue sum = OnnxValue::tensor(generic.getResult(0), outDims);
  if (kind != ReduceKind::Mean)
    return sum;
  if (!isFloat) {
    n.error() << "ReduceMean of an integer tensor is not supported";
    return failure();
  }
  // mean = sum / count, with the count as a scalar of the element type.
  Value countIdx = indexValue(n.b, n.loc, count);
  Value countI = arith::IndexCastOp::create(n.b, n.loc, n.b.getI64Type(), countIdx);
  Value countF = arith::SIToFPOp::create(n.b, n.loc, et, countI);
  SmallVector<AffineMap> dmaps = {AffineMap::getMultiDimIdentityMap(outDims.size(), ctx),
                                  AffineMap::getMultiDimIdentityMap(outDims.size(), ctx)};
  SmallVector<utils::IteratorType> par(outDims.size(), utils::IteratorType::parallel);
  Value empty2 = tensor::EmptyOp::create(n.b, n.loc, outDims, et);
  auto div = linalg::GenericOp::create(
      n.b, n.loc, TypeRange{empty2.getType()}, ValueRange{sum.value}, ValueRange{empty2}, dmaps,
      par, [&](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, arith::DivFOp::create(b, loc, args[0], countF).getResult());
      });
  return OnnxValue::tensor(div.getResult(0), outDims);
}

//===----------------------------------------------------------------------===//
// Reshape / transpose
//===----------------------------------------------------------------------===//

namespace {
/// Groups `big` dims into `small.size()` consecutive runs whose products are `small`'s dims;
/// dynamic dims must match by identity. Unit dims join the neighbouring group.
std::optional<SmallVector<ReassociationIndices>>
groupDims(ArrayRef<OpFoldResult> small, ArrayRef<OpFoldResult> big) {
  SmallVector<ReassociationIndices> groups;
  size_t j = 0;
  for (size_t i = 0; i < small.size(); ++i) {
    ReassociationIndices g;
    std::optional<int64_t> target = getConstantIntValue(small[i]);
    if (!target) {
      // A dynamic dim: unit dims, then the identical dim.
      while (j < big.size() && getConstantIntValue(big[j]) == 1)
        g.push_back(j++);
      if (j == big.size() || !sameDim(big[j], small[i]))
        return std::nullopt;
      g.push_back(j++);
    } else {
      int64_t prod = 1;
      while (j < big.size()) {
        std::optional<int64_t> c = getConstantIntValue(big[j]);
        if (!c)
          break;
        if (prod * *c > *target && !(*c == 1))
          break;
        if (prod == *target && *c != 1)
          break;
        prod *= *c;
        g.push_back(j++);
        if (prod == *target && (j == big.size() || getConstantIntValue(big[j]) != 1))
          break;
      }
      if (prod != *target || g.empty())
        return std::nullopt;
    }
    groups.push_back(g);
  }
  // Trailing unit dims join the last group.
  while (j < big.size() && getConstantIntValue(big[j]) == 1 && !groups.empty())
    groups.back().push_back(j++);
  if (j != big.size())
    return std::nullopt;
  return groups;
}
} // namespace

FailureOr<OnnxValue> onnx_import::emitReshape(NodeContext &n, OnnxValue input,
                                              ArrayRef<OpFoldResult> dims) {
  Value v = n.importer.materialize(input, n.loc);
  SmallVector<OpFoldResult> inDims = n.importer.dimsOf(input, n.loc);
  Type et = cast<ShapedType>(v.getType()).getElementType();
  RankedTensorType outType = tensorType(dims, et);
  if (inDims.size() == dims.size() &&
      llvm::all_of(llvm::zip(inDims, dims),
                   [](auto p) { return sameDim(std::get<0>(p), std::get<1>(p)); }))
    return input;
  if (dims.size() >= inDims.size() && !inDims.empty()) {
    if (auto groups = groupDims(inDims, dims)) {
      Value r = tensor::ExpandShapeOp::create(n.b, n.loc, outType, v, *groups, dims);
      return OnnxValue::tensor(r, dims);
    }
  }
  if (dims.size() <= inDims.size() && !dims.empty()) {
    if (auto groups = groupDims(dims, inDims)) {
      Value r = tensor::CollapseShapeOp::create(n.b, n.loc, outType, v, *groups);
      return OnnxValue::tensor(r, dims);
    }
  }
  // General case: a run-time reshape through a shape tensor.
  SmallVector<Value> elems;
  for (OpFoldResult d : dims)
    elems.push_back(indexValue(n.b, n.loc, d));
  Value shape = tensor::FromElementsOp::create(
      n.b, n.loc, RankedTensorType::get({(int64_t)elems.size()}, n.b.getIndexType()), elems);
  Value r = tensor::ReshapeOp::create(n.b, n.loc, outType, v, shape);
  return OnnxValue::tensor(r, dims);
}

OnnxValue onnx_import::emitTranspose(NodeContext &n, OnnxValue input, ArrayRef<int64_t> perm) {
  Value v = n.importer.materialize(input, n.loc);
  SmallVector<OpFoldResult> inDims = n.importer.dimsOf(input, n.loc);
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return input;
  SmallVector<OpFoldResult> outDims;
  for (int64_t p : perm)
    outDims.push_back(inDims[p]);
  Type et = cast<ShapedType>(v.getType()).getElementType();
  Value init = tensor::EmptyOp::create(n.b, n.loc, outDims, et);
  auto t = linalg::TransposeOp::create(n.b, n.loc, v, init, perm);
  return OnnxValue::tensor(t.getResult()[0], outDims);
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

FailureOr<OnnxValue> onnx_import::emitMatMul(NodeContext &n, OnnxValue a, OnnxValue bv) {
  Value av = n.importer.materialize(a, n.loc), bvv = n.importer.materialize(bv, n.loc);
  SmallVector<OpFoldResult> ad = n.importer.dimsOf(a, n.loc), bd = n.importer.dimsOf(bv, n.loc);
  Type et = cast<ShapedType>(av.getType()).getElementType();
  if (et != cast<ShapedType>(bvv.getType()).getElementType()) {
    n.error() << "operand element types differ";
    return failure();
  }
  if (ad.size() < 2 || bd.size() < 2) {
    n.error() << "rank-1 MatMul operands are not supported";
    return failure();
  }
  if (!sameDim(ad.back(), bd[bd.size() - 2])) {
    std::optional<int64_t> ka = getConstantIntValue(ad.back()), kb = getConstantIntValue(bd[bd.size() - 2]);
    if (ka && kb) {
      n.error() << "contraction sizes differ: " << *ka << " and " << *kb;
      return failure();
    }
    Value eq = arith::CmpIOp::create(n.b, n.loc, arith::CmpIPredicate::eq,
                                     indexValue(n.b, n.loc, ad.back()),
                                     indexValue(n.b, n.loc, bd[bd.size() - 2]));
    cf::AssertOp::create(n.b, n.loc, eq,
                         ("ONNX node '" + n.name() + "' (MatMul): contraction sizes differ").str());
  }
  SmallVector<SmallVector<OpFoldResult>> batchShapes = {
      SmallVector<OpFoldResult>(ad.begin(), ad.end() - 2),
      SmallVector<OpFoldResult>(bd.begin(), bd.end() - 2)};
  FailureOr<SmallVector<OpFoldResult>> batch = broadcastDims(n, batchShapes);
  if (failed(batch))
    return failure();
  int64_t nb = batch->size();
  // Loops: batch..., m, n, k.
  MLIRContext *ctx = n.b.getContext();
  auto operandMap = [&](ArrayRef<OpFoldResult> dims, bool isA) {
    SmallVector<OpFoldResult> bdims(dims.begin(), dims.end() - 2);
    AffineMap bm = broadcastMap(ctx, bdims, *batch);
    SmallVector<AffineExpr> exprs;
    for (AffineExpr e : bm.getResults())
      exprs.push_back(e);
    AffineExpr m = getAffineDimExpr(nb, ctx), nn = getAffineDimExpr(nb + 1, ctx),
               k = getAffineDimExpr(nb + 2, ctx);
    if (isA) {
      exprs.push_back(m);
      exprs.push_back(k);
    } else {
      exprs.push_back(k);
      exprs.push_back(nn);
    }
    return AffineMap::get(nb + 3, 0, exprs, ctx);
  };
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < nb + 2; ++i)
    outExprs.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineMap> maps = {operandMap(ad, true), operandMap(bd, false),
                                 AffineMap::get(nb + 3, 0, outExprs, ctx)};
  SmallVector<OpFoldResult> outDims(*batch);
  outDims.push_back(ad[ad.size() - 2]);
  outDims.push_back(bd.back());
  SmallVector<utils::IteratorType> iters(nb + 2, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  Value empty = tensor::EmptyOp::create(n.b, n.loc, outDims, et);
  Value init =
      linalg::FillOp::create(n.b, n.loc, scalarConst(n.b, n.loc, et, 0.0), empty).getResult(0);
  bool isFloat = isa<FloatType>(et);
  auto generic = linalg::GenericOp::create(
      n.b, n.loc, TypeRange{init.getType()}, ValueRange{av, bvv}, ValueRange{init}, maps, iters,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value r = isFloat ? arith::AddFOp::create(
                                b, loc, args[2], arith::MulFOp::create(b, loc, args[0], args[1]))
                                .getResult()
                          : arith::AddIOp::create(
                                b, loc, args[2], arith::MulIOp::create(b, loc, args[0], args[1]))
                                .getResult();
        linalg::YieldOp::create(b, loc, r);
      });
  return OnnxValue::tensor(generic.getResult(0), outDims);
}
