// A small pre-norm decoder block (GQA 4/2 x 8, RoPE, causal window 6, sinks, SwiGLU, hidden 32,
// dynamic T), from python/tools/random_blocks.py, for the runtime's tests on a compiled model.

func.func @block(%h: tensor<1x?x32xf32> {decoda.name = "h"}, %n1_w: tensor<32xf32> {decoda.name = "n1_w"}, %wq: tensor<32x32xf32> {decoda.name = "wq"}, %wk: tensor<16x32xf32> {decoda.name = "wk"}, %wv: tensor<16x32xf32> {decoda.name = "wv"}, %sinks: tensor<4xf32> {decoda.name = "sinks"}, %wo: tensor<32x32xf32> {decoda.name = "wo"}, %n2_w: tensor<32xf32> {decoda.name = "n2_w"}, %w_gate: tensor<64x32xf32> {decoda.name = "w_gate"}, %w_up: tensor<64x32xf32> {decoda.name = "w_up"}, %w_down: tensor<32x64xf32> {decoda.name = "w_down"}) -> tensor<1x?x32xf32> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<1x?x32xf32>
  %n1 = decoda.rms_norm %h, %n1_w {eps = 1.0e-05 : f64} : tensor<1x?x32xf32>, tensor<32xf32>
  %l2 = decoda.linear %n1, %wq : tensor<1x?x32xf32>, tensor<32x32xf32>
  %l3 = decoda.linear %n1, %wk : tensor<1x?x32xf32>, tensor<16x32xf32>
  %l4 = decoda.linear %n1, %wv : tensor<1x?x32xf32>, tensor<16x32xf32>
  %e5 = tensor.expand_shape %l2 [[0], [1], [2, 3]] output_shape [1, %t, 4, 8] : tensor<1x?x32xf32> into tensor<1x?x4x8xf32>
  %e6 = tensor.expand_shape %l3 [[0], [1], [2, 3]] output_shape [1, %t, 2, 8] : tensor<1x?x16xf32> into tensor<1x?x2x8xf32>
  %e7 = tensor.expand_shape %l4 [[0], [1], [2, 3]] output_shape [1, %t, 2, 8] : tensor<1x?x16xf32> into tensor<1x?x2x8xf32>
  %r8 = decoda.rope %e5 {theta = 10000.0 : f64} : tensor<1x?x4x8xf32>
  %r9 = decoda.rope %e6 {theta = 10000.0 : f64} : tensor<1x?x2x8xf32>
  %o10 = decoda.attention %r8, %r9, %e7 sinks(%sinks : tensor<4xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal, window = 6 : i64} : tensor<1x?x4x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>
  %m11 = tensor.collapse_shape %o10 [[0], [1], [2, 3]] : tensor<1x?x4x8xf32> into tensor<1x?x32xf32>
  %l12 = decoda.linear %m11, %wo : tensor<1x?x32xf32>, tensor<32x32xf32>
  %s13 = decoda.residual_add %h, %l12 : tensor<1x?x32xf32>
  %n14 = decoda.rms_norm %s13, %n2_w {eps = 1.0e-05 : f64} : tensor<1x?x32xf32>, tensor<32xf32>
  %f15 = decoda.gated_mlp %n14, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>} : tensor<1x?x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<32x64xf32>
  %s16 = decoda.residual_add %s13, %f15 : tensor<1x?x32xf32>
  return %s16 : tensor<1x?x32xf32>
}
