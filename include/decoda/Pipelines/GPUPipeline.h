//===- GPUPipeline.h - the NVIDIA GPU lowering pipeline ---------*- C++ -*-===//
//
// `decoda-lower-to-cuda`: from the decoda dialect (after decoda-graph-opt) to the LLVM dialect
// for the host with the kernels compiled to a cubin (or PTX text) in a `gpu.binary`.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_PIPELINES_GPUPIPELINE_H
#define DECODA_PIPELINES_GPUPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::decoda {

struct CUDALoweringPipelineOptions : public PassPipelineOptions<CUDALoweringPipelineOptions> {
  PassOptions::Option<std::string> gpuArch{
      *this, "gpu-arch",
      llvm::cl::desc("NVIDIA architecture (sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, ...)"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel binary format: bin (cubin, assembled with ptxas) or isa (PTX "
                     "text, no ptxas)"),
      llvm::cl::init("bin")};
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit (ptxas, nvvm/libdevice) used when none of CUDA_ROOT, "
                     "CUDA_HOME, CUDA_PATH is set"),
      llvm::cl::init("/usr/local/cuda")};
  PassOptions::Option<int64_t> attentionKeyTile{
      *this, "attention-key-tile",
      llvm::cl::desc("Keys per step of the online-softmax attention loop"), llvm::cl::init(64)};
  PassOptions::Option<int64_t> blockX{
      *this, "block-x",
      llvm::cl::desc("Threads per block along a loop nest's innermost parallel dimension"),
      llvm::cl::init(32)};
  PassOptions::Option<int64_t> blockY{
      *this, "block-y",
      llvm::cl::desc("Threads per block along the second-innermost parallel dimension"),
      llvm::cl::init(8)};
  PassOptions::Option<bool> donateInputs{
      *this, "donate-inputs",
      llvm::cl::desc("Write the results of donated arguments (decoda.donate) into them "
                     "(docs/ABI.md, \"Donated inputs\"): on the device when the caller passes "
                     "device memory, else copied back into the caller's host buffer"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> tma{
      *this, "gpu-tma",
      llvm::cl::desc("sm_90a: fill the wgmma kernels' shared-memory stages by TMA "
                     "(cp.async.bulk.tensor, 128-byte swizzle, mbarriers) rather than cp.async"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> warpSpecialize{
      *this, "gpu-warp-specialize",
      llvm::cl::desc("sm_90a with gpu-tma: a producer warpgroup loads the wgmma kernels' stages "
                     "and the MMA warpgroups release them through mbarriers (no block-wide "
                     "barrier per k tile)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> gateUp{
      *this, "gpu-gate-up",
      llvm::cl::desc("A GLU's gate and up projections as one kernel: on sm_90a with gpu-tma "
                     "one wgmma kernel of two weights, and (any arch) one GEMV kernel when the "
                     "rows are static and few; the f32 gate stays in registers"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> gemvMma{
      *this, "gpu-gemv-mma",
      llvm::cl::desc("sm_80 and later: decode-sized projections on tensor cores (mma.sync "
                     "m16n8k16): over 4-bit block-quantised weights (MatMulNBits) with "
                     "bf16/f16 activations, the codes dequantised into B fragments in "
                     "registers, and over bf16/f16 weights with 2 to 16 rows, their loads "
                     "the B fragments; false: the SIMT GEMV kernel"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> foldNorms{
      *this, "gpu-fold-norms",
      llvm::cl::desc("A norm (RMSNorm, LayerNorm) read only by GEMV kernels (decode) computed in their "
                     "prologue instead of a kernel of its own"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> dependentLaunch{
      *this, "gpu-dependent-launch",
      llvm::cl::desc("sm_90 and later: programmatic dependent launch, each kernel waiting for "
                     "the one before (griddepcontrol.wait) before touching memory, so the "
                     "runtime may start it while that one still runs (decode: launch latency "
                     "and the GEMV kernels' weight prefetch overlap the kernel before)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> matmulTileN{
      *this, "gpu-matmul-tile-n",
      llvm::cl::desc("sm_90a with gpu-tma: columns of C per block of the TMA wgmma projection "
                     "kernel, 128 (the default) or 256 (m64n256k16: half the A tiles per "
                     "column; a GLU's gate and up kernel keeps 128 of each weight)"),
      llvm::cl::init(128)};
  PassOptions::Option<bool> attentionWgmma{
      *this, "gpu-attention-wgmma",
      llvm::cl::desc("sm_90a: bf16/f16 attention with head dims that are multiples of 16 up "
                     "to 256 on warpgroup MMA (wgmma.mma_async, the 128-byte swizzle) rather "
                     "than mma.sync (up to 128)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> attentionRows{
      *this, "gpu-attention-rows",
      llvm::cl::desc("sm_90a, wgmma attention: rows per block of the one-pass kernel, 64 (one "
                     "warpgroup, the default: faster on the H200) or 128 (two warpgroups "
                     "sharing each K/V tile)"),
      llvm::cl::init(64)};
  PassOptions::Option<int64_t> attentionKeys{
      *this, "gpu-attention-keys",
      llvm::cl::desc("sm_90a, wgmma attention: keys per K/V tile, 64 (the default) or 128 "
                     "(S = Q·Kᵀ as m64n128k16: half the tiles, twice the work per tile)"),
      llvm::cl::init(64)};
  PassOptions::Option<bool> attentionTma{
      *this, "gpu-attention-tma",
      llvm::cl::desc("sm_90a, wgmma attention: K/V tiles by TMA from a producer warp, "
                     "mbarriers per stage instead of the block barrier per tile"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> attentionPingPong{
      *this, "gpu-attention-pingpong",
      llvm::cl::desc("sm_90a, wgmma attention with gpu-attention-tma and 128 rows: the two "
                     "warpgroups issue their wgmma in turn on named barriers (FlashAttention-3's "
                     "ping-pong)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseEpilogue{
      *this, "fuse-epilogue",
      llvm::cl::desc("Apply the elementwise consumer of each projection (rounding, residual, "
                     "GLU product, INT8 dequantisation) in the GEMV / tensor-core kernel's "
                     "stores (decoda-gpu-gemv, decoda-gpu-tensorcore-matmul)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> promoteAccumulators{
      *this, "promote-accumulators",
      llvm::cl::desc("Carry the output element of each generic reduction loop in a register "
                     "(decoda-gpu-promote-accumulators) instead of a load and a store of it "
                     "every iteration"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> mergeLoops{
      *this, "merge-loops",
      llvm::cl::desc("Merge consecutive independent elementwise loop nests (q's and k's RoPE, "
                     "the K and V cache appends) into one kernel "
                     "(decoda-gpu-merge-parallel-loops), and consecutive independent launches "
                     "of one block shape (the q, k, v GEMVs) into one launch "
                     "(decoda-gpu-merge-launches)"),
      llvm::cl::init(true)};
};

/// PTX ISA features needed for `arch` ("+ptx80" for sm_90a, ...), or "" for an unknown
/// architecture.
std::string cudaArchFeatures(StringRef arch);

/// Whether `arch` has programmatic dependent launch (griddepcontrol: sm_90 and later).
bool cudaArchHasDependentLaunch(StringRef arch);

/// Whether `arch` (sm_NN[a]) is sm_`version` or later.
bool cudaArchAtLeast(StringRef arch, unsigned version);

/// The shared memory a block may use on `arch` when its kernel opts in (the device attribute
/// MAX_SHARED_MEMORY_PER_BLOCK_OPTIN of that compute capability): 227 KiB on sm_90 and sm_100,
/// 163 KiB on sm_80, 99 KiB on sm_86, sm_89 and sm_120, 96 KiB on sm_70, 64 KiB on sm_75.
int64_t cudaArchMaxSharedBytes(StringRef arch);

/// The architectures `--gpu-arch` accepts, for error messages.
StringRef cudaKnownArchs();

/// decoda-convert-to-linalg, decoda-fuse-elementwise, bufferization (donated arguments written
/// in place with `donate-inputs`), bf16/f16
/// projections to tensor-core kernels (decoda-gpu-tensorcore-matmul), every other linalg op
/// and copy to a parallel loop nest, tiled and mapped to blocks/threads
/// (decoda-gpu-map-parallel-loops), gpu.launch + outlining, device buffers for arguments,
/// temporaries and resident constants (decoda-gpu-device-buffers, which also refuses host code
/// that touches device memory), decoda-gpu-lower-bf16-mma, gpu-lower-to-nvvm-pipeline (NVVM,
/// ptxas, gpu.binary; host to LLVM),
/// decoda-check-backend-contract{dialects=llvm,gpu}.
void buildCUDALoweringPassPipeline(OpPassManager &pm, const CUDALoweringPipelineOptions &options);

/// Registers `decoda-lower-to-cuda` and the GPU passes.
void registerDecodaGPUPipeline();

} // namespace mlir::decoda

#endif // DECODA_PIPELINES_GPUPIPELINE_H
