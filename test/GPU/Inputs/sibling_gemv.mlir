// Two projections of one token (f32, K = 1030: the K split over the warps of a block, partial
// sums through shared memory and a barrier), for test/GPU/merge-launches.mlir.
func.func @siblings(%x: tensor<1x1x1030xf32>, %w1: tensor<41x1030xf32>, %w2: tensor<20x1030xf32>)
    -> (tensor<1x1x41xf32>, tensor<1x1x20xf32>) {
  %a = decoda.linear %x, %w1 : tensor<1x1x1030xf32>, tensor<41x1030xf32>
  %b = decoda.linear %x, %w2 : tensor<1x1x1030xf32>, tensor<20x1030xf32>
  return %a, %b : tensor<1x1x41xf32>, tensor<1x1x20xf32>
}
