// Attention calls whose SIMT tiles (Qs [16][D], Ks [32][D + 1], Vs [32][32 ceil(Dv / 32) + 1],
// f32) exceed the 48 KiB of static shared memory and which no tensor-core kernel takes, for
// test/GPU/flash-attention-dynamic-shared-sim.mlir: the SIMT kernel holds them in dynamic
// shared memory (before: the target-neutral loop of kernels per key tile). Inputs and NumPy
// references from attention_data.py (the case names).

// f32 at Gemma's head dim 256 (82176 bytes of tiles), causal GQA 4 over 2, T = 20: 40 rows per
// K/V head in 3 blocks of 16.
func.func @dyn_d256_gqa_f32(%q: tensor<1x?x4x256xf32>, %k: tensor<1x?x2x256xf32>, %v: tensor<1x?x2x256xf32>) -> tensor<1x?x4x256xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x256xf32>, tensor<1x?x2x256xf32>, tensor<1x?x2x256xf32>
  return %o : tensor<1x?x4x256xf32>
}

// A decode step at the same head dim: one query of 8 heads over 2 K/V heads and 300 keys (4
// rows per K/V head: the SIMT split form, 5 splits, and the combining kernel).
func.func @dyn_d256_decode_f32(%q: tensor<1x?x8x256xf32>, %k: tensor<1x?x2x256xf32>, %v: tensor<1x?x2x256xf32>) -> tensor<1x?x8x256xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x8x256xf32>, tensor<1x?x2x256xf32>, tensor<1x?x2x256xf32>
  return %o : tensor<1x?x8x256xf32>
}

// Absorbed multi-head latent attention (decoda-absorb-mla; DeepSeek-V2-Lite's 16 heads): MQA
// over the latent [c ; k_rope] (D = 512 + 64) with c as value (Dv = 512), the scale of the
// unabsorbed head dim 192; bf16 over the 256 the wgmma kernel takes (176384 bytes of tiles:
// within sm_90's 227 KiB a block, over sm_80's 163 KiB). Used as a decode step (16 rows per
// K/V head: the split form) and as a three-token chunk (48 rows: the split form over 3 row
// blocks).
func.func @dyn_mla_absorbed_bf16(%q: tensor<?x?x16x576xbf16>, %k: tensor<?x?x1x576xbf16>, %v: tensor<?x?x1x512xbf16>) -> tensor<?x?x16x512xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, causal}
      : tensor<?x?x16x576xbf16>, tensor<?x?x1x576xbf16>, tensor<?x?x1x512xbf16>
  return %o : tensor<?x?x16x512xbf16>
}
