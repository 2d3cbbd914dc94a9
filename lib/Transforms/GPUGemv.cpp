//===- GPUGemv.cpp - few-row projection contractions as GEMV kernels ------===//
//
// decoda-gpu-gemv (GPUPasses.td): a projection contraction C[m, n] += A[m, k] * B[n, k] with
// a small static M (a decode step) is bound by reading B once; it becomes one gpu.launch:
//
//   block b, warp w, lane l; s warps per column (the K split, 1 for wide projections):
//     group g = w / s, part p = w % s, columns n_j = (b * warps / s + g) * cols + j (rows of B)
//   acc[j][m] = 0 (vector<V x f32>); S = 32 s V (a stride), U = unroll (clamped to K's strides
//   per part and to 144 registers of vectors a step)
//   for i in [0, K / (S U)):                               (every access in bounds)
//     for u < U: k = (i U + u) S + (p 32 + l) V: w = B[n_j, k : k+V]; acc[j][m] += A[m, k :] * w
//   for k in [K / (S U) * S U + (p 32 + l) V, K) step S: the same, one vector at a time
//   t[j][m] = butterfly-sum over the warp of sum(acc[j][m])
//   s > 1: lane 0 leaves t in shared memory; barrier; part 0 adds the other parts' t in order
//   lane 0 of part 0: C[m, n_j] (+)= t[j][m] for n_j < N, or, with the elementwise consumer
//   of C fused (GPUContraction.h, fusableEpilogue), its result of t[j][m] stored to its output
//
// Rows past N are clamped to N - 1 (read, not stored), so every lane of a warp reaches the
// shuffles and every thread the barrier. V is 16 bytes of elements, halved until K is a
// multiple of it (rows of A and B then start 16-, 8-, ... byte aligned).
//
// Per-head weights B [H, N, K] (the head A's and C's last lead dim; absorbed MLA's W_UK and
// W_UV): the columns above are B's H·N rows, a warp's in one head h = n_j / N; A's row m·H + h
// and C's (m·H + h, n_j - h·N), A and C collapsed over all lead dims; M without the head. The
// tensor-core GEMV below likewise when N is a multiple of 8 (a warp's 8 weight rows, one head).
//
// Weights stored [K, N] ([H, K, N]) that are arguments (emitColumnKernel; constants are
// transposed at compile time): a block of T threads over a tile of L·V columns (V 16 bytes
// along N, halved until N is a multiple; L lanes a row of k, columnLanes), grid y the head:
//   thread t: chunk c = t % L (columns n0 = tile start + c V ..), part p = t / L
//   acc[m] (vector<V x f32>) += A[m, k] · B[k, n0 ..] for k = p, p + T / L, ... (unrolled)
//   partials[p][m · tile + c V ..] = acc[m]; barrier
//   element i = t, t + T, ... < M · tile: Σ_p partials[p][i] in order -> C (or the epilogue)
//
// i8 x i8 -> i32 (decoda.qlinear without a zero point): acc is one i32 per (column, row), each
// 4-byte group of a vector one dp4a (`nvvm.dot.accumulate.4way`, signed x signed, wrapping as
// the reference does), the sums i32; the dequantising epilogue is applied by the storing lane.
//
// M dynamic (a model whose token count is a run-time dim, called with T = 1 for a decode step):
// `if (M == 1) GEMV kernel with M = 1 else if (M <= max-m) GEMV kernel with max-m rows (rows
// past M read A's last row and are not stored) else the contraction` (float or INT8; the
// contraction in the last branch is the tensor-core pass's). A fused epilogue is in both branches: applied by
// the GEMV kernel, and after the contraction again in the else branch, where the tensor-core
// pass fuses it.
//
// A dequantised weight (a decoda.dequantize_blocks generic from constants, kDequantizeBlocksAttr)
// is read as its codes: V becomes 16 bytes of codes (128 / bits weights, at most a block,
// halved while K is not a multiple), acc[j][m] one f32, and a step per vector
//   words = codes[n_j, k·bits/8 : +16] (four i32); s, zp = the block's scale and zero point
//   d_i = f_i · 2^-at_i - (2^(23-at_i) + zp) = code_i - zp, exactly (whole zero points; else
//         f_i · 2^-at_i - 2^(23-at_i), then - zp), f_i = bitcast((word & mask << at_i) |
//         0x4b000000) = 2^23 + code_i · 2^at_i: each code masked where it lies (at_i its bit
//         in the word, or in the word shifted once for the codes at bit 23 and above)
//   acc[j][m] = fma(Σ_i A[m, k + i] · d_i (two FMA chains), s, acc[j][m])
// so the sums take the exact (code - zp) · scale where the unfused form rounds each weight to
// its type first. The generic goes when no other reader is left (or into the M > max-m branch
// of a dynamic-M dispatch).
//
// Tensor cores (option mma, sm_80 and later; emitMmaKernel): 4-bit codes in blocks of a
// multiple of 32 with bf16/f16 A and whole zero points, at most 16 rows (the dispatch of a
// dynamic M then takes up to 16 rows too), one mma.sync m16n8k16 per 16 k of 8 weight rows:
//   warp: columns n0 .. n0 + 7; lane l: g = l / 4 (its weight row n0 + g, its A rows g and
//     g + 8), q = l % 4; a warp step covers 128 k, lane q its 32 codes from k = step + 32 q
//     (16 bytes, one block: one scale and zero point)
//   word w of the codes (codes 8w .. 8w + 7), j < 4: prmt(word, word >> 4) puts byte j of
//     each into bytes 0 and 2, & 0x000F000F | magic makes the pair (code 8w + 2j, 8w + 2j + 1)
//     two halves 128 + code (bf16, magic 0x43004300) or 1024 + code (f16, 0x64006400); minus
//     (magic + zp), exact, times the scale: the generic's weights, rounded once
//   MMA (w, h), h < 2: B = {pair 2h, pair 2h + 1} of word w (codes 4h .. 4h + 3); A = the
//     same k of A's rows g and g + 8, two halves of a register of each 16-byte load: the
//     mma's k slots 2q, 2q + 1, 2q + 8, 2q + 9 are those four k for every lane of group q
//   C: rows g, g + 8, columns n0 + 2q, + 1 (a K split's warps add their fragments through
//     shared memory); the storing lanes apply a fused epilogue as the SIMT kernel does.
// Rows past M read A's last row and are not stored; a warp step past K (K a multiple of 32,
// not of 128) reads codes at k = 0 and zeros of A.
// bf16/f16 weights as they are (2 to 16 rows, 16-byte rows; one row stays SIMT, which is not
// issue-bound there): the same kernel, a lane's 16 bytes 8 weights of row n0 + g from
// k = step + 8 q (a warp step 32 k), their pairs 0, 1 and 2, 3 the B fragment of one MMA and
// pairs 4 .. 7 of the next, A's one 16-byte load per row group the matching pairs. Per 8
// weights a lane: one load of weights, one of A per row group, two mma.sync -- where the SIMT
// kernel converts every weight and A element to f32 and issues an FMA per weight and row.
//
// A norm read only by these kernels (fold-norms; the norm still a call of a function tagged
// decoda.gpu_norm) is computed by each of them first: per row r < M, for the chunks j = tid,
// tid + T, ... of V features, s = x[r, jV..] (add forms: round(residual + scale · branch),
// block 0 of the first kernel also storing it to the sum buffer), ybuf[r, jV..] = s, and
// ss_r += Σ s² (RMSNorm) or Σ s (LayerNorm); the block sum (warp butterflies, the warps'
// partials through shared memory, added in warp order); LayerNorm: mean_r = sum / D, then the
// same chunks for Σ (s - mean_r)² and a second block sum; rstd_r = rsqrt(sum / D + eps); the
// same chunks again: ybuf[r, ..] = round((s [- mean_r]) · rstd_r · (w + offset) [+ bias])
// (the row-norm kernel's formula; w and bias in their own float type); a barrier; then
// A[m, k] reads ybuf. Dynamic rows (readers behind a dynamic-M dispatch): only the M = 1
// kernels compute it; the call moves into `results = if (M != 1) { call } else { buffers
// shaped like x }`, the if's results replacing the call's (the M = 1 kernel fills the sum's).
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "GPUContraction.h"
#include "GPUMmaFragments.h"
#include "GPURowNorm.h"

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUGEMVPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using mlir::decoda::gpu_contraction::Emitter;
using mlir::decoda::gpu_contraction::Epilogue;
using mlir::decoda::gpu_contraction::Match;

namespace {
struct Config {
  int64_t maxM, warps, cols, unroll, minBlocks;
  bool dispatchDynamicM;
  int64_t prefetchBytes = 0; // L2 prefetch of the weights' row starts, over all blocks
  bool mma = false; // the tensor-core GEMV for 4-bit block-quantised weights (sm_80+)
};

/// Marks the contraction a dynamic-M dispatch keeps for its M > max-m branch: a later run of
/// the pass (the pipeline runs it before and after inlining) leaves it to the tensor cores.
constexpr llvm::StringLiteral kDispatchedAttr = "decoda.gpu_gemv_dispatched";

/// Shared memory a kernel with a folded norm may take for its normalised rows.
constexpr int64_t kNormRowBytes = 32 * 1024;

/// A norm call whose normalised rows only GEMV kernels read: they compute it themselves.
struct NormFold {
  mlir::decoda::row_norm::Config cfg;
  func::CallOp call;
  Value x, branch; // x, or (add form) the residual and the branch: [lead..., D]
  Value weight;    // [D]
  Value bias;      // [D] or null
  Value sum;       // add form: the buffer the first kernel fills (it replaces the call's sum)
  int64_t rows = 0; // M (static), or -1: dynamic rows, folded into the M = 1 kernels only
                    // (the call kept in an scf.if taken for every other M)
  bool sumWritten = false; // the sum's writer (block 0 of the first kernel) was emitted
};

/// The lead dims of A that are rows of the kernel: all of them, or (a per-head contraction)
/// all but the head, which the kernel's columns take.
int64_t rowDims(const Match &m) { return m.heads > 1 ? m.lead - 1 : m.lead; }

/// Whether B is a per-head weight ([H, N, K] or [H, K, N]; H may be 1, when the head needs no
/// index arithmetic but B still its collapse).
bool isPerHead(const Match &m) { return cast<MemRefType>(m.b.getType()).getRank() == 3; }

/// A per-head weight's rows, [H·X, Y] (a view), or a rank-2 weight itself.
Value weightRows(OpBuilder &b, Location loc, Value w) {
  if (cast<MemRefType>(w.getType()).getRank() != 3)
    return w;
  return memref::CollapseShapeOp::create(b, loc, w,
                                         SmallVector<ReassociationIndices>{{0, 1}, {2}});
}

/// The static row count M of a matched contraction, or -1 when a lead dim is dynamic.
int64_t staticRows(const Match &m) {
  auto aType = cast<MemRefType>(m.a.getType());
  int64_t rows = 1;
  for (int64_t d = 0; d < rowDims(m); ++d) {
    if (aType.isDynamicDim(d))
      return -1;
    rows *= aType.getDimSize(d);
  }
  return rows;
}

/// Elements per vector load: 16 bytes, halved until K is a multiple of it.
int64_t vectorWidth(const Match &m) {
  int64_t v = 16 / (m.elementType.getIntOrFloatBitWidth() / 8);
  while (v > 1 && m.k % v != 0)
    v /= 2;
  return v;
}

/// A [K, N] weight's kernel (emitColumnKernel): elements of a 16-byte vector along N,
/// halved until N is a multiple of it (every row of B then starts on a vector).
int64_t columnVectorWidth(const Match &m) {
  int64_t v = 16 / m.elementBytes();
  while (v > 1 && m.n % v != 0)
    v /= 2;
  return v;
}

/// Lanes of a [K, N] weight's kernel that share one row of k (consecutive vectors of it): 32,
/// halved while the grid has fewer than min-blocks blocks (8 at least: 128 bytes of bf16 a row
/// segment) or the vectors of N would not fill half of them.
int64_t columnLanes(const Match &m, const Config &cfg) {
  int64_t v = columnVectorWidth(m), lanes = 32;
  auto blocks = [&](int64_t l) { return (m.n + l * v - 1) / (l * v) * m.heads; };
  while (lanes > 8 && blocks(lanes) < cfg.minBlocks)
    lanes /= 2;
  while (lanes > 1 && (lanes / 2) * v >= m.n)
    lanes /= 2;
  return lanes;
}

/// A weight B [N, K] that a decoda.dequantize_blocks generic (kDequantizeBlocksAttr) writes
/// from constant codes, scales and zero points: the kernels read those instead of B.
struct Dequant {
  linalg::GenericOp op;
  memref::AllocOp alloc; // B
  Value codes, scales, zeroPoints; // zeroPoints null: the default 2^(bits - 1)
  int64_t bits = 0, blockSize = 0;
};

/// The memref.get_global of a constant global (nothing writes it), or null.
memref::GetGlobalOp constantGlobal(Value v) {
  auto get = v.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return nullptr;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(get, get.getNameAttr());
  return global && global.getConstant() ? get : nullptr;
}

/// The dequantisation that writes `b`, when the kernel can read its codes: b a memref.alloc
/// written only by one tagged generic of its block (and read by generics, freed), the
/// generic's inputs views of constant globals (nothing writes them) with an
/// identity layout, and whole bytes of codes per vector of `v` elements.
std::optional<Dequant> dequantOf(Value b, int64_t v) {
  auto alloc = b.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return std::nullopt;
  Dequant d;
  d.alloc = alloc;
  for (OpOperand &use : b.getUses()) {
    Operation *user = use.getOwner();
    if (isa<memref::DeallocOp>(user))
      continue;
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (!g)
      return std::nullopt;
    if (!g.isDpsInit(&use))
      continue;
    if (d.op || !g->hasAttr(decoda::kDequantizeBlocksAttr) || g.getNumDpsInits() != 1 ||
        g->getBlock() != alloc->getBlock())
      return std::nullopt;
    d.op = g;
  }
  if (!d.op)
    return std::nullopt;
  auto dict = d.op->getAttrOfType<DictionaryAttr>(decoda::kDequantizeBlocksAttr);
  auto bits = dict.getAs<IntegerAttr>("bits"), bs = dict.getAs<IntegerAttr>("block_size");
  if (!bits || !bs)
    return std::nullopt;
  d.bits = bits.getInt();
  d.blockSize = bs.getInt();
  if ((v * d.bits) % 8 != 0 || d.blockSize % v != 0)
    return std::nullopt;
  auto inputs = d.op.getDpsInputs();
  if (inputs.size() < 2 || inputs.size() > 3)
    return std::nullopt;
  for (Value in : inputs)
    if (!decoda::gpu_contraction::isIdentityLayout(in.getType()) ||
        !constantGlobal(decoda::gpu_contraction::viewRoot(in)))
      return std::nullopt;
  d.codes = inputs[0];
  d.scales = inputs[1];
  d.zeroPoints = inputs.size() == 3 ? inputs[2] : Value();
  if (!cast<MemRefType>(d.codes.getType()).getElementType().isInteger(8))
    return std::nullopt;
  return d;
}

/// Whether every zero point of `d` is a whole number of magnitude at most `bound` (the
/// default 2^(bits - 1) is): then 2^23 + zp · 2^s is exact in f32 and one subtraction from the
/// biased code gives code - zp (the SIMT kernel), or 128 + zp is exact in bf16 (the
/// tensor-core one, bound 127). Read from the constant global's data (dense or a resource
/// blob); false when unknown.
bool integralZeroPoints(const Dequant &d, double bound) {
  if (!d.zeroPoints)
    return true;
  memref::GetGlobalOp get = constantGlobal(decoda::gpu_contraction::viewRoot(d.zeroPoints));
  if (!get)
    return false;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(get, get.getNameAttr());
  std::optional<Attribute> init = global ? global.getInitialValue() : std::nullopt;
  Type elem = global ? global.getType().getElementType() : Type();
  if (!init || !elem)
    return false;
  auto whole = [&](const APFloat &x) {
    return x.isInteger() && std::fabs(x.convertToDouble()) <= bound;
  };
  if (auto dense = dyn_cast<DenseFPElementsAttr>(*init))
    return llvm::all_of(dense.getValues<APFloat>(), whole);
  auto resource = dyn_cast<DenseResourceElementsAttr>(*init);
  if (!resource)
    return false;
  auto floatType = dyn_cast<FloatType>(elem);
  if (!floatType)
    return false;
  ArrayRef<char> raw = resource.getData();
  int64_t width = floatType.getWidth(), bytes = width / 8;
  if (raw.empty() || raw.size() % bytes != 0)
    return false;
  for (size_t at = 0; at < raw.size(); at += bytes) {
    uint64_t bitsOf = 0;
    std::memcpy(&bitsOf, raw.data() + at, bytes); // little-endian, as the blobs are stored
    if (!whole(APFloat(floatType.getFloatSemantics(), APInt(width, bitsOf))))
      return false;
  }
  return true;
}

/// Each dequantisation generic whose inputs are constant globals (which nothing writes) moved with its buffer to the start of its block, in program order, after the
/// get_globals and the constants its body captures (moved to the very start: ops without
/// operands): out of the way of the gate/up pairing of two contractions (the generics sit
/// between them as imported); where a GEMV kernel reads the codes, it is erased afterwards.
void hoistDequantizations(Operation *root) {
  llvm::MapVector<Block *, SmallVector<linalg::GenericOp>> byBlock;
  root->walk([&](linalg::GenericOp g) {
    if (g->hasAttr(decoda::kDequantizeBlocksAttr))
      byBlock[g->getBlock()].push_back(g);
  });
  for (auto &[block, generics] : byBlock) {
    SmallVector<linalg::GenericOp> hoisted;
    llvm::SmallPtrSet<Operation *, 16> front; // ops moved to the block's start
    for (linalg::GenericOp g : generics) {
      auto alloc = g.getDpsInits()[0].getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != block || alloc->getNumOperands() != 0)
        continue;
      // Its buffer written by it alone (else moving it would overwrite another's weight).
      // Every other use reads it: an input of a linalg op, or its deallocation.
      bool oneWriter = llvm::all_of(alloc->getUses(), [&](OpOperand &use) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
        return use.getOwner() == g.getOperation() || isa<memref::DeallocOp>(use.getOwner()) ||
               (linalgOp && !linalgOp.isDpsInit(&use));
      });
      if (!oneWriter)
        continue;
      // What it needs from this block: get_globals (inputs), constants (captured).
      SmallVector<Operation *> deps;
      bool movable = true;
      for (Value in : g.getDpsInputs()) {
        memref::GetGlobalOp global = constantGlobal(in);
        if (!global)
          movable = false;
        else if (global->getBlock() == block)
          deps.push_back(global);
      }
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(g.getRegion(), captured);
      for (Value v : captured) {
        Operation *def = v.getDefiningOp();
        if (!def || def->getBlock() != block)
          continue; // defined in an enclosing block: dominates the block's start
        if (def->getNumOperands() != 0 || !def->hasTrait<OpTrait::ConstantLike>())
          movable = false;
        deps.push_back(def);
      }
      if (!movable)
        continue;
      for (Operation *d : deps)
        if (front.insert(d).second)
          d->moveBefore(&block->front());
      hoisted.push_back(g);
    }
    if (hoisted.empty())
      continue;
    // After the moved ones (contiguous at the start), each generic and its buffer in program
    // order.
    Operation *cursor = nullptr;
    for (Operation &op : *block) {
      if (!front.contains(&op))
        break;
      cursor = &op;
    }
    for (linalg::GenericOp g : hoisted) {
      for (Operation *op : {g.getDpsInits()[0].getDefiningOp(), g.getOperation()}) {
        if (cursor)
          op->moveAfter(cursor);
        else
          op->moveBefore(&block->front());
        cursor = op;
      }
    }
  }
}

