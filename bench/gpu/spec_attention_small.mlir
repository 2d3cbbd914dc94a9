// Checked on the GPU (against the CPU build), not timed: eight tokens of 16 heads over 4 K/V
// heads (32 rows per K/V head) over 1000 keys in bf16, so the tensor-core attention kernel's
// split form runs (4 splits) at a size whose inputs are small to carry
// (spec_decode_attention_d128, the timed shape, has 16 MiB of caches).
func.func @spec_attention_small(%q: tensor<1x8x16x64xbf16> {decoda.name = "q"},
                                %k: tensor<1x1000x4x64xbf16> {decoda.name = "k"},
                                %v: tensor<1x1000x4x64xbf16> {decoda.name = "v"})
    -> (tensor<1x8x16x64xbf16> {decoda.name = "o"}) {
  %o = decoda.attention %q, %k, %v {num_heads = 16 : i64, num_kv_heads = 4 : i64, causal}
      : tensor<1x8x16x64xbf16>, tensor<1x1000x4x64xbf16>, tensor<1x1000x4x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}
