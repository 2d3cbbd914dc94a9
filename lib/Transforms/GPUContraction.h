//===- GPUContraction.h - projection contractions for the GPU kernels --*- C++ -*-===//
//
// What decoda-gpu-gemv and decoda-gpu-tensorcore-matmul (GPUPasses.td) share: the match of a
// projection contraction C[lead..., n] += A[lead..., k] * B[n, k] on buffers (B the weight as
// stored; f32 accumulation of bf16/f16/f32, i32 of i8), the zero fill before it that a kernel
// can fold (also past ops independent of a temporary C, and after a copy of a zero-filled
// temporary became a fill), the elementwise consumer of C that a kernel can apply in its
// stores (fusableEpilogue, storeThroughEpilogue: docs/GPU.md "Epilogue fusion"), the collapse
// of the lead dims into one M, and a few index-arithmetic builders for kernel bodies.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_TRANSFORMS_GPUCONTRACTION_H
#define DECODA_LIB_TRANSFORMS_GPUCONTRACTION_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <optional>
#include <string>

namespace mlir::decoda::gpu_contraction {

/// The operands of a matched contraction: A [lead..., K], B [N, K], C [lead..., N]; or, a
/// per-head contraction (`heads` > 1, ProjectionForms::heads: decoda.linear with a
/// [H, N, K] weight), B [H, N, K] whose head is A's and C's last lead dim, A
/// [lead'..., H, K], C [lead'..., H, N]; with `kMajor` (ProjectionForms::inOut) B is stored
/// [K, N] ([H, K, N]): an in_out weight that is no constant (those are transposed at compile
/// time).
struct Match {
  linalg::GenericOp op;
  Value a, b, c; // the original buffers
  int64_t lead;  // number of lead dims (rows of A/C; a per-head contraction's include H)
  int64_t n, k;
  Type elementType; // of A and B: bf16 or f16 (widened by extf in the body), f32, or i8
                    // (widened by extsi, i32 accumulator)
  int64_t heads = 1; // H of a per-head B [H, N, K]; 1: B is [N, K]
  bool kMajor = false; // B is [K, N] ([H, K, N])