/// Moves the dequantisation of `w` (alloc and generic) to just before `before`, the M > max-m
/// branch of a dispatch whose clone of the contraction (one of `readers`) still reads w, when
/// nothing else reads w: the GEMV branches read the codes, only that branch needs w.
void sinkDequantization(Value w, int64_t v, Operation *before, ArrayRef<Operation *> readers) {
  std::optional<Dequant> d = dequantOf(w, v);
  if (!d)
    return;
  for (Operation *user : w.getUsers())
    if (user != d->op.getOperation() && !llvm::is_contained(readers, user))
      return;
  d->alloc->moveBefore(before);
  d->op->moveBefore(before);
}

/// The dequantisations whose weight nothing reads any more (every reader became a kernel
/// reading the codes): erased with their buffers.
int64_t eraseUnreadDequantizations(Operation *root) {
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp g) {
    if (g->hasAttr(decoda::kDequantizeBlocksAttr))
      generics.push_back(g);
  });
  int64_t erased = 0;
  for (linalg::GenericOp g : generics) {
    auto alloc = g.getDpsInits()[0].getDefiningOp<memref::AllocOp>();
    if (!alloc || !llvm::all_of(alloc->getUsers(), [&](Operation *u) {
          return u == g.getOperation() || isa<memref::DeallocOp>(u);
        }))
      continue;
    g.erase();
    for (Operation *u : llvm::make_early_inc_range(alloc->getUsers()))
      u->erase();
    alloc.erase();
    ++erased;
  }
  return erased;
}

/// Blocks of a grid over `n` columns, `colsPerWarp` a warp, `split` warps sharing each.
int64_t gridBlocks(int64_t n, int64_t colsPerWarp, int64_t split, const Config &cfg) {
  int64_t perBlock = cfg.warps / split * colsPerWarp;
  return (n + perBlock - 1) / perBlock;
}

/// Warps that share each column group (a power of two dividing `warps`): doubled while the
/// grid has fewer than min-blocks blocks and every warp still gets one of the `strides` warp
/// strides of K.
int64_t splitK(int64_t n, int64_t colsPerWarp, int64_t strides, const Config &cfg) {
  int64_t split = 1;
  while (cfg.warps % (2 * split) == 0 &&
         gridBlocks(n, colsPerWarp, split, cfg) < cfg.minBlocks && strides >= 2 * split)
    split *= 2;
  return split;
}

/// The folded norm's prologue (see the file comment): `ybuf` [M][K] receives the normalised
/// rows, `reds` ([warps][M] each: one, or LayerNorm's two) take the warps' partial sums. Ends
/// with a barrier.
void emitNormPrologue(OpBuilder &b, Location loc, NormFold &norm, Value ybuf,
                      ArrayRef<BlockArgument> reds,
                      int64_t lead, int64_t rowsM, int64_t k, int64_t v, int64_t threads,
                      Value tid, Value warp, Value lane, Value blockX) {
  const mlir::decoda::row_norm::Config &nc = norm.cfg;
  Emitter e{b, loc};
  Type f32 = b.getF32Type();
  auto vf32 = VectorType::get({v}, f32);
  auto vel = VectorType::get({v}, nc.elem);
  int64_t bytes = v * nc.elem.getIntOrFloatBitWidth() / 8;
  auto fc = [&](double x) -> Value {
    return arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(static_cast<float>(x)));
  };
  auto splat = [&](double x) -> Value { return vector::BroadcastOp::create(b, loc, vf32, fc(x)); };
  auto widen = [&](Value x) -> Value {
    return nc.elem.isF32() ? x : arith::ExtFOp::create(b, loc, vf32, x).getResult();
  };
  auto narrow = [&](Value x) -> Value {
    return nc.elem.isF32() ? x : arith::TruncFOp::create(b, loc, vel, x).getResult();
  };
  auto load = [&](Value buf, ValueRange at) -> Value {
    return vector::LoadOp::create(b, loc, vel, buf, at, /*nontemporal=*/false,
                                  llvm::MaybeAlign(bytes));
  };
  auto store = [&](Value x, Value buf, ValueRange at) {
    vector::StoreOp::create(b, loc, x, buf, at, /*nontemporal=*/false, llvm::MaybeAlign(bytes));
  };
  Value x = decoda::gpu_contraction::collapseLead(b, loc, norm.x, lead);
  Value branch =
      nc.add ? decoda::gpu_contraction::collapseLead(b, loc, norm.branch, lead) : Value();
  // The add form's sum: stored by block 0 of the first kernel only.
  Value sum, storesSum;
  if (nc.add && !norm.sumWritten) {
    sum = decoda::gpu_contraction::collapseLead(b, loc, norm.sum, lead);
    storesSum = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, blockX, e.idx(0));
    norm.sumWritten = true;
  }
  // v elements of a weight or bias as f32 (its own float type, which may differ from x's).
  auto loadWidened = [&](Value buf, Value col) -> Value {
    auto type = cast<MemRefType>(buf.getType());
    Type el = type.getElementType();
    int64_t align = std::min<int64_t>(16, v * el.getIntOrFloatBitWidth() / 8);
    Value x = vector::LoadOp::create(b, loc, VectorType::get({v}, el), buf, ValueRange{col},
                                     /*nontemporal=*/false, llvm::MaybeAlign(align));
    return el.isF32() ? x : arith::ExtFOp::create(b, loc, vf32, x).getResult();
  };
  auto sumOf = [&](Value x) -> Value {
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, x);
  };
  Value chunks = e.idx(k / v), step = e.idx(threads);
  // Each row's sum over the block of each thread's `part`: warp butterflies, lane 0's partial
  // per warp in reds[slot][warp][r], a barrier, every thread adds the partials in warp order.
  Value width = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(32));
  auto blockSums = [&](SmallVector<Value> part, int64_t slot) {
    for (int64_t r = 0; r < rowsM; ++r)
      for (int32_t o = 16; o >= 1; o /= 2) {
        Value off = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(o));
        part[r] = arith::AddFOp::create(
            b, loc, part[r],
            gpu::ShuffleOp::create(b, loc, part[r], off, width, gpu::ShuffleMode::XOR)
                .getShuffleResult());
      }
    {
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, e.idx(0));
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, first, false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      for (int64_t r = 0; r < rowsM; ++r)
        memref::StoreOp::create(b, loc, part[r], reds[slot], ValueRange{warp, e.idx(r)});
    }
    gpu::BarrierOp::create(b, loc);
    SmallVector<Value> totals;
    for (int64_t r = 0; r < rowsM; ++r) {
      Value at = e.idx(r);
      Value total = memref::LoadOp::create(b, loc, reds[slot], ValueRange{e.idx(0), at});
      for (int64_t w = 1; w < threads / 32; ++w)
        total = arith::AddFOp::create(
            b, loc, total, memref::LoadOp::create(b, loc, reds[slot], ValueRange{e.idx(w), at}));
      totals.push_back(total);
    }
    return totals;
  };
  // A loop over this thread's chunks j = tid, tid + T, ... carrying one f32 per row.
  auto overChunks = [&](function_ref<Value(Value col, int64_t r, Value acc)> body) {
    SmallVector<Value> init(rowsM, fc(0.0));
    auto loop = scf::ForOp::create(b, loc, tid, chunks, step, init);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value col = e.mul(loop.getInductionVar(), v);
    SmallVector<Value> next;
    for (int64_t r = 0; r < rowsM; ++r)
      next.push_back(body(col, r, loop.getRegionIterArgs()[r]));
    scf::YieldOp::create(b, loc, next);
    return SmallVector<Value>(loop.getResults());
  };
  Value count = fc(static_cast<double>(nc.d));
  // Pass 1: the rows (the add form's rounded sums) into ybuf; each thread's sums of squares
  // (RMSNorm) or of the elements (LayerNorm: the mean first).
  SmallVector<Value> part = overChunks([&](Value col, int64_t r, Value acc) -> Value {
    Value row = e.idx(r);
    Value s = load(x, {row, col});
    if (nc.add) {
      Value t = widen(load(branch, {row, col}));
      if (nc.scale != 1.0)
        t = arith::MulFOp::create(b, loc, t, splat(nc.scale));
      s = narrow(arith::AddFOp::create(b, loc, widen(s), t));
      if (sum) {
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, storesSum, false);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        store(s, sum, {row, col});
      }
    }
    store(s, ybuf, {row, col});
    Value w = widen(s);
    return arith::AddFOp::create(b, loc, acc,
                                 sumOf(nc.centered ? w : arith::MulFOp::create(b, loc, w, w)));
  });
  SmallVector<Value> totals = blockSums(part, 0);
  SmallVector<Value> mean(rowsM), var(rowsM);
  if (nc.centered) {
    // LayerNorm: the mean, then the centred sums of squares over the same chunks.
    for (int64_t r = 0; r < rowsM; ++r)
      mean[r] = vector::BroadcastOp::create(b, loc, vf32,
                                            arith::DivFOp::create(b, loc, totals[r], count));
    part = overChunks([&](Value col, int64_t r, Value acc) -> Value {
      Value c = arith::SubFOp::create(b, loc, widen(load(ybuf, {e.idx(r), col})), mean[r]);
      return arith::AddFOp::create(b, loc, acc, sumOf(arith::MulFOp::create(b, loc, c, c)));
    });
    totals = blockSums(part, 1);
  }
  SmallVector<Value> rstd;
  for (int64_t r = 0; r < rowsM; ++r) {
    Value vr = arith::DivFOp::create(b, loc, totals[r], count);
    Value rs = math::RsqrtOp::create(b, loc, arith::AddFOp::create(b, loc, vr, fc(nc.eps)));
    rstd.push_back(vector::BroadcastOp::create(b, loc, vf32, rs));
  }
  // Pass 2: the normalised rows over the sums, each thread its own chunks again:
  // round(((s - mean) · rstd) · (w + offset) (+ bias)), the row-norm kernel's order.
  {
    auto loop = scf::ForOp::create(b, loc, tid, chunks, step);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value col = e.mul(loop.getInductionVar(), v);
    Value w = loadWidened(norm.weight, col);
    if (nc.weightOffset != 0.0)
      w = arith::AddFOp::create(b, loc, w, splat(nc.weightOffset));
    Value bias = norm.bias ? loadWidened(norm.bias, col) : Value();
    for (int64_t r = 0; r < rowsM; ++r) {
      Value row = e.idx(r);
      Value s = widen(load(ybuf, {row, col}));
      if (nc.centered)
        s = arith::SubFOp::create(b, loc, s, mean[r]);
      Value y = arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, s, rstd[r]), w);
      if (bias)
        y = arith::AddFOp::create(b, loc, y, bias);
      store(narrow(y), ybuf, {row, col});
    }
  }
  gpu::BarrierOp::create(b, loc);
}

