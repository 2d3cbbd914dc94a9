// decoda-transpose-constant-weights: a constant [K, N] (in_out) weight of decoda.linear becomes a
// constant [N, K] (out_in), values moved, not recomputed; argument weights stay. The CUDA pipeline
// runs it first (its GEMV and tensor-core kernels read [N, K] weights): an in_out projection on
// the PTX interpreter against NumPy below.
// RUN: decoda-opt %s --split-input-file --decoda-transpose-constant-weights | FileCheck %s

// The values: W[k][n] -> W'[n][k]; the [K, N] constant goes.
// CHECK-LABEL: func.func @dense(
// CHECK-NOT: tensor<2x3xf32>
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK: decoda.linear %{{.*}}, %[[W]] : tensor<1x2xf32>, tensor<3x2xf32>
func.func @dense(%x: tensor<1x2xf32>) -> tensor<1x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %y = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// One transposed copy for two linears reading one weight, with a bias; a splat reshaped.
// CHECK-LABEL: func.func @shared(
// CHECK-COUNT-1: arith.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: arith.constant dense<5.000000e-01> : tensor<4x2xf32>
// CHECK: decoda.linear %{{.*}}, %[[W:[^,]*]], %{{.*}} : tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>
// CHECK: decoda.linear %{{.*}}, %[[W]] : tensor<1x2xf32>, tensor<2x2xf32>
// CHECK: decoda.linear %{{.*}}, %{{.*}} : tensor<1x2xf32>, tensor<4x2xf32>
func.func @shared(%x: tensor<1x2xf32>, %b: tensor<2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x4xf32>) {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %s = arith.constant dense<0.5> : tensor<2x4xf32>
  %y1 = decoda.linear %x, %w, %b {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>
  %y2 = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x2xf32>
  %y3 = decoda.linear %x, %s {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x4xf32>
  return %y1, %y2, %y3 : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x4xf32>
}

// -----

// Per-head weights [H, K, N] -> [H, N, K]; a dense_resource stays a resource: bf16 1..8 as
// [2, 2, 2] (head 0 [[1, 2], [3, 4]], head 1 [[5, 6], [7, 8]]) become [[1, 3], [2, 4]] and
// [[5, 7], [6, 8]].
// CHECK-LABEL: func.func @heads(
// CHECK: arith.constant dense_resource<decoda_transposed> : tensor<2x2x2xbf16>
// CHECK: decoda.linear %{{.*}}, %{{.*}} : tensor<1x2x2xbf16>, tensor<2x2x2xbf16>
// CHECK: decoda_transposed: "0x{{[0-9A-F]+}}803F404000408040A040E040C0400041"
func.func @heads(%x: tensor<1x2x2xbf16>) -> tensor<1x2x2xbf16> {
  %w = arith.constant dense_resource<w> : tensor<2x2x2xbf16>
  %y = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2x2xbf16>, tensor<2x2x2xbf16>
  return %y : tensor<1x2x2xbf16>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x02000000803F004040408040A040C040E0400041"
    }
  }
#-}

// -----

// Negative: an argument weight (a transpose would run every call) and an out_in weight stay.
// CHECK-LABEL: func.func @left(
// CHECK: decoda.linear %{{.*}}, %{{.*}} {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x3xf32>
// CHECK: decoda.linear %{{.*}}, %{{.*}} : tensor<1x2xf32>, tensor<3x2xf32>
func.func @left(%x: tensor<1x2xf32>, %w: tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %y = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x3xf32>
  %z = decoda.linear %x, %c : tensor<1x2xf32>, tensor<3x2xf32>
  return %y, %z : tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// decoda.mlp and decoda.gated_mlp: every weight a constant -> all transposed, the op out_in
// (one layout attribute for all its weights; ONNX exports raised to gated MLPs keep the
// GEMV/tensor-core kernels this way). One argument weight among them: the op stays in_out.
// CHECK-LABEL: func.func @gated(
// CHECK-DAG: %[[G:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[U:.*]] = arith.constant dense<{{\[\[}}5.000000e+00, 7.000000e+00], [6.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[D:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00], [2.000000e+00, 1.000000e+00]]> : tensor<2x2xf32>
// CHECK: decoda.gated_mlp %{{.*}}, %[[G]], %[[U]], %[[D]] {kind = #decoda.glu<swiglu>} :
// CHECK-NOT: in_out
// CHECK-LABEL: func.func @mlp(
// CHECK: decoda.mlp %{{.*}}, %{{.*}}, %{{.*}} {activation = #decoda.activation<gelu_tanh>} : tensor<1x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>
// CHECK-LABEL: func.func @gated_argument(
// CHECK-COUNT-2: arith.constant
// CHECK-NEXT: decoda.gated_mlp %{{.*}}, %{{.*}}, %arg1, %{{.*}} {kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>}
func.func @gated(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %g = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %u = arith.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %d = arith.constant dense<[[1.0, 2.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %y = decoda.gated_mlp %x, %g, %u, %d {kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  return %y : tensor<1x2xf32>
}
func.func @mlp(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %u = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %d = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %y = decoda.mlp %x, %u, %d {activation = #decoda.activation<gelu_tanh>, weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x3xf32>, tensor<3x2xf32>
  return %y : tensor<1x2xf32>
}
func.func @gated_argument(%x: tensor<1x2xf32>, %u: tensor<2x2xf32>) -> tensor<1x2xf32> {
  %g = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %d = arith.constant dense<[[1.0, 2.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %y = decoda.gated_mlp %x, %g, %u, %d {kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// A weight that is the transpose of its last two dims is read untransposed as out_in, argument
// or constant, nothing copied: the tied lm_head of Gemma / Llama-3.2 / Qwen2 exports,
// MatMul(x, Transpose(embed_tokens)), reads the embedding table itself (the GPU: a GEMV at
// decode instead of a transpose kernel every call and a SIMT loop nest; numbers on the PTX
// interpreter and on the CPU against ONNX Runtime: test/GPU/onnx-decoder-variants-sim.mlir,
// test/Frontend/ONNX/e2e/decoder_kv.py). A transpose with other readers stays for them.
// CHECK-LABEL: func.func @tied(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2xf32>, %[[E:[^:]*]]: tensor<4x2xf32>
// CHECK-NOT: linalg.transpose
// CHECK: decoda.linear %[[X]], %[[E]] : tensor<1x2xf32>, tensor<4x2xf32>
// CHECK-NOT: in_out
func.func @tied(%x: tensor<1x2xf32>, %e: tensor<4x2xf32>) -> tensor<1x4xf32> {
  %init = tensor.empty() : tensor<2x4xf32>
  %t = linalg.transpose ins(%e : tensor<4x2xf32>) outs(%init : tensor<2x4xf32>) permutation = [1, 0]
  %y = decoda.linear %x, %t {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x4xf32>
  return %y : tensor<1x4xf32>
}
// CHECK-LABEL: func.func @tied_kept(
// CHECK: %[[C:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[C]]
// CHECK: decoda.linear %{{.*}}, %[[C]] : tensor<1x2xf32>, tensor<3x2xf32>
// CHECK: return %{{.*}}, %[[T]]
func.func @tied_kept(%x: tensor<1x2xf32>) -> (tensor<1x3xf32>, tensor<2x3xf32>) {
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %init = tensor.empty() : tensor<2x3xf32>
  %t = linalg.transpose ins(%c : tensor<3x2xf32>) outs(%init : tensor<2x3xf32>) permutation = [1, 0]
  %y = decoda.linear %x, %t {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x3xf32>
  return %y, %t : tensor<1x3xf32>, tensor<2x3xf32>
}
// Per head: [H, N, K] transposed by [0, 2, 1] is read as [H, N, K] out_in.
// CHECK-LABEL: func.func @tied_heads(
// CHECK-SAME: %[[W:[^:]*]]: tensor<2x3x4xf32>
// CHECK: decoda.linear %{{.*}}, %[[W]] : tensor<1x2x4xf32>, tensor<2x3x4xf32>
func.func @tied_heads(%x: tensor<1x2x4xf32>, %w: tensor<2x3x4xf32>) -> tensor<1x2x3xf32> {
  %init = tensor.empty() : tensor<2x4x3xf32>
  %t = linalg.transpose ins(%w : tensor<2x3x4xf32>) outs(%init : tensor<2x4x3xf32>) permutation = [0, 2, 1]
  %y = decoda.linear %x, %t {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2x4xf32>, tensor<2x4x3xf32>
  return %y : tensor<1x2x3xf32>
}
// A gated MLP whose three weights are such transposes reads their sources out_in.
// CHECK-LABEL: func.func @tied_gated(
// CHECK-SAME: %[[G:[^:]*]]: tensor<3x2xf32>, %[[U:[^:]*]]: tensor<3x2xf32>, %[[D:[^:]*]]: tensor<2x3xf32>
// CHECK: decoda.gated_mlp %{{.*}}, %[[G]], %[[U]], %[[D]] {kind = #decoda.glu<swiglu>} :
func.func @tied_gated(%x: tensor<1x2xf32>, %g: tensor<3x2xf32>, %u: tensor<3x2xf32>, %d: tensor<2x3xf32>) -> tensor<1x2xf32> {
  %i1 = tensor.empty() : tensor<2x3xf32>
  %gt = linalg.transpose ins(%g : tensor<3x2xf32>) outs(%i1 : tensor<2x3xf32>) permutation = [1, 0]
  %ut = linalg.transpose ins(%u : tensor<3x2xf32>) outs(%i1 : tensor<2x3xf32>) permutation = [1, 0]
  %i2 = tensor.empty() : tensor<3x2xf32>
  %dt = linalg.transpose ins(%d : tensor<2x3xf32>) outs(%i2 : tensor<3x2xf32>) permutation = [1, 0]
  %y = decoda.gated_mlp %x, %gt, %ut, %dt {kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// Negative: a transpose that moves a leading dim ([1, 0, 2]: not a [K, N] <-> [N, K] swap),
// and a gated MLP with one weight not a transpose (one layout for all three): both stay in_out.
// CHECK-LABEL: func.func @not_swapped(
// CHECK: linalg.transpose
// CHECK: decoda.linear %{{.*}}, %{{.*}} {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2x4xf32>, tensor<2x4x3xf32>
func.func @not_swapped(%x: tensor<1x2x4xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x2x3xf32> {
  %init = tensor.empty() : tensor<2x4x3xf32>
  %t = linalg.transpose ins(%w : tensor<4x2x3xf32>) outs(%init : tensor<2x4x3xf32>) permutation = [1, 0, 2]
  %y = decoda.linear %x, %t {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2x4xf32>, tensor<2x4x3xf32>
  return %y : tensor<1x2x3xf32>
}
// CHECK-LABEL: func.func @gated_one_plain(
// CHECK: linalg.transpose
// CHECK: linalg.transpose
// CHECK: decoda.gated_mlp {{.*}}weight_layout = #decoda.weight_layout<in_out>
func.func @gated_one_plain(%x: tensor<1x2xf32>, %g: tensor<3x2xf32>, %u: tensor<3x2xf32>, %d: tensor<3x2xf32>) -> tensor<1x2xf32> {
  %i1 = tensor.empty() : tensor<2x3xf32>
  %gt = linalg.transpose ins(%g : tensor<3x2xf32>) outs(%i1 : tensor<2x3xf32>) permutation = [1, 0]
  %ut = linalg.transpose ins(%u : tensor<3x2xf32>) outs(%i1 : tensor<2x3xf32>) permutation = [1, 0]
  %y = decoda.gated_mlp %x, %gt, %ut, %d {kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<1x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>
  return %y : tensor<1x2xf32>
}