  bool integer() const { return elementType.isInteger(8); }
  int64_t elementBytes() const { return elementType.getIntOrFloatBitWidth() / 8; }
};

inline bool isIdentityLayout(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && m.getLayout().isIdentity();
}

/// Whether `body` is yield(out + widen(a) * widen(b)), either order of each operation, with
/// widen an `ExtOp` of the block argument or (`widened` false) the argument itself.
template <typename ExtOp, typename MulOp, typename AddOp>
bool isMultiplyAccumulate(Block &body, bool widened) {
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<AddOp>();
  if (!add || body.getOperations().size() != (widened ? 5u : 3u))
    return false;
  Value out = body.getArgument(2);
  Value prod = add.getLhs() == out ? add.getRhs() : add.getRhs() == out ? add.getLhs() : Value();
  auto mul = prod ? prod.template getDefiningOp<MulOp>() : nullptr;
  if (!mul)
    return false;
  auto isWidened = [&](Value v, unsigned arg) {
    if (!widened)
      return v == body.getArgument(arg);
    auto ext = v.template getDefiningOp<ExtOp>();
    return ext && ext.getIn() == body.getArgument(arg);
  };
  return (isWidened(mul.getLhs(), 0) && isWidened(mul.getRhs(), 1)) ||
         (isWidened(mul.getLhs(), 1) && isWidened(mul.getRhs(), 0));
}

/// Why `op` is not a projection contraction, or "" with `match` filled in. Accepted: bf16 or
/// f16 operands with body `out + extf(a) * extf(b)`, f32 operands with `out + a * b` (either
/// order of each operation) and an f32 accumulator; i8 operands with `out + extsi(a) *
/// extsi(b)` and an i32 accumulator (decoda.qlinear without a zero point); N and K static. With
/// `forms.heads` also a per-head B [H, N, K] indexed (last lead dim, n, k), H static (`heads`);
/// with `forms.inOut` also B [K, N] indexed (k, n) (and, with both, [H, K, N]: `kMajor`).
/// The passes add their own limits.
struct ProjectionForms {
  bool heads = false, inOut = false;
};
inline std::string matchProjection(linalg::GenericOp op, Match &match,
                                   ProjectionForms forms = {}) {
  if (!op.hasPureBufferSemantics())
    return "not on buffers";
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return op.getNumDpsInputs() == 3 && op->hasAttr("decoda.qlinear_acc")
               ? "an INT8 contraction with an activation zero point (only symmetric "
                 "activations map to s8 mma; decoda-gpu-split-zero-point splits it out)"
               : "not two inputs and one output";
  unsigned loops = op.getNumLoops();
  if (loops < 3)
    return "fewer than three loops";
  auto iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i + 1 < loops; ++i)
    if (iters[i] != utils::IteratorType::parallel)
      return "a reduction other than the innermost loop";
  if (iters.back() != utils::IteratorType::reduction)
    return "the innermost loop is not a reduction";
  int64_t lead = loops - 2;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> aExprs, cExprs;
  for (int64_t d = 0; d < lead; ++d) {
    aExprs.push_back(getAffineDimExpr(d, ctx));
    cExprs.push_back(getAffineDimExpr(d, ctx));
  }
  aExprs.push_back(getAffineDimExpr(lead + 1, ctx));
  cExprs.push_back(getAffineDimExpr(lead, ctx));
  auto maps = op.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(loops, 0, aExprs, ctx) ||
      maps[2] != AffineMap::get(loops, 0, cExprs, ctx))
    return "A or C is not indexed (lead..., k) / (lead..., n)";
  // B indexed (n, k), (k, n), (h, n, k) or (h, k, n).
  auto weightMap = [&](bool heads, bool kFirst) {
    SmallVector<AffineExpr> r;
    if (heads)
      r.push_back(getAffineDimExpr(lead - 1, ctx));
    r.push_back(getAffineDimExpr(kFirst ? lead + 1 : lead, ctx));
    r.push_back(getAffineDimExpr(kFirst ? lead : lead + 1, ctx));
    return AffineMap::get(loops, 0, r, ctx);
  };
  bool perHead = false, kMajor = false, known = false;
  for (bool h : {false, true})
    for (bool kf : {false, true})
      if (!known && maps[1] == weightMap(h, kf)) {
        perHead = h;
        kMajor = kf;
        known = true;
      }
  if (!known || (kMajor && !forms.inOut))
    return "B is not a [n, k] weight";
  if (perHead && !forms.heads)
    return "B is a per-head [h, n, k] weight";
  Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1], c = op.getDpsInits()[0];
  if (!isIdentityLayout(a.getType()) || !isIdentityLayout(b.getType()) ||
      !isIdentityLayout(c.getType()))
    return "an operand has a non-identity layout";
  auto aType = cast<MemRefType>(a.getType()), bType = cast<MemRefType>(b.getType());
  auto cType = cast<MemRefType>(c.getType());
  Type el = aType.getElementType();
  bool integer = el.isInteger(8);
  if (!el.isBF16() && !el.isF16() && !el.isF32() && !integer)
    return "operands are not bf16, f16, f32 or i8";
  if (bType.getElementType() != el)
    return "A and B have different element types";
  if (integer ? !cType.getElementType().isInteger(32) : !cType.getElementType().isF32())
    return integer ? "the accumulator is not i32" : "the accumulator is not f32";
  if (llvm::any_of(bType.getShape(), ShapedType::isDynamic))
    return perHead ? "H, N or K is dynamic" : "N or K is dynamic";
  int64_t heads = perHead ? bType.getDimSize(0) : 1;
  int64_t n = bType.getDimSize((perHead ? 1 : 0) + (kMajor ? 1 : 0));
  int64_t k = bType.getDimSize((perHead ? 1 : 0) + (kMajor ? 0 : 1));
  if (aType.getDimSize(lead) != k || cType.getDimSize(lead) != n)
    return "A, B and C disagree on N or K";
  if (perHead && (aType.getDimSize(lead - 1) != heads || cType.getDimSize(lead - 1) != heads))
    return "A, B and C disagree on the heads";

  Block &body = op.getRegion().front();
  if (integer ? !isMultiplyAccumulate<arith::ExtSIOp, arith::MulIOp, arith::AddIOp>(body, true)
              : !isMultiplyAccumulate<arith::ExtFOp, arith::MulFOp, arith::AddFOp>(body,
                                                                                   !el.isF32()))
    return integer ? "the body is not out + extsi(a) * extsi(b)"
                   : "the body is not out + extf(a) * extf(b) (out + a * b in f32)";
  match = {op, a, b, c, lead, n, k, el, heads, kMajor};
  return "";
}

/// The buffer `v` is a view of (subview, collapse_shape, cast, transpose, ...), or `v` itself.
inline Value viewRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    // memref.transpose is a view without the interface.
    if (auto t = dyn_cast<memref::TransposeOp>(def)) {
      v = t.getIn();
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  return v;
}

/// An elementwise consumer of a contraction's result that the kernel applies to its
/// accumulators before the store (`op` null: none). `cIndex` is the input of `op` that reads C,
/// directly or through `view`, a memref.expand_shape splitting N into `inner` (the heads of a
/// projection: [lead..., N] -> [lead..., H, D]); `inner` is {N} without one.
struct Epilogue {
  linalg::GenericOp op;
  unsigned cIndex = 0;
  Value output;
  memref::ExpandShapeOp view;
  SmallVector<int64_t> inner;
  explicit operator bool() const { return static_cast<bool>(op); }
  Value out() const { return output; }
};

