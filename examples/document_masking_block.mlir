// A pre-norm decoder block over packed sequences (several documents concatenated into one row,
// as in pre-training): `segment_ids` [B, T] give each token's document and attention never
// crosses a document boundary; `positions` [B, T] restart at 0 in every document, so RoPE sees
// each document as if it were alone. GQA (4 query heads over 2 KV heads of 16), causal, SwiGLU
// MLP. Hidden 64, MLP 128, batch 2, dynamic sequence length.

func.func @document_masking_block(
    %h: tensor<2x?x64xf32>, %segment_ids: tensor<2x?xi64>, %positions: tensor<2x?xi64>,
    %attn_norm: tensor<64xf32>, %wq: tensor<64x64xf32>, %wk: tensor<32x64xf32>,
    %wv: tensor<32x64xf32>, %wo: tensor<64x64xf32>,
    %mlp_norm: tensor<64xf32>, %w_gate: tensor<128x64xf32>, %w_up: tensor<128x64xf32>,
    %w_down: tensor<64x128xf32>) -> tensor<2x?x64xf32> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<2x?x64xf32>

  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-05 : f64} : tensor<2x?x64xf32>, tensor<64xf32>
  %q2 = decoda.linear %x, %wq : tensor<2x?x64xf32>, tensor<64x64xf32>
  %k2 = decoda.linear %x, %wk : tensor<2x?x64xf32>, tensor<32x64xf32>
  %v2 = decoda.linear %x, %wv : tensor<2x?x64xf32>, tensor<32x64xf32>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [2, %t, 4, 16]
      : tensor<2x?x64xf32> into tensor<2x?x4x16xf32>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [2, %t, 2, 16]
      : tensor<2x?x32xf32> into tensor<2x?x2x16xf32>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [2, %t, 2, 16]
      : tensor<2x?x32xf32> into tensor<2x?x2x16xf32>
  %qr = decoda.rope %q positions(%positions : tensor<2x?xi64>) {theta = 1.0e+04 : f64}
      : tensor<2x?x4x16xf32>
  %kr = decoda.rope %k positions(%positions : tensor<2x?xi64>) {theta = 1.0e+04 : f64}
      : tensor<2x?x2x16xf32>
  %o = decoda.attention %qr, %kr, %v segment_ids(%segment_ids : tensor<2x?xi64>)
      {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<2x?x4x16xf32>, tensor<2x?x2x16xf32>, tensor<2x?x2x16xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<2x?x4x16xf32> into tensor<2x?x64xf32>
  %attn = decoda.linear %o2, %wo : tensor<2x?x64xf32>, tensor<64x64xf32>
  %u = decoda.residual_add %h, %attn : tensor<2x?x64xf32>

  %y = decoda.rms_norm %u, %mlp_norm {eps = 1.0e-05 : f64} : tensor<2x?x64xf32>, tensor<64xf32>
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
      : tensor<2x?x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>
  %out = decoda.residual_add %u, %m : tensor<2x?x64xf32>
  return %out : tensor<2x?x64xf32>
}
