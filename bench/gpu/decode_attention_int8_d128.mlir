// decode_attention_d128.mlir in INT8 (quantize(...) with constant scales, |x| up to 4 in 127
// steps): on CUDA the cache append, the quantisation of the cache, and the split decode form
// (partial maxima, partial sums and P·V on integer tensor cores, combination), for
// bench/gpu_check.sh at offset 4095 (GB/s of the bf16 K/V cache read).
func.func @decode_attention_int8_d128(%q: tensor<1x1x32x128xbf16> {decoda.name = "q"},
                                      %k: tensor<1x1x8x128xbf16> {decoda.name = "k"},
                                      %v: tensor<1x1x8x128xbf16> {decoda.name = "v"},
                                      %kc: tensor<1x4096x8x128xbf16> {decoda.name = "k_cache"},
                                      %vc: tensor<1x4096x8x128xbf16> {decoda.name = "v_cache"},
                                      %offset: tensor<i64> {decoda.name = "offset"})
    -> (tensor<1x1x32x128xbf16> {decoda.name = "o"},
        tensor<1x4096x8x128xbf16> {decoda.name = "k_cache_out"},
        tensor<1x4096x8x128xbf16> {decoda.name = "v_cache_out"}) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %s = arith.constant dense<0.031496063> : tensor<f32>
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
      quantize(%s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>)
      {num_heads = 32 : i64, num_kv_heads = 8 : i64, causal}
      : tensor<1x1x32x128xbf16>, tensor<1x1x8x128xbf16>, tensor<1x1x8x128xbf16>,
        tensor<1x4096x8x128xbf16>, tensor<1x4096x8x128xbf16>
  return %o, %kc2, %vc2 : tensor<1x1x32x128xbf16>, tensor<1x4096x8x128xbf16>, tensor<1x4096x8x128xbf16>
}