/// Why the op after the contraction `m` is not an epilogue its kernel can apply in its
/// stores, or "" with `epi` filled in; `epi.op` stays null and the reason is "" when no
/// elementwise op reading C follows at all. Taken: the next op after the contraction that
/// touches memory (allocations aside) is a linalg.generic on buffers with only parallel
/// loops; C (a memref.alloc read or written only by the contraction, its fill, this op and
/// deallocations; memref.dim aside) one of its inputs with the identity map, or a
/// memref.expand_shape of C that only splits N (static sizes) and that only it reads; its
/// other inputs indexed by loop dims and constants; a pure body (no linalg.index) that does
/// not read the output; and one output of the shape it reads C in, with an identity layout,
/// that is no view of any input (nor of A or B, which other blocks still read while one
/// stores). With `stridedOutput` (kernels storing element by element: the GEMV's) the output
/// may be a strided view whose lead dims and whose N dims each collapse into one (a slice of
/// a concatenation: absorbed MLA's q_lat written into [q_lat ; q_rope]). The caller still
/// needs C to start from zero (a folded zero fill): the kernel's accumulators are then
/// exactly the values the contraction would have left in C.
inline std::string whyNotEpilogue(Match m, Epilogue &epi, bool stridedOutput = false) {
  epi = Epilogue();
  linalg::GenericOp op;
  for (Operation *next = m.op->getNextNode(); next && !op; next = next->getNextNode()) {
    op = dyn_cast<linalg::GenericOp>(next);
    if (!op && !isa<memref::AllocOp>(next) && !isMemoryEffectFree(next))
      return "";
  }
  auto viewOfC = [&](Value v) {
    auto expand = v.getDefiningOp<memref::ExpandShapeOp>();
    return expand && expand.getSrc() == m.c ? expand : memref::ExpandShapeOp();
  };
  auto readsC = [&](Value v) { return v == m.c || viewOfC(v); };
  if (!op || !llvm::any_of(op->getOperands(), readsC))
    return "";
  if (!m.c.getDefiningOp<memref::AllocOp>())
    return "C is not a temporary (memref.alloc)";
  for (Operation *user : m.c.getUsers()) {
    if (user == m.op.getOperation() || user == op.getOperation() ||
        isa<linalg::FillOp, memref::DeallocOp, memref::DimOp>(user))
      continue;
    auto expand = dyn_cast<memref::ExpandShapeOp>(user);
    if (expand && llvm::all_of(expand->getUsers(), [&](Operation *u) { return u == op; }))
      continue;
    return "C has another user (" + user->getName().getStringRef().str() + ")";
  }
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return "the consumer is not on buffers with one output";
  int cIndex = -1;
  for (unsigned i = 0; i < op.getNumDpsInputs(); ++i) {
    if (!readsC(op.getDpsInputs()[i]))
      continue;
    if (cIndex >= 0)
      return "C is read twice";
    cIndex = i;
  }
  if (cIndex < 0)
    return "the consumer writes C";
  Value cv = op.getDpsInputs()[cIndex];
  epi.inner = {m.n};
  if (memref::ExpandShapeOp expand = viewOfC(cv)) {
    auto groups = expand.getReassociationIndices();
    auto type = expand.getResultType();
    bool splitsN = int64_t(groups.size()) == m.lead + 1;
    for (int64_t d = 0; splitsN && d < m.lead; ++d)
      splitsN = groups[d].size() == 1;
    for (int64_t d = m.lead; splitsN && d < type.getRank(); ++d)
      splitsN = !type.isDynamicDim(d);
    if (!splitsN)
      return "C is read through a view other than a split of N";
    epi.view = expand;
    epi.inner.assign(type.getShape().begin() + m.lead, type.getShape().end());
  }
  auto cvType = cast<MemRefType>(cv.getType());
  if (op.getNumLoops() != unsigned(cvType.getRank()) || op.getNumReductionLoops() != 0)
    return "the consumer is not elementwise over C";
  Value out = op.getDpsInits()[0];
  if (viewRoot(out) == m.c)
    return "the consumer writes C";
  auto outType = cast<MemRefType>(out.getType());
  if (outType.getShape() != cvType.getShape())
    return "the output is not of C's shape";
  if (!isIdentityLayout(outType)) {
    if (!stridedOutput)
      return "the output does not have an identity layout";
    SmallVector<ReassociationIndices> rowsAndColumns(2);
    for (int64_t d = 0; d < outType.getRank(); ++d)
      rowsAndColumns[d < m.lead ? 0 : 1].push_back(d);
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(outType, rowsAndColumns))
      return "the output's lead dims or N do not collapse into one (its strides)";
  }
  auto maps = op.getIndexingMapsArray();
  if (!maps.back().isIdentity())
    return "the output is not indexed by the identity map";
  Value outRoot = viewRoot(out);
  // Other blocks of the kernel still read A and B while one stores.
  if (viewRoot(m.a) == outRoot || viewRoot(m.b) == outRoot)
    return "the output aliases an operand of the contraction";
  for (unsigned i = 0; i < op.getNumDpsInputs(); ++i) {
    Value in = op.getDpsInputs()[i];
    if (viewRoot(in) == outRoot)
      return "the output aliases an input";
    if (int(i) == cIndex) {
      if (!maps[i].isIdentity())
        return "C is not read with the identity map";
      continue;
    }
    for (AffineExpr r : maps[i].getResults())
      if (!isa<AffineDimExpr, AffineConstantExpr>(r))
        return "an input is not indexed by loop dims and constants";
  }
  Block &body = op.getRegion().front();
  if (!body.getArguments().back().use_empty())
    return "the body reads the output";
  for (Operation &inner : body.without_terminator())
    if (isa<linalg::IndexOp>(inner) || !isPure(&inner))
      return "the body is not pure or uses linalg.index";
  epi.op = op;
  epi.cIndex = cIndex;
  epi.output = out;
  return "";
}

