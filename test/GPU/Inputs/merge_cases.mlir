// The program of merge-parallel-loops.mlir's numeric check: two independent elementwise ops in
// f32 with dynamic T (a's and b's T are separate dims, so nothing fuses them): two neighbouring
// nests over [1, T, 4, 16] and [1, T, 2, 16].
func.func @mul_exp(%a: tensor<1x?x4x16xf32>, %b: tensor<1x?x2x16xf32>) -> (tensor<1x?x4x16xf32>, tensor<1x?x2x16xf32>) {
  %x = arith.mulf %a, %a : tensor<1x?x4x16xf32>
  %y = math.exp %b : tensor<1x?x2x16xf32>
  return %x, %y : tensor<1x?x4x16xf32>, tensor<1x?x2x16xf32>
}
