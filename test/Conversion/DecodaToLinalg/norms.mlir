// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s --check-prefix=NODECODA

// Lowering of the norms: row statistics in f32 (one reduction for RMSNorm; mean, then the
// centred variance for LayerNorm) and one elementwise generic that normalises, applies the
// affine parameters and rounds to the storage type.

// No decoda op survives the pass.
// NODECODA-NOT: {{^[^"]*decoda\.}}

// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$FEAT3:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @rms_norm(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[W:[a-z0-9]+]]: tensor<64xf32>)
// CHECK-DAG:     %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x16xf32>)
// CHECK:         %[[SS:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ROW3]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]] : tensor<2x16x64xf32>) outs(%[[ACC]] : tensor<2x16xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ROW3]], #[[$FEAT3]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[SS]], %[[W]] : tensor<2x16x64xf32>, tensor<2x16xf32>, tensor<64xf32>)
// CHECK:           arith.addf %{{.*}}, %[[EPS]] : f32
// CHECK:           math.rsqrt
// CHECK-NOT:       arith.truncf
// CHECK:         return %[[Y]] : tensor<2x16x64xf32>
func.func @rms_norm(%x: tensor<2x16x64xf32>, %w: tensor<64xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<2x16x64xf32>, tensor<64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// bf16 storage with dynamic leading dims: extf in, f32 statistics, the Gemma weight offset
// added to the weight in f32, truncf out.
// CHECK-LABEL: func.func @rms_norm_bf16_dynamic_offset(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x?x64xbf16>, %[[W:[a-z0-9]+]]: tensor<64xbf16>)
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %[[X]], %c0
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %[[X]], %c1
// CHECK:         tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]] : tensor<?x?x64xbf16>) outs(%{{.*}} : tensor<?x?xf32>)
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<?x?x64xbf16>)
// CHECK-NEXT:    ^bb0(%{{[a-z0-9_]+}}: bf16, %{{[a-z0-9_]+}}: f32, %[[WIN:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: bf16):
// CHECK:           %[[WF:.*]] = arith.extf %[[WIN]] : bf16 to f32
// CHECK:           arith.addf %[[WF]], %[[ONE]] : f32
// CHECK:           %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK:           linalg.yield %[[R]] : bf16
func.func @rms_norm_bf16_dynamic_offset(%x: tensor<?x?x64xbf16>, %w: tensor<64xbf16>) -> tensor<?x?x64xbf16> {
  %y = decoda.rms_norm %x, %w {eps = 1.0e-06 : f64, weight_offset = 1.0 : f64} : tensor<?x?x64xbf16>, tensor<64xbf16>
  return %y : tensor<?x?x64xbf16>
}

// -----