/// The epilogue's output as the kernel stores it, in C's shape [lead..., N] (its split of N
/// merged back: the output has an identity layout).
inline Value outputAsC(OpBuilder &b, Location loc, const Epilogue &epi, int64_t lead) {
  auto type = cast<MemRefType>(epi.out().getType());
  if (type.getRank() == lead + 1)
    return epi.out();
  SmallVector<ReassociationIndices> re;
  for (int64_t d = 0; d < lead; ++d)
    re.push_back({d});
  re.emplace_back();
  for (int64_t d = lead; d < type.getRank(); ++d)
    re.back().push_back(d);
  return memref::CollapseShapeOp::create(b, loc, epi.out(), re);
}

/// Erases a fused epilogue (and its view of C once unused).
inline void eraseEpilogue(Epilogue &epi) {
  epi.op.erase();
  if (epi.view && epi.view->use_empty())
    epi.view.erase();
}

/// The epilogue of `m` that its kernel applies, or none (no candidate, or refused; `report`
/// hears the reason of a refusal).
inline Epilogue
fusableEpilogue(Match m,
                llvm::function_ref<void(linalg::GenericOp, const std::string &)> report = {},
                bool stridedOutput = false) {
  Epilogue epi;
  std::string why = whyNotEpilogue(m, epi, stridedOutput);
  if (!why.empty() && report) {
    for (Operation *next = m.op->getNextNode(); next; next = next->getNextNode())
      if (auto g = dyn_cast<linalg::GenericOp>(next)) {
        report(g, why);
        break;
      }
  }
  return epi;
}

/// The extents of the lead dims of `epi`'s output (C's; at `b`, outside any kernel): a row of
/// the collapsed [M, N] output splits back into (lead...) with them.
inline SmallVector<Value> leadExtents(OpBuilder &b, Location loc, const Match &m,
                                      const Epilogue &epi) {
  SmallVector<Value> dims;
  for (int64_t d = 0; d < m.lead; ++d)
    dims.push_back(memref::DimOp::create(b, loc, epi.out(), d));
  return dims;
}

/// The values of `epi`'s inputs other than C at the elements (row `row` of the collapsed
/// [M, N] output, columns `col` .. `col` + count - 1), (lead...) recovered from the row by
/// `leadDims`: for each element in turn, one value per input in operand order. The caller
/// makes the indices valid (a kernel that loads them ahead of its guarded stores clamps rows
/// and columns into the output). Input `skip` is not loaded: a null value holds its place
/// (the kernel has it in registers).
inline SmallVector<Value> loadEpilogueOperands(OpBuilder &b, Location loc, Epilogue epi,
                                               ArrayRef<Value> leadDims, Value row, Value col,
                                               int64_t count, int skip = -1) {
  auto idx = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  int64_t leadCount = leadDims.size();
  SmallVector<Value> lead(leadCount);
  Value rest = row;
  for (int64_t d = leadCount - 1; d > 0; --d) {
    lead[d] = arith::RemUIOp::create(b, loc, rest, leadDims[d]);
    rest = arith::DivUIOp::create(b, loc, rest, leadDims[d]);
  }
  lead[0] = rest;
  linalg::GenericOp op = epi.op;
  auto maps = op.getIndexingMapsArray();
  SmallVector<Value> values;
  for (int64_t j = 0; j < count; ++j) {
    SmallVector<Value> iters(lead);
    // n, split into the epilogue's inner dims (static extents).
    Value n = j == 0 ? col : arith::AddIOp::create(b, loc, col, idx(j)).getResult();
    SmallVector<Value> innerIdx(epi.inner.size());
    for (size_t d = epi.inner.size() - 1; d > 0; --d) {
      innerIdx[d] = arith::RemUIOp::create(b, loc, n, idx(epi.inner[d]));
      n = arith::DivUIOp::create(b, loc, n, idx(epi.inner[d]));
    }
    innerIdx[0] = n;
    iters.append(innerIdx);
    for (unsigned i = 0; i < op.getNumDpsInputs(); ++i) {
      if (i == epi.cIndex)
        continue;
      if (int(i) == skip) {
        values.push_back(Value());
        continue;
      }
      SmallVector<Value> at;
      for (AffineExpr r : maps[i].getResults())
        at.push_back(isa<AffineDimExpr>(r) ? iters[cast<AffineDimExpr>(r).getPosition()]
                                           : idx(cast<AffineConstantExpr>(r).getValue()));
      values.push_back(memref::LoadOp::create(b, loc, op.getDpsInputs()[i], at));
    }
  }
  return values;
}

