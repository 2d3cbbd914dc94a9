//===- Pipelines.cpp - named pass pipelines of Decoda ---------------------===//

#include "decoda/Pipelines/Pipelines.h"

#include "decoda/Conversion/Passes.h"
#include "decoda/Transforms/Passes.h"

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
  // Canonicalization applies the dialect's folds (infinite softcaps, zero branches, uncapped
  // GLUs, quantize/dequantize round trips) and upstream constant folding.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::decoda::buildCPULoweringPassPipeline(OpPassManager &pm,
                                                const CPULoweringPipelineOptions &options) {
  DecodaToLinalgPassOptions toLinalg;
  toLinalg.attentionKeyTile = options.attentionKeyTile;
  pm.addPass(createDecodaToLinalgPass(toLinalg));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addTextual(pm, "func.func(linalg-fuse-elementwise-ops)");
  pm.addPass(createCanonicalizerPass());

  // Tensors to buffers; identity layouts at function boundaries keep the C ABI simple.
  addTextual(pm, "one-shot-bufferize{bufferize-function-boundaries "
                 "function-boundary-type-conversion=identity-layout-map}");
  addTextual(pm, "buffer-deallocation-pipeline");
  pm.addPass(createCanonicalizerPass());

  // Loops, then LLVM.
  addTextual(pm, "func.func(convert-linalg-to-loops)");
  addTextual(pm, "lower-affine");
  addTextual(pm, "convert-scf-to-cf");
  pm.addPass(createLowerRuntimeChecksPass());
  addTextual(pm, "func.func(llvm-request-c-wrappers)");
  addTextual(pm, "expand-strided-metadata");
  addTextual(pm, "finalize-memref-to-llvm");
  addTextual(pm, "convert-math-to-llvm");
  addTextual(pm, "convert-math-to-libm");
  addTextual(pm, "convert-arith-to-llvm");
  addTextual(pm, "convert-index-to-llvm");
  addTextual(pm, "convert-cf-to-llvm");
  addTextual(pm, "convert-func-to-llvm");
  addTextual(pm, "convert-ub-to-llvm");
  addTextual(pm, "reconcile-unrealized-casts");
  pm.addPass(createCanonicalizerPass());

  CheckBackendContractPassOptions contract;
  contract.dialects = {"llvm"};
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
}
