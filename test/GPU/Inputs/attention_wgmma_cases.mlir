// Attention calls the sm_90a wgmma form of the tensor-core kernel takes (bf16/f16, head dims 64
// and 128), for test/GPU/flash-attention-wgmma-sim.mlir; inputs and NumPy references from
// attention_data.py (the case names). Each covers what the others do not.

// f16, not causal, Tq = 20 < Tk = 150 (three 64-key tiles, the last of 22: both stages refilled,
// zero-filled rows), D = 64 != Dv = 128 (two 64-column blocks of V: the MN-major descriptor's
// LBO), chunks of 16, softcap 20, sinks, an explicit scale.
func.func @wg_chunk_sinks_f16(%q: tensor<1x?x2x64xf16>, %k: tensor<1x?x2x64xf16>, %v: tensor<1x?x2x128xf16>, %s: tensor<2xf16>) -> tensor<1x?x2x128xf16> {
  %o = decoda.attention %q, %k, %v sinks(%s : tensor<2xf16>) {num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.2 : f64, chunk_size = 16 : i64, softcap = 20.0 : f64}
      : tensor<1x?x2x64xf16>, tensor<1x?x2x64xf16>, tensor<1x?x2x128xf16>
  return %o : tensor<1x?x2x128xf16>
}

// f16, causal MHA, D = Dv = 64, T = 70 (two row blocks, the second of 12 rows; key tiles of 64
// and 6), an additive mask per head and segment ids read per accumulator element.
func.func @wg_mask_segments_f16(%q: tensor<1x70x2x64xf16>, %k: tensor<1x70x2x64xf16>, %v: tensor<1x70x2x64xf16>, %m: tensor<1x2x70x70xf16>, %seg: tensor<1x70xi32>) -> tensor<1x70x2x64xf16> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<1x2x70x70xf16>) segment_ids(%seg : tensor<1x70xi32>) {num_heads = 2 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x70x2x64xf16>, tensor<1x70x2x64xf16>, tensor<1x70x2x64xf16>
  return %o : tensor<1x70x2x64xf16>
}

// bf16 GQA 4 over 2, head dim 128 (two 64-column blocks of Q and K: four k slices each), causal,
// batch 2, T = 40: 80 rows per (batch, K/V head) in 2 blocks, the second of 16 (three of its
// four warps without rows: the warpgroup computes them anyway, their stores are skipped).
func.func @wg_gqa_d128_bf16(%q: tensor<2x?x4x128xbf16>, %k: tensor<2x?x2x128xbf16>, %v: tensor<2x?x2x128xbf16>) -> tensor<2x?x4x128xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<2x?x4x128xbf16>, tensor<2x?x2x128xbf16>, tensor<2x?x2x128xbf16>
  return %o : tensor<2x?x4x128xbf16>
}

// bf16 GQA 4 over 2, D = Dv = 64, causal with a window of 100, T = 150: 300 rows per K/V head,
// three blocks of 128 rows (the last of 44: its second warpgroup without rows) or five of 64,
// each with its own key range (the window moves the first key, causality the last).
func.func @wg_rows_window_bf16(%q: tensor<1x?x4x64xbf16>, %k: tensor<1x?x2x64xbf16>, %v: tensor<1x?x2x64xbf16>) -> tensor<1x?x4x64xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal, window = 100 : i64}
      : tensor<1x?x4x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>
  return %o : tensor<1x?x4x64xbf16>
}

// The split form: 8 draft tokens of a GQA model (8 query heads over 1: 64 rows) over 700 keys
// at head dim 128: 3 splits of 4 tiles (the last split 188 keys), combined by the second kernel.
func.func @wg_spec_d128_bf16(%q: tensor<1x8x8x128xbf16>, %k: tensor<1x700x1x128xbf16>, %v: tensor<1x700x1x128xbf16>) -> tensor<1x8x8x128xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x8x8x128xbf16>, tensor<1x700x1x128xbf16>, tensor<1x700x1x128xbf16>
  return %o : tensor<1x8x8x128xbf16>
}

// Interior tiles (flash-attention-interior-sim.mlir): f16 causal GQA 2 over 1, head dim 64,
// T = 200: 400 rows per K/V head, whose blocks (128 or 64 rows; 64 rows on the mma.sync kernel)
// see most of their 64-key tiles whole (the unmasked logits) and mask the diagonal ones and the
// ragged last (200 = 3 x 64 + 8).
func.func @wg_interior_causal_f16(%q: tensor<1x?x2x64xf16>, %k: tensor<1x?x1x64xf16>, %v: tensor<1x?x1x64xf16>) -> tensor<1x?x2x64xf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x?x2x64xf16>, tensor<1x?x1x64xf16>, tensor<1x?x1x64xf16>
  return %o : tensor<1x?x2x64xf16>
}