/// Whether a kernel whose threads hold `accumulators` accumulator elements each may load the
/// epilogue's other inputs for all of them ahead (loadEpilogueOperands before the K loop or the
/// guarded stores): at most 64 more registers a thread (a 128-column wgmma tile with one
/// operand), beyond which they would crowd the accumulators into spills; the kernels load them
/// in the stores otherwise.
inline bool epilogueLoadsFit(Epilogue epi, int64_t accumulators) {
  return accumulators * (epi.op.getNumDpsInputs() - 1) <= 64;
}

/// Stores `epi`'s body applied to the accumulators `accs` (row `row` of the collapsed
/// [M, N] output `out2`, columns `col`, `col` + 1, ...): its other inputs are `operands`
/// (loadEpilogueOperands of these elements, loaded earlier) or, when empty, read here at each
/// element's indices, (lead...) recovered from the row by `leadDims`. Two accumulators are
/// stored as one vector (`col` even, N even: aligned to its size).
inline void storeThroughEpilogue(OpBuilder &b, Location loc, Epilogue epi,
                                 ArrayRef<Value> leadDims, Value out2, ArrayRef<Value> accs,
                                 Value row, Value col, ArrayRef<Value> operands = {}) {
  auto idx = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  SmallVector<Value> loaded(operands);
  if (loaded.empty())
    loaded = loadEpilogueOperands(b, loc, epi, leadDims, row, col, accs.size());
  linalg::GenericOp op = epi.op;
  Block &body = op.getRegion().front();
  const size_t perElement = op.getNumDpsInputs() - 1;
  assert(loaded.size() == perElement * accs.size() && "one value per input and element");
  SmallVector<Value> ys;
  for (size_t j = 0; j < accs.size(); ++j) {
    IRMapping map;
    for (unsigned i = 0, next = 0; i < op.getNumDpsInputs(); ++i)
      map.map(body.getArgument(i), i == epi.cIndex ? accs[j] : loaded[j * perElement + next++]);
    for (Operation &inner : body.without_terminator())
      b.clone(inner, map);
    ys.push_back(map.lookup(cast<linalg::YieldOp>(body.getTerminator()).getOperand(0)));
  }
  if (ys.size() == 2) {
    Type el = ys[0].getType();
    auto pair = VectorType::get({2}, el);
    Value v = vector::FromElementsOp::create(b, loc, pair, ys);
    vector::StoreOp::create(b, loc, v, out2, ValueRange{row, col}, /*nontemporal=*/false,
                            llvm::MaybeAlign(2 * el.getIntOrFloatBitWidth() / 8));
    return;
  }
  for (size_t j = 0; j < ys.size(); ++j)
    memref::StoreOp::create(
        b, loc, ys[j], out2,
        ValueRange{row, j == 0 ? col : arith::AddIOp::create(b, loc, col, idx(j)).getResult()});
}

/// Erases `alloc` with its deallocations when nothing else uses it any more (a contraction's
/// temporary C once the kernel stores the epilogue's result instead).
inline void eraseIfUnused(memref::AllocOp alloc) {
  if (!alloc || !llvm::all_of(alloc->getUsers(), [](Operation *u) {
        return isa<memref::DeallocOp, memref::DimOp>(u);
      }))
    return;
  // Its extents are the allocation's operands (or constants).
  for (Operation *u : llvm::make_early_inc_range(alloc->getUsers())) {
    auto dim = dyn_cast<memref::DimOp>(u);
    if (!dim)
      continue;
    std::optional<int64_t> d = dim.getConstantIndex();
    if (!d)
      return;
    OpBuilder b(dim);
    auto type = alloc.getType();
    Value size = type.isDynamicDim(*d)
                     ? alloc.getDynamicSizes()[type.getDynamicDimIndex(*d)]
                     : arith::ConstantIndexOp::create(b, dim.getLoc(), type.getDimSize(*d))
                           .getResult();
    dim.replaceAllUsesWith(size);
    dim.erase();
  }
  for (Operation *u : llvm::make_early_inc_range(alloc->getUsers()))
    u->erase();
  alloc.erase();
}

