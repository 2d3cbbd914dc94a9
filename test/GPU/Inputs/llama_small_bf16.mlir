// A small Llama-style block in bf16 for block-sim.mlir: hidden 64, 4 query heads over 2 KV heads
// of 16 (causal, RoPE theta 1e4), SwiGLU 96; the reference is Inputs/block_data.py llama-bf16.
func.func @blk(
    %h: tensor<1x?x64xbf16>,
    %attn_norm: tensor<64xbf16>, %wq: tensor<64x64xbf16>, %wk: tensor<32x64xbf16>,
    %wv: tensor<32x64xbf16>, %wo: tensor<64x64xbf16>,
    %mlp_norm: tensor<64xbf16>, %w_gate: tensor<96x64xbf16>, %w_up: tensor<96x64xbf16>,
    %w_down: tensor<64x96xbf16>) -> tensor<1x?x64xbf16> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<1x?x64xbf16>
  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-05 : f64} : tensor<1x?x64xbf16>, tensor<64xbf16>
  %q2 = decoda.linear %x, %wq : tensor<1x?x64xbf16>, tensor<64x64xbf16>
  %k2 = decoda.linear %x, %wk : tensor<1x?x64xbf16>, tensor<32x64xbf16>
  %v2 = decoda.linear %x, %wv : tensor<1x?x64xbf16>, tensor<32x64xbf16>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, %t, 4, 16]
      : tensor<1x?x64xbf16> into tensor<1x?x4x16xbf16>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 16]
      : tensor<1x?x32xbf16> into tensor<1x?x2x16xbf16>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 16]
      : tensor<1x?x32xbf16> into tensor<1x?x2x16xbf16>
  %qr = decoda.rope %q {theta = 1.0e+04 : f64} : tensor<1x?x4x16xbf16>
  %kr = decoda.rope %k {theta = 1.0e+04 : f64} : tensor<1x?x2x16xbf16>
  %o = decoda.attention %qr, %kr, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x16xbf16>, tensor<1x?x2x16xbf16>, tensor<1x?x2x16xbf16>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x?x4x16xbf16> into tensor<1x?x64xbf16>
  %attn = decoda.linear %o2, %wo : tensor<1x?x64xbf16>, tensor<64x64xbf16>
  %u = decoda.residual_add %h, %attn : tensor<1x?x64xbf16>
  %y = decoda.rms_norm %u, %mlp_norm {eps = 1.0e-05 : f64} : tensor<1x?x64xbf16>, tensor<64xbf16>
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
      : tensor<1x?x64xbf16>, tensor<96x64xbf16>, tensor<96x64xbf16>, tensor<64x96xbf16>
  %out = decoda.residual_add %u, %m : tensor<1x?x64xbf16>
  return %out : tensor<1x?x64xbf16>
}
