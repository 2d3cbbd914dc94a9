// A small bf16 Llama-style block (hidden 256, 4 query heads over 2 KV heads of 64, SwiGLU 512)
// for the numerical check of bench/gpu_check.sh: its projections take the tensor-core path.

func.func @bf16_block_small(
    %h: tensor<1x?x256xbf16>,
    %attn_norm: tensor<256xbf16>, %wq: tensor<256x256xbf16>, %wk: tensor<128x256xbf16>,
    %wv: tensor<128x256xbf16>, %wo: tensor<256x256xbf16>,
    %mlp_norm: tensor<256xbf16>, %w_gate: tensor<512x256xbf16>, %w_up: tensor<512x256xbf16>,
    %w_down: tensor<256x512xbf16>) -> tensor<1x?x256xbf16> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<1x?x256xbf16>

  // u = h + Attn(RMSNorm(h))
  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-05 : f64} : tensor<1x?x256xbf16>, tensor<256xbf16>
  %q2 = decoda.linear %x, %wq : tensor<1x?x256xbf16>, tensor<256x256xbf16>
  %k2 = decoda.linear %x, %wk : tensor<1x?x256xbf16>, tensor<128x256xbf16>
  %v2 = decoda.linear %x, %wv : tensor<1x?x256xbf16>, tensor<128x256xbf16>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, %t, 4, 64]
      : tensor<1x?x256xbf16> into tensor<1x?x4x64xbf16>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 64]
      : tensor<1x?x128xbf16> into tensor<1x?x2x64xbf16>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 64]
      : tensor<1x?x128xbf16> into tensor<1x?x2x64xbf16>
  %qr = decoda.rope %q {theta = 5.0e+05 : f64} : tensor<1x?x4x64xbf16>
  %kr = decoda.rope %k {theta = 5.0e+05 : f64} : tensor<1x?x2x64xbf16>
  %o = decoda.attention %qr, %kr, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x?x4x64xbf16> into tensor<1x?x256xbf16>
  %attn = decoda.linear %o2, %wo : tensor<1x?x256xbf16>, tensor<256x256xbf16>
  %u = decoda.residual_add %h, %attn : tensor<1x?x256xbf16>

  // h' = u + SwiGLU(RMSNorm(u))
  %y = decoda.rms_norm %u, %mlp_norm {eps = 1.0e-05 : f64} : tensor<1x?x256xbf16>, tensor<256xbf16>
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
      : tensor<1x?x256xbf16>, tensor<512x256xbf16>, tensor<512x256xbf16>, tensor<256x512xbf16>
  %out = decoda.residual_add %u, %m : tensor<1x?x256xbf16>
  return %out : tensor<1x?x256xbf16>
}