/// Collapses the lead dims of `v` (identity layout) into one: [lead..., x] -> [M, x].
inline Value collapseLead(OpBuilder &b, Location loc, Value v, int64_t lead) {
  if (lead == 1)
    return v;
  SmallVector<ReassociationIndices> re(2);
  for (int64_t d = 0; d < lead; ++d)
    re[0].push_back(d);
  re[1].push_back(lead);
  return memref::CollapseShapeOp::create(b, loc, v, re);
}

/// Whether the walk back from an op to the fill of the buffer `root` (a memref.alloc) may step
/// over `op`: it has no memory effects, allocates, or is a linalg op, copy, kernel or scf.if of
/// such ops none of which names a view of `root` (a kernel reaches global memory only through
/// the buffers it uses from above).
inline bool independentOf(Operation *op, Value root) {
  if (isMemoryEffectFree(op) || isa<memref::AllocOp>(op))
    return true;
  auto touches = [&](Value v) { return isa<MemRefType>(v.getType()) && viewRoot(v) == root; };
  if (llvm::any_of(op->getOperands(), touches))
    return false;
  if (isa<linalg::LinalgOp, memref::CopyOp>(op))
    return true;
  if (isa<gpu::LaunchOp>(op)) {
    bool uses = false;
    op->walk([&](Operation *inner) { uses |= llvm::any_of(inner->getOperands(), touches); });
    return !uses;
  }
  if (auto dispatch = dyn_cast<scf::IfOp>(op)) {
    for (Region *region : {&dispatch.getThenRegion(), &dispatch.getElseRegion()})
      for (Block &block : *region)
        for (Operation &inner : block)
          if (!independentOf(&inner, root))
            return false;
    return true;
  }
  return false;
}

/// The last op before `op` that writes `c` when it is a zero linalg.fill of `c` (only
/// effect-free ops in between, or, when `c` is a temporary (memref.alloc), ops independent of
/// it), else null. The kernel of a contraction can start from zero instead (it writes every
/// element of `c`).
inline linalg::FillOp zeroFillBefore(Operation *op, Value c) {
  bool temporary = c.getDefiningOp<memref::AllocOp>() != nullptr;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (fill.hasPureBufferSemantics() && fill.getDpsInits()[0] == c) {
        Value v = fill.getDpsInputs()[0];
        return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero()) ? fill : nullptr;
      }
    }
    if (!(temporary ? independentOf(prev, c) : isMemoryEffectFree(prev)))
      return nullptr;
  }
  return nullptr;
}

/// A copy of a zero-filled temporary into another becomes a zero fill of the latter: how
/// bufferization leaves the zero init that two contractions shared as tensors (the gate and
/// up projections of a GLU), which zeroFillBefore would not see.
inline void zeroCopiesToFills(Operation *root) {
  SmallVector<memref::CopyOp> copies;
  root->walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    Value src = copy.getSource(), dst = copy.getTarget();
    if (!src.getDefiningOp<memref::AllocOp>() || src.getType() != dst.getType() ||
        copy->getParentOfType<gpu::LaunchOp>())
      continue;
    linalg::FillOp fill = zeroFillBefore(copy, src);
    if (!fill)
      continue;
    OpBuilder b(copy);
    linalg::FillOp::create(b, copy.getLoc(), fill.getDpsInputs()[0], dst);
    copy.erase();
  }
}

/// The generics with a reduction under `root` that are not in a kernel yet, in order.
inline SmallVector<linalg::GenericOp> contractionsUnder(Operation *root) {
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp op) {
    if (!op->getParentOfType<gpu::LaunchOp>() &&
        llvm::is_contained(op.getIteratorTypesArray(), utils::IteratorType::reduction))
      generics.push_back(op);
  });
  return generics;
}

/// What a rewrite of the projections did.
struct RewriteCounts {
  int64_t rewritten = 0, fillsFolded = 0;
};

/// Rewrites every projection contraction under `root` (not already in a gpu.launch) that
/// `refuse` has no reason against (it returns "" to take the match): `emit` builds the kernel
/// (at the op, or later in the block if it also replaces what follows; `zeroInit` when the zero
/// fill before it is folded: the fill and the op are erased after). `leftAlone` hears about every contraction not taken, with the reason.
inline RewriteCounts
rewriteProjections(Operation *root, llvm::function_ref<std::string(const Match &)> refuse,
                   llvm::function_ref<void(const Match &, bool zeroInit)> emit,
                   llvm::function_ref<void(linalg::GenericOp, const std::string &)> leftAlone,
                   ProjectionForms forms = {}) {
  zeroCopiesToFills(root);
  // Only the contractions: an elementwise generic after one may be erased by `emit` (fused).
  SmallVector<linalg::GenericOp> generics = contractionsUnder(root);
  RewriteCounts counts;
  for (linalg::GenericOp op : generics) {
    Match m;
    std::string why = matchProjection(op, m, forms);
    if (why.empty())
      why = refuse(m);
    if (!why.empty()) {
      leftAlone(op, why);
      continue;
    }
    linalg::FillOp fill = zeroFillBefore(op, m.c);
    emit(m, /*zeroInit=*/fill != nullptr);
    if (fill) {
      fill.erase();
      ++counts.fillsFolded;
    }
    op.erase();
    ++counts.rewritten;
  }
  return counts;
}

