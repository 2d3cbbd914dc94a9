//===- GPUFlashAttention.cpp - one flash-attention kernel per attention ---===//
//
// decoda-gpu-flash-attention (GPUPasses.td): the body of each function tagged
// decoda.gpu_attention (q [B, Tq, Hq, D], k [B, S, Hkv, D], v [B, S, Hkv, Dv], keyLen, then
// mask / segment_ids / sinks) becomes
//
//   out = alloc [B, Tq, Hq, Dv]
//   if Tq > 0 and B > 0:
//    gpu.launch blocks (ceil(Tq * G / 16), Hkv, B) threads (128)   G = Hq / Hkv
//        workgroup(Qs [16][D], Ks [32][D + 1], Vs [32][32 ceil(Dv / 32)] : f32, 0-padded)
//     rows p0 + r, r < 16 (warp w owns rows 4w .. 4w + 3): row p is query p / G of head
//       kvh * G + p % G, at position keyLen - Tq + p / G
//     Qs <- the block's query rows (0 past the end)
//     keys [jlo, jhi): the union of what the block's rows can see (causal / window / chunk)
//     for j0 in [jlo, jhi) step 32:
//       barrier; Ks, Vs <- keys j0 .. j0 + 31 of K/V head kvh (0 past jhi); barrier
//       lane l, key j = j0 + l: s[r] = Σ_d Qs[r][d] Ks[l][d]       (4 rows per warp)
//       x = mask(softcap(scale · s)) (-inf where not visible)
//       m' = max(m, warp-max x), base = m' == -inf ? 0 : m'
//       corr = exp(m - base), p = exp(x - base), l = l·corr + p (per lane), acc *= corr
//       acc[r][c] += Σ_jj shuffle(p[r], jj) · Vs[jj][l + 32c]       (c < ceil(Dv / 32))
//     L = warp-sum l; with sinks M = max(m, sink), num = e^(m-safe(M)), den = L·num +
//     e^(sink - safe(M)); out = acc · num / den (0 when den = 0), rounded to the storage type
//
// The formulas are those of the target-neutral lowering (Attention.cpp), so the f32 results
// differ only in the order of the sums.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"
#include "decoda/Transforms/Passes.h"

#include "TaggedCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <limits>

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUFLASHATTENTIONPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
constexpr int64_t kWarps = 4;
constexpr int64_t kRowsPerWarp = 4;
constexpr int64_t kRows = kWarps * kRowsPerWarp; // rows (query, head) per block
constexpr int64_t kThreads = 32 * kWarps;
constexpr int64_t kKeys = 32;                    // keys per tile: one per lane
constexpr int64_t kSharedLimit = 48 * 1024;      // static shared memory per block

/// Split-K decode attention (flash decoding) options.
struct SplitOptions {
  int64_t maxSplits, targetBlocks, minKeys;
};

struct Config : mlir::decoda::AttentionCallConfig {
  /// Split the keys over several blocks when all rows of a (batch, K/V head) fit one block (a
  /// decode step), partials combined by a second kernel: never, always (a static query count
  /// small enough), or decided at run time (a dynamic query count).
  enum class Split { Never, Always, AtRunTime } split = Split::Never;
  /// Value columns per lane and row; Vs is padded with zeros to 32 * cols columns.
  int64_t cols() const { return (dv + 31) / 32; }
  int64_t sharedBytes() const { return 4 * (kRows * d + kKeys * (d + 1) + kKeys * 32 * cols()); }
};

bool identityMemRef(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && m.getLayout().isIdentity();
}

