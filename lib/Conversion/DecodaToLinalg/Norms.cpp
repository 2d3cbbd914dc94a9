//===- Norms.cpp - lowering of decoda norms to linalg ---------------------===//
//
// rms_norm, layer_norm and the fused add_* forms: row statistics in f32 (one reduction for
// RMSNorm, two for LayerNorm: mean, then the centred variance), then one elementwise pass that
// normalises, applies the affine parameters and rounds to the storage type. With gpu-kernel-calls
// each norm is a call of a tagged private function holding that form (gpuNormCall), for
// decoda-gpu-row-norm.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

#include "Utils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::lowering;

namespace {
/// Maps of a rank-`rank` iteration space onto (all dims) and (all but the last).
std::pair<AffineMap, AffineMap> rowMaps(OpBuilder &b, int64_t rank) {
  AffineMap id = b.getMultiDimIdentityMap(rank);
  return {id, id.dropResult(rank - 1)};
}

/// The last extent of `x` as an f32 scalar.
Value featureCount(OpBuilder &b, Location loc, Value x) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  Value d = tensor::DimOp::create(b, loc, x, rank - 1); // folds to a constant when static
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), d);
  return arith::SIToFPOp::create(b, loc, b.getF32Type(), i64);
}

/// Row reduction over the last axis: acc = sum_d f(x[..., d], row[...]) in f32. `row` is an
/// optional per-row f32 tensor (the mean, for the variance pass).
Value reduceRows(OpBuilder &b, Location loc, Value x, Value row,
                 function_ref<Value(OpBuilder &, Location, Value, Value)> term) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  auto [id, rowMap] = rowMaps(b, rank);
  SmallVector<OpFoldResult> sizes = getDims(b, loc, x);
  sizes.pop_back();
  Value acc = filledTensor(b, loc, sizes, b.getF32Type(), 0.0);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters.back() = utils::IteratorType::reduction;
  SmallVector<Value> ins{x};
  SmallVector<AffineMap> maps{id};
  if (row) {
    ins.push_back(row);
    maps.push_back(rowMap);
  }
  maps.push_back(rowMap);
  return linalg::GenericOp::create(
             b, loc, acc.getType(), ins, ValueRange{acc}, maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value v = toF32(nb, nl, args[0]);
               Value t = term(nb, nl, v, row ? args[1] : Value());
               linalg::YieldOp::create(
                   nb, nl, ValueRange{arith::AddFOp::create(nb, nl, args.back(), t)});
             })
      .getResult(0);
}

/// residual + scale * branch, rounded to the storage type (the new residual stream).
Value residualSum(OpBuilder &b, Location loc, Value residual, Value branch, double scale) {
  auto type = cast<RankedTensorType>(residual.getType());
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> par(type.getRank(), utils::IteratorType::parallel);
  Value out = emptyLike(b, loc, residual);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{residual, branch}, ValueRange{out},
             ArrayRef<AffineMap>{id, id, id}, par,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value r = toF32(nb, nl, args[0]), x = toF32(nb, nl, args[1]);
               if (scale != 1.0)
                 x = arith::MulFOp::create(nb, nl, x, f32Const(nb, nl, scale));
               Value s = arith::AddFOp::create(nb, nl, r, x);
               linalg::YieldOp::create(nb, nl,
                                       ValueRange{fromF32(nb, nl, s, type.getElementType())});
             })
      .getResult(0);
}

