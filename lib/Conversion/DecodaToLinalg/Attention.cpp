//===- Attention.cpp - lowering of decoda attention ops to linalg --------===//
//
// attention, cached_attention and mla, all through one flash-attention builder
// (`buildFlashAttention`): an scf.for over key tiles of `attentionKeyTile` keys carrying, per
// (batch, query, head), the running max `m`, the running denominator `l` (f32) and an f32
// accumulator `acc`. Per tile:
//
//   s    = scale · q·kᵀ                 linalg.generic contraction into [B, Tq, H, tile] f32
//   s    = cap · tanh(s / cap)          softcap, when set
//   s    = s + mask ; s = -inf where a mask hides the key (causal / window / chunk / segment ids,
//                                       all computed from linalg.index inside the body)
//   m'   = max(m, max_j s)
//   corr = exp(m - safe(m')),  p = exp(s - safe(m'))      safe(x) = x == -inf ? 0 : x, so a row
//                                       with every key masked so far gives exp(-inf) = 0, never
//                                       exp(-inf - -inf) = NaN
//   l'   = l·corr + Σ_j p,   acc' = acc·corr + Σ_j p·v_j
//
// Only [B, Tq, H, tile] score/probability tensors exist, never [Tq, Tk]. The loop runs over the
// full tiles of the key range with a static tile size; the remainder (Tk not a multiple of the
// tile, or a dynamic Tk) is one peeled step after the loop with size `Tk - end` (static when Tk
// is, possibly zero when dynamic), so the loop body always has static tile shapes. The key range
// starts at 0, or later when a sliding window or chunking hides every earlier key from every
// query of the block (an exact skip: the masks are still applied inside). Each update writes
// into the loop-carried tensor it replaces (m, l and acc are `outs`, never read as `ins` after
// being overwritten), so one-shot bufferization keeps the loop state in place.
//
// After the loop, sinks join the denominator with the max taken over the sink too:
// M = max(m, sink), out = acc·e^(m-M) / (l·e^(m-M) + e^(sink-M)); without sinks out = acc / l.
// A row whose denominator is 0 (every key masked, no sink) gives 0. The result is rounded to the
// storage type at the very end; every body widens f16/bf16 operands with extf.
//
// GQA/MQA: query head h reads K/V head h floordiv (Hq / Hkv) through the indexing maps (head 0
// for MQA); K and V are never copied per query head.
//
// cached_attention: a cf.assert (0 <= offset, offset + T <= S) guards the tensor.insert_slice of
// the new keys/values into the caches at [offset, offset + T); the T queries (positions
// offset + i) then attend to cache entries [0, offset + T) of the updated caches with the same
// loop (trip count from offset + T). With a static T <= 4 (a decode step) the tile is
// `attentionDecodeKeyTile` when set (the CPU pipeline: 1024), so a step over a shorter context
// is the peeled remainder alone.
//
// mla: the absorbed form, computed on the fly; it is exact in real arithmetic (only the f32
// rounding order differs from decompressing K and V) and the cheaper one: per key a score costs
// Dc + Dr multiply-adds per head instead of Dn·Dc to decompress the key first. Before the loop,
// q_abs[b,i,h,:] = Σ_n q_nope[b,i,h,n]·W_UK[h,n,:] ([B, Tq, H, Dc], f32); per key tile
// s = scale·(q_abs·c_j + q_rope·k_rope_j) and acc[B, Tq, H, Dc] += p·c_j (the latent is the
// value); after the loop out[h] = (acc[h]·W_UV[h]ᵀ) / l. No per-head K or V is materialised,
// not even for one tile. Default scale 1/sqrt(Dn + Dr). All intermediates stay in f32.
//
// Run-time checks (cf.assert, emitted only where an extent is dynamic): Tq <= Tk, and extents
// the verifier could only check as compatible (batch sizes, key/value lengths, mask and
// segment_ids extents) must agree, since every tile read relies on them.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

#include "Utils.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::lowering;

namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

using utils::IteratorType;

//===----------------------------------------------------------------------===//
// Small builders
//===----------------------------------------------------------------------===//

/// Index arithmetic on OpFoldResults that folds when both sides are constants.
struct IndexMath {
  OpBuilder &b;
  Location loc;

  Value val(OpFoldResult v) { return getValueOrCreateConstantIndexOp(b, loc, v); }
  OpFoldResult cst(int64_t v) { return b.getIndexAttr(v); }

  OpFoldResult add(OpFoldResult x, OpFoldResult y) {
    auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
    if (cx && cy)
      return cst(*cx + *cy);
    if (cy && *cy == 0)
      return x;
    if (cx && *cx == 0)
      return y;
    Value vx = val(x), vy = val(y); // in this order
    return arith::AddIOp::create(b, loc, vx, vy).getResult();
  }
  OpFoldResult sub(OpFoldResult x, OpFoldResult y) {
    auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
    if (cx && cy)
      return cst(*cx - *cy);
    if (cy && *cy == 0)
      return x;
    Value vx = val(x), vy = val(y); // in this order
    return arith::SubIOp::create(b, loc, vx, vy).getResult();
  }
  OpFoldResult mul(OpFoldResult x, int64_t k) {
    if (auto cx = getConstantIntValue(x))
      return cst(*cx * k);
    if (k == 1)
      return x;
    Value vx = val(x), vk = val(cst(k));
    return arith::MulIOp::create(b, loc, vx, vk).getResult();
  }
  /// x / k for x >= 0, k > 0.
  OpFoldResult div(OpFoldResult x, int64_t k) {
    if (auto cx = getConstantIntValue(x))
      return cst(*cx / k);
    if (k == 1)
      return x;
    Value vx = val(x), vk = val(cst(k));
    return arith::DivSIOp::create(b, loc, vx, vk).getResult();
  }
  OpFoldResult max(OpFoldResult x, OpFoldResult y) {
    auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
    if (cx && cy)
      return cst(std::max(*cx, *cy));
    Value vx = val(x), vy = val(y); // in this order
    return arith::MaxSIOp::create(b, loc, vx, vy).getResult();
  }
};

SmallVector<IteratorType> iterators(int64_t parallel, int64_t reduction = 0) {
  SmallVector<IteratorType> it(parallel, IteratorType::parallel);
  it.append(reduction, IteratorType::reduction);
  return it;
}

/// A linalg.generic whose results have the types of `outs`.
ValueRange generic(OpBuilder &b, Location loc, ValueRange ins, ValueRange outs,
                   ArrayRef<AffineMap> maps, ArrayRef<IteratorType> iters,
                   function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(b, loc, TypeRange(outs), ins, outs, maps, iters, body)
      .getResults();
}

void yield(OpBuilder &b, Location loc, ValueRange v) { linalg::YieldOp::create(b, loc, v); }

/// A map of `numDims` dims with the given results.
AffineMap map(OpBuilder &b, int64_t numDims, ArrayRef<AffineExpr> results) {
  return AffineMap::get(numDims, 0, results, b.getContext());
}

/// The exponent base of the online softmax: the running max, or 0 while it is still -inf (so
/// that exp(-inf - base) = 0 rather than NaN).
Value safeMax(OpBuilder &b, Location loc, Value m) {
  Value negInf = f32Const(b, loc, kNegInf);
  Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, negInf);
  return arith::SelectOp::create(b, loc, isNegInf, f32Const(b, loc, 0.0), m);
}

Value mulF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}
Value addF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}
/// x·y in f32, extending each operand first (in operand order).
Value extMul(OpBuilder &b, Location loc, Value x, Value y) {
  Value fx = toF32(b, loc, x);
  Value fy = toF32(b, loc, y);
  return mulF(b, loc, fx, fy);
}
Value expDiff(OpBuilder &b, Location loc, Value x, Value y) {
  return math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, x, y));
}

/// x[.., j0 : j0 + size, ..] along dim 1 (the key axis of K, V, the latent and k_rope).
Value keySlice(OpBuilder &b, Location loc, Value x, Value j0, OpFoldResult size) {
  SmallVector<OpFoldResult> sizes = getDims(b, loc, x);
  int64_t rank = sizes.size();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), strides(rank, b.getIndexAttr(1));
  offsets[1] = j0;
  sizes[1] = size;
  return tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
}

