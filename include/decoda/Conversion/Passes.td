//===- Passes.td - conversion passes of Decoda -------------*- tablegen -*-===//

#ifndef DECODA_CONVERSION_PASSES_TD
#define DECODA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def DecodaToLinalgPass : Pass<"decoda-convert-to-linalg", "ModuleOp"> {
  let summary = "Lower decoda ops to linalg, tensor, arith, math and scf on tensors";
  let description = [{
    Rewrites every `decoda` op into upstream ops on tensors, the form shared by the CPU and GPU
    pipelines: reductions in `f32` whatever the storage type, attention as an online-softmax loop
    over key tiles (the score matrix is never materialised), masks from indices, GQA by index.
    Fails, naming the op, if any `decoda` op is left.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::func::FuncDialect"
  ];
  let options = [
    Option<"attentionKeyTile", "attention-key-tile", "int64_t", /*default=*/"64",
           "Keys processed per step of the online softmax">,
    Option<"int8AttentionCalls", "int8-attention-calls", "bool", /*default=*/"false",
           "INT8 attention as calls of private functions tagged decoda.int8_attention (for "
           "decoda-cpu-int8-attention after bufferization)">,
    Option<"attentionDecodeKeyTile", "attention-decode-key-tile", "int64_t", /*default=*/"0",
           "Keys per step of cached_attention when the query length is static and at most 4 "
           "(decode steps; 0: attention-key-tile). One step covers every key of a shorter "
           "context, so a decode step runs a handful of loops instead of a few per key tile">,
    Option<"gpuKernelCalls", "gpu-kernel-calls", "bool", /*default=*/"false",
           "Attention/cached_attention (non-INT8) and the norms as calls of private functions "
           "tagged decoda.gpu_attention / decoda.gpu_norm, whose bodies the GPU pipeline "
           "replaces by one kernel each after bufferization; RoPE's table and rotation "
           "generics tagged decoda.rope_table / decoda.rope_apply for decoda-gpu-rope">
  ];
  let statistics = [
    Statistic<"numLowered", "num-lowered", "decoda ops lowered">
  ];
}

#endif // DECODA_CONVERSION_PASSES_TD
