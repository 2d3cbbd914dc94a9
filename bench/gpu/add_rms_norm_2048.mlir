// The fused residual add + RMSNorm of the Llama-3.2-1B-shaped block alone (bf16, hidden
// 2048): one row kernel (decoda-gpu-row-norm), for bench/gpu_check.sh at T = 2048.
func.func @add_rms_norm_2048(%r: tensor<1x?x2048xbf16> {decoda.name = "r"},
                             %a: tensor<1x?x2048xbf16> {decoda.name = "a"},
                             %w: tensor<2048xbf16> {decoda.name = "w"})
    -> (tensor<1x?x2048xbf16> {decoda.name = "h"}, tensor<1x?x2048xbf16> {decoda.name = "y"}) {
  %h, %y = decoda.add_rms_norm %r, %a, %w {eps = 1.0e-05 : f64}
      : tensor<1x?x2048xbf16>, tensor<2048xbf16>
  return %h, %y : tensor<1x?x2048xbf16>, tensor<1x?x2048xbf16>
}
