//===- GPUFlashAttention.cpp - one flash-attention kernel per attention ---===//
//
// decoda-gpu-flash-attention (GPUPasses.td): the body of each function tagged
// decoda.gpu_attention (q [B, Tq, Hq, D], k [B, S, Hkv, D], v [B, S, Hkv, Dv], keyLen, then
// mask / segment_ids / sinks) becomes one kernel: for bf16/f16 storage with head dims that
// are multiples of 16 up to 128 the tensor-core kernel (TensorCoreKernel below: mma.sync
// m16n8k16, 64 rows per block, cp.async double buffering), otherwise the f32 SIMT kernel
// (below). The body of each function tagged decoda.int8_attention (the same arguments with
// q_scale, k_scale, v_scale after keyLen) becomes a quantisation launch and the integer
// tensor-core kernel (Int8Kernel below; a decode step's split form in three launches). The
// SIMT kernel:
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
// differ only in the order of the sums; the tensor-core kernel also rounds P to the storage
// type before P·V (it is an mma.sync operand), within u · max|v| of the exact result.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"
#include "decoda/Transforms/Passes.h"

#include "GPUIndependence.h"
#include "GPUMmaFragments.h"
#include "GPUWgmmaKernel.h"
#include "TaggedCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <cmath>
#include <limits>
#include <tuple>

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
constexpr int64_t kInnerUnroll = 4; // SIMT kernel: steps of its D and P·V loops unrolled
constexpr int64_t kSharedLimit = 48 * 1024;      // static shared memory per block
constexpr int64_t kTcRows = 64;                  // tensor-core kernel: 16 rows per warp
/// The SIMT split form of calls no tensor-core or INT8 kernel takes: up to this many 16-row
/// blocks per (batch, K/V head) and split (DeepSeek-V3's 128 heads of absorbed MLA at decode).
constexpr int64_t kSimtSplitRowBlocks = 8;
constexpr int64_t kTcMaxHeadDim = 128;           // Q fragments D / 4, accumulators Dv / 2 regs

/// The registers a thread of a `threads`-thread block may use when the block holds an SM alone
/// (sm_90: 64 Ki 32-bit registers, allocated per warp in units of 256, at most 255 a thread).
constexpr int64_t oneBlockRegisters(int64_t threads) {
  int64_t warps = (threads + 31) / 32;
  int64_t perThread = 65536 / (warps * 32) / 8 * 8;
  return perThread < 255 ? perThread : 255;
}
static_assert(oneBlockRegisters(288) == 224 && oneBlockRegisters(256) == 255);

/// Split-K decode attention (flash decoding) options.
/// targetBlocks / minKeys: the SIMT split form (a 16-row block; many small blocks so that
/// enough K/V bytes are in flight); tcTargetBlocks / tcMinKeys: the tensor-core and INT8 split
/// forms (64-row blocks).
struct SplitOptions {
  int64_t maxSplits, targetBlocks, minKeys, tcTargetBlocks, tcMinKeys;
};

struct Config : mlir::decoda::AttentionCallConfig {
  /// A decoda.int8_attention function (q, k, v, keyLen, q_scale, k_scale, v_scale, extras).
  bool int8 = false;
  /// The index of the first extra argument (mask / segment_ids / sinks).
  unsigned firstExtra() const { return int8 ? 7 : 4; }
  /// Split the keys over several blocks when all rows of a (batch, K/V head) fit one block (a
  /// decode step), partials combined by a second kernel: never, always (a static query count
  /// small enough), or decided at run time (a dynamic query count).
  enum class Split { Never, Always, AtRunTime } split = Split::Never;
  /// The tensor-core kernel takes the call (bf16/f16): its own split form takes 17 to 64 rows
  /// of a (batch, K/V head), and all of them up to 64 when the SIMT tiles do not fit.
  bool tcSplit = false;
  /// The SIMT kernel's tiles fit the static shared memory (its split form takes up to 16 rows).
  bool simtSplit = true;
  /// The static query count (ShapedType::kDynamic when it is a run-time dim).
  int64_t tq = 0;
  /// No tensor-core or INT8 kernel takes the call: the SIMT kernel alone, whose split form
  /// then takes up to kSimtSplitRowBlocks row blocks.
  bool simtOnly() const { return !int8 && !tcSplit; }
  /// The most rows of a (batch, K/V head) a split (decode) form takes: one SIMT block's 16
  /// always, up to 8 such blocks for SIMT-only calls when the keys split (decided at run time
  /// from the split count); the INT8 and tensor-core kernels' split forms keep their 64-row
  /// block.
  int64_t splitRows() const {
    return int8 || tcSplit ? kTcRows : kRows * kSimtSplitRowBlocks;
  }
  /// Split when the rows of a (batch, K/V head) fit a split form's block: a static query count
  /// decides now (SIMT-only calls over 16 rows at run time: split only when the keys give more
  /// than one split), a dynamic one at run time; never with a split count of 1.
  void decideSplit(int64_t maxSplits) {
    if (maxSplits <= 1) {
      split = Split::Never;
      return;
    }
    if (ShapedType::isDynamic(tq)) {
      split = Split::AtRunTime;
      return;
    }
    int64_t rows = tq * group;
    split = rows <= (simtOnly() ? kRows : splitRows()) ? Split::Always
            : rows <= splitRows()                     ? Split::AtRunTime
                                                      : Split::Never;
  }
  /// Value columns per lane and row; Vs is padded with zeros to 32 * cols columns.
  int64_t cols() const { return (dv + 31) / 32; }
  /// Row pitch of Vs (f32): 32 * cols() + 1, odd so that the chunked staging's stores of
  /// consecutive keys fall in different banks (its reads, consecutive columns of one key, are
  /// conflict-free at any pitch).
  int64_t vsPitch() const { return 32 * cols() + 1; }
  /// V is the first Dv columns of K (absorbed MLA: the latent is both, K = [c ; k_rope] and
  /// V = c; valueIsKeyPrefix): the SIMT kernel's P·V reads the K tile, no V tile is staged.
  bool vFromK = false;
  /// K is the concatenation of two buffers along its head dim (absorbed MLA's [c ; k_rope]):
  /// its first kSplitCol columns are the K operand, the rest the function's last operand
  /// (splitConcatenatedKey); 0 when K is one buffer. The SIMT kernel's chunk loads pick the
  /// buffer per chunk.
  int64_t kSplitCol = 0;
  int64_t sharedBytes() const {
    return 4 * (kRows * d + kKeys * (d + 1) + (vFromK ? 0 : kKeys * vsPitch()));
  }
  /// Elements of a 16-byte chunk of a K/V row: 8 bf16/f16, 4 f32.
  int64_t chunkElems() const { return 128 / elem.getIntOrFloatBitWidth(); }
  /// The SIMT kernel stages K and V tiles in 16-byte chunks (vector loads, ld.global.v4) when
  /// both head dims are whole chunks: every row of the identity-layout buffers then starts at a
  /// multiple of 16 bytes from their (16-byte aligned) base. Otherwise element by element.
  bool wideStage() const { return d % chunkElems() == 0 && dv % chunkElems() == 0; }

  /// Tensor-core kernel: two stages of K and V tiles of `keys` keys, rows padded by 8
  /// elements (16 bytes).
  int64_t tcSharedBytes(int64_t keys) const { return 2 * 2 * keys * (d + 8 + dv + 8); }
  /// Keys per K/V tile: 64 when both stages fit the static limit, else 32 (head dim 128:
  /// 64 keys would need 68 KiB).
  int64_t tcKeys() const { return tcSharedBytes(64) <= kSharedLimit ? 64 : 32; }
};

/// Why the tensor-core kernel does not take `c` ("" when it does).
std::string tensorCoreRefusal(const Config &c) {
  if (!c.elem.isBF16() && !c.elem.isF16())
    return "f32 storage (the tensor-core kernel takes bf16 and f16)";
  if (c.d % 16 || c.dv % 16)
    return "head dims " + std::to_string(c.d) + ", " + std::to_string(c.dv) +
           " are not multiples of 16 (mma.sync k16 slices and pairs of n8 fragments)";
  if (c.d > kTcMaxHeadDim || c.dv > kTcMaxHeadDim)
    return "head dims " + std::to_string(c.d) + ", " + std::to_string(c.dv) +
           " over 128 (Q fragments and accumulators would not fit in registers)";
  int64_t keys = c.tcKeys();
  if (c.tcSharedBytes(keys) > kSharedLimit || (keys * c.d / 8) % kThreads ||
      (keys * c.dv / 8) % kThreads)
    return "head dims " + std::to_string(c.d) + ", " + std::to_string(c.dv) +
           ": no K/V tile of 32 or 64 keys fits 48 KiB with its 16-byte chunks a multiple of " +
           std::to_string(kThreads) + " threads";
  return "";
}

bool identityMemRef(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && m.getLayout().isIdentity();
}

/// The configuration of a tagged function, or the reason the kernel does not handle it.
FailureOr<Config> readConfig(func::FuncOp fn, DictionaryAttr dict, const SplitOptions &split,
                             bool int8, std::string &why) {
  Config c;
  c.int8 = int8;
  if (failed(mlir::decoda::readAttentionCallAttrs(dict, c, why)))
    return failure();

  FunctionType type = fn.getFunctionType();
  unsigned expected = c.firstExtra() + c.mask + c.segmentIds + c.sinks;
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
  // (The SIMT kernel divides by its value columns, the tiles would be empty.)
  if (c.d == 0 || c.dv == 0) {
    why = "an empty head dim";
    return failure();
  }
  if (q.getDimSize(2) != c.numHeads || k.getDimSize(2) != c.numKvHeads ||
      v.getDimSize(2) != c.numKvHeads || out.getDimSize(2) != c.numHeads ||
      out.getDimSize(3) != c.dv) {
    why = "head counts or dims differ from the configuration";
    return failure();
  }
  if (int8) {
    for (unsigned i = 4; i < 7; ++i) {
      auto st = dyn_cast<MemRefType>(type.getInput(i));
      if (!st || st.getRank() != 0 || !st.getElementType().isF32()) {
        why = "unexpected quantisation scale operand (expected rank-0 f32 buffers)";
        return failure();
      }
    }
  }
  // A static query count whose rows (query, head of the group) fit one block: the grid would
  // be B * Hkv blocks only (8 for Llama-3.2-1B at batch 1), so the keys are split instead.
  c.tq = q.getDimSize(1);
  c.decideSplit(split.maxSplits);
  unsigned next = c.firstExtra();
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

using mlir::decoda::gpu_contraction::viewRoot;

/// Every row of `view` (a run of its unit-stride last dim) starts a multiple of `chunkElems`
/// elements from its root's base: static strides and offset multiples of it, dynamic strides
/// only over an identity-layout root whose rows are whole chunks (such strides are products of
/// the root's extents, its row length among them).
bool rowsStartOnChunks(Value view, int64_t chunkElems) {
  auto type = dyn_cast<MemRefType>(view.getType());
  if (!type)
    return false;
  auto [strides, offset] = type.getStridesAndOffset();
  if (strides.empty() || strides.back() != 1 || ShapedType::isDynamic(offset) ||
      offset % chunkElems != 0)
    return false;
  auto rootType = dyn_cast<MemRefType>(viewRoot(view).getType());
  bool wholeChunkRows = rootType && rootType.getLayout().isIdentity() && rootType.getRank() > 0 &&
                        !rootType.isDynamicDim(rootType.getRank() - 1) &&
                        rootType.getShape().back() % chunkElems == 0;
  return llvm::none_of(ArrayRef<int64_t>(strides).drop_back(), [&](int64_t st) {
    return ShapedType::isDynamic(st) ? !wholeChunkRows : st % chunkElems != 0;
  });
}

/// The one call of the tagged function `fn` in `module`, passing all its operands (at least
/// q, k, v and the key length); null when there is another use or none.
func::CallOp soleCall(func::FuncOp fn, ModuleOp module) {
  std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(fn, module);
  if (!uses || !llvm::hasSingleElement(*uses))
    return nullptr;
  auto call = dyn_cast<func::CallOp>(uses->begin()->getUser());
  if (!call || call.getNumOperands() != fn.getNumArguments() || call.getNumOperands() < 4)
    return nullptr;
  return call;
}

/// Operands of an attention call that are copies of views, read through the views instead:
///
/// - K and V are often copies of a transposed cache: ONNX GroupQueryAttention and Attention-23
///   keep caches as [B, H, S, D], decoda.attention reads [B, S, H, D], so the buffer is
///   `memref.alloc` + `linalg.transpose ins(cache) permutation = [0, 2, 1, 3]`, then the call,
///   then a dealloc: the call takes `memref.transpose` of the cache instead (any cache with a
///   unit-stride last dim);
/// - Q, K and V are often copies of strided views: the thirds of a fused projection's output
///   that no RoPE rewrote (GPT-2's c_attn: [B, S, H, D] views of rows of 3 · H · D),
///   `memref.alloc` + `memref.copy`: the call takes the view when every row of it starts at a
///   multiple of 16 bytes from its root's base (a unit last stride, static strides and offset
///   multiples of `chunkElems`, and dynamic strides only over an identity-layout root whose
///   rows are whole chunks: such strides are products of the root's extents, its row length
///   among them).
///
/// The kernels read Q, K and V through indexed loads and 16-byte copies with a unit-stride last
/// dim, which read such views as well; the copy (a read and a write of every element) goes.
/// K and V not when a kernel encodes TMA tensor maps of them (`kvByTma`: they need row-major
/// buffers); none when the buffer has another reader or anything between the copy and the
/// call may write the source. Returns how many operands were forwarded.
unsigned forwardCopiedOperands(func::FuncOp fn, ModuleOp module, bool kvByTma,
                               int64_t chunkElems, bool vUnread = false) {
  using decoda::gpu_independence::mayWriteBetween;
  func::CallOp call = soleCall(fn, module);
  if (!call)
    return 0;
  unsigned forwarded = 0;
  for (unsigned i : {0u, 1u, 2u}) {
    bool kv = i != 0;
    if (kv && kvByTma)
      continue;
    Value buffer = call.getOperand(i);
    auto alloc = buffer.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != call->getBlock())
      continue;
    // The one op that fills the buffer: a copy, or (K, V) a transpose of a cache.
    Operation *copy = nullptr;
    SmallVector<memref::DeallocOp> deallocs;
    bool other = false;
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      auto c = dyn_cast<memref::CopyOp>(user);
      auto t = dyn_cast<linalg::TransposeOp>(user);
      if (!copy && ((c && c.getTarget() == buffer) || (kv && t && t.getInit() == buffer)))
        copy = user;
      else if (auto d = dyn_cast<memref::DeallocOp>(user);
               d && d->getBlock() == call->getBlock() && call->isBeforeInBlock(d))
        deallocs.push_back(d);
      else if (user != call.getOperation() || use.getOperandNumber() != i)
        other = true;
    }
    if (other || !copy || copy->getBlock() != call->getBlock() || !copy->isBeforeInBlock(call))
      continue;
    auto transpose = dyn_cast<linalg::TransposeOp>(copy);
    if (transpose && transpose.getPermutation() != ArrayRef<int64_t>{0, 2, 1, 3})
      continue;
    Value src = transpose ? transpose.getInput() : cast<memref::CopyOp>(copy).getSource();
    auto srcType = dyn_cast<MemRefType>(src.getType());
    if (!srcType)
      continue;
    auto [strides, offset] = srcType.getStridesAndOffset();
    if (strides.empty() || strides.back() != 1)
      continue;
    Value root = viewRoot(src);
    // (A V the kernel does not read, valueIsKeyPrefix's, goes whatever its alignment.)
    if (!transpose && !(i == 2 && vUnread) &&
        (srcType.getShape() != cast<MemRefType>(buffer.getType()).getShape() ||
         !rowsStartOnChunks(src, chunkElems)))
      continue;
    if (mayWriteBetween(copy, call, root))
      continue;
    Value view = src;
    if (transpose) {
      OpBuilder b(call);
      AffineMap perm =
          AffineMap::getPermutationMap(ArrayRef<unsigned>{0, 2, 1, 3}, b.getContext());
      view = memref::TransposeOp::create(b, copy->getLoc(), src, AffineMapAttr::get(perm));
    }
    call->setOperand(i, view);
    fn.getBody().front().getArgument(i).setType(view.getType());
    copy->erase();
    for (memref::DeallocOp d : deallocs)
      d.erase();
    alloc.erase();
    ++forwarded;
  }
  if (forwarded)
    fn.setType(FunctionType::get(fn.getContext(), fn.getBody().front().getArgumentTypes(),
                                 fn.getResultTypes()));
  return forwarded;
}

/// V of the attention call is the first Dv columns of its K, as decoda-absorb-mla gives
/// absorbed MLA (K = [c ; k_rope], V = c as a slice of K): the call's V operand is a
/// `memref.subview` of its K operand at offset 0 with unit strides, or a buffer that one
/// `memref.copy` of such a subview filled in the call's block with nothing that may write K in
/// between. Static sizes must equal K's, the key count be K's or the call's key length (dynamic
/// batch sizes are those of the same tensor-level value: decoda.attention's K and V agree). The
/// SIMT kernel then stages K alone and reads P·V from its K tile: for absorbed MLA half the
/// bytes a key (576 + 512 → 576 numbers) and 37% less shared memory. It needs the padded value
/// columns (32 a lane group) within K's row.
bool valueIsKeyPrefix(func::FuncOp fn, ModuleOp module, const Config &c) {
  if (c.int8 || 32 * c.cols() > c.d)
    return false;
  func::CallOp call = soleCall(fn, module);
  if (!call)
    return false;
  Value k = call.getOperand(1), v = call.getOperand(2);
  Operation *copy = nullptr;
  if (auto alloc = v.getDefiningOp<memref::AllocOp>()) {
    for (Operation *user : v.getUsers()) {
      auto cp = dyn_cast<memref::CopyOp>(user);
      if (cp && cp.getTarget() == v && !copy)
        copy = cp;
      else if (user != call.getOperation() && !isa<memref::DeallocOp>(user))
        return false;
    }
    if (!copy || copy->getBlock() != call->getBlock() || !copy->isBeforeInBlock(call))
      return false;
    v = cast<memref::CopyOp>(copy).getSource();
  }
  auto sub = v.getDefiningOp<memref::SubViewOp>();
  if (!sub || sub.getSource() != k || !sub.hasZeroOffset() || !sub.hasUnitStride())
    return false;
  auto kType = cast<MemRefType>(k.getType());
  SmallVector<OpFoldResult> sizes = sub.getMixedSizes();
  if (sizes.size() != 4)
    return false;
  for (int64_t dim = 0; dim < 4; ++dim) {
    int64_t want = dim == 3 ? c.dv : kType.getDimSize(dim);
    if (std::optional<int64_t> size = getConstantIntValue(sizes[dim])) {
      if (*size != want)
        return false;
      continue;
    }
    if (!ShapedType::isDynamic(want))
      return false;
    if (dim == 1) {
      auto size = cast<Value>(sizes[dim]);
      auto dimOp = size.getDefiningOp<memref::DimOp>();
      std::optional<int64_t> at = dimOp ? dimOp.getConstantIndex() : std::nullopt;
      if (size != call.getOperand(3) && !(dimOp && dimOp.getSource() == k && at == 1))
        return false;
    }
  }
  return !copy || !decoda::gpu_independence::mayWriteBetween(copy, call, viewRoot(k));
}

