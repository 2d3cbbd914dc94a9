//===- CPUInt8Attention.cpp - AVX-512 VNNI kernel for INT8 attention ------===//
//
// decoda-convert-to-linalg{int8-attention-calls} lowers every INT8 attention (`quantize(...)`
// on decoda.attention / decoda.cached_attention) to a call of a private function tagged
// `decoda.int8_attention` whose body is the target-neutral form (scalar linalg, q·k computed
// twice). After bufferization, where the function boundary gives every operand an
// identity-layout buffer, this pass replaces that body by
//
//   factor = scale · q_scale · k_scale                         (f32, in this order)
//   Kp, ksum, Vp = heap buffers; out = alloc [B, Tq, Hq, Dv]
//   scf.parallel (b, kv head, panel of 32 keys) {                      // pack K and V
//     Kp[b][h][p][d4][j][0:4] = k_i8[b, 32p + j, h, 4 d4 : 4 d4 + 4]   (VNNI: 4 d a lane)
//     ksum[b][h][p][j] = Σ_d k_i8[b, 32p + j, h, d]
//     Vp[b][h][g][d][0:4] = v_i8[b, 4g : 4g + 4, h, d]                  (4 keys a lane)
//   }                                   k_i8 = clamp(rint(k / k_scale), -127, 127), 0 past keyLen
//   scf.parallel (b, kv head, set c of query blocks) {   // scratch S, P allocated per set
//    for blocks c, c + 16, ... of QB queries:            // rows: (query, head of the group)
//     qu[r] = q_i8[row r] + 128 (u8)
//     keys [j0, j1) that a query of the block can see, j0 a multiple of 32
//     S[r][j] = mask(softcap(factor · (vpdpbusd(qu, Kp) - 128 · ksum[j])))   8-, 4-, 1-row tiles
//     per row: m = max_j S (and the sink), p = exp(S - m), l = Σ p (+ sink term),
//              P[r][j] = clamp(rint(255 p), 0, 255) (u8), den[r] = l (0 when no key is visible)
//     out[row] = vpdpbusd(P, Vp) · v_scale / (255 · den)                    4- and 1-row tiles
//   }
//
// The scores of a query block are kept (S, f32, one row per (query, head) for the block's key
// range) instead of computing q·k a second time once the row max is known: the INT8 semantics
// (u8 probabilities relative to the row's final max) stay exactly those of the op. Both
// products are exact i32 sums: s8·s8 through the u8 offset (Σ (q+128)·k - 128·Σ k, with the
// per-key sums of K computed per call since K is an activation), u8·s8 directly (P is u8).
// exp and tanh run on 16 lanes through MLIR's polynomial approximations, which can differ
// from libm in the last bit (as the scalar form's libm calls can from NumPy's). GQA/MQA by
// index: the rows of a work item are the heads of one K/V head group.
//
// Supported: D a multiple of 4, Dv a multiple of 16, f32/f16/bf16 storage; anything else keeps
// the target-neutral body (with a remark).
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"
#include "decoda/Transforms/Passes.h"

#include "TaggedCalls.h"
#include "X86Dot.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir::decoda {
#define GEN_PASS_DEF_CPUINT8ATTENTIONPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
constexpr int64_t kLanes = 16;           // i32 / f32 lanes of an AVX-512 register
constexpr int64_t kKeyPanel = 2 * kLanes; // keys of a packed K panel / score tile
constexpr int64_t kGroup = 4;            // bytes per 32-bit lane of vpdpbusd
constexpr int64_t kChunks = 16;          // sets of query blocks per (batch, KV head)
constexpr llvm::StringLiteral kCollapseAttr = "decoda.parallel_all_dims";

/// The configuration of one tagged function (see kInt8AttentionAttr).
using Config = mlir::decoda::AttentionCallConfig;

bool identityMemRef(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && m.getLayout().isIdentity();
}

