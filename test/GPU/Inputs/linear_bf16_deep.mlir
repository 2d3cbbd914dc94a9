// tma-sim.mlir: a bf16 projection with K = 648 (11 TMA k tiles of 64, the last 8 wide: more
// tiles than the 4 stages, so every stage is refilled twice), M = 150 and N = 264 ragged over
// the 128 x 128 block tile.
func.func @linear(%x: tensor<1x?x648xbf16>, %w: tensor<264x648xbf16>) -> tensor<1x?x264xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x648xbf16>, tensor<264x648xbf16>
  return %y : tensor<1x?x264xbf16>
}