/// K of the attention call is two buffers concatenated along the head dim, as absorbed MLA's
/// [c ; k_rope] (tensor.concat of the latent and the RoPE key) bufferizes: K is a buffer
/// (possibly through a memref.expand_shape that keeps its last dim) filled by two memref.copy
/// into the column ranges [0, s) and [s, D) of it, in the call's block, nothing writing either
/// source between its copy and the call. The call then takes the sources instead (the first as
/// K, the second appended as the function's last operand; through the same expand_shape) and
/// the copies go: per key the kernel reads D numbers instead of 3 D (the copy's read and write,
/// then the kernel's read). Only for the SIMT kernel with wide staging (each chunk in one
/// buffer: s and D - s whole 16-byte chunks, and every row of both sources starting on a
/// chunk). K's only other reader may be V's view (a forwarded subview of K, as valueIsKeyPrefix
/// leaves it), which then views the first source: its columns must lie there (unit strides).
/// Returns s, 0 when K is left as it is.
int64_t splitConcatenatedKey(func::FuncOp fn, ModuleOp module, const Config &c,
                             int64_t chunkElems) {
  func::CallOp call = soleCall(fn, module);
  if (!call)
    return 0;
  Value kOperand = call.getOperand(1);
  auto expand = kOperand.getDefiningOp<memref::ExpandShapeOp>();
  Value buffer = expand ? expand.getSrc() : kOperand;
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != call->getBlock())
    return 0;
  auto bufType = cast<MemRefType>(buffer.getType());
  int64_t rank = bufType.getRank(), width = bufType.getShape().back();
  // (An expand_shape may add unit dims before the last, as oneHead's [B, S, D] → [B, S, 1, D];
  // the source's last dim stays K's.)
  if (rank == 0 || width != c.d || (expand && expand.getType().getShape().back() != width))
    return 0;

  // The users of the buffer and of its expanded view: the two filling copies' subviews, the
  // call's K, V's view, deallocs after the call.
  struct Part {
    memref::SubViewOp view;
    memref::CopyOp copy;
    int64_t col, cols;
  };
  SmallVector<Part> parts;
  memref::SubViewOp vView;
  SmallVector<Operation *> deallocs;
  auto vViewOf = [&](Operation *user) {
    auto sv = dyn_cast<memref::SubViewOp>(user);
    return sv && call.getOperand(2) == sv.getResult() && sv->hasOneUse() ? sv : nullptr;
  };
  for (Operation *user : buffer.getUsers()) {
    if (user == expand.getOperation() || (!expand && user == call.getOperation()))
      continue;
    if (isa<memref::DeallocOp>(user) && user->getBlock() == call->getBlock() &&
        call->isBeforeInBlock(user)) {
      deallocs.push_back(user);
      continue;
    }
    if (auto sv = !expand ? vViewOf(user) : nullptr) {
      vView = sv;
      continue;
    }
    auto sv = dyn_cast<memref::SubViewOp>(user);
    auto copy = sv && sv->hasOneUse() ? dyn_cast<memref::CopyOp>(*sv->getUsers().begin())
                                      : nullptr;
    if (!copy || copy.getTarget() != sv.getResult() || copy->getBlock() != call->getBlock() ||
        !copy->isBeforeInBlock(call) || !sv.hasUnitStride())
      return 0;
    // All of K's rows, a range of its columns.
    SmallVector<OpFoldResult> offsets = sv.getMixedOffsets(), sizes = sv.getMixedSizes();
    std::optional<int64_t> col = getConstantIntValue(offsets.back());
    std::optional<int64_t> cols = getConstantIntValue(sizes.back());
    if (!col || !cols || static_cast<int64_t>(sizes.size()) != rank)
      return 0;
    for (int64_t dim = 0; dim + 1 < rank; ++dim) {
      if (!isZeroInteger(offsets[dim]))
        return 0;
      std::optional<int64_t> size = getConstantIntValue(sizes[dim]);
      if (bufType.isDynamicDim(dim) ? size || cast<Value>(sizes[dim]) != alloc.getDynamicSizes()
                                                  [bufType.getDynamicDimIndex(dim)]
                                    : size != bufType.getDimSize(dim))
        return 0;
    }
    parts.push_back({sv, copy, *col, *cols});
  }
  if (expand)
    for (Operation *user : expand->getUsers()) {
      if (user == call.getOperation())
        continue;
      if (auto sv = vViewOf(user))
        vView = sv;
      else
        return 0;
    }
  if (call.getOperand(1) == call.getOperand(2) || llvm::count(call.getOperands(), kOperand) != 1)
    return 0;
  if (parts.size() != 2)
    return 0;
  if (parts[0].col > parts[1].col)
    std::swap(parts[0], parts[1]);
  int64_t split = parts[0].cols;
  if (parts[0].col != 0 || parts[1].col != split || split + parts[1].cols != width ||
      split % chunkElems || parts[1].cols % chunkElems)
    return 0;
  // V's view moves to the first source: its columns must lie there.
  if (vView) {
    std::optional<int64_t> vCol = getConstantIntValue(vView.getMixedOffsets().back());
    if (!vView.hasUnitStride() || !vCol || *vCol + c.dv > split)
      return 0;
  }
  for (Part &part : parts) {
    Value src = part.copy.getSource();
    if (viewRoot(src) == buffer || !rowsStartOnChunks(src, chunkElems) ||
        decoda::gpu_independence::mayWriteBetween(part.copy, call, viewRoot(src)))
      return 0;
  }

  // The sources' types through the expand_shape K had.
  SmallVector<MemRefType> types;
  for (Part &part : parts) {
    auto srcType = cast<MemRefType>(part.copy.getSource().getType());
    if (!expand) {
      types.push_back(srcType);
      continue;
    }
    SmallVector<int64_t> shape(expand.getType().getShape());
    shape.back() = part.cols;
    FailureOr<MemRefType> type = memref::ExpandShapeOp::computeExpandedType(
        srcType, shape, expand.getReassociationIndices());
    if (failed(type))
      return 0;
    types.push_back(*type);
  }

  // The call takes the sources.
  OpBuilder b(call);
  SmallVector<Value> views;
  for (auto [part, type] : llvm::zip_equal(parts, types)) {
    Value src = part.copy.getSource();
    if (expand) {
      SmallVector<OpFoldResult> outShape = expand.getMixedOutputShape();
      outShape.back() = b.getIndexAttr(part.cols);
      src = memref::ExpandShapeOp::create(b, expand.getLoc(), type, src,
                                          expand.getReassociationIndices(), outShape);
    }
    views.push_back(src);
  }
  Block &entry = fn.getBody().front();
  call->setOperand(1, views[0]);
  entry.getArgument(1).setType(views[0].getType());
  if (vView) {
    auto newV = memref::SubViewOp::create(b, vView.getLoc(), views[0], vView.getMixedOffsets(),
                                          vView.getMixedSizes(), vView.getMixedStrides());
    call->setOperand(2, newV);
    entry.getArgument(2).setType(newV.getType());
    vView.erase();
  }
  call.getOperandsMutable().append(views[1]);
  entry.addArgument(views[1].getType(), fn.getLoc());
  fn.setType(FunctionType::get(fn.getContext(), entry.getArgumentTypes(), fn.getResultTypes()));
  for (Part &part : parts) {
    part.copy.erase();
    part.view.erase();
  }
  if (expand && expand->use_empty())
    expand.erase();
  for (Operation *d : deallocs)
    d->erase();
  alloc.erase();
  return split;
}

/// What both kernels share: the function's entry (output allocation, the guard against empty
/// launches), index and float helpers, the rows of a block, the key range a block can see, the
/// logits of one (row, key) and the final normalisation with sinks.
class KernelBase {
public:
  KernelBase(func::FuncOp fn, const Config &c, const SplitOptions &so, int64_t rows)
      : fn(fn), c(c), so(so), b(fn.getContext()), loc(fn.getLoc()), rows(rows) {}
  virtual ~KernelBase() = default;

  void emit() {
    Block &entry = mlir::decoda::clearTaggedBody(fn);
    b.setInsertionPointToStart(&entry);
    f32 = b.getF32Type();
    q = entry.getArgument(0);
    k = entry.getArgument(1);
    v = entry.getArgument(2);
    keyLen = entry.getArgument(3);
    k2 = c.kSplitCol ? entry.getArgument(entry.getNumArguments() - 1) : Value();
    if (c.int8) {
      qScaleArg = entry.getArgument(4);
      kScaleArg = entry.getArgument(5);
      vScaleArg = entry.getArgument(6);
    }
    unsigned next = c.firstExtra();
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
        emitAtRunTime(batch);
      }
    }
    func::ReturnOp::create(b, loc, out);
  }

protected:
  virtual void emitLaunch(Value batch) = 0;
  /// Flash decoding (the SIMT kernel's split form).
  virtual void emitSplit(Value batch) = 0;
  /// The query count is known at run time: split when the rows fit one block of the split
  /// form.
  virtual void emitAtRunTime(Value batch) {
    auto fits = scf::IfOp::create(b, loc, TypeRange{},
                                  cmp(arith::CmpIPredicate::ule, rowsTotal, idx(c.splitRows())),
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(fits.thenBlock()->getTerminator());
    emitSplit(batch);
    b.setInsertionPoint(fits.elseBlock()->getTerminator());
    emitLaunch(batch);
  }

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
  Value fmax(Value x, Value y) { return arith::MaximumFOp::create(b, loc, x, y); }
  Value fexp(Value x) { return math::ExpOp::create(b, loc, x); }
  /// e^(x - base) as FlashAttention computes it: 2^(x log2 e - base log2 e), one FMA (base
  /// log2 e is the same for a row's elements: computed once after CSE) and one
  /// `ex2.approx.ftz.f32` (MUFU), instead of math.exp's range reduction of x - base (about ten
  /// instructions an element, the kernels' issue slots being the attention's bound). Error:
  /// ex2.approx's 2^-22 relative, plus 2^-24 of |x log2 e| from the FMA's rounding (x is at
  /// most base, so the arguments are <= 0; 4e-6 relative at |x| = 70), far below the
  /// probabilities' rounding to bf16 / f16. -inf - anything gives 0, as e^(-inf) does.
  Value fexpDiff(Value x, Value base) { return fexpDiffScaled(x, fc(M_LOG2E), base); }
  /// e^(k x - base) given kLog2e = k log2 e: one FMA and one ex2 an element (the logit scale
  /// k folded into the FMA, see WgmmaKernel's softmax).
  ///
  /// With an additive mask (k = 1 then: no tile takes the folded form) the difference comes
  /// first, 2^((x - base) log2 e): a mask can make a whole row's logits huge (Hugging Face
  /// exports add the float's lowest value, -3.4e38, to padded keys, and a left-padded row's
  /// first queries see only those), where base log2 e overflows to infinity (x log2 e - inf
  /// is NaN, and a NaN key of one layer poisons every row of the next) or its rounding alone
  /// exceeds the exponent's range. x - base is exact for scores that close (Sterbenz), so
  /// such a row averages its values uniformly as the CPU lowering and ONNX Runtime do. One
  /// instruction more an element, on calls with a mask only.
  Value fexpDiffScaled(Value x, Value kLog2e, Value base) {
    Value arg;
    if (c.mask) {
      arg = fmul(arith::SubFOp::create(b, loc, x, base), kLog2e);
    } else {
      Value negBase = arith::NegFOp::create(b, loc, fmul(base, fc(M_LOG2E)));
      arg = math::FmaOp::create(b, loc, x, kLog2e, negBase);
    }
    return LLVM::CallIntrinsicOp::create(b, loc, f32,
                                         b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
                                         ValueRange{arg})
        .getResult(0);
  }
  Value negInf() { return fc(-std::numeric_limits<double>::infinity()); }
  Value widen(Value x) {
    return x.getType() == f32 ? x : arith::ExtFOp::create(b, loc, f32, x).getResult();
  }
  /// The exponent base of the online softmax: 0 while the max is still -inf.
  Value safe(Value m) {
    Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, negInf());
    return select(isNegInf, fc(0.0), m);
  }
  Value shuffle(Value x, Value offset, gpu::ShuffleMode mode) {
    return gpu::ShuffleOp::create(b, loc, x, offset, i32c(32), mode).getShuffleResult();
  }
  /// The butterfly reduction of `x` over lanes that differ in the bits of offsets `from`,
  /// from / 2, ..., 1 (16: a whole warp; 2: the 4 lanes of a quad).
  Value butterfly(Value x, bool isMax, int32_t from) {
    for (int32_t o = from; o >= 1; o /= 2) {
      Value y = shuffle(x, i32c(o), gpu::ShuffleMode::XOR);
      x = isMax ? fmax(x, y) : fadd(x, y);
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

  /// Keys any row of the block (rows p0 .. p0 + rows - 1) can see: [jlo, jhi).
  std::pair<Value, Value> keyRange() {
    Value lastRow = sub(mins(add(p0, idx(rows)), rowsTotal), idx(1));
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
    return {jlo, jhi};
  }

  /// Whether every valid row of the block sees every key of [j0, j0 + count) (all below
  /// `jEnd`), so that its logits need no mask: a block-uniform i1, or null where masks always
  /// apply (an additive mask, segment ids, chunks). Causal: the last key is at most the first
  /// row's position; window: the last valid row is within the window of the first key. Rows
  /// past the end need no mask either: they read a valid row's (or zero-filled) queries, stay
  /// finite, and are never stored. Kernels branch on it once per tile (FlashAttention masks
  /// only the tiles on the diagonal and at the end): the per-element index compares and
  /// selects of the mask are integer work on the same pipes as the softmax's max.
  Value tileUnmasked(Value j0, int64_t count, Value jEnd) {
    if (c.mask || c.segmentIds || c.chunk)
      return Value();
    Value posLo = add(qOff, div(p0, c.group));
    Value posHi = add(qOff, div(sub(mins(add(p0, idx(rows)), rowsTotal), idx(1)), c.group));
    Value jNext = add(j0, idx(count));
    Value full = cmp(arith::CmpIPredicate::sle, jNext, jEnd);
    if (c.causal)
      full = andi(full, cmp(arith::CmpIPredicate::sle, jNext, add(posLo, idx(1))));
    if (c.window)
      full = andi(full, cmp(arith::CmpIPredicate::slt, sub(posHi, j0), idx(*c.window)));
    return full;
  }

  /// Computes the logits of a tile with `masked(...)` (logit per element), or, where
  /// `unmasked` (tileUnmasked) holds at run time, with `plain` (scaledLogit per element): one
  /// scf.if on the block-uniform flag yielding every value.
  SmallVector<Value> tileLogits(Value unmasked, int64_t count,
                                function_ref<SmallVector<Value>(bool masked)> compute) {
    if (!unmasked)
      return compute(true);
    auto branch = scf::IfOp::create(b, loc, SmallVector<Type>(count, f32), unmasked,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    scf::YieldOp::create(b, loc, compute(false));
    b.setInsertionPointToStart(&branch.getElseRegion().front());
    scf::YieldOp::create(b, loc, compute(true));
    return SmallVector<Value>(branch.getResults());
  }

  /// The logit of raw score `s` of a key its row sees: scale and softcap.
  Value scaledLogit(Value s) {
    Value x = fmul(s, logitScale ? logitScale : fc(c.scale));
    if (c.softcap && !std::isinf(*c.softcap)) {
      Value t = math::TanhOp::create(b, loc, fmul(x, fc(1.0 / *c.softcap)));
      x = fmul(fc(*c.softcap), t);
    }
    return x;
  }

  /// The logit of raw score `s` of row `rw` and key `j` (`inRange`: j < jEnd): scale, softcap,
  /// additive mask, and -inf where the key is not visible (causal, window, chunk, segments).
  Value logit(Value s, const Row &rw, Value j, Value inRange) {
    Value jSafe = select(inRange, j, idx(0));
    Value x = scaledLogit(s);
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
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&segIf.getThenRegion().front());
        Value sj = memref::LoadOp::create(b, loc, seg, ValueRange{bIdx, jSafe});
        Value sp = memref::LoadOp::create(b, loc, seg, ValueRange{bIdx, rw.pos});
        scf::YieldOp::create(b, loc, cmp(arith::CmpIPredicate::eq, sj, sp));
        b.setInsertionPointToStart(&segIf.getElseRegion().front());
        scf::YieldOp::create(b, loc,
                             arith::ConstantOp::create(b, loc, b.getBoolAttr(false)).getResult());
      }
      visible = segIf.getResult(0);
    }
    return select(visible, x, negInf());
  }

  /// The factor of a row's accumulator at the end, from its running max `mRow` and its summed
  /// denominator `den`: with sinks M = max(m, sink), num = e^(m - safe(M)), den' = den·num +
  /// e^(sink - safe(M)); num / den', 0 for a row without any weight.
  Value rowScale(const Row &rw, Value mRow, Value den) {
    Value num = fc(1.0);
    if (c.sinks) {
      Value sink = widen(memref::LoadOp::create(b, loc, sinks, ValueRange{rw.head}));
      Value big = safe(fmax(mRow, sink));
      num = fexpDiff(mRow, big);
      den = fadd(fmul(den, num), fexpDiff(sink, big));
    }
    Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, den, fc(0.0));
    return select(empty, fc(0.0), arith::DivFOp::create(b, loc, num, select(empty, fc(1.0), den)));
  }

  /// Block-level values every launch sets: thread, lane, first row, K/V head, batch, offset.
  void readIds(gpu::LaunchOp launch) {
    tid = launch.getThreadIds().x;
    warp = div(tid, 32);
    lane = rem(tid, 32);
    // Causal: the last row blocks see the most keys. Blocks start in the order of their x
    // index, so block x takes row block gridX - 1 - x: the longest start first and the tail
    // of the grid is the short ones. (Split forms set p0 to 0 themselves.)
    Value rowBlock = launch.getBlockIds().x;
    if (c.causal)
      rowBlock = sub(sub(launch.getGridSize().x, idx(1)), rowBlock);
    p0 = mul(rowBlock, rows);
    kvh = launch.getBlockIds().y;
    bIdx = launch.getBlockIds().z;
    qOff = sub(keyLen, tq);
  }

  gpu::LaunchOp createLaunch(ArrayRef<Type> workgroup, Value gridX = nullptr,
                             Value dynamicSharedBytes = nullptr, int64_t threads = kThreads) {
    if (!gridX)
      gridX = div(add(rowsTotal, idx(rows - 1)), rows);
    Value one = idx(1);
    return gpu::LaunchOp::create(b, loc, gridX, idx(c.numKvHeads), batchDim(), idx(threads),
                                 one, one, dynamicSharedBytes,
                                 /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
                                 TypeRange(workgroup));
  }
  Value batchDim() { return memref::DimOp::create(b, loc, q, 0); }

  func::FuncOp fn;
  const Config &c;
  const SplitOptions &so;
  OpBuilder b;
  Location loc;
  int64_t rows; // (query, head) rows per block
  Type f32;
  Value q, k, v, keyLen, mask, seg, sinks, out, tq, rowsTotal;
  Value k2; // K's columns from c.kSplitCol on (null when K is one buffer)
  Value qScaleArg, kScaleArg, vScaleArg; // INT8: the rank-0 scale buffers
  // Inside the launch.
  Value tid, warp, lane, p0, kvh, bIdx, qOff;
  Value logitScale; // the scale of the raw scores when not the constant c.scale (INT8)
};

/// The f32 SIMT kernel (any storage type, head dims within the shared-memory limit).
class SimtKernel : public KernelBase {
public:
  SimtKernel(func::FuncOp fn, const Config &c, const SplitOptions &so, int64_t rows = kRows)
      : KernelBase(fn, c, so, rows) {}

protected:
  /// The split count of flash decoding, at run time: max(1, min(ceil(target-blocks / (B
  /// Hkv)), ceil(keys / min-keys), max-splits)), with the SIMT split form's target and
  /// minimum (`tensorCoreForm` false) or the tensor-core and INT8 split forms' ones.
  Value splitCount(Value batch, bool tensorCoreForm, Value rowBlocks = nullptr) {
    Value bh = mul(batch, c.numKvHeads);
    if (rowBlocks)
      bh = arith::MulIOp::create(b, loc, bh, rowBlocks);
    int64_t target = tensorCoreForm ? so.tcTargetBlocks : so.targetBlocks;
    int64_t minKeys = tensorCoreForm ? so.tcMinKeys : so.minKeys;
    Value want = arith::CeilDivUIOp::create(b, loc, idx(target), bh);
    Value byKeys = arith::CeilDivUIOp::create(b, loc, keyLen, idx(minKeys));
    return maxs(idx(1), mins(mins(want, byKeys), idx(so.maxSplits)));
  }

  /// The split form's grid x: the split count, times the row blocks when there are several.
  Value splitGrid() {
    if (!splitting)
      return Value();
    return rowBlocks ? arith::MulIOp::create(b, loc, splits, rowBlocks).getResult() : splits;
  }

  /// Split `split`'s share of the visible keys [jlo, jhi): whole tiles of `tileKeys` keys, the
  /// last splits' shares possibly empty.
  std::pair<Value, Value> splitShare(Value jlo, Value jhi, Value split, int64_t tileKeys) {
    Value range = maxs(sub(jhi, jlo), idx(0));
    Value perSplit = arith::CeilDivUIOp::create(b, loc, range, splits);
    Value chunk = mul(arith::CeilDivUIOp::create(b, loc, perSplit, idx(tileKeys)), tileKeys);
    Value lo = add(jlo, arith::MulIOp::create(b, loc, split, chunk));
    return {lo, mins(jhi, add(lo, chunk))};
  }

  /// work[b][kvh][split][row][Dv + 2] f32 for `wsRows` rows a split (`wsRowsDyn` when set):
  /// acc, then m and l.
  void allocWork(Value batch) {
    Value bh = mul(batch, c.numKvHeads);
    Value size = mul(timesWsRows(arith::MulIOp::create(b, loc, bh, splits)), c.dv + 2);
    work = memref::AllocOp::create(b, loc, MemRefType::get({ShapedType::kDynamic}, f32),
                                   ValueRange{size});
  }

  /// Loads of a staging group, issued before their stores.
  static constexpr int64_t kCopyGroup = 8;
  /// Wide staging: the most registers a thread spends on the 16-byte chunks it carries over
  /// the key loop (the next tile) and on its accumulators together.
  static constexpr int64_t kCarryRegisters = 96;
  /// Wide staging of a tile that is not carried: the loads of this many chunks, then their
  /// stores.
  static constexpr int64_t kUncarriedGroup = 4;

