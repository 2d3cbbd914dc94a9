//===- GPURope.cpp - one kernel per RoPE: table in shared memory, vector pairs -===//
//
// decoda-gpu-rope (GPUPasses.td): each decoda.rope lowered for the GPU pipeline is a cos/sin
// table generic (kRopeTableAttr) and a rotation generic over [B, T, H, D] (kRopeApplyAttr)
// that reads the table and the pair partners with memref.load (Rope.cpp in DecodaToLinalg).
// After bufferization each tagged rotation becomes
//
//   aligned = offsets and outer strides of x and out are multiples of V       (host)
//   gpu.launch blocks (max(B ceil(T / P), 1)) threads (256)
//        workgroup(cos [P r/2], sin [P r/2] : f32)
//      b = block / ceil(T / P), tokens t0 .. t0 + P - 1 of row b
//      for e = tid; e < P r/2; e += 256:                      (the block's table)
//        t = t0 + e / (r/2), k = e % (r/2); if b < B and t < T:
//          angle = f32(position(b, t)) · inv_freq[k]; cos[e], sin[e] = cos, sin(angle) (· factor)
//      barrier
//      for i = tid; i < P I; i += 256:                        (I work items a token)
//        token t0 + i / I, head h, chunk c:
//          half_split: a = x[.., k0 .. k0+V), p = x[.., k0+r/2 ..]: out = a c - p s, p c + a s
//          interleaved: V features, V/2 adjacent pairs (partners and cos/sin by shuffles)
//          past rotary_dim: V features copied
//
// The arithmetic (mulf, negf, addf in f32 from the storage type, rounded back) is the linalg
// lowering's op for op, so the results are bit-identical to it. The table generic is erased
// once nothing reads it. Chunks are V-element vector accesses when `aligned`, element by
// element otherwise: phase 2 is emitted twice under one branch, uniform over the grid.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUROPEPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
constexpr int64_t kThreads = 256;           // the generic elementwise kernels' block size
constexpr int64_t kTableBytes = 32 * 1024;  // most shared memory for a block's table

struct Config {
  int64_t h = 0, d = 0, rotary = 0, half = 0, vec = 1;
  bool interleaved = false, positions = false, perBatch = false;
  double factor = 1.0;
  Type elem;
  // Work items of a token: per head rotChunks chunks of the rotary features, then passChunks
  // chunks of the rest; tokens per block.
  int64_t rotChunks = 0, passChunks = 0, perHead = 0, items = 0, tokens = 1;
  linalg::GenericOp table;
  Value x, out, cosBuf, sinBuf, freqs, positionsBuf;
};

/// The memref's static strides and offset, or none.
bool innerStrideOne(MemRefType t) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(t.getStridesAndOffset(strides, offset)))
    return false;
  return !strides.empty() && strides.back() == 1;
}

