// RoPE shapes for rope-sim.mlir (one function per case; the reference is Inputs/rope_data.py
// CASE).

// bf16, half_split over D = 64, theta 5e5 (Llama 3), explicit [T] positions up to 70000: large
// angles (p · inv_freq[0] = 70000 rad) that the f32 angle and cos/sin must reduce correctly.
func.func @rope_q_bf16(%x: tensor<1x5x4x64xbf16>, %pos: tensor<5xi64>) -> tensor<1x5x4x64xbf16> {
  %y = decoda.rope %x positions(%pos : tensor<5xi64>) {theta = 5.0e+05 : f64} : tensor<1x5x4x64xbf16>
  return %y : tensor<1x5x4x64xbf16>
}

// f16, D = 128, dynamic T (9 in the data), no positions: token t is at position t.
func.func @rope_dyn_f16(%x: tensor<2x?x3x128xf16>) -> tensor<2x?x3x128xf16> {
  %y = decoda.rope %x {theta = 1.0e+04 : f64} : tensor<2x?x3x128xf16>
  return %y : tensor<2x?x3x128xf16>
}

// f32, interleaved pairs (2k, 2k + 1), rotary_dim = 64 of D = 96 (features 64 .. 95 pass
// through), per-batch [B, T] i32 positions.
func.func @rope_inter_partial_f32(%x: tensor<1x6x2x96xf32>, %pos: tensor<1x6xi32>) -> tensor<1x6x2x96xf32> {
  %y = decoda.rope %x positions(%pos : tensor<1x6xi32>) {theta = 1.0e+04 : f64, rotary_dim = 64 : i64, layout = #decoda.rope_layout<interleaved>} : tensor<1x6x2x96xf32>
  return %y : tensor<1x6x2x96xf32>
}

// bf16 YaRN (factor 4 over 4096 positions, default betas): the ramp blends interpolated and
// extrapolated frequencies, and cos/sin are scaled by the default attention factor
// 0.1·ln 4 + 1 ≈ 1.139.
func.func @rope_yarn_bf16(%x: tensor<1x3x2x64xbf16>, %pos: tensor<3xi64>) -> tensor<1x3x2x64xbf16> {
  %y = decoda.rope %x positions(%pos : tensor<3xi64>) {theta = 1.0e+04 : f64, scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096>} : tensor<1x3x2x64xbf16>
  return %y : tensor<1x3x2x64xbf16>
}

// The Llama-3 decode shape: q (32 heads) and k (8 heads) of one token, one shared position.
func.func @rope_qk_bf16(%q: tensor<1x1x32x64xbf16>, %k: tensor<1x1x8x64xbf16>, %pos: tensor<1xi64>) -> (tensor<1x1x32x64xbf16>, tensor<1x1x8x64xbf16>) {
  %qr = decoda.rope %q positions(%pos : tensor<1xi64>) {theta = 5.0e+05 : f64} : tensor<1x1x32x64xbf16>
  %kr = decoda.rope %k positions(%pos : tensor<1xi64>) {theta = 5.0e+05 : f64} : tensor<1x1x8x64xbf16>
  return %qr, %kr : tensor<1x1x32x64xbf16>, tensor<1x1x8x64xbf16>
}

// f16 half_split over D = 10: half = 5 (odd), pairs (k, k + 5).
func.func @rope_odd_f16(%x: tensor<1x3x2x10xf16>) -> tensor<1x3x2x10xf16> {
  %y = decoda.rope %x {theta = 1.0e+04 : f64} : tensor<1x3x2x10xf16>
  return %y : tensor<1x3x2x10xf16>
}

// bf16 half_split, rotary_dim = 64 of D = 100: pairs (k, k + 32), features 64 .. 99 (36) pass
// through.
func.func @rope_pass_bf16(%x: tensor<1x4x3x100xbf16>) -> tensor<1x4x3x100xbf16> {
  %y = decoda.rope %x {theta = 1.0e+04 : f64, rotary_dim = 64 : i64} : tensor<1x4x3x100xbf16>
  return %y : tensor<1x4x3x100xbf16>
}

// bf16 half_split on a view whose head rows start at odd element offsets (features 1 .. 64 of
// a [1, 5, 4, 65] tensor): not 16-byte aligned, so the kernel takes its element-by-element
// branch for every load and store.
func.func @rope_unaligned_bf16(%x: tensor<1x5x4x65xbf16>, %pos: tensor<5xi64>) -> tensor<1x5x4x64xbf16> {
  %v = tensor.extract_slice %x[0, 0, 0, 1] [1, 5, 4, 64] [1, 1, 1, 1] : tensor<1x5x4x65xbf16> to tensor<1x5x4x64xbf16>
  %y = decoda.rope %v positions(%pos : tensor<5xi64>) {theta = 5.0e+05 : f64} : tensor<1x5x4x64xbf16>
  return %y : tensor<1x5x4x64xbf16>
}

// A decode step's RoPE into a donated cache: q and k of one token at position `offset` roped,
// k and v written at row `offset` of the caches (k straight from the RoPE kernel: the cache
// slice is its output view, offset * 128 elements), then the attention over the cache.
func.func @rope_cache_bf16(%q: tensor<1x1x4x64xbf16>, %k: tensor<1x1x2x64xbf16>, %v: tensor<1x1x2x64xbf16>, %kc: tensor<1x16x2x64xbf16>, %vc: tensor<1x16x2x64xbf16>, %offset: tensor<i64>) -> (tensor<1x1x4x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %pos = tensor.expand_shape %offset [] output_shape [1] : tensor<i64> into tensor<1xi64>
  %qr = decoda.rope %q positions(%pos : tensor<1xi64>) {theta = 1.0e+04 : f64} : tensor<1x1x4x64xbf16>
  %kr = decoda.rope %k positions(%pos : tensor<1xi64>) {theta = 1.0e+04 : f64} : tensor<1x1x2x64xbf16>
  %o, %kc2, %vc2 = decoda.cached_attention %qr, %kr, %v, %kc, %vc[%off] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x1x4x64xbf16>, tensor<1x1x2x64xbf16>, tensor<1x1x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>
  return %o, %kc2, %vc2 : tensor<1x1x4x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>
}
