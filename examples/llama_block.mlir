// A Llama-style pre-norm decoder block (RMSNorm, GQA with RoPE, causal, SwiGLU), hidden 256,
// 8 query heads over 2 KV heads of 32, MLP 768, for batch 1 and a dynamic sequence length.
// `bash scripts/run-example.sh` sends it through the graph pipeline and prints the IR.

func.func @llama_block(
    %h: tensor<1x?x256xf32>,
    %attn_norm: tensor<256xf32>, %wq: tensor<256x256xf32>, %wk: tensor<64x256xf32>,
    %wv: tensor<64x256xf32>, %wo: tensor<256x256xf32>,
    %mlp_norm: tensor<256xf32>, %w_gate: tensor<768x256xf32>, %w_up: tensor<768x256xf32>,
    %w_down: tensor<256x768xf32>) -> tensor<1x?x256xf32> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<1x?x256xf32>

  // u = h + Attn(RMSNorm(h))
  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-05 : f64} : tensor<1x?x256xf32>, tensor<256xf32>
  %q2 = decoda.linear %x, %wq : tensor<1x?x256xf32>, tensor<256x256xf32>
  %k2 = decoda.linear %x, %wk : tensor<1x?x256xf32>, tensor<64x256xf32>
  %v2 = decoda.linear %x, %wv : tensor<1x?x256xf32>, tensor<64x256xf32>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, %t, 8, 32]
      : tensor<1x?x256xf32> into tensor<1x?x8x32xf32>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 32]
      : tensor<1x?x64xf32> into tensor<1x?x2x32xf32>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 32]
      : tensor<1x?x64xf32> into tensor<1x?x2x32xf32>
  %qr = decoda.rope %q {theta = 5.0e+05 : f64} : tensor<1x?x8x32xf32>
  %kr = decoda.rope %k {theta = 5.0e+05 : f64} : tensor<1x?x2x32xf32>
  %o = decoda.attention %qr, %kr, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x8x32xf32>, tensor<1x?x2x32xf32>, tensor<1x?x2x32xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x?x8x32xf32> into tensor<1x?x256xf32>
  %attn = decoda.linear %o2, %wo : tensor<1x?x256xf32>, tensor<256x256xf32>
  %u = decoda.residual_add %h, %attn : tensor<1x?x256xf32>

  // h' = u + SwiGLU(RMSNorm(u))
  %y = decoda.rms_norm %u, %mlp_norm {eps = 1.0e-05 : f64} : tensor<1x?x256xf32>, tensor<256xf32>
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
      : tensor<1x?x256xf32>, tensor<768x256xf32>, tensor<768x256xf32>, tensor<256x768xf32>
  %out = decoda.residual_add %u, %m : tensor<1x?x256xf32>
  return %out : tensor<1x?x256xf32>
}