/// Reads the configuration and checks that the kernel handles the function; the reason when not.
FailureOr<Config> readConfig(func::FuncOp fn, DictionaryAttr dict, std::string &why) {
  Config c;
  if (failed(mlir::decoda::readAttentionCallAttrs(dict, c, why)))
    return failure();

  FunctionType type = fn.getFunctionType();
  unsigned expected = 7 + c.mask + c.segmentIds + c.sinks;
  if (type.getNumInputs() != expected || type.getNumResults() != 1) {
    why = "unexpected signature";
    return failure();
  }
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (!isa<IndexType>(t) && !identityMemRef(t)) {
      why = "an operand that is not an identity-layout buffer (not yet bufferized?)";
      return failure();
    }
  auto q = dyn_cast<MemRefType>(type.getInput(0));
  auto k = dyn_cast<MemRefType>(type.getInput(1));
  auto v = dyn_cast<MemRefType>(type.getInput(2));
  if (!q || !k || !v || q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4 ||
      !isa<IndexType>(type.getInput(3))) {
    why = "unexpected signature";
    return failure();
  }
  c.d = q.getDimSize(3);
  c.dv = v.getDimSize(3);
  c.elem = q.getElementType();
  if (!c.elem.isF32() && !c.elem.isF16() && !c.elem.isBF16()) {
    why = "storage type other than f32, f16, bf16";
    return failure();
  }
  if (ShapedType::isDynamic(c.d) || c.d % kGroup != 0) {
    why = "head dim D not a multiple of 4";
    return failure();
  }
  if (ShapedType::isDynamic(c.dv) || c.dv % kLanes != 0) {
    why = "value head dim Dv not a multiple of 16";
    return failure();
  }
  if (q.getDimSize(2) != c.numHeads || k.getDimSize(2) != c.numKvHeads ||
      v.getDimSize(2) != c.numKvHeads) {
    why = "head counts differ from the configuration";
    return failure();
  }
  return c;
}

class Kernel {
public:
  Kernel(func::FuncOp fn, const Config &c, bool vnni)
      : fn(fn), c(c), vnni(vnni), b(fn.getContext()), loc(fn.getLoc()) {}

  void emit() {
    // The new body keeps the arguments; the target-neutral ops go.
    Block &entry = mlir::decoda::clearTaggedBody(fn);
    b.setInsertionPointToStart(&entry);
    i8 = b.getI8Type();
    i32 = b.getI32Type();
    f32 = b.getF32Type();
    i32v = VectorType::get({kLanes}, i32);
    f32v = VectorType::get({kLanes}, f32);
    bytes = VectorType::get({kLanes * kGroup}, i8);
    c0 = idx(0);
    c1 = idx(1);

    q = entry.getArgument(0);
    k = entry.getArgument(1);
    v = entry.getArgument(2);
    keyLen = entry.getArgument(3);
    unsigned next = 7;
    if (c.mask)
      mask = entry.getArgument(next++);
    if (c.segmentIds)
      seg = entry.getArgument(next++);
    if (c.sinks)
      sinks = entry.getArgument(next++);
    Value qs = memref::LoadOp::create(b, loc, entry.getArgument(4), ValueRange{});
    Value ks = memref::LoadOp::create(b, loc, entry.getArgument(5), ValueRange{});
    Value vs = memref::LoadOp::create(b, loc, entry.getArgument(6), ValueRange{});
    qScale = splat(f32v, qs);
    kScale = splat(f32v, ks);
    vScale = splat(f32v, vs);
    factor = splat(f32v, arith::MulFOp::create(
                             b, loc, arith::MulFOp::create(b, loc, f32c(c.scale), qs), ks));

    batch = memref::DimOp::create(b, loc, q, 0);
    tq = memref::DimOp::create(b, loc, q, 1);
    qOffset = arith::SubIOp::create(b, loc, keyLen, tq);
    panels = arith::CeilDivUIOp::create(b, loc, keyLen, idx(kKeyPanel));
    d4 = c.d / kGroup;
    qb = c.group >= 16 ? 1 : 16 / c.group;
    rowsMax = qb * c.group;

    Value hkv = idx(c.numKvHeads);
    kp = alloc(MemRefType::get({ShapedType::kDynamic, c.numKvHeads, ShapedType::kDynamic,
                                d4 * kKeyPanel * kGroup},
                               i8),
               {batch, panels});
    ksum = alloc(MemRefType::get({ShapedType::kDynamic, c.numKvHeads, ShapedType::kDynamic,
                                  kKeyPanel},
                                 i32),
                 {batch, panels});
    Value groups = arith::MulIOp::create(b, loc, panels, idx(kKeyPanel / kGroup));
    vp = alloc(MemRefType::get({ShapedType::kDynamic, c.numKvHeads, ShapedType::kDynamic,
                                c.dv * kGroup},
                               i8),
               {batch, groups});
    auto outType = cast<MemRefType>(fn.getFunctionType().getResult(0));
    SmallVector<Value> outDyn;
    for (int64_t i = 0; i < 4; ++i)
      if (outType.isDynamicDim(i))
        outDyn.push_back(memref::DimOp::create(b, loc, q, i));
    out = memref::AllocOp::create(b, loc, outType, outDyn, b.getI64IntegerAttr(64));

    parallel({batch, hkv, panels}, [&](ValueRange iv) { packPanel(iv[0], iv[1], iv[2]); });
    Value blocks = arith::CeilDivUIOp::create(b, loc, tq, idx(qb));
    // Work items: (batch, KV head, one of up to kChunks interleaved sets of query blocks), so
    // that causal blocks of every length are spread over the threads and the scratch buffers
    // (sized for every key) are allocated once per set rather than once per block.
    Value chunks = minI(blocks, idx(kChunks));
    parallel({batch, hkv, chunks}, [&](ValueRange iv) {
      Value bi = iv[0], kvh = iv[1];
      Value maxWidth = mul(panels, kKeyPanel);
      qu = alloc(MemRefType::get({rowsMax, c.d}, i8), {});
      scores = alloc(MemRefType::get({rowsMax, ShapedType::kDynamic}, f32), {maxWidth});
      probs = alloc(MemRefType::get({rowsMax, ShapedType::kDynamic}, i8), {maxWidth});
      den = alloc(MemRefType::get({rowsMax}, f32), {});
      loop(iv[2], blocks, chunks, [&](Value blk) { workItem(bi, kvh, blk); });
      for (Value buf : {qu, scores, probs, den})
        memref::DeallocOp::create(b, loc, buf);
    });
    for (Value buf : {kp, ksum, vp})
      memref::DeallocOp::create(b, loc, buf);
    func::ReturnOp::create(b, loc, out);
  }

private:
  //===--------------------------------------------------------------------===//
  // Small builders
  //===--------------------------------------------------------------------===//

