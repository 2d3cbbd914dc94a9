// RUN: decoda-opt %s --decoda-convert-to-linalg=gpu-kernel-calls=true --split-input-file | FileCheck %s

// gpu-kernel-calls (the GPU pipeline): every norm becomes a call of a private function tagged
// decoda.gpu_norm whose body is the target-neutral form (row sums, then one elementwise pass),
// for decoda-gpu-row-norm after bufferization. (The numbers: test/GPU/row-norm-sim.mlir.)

// CHECK-LABEL: func.func private @__decoda_gpu_norm(
// CHECK-SAME:    %{{.*}}: tensor<2x?x64xf32>, %{{.*}}: tensor<64xf32>) -> tensor<2x?x64xf32>
// CHECK-SAME:    attributes {decoda.gpu_norm = {add = false, bias = false, centered = false, eps = 1.000000e-05 : f64, op = "decoda.rms_norm", scale = 1.000000e+00 : f64, weight_offset = 0.000000e+00 : f64}}
// CHECK:         linalg.generic
// CHECK:         math.rsqrt
// CHECK:         return
// CHECK-LABEL: func.func @rms(
// CHECK:         %[[Y:.*]] = call @__decoda_gpu_norm(%arg0, %arg1)
// CHECK:         return %[[Y]]
func.func @rms(%x: tensor<2x?x64xf32>, %w: tensor<64xf32>) -> tensor<2x?x64xf32> {
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<2x?x64xf32>, tensor<64xf32>
  return %y : tensor<2x?x64xf32>
}

// -----

// The fused forms return the rounded sum and the norm.
// CHECK-LABEL: func.func private @__decoda_gpu_norm(
// CHECK-SAME:    -> (tensor<2x16x64xbf16>, tensor<2x16x64xbf16>)
// CHECK-SAME:    add = true, bias = true, centered = true, eps = 1.000000e-05 : f64, op = "decoda.add_layer_norm", scale = 5.000000e-01 : f64
// CHECK-LABEL: func.func @add_layer(
// CHECK:         %[[R:.*]]:2 = call @__decoda_gpu_norm(%arg0, %arg1, %arg2, %arg3)
// CHECK:         return %[[R]]#0, %[[R]]#1
func.func @add_layer(%x: tensor<2x16x64xbf16>, %a: tensor<2x16x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>) -> (tensor<2x16x64xbf16>, tensor<2x16x64xbf16>) {
  %h, %n = decoda.add_layer_norm %x, %a, %w, %b {eps = 1.0e-05 : f64, scale = 0.5 : f64} : tensor<2x16x64xbf16>, tensor<64xbf16>, tensor<64xbf16>
  return %h, %n : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>
}