/// Why `apply` (tagged kRopeApplyAttr) cannot be given the kernel, or "" with `c` filled in.
std::string readConfig(linalg::GenericOp apply, DictionaryAttr tag, Config &c) {
  auto rotary = tag.getAs<IntegerAttr>("rotary");
  auto inter = tag.getAs<BoolAttr>("interleaved");
  auto ops = tag.getAs<IntegerAttr>("float_ops");
  if (!rotary || !inter || !ops)
    return "malformed tag";
  if (!apply.hasPureBufferSemantics() || apply.getNumDpsInputs() != 1 ||
      apply.getNumDpsInits() != 1 || apply.getNumLoops() != 4 ||
      apply.getNumReductionLoops() != 0 ||
      !llvm::all_of(apply.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
    return "the rotation is not one elementwise generic on buffers over [B, T, H, D]";
  if (decoda::ropeFloatOps(*apply.getBody()) != ops.getInt())
    return "its body changed since lowering (fused with another op)";
  c.x = apply.getDpsInputs()[0];
  c.out = apply.getDpsInits()[0];
  auto xt = cast<MemRefType>(c.x.getType()), ot = cast<MemRefType>(c.out.getType());
  c.elem = xt.getElementType();
  if (!c.elem.isF32() && !c.elem.isF16() && !c.elem.isBF16())
    return "storage type other than f32, f16, bf16";
  if (ot.getElementType() != c.elem)
    return "input and output of different types";
  if (xt.isDynamicDim(2) || xt.isDynamicDim(3))
    return "dynamic head count or head dim";
  c.h = xt.getDimSize(2);
  c.d = xt.getDimSize(3);
  if (ot.getShape().drop_front(2) != xt.getShape().drop_front(2))
    return "input and output of different shapes";
  if (!innerStrideOne(xt) || !innerStrideOne(ot))
    return "a view without unit inner stride";
  c.rotary = rotary.getInt();
  c.interleaved = inter.getValue();
  c.half = c.rotary / 2;
  if (c.rotary < 2 || c.rotary % 2 || c.rotary > c.d)
    return "rotary_dim out of range";

  // The body's reads: the table's cos and sin outputs and the pair partner in x.
  SmallVector<memref::LoadOp> loads;
  apply.getBody()->walk([&](memref::LoadOp l) { loads.push_back(l); });
  if (loads.size() != 3)
    return "unexpected reads in the body";
  for (memref::LoadOp l : loads) {
    Value m = l.getMemRef();
    if (m == c.x)
      continue;
    auto alloc = m.getDefiningOp<memref::AllocOp>();
    linalg::GenericOp writer;
    for (Operation *u : m.getUsers())
      if (auto g = dyn_cast<linalg::GenericOp>(u); g && g->hasAttr(decoda::kRopeTableAttr))
        writer = g;
    if (!alloc || !writer || (c.table && c.table != writer))
      return "the table is not one tagged generic's outputs";
    c.table = writer;
  }
  if (!c.table || c.table.getNumDpsInits() != 2)
    return "no table";
  c.cosBuf = c.table.getDpsInits()[0];
  c.sinBuf = c.table.getDpsInits()[1];
  int reads = 0;
  for (memref::LoadOp l : loads)
    reads += (l.getMemRef() == c.cosBuf) + 2 * (l.getMemRef() == c.sinBuf) + 4 * (l.getMemRef() == c.x);
  if (reads != 7)
    return "the body does not read cos, sin and the partner once each";

  // The table: inputs inv_freq [r/2] f32 (then the positions), the expected maps and body.
  auto ttag = c.table->getAttrOfType<DictionaryAttr>(decoda::kRopeTableAttr);
  auto factor = ttag.getAs<FloatAttr>("factor");
  auto hasPos = ttag.getAs<BoolAttr>("positions"), perBatch = ttag.getAs<BoolAttr>("per_batch");
  if (!factor || !hasPos || !perBatch)
    return "malformed table tag";
  c.factor = factor.getValueAsDouble();
  c.positions = hasPos.getValue();
  c.perBatch = perBatch.getValue();
  // Only the ops the lowering made (some folded away with static extents): anything fused into
  // the table since (a computed position) has other ops.
  int64_t cosOps = 0, sinOps = 0;
  bool known = true;
  for (Operation &op : *c.table.getBody()) {
    cosOps += isa<math::CosOp>(op);
    sinOps += isa<math::SinOp>(op);
    known &= isa<linalg::IndexOp, arith::IndexCastOp, arith::SIToFPOp, arith::MulFOp,
                 math::CosOp, math::SinOp, arith::ConstantOp, linalg::YieldOp>(op);
  }
  auto yieldOf = [&](unsigned i) {
    Value y = c.table.getBody()->getTerminator()->getOperand(i);
    if (auto m = y.getDefiningOp<arith::MulFOp>())
      y = m.getLhs();
    return y.getDefiningOp();
  };
  if (!c.table.hasPureBufferSemantics() ||
      c.table.getNumDpsInputs() != 1 + static_cast<int64_t>(c.positions) || !known ||
      cosOps != 1 || sinOps != 1 || !isa_and_nonnull<math::CosOp>(yieldOf(0)) ||
      !isa_and_nonnull<math::SinOp>(yieldOf(1)))
    return "the table changed since lowering (fused with another op)";
  int64_t trank = c.perBatch ? 3 : 2;
  if (c.table.getNumLoops() != static_cast<unsigned>(trank))
    return "unexpected table rank";
  c.freqs = c.table.getDpsInputs()[0];
  auto ft = cast<MemRefType>(c.freqs.getType());
  if (ft.getRank() != 1 || ft.getDimSize(0) != c.half || !ft.getElementType().isF32())
    return "inv_freq is not [rotary_dim / 2] f32";
  SmallVector<AffineMap> maps = c.table.getIndexingMapsArray();
  MLIRContext *ctx = apply.getContext();
  if (maps[0] != AffineMap::get(trank, 0, getAffineDimExpr(trank - 1, ctx)))
    return "unexpected inv_freq map";
  if (c.positions) {
    c.positionsBuf = c.table.getDpsInputs()[1];
    auto pt = cast<MemRefType>(c.positionsBuf.getType());
    if (pt.getRank() != trank - 1 || !pt.getElementType().isSignlessInteger() ||
        maps[1] != AffineMap::getMultiDimIdentityMap(trank, ctx).dropResult(trank - 1))
      return "unexpected positions";
  }

  // Vector width: 16 bytes of the storage type, halved until it divides the chunks.
  int64_t bits = c.elem.getIntOrFloatBitWidth();
  c.vec = 128 / bits;
  int64_t pass = c.d - c.rotary;
  if (c.interleaved) {
    while (c.vec > 2 && (c.rotary % c.vec || pass % c.vec))
      c.vec /= 2;
    if (c.rotary % c.vec || pass % c.vec)
      return "interleaved pairs with an odd number of features past rotary_dim";
    c.rotChunks = c.rotary / c.vec;
  } else {
    while (c.vec > 1 && (c.half % c.vec || pass % c.vec))
      c.vec /= 2;
    c.rotChunks = c.half / c.vec;
  }
  c.passChunks = pass / c.vec;
  c.perHead = c.rotChunks + c.passChunks;
  c.items = c.h * c.perHead;
  c.tokens = std::max<int64_t>(1, kThreads / std::max<int64_t>(c.items, 1));
  while (c.tokens > 1 && c.tokens * c.half * 8 > kTableBytes)
    c.tokens /= 2;
  if (c.half * 8 > kTableBytes)
    return "rotary_dim too large for the block's table";
  return "";
}

class Kernel {
public:
  Kernel(linalg::GenericOp apply, const Config &c)
      : apply(apply), c(c), b(apply), loc(apply.getLoc()) {}

  void emit() {
    f32 = b.getF32Type();
    Value bDim = memref::DimOp::create(b, loc, c.x, 0);
    Value tDim = memref::DimOp::create(b, loc, c.x, 1);
    // No host branch around the launch (a launch under one would not merge with its
    // neighbours): at least one block; rows and tokens past B and T do nothing.
    aligned = arith::AndIOp::create(b, loc, alignedView(c.x), alignedView(c.out));
    Value tokBlocks = arith::MaxUIOp::create(
        b, loc, arith::CeilDivUIOp::create(b, loc, tDim, idx(c.tokens)), idx(1));
    Value blocks = arith::MaxUIOp::create(b, loc, mul(bDim, tokBlocks), idx(1));
    emitLaunch(blocks, tokBlocks, bDim, tDim);
  }

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, loc, x, idx(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, idx(y)); }

  /// Whether the offset and the outer strides of `view` are multiples of c.vec (host side).
  Value alignedView(Value view) {
    Value ok = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    if (c.vec == 1)
      return ok;
    auto md = memref::ExtractStridedMetadataOp::create(b, loc, view);
    SmallVector<Value> parts{md.getOffset()};
    for (int64_t i = 0; i < 3; ++i)
      parts.push_back(md.getStrides()[i]);
    for (Value v : parts)
      ok = arith::AndIOp::create(b, loc, ok,
                                 cmp(arith::CmpIPredicate::eq, rem(v, c.vec), idx(0)));
    return ok;
  }

  VectorType vecOf(Type t, int64_t n) { return VectorType::get({n}, t); }

  /// `n` elements of `buf` from `at` (the last index the first): one vector access in the
  /// vector copy of the loop (views aligned), element by element in the other.
  llvm::MaybeAlign alignFor(Type et, int64_t n) {
    return llvm::MaybeAlign(std::min<int64_t>(16, n * et.getIntOrFloatBitWidth() / 8));
  }
  Value load(Value buf, SmallVector<Value> at, int64_t n) {
    Type et = cast<MemRefType>(buf.getType()).getElementType();
    VectorType vt = vecOf(et, n);
    if (vectorAccess || n == 1)
      return vector::LoadOp::create(b, loc, vt, buf, at, false, alignFor(et, n));
    SmallVector<Value> elems;
    Value base = at.back();
    for (int64_t j = 0; j < n; ++j) {
      at.back() = add(base, idx(j));
      elems.push_back(memref::LoadOp::create(b, loc, buf, at));
    }
    return vector::FromElementsOp::create(b, loc, vt, elems);
  }
  void store(Value v, Value buf, SmallVector<Value> at) {
    auto vt = cast<VectorType>(v.getType());
    int64_t n = vt.getNumElements();
    if (vectorAccess || n == 1) {
      vector::StoreOp::create(b, loc, v, buf, at, false, alignFor(vt.getElementType(), n));
      return;
    }
    Value base = at.back();
    for (int64_t j = 0; j < n; ++j) {
      at.back() = add(base, idx(j));
      memref::StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, v, j), buf, at);
    }
  }
  /// `n` consecutive f32 of a shared table from `at` (a multiple of n).
  Value loadShared(Value buf, Value at, int64_t n) {
    return vector::LoadOp::create(b, loc, vecOf(f32, n), buf, ValueRange{at}, false,
                                  llvm::MaybeAlign(std::min<int64_t>(16, 4 * n)));
  }
  Value widen(Value v) {
    auto vt = cast<VectorType>(v.getType());
    return c.elem.isF32() ? v
                          : arith::ExtFOp::create(b, loc, vecOf(f32, vt.getNumElements()), v)
                                .getResult();
  }
  Value narrow(Value v) {
    auto vt = cast<VectorType>(v.getType());
    return c.elem.isF32() ? v
                          : arith::TruncFOp::create(b, loc, vecOf(c.elem, vt.getNumElements()), v)
                                .getResult();
  }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }

  /// for (i = tid; i < n; i += kThreads) body(i)
  void strided(Value tid, int64_t n, function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(b, loc, tid, idx(n), idx(kThreads));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    body(loop.getInductionVar());
  }
  /// Token `t` of the block's row exists.
  Value inside(Value t, Value tDim) {
    return arith::AndIOp::create(b, loc, rowInside, cmp(arith::CmpIPredicate::ult, t, tDim));
  }
  void when(Value cond, function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, cond, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    body();
  }

  void emitLaunch(Value blocks, Value tokBlocks, Value bDim, Value tDim) {
    MLIRContext *ctx = b.getContext();
    auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto tableType = MemRefType::get({c.tokens * c.half}, f32, MemRefLayoutAttrInterface(), shared);
    Value one = idx(1);
    auto launch = gpu::LaunchOp::create(b, loc, blocks, one, one, idx(kThreads), one, one,
                                        /*dynamicSharedMemorySize=*/nullptr,
                                        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
                                        TypeRange{tableType, tableType});
    Value cosS = launch.getWorkgroupAttributions()[0];
    Value sinS = launch.getWorkgroupAttributions()[1];
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value tid = launch.getThreadIds().x;
    Value blk = launch.getBlockIds().x;
    Value row = arith::DivUIOp::create(b, loc, blk, tokBlocks);
    Value t0 = mul(arith::RemUIOp::create(b, loc, blk, tokBlocks), idx(c.tokens));
    rowInside = cmp(arith::CmpIPredicate::ult, row, bDim);

    // Phase 1: the block's tokens' cos/sin, as the table generic computes them.
    strided(tid, c.tokens * c.half, [&](Value e) {
      Value t = add(t0, div(e, c.half));
      when(inside(t, tDim), [&] {
        Value k = rem(e, c.half);
        Value pos;
        if (c.positions) {
          SmallVector<Value> at;
          if (c.perBatch)
            at.push_back(row);
          at.push_back(t);
          pos = arith::SIToFPOp::create(b, loc, f32,
                                        memref::LoadOp::create(b, loc, c.positionsBuf, at));
        } else {
          pos = arith::SIToFPOp::create(
              b, loc, f32, arith::IndexCastOp::create(b, loc, b.getI64Type(), t));
        }
        Value angle = fmul(pos, memref::LoadOp::create(b, loc, c.freqs, ValueRange{k}));
        Value cv = math::CosOp::create(b, loc, angle), sv = math::SinOp::create(b, loc, angle);
        if (c.factor != 1.0) {
          Value af = arith::ConstantOp::create(b, loc, f32,
                                               b.getF32FloatAttr(static_cast<float>(c.factor)));
          cv = fmul(cv, af);
          sv = fmul(sv, af);
        }
        memref::StoreOp::create(b, loc, cv, cosS, ValueRange{e});
        memref::StoreOp::create(b, loc, sv, sinS, ValueRange{e});
      });
    });
    gpu::BarrierOp::create(b, loc);

    // Phase 2: the work items of the block's tokens; the loop twice, with vector accesses
    // when the views are aligned and element by element otherwise (one loop with a branch per
    // access would have its loads merged into the element-wise form by LLVM).
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, aligned, /*withElseRegion=*/c.vec > 1);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      vectorAccess = true;
      emitItems(tid, row, t0, tDim, cosS, sinS);
      if (c.vec > 1) {
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        vectorAccess = false;
        emitItems(tid, row, t0, tDim, cosS, sinS);
      }
    }
    gpu::TerminatorOp::create(b, loc);
  }

  /// Phase 2: every work item of the block's tokens (tokens past T skipped).
  void emitItems(Value tid, Value row, Value t0, Value tDim, Value cosS, Value sinS) {
    strided(tid, c.tokens * c.items, [&](Value i) {
      Value tl = div(i, c.items);
      Value t = add(t0, tl);
      when(inside(t, tDim), [&] {
        Value r = rem(i, c.items);
        Value head = div(r, c.perHead), chunk = rem(r, c.perHead);
        Value tableRow = mul(tl, idx(c.half));
        auto at = [&](Value feature) { return SmallVector<Value>{row, t, head, feature}; };
        auto rotate = [&] {
          if (c.interleaved)
            rotateInterleaved(at, chunk, tableRow, cosS, sinS);
          else
            rotateHalves(at, chunk, tableRow, cosS, sinS);
        };
        if (c.passChunks == 0) {
          rotate();
          return;
        }
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{},
                                      cmp(arith::CmpIPredicate::ult, chunk, idx(c.rotChunks)),
                                      /*withElseRegion=*/true);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        rotate();
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        // Features past rotary_dim: the lowering's select(inRot, rot, v) rounds v back, which
        // is v itself.
        Value f = add(idx(c.rotary), mul(arith::SubIOp::create(b, loc, chunk, idx(c.rotChunks)),
                                         idx(c.vec)));
        store(load(c.x, at(f), c.vec), c.out, at(f));
      });
    });
  }

  /// half_split: pairs k0 .. k0 + V - 1 of chunk `chunk` (features k and k + r/2).
  void rotateHalves(function_ref<SmallVector<Value>(Value)> at, Value chunk, Value tableRow,
                    Value cosS, Value sinS) {
    Value k0 = mul(chunk, idx(c.vec));
    Value k1 = add(k0, idx(c.half));
    Value a = widen(load(c.x, at(k0), c.vec)), p = widen(load(c.x, at(k1), c.vec));
    Value cv = loadShared(cosS, add(tableRow, k0), c.vec);
    Value sv = loadShared(sinS, add(tableRow, k0), c.vec);
    // first of a pair: x c + (-partner) s; second: x c + partner s (Rope.cpp's order).
    Value y0 = fadd(fmul(a, cv), fmul(arith::NegFOp::create(b, loc, p), sv));
    Value y1 = fadd(fmul(p, cv), fmul(a, sv));
    store(narrow(y0), c.out, at(k0));
    store(narrow(y1), c.out, at(k1));
  }

  /// interleaved: features f0 .. f0 + V - 1 of chunk `chunk`, pairs (2j, 2j + 1).
  void rotateInterleaved(function_ref<SmallVector<Value>(Value)> at, Value chunk,
                         Value tableRow, Value cosS, Value sinS) {
    int64_t n = c.vec, pairs = n / 2;
    Value f0 = mul(chunk, idx(n));
    Value v = widen(load(c.x, at(f0), n));
    Value k0 = add(tableRow, mul(chunk, idx(pairs)));
    Value cp = loadShared(cosS, k0, pairs), sp = loadShared(sinS, k0, pairs);
    SmallVector<int64_t> dup, swap, mix;
    for (int64_t j = 0; j < n; ++j) {
      dup.push_back(j / 2);
      swap.push_back(j ^ 1);
      mix.push_back(j % 2 == 0 ? j : n + j); // even lanes from the negated partners
    }
    Value cv = vector::ShuffleOp::create(b, loc, cp, cp, dup);
    Value sv = vector::ShuffleOp::create(b, loc, sp, sp, dup);
    Value partner = vector::ShuffleOp::create(b, loc, v, v, swap);
    Value signedPartner = vector::ShuffleOp::create(
        b, loc, arith::NegFOp::create(b, loc, partner), partner, mix);
    Value y = fadd(fmul(v, cv), fmul(signedPartner, sv));
    store(narrow(y), c.out, at(f0));
  }

  linalg::GenericOp apply;
  const Config &c;
  OpBuilder b;
  Location loc;
  Type f32;
  Value aligned, rowInside;
  bool vectorAccess = true; // the loop being emitted: vector accesses, or element by element
};