// LayerNorm, f16: the mean (sum, then divide by D), the centred sum of squares, then the
// elementwise pass with weight and bias.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x64xf16>, %[[W:[a-z0-9]+]]: tensor<64xf16>, %[[B:[a-z0-9]+]]: tensor<64xf16>)
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}ins(%[[X]] : tensor<?x64xf16>)
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}}iterator_types = ["parallel"]{{.*}}outs(%[[SUM]] : tensor<?xf32>)
// CHECK:           arith.divf
// CHECK:         %[[VAR:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}ins(%[[X]], %[[MEAN]] : tensor<?x64xf16>, tensor<?xf32>)
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}}ins(%[[X]], %[[VAR]], %[[W]], %[[MEAN]], %[[B]] :
// CHECK:           math.rsqrt
// CHECK:           arith.truncf %{{.*}} : f32 to f16
func.func @layer_norm(%x: tensor<?x64xf16>, %w: tensor<64xf16>, %b: tensor<64xf16>) -> tensor<?x64xf16> {
  %y = decoda.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<?x64xf16>, tensor<64xf16>, tensor<64xf16>
  return %y : tensor<?x64xf16>
}

// -----

// LayerNorm without bias: four inputs to the final pass.
// CHECK-LABEL: func.func @layer_norm_no_bias(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<8x32xf32>, %[[W:[a-z0-9]+]]: tensor<32xf32>)
// CHECK:         linalg.generic {{.*}}ins(%[[X]], %{{.*}}, %[[W]], %{{.*}} : tensor<8x32xf32>, tensor<8xf32>, tensor<32xf32>, tensor<8xf32>) outs(
func.func @layer_norm_no_bias(%x: tensor<8x32xf32>, %w: tensor<32xf32>) -> tensor<8x32xf32> {
  %y = decoda.layer_norm %x, %w {eps = 1.0e-05 : f64} : tensor<8x32xf32>, tensor<32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// Fused residual add: the sum residual + scale * branch is formed in f32 and rounded to bf16
// (the new residual stream, returned), then normalised from the rounded sum.
// CHECK-LABEL: func.func @add_rms_norm(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x16x64xbf16>, %[[A:[a-z0-9]+]]: tensor<?x16x64xbf16>, %[[W:[a-z0-9]+]]: tensor<64xbf16>)
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}}ins(%[[X]], %[[A]] : tensor<?x16x64xbf16>, tensor<?x16x64xbf16>) outs(%{{.*}} : tensor<?x16x64xbf16>)
// CHECK-NEXT:    ^bb0(%[[RIN:[a-z0-9_]+]]: bf16, %[[BIN:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: bf16):
// CHECK-DAG:       %[[RES:.*]] = arith.extf %[[RIN]] : bf16 to f32
// CHECK-DAG:       %[[BR:.*]] = arith.extf %[[BIN]] : bf16 to f32
// CHECK:           %[[SC:.*]] = arith.mulf %[[BR]], %[[HALF]] : f32
// CHECK:           %[[S:.*]] = arith.addf %[[RES]], %[[SC]] : f32
// CHECK:           arith.truncf %[[S]] : f32 to bf16
// CHECK:         %[[SS:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}ins(%[[SUM]] :
// CHECK:         %[[N:.*]] = linalg.generic {{.*}}ins(%[[SUM]], %[[SS]], %[[W]] :
// CHECK:         return %[[SUM]], %[[N]]
func.func @add_rms_norm(%x: tensor<?x16x64xbf16>, %a: tensor<?x16x64xbf16>, %w: tensor<64xbf16>) -> (tensor<?x16x64xbf16>, tensor<?x16x64xbf16>) {
  %h, %n = decoda.add_rms_norm %x, %a, %w {eps = 1.0e-06 : f64, scale = 0.5 : f64} : tensor<?x16x64xbf16>, tensor<64xbf16>
  return %h, %n : tensor<?x16x64xbf16>, tensor<?x16x64xbf16>
}

// -----

// Fused add + LayerNorm (post-norm use: only the norm is returned).
// CHECK-LABEL: func.func @add_layer_norm(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x8x32xf16>, %[[A:[a-z0-9]+]]: tensor<2x8x32xf16>
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}}ins(%[[X]], %[[A]] :
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         linalg.generic {{.*}}ins(%[[SUM]] : tensor<2x8x32xf16>)
// CHECK:         linalg.generic {{.*}}ins(%[[SUM]], %{{.*}} : tensor<2x8x32xf16>, tensor<2x8xf32>)
// CHECK:         %[[N:.*]] = linalg.generic {{.*}}ins(%[[SUM]],
// CHECK:         return %[[N]]
func.func @add_layer_norm(%x: tensor<2x8x32xf16>, %a: tensor<2x8x32xf16>, %w: tensor<32xf16>, %b: tensor<32xf16>) -> tensor<2x8x32xf16> {
  %h, %n = decoda.add_layer_norm %x, %a, %w, %b {eps = 1.0e-05 : f64} : tensor<2x8x32xf16>, tensor<32xf16>, tensor<32xf16>
  return %n : tensor<2x8x32xf16>
}
