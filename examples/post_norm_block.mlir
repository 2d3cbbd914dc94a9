// A post-norm decoder block (the original Transformer / GPT-1 arrangement: the norm follows each
// residual addition): LayerNorm with bias, multi-head causal attention with biased projections,
// a GELU MLP with biases. Hidden 64, 4 heads of 16, MLP 256, batch 2, dynamic sequence length.
//
//   u  = LayerNorm(h + Attn(h))
//   h' = LayerNorm(u + MLP(u))

func.func @post_norm_block(
    %h: tensor<2x?x64xf32>,
    %wq: tensor<64x64xf32>, %bq: tensor<64xf32>, %wk: tensor<64x64xf32>, %bk: tensor<64xf32>,
    %wv: tensor<64x64xf32>, %bv: tensor<64xf32>, %wo: tensor<64x64xf32>, %bo: tensor<64xf32>,
    %ln1_w: tensor<64xf32>, %ln1_b: tensor<64xf32>,
    %w_up: tensor<256x64xf32>, %b_up: tensor<256xf32>, %w_down: tensor<64x256xf32>,
    %b_down: tensor<64xf32>,
    %ln2_w: tensor<64xf32>, %ln2_b: tensor<64xf32>) -> tensor<2x?x64xf32> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<2x?x64xf32>

  %q2 = decoda.linear %h, %wq, %bq : tensor<2x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
  %k2 = decoda.linear %h, %wk, %bk : tensor<2x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
  %v2 = decoda.linear %h, %wv, %bv : tensor<2x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [2, %t, 4, 16]
      : tensor<2x?x64xf32> into tensor<2x?x4x16xf32>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [2, %t, 4, 16]
      : tensor<2x?x64xf32> into tensor<2x?x4x16xf32>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [2, %t, 4, 16]
      : tensor<2x?x64xf32> into tensor<2x?x4x16xf32>
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 4 : i64, causal}
      : tensor<2x?x4x16xf32>, tensor<2x?x4x16xf32>, tensor<2x?x4x16xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<2x?x4x16xf32> into tensor<2x?x64xf32>
  %attn = decoda.linear %o2, %wo, %bo : tensor<2x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
  %s1 = decoda.residual_add %h, %attn : tensor<2x?x64xf32>
  %u = decoda.layer_norm %s1, %ln1_w, %ln1_b {eps = 1.0e-05 : f64}
      : tensor<2x?x64xf32>, tensor<64xf32>, tensor<64xf32>

  %m = decoda.mlp %u, %w_up, %w_down bias(%b_up, %b_down : tensor<256xf32>, tensor<64xf32>)
      {activation = #decoda.activation<gelu_erf>}
      : tensor<2x?x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  %s2 = decoda.residual_add %u, %m : tensor<2x?x64xf32>
  %out = decoda.layer_norm %s2, %ln2_w, %ln2_b {eps = 1.0e-05 : f64}
      : tensor<2x?x64xf32>, tensor<64xf32>, tensor<64xf32>
  return %out : tensor<2x?x64xf32>
}