/// Bytes of each weight row the kernel prefetches into L2 before it waits for the kernel
/// before it (prefetch-bytes over all rows of all its weights, whole 16-byte units, at most
/// the row), or 0: none (off, rows not 16-byte aligned, or the budget under 16 bytes a row).
/// A weight row is prefetched only when the weight is [N, K] with unit stride along K, row
/// stride K and a static offset that keeps rows 16-byte aligned.
int64_t prefetchRowBytes(const Match &m, ArrayRef<Value> weights, const Config &cfg) {
  int64_t bytesPerRow = m.k * m.elementBytes();
  if (cfg.prefetchBytes <= 0 || m.n <= 0 || bytesPerRow % 16 != 0)
    return 0;
  for (Value w : weights) {
    auto type = cast<MemRefType>(w.getType());
    SmallVector<int64_t> strides;
    int64_t offset = 0;
    if (type.getRank() != 2 || failed(type.getStridesAndOffset(strides, offset)) ||
        strides[1] != 1 || strides[0] != m.k || ShapedType::isDynamic(offset) ||
        (offset * m.elementBytes()) % 16 != 0)
      return 0;
  }
  llvm::SmallPtrSet<Value, 2> distinct(weights.begin(), weights.end());
  int64_t perRow = cfg.prefetchBytes / (m.n * int64_t(distinct.size())) / 16 * 16;
  return std::min(perRow, bytesPerRow);
}

/// Lane 0 of each warp that starts a column group (part 0 of a split K) prefetches the first
/// `bytes` of each of its weight rows into L2 (cp.async.bulk.prefetch): a hint that runs
/// before the kernel's griddepcontrol.wait (decoda-gpu-dependent-launch), while the kernel
/// before it still runs.
void emitWeightPrefetch(OpBuilder &b, Location loc, ArrayRef<Value> weights,
                        ArrayRef<Value> rows, int64_t k, int64_t elementBytes, int64_t bytes,
                        Value lane, Value part) {
  Emitter e{b, loc};
  auto isZero = [&](Value x) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, e.idx(0));
  };
  Value first = arith::AndIOp::create(b, loc, isZero(lane), isZero(part));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), /*addressSpace=*/1);
  Value size = arith::ConstantIntOp::create(b, loc, b.getI32Type(), bytes);
  for (auto [w, row] : llvm::zip(weights, rows)) {
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, w);
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, meta.getBaseBuffer());
    Value element = e.add(meta.getOffset(), e.mul(row, k));
    Value address = e.add(base, e.mul(element, elementBytes));
    Value asInt = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
    Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrType, asInt);
    NVVM::CpAsyncBulkPrefetchOp::create(b, loc, ptr, size, /*l2CacheHint=*/Value());
  }
}

/// The shared buffers of a folded norm's prologue (emitNormPrologue): the block's
/// normalised rows [M][K], then one [warps][M] f32 buffer per block sum (LayerNorm: the
/// mean's, then the variance's; LLVM widens the reads of one into whole vectors, which must
/// not cover the other's, written after).
void appendNormWorkgroup(SmallVector<Type> &workgroup, const NormFold &norm, int64_t rowsM,
                         int64_t k, Type elem, int64_t warps) {
  MLIRContext *ctx = elem.getContext();
  auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  workgroup.push_back(MemRefType::get({rowsM, k}, elem, MemRefLayoutAttrInterface(), shared));
  for (int64_t sum = 0; sum < (norm.cfg.centered ? 2 : 1); ++sum)
    workgroup.push_back(MemRefType::get({warps, rowsM}, Float32Type::get(ctx),
                                        MemRefLayoutAttrInterface(), shared));
}

/// A K split's partial sums meeting in shared memory: each warp leaves `sums` in
/// `partials`[warp][slot(i)] (only where `leaves` holds, when given), a barrier, then where
/// `gathers()` holds (part 0) the sums of the warps warp + 1 .. warp + split - 1 are added in
/// that order, the same on every run; elsewhere the warp's own sums stay.
SmallVector<Value> addSplitParts(OpBuilder &b, Location loc, ArrayRef<Value> sums,
                                 Value partials, Value warp, int64_t split, Value leaves,
                                 llvm::function_ref<Value()> gathers,
                                 llvm::function_ref<Value(size_t)> slot,
                                 llvm::function_ref<Value(Value, Value)> add) {
  Emitter e{b, loc};
  {
    OpBuilder::InsertionGuard g(b);
    if (leaves) {
      auto leave = scf::IfOp::create(b, loc, TypeRange{}, leaves, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&leave.getThenRegion().front());
    }
    for (size_t i = 0; i < sums.size(); ++i)
      memref::StoreOp::create(b, loc, sums[i], partials, ValueRange{warp, slot(i)});
  }
  gpu::BarrierOp::create(b, loc);
  auto gather = scf::IfOp::create(b, loc, ValueRange(sums).getTypes(), gathers(),
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&gather.getThenRegion().front());
  SmallVector<Value> total(sums);
  for (int64_t p = 1; p < split; ++p)
    for (size_t i = 0; i < sums.size(); ++i) {
      Value other =
          memref::LoadOp::create(b, loc, partials, ValueRange{e.add(warp, e.idx(p)), slot(i)});
      total[i] = add(total[i], other);
    }
  scf::YieldOp::create(b, loc, total);
  b.setInsertionPointToStart(&gather.getElseRegion().front());
  scf::YieldOp::create(b, loc, SmallVector<Value>(sums));
  return SmallVector<Value>(gather.getResults());
}

/// Whether the tensor-core GEMV (emitMmaKernel) takes a kernel of `rowsM` rows whose weights
/// are `dequants` (B's, and a gate/up pair's first weight's): mma enabled (sm_80 and later),
/// bf16/f16, at most 16 rows, K a multiple of 32, and either every weight 4-bit codes in
/// blocks of a multiple of 32 with whole zero points of the contraction's type (128 + zp,
/// 1024 + zp exact in bf16 / f16), or (2 rows and more; one row stays SIMT, which is not
/// issue-bound there) every weight a plain float of that type with 16-byte rows.
bool mmaAccepts(const Match &m, int64_t rowsM, ArrayRef<std::optional<Dequant>> dequants,
                const Config &cfg) {
  // Per head, a warp's 8 weight rows must lie in one head (their A rows are that head's).
  if (!cfg.mma || !(m.elementType.isBF16() || m.elementType.isF16()) || rowsM > 16 ||
      (m.heads > 1 && m.n % 8 != 0) || m.kMajor)
    return false;
  if (llvm::none_of(dequants, [](const std::optional<Dequant> &d) { return d.has_value(); }))
    return rowsM >= 2 && vectorWidth(m) == 8;
  if (m.k % 32 != 0 || m.heads > 1)
    return false;
  return llvm::all_of(dequants, [&](const std::optional<Dequant> &d) {
    return d && d->bits == 4 && d->blockSize % 32 == 0 &&
           cast<MemRefType>(d->scales.getType()).getElementType() == m.elementType &&
           (!d->zeroPoints ||
            cast<MemRefType>(d->zeroPoints.getType()).getElementType() == m.elementType) &&
           integralZeroPoints(*d, /*bound=*/127); // 128 + zp exact in bf16
  });
}

/// What a kernel of `m` stores to, collapsed to [M, N] over all of C's lead dims: C, or the
/// fused epilogue's output (then `leadDims` gets its lead extents, with which the epilogue's
/// stores recover the lead indices of a row).
Value storedC(OpBuilder &b, Location loc, const Match &m, const Epilogue &epilogue,
              SmallVector<Value> &leadDims) {
  if (epilogue)
    leadDims = decoda::gpu_contraction::leadExtents(b, loc, m, epilogue);
  return decoda::gpu_contraction::collapseLead(
      b, loc, epilogue ? decoda::gpu_contraction::outputAsC(b, loc, epilogue, m.lead) : m.c,
      m.lead);
}