  /// Stages `count` elements in shared memory `dst`, thread tid taking e = tid + 128 s (s = 0,
  /// 1, ...): `load(e, inRange)` gives the value (0 where not loaded; `inRange`, e < count, is
  /// null where always true) and its place in `dst`. Unrolled, the loads of every group of
  /// kCopyGroup steps issued before their stores: a loop of load-then-store waits for each load
  /// in turn (in-order issue), one memory latency per element.
  void stageShare(int64_t count, Value dst,
                  function_ref<std::pair<Value, SmallVector<Value>>(Value e, Value inRange)> load) {
    int64_t steps = (count + kThreads - 1) / kThreads;
    for (int64_t g = 0; g < steps; g += kCopyGroup) {
      SmallVector<std::tuple<Value, SmallVector<Value>, Value>> pending;
      for (int64_t st = g; st < std::min(g + kCopyGroup, steps); ++st) {
        Value e = add(tid, idx(st * kThreads));
        Value inRange =
            (st + 1) * kThreads > count ? cmp(arith::CmpIPredicate::ult, e, idx(count)) : Value();
        auto [x, at] = load(e, inRange);
        pending.emplace_back(x, at, inRange);
      }
      for (auto &[x, at, inRange] : pending) {
        if (!inRange) {
          memref::StoreOp::create(b, loc, x, dst, at);
          continue;
        }
        auto inside = scf::IfOp::create(b, loc, TypeRange{}, inRange, false);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&inside.getThenRegion().front());
        memref::StoreOp::create(b, loc, x, dst, at);
      }
    }
  }

  int64_t chunkElems() const { return c.chunkElems(); }
  bool wideStage() const { return c.wideStage(); } // otherwise stageShare, element by element

  /// The chunks a thread stages of one 32-key tile: for K then V (`width` D or Dv), chunk
  /// ch = tid + 128 s is key ch / (width / w) of the tile, columns w (ch % (width / w)) ..
  /// + w - 1 (consecutive threads, consecutive 16 bytes of a row: coalesced); `inRange` is
  /// null where every thread has chunk s.
  struct Chunk {
    bool isV;
    Value jj, col, inRange;
  };
  SmallVector<Chunk> tileChunks() {
    SmallVector<Chunk> out;
    int64_t w = chunkElems();
    for (bool isV : {false, true}) {
      if (isV && c.vFromK)
        break;
      int64_t perRow = (isV ? c.dv : c.d) / w, chunks = kKeys * perRow;
      for (int64_t s = 0; s * kThreads < chunks; ++s) {
        Value ch = add(tid, idx(s * kThreads));
        Value inRange;
        if ((s + 1) * kThreads > chunks) {
          inRange = cmp(arith::CmpIPredicate::ult, ch, idx(chunks));
          ch = mins(ch, idx(chunks - 1)); // threads past the end load the last chunk again
        }
        out.push_back({isV, div(ch, perRow), mul(rem(ch, perRow), w), inRange});
      }
    }
    return out;
  }

  /// Stages the chunks of tile j0 that are not carried over the key loop (wide staging of
  /// tiles over the carry budget), K's then V's (not with vFromK): a loop over groups of
  /// kUncarriedGroup chunks a thread, each group's chunk indices computed in the iteration
  /// and its loads issued before its stores. (Computed once before the key loop, as the
  /// carried chunks' are, their 2 · 18 indices stayed live across it: absorbed MLA's kernel
  /// spilled at 255 registers once its V tile went.)
  void stageUncarried(Value j0, Value jLast, Value jEnd, Value ks, Value vs) {
    int64_t w = chunkElems();
    for (bool isV : {false, true}) {
      if (isV && c.vFromK)
        break;
      int64_t perRow = (isV ? c.dv : c.d) / w, chunks = kKeys * perRow;
      int64_t steps = (chunks + kThreads - 1) / kThreads;
      int64_t groups = (steps + kUncarriedGroup - 1) / kUncarriedGroup;
      auto loop = scf::ForOp::create(b, loc, idx(0), idx(groups), idx(1));
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      Value first = add(tid, mul(loop.getInductionVar(), kUncarriedGroup * kThreads));
      SmallVector<Chunk> group;
      for (int64_t u = 0; u < kUncarriedGroup; ++u) {
        Value ch = add(first, idx(u * kThreads));
        Value inRange;
        // Chunks past the tile (the last group's, when the steps are not a multiple of the
        // group) load its last chunk again and store nothing.
        if (steps % kUncarriedGroup || chunks % kThreads) {
          inRange = cmp(arith::CmpIPredicate::ult, ch, idx(chunks));
          ch = mins(ch, idx(chunks - 1));
        }
        group.push_back({isV, div(ch, perRow), mul(rem(ch, perRow), w), inRange});
      }
      storeTileChunks(group, loadTileChunks(group, j0, jLast), j0, jEnd, ks, vs);
    }
  }

  /// The 16-byte loads of tile j0 (keys j0 .. j0 + 31, each clamped to `jLast`, a key of the
  /// cache, so that every load is issued unconditionally): the raw vectors, one per chunk. No
  /// use of them here: a kernel issues them and goes on (prefetch) until storeTileChunks.
  SmallVector<Value> loadTileChunks(ArrayRef<Chunk> chunks, Value j0, Value jLast) {
    auto vt = VectorType::get({chunkElems()}, c.elem);
    SmallVector<Value> regs;
    auto load = [&](Value from, Value j, Value col) -> Value {
      return vector::LoadOp::create(b, loc, vt, from, ValueRange{bIdx, j, kvh, col},
                                    /*nontemporal=*/false, llvm::MaybeAlign(16));
    };
    for (const Chunk &ch : chunks) {
      Value j = mins(add(j0, ch.jj), jLast);
      if (ch.isV || !c.kSplitCol) {
        regs.push_back(load(ch.isV ? v : k, j, ch.col));
        continue;
      }
      // K in two buffers: the chunk's columns lie in one of them (the split is a whole chunk).
      auto from = scf::IfOp::create(b, loc, TypeRange{vt},
                                    cmp(arith::CmpIPredicate::ult, ch.col, idx(c.kSplitCol)),
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&from.getThenRegion().front());
      scf::YieldOp::create(b, loc, load(k, j, ch.col));
      b.setInsertionPointToStart(&from.getElseRegion().front());
      scf::YieldOp::create(b, loc, load(k2, j, sub(ch.col, idx(c.kSplitCol))));
      regs.push_back(from.getResult(0));
    }
    return regs;
  }

  /// Stores the chunks of tile j0 in Ks / Vs as f32, zero for keys at or past `jEnd` (their
  /// loads read a clamped key).
  void storeTileChunks(ArrayRef<Chunk> chunks, ValueRange regs, Value j0, Value jEnd, Value ks,
                       Value vs) {
    int64_t w = chunkElems();
    auto ft = VectorType::get({w}, f32);
    Value zero = arith::ConstantOp::create(b, loc, ft, DenseElementsAttr::get(ft, 0.0f));
    for (auto [ch, x] : llvm::zip_equal(chunks, regs)) {
      Value xf = c.elem == f32 ? x : arith::ExtFOp::create(b, loc, ft, x).getResult();
      Value inside = cmp(arith::CmpIPredicate::ult, add(j0, ch.jj), jEnd);
      xf = select(inside, xf, zero);
      auto storeAll = [&] {
        for (int64_t e = 0; e < w; ++e)
          memref::StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, xf, e),
                                  ch.isV ? vs : ks, ValueRange{ch.jj, add(ch.col, idx(e))});
      };
      if (!ch.inRange) {
        storeAll();
        continue;
      }
      auto guard = scf::IfOp::create(b, loc, TypeRange{}, ch.inRange, false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&guard.getThenRegion().front());
      storeAll();
    }
  }

  /// Flash decoding: the keys of each (batch, K/V head) are split over `splits` blocks (chosen
  /// at run time from the key count and the grid size), each leaving its rows' running max,
  /// denominator and unnormalised accumulator in a workspace; a second kernel combines them.
  void emitSplit(Value batch) override {
    // SIMT-only calls whose rows may exceed one block: ceil(rows / 16) row blocks a split,
    // the split count aiming at the target over all of them.
    rowBlocks = nullptr;
    wsRowsDyn = nullptr;
    if (multiBlockSplit()) {
      rowBlocks = arith::CeilDivUIOp::create(b, loc, rowsTotal, idx(kRows));
      wsRowsDyn = mul(rowBlocks, kRows);
    }
    splits = splitCount(batch, /*tensorCoreForm=*/false, rowBlocks);
    wsRows = kRows;
    allocWork(batch);
    splitting = true;
    int64_t savedRows = rows;
    rows = kRows;
    SimtKernel::emitLaunch(batch);
    emitCombine(batch);
    rows = savedRows;
    splitting = false;
    rowBlocks = nullptr;
    wsRowsDyn = nullptr;
    memref::DeallocOp::create(b, loc, work);
  }

  /// The SIMT split form may see more than one row block: a SIMT-only call whose rows are not
  /// known to be at most 16.
  bool multiBlockSplit() const {
    return c.simtOnly() && (ShapedType::isDynamic(c.tq) || c.tq * c.group > kRows);
  }

  /// A SIMT-only call whose split is decided at run time: the split form for up to 16 rows,
  /// and for up to 128 when the keys give more than one split; the one-pass kernel otherwise.
  void emitAtRunTime(Value batch) override {
    if (!c.simtOnly())
      return KernelBase::emitAtRunTime(batch);
    Value blocksOfRows = arith::CeilDivUIOp::create(b, loc, rowsTotal, idx(kRows));
    Value many = cmp(arith::CmpIPredicate::ugt,
                     splitCount(batch, /*tensorCoreForm=*/false, blocksOfRows), idx(1));
    Value fits = cmp(arith::CmpIPredicate::ule, rowsTotal, idx(c.splitRows()));
    Value one = cmp(arith::CmpIPredicate::ule, rowsTotal, idx(kRows));
    auto ifSplit = scf::IfOp::create(b, loc, TypeRange{},
                                     arith::OrIOp::create(b, loc, one, andi(fits, many)),
                                     /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(ifSplit.thenBlock()->getTerminator());
    emitSplit(batch);
    b.setInsertionPoint(ifSplit.elseBlock()->getTerminator());
    emitLaunch(batch);
  }

  /// The flat workspace index of (row r of the block, split) entry `e`.
  Value workIndex(Value split, Value r, Value e) { return splitIndex(split, r, c.dv + 2, e); }

  /// The flat index of entry `e` of row `r` (< wsRows) of split `split` in a workspace
  /// [B][Hkv][splits][wsRows][width].
  Value splitIndex(Value split, Value r, int64_t width, Value e) {
    Value bk = add(mul(bIdx, c.numKvHeads), kvh);
    Value bs = add(arith::MulIOp::create(b, loc, bk, splits), split);
    return add(mul(add(timesWsRows(bs), r), width), e);
  }
  /// x times the workspace's rows a split.
  Value timesWsRows(Value x) {
    return wsRowsDyn ? arith::MulIOp::create(b, loc, x, wsRowsDyn).getResult() : mul(x, wsRows);
  }

  /// The combining kernel of a split form: grid (ceil(rows · Dv / 128), Hkv, B) for the rows
  /// of a (batch, K/V head) (at most wsRows), body(r, col, row) for each (row, value column),
  /// a thread each (consecutive threads, consecutive columns).
  void emitCombineLaunch(Value batch, function_ref<void(Value, Value, const Row &)> body) {
    Value one = idx(1);
    Value elems = mul(rowsTotal, c.dv);
    Value blocks = arith::CeilDivUIOp::create(b, loc, elems, idx(kThreads));
    auto launch = gpu::LaunchOp::create(b, loc, blocks, idx(c.numKvHeads), batch, idx(kThreads),
                                        one, one);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    tid = launch.getThreadIds().x;
    p0 = idx(0);
    kvh = launch.getBlockIds().y;
    bIdx = launch.getBlockIds().z;
    qOff = sub(keyLen, tq);
    Value e = add(mul(launch.getBlockIds().x, kThreads), tid);
    auto inside = scf::IfOp::create(b, loc, TypeRange{},
                                    cmp(arith::CmpIPredicate::ult, e, elems), false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&inside.getThenRegion().front());
      Value r = div(e, c.dv), col = rem(e, c.dv);
      body(r, col, row(r));
    }
    gpu::TerminatorOp::create(b, loc);
  }

  /// Splits the combining kernel reads at once: its loops over the splits step by this many,
  /// all loads of a step issued before any is used (one memory latency a step instead of one
  /// a split).
  static constexpr int64_t kCombineUnroll = 8;

  /// A loop over the splits in steps of kCombineUnroll with loop-carried `init`: `body(sp,
  /// ok, carried)` gets the step's split indices (clamped to the last split: past the end a
  /// load reads that split again, to be discarded) and whether each is a split.
  scf::ForOp forSplitSteps(
      ValueRange init,
      function_ref<SmallVector<Value>(ArrayRef<Value>, ArrayRef<Value>, ValueRange)> body) {
    auto loop = scf::ForOp::create(b, loc, idx(0), splits, idx(kCombineUnroll), init);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value last = sub(splits, idx(1));
    SmallVector<Value> sp, ok;
    for (int64_t u = 0; u < kCombineUnroll; ++u) {
      Value s = add(loop.getInductionVar(), idx(u));
      ok.push_back(cmp(arith::CmpIPredicate::ult, s, splits));
      sp.push_back(u == 0 ? s : mins(s, last));
    }
    scf::YieldOp::create(b, loc, body(sp, ok, loop.getRegionIterArgs()));
    return loop;
  }

  /// out[b, query, head, col] = sum_s e^(m_s - M) acc_s / sum_s e^(m_s - M) l_s (M the max of
  /// the m_s), one thread per (row, column) of the split form's rows. The max, then the sums
  /// in split order (the same operations as one split at a time: a split past the end leaves
  /// the running values as they are), kCombineUnroll splits a step.
  void emitCombine(Value batch) {
    emitCombineLaunch(batch, [&](Value r, Value col, const Row &rw) {
      auto maxLoop = forSplitSteps(
          ValueRange{negInf()}, [&](ArrayRef<Value> sp, ArrayRef<Value> ok, ValueRange it) {
            SmallVector<Value> ms;
            for (Value s : sp)
              ms.push_back(memref::LoadOp::create(b, loc, work, workIndex(s, r, idx(c.dv))));
            Value m = it[0];
            for (auto [x, valid] : llvm::zip_equal(ms, ok))
              m = select(valid, fmax(m, x), m);
            return SmallVector<Value>{m};
          });
      Value mAll = maxLoop.getResult(0);
      Value base = safe(mAll);
      auto sumLoop = forSplitSteps(
          ValueRange{fc(0.0), fc(0.0)},
          [&](ArrayRef<Value> sp, ArrayRef<Value> ok, ValueRange it) {
            SmallVector<Value> ms, ls, as;
            for (Value s : sp) {
              ms.push_back(memref::LoadOp::create(b, loc, work, workIndex(s, r, idx(c.dv))));
              ls.push_back(memref::LoadOp::create(b, loc, work, workIndex(s, r, idx(c.dv + 1))));
              as.push_back(memref::LoadOp::create(b, loc, work, workIndex(s, r, col)));
            }
            Value l = it[0], a = it[1];
            for (int64_t u = 0; u < kCombineUnroll; ++u) {
              Value w = fexpDiff(ms[u], base);
              l = select(ok[u], math::FmaOp::create(b, loc, w, ls[u], l), l);
              a = select(ok[u], math::FmaOp::create(b, loc, w, as[u], a), a);
            }
            return SmallVector<Value>{l, a};
          });
      Value y = fmul(sumLoop.getResult(1), rowScale(rw, mAll, sumLoop.getResult(0)));
      if (c.elem != f32)
        y = arith::TruncFOp::create(b, loc, c.elem, y);
      memref::StoreOp::create(b, loc, y, out, ValueRange{bIdx, rw.query, rw.head, col});
    });
  }

  void emitLaunch(Value) override {
    MLIRContext *ctx = b.getContext();
    auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto qsType = MemRefType::get({kRows, c.d}, f32, MemRefLayoutAttrInterface(), shared);
    auto ksType = MemRefType::get({kKeys, c.d + 1}, f32, MemRefLayoutAttrInterface(), shared);
    auto vsType = MemRefType::get({kKeys, c.vsPitch()}, f32, MemRefLayoutAttrInterface(), shared);
    // Tiles within the 48 KiB of static shared memory are workgroup attributions; larger ones
    // (head dims over about 120 in f32, over 256 in bf16/f16: Gemma's 256 in f32, absorbed
    // MLA's 576 / 512) are views of the dynamic shared memory, which the target allows up to
    // max-shared-bytes (the runtime raises the kernel's limit at its first launch).
    // With V the first Dv columns of K (vFromK), P·V reads Ks and there is no Vs.
    const bool dynamicTiles = c.sharedBytes() > kSharedLimit;
    SmallVector<Type> tileTypes{qsType, ksType};
    if (!c.vFromK)
      tileTypes.push_back(vsType);
    gpu::LaunchOp launch =
        dynamicTiles
            ? createLaunch({}, splitGrid(),
                           arith::ConstantIntOp::create(b, loc, b.getI32Type(), c.sharedBytes())
                               .getResult())
            : createLaunch(tileTypes, splitGrid());
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value qs, ks, vs;
    if (dynamicTiles) {
      // Qs, Ks, Vs back to back (byte offsets multiples of 16: D, D + 1 and the pitch are
      // counted in f32 rows of 16 and 32).
      auto dynType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                     MemRefLayoutAttrInterface(), shared);
      Value dyn = gpu::DynamicSharedMemoryOp::create(b, loc, dynType);
      int64_t ksAt = 4 * kRows * c.d, vsAt = ksAt + 4 * kKeys * (c.d + 1);
      qs = memref::ViewOp::create(b, loc, qsType, dyn, idx(0), ValueRange{});
      ks = memref::ViewOp::create(b, loc, ksType, dyn, idx(ksAt), ValueRange{});
      if (!c.vFromK)
        vs = memref::ViewOp::create(b, loc, vsType, dyn, idx(vsAt), ValueRange{});
    } else {
      qs = launch.getWorkgroupAttributions()[0];
      ks = launch.getWorkgroupAttributions()[1];
      if (!c.vFromK)
        vs = launch.getWorkgroupAttributions()[2];
    }
    readIds(launch);
    // Split: every block has the same (only) 16 rows and its share of the keys; over several
    // row blocks, block x is row block x % rowBlocks of split x / rowBlocks (the row blocks of
    // a split, which read the same keys, side by side in the grid).
    Value split = launch.getBlockIds().x;
    if (splitting && rowBlocks) {
      p0 = mul(arith::RemUIOp::create(b, loc, split, rowBlocks), kRows);
      split = arith::DivUIOp::create(b, loc, split, rowBlocks);
    } else if (splitting) {
      p0 = idx(0);
    }

    auto [jlo, jhi] = keyRange();
    if (splitting)
      std::tie(jlo, jhi) = splitShare(jlo, jhi, split, kKeys);
    Value jEnd = jhi;

    // Wide staging: the first tile's 16-byte loads go out before the queries are staged (an
    // empty range loads nothing: its keys need not exist), each later tile's while the one
    // before is computed; registers carry them over the loop. A tile is carried when its
    // chunks and the accumulators fit a budget of kCarryRegisters (4 registers a chunk, 4 rows
    // x cols accumulators), as every tile within the static 48 KiB does (at most 16 chunks with
    // 16 accumulators); a larger one (head dims over 128 in f32, over 256 in bf16/f16: dynamic
    // shared memory) is loaded in the iteration itself by a loop over groups of
    // kUncarriedGroup chunks (stageUncarried: absorbed MLA 163 registers a thread, 255 with
    // spills when the chunks' indices were computed before the key loop). Carrying part of
    // such a tile does not pay: ptxas hoists the iteration's loads over the carried ones and
    // spilled at 255 registers (absorbed MLA, 34 chunks and 64 accumulators a thread: 424
    // bytes with all carried, 4 to 44 with 8 or 16).
    bool wide = wideStage();
    SmallVector<Chunk> chunks;
    SmallVector<Value> firstTile;
    bool carried = true;
    if (wide) {
      int64_t perThread = 0;
      for (int64_t width : {c.d, c.vFromK ? int64_t(0) : c.dv})
        perThread += (kKeys * width / chunkElems() + kThreads - 1) / kThreads;
      carried = 4 * perThread + kRowsPerWarp * c.cols() <= kCarryRegisters;
      if (carried)
        chunks = tileChunks();
      auto vt = VectorType::get({chunkElems()}, c.elem);
      SmallVector<Type> types(chunks.size(), vt);
      if (!chunks.empty()) {
        auto any = scf::IfOp::create(b, loc, types, cmp(arith::CmpIPredicate::slt, jlo, jhi),
                                     /*withElseRegion=*/true);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&any.getThenRegion().front());
        scf::YieldOp::create(b, loc, loadTileChunks(chunks, jlo, sub(jhi, idx(1))));
        b.setInsertionPointToStart(&any.getElseRegion().front());
        Value zero = arith::ConstantOp::create(b, loc, vt, DenseElementsAttr::get(vt, 0.0f));
        scf::YieldOp::create(b, loc, SmallVector<Value>(chunks.size(), zero));
        firstTile.assign(any.getResults().begin(), any.getResults().end());
      }
      // Vs's padding columns (Dv .. 32 cols - 1) are read by P·V: zero once (the loop's first
      // barrier orders these stores before the reads).
      // (With vFromK they are K's next columns, read into accumulators never stored.)
      if (int64_t pad = 32 * c.cols() - c.dv; pad && !c.vFromK)
        stageShare(kKeys * pad, vs, [&](Value e, Value) {
          return std::pair{fc(0.0), SmallVector<Value>{div(e, pad), add(idx(c.dv), rem(e, pad))}};
        });
    }

    // The block's query rows into shared memory (0 for rows past the end).
    auto within = [&](Value valid, Value inRange) { return inRange ? andi(valid, inRange) : valid; };
    stageShare(kRows * c.d, qs, [&](Value e, Value inRange) {
      Value r = div(e, c.d), dd = rem(e, c.d);
      Row rw = row(add(p0, r));
      Value x = guardedLoad(within(rw.valid, inRange), q, ValueRange{bIdx, rw.query, rw.head, dd});
      return std::pair{x, SmallVector<Value>{r, dd}};
    });

    int64_t cols = c.cols();
    SmallVector<Value> init;
    for (int64_t rr = 0; rr < kRowsPerWarp; ++rr)
      init.push_back(negInf()); // m
    for (int64_t rr = 0; rr < kRowsPerWarp; ++rr)
      init.push_back(fc(0.0)); // l (this lane's share)
    for (int64_t i = 0; i < kRowsPerWarp * cols; ++i)
      init.push_back(fc(0.0)); // acc
    int64_t numState = init.size();
    init.append(firstTile); // wide: the loaded chunks of the next tile to store
    SmallVector<Row> rowsOfWarp;
    for (int64_t rr = 0; rr < kRowsPerWarp; ++rr)
      rowsOfWarp.push_back(row(add(p0, add(mul(warp, kRowsPerWarp), idx(rr)))));

    auto loop = scf::ForOp::create(b, loc, jlo, jhi, idx(kKeys), init);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(loop.getBody());
      Value j0 = loop.getInductionVar();
      ValueRange it = loop.getRegionIterArgs();
      SmallVector<Value> m(it.begin(), it.begin() + kRowsPerWarp);
      SmallVector<Value> l(it.begin() + kRowsPerWarp, it.begin() + 2 * kRowsPerWarp);
      SmallVector<Value> acc(it.begin() + 2 * kRowsPerWarp, it.begin() + numState);

      // Nobody still reads the previous tile when it is overwritten.
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> nextTile;
      if (wide) {
        storeTileChunks(chunks, it.drop_front(numState), j0, jEnd, ks, vs);
        if (!carried)
          stageUncarried(j0, sub(jhi, idx(1)), jEnd, ks, vs);
        gpu::BarrierOp::create(b, loc);
        // Tile j0 + 32 (past the end: key jhi - 1 again, never stored), loaded while this
        // one is computed.
        nextTile = loadTileChunks(chunks, add(j0, idx(kKeys)), sub(jhi, idx(1)));
      } else {
        // Element by element (ragged head dims), in groups of loads before their stores.
        stageShare(kKeys * c.d, ks, [&](Value e, Value inRange) {
          Value jj = div(e, c.d), dd = rem(e, c.d);
          Value j = add(j0, jj);
          Value x = guardedLoad(within(cmp(arith::CmpIPredicate::ult, j, jEnd), inRange), k,
                                ValueRange{bIdx, j, kvh, dd});
          return std::pair{x, SmallVector<Value>{jj, dd}};
        });
        int64_t vsCols = 32 * c.cols();
        if (!c.vFromK)
          stageShare(kKeys * vsCols, vs, [&](Value e, Value inRange) {
            Value jj = div(e, vsCols), dd = rem(e, vsCols);
            Value j = add(j0, jj);
            Value inside = cmp(arith::CmpIPredicate::ult, j, jEnd);
            if (vsCols != c.dv)
              inside = andi(inside, cmp(arith::CmpIPredicate::ult, dd, idx(c.dv)));
            Value x = guardedLoad(within(inside, inRange), v, ValueRange{bIdx, j, kvh, dd});
            return std::pair{x, SmallVector<Value>{jj, dd}};
          });
        gpu::BarrierOp::create(b, loc);
      }

      // Scores of key j0 + lane for the warp's rows.
      SmallVector<Value> zeros(kRowsPerWarp, fc(0.0));
      // Unrolled by kInnerUnroll (when D allows): the shared-memory loads of those steps are
      // issued before their FMAs (one shared latency per kInnerUnroll steps; the sums keep
      // their order).
      int64_t dStep = c.d % kInnerUnroll == 0 ? kInnerUnroll : 1;
      auto dLoop = scf::ForOp::create(b, loc, idx(0), idx(c.d), idx(dStep), zeros);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(dLoop.getBody());
        SmallVector<Value> kd, qd;
        for (int64_t u = 0; u < dStep; ++u) {
          Value dd = add(dLoop.getInductionVar(), idx(u));
          kd.push_back(memref::LoadOp::create(b, loc, ks, ValueRange{lane, dd}));
          for (int64_t rr = 0; rr < kRowsPerWarp; ++rr) {
            Value r = add(mul(warp, kRowsPerWarp), idx(rr));
            qd.push_back(memref::LoadOp::create(b, loc, qs, ValueRange{r, dd}));
          }
        }
        SmallVector<Value> s(dLoop.getRegionIterArgs());
        for (int64_t u = 0; u < dStep; ++u)
          for (int64_t rr = 0; rr < kRowsPerWarp; ++rr)
            s[rr] = math::FmaOp::create(b, loc, qd[u * kRowsPerWarp + rr], kd[u], s[rr]);
        scf::YieldOp::create(b, loc, s);
      }

      Value j = add(j0, lane);
      Value inRange = cmp(arith::CmpIPredicate::ult, j, jEnd);
      SmallVector<Value> probs;
      for (int64_t rr = 0; rr < kRowsPerWarp; ++rr) {
        Value x = logit(dLoop.getResult(rr), rowsOfWarp[rr], j, inRange);
        Value mNew = fmax(m[rr], butterfly(x, /*isMax=*/true, 16));
        Value base = safe(mNew);
        Value corr = fexpDiff(m[rr], base);
        Value p = fexpDiff(x, base);
        l[rr] = fadd(fmul(l[rr], corr), p);
        for (int64_t cc = 0; cc < cols; ++cc)
          acc[rr * cols + cc] = fmul(acc[rr * cols + cc], corr);
        m[rr] = mNew;
        probs.push_back(p);
      }

      // acc += P·V: each key's probability broadcast from its lane. Unrolled by kInnerUnroll
      // while the unrolled steps' Vs loads are at most 16 registers (value head dims up to
      // 128), by fewer keys beyond (256: 2 keys a step; absorbed MLA's 512: 1, whose one-pass
      // kernel spilled at 255 registers with 4 or 2).
      const int64_t pvUnroll = std::max<int64_t>(1, std::min<int64_t>(kInnerUnroll, 16 / cols));
      auto pvLoop = scf::ForOp::create(b, loc, idx(0), idx(kKeys), idx(pvUnroll), acc);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(pvLoop.getBody());
        SmallVector<Value> next(pvLoop.getRegionIterArgs());
        SmallVector<Value> vcol, pj; // [u][cc], [u][rr]
        for (int64_t u = 0; u < pvUnroll; ++u) {
          Value jj = add(pvLoop.getInductionVar(), idx(u));
          Value src = arith::IndexCastOp::create(b, loc, b.getI32Type(), jj);
          for (int64_t cc = 0; cc < cols; ++cc)
            vcol.push_back(memref::LoadOp::create(b, loc, c.vFromK ? ks : vs,
                                                  ValueRange{jj, add(lane, idx(32 * cc))}));
          for (int64_t rr = 0; rr < kRowsPerWarp; ++rr)
            pj.push_back(shuffle(probs[rr], src, gpu::ShuffleMode::IDX));
        }
        for (int64_t u = 0; u < pvUnroll; ++u)
          for (int64_t rr = 0; rr < kRowsPerWarp; ++rr)
            for (int64_t cc = 0; cc < cols; ++cc)
              next[rr * cols + cc] =
                  math::FmaOp::create(b, loc, pj[u * kRowsPerWarp + rr], vcol[u * cols + cc],
                                      next[rr * cols + cc]);
        scf::YieldOp::create(b, loc, next);
      }
      SmallVector<Value> yielded(m);
      yielded.append(l);
      yielded.append(pvLoop.getResults().begin(), pvLoop.getResults().end());
      yielded.append(nextTile);
      scf::YieldOp::create(b, loc, yielded);
    }

    // Split: the rows' partial state goes to the workspace (m and l by lane 0, the
    // accumulator by column), for the combining kernel.
    if (splitting) {
      for (int64_t rr = 0; rr < kRowsPerWarp; ++rr) {
        const Row &rw = rowsOfWarp[rr];
        Value r = add(mul(warp, kRowsPerWarp), idx(rr));
        if (rowBlocks)
          r = add(p0, r);
        Value den = butterfly(loop.getResult(kRowsPerWarp + rr), /*isMax=*/false, 16);
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
        forEachColumn(rw, [&](int64_t cc, Value col) {
          memref::StoreOp::create(b, loc, loop.getResult(2 * kRowsPerWarp + rr * cols + cc),
                                  work, workIndex(split, r, col));
        });
      }
      gpu::TerminatorOp::create(b, loc);
      return;
    }

    // Normalise and store.
    for (int64_t rr = 0; rr < kRowsPerWarp; ++rr) {
      const Row &rw = rowsOfWarp[rr];
      Value den = butterfly(loop.getResult(kRowsPerWarp + rr), /*isMax=*/false, 16);
      Value scaleRow = rowScale(rw, loop.getResult(rr), den);
      forEachColumn(rw, [&](int64_t cc, Value col) {
        Value y = fmul(loop.getResult(2 * kRowsPerWarp + rr * cols + cc), scaleRow);
        if (c.elem != f32)
          y = arith::TruncFOp::create(b, loc, c.elem, y);
        memref::StoreOp::create(b, loc, y, out, ValueRange{bIdx, rw.query, rw.head, col});
      });
    }
    gpu::TerminatorOp::create(b, loc);
  }

  /// body(cc, col) for each of the lane's value columns col = lane + 32 cc of row `rw`, inside
  /// a guard that the row exists and col < Dv.
  void forEachColumn(const Row &rw, function_ref<void(int64_t, Value)> body) {
    for (int64_t cc = 0; cc < c.cols(); ++cc) {
      Value col = add(lane, idx(32 * cc));
      Value inside = rw.valid;
      if (32 * (cc + 1) > c.dv)
        inside = andi(inside, cmp(arith::CmpIPredicate::ult, col, idx(c.dv)));
      auto store = scf::IfOp::create(b, loc, TypeRange{}, inside, false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      body(cc, col);
    }
  }

  Value splits, work;     // split decoding: the split count and the workspace
  int64_t wsRows = kRows; // rows a split leaves in the workspace (the split form's block)
  // The SIMT split form over several row blocks: their count and the workspace's rows a
  // split (both null otherwise).
  Value rowBlocks, wsRowsDyn;
  bool splitting = false; // emitting the SIMT split kernels
};