/// The norm of `x` over its last axis: (x - mean) * rstd * (w + offset) + bias, where `mean` is
/// null for RMSNorm. rstd = 1 / sqrt(stat / D + eps) with stat the sum of squares (centred for
/// LayerNorm).
Value buildNorm(OpBuilder &b, Location loc, Value x, Value weight, Value bias, double eps,
                double weightOffset, bool centered) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Value d = featureCount(b, loc, x);
  Value mean;
  if (centered) {
    Value sum = reduceRows(b, loc, x, {}, [](OpBuilder &, Location, Value v, Value) { return v; });
    AffineMap rowId = b.getMultiDimIdentityMap(rank - 1);
    SmallVector<utils::IteratorType> par(rank - 1, utils::IteratorType::parallel);
    mean = linalg::GenericOp::create(
               b, loc, sum.getType(), ValueRange{}, ValueRange{sum},
               ArrayRef<AffineMap>{rowId}, par,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 linalg::YieldOp::create(nb, nl,
                                         ValueRange{arith::DivFOp::create(nb, nl, args[0], d)});
               })
               .getResult(0);
  }
  Value sumSq = reduceRows(b, loc, x, mean, [](OpBuilder &nb, Location nl, Value v, Value m) {
    Value c = m ? arith::SubFOp::create(nb, nl, v, m).getResult() : v;
    return arith::MulFOp::create(nb, nl, c, c).getResult();
  });

  auto [id, rowMap] = rowMaps(b, rank);
  AffineMap featMap = AffineMap::get(rank, 0, b.getAffineDimExpr(rank - 1));
  SmallVector<Value> ins{x, sumSq, weight};
  SmallVector<AffineMap> maps{id, rowMap, featMap};
  if (mean) {
    ins.push_back(mean);
    maps.push_back(rowMap);
  }
  if (bias) {
    ins.push_back(bias);
    maps.push_back(featMap);
  }
  maps.push_back(id);
  Value out = emptyLike(b, loc, x);
  SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, ins, ValueRange{out}, maps, par,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value v = toF32(nb, nl, args[0]);
               unsigned next = 3;
               if (mean)
                 v = arith::SubFOp::create(nb, nl, v, args[next++]);
               Value var = arith::DivFOp::create(nb, nl, args[1], d);
               Value rstd = math::RsqrtOp::create(
                   nb, nl, arith::AddFOp::create(nb, nl, var, f32Const(nb, nl, eps)));
               Value w = toF32(nb, nl, args[2]);
               if (weightOffset != 0.0)
                 w = arith::AddFOp::create(nb, nl, w, f32Const(nb, nl, weightOffset));
               Value y = arith::MulFOp::create(nb, nl, arith::MulFOp::create(nb, nl, v, rstd), w);
               if (bias)
                 y = arith::AddFOp::create(nb, nl, y, toF32(nb, nl, args[next++]));
               linalg::YieldOp::create(nb, nl,
                                       ValueRange{fromF32(nb, nl, y, type.getElementType())});
             })
      .getResult(0);
}

/// What a norm op computes, for buildNormOp and gpuNormCall.
struct NormSpec {
  Value input, residual, branch; // input, or residual + scale * branch
  Value weight, bias;
  double eps = 0, weightOffset = 0, scale = 1;
  bool centered = false;
};

/// The results of the norm: (norm) or, for the add_ forms, (sum, norm).
SmallVector<Value> buildNormOp(OpBuilder &b, Location loc, const NormSpec &n) {
  if (!n.residual)
    return {buildNorm(b, loc, n.input, n.weight, n.bias, n.eps, n.weightOffset, n.centered)};
  Value sum = residualSum(b, loc, n.residual, n.branch, n.scale);
  return {sum, buildNorm(b, loc, sum, n.weight, n.bias, n.eps, n.weightOffset, n.centered)};
}