/// The tensor-core GEMV of `m` (the file comment's "Tensor cores"): mmaAccepts holds;
/// `weights` B's (and a gate/up pair's first weight's) dequantisations, or empty: the
/// weights are B (and the pair's first weight) as floats; the other arguments as
/// emitKernel's.
void emitMmaKernel(OpBuilder &b, Match m, int64_t rowsM, const Config &cfg,
                   bool zeroInit, Epilogue epilogue, Value count,
                   const decoda::gpu_contraction::GateUp *dual, NormFold *norm,
                   ArrayRef<Dequant> weights) {
  Location loc = m.op.getLoc();
  MLIRContext *ctx = b.getContext();
  Emitter e{b, loc};
  Type elem = m.elementType, i32 = b.getI32Type(), f32 = b.getF32Type();
  const bool bf16 = elem.isBF16();
  // Float weights: B's buffer (and the pair's first weight's), read as they are.
  const bool fromCodes = !weights.empty();
  SmallVector<Value> floats;
  if (!fromCodes) {
    floats.push_back(m.b);
    if (dual)
      floats.push_back(dual->m1.b);
  }
  const int64_t numW = static_cast<int64_t>(fromCodes ? weights.size() : floats.size());
  Value a2 = norm ? Value() : decoda::gpu_contraction::collapseLead(b, loc, m.a, m.lead);
  SmallVector<Value> leadDims;
  Value c2 = storedC(b, loc, m, epilogue, leadDims);
  // Per head (emitKernel's): columns over B's H·N rows, a warp's 8 in one head h (N a
  // multiple of 8), A's rows and C's r·H + h, C's columns n - h·N.
  const int64_t heads = m.heads, headN = m.n;
  if (isPerHead(m)) {
    assert(!fromCodes && !norm && !dual && "per head: float weights alone");
    floats[0] = weightRows(b, loc, m.b);
    m.n = heads * headN;
  }
  // 8 columns (weight rows) a warp; a warp step of 4 lanes per row, each 16 bytes of the
  // row: 128 k (32 codes a lane) or 32 k (8 floats a lane); the K split over warps while the
  // grid is short of min-blocks blocks. A lane step's pairs of k (of each row of A, and of
  // the weight row), two per register of B's fragments: 16 or 4.
  const int64_t kLaneK = fromCodes ? 32 : 8, kStepK = 4 * kLaneK, kPairs = kLaneK / 2;
  const int64_t split = splitK(m.n, 8, (m.k + kStepK - 1) / kStepK, cfg);
  const int64_t groups = cfg.warps / split;
  // Rows g + 8 of the fragments only with more than 8 rows.
  const int64_t rowGroups = rowsM > 8 ? 2 : 1;
  auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  SmallVector<Type> workgroup;
  // With a split, each warp's accumulators meet in shared memory: [warps][numW * 32 * 4].
  if (split > 1)
    workgroup.push_back(
        MemRefType::get({cfg.warps, numW * 128}, f32, MemRefLayoutAttrInterface(), shared));
  if (norm)
    appendNormWorkgroup(workgroup, *norm, rowsM, m.k, elem, cfg.warps);
  Value one = e.idx(1);
  auto launch = gpu::LaunchOp::create(b, loc, e.idx(gridBlocks(m.n, 8, split, cfg)), one, one,
                                      e.idx(32 * cfg.warps), one, one,
                                      /*dynamicSharedMemorySize=*/nullptr,
                                      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
                                      workgroup);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value tid = launch.getThreadIds().x;
  Value warp = e.div(tid, 32), lane = e.rem(tid, 32);
  Value group = e.div(warp, split), part = e.rem(warp, split);
  Value g = e.div(lane, 4), q = e.rem(lane, 4);
  Value n0 = e.mul(e.add(e.mul(launch.getBlockIds().x, groups), group), 8);
  Value lastRow = e.idx(m.n - 1);
  auto clampRow = [&](Value n) { return e.select(e.lt(n, e.idx(m.n)), n, lastRow); };
  Value bRow = clampRow(e.add(n0, g)); // the weight row this lane reads
  Value head = heads > 1 ? e.div(clampRow(n0), headN) : Value();
  // Rows of A (past the run-time count or rowsM: the last one, computed and not stored).
  Value lastA = count ? arith::SubIOp::create(b, loc, count, one).getResult()
                      : e.idx(rowsM - 1);
  SmallVector<Value> aRows;
  for (int64_t rg = 0; rg < rowGroups; ++rg) {
    Value r = rg ? e.add(g, e.idx(8)) : g;
    Value row = e.select(e.lt(r, lastA), r, lastA);
    aRows.push_back(head ? e.add(e.mul(row, heads), head) : row);
  }
  // Lane 0 of part 0 prefetches the starts of the warp's 8 rows of codes (or floats) into L2.
  if (!fromCodes) {
    SmallVector<Value> bufs, rows;
    for (Value w : floats)
      for (int64_t i = 0; i < 8; ++i) {
        bufs.push_back(w);
        rows.push_back(clampRow(e.add(n0, e.idx(i))));
      }
    if (int64_t prefetch = prefetchRowBytes(m, bufs, cfg))
      emitWeightPrefetch(b, loc, bufs, rows, m.k, m.elementBytes(), prefetch, lane, part);
  } else {
    Match codesMatch = m;
    codesMatch.elementType = b.getI8Type();
    codesMatch.k = cast<MemRefType>(weights.front().codes.getType()).getDimSize(1);
    SmallVector<Value> codes, rows;
    for (const Dequant &d : weights)
      for (int64_t i = 0; i < 8; ++i) {
        codes.push_back(d.codes);
        rows.push_back(clampRow(e.add(n0, e.idx(i))));
      }
    if (int64_t prefetch = prefetchRowBytes(codesMatch, codes, cfg))
      emitWeightPrefetch(b, loc, codes, rows, codesMatch.k, 1, prefetch, lane, part);
  }
  if (norm) {
    ArrayRef<BlockArgument> wg = launch.getWorkgroupAttributions();
    a2 = wg[split > 1 ? 1 : 0];
    int64_t first = split > 1 ? 2 : 1;
    emitNormPrologue(b, loc, *norm, a2, wg.slice(first, norm->cfg.centered ? 2 : 1), m.lead,
                     rowsM, m.k, vectorWidth(m), 32 * cfg.warps, tid, warp, lane,
                     launch.getBlockIds().x);
  }

  auto pairType = VectorType::get({2}, elem);
  auto aFragType = VectorType::get({4, 2}, elem), bFragType = VectorType::get({2, 2}, elem);
  auto cFragType = VectorType::get({2, 2}, f32);
  Value zeroPair = arith::ConstantOp::create(b, loc, pairType, b.getZeroAttr(pairType));
  // 128 + x (bf16) or 1024 + x (f16) for a code x in the low bits of a 16-bit half.
  const uint32_t magic = bf16 ? 0x43004300u : 0x64006400u;
  const double magicValue = bf16 ? 128.0 : 1024.0;
  struct Loaded {
    SmallVector<Value> words; // per weight: four i32 of 8 codes each (codes)
    SmallVector<Value> scale, zp;
    SmallVector<Value> floats; // per weight: its 8 elements (floats)
  };
  // One lane step at k (its 32 codes of each weight, one block; or its 8 floats): loads.
  auto loadStep = [&](Value k) {
    Loaded l;
    for (Value w : floats)
      l.floats.push_back(vector::LoadOp::create(b, loc, VectorType::get({8}, elem), w,
                                                ValueRange{bRow, k}, /*nontemporal=*/false,
                                                llvm::MaybeAlign(16)));
    for (const Dequant &d : weights) {
      Value bytes = vector::LoadOp::create(b, loc, VectorType::get({16}, b.getI8Type()), d.codes,
                                           ValueRange{bRow, e.div(k, 2)},
                                           /*nontemporal=*/false, llvm::MaybeAlign(16));
      Value words = vector::BitCastOp::create(b, loc, VectorType::get({4}, i32), bytes);
      for (int64_t w = 0; w < 4; ++w)
        l.words.push_back(vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{w}));
      Value blk = e.div(k, d.blockSize);
      l.scale.push_back(memref::LoadOp::create(b, loc, d.scales, ValueRange{bRow, blk}));
      l.zp.push_back(d.zeroPoints
                         ? memref::LoadOp::create(b, loc, d.zeroPoints, ValueRange{bRow, blk})
                               .getResult()
                         : Value());
    }
    return l;
  };
  // The B fragments of weight `wi` from its loaded step: word w's pairs (code 2j, code 2j + 1),
  // j < 4 (byte j's low and high nibble: prmt puts byte j of the word and byte j of the word
  // shifted by 4 into bytes 0 and 2, the mask keeps their low nibbles), each made (128 +
  // code) by the magic, minus (128 + zp) (exact: code - zp), times the scale (rounded once,
  // as the generic's f32 product rounded to the type). Fragment (w, h) holds pairs 2h and
  // 2h + 1 of word w: codes 4h .. 4h + 3, in k order, as A's pairs are.
  auto bFragments = [&](const Loaded &l, int64_t wi) {
    SmallVector<Value> frags;
    if (!fromCodes) {
      // Fragment h: pairs 2h and 2h + 1 of the 8 floats, in k order as A's.
      Value x = l.floats[wi];
      for (int64_t h = 0; h < 2; ++h) {
        Value frag = arith::ConstantOp::create(b, loc, bFragType, b.getZeroAttr(bFragType));
        for (int64_t i = 0; i < 2; ++i) {
          int64_t at = 2 * (2 * h + i);
          Value pair = vector::ShuffleOp::create(b, loc, x, x, ArrayRef<int64_t>{at, at + 1});
          frag = vector::InsertOp::create(b, loc, pair, frag, ArrayRef<int64_t>{i});
        }
        frags.push_back(frag);
      }
      return frags;
    }
    Value scale = vector::BroadcastOp::create(b, loc, pairType, l.scale[wi]);
    Value zp = l.zp[wi] ? l.zp[wi]
                        : arith::ConstantOp::create(b, loc, elem,
                                                    b.getFloatAttr(elem, 8.0)).getResult();
    Value bias = arith::AddFOp::create(
        b, loc, zp, arith::ConstantOp::create(b, loc, elem, b.getFloatAttr(elem, magicValue)));
    Value biasPair = vector::BroadcastOp::create(b, loc, pairType, bias);
    Value mask = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0x000F000F));
    Value magicV = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(magic)));
    Value four = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(4));
    for (int64_t w = 0; w < 4; ++w) {
      Value word = l.words[wi * 4 + w];
      Value high = arith::ShRUIOp::create(b, loc, word, four);
      SmallVector<Value> pairs;
      for (int64_t j = 0; j < 4; ++j) {
        // Result bytes 0 and 2: byte j of `word` (selector j) and of `high` (4 + j); bytes 1
        // and 3 are masked off.
        int32_t sel = int32_t(j | ((4 + j) << 8) | (j << 4) | ((4 + j) << 12));
        Value selector = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(sel));
        Value spread = NVVM::PermuteOp::create(b, loc, i32, word, high, selector,
                                               NVVM::PermuteMode::DEFAULT);
        Value codes = arith::AndIOp::create(b, loc, spread, mask);
        Value biased = arith::OrIOp::create(b, loc, codes, magicV);
        Value asVector = vector::BroadcastOp::create(b, loc, VectorType::get({1}, i32), biased);
        Value pair = vector::BitCastOp::create(b, loc, pairType, asVector);
        Value centred = arith::SubFOp::create(b, loc, pair, biasPair);
        pairs.push_back(arith::MulFOp::create(b, loc, centred, scale));
      }
      for (int64_t h = 0; h < 2; ++h) {
        Value frag = arith::ConstantOp::create(b, loc, bFragType, b.getZeroAttr(bFragType));
        frag = vector::InsertOp::create(b, loc, pairs[2 * h], frag, ArrayRef<int64_t>{0});
        frag = vector::InsertOp::create(b, loc, pairs[2 * h + 1], frag, ArrayRef<int64_t>{1});
        frags.push_back(frag);
      }
    }
    return frags;
  };
  // The A pairs of row group rg for the lane's 32 k at `k`: for word w and pair i, (A[k + 8w
  // + 2i], A[k + 8w + 2i + 1]) as the codes pair up (halves of the loaded registers);
  // `valid` false: zeros (past K).
  auto aPairs = [&](Value k, Value valid) {
    SmallVector<SmallVector<Value>> byGroup;
    for (Value row : aRows) {
      SmallVector<Value> pairs;
      for (int64_t w = 0; w < kPairs / 4; ++w) {
        Value x = vector::LoadOp::create(b, loc, VectorType::get({8}, elem), a2,
                                         ValueRange{row, w ? e.add(k, e.idx(8 * w)) : k},
                                         /*nontemporal=*/false, llvm::MaybeAlign(16));
        for (int64_t i = 0; i < 4; ++i) {
          Value pair =
              vector::ShuffleOp::create(b, loc, x, x, ArrayRef<int64_t>{2 * i, 2 * i + 1});
          pairs.push_back(valid ? e.select(valid, pair, zeroPair) : pair);
        }
      }
      byGroup.push_back(pairs);
    }
    return byGroup;
  };
  // acc[wi] += the lane step's MMAs of weight wi (8 of codes, 2 of floats).
  auto step = [&](const Loaded &l, ArrayRef<SmallVector<Value>> a, SmallVector<Value> acc) {
    for (int64_t wi = 0; wi < numW; ++wi) {
      SmallVector<Value> frags = bFragments(l, wi);
      for (auto [f, frag] : llvm::enumerate(frags)) {
        Value af = arith::ConstantOp::create(b, loc, aFragType, b.getZeroAttr(aFragType));
        // Fragment f takes pairs 2f and 2f + 1: a0 row g, pair 2f; a1 row g + 8, pair 2f;
        // a2, a3 pair 2f + 1.
        for (int64_t reg = 0; reg < 4; ++reg) {
          int64_t rg = reg % 2, pair = 2 * static_cast<int64_t>(f) + reg / 2;
          Value v = rg < static_cast<int64_t>(a.size()) ? a[rg][pair] : zeroPair;
          af = vector::InsertOp::create(b, loc, v, af, ArrayRef<int64_t>{reg});
        }
        acc[wi] = decoda::gpu_mma::mma16816(b, loc, af, frag, acc[wi]);
      }
    }
    return acc;
  };
  Value zeroC = arith::ConstantOp::create(b, loc, cFragType, b.getZeroAttr(cFragType));
  SmallVector<Value> acc(numW, zeroC);
  // Steps of this part: k = (i * split + part) * kStepK + kLaneK q. Whole steps in an unrolled
  // loop (unroll clamped to 144 registers of weights and A a step: codes, scale and zero
  // point, or the floats; A's pairs), the last partial one masked.
  const int64_t stride = kStepK * split;
  const int64_t fullSteps = m.k / stride; // steps every part has whole
  int64_t unrollCap = cfg.unroll;
  const int64_t stepRegs = (fromCodes ? 6 : 4) * numW + kPairs * rowGroups;
  while (unrollCap > 1 && unrollCap * stepRegs > 144)
    unrollCap /= 2;
  const int64_t unroll = std::clamp<int64_t>(fullSteps, 1, unrollCap);
  const int64_t mainIters = fullSteps / unroll;
  Value partK = e.mul(part, kStepK), laneK = e.add(partK, e.mul(q, kLaneK));
  if (mainIters > 0) {
    auto loop = scf::ForOp::create(b, loc, e.idx(0), e.idx(mainIters), one, acc);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(loop.getBody());
    Value base = e.add(e.mul(loop.getInductionVar(), unroll * stride), laneK);
    SmallVector<Value> ks;
    SmallVector<Loaded> loaded;
    for (int64_t u = 0; u < unroll; ++u) {
      ks.push_back(e.add(base, e.idx(u * stride)));
      loaded.push_back(loadStep(ks.back()));
    }
    SmallVector<Value> cur(loop.getRegionIterArgs());
    for (int64_t u = 0; u < unroll; ++u)
      cur = step(loaded[u], aPairs(ks[u], Value()), cur);
    scf::YieldOp::create(b, loc, cur);
    acc.assign(loop.getResults().begin(), loop.getResults().end());
  }
  if (mainIters * unroll * stride < m.k) {
    // The rest: whole steps past the unrolled ones, then a part's last step, whose lanes past
    // K read k = 0 (in bounds) and multiply zeros. The loop runs over the warp's step starts
    // (the same for every lane: mma.sync needs the whole warp).
    auto loop = scf::ForOp::create(b, loc, e.add(e.idx(mainIters * unroll * stride), partK),
                                   e.idx(m.k), e.idx(stride), acc);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(loop.getBody());
    Value k = e.add(loop.getInductionVar(), e.mul(q, kLaneK));
    Value valid = e.lt(k, e.idx(m.k));
    Value safeK = e.select(valid, k, e.idx(0));
    Loaded l = loadStep(safeK);
    SmallVector<Value> cur(loop.getRegionIterArgs());
    scf::YieldOp::create(b, loc, step(l, aPairs(safeK, valid), cur));
    acc.assign(loop.getResults().begin(), loop.getResults().end());
  }
  // The C fragments as scalars: [wi][2 * r + c], row g + 8 r, column 2 q + c.
  auto scalars = [&](ArrayRef<Value> frags) {
    SmallVector<Value> out;
    for (Value f : frags)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 2; ++c)
          out.push_back(vector::ExtractOp::create(b, loc, f, ArrayRef<int64_t>{r, c}));
    return out;
  };
  SmallVector<Value> sums = scalars(acc);
  Value isPart0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, part, e.idx(0));
  if (split > 1) {
    // Each warp leaves its fragments; after the barrier part 0 adds the others in order.
    const size_t perLane = sums.size();
    sums = addSplitParts(
        b, loc, sums, launch.getWorkgroupAttributions()[0], warp, split, /*leaves=*/Value(),
        [&] { return isPart0; },
        [&](size_t i) { return e.add(e.mul(lane, perLane), e.idx(i)); },
        [&](Value x, Value y) -> Value { return arith::AddFOp::create(b, loc, x, y); });
  }
  // Stores: part 0, each lane its rows g and g + 8 (below the row count) and columns 2q, 2q + 1
  // (below N).
  auto write = scf::IfOp::create(b, loc, TypeRange{}, isPart0, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&write.getThenRegion().front());
  Value rowLimit = count ? count : e.idx(rowsM);
  for (int64_t r = 0; r < rowGroups; ++r) {
    Value row = r ? e.add(g, e.idx(8)) : g;
    for (int64_t c = 0; c < 2; ++c) {
      Value col = e.add(n0, e.add(e.mul(q, 2), e.idx(c)));
      Value inside = arith::AndIOp::create(b, loc, e.lt(row, rowLimit), e.lt(col, e.idx(m.n)));
      auto store = scf::IfOp::create(b, loc, TypeRange{}, inside, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      Value s = sums[2 * r + c];
      // C's row and column (per head: the head's row, the column within it).
      Value cRow = head ? e.add(e.mul(row, heads), head) : row;
      Value cCol =
          head ? arith::SubIOp::create(b, loc, col, e.mul(head, headN)).getResult() : col;
      if (epilogue) {
        SmallVector<Value> operands;
        if (dual)
          operands = decoda::gpu_contraction::gateUpOperands(b, loc, *dual, leadDims, cRow, cCol,
                                                             {sums[4 + 2 * r + c]});
        decoda::gpu_contraction::storeThroughEpilogue(b, loc, epilogue, leadDims, c2, {s}, cRow,
                                                      cCol, operands);
        continue;
      }
      SmallVector<Value, 2> at{cRow, cCol};
      if (!zeroInit)
        s = arith::AddFOp::create(b, loc, memref::LoadOp::create(b, loc, c2, at), s);
      memref::StoreOp::create(b, loc, s, c2, at);
    }
  }
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
}

