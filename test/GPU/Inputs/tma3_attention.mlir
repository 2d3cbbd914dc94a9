// An attention whose wgmma kernel loads K and V by TMA with 3-D tensor maps
// (decoda_cuda_tensor_map_3d) when compiled with --gpu-attention-tma (tma-runtime.mlir):
// bf16 GQA 4 over 2, B = 2, head dim 128, causal, T dynamic.
func.func @gqa(%q: tensor<2x?x4x128xbf16>, %k: tensor<2x?x2x128xbf16>, %v: tensor<2x?x2x128xbf16>) -> tensor<2x?x4x128xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<2x?x4x128xbf16>, tensor<2x?x2x128xbf16>, tensor<2x?x2x128xbf16>
  return %o : tensor<2x?x4x128xbf16>
}