/// The tensor-core kernel (bf16/f16 storage, f32 accumulation), FlashAttention-2 style: a
/// block of 4 warps owns 64 rows, warp w rows 16w .. 16w + 15 as one m16 fragment.
///
///   Ks [2][keys][D + 8], Vs [2][keys][Dv + 8] : storage type (two stages; rows padded by 16
///     bytes: a row pitch that is an odd multiple of 16 bytes puts the 8 rows of an ldmatrix
///     matrix in distinct bank groups)
///   Q: cp.async into Ks viewed as 64 rows, ldmatrix.x4 into D / 16 A fragments kept in
///     registers for the whole kernel; barrier
///   stage 0 <- tile 0 (cp.async, rows past jhi zero-filled)
///   for tile t: prefetch t + 1 into the other stage (wait until one group is pending, or
///     for all on the last), barrier;
///     S = Q·Kᵀ: per k16 slice of D, ldmatrix.x4 of two key n8 fragments (Ks[key][d] is the
///       "col" B operand as stored), mma.sync.m16n8k16 into keys / 8 f32 fragments;
///     logits from indices per fragment element (rows g, g + 8, keys 8n + 2q, + 1), row max
///     over the thread's elements then shfl.bfly 1, 2 (the quad holds a row), online softmax
///     (running max, per-thread partial sum, accumulators rescaled);
///     O += P·V: P rounded to the storage type in registers; fragments 2s and 2s + 1 of S are
///       the A fragment of key slice s (see below); V by ldmatrix.x4.trans (Vs[key][dv] is
///       the k-major B operand), two dv n8 fragments each;
///     barrier (the stage is refilled by the next iteration's prefetch)
///   den = quad sum of the partial sums; out = acc · rowScale, rounded, stored per element.
///
/// Fragments (PTX ISA, "Matrix fragments for mma.m16n8k16" with .f16/.bf16; lane l,
/// g = l / 4, q = l % 4): C of a 16x8 tile: c0, c1 = C[g][2q, 2q + 1], c2, c3 = C[g + 8][..];
/// A of a 16x16 slice: a0 = A[g][2q, 2q + 1], a1 = A[g + 8][2q, ..], a2 = A[g][2q + 8, ..],
/// a3 = A[g + 8][2q + 8, ..]. So for key slice s (keys 16s .. 16s + 15) the A fragment of P
/// is (c0 c1, c2 c3) of S fragment 2s (keys 16s + 2q, + 1) followed by (c0 c1, c2 c3) of S
/// fragment 2s + 1 (keys 16s + 8 + 2q, + 1), each pair rounded to one 32-bit register.
/// B of a 16x8 slice: b0 = B[k = 2q, 2q + 1][n = g], b1 = B[k = 2q + 8, ..][n = g]; an
/// ldmatrix 8x8 matrix gives lane l the elements (g, 2q), (g, 2q + 1) of its rows, or
/// (2q, g), (2q + 1, g) with .trans: rows = keys and columns = dv, as V is stored, give b0.
///
/// Split forms (flash decoding; static query counts decide at compile time, dynamic ones at
/// run time): up to 16 rows of a (batch, K/V head), the SIMT kernel's (when its tiles fit);
/// 17 to 64 rows (a few tokens at once, as in speculative decoding with GQA), this kernel with
/// grid (splits, Hkv, B), each block whole key tiles of the visible range, leaving its rows'
/// m, quad-summed l and unnormalised accumulators in the SIMT split's workspace layout (64 rows
/// a split) for the same combining kernel; with one split at run time the one-pass kernel.
class TensorCoreKernel : public SimtKernel {
public:
  TensorCoreKernel(func::FuncOp fn, const Config &c, const SplitOptions &so)
      : SimtKernel(fn, c, so, kTcRows) {}

protected:
  /// cp.async of `rowsCount` rows of `width` elements of `src` into `dst[dstRow(r)..][col]`,
  /// in 16-byte chunks of `perChunk` elements spread over the threads; `source(r, col)` gives
  /// whether row r is read and the indices of its chunk (safe ones when not: zero fill from a
  /// valid address).
  void copyRows(SmallVectorImpl<Value> &tokens, Value src, Value dst, int64_t rowsCount,
                int64_t width, function_ref<SmallVector<Value>(Value r)> dstRow,
                function_ref<std::pair<Value, SmallVector<Value>>(Value r, Value col)> source,
                int64_t perChunk = 8) {
    auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
    int64_t perRow = width / perChunk;
    int64_t chunks = rowsCount * perRow; // a multiple of the threads (the refusals)
    for (int64_t i = 0; i < chunks / kThreads; ++i) {
      Value ch = add(tid, idx(i * kThreads));
      Value r = div(ch, perRow);
      Value col = mul(rem(ch, perRow), perChunk);
      auto [inside, srcIdx] = source(r, col);
      Value count = select(inside, idx(perChunk), idx(0));
      SmallVector<Value> dstIdx = dstRow(r);
      dstIdx.push_back(col);
      auto copy = nvgpu::DeviceAsyncCopyOp::create(b, loc, tokenType, dst, dstIdx, src, srcIdx,
                                                   b.getIndexAttr(perChunk), count,
                                                   b.getUnitAttr());
      tokens.push_back(copy.getAsyncToken());
    }
  }

private:
  int64_t keys() const { return c.tcKeys(); }

protected:
  Value group(ArrayRef<Value> tokens) {
    auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
    return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokenType, tokens).getAsyncToken();
  }

private:
  /// The copies of key tile `j0` (keys j0 .. j0 + keys - 1, zero past jhi) into `stage`.
  Value copyTile(Value stage, Value j0, Value jhi) {
    SmallVector<Value> tokens;
    for (auto [mem, tiles, width] : {std::tuple{k, ks, c.d}, std::tuple{v, vs, c.dv}}) {
      copyRows(
          tokens, mem, tiles, keys(), width, [&](Value r) { return SmallVector<Value>{stage, r}; },
          [&](Value r, Value col) {
            Value j = add(j0, r);
            Value inside = cmp(arith::CmpIPredicate::ult, j, jhi);
            // j0 < jhi is a key of the cache: a valid address for the zero fill.
            return std::pair{inside, SmallVector<Value>{bIdx, select(inside, j, j0), kvh, col}};
          });
    }
    return group(tokens);
  }

  /// A static query count whose rows fit a split form.
  void emitSplit(Value batch) override {
    if (c.simtSplit && c.tq * c.group <= kRows)
      return SimtKernel::emitSplit(batch);
    // The split form with more than one split at run time, else the one-pass kernel.
    splits = splitCount(batch, /*tensorCoreForm=*/true);
    Value many = cmp(arith::CmpIPredicate::ugt, splits, idx(1));
    auto ifMany = scf::IfOp::create(b, loc, TypeRange{}, many, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(ifMany.thenBlock()->getTerminator());
    emitTensorCoreSplit(batch);
    b.setInsertionPoint(ifMany.elseBlock()->getTerminator());
    emitLaunch(batch);
  }

  /// A dynamic query count: the SIMT split form for up to 16 rows (when its tiles fit), this
  /// kernel's split form for up to 64 rows and more than one split, else the one-pass kernel
  /// (emitted once).
  void emitAtRunTime(Value batch) override {
    Value inBlock = cmp(arith::CmpIPredicate::ule, rowsTotal, idx(kTcRows));
    Value tcSplitCount = splitCount(batch, /*tensorCoreForm=*/true);
    Value tcSplits = andi(inBlock, cmp(arith::CmpIPredicate::ugt, tcSplitCount, idx(1)));
    auto oneOf = [&](Value cond, function_ref<void()> then, function_ref<void()> otherwise) {
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, cond, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      then();
      b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
      otherwise();
    };
    auto tensorCore = [&] {
      oneOf(
          tcSplits,
          [&] {
            splits = tcSplitCount;
            emitTensorCoreSplit(batch);
          },
          [&] { emitLaunch(batch); });
    };
    if (!c.simtSplit)
      return tensorCore();
    oneOf(cmp(arith::CmpIPredicate::ule, rowsTotal, idx(kRows)),
          [&] { SimtKernel::emitSplit(batch); }, tensorCore);
  }

  /// This kernel's split form (`splits` set): partials of each split, then the combining
  /// kernel.
  void emitTensorCoreSplit(Value batch) {
    wsRows = kTcRows;
    allocWork(batch);
    tcSplitting = true;
    emitLaunch(batch);
    tcSplitting = false;
    SimtKernel::emitCombine(batch);
    memref::DeallocOp::create(b, loc, work);
  }

  void emitLaunch(Value batch) override {
    if (splitting)
      return SimtKernel::emitLaunch(batch);
    MLIRContext *ctx = b.getContext();
    Type el = c.elem;
    auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto ksType =
        MemRefType::get({2, keys(), c.d + 8}, el, MemRefLayoutAttrInterface(), shared);
    auto vsType =
        MemRefType::get({2, keys(), c.dv + 8}, el, MemRefLayoutAttrInterface(), shared);
    auto launch = createLaunch({ksType, vsType}, tcSplitting ? splits : Value());
    ks = launch.getWorkgroupAttributions()[0];
    vs = launch.getWorkgroupAttributions()[1];
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    readIds(launch);
    // Split: every block has the same (only) 64 rows and its share of the keys.
    Value split = launch.getBlockIds().x;
    if (tcSplitting)
      p0 = idx(0);
    Value g8 = div(lane, 4), q2 = mul(rem(lane, 4), 2);

    auto aType = VectorType::get({4, 2}, el);
    auto accType = VectorType::get({2, 2}, f32);
    auto pairType = VectorType::get({2}, f32);
    auto pairElType = VectorType::get({2}, el);

    // Q: the block's 64 rows into the K stages (row r at Ks[r / keys][r % keys]), then each
    // warp's A fragments into registers.
    SmallVector<Value> qTokens;
    copyRows(
        qTokens, q, ks, kTcRows, c.d,
        [&](Value r) { return SmallVector<Value>{div(r, keys()), rem(r, keys())}; },
        [&](Value r, Value col) {
          Row rw = row(add(p0, r));
          return std::pair{rw.valid, SmallVector<Value>{bIdx, rw.query, rw.head, col}};
        });
    Value qGroup = group(qTokens);
    nvgpu::DeviceAsyncWaitOp::create(b, loc, qGroup, b.getI32IntegerAttr(0));
    gpu::BarrierOp::create(b, loc);
    SmallVector<Value> qFrags;
    {
      Value r = add(mul(warp, 16), rem(lane, 16));
      Value col = mul(div(lane, 16), 8);
      for (int64_t s = 0; s < c.d / 16; ++s)
        qFrags.push_back(mlir::decoda::gpu_mma::ldmatrix(
            b, loc, aType, ks, {div(r, keys()), rem(r, keys()), add(col, idx(16 * s))},
            /*transpose=*/false, 4));
    }
    // The first tile's copy overwrites the stages Q came through.
    gpu::BarrierOp::create(b, loc);

    auto [jlo, jhi] = keyRange();
    if (tcSplitting)
      std::tie(jlo, jhi) = splitShare(jlo, jhi, split, keys());
    Value span = maxs(sub(jhi, jlo), idx(0));
    Value numTiles = div(add(span, idx(keys() - 1)), keys());
    auto firstCopy = scf::IfOp::create(b, loc, TypeRange{},
                                       cmp(arith::CmpIPredicate::sgt, numTiles, idx(0)), false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&firstCopy.getThenRegion().front());
      copyTile(idx(0), jlo, jhi);
    }

    // The thread's two rows (g and g + 8 of the warp's 16).
    std::array<Row, 2> rowsOfThread;
    for (int64_t h = 0; h < 2; ++h)
      rowsOfThread[h] = row(add(p0, add(mul(warp, 16), add(g8, idx(8 * h)))));

    int64_t accFrags = c.dv / 8, sFrags = keys() / 8;
    Value warpActive = cmp(arith::CmpIPredicate::ult, add(p0, mul(warp, 16)), rowsTotal);
    Value zeroAcc = arith::ConstantOp::create(b, loc, accType, b.getZeroAttr(accType));
    SmallVector<Value> init = {negInf(), negInf(), fc(0.0), fc(0.0)}; // m[2], l[2]
    init.append(accFrags, zeroAcc);
    auto loop = scf::ForOp::create(b, loc, idx(0), numTiles, idx(1), init);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(loop.getBody());
      Value t = loop.getInductionVar();
      ValueRange it = loop.getRegionIterArgs();
      SmallVector<Value> m(it.begin(), it.begin() + 2), l(it.begin() + 2, it.begin() + 4);
      SmallVector<Value> acc(it.begin() + 4, it.end());
      Value j0 = add(jlo, mul(t, keys()));
      Value next = add(t, idx(1));
      auto prefetch = scf::IfOp::create(b, loc, TypeRange{},
                                        cmp(arith::CmpIPredicate::ult, next, numTiles), true);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(&prefetch.getThenRegion().front());
        Value grp = copyTile(rem(next, 2), add(j0, idx(keys())), jhi);
        nvgpu::DeviceAsyncWaitOp::create(b, loc, grp, b.getI32IntegerAttr(1));
        b.setInsertionPointToStart(&prefetch.getElseRegion().front());
        nvgpu::DeviceAsyncWaitOp::create(b, loc, qGroup, b.getI32IntegerAttr(0));
      }
      gpu::BarrierOp::create(b, loc);
      Value stage = rem(t, 2);
      // A warp without a row (the last row block, or a split form's block at decode: 4 rows
      // of Llama-3.2-1B's 64) skips the tile's mma and softmax; its lanes still copy and
      // meet every barrier.
      auto work = scf::IfOp::create(b, loc, ValueRange(it).getTypes(), warpActive,
                                    /*withElseRegion=*/true);
      {
      OpBuilder::InsertionGuard g3(b);
      b.setInsertionPointToStart(&work.getThenRegion().front());

      // S = Q·Kᵀ.
      SmallVector<Value> sAcc(sFrags, zeroAcc);
      {
        Value r = add(rem(lane, 8), mul(div(lane, 16), 8));
        Value col = mul(rem(div(lane, 8), 2), 8);
        for (int64_t s = 0; s < c.d / 16; ++s)
          for (int64_t n = 0; n < sFrags; n += 2) {
            Value x4 = mlir::decoda::gpu_mma::ldmatrix(
                b, loc, aType, ks, {stage, add(r, idx(8 * n)), add(col, idx(16 * s))},
                /*transpose=*/false, 4);
            auto [b0, b1] = mlir::decoda::gpu_mma::splitX4(b, loc, x4);
            sAcc[n] = mlir::decoda::gpu_mma::mma16816(b, loc, qFrags[s], b0, sAcc[n]);
            sAcc[n + 1] = mlir::decoda::gpu_mma::mma16816(b, loc, qFrags[s], b1, sAcc[n + 1]);
          }
      }

      // Logits (unmasked on the tiles every row sees whole: tileUnmasked) and the online
      // softmax on the fragments (thread rows g, g + 8).
      SmallVector<std::array<std::array<Value, 2>, 2>> x(sFrags); // [n][h][e]
      SmallVector<Value> logits = tileLogits(
          tileUnmasked(j0, keys(), jhi), 4 * sFrags, [&](bool masked) {
            SmallVector<Value> xs;
            for (int64_t h = 0; h < 2; ++h)
              for (int64_t n = 0; n < sFrags; ++n) {
                Value pair = vector::ExtractOp::create(b, loc, sAcc[n], ArrayRef<int64_t>{h});
                for (int64_t e = 0; e < 2; ++e) {
                  Value j = add(j0, add(q2, idx(8 * n + e)));
                  Value s = vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{e});
                  xs.push_back(masked ? logit(s, rowsOfThread[h], j,
                                              cmp(arith::CmpIPredicate::ult, j, jhi))
                                      : scaledLogit(s));
                }
              }
            return xs;
          });
      std::array<Value, 2> corr;
      for (int64_t h = 0; h < 2; ++h) {
        Value tileMax = negInf();
        for (int64_t n = 0; n < sFrags; ++n)
          for (int64_t e = 0; e < 2; ++e) {
            x[n][h][e] = logits[(h * sFrags + n) * 2 + e];
            tileMax = fmax(tileMax, x[n][h][e]);
          }
        Value mNew = fmax(m[h], butterfly(tileMax, /*isMax=*/true, 2));
        Value base = safe(mNew);
        corr[h] = fexpDiff(m[h], base);
        Value sum = fc(0.0);
        for (int64_t n = 0; n < sFrags; ++n)
          for (int64_t e = 0; e < 2; ++e) {
            x[n][h][e] = fexpDiff(x[n][h][e], base);
            sum = fadd(sum, x[n][h][e]);
          }
        l[h] = fadd(fmul(l[h], corr[h]), sum);
        m[h] = mNew;
      }
      std::array<Value, 2> corrPair;
      for (int64_t h = 0; h < 2; ++h)
        corrPair[h] = vector::BroadcastOp::create(b, loc, pairType, corr[h]);
      for (Value &a : acc)
        for (int64_t h = 0; h < 2; ++h) {
          Value pair = vector::ExtractOp::create(b, loc, a, ArrayRef<int64_t>{h});
          a = vector::InsertOp::create(b, loc, arith::MulFOp::create(b, loc, pair, corrPair[h]),
                                       a, ArrayRef<int64_t>{h});
        }

      // O += P·V.
      {
        Value r = add(rem(lane, 8), mul(rem(div(lane, 8), 2), 8));
        Value col = mul(div(lane, 16), 8);
        for (int64_t s = 0; s < keys() / 16; ++s) {
          Value pFrag = arith::ConstantOp::create(b, loc, aType, b.getZeroAttr(aType));
          for (int64_t reg = 0; reg < 4; ++reg) {
            auto &src = x[2 * s + reg / 2][reg % 2];
            Value pair = vector::FromElementsOp::create(b, loc, pairType, ValueRange{src[0], src[1]});
            Value rounded = arith::TruncFOp::create(b, loc, pairElType, pair);
            pFrag = vector::InsertOp::create(b, loc, rounded, pFrag, ArrayRef<int64_t>{reg});
          }
          for (int64_t n = 0; n < accFrags; n += 2) {
            Value x4 = mlir::decoda::gpu_mma::ldmatrix(
                b, loc, aType, vs, {stage, add(r, idx(16 * s)), add(col, idx(8 * n))},
                /*transpose=*/true, 4);
            auto [b0, b1] = mlir::decoda::gpu_mma::splitX4(b, loc, x4);
            acc[n] = mlir::decoda::gpu_mma::mma16816(b, loc, pFrag, b0, acc[n]);
            acc[n + 1] = mlir::decoda::gpu_mma::mma16816(b, loc, pFrag, b1, acc[n + 1]);
          }
        }
      }
      SmallVector<Value> computed(m);
      computed.append(l);
      computed.append(acc);
      scf::YieldOp::create(b, loc, computed);
      b.setInsertionPointToStart(&work.getElseRegion().front());
      scf::YieldOp::create(b, loc, it);
      }
      // Nobody refills this stage (the next iteration's prefetch) before every warp is done.
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, work.getResults());
    }

    storeRows(split, rowsOfThread, [&](int64_t h) { return loop.getResult(h); },
              [&](int64_t h) { return loop.getResult(2 + h); }, accFrags,
              [&](int64_t n, int64_t h) {
                return vector::ExtractOp::create(b, loc, loop.getResult(4 + n),
                                                 ArrayRef<int64_t>{h})
                    .getResult();
              });
  }

