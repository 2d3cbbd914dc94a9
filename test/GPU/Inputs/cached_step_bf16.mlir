// A one-layer attention step with a KV cache in bf16 for gemv-sim.mlir and gemv-ptx.mlir: RMSNorm,
// q and fused k/v projections, cached GQA attention (4 query heads over 2 KV heads of 16, a
// 32-entry cache), residual; T dynamic, so decoda-compile adds step_decode (T = 1).
func.func @step(%h: tensor<1x?x64xbf16>, %norm: tensor<64xbf16>, %wq: tensor<64x64xbf16>,
                  %wkv: tensor<64x64xbf16>, %kc: tensor<1x32x2x16xbf16>,
                  %vc: tensor<1x32x2x16xbf16>, %offset: tensor<i64>)
    -> (tensor<1x?x64xbf16>, tensor<1x32x2x16xbf16>, tensor<1x32x2x16xbf16>) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<1x?x64xbf16>
  %x = decoda.rms_norm %h, %norm {eps = 1.0e-05 : f64} : tensor<1x?x64xbf16>, tensor<64xbf16>
  %q2 = decoda.linear %x, %wq : tensor<1x?x64xbf16>, tensor<64x64xbf16>
  %kv = decoda.linear %x, %wkv : tensor<1x?x64xbf16>, tensor<64x64xbf16>
  %k2 = tensor.extract_slice %kv[0, 0, 0] [1, %t, 32] [1, 1, 1] : tensor<1x?x64xbf16> to tensor<1x?x32xbf16>
  %v2 = tensor.extract_slice %kv[0, 0, 32] [1, %t, 32] [1, 1, 1] : tensor<1x?x64xbf16> to tensor<1x?x32xbf16>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, %t, 4, 16] : tensor<1x?x64xbf16> into tensor<1x?x4x16xbf16>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 16] : tensor<1x?x32xbf16> into tensor<1x?x2x16xbf16>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 16] : tensor<1x?x32xbf16> into tensor<1x?x2x16xbf16>
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
      {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x16xbf16>, tensor<1x?x2x16xbf16>, tensor<1x?x2x16xbf16>,
        tensor<1x32x2x16xbf16>, tensor<1x32x2x16xbf16>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x?x4x16xbf16> into tensor<1x?x64xbf16>
  %y = decoda.residual_add %h, %o2 : tensor<1x?x64xbf16>
  return %y, %kc2, %vc2 : tensor<1x?x64xbf16>, tensor<1x32x2x16xbf16>, tensor<1x32x2x16xbf16>
}

