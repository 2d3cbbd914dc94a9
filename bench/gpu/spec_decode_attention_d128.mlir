// A speculative-decoding step of cached attention (bf16, causal GQA 32 over 8 heads of 128,
// eight draft tokens appended to a 4096-entry cache, the offset a run-time input): 8 tokens x
// 4 heads = 32 rows per K/V head, so the tensor-core kernel's split form (the keys split over
// blocks, partials combined by a second kernel) rather than 8 blocks streaming the whole cache.
// bench/gpu_check.sh runs it at offset 4088 (GB/s of K/V read). The updated caches are
// returned, so they are donated (written in place; on the device with --device-inputs).
func.func @spec_decode_attention_d128(%q: tensor<1x8x32x128xbf16> {decoda.name = "q"},
                                      %k: tensor<1x8x8x128xbf16> {decoda.name = "k"},
                                      %v: tensor<1x8x8x128xbf16> {decoda.name = "v"},
                                      %kc: tensor<1x4096x8x128xbf16> {decoda.name = "k_cache"},
                                      %vc: tensor<1x4096x8x128xbf16> {decoda.name = "v_cache"},
                                      %offset: tensor<i64> {decoda.name = "offset"})
    -> (tensor<1x8x32x128xbf16> {decoda.name = "o"},
        tensor<1x4096x8x128xbf16> {decoda.name = "k_cache_out"},
        tensor<1x4096x8x128xbf16> {decoda.name = "v_cache_out"}) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
      {num_heads = 32 : i64, num_kv_heads = 8 : i64, causal}
      : tensor<1x8x32x128xbf16>, tensor<1x8x8x128xbf16>, tensor<1x8x8x128xbf16>,
        tensor<1x4096x8x128xbf16>, tensor<1x4096x8x128xbf16>
  return %o, %kc2, %vc2 : tensor<1x8x32x128xbf16>, tensor<1x4096x8x128xbf16>, tensor<1x4096x8x128xbf16>
}