/// Emits a run-time check that `lhs <= rhs` (index values) unless both are constants that
/// satisfy it.
void assertLE(OpBuilder &b, Location loc, OpFoldResult lhs, OpFoldResult rhs, StringRef msg) {
  auto cl = getConstantIntValue(lhs), cr = getConstantIntValue(rhs);
  if (cl && cr && *cl <= *cr)
    return;
  IndexMath im{b, loc};
  Value l = im.val(lhs), r = im.val(rhs);
  Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, l, r);
  cf::AssertOp::create(b, loc, ok, msg);
}

/// Run-time equality of two extents that the verifier could only check as compatible (one of
/// them dynamic): every tile read is in bounds only if they agree. Nothing when both are static.
void assertSameExtent(OpBuilder &b, Location loc, Value x, int64_t xDim, Value y, int64_t yDim,
                      StringRef opName, StringRef what) {
  OpFoldResult ex = tensor::getMixedSize(b, loc, x, xDim);
  OpFoldResult ey = tensor::getMixedSize(b, loc, y, yDim);
  if (getConstantIntValue(ex) && getConstantIntValue(ey))
    return;
  IndexMath im{b, loc};
  Value vx = im.val(ex), vy = im.val(ey);
  Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, vx, vy);
  cf::AssertOp::create(b, loc, ok, (opName + ": " + what + " differ").str());
}

/// The run-time shape checks of decoda.attention's operands (only for dynamic extents).
void assertAttentionShapes(OpBuilder &b, Location loc, AttentionOp op) {
  StringRef name = "decoda.attention";
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  assertSameExtent(b, loc, q, 0, k, 0, name, "the query and key batch sizes");
  assertSameExtent(b, loc, q, 0, v, 0, name, "the query and value batch sizes");
  assertSameExtent(b, loc, k, 1, v, 1, name, "the key and value lengths");
  if (Value mask = op.getMask()) {
    auto mt = cast<RankedTensorType>(mask.getType());
    // A static 1 broadcasts; anything else must be the full extent.
    if (mt.getDimSize(0) != 1)
      assertSameExtent(b, loc, mask, 0, q, 0, name, "the mask and query batch sizes");
    if (mt.getDimSize(1) != 1)
      assertSameExtent(b, loc, mask, 1, q, 2, name, "the mask heads and num_heads");
    assertSameExtent(b, loc, mask, 2, q, 1, name, "the mask rows and the query length");
    assertSameExtent(b, loc, mask, 3, k, 1, name, "the mask columns and the key length");
  }
  if (Value seg = op.getSegmentIds()) {
    assertSameExtent(b, loc, seg, 0, q, 0, name, "the segment_ids and query batch sizes");
    assertSameExtent(b, loc, seg, 1, k, 1, name, "the segment_ids and key lengths");
  }
}

//===----------------------------------------------------------------------===//
// The flash-attention loop shared by all three ops
//===----------------------------------------------------------------------===//

/// Builds raw scores q·kᵀ (unscaled, f32) for keys [j0, j0 + size): [B, Tq, H, size].
using ScoreFn = std::function<Value(OpBuilder &, Location, Value j0, OpFoldResult size)>;
/// Returns acc + Σ_j p[.., j]·value_j for keys [j0, j0 + size); `p` is [B, Tq, H, size] f32 and
/// `acc` [B, Tq, H, accWidth] f32.
using AccumulateFn = std::function<Value(OpBuilder &, Location, Value j0, OpFoldResult size,
                                         Value p, Value acc)>;

struct FlashAttention {
  /// B, Tq, H of the queries and the width of the f32 accumulator (Dv, or Dc for mla).
  SmallVector<OpFoldResult> rows;
  OpFoldResult accWidth;
  /// Keys [0, keyLen) exist; query i is at position queryOffset + i.
  OpFoldResult keyLen;
  OpFoldResult queryOffset;
  int64_t tile = 64;

  double scale = 1.0;
  std::optional<double> softcap;
  bool causal = false;
  std::optional<int64_t> window, chunk;
  /// Additive mask [B|1, H|1, Tq, Tk] (any float type) or null.
  Value mask;
  /// [B, Tk] integer segment ids or null.
  Value segmentIds;
  /// [H] sink logits (any float type) or null.
  Value sinks;

  ScoreFn scores;
  AccumulateFn accumulate;
};

/// scale, softcap, additive mask and index masks on a raw score tile, in place.
Value maskScores(OpBuilder &b, Location loc, const FlashAttention &fa, Value s, Value j0,
                 OpFoldResult size) {
  AffineMap id = b.getMultiDimIdentityMap(4);
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  if (fa.mask) {
    auto mt = cast<RankedTensorType>(fa.mask.getType());
    SmallVector<OpFoldResult> sizes = getDims(b, loc, fa.mask);
    SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0)), strides(4, b.getIndexAttr(1));
    offsets[3] = j0;
    sizes[3] = size;
    ins.push_back(tensor::ExtractSliceOp::create(b, loc, fa.mask, offsets, sizes, strides));
    // [B|1, H|1, Tq, tile] broadcast onto (b, i, h, j).
    AffineExpr zero = b.getAffineConstantExpr(0);
    AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1),
               d2 = b.getAffineDimExpr(2), d3 = b.getAffineDimExpr(3);
    maps.push_back(map(b, 4, {mt.getDimSize(0) == 1 ? zero : d0,
                              mt.getDimSize(1) == 1 ? zero : d2, d1, d3}));
  }
  maps.push_back(id);
  bool anyIndexMask = fa.causal || fa.window || fa.chunk || fa.segmentIds;
  IndexMath im{b, loc};
  Value qOff = im.val(fa.queryOffset);
  return generic(
      b, loc, ins, ValueRange{s}, maps, iterators(4),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value x = mulF(nb, nl, args.back(), f32Const(nb, nl, fa.scale));
        if (fa.softcap)
          x = softcapScalar(nb, nl, x, *fa.softcap);
        if (fa.mask)
          x = addF(nb, nl, x, toF32(nb, nl, args[0]));
        if (anyIndexMask) {
          Value i = linalg::IndexOp::create(nb, nl, 1);
          Value jj = linalg::IndexOp::create(nb, nl, 3);
          Value j = arith::AddIOp::create(nb, nl, j0, jj);
          Value p = arith::AddIOp::create(nb, nl, qOff, i);
          Value visible;
          auto require = [&](Value c) {
            visible = visible ? arith::AndIOp::create(nb, nl, visible, c).getResult() : c;
          };
          auto idx = [&](int64_t v) {
            return arith::ConstantIndexOp::create(nb, nl, v).getResult();
          };
          if (fa.causal)
            require(arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sle, j, p));
          if (fa.window) {
            Value back = arith::SubIOp::create(nb, nl, p, j);
            require(
                arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, back, idx(*fa.window)));
          }
          if (fa.chunk) {
            // Positions are non-negative, so truncating division is the floor.
            Value c = idx(*fa.chunk);
            Value cj = arith::DivSIOp::create(nb, nl, j, c);
            Value cp = arith::DivSIOp::create(nb, nl, p, c);
            require(arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, cj, cp));
          }
          if (fa.segmentIds) {
            Value batch = linalg::IndexOp::create(nb, nl, 0);
            Value sj = tensor::ExtractOp::create(nb, nl, fa.segmentIds, ValueRange{batch, j});
            Value sp = tensor::ExtractOp::create(nb, nl, fa.segmentIds, ValueRange{batch, p});
            require(arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, sj, sp));
          }
          x = arith::SelectOp::create(nb, nl, visible, x, f32Const(nb, nl, kNegInf));
        }
        yield(nb, nl, x);
      })[0];
}