protected:
  /// The end of the tensor-core kernels: in the split form the rows' partial state to the
  /// workspace, else each row normalised, rounded and stored. `mOf(h)` and `lOf(h)` are the
  /// running max and the thread's partial denominator of its row g + 8h (summed here across
  /// the quad), `accPair(n, h)` its unnormalised accumulators of columns 8n + 2q, + 1.
  void storeRows(Value split, ArrayRef<Row> rowsOfThread, function_ref<Value(int64_t)> mOf,
                 function_ref<Value(int64_t)> lOf, int64_t accFrags,
                 function_ref<Value(int64_t, int64_t)> accPair, bool terminate = true) {
    Type el = c.elem;
    Value g8 = div(lane, 4), q2 = mul(rem(lane, 4), 2);
    if (tcSplitting) {
      // The rows' partial state to the workspace: m and the quad's l by its first lane, the
      // unnormalised accumulators (columns 8n + 2q, + 1) by every lane.
      for (int64_t h = 0; h < 2; ++h) {
        const Row &rw = rowsOfThread[h];
        Value r = add(mul(warp, 16), add(g8, idx(8 * h)));
        Value den = butterfly(lOf(h), /*isMax=*/false, 2);
        auto store = scf::IfOp::create(b, loc, TypeRange{}, rw.valid, false);
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(&store.getThenRegion().front());
        auto lead = scf::IfOp::create(b, loc, TypeRange{},
                                      cmp(arith::CmpIPredicate::eq, q2, idx(0)), false);
        {
          OpBuilder::InsertionGuard g4(b);
          b.setInsertionPointToStart(&lead.getThenRegion().front());
          memref::StoreOp::create(b, loc, mOf(h), work, workIndex(split, r, idx(c.dv)));
          memref::StoreOp::create(b, loc, den, work, workIndex(split, r, idx(c.dv + 1)));
        }
        for (int64_t n = 0; n < accFrags; ++n) {
          Value pair = accPair(n, h);
          for (int64_t e = 0; e < 2; ++e)
            memref::StoreOp::create(
                b, loc, vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{e}), work,
                workIndex(split, r, add(q2, idx(8 * n + e))));
        }
      }
      gpu::TerminatorOp::create(b, loc);
      return;
    }

    // Normalise, round and store: row g + 8h, columns 8n + 2q, + 1.
    for (int64_t h = 0; h < 2; ++h) {
      const Row &rw = rowsOfThread[h];
      Value den = butterfly(lOf(h), /*isMax=*/false, 2);
      Value scaleRow = rowScale(rw, mOf(h), den);
      auto store = scf::IfOp::create(b, loc, TypeRange{}, rw.valid, false);
      OpBuilder::InsertionGuard g3(b);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      for (int64_t n = 0; n < accFrags; ++n) {
        Value pair = accPair(n, h);
        for (int64_t e = 0; e < 2; ++e) {
          Value y = fmul(vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{e}), scaleRow);
          y = arith::TruncFOp::create(b, loc, el, y);
          memref::StoreOp::create(b, loc, y, out,
                                  ValueRange{bIdx, rw.query, rw.head, add(q2, idx(8 * n + e))});
        }
      }
    }
    if (terminate)
      gpu::TerminatorOp::create(b, loc);
  }

  Value ks, vs;
  bool tcSplitting = false; // emitting this kernel's split form
};

/// The sm_90a form of the tensor-core kernel (option `wgmma`; head dims 64 or 128): the same
/// block of 64 rows and 128 threads (one warpgroup; warp w rows 16w .. 16w + 15, a thread's
/// rows g and g + 8), the same grid, key range, masks, online softmax, split form and stores,
/// but both products on warpgroup MMA. The block's Q tile and two stages of 64-key K and V
/// tiles live in dynamic shared memory in the 128-byte swizzle (64-element column blocks of
/// rows x 128 bytes, row r's 16-byte chunk c at chunk c ^ (r % 8), aligned to 1024 bytes at
/// run time), filled by cp.async and published to the async proxy by fence.proxy.async and a
/// barrier. Per tile: S = Q·Kᵀ by D / 16 `wgmma.mma_async m64n64k16` with both operands
/// K-major from shared memory (SBO 1024, 32 bytes per k slice), its 32 accumulators per
/// thread having the mma.sync fragment layout of eight n8 tiles; softmax as in the mma.sync
/// kernel; P rounded in registers is the A operand of O += P·V, 4 `wgmma.mma_async
/// m64n{Dv}k16` with A from registers (the same fragment as mma.sync's) and V read MN-major
/// (imm-trans-b = 1: key slice s 2048 bytes further, LBO the 64-column block, SBO 1024).
/// NVVM's wgmma op takes A from shared memory only, so that one is inline PTX.
///
/// As in FlashAttention-3: the one-pass kernel's block is 128 rows by default, two warpgroups
/// sharing every K/V tile (half the K/V traffic per row of 64-row blocks), and within a
/// warpgroup the two products overlap: S of tile t and P·V of tile t - 1 are issued as two
/// wgmma groups of one inline-asm block, the softmax of tile t runs while P·V of tile t - 1 is
/// on the tensor cores (wgmma.wait_group 1), and P of tile t is rounded into A registers only
/// after wgmma.wait_group 0. K of a tile is copied one step before its V (step t: K_{t+1} and
/// V_t, one cp.async group), so each stage is refilled only after the barrier that follows
/// the last wgmma reading it; one barrier per tile.
class WgmmaKernel : public TensorCoreKernel {
public:
  /// `wideRows`: the one-pass kernel's rows per block, 64 (one warpgroup) or 128 (two
  /// warpgroups sharing each K/V tile); the split form keeps 64. `keysPerTile`: the keys of a
  /// K/V tile, 64 or 128 (S = Q·Kᵀ as m64n128k16, twice the work per tile's fixed cost: the
  /// barrier, the row maxima's butterflies, O's rescale).
  /// `tmaLoads`: the one-pass kernel's K/V tiles loaded by TMA from a producer warp, each
  /// stage handed over by mbarriers (see emitLaunch); the split form keeps cp.async.
  /// `pingPong`: with `tmaLoads` and two warpgroups, they take turns at the tensor cores.
  WgmmaKernel(func::FuncOp fn, const Config &c, const SplitOptions &so, int64_t wideRows,
              int64_t keysPerTile, bool tmaLoads, bool pingPong)
      : TensorCoreKernel(fn, c, so), wideRows(wideRows), keysPerTile(keysPerTile),
        tmaLoads(tmaLoads), pingPong(pingPong) {}

