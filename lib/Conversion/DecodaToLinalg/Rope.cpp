//===- Rope.cpp - lowering of decoda.rope to linalg -----------------------===//
//
// inv_freq (with the context-extension scaling) is computed at compile time by
// computeRopeInvFreq and materialised as an `arith.constant dense<...> : tensor<(r/2)xf32>`;
// YaRN's attention factor is folded into cos/sin. Two generics:
//
//   1. the cos/sin table `[T, r/2]` (or `[B, T, r/2]` for per-batch positions): angle =
//      position * inv_freq[k] in f32, cos(angle) * factor and sin(angle) * factor;
//   2. one generic over `[B, T, H, D]` that, for feature d < rotary_dim, reads its pair partner
//      (half_split: d ± r/2, interleaved: d ^ 1) and the table entry of its pair k with
//      tensor.extract and forms `x cos - partner sin` (first of the pair) or
//      `x cos + partner sin` (second); features d ≥ rotary_dim pass through.
//
// Positions come from the operand ([T] or [B, T], i32/i64) or are the token index t. All
// arithmetic is in f32; dynamic B and T only change the loop bounds.
//
// For the GPU pipeline (gpuTags) the two generics carry kRopeTableAttr / kRopeApplyAttr, which
// decoda-gpu-rope reads to replace the pair by one kernel; the apply's tag records its body's
// floating-point op count, so a rotation that fusion has changed since is left to the generic
// lowering.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"
#include "decoda/Dialect/Decoda/IR/Semantics.h"

#include "Utils.h"

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::lowering;

namespace {
struct LowerRope : public OpRewritePattern<RopeOp> {
  LowerRope(MLIRContext *ctx, bool gpuTags) : OpRewritePattern<RopeOp>(ctx), gpuTags(gpuTags) {}
  LogicalResult matchAndRewrite(RopeOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType type = op.getResult().getType();
    Type elem = type.getElementType(), f32 = rewriter.getF32Type();
    int64_t rotary = op.getRotaryDimOrHeadDim(), half = rotary / 2;
    bool interleaved = op.getLayout() == RopeLayout::interleaved;
    RopeScalingAttr scaling = op.getScalingAttr();

    // inv_freq[k], k < r/2, as an f32 constant; the attention factor as a scalar.
    std::vector<double> invFreq =
        computeRopeInvFreq(op.getTheta().convertToDouble(), rotary, scaling);
    SmallVector<float> invFreqF32(invFreq.begin(), invFreq.end());
    auto freqType = RankedTensorType::get({half}, f32);
    Value freqs = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(freqType, ArrayRef<float>(invFreqF32)));
    double attnFactor = computeRopeAttentionFactor(scaling);

    // 1. cos/sin table over [T, r/2] or [B, T, r/2].
    Value positions = op.getPositions();
    bool perBatch = positions && cast<RankedTensorType>(positions.getType()).getRank() == 2;
    SmallVector<OpFoldResult> tableSizes;
    if (perBatch)
      tableSizes.push_back(tensor::getMixedSize(rewriter, loc, x, 0));
    tableSizes.push_back(tensor::getMixedSize(rewriter, loc, x, 1));
    tableSizes.push_back(rewriter.getIndexAttr(half));
    int64_t tableRank = tableSizes.size();
    AffineMap tableId = rewriter.getMultiDimIdentityMap(tableRank);
    SmallVector<Value> tableIns{freqs};
    SmallVector<AffineMap> tableMaps{lastDimMap(rewriter, tableRank)};
    if (positions) {
      tableIns.push_back(positions);
      tableMaps.push_back(tableId.dropResult(tableRank - 1));
    }
    tableMaps.append({tableId, tableId});
    Value cosInit = emptyTensor(rewriter, loc, tableSizes, f32);
    Value sinInit = emptyTensor(rewriter, loc, tableSizes, f32);
    SmallVector<utils::IteratorType> tablePar(tableRank, utils::IteratorType::parallel);
    auto table = linalg::GenericOp::create(
        rewriter, loc, TypeRange{cosInit.getType(), sinInit.getType()}, tableIns,
        ValueRange{cosInit, sinInit}, tableMaps, tablePar,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value pos;
          if (positions) {
            pos = arith::SIToFPOp::create(b, l, f32, args[1]);
          } else {
            Value t = linalg::IndexOp::create(b, l, tableRank - 2);
            pos = arith::SIToFPOp::create(
                b, l, f32, arith::IndexCastOp::create(b, l, b.getI64Type(), t));
          }
          Value angle = arith::MulFOp::create(b, l, pos, args[0]);
          Value c = math::CosOp::create(b, l, angle), s = math::SinOp::create(b, l, angle);
          if (attnFactor != 1.0) {
            Value af = f32Const(b, l, attnFactor);
            c = arith::MulFOp::create(b, l, c, af);
            s = arith::MulFOp::create(b, l, s, af);
          }
          linalg::YieldOp::create(b, l, ValueRange{c, s});
        });
    Value cosTable = table.getResult(0), sinTable = table.getResult(1);

