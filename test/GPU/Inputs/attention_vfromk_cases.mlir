// Attention calls whose V is the first Dv columns of K (absorbed MLA: V = c, K = [c ; k_rope]),
// for test/GPU/flash-attention-v-from-k-sim.mlir: the SIMT kernel stages K alone and reads P·V
// from its K tile. Inputs and NumPy references from attention_data.py (the case names).

// Absorbed MLA over the latent (bf16, D = 576, Dv = 512, 16 heads, one K/V head; the scale of
// head dim 192) with V the slice of K: 110720 bytes of tiles instead of 176384. Used as a
// decode step at batch 2 (the split form) and as a three-token chunk (3 row blocks).
func.func @vk_mla_bf16(%q: tensor<?x?x16x576xbf16>, %k: tensor<?x?x1x576xbf16>) -> tensor<?x?x16x512xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %k, %c0 : tensor<?x?x1x576xbf16>
  %s = tensor.dim %k, %c1 : tensor<?x?x1x576xbf16>
  %v = tensor.extract_slice %k[0, 0, 0, 0] [%b, %s, 1, 512] [1, 1, 1, 1]
      : tensor<?x?x1x576xbf16> to tensor<?x?x1x512xbf16>
  %o = decoda.attention %q, %k, %v {num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, causal}
      : tensor<?x?x16x576xbf16>, tensor<?x?x1x576xbf16>, tensor<?x?x1x512xbf16>
  return %o : tensor<?x?x16x512xbf16>
}

// Ragged head dims in f32 (D = 70, Dv = 40: K and V staged element by element, the value
// columns padded to 64, within K's 70), GQA 4 over 2, causal prompt: static tiles Qs, Ks only.
func.func @vk_ragged_f32(%q: tensor<1x?x4x70xf32>, %k: tensor<1x?x2x70xf32>) -> tensor<1x?x4x40xf32> {
  %c1 = arith.constant 1 : index
  %s = tensor.dim %k, %c1 : tensor<1x?x2x70xf32>
  %v = tensor.extract_slice %k[0, 0, 0, 0] [1, %s, 2, 40] [1, 1, 1, 1]
      : tensor<1x?x2x70xf32> to tensor<1x?x2x40xf32>
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x70xf32>, tensor<1x?x2x70xf32>, tensor<1x?x2x40xf32>
  return %o : tensor<1x?x4x40xf32>
}

// V a slice of K that is not its first columns (columns 64 .. 575): V is staged as before
// (176384 bytes), the result the same function of K.
func.func @vk_offset_bf16(%q: tensor<1x1x16x576xbf16>, %k: tensor<1x?x1x576xbf16>) -> tensor<1x1x16x512xbf16> {
  %c1 = arith.constant 1 : index
  %s = tensor.dim %k, %c1 : tensor<1x?x1x576xbf16>
  %v = tensor.extract_slice %k[0, 0, 0, 64] [1, %s, 1, 512] [1, 1, 1, 1]
      : tensor<1x?x1x576xbf16> to tensor<1x?x1x512xbf16>
  %o = decoda.attention %q, %k, %v {num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, causal}
      : tensor<1x1x16x576xbf16>, tensor<1x?x1x576xbf16>, tensor<1x?x1x512xbf16>
  return %o : tensor<1x1x16x512xbf16>
}

// decoda.mla itself (f32; DeepSeek-V2-Lite's latent 512 and RoPE 64, 16 heads of Dn = Dv = 64),
// a decode step at batch 2, compiled with absorb-mla: W_UK into the query, MQA over
// [c ; k_rope] with V its first 512 columns (the concatenated latent a buffer, V a view of it),
// W_UV on the attended latent; checked against reference.mla (decompressed, naive).
func.func @vk_mla_f32(%qn: tensor<2x1x16x64xf32>, %qr: tensor<2x1x16x64xf32>, %c: tensor<2x?x512xf32>,
                      %kr: tensor<2x?x64xf32>, %wuk: tensor<16x64x512xf32>, %wuv: tensor<16x64x512xf32>)
    -> tensor<2x1x16x64xf32> {
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 16 : i64, causal}
      : tensor<2x1x16x64xf32>, tensor<2x1x16x64xf32>, tensor<2x?x512xf32>, tensor<2x?x64xf32>,
        tensor<16x64x512xf32>, tensor<16x64x512xf32>
  return %o : tensor<2x1x16x64xf32>
}

// The same in bf16 (a decode step at batch 2 over 300 latent entries): the kernel reads K from
// the latent and the RoPE key buffers themselves (16-byte chunks of 8: the split at column 512
// a whole chunk), no copy into [c ; k_rope].
func.func @vk_mla_bf16_full(%qn: tensor<2x1x16x64xbf16>, %qr: tensor<2x1x16x64xbf16>, %c: tensor<2x?x512xbf16>,
                            %kr: tensor<2x?x64xbf16>, %wuk: tensor<16x64x512xbf16>, %wuv: tensor<16x64x512xbf16>)
    -> tensor<2x1x16x64xbf16> {
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 16 : i64, causal}
      : tensor<2x1x16x64xbf16>, tensor<2x1x16x64xbf16>, tensor<2x?x512xbf16>, tensor<2x?x64xbf16>,
        tensor<16x64x512xbf16>, tensor<16x64x512xbf16>
  return %o : tensor<2x1x16x64xbf16>
}
