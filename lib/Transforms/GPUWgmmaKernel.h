//===- GPUWgmmaKernel.h - the sm_90a wgmma projection kernel ----*- C++ -*-===//
//
// The Hopper kernel of decoda-gpu-tensorcore-matmul (GPUPasses.td, option `wgmma`): a bf16/f16
// or INT8 projection contraction on warpgroup MMA (wgmma.mma_async) with both operands in
// shared memory. Emitted by GPUTensorCoreMatmul.cpp, which keeps mma.sync for other targets
// (and INT8 contractions whose K is not a multiple of the 64-byte stage).
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_TRANSFORMS_GPUWGMMAKERNEL_H
#define DECODA_LIB_TRANSFORMS_GPUWGMMAKERNEL_H

#include "GPUContraction.h"

#include <string>

namespace mlir::decoda::gpu_contraction {

struct WgmmaConfig {
  int64_t tileM = 128; // rows of C per block: 64 per warpgroup
  int64_t tileN = 128; // columns of C per block: the N of each wgmma (m64nNk16)
  int64_t tileK = 32;  // k elements per shared-memory stage (a multiple of 16)
  int64_t stages = 3;  // shared-memory stages (ring); copies run stages - 2 tiles ahead
  /// TMA (cp.async.bulk.tensor) fills the stages instead of cp.async: 128-byte stage rows
  /// (64 bf16/f16, 128 i8; tile-k is not used) in the 128-byte swizzle, one mbarrier per
  /// stage, loads running stages - 1 tiles ahead, dynamic shared memory.
  bool tma = false;
  int64_t tmaStages = 4;
  /// With `tma`: a producer warpgroup (its thread 0 issues the loads, waiting on one "empty"
  /// mbarrier per stage) and tile-m / 64 consumer warpgroups that release each stage after
  /// their wgmma of it completed, without a block-wide barrier per k tile.
  bool warpSpecialize = false;
  /// With `tma`: two weights sharing A (a GLU's gate and up projections): B's stage holds
  /// tile-n rows of each, one wgmma of N = 2 tile-n computes both tiles, and the store sees
  /// both accumulators of an element (emitWgmmaKernel's `secondB`).
  bool dualB = false;
  /// Bytes of a TMA stage row: the 128-byte swizzle's span.
  static constexpr int64_t kTmaRowBytes = 128;
  int64_t warpgroups() const { return tileM / 64; }
  /// Rows of a B stage, the N of each wgmma.
  int64_t bRows() const { return tileN * (dualB ? 2 : 1); }
  int64_t threads() const { return 128 * warpgroups(); }
  bool producerWarpgroup() const { return tma && warpSpecialize; }
  /// Threads of a block: the consumer (MMA) warpgroups and the producer's.
  int64_t launchThreads() const { return threads() + (producerWarpgroup() ? 128 : 0); }
  int64_t sharedBytes(int64_t elementBytes) const {
    return stages * (tileM + bRows()) * tileK * elementBytes;
  }
  /// Dynamic shared memory of the TMA kernel: its stages, 1024 bytes to align them to the
  /// swizzle's 1024-byte pattern at run time, and one 8-byte mbarrier per stage.
  int64_t tmaSharedBytes() const {
    return tmaStages * (tileM + bRows()) * kTmaRowBytes + 1024 +
           8 * tmaStages * (producerWarpgroup() ? 2 : 1);
  }
};

/// The most dynamic shared memory a block may have on sm_90 (227 KiB).
constexpr int64_t kMaxDynamicSharedBytes = 232448;

/// Why `cfg` is not a valid wgmma tiling, or "".
std::string invalidWgmmaConfig(const WgmmaConfig &cfg);

/// Stores an accumulator pair (vector<2xf32> or vector<2xi32>) of row `row`, columns `col`,
/// `col + 1` into `out2` (the output collapsed to [M, N]); `operands` are what the kernel's
/// EpilogueLoadFn returned for the pair (empty without one); `secondPair` is the same pair of
/// the second weight's accumulators (`dualB`; null otherwise).
using StorePairFn = llvm::function_ref<void(OpBuilder &b, Value pair, Value row, Value col,
                                            Value out2, ArrayRef<Value> operands,
                                            Value secondPair)>;

/// Loads what the store of the pair at (`row`, `col`, `col` + 1) needs besides the
/// accumulators (an epilogue's other inputs). The kernel calls it for every pair of the
/// thread before its K loop, outside any guard, with the row and column clamped into the
/// output: the loads are independent, issued together and in flight during the loop, so the
/// epilogue waits for none of them (loads under the stores' guards cannot be hoisted by ptxas
/// and run one after another, a memory latency each).
using EpilogueLoadFn =
    llvm::function_ref<SmallVector<Value>(OpBuilder &b, Value row, Value col)>;

/// Whether the TMA kernel takes `m`: the tensor maps need 16-byte aligned rows (K * element
/// bytes a multiple of 16); any K otherwise (TMA zero-fills past K).
bool tmaAccepts(const Match &m);

/// Replaces nothing: builds, at `b`'s insertion point, the gpu.launch computing the bf16/f16
/// (f32 accumulators) or s8 (i32) contraction `m` (cp.async: K a multiple of the stage,
/// tile-k bf16/f16, 2 * tile-k i8; TMA: `tmaAccepts(m)`; N of 8), accumulators starting at
/// zero (`zeroInit`) or at C, and storing them into `out` (C, or an epilogue's output) by
/// `storePair` (given what `loadOperands` loaded ahead for the pair, when set), or as they are
/// when null. With `cfg.tma` the host code before the launch asks the support code for A's and
/// B's tensor maps (decoda_cuda_tensor_map). With `secondB` (a weight of B's type; `cfg.tma`,
/// `zeroInit`, `storePair` and 2 tile-n <= 256 required) the kernel computes A B^T and
/// A secondB^T together (`dualB`) and `storePair` gets both accumulator pairs of each element.
void emitWgmmaKernel(OpBuilder &b, Match m, const WgmmaConfig &cfg, bool zeroInit, Value out,
                     StorePairFn storePair = nullptr, EpilogueLoadFn loadOperands = nullptr,
                     Value secondB = nullptr);

/// Host code: a call of the artifact's support function `name` whose arguments and result are
/// all i64 (declared in the module on first use), such as the TMA tensor maps'
/// decoda_cuda_tensor_map and decoda_cuda_tensor_map_3d (lib/Target/CUDA/CUDATarget.cpp).
Value callI64Support(OpBuilder &b, Location loc, StringRef name, ValueRange args);

} // namespace mlir::decoda::gpu_contraction

#endif // DECODA_LIB_TRANSFORMS_GPUWGMMAKERNEL_H
