// A Qwen3/OLMo-2-style pre-norm decoder block with QK-norm: the per-head queries and keys are
// RMS-normalised (decoda.rms_norm on [B, T, H, D] with a [D] weight) before RoPE, which keeps
// the attention logits bounded. GQA (4 query heads over 2 KV heads of 16), causal, SwiGLU MLP.
// Hidden 64, MLP 128, batch 1, dynamic sequence length.

func.func @qk_norm_block(
    %h: tensor<1x?x64xf32>,
    %attn_norm: tensor<64xf32>, %wq: tensor<64x64xf32>, %wk: tensor<32x64xf32>,
    %wv: tensor<32x64xf32>, %q_norm: tensor<16xf32>, %k_norm: tensor<16xf32>,
    %wo: tensor<64x64xf32>,
    %mlp_norm: tensor<64xf32>, %w_gate: tensor<128x64xf32>, %w_up: tensor<128x64xf32>,
    %w_down: tensor<64x128xf32>) -> tensor<1x?x64xf32> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<1x?x64xf32>

  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-06 : f64} : tensor<1x?x64xf32>, tensor<64xf32>
  %q2 = decoda.linear %x, %wq : tensor<1x?x64xf32>, tensor<64x64xf32>
  %k2 = decoda.linear %x, %wk : tensor<1x?x64xf32>, tensor<32x64xf32>
  %v2 = decoda.linear %x, %wv : tensor<1x?x64xf32>, tensor<32x64xf32>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, %t, 4, 16]
      : tensor<1x?x64xf32> into tensor<1x?x4x16xf32>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 16]
      : tensor<1x?x32xf32> into tensor<1x?x2x16xf32>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 16]
      : tensor<1x?x32xf32> into tensor<1x?x2x16xf32>
  %qn = decoda.rms_norm %q, %q_norm {eps = 1.0e-06 : f64} : tensor<1x?x4x16xf32>, tensor<16xf32>
  %kn = decoda.rms_norm %k, %k_norm {eps = 1.0e-06 : f64} : tensor<1x?x2x16xf32>, tensor<16xf32>
  %qr = decoda.rope %qn {theta = 1.0e+06 : f64} : tensor<1x?x4x16xf32>
  %kr = decoda.rope %kn {theta = 1.0e+06 : f64} : tensor<1x?x2x16xf32>
  %o = decoda.attention %qr, %kr, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x16xf32>, tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x?x4x16xf32> into tensor<1x?x64xf32>
  %attn = decoda.linear %o2, %wo : tensor<1x?x64xf32>, tensor<64x64xf32>
  %u = decoda.residual_add %h, %attn : tensor<1x?x64xf32>

  %y = decoda.rms_norm %u, %mlp_norm {eps = 1.0e-06 : f64} : tensor<1x?x64xf32>, tensor<64xf32>
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
      : tensor<1x?x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>
  %out = decoda.residual_add %u, %m : tensor<1x?x64xf32>
  return %out : tensor<1x?x64xf32>
}