    // 2. The rotation over [B, T, H, D].
    AffineMap id = rewriter.getMultiDimIdentityMap(4);
    Value out = buildMap(
        rewriter, loc, ValueRange{x}, {id}, emptyLike(rewriter, loc, x),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          auto cIdx = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
          Value bi = linalg::IndexOp::create(b, l, 0), ti = linalg::IndexOp::create(b, l, 1);
          Value hi = linalg::IndexOp::create(b, l, 2), d = linalg::IndexOp::create(b, l, 3);
          Value zero = cIdx(0);
          Value inRot = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, d, cIdx(rotary));
          // first: the element of the pair that takes `- partner * sin`.
          Value first, k, partner;
          if (interleaved) {
            Value one = cIdx(1);
            Value parity = arith::AndIOp::create(b, l, d, one);
            first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, parity, zero);
            k = arith::ShRUIOp::create(b, l, d, one);
            partner = arith::XOrIOp::create(b, l, d, one);
          } else {
            Value h = cIdx(half);
            first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, d, h);
            Value dMinusHalf = arith::SubIOp::create(b, l, d, h);
            k = arith::SelectOp::create(b, l, first, d, dMinusHalf);
            partner = arith::SelectOp::create(b, l, first, arith::AddIOp::create(b, l, d, h),
                                              dMinusHalf);
          }
          // Features past rotary_dim read nothing out of range: pair 0, partner itself.
          k = arith::SelectOp::create(b, l, inRot, k, zero);
          partner = arith::SelectOp::create(b, l, inRot, partner, d);
          SmallVector<Value> tIdx;
          if (perBatch)
            tIdx.push_back(bi);
          tIdx.append({ti, k});
          Value c = tensor::ExtractOp::create(b, l, cosTable, tIdx);
          Value s = tensor::ExtractOp::create(b, l, sinTable, tIdx);
          Value v = toF32(b, l, args[0]);
          Value p = toF32(b, l, tensor::ExtractOp::create(b, l, x, ValueRange{bi, ti, hi, partner}));
          p = arith::SelectOp::create(b, l, first, arith::NegFOp::create(b, l, p), p);
          Value vc = arith::MulFOp::create(b, l, v, c);
          Value ps = arith::MulFOp::create(b, l, p, s);
          Value rot = arith::AddFOp::create(b, l, vc, ps);
          Value y = arith::SelectOp::create(b, l, inRot, rot, v);
          return fromF32(b, l, y, elem);
        });
    if (gpuTags) {
      auto apply = out.getDefiningOp<linalg::GenericOp>();
      table->setAttr(kRopeTableAttr,
                     rewriter.getDictionaryAttr(
                         {rewriter.getNamedAttr("factor", rewriter.getF64FloatAttr(attnFactor)),
                          rewriter.getNamedAttr("positions", rewriter.getBoolAttr(positions != nullptr)),
                          rewriter.getNamedAttr("per_batch", rewriter.getBoolAttr(perBatch))}));
      apply->setAttr(
          kRopeApplyAttr,
          rewriter.getDictionaryAttr(
              {rewriter.getNamedAttr("rotary", rewriter.getI64IntegerAttr(rotary)),
               rewriter.getNamedAttr("interleaved", rewriter.getBoolAttr(interleaved)),
               rewriter.getNamedAttr("float_ops",
                                     rewriter.getI64IntegerAttr(ropeFloatOps(*apply.getBody())))}));
    }
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, out, type));
    return success();
  }

  bool gpuTags;
};
} // namespace

void mlir::decoda::populateRopeLoweringPatterns(RewritePatternSet &patterns, bool gpuTags) {
  patterns.add<LowerRope>(patterns.getContext(), gpuTags);
}