/// The most rows a GEMV kernel of `m` (and of `second`, a gate/up pair's other weight)
/// takes: 16 where the tensor-core GEMV takes it (its fragments have 16 rows), else max-m.
int64_t rowLimit(const Match &m, const Match *second, const Config &cfg) {
  constexpr int64_t kMmaRows = 16;
  if (!cfg.mma || cfg.maxM >= kMmaRows)
    return cfg.maxM;
  SmallVector<std::optional<Dequant>> ds{dequantOf(m.b, vectorWidth(m))};
  if (second)
    ds.push_back(dequantOf(second->b, vectorWidth(*second)));
  return mmaAccepts(m, kMmaRows, ds, cfg) ? kMmaRows : cfg.maxM;
}

/// The k loops of a kernel thread (or lane): k = start, start + stride, ... < `k` in steps of
/// `unroll` (the main loop, `step` given the step's unroll k) and then one at a time (the ragged
/// end); `acc` carried through both and returned.
SmallVector<Value> emitStridedLoops(
    OpBuilder &b, Location loc, int64_t k, int64_t stride, int64_t unroll, Value start,
    SmallVector<Value> acc,
    llvm::function_ref<SmallVector<Value>(ArrayRef<Value>, SmallVector<Value>)> step) {
  Emitter e{b, loc};
  int64_t big = stride * unroll, mainSteps = k / big;
  if (mainSteps > 0) {
    auto loop = scf::ForOp::create(b, loc, e.idx(0), e.idx(mainSteps), e.idx(1), acc);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value base = e.add(e.mul(loop.getInductionVar(), big), start);
    SmallVector<Value> ks;
    for (int64_t u = 0; u < unroll; ++u)
      ks.push_back(e.add(base, e.idx(u * stride)));
    scf::YieldOp::create(b, loc, step(ks, SmallVector<Value>(loop.getRegionIterArgs())));
    acc.assign(loop.getResults().begin(), loop.getResults().end());
  }
  if (mainSteps * big < k) {
    auto loop = scf::ForOp::create(b, loc, e.add(e.idx(mainSteps * big), start), e.idx(k),
                                   e.idx(stride), acc);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    scf::YieldOp::create(
        b, loc, step({loop.getInductionVar()}, SmallVector<Value>(loop.getRegionIterArgs())));
    acc.assign(loop.getResults().begin(), loop.getResults().end());
  }
  return acc;
}

