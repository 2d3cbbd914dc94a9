//===- GPUPipeline.cpp - the NVIDIA GPU lowering pipeline -----------------===//
//
// decoda-lower-to-cuda (docs/GPU.md). Its own passes are declared in
// include/decoda/Transforms/GPUPasses.td and live in lib/Transforms/GPU*.cpp.
//
//===----------------------------------------------------------------------===//

#include "decoda/Pipelines/GPUPipeline.h"

#include "decoda/Conversion/Passes.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::decoda;

namespace {
/// Fails with `message` on the module: a pipeline option the user got wrong (decoda-opt
/// --decoda-lower-to-cuda="gpu-arch=..."), reported as an error, not an abort.
struct OptionErrorPass : public PassWrapper<OptionErrorPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OptionErrorPass)
  explicit OptionErrorPass(std::string message) : message(std::move(message)) {}
  StringRef getArgument() const override { return "decoda-lower-to-cuda-option-error"; }
  void runOnOperation() override {
    getOperation().emitError() << message;
    signalPassFailure();
  }
  std::string message;
};

void addTextual(OpPassManager &pm, StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error(llvm::Twine("invalid built-in pipeline: ") + pipeline);
}
} // namespace

std::string mlir::decoda::cudaArchFeatures(StringRef arch) {
  // The lowest PTX ISA that knows the architecture (PTX ISA release notes); LLVM aborts when
  // the PTX version is too old for the chip.
  return llvm::StringSwitch<std::string>(arch)
      .Cases({"sm_70", "sm_75"}, "+ptx64")
      .Case("sm_80", "+ptx70")
      .Case("sm_86", "+ptx71")
      .Cases({"sm_89", "sm_90"}, "+ptx78")
      .Case("sm_90a", "+ptx80")
      .Cases({"sm_100", "sm_100a", "sm_120", "sm_120a"}, "+ptx87")
      .Default("");
}

bool mlir::decoda::cudaArchAtLeast(StringRef arch, unsigned version) {
  unsigned sm = 0;
  return arch.consume_front("sm_") && !arch.take_while(llvm::isDigit).getAsInteger(10, sm) &&
         sm >= version;
}

bool mlir::decoda::cudaArchHasDependentLaunch(StringRef arch) {
  // griddepcontrol: sm_90 and later (PTX ISA 7.8).
  return cudaArchAtLeast(arch, 90);
}

int64_t mlir::decoda::cudaArchMaxSharedBytes(StringRef arch) {
  return llvm::StringSwitch<int64_t>(arch)
      .Case("sm_70", 96 * 1024)
      .Case("sm_75", 64 * 1024)
      .Case("sm_80", 163 * 1024)
      .Cases({"sm_86", "sm_89", "sm_120", "sm_120a"}, 99 * 1024)
      .Cases({"sm_90", "sm_90a", "sm_100", "sm_100a"}, 227 * 1024)
      .Default(48 * 1024);
}

StringRef mlir::decoda::cudaKnownArchs() {
  return "sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 sm_90a sm_100 sm_100a sm_120 sm_120a";
}