/// One step of the online softmax over keys [j0, j0 + size).
SmallVector<Value> flashStep(OpBuilder &b, Location loc, const FlashAttention &fa, Value j0,
                             OpFoldResult size, Value m, Value l, Value acc) {
  AffineMap id4 = b.getMultiDimIdentityMap(4);
  AffineMap id3 = b.getMultiDimIdentityMap(3);
  AffineMap row4 = id4.dropResult(3); // (b, i, h, x) -> (b, i, h)
  Type f32 = b.getF32Type();

  Value s = fa.scores(b, loc, j0, size);
  s = maskScores(b, loc, fa, s, j0, size);

  // Every update writes into the loop-carried tensor it replaces (m, l, acc are outs, never
  // read as ins after being overwritten), so bufferization keeps them in place across the loop.
  // tileMax = max_j s
  Value tileMax =
      generic(b, loc, ValueRange{s}, ValueRange{filledTensor(b, loc, fa.rows, f32, kNegInf)},
              {id4, row4}, iterators(3, 1), [](OpBuilder &nb, Location nl, ValueRange a) {
                yield(nb, nl, arith::MaximumFOp::create(nb, nl, a[1], a[0]).getResult());
              })[0];

  // m' = max(m, tileMax), corr = exp(m - safe(m')), l·corr
  ValueRange rowUpdate = generic(
      b, loc, ValueRange{tileMax}, ValueRange{m, l, emptyTensor(b, loc, fa.rows, f32)},
      {id3, id3, id3, id3}, iterators(3), [](OpBuilder &nb, Location nl, ValueRange a) {
        Value mNew = arith::MaximumFOp::create(nb, nl, a[1], a[0]);
        Value corr = expDiff(nb, nl, a[1], safeMax(nb, nl, mNew));
        yield(nb, nl, {mNew, mulF(nb, nl, a[2], corr), corr});
      });
  Value mNew = rowUpdate[0], lScaled = rowUpdate[1], corr = rowUpdate[2];

  // p = exp(s - safe(m')), in place of the scores
  Value p = generic(b, loc, ValueRange{mNew}, ValueRange{s}, {row4, id4}, iterators(4),
                    [](OpBuilder &nb, Location nl, ValueRange a) {
                      yield(nb, nl, expDiff(nb, nl, a[1], safeMax(nb, nl, a[0])));
                    })[0];

  // l' = l·corr + Σ_j p
  Value lNew = generic(b, loc, ValueRange{p}, ValueRange{lScaled}, {id4, row4}, iterators(3, 1),
                       [](OpBuilder &nb, Location nl, ValueRange a) {
                         yield(nb, nl, addF(nb, nl, a[1], a[0]));
                       })[0];

  // acc' = acc·corr + Σ_j p·v_j
  Value accScaled = generic(b, loc, ValueRange{corr}, ValueRange{acc}, {row4, id4}, iterators(4),
                            [](OpBuilder &nb, Location nl, ValueRange a) {
                              yield(nb, nl, mulF(nb, nl, a[1], a[0]));
                            })[0];
  Value accNew = fa.accumulate(b, loc, j0, size, p, accScaled);
  return {mNew, lNew, accNew};
}

/// One loop step over keys [j0, j0 + size) that maps the carried values to their next ones.
using TileStepFn = function_ref<SmallVector<Value>(OpBuilder &, Location, Value j0,
                                                   OpFoldResult size, ValueRange carried)>;

/// Runs `step` over the key tiles of `fa` (full tiles of a static size in an scf.for from the
/// first key any query can see, then the possibly empty remainder) and returns the final values.
SmallVector<Value> forEachKeyTile(OpBuilder &b, Location loc, const FlashAttention &fa,
                                  ValueRange init, TileStepFn step) {
  IndexMath im{b, loc};

  // The first key any query of the block can see.
  OpFoldResult start = b.getIndexAttr(0);
  if (fa.window) // j > p_0 - window
    start = im.max(start, im.sub(im.add(fa.queryOffset, im.cst(1)), im.cst(*fa.window)));
  if (fa.chunk) // j >= ⌊p_0 / c⌋·c
    start = im.max(start, im.mul(im.div(fa.queryOffset, *fa.chunk), *fa.chunk));

  int64_t tile = fa.tile;
  OpFoldResult span = im.sub(fa.keyLen, start);
  if (auto cs = getConstantIntValue(span); cs && *cs > 0 && *cs < tile)
    tile = *cs; // one full tile covers every key
  OpFoldResult end = im.add(start, im.mul(im.div(span, tile), tile));

  Value lb = im.val(start), ub = im.val(end), stepSize = im.val(im.cst(tile));
  auto loop = scf::ForOp::create(b, loc, lb, ub, stepSize, init,
                                 [&](OpBuilder &nb, Location nl, Value j0, ValueRange iter) {
                                   scf::YieldOp::create(
                                       nb, nl, step(nb, nl, j0, nb.getIndexAttr(tile), iter));
                                 });
  SmallVector<Value> values(loop.getResults());

  // The last partial tile (static when Tk is static, possibly empty when it is dynamic).
  OpFoldResult rest = im.sub(fa.keyLen, end);
  auto cr = getConstantIntValue(rest);
  if (!cr || *cr > 0)
    values = step(b, loc, im.val(end), rest, values);
  return values;
}

/// The loop; returns (acc [B, Tq, H, accWidth], rowScale [B, Tq, H]) with out = acc·rowScale.
std::pair<Value, Value> buildFlashAttention(OpBuilder &b, Location loc,
                                            const FlashAttention &fa) {
  Type f32 = b.getF32Type();
  SmallVector<OpFoldResult> accSizes = fa.rows;
  accSizes.push_back(fa.accWidth);
  Value m = filledTensor(b, loc, fa.rows, f32, kNegInf);
  Value l = filledTensor(b, loc, fa.rows, f32, 0.0);
  Value acc = filledTensor(b, loc, accSizes, f32, 0.0);
  SmallVector<Value> state = forEachKeyTile(
      b, loc, fa, ValueRange{m, l, acc},
      [&](OpBuilder &nb, Location nl, Value j0, OpFoldResult size, ValueRange iter) {
        return flashStep(nb, nl, fa, j0, size, iter[0], iter[1], iter[2]);
      });
  m = state[0];
  l = state[1];
  acc = state[2];

  // rowScale = e^(m-M) / (l·e^(m-M) + e^(sink-M)) with M = max(m, sink), or 1 / l; 0 when the
  // denominator is 0.
  AffineMap id3 = b.getMultiDimIdentityMap(3);
  SmallVector<Value> ins{l};
  SmallVector<AffineMap> maps{id3};
  if (fa.sinks) {
    ins.append({m, fa.sinks});
    maps.append({id3, map(b, 3, {b.getAffineDimExpr(2)})});
  }
  maps.push_back(id3);
  Value rowScale =
      generic(b, loc, ins, ValueRange{emptyTensor(b, loc, fa.rows, f32)}, maps, iterators(3),
              [&](OpBuilder &nb, Location nl, ValueRange a) {
                Value num = f32Const(nb, nl, 1.0), den = a[0];
                if (fa.sinks) {
                  Value rowMax = a[1], sink = toF32(nb, nl, a[2]);
                  Value big = safeMax(nb, nl, arith::MaximumFOp::create(nb, nl, rowMax, sink));
                  num = expDiff(nb, nl, rowMax, big);
                  Value sinkTerm = expDiff(nb, nl, sink, big);
                  den = addF(nb, nl, mulF(nb, nl, a[0], num), sinkTerm);
                }
                Value zero = f32Const(nb, nl, 0.0);
                Value empty =
                    arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, den, zero);
                Value safeDen = arith::SelectOp::create(nb, nl, empty, f32Const(nb, nl, 1.0), den);
                Value r = arith::DivFOp::create(nb, nl, num, safeDen);
                yield(nb, nl, arith::SelectOp::create(nb, nl, empty, zero, r).getResult());
              })[0];
  return {acc, rowScale};
}

/// out[b, i, h, d] = acc[b, i, h, d] · rowScale[b, i, h], rounded to `elementType`.
Value scaleRows(OpBuilder &b, Location loc, Value acc, Value rowScale, Type elementType) {
  AffineMap id4 = b.getMultiDimIdentityMap(4);
  Value out = emptyLike(b, loc, acc, elementType);
  return generic(b, loc, ValueRange{acc, rowScale}, ValueRange{out}, {id4, id4.dropResult(3), id4},
                 iterators(4), [&](OpBuilder &nb, Location nl, ValueRange a) {
                   yield(nb, nl, fromF32(nb, nl, mulF(nb, nl, a[0], a[1]), elementType));
                 })[0];
}