/// The norm as a call of a new private function `__decoda_gpu_norm[_N]` tagged kGPUNormAttr
/// whose body is buildNormOp on its arguments ((input | residual, branch), weight [, bias]):
/// decoda-gpu-row-norm replaces the body by one kernel after bufferization.
SmallVector<Value> gpuNormCall(PatternRewriter &rewriter, Operation *op, const NormSpec &n) {
  Location loc = op->getLoc();
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<Value> args;
  if (n.residual)
    args.append({n.residual, n.branch});
  else
    args.push_back(n.input);
  args.push_back(n.weight);
  if (n.bias)
    args.push_back(n.bias);
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (Value x : args) {
    argTypes.push_back(x.getType());
    argLocs.push_back(loc);
  }
  Type rowType = args[0].getType();
  SmallVector<Type> results(n.residual ? 2 : 1, rowType);

  Builder b(ctx);
  SmallVector<NamedAttribute> config{
      b.getNamedAttr("op", b.getStringAttr(op->getName().getStringRef())),
      b.getNamedAttr("centered", b.getBoolAttr(n.centered)),
      b.getNamedAttr("add", b.getBoolAttr(n.residual != nullptr)),
      b.getNamedAttr("bias", b.getBoolAttr(n.bias != nullptr)),
      b.getNamedAttr("eps", b.getF64FloatAttr(n.eps)),
      b.getNamedAttr("weight_offset", b.getF64FloatAttr(n.weightOffset)),
      b.getNamedAttr("scale", b.getF64FloatAttr(n.scale))};
  auto module = op->getParentOfType<ModuleOp>();
  std::string name = "__decoda_gpu_norm";
  for (int i = 1; module.lookupSymbol(name); ++i)
    name = "__decoda_gpu_norm_" + std::to_string(i);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op->getParentOfType<func::FuncOp>());
    auto fn = func::FuncOp::create(rewriter, loc, name, FunctionType::get(ctx, argTypes, results));
    fn.setPrivate();
    fn->setAttr(kGPUNormAttr, b.getDictionaryAttr(config));
    Block *entry = rewriter.createBlock(&fn.getBody(), {}, argTypes, argLocs);
    rewriter.setInsertionPointToStart(entry);
    NormSpec inner = n;
    unsigned next = 0;
    if (n.residual) {
      inner.residual = entry->getArgument(next++);
      inner.branch = entry->getArgument(next++);
    } else {
      inner.input = entry->getArgument(next++);
    }
    inner.weight = entry->getArgument(next++);
    if (n.bias)
      inner.bias = entry->getArgument(next++);
    func::ReturnOp::create(rewriter, loc, buildNormOp(rewriter, loc, inner));
    rewriter.setInsertionPoint(op);
    auto call = func::CallOp::create(rewriter, loc, fn, args);
    return SmallVector<Value>(call.getResults().begin(), call.getResults().end());
  }
}

/// The pattern of one norm op: `spec` reads its operands and attributes.
template <typename OpTy>
struct LowerNorm : public OpRewritePattern<OpTy> {
  LowerNorm(MLIRContext *ctx, bool gpuCalls) : OpRewritePattern<OpTy>(ctx), gpuCalls(gpuCalls) {}
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    NormSpec n = spec(op);
    rewriter.replaceOp(op, gpuCalls ? gpuNormCall(rewriter, op, n)
                                    : buildNormOp(rewriter, op.getLoc(), n));
    return success();
  }
  static NormSpec spec(RMSNormOp op) {
    NormSpec n;
    n.input = op.getInput();
    n.weight = op.getWeight();
    n.eps = op.getEpsValue();
    n.weightOffset = op.getWeightOffset().convertToDouble();
    return n;
  }
  static NormSpec spec(LayerNormOp op) {
    NormSpec n;
    n.input = op.getInput();
    n.weight = op.getWeight();
    n.bias = op.getBias();
    n.eps = op.getEpsValue();
    n.centered = true;
    return n;
  }
  static NormSpec spec(AddRMSNormOp op) {
    NormSpec n;
    n.residual = op.getResidual();
    n.branch = op.getBranch();
    n.weight = op.getWeight();
    n.eps = op.getEpsValue();
    n.weightOffset = op.getWeightOffset().convertToDouble();
    n.scale = op.getScale().convertToDouble();
    return n;
  }
  static NormSpec spec(AddLayerNormOp op) {
    NormSpec n;
    n.residual = op.getResidual();
    n.branch = op.getBranch();
    n.weight = op.getWeight();
    n.bias = op.getBias();
    n.eps = op.getEpsValue();
    n.scale = op.getScale().convertToDouble();
    n.centered = true;
    return n;
  }
  bool gpuCalls;
};
} // namespace

void mlir::decoda::populateNormLoweringPatterns(RewritePatternSet &patterns, bool gpuCalls) {
  patterns.add<LowerNorm<RMSNormOp>, LowerNorm<LayerNormOp>, LowerNorm<AddRMSNormOp>,
               LowerNorm<AddLayerNormOp>>(patterns.getContext(), gpuCalls);
}
