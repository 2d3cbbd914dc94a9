// A decode step of a small bf16 block with static T = 1 (hidden 64, 4 query heads over 2 KV
// heads of 16, a 32-entry cache, SwiGLU 128; the model of launch-graphs.mlir) for
// norm-fold-sim.mlir: its RMSNorm (q, k and v read it) and its add + RMSNorm (gate and up read
// it; the sum is the down projection's residual) are folded into the GEMV kernels.
func.func @step(
    %h: tensor<1x1x64xbf16> {decoda.name = "h"},
    %attn_norm: tensor<64xbf16> {decoda.name = "attn_norm"},
    %wq: tensor<64x64xbf16> {decoda.name = "wq"},
    %wk: tensor<32x64xbf16> {decoda.name = "wk"},
    %wv: tensor<32x64xbf16> {decoda.name = "wv"},
    %wo: tensor<64x64xbf16> {decoda.name = "wo"},
    %mlp_norm: tensor<64xbf16> {decoda.name = "mlp_norm"},
    %w_gate: tensor<128x64xbf16> {decoda.name = "w_gate"},
    %w_up: tensor<128x64xbf16> {decoda.name = "w_up"},
    %w_down: tensor<64x128xbf16> {decoda.name = "w_down"},
    %kc: tensor<1x32x2x16xbf16> {decoda.name = "k_cache", decoda.donate = 1 : i64},
    %vc: tensor<1x32x2x16xbf16> {decoda.name = "v_cache", decoda.donate = 2 : i64},
    %offset: tensor<i64> {decoda.name = "offset"})
    -> (tensor<1x1x64xbf16> {decoda.name = "h_out"},
        tensor<1x32x2x16xbf16> {decoda.name = "k_cache_out"},
        tensor<1x32x2x16xbf16> {decoda.name = "v_cache_out"}) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-05 : f64} : tensor<1x1x64xbf16>, tensor<64xbf16>
  %q2 = decoda.linear %x, %wq : tensor<1x1x64xbf16>, tensor<64x64xbf16>
  %k2 = decoda.linear %x, %wk : tensor<1x1x64xbf16>, tensor<32x64xbf16>
  %v2 = decoda.linear %x, %wv : tensor<1x1x64xbf16>, tensor<32x64xbf16>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, 1, 4, 16]
      : tensor<1x1x64xbf16> into tensor<1x1x4x16xbf16>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, 1, 2, 16]
      : tensor<1x1x32xbf16> into tensor<1x1x2x16xbf16>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, 1, 2, 16]
      : tensor<1x1x32xbf16> into tensor<1x1x2x16xbf16>
  %pos = tensor.expand_shape %offset [] output_shape [1] : tensor<i64> into tensor<1xi64>
  %qr = decoda.rope %q positions(%pos : tensor<1xi64>) {theta = 1.0e+04 : f64} : tensor<1x1x4x16xbf16>
  %kr = decoda.rope %k positions(%pos : tensor<1xi64>) {theta = 1.0e+04 : f64} : tensor<1x1x2x16xbf16>
  %o, %kc2, %vc2 = decoda.cached_attention %qr, %kr, %v, %kc, %vc[%off]
      {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x1x4x16xbf16>, tensor<1x1x2x16xbf16>, tensor<1x1x2x16xbf16>,
        tensor<1x32x2x16xbf16>, tensor<1x32x2x16xbf16>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x1x4x16xbf16> into tensor<1x1x64xbf16>
  %attn = decoda.linear %o2, %wo : tensor<1x1x64xbf16>, tensor<64x64xbf16>
  %u = decoda.residual_add %h, %attn : tensor<1x1x64xbf16>
  %y = decoda.rms_norm %u, %mlp_norm {eps = 1.0e-05 : f64} : tensor<1x1x64xbf16>, tensor<64xbf16>
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
      : tensor<1x1x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>
  %out = decoda.residual_add %u, %m : tensor<1x1x64xbf16>
  return %out, %kc2, %vc2 : tensor<1x1x64xbf16>, tensor<1x32x2x16xbf16>, tensor<1x32x2x16xbf16>
}
