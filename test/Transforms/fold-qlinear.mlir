// RUN: decoda-opt %s --decoda-fold-qlinear --split-input-file | FileCheck %s
// Numerics of the folding (qlinear against dequantize -> linear on the same i8 data) are
// checked in insert-qdq.mlir (NUMFOLD) on a whole block.

// Per-token x scale, per-channel weight scale [N, 1] -> a constant [N], bias kept.
// CHECK-LABEL: func @fold
// CHECK-SAME:    (%[[XQ:.+]]: tensor<2x3x4xi8>, %[[XS:.+]]: tensor<2x3x1xf32>, %[[B:.+]]: tensor<2xf32>)
// CHECK-DAG:     %[[WQ:.+]] = arith.constant dense<{{\[}}[1, 2, 3, 4], [-1, -2, -3, -4]]> : tensor<2x4xi8>
// CHECK-DAG:     %[[WS:.+]] = arith.constant dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>
// CHECK:         %[[Y:.+]] = decoda.qlinear %[[XQ]], %[[WQ]], %[[XS]], %[[WS]] bias(%[[B]] : tensor<2xf32>) : tensor<2x3x4xi8>, tensor<2x4xi8>, tensor<2x3x1xf32>, tensor<2xf32> -> tensor<2x3x2xf32>
// CHECK-NOT:     decoda.linear
// CHECK:         return %[[Y]]
func.func @fold(%xq: tensor<2x3x4xi8>, %xs: tensor<2x3x1xf32>, %b: tensor<2xf32>) -> tensor<2x3x2xf32> {
  %wq = arith.constant dense<[[1, 2, 3, 4], [-1, -2, -3, -4]]> : tensor<2x4xi8>
  %ws = arith.constant dense<[[0.5], [0.25]]> : tensor<2x1xf32>
  %xd = decoda.dequantize %xq, %xs : tensor<2x3x4xi8>, tensor<2x3x1xf32> -> tensor<2x3x4xf32>
  %wd = decoda.dequantize %wq, %ws : tensor<2x4xi8>, tensor<2x1xf32> -> tensor<2x4xf32>
  %y = decoda.linear %xd, %wd, %b : tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<2xf32>
  return %y : tensor<2x3x2xf32>
}

// -----

// A qlinear read only by a per-tensor quantize takes the requantising epilogue (i8 result).
// CHECK-LABEL: func @requantize
// CHECK:         %[[Y:.+]] = decoda.qlinear %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} requantize(%{{.+}} : tensor<f32>) : tensor<1x4xi8>, tensor<2x4xi8>, tensor<f32>, tensor<f32> -> tensor<1x2xi8>
// CHECK-NOT:     decoda.quantize
// CHECK:         return %[[Y]]
func.func @requantize(%xq: tensor<1x4xi8>, %wq: tensor<2x4xi8>) -> tensor<1x2xi8> {
  %s = arith.constant dense<0.1> : tensor<f32>
  %ws = arith.constant dense<0.02> : tensor<f32>
  %os = arith.constant dense<0.5> : tensor<f32>
  %xd = decoda.dequantize %xq, %s : tensor<1x4xi8>, tensor<f32> -> tensor<1x4xf32>
  %wd = decoda.dequantize %wq, %ws : tensor<2x4xi8>, tensor<f32> -> tensor<2x4xf32>
  %y = decoda.linear %xd, %wd : tensor<1x4xf32>, tensor<2x4xf32>
  %q = decoda.quantize %y, %os : tensor<1x2xf32>, tensor<f32>
  return %q : tensor<1x2xi8>
}

// -----

// Not folded: an in_out weight; a weight with a zero point; a float input; a per-token quantize
// after the linear (not a per-tensor requantize); a weight scale that is not a constant [N, 1].
// CHECK-LABEL: func @not_folded
// CHECK-NOT:     decoda.qlinear %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} requantize
// CHECK-COUNT-3: decoda.linear
// CHECK:         decoda.qlinear
// CHECK-NEXT:    decoda.quantize
// CHECK:         decoda.linear
// CHECK:         return
func.func @not_folded(%xq: tensor<1x4xi8>, %x: tensor<1x4xf32>, %wq: tensor<4x2xi8>, %wq2: tensor<2x4xi8>, %zp: tensor<i8>, %pts: tensor<1x1xf32>, %wsarg: tensor<2x1xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xi8>, tensor<1x2xf32>) {
  %s = arith.constant dense<0.1> : tensor<f32>
  %xd = decoda.dequantize %xq, %s : tensor<1x4xi8>, tensor<f32> -> tensor<1x4xf32>
  %wd = decoda.dequantize %wq, %s : tensor<4x2xi8>, tensor<f32> -> tensor<4x2xf32>
  %a = decoda.linear %xd, %wd {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x4xf32>, tensor<4x2xf32>
  %wz = decoda.dequantize %wq2, %s zero_point(%zp : tensor<i8>) : tensor<2x4xi8>, tensor<f32> -> tensor<2x4xf32>
  %b = decoda.linear %xd, %wz : tensor<1x4xf32>, tensor<2x4xf32>
  %wd2 = decoda.dequantize %wq2, %s : tensor<2x4xi8>, tensor<f32> -> tensor<2x4xf32>
  %c = decoda.linear %x, %wd2 : tensor<1x4xf32>, tensor<2x4xf32>
  %d = decoda.linear %xd, %wd2 : tensor<1x4xf32>, tensor<2x4xf32>
  %dq = decoda.quantize %d, %pts : tensor<1x2xf32>, tensor<1x1xf32>
  %wd3 = decoda.dequantize %wq2, %wsarg : tensor<2x4xi8>, tensor<2x1xf32> -> tensor<2x4xf32>
  %e = decoda.linear %xd, %wd3 : tensor<1x4xf32>, tensor<2x4xf32>
  return %a, %b, %c, %dq, %e : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xi8>, tensor<1x2xf32>
}
