// int8-tensorcore-sim.mlir: the INT8 contraction alone, with unit scales, so the f32 output is
// the i32 accumulator itself (|acc| <= 256 * 128 * 128 < 2^24): M = 130 (two row blocks,
// ragged), N = 136 (two column blocks, ragged), K = 256 (four 64-wide k stages).
func.func @acc(%x: tensor<130x256xi8>, %w: tensor<136x256xi8>, %xs: tensor<f32>, %ws: tensor<f32>) -> tensor<130x136xf32> {
  %y = decoda.qlinear %x, %w, %xs, %ws : tensor<130x256xi8>, tensor<136x256xi8>, tensor<f32>, tensor<f32> -> tensor<130x136xf32>
  return %y : tensor<130x136xf32>
}