  /// A head dim as the tiles hold it: whole 64-column blocks (128-byte swizzle rows). Q and K
  /// columns past the head dim are never written nor read (S takes D / 16 k slices); V's are
  /// never written, and the O columns P·V computes from them (m64n{padded Dv}k16: n is a whole
  /// number of the MN-major swizzle's 64-column atoms) are neither rescaled nor stored.
  static int64_t padded(int64_t dim) { return (dim + 63) / 64 * 64; }
  /// Dynamic shared memory of a block of `blockRows` rows: Q, two stages of K and V, 1024
  /// bytes to align them, and with TMA the eight mbarriers (K and V, full and empty, per stage).
  static int64_t sharedBytes(const Config &c, int64_t blockRows, int64_t keys, bool tma) {
    return 2 * (blockRows * padded(c.d) + 2 * keys * (padded(c.d) + padded(c.dv))) + 1024 +
           (tma ? 8 * kTmaBarriers : 0);
  }
  /// TMA loads whole 64-column boxes: head dims that are whole blocks.
  static bool tmaTakes(const Config &c) { return c.d % 64 == 0 && c.dv % 64 == 0; }
  /// Keys of a K/V tile: 128 (when asked) only while S, O and P fit the registers beside each
  /// other (O of a value head dim over 128 takes 128 of them), else 64.
  static int64_t tileKeys(const Config &c, int64_t asked) {
    return asked == 128 && padded(c.dv) <= 128 ? 128 : 64;
  }
  /// Rows of a one-pass block: 128 (when asked) while its tiles fit the dynamic shared memory.
  static int64_t blockRowsFor(const Config &c, int64_t asked, int64_t keys, bool tma) {
    using mlir::decoda::gpu_contraction::kMaxDynamicSharedBytes;
    return asked == 128 && sharedBytes(c, 128, keys, tma) <= kMaxDynamicSharedBytes ? 128 : kTcRows;
  }
  /// Why this form does not take `c`, or "". Head dims: multiples of 16 (k16 slices of S, n8
  /// pairs of O) up to 256 (O's accumulators, Dv / 2 registers a thread), each held as whole
  /// 64-column blocks; a 64-row block's tiles then need at most 161 KiB of shared memory.
  static std::string refusal(const Config &c) {
    if (!c.elem.isBF16() && !c.elem.isF16())
      return "f32 storage (the tensor-core kernel takes bf16 and f16)";
    if (c.d % 16 || c.dv % 16 || padded(c.d) > 256 || padded(c.dv) > 256)
      return "head dims " + std::to_string(c.d) + ", " + std::to_string(c.dv) +
             " (the wgmma form takes multiples of 16 up to 256)";
    assert(sharedBytes(c, kTcRows, 64, false) <=
           mlir::decoda::gpu_contraction::kMaxDynamicSharedBytes);
    return "";
  }

protected:
  void emitLaunch(Value batch) override {
    if (splitting)
      return SimtKernel::emitLaunch(batch);
    MLIRContext *ctx = b.getContext();
    Type el = c.elem;
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    const int64_t keys = keysPerTile;
    // Head dims as held in shared memory (whole 64-column blocks).
    const int64_t dHeld = padded(c.d), dvHeld = padded(c.dv);
    // A warpgroup per 64 rows.
    const int64_t blockRows = tcSplitting ? kTcRows : wideRows;
    const int64_t threads = 2 * blockRows;
    const bool wide = blockRows > kTcRows;
    int64_t savedRows = rows;
    rows = blockRows;
    llvm::scope_exit restoreRows([&] { rows = savedRows; });
    // Bytes: Q, then per stage K and V; every tile a multiple of 1024.
    const int64_t qBytes = 2 * blockRows * dHeld, kBytes = 2 * keys * dHeld,
                  vBytes = 2 * keys * dvHeld;
    const int64_t stageBytes = kBytes + vBytes, tileBytes = qBytes + 2 * stageBytes;
    // With TMA a producer warp follows the consumer warpgroups; the split form keeps cp.async.
    const bool tma = tmaLoads && !tcSplitting;
    Value mapK, mapV;
    if (tma) {
      mapK = kvTensorMap(k, c.d, keys);
      mapV = kvTensorMap(v, c.dv, keys);
    }
    auto launch = createLaunch(
        {}, tcSplitting ? splits : Value(),
        arith::ConstantIntOp::create(b, loc, i32, sharedBytes(c, blockRows, keys, tma))
            .getResult(),
        threads + (tma ? 32 : 0));
    // With TMA and two warpgroups the block (288 threads) holds an SM alone; ptxas, which
    // budgets registers for a block rounded up to whole warpgroups (384 threads: 168 a
    // thread), is told the 224 that fit (decoda-gpu-outline-kernels sets it on the kernel).
    if (tma && wide)
      launch->setAttr("decoda.kernel_attrs",
                      b.getDictionaryAttr(b.getNamedAttr(
                          "nvvm.maxnreg", b.getI32IntegerAttr(oneBlockRegisters(threads + 32)))));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    readIds(launch);
    Value split = launch.getBlockIds().x;
    if (tcSplitting)
      p0 = idx(0);
    Value g8 = div(lane, 4), q2 = mul(rem(lane, 4), 2);

    // The tiles: a view of the dynamic shared memory from its first 1024-byte boundary.
    auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto dynType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                   MemRefLayoutAttrInterface(), workgroup);
    Value dyn = gpu::DynamicSharedMemoryOp::create(b, loc, dynType);
    Value raw = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dyn);
    Value shift = rem(sub(idx(1024), rem(raw, 1024)), 1024);
    auto tilesType =
        MemRefType::get({tileBytes / 2}, el, MemRefLayoutAttrInterface(), workgroup);
    Value tiles = memref::ViewOp::create(b, loc, tilesType, dyn, shift, ValueRange{});
    Value base = arith::IndexCastUIOp::create(b, loc, i64, add(raw, shift));
    auto i64c = [&](int64_t x) { return arith::ConstantIntOp::create(b, loc, i64, x).getResult(); };
    auto addr = [&](Value at, int64_t bytes) { return arith::AddIOp::create(b, loc, at, i64c(bytes)).getResult(); };
    auto stageAddr = [&](Value stage) {
      Value s64 = arith::IndexCastUIOp::create(b, loc, i64, stage);
      return arith::AddIOp::create(b, loc, addr(base, qBytes),
                                   arith::MulIOp::create(b, loc, s64, i64c(stageBytes)))
          .getResult();
    };
    // Matrix descriptor (PTX ISA "Matrix Descriptor Format"): start >> 4, LBO >> 4 at bit 16,
    // SBO >> 4 at bit 32, 128-byte swizzle (mode 1) at bit 62.
    auto descriptor = [&](Value at, int64_t lbo, int64_t sbo) {
      Value start = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, at, i64c(4)), i64c(0x3FFF));
      return arith::OrIOp::create(
                 b, loc, start,
                 i64c(((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (int64_t(1) << 62)))
          .getResult();
    };

    auto ifThen = [&](Value cond, function_ref<void()> body) {
      auto op = scf::IfOp::create(b, loc, TypeRange{}, cond, false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&op.getThenRegion().front());
      body();
    };
    // cp.async of `count` rows of `width` elements into the swizzled tile at element `at`
    // (their group committed by the caller); chunk c of a row in column block c / 8. A row's
    // chunks go to `lanes` consecutive threads (their count rounded up to a power of two), so
    // each thread copies one column chunk of every (threads / lanes)-th row: the rows' source
    // and tile addresses one register plus immediate offsets (the rounding idles the threads
    // past the chunks: a quarter at head dim 96, where 12 chunks over the threads in turn would
    // give every copy its own division, remainder and address; 192: 24 over 32 lanes). Rows of
    // a power of two of chunks (head dims 64, 128, 256: the same mapping either way), and
    // rounds that do not divide the rows (more threads than chunks), give the chunks to the
    // threads in turn, the last round's threads past them copying none.
    auto copySwizzled = [&](Value src, int64_t at, Value atStage, int64_t count, int64_t width,
                            function_ref<std::pair<Value, SmallVector<Value>>(Value, Value)> source) {
      auto tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);
      const int64_t perRow = width / 8, chunks = count * perRow;
      const int64_t lanes = static_cast<int64_t>(llvm::PowerOf2Ceil(perRow));
      const bool byColumn =
          lanes != perRow && threads % lanes == 0 && count % (threads / lanes) == 0;
      auto copyChunk = [&](Value r, Value cc) {
        Value swz = arith::XOrIOp::create(b, loc, rem(cc, 8), rem(r, 8));
        Value dst = add(add(mul(div(cc, 8), count * 64), mul(r, 64)), mul(swz, 8));
        dst = add(dst, idx(at));
        if (atStage)
          dst = add(dst, atStage);
        auto [inside, srcIdx] = source(r, mul(cc, 8));
        Value n = select(inside, idx(8), idx(0));
        nvgpu::DeviceAsyncCopyOp::create(b, loc, tokenType, tiles, ValueRange{dst}, src, srcIdx,
                                         b.getIndexAttr(8), n, b.getUnitAttr());
      };
      auto guardBy = [&](Value cond) {
        auto op = scf::IfOp::create(b, loc, TypeRange{}, cond, false);
        b.setInsertionPointToStart(&op.getThenRegion().front());
      };
      OpBuilder::InsertionGuard g2(b);
      if (byColumn) {
        const int64_t rowsPerRound = threads / lanes;
        Value cc = rem(tid, lanes), r0 = div(tid, lanes);
        guardBy(cmp(arith::CmpIPredicate::ult, cc, idx(perRow)));
        for (int64_t i = 0; i < count / rowsPerRound; ++i)
          copyChunk(add(r0, idx(i * rowsPerRound)), cc);
        return;
      }
      for (int64_t i = 0; i < (chunks + threads - 1) / threads; ++i) {
        Value ch = add(tid, idx(i * threads));
        OpBuilder::InsertionGuard g3(b);
        if ((i + 1) * threads > chunks)
          guardBy(cmp(arith::CmpIPredicate::ult, ch, idx(chunks)));
        Value r = div(ch, perRow), cc = rem(ch, perRow);
        copyChunk(r, cc);
      }
    };
    // Q (the block's rows), its own group; then K of the first tile. With TMA the consumer
    // threads copy Q (the producer warp's would land past it) and the block waits for it once.
    auto copyQ = [&] {
      copySwizzled(q, 0, Value(), blockRows, c.d, [&](Value r, Value col) {
        Row rw = row(add(p0, r));
        return std::pair{rw.valid, SmallVector<Value>{bIdx, rw.query, rw.head, col}};
      });
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    };
    Value secondActive; // a 128-row block's second warpgroup has rows
    if (wide)
      secondActive = cmp(arith::CmpIPredicate::ult, add(p0, idx(kTcRows)), rowsTotal);
    // TMA: mbarrier `kind` (kFull, kEmpty, vFull, vEmpty) of a stage, after the tiles.
    auto sharedPtrType = LLVM::LLVMPointerType::get(ctx, 3);
    auto barrier = [&](int64_t kind, Value stage) {
      Value at = arith::AddIOp::create(
          b, loc, addr(base, tileBytes + 16 * kind),
          arith::MulIOp::create(b, loc, arith::IndexCastUIOp::create(b, loc, i64, stage),
                                i64c(8)));
      return LLVM::IntToPtrOp::create(b, loc, sharedPtrType, at).getResult();
    };
    if (tma) {
      // Full: one arrival (the producer's expect_tx) and the bytes; empty: one arrival by each
      // consumer warp with rows (a 128-row block's second warpgroup may have none).
      ifThen(cmp(arith::CmpIPredicate::eq, tid, idx(0)), [&] {
        Value one = i32c(1);
        Value warps = i32c(4);
        if (wide)
          warps = select(secondActive, i32c(8), i32c(4));
        for (int64_t kind = 0; kind < kTmaBarriers / 2; ++kind)
          for (int64_t st = 0; st < 2; ++st)
            NVVM::MBarrierInitOp::create(b, loc, barrier(kind, idx(st)),
                                         kind == kFull || kind == vFull ? one : warps, Value());
        NVVM::FenceMbarrierInitOp::create(b, loc);
      });
      ifThen(cmp(arith::CmpIPredicate::ult, tid, idx(threads)), copyQ);
      NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
      NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                                 NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      gpu::BarrierOp::create(b, loc);
    } else {
      copyQ();
    }
    auto [jlo, jhi] = keyRange();
    if (tcSplitting)
      std::tie(jlo, jhi) = splitShare(jlo, jhi, split, keys);
    Value span = maxs(sub(jhi, jlo), idx(0));
    Value numTiles = div(add(span, idx(keys - 1)), keys);
    Value anyTile = cmp(arith::CmpIPredicate::sgt, numTiles, idx(0));
    auto tileStart = [&](Value t) { return add(jlo, mul(t, keys)); };
    // Keys j0 .. j0 + keys - 1 of K or V into its half of `stage` (zero past jhi). A tile whose keys
    // are all below jhi (every tile but a ragged last one; block-uniform) copies without the
    // per-copy bound: its source rows are j0 + r, 8 · 2048 bytes apart from copy to copy at
    // head dim 128, immediate offsets of one address (7 instructions a copy otherwise: the
    // compare, the clamped row, the address and the source size).
    auto copyKeys = [&](Value mem, int64_t at, Value stage, int64_t width, Value j0) {
      auto copies = [&](bool guarded) {
        copySwizzled(mem, at, mul(stage, stageBytes / 2), keys, width, [&](Value r, Value col) {
          Value j = add(j0, r);
          if (!guarded)
            return std::pair{arith::ConstantOp::create(b, loc, b.getBoolAttr(true)).getResult(),
                             SmallVector<Value>{bIdx, j, kvh, col}};
          Value inside = cmp(arith::CmpIPredicate::ult, j, jhi);
          // j0 < jhi is a key of the cache: a valid address for the zero fill.
          return std::pair{inside, SmallVector<Value>{bIdx, select(inside, j, j0), kvh, col}};
        });
      };
      Value whole = cmp(arith::CmpIPredicate::sle, add(j0, idx(keys)), jhi);
      auto op = scf::IfOp::create(b, loc, TypeRange{}, whole, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&op.getThenRegion().front());
      copies(false);
      b.setInsertionPointToStart(&op.getElseRegion().front());
      copies(true);
    };
    auto copyK = [&](Value t) { copyKeys(k, qBytes / 2, rem(t, 2), c.d, tileStart(t)); };
    auto copyV = [&](Value t) { copyKeys(v, (qBytes + kBytes) / 2, rem(t, 2), c.dv, tileStart(t)); };
    if (!tma) {
      ifThen(anyTile, [&] { copyK(idx(0)); });
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }
    // Step t's copies, one group: K of tile t + 1 (when there is one) and V of tile t.
    auto copyStep = [&](Value t) {
      Value next = add(t, idx(1));
      ifThen(cmp(arith::CmpIPredicate::ult, next, numTiles), [&] { copyK(next); });
      copyV(t);
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    };
    // Every copy so far landed, ordered before the async proxy's reads (wgmma) and visible to
    // the block; every wgmma before it finished its reads (each warp waited for it).
    auto publish = [&] {
      NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
      NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                                 NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      gpu::BarrierOp::create(b, loc);
    };

    std::array<Row, 2> rowsOfThread;
    for (int64_t h = 0; h < 2; ++h)
      rowsOfThread[h] = row(add(p0, add(mul(warp, 16), add(g8, idx(8 * h)))));

    const int64_t sRegs = keys / 2, oRegs = dvHeld / 2, pRegs = keys / 4;
    auto sType = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(sRegs, f32));
    auto oType = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(oRegs, f32));
    auto pairType = VectorType::get({2}, f32);
    auto pairElType = VectorType::get({2}, el);
    auto reg = [&](Value acc, int64_t i) {
      return LLVM::ExtractValueOp::create(b, loc, acc, ArrayRef<int64_t>{i}).getResult();
    };
    auto inlineAsm = [&](TypeRange results, ValueRange operands, StringRef text,
                         StringRef constraints) {
      return LLVM::InlineAsmOp::create(b, loc, results, operands, text, constraints,
                                       /*has_side_effects=*/true, /*is_align_stack=*/false,
                                       LLVM::tailcallkind::TailCallKind::None,
                                       /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr);
    };
    // The registers of a wgmma accumulator pinned after the wait that completes it (an empty
    // volatile asm reading and redefining them): nothing computed from them is scheduled
    // before that wait.
    auto pin = [&](Value acc, int64_t regs) {
      std::string constraints;
      for (int64_t i = 0; i < regs; ++i)
        constraints += "=f,";
      for (int64_t i = 0; i < regs; ++i)
        constraints += std::to_string(i) + (i + 1 < regs ? "," : "");
      SmallVector<Value> operands;
      for (int64_t i = 0; i < regs; ++i)
        operands.push_back(reg(acc, i));
      return inlineAsm(acc.getType(), operands, "", constraints).getResult(0);
    };
    // The warpgroup's 64 rows of Q (column blocks of blockRows x 128 bytes).
    Value wg = div(warp, 4);
    Value qAt = base;
    if (wide)
      qAt = arith::AddIOp::create(
          b, loc, base,
          arith::IndexCastUIOp::create(b, loc, i64, mul(wg, kTcRows * 128)));
    // The wgmma of a step as one inline-asm block: `wgmma.fence`, then S = Q·Kᵀ of the K tile
    // at `kAt` into fresh accumulators (one group) and/or O += P·V of the V tile at `vAt` (one
    // group). One block, because ptxas serialises every wgmma of the kernel when a non-wgmma
    // instruction defines a register a wgmma reads between the fence and the commit: the
    // copies the compiler makes of operands that come from another block (P and O are
    // loop-carried) land right before their wgmma unless the block's inputs are all read
    // before it starts. S: k slice s of Q and K is column block s / 4 at 32 (s % 4) bytes
    // within the 128-byte rows, K-major. P·V: P's key slice s (keys 16s ..) is the A fragment
    // pFrags[4s .. 4s + 3] from registers, V read MN-major (imm-trans-b 1; key slice s 2048
    // bytes further, LBO the 64-column block, SBO 1024). NVVM's wgmma op takes A from shared
    // memory only, hence PTX text. Returns S and O (null when not issued).
    const char *types = el.isBF16() ? "bf16.bf16" : "f16.f16";
    auto issue = [&](Value kAt, Value o, ValueRange pFrags, Value vAt) -> std::pair<Value, Value> {
      std::string text, constraints;
      llvm::raw_string_ostream os(text);
      SmallVector<Value> inputs;
      SmallVector<std::string> inputConstraints;
      int64_t outputs = (kAt ? sRegs : 0) + (vAt ? oRegs : 0);
      // Operand numbers: the outputs (S, then O), then the inputs in the order they are added.
      auto input = [&](Value v, StringRef constraint) {
        inputs.push_back(v);
        inputConstraints.push_back(constraint.str());
        return "$" + std::to_string(outputs + inputs.size() - 1);
      };
      auto regList = [&](int64_t first, int64_t count) {
        std::string list = "{";
        for (int64_t i = 0; i < count; ++i)
          list += (i ? ", $" : "$") + std::to_string(first + i);
        return list + "}";
      };
      os << "{\n.reg .pred scale0;\n.reg .pred scale1;\nsetp.ne.b32 scale0, 0, 0;\n"
         << "setp.ne.b32 scale1, 1, 0;\nwgmma.fence.sync.aligned;\n";
      int64_t oFirst = 0;
      if (kAt) {
        oFirst = sRegs;
        for (int64_t sl = 0; sl < c.d / 16; ++sl) {
          int64_t inRow = 32 * (sl % 4);
          std::string descQ = input(
              descriptor(addr(qAt, (sl / 4) * blockRows * 128 + inRow), 16, 1024), "l");
          std::string descK =
              input(descriptor(addr(kAt, (sl / 4) * keys * 128 + inRow), 16, 1024), "l");
          os << "wgmma.mma_async.sync.aligned.m64n" << keys << "k16.f32." << types << " "
             << regList(0, sRegs) << ", " << descQ << ", " << descK << ", "
             << (sl ? "scale1" : "scale0") << ", 1, 1, 0, 0;\n";
        }
        os << "wgmma.commit_group.sync.aligned;\n";
      }
      if (vAt) {
        for (int64_t i = 0; i < oRegs; ++i)
          input(reg(o, i), std::to_string(oFirst + i)); // tied to its output
        for (int64_t sl = 0; sl < keys / 16; ++sl) {
          std::string a = "{";
          for (int64_t r = 0; r < 4; ++r)
            a += (r ? ", " : "") + input(pFrags[4 * sl + r], "r");
          std::string descV =
              input(descriptor(addr(vAt, sl * 16 * 128), keys * 128, 1024), "l");
          os << "wgmma.mma_async.sync.aligned.m64n" << dvHeld << "k16.f32." << types << " "
             << regList(oFirst, oRegs) << ", " << a << "}, " << descV << ", scale1, 1, 1, 1;\n";
        }
        os << "wgmma.commit_group.sync.aligned;\n";
      }
      os << "}\n";
      for (int64_t i = 0; i < outputs; ++i)
        constraints += "=f,";
      constraints += llvm::join(inputConstraints, ",");
      auto allType = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(outputs, f32));
      Value all = inlineAsm(allType, inputs, text, constraints).getResult(0);
      // The accumulators as the structs the rest of the kernel reads.
      auto part = [&](Type type, int64_t first, int64_t count) {
        Value v = LLVM::UndefOp::create(b, loc, type);
        for (int64_t i = 0; i < count; ++i)
          v = LLVM::InsertValueOp::create(b, loc, v, reg(all, first + i), ArrayRef<int64_t>{i});
        return v;
      };
      return {kAt ? part(sType, 0, sRegs) : Value(), vAt ? part(oType, oFirst, oRegs) : Value()};
    };

    // Logits and the online softmax of tile j0's scores (register 4n + 2h + e: row g + 8h,
    // key 8n + 2q + e); m, l updated; returns the rows' corrections, the probabilities in `x`.
    using Probabilities = SmallVector<std::array<std::array<Value, 2>, 2>>; // [n][h][e]
    auto softmax = [&](Value s, Value j0, MutableArrayRef<Value> m, MutableArrayRef<Value> l,
                       Probabilities &x) {
      const int64_t sFrags = keys / 8;
      x.assign(sFrags, {});
      // Unmasked logits on the tiles every row of the block sees whole (tileUnmasked). When
      // the logit is only the scale times the score (no softcap), an unmasked tile keeps the
      // raw scores: its max is the scale times theirs (rounding is monotonic, the scale
      // positive: the same value), and the scale goes into the exponent's FMA, so an element
      // costs a max, an FMA and an ex2.
      Value unmasked = tileUnmasked(j0, keys, jhi);
      const bool fold = unmasked && !logitScale && c.scale > 0 &&
                        (!c.softcap || std::isinf(*c.softcap));
      SmallVector<Value> logits = tileLogits(unmasked, 4 * sFrags, [&](bool masked) {
        SmallVector<Value> xs;
        for (int64_t h = 0; h < 2; ++h)
          for (int64_t n = 0; n < sFrags; ++n)
            for (int64_t e = 0; e < 2; ++e) {
              Value j = add(j0, add(q2, idx(8 * n + e)));
              Value sv = reg(s, 4 * n + 2 * h + e);
              xs.push_back(masked ? logit(sv, rowsOfThread[h], j,
                                          cmp(arith::CmpIPredicate::ult, j, jhi))
                           : fold ? sv
                                  : scaledLogit(sv));
            }
        return xs;
      });
      // The logits are unit · logits[i] (unit: the scale on a folded unmasked tile, else 1).
      Value unit = fold ? select(unmasked, fc(c.scale), fc(1.0)) : Value();
      Value unitLog2e = fold ? fmul(unit, fc(M_LOG2E)) : fc(M_LOG2E);
      std::array<Value, 2> corr;
      for (int64_t h = 0; h < 2; ++h) {
        Value tileMax = negInf();
        for (int64_t n = 0; n < sFrags; ++n)
          for (int64_t e = 0; e < 2; ++e) {
            x[n][h][e] = logits[(h * sFrags + n) * 2 + e];
            tileMax = fmax(tileMax, x[n][h][e]);
          }
        if (unit)
          tileMax = fmul(tileMax, unit);
        Value mNew = fmax(m[h], butterfly(tileMax, /*isMax=*/true, 2));
        Value baseMax = safe(mNew);
        // Exactly 1 when the max did not move (the FMA's residual would make it 1 + 2^-24):
        // the next step skips O's rescale when no row of the warp moved.
        Value still = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m[h], mNew);
        corr[h] = select(still, fc(1.0), fexpDiff(m[h], baseMax));
        Value sum = fc(0.0);
        for (int64_t n = 0; n < sFrags; ++n)
          for (int64_t e = 0; e < 2; ++e) {
            x[n][h][e] = fexpDiffScaled(x[n][h][e], unitLog2e, baseMax);
            sum = fadd(sum, x[n][h][e]);
          }
        l[h] = fadd(fmul(l[h], corr[h]), sum);
        m[h] = mNew;
      }
      return corr;
    };
    // P rounded to the storage type as A fragments (k slice s: registers 4s + r of n8 tile
    // 2s + r / 2, row half r % 2).
    auto roundP = [&](const Probabilities &x) {
      SmallVector<Value> pFrags;
      for (int64_t sl = 0; sl < keys / 16; ++sl)
        for (int64_t r = 0; r < 4; ++r) {
          auto &src = x[2 * sl + r / 2][r % 2];
          Value pair = vector::FromElementsOp::create(b, loc, pairType, ValueRange{src[0], src[1]});
          Value rounded = arith::TruncFOp::create(b, loc, pairElType, pair);
          pFrags.push_back(LLVM::BitcastOp::create(b, loc, i32, rounded));
        }
      return pFrags;
    };
    // O rescaled by the rows' corrections (register 4n + 2h + e holds row g + 8h), skipped by
    // a warp none of whose rows' max moved in the last tile (every correction exactly 1: a
    // warp-uniform branch on vote.any; late in long rows most tiles leave the max alone, and
    // the Dv / 2 multiplies are a fifth of a tile's instructions at head dim 128).
    auto rescale = [&](Value o, ValueRange corr) {
      Value one = fc(1.0);
      Value moved = arith::OrIOp::create(
          b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, corr[0], one),
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, corr[1], one));
      Value any = NVVM::VoteSyncOp::create(b, loc, b.getI1Type(), i32c(-1), moved,
                                           NVVM::VoteSyncKind::any);
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{oType}, any, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      Value scaled = o;
      for (int64_t i = 0; i < c.dv / 2; ++i) // not the padding columns (never stored)
        scaled = LLVM::InsertValueOp::create(b, loc, scaled, fmul(reg(o, i), corr[(i / 2) % 2]),
                                             ArrayRef<int64_t>{i});
      scf::YieldOp::create(b, loc, scaled);
      b.setInsertionPointToStart(&ifOp.getElseRegion().front());
      scf::YieldOp::create(b, loc, o);
      return ifOp.getResult(0);
    };
    auto kAtOf = [&](Value t) { return stageAddr(rem(t, 2)); };
    auto vAtOf = [&](Value t) { return addr(stageAddr(rem(t, 2)), kBytes); };

    // The pipeline (FlashAttention-3's overlap within a warpgroup): while the softmax of tile
    // t runs on the CUDA cores, P·V of tile t - 1 runs on the tensor cores. As in FA3 the
    // registers a wgmma in flight reads are never written before the wait that completes it:
    // the probabilities of tile t stay f32 until P·V of tile t - 1 is done, and only then
    // become the A fragments of tile t; O is rescaled before the next issue. K of a tile is
    // copied one step before its V: step t copies K_{t+1} and V_t, after the barrier that
    // ends the reads of the stages they fill (S of tile t - 1, P·V of tile t - 2).
    //   prologue (tile 0): publish; copies of step 0; S_0; wait; softmax(0); P_0
    //   step t = 1 .. n - 1: publish; copies of step t; O *= corr_{t-1}; S_t and P·V_{t-1}
    //     issued as one block (two groups); wait for S_t (wgmma.wait_group 1); softmax(t);
    //     wait for P·V_{t-1} (wgmma.wait_group 0); P_t
    //   epilogue: publish; O *= corr_{n-1}; P·V_{n-1}; wait.
    // With two warpgroups, each runs this on its own 64 rows over the shared K/V tiles; one
    // without rows (the last row block) skips its wgmma and softmax but still copies and
    // meets every barrier.
    // TMA: the n-th use of a stage waits for phase n of its full mbarrier; a consumer warp
    // releases a stage (lane 0 arrives on its empty mbarrier) once its wgmma reading it is done.
    auto waitFull = [&](int64_t kind, Value t) {
      NVVM::MBarrierTryWaitParityOp::create(
          b, loc, barrier(kind, rem(t, 2)),
          arith::IndexCastUIOp::create(b, loc, i32, rem(div(t, 2), 2)),
          i32c(0x989680)); // suspend hint: 10 ms
    };
    auto release = [&](int64_t kind, Value t) {
      ifThen(cmp(arith::CmpIPredicate::eq, lane, idx(0)), [&] {
        NVVM::MBarrierArriveOp::create(b, loc, Type(), barrier(kind, rem(t, 2)), Value(),
                                       NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA));
      });
    };
    // The warpgroups with rows run the pipeline below; with TMA the producer warp, on a
    // branch of its own, loads every tile (warp-uniform conditions: the warp index broadcast
    // from lane 0, as ptxas serialises wgmma under a branch it cannot prove uniform).
    auto toI32 = [&](Value x) { return arith::IndexCastUIOp::create(b, loc, i32, x).getResult(); };
    OpBuilder::InsertPoint afterRoles;
    Value wgActive, warpU;
    if (tma) {
      Value warp32 = arith::IndexCastUIOp::create(b, loc, i32, warp);
      warpU = arith::IndexCastUIOp::create(
          b, loc, b.getIndexType(),
          gpu::ShuffleOp::create(b, loc, warp32, 0, 32, gpu::ShuffleMode::IDX).getShuffleResult());
      auto roles = scf::IfOp::create(
          b, loc, TypeRange{}, cmp(arith::CmpIPredicate::eq, warpU, idx(threads / 32)), true);
      b.setInsertionPoint(roles);
      afterRoles = OpBuilder::InsertPoint(b.getInsertionBlock(), std::next(roles->getIterator()));
      {
        // Producer (lane 0): K of tile i and V of tile i - 1 for i = 0 .. n, each into its
        // stage once the consumers released it (tile t >= 2 waits for the release of t - 2:
        // phase t / 2 - 1), the box of 64 columns x `keys` keys per 64-column block.
        b.setInsertionPointToStart(&roles.getThenRegion().front());
        auto loadTile = [&](bool isV, Value t) {
          Value st = rem(t, 2);
          ifThen(cmp(arith::CmpIPredicate::ult, idx(1), t), [&] {
            NVVM::MBarrierTryWaitParityOp::create(
                b, loc, barrier(isV ? vEmpty : kEmpty, st),
                arith::IndexCastUIOp::create(b, loc, i32, rem(add(div(t, 2), idx(1)), 2)),
                i32c(0x989680));
          });
          const int64_t width = isV ? c.dv : c.d;
          Value full = barrier(isV ? vFull : kFull, st);
          NVVM::MBarrierArriveExpectTxOp::create(
              b, loc, Type(), full, i32c(2 * keys * width),
              NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA), b.getBoolAttr(false),
              Value());
          Value at = isV ? addr(stageAddr(st), kBytes) : stageAddr(st);
          Value desc =
              LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx), isV ? mapV : mapK);
          for (int64_t cb = 0; cb < width / 64; ++cb) {
            Value dst = LLVM::AddrSpaceCastOp::create(
                b, loc, LLVM::LLVMPointerType::get(ctx, 7),
                LLVM::IntToPtrOp::create(b, loc, sharedPtrType, addr(at, cb * keys * 128)));
            NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                b, loc, dst, desc,
                ValueRange{toI32(add(mul(kvh, width), idx(64 * cb))), toI32(tileStart(t)),
                           toI32(bIdx)},
                full, ValueRange{}, Value(), Value(),
                NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE), b.getBoolAttr(false),
                nullptr, Value());
          }
        };
        ifThen(andi(cmp(arith::CmpIPredicate::eq, lane, idx(0)), anyTile), [&] {
          auto tiles = scf::ForOp::create(b, loc, idx(0), add(numTiles, idx(1)), idx(1));
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(tiles.getBody());
          Value i = tiles.getInductionVar();
          ifThen(cmp(arith::CmpIPredicate::ult, i, numTiles), [&] { loadTile(false, i); });
          ifThen(cmp(arith::CmpIPredicate::ult, idx(0), i),
                 [&] { loadTile(true, sub(i, idx(1))); });
        });
      }
      b.setInsertionPointToStart(&roles.getElseRegion().front());
      if (wide) {
        auto active = scf::IfOp::create(
            b, loc, TypeRange{},
            cmp(arith::CmpIPredicate::ult, add(p0, mul(div(warpU, 4), kTcRows)), rowsTotal),
            false);
        b.setInsertionPointToStart(&active.getThenRegion().front());
      }
    } else if (wide) {
      wgActive = cmp(arith::CmpIPredicate::ult, add(p0, mul(wg, kTcRows)), rowsTotal);
    }
    auto whenActive = [&](ValueRange passthrough,
                          function_ref<SmallVector<Value>()> body) -> SmallVector<Value> {
      if (!wgActive)
        return body();
      auto op = scf::IfOp::create(b, loc, passthrough.getTypes(), wgActive, true);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&op.getThenRegion().front());
      scf::YieldOp::create(b, loc, body());
      b.setInsertionPointToStart(&op.getElseRegion().front());
      scf::YieldOp::create(b, loc, passthrough);
      return SmallVector<Value>(op.getResults());
    };
    // State: m[2], l[2], corr[2] of the last tile, then its P as A fragments.
    constexpr int64_t kState = 6;
    SmallVector<Value> init = {negInf(), negInf(), fc(0.0), fc(0.0), fc(0.0), fc(0.0)};
    init.append(pRegs, arith::ConstantIntOp::create(b, loc, i32, 0).getResult());
    // The softmax of tile t on `s` into `state` (m and l updated, corr and P replaced), with
    // `waitBefore` (the wait for P·V in flight) between the f32 softmax and P's rounding.
    auto softmaxInto = [&](Value s, Value t, SmallVectorImpl<Value> &state,
                           function_ref<void()> waitBefore) {
      Probabilities x;
      auto mState = MutableArrayRef<Value>(state);
      std::array<Value, 2> corr = softmax(s, tileStart(t), mState.take_front(2),
                                          mState.slice(2, 2), x);
      waitBefore();
      state.resize(4);
      state.append(corr.begin(), corr.end());
      state.append(roundP(x));
    };
    // FlashAttention-3's ping-pong (TMA, two warpgroups with rows): the warpgroups take turns
    // at the tensor cores, so that one's softmax runs while the other's wgmma do. Warpgroup w
    // issues a step's wgmma once named barrier 1 + w completed (its 128 threads' bar.sync and
    // the other warpgroup's 128 arrivals: that one issued its step before) and then arrives on
    // the other's barrier; warpgroup 1's first arrival lets warpgroup 0 begin, and it skips
    // the arrival after its last issue, so every phase of both barriers completes. Each
    // warpgroup issues numTiles + 1 times (S_0, then S_t with P·V_{t-1}, then P·V_{n-1}).
    Value turns, wgU;
    if (tma && wide && pingPong) {
      turns = secondActive;
      wgU = div(warpU, 4);
    }
    auto arriveOther = [&](Value cond) {
      ifThen(cond, [&] {
        NVVM::BarrierArriveOp::create(b, loc, toI32(sub(idx(2), wgU)), i32c(threads));
      });
    };
    auto turnBegin = [&] {
      if (!turns)
        return;
      ifThen(turns, [&] {
        NVVM::BarrierOp::create(b, loc, Type(), toI32(add(wgU, idx(1))), i32c(threads),
                                nullptr, Value());
      });
    };
    auto turnEnd = [&](bool last) {
      if (!turns)
        return;
      arriveOther(last ? andi(turns, cmp(arith::CmpIPredicate::eq, wgU, idx(0))) : turns);
    };
    if (turns)
      arriveOther(andi(andi(turns, anyTile), cmp(arith::CmpIPredicate::eq, wgU, idx(1))));
    auto prologue = scf::IfOp::create(b, loc, ValueRange(init).getTypes(), anyTile, true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&prologue.getThenRegion().front());
      if (!tma) {
        publish();
        copyStep(idx(0));
      }
      scf::YieldOp::create(b, loc, whenActive(init, [&] {
        if (tma)
          waitFull(kFull, idx(0));
        turnBegin();
        Value s = issue(kAtOf(idx(0)), Value(), {}, Value()).first;
        turnEnd(false);
        NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
        if (tma)
          release(kEmpty, idx(0));
        s = pin(s, sRegs);
        SmallVector<Value> state(init.begin(), init.begin() + 4);
        softmaxInto(s, idx(0), state, [] {});
        return state;
      }));
      b.setInsertionPointToStart(&prologue.getElseRegion().front());
      scf::YieldOp::create(b, loc, init);
    }
    SmallVector<Value> carried(prologue.getResults());
    carried.push_back(LLVM::ZeroOp::create(b, loc, oType));
    auto loop = scf::ForOp::create(b, loc, idx(1), numTiles, idx(1), carried);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(loop.getBody());
      Value t = loop.getInductionVar();
      ValueRange it = loop.getRegionIterArgs();
      if (!tma) {
        publish();
        copyStep(t);
      }
      scf::YieldOp::create(b, loc, whenActive(it, [&] {
        SmallVector<Value> state(it.begin(), it.begin() + 4); // m[2], l[2]
        Value o = rescale(it.back(), it.slice(4, 2));
        Value prev = sub(t, idx(1));
        if (tma) {
          waitFull(kFull, t);
          waitFull(vFull, prev);
        }
        Value s;
        turnBegin();
        std::tie(s, o) = issue(kAtOf(t), o, it.slice(kState, pRegs), vAtOf(prev));
        turnEnd(false);
        NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
        if (tma)
          release(kEmpty, t);
        s = pin(s, sRegs);
        softmaxInto(s, t, state, [&] {
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
          if (tma)
            release(vEmpty, prev);
          o = pin(o, oRegs);
        });
        state.push_back(o);
        return state;
      }));
    }
    Value oLoop = loop.getResults().back();
    auto epilogue = scf::IfOp::create(b, loc, TypeRange{oType}, anyTile, true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&epilogue.getThenRegion().front());
      if (!tma)
        publish();
      scf::YieldOp::create(b, loc, whenActive(oLoop, [&] {
        ValueRange last = loop.getResults();
        Value o = rescale(oLoop, last.slice(4, 2));
        if (tma)
          waitFull(vFull, sub(numTiles, idx(1)));
        turnBegin();
        o = issue(Value(), o, last.slice(kState, pRegs), vAtOf(sub(numTiles, idx(1)))).second;
        turnEnd(true);
        NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
        return SmallVector<Value>{pin(o, oRegs)};
      }));
      b.setInsertionPointToStart(&epilogue.getElseRegion().front());
      scf::YieldOp::create(b, loc, oLoop);
    }
    // Q's copies are waited for even when no tile ran (with TMA: before the roles).
    if (!tma)
      NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);

    Value oEnd = epilogue.getResult(0);
    storeRows(split, rowsOfThread, [&](int64_t h) { return loop.getResult(h); },
              [&](int64_t h) { return loop.getResult(2 + h); }, c.dv / 8,
              [&](int64_t n, int64_t h) {
                return vector::FromElementsOp::create(
                           b, loc, pairType,
                           ValueRange{reg(oEnd, 4 * n + 2 * h), reg(oEnd, 4 * n + 2 * h + 1)})
                    .getResult();
              },
              /*terminate=*/!tma);
    if (tma) {
      b.restoreInsertionPoint(afterRoles);
      gpu::TerminatorOp::create(b, loc);
    }
  }

  /// Host code: the 3-D tensor map of K or V (`mem`, [B, S, Hkv, width]) as B planes of
  /// min(keyLen, S) rows of Hkv · width elements, in boxes of 64 columns x `boxRows` keys with
  /// the 128-byte swizzle (the cp.async kernel's tile layout). Rows at or past the key count
  /// read as zero: a ragged last V tile multiplies zeros, not whatever a cache holds there.
  Value kvTensorMap(Value mem, int64_t width, int64_t boxRows) {
    Type i64 = b.getI64Type();
    auto toI64 = [&](Value x) { return arith::IndexCastOp::create(b, loc, i64, x).getResult(); };
    auto c64 = [&](int64_t x) { return arith::ConstantIntOp::create(b, loc, i64, x).getResult(); };
    Value base = toI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, mem));
    Value len = memref::DimOp::create(b, loc, mem, 1);
    const int64_t rowBytes = 2 * c.numKvHeads * width;
    return decoda::gpu_contraction::callI64Support(
        b, loc, "decoda_cuda_tensor_map_3d",
        {base, c64(c.numKvHeads * width), toI64(maxs(mins(keyLen, len), idx(0))),
         toI64(memref::DimOp::create(b, loc, mem, 0)), c64(rowBytes),
         arith::MulIOp::create(b, loc, toI64(len), c64(rowBytes)), c64(2), c64(64),
         c64(boxRows), c64(128)});
  }

  // The TMA kernel's mbarriers, two stages each: K full, K empty, V full, V empty.
  static constexpr int64_t kFull = 0, kEmpty = 1, vFull = 2, vEmpty = 3, kTmaBarriers = 8;
  int64_t wideRows, keysPerTile;
  bool tmaLoads, pingPong;
};