  Value idx(int64_t x) { return arith::ConstantIndexOp::create(b, loc, x); }
  Value f32c(double x) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(x)));
  }
  Value splat(Type t, Value x) { return vector::BroadcastOp::create(b, loc, t, x); }
  Value vconst(VectorType t, Attribute a) {
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(t, a));
  }
  Value f32Splat(double x) { return vconst(f32v, b.getF32FloatAttr(static_cast<float>(x))); }
  Value i32Splat(int64_t x) { return vconst(i32v, b.getI32IntegerAttr(static_cast<int32_t>(x))); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) { return y == 1 ? x : mul(x, idx(y)); }
  Value divC(Value x, int64_t y) { return arith::DivUIOp::create(b, loc, x, idx(y)); }
  Value remC(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, idx(y)); }
  Value minI(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value maxI(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }

  Value alloc(MemRefType t, ValueRange dyn) {
    return memref::AllocOp::create(b, loc, t, dyn, b.getI64IntegerAttr(64));
  }

  /// A vector<16xT> widened to f32.
  Value toF32(Value x) {
    auto t = cast<VectorType>(x.getType());
    return t.getElementType().isF32() ? x : arith::ExtFOp::create(b, loc, f32v, x).getResult();
  }

  /// clamp(rint(x / scale), -127, 127) on 16 lanes, as i32 (the op's quantisation, in f32).
  Value quantize(Value x, Value scale) {
    Value f = arith::DivFOp::create(b, loc, toF32(x), scale);
    f = math::RoundEvenOp::create(b, loc, f);
    f = arith::MaxNumFOp::create(b, loc, f, f32Splat(-127.0));
    f = arith::MinNumFOp::create(b, loc, f, f32Splat(127.0));
    return arith::FPToSIOp::create(b, loc, i32v, f);
  }

  /// A masked load of 16 storage-type elements of `buf` at `at` (zeros where masked off).
  Value load16(Value buf, ValueRange at, Value lanes) {
    Type elem = cast<MemRefType>(buf.getType()).getElementType();
    auto t = VectorType::get({kLanes}, elem);
    Value pass = vconst(t, isa<FloatType>(elem) ? Attribute(b.getFloatAttr(elem, 0.0))
                                                : Attribute(b.getIntegerAttr(elem, 0)));
    return vector::MaskedLoadOp::create(b, loc, t, buf, at, lanes, pass);
  }
  Value laneMask(Value n) {
    return vector::CreateMaskOp::create(b, loc, VectorType::get({kLanes}, b.getI1Type()),
                                        ValueRange{n});
  }

  /// The 4 bytes of `buf` at `at` as one i32 (the u8 operand of vpdpbusd, for every lane).
  Value word4(Value buf, ValueRange at) {
    Value a4 = vector::LoadOp::create(b, loc, VectorType::get({kGroup}, i8), buf, at);
    Value a1 = vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), a4);
    return vector::ExtractOp::create(b, loc, a1, ArrayRef<int64_t>{0});
  }

  /// vpdpbusd, or its i32 vector form on targets without AVX-512 VNNI.
  Value vpdpbusd(Value acc, Value u8, Value s8) {
    return decoda::dotU8S8(b, loc, acc, u8, s8, vnni);
  }

  /// for (iv = lb; iv < ub; iv += step) body(iv), with the builder inside.
  void loop(Value lb, Value ub, Value step, function_ref<void(Value)> body) {
    auto f = scf::ForOp::create(b, loc, lb, ub, step);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(f.getBody()->getTerminator());
    body(f.getInductionVar());
  }
  /// The same with loop-carried values; returns the final ones.
  SmallVector<Value> loop(Value lb, Value ub, Value step, ValueRange init,
                          function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    auto f = scf::ForOp::create(
        b, loc, lb, ub, step, init, [&](OpBuilder &nb, Location, Value iv, ValueRange iter) {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          scf::YieldOp::create(b, loc, body(iv, iter));
        });
    return SmallVector<Value>(f.getResults());
  }
  void parallel(ArrayRef<Value> ubs, function_ref<void(ValueRange)> body) {
    SmallVector<Value> lbs(ubs.size(), c0), steps(ubs.size(), c1);
    auto par = scf::ParallelOp::create(b, loc, lbs, ubs, steps,
                                       [&](OpBuilder &nb, Location, ValueRange ivs) {
                                         OpBuilder::InsertionGuard g(b);
                                         b.setInsertionPoint(nb.getInsertionBlock(),
                                                             nb.getInsertionPoint());
                                         body(ivs);
                                       });
    par->setAttr(kCollapseAttr, b.getUnitAttr());
  }
  /// Rows [0, n) in tiles of sizes[0] rows, then sizes[1], ...: body(first row, rows).
  void rowTiles(Value n, ArrayRef<int64_t> sizes, function_ref<void(Value, int64_t)> body) {
    Value lb = c0;
    for (int64_t rows : sizes) {
      Value ub = rows == 1 ? n : add(lb, mul(divC(sub(n, lb), rows), rows));
      loop(lb, ub, idx(rows), [&](Value r0) { body(r0, rows); });
      lb = ub;
    }
  }

  //===--------------------------------------------------------------------===//
  // K and V packing, one panel of 32 keys
  //===--------------------------------------------------------------------===//

  void packPanel(Value bi, Value h, Value p) {
    Value lastKey = sub(keyLen, c1); // keyLen >= 1 when there is a panel
    Value zero = i32Splat(0);
    // K: per key, its quantised values 4 at a time into the panel's d4 rows, and its sum.
    loop(c0, idx(kKeyPanel), c1, [&](Value j) {
      Value key = add(mul(p, kKeyPanel), j);
      Value valid = cmp(arith::CmpIPredicate::ult, key, keyLen);
      Value keyC = minI(key, lastKey);
      Value sum = zero;
      for (int64_t c0d = 0; c0d < c.d; c0d += kLanes) {
        int64_t width = std::min<int64_t>(kLanes, c.d - c0d);
        Value x = load16(k, ValueRange{bi, keyC, h, idx(c0d)}, laneMask(idx(width)));
        Value qi = arith::SelectOp::create(b, loc, valid, quantize(x, kScale), zero);
        sum = add(sum, qi);
        Value qb8 = arith::TruncIOp::create(b, loc, VectorType::get({kLanes}, i8), qi);
        for (int64_t t = 0; t < width / kGroup; ++t) {
          Value g4 = vector::ExtractStridedSliceOp::create(b, loc, qb8, ArrayRef<int64_t>{kGroup * t},
                                                           ArrayRef<int64_t>{kGroup},
                                                           ArrayRef<int64_t>{1});
          int64_t row = c0d / kGroup + t;
          vector::StoreOp::create(
              b, loc, g4, kp,
              ValueRange{bi, h, p, add(idx(row * kKeyPanel * kGroup), mul(j, kGroup))});
        }
      }
      Value total = vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, sum);
      memref::StoreOp::create(b, loc, total, ksum, ValueRange{bi, h, p, j});
    });
    // V: per group of 4 keys, 16 columns at a time, the 4 keys' bytes interleaved per column.
    SmallVector<int64_t> pairs, quads;
    for (int64_t t = 0; t < kLanes; ++t)
      pairs.append({t, t + kLanes});
    for (int64_t t = 0; t < kLanes; ++t)
      quads.append({2 * t, 2 * t + 1, 2 * kLanes + 2 * t, 2 * kLanes + 2 * t + 1});
    loop(c0, idx(kKeyPanel / kGroup), c1, [&](Value g) {
      Value group = add(mul(p, kKeyPanel / kGroup), g);
      SmallVector<Value> valid, keyC;
      for (int64_t r = 0; r < kGroup; ++r) {
        Value key = add(mul(group, kGroup), idx(r));
        valid.push_back(cmp(arith::CmpIPredicate::ult, key, keyLen));
        keyC.push_back(minI(key, lastKey));
      }
      Value all = laneMask(idx(kLanes));
      for (int64_t c0d = 0; c0d < c.dv; c0d += kLanes) {
        Value rows[kGroup];
        for (int64_t r = 0; r < kGroup; ++r) {
          Value x = load16(v, ValueRange{bi, keyC[r], h, idx(c0d)}, all);
          Value qi = arith::SelectOp::create(b, loc, valid[r], quantize(x, vScale), zero);
          rows[r] = arith::TruncIOp::create(b, loc, VectorType::get({kLanes}, i8), qi);
        }
        Value s01 = vector::ShuffleOp::create(b, loc, rows[0], rows[1], pairs);
        Value s23 = vector::ShuffleOp::create(b, loc, rows[2], rows[3], pairs);
        Value s = vector::ShuffleOp::create(b, loc, s01, s23, quads);
        vector::StoreOp::create(b, loc, s, vp, ValueRange{bi, h, group, idx(c0d * kGroup)});
      }
    });
  }

  //===--------------------------------------------------------------------===//
  // One work item: a block of queries for the heads of one K/V head
  //===--------------------------------------------------------------------===//

  /// Row r of a work item: query i0 + r / G, head h0 + r % G.
  std::pair<Value, Value> rowQueryHead(Value r) {
    return {add(i0, divC(r, c.group)), add(h0, remC(r, c.group))};
  }

  void workItem(Value bi, Value kvh, Value blk) {
    this->bi = bi;
    this->kvh = kvh;
    i0 = mul(blk, qb);
    h0 = mul(kvh, c.group);
    Value nq = minI(idx(qb), sub(tq, i0));
    Value nRows = mul(nq, c.group);

    // The keys a query of the block can see: [start, end), start rounded down to a panel.
    Value p0 = add(qOffset, i0);
    Value pLast = sub(add(p0, nq), c1);
    Value start = c0;
    if (c.window) // j > p0 - window
      start = maxI(start, sub(add(p0, c1), idx(*c.window)));
    if (c.chunk) // j >= floor(p0 / c) c
      start = maxI(start, mul(divC(p0, *c.chunk), *c.chunk));
    jStart = mul(divC(start, kKeyPanel), kKeyPanel);
    Value end = keyLen;
    if (c.causal)
      end = minI(end, add(pLast, c1));
    if (c.chunk)
      end = minI(end, mul(add(divC(pLast, *c.chunk), c1), *c.chunk));
    Value nKeys = maxI(sub(end, jStart), c0);
    tiles = arith::CeilDivUIOp::create(b, loc, nKeys, idx(kKeyPanel));
    width = mul(tiles, kKeyPanel);

    // qu[r] = q_i8 + 128 (as u8 bits).
    loop(c0, nRows, c1, [&](Value r) {
      auto [i, h] = rowQueryHead(r);
      for (int64_t c0d = 0; c0d < c.d; c0d += kLanes) {
        int64_t w = std::min<int64_t>(kLanes, c.d - c0d);
        Value lanes = laneMask(idx(w));
        Value x = load16(q, ValueRange{bi, i, h, idx(c0d)}, lanes);
        Value u = add(quantize(x, qScale), i32Splat(128));
        Value u8 = arith::TruncIOp::create(b, loc, VectorType::get({kLanes}, i8), u);
        vector::MaskedStoreOp::create(b, loc, qu, ValueRange{r, idx(c0d)}, lanes, u8);
      }
    });

    rowTiles(nRows, {8, 4, 1}, [&](Value r0, int64_t n) { scoreTile(r0, n); });
    loop(c0, nRows, c1, [&](Value r) { softmaxRow(r); });
    rowTiles(nRows, {4, 1}, [&](Value r0, int64_t n) { valueTile(r0, n); });
  }

  /// S[r0 : r0 + n][all tiles] of the work item.
  void scoreTile(Value r0, int64_t n) {
    Value zero = i32Splat(0);
    Value negInf = f32Splat(-std::numeric_limits<double>::infinity());
    SmallVector<Value> rowIdx, pos, heads, iq;
    for (int64_t t = 0; t < n; ++t) {
      Value r = t ? add(r0, idx(t)) : r0;
      auto [i, h] = rowQueryHead(r);
      rowIdx.push_back(r);
      iq.push_back(i);
      heads.push_back(h);
      pos.push_back(add(qOffset, i));
    }
    SmallVector<Value> segPos;
    if (seg)
      for (Value p : pos)
        segPos.push_back(memref::LoadOp::create(b, loc, seg, ValueRange{bi, p}));
    auto idxVec = VectorType::get({kLanes}, b.getIndexType());
    Value step = vector::StepOp::create(b, loc, idxVec);
    loop(c0, tiles, c1, [&](Value t) {
      Value j0 = add(jStart, mul(t, kKeyPanel));
      Value p = divC(j0, kKeyPanel);
      SmallVector<Value> accs = loop(
          c0, idx(d4), c1, SmallVector<Value>(2 * n, zero), [&](Value g, ValueRange acc) {
            Value off = mul(g, kKeyPanel * kGroup);
            Value bv[2];
            for (int64_t half = 0; half < 2; ++half)
              bv[half] = vector::LoadOp::create(b, loc, bytes, kp,
                                                ValueRange{bi, kvh, p, add(off, idx(64 * half))});
            Value dIdx = mul(g, kGroup);
            SmallVector<Value> nextAcc;
            for (int64_t ri = 0; ri < n; ++ri) {
              Value a = word4(qu, ValueRange{rowIdx[ri], dIdx});
              for (int64_t half = 0; half < 2; ++half)
                nextAcc.push_back(vpdpbusd(acc[2 * ri + half], a, bv[half]));
            }
            return nextAcc;
          });
      for (int64_t half = 0; half < 2; ++half) {
        Value jh = add(j0, idx(kLanes * half));
        Value corr = mul(vector::LoadOp::create(b, loc, i32v, ksum,
                                                ValueRange{bi, kvh, p, idx(kLanes * half)}),
                         i32Splat(128));
        Value jv = add(splat(idxVec, jh), step);
        Value inKeys = cmp(arith::CmpIPredicate::ult, jv, splat(idxVec, keyLen));
        Value lanes = laneMask(maxI(minI(sub(keyLen, jh), idx(kLanes)), c0));
        Value segKeys;
        if (seg)
          segKeys = load16(seg, ValueRange{bi, jh}, lanes);
        for (int64_t ri = 0; ri < n; ++ri) {
          Value s = arith::SIToFPOp::create(b, loc, f32v, sub(accs[2 * ri + half], corr));
          s = arith::MulFOp::create(b, loc, s, factor);
          if (c.softcap) {
            Value th = math::TanhOp::create(
                b, loc, arith::MulFOp::create(b, loc, s, f32Splat(1.0 / *c.softcap)));
            s = arith::MulFOp::create(b, loc, f32Splat(*c.softcap), th);
          }
          if (mask) {
            auto mt = cast<MemRefType>(mask.getType());
            Value mb = mt.getDimSize(0) == 1 ? c0 : bi;
            Value mh = mt.getDimSize(1) == 1 ? c0 : heads[ri];
            s = arith::AddFOp::create(b, loc, s,
                                      toF32(load16(mask, ValueRange{mb, mh, iq[ri], jh}, lanes)));
          }
          Value vis = inKeys;
          auto require = [&](Value cond) { vis = arith::AndIOp::create(b, loc, vis, cond); };
          Value pv = splat(idxVec, pos[ri]);
          if (c.causal)
            require(cmp(arith::CmpIPredicate::ule, jv, pv));
          if (c.window)
            require(cmp(arith::CmpIPredicate::slt, sub(pv, jv), splat(idxVec, idx(*c.window))));
          if (c.chunk) {
            Value cv = splat(idxVec, idx(*c.chunk));
            require(cmp(arith::CmpIPredicate::eq, arith::DivUIOp::create(b, loc, jv, cv),
                        arith::DivUIOp::create(b, loc, pv, cv)));
          }
          if (seg)
            require(cmp(arith::CmpIPredicate::eq, segKeys,
                        splat(segKeys.getType(), segPos[ri])));
          s = arith::SelectOp::create(b, loc, vis, s, negInf);
          vector::StoreOp::create(b, loc, s, scores,
                                  ValueRange{rowIdx[ri], add(mul(t, kKeyPanel), idx(kLanes * half))});
        }
      }
    });
  }

  /// Row r: its max, the u8 probabilities and the denominator.
  void softmaxRow(Value r) {
    Value h = add(h0, remC(r, c.group));
    // Two accumulators a loop (width is a multiple of 32): the max and the sum are chains.
    Value vstep = idx(2 * kLanes);
    Value second = idx(kLanes);
    double inf = std::numeric_limits<double>::infinity();
    auto load = [&](Value j) {
      return vector::LoadOp::create(b, loc, f32v, scores, ValueRange{r, j}).getResult();
    };
    SmallVector<Value> vmax =
        loop(c0, width, vstep, ValueRange{f32Splat(-inf), f32Splat(-inf)},
             [&](Value j, ValueRange m) {
               return SmallVector<Value>{
                   arith::MaximumFOp::create(b, loc, m[0], load(j)),
                   arith::MaximumFOp::create(b, loc, m[1], load(add(j, second)))};
             });
    Value rowMax = vector::ReductionOp::create(
        b, loc, vector::CombiningKind::MAXIMUMF,
        arith::MaximumFOp::create(b, loc, vmax[0], vmax[1]));
    Value negInf = f32c(-inf);
    Value m = rowMax, sink;
    if (sinks) {
      sink = memref::LoadOp::create(b, loc, sinks, ValueRange{h});
      if (!sink.getType().isF32())
        sink = arith::ExtFOp::create(b, loc, f32, sink);
      m = arith::MaximumFOp::create(b, loc, m, sink);
    }
    Value mIsInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, negInf);
    Value base = arith::SelectOp::create(b, loc, mIsInf, f32c(0.0), m);
    Value baseV = splat(f32v, base);
    // p = exp(s - base) into the sum, clamp(rint(255 p), 0, 255) as u8 into P.
    auto prob = [&](Value j) {
      Value e = math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, load(j), baseV));
      Value u = arith::MulFOp::create(b, loc, e, f32Splat(255.0));
      u = math::RoundEvenOp::create(b, loc, u);
      u = arith::MaxNumFOp::create(b, loc, u, f32Splat(0.0));
      u = arith::MinNumFOp::create(b, loc, u, f32Splat(255.0));
      Value ui = arith::FPToSIOp::create(b, loc, i32v, u);
      Value u8 = arith::TruncIOp::create(b, loc, VectorType::get({kLanes}, i8), ui);
      vector::StoreOp::create(b, loc, u8, probs, ValueRange{r, j});
      return e;
    };
    SmallVector<Value> sums =
        loop(c0, width, vstep, ValueRange{f32Splat(0.0), f32Splat(0.0)},
             [&](Value j, ValueRange l) {
               return SmallVector<Value>{arith::AddFOp::create(b, loc, l[0], prob(j)),
                                         arith::AddFOp::create(b, loc, l[1], prob(add(j, second)))};
             });
    Value vsum = arith::AddFOp::create(b, loc, sums[0], sums[1]);
    Value l = vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, vsum);
    if (sinks)
      l = arith::AddFOp::create(
          b, loc, l, math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, sink, base)));
    Value dead = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, rowMax, negInf);
    Value d = arith::SelectOp::create(b, loc, dead, f32c(0.0), l);
    memref::StoreOp::create(b, loc, d, den, ValueRange{r});
  }

  /// out[rows r0 : r0 + n] = (P · V) · v_scale / (255 · den).
  void valueTile(Value r0, int64_t n) {
    Value zero = i32Splat(0);
    SmallVector<Value> rowIdx, iq, heads;
    for (int64_t t = 0; t < n; ++t) {
      Value r = t ? add(r0, idx(t)) : r0;
      auto [i, h] = rowQueryHead(r);
      rowIdx.push_back(r);
      iq.push_back(i);
      heads.push_back(h);
    }
    Value g0 = divC(jStart, kGroup);
    Value groups = divC(width, kGroup);
    for (int64_t col = 0; col < c.dv; col += 4 * kLanes) {
      int64_t nv = std::min<int64_t>(4, (c.dv - col) / kLanes);
      SmallVector<Value> accs = loop(
          c0, groups, c1, SmallVector<Value>(n * nv, zero), [&](Value g, ValueRange acc) {
            SmallVector<Value> bv;
            for (int64_t u = 0; u < nv; ++u)
              bv.push_back(vector::LoadOp::create(
                  b, loc, bytes, vp, ValueRange{bi, kvh, add(g0, g), idx((col + kLanes * u) * kGroup)}));
            Value jj = mul(g, kGroup);
            SmallVector<Value> nextAcc;
            for (int64_t ri = 0; ri < n; ++ri) {
              Value a = word4(probs, ValueRange{rowIdx[ri], jj});
              for (int64_t u = 0; u < nv; ++u)
                nextAcc.push_back(vpdpbusd(acc[ri * nv + u], a, bv[u]));
            }
            return nextAcc;
          });
      for (int64_t ri = 0; ri < n; ++ri) {
        Value dn = memref::LoadOp::create(b, loc, den, ValueRange{rowIdx[ri]});
        Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, dn, f32c(0.0));
        Value scaled = arith::MulFOp::create(b, loc, f32c(255.0), dn);
        Value safe = splat(f32v, arith::SelectOp::create(b, loc, empty, f32c(1.0), scaled));
        Value emptyV = splat(VectorType::get({kLanes}, b.getI1Type()), empty);
        for (int64_t u = 0; u < nv; ++u) {
          Value o = arith::SIToFPOp::create(b, loc, f32v, accs[ri * nv + u]);
          o = arith::MulFOp::create(b, loc, o, vScale);
          o = arith::DivFOp::create(b, loc, o, safe);
          o = arith::SelectOp::create(b, loc, emptyV, f32Splat(0.0), o);
          if (!c.elem.isF32())
            o = arith::TruncFOp::create(b, loc, VectorType::get({kLanes}, c.elem), o);
          vector::StoreOp::create(b, loc, o, out,
                                  ValueRange{bi, iq[ri], heads[ri], idx(col + kLanes * u)});
        }
      }
    }
  }

  func::FuncOp fn;
  Config c;
  bool vnni;
  OpBuilder b;
  Location loc;
  Type i8, i32, f32;
  VectorType i32v, f32v, bytes;
  Value c0, c1;
  Value q, k, v, keyLen, mask, seg, sinks, out;
  Value qScale, kScale, vScale, factor;
  Value batch, tq, qOffset, panels, kp, ksum, vp;
  int64_t d4 = 0, qb = 1, rowsMax = 1;
  // Per work item.
  Value bi, kvh, i0, h0, jStart, tiles, width, qu, scores, probs, den;
};

