// int8-tensorcore-sim.mlir: two lead dims (M = 2 x 19), K = 96 (three 32-wide i8 stages: 96 is
// not a multiple of 64), N = 72, per-token x_scale, per-channel w_scale and a bias: the
// dequantising epilogue is the following SIMT kernel.
func.func @epilogue(%x: tensor<2x19x96xi8>, %w: tensor<72x96xi8>, %xs: tensor<2x19x1xf32>, %ws: tensor<72xf32>, %b: tensor<72xf32>) -> tensor<2x19x72xf32> {
  %y = decoda.qlinear %x, %w, %xs, %ws bias(%b : tensor<72xf32>) : tensor<2x19x96xi8>, tensor<72x96xi8>, tensor<2x19x1xf32>, tensor<72xf32> -> tensor<2x19x72xf32>
  return %y : tensor<2x19x72xf32>
}
