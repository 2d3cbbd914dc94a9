// The Llama-3.2-1B decoder block shape (hidden 2048, 32 query heads over 8 KV heads of 64,
// SwiGLU MLP 8192) in bf16, for bench/gpu_check.sh; made from examples/llama_block.mlir.

func.func @llama32_1b_block(
    %h: tensor<1x?x2048xbf16>,
    %attn_norm: tensor<2048xbf16>, %wq: tensor<2048x2048xbf16>, %wk: tensor<512x2048xbf16>,
    %wv: tensor<512x2048xbf16>, %wo: tensor<2048x2048xbf16>,
    %mlp_norm: tensor<2048xbf16>, %w_gate: tensor<8192x2048xbf16>, %w_up: tensor<8192x2048xbf16>,
    %w_down: tensor<2048x8192xbf16>) -> tensor<1x?x2048xbf16> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<1x?x2048xbf16>

  // u = h + Attn(RMSNorm(h))
  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-05 : f64} : tensor<1x?x2048xbf16>, tensor<2048xbf16>
  %q2 = decoda.linear %x, %wq : tensor<1x?x2048xbf16>, tensor<2048x2048xbf16>
  %k2 = decoda.linear %x, %wk : tensor<1x?x2048xbf16>, tensor<512x2048xbf16>
  %v2 = decoda.linear %x, %wv : tensor<1x?x2048xbf16>, tensor<512x2048xbf16>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, %t, 32, 64]
      : tensor<1x?x2048xbf16> into tensor<1x?x32x64xbf16>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, %t, 8, 64]
      : tensor<1x?x512xbf16> into tensor<1x?x8x64xbf16>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, %t, 8, 64]
      : tensor<1x?x512xbf16> into tensor<1x?x8x64xbf16>
  %qr = decoda.rope %q {theta = 5.0e+05 : f64} : tensor<1x?x32x64xbf16>
  %kr = decoda.rope %k {theta = 5.0e+05 : f64} : tensor<1x?x8x64xbf16>
  %o = decoda.attention %qr, %kr, %v {num_heads = 32 : i64, num_kv_heads = 8 : i64, causal}
      : tensor<1x?x32x64xbf16>, tensor<1x?x8x64xbf16>, tensor<1x?x8x64xbf16>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x?x32x64xbf16> into tensor<1x?x2048xbf16>
  %attn = decoda.linear %o2, %wo : tensor<1x?x2048xbf16>, tensor<2048x2048xbf16>
  %u = decoda.residual_add %h, %attn : tensor<1x?x2048xbf16>

  // h' = u + SwiGLU(RMSNorm(u))
  %y = decoda.rms_norm %u, %mlp_norm {eps = 1.0e-05 : f64} : tensor<1x?x2048xbf16>, tensor<2048xbf16>
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
      : tensor<1x?x2048xbf16>, tensor<8192x2048xbf16>, tensor<8192x2048xbf16>, tensor<2048x8192xbf16>
  %out = decoda.residual_add %u, %m : tensor<1x?x2048xbf16>
  return %out : tensor<1x?x2048xbf16>
}