struct CPUInt8AttentionPass
    : public mlir::decoda::impl::CPUInt8AttentionPassBase<CPUInt8AttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<func::FuncOp> kernels;
    getOperation().walk([&](func::FuncOp fn) {
      if (fn->hasAttr(decoda::kInt8AttentionAttr) && !fn.isExternal())
        kernels.push_back(fn);
    });
    for (func::FuncOp fn : kernels) {
      auto dict = fn->getAttrOfType<DictionaryAttr>(decoda::kInt8AttentionAttr);
      std::string why = "not a dictionary";
      FailureOr<Config> config = failure();
      if (dict)
        config = readConfig(fn, dict, why);
      if (failed(config)) {
        // At the location only: the op itself would be printed with the remark.
        emitRemark(fn.getLoc()) << "decoda-cpu-int8-attention: keeps the scalar INT8 attention of '"
                        << fn.getSymName() << "': " << why;
        ++numKept;
        continue;
      }
      Kernel(fn, *config, vnni).emit();
      ++numRewritten;
      // exp and tanh on 16 lanes: polynomial approximations instead of 16 libm calls.
      RewritePatternSet patterns(&getContext());
      populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
        return name == "exp" || name == "tanh" || name == "math.exp" || name == "math.tanh";
      });
      if (failed(applyPatternsGreedily(fn, std::move(patterns))))
        return signalPassFailure();
    }
  }
};
} // namespace
