// tensorcore-int8-sim.mlir: bf16 output and a bf16 bias, per-tensor x_scale, per-channel
// w_scale; K = 256 (four 64-wide stages), M = 10, N = 128 (one block).
func.func @bf16(%x: tensor<1x10x256xi8>, %w: tensor<128x256xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>, %b: tensor<128xbf16>) -> tensor<1x10x128xbf16> {
  %y = decoda.qlinear %x, %w, %xs, %ws bias(%b : tensor<128xbf16>) : tensor<1x10x256xi8>, tensor<128x256xi8>, tensor<f32>, tensor<128xf32> -> tensor<1x10x128xbf16>
  return %y : tensor<1x10x128xbf16>
}
