// Causal attention alone at head dim 96 (Phi-3-mini: 32 heads, as many KV heads), bf16, for
// bench/gpu_check.sh at T = 4096 (the wgmma kernel with its tiles padded to two 64-column blocks).
func.func @attention_d96(%q: tensor<1x?x32x96xbf16> {decoda.name = "q"},
                         %k: tensor<1x?x32x96xbf16> {decoda.name = "k"},
                         %v: tensor<1x?x32x96xbf16> {decoda.name = "v"})
    -> (tensor<1x?x32x96xbf16> {decoda.name = "o"}) {
  %o = decoda.attention %q, %k, %v {num_heads = 32 : i64, num_kv_heads = 32 : i64, causal}
      : tensor<1x?x32x96xbf16>, tensor<1x?x32x96xbf16>, tensor<1x?x32x96xbf16>
  return %o : tensor<1x?x32x96xbf16>
}