/// A head dim rounded up to the INT8 kernel's 32-byte k slices and 32-column value tiles.
int64_t roundUp32(int64_t x) { return (x + 31) / 32 * 32; }

/// Why the INT8 kernel does not take `c` ("" when it does).
std::string int8Refusal(const Config &c) {
  if (roundUp32(c.d) > kTcMaxHeadDim || roundUp32(c.dv) > kTcMaxHeadDim)
    return "head dims " + std::to_string(c.d) + ", " + std::to_string(c.dv) +
           " over 128 (Q fragments and accumulators would not fit in registers)";
  return "";
}

/// The INT8 attention kernel (decoda.int8_attention: q, k, v quantised per tensor to s8 with
/// q_scale, k_scale, v_scale, an exact integer q·k, the softmax in f32, the unnormalised
/// probabilities exp(s - m) quantised to u8 with scale 1/255 against the row's final max m,
/// an exact integer P·V; reference.py _masked_softmax_attend_int8) on integer tensor cores,
/// two launches:
///
///   Kq [B][Hkv][Jpad][Dp] i8, Vt [B][Hkv][Jpad / 64][Dvp][16] i32   Jpad = keys rounded up to
///     64, Dp = D and Dvp = Dv rounded up to 32 (zeros past D, Dv and the keys)
///   quantisation: grid (Jpad / 64, Hkv, B), 128 threads; x -> clamp(rint(x / scale), -127,
///     127); Kq rows as they are, V transposed per 64-key tile, word 8s + 4h + t (t < 4) of a
///     dv row holding the bytes of keys 32s + 16h + {2t, 2t + 1, 2t + 8, 2t + 9}
///   attention: grid (ceil(Tq * G / 64), Hkv, B), 128 threads, warp w rows 16w .. 16w + 15
///     (one m16 fragment), Ks [2][64][Dp + 16] i8 and Vs [2][Dvp][20] i32 in shared memory
///     (two stages by cp.async; the pitches put the rows of an ldmatrix matrix and the eight
///     groups of a B fragment load in distinct banks)
///     Q quantised into the s8 A fragments of mma.m16n8k32 (registers, the whole kernel)
///     pass 1, K tiles only: S = Q·Kᵀ (mma.sync.m16n8k32.s8.s8, K rows as the "col" B operand
///       by ldmatrix.x4), logits as the bf16 kernel's with the factor (scale · q_scale) ·
///       k_scale, running max per thread, the row max over the quad at the end;
///       base = max(m, sink) (0 for -inf)
///     pass 2, K and V tiles: S again (exact integers: the same logits), p = exp(x - base),
///       l += p, P = clamp(rint(255 p), 0, 255) as u8, acc += P·V (mma.sync.m16n8k32.u8.s8,
///       i32 accumulators, wrapping as the CPU's sums)
///     out = acc · v_scale / (255 · den), den = quad sum of l (+ exp(sink - base)); 0 for a row
///     without visible keys; rounded to the storage type.
///
/// The C fragment of an n8 score tile gives lane (g, t) keys 8n + 2t, 8n + 2t + 1 of rows g,
/// g + 8; the u8 A fragment of k slice s wants, in k order, (a0) row g k = 4t .. 4t + 3, (a1)
/// row g + 8, (a2, a3) k = 16 + 4t .. for the same rows. Taking for a0 the pairs of tiles 4s and
/// 4s + 1 (keys 32s + {2t, 2t + 1, 2t + 8, 2t + 9}) and for a2 those of tiles 4s + 2, 4s + 3
/// permutes the keys of the slice; Vt's word order is that permutation, so b0, b1 of a dv
/// column are words 8s + t and 8s + 4 + t of its row: two 32-bit shared loads.
class Int8Kernel : public TensorCoreKernel {
public:
  Int8Kernel(func::FuncOp fn, const Config &c, const SplitOptions &so)
      : TensorCoreKernel(fn, c, so) {}

protected:
  /// A dynamic query count: this kernel's split form up to 64 rows, else the one-pass form.
  void emitAtRunTime(Value batch) override { KernelBase::emitAtRunTime(batch); }

private:
  static constexpr int64_t kTile = 64;   // keys per tile
  static constexpr int64_t kVWords = 16; // i32 words of a dv row of one tile
  static constexpr int64_t kVPitch = 20; // words per dv row in shared memory
  int64_t dp() const { return roundUp32(c.d); }
  int64_t dvp() const { return roundUp32(c.dv); }

  /// clamp(rint(x / scale), -127, 127) as i8 (reference.py _quantize_sym).
  Value quantize(Value x, Value scale) {
    Value r = math::RoundEvenOp::create(b, loc, arith::DivFOp::create(b, loc, x, scale));
    return toByte(r, -127.0, 127.0);
  }
  /// clamp(r, lo, hi) as the i8 bits of an integer in [lo, hi] (u8 for [0, 255]).
  Value toByte(Value r, double lo, double hi) {
    r = arith::MinimumFOp::create(b, loc, arith::MaximumFOp::create(b, loc, r, fc(lo)), fc(hi));
    Value i = arith::FPToSIOp::create(b, loc, i32, r);
    return arith::TruncIOp::create(b, loc, i8, i);
  }

  /// Kq and Vt for `batch` and the cache's key tiles (returned: keyLen >= Tq > 0 inside the
  /// entry's guard; at least one tile either way).
  Value allocQuantized(Value batch) {
    i8 = b.getI8Type();
    i32 = b.getI32Type();
    Value tiles = maxs(arith::CeilDivUIOp::create(b, loc, keyLen, idx(kTile)), idx(1));
    int64_t dyn = ShapedType::kDynamic;
    kq = memref::AllocOp::create(b, loc, MemRefType::get({dyn, c.numKvHeads, dyn, dp()}, i8),
                                 ValueRange{batch, mul(tiles, kTile)});
    vt = memref::AllocOp::create(
        b, loc, MemRefType::get({dyn, c.numKvHeads, dyn, dvp(), kVWords}, i32),
        ValueRange{batch, tiles});
    return tiles;
  }

  void emitLaunch(Value batch) override {
    Value tiles = allocQuantized(batch);
    emitQuantize(batch, tiles);
    emitAttention(Phase::Full);
    memref::DeallocOp::create(b, loc, kq);
    memref::DeallocOp::create(b, loc, vt);
  }

  /// A decode step (all rows of a (batch, K/V head) in one 64-row block: a token, or a few of
  /// them as in speculative decoding): the keys split over blocks,
  /// in three launches after the quantisation: the partial row maxima, the partial sums and
  /// i32 P·V against the maxima of all splits (P is quantised against the row's final max, so
  /// the partial accumulators are exact integers and add up to the unsplit kernel's), and the
  /// combination. splits = max(1, min(ceil(target-blocks / (B Hkv)), ceil(keys / min-keys),
  /// max-splits, tiles)), computed at run time; workspaces [B][Hkv][splits][64] (maxima, sums) and
  /// [B][Hkv][splits][64][Dvp] (accumulators).
  void emitSplit(Value batch) override {
    Value tiles = allocQuantized(batch);
    int64_t dyn = ShapedType::kDynamic;
    Value bh = mul(batch, c.numKvHeads);
    splits = mins(splitCount(batch, /*tensorCoreForm=*/true), tiles); // tiles >= 1
    wsRows = kTcRows;
    Value rowsAll = mul(arith::MulIOp::create(b, loc, bh, splits), wsRows);
    workM = memref::AllocOp::create(b, loc, MemRefType::get({dyn}, f32), ValueRange{rowsAll});
    workL = memref::AllocOp::create(b, loc, MemRefType::get({dyn}, f32), ValueRange{rowsAll});
    workAcc = memref::AllocOp::create(b, loc, MemRefType::get({dyn}, i32),
                                      ValueRange{mul(rowsAll, dvp())});
    emitQuantize(batch, tiles);
    emitAttention(Phase::SplitMax);
    emitAttention(Phase::SplitSum);
    emitCombine(batch);
    for (Value buf : {kq, vt, workM, workL, workAcc})
      memref::DeallocOp::create(b, loc, buf);
  }

