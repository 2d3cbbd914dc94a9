// INT8 attention shapes for attention-int8-sim.mlir (one function per case; the reference is
// Inputs/attention_int8_data.py CASE: reference.py's attention with q_scale, k_scale, v_scale).

// bf16, causal GQA (4 query heads over 2), T = 70, D = 64: two 64-key tiles (the second
// ragged), 140 rows of (query, head) in blocks of 64 (the third ragged).
func.func @i8_gqa_causal_bf16(%q: tensor<1x?x4x64xbf16>, %k: tensor<1x?x2x64xbf16>, %v: tensor<1x?x2x64xbf16>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x?x4x64xbf16> {
  %o = decoda.attention %q, %k, %v quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>
  return %o : tensor<1x?x4x64xbf16>
}

// f32, MQA (3 heads over 1), causal with a window of 40 and sinks, batch 2, T = 150,
// D = Dv = 40 (padded to 64 bytes per K row and 64 value columns): the later row blocks start at
// key tile 1 or 2 (tiles wholly outside the window are skipped).
func.func @i8_window_sinks_f32(%q: tensor<2x150x3x40xf32>, %k: tensor<2x150x1x40xf32>, %v: tensor<2x150x1x40xf32>, %s: tensor<3xf32>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<2x150x3x40xf32> {
  %o = decoda.attention %q, %k, %v sinks(%s : tensor<3xf32>) quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 3 : i64, num_kv_heads = 1 : i64, causal, window = 40 : i64}
      : tensor<2x150x3x40xf32>, tensor<2x150x1x40xf32>, tensor<2x150x1x40xf32>
  return %o : tensor<2x150x3x40xf32>
}

// f16, not causal, Tq = 20 < Tk = 150 (three 64-key tiles: both stages refilled), softcap 20,
// an explicit scale, D = 32, Dv = 16 (half of the 32 padded value columns).
func.func @i8_chunk_softcap_f16(%q: tensor<1x20x2x32xf16>, %k: tensor<1x150x2x32xf16>, %v: tensor<1x150x2x16xf16>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x20x2x16xf16> {
  %o = decoda.attention %q, %k, %v quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.2 : f64, softcap = 20.0 : f64}
      : tensor<1x20x2x32xf16>, tensor<1x150x2x32xf16>, tensor<1x150x2x16xf16>
  return %o : tensor<1x20x2x16xf16>
}

// f32, causal, an additive mask and segment ids (document masking), T = 33, D = 16.
func.func @i8_mask_segments_f32(%q: tensor<1x33x2x16xf32>, %k: tensor<1x33x2x16xf32>, %v: tensor<1x33x2x16xf32>, %m: tensor<1x2x33x33xf32>, %seg: tensor<1x33xi32>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x33x2x16xf32> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<1x2x33x33xf32>) segment_ids(%seg : tensor<1x33xi32>) quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 2 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32>
  return %o : tensor<1x33x2x16xf32>
}

// bf16 cached attention, head dim 128 (the largest the kernel takes: 38912 bytes of shared
// memory), 3 new tokens at offset 100 of a 160-entry cache (two tiles), GQA 4 over 2.
func.func @i8_cached_d128_bf16(%q: tensor<1x3x4x128xbf16>, %k: tensor<1x3x2x128xbf16>, %v: tensor<1x3x2x128xbf16>, %kc: tensor<1x160x2x128xbf16>, %vc: tensor<1x160x2x128xbf16>, %offset: tensor<i64>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> (tensor<1x3x4x128xbf16>, tensor<1x160x2x128xbf16>, tensor<1x160x2x128xbf16>) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x3x4x128xbf16>, tensor<1x3x2x128xbf16>, tensor<1x3x2x128xbf16>, tensor<1x160x2x128xbf16>, tensor<1x160x2x128xbf16>
  return %o, %kc2, %vc2 : tensor<1x3x4x128xbf16>, tensor<1x160x2x128xbf16>, tensor<1x160x2x128xbf16>
}

// Decode steps (the rows of a (batch, K/V head) fit one block: the keys split over blocks, then
// a combining kernel). bf16, one query of 8 heads over 2 K/V heads, 700 keys (11 tiles):
// 3 splits of 4, 4 and 3 tiles.
func.func @i8_decode_gqa_bf16(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x700x2x64xbf16>, %v: tensor<1x700x2x64xbf16>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x1x8x64xbf16> {
  %o = decoda.attention %q, %k, %v quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x1x8x64xbf16>, tensor<1x700x2x64xbf16>, tensor<1x700x2x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// f16, a window of 33 over 1000 keys with sinks and softcap, Dv = 16: the visible keys are one
// tile of 4 splits, so three splits see nothing (their max -inf, sums 0 must drop out).
func.func @i8_decode_window_sinks_f16(%q: tensor<1x1x4x32xf16>, %k: tensor<1x1000x1x32xf16>, %v: tensor<1x1000x1x16xf16>, %s: tensor<4xf16>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x1x4x16xf16> {
  %o = decoda.attention %q, %k, %v sinks(%s : tensor<4xf16>) quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal, window = 33 : i64, softcap = 20.0 : f64}
      : tensor<1x1x4x32xf16>, tensor<1x1000x1x32xf16>, tensor<1x1000x1x16xf16>
  return %o : tensor<1x1x4x16xf16>
}

// bf16, five tokens at once (speculative decoding) of 16 heads over 2 K/V heads: 40 rows of a
// K/V head, within the 64-row block, so still the split form (3 splits over 700 keys).
func.func @i8_multi_token_bf16(%q: tensor<1x5x16x64xbf16>, %k: tensor<1x700x2x64xbf16>, %v: tensor<1x700x2x64xbf16>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x5x16x64xbf16> {
  %o = decoda.attention %q, %k, %v quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 16 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x5x16x64xbf16>, tensor<1x700x2x64xbf16>, tensor<1x700x2x64xbf16>
  return %o : tensor<1x5x16x64xbf16>
}
