//===- MoE.cpp - lowering of decoda.moe to linalg -------------------------===//
//
// Per token (the leading dims of `input`, kept as they are, so dynamic token counts just change
// loop bounds):
//
//   1. router logits z = x · routerᵀ (f32 contraction), scores s = softmax(z) (max, exp-sum,
//      divide) or σ(z), all in f32;
//   2. top-k as k rounds of a masked argmax (scf.for over the slots): each round is one
//      reduction generic over the experts that keeps the best `s + selection_bias` (ties to the
//      lower expert index, independent of the reduction order), its index and its unbiased score;
//      the winner is masked out for the next round and written (in place, by a select on the
//      slot index) to slot k of `experts [..., K]` and `gates [..., K]`;
//   3. gates divided by their sum (`normalize`), times `routed_scale`;
//   4. scf.for over the k slots: for every token, the gated MLP of the expert chosen in that slot,
//      with the expert's weights read by index (tensor.extract inside the contraction generics,
//      indexed by the slot's expert-id tensor), its output rounded to the storage type and
//      accumulated in f32 with its gate. Only the chosen experts are ever computed: K gated MLPs
//      per token, never E.
//   5. the shared expert (dense gated MLP, rounded) is added and the sum rounded once.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

#include "Utils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::lowering;

namespace {
struct MoEBuilder {
  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  int64_t lead; // number of token dims

  SmallVector<AffineExpr> leadExprs() const {
    SmallVector<AffineExpr> e;
    for (int64_t i = 0; i < lead; ++i)
      e.push_back(getAffineDimExpr(i, ctx));
    return e;
  }
  /// (lead..., extra...) -> (lead...)
  AffineMap tokenMap(unsigned numDims) const {
    return AffineMap::get(numDims, 0, leadExprs(), ctx);
  }
  SmallVector<OpFoldResult> tokenSizes(Value x) const {
    SmallVector<OpFoldResult> s = getDims(b, loc, x);
    s.pop_back();
    return s;
  }
  Value filled(ArrayRef<OpFoldResult> sizes, Type t, TypedAttr value) const {
    Value e = emptyTensor(b, loc, sizes, t);
    Value c = arith::ConstantOp::create(b, loc, value);
    return linalg::FillOp::create(b, loc, c, e).getResult(0);
  }

  /// Reduction of `m` [lead..., E] over its last dim with `combine(acc, v)` from `init`.
  Value reduceLast(Value m, double init,
                   function_ref<Value(OpBuilder &, Location, Value, Value)> combine) const {
    int64_t rank = lead + 1;
    Value acc = filledTensor(b, loc, tokenSizes(m), b.getF32Type(), init);
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.back() = utils::IteratorType::reduction;
    return linalg::GenericOp::create(
               b, loc, acc.getType(), ValueRange{m}, ValueRange{acc},
               ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank), tokenMap(rank)}, iters,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 linalg::YieldOp::create(nb, nl, ValueRange{combine(nb, nl, args[1], args[0])});
               })
        .getResult(0);
  }

  /// Router scores [lead..., E] in f32.
  Value scores(Value z, RouterScoring scoring) const {
    int64_t rank = lead + 1;
    AffineMap id = b.getMultiDimIdentityMap(rank);
    if (scoring == RouterScoring::sigmoid)
      return buildMap(b, loc, ValueRange{z}, {id}, emptyLike(b, loc, z),
                      [](OpBuilder &nb, Location nl, ValueRange args) {
                        return sigmoid(nb, nl, args[0]);
                      });
    Value mx = reduceLast(z, -std::numeric_limits<double>::infinity(),
                          [](OpBuilder &nb, Location nl, Value acc, Value v) -> Value {
                            return arith::MaximumFOp::create(nb, nl, acc, v);
                          });
    Value e = buildMap(b, loc, ValueRange{z, mx}, {id, tokenMap(rank)}, emptyLike(b, loc, z),
                       [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                         return math::ExpOp::create(
                             nb, nl, arith::SubFOp::create(nb, nl, args[0], args[1]));
                       });
    Value sum = reduceLast(e, 0.0, [](OpBuilder &nb, Location nl, Value acc, Value v) -> Value {
      return arith::AddFOp::create(nb, nl, acc, v);
    });
    return buildMap(b, loc, ValueRange{sum}, {tokenMap(rank)}, e,
                    [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                      return arith::DivFOp::create(nb, nl, args[1], args[0]);
                    });
  }

  /// t[lead..., slot] as a [lead...] tensor (a rank-reducing slice; a subview, no copy).
  Value extractSlot(Value t, Value slot) const {
    SmallVector<OpFoldResult> sizes = tokenSizes(t);
    sizes.push_back(b.getIndexAttr(1));
    SmallVector<OpFoldResult> offsets(lead, b.getIndexAttr(0));
    offsets.push_back(slot);
    SmallVector<OpFoldResult> strides(lead + 1, b.getIndexAttr(1));
    auto tt = cast<RankedTensorType>(t.getType());
    auto resultType = RankedTensorType::get(tt.getShape().drop_back(), tt.getElementType());
    return tensor::ExtractSliceOp::create(b, loc, resultType, t, offsets, sizes, strides);
  }
  /// Writes `v` [lead...] into t[lead..., slot], in place: an elementwise generic over t that
  /// selects on the slot index (an insert_slice into a strided column would bufferize to a
  /// non-contiguous memref.copy, a runtime-library call).
  Value insertSlot(Value v, Value t, Value slot) const {
    int64_t r = lead + 1;
    return buildMap(b, loc, ValueRange{v}, {tokenMap(r)}, t,
                    [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                      Value k = linalg::IndexOp::create(nb, nl, lead);
                      Value hit =
                          arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, k, slot);
                      return arith::SelectOp::create(nb, nl, hit, args[0], args[1]);
                    });
  }
};