/// The GEMV kernel of `m` with `rowsM` rows; with `epilogue` (fusableEpilogue, zeroInit) the
/// storing lane applies its body to each sum and stores the result to its output instead.
/// With `count` (the run-time row count, 1 <= count <= rowsM, of a dynamic M) the kernel
/// computes rowsM rows, rows past `count` reading A's last row, and stores only the first
/// `count`.
void emitKernel(OpBuilder &b, Match m, int64_t rowsM, const Config &cfgIn, bool zeroInit,
                Epilogue epilogue, Value count = nullptr,
                const decoda::gpu_contraction::GateUp *dual = nullptr,
                NormFold *norm = nullptr) {
  Location loc = m.op.getLoc();
  // A per-head contraction's warp takes columns of one head: one column a warp where N is
  // no multiple of cols-per-warp.
  Config cfg = cfgIn;
  if (m.heads > 1 && m.n % cfg.cols != 0)
    cfg.cols = 1;
  MLIRContext *ctx = b.getContext();
  Emitter e{b, loc};
  // 4-bit block-quantised weights with bf16/f16 and at most 16 rows: the tensor-core GEMV.
  {
    SmallVector<std::optional<Dequant>> ds{dequantOf(m.b, vectorWidth(m))};
    if (dual)
      ds.push_back(dequantOf(dual->m1.b, vectorWidth(m)));
    if (mmaAccepts(m, rowsM, ds, cfg)) {
      SmallVector<Dequant> weights; // empty: float weights
      for (auto &d : ds)
        if (d)
          weights.push_back(*d);
      emitMmaKernel(b, m, rowsM, cfg, zeroInit, epilogue, count, dual, norm, weights);
      return;
    }
  }
  // With a folded norm A is the block's normalised rows in shared memory (below): the
  // call's result is not read.
  Value a2 = norm ? Value() : decoda::gpu_contraction::collapseLead(b, loc, m.a, m.lead);
  SmallVector<Value> leadDims;
  Value c2 = storedC(b, loc, m, epilogue, leadDims);
  // A per-head contraction (B [H, N, K]): the kernel's columns are B's H·N rows, column
  // h·N + n reading A's row (r, h) and storing C's (r, h, n) -- A and C collapsed over all
  // their lead dims, the head the last, so row r·H + h. Neither a norm nor a gate/up pair
  // nor block-quantised codes come with one (their matches take no heads).
  const int64_t heads = m.heads, headN = m.n;
  if (isPerHead(m)) {
    assert(!norm && !dual && "a per-head contraction with a folded norm or a gate/up pair");
    m.b = weightRows(b, loc, m.b);
    m.n = heads * headN;
  }
  // Dequantised weights (one per weight row a warp reads: B's, then a gate/up pair's first
  // weight's): the kernel reads their codes, scales and zero points instead. Those of one
  // kernel share a code width and block size (others are read as floats), and the kernel's
  // vectors are then 16 bytes of codes (32 4-bit weights), at most a block, halved while K
  // is not a multiple: each vector one scale and zero point, its sum scaled once.
  SmallVector<Value> weightBufs(cfg.cols, m.b);
  if (dual)
    weightBufs.append(cfg.cols, dual->m1.b);
  const int64_t v0 = vectorWidth(m); // elements of a 16-byte vector of A (and float weights)
  SmallVector<std::optional<Dequant>> dequants;
  for (Value w : weightBufs)
    dequants.push_back(dequantOf(w, v0));
  const Dequant *firstDequant = nullptr;
  for (auto &d : dequants) {
    if (d && !firstDequant)
      firstDequant = &*d;
    else if (d && (d->bits != firstDequant->bits || d->blockSize != firstDequant->blockSize))
      d.reset();
  }
  const bool anyDequant = firstDequant != nullptr;
  const bool allDequant = llvm::all_of(dequants, [](const auto &d) { return d.has_value(); });
  int64_t v = v0;
  if (anyDequant) {
    v = std::min<int64_t>(128 / firstDequant->bits, firstDequant->blockSize);
    while (v > v0 && m.k % v != 0)
      v /= 2;
  }
  int64_t split = splitK(m.n, cfg.cols, m.k / (32 * v), cfg), groups = cfg.warps / split;
  // Weight rows a warp reads per column of C: one, or (a gate/up pair) B's and the first
  // weight's, the latter's sums in logical columns cols .. 2 cols - 1.
  const int64_t wcols = cfg.cols * (dual ? 2 : 1);
  Value one = e.idx(1);
  // With a split, each warp's partial sums meet in shared memory: [warps][cols * M].
  auto partialType =
      MemRefType::get({cfg.warps, wcols * rowsM},
                      m.integer() ? Type(b.getI32Type()) : Type(b.getF32Type()),
                      MemRefLayoutAttrInterface(),
                      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  SmallVector<Type> workgroup;
  if (split > 1)
    workgroup.push_back(partialType);
  // The normalised rows, and each warp's partial sums of squares per row.
  if (norm)
    appendNormWorkgroup(workgroup, *norm, rowsM, m.k, m.elementType, cfg.warps);
  auto launch = gpu::LaunchOp::create(b, loc, e.idx(gridBlocks(m.n, cfg.cols, split, cfg)), one,
                                      one,
                                      e.idx(32 * cfg.warps), one, one,
                                      /*dynamicSharedMemorySize=*/nullptr,
                                      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
                                      workgroup);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value tid = launch.getThreadIds().x;
  Value warp = e.div(tid, 32), lane = e.rem(tid, 32);
  // Warp w: column group w / split, part w % split of K (every split-th 32-lane stride).
  Value group = e.div(warp, split), part = e.rem(warp, split);
  Value col0 = e.mul(e.add(e.mul(launch.getBlockIds().x, groups), group), cfg.cols);
  // Rows of A (clamped to the run-time count: a row past it repeats the last one, in L1).
  SmallVector<Value> aRows;
  Value lastA = count ? arith::SubIOp::create(b, loc, count, e.idx(1)).getResult() : Value();
  for (int64_t r = 0; r < rowsM; ++r)
    aRows.push_back(count ? e.select(e.lt(e.idx(r), count), e.idx(r), lastA) : e.idx(r));
  Value lastRow = e.idx(m.n - 1);
  SmallVector<Value> cols, rows; // columns of C, and the rows of B they read (clamped)
  for (int64_t j = 0; j < cfg.cols; ++j) {
    Value n = e.add(col0, e.idx(j));
    cols.push_back(n);
    rows.push_back(e.select(e.lt(n, e.idx(m.n)), n, lastRow));
  }
  SmallVector<Value> weights(weightBufs);
  if (dual) {
    for (int64_t j = 0; j < cfg.cols; ++j) {
      cols.push_back(cols[j]);
      rows.push_back(rows[j]);
    }
  }
  // Per head: the warp's head (its columns lie in one: N a multiple of cols), A's rows of it.
  Value head;
  if (heads > 1) {
    head = e.div(rows[0], headN);
    for (Value &r : aRows)
      r = e.add(e.mul(r, heads), head);
  }
  // Where sum (r, j) goes in the collapsed C (or the epilogue's output): row r, column j; per
  // head row r·H + h, column j - h·N.
  auto storeRow = [&](int64_t r) -> Value {
    return heads > 1 ? e.add(e.idx(r * heads), head) : e.idx(r);
  };
  auto storeCol = [&](int64_t j) -> Value {
    return heads > 1 ? arith::SubIOp::create(b, loc, cols[j], e.mul(head, headN))
                           .getResult()
                     : cols[j];
  };

  int64_t bytes = v * m.elementType.getIntOrFloatBitWidth() / 8;
  bool integer = m.integer();
  // The weights' row starts into L2 first, before anything that waits for the kernel before:
  // the float rows, or (every weight dequantised, with one code width) the rows of codes.
  if (!anyDequant) {
    if (int64_t prefetch = prefetchRowBytes(m, weights, cfg))
      emitWeightPrefetch(b, loc, weights, rows, m.k, m.elementBytes(), prefetch, lane, part);
  } else if (allDequant) { // one code width: the others were reset above
    Match codesMatch = m;
    codesMatch.elementType = b.getI8Type();
    codesMatch.k = cast<MemRefType>(dequants.front()->codes.getType()).getDimSize(1);
    SmallVector<Value> codes;
    for (const auto &d : dequants)
      codes.push_back(d->codes);
    if (int64_t prefetch = prefetchRowBytes(codesMatch, codes, cfg))
      emitWeightPrefetch(b, loc, codes, rows, codesMatch.k, 1, prefetch, lane, part);
  }
  // A folded norm: the block's normalised rows in shared memory, read as A below.
  if (norm) {
    ArrayRef<BlockArgument> wg = launch.getWorkgroupAttributions();
    a2 = wg[split > 1 ? 1 : 0];
    int64_t first = split > 1 ? 2 : 1;
    emitNormPrologue(b, loc, *norm, a2, wg.slice(first, norm->cfg.centered ? 2 : 1), m.lead,
                     rowsM, m.k, v0,
                     32 * cfg.warps, tid, warp, lane, launch.getBlockIds().x);
  }
  Type i32 = b.getI32Type();
  auto loadType = VectorType::get({v}, m.elementType);
  auto wideType = VectorType::get({v}, b.getF32Type());
  // Float: vector<V x f32> accumulators (FMA), or f32 with dequantised weights (below). i8:
  // one i32 per (column, row).
  Type accType = integer ? Type(i32) : anyDequant ? b.getF32Type() : Type(wideType);
  auto load = [&](Value buf, Value row, Value k) -> Value {
    Value x = vector::LoadOp::create(b, loc, loadType, buf, ValueRange{row, k},
                                     /*nontemporal=*/false, llvm::MaybeAlign(bytes));
    if (integer || m.elementType.isF32())
      return x;
    return arith::ExtFOp::create(b, loc, wideType, x);
  };
  // acc + a . w for one vector of each.
  auto multiplyAdd = [&](Value a, Value w, Value acc) -> Value {
    if (!integer)
      return vector::FMAOp::create(b, loc, a, w, acc);
    auto signedType = NVVM::DotAccumulateTypeAttr::get(ctx, NVVM::DotAccumulateType::SIGNED);
    if (v % 4 == 0) {
      for (int64_t q = 0; q < v; q += 4) {
        // Bytes q .. q + 3 (a shuffle: lowers to one LLVM shufflevector, a no-op on the
        // 32-bit registers the 16-byte load fills).
        auto slice = [&](Value x) {
          return vector::ShuffleOp::create(b, loc, x, x, ArrayRef<int64_t>{q, q + 1, q + 2, q + 3});
        };
        // Sliced in a fixed order (not as call arguments, whose order the host compiler picks).
        Value a4 = slice(a);
        Value w4 = slice(w);
        acc = NVVM::DotAccumulate4WayOp::create(b, loc, i32, a4, signedType, w4, signedType, acc);
      }
      return acc;
    }
    // K not a multiple of 4: element by element.
    for (int64_t q = 0; q < v; ++q) {
      auto elem = [&](Value x) -> Value {
        Value e8 = vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{q});
        return arith::ExtSIOp::create(b, loc, i32, e8);
      };
      Value ai = elem(a);
      Value wi = elem(w);
      acc = arith::AddIOp::create(b, loc, acc, arith::MulIOp::create(b, loc, ai, wi));
    }
    return acc;
  };
  // Dequantised weights (anyDequant): one f32 accumulator per (column, row), each vector's
  // products summed in two chains of FMAs, a dequantised weight's sum scaled once by its
  // block's scale. A vector of a dequantised weight is read as v · bits / 8 bytes of codes
  // (whole 32-bit words: 16 bytes, one load, for 32 4-bit codes) and turned into the exact
  // f32 values code - zp without moving a code to bit 0: the code at bits [s, s + bits) of
  // its word, masked in place and or'ed with 0x4b000000, is 2^23 + code · 2^s as f32, and one
  // FMA, f · 2^-s - (2^(23-s) + zp), is code - zp exactly when the zero points are whole
  // numbers (the default, and genai's packed ones: integralZeroPoints); otherwise
  // f · 2^-s - 2^(23-s) (exact) then - zp in f32. Per 4-bit weight: a LOP3 (a shift per
  // word), the FMA that centres it and the FMA with A, against the generic's rounding of each
  // weight to its type and back: the sums take the exact (code - zp) · scale, within the
  // weight type's rounding of the unfused form.
  Type f32 = b.getF32Type();
  auto fconst = [&](double x) -> Value {
    return arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(static_cast<float>(x)));
  };
  SmallVector<bool> wholeZeroPoints;
  for (const auto &d : dequants)
    wholeZeroPoints.push_back(d && integralZeroPoints(*d, /*bound=*/65536));
  // The v elements at k of row `row` of a float buffer as f32 scalars, read as vectors of v0
  // (16 bytes, aligned as the plain kernel's).
  auto loadElements = [&](Value buf, Value row, Value k) -> SmallVector<Value> {
    auto pieceType = VectorType::get({v0}, m.elementType);
    auto wide = VectorType::get({v0}, f32);
    SmallVector<Value> out;
    for (int64_t p = 0; p < v; p += v0) {
      Value at = p ? e.add(k, e.idx(p)) : k;
      Value x = vector::LoadOp::create(b, loc, pieceType, buf, ValueRange{row, at},
                                       /*nontemporal=*/false,
                                       llvm::MaybeAlign(v0 * m.elementBytes()));
      if (!m.elementType.isF32())
        x = arith::ExtFOp::create(b, loc, wide, x);
      for (int64_t i = 0; i < v0; ++i)
        out.push_back(vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{i}));
    }
    return out;
  };
  // What a vector of a dequantised weight loads: its words of codes, scale and zero point.
  struct Codes {
    SmallVector<Value> words; // i32
    Value scale, zp;          // f32 (zp null: the default)
  };
  auto loadCodes = [&](const Dequant &d, Value row, Value k) -> Codes {
    int64_t per = 8 / d.bits, codeBytes = v * d.bits / 8;
    // Rows of codes are kc bytes apart (the buffers themselves at least 16-byte aligned).
    int64_t kc = cast<MemRefType>(d.codes.getType()).getDimSize(1);
    int64_t align = std::min<int64_t>(codeBytes, 16);
    while (align > 1 && kc % align != 0)
      align /= 2;
    Value bytesV = vector::LoadOp::create(b, loc, VectorType::get({codeBytes}, b.getI8Type()),
                                          d.codes, ValueRange{row, e.div(k, per)},
                                          /*nontemporal=*/false, llvm::MaybeAlign(align));
    Codes c;
    if (codeBytes >= 4) {
      Value words = vector::BitCastOp::create(b, loc, VectorType::get({codeBytes / 4}, i32),
                                              bytesV);
      for (int64_t q = 0; q < codeBytes / 4; ++q)
        c.words.push_back(vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{q}));
    } else {
      Value narrow = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, b.getIntegerType(8 * codeBytes)), bytesV);
      Value x = vector::ExtractOp::create(b, loc, narrow, ArrayRef<int64_t>{0});
      c.words.push_back(arith::ExtUIOp::create(b, loc, i32, x));
    }
    Type st = cast<MemRefType>(d.scales.getType()).getElementType();
    Value blk = e.div(k, d.blockSize);
    auto param = [&](Value buf) -> Value {
      Value x = memref::LoadOp::create(b, loc, buf, ValueRange{row, blk});
      return st.isF32() ? x : arith::ExtFOp::create(b, loc, f32, x).getResult();
    };
    c.scale = param(d.scales);
    if (d.zeroPoints)
      c.zp = param(d.zeroPoints);
    return c;
  };
  // The v values code - zp of loaded codes, in k order (code i of a vector at bit i · bits
  // of its words, low first). A code whose bits lie below bit 23 of its word is masked in
  // place (one LOP3 with the exponent's or); the codes above are reached by one shift of the
  // word (4-bit: five codes in place, then the word shifted by 16 for bits 20 .. 31).
  auto centred = [&](const Dequant &d, const Codes &c, bool whole) -> SmallVector<Value> {
    int64_t codeBits = v * d.bits;
    Value zp = c.zp ? c.zp : fconst(double(1 << (d.bits - 1)));
    // -(2^(23 - s) + zp) (whole zero points) or -2^(23 - s), by the bit s of a code.
    llvm::DenseMap<int64_t, Value> negOffsets;
    auto negOffset = [&](int64_t at) -> Value {
      Value &x = negOffsets[at];
      if (!x) {
        Value big = fconst(-std::ldexp(1.0, int(23 - at)));
        x = whole ? arith::SubFOp::create(b, loc, big, zp).getResult() : big;
      }
      return x;
    };
    Value exponent = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0x4b000000));
    const int64_t mask = (int64_t(1) << d.bits) - 1;
    SmallVector<Value> out;
    for (size_t q = 0; q < c.words.size(); ++q) {
      Value word = c.words[q];
      Value window = word;
      int64_t base = 0; // the bit of `word` at bit 0 of `window`
      for (int64_t bit = 0; bit < std::min<int64_t>(32, codeBits); bit += d.bits) {
        if (bit - base + d.bits > 23) {
          // The window starts a code below when the word's last code still fits then (the
          // code at bit 0 of a shifted word would be a BFE, at bit bits a LOP3).
          base = 32 - (bit - d.bits) <= 23 ? bit - d.bits : bit;
          Value amount = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(base));
          window = arith::ShRUIOp::create(b, loc, word, amount);
        }
        int64_t at = bit - base;
        Value maskV = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(mask << at));
        Value code = arith::AndIOp::create(b, loc, window, maskV);
        Value biased = arith::OrIOp::create(b, loc, code, exponent);
        Value f = arith::BitcastOp::create(b, loc, f32, biased);
        Value unscale = fconst(std::ldexp(1.0, -int(at)));
        Value x = math::FmaOp::create(b, loc, f, unscale, negOffset(at));
        if (!whole)
          x = arith::SubFOp::create(b, loc, x, zp);
        out.push_back(x);
      }
    }
    return out;
  };
  // acc + Σ a_i w_i (· scale): two chains of FMAs, the halves of the vector.
  auto dot = [&](ArrayRef<Value> a, ArrayRef<Value> w, Value scale, Value acc) -> Value {
    int64_t half = v / 2;
    auto chain = [&](int64_t from, int64_t to, Value start) -> Value {
      Value t = start;
      for (int64_t i = from; i < to; ++i)
        t = t ? math::FmaOp::create(b, loc, a[i], w[i], t).getResult()
              : arith::MulFOp::create(b, loc, a[i], w[i]).getResult();
      return t;
    };
    // v >= 2: a dequantised weight's vector holds whole bytes of codes (dequantOf).
    Value first = chain(0, half, scale ? Value() : acc);
    Value second = chain(half, v, nullptr);
    Value t = arith::AddFOp::create(b, loc, first, second);
    return scale ? math::FmaOp::create(b, loc, t, scale, acc).getResult() : t;
  };
  // One or more k vectors of every column: the weight loads first (the HBM traffic), then
  // the rows of A and the multiply-adds. acc is indexed [j * M + r].
  auto step = [&](ArrayRef<Value> ks, SmallVector<Value> acc) {
    if (anyDequant) {
      SmallVector<Codes> codes;
      SmallVector<SmallVector<Value>> w;
      for (Value k : ks)
        for (int64_t j = 0; j < wcols; ++j) {
          codes.push_back(dequants[j] ? loadCodes(*dequants[j], rows[j], k) : Codes());
          w.push_back(dequants[j] ? SmallVector<Value>()
                                  : loadElements(weights[j], rows[j], k));
        }
      for (size_t u = 0; u < ks.size(); ++u) {
        for (int64_t j = 0; j < wcols; ++j)
          if (dequants[j])
            w[u * wcols + j] = centred(*dequants[j], codes[u * wcols + j], wholeZeroPoints[j]);
        for (int64_t r = 0; r < rowsM; ++r) {
          SmallVector<Value> a = loadElements(a2, aRows[r], ks[u]);
          for (int64_t j = 0; j < wcols; ++j) {
            Value &c = acc[j * rowsM + r];
            c = dot(a, w[u * wcols + j], codes[u * wcols + j].scale, c);
          }
        }
      }
      return acc;
    }
    SmallVector<Value> w;
    for (Value k : ks)
      for (int64_t j = 0; j < wcols; ++j)
        w.push_back(load(weights[j], rows[j], k));
    for (size_t u = 0; u < ks.size(); ++u)
      for (int64_t r = 0; r < rowsM; ++r) {
        Value a = load(a2, aRows[r], ks[u]);
        for (int64_t j = 0; j < wcols; ++j) {
          Value &c = acc[j * rowsM + r];
          c = multiplyAdd(a, w[u * wcols + j], c);
        }
      }
    return acc;
  };

  Value zero = arith::ConstantOp::create(b, loc, accType, b.getZeroAttr(accType));
  SmallVector<Value> acc(wcols * rowsM, zero);
  // Unrolled by at most the strides each part has, so that a short part still has all its
  // loads in flight in one step; and by at most what keeps a step's vectors (one 16-byte
  // weight vector per column and one activation vector per row, 4 registers each) within
  // kStepRegisters, halving (8 rows: 4 steps, as many registers as before the budget). With
  // dequantised weights a column's step is its words of codes, scale and zero point (a
  // float weight's: its v elements), a row's its v elements of A.
  constexpr int64_t kStepRegisters = 144;
  int64_t stepRegisters = 4 * (wcols + rowsM);
  if (anyDequant) {
    int64_t vectorRegisters = std::max<int64_t>(1, v * m.elementBytes() / 4);
    stepRegisters = rowsM * vectorRegisters;
    for (const auto &d : dequants)
      stepRegisters += d ? std::max<int64_t>(1, v * d->bits / 32) + 2 : vectorRegisters;
  }
  int64_t unrollCap = cfg.unroll;
  while (unrollCap > 1 && unrollCap * stepRegisters > kStepRegisters)
    unrollCap /= 2;
  int64_t unroll = std::clamp<int64_t>(m.k / (32 * v) / split, 1, unrollCap);
  int64_t stride = 32 * split * v;
  Value laneK = e.mul(e.add(e.mul(part, 32), lane), v);
  // k = laneK + i·stride, unroll vectors a step, then the ragged end of K one vector at a time
  // (K is a multiple of V).
  acc = emitStridedLoops(b, loc, m.k, stride, unroll, laneK, acc, step);

  // Lane partials to warp sums: every lane takes part in the shuffles.
  auto plus = [&](Value x, Value y) -> Value {
    if (integer)
      return arith::AddIOp::create(b, loc, x, y);
    return arith::AddFOp::create(b, loc, x, y);
  };
  Value width = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(32));
  SmallVector<Value> sums;
  for (Value x : acc) {
    Value s = integer || anyDequant
                  ? x
                  : vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, x);
    for (int32_t o = 16; o >= 1; o /= 2) {
      Value off = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(o));
      Value other =
          gpu::ShuffleOp::create(b, loc, s, off, width, gpu::ShuffleMode::XOR).getShuffleResult();
      s = plus(s, other);
    }
    sums.push_back(s);
  }
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, e.idx(0));
  if (split > 1) {
    // Lane 0 of every warp leaves its sums; after the barrier lane 0 of each group's first
    // warp adds the parts in order (the same order on every run).
    sums = addSplitParts(
        b, loc, sums, launch.getWorkgroupAttributions()[0], warp, split, /*leaves=*/first,
        [&] {
          first = arith::AndIOp::create(
              b, loc, first,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, part, e.idx(0)));
          return first;
        },
        [&](size_t i) { return e.idx(i); }, plus);
  }
  auto write = scf::IfOp::create(b, loc, TypeRange{}, first, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&write.getThenRegion().front());
  for (int64_t j = 0; j < cfg.cols; ++j) {
    auto store = scf::IfOp::create(b, loc, TypeRange{}, e.lt(cols[j], e.idx(m.n)),
                                   /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&store.getThenRegion().front());
    Value col = storeCol(j);
    for (int64_t r = 0; r < rowsM; ++r) {
      Value s = sums[j * rowsM + r];
      OpBuilder::InsertionGuard rowGuard(b);
      if (count && r > 0) {
        auto inRange = scf::IfOp::create(b, loc, TypeRange{}, e.lt(e.idx(r), count),
                                         /*withElseRegion=*/false);
        b.setInsertionPointToStart(&inRange.getThenRegion().front());
      }
      if (epilogue) {
        // A gate/up pair's epilogue takes the gate from the first weight's sum.
        SmallVector<Value> operands;
        if (dual)
          operands = decoda::gpu_contraction::gateUpOperands(
              b, loc, *dual, leadDims, e.idx(r), cols[j], {sums[(cfg.cols + j) * rowsM + r]});
        decoda::gpu_contraction::storeThroughEpilogue(b, loc, epilogue, leadDims, c2, {s},
                                                      storeRow(r), col, operands);
        continue;
      }
      SmallVector<Value, 2> at{storeRow(r), col};
      if (!zeroInit)
        s = plus(memref::LoadOp::create(b, loc, c2, at), s);
      memref::StoreOp::create(b, loc, s, c2, at);
    }
  }
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
}

