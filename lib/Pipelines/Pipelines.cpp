//===- Pipelines.cpp - named pass pipelines of Decoda ---------------------===//

#include "decoda/Pipelines/Pipelines.h"
#include "decoda/Pipelines/GPUPipeline.h"

#include "decoda/Conversion/Passes.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::decoda;

namespace {
/// Appends upstream passes given in textual form (their options change often between MLIR
/// versions; the text is checked when the pipeline is built).
void addTextual(OpPassManager &pm, StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error(llvm::Twine("invalid built-in pipeline: ") + pipeline);
}
} // namespace

void mlir::decoda::buildGraphOptPassPipeline(OpPassManager &pm,
                                             const GraphOptPipelineOptions &options) {
  // Raising first: an imported ONNX graph is linalg until its norms, MLPs and attention are
  // decoda ops again (a no-op on programs written in decoda).
  if (options.raiseONNX)
    pm.addPass(createRaiseONNXPass());
  // Canonicalization applies the dialect's folds (infinite softcaps, zero branches, uncapped
  // GLUs, quantize/dequantize round trips) and upstream constant folding.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Absorption first: it may fold W_UV into a constant output projection, which then is an
  // ordinary linear for the passes after it.
  if (options.absorbMLA)
    pm.addPass(createAbsorbMLAPass());
  // Only constant weights: concatenating argument weights costs a copy of every weight per
  // call, far more than the input reads fusion saves (see the pass description).
  if (options.fuseProjections) {
    FuseProjectionsPassOptions projections;
    projections.weights = "constant";
    projections.fuseGatedMLP = options.fuseGatedMLP;
    pm.addPass(createFuseProjectionsPass(projections));
  }
  pm.addPass(createFuseResidualNormPass());
}