//===----------------------------------------------------------------------===//
// Standard (cached) attention: q [B, Tq, Hq, D], K [B, *, Hkv, D], V [B, *, Hkv, Dv]
//===----------------------------------------------------------------------===//

/// The K/V head that query head `h` reads: h floordiv group (group = Hq / Hkv), which is h for
/// MHA; `group` <= 0 marks MQA (one KV head), read as head 0.
AffineExpr kvHeadOf(AffineExpr h, int64_t group) {
  if (group <= 0)
    return getAffineConstantExpr(0, h.getContext());
  return h.floorDiv(group);
}

/// Raw scores q·k_jᵀ over (b, i, h, j, d); query head h reads KV head h floordiv group.
Value qkScores(OpBuilder &b, Location loc, Value q, Value k, int64_t group, Value j0,
               OpFoldResult size) {
  Value kTile = keySlice(b, loc, k, j0, size);
  SmallVector<OpFoldResult> sizes = getDims(b, loc, q);
  sizes[3] = size;
  Value out = filledTensor(b, loc, sizes, b.getF32Type(), 0.0);
  AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1), d2 = b.getAffineDimExpr(2),
             d3 = b.getAffineDimExpr(3), d4 = b.getAffineDimExpr(4);
  return generic(b, loc, ValueRange{q, kTile}, ValueRange{out},
                 {map(b, 5, {d0, d1, d2, d4}), map(b, 5, {d0, d3, kvHeadOf(d2, group), d4}),
                  map(b, 5, {d0, d1, d2, d3})},
                 iterators(4, 1), [](OpBuilder &nb, Location nl, ValueRange a) {
                   Value prod = extMul(nb, nl, a[0], a[1]);
                   yield(nb, nl, addF(nb, nl, a[2], prod));
                 })[0];
}

/// acc + Σ_j p[b, i, h, j]·v[b, j, h floordiv group, d] over (b, i, h, d, j).
Value pvAccumulate(OpBuilder &b, Location loc, Value v, int64_t group, Value j0,
                   OpFoldResult size, Value p, Value acc) {
  Value vTile = keySlice(b, loc, v, j0, size);
  AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1), d2 = b.getAffineDimExpr(2),
             d3 = b.getAffineDimExpr(3), d4 = b.getAffineDimExpr(4);
  return generic(b, loc, ValueRange{p, vTile}, ValueRange{acc},
                 {map(b, 5, {d0, d1, d2, d4}), map(b, 5, {d0, d4, kvHeadOf(d2, group), d3}),
                  map(b, 5, {d0, d1, d2, d3})},
                 iterators(4, 1), [](OpBuilder &nb, Location nl, ValueRange a) {
                   yield(nb, nl, addF(nb, nl, a[2], mulF(nb, nl, a[0], toF32(nb, nl, a[1]))));
                 })[0];
}

/// The config fields every decoda.attention form shares.
template <typename OpTy>
FlashAttention attentionConfig(OpBuilder &b, Location loc, OpTy op, Value q, Value key,
                               Value value, int64_t tile) {
  FlashAttention fa;
  SmallVector<OpFoldResult> qDims = getDims(b, loc, q);
  fa.rows = {qDims[0], qDims[1], qDims[2]};
  fa.accWidth = getDims(b, loc, value)[3];
  fa.tile = tile;
  int64_t headDim = op.getQuery().getType().getDimSize(3);
  fa.scale = op.getScale() ? op.getScale()->convertToDouble() : 1.0 / std::sqrt(double(headDim));
  if (op.getSoftcap())
    fa.softcap = op.getSoftcap()->convertToDouble();
  fa.causal = op.getCausal();
  if (op.getWindow())
    fa.window = static_cast<int64_t>(*op.getWindow());
  if (op.getChunkSize())
    fa.chunk = static_cast<int64_t>(*op.getChunkSize());
  fa.sinks = op.getSinks();
  int64_t group = op.getNumKvHeads() == 1
                      ? 0 // MQA
                      : static_cast<int64_t>(op.getNumHeads() / op.getNumKvHeads());
  fa.scores = [q, key, group](OpBuilder &nb, Location nl, Value j0, OpFoldResult size) {
    return qkScores(nb, nl, q, key, group, j0, size);
  };
  fa.accumulate = [value, group](OpBuilder &nb, Location nl, Value j0, OpFoldResult size,
                                 Value p, Value acc) {
    return pvAccumulate(nb, nl, value, group, j0, size, p, acc);
  };
  return fa;
}

//===----------------------------------------------------------------------===//
// INT8 attention (decoda.attention with quantize(q_scale, k_scale, v_scale))
//===----------------------------------------------------------------------===//

/// A tensor of `sizes` filled with i32 zeros.
Value zeroI32(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes) {
  Value empty = emptyTensor(b, loc, sizes, b.getI32Type());
  Value cst = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
}

/// clamp(round_half_even(x / scale), -127, 127) as i8, computed in f32 (scale a rank-0 tensor).
Value quantizeSymmetric(OpBuilder &b, Location loc, Value x, Value scale) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  return buildMap(b, loc, ValueRange{x, scale},
                  {b.getMultiDimIdentityMap(rank), AffineMap::get(rank, 0, {}, b.getContext())},
                  emptyLike(b, loc, x, b.getI8Type()),
                  [](OpBuilder &nb, Location nl, ValueRange a) {
                    Value v = arith::DivFOp::create(nb, nl, toF32(nb, nl, a[0]), a[1]);
                    v = math::RoundEvenOp::create(nb, nl, v);
                    v = arith::MaxNumFOp::create(nb, nl, v, f32Const(nb, nl, -127.0));
                    v = arith::MinNumFOp::create(nb, nl, v, f32Const(nb, nl, 127.0));
                    return arith::FPToSIOp::create(nb, nl, nb.getI8Type(), v).getResult();
                  });
}

/// Scores of the INT8 form for keys [j0, j0 + size): the exact i32 dot product of the i8 query
/// and key, times `factor` (= scale · q_scale · k_scale, f32): [B, Tq, H, size] f32.
Value int8Scores(OpBuilder &b, Location loc, Value qi, Value ki, int64_t group, Value factor,
                 Value j0, OpFoldResult size) {
  Value kTile = keySlice(b, loc, ki, j0, size);
  SmallVector<OpFoldResult> sizes = getDims(b, loc, qi);
  sizes[3] = size;
  AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1), d2 = b.getAffineDimExpr(2),
             d3 = b.getAffineDimExpr(3), d4 = b.getAffineDimExpr(4);
  Type i32 = b.getI32Type();
  Value acc = generic(b, loc, ValueRange{qi, kTile}, ValueRange{zeroI32(b, loc, sizes)},
                      {map(b, 5, {d0, d1, d2, d4}), map(b, 5, {d0, d3, kvHeadOf(d2, group), d4}),
                       map(b, 5, {d0, d1, d2, d3})},
                      iterators(4, 1), [&](OpBuilder &nb, Location nl, ValueRange a) {
                        Value x = arith::ExtSIOp::create(nb, nl, i32, a[0]);
                        Value y = arith::ExtSIOp::create(nb, nl, i32, a[1]);
                        Value p = arith::MulIOp::create(nb, nl, x, y);
                        yield(nb, nl, arith::AddIOp::create(nb, nl, a[2], p).getResult());
                      })[0];
  return buildMap(b, loc, ValueRange{acc}, {b.getMultiDimIdentityMap(4)},
                  emptyTensor(b, loc, sizes, b.getF32Type()),
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    Value v = arith::SIToFPOp::create(nb, nl, nb.getF32Type(), a[0]);
                    return mulF(nb, nl, v, factor);
                  });
}