// Not causal, Tq = 30 over Tk = 150 keys with softcap 30 (30 rows: most of the block's rows past
// the end): every tile whole but the last (22 of 64 keys past the end: masked by the key count
// alone); and a window of 160 over T = 300 causal (a tile is whole for a block when its last key
// is before the block's first row and its first within the window of the block's last row:
// possible for windows over 127 with 128-row blocks, 95 with 64).
func.func @wg_interior_full_f16(%q: tensor<1x30x2x64xf16>, %k: tensor<1x150x2x64xf16>, %v: tensor<1x150x2x64xf16>) -> tensor<1x30x2x64xf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 2 : i64, softcap = 30.0 : f64}
      : tensor<1x30x2x64xf16>, tensor<1x150x2x64xf16>, tensor<1x150x2x64xf16>
  return %o : tensor<1x30x2x64xf16>
}
func.func @wg_interior_window_f16(%q: tensor<1x?x2x64xf16>, %k: tensor<1x?x1x64xf16>, %v: tensor<1x?x1x64xf16>) -> tensor<1x?x2x64xf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal, window = 160 : i64}
      : tensor<1x?x2x64xf16>, tensor<1x?x1x64xf16>, tensor<1x?x1x64xf16>
  return %o : tensor<1x?x2x64xf16>
}

// f16 causal, 2 heads over 1 K/V head of 64, T = 200, key 0 dominating every row's scores (an
// attention sink): the rows' max never moves after the first tile, so the later tiles skip O's
// rescale (flash-attention-wgmma-sim.mlir).
func.func @wg_sink_causal_f16(%q: tensor<1x?x2x64xf16>, %k: tensor<1x?x1x64xf16>, %v: tensor<1x?x1x64xf16>) -> tensor<1x?x2x64xf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x?x2x64xf16>, tensor<1x?x1x64xf16>, tensor<1x?x1x64xf16>
  return %o : tensor<1x?x2x64xf16>
}

// bf16 chunked prefill into a cache: batch 2, 40 new tokens at offset 100 of a 256-key cache,
// 4 heads over 1, head dim 128, causal: 160 rows per (batch, K/V head) (one-pass: three blocks
// of 64 rows, or two of 128, the second of 32 with its second warpgroup idle), keys [0, 140):
// the last 64-key tile of a block ends past the key count, where the caches hold NaN
// (attention_data.py), so rows of V at or past it must read as zero (0 · NaN is NaN).
func.func @wg_cached_chunk_bf16(%q: tensor<2x40x4x128xbf16>, %k: tensor<2x40x1x128xbf16>, %v: tensor<2x40x1x128xbf16>, %kc: tensor<2x256x1x128xbf16>, %vc: tensor<2x256x1x128xbf16>, %offset: tensor<i64>) -> tensor<2x40x4x128xbf16> {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<2x40x4x128xbf16>, tensor<2x40x1x128xbf16>, tensor<2x40x1x128xbf16>, tensor<2x256x1x128xbf16>, tensor<2x256x1x128xbf16>
  return %o : tensor<2x40x4x128xbf16>
}

// bf16 causal MHA over one [B, T, 3 * H * D] projection output (GPT-2's c_attn), its thirds
// taken in the order k, q, v: Q is a strided view at an offset of 128 elements (rows 384 apart),
// read by the kernel in place (decoda-gpu-flash-attention forwards the view, no copy of Q).
func.func @wg_fused_qkv_bf16(%qkv: tensor<2x?x384xbf16>) -> tensor<2x?x2x64xbf16> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %qkv, %c1 : tensor<2x?x384xbf16>
  %ks = tensor.extract_slice %qkv[0, 0, 0] [2, %t, 128] [1, 1, 1] : tensor<2x?x384xbf16> to tensor<2x?x128xbf16>
  %qs = tensor.extract_slice %qkv[0, 0, 128] [2, %t, 128] [1, 1, 1] : tensor<2x?x384xbf16> to tensor<2x?x128xbf16>
  %vs = tensor.extract_slice %qkv[0, 0, 256] [2, %t, 128] [1, 1, 1] : tensor<2x?x384xbf16> to tensor<2x?x128xbf16>
  %k = tensor.expand_shape %ks [[0], [1], [2, 3]] output_shape [2, %t, 2, 64] : tensor<2x?x128xbf16> into tensor<2x?x2x64xbf16>
  %q = tensor.expand_shape %qs [[0], [1], [2, 3]] output_shape [2, %t, 2, 64] : tensor<2x?x128xbf16> into tensor<2x?x2x64xbf16>
  %v = tensor.expand_shape %vs [[0], [1], [2, 3]] output_shape [2, %t, 2, 64] : tensor<2x?x128xbf16> into tensor<2x?x2x64xbf16>
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<2x?x2x64xbf16>, tensor<2x?x2x64xbf16>, tensor<2x?x2x64xbf16>
  return %o : tensor<2x?x2x64xbf16>
}
