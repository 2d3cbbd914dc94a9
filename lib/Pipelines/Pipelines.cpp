//===- Pipelines.cpp - named pass pipelines of Decoda ---------------------===//

#include "decoda/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::decoda;

void mlir::decoda::buildGraphOptPassPipeline(OpPassManager &pm,
                                             const GraphOptPipelineOptions &options) {
  // Canonicalization applies the dialect's folds (infinite softcaps, zero branches, uncapped
  // GLUs, quantize/dequantize round trips) and upstream constant folding.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::decoda::registerDecodaPipelines() {
  PassPipelineRegistration<GraphOptPipelineOptions>(
      "decoda-graph-opt",
      "Decoder-block graph optimisations on the decoda dialect (the driver's first stage)",
      buildGraphOptPassPipeline);
}
