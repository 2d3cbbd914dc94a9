// mla_step_decode.mlir with DeepSeek-V3's 128 heads (q_nope 128 and q_rope 64 per head, the
// 512-wide latent cache with its 64-wide RoPE key, W_UK and W_UV [128, 128, 512]: 16 MiB each
// in bf16, generated on the GPU machine from recipes), bf16, weights as inputs, for
// bench/gpu_check.sh (checked at 16 cache entries against the CPU build, timed over 4096),
// compiled with decoda-absorb-mla (`:absorb`): W_UK's column kernel into the query, the latent
// attention's split form over 8 row blocks, W_UV's per-head GEMV.
func.func @mla128_step_decode(%q_nope: tensor<1x1x128x128xbf16> {decoda.name = "q_nope"},
                              %q_rope: tensor<1x1x128x64xbf16> {decoda.name = "q_rope"},
                              %c: tensor<1x?x512xbf16> {decoda.name = "latent"},
                              %k_rope: tensor<1x?x64xbf16> {decoda.name = "k_rope"},
                              %w_uk: tensor<128x128x512xbf16> {decoda.name = "w_uk"},
                              %w_uv: tensor<128x128x512xbf16> {decoda.name = "w_uv"})
    -> (tensor<1x1x128x128xbf16> {decoda.name = "o"}) {
  %o = decoda.mla %q_nope, %q_rope, %c, %k_rope, %w_uk, %w_uv {num_heads = 128 : i64, causal}
      : tensor<1x1x128x128xbf16>, tensor<1x1x128x64xbf16>, tensor<1x?x512xbf16>,
        tensor<1x?x64xbf16>, tensor<128x128x512xbf16>, tensor<128x128x512xbf16>
  return %o : tensor<1x1x128x128xbf16>
}
