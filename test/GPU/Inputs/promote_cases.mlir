// A per-head decoda.linear of 12 rows (absorbed MLA's q_nope · W_UK for 12 tokens: 16 heads,
// 64 → 128, bf16): above the GEMV kernels' 8 rows, and no tensor-core kernel takes a weight per
// head, so it is a generic reduction loop nest, for test/GPU/promote-accumulators.mlir. (Until
// 8 Dec 2026 the decode step itself, batch 2, was such a nest; the GEMV kernels take it now.)
func.func @per_head(%x: tensor<12x1x16x64xbf16>, %w: tensor<16x64x128xbf16>) -> tensor<12x1x16x128xbf16> {
  %y = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<in_out>}
      : tensor<12x1x16x64xbf16>, tensor<16x64x128xbf16>
  return %y : tensor<12x1x16x128xbf16>
}
