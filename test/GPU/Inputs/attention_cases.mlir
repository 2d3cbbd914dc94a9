// Attention shapes for flash-attention-sim.mlir (one function per case; the reference is
// Inputs/attention_data.py CASE).

// f32, causal GQA (4 query heads over 2), Tq = Tk = 45: ragged key tiles (32 + 13) and rows
// (90 rows of (query, head) in blocks of 16).
func.func @gqa_causal(%q: tensor<1x?x4x32xf32>, %k: tensor<1x?x2x32xf32>, %v: tensor<1x?x2x32xf32>) -> tensor<1x?x4x32xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x32xf32>, tensor<1x?x2x32xf32>, tensor<1x?x2x32xf32>
  return %o : tensor<1x?x4x32xf32>
}

// bf16, MQA (3 heads over 1), causal with a sliding window of 7, D = Dv = 40 (a partly used
// second value column per lane), batch 2, T = 37.
func.func @mqa_window_bf16(%q: tensor<2x?x3x40xbf16>, %k: tensor<2x?x1x40xbf16>, %v: tensor<2x?x1x40xbf16>) -> tensor<2x?x3x40xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 3 : i64, num_kv_heads = 1 : i64, causal, window = 7 : i64}
      : tensor<2x?x3x40xbf16>, tensor<2x?x1x40xbf16>, tensor<2x?x1x40xbf16>
  return %o : tensor<2x?x3x40xbf16>
}

// f16, fewer queries than keys (Tq = 5, Tk = 50, positions 45..49), chunks of 16, softcap 30,
// sinks, an explicit scale, Dv = 16 != D = 24.
func.func @chunk_sinks_f16(%q: tensor<1x?x2x24xf16>, %k: tensor<1x?x2x24xf16>, %v: tensor<1x?x2x16xf16>, %s: tensor<2xf16>) -> tensor<1x?x2x16xf16> {
  %o = decoda.attention %q, %k, %v sinks(%s : tensor<2xf16>) {num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.3 : f64, chunk_size = 16 : i64, softcap = 30.0 : f64}
      : tensor<1x?x2x24xf16>, tensor<1x?x2x24xf16>, tensor<1x?x2x16xf16>
  return %o : tensor<1x?x2x16xf16>
}

// f32, not causal, an additive mask per head and document masking (segment ids), T = 20.
func.func @mask_segments(%q: tensor<1x20x2x16xf32>, %k: tensor<1x20x2x16xf32>, %v: tensor<1x20x2x16xf32>, %m: tensor<1x2x20x20xf32>, %seg: tensor<1x20xi32>) -> tensor<1x20x2x16xf32> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<1x2x20x20xf32>) segment_ids(%seg : tensor<1x20xi32>) {num_heads = 2 : i64, num_kv_heads = 2 : i64}
      : tensor<1x20x2x16xf32>, tensor<1x20x2x16xf32>, tensor<1x20x2x16xf32>
  return %o : tensor<1x20x2x16xf32>
}

// bf16 cached attention (a decode-like step: T = 3 new tokens at offset 29 of a 64-entry
// cache, the offset a tensor<i64> read by the host), causal GQA 4 over 2, D = 32: out and
// both updated caches.
func.func @cached_bf16(%q: tensor<1x3x4x32xbf16>, %k: tensor<1x3x2x32xbf16>, %v: tensor<1x3x2x32xbf16>, %kc: tensor<1x64x2x32xbf16>, %vc: tensor<1x64x2x32xbf16>, %offset: tensor<i64>)
    -> (tensor<1x3x4x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16>) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x3x4x32xbf16>, tensor<1x3x2x32xbf16>, tensor<1x3x2x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16>
  return %o, %kc2, %vc2 : tensor<1x3x4x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16>
}

