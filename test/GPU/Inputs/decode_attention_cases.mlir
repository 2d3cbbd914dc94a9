// Decode-shaped attention for flash-decoding-sim.mlir: rows of a (batch, K/V head) fit one block
// (Tq * group <= 16), so decoda-gpu-flash-attention splits the keys over blocks and combines the
// partials in a second kernel (SIMT split form: splits = min(ceil(528 / (B * Hkv)), ceil(keys /
// 64), 64); the tensor-core split form: min(ceil(264 / (B * Hkv)), ceil(keys / 256), 64)).

// f32, one query of 8 heads over 2 K/V heads, 700 keys: 11 splits (ceil(700 / 64)) of 64 keys,
// the last 60; the combine's second step of 8 has 3 splits.
func.func @decode_gqa(%q: tensor<1x1x8x64xf32>, %k: tensor<1x700x2x64xf32>, %v: tensor<1x700x2x64xf32>) -> tensor<1x1x8x64xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x1x8x64xf32>, tensor<1x700x2x64xf32>, tensor<1x700x2x64xf32>
  return %o : tensor<1x1x8x64xf32>
}

// f16, a window of 33 over 1000 keys with sinks and softcap: 16 splits (ceil(1000 / 64)) of a
// 33-key range in 32-key chunks, so 14 splits see nothing (their m = -inf, l = 0 must drop out).
func.func @decode_window_sinks_f16(%q: tensor<1x1x4x32xf16>, %k: tensor<1x1000x1x32xf16>, %v: tensor<1x1000x1x16xf16>, %s: tensor<4xf16>) -> tensor<1x1x4x16xf16> {
  %o = decoda.attention %q, %k, %v sinks(%s : tensor<4xf16>) {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal, window = 33 : i64, softcap = 20.0 : f64}
      : tensor<1x1x4x32xf16>, tensor<1x1000x1x32xf16>, tensor<1x1000x1x16xf16>
  return %o : tensor<1x1x4x16xf16>
}

// bf16 cached attention, batch 2, two new tokens at offset 517 of a 640-key cache, 4 heads
// over 1 (8 rows per block): keys 519, 9 splits (ceil(519 / 64)); the updated caches come back too.
func.func @cached_decode_bf16(%q: tensor<2x2x4x32xbf16>, %k: tensor<2x2x1x32xbf16>, %v: tensor<2x2x1x32xbf16>, %kc: tensor<2x640x1x32xbf16>, %vc: tensor<2x640x1x32xbf16>, %offset: tensor<i64>)
    -> (tensor<2x2x4x32xbf16>, tensor<2x640x1x32xbf16>, tensor<2x640x1x32xbf16>) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<2x2x4x32xbf16>, tensor<2x2x1x32xbf16>, tensor<2x2x1x32xbf16>, tensor<2x640x1x32xbf16>, tensor<2x640x1x32xbf16>
  return %o, %kc2, %vc2 : tensor<2x2x4x32xbf16>, tensor<2x640x1x32xbf16>, tensor<2x640x1x32xbf16>
}

// bf16, head dim 128 (the bench's), 4 heads over 1, 3000 keys: 47 splits (ceil(3000 / 64)) of 64
// keys, the last 56; K/V staged in 16-byte chunks (4 of K and 4 of V a thread a tile); the
// combine's sixth step of 8 has 7 splits.
func.func @decode_many_d128_bf16(%q: tensor<1x1x4x128xbf16>, %k: tensor<1x3000x1x128xbf16>, %v: tensor<1x3000x1x128xbf16>) -> tensor<1x1x4x128xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x1x4x128xbf16>, tensor<1x3000x1x128xbf16>, tensor<1x3000x1x128xbf16>
  return %o : tensor<1x1x4x128xbf16>
}

// f16, head dim 64, a window of 100 over 2100 keys with sinks: 33 splits (ceil(2100 / 64)) of
// a 100-key range in 32-key chunks: splits 0-3 see 32, 32, 32 and 4 keys, 4-32 nothing; the
// combine's fifth step of 8 has one split (32, empty).
func.func @decode_window_many_f16(%q: tensor<1x1x4x64xf16>, %k: tensor<1x2100x1x64xf16>, %v: tensor<1x2100x1x64xf16>, %s: tensor<4xf16>) -> tensor<1x1x4x64xf16> {
  %o = decoda.attention %q, %k, %v sinks(%s : tensor<4xf16>) {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal, window = 100 : i64}
      : tensor<1x1x4x64xf16>, tensor<1x2100x1x64xf16>, tensor<1x2100x1x64xf16>
  return %o : tensor<1x1x4x64xf16>
}