void mlir::decoda::buildCPULoweringPassPipeline(OpPassManager &pm,
                                                const CPULoweringPipelineOptions &options) {
  DecodaToLinalgPassOptions toLinalg;
  toLinalg.attentionKeyTile = options.attentionKeyTile;
  toLinalg.attentionDecodeKeyTile = options.attentionDecodeKeyTile;
  // INT8 attention as calls of private functions, whose bodies decoda-cpu-int8-attention
  // replaces after bufferization.
  toLinalg.int8AttentionCalls = options.optimize;
  // Constant [K, N] weights (ONNX MatMul initializers) as [N, K]: a decode step's projections
  // then take the contraction codegen's dot products along k, each weight read once, instead
  // of packing [K, N] panels on every call (the exported Llama-3.2-1B-shaped block at T = 1:
  // f32 7.2 -> 5.7 ms, bf16 13.7 -> 6.2 ms on the 2-core machine; prefill unchanged).
  pm.addPass(createTransposeConstantWeightsPass());
  // Block-quantised constant weights (MatMulNBits) as float constants: the contraction codegen
  // reads float weights.
  pm.addPass(createFoldConstantDequantizePass());
  pm.addPass(createDecodaToLinalgPass(toLinalg));
  // arith/math on tensors (the casts of decoda-convert-float-type) as linalg.
  addTextual(pm, "func.func(convert-elementwise-to-linalg)");
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Elementwise fusion as linalg-fuse-elementwise-ops, but never into a contraction (it would
  // recompute the producer per output column and hide the contraction from the CPU codegen).
  pm.addNestedPass<func::FuncOp>(createFuseElementwisePass());
  pm.addPass(createCanonicalizerPass());

  // Tensors to buffers; identity layouts at function boundaries keep the C ABI simple.
  // Inputs are read-only for the model (docs/ABI.md): writes to them must copy first.
  // Donated inputs (decoda.donate) are the exception: their results are written into them.
  if (options.donateInputs)
    pm.addPass(createDonateInputsPass());
  pm.addPass(createMarkReadOnlyInputsPass());
  addTextual(pm, "one-shot-bufferize{bufferize-function-boundaries "
                 "function-boundary-type-conversion=identity-layout-map}");
  if (options.donateInputs)
    pm.addPass(createDropDonatedResultsPass());
  addTextual(pm, "buffer-deallocation-pipeline");
  addTextual(pm, "convert-bufferization-to-memref"); // clones left by the deallocation
  pm.addPass(createCanonicalizerPass());
  // Transposed copies only read (an ONNX attention's [B, H, S, D] cache as decoda's
  // [B, S, H, D] keys and values) are read in place through a transposed view.
  pm.addNestedPass<func::FuncOp>(createForwardTransposedCopiesPass());
  // A rotation only transposed into a cache slice (Hugging Face's present keys) writes the
  // slice through a transposed view: one pass over the keys instead of two.
  pm.addNestedPass<func::FuncOp>(createWriteThroughTransposesPass());

  // Contractions (projections, attention scores and values) become packed, register-tiled
  // AVX-512 loops over n panels; everything else becomes loops, parallel over its leading
  // dims. One level of scf.parallel per nest is kept and run with OpenMP.
  CPUContractionCodegenPassOptions contraction;
  contraction.mTile = options.matmulMTile;
  contraction.kTile = options.matmulKTile;
  if (options.optimize) {
    pm.addPass(createCPUContractionCodegenPass(contraction));
    CPUInt8CodegenPassOptions int8;
    int8.vnni = options.vnni; // from the target CPU's features (decoda-compile)
    pm.addPass(createCPUInt8CodegenPass(int8)); // qlinear's i8 contractions (AVX-512 VNNI)
    CPUInt8AttentionPassOptions int8Attention;
    int8Attention.vnni = options.vnni;
    pm.addPass(createCPUInt8AttentionPass(int8Attention)); // INT8 attention: one fused kernel
  }
  pm.addNestedPass<func::FuncOp>(createCPUCopiesToLinalgPass());
  addTextual(pm, options.optimize ? "func.func(convert-linalg-to-parallel-loops)"
                                  : "func.func(convert-linalg-to-loops)");
  if (options.optimize) {
    pm.addNestedPass<func::FuncOp>(createCPUParallelLoopsPass());
    pm.addPass(createCanonicalizerPass());
    addTextual(pm, "convert-scf-to-openmp");
    pm.addNestedPass<func::FuncOp>(createCPUPrivateAllocasPass());
  }
  addTextual(pm, "symbol-dce"); // constant weights whose packed copies replaced them
  addTextual(pm, "lower-affine");
  addTextual(pm, "convert-scf-to-cf");
  pm.addPass(createLowerRuntimeChecksPass());
  addTextual(pm, "func.func(llvm-request-c-wrappers)");
  addTextual(pm, "convert-vector-to-llvm");
  addTextual(pm, "expand-strided-metadata");
  addTextual(pm, "lower-affine");
  addTextual(pm, "finalize-memref-to-llvm");
  addTextual(pm, "convert-math-to-llvm");
  addTextual(pm, "convert-math-to-libm");
  addTextual(pm, "convert-arith-to-llvm");
  addTextual(pm, "convert-index-to-llvm");
  addTextual(pm, "convert-cf-to-llvm");
  addTextual(pm, "convert-openmp-to-llvm");
  addTextual(pm, "convert-func-to-llvm");
  addTextual(pm, "convert-ub-to-llvm");
  addTextual(pm, "reconcile-unrealized-casts");
  pm.addPass(createCanonicalizerPass());

  CheckBackendContractPassOptions contract;
  contract.dialects = {"llvm"};
  if (options.optimize)
    contract.dialects.push_back("omp"); // translated to LLVM IR with the OpenMP runtime calls
  pm.addPass(createCheckBackendContractPass(contract));
}

void mlir::decoda::registerDecodaPipelines() {
  PassPipelineRegistration<GraphOptPipelineOptions>(
      "decoda-graph-opt",
      "Decoder-block graph optimisations on the decoda dialect (the driver's first stage)",
      buildGraphOptPassPipeline);
  PassPipelineRegistration<CPULoweringPipelineOptions>(
      "decoda-lower-to-cpu",
      "Lower decoda (after decoda-graph-opt) to the LLVM dialect for x86 CPUs, ending with a "
      "check that only LLVM ops remain",
      buildCPULoweringPassPipeline);
  registerDecodaGPUPipeline(); // decoda-lower-to-cuda (GPUPipeline.cpp)
}