void mlir::decoda::buildCUDALoweringPassPipeline(OpPassManager &pm,
                                                 const CUDALoweringPipelineOptions &options) {
  std::string features = cudaArchFeatures(options.gpuArch);
  if (features.empty()) {
    pm.addPass(std::make_unique<OptionErrorPass>(
        ("decoda-lower-to-cuda: unknown gpu-arch '" + options.gpuArch.getValue() +
         "' (known: " + cudaKnownArchs() + ")")
            .str()));
    return;
  }
  if (options.format != "bin" && options.format != "isa") {
    pm.addPass(std::make_unique<OptionErrorPass>("decoda-lower-to-cuda: format must be bin or "
                                                 "isa, got '" +
                                                 options.format.getValue() + "'"));
    return;
  }

  if (options.matmulTileN != 128 &&
      (options.matmulTileN != 256 || options.gpuArch != "sm_90a" || !options.tma)) {
    pm.addPass(std::make_unique<OptionErrorPass>(
        "decoda-lower-to-cuda: gpu-matmul-tile-n=" + std::to_string(options.matmulTileN) +
        ": expected 128 or 256, and 256 needs gpu-arch=sm_90a with gpu-tma (the TMA wgmma "
        "projection kernel)"));
    return;
  }

  // gpu-module-to-binary finds libdevice (math functions) and ptxas through these variables
  // only; without them the kernels' __nv_* calls stay unresolved.
  if (!std::getenv("CUDA_ROOT") && !std::getenv("CUDA_HOME") && !std::getenv("CUDA_PATH"))
    ::setenv("CUDA_HOME", options.cudaPath.getValue().c_str(), /*overwrite=*/0);

  // ONNX MatMul initializers ([K, N], in_out) as [N, K]: the GEMV and tensor-core kernels
  // read weights so.
  pm.addPass(createTransposeConstantWeightsPass());
  DecodaToLinalgPassOptions toLinalg;
  toLinalg.attentionKeyTile = options.attentionKeyTile;
  toLinalg.gpuKernelCalls = true; // attention and norms: one kernel each, below
  toLinalg.int8AttentionCalls = true; // INT8 attention: the integer tensor-core kernel
  pm.addPass(createDecodaToLinalgPass(toLinalg));
  // INT8 contractions with an activation zero point: Σ x w - zp Σ w (s8 tensor cores / dp4a),
  // the correction joining the epilogue below.
  pm.addNestedPass<func::FuncOp>(createGPUSplitZeroPointPass());
  // Reshapes to computed shapes (ONNX Reshape) as views: no shape buffer written on the host.
  pm.addNestedPass<func::FuncOp>(createExpandTensorReshapesPass());
  addTextual(pm, "func.func(convert-elementwise-to-linalg)"); // arith/math on tensors
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createFuseElementwisePass());
  pm.addPass(createCanonicalizerPass());
  // Extents of results in terms of the function's arguments: ops computed from the same values
  // then look the same to CSE (e.g. the RoPE cos/sin tables of q and k: one kernel, not two).
  addTextual(pm, "resolve-ranked-shaped-type-result-dims");
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // ... but not the zero accumulators of projections of one shape: each is filled where its
  // kernel (GEMV or tensor cores) folds the fill and fuses its consumer; nor the empty
  // destinations of ops of one shape.
  pm.addPass(createUnshareFillsPass());
  // Concatenated parts computed in their slices of the result: an exported graph's presents.
  pm.addPass(createConcatsInPlacePass());

  // Inputs stay read-only, except donated ones (decoda.donate): their results are written into
  // them, and decoda-gpu-device-buffers copies them back to host callers (decoda.written).
  if (options.donateInputs)
    pm.addPass(createDonateInputsPass());
  pm.addPass(createMarkReadOnlyInputsPass());
  // A result only inserted into a slice of another tensor is computed in that slice (a decode
  // step's roped K and V written straight into the donated caches: no append kernel).
  addTextual(pm, "eliminate-empty-tensors");
  addTextual(pm, "one-shot-bufferize{bufferize-function-boundaries "
                 "function-boundary-type-conversion=identity-layout-map}");
  if (options.donateInputs) {
    DropDonatedResultsPassOptions drop;
    drop.markWritten = true;
    pm.addPass(createDropDonatedResultsPass(drop));
  }
  // CSE first: the slice written in place and the slice of the insertion are two equal
  // subviews, and the copy between them only folds away once they are one.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  // A rotation only transposed into a cache slice (Hugging Face's present keys) writes the
  // slice through a transposed view: one kernel less a layer.
  pm.addNestedPass<func::FuncOp>(createWriteThroughTransposesPass());

  // Attention and norms: one kernel per call (or the target-neutral body, with a remark); the
  // calls are inlined either way.
  // The tensor-core kernels (cp.async, ldmatrix, mma.sync m16n8k16 with bf16, m16n8k32 s8):
  // sm_80 and later; before, bf16/f16 attention and projections take the SIMT kernels.
  const bool tensorCoreArch = cudaArchAtLeast(options.gpuArch, 80);
  GPUFlashAttentionPassOptions attention;
  attention.tensorCores = tensorCoreArch;
  // SIMT tiles over 48 KiB (f32 at head dims over about 120, bf16/f16 over 256) in dynamic
  // shared memory up to what the arch allows a block.
  attention.maxSharedBytes = cudaArchMaxSharedBytes(options.gpuArch);
  attention.wgmma = options.gpuArch == "sm_90a" && options.attentionWgmma;
  attention.wgmmaRows = options.attentionRows;
  attention.wgmmaKeys = options.attentionKeys;
  attention.wgmmaTma = options.attentionTma;
  attention.wgmmaPingPong = options.attentionPingPong;
  pm.addPass(createGPUFlashAttentionPass(attention));
  // Decode-sized projections (static M <= 8, bf16/f16/f32): one memory-bound GEMV kernel
  // each; the others (prefill) on tensor cores (bf16/f16, f32 accumulation): one gpu.launch
  // each.
  // Both fuse the elementwise consumer of C into the stores, or neither (a dynamic-M
  // dispatch leaves it after the contraction of its M > 1 branch for the tensor-core pass).
  GPUGemvPassOptions gemv;
  gemv.fuseEpilogue = options.fuseEpilogue;
  gemv.gateUp = options.gateUp;
  // 4-bit block-quantised weights on tensor cores (mma.sync m16n8k16 bf16/f16: sm_80+).
  gemv.mma = options.gemvMma && tensorCoreArch;
  // With dependent launch, each GEMV kernel first prefetches the starts of its weight rows
  // into L2 (16 MiB a kernel: a third of the H200's L2), while the kernel before it runs.
  // (cp.async.bulk.prefetch needs PTX ISA 8.0: sm_90a, sm_100 and later, not sm_90's 7.8.)
  if (options.dependentLaunch && cudaArchHasDependentLaunch(options.gpuArch) &&
      options.gpuArch != "sm_90")
    gemv.prefetchBytes = 16 << 20;
  // First the GEMV kernels that read a norm (still a tagged call here) with static rows:
  // the norm is computed in their prologue, its call erased (fold-norms); the others once
  // inlining has made the shapes static.
  if (options.foldNorms) {
    GPUGemvPassOptions folding = gemv;
    folding.foldNorms = true;
    folding.onlyFolded = true;
    pm.addNestedPass<func::FuncOp>(createGPUGemvPass(folding));
  }
  pm.addPass(createGPURowNormPass());
  // RoPE: one kernel per rotation, its cos/sin table computed per block in shared memory.
  pm.addNestedPass<func::FuncOp>(createGPURopePass());
  addTextual(pm, "inline");
  // The tagged functions of folded norms, no longer called.
  addTextual(pm, "symbol-dce");
  gemv.foldNorms = false;
  pm.addNestedPass<func::FuncOp>(createGPUGemvPass(gemv));
  GPUTensorCoreMatmulPassOptions tensorCores;
  tensorCores.fuseEpilogue = options.fuseEpilogue;
  // Warpgroup MMA exists on sm_90a only (not sm_90, nor sm_100a / sm_120a).
  tensorCores.wgmma = options.gpuArch == "sm_90a";
  tensorCores.wgmmaTma = options.gpuArch == "sm_90a" && options.tma;
  tensorCores.tmaWarpSpecialize = options.warpSpecialize;
  tensorCores.gateUp = options.gateUp;
  tensorCores.tileN = options.matmulTileN;
  if (tensorCoreArch)
    pm.addPass(createGPUTensorCoreMatmulPass(tensorCores)); // module: declares the map function
  // Every other linalg op (and copy) is a parallel loop nest; each nest is one kernel.
  pm.addNestedPass<func::FuncOp>(createGPUCopiesToLinalgPass());
  addTextual(pm, "func.func(convert-linalg-to-parallel-loops)");
  // A reduction's output element in a register over its loop, not a global load and store
  // per iteration.
  if (options.promoteAccumulators)
    pm.addNestedPass<func::FuncOp>(createGPUPromoteAccumulatorsPass());
  // Independent neighbouring nests (q's and k's RoPE, the K and V cache appends): one kernel.
  if (options.mergeLoops)
    pm.addNestedPass<func::FuncOp>(createGPUMergeParallelLoopsPass());
  // Mapped before any canonicalization: it would fold a nest whose parallel dims are all 1 (the
  // per-token scale of a T = 1 INT8 step, [1, 1, 1]) into host code, which the device-buffers
  // pass then refuses.
  GPUMapParallelLoopsPassOptions mapping;
  mapping.blockX = options.blockX;
  mapping.blockY = options.blockY;
  pm.addNestedPass<func::FuncOp>(createGPUMapParallelLoopsPass(mapping));
  addTextual(pm, "func.func(convert-parallel-loops-to-gpu)");
  // CSE first: the GEMV dispatches' `scf.if (M != 1)` around two norms of one input (a
  // parallel block's, each folded into its GEMV at one row) test one condition, and the
  // canonicalizer combines neighbouring ifs of one condition, so the norms' launches meet.
  addTextual(pm, "func.func(cse)");
  pm.addPass(createCanonicalizerPass());
  // Independent neighbouring kernels of one block shape (q's, k's and v's GEMVs): one launch.
  if (options.mergeLoops)
    pm.addNestedPass<func::FuncOp>(createGPUMergeLaunchesPass());
  // Constants and index math used by a kernel move into it (else they become parameters).
  addTextual(pm, "func.func(gpu-launch-sink-index-computations)");
  // gpu-kernel-outlining, keeping each launch's decoda.kernel_attrs (e.g. nvvm.maxnreg).
  pm.addPass(createGPUOutlineKernelsPass());
  pm.addPass(createGPUNameKernelsPass());
  // Programmatic dependent launch (sm_90 and later): each kernel waits for the grids before
  // it before touching memory, so the runtime may launch it while they still run.
  if (options.dependentLaunch && cudaArchHasDependentLaunch(options.gpuArch))
    pm.addPass(createGPUDependentLaunchPass());
  pm.addPass(createGPUDeviceBuffersPass());
  addTextual(pm, "lower-affine");
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLowerRuntimeChecksPass()); // host checks only (kernels have none)
  // Host views that MLIR 22's expand-strided-metadata cannot take (several dynamic extents
  // split out of one) as reinterpret_casts.
  pm.addNestedPass<func::FuncOp>(createExpandTensorReshapesPass());
  addTextual(pm, "func.func(llvm-request-c-wrappers)");
  // ldmatrix / cp.async / vector accesses need 16-byte aligned shared arrays.
  pm.addNestedPass<gpu::GPUModuleOp>(createGPUAlignWorkgroupMemoryPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createGPULowerBF16MmaPass()); // upstream lacks bf16 mma
  addTextual(pm, ("gpu-lower-to-nvvm-pipeline{cubin-chip=" + options.gpuArch.getValue() +
                  " cubin-features=" + features + " cubin-format=" + options.format.getValue() +
                  "}"));
  addTextual(pm, "reconcile-unrealized-casts");
  pm.addPass(createCanonicalizerPass());

  CheckBackendContractPassOptions contract;
  contract.dialects = {"llvm", "gpu"}; // gpu: the gpu.binary and its gpu.launch_func calls
  pm.addPass(createCheckBackendContractPass(contract));
  pm.addPass(createGPUCheckHostContractPass());
}

void mlir::decoda::registerDecodaGPUPipeline() {
  PassPipelineRegistration<CUDALoweringPipelineOptions>(
      "decoda-lower-to-cuda",
      "Lower decoda (after decoda-graph-opt) to host LLVM dialect code launching NVVM kernels "
      "compiled into a gpu.binary (cubin or PTX), ending with a check that only LLVM and "
      "gpu.binary/gpu.launch_func remain",
      buildCUDALoweringPassPipeline);
}
