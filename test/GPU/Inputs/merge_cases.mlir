// The program of merge-parallel-loops.mlir's numeric check: q's and k's RoPE in f32 with a
// dynamic T (each with its cos/sin table: q's and k's T are separate dims), four elementwise
// nests of which q's RoPE and k's table are independent neighbours.
func.func @rope_qk(%q: tensor<1x?x4x16xf32>, %k: tensor<1x?x2x16xf32>) -> (tensor<1x?x4x16xf32>, tensor<1x?x2x16xf32>) {
  %qr = decoda.rope %q {theta = 1.0e+04 : f64} : tensor<1x?x4x16xf32>
  %kr = decoda.rope %k {theta = 1.0e+04 : f64} : tensor<1x?x2x16xf32>
  return %qr, %kr : tensor<1x?x4x16xf32>, tensor<1x?x2x16xf32>
}