/// A [B, Tq, H] f32 map over `ins` (each [B, Tq, H]), followed in the body arguments by the
/// head's sink logit when `fa.sinks` is set.
Value rowMapWithSinks(OpBuilder &b, Location loc, const FlashAttention &fa,
                      SmallVector<Value> ins,
                      function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<AffineMap> maps(ins.size(), b.getMultiDimIdentityMap(3));
  if (fa.sinks) {
    ins.push_back(fa.sinks);
    maps.push_back(map(b, 3, {b.getAffineDimExpr(2)}));
  }
  return buildMap(b, loc, ins, maps, emptyTensor(b, loc, fa.rows, b.getF32Type()), body);
}

/// The operands of an INT8 attention: `key`/`value` hold exactly the keys attended to
/// ([B, keyLen, Hkv, *]); the scales are rank-0 f32 tensors.
struct Int8Operands {
  Value query, key, value, qScale, kScale, vScale;
  int64_t group = 0; // as kvHeadOf
};

/// The INT8 attention of the op (see the op descriptions): two passes over the key tiles, the
/// first for the row max m (max with the sink), the second for l = Σ exp(s - m) (f32) and
/// acc = Σ_j clamp(rint(255 · exp(s_j - m)), 0, 255) · v_i8[j] (i32); then
/// out = acc · v_scale / (255 · (l + exp(sink - m))), 0 for a row that sees no key. This is the
/// target-neutral form; the CPU pipeline replaces it by decoda-cpu-int8-attention's kernel,
/// which keeps each query block's scores instead of computing q·k twice.
Value buildInt8Attention(OpBuilder &b, Location loc, const Int8Operands &in, FlashAttention fa) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  int64_t group = in.group;
  Value qi = quantizeSymmetric(b, loc, in.query, in.qScale);
  Value ki = quantizeSymmetric(b, loc, in.key, in.kScale);
  Value vi = quantizeSymmetric(b, loc, in.value, in.vScale);
  Value qs = tensor::ExtractOp::create(b, loc, in.qScale, ValueRange{});
  Value ks = tensor::ExtractOp::create(b, loc, in.kScale, ValueRange{});
  Value vs = tensor::ExtractOp::create(b, loc, in.vScale, ValueRange{});
  // scale · q_scale · k_scale in f32, in this order (as the reference); maskScores then must
  // not scale again.
  Value factor = mulF(b, loc, mulF(b, loc, f32Const(b, loc, fa.scale), qs), ks);
  fa.scale = 1.0;
  auto scores = [&](OpBuilder &nb, Location nl, Value j0, OpFoldResult size) {
    Value s = int8Scores(nb, nl, qi, ki, group, factor, j0, size);
    return maskScores(nb, nl, fa, s, j0, size);
  };
  AffineMap id4 = b.getMultiDimIdentityMap(4);
  AffineMap row4 = id4.dropResult(3);

  // Pass 1: m = max over the visible scores.
  Value m = forEachKeyTile(
      b, loc, fa, ValueRange{filledTensor(b, loc, fa.rows, f32, kNegInf)},
      [&](OpBuilder &nb, Location nl, Value j0, OpFoldResult size, ValueRange iter) {
        Value s = scores(nb, nl, j0, size);
        return SmallVector<Value>{generic(nb, nl, ValueRange{s}, ValueRange{iter[0]},
                                          {id4, row4}, iterators(3, 1),
                                          [](OpBuilder &bb, Location ll, ValueRange a) {
                                            yield(bb, ll,
                                                  arith::MaximumFOp::create(bb, ll, a[1], a[0])
                                                      .getResult());
                                          })[0]};
      })[0];
  // The exponent base: max(m, sink), 0 while -inf.
  Value base = rowMapWithSinks(b, loc, fa, {m}, [&](OpBuilder &nb, Location nl, ValueRange a) {
                          Value v = a[0];
                          if (fa.sinks)
                            v = arith::MaximumFOp::create(nb, nl, v, toF32(nb, nl, a[1]));
                          return safeMax(nb, nl, v);
                        });

  // Pass 2: l and the integer accumulator.
  SmallVector<OpFoldResult> accSizes = fa.rows;
  accSizes.push_back(fa.accWidth);
  AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1), d2 = b.getAffineDimExpr(2),
             d3 = b.getAffineDimExpr(3), d4 = b.getAffineDimExpr(4);
  SmallVector<Value> state = forEachKeyTile(
      b, loc, fa, ValueRange{filledTensor(b, loc, fa.rows, f32, 0.0), zeroI32(b, loc, accSizes)},
      [&](OpBuilder &nb, Location nl, Value j0, OpFoldResult size, ValueRange iter) {
        Value s = scores(nb, nl, j0, size);
        // p = exp(s - base), in place of the scores
        Value p = generic(nb, nl, ValueRange{base}, ValueRange{s}, {row4, id4}, iterators(4),
                          [](OpBuilder &bb, Location ll, ValueRange a) {
                            yield(bb, ll, expDiff(bb, ll, a[1], a[0]));
                          })[0];
        Value l = generic(nb, nl, ValueRange{p}, ValueRange{iter[0]}, {id4, row4},
                          iterators(3, 1), [](OpBuilder &bb, Location ll, ValueRange a) {
                            yield(bb, ll, addF(bb, ll, a[1], a[0]));
                          })[0];
        // pu = clamp(rint(255 p), 0, 255) as i32
        SmallVector<OpFoldResult> pSizes = getDims(nb, nl, p);
        Value pu = buildMap(nb, nl, ValueRange{p}, {id4}, emptyTensor(nb, nl, pSizes, i32),
                            [](OpBuilder &bb, Location ll, ValueRange a) {
                              Value v = mulF(bb, ll, a[0], f32Const(bb, ll, 255.0));
                              v = math::RoundEvenOp::create(bb, ll, v);
                              v = arith::MaxNumFOp::create(bb, ll, v, f32Const(bb, ll, 0.0));
                              v = arith::MinNumFOp::create(bb, ll, v, f32Const(bb, ll, 255.0));
                              return arith::FPToSIOp::create(bb, ll, bb.getI32Type(), v)
                                  .getResult();
                            });
        Value vTile = keySlice(nb, nl, vi, j0, size);
        Value acc = generic(
            nb, nl, ValueRange{pu, vTile}, ValueRange{iter[1]},
            {map(nb, 5, {d0, d1, d2, d4}), map(nb, 5, {d0, d4, kvHeadOf(d2, group), d3}),
             map(nb, 5, {d0, d1, d2, d3})},
            iterators(4, 1), [](OpBuilder &bb, Location ll, ValueRange a) {
              Value v = arith::ExtSIOp::create(bb, ll, bb.getI32Type(), a[1]);
              Value prod = arith::MulIOp::create(bb, ll, a[0], v);
              yield(bb, ll, arith::AddIOp::create(bb, ll, a[2], prod).getResult());
            })[0];
        return SmallVector<Value>{l, acc};
      });

  // rowDen = l + exp(sink - base); out = acc · v_scale / (255 · rowDen), 0 where rowDen = 0
  // or no key is visible (m = -inf).
  Value den = rowMapWithSinks(b, loc, fa, {state[0], m, base},
                              [&](OpBuilder &nb, Location nl, ValueRange a) {
                         Value d = a[0];
                         if (fa.sinks)
                           d = addF(nb, nl, d, expDiff(nb, nl, toF32(nb, nl, a[3]), a[2]));
                         Value dead = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                                            a[1], f32Const(nb, nl, kNegInf));
                         // 0 marks a row without keys.
                         return arith::SelectOp::create(nb, nl, dead, f32Const(nb, nl, 0.0), d)
                             .getResult();
                       });
  Type elem = cast<RankedTensorType>(in.query.getType()).getElementType();
  return buildMap(b, loc, ValueRange{state[1], den}, {id4, row4},
                  emptyTensor(b, loc, accSizes, elem),
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    Value v = arith::SIToFPOp::create(nb, nl, nb.getF32Type(), a[0]);
                    v = mulF(nb, nl, v, vs);
                    Value d = mulF(nb, nl, f32Const(nb, nl, 255.0), a[1]);
                    Value zero = f32Const(nb, nl, 0.0);
                    Value empty =
                        arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, a[1], zero);
                    Value safe = arith::SelectOp::create(nb, nl, empty, f32Const(nb, nl, 1.0), d);
                    v = arith::DivFOp::create(nb, nl, v, safe);
                    v = arith::SelectOp::create(nb, nl, empty, zero, v);
                    return fromF32(nb, nl, v, elem);
                  });
}

