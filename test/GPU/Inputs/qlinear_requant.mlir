// tensorcore-int8-sim.mlir: requantised i8 output (clamp(round_half_even(y / out_scale))),
// per-token x_scale, per-channel w_scale, a bias; M = 33, N = 64, K = 128 (two 64-wide stages).
func.func @requant(%x: tensor<33x128xi8>, %w: tensor<64x128xi8>, %xs: tensor<33x1xf32>, %ws: tensor<64xf32>, %b: tensor<64xf32>, %os: tensor<f32>) -> tensor<33x64xi8> {
  %y = decoda.qlinear %x, %w, %xs, %ws bias(%b : tensor<64xf32>) requantize(%os : tensor<f32>) : tensor<33x128xi8>, tensor<64x128xi8>, tensor<33x1xf32>, tensor<64xf32> -> tensor<33x64xi8>
  return %y : tensor<33x64xi8>
}