/// A GLU's gate and up projections, computed by one kernel of two weights: m2's fused
/// epilogue reads m1's result (its input `firstIndex`) from the kernel's registers.
struct GateUp {
  Match m1, m2; // the first (gate) and second (up) contractions, m1.op and m2.op
  linalg::FillOp fill1, fill2;
  Epilogue epi;
  unsigned firstIndex = 0;
};

/// Whether the consecutive contractions `op1`, `op2` are such a pair (`refuse` took both):
/// one A (the same value), weights of one float type, each a zero-filled temporary C, only
/// allocations, effect-free ops and op2's fill between them, op2's fusable epilogue the one
/// reader of op1's C besides op1 and its fill (directly, with the identity map; users in
/// another branch of an enclosing scf.if aside), and that epilogue's output no view of op1's
/// weight (other blocks still read it).
inline std::optional<GateUp> gateUpPair(linalg::GenericOp op1, linalg::GenericOp op2,
                                        llvm::function_ref<std::string(const Match &)> refuse) {
  GateUp p;
  if (op1->getBlock() != op2->getBlock() || !matchProjection(op1, p.m1).empty() ||
      !matchProjection(op2, p.m2).empty() || !refuse(p.m1).empty() || !refuse(p.m2).empty())
    return std::nullopt;
  if (p.m1.integer() || p.m1.a != p.m2.a || p.m1.b.getType() != p.m2.b.getType() ||
      p.m1.c.getType() != p.m2.c.getType() || p.m1.c == p.m2.c)
    return std::nullopt;
  p.fill1 = zeroFillBefore(op1, p.m1.c);
  p.fill2 = zeroFillBefore(op2, p.m2.c);
  if (!p.fill1 || !p.fill2 || !p.m1.c.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  for (Operation *o = op1->getNextNode(); o != op2.getOperation(); o = o->getNextNode())
    if (o != p.fill2.getOperation() && !isa<memref::AllocOp>(o) && !isMemoryEffectFree(o))
      return std::nullopt;
  p.epi = fusableEpilogue(p.m2);
  if (!p.epi)
    return std::nullopt;
  linalg::GenericOp e = p.epi.op;
  int found = -1;
  for (unsigned i = 0; i < e.getNumDpsInputs(); ++i) {
    if (e.getDpsInputs()[i] != p.m1.c)
      continue;
    if (found >= 0 || !e.getIndexingMapsArray()[i].isIdentity())
      return std::nullopt;
    found = i;
  }
  if (found < 0)
    return std::nullopt;
  // Users in another branch of an scf.if around op1 never run with it (the GEMV kernels of
  // a dynamic-M dispatch write the same temporary).
  auto exclusive = [&](Operation *user) {
    for (Operation *a = op1->getParentOp(); a && !isa<func::FuncOp>(a); a = a->getParentOp()) {
      auto ifOp = dyn_cast<scf::IfOp>(a);
      if (!ifOp)
        continue;
      for (auto [mine, other] : {std::make_pair(&ifOp.getThenRegion(), &ifOp.getElseRegion()),
                                 std::make_pair(&ifOp.getElseRegion(), &ifOp.getThenRegion())})
        if (mine->isAncestor(op1->getParentRegion()) &&
            other->isAncestor(user->getParentRegion()))
          return true;
    }
    return false;
  };
  for (Operation *user : p.m1.c.getUsers())
    if (user != op1.getOperation() && user != e.getOperation() &&
        user != p.fill1.getOperation() && !isa<memref::DeallocOp, memref::DimOp>(user) &&
        !exclusive(user))
      return std::nullopt;
  if (viewRoot(p.epi.out()) == viewRoot(p.m1.b))
    return std::nullopt;
  p.firstIndex = found;
  return p;
}

/// The epilogue operands of one element of a gate/up kernel's store: the inputs of `p.epi`
/// other than C loaded at (`row`, `col` + `j`) for `j` < `count`, with the gate's place filled
/// by `gates[j]` (the kernel's sums of the first weight).
inline SmallVector<Value> gateUpOperands(OpBuilder &b, Location loc, const GateUp &p,
                                         ArrayRef<Value> leadDims, Value row, Value col,
                                         ArrayRef<Value> gates) {
  SmallVector<Value> operands = loadEpilogueOperands(b, loc, p.epi, leadDims, row, col,
                                                     gates.size(), p.firstIndex);
  linalg::GenericOp op = p.epi.op;
  const unsigned perElement = op.getNumDpsInputs() - 1;
  const unsigned slot = p.firstIndex - (p.firstIndex > p.epi.cIndex ? 1 : 0);
  for (size_t j = 0; j < gates.size(); ++j)
    operands[j * perElement + slot] = gates[j];
  return operands;
}

/// Erases what the kernel of `p` replaces (the epilogue, both contractions and their fills)
/// and adds C's temporaries to `temporaries` (for eraseIfUnused once every kernel is built).
inline void eraseGateUp(GateUp &p, SmallVectorImpl<memref::AllocOp> &temporaries) {
  auto alloc1 = p.m1.c.getDefiningOp<memref::AllocOp>();
  auto alloc2 = p.m2.c.getDefiningOp<memref::AllocOp>();
  eraseEpilogue(p.epi);
  p.m2.op.erase();
  p.fill2.erase();
  p.m1.op.erase();
  p.fill1.erase();
  temporaries.push_back(alloc1);
  if (alloc2)
    temporaries.push_back(alloc2);
}

/// The launch of a tensor-core kernel: grid (ceil(N / tileN), ceil(M / tileM)) of `threads`
/// threads, with two shared-memory tile buffers of the element type (A's and B's stages), or
/// none when `aShape` is empty (a kernel on `dynamicSharedBytes` of dynamic shared memory);
/// the insertion point is left at the start of its body.
struct TiledLaunch {
  gpu::LaunchOp launch;
  Value aTiles, bTiles, tid, m0, n0; // m0, n0: the block's first row and column of C
};
inline TiledLaunch createTiledLaunch(OpBuilder &b, Location loc, Value rowsM, int64_t n,
                                     int64_t tileM, int64_t tileN, int64_t threads,
                                     ArrayRef<int64_t> aShape, ArrayRef<int64_t> bShape,
                                     Type elementType, Value dynamicSharedBytes = nullptr) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  Value gridX = c((n + tileN - 1) / tileN);
  Value gridY = arith::DivUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, rowsM, c(tileM - 1)), c(tileM));
  Value one = c(1);
  auto shared = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto aType = MemRefType::get(aShape, elementType, MemRefLayoutAttrInterface(), shared);
  auto bType = MemRefType::get(bShape, elementType, MemRefLayoutAttrInterface(), shared);
  TiledLaunch t;
  SmallVector<Type> tiles;
  if (!aShape.empty())
    tiles = {aType, bType};
  t.launch = gpu::LaunchOp::create(b, loc, gridX, gridY, one, c(threads), one, one,
                                   dynamicSharedBytes, /*asyncTokenType=*/nullptr,
                                   /*asyncDependencies=*/{}, tiles);
  if (!aShape.empty()) {
    t.aTiles = t.launch.getWorkgroupAttributions()[0];
    t.bTiles = t.launch.getWorkgroupAttributions()[1];
  }
  b.setInsertionPointToStart(&t.launch.getBody().front());
  t.tid = t.launch.getThreadIds().x;
  t.m0 = arith::MulIOp::create(b, loc, t.launch.getBlockIds().y, c(tileM));
  t.n0 = arith::MulIOp::create(b, loc, t.launch.getBlockIds().x, c(tileN));
  return t;
}

