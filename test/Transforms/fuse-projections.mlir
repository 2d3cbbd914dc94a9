// RUN: decoda-opt %s --decoda-fuse-projections --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-fuse-projections="weights=any" --split-input-file | FileCheck %s --check-prefix=ANY
// RUN: decoda-opt %s --decoda-fuse-projections="gated-mlp=false" --split-input-file | FileCheck %s --check-prefix=NOGLU
// RUN: decoda-opt %s --decoda-fuse-projections="min-group=3" --split-input-file | FileCheck %s --check-prefix=MIN3
// RUN: decoda-opt %s --decoda-graph-opt --split-input-file | FileCheck %s --check-prefix=PIPE
// RUN: not decoda-opt %s --decoda-fuse-projections="weights=some" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not decoda-opt %s --decoda-fuse-projections="min-group=1" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADMIN

// BADOPT: error: decoda-fuse-projections: weights must be 'any' or 'constant', found 'some'
// BADMIN: error: decoda-fuse-projections: min-group must be at least 2, found 1

// Q/K/V with constant weights: one constant [ΣN, K] folded at compile time (rows in program
// order, a splat expanded), one linear, one slice per projection.
// CHECK-LABEL: func @qkv_constant
// CHECK-SAME:    (%[[X:.+]]: tensor<2x?x4xf32>)
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[W:.+]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], [9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01], [5.000000e-01, 5.000000e-01, 5.000000e-01, 5.000000e-01]]> : tensor<4x4xf32>
// CHECK:         %[[Y:.+]] = decoda.linear %[[X]], %[[W]] : tensor<2x?x4xf32>, tensor<4x4xf32>
// CHECK:         %[[T:.+]] = tensor.dim %[[Y]], %[[C1]]
// CHECK:         %[[Q:.+]] = tensor.extract_slice %[[Y]][0, 0, 0] [2, %[[T]], 2] [1, 1, 1] : tensor<2x?x4xf32> to tensor<2x?x2xf32>
// CHECK:         %[[K:.+]] = tensor.extract_slice %[[Y]][0, 0, 2] [2, %[[T]], 1] [1, 1, 1] : tensor<2x?x4xf32> to tensor<2x?x1xf32>
// CHECK:         %[[V:.+]] = tensor.extract_slice %[[Y]][0, 0, 3] [2, %[[T]], 1] [1, 1, 1] : tensor<2x?x4xf32> to tensor<2x?x1xf32>
// CHECK-NOT:     decoda.linear
// CHECK-NOT:     tensor.concat
// CHECK:         return %[[Q]], %[[K]], %[[V]]
// MIN3-LABEL: func @qkv_constant
// MIN3:         decoda.linear %{{.+}}, %{{.+}} : tensor<2x?x4xf32>, tensor<4x4xf32>
// MIN3-NOT:     decoda.linear
// MIN3:         return
func.func @qkv_constant(%x: tensor<2x?x4xf32>) -> (tensor<2x?x2xf32>, tensor<2x?x1xf32>, tensor<2x?x1xf32>) {
  %wq = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %wk = arith.constant dense<[[9.0, 10.0, 11.0, 12.0]]> : tensor<1x4xf32>
  %wv = arith.constant dense<0.5> : tensor<1x4xf32>
  %q = decoda.linear %x, %wq : tensor<2x?x4xf32>, tensor<2x4xf32>
  %k = decoda.linear %x, %wk : tensor<2x?x4xf32>, tensor<1x4xf32>
  %v = decoda.linear %x, %wv : tensor<2x?x4xf32>, tensor<1x4xf32>
  return %q, %k, %v : tensor<2x?x2xf32>, tensor<2x?x1xf32>, tensor<2x?x1xf32>
}

// -----

