//===- Pipelines.h - named pass pipelines of Decoda -------------*- C++ -*-===//
//
// Every pipeline is a `build...PassPipeline(OpPassManager &, const Options &)` plus a registered
// name, so `decoda-compile` and `decoda-opt` run exactly the same passes.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_PIPELINES_PIPELINES_H
#define DECODA_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::decoda {

struct GraphOptPipelineOptions : public PassPipelineOptions<GraphOptPipelineOptions> {
  PassOptions::Option<bool> raiseONNX{
      *this, "raise-onnx",
      llvm::cl::desc("Raise decomposed exporter subgraphs (norms, GLUs, MLPs, attention, "
                     "residual adds) to decoda ops first (decoda-raise-onnx)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseProjections{
      *this, "fuse-projections",
      llvm::cl::desc("Fuse linears (and gated MLPs' gate/up) sharing an input whose weights are "
                     "constants (decoda-fuse-projections{weights=constant})"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseGatedMLP{
      *this, "fuse-gated-mlp",
      llvm::cl::desc("With fuse-projections: split an f32 gated MLP into one gate|up linear, "
                     "a GLU and the down linear (off when the model is converted to a 16-bit "
                     "float type afterwards, where the gated form is the faster one)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> absorbMLA{
      *this, "absorb-mla",
      llvm::cl::desc("Rewrite decoda.mla into MQA attention over the latent "
                     "(decoda-absorb-mla); off by default: the mla lowering already scores "
                     "against the latent, and the explicit form is slower in prefill"),
      llvm::cl::init(false)};
};

/// Decoder-block graph optimisations on the `decoda` dialect (fusions, folding); the IR stays in
/// the `decoda` dialect: [decoda-raise-onnx], canonicalization, CSE, [decoda-absorb-mla], decoda-fuse-projections,
/// decoda-fuse-residual-norm. Grows with every graph pass that lands.
void buildGraphOptPassPipeline(OpPassManager &pm, const GraphOptPipelineOptions &options);

struct CPULoweringPipelineOptions : public PassPipelineOptions<CPULoweringPipelineOptions> {
  PassOptions::Option<int64_t> attentionKeyTile{
      *this, "attention-key-tile",
      llvm::cl::desc("Keys per step of the online-softmax attention loop"), llvm::cl::init(64)};
  PassOptions::Option<int64_t> attentionDecodeKeyTile{
      *this, "attention-decode-key-tile",
      llvm::cl::desc("Keys per step of cached_attention for static query lengths <= 4 (decode "
                     "steps; 0: attention-key-tile)"),
      llvm::cl::init(1024)};
  PassOptions::Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Tiled AVX-512 contractions and OpenMP loops (false: plain scalar loops)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> matmulMTile{
      *this, "matmul-m-tile", llvm::cl::desc("Rows of a contraction register tile"),
      llvm::cl::init(6)};
  PassOptions::Option<int64_t> matmulKTile{
      *this, "matmul-k-tile", llvm::cl::desc("Reduction block of a packed contraction panel"),
      llvm::cl::init(1024)};
  PassOptions::Option<bool> vnni{
      *this, "vnni",
      llvm::cl::desc("The target has AVX-512 VNNI: qlinear's i8 contractions use vpdpbusd "
                     "(false: i32 vector multiply-adds; decoda-compile sets it from the target "
                     "CPU)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> donateInputs{
      *this, "donate-inputs",
      llvm::cl::desc("Write results into arguments marked decoda.donate and drop those results "
                     "(docs/ABI.md); false: donated arguments stay read-only like the others"),
      llvm::cl::init(true)};
};

/// From the decoda dialect to the LLVM dialect for x86 CPUs: decoda-convert-to-linalg,
/// decoda-fuse-elementwise, bufferization, then (with `optimize`, the default)
/// decoda-cpu-contraction-codegen (packed, register-tiled AVX-512 contractions), parallel loops
/// for the rest and OpenMP (models link libomp); loops, LLVM; ends with
/// decoda-check-backend-contract{dialects=llvm[,omp]}.
void buildCPULoweringPassPipeline(OpPassManager &pm, const CPULoweringPipelineOptions &options);

/// Registers every named pipeline (`decoda-graph-opt`, ...) with the global registry.
void registerDecodaPipelines();

} // namespace mlir::decoda

#endif // DECODA_PIPELINES_PIPELINES_H