  /// out[b, query, head, col] = Σ_s acc_s · v_scale / (255 (Σ_s l_s (+ e^(sink - base)))),
  /// 0 for a row without visible keys; a thread per (row, column) of the block's 64 rows.
  void emitCombine(Value batch) {
    emitCombineLaunch(batch, [&](Value r, Value col, const Row &rw) {
      Value vScale = memref::LoadOp::create(b, loc, vScaleArg, ValueRange{});
      auto sums = scf::ForOp::create(b, loc, idx(0), splits, idx(1),
                                     ValueRange{negInf(), fc(0.0), i32c(0)});
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(sums.getBody());
        Value s = sums.getInductionVar();
        ValueRange it = sums.getRegionIterArgs();
        Value ms = memref::LoadOp::create(b, loc, workM, splitIndex(s, r, 1, idx(0)));
        Value ls = memref::LoadOp::create(b, loc, workL, splitIndex(s, r, 1, idx(0)));
        Value as = memref::LoadOp::create(b, loc, workAcc, splitIndex(s, r, dvp(), col));
        scf::YieldOp::create(
            b, loc, ValueRange{fmax(it[0], ms), fadd(it[1], ls), arith::AddIOp::create(b, loc, it[2], as)});
      }
      Value mAll = sums.getResult(0), den = sums.getResult(1);
      if (c.sinks) {
        Value sink = widen(memref::LoadOp::create(b, loc, sinks, ValueRange{rw.head}));
        den = fadd(den, fexp(arith::SubFOp::create(b, loc, sink, safe(fmax(mAll, sink)))));
      }
      Value dead = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mAll, negInf());
      Value a = arith::SIToFPOp::create(b, loc, f32, sums.getResult(2));
      Value y = arith::DivFOp::create(b, loc, fmul(a, vScale), fmul(fc(255.0), den));
      y = select(dead, fc(0.0), y);
      if (c.elem != f32)
        y = arith::TruncFOp::create(b, loc, c.elem, y);
      memref::StoreOp::create(b, loc, y, out, ValueRange{bIdx, rw.query, rw.head, col});
    });
  }

  /// Kq and Vt from K and V: a block per (64-key tile, K/V head, batch). V's tile is read row by
  /// row (consecutive threads, consecutive dv: coalesced), quantised into shared memory
  /// `Vb[64][Dvp + 4]` i8, and after a barrier each thread gathers the four bytes of a word of
  /// the permuted layout from there.
  void emitQuantize(Value batch, Value tiles) {
    Value one = idx(1);
    auto shared = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
    auto vbType = MemRefType::get({kTile, dvp() + 4}, i8, MemRefLayoutAttrInterface(), shared);
    auto launch = gpu::LaunchOp::create(b, loc, tiles, idx(c.numKvHeads), batch, idx(kThreads),
                                        one, one, /*dynamicSharedMemorySize=*/nullptr,
                                        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
                                        TypeRange{vbType});
    Value vb = launch.getWorkgroupAttributions()[0];
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    tid = launch.getThreadIds().x;
    Value tile = launch.getBlockIds().x, h = launch.getBlockIds().y, bb = launch.getBlockIds().z;
    Value kScale = memref::LoadOp::create(b, loc, kScaleArg, ValueRange{});
    Value vScale = memref::LoadOp::create(b, loc, vScaleArg, ValueRange{});
    Value j0 = mul(tile, kTile);

    // K: four bytes of a row per thread and step (dp / 8 steps).
    int64_t words = dp() / 4;
    for (int64_t i = 0; i < kTile * words / kThreads; ++i) {
      Value e = add(tid, idx(i * kThreads));
      Value j = add(j0, div(e, words)), d0 = mul(rem(e, words), 4);
      Value live = cmp(arith::CmpIPredicate::ult, j, keyLen);
      SmallVector<Value> bytes;
      for (int64_t x = 0; x < 4; ++x) {
        Value d = add(d0, idx(x));
        Value valid = live;
        if (dp() != c.d)
          valid = andi(valid, cmp(arith::CmpIPredicate::ult, d, idx(c.d)));
        bytes.push_back(quantize(guardedLoad(valid, k, ValueRange{bb, j, h, d}), kScale));
      }
      // One 4-byte store (rows of Dp, a multiple of 32 bytes, from an aligned allocation).
      Value word = vector::FromElementsOp::create(b, loc, VectorType::get({4}, i8), bytes);
      vector::StoreOp::create(b, loc, word, kq, ValueRange{bb, h, j, d0}, /*nontemporal=*/false,
                              llvm::MaybeAlign(4));
    }
    // V: the tile's bytes into Vb (zeros past Dv and the keys), a row of Dvp at a time.
    for (int64_t i = 0; i < kTile * dvp() / kThreads; ++i) {
      Value e = add(tid, idx(i * kThreads));
      Value key = div(e, dvp()), d = rem(e, dvp());
      Value j = add(j0, key);
      Value valid = cmp(arith::CmpIPredicate::ult, j, keyLen);
      if (dvp() != c.dv)
        valid = andi(valid, cmp(arith::CmpIPredicate::ult, d, idx(c.dv)));
      memref::StoreOp::create(b, loc, quantize(guardedLoad(valid, v, ValueRange{bb, j, h, d}), vScale),
                              vb, ValueRange{key, d});
    }
    gpu::BarrierOp::create(b, loc);
    // Then one word (four keys of a dv row) per thread and step (dvp / 8 steps).
    for (int64_t i = 0; i < dvp() * kVWords / kThreads; ++i) {
      Value e = add(tid, idx(i * kThreads));
      Value row = div(e, kVWords), w = rem(e, kVWords);
      Value first = add(mul(div(w, 8), 32), add(mul(rem(div(w, 4), 2), 16), mul(rem(w, 4), 2)));
      Value word = i32c(0);
      for (auto [x, off] : llvm::enumerate(std::array<int64_t, 4>{0, 1, 8, 9})) {
        Value byte = memref::LoadOp::create(b, loc, vb, ValueRange{add(first, idx(off)), row});
        Value wide = arith::ExtUIOp::create(b, loc, i32, byte);
        if (x)
          wide = arith::ShLIOp::create(b, loc, wide, i32c(8 * x));
        word = arith::OrIOp::create(b, loc, word, wide);
      }
      memref::StoreOp::create(b, loc, word, vt, ValueRange{bb, h, tile, row, w});
    }
    gpu::TerminatorOp::create(b, loc);
  }

  /// The copies of key tile `tIdx` (K, and V with `withV`) into `stage`; nothing is read when
  /// `live` is false (zero fill from tile 0).
  Value copyTile(Value stage, Value tIdx, Value live, bool withV) {
    SmallVector<Value> tokens;
    Value tSafe = select(live, tIdx, idx(0));
    copyRows(
        tokens, kq, ks, kTile, dp(), [&](Value r) { return SmallVector<Value>{stage, r}; },
        [&](Value r, Value col) {
          return std::pair{live, SmallVector<Value>{bIdx, kvh, add(mul(tSafe, kTile), r), col}};
        },
        /*perChunk=*/16);
    if (withV)
      copyRows(
          tokens, vt, vs, dvp(), kVWords, [&](Value r) { return SmallVector<Value>{stage, r}; },
          [&](Value r, Value col) {
            return std::pair{live, SmallVector<Value>{bIdx, kvh, tSafe, r, col}};
          },
          /*perChunk=*/4);
    return group(tokens);
  }

  /// for t < numTiles: tile tLo + t through the two stages, the next one's copy in flight;
  /// body(j0, stage, iterArgs) gives the values to yield.
  scf::ForOp streamTiles(
      bool withV, Value tLo, Value numTiles, ValueRange init,
      function_ref<SmallVector<Value>(Value j0, Value stage, ValueRange it)> body) {
    Value first =
        copyTile(idx(0), tLo, cmp(arith::CmpIPredicate::sgt, numTiles, idx(0)), withV);
    auto loop = scf::ForOp::create(b, loc, idx(0), numTiles, idx(1), init);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      Value t = loop.getInductionVar();
      Value next = add(t, idx(1));
      auto prefetch = scf::IfOp::create(b, loc, TypeRange{},
                                        cmp(arith::CmpIPredicate::ult, next, numTiles), true);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&prefetch.getThenRegion().front());
        Value grp = copyTile(rem(next, 2), add(tLo, next),
                             arith::ConstantOp::create(b, loc, b.getBoolAttr(true)), withV);
        nvgpu::DeviceAsyncWaitOp::create(b, loc, grp, b.getI32IntegerAttr(1));
        b.setInsertionPointToStart(&prefetch.getElseRegion().front());
        nvgpu::DeviceAsyncWaitOp::create(b, loc, first, b.getI32IntegerAttr(0));
      }
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> yielded =
          body(mul(add(tLo, t), kTile), rem(t, 2), loop.getRegionIterArgs());
      // Nobody refills this stage (the next iteration's prefetch) before every warp is done.
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, yielded);
    }
    // Nothing is left in flight (the zero fill of an empty range included).
    nvgpu::DeviceAsyncWaitOp::create(b, loc, first, b.getI32IntegerAttr(0));
    return loop;
  }

  /// S = Q·Kᵀ of keys 8 nLo .. 8 nHi - 1 of the tile in `stage`: nHi - nLo n8 fragments of
  /// i32 (nLo, nHi even).
  SmallVector<Value> scores(Value stage, int64_t nLo, int64_t nHi) {
    auto accType = VectorType::get({2, 2}, i32);
    Value zero = arith::ConstantOp::create(b, loc, accType, b.getZeroAttr(accType));
    SmallVector<Value> sAcc(nHi - nLo, zero);
    Value r = add(rem(lane, 8), mul(div(lane, 16), 8));
    Value col = mul(rem(div(lane, 8), 2), 16);
    for (int64_t s = 0; s < dp() / 32; ++s)
      for (int64_t n = nLo; n < nHi; n += 2) {
        Value x4 = mlir::decoda::gpu_mma::ldmatrix(
            b, loc, fragType, ks, {stage, add(r, idx(8 * n)), add(col, idx(32 * s))},
            /*transpose=*/false, 4);
        auto [b0, b1] = mlir::decoda::gpu_mma::splitX4(b, loc, x4);
        sAcc[n - nLo] = mma(qFrags[s], b0, sAcc[n - nLo]);
        sAcc[n - nLo + 1] = mma(qFrags[s], b1, sAcc[n - nLo + 1]);
      }
    return sAcc;
  }

  Value mma(Value a, Value bFrag, Value acc) {
    return nvgpu::MmaSyncOp::create(b, loc, a, bFrag, acc, ArrayRef<int64_t>{16, 8, 32});
  }

  /// The logits x[n][h][e] of the fragments of keys from j0 (key j0 + 8n + 2t + e of the
  /// thread's row h).
  SmallVector<std::array<std::array<Value, 2>, 2>> logits(ArrayRef<Value> sAcc, Value j0,
                                                          Value jhi) {
    SmallVector<std::array<std::array<Value, 2>, 2>> x(sAcc.size());
    for (auto [n, frag] : llvm::enumerate(sAcc))
      for (int64_t h = 0; h < 2; ++h) {
        Value pair = vector::ExtractOp::create(b, loc, frag, ArrayRef<int64_t>{h});
        for (int64_t e = 0; e < 2; ++e) {
          Value j = add(j0, add(q2, idx(8 * int64_t(n) + e)));
          Value s = vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{e});
          Value sf = arith::SIToFPOp::create(b, loc, f32, s);
          x[n][h][e] = logit(sf, rowsOfThread[h], j, cmp(arith::CmpIPredicate::ult, j, jhi));
        }
      }
    return x;
  }

  /// The launches of the attention proper: one kernel over whole key ranges (Full), or, for a
  /// split decode step, the partial row maxima (SplitMax) and the partial sums and P·V
  /// against the maxima of all splits (SplitSum).
  enum class Phase { Full, SplitMax, SplitSum };

  void emitAttention(Phase phase) {
    MLIRContext *ctx = b.getContext();
    auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto ksType =
        MemRefType::get({2, kTile, dp() + 16}, i8, MemRefLayoutAttrInterface(), shared);
    auto vsType = MemRefType::get({2, dvp(), kVPitch}, i32, MemRefLayoutAttrInterface(), shared);
    auto launch = createLaunch({ksType, vsType}, phase == Phase::Full ? Value() : splits);
    ks = launch.getWorkgroupAttributions()[0];
    vs = launch.getWorkgroupAttributions()[1];
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    readIds(launch);
    if (phase != Phase::Full)
      p0 = idx(0); // the block's rows are all rows of (batch, K/V head); block x is the split
    Value g8 = div(lane, 4), t4 = rem(lane, 4);
    q2 = mul(t4, 2);
    fragType = VectorType::get({4, 4}, i8);
    Value qScale = memref::LoadOp::create(b, loc, qScaleArg, ValueRange{});
    Value kScale = memref::LoadOp::create(b, loc, kScaleArg, ValueRange{});
    Value vScale = memref::LoadOp::create(b, loc, vScaleArg, ValueRange{});
    logitScale = fmul(fmul(fc(c.scale), qScale), kScale);
    for (int64_t h = 0; h < 2; ++h)
      rowsOfThread[h] = row(add(p0, add(mul(warp, 16), add(g8, idx(8 * h)))));

    // Q: the A fragments of each k32 slice, quantised from global memory (register r: row
    // g + 8 (r % 2), d = 32s + 16 (r / 2) + 4t + 0..3).
    qFrags.clear();
    for (int64_t s = 0; s < dp() / 32; ++s) {
      SmallVector<Value> bytes;
      for (int64_t r = 0; r < 4; ++r) {
        const Row &rw = rowsOfThread[r % 2];
        for (int64_t x = 0; x < 4; ++x) {
          Value d = add(mul(t4, 4), idx(32 * s + 16 * (r / 2) + x));
          Value valid = rw.valid;
          if (dp() != c.d)
            valid = andi(valid, cmp(arith::CmpIPredicate::ult, d, idx(c.d)));
          bytes.push_back(quantize(
              guardedLoad(valid, q, ValueRange{bIdx, rw.query, rw.head, d}), qScale));
        }
      }
      qFrags.push_back(vector::FromElementsOp::create(b, loc, fragType, bytes));
    }

    // Whole 64-key tiles covering the keys the block's rows can see (a split: its share).
    // (Not a structured binding: lambdas below capture jhi.)
    Value jlo, jhi;
    std::tie(jlo, jhi) = keyRange();
    Value tLo = div(jlo, kTile);
    Value tHi = arith::CeilDivUIOp::create(b, loc, jhi, idx(kTile));
    Value numTiles =
        select(cmp(arith::CmpIPredicate::sgt, jhi, jlo), sub(tHi, tLo), idx(0));
    if (phase != Phase::Full) {
      Value split = launch.getBlockIds().x;
      Value per = arith::CeilDivUIOp::create(b, loc, numTiles, splits);
      Value first = mins(arith::MulIOp::create(b, loc, split, per), numTiles);
      tLo = add(tLo, first);
      numTiles = mins(per, sub(numTiles, first));
    }
    std::array<Value, 2> mRow, base, sink;
    // Rows r = 16 warp + g + 8h of the block (the split workspaces hold all 64).
    std::array<Value, 2> rIdx;
    for (int64_t h = 0; h < 2; ++h)
      rIdx[h] = add(mul(warp, 16), add(g8, idx(8 * h)));

    if (phase != Phase::SplitSum) {
      // Pass 1: the row max.
      auto maxLoop = streamTiles(
          /*withV=*/false, tLo, numTiles, ValueRange{negInf(), negInf()},
          [&](Value j0, Value stage, ValueRange it) {
            auto x = logits(scores(stage, 0, kTile / 8), j0, jhi);
            SmallVector<Value> m(it.begin(), it.end());
            for (auto &tileX : x)
              for (int64_t h = 0; h < 2; ++h)
                for (int64_t e = 0; e < 2; ++e)
                  m[h] = fmax(m[h], tileX[h][e]);
            return m;
          });
      for (int64_t h = 0; h < 2; ++h)
        mRow[h] = butterfly(maxLoop.getResult(h), /*isMax=*/true, 2);
    }
    if (phase == Phase::SplitMax) {
      // One lane of each quad leaves the row's partial max.
      for (int64_t h = 0; h < 2; ++h) {
        auto lead = scf::IfOp::create(
            b, loc, TypeRange{}, andi(rowsOfThread[h].valid, cmp(arith::CmpIPredicate::eq, t4, idx(0))),
            false);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&lead.getThenRegion().front());
        memref::StoreOp::create(b, loc, mRow[h], workM,
                                splitIndex(launch.getBlockIds().x, rIdx[h], 1, idx(0)));
      }
      gpu::TerminatorOp::create(b, loc);
      return;
    }
    if (phase == Phase::SplitSum) {
      // The row max over every split's keys (as the unsplit kernel's).
      for (int64_t h = 0; h < 2; ++h) {
        Value r = select(rowsOfThread[h].valid, rIdx[h], idx(0));
        auto maxOver = scf::ForOp::create(b, loc, idx(0), splits, idx(1), ValueRange{negInf()});
        {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(maxOver.getBody());
          Value ms = memref::LoadOp::create(
              b, loc, workM, splitIndex(maxOver.getInductionVar(), r, 1, idx(0)));
          scf::YieldOp::create(b, loc, ValueRange{fmax(maxOver.getRegionIterArgs()[0], ms)});
        }
        mRow[h] = maxOver.getResult(0);
      }
    }
    for (int64_t h = 0; h < 2; ++h) {
      Value top = mRow[h];
      if (c.sinks) {
        sink[h] = widen(memref::LoadOp::create(b, loc, sinks, ValueRange{rowsOfThread[h].head}));
        top = fmax(top, sink[h]);
      }
      base[h] = safe(top);
    }

    // Pass 2: the sums and P·V.
    auto accType = VectorType::get({2, 2}, i32);
    auto bType = VectorType::get({2, 4}, i8);
    auto wordType = VectorType::get({1}, i32);
    auto bytesType = VectorType::get({4}, i8);
    Value zeroAcc = arith::ConstantOp::create(b, loc, accType, b.getZeroAttr(accType));
    Value zeroB = arith::ConstantOp::create(b, loc, bType, b.getZeroAttr(bType));
    int64_t accFrags = dvp() / 8;
    SmallVector<Value> init = {fc(0.0), fc(0.0)};
    init.append(accFrags, zeroAcc);
    auto sumLoop = streamTiles(
        /*withV=*/true, tLo, numTiles, init, [&](Value j0, Value stage, ValueRange it) {
          SmallVector<Value> l(it.begin(), it.begin() + 2), acc(it.begin() + 2, it.end());
          // A k32 slice of keys at a time (fewer live score registers).
          for (int64_t s = 0; s < kTile / 32; ++s) {
            auto x = logits(scores(stage, 4 * s, 4 * s + 4), add(j0, idx(32 * s)), jhi);
            SmallVector<std::array<std::array<Value, 2>, 2>> pu(x.size());
            for (auto [n, tileX] : llvm::enumerate(x))
              for (int64_t h = 0; h < 2; ++h)
                for (int64_t e = 0; e < 2; ++e) {
                  Value p = fexp(arith::SubFOp::create(b, loc, tileX[h][e], base[h]));
                  l[h] = fadd(l[h], p);
                  pu[n][h][e] = toByte(
                      math::RoundEvenOp::create(b, loc, fmul(p, fc(255.0))), 0.0, 255.0);
                }
            // a0 / a1: tiles 4s, 4s + 1 of rows g / g + 8; a2 / a3: tiles 4s + 2, 4s + 3.
            SmallVector<Value> bytes;
            for (int64_t r = 0; r < 4; ++r)
              for (int64_t tile = 0; tile < 2; ++tile)
                for (int64_t e = 0; e < 2; ++e)
                  bytes.push_back(pu[2 * (r / 2) + tile][r % 2][e]);
            Value pFrag = vector::FromElementsOp::create(b, loc, fragType, bytes);
            for (int64_t nv = 0; nv < accFrags; ++nv) {
              Value frag = zeroB;
              for (int64_t reg = 0; reg < 2; ++reg) {
                Value word = memref::LoadOp::create(
                    b, loc, vs,
                    ValueRange{stage, add(g8, idx(8 * nv)), add(t4, idx(8 * s + 4 * reg))});
                Value asBytes = vector::BitCastOp::create(
                    b, loc, bytesType, vector::FromElementsOp::create(b, loc, wordType, word));
                frag = vector::InsertOp::create(b, loc, asBytes, frag, ArrayRef<int64_t>{reg});
              }
              auto pv = nvgpu::MmaSyncOp::create(b, loc, pFrag, frag, acc[nv],
                                                 ArrayRef<int64_t>{16, 8, 32});
              // A holds u8 (decoda-gpu-lower-bf16-mma emits the .u8.s8 form).
              pv->setAttr(mlir::decoda::gpu_mma::kUnsignedAAttr, b.getUnitAttr());
              acc[nv] = pv;
            }
          }
          SmallVector<Value> yielded(l);
          yielded.append(acc);
          return yielded;
        });

    if (phase == Phase::SplitSum) {
      // The partial sums (one lane of each quad) and the i32 accumulators (each thread its
      // fragment elements), for the combining kernel.
      Value split = launch.getBlockIds().x;
      for (int64_t h = 0; h < 2; ++h) {
        Value den = butterfly(sumLoop.getResult(h), /*isMax=*/false, 2);
        auto lead = scf::IfOp::create(
            b, loc, TypeRange{}, andi(rowsOfThread[h].valid, cmp(arith::CmpIPredicate::eq, t4, idx(0))),
            false);
        {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(&lead.getThenRegion().front());
          memref::StoreOp::create(b, loc, den, workL, splitIndex(split, rIdx[h], 1, idx(0)));
        }
        auto inside = scf::IfOp::create(b, loc, TypeRange{}, rowsOfThread[h].valid, false);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&inside.getThenRegion().front());
        for (int64_t nv = 0; nv < accFrags; ++nv) {
          Value pair = vector::ExtractOp::create(b, loc, sumLoop.getResult(2 + nv),
                                                 ArrayRef<int64_t>{h});
          for (int64_t e = 0; e < 2; ++e)
            memref::StoreOp::create(
                b, loc, vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{e}), workAcc,
                splitIndex(split, rIdx[h], dvp(), add(q2, idx(8 * nv + e))));
        }
      }
      gpu::TerminatorOp::create(b, loc);
      return;
    }

    // out = acc · v_scale / (255 · den), 0 for rows without a visible key.
    for (int64_t h = 0; h < 2; ++h) {
      const Row &rw = rowsOfThread[h];
      Value den = butterfly(sumLoop.getResult(h), /*isMax=*/false, 2);
      if (c.sinks)
        den = fadd(den, fexp(arith::SubFOp::create(b, loc, sink[h], base[h])));
      Value dead = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mRow[h], negInf());
      Value den255 = fmul(fc(255.0), den);
      auto store = scf::IfOp::create(b, loc, TypeRange{}, rw.valid, false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      for (int64_t nv = 0; nv < accFrags; ++nv) {
        Value pair =
            vector::ExtractOp::create(b, loc, sumLoop.getResult(2 + nv), ArrayRef<int64_t>{h});
        for (int64_t e = 0; e < 2; ++e) {
          Value col = add(q2, idx(8 * nv + e));
          Value a = arith::SIToFPOp::create(
              b, loc, f32, vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{e}));
          Value y = arith::DivFOp::create(b, loc, fmul(a, vScale), den255);
          y = select(dead, fc(0.0), y);
          if (c.elem != f32)
            y = arith::TruncFOp::create(b, loc, c.elem, y);
          OpBuilder::InsertionGuard g3(b);
          if (8 * nv + 8 > c.dv) {
            auto inside = scf::IfOp::create(
                b, loc, TypeRange{}, cmp(arith::CmpIPredicate::ult, col, idx(c.dv)), false);
            b.setInsertionPointToStart(&inside.getThenRegion().front());
          }
          memref::StoreOp::create(b, loc, y, out, ValueRange{bIdx, rw.query, rw.head, col});
        }
      }
    }
    gpu::TerminatorOp::create(b, loc);
  }

  Type i8, i32;
  VectorType fragType;  // vector<4x4xi8>: an A fragment (or two B fragments) of m16n8k32
  Value kq, vt, ks, vs; // the quantised K / V and their shared-memory stages
  Value workM, workL, workAcc; // split decode steps: partial maxima, sums, accumulators
  Value q2;             // 2 (lane % 4)
  std::array<Row, 2> rowsOfThread;
  SmallVector<Value> qFrags;
};

/// The tensor-core kernel's nvgpu ops (ldmatrix, mma.sync, cp.async) inside the tagged
/// function: upstream NVGPU has no inliner interface (LLVM 22), so without this the pipeline's
/// `inline` would leave the function a call. They are plain data and memory operations with no
/// regions or symbols, legal wherever they are inlined.
struct NVGPUInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final { return true; }
};

struct GPUFlashAttentionPass
    : public mlir::decoda::impl::GPUFlashAttentionPassBase<GPUFlashAttentionPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registry.addExtension(+[](MLIRContext *, nvgpu::NVGPUDialect *dialect) {
      if (!dialect->getRegisteredInterface<DialectInlinerInterface>())
        dialect->addInterfaces<NVGPUInlinerInterface>();
    });
  }

  void runOnOperation() override {
    if (wgmmaRows != 64 && wgmmaRows != 128) {
      getOperation().emitError()
          << "decoda-gpu-flash-attention: wgmma-rows must be 64 or 128 (got "
          << static_cast<int64_t>(wgmmaRows) << ")";
      return signalPassFailure();
    }
    if (wgmmaKeys != 64 && wgmmaKeys != 128) {
      getOperation().emitError()
          << "decoda-gpu-flash-attention: wgmma-keys must be 64 or 128 (got "
          << static_cast<int64_t>(wgmmaKeys) << ")";
      return signalPassFailure();
    }
    using mlir::decoda::gpu_contraction::kMaxDynamicSharedBytes;
    if (maxSharedBytes < kSharedLimit || maxSharedBytes > kMaxDynamicSharedBytes) {
      getOperation().emitError()
          << "decoda-gpu-flash-attention: max-shared-bytes must be between " << kSharedLimit
          << " (the static limit) and " << kMaxDynamicSharedBytes << " (sm_90's) (got "
          << static_cast<int64_t>(maxSharedBytes) << ")";
      return signalPassFailure();
    }
    for (auto fn : llvm::to_vector(getOperation().getOps<func::FuncOp>())) {
      bool int8 = fn->hasAttr(decoda::kInt8AttentionAttr);
      auto dict = fn->getAttrOfType<DictionaryAttr>(int8 ? decoda::kInt8AttentionAttr
                                                         : decoda::kGPUAttentionAttr);
      if (!dict)
        continue;
      StringAttr op = dict.getAs<StringAttr>("op");
      StringRef opName = op ? op.getValue() : int8 ? "INT8 attention" : "attention";
      std::string why;
      SplitOptions split{decodeSplits, decodeTargetBlocks, decodeMinKeys, decodeTcTargetBlocks,
                         decodeTcMinKeys};
      if (split.targetBlocks < 1 || split.minKeys < 1 || split.tcTargetBlocks < 1 ||
          split.tcMinKeys < 1) {
        getOperation().emitError()
            << "decoda-gpu-flash-attention: decode-target-blocks, decode-min-keys, "
               "decode-tc-target-blocks and decode-tc-min-keys must be at least 1 (got "
            << split.targetBlocks << ", " << split.minKeys << ", " << split.tcTargetBlocks << ", "
            << split.tcMinKeys << ")";
        return signalPassFailure();
      }
      FailureOr<Config> c = readConfig(fn, dict, split, int8, why);
      if (succeeded(c))
        c->vFromK = valueIsKeyPrefix(fn, getOperation(), *c);
      if (int8 && !tensorCores) {
        // Its target-neutral form reads scalars in host code, which the GPU pipeline refuses
        // later with a less direct message.
        mlir::emitError(fn.getLoc())
            << "decoda-gpu-flash-attention: " << opName
            << " needs the integer tensor-core kernel (tensor-cores=false: the GPU is before "
               "sm_80); quantize without INT8 attention (--quant-attention=false) for it";
        return signalPassFailure();
      }
      if (succeeded(c) && int8)
        why = int8Refusal(*c);
      if (failed(c) || !why.empty()) {
        mlir::emitRemark(fn.getLoc())
            << "decoda-gpu-flash-attention: " << opName
            << " keeps the target-neutral lowering (key-tile loop of kernels): " << why;
        ++numLeft;
        continue;
      }
      if (int8) {
        Int8Kernel(fn, *c, split).emit();
        fn->removeAttr(decoda::kInt8AttentionAttr);
        ++numKernels;
        ++numInt8;
        if (c->split != Config::Split::Never)
          ++numSplit;
        continue;
      }
      std::string tcWhy = tensorCores ? tensorCoreRefusal(*c) : "disabled (tensor-cores=false)";
      // The wgmma form (sm_90a) also takes head dims the mma.sync kernel does not (over 128:
      // Gemma's 256, MLA's 192 / 128).
      std::string wgmmaWhy = !tensorCores ? tcWhy
                             : wgmma      ? WgmmaKernel::refusal(*c)
                                          : "disabled (wgmma=false)";
      const bool useWgmma = wgmmaWhy.empty();
      if (useWgmma)
        tcWhy.clear();
      else if (wgmma && tensorCores && !tcWhy.empty())
        tcWhy += "; wgmma: " + wgmmaWhy;
      // With the tensor-core kernel, up to 64 rows of a (batch, K/V head) split the keys: 16 or
      // fewer in the SIMT split form (when its tiles fit), more in the tensor-core one.
      if (tcWhy.empty()) {
        c->tcSplit = true;
        c->simtSplit = c->sharedBytes() <= kSharedLimit;
        c->decideSplit(split.maxSplits);
      }
      if (!tcWhy.empty() && c->sharedBytes() > maxSharedBytes) {
        mlir::emitRemark(fn.getLoc())
            << "decoda-gpu-flash-attention: " << opName
            << " keeps the target-neutral lowering (key-tile loop of kernels): the tiles need "
            << c->sharedBytes() << " bytes of shared memory, over the "
            << static_cast<int64_t>(maxSharedBytes)
            << " a block may use on the target (max-shared-bytes; head dims " << c->d << ", "
            << c->dv << "); no tensor-core kernel: " << tcWhy;
        ++numLeft;
        continue;
      }
      if (tcWhy.empty()) {
        // TMA loads whole 64-column boxes; other head dims take cp.async.
        bool kvByTma = useWgmma && wgmmaTma && WgmmaKernel::tmaTakes(*c);
        if (useWgmma && wgmmaTma && !kvByTma && report)
          mlir::emitRemark(fn.getLoc())
              << "decoda-gpu-flash-attention: " << opName
              << " loads K/V by cp.async, not TMA: head dims " << c->d << ", " << c->dv
              << " are not whole 64-column boxes";
        numForwarded += forwardCopiedOperands(fn, getOperation(), kvByTma, c->chunkElems());
        if (useWgmma) {
          int64_t keys = WgmmaKernel::tileKeys(*c, wgmmaKeys);
          int64_t rows = WgmmaKernel::blockRowsFor(*c, wgmmaRows, keys, kvByTma);
          if (report && (keys != wgmmaKeys || rows != wgmmaRows))
            mlir::emitRemark(fn.getLoc())
                << "decoda-gpu-flash-attention: " << opName << " takes " << rows
                << "-row blocks and " << keys << "-key tiles (head dims " << c->d << ", " << c->dv
                << ": registers and shared memory)";
          WgmmaKernel(fn, *c, split, rows, keys, kvByTma, wgmmaPingPong).emit();
          ++numWgmma;
        } else {
          // wgmma=false: whatever the mma.sync kernel takes, the wgmma form takes too.
          TensorCoreKernel(fn, *c, split).emit();
        }
        ++numTensorCore;
      } else {
        if (report)
          mlir::emitRemark(fn.getLoc())
              << "decoda-gpu-flash-attention: " << opName
              << " takes the f32 SIMT kernel, not the tensor-core one: " << tcWhy
              << (c->sharedBytes() > kSharedLimit
                      ? " (its tiles in " + std::to_string(c->sharedBytes()) +
                            " bytes of dynamic shared memory)"
                      : std::string())
              << (c->vFromK ? "; V is the first " + std::to_string(c->dv) +
                                  " columns of K: P·V reads the K tile"
                            : std::string());
        numForwarded += forwardCopiedOperands(fn, getOperation(), /*kvByTma=*/false,
                                              c->chunkElems(), c->vFromK);
        if (c->wideStage())
          c->kSplitCol = splitConcatenatedKey(fn, getOperation(), *c, c->chunkElems());
        if (c->kSplitCol && report)
          mlir::emitRemark(fn.getLoc())
              << "decoda-gpu-flash-attention: " << opName << " reads K from the two buffers "
              << "its columns were copied from (0 .. " << c->kSplitCol - 1 << ", "
              << c->kSplitCol << " .. " << c->d - 1 << "); the copies go";
        SimtKernel(fn, *c, split).emit();
      }
      fn->removeAttr(decoda::kGPUAttentionAttr);
      ++numKernels;
      if (c->split != Config::Split::Never)
        ++numSplit;
    }
  }
};
} // namespace