/// The GEMV of a weight stored [K, N] (in_out; per head [H, K, N]) that is no constant (those
/// are transposed at compile time): the file comment's "Weights stored [K, N]". `rowsM`,
/// `zeroInit`, `epilogue` and `count` as emitKernel's.
void emitColumnKernel(OpBuilder &b, Match m, int64_t rowsM, const Config &cfg,
                      bool zeroInit, Epilogue epilogue, Value count) {
  Location loc = m.op.getLoc();
  MLIRContext *ctx = b.getContext();
  Emitter e{b, loc};
  const int64_t heads = m.heads;
  Value a2 = decoda::gpu_contraction::collapseLead(b, loc, m.a, m.lead);
  SmallVector<Value> leadDims;
  Value c2 = storedC(b, loc, m, epilogue, leadDims);
  // B's rows of k: [K, N], or per head [H·K, N] (head h's rows h·K ..).
  Value b2 = weightRows(b, loc, m.b);
  const int64_t v = columnVectorWidth(m);
  const int64_t threads = 32 * cfg.warps;
  const int64_t lanes = columnLanes(m, cfg);
  const int64_t tile = lanes * v, parts = threads / lanes;
  auto partialType =
      MemRefType::get({parts, rowsM * tile}, b.getF32Type(), MemRefLayoutAttrInterface(),
                      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value one = e.idx(1);
  auto launch = gpu::LaunchOp::create(
      b, loc, e.idx((m.n + tile - 1) / tile), e.idx(heads), one, e.idx(threads), one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, TypeRange{partialType});

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value tid = launch.getThreadIds().x;
  Value head = launch.getBlockIds().y;
  Value chunk = e.rem(tid, lanes), part = e.div(tid, lanes);
  Value tileStart = e.mul(launch.getBlockIds().x, tile);
  // This thread's V columns (the last vector of the row past N: read, not stored).
  Value n0 = e.add(tileStart, e.mul(chunk, v));
  Value nLoad = e.select(e.lt(n0, e.idx(m.n)), n0, e.idx(m.n - v));
  // Rows of A (clamped to the run-time count, as emitKernel's), then of this head.
  SmallVector<Value> aRows;
  Value lastA = count ? arith::SubIOp::create(b, loc, count, one).getResult() : Value();
  for (int64_t r = 0; r < rowsM; ++r) {
    Value row = count ? e.select(e.lt(e.idx(r), count), e.idx(r), lastA) : e.idx(r);
    aRows.push_back(heads > 1 ? e.add(e.mul(row, heads), head) : row);
  }
  Value kBase = heads > 1 ? e.mul(head, m.k) : Value();

  Type f32 = b.getF32Type();
  auto wideType = VectorType::get({v}, f32);
  auto widen = [&](Value x) -> Value {
    return m.elementType.isF32() ? x : arith::ExtFOp::create(b, loc, wideType, x).getResult();
  };
  // U rows of k of B (one V-vector each, all loaded first), then each row of A's element at
  // those k times them: acc[r] += A[r, k] · B[k, n0 ..].
  auto step = [&](ArrayRef<Value> ks, SmallVector<Value> acc) {
    SmallVector<Value> w;
    for (Value k : ks) {
      Value row = kBase ? e.add(kBase, k) : k;
      w.push_back(widen(vector::LoadOp::create(
          b, loc, VectorType::get({v}, m.elementType), b2, ValueRange{row, nLoad},
          /*nontemporal=*/false, llvm::MaybeAlign(v * m.elementBytes()))));
    }
    for (size_t u = 0; u < ks.size(); ++u)
      for (int64_t r = 0; r < rowsM; ++r) {
        Value a = memref::LoadOp::create(b, loc, a2, ValueRange{aRows[r], ks[u]});
        if (!m.elementType.isF32())
          a = arith::ExtFOp::create(b, loc, f32, a);
        Value splat = vector::BroadcastOp::create(b, loc, wideType, a);
        acc[r] = vector::FMAOp::create(b, loc, splat, w[u], acc[r]);
      }
    return acc;
  };
  Value zero = arith::ConstantOp::create(b, loc, wideType, b.getZeroAttr(wideType));
  SmallVector<Value> acc(rowsM, zero);
  // k = part, part + parts, ...: U of them a step (U at most what each part has), then the
  // rest one at a time.
  int64_t unroll = std::clamp<int64_t>(m.k / parts, 1, cfg.unroll);
  acc = emitStridedLoops(b, loc, m.k, parts, unroll, part, acc, step);
  // The parts' sums meet in shared memory: partials[part][r · tile + column in the tile].
  Value partials = launch.getWorkgroupAttributions()[0];
  Value col = e.mul(chunk, v);
  for (int64_t r = 0; r < rowsM; ++r)
    vector::StoreOp::create(b, loc, acc[r], partials, ValueRange{part, e.add(e.idx(r * tile), col)});
  gpu::BarrierOp::create(b, loc);
  // Element i = r · tile + column of the tile, i = tid, tid + threads, ...: the parts added in
  // order (the same on every run), stored where the column is inside N (and r below count).
  auto store = scf::ForOp::create(b, loc, tid, e.idx(rowsM * tile), e.idx(threads));
  b.setInsertionPointToStart(store.getBody());
  Value i = store.getInductionVar();
  Value r = e.div(i, tile), n = e.add(tileStart, e.rem(i, tile));
  Value s = memref::LoadOp::create(b, loc, partials, ValueRange{e.idx(0), i});
  for (int64_t p = 1; p < parts; ++p)
    s = arith::AddFOp::create(b, loc, s,
                              memref::LoadOp::create(b, loc, partials, ValueRange{e.idx(p), i}));
  Value inside = e.lt(n, e.idx(m.n));
  if (count)
    inside = arith::AndIOp::create(b, loc, inside, e.lt(r, count));
  auto ifInside = scf::IfOp::create(b, loc, TypeRange{}, inside, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifInside.getThenRegion().front());
  Value row = heads > 1 ? e.add(e.mul(r, heads), head) : r;
  if (epilogue) {
    decoda::gpu_contraction::storeThroughEpilogue(b, loc, epilogue, leadDims, c2, {s}, row, n);
  } else {
    if (!zeroInit)
      s = arith::AddFOp::create(b, loc, memref::LoadOp::create(b, loc, c2, ValueRange{row, n}),
                                s);
    memref::StoreOp::create(b, loc, s, c2, ValueRange{row, n});
  }
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
}

/// The run-time dispatch of a contraction (or a gate/up pair) whose rows `m` are dynamic:
/// `if (M == 1) kernel(1 row) else if (M - 1 < max-m) kernel(max-m rows, storing M) else ...`
/// (unsigned, so M = 0 reaches the last branch). Leaves `b` in the last branch, where the
/// caller puts the contraction for the tensor-core pass.
void emitRowDispatch(OpBuilder &b, Location loc, const Match &m, const Config &cfg,
                     llvm::function_ref<void(int64_t rows, Value count)> kernel,
                     const Match *second = nullptr) {
  const int64_t maxM = rowLimit(m, second, cfg);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = one;
  for (int64_t d = 0; d < rowDims(m); ++d)
    count = arith::MulIOp::create(b, loc, count, memref::DimOp::create(b, loc, m.a, d));
  Value isOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count, one);
  auto dispatch = scf::IfOp::create(b, loc, TypeRange{}, isOne, /*withElseRegion=*/true);
  b.setInsertionPoint(dispatch.thenBlock()->getTerminator());
  kernel(1, Value());
  b.setInsertionPoint(dispatch.elseBlock()->getTerminator());
  if (maxM > 1) {
    // 2 <= M <= max-m (a few tokens at once, as in speculative decoding; 16 on the tensor-core
    // GEMV): the kernel for max-m rows, storing M of them.
    Value few = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      arith::SubIOp::create(b, loc, count, one),
                                      arith::ConstantIndexOp::create(b, loc, maxM));
    auto fewRows = scf::IfOp::create(b, loc, TypeRange{}, few, /*withElseRegion=*/true);
    b.setInsertionPoint(fewRows.thenBlock()->getTerminator());
    kernel(maxM, count);
    b.setInsertionPoint(fewRows.elseBlock()->getTerminator());
  }
}

struct GPUGemvPass : public mlir::decoda::impl::GPUGemvPassBase<GPUGemvPass> {
  using Base::Base;

  void runOnOperation() override {
    Config cfg{maxM, warps, colsPerWarp, unroll, minBlocks, dynamicM, prefetchBytes, mma};
    if (cfg.maxM < 1 || cfg.warps < 1 || cfg.warps > 32 || cfg.cols < 1 || cfg.unroll < 1 ||
        cfg.prefetchBytes < 0) {
      getOperation().emitError()
          << "decoda-gpu-gemv: invalid options max-m=" << cfg.maxM << " warps=" << cfg.warps
          << " cols-per-warp=" << cfg.cols << " unroll=" << cfg.unroll
          << " prefetch-bytes=" << cfg.prefetchBytes
          << " (need max-m, cols-per-warp and unroll at least 1, warps in [1, 32], "
             "prefetch-bytes at least 0)";
      return signalPassFailure();
    }
    auto refuse = [&](const Match &m) -> std::string {
      if (m.n == 0)
        return "N is 0";
      if (m.kMajor && m.integer())
        return "an INT8 weight stored [k, n] (dp4a takes four consecutive k)";
      if (m.kMajor && dequantOf(m.b, 1))
        return "a weight stored [k, n] dequantised from blocks";
      int64_t rows = staticRows(m);
      if (rows < 0)
        return cfg.dispatchDynamicM ? "" : "M is dynamic";
      if (int64_t limit = rowLimit(m, nullptr, cfg); rows > limit)
        return "M = " + std::to_string(rows) + " is above max-m = " + std::to_string(limit);
      if (rows == 0)
        return "M is 0";
      return "";
    };
    auto remarkEpilogue = [&](linalg::GenericOp op, const std::string &why) {
      if (report)
        op.emitRemark() << "decoda-gpu-gemv: epilogue not fused: " << why;
    };
    // Norm calls read only by kernels of this pass: their normalised result -> the fold.
    llvm::DenseMap<Value, NormFold *> folds;
    std::vector<std::unique_ptr<NormFold>> foldStorage;
    if (foldNorms)
      findNormFolds(cfg, refuse, folds, foldStorage);
    auto foldOf = [&](Value a) -> NormFold * { return folds.lookup(a); };
    // only-folded: nothing but the readers of folded norms.
    auto refuseHere = [&](const Match &m) -> std::string {
      if (m.op->hasAttr(kDispatchedAttr))
        return "the M > max-m branch of a dispatch";
      std::string why = refuse(m);
      if (why.empty() && onlyFolded && !folds.count(m.a))
        return "A is not the rows of a folded norm (only-folded)";
      return why;
    };

    SmallVector<memref::AllocOp> fusedTemporaries;
    // Block-quantised weights' dequantisations out of the way (the kernels read the codes).
    hoistDequantizations(getOperation());
    // A GLU's gate and up projections first: one kernel reading both weight rows of each
    // column (GPUContraction.h, gateUpPair); with dynamic rows behind a dispatch.
    if (gateUp && fuseEpilogue) {
      decoda::gpu_contraction::zeroCopiesToFills(getOperation());
      SmallVector<linalg::GenericOp> contractions =
          decoda::gpu_contraction::contractionsUnder(getOperation());
      for (size_t i = 0; i + 1 < contractions.size(); ++i) {
        std::optional<decoda::gpu_contraction::GateUp> p = decoda::gpu_contraction::gateUpPair(
            contractions[i], contractions[i + 1], refuseHere);
        if (!p)
          continue;
        OpBuilder b(p->epi.op);
        NormFold *fold = foldOf(p->m2.a);
        int64_t rows = fold ? fold->rows : staticRows(p->m2);
        if (rows >= 0) {
          emitKernel(b, p->m2, rows, cfg, /*zeroInit=*/true, p->epi, nullptr, &*p, fold);
        } else {
          // Dynamic M: the kernel of both weights for M = 1 and for 2 <= M <= max-m (as a
          // single projection's dispatch below); else both contractions and the epilogue
          // again, for decoda-gpu-tensorcore-matmul to pair in its own kernel.
          emitRowDispatch(
              b, p->m2.op.getLoc(), p->m2, cfg,
              [&](int64_t r, Value count) {
                // A norm folded at dynamic rows: computed by the M = 1 kernel.
                emitKernel(b, p->m2, r, cfg, /*zeroInit=*/true, p->epi, count, &*p,
                           r == 1 ? fold : nullptr);
              },
              &p->m1);
          Operation *firstCopy = nullptr;
          SmallVector<Operation *> copies;
          for (Operation *op : {p->fill1.getOperation(), p->m1.op.getOperation(),
                                p->fill2.getOperation(), p->m2.op.getOperation(),
                                p->epi.op.getOperation()}) {
            Operation *copy = b.clone(*op);
            if (!firstCopy)
              firstCopy = copy;
            if (op == p->m1.op.getOperation() || op == p->m2.op.getOperation()) {
              copy->setAttr(kDispatchedAttr, b.getUnitAttr());
              copies.push_back(copy);
            }
          }
          Match pair[] = {p->m1, p->m2};
          for (auto [mm, copy] : llvm::zip_equal(pair, copies)) {
            linalg::GenericOp original = mm.op;
            sinkDequantization(mm.b, vectorWidth(mm), firstCopy,
                               {original.getOperation(), copy});
          }
          numDispatched += 2;
        }
        decoda::gpu_contraction::eraseGateUp(*p, fusedTemporaries);
        numRewritten += 2;
        numFillsFolded += 2;
        numEpiloguesFused += 1;
        ++numGateUp;
        ++i; // both taken
      }
    }
    auto emit = [&](const Match &cm, bool zeroInit) {
      Match m = cm;
      // The elementwise consumer of C (the INT8 dequantisation, a bf16/f16 rounding, ...) is
      // applied by the storing lane when the sums start at zero; the kernel then goes where
      // the epilogue was (after its operands).
      Epilogue epilogue;
      if (zeroInit && fuseEpilogue)
        epilogue = decoda::gpu_contraction::fusableEpilogue(m, remarkEpilogue,
                                                            /*stridedOutput=*/true);
      OpBuilder b(epilogue ? epilogue.op.getOperation() : m.op.getOperation());
      int64_t rows = staticRows(m);
      if (NormFold *fold = foldOf(m.a))
        rows = fold->rows; // static, or behind the cast of a --static-dims build
      if (rows >= 0) {
        if (m.kMajor)
          emitColumnKernel(b, m, rows, cfg, zeroInit, epilogue, nullptr);
        else
          emitKernel(b, m, rows, cfg, zeroInit, epilogue, nullptr, nullptr, foldOf(m.a));
      } else {
        // if (M == 1) GEMV else the contraction (and the fill folded into the kernel). A
        // fused epilogue goes into both branches: the GEMV kernel applies it, and in the
        // other branch it follows the contraction again, for decoda-gpu-tensorcore-matmul
        // to fuse (or to stay the next kernel where that pass leaves the contraction).
        linalg::GenericOp op = m.op;
        Location loc = op.getLoc();
        linalg::FillOp fill =
            zeroInit ? decoda::gpu_contraction::zeroFillBefore(op, m.c) : linalg::FillOp();
        NormFold *fold = foldOf(m.a); // dynamic rows: computed by the M = 1 kernel
        emitRowDispatch(b, loc, m, cfg, [&](int64_t r, Value count) {
          if (m.kMajor)
            emitColumnKernel(b, m, r, cfg, zeroInit, epilogue, count);
          else
            emitKernel(b, m, r, cfg, zeroInit, epilogue, count, nullptr,
                       r == 1 ? fold : nullptr);
        });
        Operation *fillCopy = fill ? b.clone(*fill) : nullptr;
        Operation *opCopy = b.clone(*op);
        opCopy->setAttr(kDispatchedAttr, b.getUnitAttr());
        if (epilogue)
          b.clone(*epilogue.op);
        sinkDequantization(m.b, vectorWidth(m), fillCopy ? fillCopy : opCopy,
                           {op.getOperation(), opCopy});
        ++numDispatched;
      }
      if (epilogue) {
        decoda::gpu_contraction::eraseEpilogue(epilogue);
        fusedTemporaries.push_back(m.c.getDefiningOp<memref::AllocOp>());
        ++numEpiloguesFused;
      }
    };
    auto leftAlone = [&](linalg::GenericOp op, const std::string &why) {
      if (report)
        op.emitRemark() << "decoda-gpu-gemv: left alone: " << why;
    };
    auto counts = decoda::gpu_contraction::rewriteProjections(
        getOperation(), refuseHere, emit, leftAlone,
        decoda::gpu_contraction::ProjectionForms{/*heads=*/true, /*inOut=*/true});
    // C is no longer written nor read once its epilogue is fused (and not dispatched).
    for (memref::AllocOp alloc : fusedTemporaries)
      decoda::gpu_contraction::eraseIfUnused(alloc);
    numDequantized += eraseUnreadDequantizations(getOperation());
    numRewritten += counts.rewritten;
    numFillsFolded += counts.fillsFolded;
    // The folded calls, once nothing reads their results (their functions, now unused, go
    // with symbol-dce).
    for (auto &f : foldStorage) {
      if (f->cfg.add && !f->sumWritten) {
        f->call.emitError() << "decoda-gpu-gemv: the folded norm's sum was not written (no "
                               "kernel read its rows)";
        return signalPassFailure();
      }
      if (!llvm::all_of(f->call->getResults(), [](Value r) { return r.use_empty(); }))
        continue;
      f->call.erase();
      ++numNormsFolded;
    }
  }

