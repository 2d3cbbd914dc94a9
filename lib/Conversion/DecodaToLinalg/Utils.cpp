//===- Utils.cpp - helpers shared by the decoda lowering patterns ---------===//

#include "Utils.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::lowering;

Value lowering::toF32(OpBuilder &b, Location loc, Value v) {
  Type f32 = b.getF32Type();
  if (v.getType() == f32)
    return v;
  return arith::ExtFOp::create(b, loc, f32, v);
}

Value lowering::fromF32(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return arith::TruncFOp::create(b, loc, type, v);
}

Value lowering::f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(v)));
}

SmallVector<OpFoldResult> lowering::getDims(OpBuilder &b, Location loc, Value tensor) {
  return tensor::getMixedSizes(b, loc, tensor);
}

Value lowering::emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                            Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value lowering::emptyLike(OpBuilder &b, Location loc, Value like, Type elementType) {
  if (!elementType)
    elementType = cast<RankedTensorType>(like.getType()).getElementType();
  return emptyTensor(b, loc, getDims(b, loc, like), elementType);
}

Value lowering::filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                             Type elementType, double value) {
  Value empty = emptyTensor(b, loc, sizes, elementType);
  Value cst = arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, value));
  return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
}

Value lowering::sigmoid(OpBuilder &b, Location loc, Value x) {
  // 1 / (1 + exp(-x)); exp overflows to inf for very negative x, giving 0 as it should.
  Value one = f32Const(b, loc, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
}

Value lowering::silu(OpBuilder &b, Location loc, Value x) {
  return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x));
}

Value lowering::geluErf(OpBuilder &b, Location loc, Value x) {
  // 0.5 x (1 + erf(x / sqrt 2))
  Value half = f32Const(b, loc, 0.5), one = f32Const(b, loc, 1.0);
  Value invSqrt2 = f32Const(b, loc, M_SQRT1_2);
  Value erf = math::ErfOp::create(b, loc, arith::MulFOp::create(b, loc, x, invSqrt2));
  Value t = arith::AddFOp::create(b, loc, one, erf);
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, half, x), t);
}

Value lowering::geluTanh(OpBuilder &b, Location loc, Value x) {
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  Value half = f32Const(b, loc, 0.5), one = f32Const(b, loc, 1.0);
  Value c = f32Const(b, loc, std::sqrt(2.0 / M_PI)), k = f32Const(b, loc, 0.044715);
  Value x3 = arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
  Value inner = arith::AddFOp::create(b, loc, x, arith::MulFOp::create(b, loc, k, x3));
  Value t = math::TanhOp::create(b, loc, arith::MulFOp::create(b, loc, c, inner));
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, half, x),
                               arith::AddFOp::create(b, loc, one, t));
}

Value lowering::softcapScalar(OpBuilder &b, Location loc, Value x, double cap) {
  if (std::isinf(cap))
    return x;
  Value c = f32Const(b, loc, cap), inv = f32Const(b, loc, 1.0 / cap);
  Value t = math::TanhOp::create(b, loc, arith::MulFOp::create(b, loc, x, inv));
  return arith::MulFOp::create(b, loc, c, t);
}

Value lowering::applyActivation(OpBuilder &b, Location loc, Activation act, Value x) {
  switch (act) {
  case Activation::gelu_erf:
    return geluErf(b, loc, x);
  case Activation::gelu_tanh:
    return geluTanh(b, loc, x);
  case Activation::relu:
    return arith::MaximumFOp::create(b, loc, x, f32Const(b, loc, 0.0));
  case Activation::silu:
    return silu(b, loc, x);
  }
  llvm_unreachable("unknown activation");
}

Value lowering::applyGlu(OpBuilder &b, Location loc, GluAttr kind, Value gate, Value up) {
  switch (kind.getKind()) {
  case GluKind::swiglu:
    return arith::MulFOp::create(b, loc, silu(b, loc, gate), up);
  case GluKind::geglu:
    return arith::MulFOp::create(b, loc, geluErf(b, loc, gate), up);
  case GluKind::geglu_tanh:
    return arith::MulFOp::create(b, loc, geluTanh(b, loc, gate), up);
  case GluKind::situ: {
    Value g = arith::MulFOp::create(
        b, loc, softcapScalar(b, loc, gate, kind.getBeta1()->convertToDouble()),
        sigmoid(b, loc, gate));
    return arith::MulFOp::create(b, loc, g,
                                 softcapScalar(b, loc, up, kind.getBeta2()->convertToDouble()));
  }
  case GluKind::clamped_swiglu: {
    double l = kind.getLimit()->convertToDouble();
    if (std::isinf(l))
      return arith::MulFOp::create(b, loc, silu(b, loc, gate), up);
    Value lim = f32Const(b, loc, l), negLim = f32Const(b, loc, -l);
    Value g = arith::MinimumFOp::create(b, loc, gate, lim);
    Value u = arith::MaximumFOp::create(b, loc, arith::MinimumFOp::create(b, loc, up, lim), negLim);
    return arith::MulFOp::create(b, loc, silu(b, loc, g), u);
  }
  }
  llvm_unreachable("unknown GLU kind");
}