// bf16, head dim 128 (the bench shape's), causal GQA 4 over 1, T = 9: the 41 KiB tiles.
func.func @d128_bf16(%q: tensor<1x?x4x128xbf16>, %k: tensor<1x?x1x128xbf16>, %v: tensor<1x?x1x128xbf16>) -> tensor<1x?x4x128xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x?x4x128xbf16>, tensor<1x?x1x128xbf16>, tensor<1x?x1x128xbf16>
  return %o : tensor<1x?x4x128xbf16>
}

// The tensor-core kernel (bf16/f16, head dims multiples of 16): bf16 causal GQA 4 over 2,
// D = Dv = 64 (64-key tiles), T = 70: 140 rows in blocks of 64 (64, 64, 12) and key tiles of
// 64 + 6.
func.func @tc_gqa_bf16(%q: tensor<1x?x4x64xbf16>, %k: tensor<1x?x2x64xbf16>, %v: tensor<1x?x2x64xbf16>) -> tensor<1x?x4x64xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>
  return %o : tensor<1x?x4x64xbf16>
}

// f16, not causal, Tq = 20 < Tk = 45, D = 32 != Dv = 64 (one 64-key tile), chunks of
// 16, softcap 20, sinks, an explicit scale.
func.func @tc_chunk_sinks_f16(%q: tensor<1x?x2x32xf16>, %k: tensor<1x?x2x32xf16>, %v: tensor<1x?x2x64xf16>, %s: tensor<2xf16>) -> tensor<1x?x2x64xf16> {
  %o = decoda.attention %q, %k, %v sinks(%s : tensor<2xf16>) {num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.2 : f64, chunk_size = 16 : i64, softcap = 20.0 : f64}
      : tensor<1x?x2x32xf16>, tensor<1x?x2x32xf16>, tensor<1x?x2x64xf16>
  return %o : tensor<1x?x2x64xf16>
}

// bf16 MQA 3 over 1, head dim 128 (32-key tiles), causal with a window of 20, batch 2,
// T = 50: 150 rows in 3 blocks; the later blocks start past key 0 (tiles outside the window
// are skipped, the first tile starts at an unaligned key).
func.func @tc_window_d128_bf16(%q: tensor<2x?x3x128xbf16>, %k: tensor<2x?x1x128xbf16>, %v: tensor<2x?x1x128xbf16>) -> tensor<2x?x3x128xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 3 : i64, num_kv_heads = 1 : i64, causal, window = 20 : i64}
      : tensor<2x?x3x128xbf16>, tensor<2x?x1x128xbf16>, tensor<2x?x1x128xbf16>
  return %o : tensor<2x?x3x128xbf16>
}

// f16, causal, plain MHA, D = Dv = 16, T = 33: the smallest head dim; with an additive
// mask per head and segment ids (document masking) read per fragment element.
func.func @tc_mask_segments_f16(%q: tensor<1x33x2x16xf16>, %k: tensor<1x33x2x16xf16>, %v: tensor<1x33x2x16xf16>, %m: tensor<1x2x33x33xf16>, %seg: tensor<1x33xi32>) -> tensor<1x33x2x16xf16> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<1x2x33x33xf16>) segment_ids(%seg : tensor<1x33xi32>) {num_heads = 2 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x33x2x16xf16>, tensor<1x33x2x16xf16>, tensor<1x33x2x16xf16>
  return %o : tensor<1x33x2x16xf16>
}

// bf16, not causal, Tq = 9 over Tk = 200 keys (four 64-key tiles, the last of 8: both stages
// refilled), GQA 2 over 1 (18 rows: more than flash decoding takes), D = Dv = 64.
func.func @tc_long_bf16(%q: tensor<1x9x2x64xbf16>, %k: tensor<1x200x1x64xbf16>, %v: tensor<1x200x1x64xbf16>) -> tensor<1x9x2x64xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 1 : i64}
      : tensor<1x9x2x64xbf16>, tensor<1x200x1x64xbf16>, tensor<1x200x1x64xbf16>
  return %o : tensor<1x9x2x64xbf16>
}
