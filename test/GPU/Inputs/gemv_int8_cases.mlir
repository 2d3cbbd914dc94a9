// Decode-sized INT8 projections for gemv-sim.mlir (decoda-gpu-gemv, i8 x i8 -> i32 with dp4a).
// M = 1, N = 37 (ragged over the 4 warps of the last block), K = 512 (16-byte vectors, four
// dp4a each, split over the 4 warps of a block), unit scales: the f32 output is the i32
// accumulator itself (|acc| <= 512 * 128 * 128 = 2^23, exact in f32).
func.func @i8_m1(%x: tensor<1x1x512xi8>, %w: tensor<37x512xi8>, %xs: tensor<f32>, %ws: tensor<f32>) -> tensor<1x1x37xf32> {
  %y = decoda.qlinear %x, %w, %xs, %ws : tensor<1x1x512xi8>, tensor<37x512xi8>, tensor<f32>, tensor<f32> -> tensor<1x1x37xf32>
  return %y : tensor<1x1x37xf32>
}

// M = 4 over two lead dims, N = 70, K = 1096 (not a multiple of 16: 8-byte vectors, two dp4a
// each, an unrolled step and a remainder), per-token and per-channel scales, a bf16 bias and a
// bf16 output (the epilogue kernel after the GEMV).
func.func @i8_m4(%x: tensor<2x2x1096xi8>, %w: tensor<70x1096xi8>, %xs: tensor<2x2x1xf32>, %ws: tensor<70xf32>, %b: tensor<70xbf16>) -> tensor<2x2x70xbf16> {
  %y = decoda.qlinear %x, %w, %xs, %ws bias(%b : tensor<70xbf16>) : tensor<2x2x1096xi8>, tensor<70x1096xi8>, tensor<2x2x1xf32>, tensor<70xf32> -> tensor<2x2x70xbf16>
  return %y : tensor<2x2x70xbf16>
}

// M = 2, N = 9, K = 37 (odd: byte by byte, no dp4a), unit scales.
func.func @i8_odd(%x: tensor<2x37xi8>, %w: tensor<9x37xi8>, %xs: tensor<f32>, %ws: tensor<f32>) -> tensor<2x9xf32> {
  %y = decoda.qlinear %x, %w, %xs, %ws : tensor<2x37xi8>, tensor<9x37xi8>, tensor<f32>, tensor<f32> -> tensor<2x9xf32>
  return %y : tensor<2x9xf32>
}

// A dynamic token count (decoda-gpu-gemv's run-time dispatch): T = 1 the one-row kernel,
// 2 <= T <= 8 the 8-row kernel (rows past T clamped, not stored), more the contraction; K =
// 1096 (8-byte vectors), per-token and per-channel scales, a bf16 bias and output (the
// dequantising epilogue fused into each kernel's store).
func.func @i8_dyn(%x: tensor<1x?x1096xi8>, %w: tensor<70x1096xi8>, %xs: tensor<1x?x1xf32>, %ws: tensor<70xf32>, %b: tensor<70xbf16>) -> tensor<1x?x70xbf16> {
  %y = decoda.qlinear %x, %w, %xs, %ws bias(%b : tensor<70xbf16>) : tensor<1x?x1096xi8>, tensor<70x1096xi8>, tensor<1x?x1xf32>, tensor<70xf32> -> tensor<1x?x70xbf16>
  return %y : tensor<1x?x70xbf16>
}