/// The K/V head group of `op` as kvHeadOf takes it.
template <typename OpTy>
int64_t kvGroup(OpTy op) {
  return op.getNumKvHeads() == 1 ? 0
                                 : static_cast<int64_t>(op.getNumHeads() / op.getNumKvHeads());
}

/// Optional operands of an INT8 attention besides the scales.
struct Int8Extras {
  Value mask, segmentIds, sinks;
};

/// The key count inside an outlined attention function: an attribute when `keyLen` is a
/// constant (an attribute, or a constant op of the caller, whose value must not be used inside
/// the new function), else the function's argument `arg` that receives it.
OpFoldResult staticOrArgument(OpBuilder &b, OpFoldResult keyLen, Value arg) {
  if (std::optional<int64_t> k = getConstantIntValue(keyLen))
    return b.getIndexAttr(*k);
  return arg;
}

/// The INT8 attention of `op` from queries `q` to keys [0, keyLen) of `key`/`value` (the whole
/// tensors, or caches with room for more); queries are aligned to the end of those keys.
template <typename OpTy>
Value int8AttentionInline(OpBuilder &b, Location loc, OpTy op, Value q, Value key, Value value,
                          OpFoldResult keyLen, Value qs, Value ks, Value vs, Int8Extras extras,
                          int64_t tile) {
  IndexMath im{b, loc};
  auto prefix = [&](Value x) -> Value {
    auto type = cast<RankedTensorType>(x.getType());
    auto k = getConstantIntValue(keyLen);
    if (k && !type.isDynamicDim(1) && *k == type.getDimSize(1))
      return x;
    SmallVector<OpFoldResult> sizes = getDims(b, loc, x);
    sizes[1] = keyLen;
    SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0)), strides(4, b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
  };
  Value k = prefix(key), v = prefix(value);
  FlashAttention fa = attentionConfig(b, loc, op, q, k, v, tile);
  fa.keyLen = keyLen;
  fa.queryOffset = im.sub(keyLen, fa.rows[1]);
  fa.mask = extras.mask;
  fa.segmentIds = extras.segmentIds;
  fa.sinks = extras.sinks;
  return buildInt8Attention(b, loc, Int8Operands{q, k, v, qs, ks, vs, kvGroup(op)}, fa);
}

/// The configuration dictionary of an attention op for the function tagged for its kernel
/// (kInt8AttentionAttr, kGPUAttentionAttr; read by readAttentionCallAttrs), with the default
/// scale resolved; `withOpName` adds the op's name (the GPU pass names it in its remarks).
template <typename OpTy>
DictionaryAttr attentionCallConfig(OpTy op, bool mask, bool segmentIds, bool sinks,
                                   bool withOpName) {
  Builder b(op.getContext());
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  SmallVector<NamedAttribute> config{
      b.getNamedAttr("num_heads", b.getI64IntegerAttr(op.getNumHeads())),
      b.getNamedAttr("num_kv_heads", b.getI64IntegerAttr(op.getNumKvHeads())),
      b.getNamedAttr("scale", b.getF64FloatAttr(
                                  op.getScale() ? op.getScale()->convertToDouble()
                                                : 1.0 / std::sqrt(double(q.getDimSize(3))))),
      b.getNamedAttr("causal", b.getBoolAttr(op.getCausal())),
      b.getNamedAttr("mask", b.getBoolAttr(mask)),
      b.getNamedAttr("segment_ids", b.getBoolAttr(segmentIds)),
      b.getNamedAttr("sinks", b.getBoolAttr(sinks))};
  if (op.getWindow())
    config.push_back(b.getNamedAttr("window", b.getI64IntegerAttr(*op.getWindow())));
  if (op.getChunkSize())
    config.push_back(b.getNamedAttr("chunk_size", b.getI64IntegerAttr(*op.getChunkSize())));
  if (op.getSoftcap())
    config.push_back(
        b.getNamedAttr("softcap", b.getF64FloatAttr(op.getSoftcap()->convertToDouble())));
  if (withOpName)
    config.push_back(b.getNamedAttr("op", b.getStringAttr(op->getName().getStringRef())));
  return b.getDictionaryAttr(config);
}

/// The same as a call of a new private function `__decoda_int8_attention[_N]` whose body is
/// int8AttentionInline, with the arguments (q, key, value, keyLen, q_scale, k_scale, v_scale
/// [, mask] [, segment_ids] [, sinks]) and the op's configuration in its kInt8AttentionAttr
/// dictionary: decoda-cpu-int8-attention replaces that body after bufferization, where the
/// function boundary gives every operand an identity-layout buffer.
template <typename OpTy>
Value int8AttentionCall(PatternRewriter &rewriter, Location loc, OpTy op, Value key, Value value,
                        OpFoldResult keyLen, Int8Extras extras, int64_t tile) {
  MLIRContext *ctx = rewriter.getContext();
  IndexMath im{rewriter, loc};
  SmallVector<Value> args{op.getQuery(), key,           value,         im.val(keyLen),
                          op.getQScale(), op.getKScale(), op.getVScale()};
  for (Value x : {extras.mask, extras.segmentIds, extras.sinks})
    if (x)
      args.push_back(x);
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (Value x : args) {
    argTypes.push_back(x.getType());
    argLocs.push_back(loc);
  }
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  auto vt = cast<RankedTensorType>(value.getType());
  auto outType = RankedTensorType::get(
      {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), vt.getDimSize(3)}, q.getElementType());

  auto module = op->template getParentOfType<ModuleOp>();
  std::string name = "__decoda_int8_attention";
  for (int i = 1; module.lookupSymbol(name); ++i)
    name = "__decoda_int8_attention_" + std::to_string(i);
  func::FuncOp fn;
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op->template getParentOfType<func::FuncOp>());
    fn = func::FuncOp::create(rewriter, loc, name,
                              FunctionType::get(ctx, argTypes, TypeRange{outType}));
    fn.setPrivate();
    fn->setAttr(kInt8AttentionAttr,
                attentionCallConfig(op, static_cast<bool>(extras.mask),
                                    static_cast<bool>(extras.segmentIds),
                                    static_cast<bool>(extras.sinks), /*withOpName=*/false));
    Block *entry = rewriter.createBlock(&fn.getBody(), {}, argTypes, argLocs);
    rewriter.setInsertionPointToStart(entry);
    unsigned next = 7;
    Int8Extras inner;
    if (extras.mask)
      inner.mask = entry->getArgument(next++);
    if (extras.segmentIds)
      inner.segmentIds = entry->getArgument(next++);
    if (extras.sinks)
      inner.sinks = entry->getArgument(next++);
    // A static key count stays static inside (static key tiles, no slicing).
    OpFoldResult innerLen = staticOrArgument(rewriter, keyLen, entry->getArgument(3));
    Value out = int8AttentionInline(rewriter, loc, op, entry->getArgument(0),
                                    entry->getArgument(1), entry->getArgument(2), innerLen,
                                    entry->getArgument(4),
                                    entry->getArgument(5), entry->getArgument(6), inner, tile);
    if (out.getType() != outType)
      out = tensor::CastOp::create(rewriter, loc, outType, out);
    func::ReturnOp::create(rewriter, loc, out);
  }
  return func::CallOp::create(rewriter, loc, fn, args).getResult(0);
}


