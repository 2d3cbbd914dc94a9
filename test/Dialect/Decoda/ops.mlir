// RUN: decoda-opt %s | decoda-opt | FileCheck %s

// CHECK-LABEL: func @rms_norm
func.func @rms_norm(%x: tensor<2x16x64xf32>, %w: tensor<64xf32>) -> tensor<2x16x64xf32> {
  // CHECK: decoda.rms_norm %{{.*}}, %{{.*}} {eps = 1.000000e-05 : f64} : tensor<2x16x64xf32>, tensor<64xf32>
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<2x16x64xf32>, tensor<64xf32>
  return %y : tensor<2x16x64xf32>
}
