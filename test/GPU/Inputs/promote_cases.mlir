// A per-head decoda.linear at a decode step (absorbed MLA's q_nope · W_UK: 16 heads, 64 → 512,
// batch 2, bf16): no GEMV or tensor-core kernel takes a weight per head, so it is a generic
// reduction loop nest, for test/GPU/promote-accumulators.mlir.
func.func @per_head(%x: tensor<2x1x16x64xbf16>, %w: tensor<16x64x512xbf16>) -> tensor<2x1x16x512xbf16> {
  %y = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<in_out>}
      : tensor<2x1x16x64xbf16>, tensor<16x64x512xbf16>
  return %y : tensor<2x1x16x512xbf16>
}