/// The configuration of a tagged function, or the reason the kernel does not handle it.
FailureOr<Config> readConfig(func::FuncOp fn, DictionaryAttr dict, const SplitOptions &split,
                             std::string &why) {
  Config c;
  if (failed(mlir::decoda::readAttentionCallAttrs(dict, c, why)))
    return failure();

  FunctionType type = fn.getFunctionType();
  unsigned expected = 4 + c.mask + c.segmentIds + c.sinks;
  if (type.getNumInputs() != expected || type.getNumResults() != 1 || fn.isExternal()) {
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
  auto out = dyn_cast<MemRefType>(type.getResult(0));
  if (!q || !k || !v || !out || q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4 ||
      out.getRank() != 4 || !isa<IndexType>(type.getInput(3))) {
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
  if (k.getElementType() != c.elem || v.getElementType() != c.elem ||
      out.getElementType() != c.elem) {
    why = "q, k, v and the result differ in element type";
    return failure();
  }
  if (ShapedType::isDynamic(c.d) || ShapedType::isDynamic(c.dv) || k.getDimSize(3) != c.d) {
    why = "dynamic or mismatched head dims";
    return failure();
  }
  if (q.getDimSize(2) != c.numHeads || k.getDimSize(2) != c.numKvHeads ||
      v.getDimSize(2) != c.numKvHeads || out.getDimSize(2) != c.numHeads ||
      out.getDimSize(3) != c.dv) {
    why = "head counts or dims differ from the configuration";
    return failure();
  }
  if (c.sharedBytes() > kSharedLimit) {
    why = "the tiles need " + std::to_string(c.sharedBytes()) +
          " bytes of shared memory, over the 48 KiB static limit (head dims " +
          std::to_string(c.d) + ", " + std::to_string(c.dv) + ")";
    return failure();
  }
  // A static query count whose rows (query, head of the group) fit one block: the grid would
  // be B * Hkv blocks only (8 for Llama-3.2-1B at batch 1), so the keys are split instead.
  if (split.maxSplits > 1)
    c.split = q.isDynamicDim(1)                       ? Config::Split::AtRunTime
              : q.getDimSize(1) * c.group <= kRows ? Config::Split::Always
                                                    : Config::Split::Never;
  unsigned next = 4;
  if (c.mask) {
    auto mt = dyn_cast<MemRefType>(type.getInput(next++));
    if (!mt || mt.getRank() != 4 || !isa<FloatType>(mt.getElementType())) {
      why = "unexpected mask operand";
      return failure();
    }
  }
  if (c.segmentIds) {
    auto st = dyn_cast<MemRefType>(type.getInput(next++));
    if (!st || st.getRank() != 2 || !isa<IntegerType>(st.getElementType())) {
      why = "unexpected segment_ids operand";
      return failure();
    }
  }
  if (c.sinks) {
    auto st = dyn_cast<MemRefType>(type.getInput(next++));
    if (!st || st.getRank() != 1 || !isa<FloatType>(st.getElementType())) {
      why = "unexpected sinks operand";
      return failure();
    }
  }
  return c;
}

class Kernel {
public:
  Kernel(func::FuncOp fn, const Config &c, const SplitOptions &so)
      : fn(fn), c(c), so(so), b(fn.getContext()), loc(fn.getLoc()) {}

  void emit() {
    Block &entry = mlir::decoda::clearTaggedBody(fn);
    b.setInsertionPointToStart(&entry);
    f32 = b.getF32Type();
    q = entry.getArgument(0);
    k = entry.getArgument(1);
    v = entry.getArgument(2);
    keyLen = entry.getArgument(3);
    unsigned next = 4;
    if (c.mask)
      mask = entry.getArgument(next++);
    if (c.segmentIds)
      seg = entry.getArgument(next++);
    if (c.sinks)
      sinks = entry.getArgument(next++);

    auto outType = cast<MemRefType>(fn.getFunctionType().getResult(0));
    SmallVector<Value> dyn;
    for (int64_t dim = 0; dim < 4; ++dim)
      if (outType.isDynamicDim(dim))
        dyn.push_back(memref::DimOp::create(b, loc, q, dim));
    out = memref::AllocOp::create(b, loc, outType, dyn);

    Value batch = memref::DimOp::create(b, loc, q, 0);
    tq = memref::DimOp::create(b, loc, q, 1);
    rowsTotal = mul(tq, c.group);
    Value any = andi(cmp(arith::CmpIPredicate::sgt, rowsTotal, idx(0)),
                     cmp(arith::CmpIPredicate::sgt, batch, idx(0)));
    auto guard = scf::IfOp::create(b, loc, TypeRange{}, any, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&guard.getThenRegion().front());
      if (c.split == Config::Split::Always) {
        emitSplit(batch);
      } else if (c.split == Config::Split::Never) {
        emitLaunch(batch);
      } else {
        // The query count is known at run time: split when the rows fit one block.
        auto fits = scf::IfOp::create(b, loc, TypeRange{},
                                      cmp(arith::CmpIPredicate::ule, rowsTotal, idx(kRows)),
                                      /*withElseRegion=*/true);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPoint(fits.thenBlock()->getTerminator());
        emitSplit(batch);
        b.setInsertionPoint(fits.elseBlock()->getTerminator());
        emitLaunch(batch);
      }
    }
    func::ReturnOp::create(b, loc, out);
  }

private:
  // Index and float helpers.
  Value idx(int64_t x) { return arith::ConstantIndexOp::create(b, loc, x); }
  Value fc(double x) {
    return arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(static_cast<float>(x)));
  }
  Value i32c(int32_t x) { return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(x)); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) { return arith::MulIOp::create(b, loc, x, idx(y)); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, loc, x, idx(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, idx(y)); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value select(Value cnd, Value x, Value y) { return arith::SelectOp::create(b, loc, cnd, x, y); }
  Value maxs(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value mins(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fexp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value widen(Value x) {
    return x.getType() == f32 ? x : arith::ExtFOp::create(b, loc, f32, x).getResult();
  }
  /// The exponent base of the online softmax: 0 while the max is still -inf.
  Value safe(Value m) {
    Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m,
                                           fc(-std::numeric_limits<double>::infinity()));
    return select(isNegInf, fc(0.0), m);
  }
  Value shuffle(Value x, Value offset, gpu::ShuffleMode mode) {
    return gpu::ShuffleOp::create(b, loc, x, offset, i32c(32), mode).getShuffleResult();
  }
  /// The butterfly reduction of `x` over the 32 lanes of a warp (every lane gets the result).
  Value warpReduce(Value x, bool isMax) {
    for (int32_t o = 16; o >= 1; o /= 2) {
      Value y = shuffle(x, i32c(o), gpu::ShuffleMode::XOR);
      x = isMax ? arith::MaximumFOp::create(b, loc, x, y).getResult() : fadd(x, y);
    }
    return x;
  }
  /// A load of `mem[indices]` widened to f32 when `valid`, else 0 (the address is not touched).
  Value guardedLoad(Value valid, Value mem, ValueRange indices) {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{f32}, valid, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value x = widen(memref::LoadOp::create(b, loc, mem, indices));
    scf::YieldOp::create(b, loc, x);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, loc, fc(0.0));
    return ifOp.getResult(0);
  }
  /// for (e = tid; e < count; e += threads) body(e), as an scf.for over the thread's share.
  void forEachShare(int64_t count, function_ref<void(Value)> body) {
    int64_t steps = (count + kThreads - 1) / kThreads;
    auto loop = scf::ForOp::create(b, loc, idx(0), idx(steps), idx(1));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value e = add(tid, mul(loop.getInductionVar(), kThreads));
    if (count % kThreads == 0) {
      body(e);
      return;
    }
    auto inside = scf::IfOp::create(b, loc, TypeRange{},
                                    cmp(arith::CmpIPredicate::ult, e, idx(count)), false);
    b.setInsertionPointToStart(&inside.getThenRegion().front());
    body(e);
  }

  /// Row `p` (flattened (query, head in group)): query index, head, validity.
  struct Row {
    Value valid, query, head, pos;
  };
  Row row(Value p) {
    Row r;
    r.valid = cmp(arith::CmpIPredicate::ult, p, rowsTotal);
    Value pc = select(r.valid, p, idx(0)); // a safe index for rows past the end
    r.query = div(pc, c.group);
    r.head = add(mul(kvh, c.group), rem(pc, c.group));
    r.pos = add(qOff, r.query);
    return r;
  }

  /// Flash decoding: the keys of each (batch, K/V head) are split over `splits` blocks (chosen
  /// at run time from the key count and the grid size), each leaving its rows' running max,
  /// denominator and unnormalised accumulator in a workspace; a second kernel combines them.
  void emitSplit(Value batch) {
    Value bh = mul(batch, c.numKvHeads);
    Value want = arith::CeilDivUIOp::create(b, loc, idx(so.targetBlocks), bh);
    Value byKeys = arith::CeilDivUIOp::create(b, loc, keyLen, idx(so.minKeys));
    splits = maxs(idx(1), mins(mins(want, byKeys), idx(so.maxSplits)));
    // work[b][kvh][split][row][Dv + 2]: acc, then m and l.
    Value size = mul(mul(arith::MulIOp::create(b, loc, bh, splits), kRows), c.dv + 2);
    work = memref::AllocOp::create(b, loc, MemRefType::get({ShapedType::kDynamic}, f32),
                                   ValueRange{size});
    splitting = true;
    emitLaunch(batch);
    emitCombine(batch);
    splitting = false;
    memref::DeallocOp::create(b, loc, work);
  }

  /// The flat workspace index of (row r of the block, split) entry `e`.
  Value workIndex(Value split, Value r, Value e) {
    Value bk = add(mul(bIdx, c.numKvHeads), kvh);
    Value bs = add(arith::MulIOp::create(b, loc, bk, splits), split);
    return add(mul(add(mul(bs, kRows), r), c.dv + 2), e);
  }

  /// The factor that turns a row's accumulator into its output: sinks join the denominator as
  /// in the op's definition, a row without visible keys (den = 0) gives 0.
  Value outputScale(Value mRow, Value den, Value head) {
    Value num = fc(1.0);
    if (c.sinks) {
      Value sink = widen(memref::LoadOp::create(b, loc, sinks, ValueRange{head}));
      Value big = safe(arith::MaximumFOp::create(b, loc, mRow, sink));
      num = fexp(arith::SubFOp::create(b, loc, mRow, big));
      den = fadd(fmul(den, num), fexp(arith::SubFOp::create(b, loc, sink, big)));
    }
    Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, den, fc(0.0));
    return select(empty, fc(0.0),
                  arith::DivFOp::create(b, loc, num, select(empty, fc(1.0), den)));
  }

  /// out[b, query, head, col] = sum_s e^(m_s - M) acc_s / sum_s e^(m_s - M) l_s (M the max of
  /// the m_s), one thread per (row, column) of the block's 16 rows.
  void emitCombine(Value batch) {
    Value one = idx(1);
    auto launch = gpu::LaunchOp::create(b, loc, one, idx(c.numKvHeads), batch, idx(kThreads),
                                        one, one);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    tid = launch.getThreadIds().x;
    p0 = idx(0);
    kvh = launch.getBlockIds().y;
    bIdx = launch.getBlockIds().z;
    qOff = sub(keyLen, tq);
    forEachShare(kRows * c.dv, [&](Value e) {
      Value r = div(e, c.dv), col = rem(e, c.dv);
      Row rw = row(r);
      auto inside = scf::IfOp::create(b, loc, TypeRange{}, rw.valid, false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&inside.getThenRegion().front());
      Value negInf = fc(-std::numeric_limits<double>::infinity());
      auto maxLoop = scf::ForOp::create(b, loc, idx(0), splits, idx(1), ValueRange{negInf});
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(maxLoop.getBody());
        Value ms = memref::LoadOp::create(
            b, loc, work, workIndex(maxLoop.getInductionVar(), r, idx(c.dv)));
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::MaximumFOp::create(b, loc, maxLoop.getRegionIterArgs()[0], ms)});
      }
      Value mAll = maxLoop.getResult(0);
      Value base = safe(mAll);
      auto sumLoop =
          scf::ForOp::create(b, loc, idx(0), splits, idx(1), ValueRange{fc(0.0), fc(0.0)});
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(sumLoop.getBody());
        Value sp = sumLoop.getInductionVar();
        Value ms = memref::LoadOp::create(b, loc, work, workIndex(sp, r, idx(c.dv)));
        Value ls = memref::LoadOp::create(b, loc, work, workIndex(sp, r, idx(c.dv + 1)));
        Value as = memref::LoadOp::create(b, loc, work, workIndex(sp, r, col));
        Value w = fexp(arith::SubFOp::create(b, loc, ms, base));
        ValueRange it = sumLoop.getRegionIterArgs();
        scf::YieldOp::create(b, loc,
                             ValueRange{math::FmaOp::create(b, loc, w, ls, it[0]),
                                        math::FmaOp::create(b, loc, w, as, it[1])});
      }
      Value y = fmul(sumLoop.getResult(1), outputScale(mAll, sumLoop.getResult(0), rw.head));
      if (c.elem != f32)
        y = arith::TruncFOp::create(b, loc, c.elem, y);
      memref::StoreOp::create(b, loc, y, out, ValueRange{bIdx, rw.query, rw.head, col});
    });
    gpu::TerminatorOp::create(b, loc);
  }

  void emitLaunch(Value batch) {
    MLIRContext *ctx = b.getContext();
    auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto qsType = MemRefType::get({kRows, c.d}, f32, MemRefLayoutAttrInterface(), shared);
    auto ksType = MemRefType::get({kKeys, c.d + 1}, f32, MemRefLayoutAttrInterface(), shared);
    auto vsType =
        MemRefType::get({kKeys, 32 * c.cols()}, f32, MemRefLayoutAttrInterface(), shared);
    Value gridX = splitting ? splits : div(add(rowsTotal, idx(kRows - 1)), kRows);
    Value one = idx(1);
    auto launch = gpu::LaunchOp::create(b, loc, gridX, idx(c.numKvHeads), batch, idx(kThreads),
                                        one, one, /*dynamicSharedMemorySize=*/nullptr,
                                        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
                                        TypeRange{qsType, ksType, vsType});
    Value qs = launch.getWorkgroupAttributions()[0];
    ks = launch.getWorkgroupAttributions()[1];
    vs = launch.getWorkgroupAttributions()[2];
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    tid = launch.getThreadIds().x;
    Value warp = div(tid, 32);
    lane = rem(tid, 32);
    // Split: every block has the same (only) 16 rows and its share of the keys.
    Value split = launch.getBlockIds().x;
    p0 = splitting ? idx(0) : mul(launch.getBlockIds().x, kRows);
    kvh = launch.getBlockIds().y;
    bIdx = launch.getBlockIds().z;
    qOff = sub(keyLen, tq);

    // The block's query rows into shared memory (0 for rows past the end).
    forEachShare(kRows * c.d, [&](Value e) {
      Value r = div(e, c.d), dd = rem(e, c.d);
      Row rw = row(add(p0, r));
      Value x = guardedLoad(rw.valid, q, ValueRange{bIdx, rw.query, rw.head, dd});
      memref::StoreOp::create(b, loc, x, qs, ValueRange{r, dd});
    });

    // Keys any row of the block can see: [jlo, jhi).
    Value lastRow = sub(mins(add(p0, idx(kRows)), rowsTotal), idx(1));
    Value posLo = add(qOff, div(p0, c.group));
    Value posHi = add(qOff, div(lastRow, c.group));
    Value jlo = idx(0), jhi = keyLen;
    if (c.causal)
      jhi = mins(jhi, add(posHi, idx(1)));
    if (c.window) // p - j < window
      jlo = maxs(jlo, sub(add(posLo, idx(1)), idx(*c.window)));
    if (c.chunk) { // the same chunk as p
      jlo = maxs(jlo, mul(div(posLo, *c.chunk), *c.chunk));
      jhi = mins(jhi, mul(add(div(posHi, *c.chunk), idx(1)), *c.chunk));
    }
    if (splitting) {
      // This block's share: whole tiles of the range, the last ones possibly empty.
      Value range = maxs(sub(jhi, jlo), idx(0));
      Value perSplit = arith::CeilDivUIOp::create(b, loc, range, splits);
      Value chunk = mul(arith::CeilDivUIOp::create(b, loc, perSplit, idx(kKeys)), kKeys);
      jlo = add(jlo, arith::MulIOp::create(b, loc, split, chunk));
      jhi = mins(jhi, add(jlo, chunk));
    }
    jEnd = jhi;

    int64_t cols = c.cols();
    Value negInf = fc(-std::numeric_limits<double>::infinity());
    SmallVector<Value> init;
    for (int64_t rr = 0; rr < kRowsPerWarp; ++rr)
      init.push_back(negInf); // m
    for (int64_t rr = 0; rr < kRowsPerWarp; ++rr)
      init.push_back(fc(0.0)); // l (this lane's share)
    for (int64_t i = 0; i < kRowsPerWarp * cols; ++i)
      init.push_back(fc(0.0)); // acc
    SmallVector<Row> rows;
    for (int64_t rr = 0; rr < kRowsPerWarp; ++rr)
      rows.push_back(row(add(p0, add(mul(warp, kRowsPerWarp), idx(rr)))));

    auto loop = scf::ForOp::create(b, loc, jlo, jhi, idx(kKeys), init);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(loop.getBody());
      Value j0 = loop.getInductionVar();
      ValueRange it = loop.getRegionIterArgs();
      SmallVector<Value> m(it.begin(), it.begin() + kRowsPerWarp);
      SmallVector<Value> l(it.begin() + kRowsPerWarp, it.begin() + 2 * kRowsPerWarp);
      SmallVector<Value> acc(it.begin() + 2 * kRowsPerWarp, it.end());

      // Nobody still reads the previous tile when it is overwritten.
      gpu::BarrierOp::create(b, loc);
      forEachShare(kKeys * c.d, [&](Value e) {
        Value jj = div(e, c.d), dd = rem(e, c.d);
        Value j = add(j0, jj);
        Value x = guardedLoad(cmp(arith::CmpIPredicate::ult, j, jEnd), k,
                              ValueRange{bIdx, j, kvh, dd});
        memref::StoreOp::create(b, loc, x, ks, ValueRange{jj, dd});
      });
      int64_t vsCols = 32 * c.cols();
      forEachShare(kKeys * vsCols, [&](Value e) {
        Value jj = div(e, vsCols), dd = rem(e, vsCols);
        Value j = add(j0, jj);
        Value inside = cmp(arith::CmpIPredicate::ult, j, jEnd);
        if (vsCols != c.dv)
          inside = andi(inside, cmp(arith::CmpIPredicate::ult, dd, idx(c.dv)));
        Value x = guardedLoad(inside, v, ValueRange{bIdx, j, kvh, dd});
        memref::StoreOp::create(b, loc, x, vs, ValueRange{jj, dd});
      });
      gpu::BarrierOp::create(b, loc);

      // Scores of key j0 + lane for the warp's rows.
      SmallVector<Value> zeros(kRowsPerWarp, fc(0.0));
      auto dLoop = scf::ForOp::create(b, loc, idx(0), idx(c.d), idx(1), zeros);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(dLoop.getBody());
        Value dd = dLoop.getInductionVar();
        Value kd = memref::LoadOp::create(b, loc, ks, ValueRange{lane, dd});
        SmallVector<Value> s;
        for (int64_t rr = 0; rr < kRowsPerWarp; ++rr) {
          Value r = add(mul(warp, kRowsPerWarp), idx(rr));
          Value qd = memref::LoadOp::create(b, loc, qs, ValueRange{r, dd});
          s.push_back(math::FmaOp::create(b, loc, qd, kd, dLoop.getRegionIterArgs()[rr]));
        }
        scf::YieldOp::create(b, loc, s);
      }

      Value j = add(j0, lane);
      Value inRange = cmp(arith::CmpIPredicate::ult, j, jEnd);
      Value jSafe = select(inRange, j, idx(0));
      SmallVector<Value> probs;
      for (int64_t rr = 0; rr < kRowsPerWarp; ++rr) {
        const Row &rw = rows[rr];
        Value x = fmul(dLoop.getResult(rr), fc(c.scale));
        if (c.softcap && !std::isinf(*c.softcap)) {
          Value t = math::TanhOp::create(b, loc, fmul(x, fc(1.0 / *c.softcap)));
          x = fmul(fc(*c.softcap), t);
        }
        Value visible = andi(inRange, rw.valid);
        if (c.mask) {
          auto mt = cast<MemRefType>(mask.getType());
          Value bm = mt.getDimSize(0) == 1 ? idx(0) : bIdx;
          Value hm = mt.getDimSize(1) == 1 ? idx(0) : rw.head;
          x = fadd(x, guardedLoad(visible, mask, ValueRange{bm, hm, rw.query, jSafe}));
        }
        if (c.causal)
          visible = andi(visible, cmp(arith::CmpIPredicate::sle, j, rw.pos));
        if (c.window)
          visible = andi(visible, cmp(arith::CmpIPredicate::slt, sub(rw.pos, j), idx(*c.window)));
        if (c.chunk)
          visible = andi(visible, cmp(arith::CmpIPredicate::eq, div(j, *c.chunk),
                                      div(rw.pos, *c.chunk)));
        if (c.segmentIds) {
          auto segIf = scf::IfOp::create(b, loc, TypeRange{b.getI1Type()}, visible, true);
          {
            OpBuilder::InsertionGuard g3(b);
            b.setInsertionPointToStart(&segIf.getThenRegion().front());
            Value sj = memref::LoadOp::create(b, loc, seg, ValueRange{bIdx, jSafe});
            Value sp = memref::LoadOp::create(b, loc, seg, ValueRange{bIdx, rw.pos});
            scf::YieldOp::create(b, loc, cmp(arith::CmpIPredicate::eq, sj, sp));
            b.setInsertionPointToStart(&segIf.getElseRegion().front());
            scf::YieldOp::create(b, loc, arith::ConstantOp::create(b, loc, b.getBoolAttr(false))
                                             .getResult());
          }
          visible = segIf.getResult(0);
        }
        x = select(visible, x, negInf);
        Value mNew = arith::MaximumFOp::create(b, loc, m[rr], warpReduce(x, /*isMax=*/true));
        Value base = safe(mNew);
        Value corr = fexp(arith::SubFOp::create(b, loc, m[rr], base));
        Value p = fexp(arith::SubFOp::create(b, loc, x, base));
        l[rr] = fadd(fmul(l[rr], corr), p);
        for (int64_t cc = 0; cc < cols; ++cc)
          acc[rr * cols + cc] = fmul(acc[rr * cols + cc], corr);
        m[rr] = mNew;
        probs.push_back(p);
      }

      // acc += P·V: each key's probability broadcast from its lane.
      auto pvLoop = scf::ForOp::create(b, loc, idx(0), idx(kKeys), idx(1), acc);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(pvLoop.getBody());
        Value jj = pvLoop.getInductionVar();
        Value src = arith::IndexCastOp::create(b, loc, b.getI32Type(), jj);
        SmallVector<Value> next(pvLoop.getRegionIterArgs());
        SmallVector<Value> vcol;
        for (int64_t cc = 0; cc < cols; ++cc)
          vcol.push_back(memref::LoadOp::create(b, loc, vs, ValueRange{jj, add(lane, idx(32 * cc))}));
        for (int64_t rr = 0; rr < kRowsPerWarp; ++rr) {
          Value pj = shuffle(probs[rr], src, gpu::ShuffleMode::IDX);
          for (int64_t cc = 0; cc < cols; ++cc)
            next[rr * cols + cc] = math::FmaOp::create(b, loc, pj, vcol[cc], next[rr * cols + cc]);
        }
        scf::YieldOp::create(b, loc, next);
      }
      SmallVector<Value> yielded(m);
      yielded.append(l);
      yielded.append(pvLoop.getResults().begin(), pvLoop.getResults().end());
      scf::YieldOp::create(b, loc, yielded);
    }

    // Split: the rows' partial state goes to the workspace (m and l by lane 0, the
    // accumulator by column), for the combining kernel.
    if (splitting) {
      for (int64_t rr = 0; rr < kRowsPerWarp; ++rr) {
        const Row &rw = rows[rr];
        Value r = add(mul(warp, kRowsPerWarp), idx(rr));
        Value den = warpReduce(loop.getResult(kRowsPerWarp + rr), /*isMax=*/false);
        auto lead = scf::IfOp::create(
            b, loc, TypeRange{}, andi(rw.valid, cmp(arith::CmpIPredicate::eq, lane, idx(0))),
            false);
        {
          OpBuilder::InsertionGuard g3(b);
          b.setInsertionPointToStart(&lead.getThenRegion().front());
          memref::StoreOp::create(b, loc, loop.getResult(rr), work,
                                  workIndex(split, r, idx(c.dv)));
          memref::StoreOp::create(b, loc, den, work, workIndex(split, r, idx(c.dv + 1)));
        }
        for (int64_t cc = 0; cc < cols; ++cc) {
          Value col = add(lane, idx(32 * cc));
          Value inside = rw.valid;
          if (32 * (cc + 1) > c.dv)
            inside = andi(inside, cmp(arith::CmpIPredicate::ult, col, idx(c.dv)));
          auto store = scf::IfOp::create(b, loc, TypeRange{}, inside, false);
          OpBuilder::InsertionGuard g3(b);
          b.setInsertionPointToStart(&store.getThenRegion().front());
          memref::StoreOp::create(b, loc, loop.getResult(2 * kRowsPerWarp + rr * cols + cc),
                                  work, workIndex(split, r, col));
        }
      }
      gpu::TerminatorOp::create(b, loc);
      return;
    }

    // Normalise and store.
    for (int64_t rr = 0; rr < kRowsPerWarp; ++rr) {
      const Row &rw = rows[rr];
      Value mRow = loop.getResult(rr);
      Value den = warpReduce(loop.getResult(kRowsPerWarp + rr), /*isMax=*/false);
      Value rowScale = outputScale(mRow, den, rw.head);
      for (int64_t cc = 0; cc < cols; ++cc) {
        Value col = add(lane, idx(32 * cc));
        Value inside = rw.valid;
        if (32 * (cc + 1) > c.dv)
          inside = andi(inside, cmp(arith::CmpIPredicate::ult, col, idx(c.dv)));
        auto store = scf::IfOp::create(b, loc, TypeRange{}, inside, false);
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(&store.getThenRegion().front());
        Value y = fmul(loop.getResult(2 * kRowsPerWarp + rr * cols + cc), rowScale);
        if (c.elem != f32)
          y = arith::TruncFOp::create(b, loc, c.elem, y);
        memref::StoreOp::create(b, loc, y, out, ValueRange{bIdx, rw.query, rw.head, col});
      }
    }
    gpu::TerminatorOp::create(b, loc);
  }

  func::FuncOp fn;
  const Config &c;
  const SplitOptions &so;
  OpBuilder b;
  Location loc;
  Type f32;
  Value q, k, v, keyLen, mask, seg, sinks, out, tq, rowsTotal;
  Value splits, work; // split decoding: the split count and the workspace
  bool splitting = false; // emitting the split kernels
  // Inside the launch.
  Value ks, vs, tid, lane, p0, kvh, bIdx, qOff, jEnd;
};

