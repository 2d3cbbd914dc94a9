// A decode step of absorbed multi-head latent attention at DeepSeek-V3's 128 heads as
// decoda-absorb-mla writes it: V the first 512 columns of K, the latent cache [c ; k_rope] the
// one input (latent 512 + 64 rotary columns, the scale of head dim 192), bf16, for
// bench/gpu_check.sh (checked at 16 keys, timed over 4096): the SIMT split form over 8 row
// blocks staging K alone, P·V from its K tile (mla128_absorbed_decode.mlir: V a separate
// input), 110720 bytes of tiles instead of 176384.
func.func @mla128_latent_decode(%q: tensor<1x1x128x576xbf16> {decoda.name = "q"},
                                %k: tensor<1x?x1x576xbf16> {decoda.name = "k"})
    -> (tensor<1x1x128x512xbf16> {decoda.name = "o"}) {
  %c1 = arith.constant 1 : index
  %s = tensor.dim %k, %c1 : tensor<1x?x1x576xbf16>
  %v = tensor.extract_slice %k[0, 0, 0, 0] [1, %s, 1, 512] [1, 1, 1, 1]
      : tensor<1x?x1x576xbf16> to tensor<1x?x1x512xbf16>
  %o = decoda.attention %q, %k, %v {num_heads = 128 : i64, num_kv_heads = 1 : i64,
                                    scale = 0.07216878364870323 : f64, causal}
      : tensor<1x1x128x576xbf16>, tensor<1x?x1x576xbf16>, tensor<1x?x1x512xbf16>
  return %o : tensor<1x1x128x512xbf16>
}