struct LowerMoE : public OpRewritePattern<MoEOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MoEOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = op.getInput();
    RankedTensorType type = op.getResult().getType();
    Type elem = type.getElementType(), f32 = rewriter.getF32Type(), i64 = rewriter.getI64Type();
    Type i1 = rewriter.getI1Type();
    int64_t rank = type.getRank(), lead = rank - 1;
    int64_t numExperts = op.getRouter().getType().getDimSize(0);
    int64_t topK = op.getTopK();
    WeightLayout layout = op.getWeightLayout();
    GluAttr kind = op.getKind();
    MoEBuilder mb{rewriter, loc, ctx, lead};
    SmallVector<OpFoldResult> tokens = mb.tokenSizes(x);
    auto cIdx = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };

    // 1. Router.
    Value z = buildProjectionAccumulator(rewriter, loc, x, op.getRouter(), WeightLayout::out_in);
    Value s = mb.scores(z, op.getScoring());

    // 2. Top-k: k rounds of a masked argmax over the experts.
    SmallVector<OpFoldResult> slotSizes(tokens);
    slotSizes.push_back(rewriter.getIndexAttr(topK));
    SmallVector<OpFoldResult> expertSizes(tokens);
    expertSizes.push_back(rewriter.getIndexAttr(numExperts));
    Value mask0 = mb.filled(expertSizes, i1, rewriter.getBoolAttr(false));
    Value idx0 = mb.filled(slotSizes, i64, rewriter.getI64IntegerAttr(0));
    Value gates0 = filledTensor(rewriter, loc, slotSizes, f32, 0.0);
    Value bias = op.getSelectionBias();
    auto topLoop = scf::ForOp::create(
        rewriter, loc, cIdx(0), cIdx(topK), cIdx(1), ValueRange{mask0, idx0, gates0},
        [&](OpBuilder &b, Location l, Value slot, ValueRange iter) {
          MoEBuilder ib{b, l, ctx, lead};
          Value mask = iter[0];
          int64_t r = lead + 1;
          AffineMap id = b.getMultiDimIdentityMap(r), tok = ib.tokenMap(r);
          SmallVector<Value> ins{s, mask};
          SmallVector<AffineMap> maps{id, id};
          if (bias) {
            ins.push_back(bias);
            maps.push_back(lastDimMap(b, r));
          }
          maps.append({tok, tok, tok});
          Value bestSel = filledTensor(b, l, tokens, f32, -std::numeric_limits<double>::infinity());
          Value bestIdx = ib.filled(tokens, i64, b.getI64IntegerAttr(numExperts));
          Value bestScore = filledTensor(b, l, tokens, f32, 0.0);
          SmallVector<utils::IteratorType> iters(r, utils::IteratorType::parallel);
          iters.back() = utils::IteratorType::reduction;
          auto argmax = linalg::GenericOp::create(
              b, l, TypeRange{bestSel.getType(), bestIdx.getType(), bestScore.getType()}, ins,
              ValueRange{bestSel, bestIdx, bestScore}, maps, iters,
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                Value score = args[0], taken = args[1];
                Value v = bias ? arith::AddFOp::create(nb, nl, score, toF32(nb, nl, args[2]))
                                     .getResult()
                               : score;
                unsigned o = bias ? 3 : 2;
                Value curSel = args[o], curIdx = args[o + 1], curScore = args[o + 2];
                Value e = arith::IndexCastOp::create(nb, nl, i64,
                                                     linalg::IndexOp::create(nb, nl, lead));
                // Strictly better, or equal with a lower index, or the first free expert.
                Value none = arith::CmpIOp::create(
                    nb, nl, arith::CmpIPredicate::eq, curIdx,
                    arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(numExperts)));
                Value gt = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT, v, curSel);
                Value eq = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, v, curSel);
                Value lower = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, e, curIdx);
                Value better = arith::OrIOp::create(
                    nb, nl, arith::OrIOp::create(nb, nl, none, gt),
                    arith::AndIOp::create(nb, nl, eq, lower));
                Value free = arith::XOrIOp::create(
                    nb, nl, taken, arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true)));
                better = arith::AndIOp::create(nb, nl, better, free);
                linalg::YieldOp::create(
                    nb, nl,
                    ValueRange{arith::SelectOp::create(nb, nl, better, v, curSel),
                               arith::SelectOp::create(nb, nl, better, e, curIdx),
                               arith::SelectOp::create(nb, nl, better, score, curScore)});
              });
          Value winner = argmax.getResult(1);
          // Mask the winner out for the next rounds (in place).
          Value newMask = buildMap(b, l, ValueRange{winner}, {tok}, mask,
                                   [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                                     Value e = arith::IndexCastOp::create(
                                         nb, nl, i64, linalg::IndexOp::create(nb, nl, lead));
                                     Value hit = arith::CmpIOp::create(
                                         nb, nl, arith::CmpIPredicate::eq, e, args[0]);
                                     return arith::OrIOp::create(nb, nl, args[1], hit);
                                   });
          Value idx = ib.insertSlot(winner, iter[1], slot);
          Value gates = ib.insertSlot(argmax.getResult(2), iter[2], slot);
          scf::YieldOp::create(b, l, ValueRange{newMask, idx, gates});
        });
    Value experts = topLoop.getResult(1);
    Value gates = topLoop.getResult(2);

    // 3. Normalise and scale the gates.
    double routedScale = op.getRoutedScale().convertToDouble();
    bool normalize = op.getNormalize();
    if (normalize || routedScale != 1.0) {
      int64_t r = lead + 1;
      SmallVector<Value> ins;
      SmallVector<AffineMap> maps;
      if (normalize) {
        ins.push_back(mb.reduceLast(gates, 0.0,
                                    [](OpBuilder &nb, Location nl, Value acc, Value v) -> Value {
                                      return arith::AddFOp::create(nb, nl, acc, v);
                                    }));
        maps.push_back(mb.tokenMap(r));
      }
      gates = buildMap(rewriter, loc, ins, maps, gates,
                       [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                         Value g = args.back();
                         if (normalize)
                           g = arith::DivFOp::create(nb, nl, g, args[0]);
                         if (routedScale != 1.0)
                           g = arith::MulFOp::create(nb, nl, g, f32Const(nb, nl, routedScale));
                         return g;
                       });
    }

    // 4. The chosen experts, slot by slot.
    Value wGate = op.getWGate(), wUp = op.getWUp(), wDown = op.getWDown();
    bool outIn = layout == WeightLayout::out_in;
    OpFoldResult dSize = tensor::getMixedSize(rewriter, loc, x, lead);
    OpFoldResult fSize = tensor::getMixedSize(rewriter, loc, wGate, outIn ? 1 : 2);
    SmallVector<OpFoldResult> outSizes(tokens), hiddenSizes(tokens);
    outSizes.push_back(dSize);
    hiddenSizes.push_back(fSize);
    Value y0 = filledTensor(rewriter, loc, outSizes, f32, 0.0);
    auto expertLoop = scf::ForOp::create(
        rewriter, loc, cIdx(0), cIdx(topK), cIdx(1), ValueRange{y0},
        [&](OpBuilder &b, Location l, Value slot, ValueRange iter) {
          MoEBuilder ib{b, l, ctx, lead};
          Value eIds = ib.extractSlot(experts, slot);
          Value g = ib.extractSlot(gates, slot);
          Value lastExpert = arith::ConstantIndexOp::create(b, l, numExperts - 1);
          auto expertIndex = [&](OpBuilder &nb, Location nl, Value id) -> Value {
            Value e = arith::IndexCastOp::create(nb, nl, nb.getIndexType(), id);
            return arith::MinUIOp::create(nb, nl, e, lastExpert); // never out of the table
          };
          int64_t r = lead + 2; // (lead..., out, in)
          SmallVector<utils::IteratorType> iters(r, utils::IteratorType::parallel);
          iters.back() = utils::IteratorType::reduction;
          SmallVector<AffineExpr> inE = ib.leadExprs(), outE = ib.leadExprs();
          inE.push_back(getAffineDimExpr(lead + 1, ctx));
          outE.push_back(getAffineDimExpr(lead, ctx));
          AffineMap inMap = AffineMap::get(r, 0, inE, ctx), outMap = AffineMap::get(r, 0, outE, ctx);
          AffineMap tok = ib.tokenMap(r);
          /// weight[e, o, i] (out_in) or weight[e, i, o] (in_out) at the current point.
          auto readWeight = [&](OpBuilder &nb, Location nl, Value w, Value e) -> Value {
            Value o = linalg::IndexOp::create(nb, nl, lead);
            Value i = linalg::IndexOp::create(nb, nl, lead + 1);
            return tensor::ExtractOp::create(nb, nl, w,
                                             outIn ? ValueRange{e, o, i} : ValueRange{e, i, o});
          };

          // gate/up accumulators [lead..., F]: iteration (lead..., f, d).
          Value accG = filledTensor(b, l, hiddenSizes, f32, 0.0);
          Value accU = filledTensor(b, l, hiddenSizes, f32, 0.0);
          auto gateUp = linalg::GenericOp::create(
              b, l, TypeRange{accG.getType(), accU.getType()}, ValueRange{x, eIds},
              ValueRange{accG, accU}, ArrayRef<AffineMap>{inMap, tok, outMap, outMap}, iters,
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                Value xv = toF32(nb, nl, args[0]);
                Value e = expertIndex(nb, nl, args[1]);
                Value wg = toF32(nb, nl, readWeight(nb, nl, wGate, e));
                Value wu = toF32(nb, nl, readWeight(nb, nl, wUp, e));
                Value ng = arith::AddFOp::create(nb, nl, args[2],
                                                 arith::MulFOp::create(nb, nl, xv, wg));
                Value nu = arith::AddFOp::create(nb, nl, args[3],
                                                 arith::MulFOp::create(nb, nl, xv, wu));
                linalg::YieldOp::create(nb, nl, ValueRange{ng, nu});
              });
          AffineMap hid = b.getMultiDimIdentityMap(lead + 1);
          Value h = buildMap(b, l, ValueRange{gateUp.getResult(0), gateUp.getResult(1)},
                             {hid, hid}, emptyTensor(b, l, hiddenSizes, elem),
                             [&](OpBuilder &nb, Location nl, ValueRange args) {
                               return fromF32(nb, nl, applyGlu(nb, nl, kind, args[0], args[1]),
                                              elem);
                             });
          // down accumulator [lead..., D]: iteration (lead..., d, f).
          Value accD = filledTensor(b, l, outSizes, f32, 0.0);
          Value down =
              linalg::GenericOp::create(
                  b, l, accD.getType(), ValueRange{h, eIds}, ValueRange{accD},
                  ArrayRef<AffineMap>{inMap, tok, outMap}, iters,
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    Value e = expertIndex(nb, nl, args[1]);
                    Value wd = toF32(nb, nl, readWeight(nb, nl, wDown, e));
                    Value p = arith::MulFOp::create(nb, nl, toF32(nb, nl, args[0]), wd);
                    linalg::YieldOp::create(nb, nl,
                                            ValueRange{arith::AddFOp::create(nb, nl, args[2], p)});
                  })
                  .getResult(0);
          // y += gate * round(expert output), in place.
          AffineMap outId = b.getMultiDimIdentityMap(lead + 1);
          Value y = buildMap(b, l, ValueRange{down, g}, {outId, ib.tokenMap(lead + 1)}, iter[0],
                             [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                               Value o = toF32(nb, nl, fromF32(nb, nl, args[0], elem));
                               return arith::AddFOp::create(
                                   nb, nl, args[2], arith::MulFOp::create(nb, nl, args[1], o));
                             });
          scf::YieldOp::create(b, l, ValueRange{y});
        });
    Value y = expertLoop.getResult(0);

    // 5. Shared expert and the final rounding.
    AffineMap outId = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<Value> ins{y};
    SmallVector<AffineMap> maps{outId};
    if (Value sg = op.getSharedGate()) {
      Value g = buildProjectionAccumulator(rewriter, loc, x, sg, layout);
      Value u = buildProjectionAccumulator(rewriter, loc, x, op.getSharedUp(), layout);
      AffineMap id = rewriter.getMultiDimIdentityMap(rank);
      Value h = buildMap(rewriter, loc, ValueRange{g, u}, {id, id}, emptyLike(rewriter, loc, g, elem),
                         [&](OpBuilder &nb, Location nl, ValueRange args) {
                           return fromF32(nb, nl, applyGlu(nb, nl, kind, args[0], args[1]), elem);
                         });
      ins.push_back(
          buildProjection(rewriter, loc, h, op.getSharedDown(), Value(), layout, elem));
      maps.push_back(outId);
    }
    Value out = buildMap(rewriter, loc, ins, maps, emptyTensor(rewriter, loc, outSizes, elem),
                         [&](OpBuilder &nb, Location nl, ValueRange args) {
                           Value v = args[0];
                           if (args.size() > 2)
                             v = arith::AddFOp::create(nb, nl, v, toF32(nb, nl, args[1]));
                           return fromF32(nb, nl, v, elem);
                         });
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, out, type));
    return success();
  }
};
} // namespace

void mlir::decoda::populateMoELoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMoE>(patterns.getContext());
}