Value lowering::buildProjection(OpBuilder &b, Location loc, Value input, Value weight,
                                Value bias, WeightLayout layout, Type resultElementType) {
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t rank = inType.getRank();
  MLIRContext *ctx = b.getContext();

  Value sum = buildProjectionAccumulator(b, loc, input, weight, layout);
  SmallVector<OpFoldResult> outSizes = getDims(b, loc, sum);

  // Epilogue: bias and rounding to the storage type, one elementwise pass.
  Value out = emptyTensor(b, loc, outSizes, resultElementType);
  SmallVector<AffineMap> maps;
  SmallVector<Value> ins{sum};
  AffineMap id = b.getMultiDimIdentityMap(rank);
  maps.push_back(id);
  if (bias) {
    SmallVector<AffineExpr> bExprs;
    if (cast<RankedTensorType>(bias.getType()).getRank() == 2)
      bExprs.push_back(getAffineDimExpr(rank - 2, ctx));
    bExprs.push_back(getAffineDimExpr(rank - 1, ctx));
    maps.push_back(AffineMap::get(rank, 0, bExprs, ctx));
    ins.push_back(bias);
  }
  maps.push_back(id);
  SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, out.getType(), ins, ValueRange{out}, maps, par,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value v = args[0];
               if (bias)
                 v = arith::AddFOp::create(nb, nl, v, toF32(nb, nl, args[1]));
               linalg::YieldOp::create(nb, nl, ValueRange{fromF32(nb, nl, v, resultElementType)});
             })
      .getResult(0);
}

Value lowering::buildMap(OpBuilder &b, Location loc, ValueRange inputs,
                         ArrayRef<AffineMap> inputMaps, Value init,
                         function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  auto type = cast<RankedTensorType>(init.getType());
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, inputs, ValueRange{init}, maps, par,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, ValueRange{body(nb, nl, args)});
             })
      .getResult(0);
}

Value lowering::buildProjectionAccumulator(OpBuilder &b, Location loc, Value input, Value weight,
                                           WeightLayout layout) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  int64_t rank = inType.getRank();
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();

  // Iteration space: the input's leading dims, then n, then k (reduction).
  unsigned numLoops = rank + 1;
  SmallVector<AffineExpr> lead;
  for (int64_t i = 0; i + 1 < rank; ++i)
    lead.push_back(getAffineDimExpr(i, ctx));
  AffineExpr n = getAffineDimExpr(rank - 1, ctx), k = getAffineDimExpr(rank, ctx);
  SmallVector<AffineExpr> xExprs(lead), outExprs(lead);
  xExprs.push_back(k);
  outExprs.push_back(n);
  SmallVector<AffineExpr> wExprs;
  if (wType.getRank() == 3) // per-head weight; the head is dim rank - 2 of the input
    wExprs.push_back(getAffineDimExpr(rank - 2, ctx));
  if (layout == WeightLayout::out_in)
    wExprs.append({n, k});
  else
    wExprs.append({k, n});
  auto xMap = AffineMap::get(numLoops, 0, xExprs, ctx);
  auto wMap = AffineMap::get(numLoops, 0, wExprs, ctx);
  auto outMap = AffineMap::get(numLoops, 0, outExprs, ctx);

  SmallVector<OpFoldResult> outSizes = getDims(b, loc, input);
  int64_t nDim = wType.getRank() - (layout == WeightLayout::out_in ? 2 : 1);
  outSizes.back() = tensor::getMixedSize(b, loc, weight, nDim);
  Value acc = filledTensor(b, loc, outSizes, f32, 0.0);

  SmallVector<utils::IteratorType> iters(numLoops, utils::IteratorType::parallel);
  iters.back() = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             b, loc, acc.getType(), ValueRange{input, weight}, ValueRange{acc},
             ArrayRef<AffineMap>{xMap, wMap, outMap}, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value x = toF32(nb, nl, args[0]);
               Value w = toF32(nb, nl, args[1]);
               Value prod = arith::MulFOp::create(nb, nl, x, w);
               linalg::YieldOp::create(nb, nl,
                                       ValueRange{arith::AddFOp::create(nb, nl, args[2], prod)});
             })
      .getResult(0);
}

AffineMap lowering::lastDimMap(OpBuilder &b, int64_t rank) {
  return AffineMap::get(rank, 0, b.getAffineDimExpr(rank - 1));
}

Value lowering::castIfNeeded(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}