/// The attention of `op` from `query` to keys [0, keyLen) of `key`/`value` (whole tensors, or
/// caches with room for more keys; queries aligned to the end of those keys) as a call of a
/// new private function `__decoda_gpu_attention[_N]` tagged kGPUAttentionAttr, whose body is
/// the target-neutral flash loop (buildFlashAttention): decoda-gpu-flash-attention replaces the
/// body by one kernel after bufferization, where the function boundary gives every operand an
/// identity-layout buffer, or leaves it (with a remark) for the inliner to put back.
template <typename OpTy>
Value gpuAttentionCall(PatternRewriter &rewriter, Location loc, OpTy op, Value key, Value value,
                       OpFoldResult keyLen, Value mask, Value segmentIds, Value sinks,
                       int64_t tile) {
  MLIRContext *ctx = rewriter.getContext();
  IndexMath im{rewriter, loc};
  SmallVector<Value> args{op.getQuery(), key, value, im.val(keyLen)};
  for (Value x : {mask, segmentIds, sinks})
    if (x)
      args.push_back(x);
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (Value x : args) {
    argTypes.push_back(x.getType());
    argLocs.push_back(loc);
  }
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  auto vt = cast<RankedTensorType>(value.getType());
  auto outType = RankedTensorType::get(
      {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), vt.getDimSize(3)}, q.getElementType());

  auto module = op->template getParentOfType<ModuleOp>();
  std::string name = "__decoda_gpu_attention";
  for (int i = 1; module.lookupSymbol(name); ++i)
    name = "__decoda_gpu_attention_" + std::to_string(i);
  func::FuncOp fn;
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op->template getParentOfType<func::FuncOp>());
    fn = func::FuncOp::create(rewriter, loc, name,
                              FunctionType::get(ctx, argTypes, TypeRange{outType}));
    fn.setPrivate();
    fn->setAttr(kGPUAttentionAttr,
                attentionCallConfig(op, mask != nullptr, segmentIds != nullptr,
                                    sinks != nullptr, /*withOpName=*/true));
    Block *entry = rewriter.createBlock(&fn.getBody(), {}, argTypes, argLocs);
    rewriter.setInsertionPointToStart(entry);
    unsigned next = 4;
    FlashAttention fa = attentionConfig(rewriter, loc, op, entry->getArgument(0),
                                        entry->getArgument(1), entry->getArgument(2), tile);
    // A static key count stays static inside (static key tiles).
    fa.keyLen = staticOrArgument(rewriter, keyLen, entry->getArgument(3));
    IndexMath inner{rewriter, loc};
    fa.queryOffset = inner.sub(fa.keyLen, fa.rows[1]);
    fa.mask = mask ? entry->getArgument(next++) : Value();
    fa.segmentIds = segmentIds ? entry->getArgument(next++) : Value();
    fa.sinks = sinks ? entry->getArgument(next++) : Value();
    auto [acc, rowScale] = buildFlashAttention(rewriter, loc, fa);
    Value out = scaleRows(rewriter, loc, acc, rowScale, q.getElementType());
    if (out.getType() != outType)
      out = tensor::CastOp::create(rewriter, loc, outType, out);
    func::ReturnOp::create(rewriter, loc, out);
  }
  return func::CallOp::create(rewriter, loc, fn, args).getResult(0);
}

struct LowerAttention : public OpRewritePattern<AttentionOp> {
  LowerAttention(MLIRContext *ctx, int64_t tile, bool int8Calls, bool gpuCalls)
      : OpRewritePattern(ctx), tile(tile), int8Calls(int8Calls), gpuCalls(gpuCalls) {}

  LogicalResult matchAndRewrite(AttentionOp op, PatternRewriter &rewriter) const override {
    if (tile <= 0)
      return rewriter.notifyMatchFailure(op, "attention-key-tile must be positive");
    Location loc = op.getLoc();
    IndexMath im{rewriter, loc};
    assertAttentionShapes(rewriter, loc, op);
    FlashAttention fa =
        attentionConfig(rewriter, loc, op, op.getQuery(), op.getKey(), op.getValue(), tile);
    OpFoldResult tq = fa.rows[1];
    fa.keyLen = getDims(rewriter, loc, op.getKey())[1];
    assertLE(rewriter, loc, tq, fa.keyLen,
             "decoda.attention: more queries than keys (queries are aligned to the end of the "
             "keys, so Tq <= Tk)");
    fa.queryOffset = im.sub(fa.keyLen, tq);
    fa.mask = op.getMask();
    fa.segmentIds = op.getSegmentIds();
    if (op.getQScale()) {
      Int8Extras extras{op.getMask(), op.getSegmentIds(), op.getSinks()};
      Value out =
          int8Calls
              ? int8AttentionCall(rewriter, loc, op, op.getKey(), op.getValue(), fa.keyLen,
                                  extras, tile)
              : int8AttentionInline(rewriter, loc, op, op.getQuery(), op.getKey(), op.getValue(),
                                    fa.keyLen, op.getQScale(), op.getKScale(), op.getVScale(),
                                    extras, tile);
      rewriter.replaceOp(op, out);
      return success();
    }
    if (gpuCalls) {
      rewriter.replaceOp(op, gpuAttentionCall(rewriter, loc, op, op.getKey(), op.getValue(),
                                              fa.keyLen, op.getMask(), op.getSegmentIds(),
                                              op.getSinks(), tile));
      return success();
    }
    auto [acc, rowScale] = buildFlashAttention(rewriter, loc, fa);
    rewriter.replaceOp(op, scaleRows(rewriter, loc, acc, rowScale,
                                     op.getQuery().getType().getElementType()));
    return success();
  }

  int64_t tile;
  bool int8Calls;
  bool gpuCalls;
};

struct LowerCachedAttention : public OpRewritePattern<CachedAttentionOp> {
  LowerCachedAttention(MLIRContext *ctx, int64_t tile, int64_t decodeTile, bool int8Calls,
                       bool gpuCalls)
      : OpRewritePattern(ctx), tile(tile), decodeTile(decodeTile), int8Calls(int8Calls),
        gpuCalls(gpuCalls) {}

  LogicalResult matchAndRewrite(CachedAttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (tile <= 0)
      return rewriter.notifyMatchFailure(op, "attention-key-tile must be positive");
    Location loc = op.getLoc();
    IndexMath im{rewriter, loc};
    Value offset = op.getOffset();

    StringRef name = "decoda.cached_attention";
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    Value kc = op.getKeyCache(), vc = op.getValueCache();
    assertSameExtent(rewriter, loc, q, 1, k, 1, name, "the number of queries and new keys");
    assertSameExtent(rewriter, loc, k, 1, v, 1, name, "the numbers of new keys and values");
    for (auto [x, what] : {std::pair<Value, StringRef>{k, "the query and key batch sizes"},
                           {v, "the query and value batch sizes"},
                           {kc, "the query and key_cache batch sizes"},
                           {vc, "the query and value_cache batch sizes"}})
      assertSameExtent(rewriter, loc, q, 0, x, 0, name, what);
    assertSameExtent(rewriter, loc, kc, 1, vc, 1, name, "the key and value cache capacities");

    // 0 <= offset and offset + T <= S, checked before anything is written.
    SmallVector<OpFoldResult> kDims = getDims(rewriter, loc, op.getKey());
    OpFoldResult t = kDims[1];
    OpFoldResult capacity = getDims(rewriter, loc, op.getKeyCache())[1];
    OpFoldResult keyLen = im.add(offset, t);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value nonNegative =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, offset, zero);
    Value end = im.val(keyLen), cap = im.val(capacity);
    Value fits = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle, end, cap);
    cf::AssertOp::create(rewriter, loc, arith::AndIOp::create(rewriter, loc, nonNegative, fits),
                         "decoda.cached_attention: the new tokens [offset, offset + T) do not "
                         "fit in the cache (need 0 <= offset and offset + T <= S)");

    auto append = [&](Value cache, Value update) {
      SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, update);
      SmallVector<OpFoldResult> offsets(4, rewriter.getIndexAttr(0)),
          strides(4, rewriter.getIndexAttr(1));
      offsets[1] = offset;
      return tensor::InsertSliceOp::create(rewriter, loc, update, cache, offsets, sizes, strides)
          .getResult();
    };
    Value keyCache = append(op.getKeyCache(), op.getKey());
    Value valueCache = append(op.getValueCache(), op.getValue());

    if (op.getQScale()) {
      // K and V are quantised when read: the caches keep their storage type.
      Int8Extras extras{Value(), Value(), op.getSinks()};
      Value out = int8Calls ? int8AttentionCall(rewriter, loc, op, keyCache, valueCache, keyLen,
                                                extras, tile)
                            : int8AttentionInline(rewriter, loc, op, op.getQuery(), keyCache,
                                                  valueCache, keyLen, op.getQScale(),
                                                  op.getKScale(), op.getVScale(), extras, tile);
      rewriter.replaceOp(op, {out, keyCache, valueCache});
      return success();
    }

    // A decode step (a few queries): the score tiles are tiny, so larger ones mean fewer loop
    // steps (each a few parallel loops) at no cost in memory.
    int64_t queries = op.getQuery().getType().getDimSize(1);
    int64_t keyTile = tile;
    if (decodeTile > 0 && !ShapedType::isDynamic(queries) && queries <= 4)
      keyTile = decodeTile;
    if (gpuCalls) {
      Value out = gpuAttentionCall(rewriter, loc, op, keyCache, valueCache, keyLen, Value(),
                                   Value(), op.getSinks(), keyTile);
      rewriter.replaceOp(op, {out, keyCache, valueCache});
      return success();
    }
    FlashAttention fa =
        attentionConfig(rewriter, loc, op, op.getQuery(), keyCache, valueCache, keyTile);
    fa.keyLen = keyLen;
    fa.queryOffset = offset;
    auto [acc, rowScale] = buildFlashAttention(rewriter, loc, fa);
    Value out =
        scaleRows(rewriter, loc, acc, rowScale, op.getQuery().getType().getElementType());
    rewriter.replaceOp(op, {out, keyCache, valueCache});
    return success();
  }

  int64_t tile, decodeTile;
  bool int8Calls;
  bool gpuCalls;
};

