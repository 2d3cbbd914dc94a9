// A decode step of absorbed multi-head latent attention (decoda-absorb-mla's form;
// DeepSeek-V2-Lite: 16 heads, latent 512 + 64 rotary columns, the scale of head dim 192), bf16:
// one query of 16 heads against the latent cache as one K/V head (MQA, D = 576) with its
// first 512 columns as values (Dv = 512), for bench/gpu_check.sh (checked at 16 keys, timed
// over 4096). The head dims are over what the tensor-core kernels take: the SIMT kernel's
// split form with its tiles in 172 KiB of dynamic shared memory, and the combining kernel.
func.func @mla_absorbed_decode(%q: tensor<1x1x16x576xbf16> {decoda.name = "q"},
                               %k: tensor<1x?x1x576xbf16> {decoda.name = "k"},
                               %v: tensor<1x?x1x512xbf16> {decoda.name = "v"})
    -> (tensor<1x1x16x512xbf16> {decoda.name = "o"}) {
  %o = decoda.attention %q, %k, %v {num_heads = 16 : i64, num_kv_heads = 1 : i64,
                                    scale = 0.07216878364870323 : f64, causal}
      : tensor<1x1x16x576xbf16>, tensor<1x?x1x576xbf16>, tensor<1x?x1x512xbf16>
  return %o : tensor<1x1x16x512xbf16>
}
