// A decode step of absorbed multi-head latent attention at DeepSeek-V3's 128 heads (latent 512
// + 64 rotary columns, the scale of head dim 192), bf16, for bench/gpu_check.sh (checked at 16
// keys, timed over 4096): 128 rows of one K/V head, the SIMT split form over 8 row blocks of 16
// (64 splits, 512 blocks at 4096 keys) with its tiles in 172 KiB of dynamic shared memory, and
// the combining kernel.
func.func @mla128_absorbed_decode(%q: tensor<1x1x128x576xbf16> {decoda.name = "q"},
                                  %k: tensor<1x?x1x576xbf16> {decoda.name = "k"},
                                  %v: tensor<1x?x1x512xbf16> {decoda.name = "v"})
    -> (tensor<1x1x128x512xbf16> {decoda.name = "o"}) {
  %o = decoda.attention %q, %k, %v {num_heads = 128 : i64, num_kv_heads = 1 : i64,
                                    scale = 0.07216878364870323 : f64, causal}
      : tensor<1x1x128x576xbf16>, tensor<1x?x1x576xbf16>, tensor<1x?x1x512xbf16>
  return %o : tensor<1x1x128x512xbf16>
}
