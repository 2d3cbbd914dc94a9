//===- Quant.cpp - lowering of INT8 quantisation to linalg ----------------===//
//
// quantize:   q = clamp(roundeven(x / scale) + zero_point, -128, 127), in f32, one generic.
// dequantize: x = (q - zero_point) * scale, in f32, rounded to the result type, one generic.
// Scales and zero points are rank 0 or broadcast the NumPy way at the data's rank: a static 1
// reads index 0 through the indexing map; a dynamic extent that may be 1 at run time is read with
// tensor.extract at `size == 1 ? 0 : i`.
//
// qlinear: acc[..., n] = Σ_k (extsi(x) - extsi(x_zp)) * extsi(w[n, k]) in i32 (one contraction
// generic), then one epilogue generic: y = sitofp(acc) * x_scale * w_scale[n] + bias[n] in f32,
// rounded to the float result, or requantised to i8 with out_scale. A scalar-correct form; the
// contraction is tagged `decoda.qlinear_acc` for decoda-cpu-int8-codegen (AVX-512 VNNI).
//
// NaN inputs (unspecified by the ops) quantise to -128: the clamp uses maxnumf/minnumf, so no
// NaN ever reaches fptosi.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

#include "Utils.h"

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::lowering;

namespace {
/// clamp(v, -128, 127) of an f32 that holds an integer value, as i8 (NaN gives -128).
Value clampToI8(OpBuilder &b, Location loc, Value v) {
  v = arith::MaxNumFOp::create(b, loc, v, f32Const(b, loc, -128.0));
  v = arith::MinNumFOp::create(b, loc, v, f32Const(b, loc, 127.0));
  return arith::FPToSIOp::create(b, loc, b.getI8Type(), v);
}

/// A scale or zero point that broadcasts against data of rank `rank`, read inside a generic over
/// the data's iteration space.
struct BroadcastParam {
  Value tensor;
  bool viaMap = true;          // read through an indexing map (no dynamic extents)
  AffineMap map;               // when viaMap
  SmallVector<Value> isOne;    // per dim, for dynamic extents: i1 "extent is 1" (else null)

  static BroadcastParam get(OpBuilder &b, Location loc, Value param, int64_t rank) {
    BroadcastParam p;
    p.tensor = param;
    if (!param)
      return p;
    auto t = cast<RankedTensorType>(param.getType());
    MLIRContext *ctx = b.getContext();
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < t.getRank(); ++i)
      exprs.push_back(t.getDimSize(i) == 1 ? getAffineConstantExpr(0, ctx)
                                           : getAffineDimExpr(i, ctx));
    p.map = AffineMap::get(rank, 0, exprs, ctx);
    if (!t.hasStaticShape()) {
      p.viaMap = false;
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      for (int64_t i = 0; i < t.getRank(); ++i) {
        if (!t.isDynamicDim(i)) {
          p.isOne.push_back(Value());
          continue;
        }
        Value dim = tensor::DimOp::create(b, loc, param, i);
        p.isOne.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, dim, one));
      }
    }
    return p;
  }

  /// Adds the operand and its map when read through a map.
  void addInput(SmallVectorImpl<Value> &ins, SmallVectorImpl<AffineMap> &maps) const {
    if (tensor && viaMap) {
      ins.push_back(tensor);
      maps.push_back(map);
    }
  }

  /// The element at the current iteration point; `next` indexes the block arguments.
  Value read(OpBuilder &b, Location loc, ValueRange args, unsigned &next) const {
    if (viaMap)
      return args[next++];
    auto t = cast<RankedTensorType>(tensor.getType());
    SmallVector<Value> idx;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    for (int64_t i = 0; i < t.getRank(); ++i) {
      if (t.getDimSize(i) == 1) {
        idx.push_back(zero);
        continue;
      }
      Value iv = linalg::IndexOp::create(b, loc, i);
      if (isOne[i])
        iv = arith::SelectOp::create(b, loc, isOne[i], zero, iv);
      idx.push_back(iv);
    }
    return tensor::ExtractOp::create(b, loc, tensor, idx);
  }
};

struct LowerQuantize : public OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    auto scale = BroadcastParam::get(rewriter, loc, op.getScale(), rank);
    auto zp = BroadcastParam::get(rewriter, loc, op.getZeroPoint(), rank);
    SmallVector<Value> ins{x};
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank)};
    scale.addInput(ins, maps);
    zp.addInput(ins, maps);
    Type f32 = rewriter.getF32Type();
    Value q = buildMap(rewriter, loc, ins, maps, emptyLike(rewriter, loc, x, rewriter.getI8Type()),
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         unsigned next = 1;
                         Value s = scale.read(b, l, args, next);
                         Value v = arith::DivFOp::create(b, l, toF32(b, l, args[0]), s);
                         v = math::RoundEvenOp::create(b, l, v);
                         if (zp.tensor)
                           v = arith::AddFOp::create(
                               b, l, v, arith::SIToFPOp::create(b, l, f32, zp.read(b, l, args, next)));
                         return clampToI8(b, l, v);
                       });
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, q, op.getResult().getType()));
    return success();
  }
};