struct GPUFlashAttentionPass
    : public mlir::decoda::impl::GPUFlashAttentionPassBase<GPUFlashAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto fn : llvm::to_vector(getOperation().getOps<func::FuncOp>())) {
      auto dict = fn->getAttrOfType<DictionaryAttr>(decoda::kGPUAttentionAttr);
      if (!dict)
        continue;
      std::string why;
      SplitOptions split{decodeSplits, decodeTargetBlocks, decodeMinKeys};
      if (split.targetBlocks < 1 || split.minKeys < 1) {
        getOperation().emitError()
            << "decoda-gpu-flash-attention: decode-target-blocks and decode-min-keys must be at "
               "least 1 (got "
            << split.targetBlocks << ", " << split.minKeys << ")";
        return signalPassFailure();
      }
      FailureOr<Config> c = readConfig(fn, dict, split, why);
      if (failed(c)) {
        StringAttr op = dict.getAs<StringAttr>("op");
        mlir::emitRemark(fn.getLoc()) << "decoda-gpu-flash-attention: " << (op ? op.getValue() : "attention")
                        << " keeps the target-neutral lowering (key-tile loop of kernels): "
                        << why;
        ++numLeft;
        continue;
      }
      Kernel(fn, *c, split).emit();
      fn->removeAttr(decoda::kGPUAttentionAttr);
      ++numKernels;
      if (c->split != Config::Split::Never)
        ++numSplit;
    }
  }
};
} // namespace
