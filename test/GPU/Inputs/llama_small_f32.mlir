// A small Llama-style block in f32 for block-sim.mlir: hidden 64, 4 query heads over 2 KV heads
// of 16 (causal, RoPE theta 1e4), SwiGLU 96; the reference is Inputs/block_data.py llama-f32.
func.func @blk(
    %h: tensor<1x?x64xf32>,
    %attn_norm: tensor<64xf32>, %wq: tensor<64x64xf32>, %wk: tensor<32x64xf32>,
    %wv: tensor<32x64xf32>, %wo: tensor<64x64xf32>,
    %mlp_norm: tensor<64xf32>, %w_gate: tensor<96x64xf32>, %w_up: tensor<96x64xf32>,
    %w_down: tensor<64x96xf32>) -> tensor<1x?x64xf32> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<1x?x64xf32>
  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-05 : f64} : tensor<1x?x64xf32>, tensor<64xf32>
  %q2 = decoda.linear %x, %wq : tensor<1x?x64xf32>, tensor<64x64xf32>
  %k2 = decoda.linear %x, %wk : tensor<1x?x64xf32>, tensor<32x64xf32>
  %v2 = decoda.linear %x, %wv : tensor<1x?x64xf32>, tensor<32x64xf32>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, %t, 4, 16]
      : tensor<1x?x64xf32> into tensor<1x?x4x16xf32>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 16]
      : tensor<1x?x32xf32> into tensor<1x?x2x16xf32>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 16]
      : tensor<1x?x32xf32> into tensor<1x?x2x16xf32>
  %qr = decoda.rope %q {theta = 1.0e+04 : f64} : tensor<1x?x4x16xf32>
  %kr = decoda.rope %k {theta = 1.0e+04 : f64} : tensor<1x?x2x16xf32>
  %o = decoda.attention %qr, %kr, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x16xf32>, tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x?x4x16xf32> into tensor<1x?x64xf32>
  %attn = decoda.linear %o2, %wo : tensor<1x?x64xf32>, tensor<64x64xf32>
  %u = decoda.residual_add %h, %attn : tensor<1x?x64xf32>
  %y = decoda.rms_norm %u, %mlp_norm {eps = 1.0e-05 : f64} : tensor<1x?x64xf32>, tensor<64xf32>
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
      : tensor<1x?x64xf32>, tensor<96x64xf32>, tensor<96x64xf32>, tensor<64x96xf32>
  %out = decoda.residual_add %u, %m : tensor<1x?x64xf32>
  return %out : tensor<1x?x64xf32>
}
