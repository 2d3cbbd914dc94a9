// A node that omits an input its operator requires is an error naming the node, the input's
// position and its formal name (from ONNX's operator schemas, lib/Frontend/ONNX/
// RequiredInputs.cpp), never a crash: before, the omitted input reached the op's handler as a
// null value (found by fuzzing, docs/Reliability.md). Optional inputs may still be omitted.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/missing_inputs.py %t
// RUN: not decoda-translate --import-onnx %t/matmul-b.onnx 2>&1 | FileCheck %s --check-prefix=MATMUL
// MATMUL: error: ONNX node 'MatMul_1' (MatMul, domain ai.onnx, opset 23): input 1 ('B') is required and the node omits it
// RUN: not decoda-translate --import-onnx %t/gemm-b.onnx 2>&1 | FileCheck %s --check-prefix=GEMM
// GEMM: error: ONNX node 'Gemm_1' (Gemm, domain ai.onnx, opset 23): input 1 ('B') is required and the node omits it
// RUN: not decoda-translate --import-onnx %t/reshape-shape.onnx 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RESHAPE: error: ONNX node 'Reshape_1' (Reshape, domain ai.onnx, opset 23): input 1 ('shape') is required and the node omits it
// RUN: not decoda-translate --import-onnx %t/layernorm-scale.onnx 2>&1 | FileCheck %s --check-prefix=LN
// LN: error: ONNX node 'LayerNormalization_1' (LayerNormalization, domain ai.onnx, opset 23): input 1 ('Scale') is required and the node omits it
// RUN: not decoda-translate --import-onnx %t/concat-none.onnx 2>&1 | FileCheck %s --check-prefix=CONCAT
// CONCAT: error: ONNX node 'Concat_1' (Concat, domain ai.onnx, opset 23): input 0 ('inputs', variadic, at least 1) is required and the node omits it
// RUN: not decoda-translate --import-onnx %t/add-a.onnx 2>&1 | FileCheck %s --check-prefix=ADD
// ADD: error: ONNX node 'Add_1' (Add, domain ai.onnx, opset 23): input 0 ('A') is required and the node omits it
// Operators libonnx has no schema for (newer than the library, or com.microsoft): input 0 is
// checked here, the others by the handler.
// RUN: not decoda-translate --import-onnx %t/rmsnorm-none.onnx 2>&1 | FileCheck %s --check-prefix=RMS0
// RMS0: error: ONNX node 'RMSNormalization_1' (RMSNormalization, domain ai.onnx, opset 23): input 0 is required and the node omits it
// RUN: not decoda-translate --import-onnx %t/rmsnorm-scale.onnx 2>&1 | FileCheck %s --check-prefix=RMS1
// RMS1: error: ONNX node 'RMSNormalization_1' (RMSNormalization, domain ai.onnx, opset 23): input 1 (scale) is required and the node omits it
// RUN: not decoda-translate --import-onnx %t/skiplayernorm-none.onnx 2>&1 | FileCheck %s --check-prefix=SKIP
// SKIP: error: ONNX node 'SkipLayerNormalization_1' (SkipLayerNormalization, domain com.microsoft, opset 1): input 0 is required and the node omits it
// RUN: decoda-translate --import-onnx %t/layernorm-no-bias.onnx | FileCheck %s --check-prefix=OPTIONAL
// OPTIONAL: decoda.layer_norm