struct LowerDequantize : public OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value q = op.getInput();
    RankedTensorType type = op.getResult().getType();
    int64_t rank = type.getRank();
    auto scale = BroadcastParam::get(rewriter, loc, op.getScale(), rank);
    auto zp = BroadcastParam::get(rewriter, loc, op.getZeroPoint(), rank);
    SmallVector<Value> ins{q};
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank)};
    scale.addInput(ins, maps);
    zp.addInput(ins, maps);
    Type f32 = rewriter.getF32Type();
    Value x = buildMap(rewriter, loc, ins, maps,
                       emptyLike(rewriter, loc, q, type.getElementType()),
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         unsigned next = 1;
                         Value s = scale.read(b, l, args, next);
                         Value v = arith::SIToFPOp::create(b, l, f32, args[0]);
                         if (zp.tensor)
                           v = arith::SubFOp::create(
                               b, l, v, arith::SIToFPOp::create(b, l, f32, zp.read(b, l, args, next)));
                         return fromF32(b, l, arith::MulFOp::create(b, l, v, s), type.getElementType());
                       });
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, x, type));
    return success();
  }
};

/// dequantize_blocks: one generic over w [N, K] reading byte k · bits / 8 of the codes' row,
/// the block's scale and zero point (n, k / block_size), shifting the byte right by (k mod (8 /
/// bits)) · bits (linalg.index of k) and masking; (code - zp) · scale in f32, rounded once.
/// Tagged kDequantizeBlocksAttr.
struct LowerDequantizeBlocks : public OpRewritePattern<DequantizeBlocksOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeBlocksOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t bits = op.getBits(), bs = op.getBlockSize(), per = 8 / bits;
    RankedTensorType type = op.getResult().getType();
    Type et = type.getElementType(), f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    AffineExpr n = getAffineDimExpr(0, ctx), k = getAffineDimExpr(1, ctx);
    Value codes = op.getCodes();
    if (per == 1 && cast<RankedTensorType>(codes.getType()).getDimSize(1) != type.getDimSize(1)) {
      // 8 bits with a padded last block: the codes' first K columns (the identity map would
      // make the padded width the loop's extent).
      SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0)),
          sizes{rewriter.getIndexAttr(type.getDimSize(0)), rewriter.getIndexAttr(type.getDimSize(1))},
          strides(2, rewriter.getIndexAttr(1));
      codes = tensor::ExtractSliceOp::create(rewriter, loc, codes, offsets, sizes, strides);
    }
    SmallVector<Value> ins{codes, op.getScales()};
    SmallVector<AffineMap> maps{AffineMap::get(2, 0, {n, k.floorDiv(per)}, ctx),
                                AffineMap::get(2, 0, {n, k.floorDiv(bs)}, ctx)};
    if (Value zp = op.getZeroPoints()) {
      ins.push_back(zp);
      maps.push_back(maps.back());
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(2, ctx));
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), et);
    bool hasZp = static_cast<bool>(op.getZeroPoints());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ins, ValueRange{init}, maps,
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto ic = [&](int64_t x) {
            return arith::ConstantOp::create(b, l, b.getI32IntegerAttr(static_cast<int32_t>(x)));
          };
          // One op a statement: the order of creation is the IR's, whatever order the host
          // compiler evaluates call arguments in.
          Value byte = arith::ExtUIOp::create(b, l, i32, args[0]);
          if (bits < 8) {
            Value k = linalg::IndexOp::create(b, l, 1);
            Value kk = arith::IndexCastUIOp::create(b, l, i32, k);
            Value perC = ic(per), bitsC = ic(bits), maskC = ic((1 << bits) - 1);
            Value within = arith::RemUIOp::create(b, l, kk, perC);
            Value shift = arith::MulIOp::create(b, l, within, bitsC);
            Value shifted = arith::ShRUIOp::create(b, l, byte, shift);
            byte = arith::AndIOp::create(b, l, shifted, maskC);
          }
          Value code = arith::UIToFPOp::create(b, l, f32, byte);
          auto widen = [&](Value x) -> Value {
            return et.isF32() ? x : arith::ExtFOp::create(b, l, f32, x).getResult();
          };
          Value zp = hasZp ? widen(args[2])
                           : arith::ConstantOp::create(
                                 b, l, b.getF32FloatAttr(static_cast<float>(1 << (bits - 1))))
                                 .getResult();
          Value scale = widen(args[1]);
          Value centered = arith::SubFOp::create(b, l, code, zp);
          Value w = arith::MulFOp::create(b, l, centered, scale);
          linalg::YieldOp::create(b, l, fromF32(b, l, w, et));
        });
    generic->setAttr(kDequantizeBlocksAttr,
                     rewriter.getDictionaryAttr(
                         {rewriter.getNamedAttr("bits", rewriter.getI64IntegerAttr(bits)),
                          rewriter.getNamedAttr("block_size", rewriter.getI64IntegerAttr(bs))}));
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct LowerQLinear : public OpRewritePattern<QLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QLinearOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = op.getInput(), w = op.getWeight();
    RankedTensorType type = op.getResult().getType();
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();

    // Maps over (lead..., n) [+ k]: a per-token parameter [lead..., 1] reads (lead..., 0); a
    // rank-0 parameter reads ().
    auto perToken = [&](Value p, unsigned numDims) {
      if (cast<RankedTensorType>(p.getType()).getRank() == 0)
        return AffineMap::get(numDims, 0, {}, ctx);
      SmallVector<AffineExpr> e;
      for (int64_t i = 0; i + 1 < rank; ++i)
        e.push_back(getAffineDimExpr(i, ctx));
      e.push_back(getAffineConstantExpr(0, ctx));
      return AffineMap::get(numDims, 0, e, ctx);
    };

    // acc[lead..., n] = Σ_k (x - x_zp) * w[n, k] in i32; iteration space (lead..., n, k).
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, x);
    sizes.back() = tensor::getMixedSize(rewriter, loc, w, 0);
    Value acc;
    {
      unsigned numDims = rank + 1;
      SmallVector<AffineExpr> lead;
      for (int64_t i = 0; i + 1 < rank; ++i)
        lead.push_back(getAffineDimExpr(i, ctx));
      AffineExpr n = getAffineDimExpr(rank - 1, ctx), k = getAffineDimExpr(rank, ctx);
      SmallVector<AffineExpr> xe(lead), oe(lead);
      xe.push_back(k);
      oe.push_back(n);
      SmallVector<Value> ins{x, w};
      SmallVector<AffineMap> maps{AffineMap::get(numDims, 0, xe, ctx),
                                  AffineMap::get(numDims, 0, {n, k}, ctx)};
      Value zp = op.getXZeroPoint();
      if (zp) {
        ins.push_back(zp);
        maps.push_back(perToken(zp, numDims));
      }
      maps.push_back(AffineMap::get(numDims, 0, oe, ctx));
      Value init = emptyTensor(rewriter, loc, sizes, i32);
      Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(0));
      init = linalg::FillOp::create(rewriter, loc, zero, init).getResult(0);
      SmallVector<utils::IteratorType> iters(numDims, utils::IteratorType::parallel);
      iters.back() = utils::IteratorType::reduction;
      auto gen = linalg::GenericOp::create(
                rewriter, loc, init.getType(), ins, ValueRange{init}, maps, iters,
                [&](OpBuilder &b, Location l, ValueRange args) {
                  Value xv = arith::ExtSIOp::create(b, l, i32, args[0]);
                  if (zp)
                    xv = arith::SubIOp::create(b, l, xv,
                                               arith::ExtSIOp::create(b, l, i32, args[2]));
                  Value wv = arith::ExtSIOp::create(b, l, i32, args[1]);
                  Value p = arith::MulIOp::create(b, l, xv, wv);
                  linalg::YieldOp::create(b, l,
                                          ValueRange{arith::AddIOp::create(b, l, args.back(), p)});
                });
      // decoda-cpu-int8-codegen recognises this contraction by the tag (and its maps).
      gen->setAttr("decoda.qlinear_acc", rewriter.getUnitAttr());
      acc = gen.getResult(0);
    }

    // Epilogue over (lead..., n).
    Value xs = op.getXScale(), ws = op.getWScale(), bias = op.getBias(), os = op.getOutScale();
    bool wsPerChannel = cast<RankedTensorType>(ws.getType()).getRank() == 1;
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap scalar = AffineMap::get(rank, 0, {}, ctx);
    SmallVector<Value> ins{acc, xs, ws};
    SmallVector<AffineMap> maps{id, perToken(xs, rank),
                                wsPerChannel ? lastDimMap(rewriter, rank) : scalar};
    if (bias) {
      ins.push_back(bias);
      maps.push_back(lastDimMap(rewriter, rank));
    }
    if (os) {
      ins.push_back(os);
      maps.push_back(scalar);
    }
    Type elem = type.getElementType();
    Value y = buildMap(rewriter, loc, ins, maps, emptyTensor(rewriter, loc, sizes, elem),
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         Value v = arith::SIToFPOp::create(b, l, f32, args[0]);
                         v = arith::MulFOp::create(b, l, v, args[1]);
                         v = arith::MulFOp::create(b, l, v, args[2]);
                         unsigned next = 3;
                         if (bias)
                           v = arith::AddFOp::create(b, l, v, toF32(b, l, args[next++]));
                         if (!os)
                           return fromF32(b, l, v, elem);
                         v = arith::DivFOp::create(b, l, v, args[next++]);
                         return clampToI8(b, l, math::RoundEvenOp::create(b, l, v));
                       });
    // decoda-cpu-int8-codegen computes this epilogue in its register tiles when it can.
    if (auto epilogue = y.getDefiningOp<linalg::GenericOp>())
      epilogue->setAttr("decoda.qlinear_epilogue", rewriter.getUnitAttr());
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, y, type));
    return success();
  }
};
} // namespace

void mlir::decoda::populateQuantLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerQuantize, LowerDequantize, LowerDequantizeBlocks, LowerQLinear>(patterns.getContext());
}
