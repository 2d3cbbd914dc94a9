// INT8 attention with static scales (decoda.attention quantize(...)), small: errors.mlir's
// check that it is refused by name before sm_80.
func.func @int8_attention(%q: tensor<1x16x4x64xbf16>, %k: tensor<1x16x2x64xbf16>, %v: tensor<1x16x2x64xbf16>) -> tensor<1x16x4x64xbf16> {
  %s = arith.constant dense<0.05> : tensor<f32>
  %o = decoda.attention %q, %k, %v quantize(%s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x16x4x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>
  return %o : tensor<1x16x4x64xbf16>
}