struct GPURopePass : public mlir::decoda::impl::GPURopePassBase<GPURopePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> applies;
    getOperation().walk([&](linalg::GenericOp g) {
      if (g->hasAttr(decoda::kRopeApplyAttr))
        applies.push_back(g);
    });
    llvm::SetVector<linalg::GenericOp> tables;
    for (linalg::GenericOp apply : applies) {
      auto tag = apply->getAttrOfType<DictionaryAttr>(decoda::kRopeApplyAttr);
      Config c;
      std::string why = readConfig(apply, tag, c);
      if (!why.empty()) {
        apply.emitRemark() << "decoda-gpu-rope: this rope keeps the generic lowering: " << why;
        apply->removeAttr(decoda::kRopeApplyAttr);
        ++numLeft;
        continue;
      }
      Kernel(apply, c).emit();
      tables.insert(c.table);
      apply.erase();
      ++numKernels;
    }
    // Tables nothing reads any more: the generic, its outputs and their deallocations.
    for (linalg::GenericOp table : tables) {
      SmallVector<Value> bufs(table.getDpsInits());
      bool unread = llvm::all_of(bufs, [&](Value v) {
        return llvm::all_of(v.getUsers(), [&](Operation *u) {
          return u == table.getOperation() || isa<memref::DeallocOp>(u);
        });
      });
      if (!unread)
        continue;
      table.erase();
      for (Value v : bufs) {
        for (Operation *u : llvm::make_early_inc_range(v.getUsers()))
          u->erase();
        if (auto alloc = v.getDefiningOp<memref::AllocOp>())
          alloc.erase();
      }
      ++numTables;
    }
    // Tables left (read elsewhere) lose their tag: it only pairs them with rotations.
    getOperation().walk([&](linalg::GenericOp g) { g->removeAttr(decoda::kRopeTableAttr); });
  }
};
} // namespace
