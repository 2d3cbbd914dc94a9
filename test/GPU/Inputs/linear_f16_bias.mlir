func.func @linear(%x: tensor<2x?x64xf16>, %w: tensor<72x64xf16>, %b: tensor<72xf16>) -> tensor<2x?x72xf16> {
  %y = decoda.linear %x, %w, %b : tensor<2x?x64xf16>, tensor<72x64xf16>, tensor<72xf16>
  return %y : tensor<2x?x72xf16>
}
