// Norm shapes for row-norm-sim.mlir (one function per case; the reference is
// Inputs/norm_data.py CASE).

// f32 RMSNorm, D = 64: one warp per row, two features per thread; 2 x 7 rows.
func.func @rms_f32(%x: tensor<2x?x64xf32>, %w: tensor<64xf32>) -> tensor<2x?x64xf32> {
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<2x?x64xf32>, tensor<64xf32>
  return %y : tensor<2x?x64xf32>
}

// bf16 LayerNorm with a bias, D = 300: 64 threads (two warps through shared memory), chunks of
// 4 features (300 is not a multiple of 8), two per thread, the second past D for threads 11 ..
func.func @layer_bias_bf16(%x: tensor<1x?x300xbf16>, %w: tensor<300xbf16>, %b: tensor<300xbf16>) -> tensor<1x?x300xbf16> {
  %y = decoda.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<1x?x300xbf16>, tensor<300xbf16>, tensor<300xbf16>
  return %y : tensor<1x?x300xbf16>
}

// bf16 fused residual + RMSNorm with a scaled branch and a weight offset (Gemma-style), the
// Llama-3.2-1B width D = 2048: 256 threads (8 warps), both results.
func.func @add_rms_bf16(%r: tensor<1x?x2048xbf16>, %a: tensor<1x?x2048xbf16>, %w: tensor<2048xbf16>) -> (tensor<1x?x2048xbf16>, tensor<1x?x2048xbf16>) {
  %h, %n = decoda.add_rms_norm %r, %a, %w {eps = 1.0e-06 : f64, weight_offset = 1.0 : f64, scale = 0.5 : f64} : tensor<1x?x2048xbf16>, tensor<2048xbf16>
  return %h, %n : tensor<1x?x2048xbf16>, tensor<1x?x2048xbf16>
}

// f16 fused residual + LayerNorm with a bias, D = 96.
func.func @add_layer_f16(%r: tensor<3x5x96xf16>, %a: tensor<3x5x96xf16>, %w: tensor<96xf16>, %b: tensor<96xf16>) -> (tensor<3x5x96xf16>, tensor<3x5x96xf16>) {
  %h, %n = decoda.add_layer_norm %r, %a, %w, %b {eps = 1.0e-05 : f64} : tensor<3x5x96xf16>, tensor<96xf16>, tensor<96xf16>
  return %h, %n : tensor<3x5x96xf16>, tensor<3x5x96xf16>
}

// QK-norm: RMSNorm per head of [B, T, H, D] (D = 16: half a warp of features).
func.func @qk_norm_f32(%q: tensor<1x?x4x16xf32>, %w: tensor<16xf32>) -> tensor<1x?x4x16xf32> {
  %y = decoda.rms_norm %q, %w {eps = 1.0e-06 : f64} : tensor<1x?x4x16xf32>, tensor<16xf32>
  return %y : tensor<1x?x4x16xf32>
}

// f16 RMSNorm over an odd D = 1001: scalar chunks (no vector divides D), 128 threads, eight
// features per thread, the last past D for threads 105 ..
func.func @rms_odd_f16(%x: tensor<1x?x1001xf16>, %w: tensor<1001xf16>) -> tensor<1x?x1001xf16> {
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x?x1001xf16>, tensor<1001xf16>
  return %y : tensor<1x?x1001xf16>
}
