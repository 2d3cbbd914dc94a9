// Causal GQA attention alone at head dim 256 (Gemma 2/3: 8 query heads over 4 KV heads), bf16,
// for bench/gpu_check.sh at T = 4096 (the wgmma kernel with its tiles as four 64-column blocks).
func.func @attention_d256(%q: tensor<1x?x8x256xbf16> {decoda.name = "q"},
                          %k: tensor<1x?x4x256xbf16> {decoda.name = "k"},
                          %v: tensor<1x?x4x256xbf16> {decoda.name = "v"})
    -> (tensor<1x?x8x256xbf16> {decoda.name = "o"}) {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal}
      : tensor<1x?x8x256xbf16>, tensor<1x?x4x256xbf16>, tensor<1x?x4x256xbf16>
  return %o : tensor<1x?x8x256xbf16>
}
