// A decode step of multi-head latent attention as a model states it (decoda.mla:
// DeepSeek-V2-Lite's 16 heads, q_nope 128 and q_rope 64 per head, a 512-wide latent cache with
// its 64-wide RoPE key, W_UK and W_UV [16, 128, 512]), bf16, weights as inputs, for
// bench/gpu_check.sh (checked at 16 cache entries against the CPU build, which computes MLA
// unabsorbed; timed over 4096). gpu_check compiles it with decoda-absorb-mla (the `:absorb`
// entry): W_UK into the query (the GEMV's column kernel, rounded straight into
// [q_lat ; q_rope]), MQA over the latent read from the cache buffers themselves (V the K
// tile's first 512 columns), W_UV per head (the GEMV kernel): five launches.
func.func @mla_step_decode(%q_nope: tensor<1x1x16x128xbf16> {decoda.name = "q_nope"},
                           %q_rope: tensor<1x1x16x64xbf16> {decoda.name = "q_rope"},
                           %c: tensor<1x?x512xbf16> {decoda.name = "latent"},
                           %k_rope: tensor<1x?x64xbf16> {decoda.name = "k_rope"},
                           %w_uk: tensor<16x128x512xbf16> {decoda.name = "w_uk"},
                           %w_uv: tensor<16x128x512xbf16> {decoda.name = "w_uv"})
    -> (tensor<1x1x16x128xbf16> {decoda.name = "o"}) {
  %o = decoda.mla %q_nope, %q_rope, %c, %k_rope, %w_uk, %w_uv {num_heads = 16 : i64, causal}
      : tensor<1x1x16x128xbf16>, tensor<1x1x16x64xbf16>, tensor<1x?x512xbf16>,
        tensor<1x?x64xbf16>, tensor<16x128x512xbf16>, tensor<16x128x512xbf16>
  return %o : tensor<1x1x16x128xbf16>
}