// bf16, head dim 36 (not a multiple of 8 elements: K/V rows are staged element by element),
// 300 keys: 5 splits.
func.func @decode_ragged_bf16(%q: tensor<1x1x4x36xbf16>, %k: tensor<1x300x1x36xbf16>, %v: tensor<1x300x1x36xbf16>) -> tensor<1x1x4x36xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x1x4x36xbf16>, tensor<1x300x1x36xbf16>, tensor<1x300x1x36xbf16>
  return %o : tensor<1x1x4x36xbf16>
}

// A dynamic query count: both kernels are compiled and the row count picks one at run time
// (T = 3: 12 rows, split; T = 40: 160 rows, the one-pass kernel).
func.func @dynamic_t(%q: tensor<1x?x4x32xf32>, %k: tensor<1x?x1x32xf32>, %v: tensor<1x?x1x32xf32>) -> tensor<1x?x4x32xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x?x4x32xf32>, tensor<1x?x1x32xf32>, tensor<1x?x1x32xf32>
  return %o : tensor<1x?x4x32xf32>
}

// The tensor-core kernel's split form (bf16/f16, 17 to 64 rows of a (batch, K/V head): a few
// tokens at once, as in speculative decoding with GQA).
// bf16, eight tokens of 8 heads over one K/V head (64 rows, the whole block), 700 keys:
// 3 splits of 256, 256 and 188 keys (64-key tiles).
func.func @spec_bf16(%q: tensor<1x8x8x64xbf16>, %k: tensor<1x700x1x64xbf16>, %v: tensor<1x700x1x64xbf16>) -> tensor<1x8x8x64xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x8x8x64xbf16>, tensor<1x700x1x64xbf16>, tensor<1x700x1x64xbf16>
  return %o : tensor<1x8x8x64xbf16>
}

// f16, five tokens of 4 heads over 1 (20 rows), a window of 40 over 1000 keys with softcap and
// sinks, D = 32 != Dv = 16: 4 splits of 64-key chunks of a 44-key range, so 3 see nothing.
func.func @spec_window_sinks_f16(%q: tensor<1x5x4x32xf16>, %k: tensor<1x1000x1x32xf16>, %v: tensor<1x1000x1x16xf16>, %s: tensor<4xf16>) -> tensor<1x5x4x16xf16> {
  %o = decoda.attention %q, %k, %v sinks(%s : tensor<4xf16>) {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal, window = 40 : i64, softcap = 20.0 : f64}
      : tensor<1x5x4x32xf16>, tensor<1x1000x1x32xf16>, tensor<1x1000x1x16xf16>
  return %o : tensor<1x5x4x16xf16>
}

// bf16 cached attention with a dynamic token count, batch 2, 4 heads over 1, at offset 517 of
// a 640-key cache: T = 6 (24 rows: the tensor-core split form, 3 splits over 523 keys), T = 2
// (8 rows: the SIMT split form) or T = 20 (80 rows: the one-pass tensor-core kernel), picked at
// run time.
func.func @spec_cached_dyn(%q: tensor<2x?x4x32xbf16>, %k: tensor<2x?x1x32xbf16>, %v: tensor<2x?x1x32xbf16>, %kc: tensor<2x640x1x32xbf16>, %vc: tensor<2x640x1x32xbf16>, %offset: tensor<i64>)
    -> (tensor<2x?x4x32xbf16>, tensor<2x640x1x32xbf16>, tensor<2x640x1x32xbf16>) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<2x?x4x32xbf16>, tensor<2x?x1x32xbf16>, tensor<2x?x1x32xbf16>, tensor<2x640x1x32xbf16>, tensor<2x640x1x32xbf16>
  return %o, %kc2, %vc2 : tensor<2x?x4x32xbf16>, tensor<2x640x1x32xbf16>, tensor<2x640x1x32xbf16>
}