  /// Wraps a norm `call` whose rows (the lead dims of `x`) are dynamic in
  /// `scf.if (rows != 1) { call } else { buffers shaped like x }` and returns the if's
  /// normalised result, which replaces the call's (as the if's first result replaces an add
  /// form's sum): every branch yields buffers of its own, which decoda-gpu-device-buffers
  /// frees as the if's.
  Value keepCallForOtherRows(func::CallOp call, Value x, bool add) {
    Location loc = call.getLoc();
    OpBuilder b(call);
    auto xType = cast<MemRefType>(x.getType());
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value count = one;
    for (int64_t d = 0; d + 1 < xType.getRank(); ++d)
      count = arith::MulIOp::create(b, loc, count, memref::DimOp::create(b, loc, x, d));
    Value other = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, count, one);
    auto ifOp = scf::IfOp::create(b, loc, call.getResultTypes(), other, /*withElseRegion=*/true);
    for (auto [from, to] : llvm::zip_equal(call.getResults(), ifOp.getResults()))
      from.replaceAllUsesWith(to);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, call.getResults());
    call->moveBefore(ifOp.thenBlock(), ifOp.thenBlock()->begin());
    b.setInsertionPointToStart(ifOp.elseBlock());
    SmallVector<Value> fresh;
    for (Type t : call.getResultTypes()) {
      auto type = cast<MemRefType>(t);
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          sizes.push_back(memref::DimOp::create(b, loc, x, d));
      fresh.push_back(memref::AllocOp::create(b, loc, type, sizes));
    }
    scf::YieldOp::create(b, loc, fresh);
    return ifOp.getResult(add ? 1 : 0);
  }

  /// The norm calls of this function whose normalised rows are read only by contractions
  /// this pass takes with the same static rows, or all with dynamic rows (see fold-norms in
  /// GPUPasses.td).
  void findNormFolds(const Config &cfg, llvm::function_ref<std::string(const Match &)> refuse,
                     llvm::DenseMap<Value, NormFold *> &folds,
                     std::vector<std::unique_ptr<NormFold>> &storage) {
    SmallVector<func::CallOp> calls;
    getOperation().walk([&](func::CallOp call) { calls.push_back(call); });
    for (func::CallOp call : calls) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
      auto dict = callee ? callee->getAttrOfType<DictionaryAttr>(decoda::kGPUNormAttr) : nullptr;
      if (!dict)
        continue;
      std::string why;
      FailureOr<mlir::decoda::row_norm::Config> nc =
          mlir::decoda::row_norm::readConfig(callee, dict, why);
      if (failed(nc))
        continue;
      Value normed = call.getResult(nc->add ? 1 : 0);
      Block *block = call->getBlock();
      // Every reader: a contraction of this block taken here with static rows, reading the
      // rows as A with K = D.
      SmallVector<Match> readers;
      bool ok = !normed.use_empty();
      int64_t rows = -1;
      for (Operation *user : normed.getUsers()) {
        if (isa<memref::DimOp>(user))
          continue; // a size (the rows' are x's, read there when folded)
        auto op = dyn_cast<linalg::GenericOp>(user);
        Match m;
        bool matched = op && op->getBlock() == block &&
                       decoda::gpu_contraction::matchProjection(op, m).empty() && m.a == normed;
        // Static rows only: in a --static-dims build the rows behind the norm's dynamic
        // types are static too, but there the projections' epilogues (reached through
        // dynamic reshapes) would not fuse before inlining, which costs more launches than
        // the fold saves.
        // Dynamic rows (a model whose token count is a run-time dim): folded into the
        // dispatch's M = 1 kernels (below), when every reader has them.
        int64_t r = matched ? staticRows(m) : -2;
        if (!matched || !refuse(m).empty() || m.integer() || m.k != nc->d ||
            m.elementType != nc->elem || r == 0 || r < -1 ||
            r > rowLimit(m, nullptr, cfg) || (!readers.empty() && r != rows)) {
          ok = false;
          break;
        }
        rows = r;
        readers.push_back(m);
      }
      if (readers.empty())
        ok = false;
      if (!ok || std::max<int64_t>(rows, 1) * nc->d * (nc->elem.getIntOrFloatBitWidth() / 8) >
                     kNormRowBytes)
        continue;
      // Where the kernels may go: the contractions, or later their C's readers (a fused
      // epilogue); the last of them bounds the span the norm's inputs must stay unwritten.
      // Uses after C's buffer is written again or freed (bufferization reuses a dead buffer,
      // e.g. a static T = 1 build's GLU output in the q/k/v result's) are not this C's readers.
      Operation *last = call;
      for (const Match &m : readers) {
        if (last->isBeforeInBlock(m.op))
          last = m.op;
        Operation *reused = nullptr;
        for (OpOperand &use : m.c.getUses()) {
          Operation *a = block->findAncestorOpInBlock(*use.getOwner());
          if (!a || a == m.op || !m.op->isBeforeInBlock(a))
            continue;
          auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
          bool overwrites = isa<memref::DeallocOp>(use.getOwner()) || (dps && dps.isDpsInit(&use));
          if (overwrites && (!reused || a->isBeforeInBlock(reused)))
            reused = a;
        }
        for (Operation *u : m.c.getUsers())
          if (Operation *a = block->findAncestorOpInBlock(*u);
              a && last->isBeforeInBlock(a) && (!reused || a->isBeforeInBlock(reused)))
            last = a;
      }
      // The add form's sum: every reader after that span (the first kernel writes it).
      // Casts of it (a --static-dims build's static rows as the dynamic type later ops
      // take) read nothing: their readers count.
      if (nc->add) {
        SmallVector<Value> work = {call.getResult(0)};
        while (!work.empty()) {
          Value cur = work.pop_back_val();
          for (Operation *u : cur.getUsers()) {
            if (auto cast = dyn_cast<memref::CastOp>(u)) {
              work.push_back(cast.getResult());
              continue;
            }
            Operation *a = block->findAncestorOpInBlock(*u);
            if (!a || !last->isBeforeInBlock(a))
              ok = false;
          }
        }
      }
      // The norm's inputs: not written between the call and the span's end.
      SmallVector<Value> inputs(call.getOperands());
      llvm::SmallPtrSet<Value, 4> roots;
      for (Value in : inputs)
        roots.insert(decoda::gpu_contraction::viewRoot(in));
      for (Operation *op = call->getNextNode(); ok && op != last->getNextNode();
           op = op->getNextNode()) {
        op->walk([&](Operation *inner) {
          if (!ok)
            return WalkResult::interrupt();
          // A run-time check (cf.assert: a write of no buffer, so that it stays) writes none.
          if (isa<cf::AssertOp>(inner))
            return WalkResult::advance();
          // A call of a function of this module (the attention's, between the two norms of a
          // parallel block and the second's reader) writes through its buffer operands only:
          // none may be the norm's inputs. Another norm's call (the parallel block's other
          // norm of the same input) only reads its operands (its results are its own).
          if (auto c = dyn_cast<func::CallOp>(inner)) {
            auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(c, c.getCalleeAttr());
            if (fn && fn->hasAttr(decoda::kGPUNormAttr) && !fn.isExternal())
              return WalkResult::skip();
            if (!fn || fn.isExternal() ||
                llvm::any_of(c.getOperands(), [&](Value v) {
                  return isa<BaseMemRefType>(v.getType()) &&
                         roots.contains(decoda::gpu_contraction::viewRoot(v));
                }))
              ok = false;
            return WalkResult::skip();
          }
          auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
          if (!effects) {
            if (!inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
                !isa<scf::YieldOp, linalg::YieldOp>(inner) && inner->getNumRegions() == 0)
              ok = false; // unknown effects (a call)
            return WalkResult::advance();
          }
          SmallVector<MemoryEffects::EffectInstance> list;
          effects.getEffects(list);
          for (auto &fx : list) {
            if (!isa<MemoryEffects::Write>(fx.getEffect()))
              continue;
            Value target = fx.getValue();
            if (!target || roots.contains(decoda::gpu_contraction::viewRoot(target)))
              ok = false;
          }
          return WalkResult::advance();
        });
      }
      if (!ok)
        continue;
      auto fold = std::make_unique<NormFold>();
      fold->cfg = *nc;
      fold->call = call;
      fold->x = call.getOperand(0);
      if (nc->add)
        fold->branch = call.getOperand(1);
      fold->weight = call.getOperand(nc->add ? 2 : 1);
      if (nc->bias)
        fold->bias = call.getOperand(nc->add ? 3 : 2);
      fold->rows = rows;
      // Sizes of the normalised rows are x's.
      for (Operation *user : llvm::make_early_inc_range(normed.getUsers()))
        if (auto dim = dyn_cast<memref::DimOp>(user))
          dim.getSourceMutable().assign(fold->x);
      if (rows < 0) {
        // Dynamic rows: `results = if (M != 1) { the call } else { fresh buffers }`; at
        // M = 1 the readers' kernels compute the norm and the first fills the sum's buffer,
        // the normalised one is not read (the readers' dispatch takes its M = 1 kernels);
        // for every other M the call's results, which the readers' other branches read.
        normed = keepCallForOtherRows(call, fold->x, nc->add);
        if (nc->add)
          fold->sum = normed.getDefiningOp()->getResult(0);
        ++numNormsFoldedAtOneRow;
      } else if (nc->add) {
        // The sum's buffer, now the caller's; the first kernel fills it.
        OpBuilder b(call);
        auto type = cast<MemRefType>(call.getResult(0).getType());
        fold->sum = memref::AllocOp::create(b, call.getLoc(), type);
        call.getResult(0).replaceAllUsesWith(fold->sum);
      }
      folds[normed] = fold.get();
      storage.push_back(std::move(fold));
    }
  }
};
} // namespace