// Block-quantised constant weights (MatMulNBits): codes, scales and zero points concatenated
// along N (rows in program order), one dequantize_blocks of them read by one linear. The
// numbers: the genai int4 layer against ONNX Runtime (test/Frontend/ONNX/e2e/contrib_ops.py).
// CHECK-LABEL: func @qkv_quantized
// CHECK-DAG:     %[[C:.+]] = arith.constant dense<{{\[}}[1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4]]> : tensor<4x8xi8>
// CHECK-DAG:     %[[S:.+]] = arith.constant dense<{{\[}}[1.000000e+00], [2.000000e+00], [3.000000e+00], [4.000000e+00]]> : tensor<4x1xf32>
// CHECK-DAG:     %[[Z:.+]] = arith.constant dense<{{\[}}[5.000000e+00], [6.000000e+00], [7.000000e+00], [8.000000e+00]]> : tensor<4x1xf32>
// CHECK:         %[[W:.+]] = decoda.dequantize_blocks %[[C]], %[[S]] zero_points(%[[Z]] : tensor<4x1xf32>) {bits = 4 : i64, block_size = 16 : i64} : tensor<4x8xi8>, tensor<4x1xf32> -> tensor<4x16xf32>
// CHECK:         decoda.linear %{{.+}}, %[[W]] : tensor<1x16xf32>, tensor<4x16xf32>
// CHECK-NOT:     decoda.linear
// CHECK-NOT:     decoda.dequantize_blocks
// CHECK:         return
func.func @qkv_quantized(%x: tensor<1x16xf32>) -> (tensor<1x2xf32>, tensor<1x1xf32>, tensor<1x1xf32>) {
  %cq = arith.constant dense<[[1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2]]> : tensor<2x8xi8>
  %sq = arith.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %zq = arith.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %wq = decoda.dequantize_blocks %cq, %sq zero_points(%zq : tensor<2x1xf32>) {bits = 4 : i64, block_size = 16 : i64} : tensor<2x8xi8>, tensor<2x1xf32> -> tensor<2x16xf32>
  %q = decoda.linear %x, %wq : tensor<1x16xf32>, tensor<2x16xf32>
  %ck = arith.constant dense<3> : tensor<1x8xi8>
  %sk = arith.constant dense<3.0> : tensor<1x1xf32>
  %zk = arith.constant dense<7.0> : tensor<1x1xf32>
  %wk = decoda.dequantize_blocks %ck, %sk zero_points(%zk : tensor<1x1xf32>) {bits = 4 : i64, block_size = 16 : i64} : tensor<1x8xi8>, tensor<1x1xf32> -> tensor<1x16xf32>
  %k = decoda.linear %x, %wk : tensor<1x16xf32>, tensor<1x16xf32>
  %cv = arith.constant dense<4> : tensor<1x8xi8>
  %sv = arith.constant dense<4.0> : tensor<1x1xf32>
  %zv = arith.constant dense<8.0> : tensor<1x1xf32>
  %wv = decoda.dequantize_blocks %cv, %sv zero_points(%zv : tensor<1x1xf32>) {bits = 4 : i64, block_size = 16 : i64} : tensor<1x8xi8>, tensor<1x1xf32> -> tensor<1x16xf32>
  %v = decoda.linear %x, %wv : tensor<1x16xf32>, tensor<1x16xf32>
  return %q, %k, %v : tensor<1x2xf32>, tensor<1x1xf32>, tensor<1x1xf32>
}

// -----

// Block-quantised weights of different bits, or with and without zero points, and a float
// weight do not group: four linears stay.
// CHECK-LABEL: func @quantized_mismatch
// CHECK-COUNT-4: decoda.linear
func.func @quantized_mismatch(%x: tensor<1x16xf32>) -> (tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) {
  %c4 = arith.constant dense<1> : tensor<1x8xi8>
  %c8 = arith.constant dense<1> : tensor<1x16xi8>
  %s = arith.constant dense<1.0> : tensor<1x1xf32>
  %w1 = decoda.dequantize_blocks %c4, %s {bits = 4 : i64, block_size = 16 : i64} : tensor<1x8xi8>, tensor<1x1xf32> -> tensor<1x16xf32>
  %y1 = decoda.linear %x, %w1 : tensor<1x16xf32>, tensor<1x16xf32>
  %w2 = decoda.dequantize_blocks %c8, %s {bits = 8 : i64, block_size = 16 : i64} : tensor<1x16xi8>, tensor<1x1xf32> -> tensor<1x16xf32>
  %y2 = decoda.linear %x, %w2 : tensor<1x16xf32>, tensor<1x16xf32>
  %w3 = decoda.dequantize_blocks %c4, %s zero_points(%s : tensor<1x1xf32>) {bits = 4 : i64, block_size = 16 : i64} : tensor<1x8xi8>, tensor<1x1xf32> -> tensor<1x16xf32>
  %y3 = decoda.linear %x, %w3 : tensor<1x16xf32>, tensor<1x16xf32>
  %wf = arith.constant dense<1.0> : tensor<1x16xf32>
  %y4 = decoda.linear %x, %wf : tensor<1x16xf32>, tensor<1x16xf32>
  return %y1, %y2, %y3, %y4 : tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>
}

// -----

