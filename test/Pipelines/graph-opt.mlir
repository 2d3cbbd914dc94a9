// The named graph pipeline: folds, then residual+norm fusion.
// RUN: decoda-opt %s --decoda-graph-opt | FileCheck %s

// CHECK-LABEL: func @block
// CHECK-NOT:     decoda.softcap
// CHECK:         %[[S:.+]], %[[N:.+]] = decoda.add_rms_norm %arg0, %arg1, %arg2
// CHECK:         %[[Y:.+]] = decoda.residual_add %[[S]], %[[N]]
// CHECK:         return %[[Y]]
func.func @block(%h: tensor<2x8x16xf32>, %a: tensor<2x8x16xf32>, %w: tensor<16xf32>) -> tensor<2x8x16xf32> {
  %c = decoda.softcap %a {cap = 0x7FF0000000000000 : f64} : tensor<2x8x16xf32>
  %u = decoda.residual_add %h, %c : tensor<2x8x16xf32>
  %n = decoda.rms_norm %u, %w {eps = 1.0e-05 : f64} : tensor<2x8x16xf32>, tensor<16xf32>
  %y = decoda.residual_add %u, %n : tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}
