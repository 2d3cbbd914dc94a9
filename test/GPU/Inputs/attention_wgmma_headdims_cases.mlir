// Attention calls at head dims the sm_90a wgmma kernel holds as padded 64-column blocks (not
// whole ones, or over 128: the mma.sync kernel stops at 128, its SIMT fallback at 48 KiB of
// static tiles), for test/GPU/flash-attention-wgmma-headdims-sim.mlir; inputs and NumPy
// references from attention_data.py (the case names).

// Phi-3's head dim 96: one and a half column blocks (6 k slices of S; O on m64n128k16 over V
// with 32 zero columns), bf16 causal GQA 4 over 2, T = 70: 280 rows per K/V head, key tiles of
// 64 and 6.
func.func @wg_d96_gqa_bf16(%q: tensor<1x?x4x96xbf16>, %k: tensor<1x?x2x96xbf16>, %v: tensor<1x?x2x96xbf16>) -> tensor<1x?x4x96xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x96xbf16>, tensor<1x?x2x96xbf16>, tensor<1x?x2x96xbf16>
  return %o : tensor<1x?x4x96xbf16>
}

// Phi-2's head dim 80: 10 16-byte chunks a row (a 64-key tile's 640 over the 256 threads of a
// 128-row block: the last round's threads past them copy none), f16 causal MHA, an explicit
// scale, batch 2, T = 70.
func.func @wg_d80_f16(%q: tensor<2x?x2x80xf16>, %k: tensor<2x?x2x80xf16>, %v: tensor<2x?x2x80xf16>) -> tensor<2x?x2x80xf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.1 : f64, causal}
      : tensor<2x?x2x80xf16>, tensor<2x?x2x80xf16>, tensor<2x?x2x80xf16>
  return %o : tensor<2x?x2x80xf16>
}

// Gemma's head dim 256: four column blocks (16 k slices of S; O on m64n256k16, 128
// accumulators a thread), bf16 GQA 2 over 1, causal with a window of 40 and a softcap of 50
// (Gemma 2's local layers), T = 90.
func.func @wg_d256_window_softcap_bf16(%q: tensor<1x?x2x256xbf16>, %k: tensor<1x?x1x256xbf16>, %v: tensor<1x?x1x256xbf16>) -> tensor<1x?x2x256xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal, window = 40 : i64, softcap = 50.0 : f64}
      : tensor<1x?x2x256xbf16>, tensor<1x?x1x256xbf16>, tensor<1x?x1x256xbf16>
  return %o : tensor<1x?x2x256xbf16>
}

// Multi-head latent attention's prefill without absorption (DeepSeek-V2/V3): D = 192 (128 +
// 64 rotary), Dv = 128, bf16 causal MHA with an explicit scale, T = 70.
func.func @wg_d192_dv128_bf16(%q: tensor<1x?x2x192xbf16>, %k: tensor<1x?x2x192xbf16>, %v: tensor<1x?x2x128xbf16>) -> tensor<1x?x2x128xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.0723 : f64, causal}
      : tensor<1x?x2x192xbf16>, tensor<1x?x2x192xbf16>, tensor<1x?x2x128xbf16>
  return %o : tensor<1x?x2x128xbf16>
}

// A decode step at head dim 256: one token, 8 query heads over 2 K/V heads, 700 keys. The
// SIMT split form's tiles do not fit at this head dim, so the wgmma kernel's split form takes
// it: 3 splits (of 4, 4 and 3 tiles), combined by the second kernel.
func.func @wg_d256_decode_bf16(%q: tensor<1x1x8x256xbf16>, %k: tensor<1x700x2x256xbf16>, %v: tensor<1x700x2x256xbf16>) -> tensor<1x1x8x256xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x1x8x256xbf16>, tensor<1x700x2x256xbf16>, tensor<1x700x2x256xbf16>
  return %o : tensor<1x1x8x256xbf16>
}

// Head dims under a column block: D = 32 (2 k slices), Dv = 48 (6 chunks a row: a 64-key
// tile's 384 over 256 threads; O on m64n64k16 over 16 zero columns), f16, not causal,
// Tq = 20 over 150 keys, batch 2.
func.func @wg_d32_dv48_f16(%q: tensor<2x20x2x32xf16>, %k: tensor<2x150x2x32xf16>, %v: tensor<2x150x2x48xf16>) -> tensor<2x20x2x48xf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 2 : i64}
      : tensor<2x20x2x32xf16>, tensor<2x150x2x32xf16>, tensor<2x150x2x48xf16>
  return %o : tensor<2x20x2x48xf16>
}