/// C[row, col .. col + 1] as a `pairType` vector when the pair is inside M and N, else
/// `zeroPair` (an accumulator pair starting from C; 8-byte aligned: C has an identity layout,
/// N and the column are even).
inline Value loadPairOrZero(OpBuilder &b, Location loc, Value c2, Value row, Value col,
                            Value rowsM, Value rowsN, VectorType pairType, Value zeroPair) {
  auto lt = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  };
  Value inside = arith::AndIOp::create(b, loc, lt(row, rowsM), lt(col, rowsN));
  auto load = scf::IfOp::create(b, loc, pairType, inside, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&load.getThenRegion().front());
  Value v = vector::LoadOp::create(b, loc, pairType, c2, ValueRange{row, col},
                                   /*nontemporal=*/false, llvm::MaybeAlign(8));
  scf::YieldOp::create(b, loc, v);
  b.setInsertionPointToStart(&load.getElseRegion().front());
  scf::YieldOp::create(b, loc, zeroPair);
  return load.getResult(0);
}

/// Index arithmetic for kernel bodies (unsigned: every index in them is non-negative).
struct Emitter {
  OpBuilder &b;
  Location loc;
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) { return arith::MulIOp::create(b, loc, x, idx(y)); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, loc, x, idx(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, idx(y)); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value select(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }
};

} // namespace mlir::decoda::gpu_contraction

#endif // DECODA_LIB_TRANSFORMS_GPUCONTRACTION_H
