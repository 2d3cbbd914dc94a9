// Causal GQA attention alone, head dim 128 (32 query heads over 8 KV heads), bf16, for
// bench/gpu_check.sh at T = 4096.
func.func @attention_d128(%q: tensor<1x?x32x128xbf16> {decoda.name = "q"},
                          %k: tensor<1x?x8x128xbf16> {decoda.name = "k"},
                          %v: tensor<1x?x8x128xbf16> {decoda.name = "v"})
    -> (tensor<1x?x32x128xbf16> {decoda.name = "o"}) {
  %o = decoda.attention %q, %k, %v {num_heads = 32 : i64, num_kv_heads = 8 : i64, causal}
      : tensor<1x?x32x128xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x128xbf16>
  return %o : tensor<1x?x32x128xbf16>
}
