// tensorcore-wgmma-sim.mlir: an f16 projection with seven k tiles (K = 224), two lead dims,
// M = 2 * 45 and N = 200 ragged over the 128 x 128 block tile.
func.func @linear(%x: tensor<2x?x224xf16>, %w: tensor<200x224xf16>) -> tensor<2x?x200xf16> {
  %y = decoda.linear %x, %w : tensor<2x?x224xf16>, tensor<200x224xf16>
  return %y : tensor<2x?x200xf16>
}