//===----------------------------------------------------------------------===//
// Multi-head latent attention, absorbed on the fly
//===----------------------------------------------------------------------===//

struct LowerMLA : public OpRewritePattern<MLAOp> {
  LowerMLA(MLIRContext *ctx, int64_t tile) : OpRewritePattern(ctx), tile(tile) {}

  LogicalResult matchAndRewrite(MLAOp op, PatternRewriter &rewriter) const override {
    if (tile <= 0)
      return rewriter.notifyMatchFailure(op, "attention-key-tile must be positive");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    IndexMath im{b, loc};
    Type f32 = b.getF32Type();
    Value qNope = op.getQNope(), qRope = op.getQRope(), latent = op.getLatent(),
          kRope = op.getKRope(), wUk = op.getWUk(), wUv = op.getWUv();
    AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1), d2 = b.getAffineDimExpr(2),
               d3 = b.getAffineDimExpr(3), d4 = b.getAffineDimExpr(4);
    AffineMap out5 = map(b, 5, {d0, d1, d2, d3});
    auto contractBody = [](OpBuilder &nb, Location nl, ValueRange a) {
      Value prod = extMul(nb, nl, a[0], a[1]);
      yield(nb, nl, addF(nb, nl, a[2], prod));
    };

    StringRef name = "decoda.mla";
    assertSameExtent(b, loc, qNope, 0, qRope, 0, name, "the q_nope and q_rope batch sizes");
    assertSameExtent(b, loc, qNope, 1, qRope, 1, name, "the q_nope and q_rope lengths");
    assertSameExtent(b, loc, qNope, 0, latent, 0, name, "the query and latent batch sizes");
    assertSameExtent(b, loc, latent, 0, kRope, 0, name, "the latent and k_rope batch sizes");
    assertSameExtent(b, loc, latent, 1, kRope, 1, name, "the latent and k_rope lengths");

    SmallVector<OpFoldResult> qDims = getDims(b, loc, qNope);
    OpFoldResult dc = getDims(b, loc, latent)[2];
    int64_t dn = op.getQNope().getType().getDimSize(3);
    int64_t dr = op.getQRope().getType().getDimSize(3);

    // q_abs[b, i, h, c] = Σ_n q_nope[b, i, h, n]·W_UK[h, n, c] over (b, i, h, c, n).
    SmallVector<OpFoldResult> absSizes{qDims[0], qDims[1], qDims[2], dc};
    Value qAbs = generic(b, loc, ValueRange{qNope, wUk},
                         ValueRange{filledTensor(b, loc, absSizes, f32, 0.0)},
                         {map(b, 5, {d0, d1, d2, d4}), map(b, 5, {d2, d4, d3}), out5},
                         iterators(4, 1), contractBody)[0];

    FlashAttention fa;
    fa.rows = {qDims[0], qDims[1], qDims[2]};
    fa.accWidth = dc;
    fa.tile = tile;
    fa.scale = op.getScale() ? op.getScale()->convertToDouble()
                             : 1.0 / std::sqrt(static_cast<double>(dn + dr));
    fa.causal = op.getCausal();
    fa.keyLen = getDims(b, loc, latent)[1];
    assertLE(b, loc, fa.rows[1], fa.keyLen,
             "decoda.mla: more queries than latent keys (queries are aligned to the end of the "
             "keys, so Tq <= Tk)");
    fa.queryOffset = im.sub(fa.keyLen, fa.rows[1]);
    // s = q_abs·c_j + q_rope·k_rope_j, two contractions over (b, i, h, j, ·).
    fa.scores = [=](OpBuilder &nb, Location nl, Value j0, OpFoldResult size) {
      Value cTile = keySlice(nb, nl, latent, j0, size);
      Value rTile = keySlice(nb, nl, kRope, j0, size);
      SmallVector<OpFoldResult> sizes{qDims[0], qDims[1], qDims[2], size};
      Value s = filledTensor(nb, nl, sizes, f32, 0.0);
      AffineMap qMap = map(nb, 5, {d0, d1, d2, d4}), kMap = map(nb, 5, {d0, d3, d4});
      s = generic(nb, nl, ValueRange{qAbs, cTile}, ValueRange{s}, {qMap, kMap, out5},
                  iterators(4, 1), contractBody)[0];
      return generic(nb, nl, ValueRange{qRope, rTile}, ValueRange{s}, {qMap, kMap, out5},
                     iterators(4, 1), contractBody)[0];
    };
    // acc[b, i, h, c] += Σ_j p[b, i, h, j]·c[b, j, c] over (b, i, h, c, j).
    fa.accumulate = [=](OpBuilder &nb, Location nl, Value j0, OpFoldResult size, Value p,
                        Value acc) {
      Value cTile = keySlice(nb, nl, latent, j0, size);
      return generic(nb, nl, ValueRange{p, cTile}, ValueRange{acc},
                     {map(nb, 5, {d0, d1, d2, d4}), map(nb, 5, {d0, d4, d3}), out5},
                     iterators(4, 1), contractBody)[0];
    };
    auto [acc, rowScale] = buildFlashAttention(b, loc, fa);

    // out[b, i, h, v] = rowScale · Σ_c acc[b, i, h, c]·W_UV[h, v, c] over (b, i, h, v, c).
    SmallVector<OpFoldResult> outSizes{qDims[0], qDims[1], qDims[2], getDims(b, loc, wUv)[1]};
    Value out = generic(b, loc, ValueRange{acc, wUv},
                        ValueRange{filledTensor(b, loc, outSizes, f32, 0.0)},
                        {map(b, 5, {d0, d1, d2, d4}), map(b, 5, {d2, d3, d4}), out5},
                        iterators(4, 1), contractBody)[0];
    rewriter.replaceOp(
        op, scaleRows(b, loc, out, rowScale, op.getQNope().getType().getElementType()));
    return success();
  }

  int64_t tile;
};
} // namespace

void mlir::decoda::populateAttentionLoweringPatterns(RewritePatternSet &patterns,
                                                     const DecodaToLinalgOptions &options) {
  patterns.add<LowerAttention>(patterns.getContext(), options.attentionKeyTile,
                               options.int8AttentionCalls, options.gpuKernelCalls);
  patterns.add<LowerCachedAttention>(patterns.getContext(), options.attentionKeyTile,
                                     options.attentionDecodeKeyTile, options.int8AttentionCalls,
                                     options.gpuKernelCalls);
  patterns.add<LowerMLA>(patterns.getContext(), options.attentionKeyTile);
}