// in_out weights [K, N] concatenate along the last axis (each row is the parts' rows side by
// side); constant biases fold too.
// CHECK-LABEL: func @in_out_with_bias
// CHECK-DAG:     %[[W:.+]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 5.000000e+00], [3.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG:     %[[B:.+]] = arith.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01]> : tensor<3xf32>
// CHECK:         %[[Y:.+]] = decoda.linear %arg0, %[[W]], %[[B]] {weight_layout = #decoda.weight_layout<in_out>} : tensor<3x2xf32>, tensor<2x3xf32>, tensor<3xf32>
// CHECK:         tensor.extract_slice %[[Y]][0, 0] [3, 2] [1, 1] : tensor<3x3xf32> to tensor<3x2xf32>
// CHECK:         tensor.extract_slice %[[Y]][0, 2] [3, 1] [1, 1] : tensor<3x3xf32> to tensor<3x1xf32>
func.func @in_out_with_bias(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x1xf32>) {
  %wa = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wb = arith.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %ba = arith.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %bb = arith.constant dense<[0.3]> : tensor<1xf32>
  %a = decoda.linear %x, %wa, %ba {weight_layout = #decoda.weight_layout<in_out>} : tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>
  %b = decoda.linear %x, %wb, %bb {weight_layout = #decoda.weight_layout<in_out>} : tensor<3x2xf32>, tensor<2x1xf32>, tensor<1xf32>
  return %a, %b : tensor<3x2xf32>, tensor<3x1xf32>
}

// -----

// dense_resource weights (f16) fold into a new resource blob: the two 2-element rows follow
// each other after the 4-byte alignment header.
// CHECK-LABEL: func @dense_resource
// CHECK:         %[[W:.+]] = arith.constant dense_resource<decoda_fused> : tensor<2x2xf16>
// CHECK:         decoda.linear %arg0, %[[W]] : tensor<3x2xf16>, tensor<2x2xf16>
// CHECK-NOT:     blob_a
// CHECK:         decoda_fused: "0x{{[0-9A-F]+}}003C004000420044"
func.func @dense_resource(%x: tensor<3x2xf16>) -> (tensor<3x1xf16>, tensor<3x1xf16>) {
  %wa = arith.constant dense_resource<blob_a> : tensor<1x2xf16>
  %wb = arith.constant dense_resource<blob_b> : tensor<1x2xf16>
  %a = decoda.linear %x, %wa : tensor<3x2xf16>, tensor<1x2xf16>
  %b = decoda.linear %x, %wb : tensor<3x2xf16>, tensor<1x2xf16>
  return %a, %b : tensor<3x1xf16>, tensor<3x1xf16>
}
{-#
  dialect_resources: {
    builtin: {
      blob_a: "0x02000000003C0040",
      blob_b: "0x0200000000420044"
    }
  }
#-}

// -----

// Weights that are function arguments: fused only with weights=any, through a tensor.concat
// (a copy on every call); the bias arguments too.
// CHECK-LABEL: func @arguments
// CHECK-COUNT-3: decoda.linear
// CHECK-NOT:     tensor.concat
// CHECK:         return
// ANY-LABEL: func @arguments
// ANY-SAME:    (%[[X:.+]]: tensor<1x?x8xf32>, %[[WQ:.+]]: tensor<8x8xf32>, %[[WK:.+]]: tensor<4x8xf32>, %[[WV:.+]]: tensor<4x8xf32>, %[[BQ:.+]]: tensor<8xf32>, %[[BK:.+]]: tensor<4xf32>, %[[BV:.+]]: tensor<4xf32>)
// ANY:         %[[W:.+]] = tensor.concat dim(0) %[[WQ]], %[[WK]], %[[WV]] : (tensor<8x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
// ANY:         %[[B:.+]] = tensor.concat dim(0) %[[BQ]], %[[BK]], %[[BV]] : (tensor<8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<16xf32>
// ANY:         %[[Y:.+]] = decoda.linear %[[X]], %[[W]], %[[B]] : tensor<1x?x8xf32>, tensor<16x8xf32>, tensor<16xf32>
// ANY-COUNT-3: tensor.extract_slice %[[Y]]
// ANY-NOT:     decoda.linear
// ANY:         return
func.func @arguments(%x: tensor<1x?x8xf32>, %wq: tensor<8x8xf32>, %wk: tensor<4x8xf32>, %wv: tensor<4x8xf32>,
                     %bq: tensor<8xf32>, %bk: tensor<4xf32>, %bv: tensor<4xf32>)
    -> (tensor<1x?x8xf32>, tensor<1x?x4xf32>, tensor<1x?x4xf32>) {
  %q = decoda.linear %x, %wq, %bq : tensor<1x?x8xf32>, tensor<8x8xf32>, tensor<8xf32>
  %k = decoda.linear %x, %wk, %bk : tensor<1x?x8xf32>, tensor<4x8xf32>, tensor<4xf32>
  %v = decoda.linear %x, %wv, %bv : tensor<1x?x8xf32>, tensor<4x8xf32>, tensor<4xf32>
  return %q, %k, %v : tensor<1x?x8xf32>, tensor<1x?x4xf32>, tensor<1x?x4xf32>
}

// -----

// A constant mixed with an argument: weights=any concatenates at run time, with the constant
// (defined after the first member) cloned in front of the concat.
// CHECK-LABEL: func @mixed_constant_argument
// CHECK-COUNT-2: decoda.linear
// ANY-LABEL: func @mixed_constant_argument
// ANY:         %[[C:.+]] = arith.constant dense<1.000000e+00> : tensor<2x4xf32>
// ANY:         %[[W:.+]] = tensor.concat dim(0) %arg1, %[[C]] : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
// ANY:         decoda.linear %arg0, %[[W]]
// ANY-NOT:     decoda.linear
// ANY:         return
func.func @mixed_constant_argument(%x: tensor<6x4xf32>, %wa: tensor<3x4xf32>) -> (tensor<6x3xf32>, tensor<6x2xf32>) {
  %a = decoda.linear %x, %wa : tensor<6x4xf32>, tensor<3x4xf32>
  %wb = arith.constant dense<1.0> : tensor<2x4xf32>
  %b = decoda.linear %x, %wb : tensor<6x4xf32>, tensor<2x4xf32>
  return %a, %b : tensor<6x3xf32>, tensor<6x2xf32>
}

// -----

// Two decoder blocks: each block's Q/K/V read their own normalised input and fuse into their
// own linear; nothing crosses blocks.
// CHECK-LABEL: func @two_blocks
// CHECK:         %[[N1:.+]] = decoda.rms_norm %arg0
// CHECK:         %[[Y1:.+]] = decoda.linear %[[N1]], %{{.+}} : tensor<1x5x8xf32>, tensor<24x8xf32>
// CHECK-COUNT-3: tensor.extract_slice %[[Y1]]
// CHECK:         %[[N2:.+]] = decoda.rms_norm
// CHECK:         %[[Y2:.+]] = decoda.linear %[[N2]], %{{.+}} : tensor<1x5x8xf32>, tensor<24x8xf32>
// CHECK-COUNT-3: tensor.extract_slice %[[Y2]]
// CHECK-NOT:     decoda.linear
// CHECK:         return
func.func @two_blocks(%h: tensor<1x5x8xf32>, %g: tensor<8xf32>) -> (tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32>) {
  %wq1 = arith.constant dense<1.0> : tensor<8x8xf32>
  %wk1 = arith.constant dense<2.0> : tensor<8x8xf32>
  %wv1 = arith.constant dense<3.0> : tensor<8x8xf32>
  %wq2 = arith.constant dense<4.0> : tensor<8x8xf32>
  %wk2 = arith.constant dense<5.0> : tensor<8x8xf32>
  %wv2 = arith.constant dense<6.0> : tensor<8x8xf32>
  %n1 = decoda.rms_norm %h, %g {eps = 1.0e-05 : f64} : tensor<1x5x8xf32>, tensor<8xf32>
  %q1 = decoda.linear %n1, %wq1 : tensor<1x5x8xf32>, tensor<8x8xf32>
  %k1 = decoda.linear %n1, %wk1 : tensor<1x5x8xf32>, tensor<8x8xf32>
  %v1 = decoda.linear %n1, %wv1 : tensor<1x5x8xf32>, tensor<8x8xf32>
  %s = decoda.residual_add %h, %q1 : tensor<1x5x8xf32>
  %n2 = decoda.rms_norm %s, %g {eps = 1.0e-05 : f64} : tensor<1x5x8xf32>, tensor<8xf32>
  %q2 = decoda.linear %n2, %wq2 : tensor<1x5x8xf32>, tensor<8x8xf32>
  %k2 = decoda.linear %n2, %wk2 : tensor<1x5x8xf32>, tensor<8x8xf32>
  %v2 = decoda.linear %n2, %wv2 : tensor<1x5x8xf32>, tensor<8x8xf32>
  %a = decoda.residual_add %k1, %v1 : tensor<1x5x8xf32>
  %b = decoda.residual_add %q2, %k2 : tensor<1x5x8xf32>
  return %a, %b, %v2 : tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32>
}

// -----

// Gated MLP (f32, constant weights): gate/up become one linear on [W_gate ; W_up] with biases
// [b_gate ; b_up], the GLU reads the two halves, the down projection keeps its bias.
// CHECK-LABEL: func @gated_mlp
// CHECK-SAME:    (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-DAG:     %[[WGU:.+]] = arith.constant dense<{{\[}}[1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00], [1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00], [2.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00]]> : tensor<4x4xf32>
// CHECK-DAG:     %[[BGU:.+]] = arith.constant dense<[1.000000e-01, 1.000000e-01, 2.000000e-01, 2.000000e-01]> : tensor<4xf32>
// CHECK-DAG:     %[[WD:.+]] = arith.constant dense<3.000000e+00> : tensor<4x2xf32>
// CHECK-DAG:     %[[BD:.+]] = arith.constant dense<3.000000e-01> : tensor<4xf32>
// CHECK:         %[[GU:.+]] = decoda.linear %[[X]], %[[WGU]], %[[BGU]] : tensor<2x3x4xf32>, tensor<4x4xf32>, tensor<4xf32>
// CHECK:         %[[G:.+]] = tensor.extract_slice %[[GU]][0, 0, 0] [2, 3, 2] [1, 1, 1] : tensor<2x3x4xf32> to tensor<2x3x2xf32>
// CHECK:         %[[U:.+]] = tensor.extract_slice %[[GU]][0, 0, 2] [2, 3, 2] [1, 1, 1] : tensor<2x3x4xf32> to tensor<2x3x2xf32>
// CHECK:         %[[H:.+]] = decoda.glu %[[G]], %[[U]] {kind = #decoda.glu<clamped_swiglu, limit = 7.000000e+00>} : tensor<2x3x2xf32>
// CHECK:         %[[Y:.+]] = decoda.linear %[[H]], %[[WD]], %[[BD]] : tensor<2x3x2xf32>, tensor<4x2xf32>, tensor<4xf32>
// CHECK:         return %[[Y]]
// NOGLU-LABEL: func @gated_mlp
// NOGLU:         decoda.gated_mlp
// NOGLU-NOT:     decoda.glu %
// NOGLU:         return
func.func @gated_mlp(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %wg = arith.constant dense<1.0> : tensor<2x4xf32>
  %wu = arith.constant dense<2.0> : tensor<2x4xf32>
  %wd = arith.constant dense<3.0> : tensor<4x2xf32>
  %bg = arith.constant dense<0.1> : tensor<2xf32>
  %bu = arith.constant dense<0.2> : tensor<2xf32>
  %bd = arith.constant dense<0.3> : tensor<4xf32>
  %y = decoda.gated_mlp %x, %wg, %wu, %wd bias(%bg, %bu, %bd : tensor<2xf32>, tensor<2xf32>, tensor<4xf32>)
      {kind = #decoda.glu<clamped_swiglu, limit = 7.0>}
      : tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<4x2xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// Gated MLP with in_out weights and function arguments: only with weights=any; [K, 2F].
// CHECK-LABEL: func @gated_mlp_arguments
// CHECK:         decoda.gated_mlp
// ANY-LABEL: func @gated_mlp_arguments
// ANY:         %[[W:.+]] = tensor.concat dim(1) %arg1, %arg2 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x12xf32>
// ANY:         %[[GU:.+]] = decoda.linear %arg0, %[[W]] {weight_layout = #decoda.weight_layout<in_out>} : tensor<?x4xf32>, tensor<4x12xf32>
// ANY:         %[[G:.+]] = tensor.extract_slice %[[GU]][0, 0] [%{{.+}}, 6] [1, 1]
// ANY:         %[[U:.+]] = tensor.extract_slice %[[GU]][0, 6] [%{{.+}}, 6] [1, 1]
// ANY:         %[[H:.+]] = decoda.glu %[[G]], %[[U]] {kind = #decoda.glu<swiglu>} : tensor<?x6xf32>
// ANY:         decoda.linear %[[H]], %arg3 {weight_layout = #decoda.weight_layout<in_out>} : tensor<?x6xf32>, tensor<6x4xf32>
// ANY-NOT:     decoda.gated_mlp
// ANY:         return
func.func @gated_mlp_arguments(%x: tensor<?x4xf32>, %wg: tensor<4x6xf32>, %wu: tensor<4x6xf32>, %wd: tensor<6x4xf32>) -> tensor<?x4xf32> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>}
      : tensor<?x4xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<6x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// Negative: a bf16 gated MLP stays whole (the split form would round gate and up to bf16
// before the GLU, which gated_mlp does not).
// CHECK-LABEL: func @gated_mlp_bf16
// CHECK:         decoda.gated_mlp
// CHECK-NOT:     decoda.glu %
// CHECK:         return
// ANY-LABEL: func @gated_mlp_bf16
// ANY:         decoda.gated_mlp
func.func @gated_mlp_bf16(%x: tensor<3x4xbf16>, %wg: tensor<2x4xbf16>, %wu: tensor<2x4xbf16>, %wd: tensor<4x2xbf16>) -> tensor<3x4xbf16> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>}
      : tensor<3x4xbf16>, tensor<2x4xbf16>, tensor<2x4xbf16>, tensor<4x2xbf16>
  return %y : tensor<3x4xbf16>
}

// -----

// A parallel block (attention and MLP read the same normalised input): Q/K/V and the gated
// MLP's gate/up end up in one linear [8 + 4 + 4 + 2·6, 8].
// CHECK-LABEL: func @parallel_block
// CHECK:         %[[Y:.+]] = decoda.linear %arg0, %{{.+}} : tensor<5x8xf32>, tensor<28x8xf32>
// CHECK-COUNT-3: tensor.extract_slice %[[Y]]
// CHECK:         %[[GU:.+]] = tensor.extract_slice %[[Y]][0, 16] [5, 12] [1, 1]
// CHECK:         %[[G:.+]] = tensor.extract_slice %[[GU]][0, 0] [5, 6] [1, 1]
// CHECK:         %[[U:.+]] = tensor.extract_slice %[[GU]][0, 6] [5, 6] [1, 1]
// CHECK:         decoda.glu %[[G]], %[[U]]
// CHECK:         decoda.linear %{{.+}}, %{{.+}} : tensor<5x6xf32>, tensor<8x6xf32>
// CHECK-NOT:     decoda.linear
// CHECK:         return
// NOGLU-LABEL: func @parallel_block
// NOGLU:         decoda.linear %arg0, %{{.+}} : tensor<5x8xf32>, tensor<16x8xf32>
// NOGLU:         decoda.gated_mlp %arg0
func.func @parallel_block(%x: tensor<5x8xf32>) -> (tensor<5x8xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x8xf32>) {
  %wq = arith.constant dense<1.0> : tensor<8x8xf32>
  %wk = arith.constant dense<2.0> : tensor<4x8xf32>
  %wv = arith.constant dense<3.0> : tensor<4x8xf32>
  %wg = arith.constant dense<4.0> : tensor<6x8xf32>
  %wu = arith.constant dense<5.0> : tensor<6x8xf32>
  %wd = arith.constant dense<6.0> : tensor<8x6xf32>
  %q = decoda.linear %x, %wq : tensor<5x8xf32>, tensor<8x8xf32>
  %k = decoda.linear %x, %wk : tensor<5x8xf32>, tensor<4x8xf32>
  %v = decoda.linear %x, %wv : tensor<5x8xf32>, tensor<4x8xf32>
  %m = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>}
      : tensor<5x8xf32>, tensor<6x8xf32>, tensor<6x8xf32>, tensor<8x6xf32>
  return %q, %k, %v, %m : tensor<5x8xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x8xf32>
}

// -----

// Negative: different inputs.
// CHECK-LABEL: func @different_inputs
// CHECK-COUNT-2: decoda.linear
// ANY-LABEL: func @different_inputs
// ANY-COUNT-2: decoda.linear
// ANY-NOT:     tensor.concat
// ANY:         return
func.func @different_inputs(%x: tensor<3x4xf32>, %z: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = arith.constant dense<1.0> : tensor<2x4xf32>
  %w2 = arith.constant dense<2.0> : tensor<2x4xf32>
  %a = decoda.linear %x, %w : tensor<3x4xf32>, tensor<2x4xf32>
  %b = decoda.linear %z, %w2 : tensor<3x4xf32>, tensor<2x4xf32>
  return %a, %b : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Negative: different weight layouts (out_in and in_out) on one input.
// CHECK-LABEL: func @different_layouts
// CHECK-COUNT-2: decoda.linear
// CHECK-NOT:     tensor.extract_slice
// CHECK:         return
func.func @different_layouts(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = arith.constant dense<1.0> : tensor<2x4xf32>
  %wt = arith.constant dense<2.0> : tensor<4x2xf32>
  %a = decoda.linear %x, %w : tensor<3x4xf32>, tensor<2x4xf32>
  %b = decoda.linear %x, %wt {weight_layout = #decoda.weight_layout<in_out>} : tensor<3x4xf32>, tensor<4x2xf32>
  return %a, %b : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Negative: per-head (rank-3) weights.
// CHECK-LABEL: func @per_head
// CHECK-COUNT-2: decoda.linear
// CHECK-NOT:     tensor.extract_slice
// CHECK:         return
// ANY-LABEL: func @per_head
// ANY-NOT:     tensor.concat
// ANY:         return
func.func @per_head(%x: tensor<5x2x4xf32>, %w1: tensor<2x3x4xf32>, %w2: tensor<2x3x4xf32>) -> (tensor<5x2x3xf32>, tensor<5x2x3xf32>) {
  %a = decoda.linear %x, %w1 : tensor<5x2x4xf32>, tensor<2x3x4xf32>
  %b = decoda.linear %x, %w2 : tensor<5x2x4xf32>, tensor<2x3x4xf32>
  return %a, %b : tensor<5x2x3xf32>, tensor<5x2x3xf32>
}

// -----

// Negative: a single linear.
// CHECK-LABEL: func @single
// CHECK:         decoda.linear %arg0, %{{.+}} : tensor<3x4xf32>, tensor<2x4xf32>
// CHECK-NOT:     tensor.extract_slice
// CHECK:         return
func.func @single(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x4xf32>
  %a = decoda.linear %x, %w : tensor<3x4xf32>, tensor<2x4xf32>
  return %a : tensor<3x2xf32>
}

// -----

// Negative: bias on one linear only; the two biased ones still fuse with each other, and with
// min-group=3 nothing fuses.
// CHECK-LABEL: func @mismatched_bias
// CHECK:         %[[Y:.+]] = decoda.linear %arg0, %{{.+}}, %{{.+}} : tensor<3x4xf32>, tensor<4x4xf32>, tensor<4xf32>
// CHECK:         decoda.linear %arg0, %{{.+}} : tensor<3x4xf32>, tensor<2x4xf32>
// CHECK-NOT:     decoda.linear
// CHECK:         return
// MIN3-LABEL: func @mismatched_bias
// MIN3-COUNT-3: decoda.linear %arg0
func.func @mismatched_bias(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %w1 = arith.constant dense<1.0> : tensor<2x4xf32>
  %w2 = arith.constant dense<2.0> : tensor<2x4xf32>
  %w3 = arith.constant dense<3.0> : tensor<2x4xf32>
  %b = arith.constant dense<0.5> : tensor<2xf32>
  %a1 = decoda.linear %x, %w1, %b : tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>
  %a2 = decoda.linear %x, %w2 : tensor<3x4xf32>, tensor<2x4xf32>
  %a3 = decoda.linear %x, %w3, %b : tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>
  return %a1, %a2, %a3 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Negative (weights=any): the second weight is computed after the first linear, so the fused
// linear could not take the first one's place.
// CHECK-LABEL: func @weight_after_first
// CHECK-COUNT-2: decoda.linear
// ANY-LABEL: func @weight_after_first
// ANY-COUNT-2: decoda.linear
// ANY-NOT:     tensor.concat
// ANY:         return
func.func @weight_after_first(%x: tensor<3x4xf32>, %w: tensor<2x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %a = decoda.linear %x, %w : tensor<3x4xf32>, tensor<2x4xf32>
  %w2 = arith.addf %w, %w : tensor<2x4xf32>
  %b = decoda.linear %x, %w2 : tensor<3x4xf32>, tensor<2x4xf32>
  return %a, %b : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// The graph pipeline fuses constant-weight groups (and leaves argument weights alone).
// CHECK-LABEL: func @pipeline
// PIPE-LABEL: func @pipeline
// PIPE:         decoda.linear %{{.+}}, %{{.+}} : tensor<3x4xf32>, tensor<4x4xf32>
// PIPE:         decoda.linear %arg0, %arg1 : tensor<3x4xf32>, tensor<2x4xf32>
// PIPE:         decoda.linear %arg0, %arg2 : tensor<3x4xf32>, tensor<2x4xf32>
func.func @pipeline(%x: tensor<3x4xf32>, %w1: tensor<2x4xf32>, %w2: tensor<2x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %c1 = arith.constant dense<1.0> : tensor<2x4xf32>
  %c2 = arith.constant dense<2.0> : tensor<2x4xf32>
  %a = decoda.linear %x, %c1 : tensor<3x4xf32>, tensor<2x4xf32>
  %b = decoda.linear %x, %c2 : tensor<3x4xf32>, tensor<2x4xf32>
  %c = decoda.linear %x, %w1 : tensor<3x4xf32>, tensor<2x4xf32>
  %d = decoda.linear %x, %w2 : tensor<3x4xf32>, tensor<2x4xf32>
  return %a, %b, %c, %d : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// qlinears on one i8 input with the same x_scale (hand-written W8A8 Q/K/V), constant weights
// and per-channel weight scales: one qlinear on [ΣN, K] with the weight scales and biases
// concatenated the same way, then one slice per projection. The fourth reads the same input
// with another x_scale and stays alone.
// CHECK-LABEL: func.func @qlinear_qkv(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<1x?x4xi8>, %[[XS:[a-z0-9]+]]: tensor<f32>, %[[XS2:[a-z0-9]+]]: tensor<f32>
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<{{\[\[}}1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16], [17, 18, 19, 20]]> : tensor<5x4xi8>
// CHECK-DAG:     %[[WS:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<5xf32>
// CHECK:         %[[F:.*]] = decoda.qlinear %[[X]], %[[W]], %[[XS]], %[[WS]] bias(%{{.*}} : tensor<5xf32>) : tensor<1x?x4xi8>, tensor<5x4xi8>, tensor<f32>, tensor<5xf32> -> tensor<1x?x5xf32>
// CHECK:         tensor.extract_slice %[[F]][0, 0, 0] [1, %{{.*}}, 2] [1, 1, 1]
// CHECK:         tensor.extract_slice %[[F]][0, 0, 2] [1, %{{.*}}, 2] [1, 1, 1]
// CHECK:         tensor.extract_slice %[[F]][0, 0, 4] [1, %{{.*}}, 1] [1, 1, 1]
// CHECK:         decoda.qlinear %[[X]], %{{.*}}, %[[XS2]], %{{.*}} bias
// CHECK-NOT:     decoda.qlinear
// MIN3-LABEL: func.func @qlinear_qkv(
// MIN3-COUNT-2:  decoda.qlinear
// MIN3-NOT:      decoda.qlinear
func.func @qlinear_qkv(%x: tensor<1x?x4xi8>, %xs: tensor<f32>, %xs2: tensor<f32>)
    -> (tensor<1x?x2xf32>, tensor<1x?x2xf32>, tensor<1x?x1xf32>, tensor<1x?x1xf32>) {
  %wq = arith.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi8>
  %wk = arith.constant dense<[[9, 10, 11, 12], [13, 14, 15, 16]]> : tensor<2x4xi8>
  %wv = arith.constant dense<[[17, 18, 19, 20]]> : tensor<1x4xi8>
  %sq = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %sk = arith.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %sv = arith.constant dense<[5.0]> : tensor<1xf32>
  %bq = arith.constant dense<0.5> : tensor<2xf32>
  %bk = arith.constant dense<0.25> : tensor<2xf32>
  %bv = arith.constant dense<0.125> : tensor<1xf32>
  %q = decoda.qlinear %x, %wq, %xs, %sq bias(%bq : tensor<2xf32>) : tensor<1x?x4xi8>, tensor<2x4xi8>, tensor<f32>, tensor<2xf32> -> tensor<1x?x2xf32>
  %k = decoda.qlinear %x, %wk, %xs, %sk bias(%bk : tensor<2xf32>) : tensor<1x?x4xi8>, tensor<2x4xi8>, tensor<f32>, tensor<2xf32> -> tensor<1x?x2xf32>
  %v = decoda.qlinear %x, %wv, %xs, %sv bias(%bv : tensor<1xf32>) : tensor<1x?x4xi8>, tensor<1x4xi8>, tensor<f32>, tensor<1xf32> -> tensor<1x?x1xf32>
  %o = decoda.qlinear %x, %wv, %xs2, %sv bias(%bv : tensor<1xf32>) : tensor<1x?x4xi8>, tensor<1x4xi8>, tensor<f32>, tensor<1xf32> -> tensor<1x?x1xf32>
  return %q, %k, %v, %o : tensor<1x?x2xf32>, tensor<1x?x2xf32>, tensor<1x?x1xf32>, tensor<1x?x1xf32>
}

// -----

// A shared per-tensor weight scale stays one value; gate/up of a W8A8 MLP (then a glu).
// CHECK-LABEL: func.func @qlinear_tensor_scale(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<1x1x4xi8>, %[[XS:[a-z0-9]+]]: tensor<f32>, %[[WS:[a-z0-9]+]]: tensor<f32>
// CHECK:         %[[F:.*]] = decoda.qlinear %[[X]], %{{.*}}, %[[XS]], %[[WS]] : tensor<1x1x4xi8>, tensor<6x4xi8>, tensor<f32>, tensor<f32> -> tensor<1x1x6xf32>
// CHECK-COUNT-2: tensor.extract_slice %[[F]]
// CHECK:         decoda.glu
// MIN3-LABEL: func.func @qlinear_tensor_scale(
func.func @qlinear_tensor_scale(%x: tensor<1x1x4xi8>, %xs: tensor<f32>, %ws: tensor<f32>) -> tensor<1x1x3xf32> {
  %wg = arith.constant dense<1> : tensor<3x4xi8>
  %wu = arith.constant dense<2> : tensor<3x4xi8>
  %g = decoda.qlinear %x, %wg, %xs, %ws : tensor<1x1x4xi8>, tensor<3x4xi8>, tensor<f32>, tensor<f32> -> tensor<1x1x3xf32>
  %u = decoda.qlinear %x, %wu, %xs, %ws : tensor<1x1x4xi8>, tensor<3x4xi8>, tensor<f32>, tensor<f32> -> tensor<1x1x3xf32>
  %h = decoda.glu %g, %u {kind = #decoda.glu<swiglu>} : tensor<1x1x3xf32>
  return %h : tensor<1x1x3xf32>
}

// -----

// Negative: different per-tensor weight scales (a, b), a requantised member (c) and a zero
// point (d) next to float ones, and (weights=constant) a weight that is an argument (e, which
// matches b otherwise): nothing fuses. weights=any fuses b and e through a tensor.concat.
// CHECK-LABEL: func.func @qlinear_left_alone(
// CHECK-COUNT-5: decoda.qlinear
// CHECK-NOT:     tensor.extract_slice
// ANY-LABEL: func.func @qlinear_left_alone(
// ANY:           %[[C:.*]] = tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<3x4xi8>, tensor<3x4xi8>) -> tensor<6x4xi8>
// ANY:           decoda.qlinear %{{.*}}, %[[C]], %{{.*}}, %{{.*}} : tensor<1x1x4xi8>, tensor<6x4xi8>, tensor<f32>, tensor<f32> -> tensor<1x1x6xf32>
// ANY-COUNT-2:   tensor.extract_slice
func.func @qlinear_left_alone(%x: tensor<1x1x4xi8>, %xs: tensor<f32>, %ws: tensor<f32>, %ws2: tensor<f32>,
                              %os: tensor<f32>, %zp: tensor<i8>, %wa: tensor<3x4xi8>)
    -> (tensor<1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xi8>, tensor<1x1x3xf32>, tensor<1x1x3xf32>) {
  %w1 = arith.constant dense<1> : tensor<3x4xi8>
  %w2 = arith.constant dense<2> : tensor<3x4xi8>
  %w3 = arith.constant dense<3> : tensor<3x4xi8>
  %w4 = arith.constant dense<4> : tensor<3x4xi8>
  %a = decoda.qlinear %x, %w1, %xs, %ws : tensor<1x1x4xi8>, tensor<3x4xi8>, tensor<f32>, tensor<f32> -> tensor<1x1x3xf32>
  %b = decoda.qlinear %x, %w2, %xs, %ws2 : tensor<1x1x4xi8>, tensor<3x4xi8>, tensor<f32>, tensor<f32> -> tensor<1x1x3xf32>
  %c = decoda.qlinear %x, %w3, %xs, %ws requantize(%os : tensor<f32>) : tensor<1x1x4xi8>, tensor<3x4xi8>, tensor<f32>, tensor<f32> -> tensor<1x1x3xi8>
  %d = decoda.qlinear %x, %w4, %xs, %ws x_zero_point(%zp : tensor<i8>) : tensor<1x1x4xi8>, tensor<3x4xi8>, tensor<f32>, tensor<f32> -> tensor<1x1x3xf32>
  %e = decoda.qlinear %x, %wa, %xs, %ws2 : tensor<1x1x4xi8>, tensor<3x4xi8>, tensor<f32>, tensor<f32> -> tensor<1x1x3xf32>
  return %a, %b, %c, %d, %e : tensor<1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xi8>, tensor<1x1x3xf32>, tensor<1x1x3xf32>
}
