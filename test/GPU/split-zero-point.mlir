// decoda-gpu-split-zero-point: an INT8 contraction with an activation zero point
// (decoda.qlinear_acc with inputs x, w, zp: Σ_k (x - zp) w) becomes the symmetric contraction
// Σ_k x w, the column sums of w (a reduction, or a constant folded from a constant weight) and
// the correction acc0 - zp · colsum, which decoda-fuse-elementwise joins to the dequantising
// epilogue (RUN 2). Contractions without a zero point, or with another body, are left alone.
// (Numbers: tensorcore-int8-sim.mlir runs the three zero-point cases of
// Inputs/qlinear_data.py zp-mlir through decoda-lower-to-cuda on the PTX interpreter against the
// op's formula in int64, exactly.)
// RUN: decoda-opt %s --split-input-file --decoda-convert-to-linalg --decoda-gpu-split-zero-point | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-convert-to-linalg --decoda-gpu-split-zero-point --decoda-fuse-elementwise | FileCheck %s --check-prefix=FUSED

// CHECK-DAG: #[[XMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[WMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[OMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[TOK:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-DAG: #[[N:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @per_token(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x19x96xi8>, %[[W:[^:]*]]: tensor<72x96xi8>, %{{[^:]*}}: tensor<2x19x1xf32>, %{{[^:]*}}: tensor<72xf32>, %[[ZP:[^:]*]]: tensor<2x19x1xi8>)
// The column sums first (the contraction's kernel fuses the next op that touches memory).
// CHECK: %[[SUMS:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[W]] : tensor<72x96xi8>) outs(%{{.*}} : tensor<72xi32>)
// CHECK: arith.extsi
// CHECK: arith.addi
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[XMAP]], #[[WMAP]], #[[OMAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : tensor<2x19x96xi8>, tensor<72x96xi8>) outs(%{{.*}} : tensor<2x19x72xi32>) attrs = {decoda.qlinear_acc}
// CHECK-NOT: arith.subi
// CHECK: arith.muli
// CHECK: %[[COR:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[TOK]], #[[N]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[ACC]], %[[ZP]], %[[SUMS]] : tensor<2x19x72xi32>, tensor<2x19x1xi8>, tensor<72xi32>)
// CHECK: %[[Z:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK: %[[C:.*]] = arith.muli %[[Z]], %{{.*}} : i32
// CHECK: arith.subi %{{.*}}, %[[C]] : i32
// CHECK: linalg.generic {{.*}} ins(%[[COR]],
// FUSED-LABEL: func.func @per_token(
// FUSED: linalg.generic {{.*}} attrs = {decoda.qlinear_acc}
// FUSED: arith.subi
// FUSED-NEXT: arith.sitofp
// FUSED-NEXT: arith.mulf
// FUSED-NOT: linalg.generic
// FUSED: return
func.func @per_token(%x: tensor<2x19x96xi8>, %w: tensor<72x96xi8>, %xs: tensor<2x19x1xf32>, %ws: tensor<72xf32>, %zp: tensor<2x19x1xi8>) -> tensor<2x19x72xf32> {
  %y = decoda.qlinear %x, %w, %xs, %ws x_zero_point(%zp : tensor<2x19x1xi8>) : tensor<2x19x96xi8>, tensor<72x96xi8>, tensor<2x19x1xf32>, tensor<72xf32> -> tensor<2x19x72xf32>
  return %y : tensor<2x19x72xf32>
}

// -----

// A constant weight: its column sums are a constant (rows: -1 + 2 - 3 + 4 = 2, 127 · 3 - 128 =
// 253, -128 · 4 = -512).
// CHECK-LABEL: func.func @folded(
// CHECK: %[[SUMS:.*]] = arith.constant dense<[2, 253, -512]> : tensor<3xi32>
// CHECK-NOT: iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}} attrs = {decoda.qlinear_acc}
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[SUMS]] : tensor<5x3xi32>, tensor<i8>, tensor<3xi32>)
func.func @folded(%x: tensor<5x4xi8>, %xs: tensor<f32>, %zp: tensor<i8>) -> tensor<5x3xf32> {
  %w = arith.constant dense<[[-1, 2, -3, 4], [127, 127, 127, -128], [-128, -128, -128, -128]]> : tensor<3x4xi8>
  %ws = arith.constant dense<0.5> : tensor<f32>
  %y = decoda.qlinear %x, %w, %xs, %ws x_zero_point(%zp : tensor<i8>) : tensor<5x4xi8>, tensor<3x4xi8>, tensor<f32>, tensor<f32> -> tensor<5x3xf32>
  return %y : tensor<5x3xf32>
}

// -----

// Symmetric activations: nothing to split.
// CHECK-LABEL: func.func @symmetric(
// CHECK-COUNT-1: attrs = {decoda.qlinear_acc}
// CHECK-NOT: arith.subi
// CHECK: return
func.func @symmetric(%x: tensor<5x4xi8>, %w: tensor<3x4xi8>, %xs: tensor<f32>, %ws: tensor<f32>) -> tensor<5x3xf32> {
  %y = decoda.qlinear %x, %w, %xs, %ws : tensor<5x4xi8>, tensor<3x4xi8>, tensor<f32>, tensor<f32> -> tensor<5x3xf32>
  return %y : tensor<5x3xf32>
}

// -----

// A tagged contraction with three inputs whose body is not Σ (x - zp) w (here Σ x w + zp): left
// as it is.
#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#s = affine_map<(d0, d1, d2) -> ()>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @other_body(
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<5x4xi8>, tensor<3x4xi8>, tensor<i8>)
// CHECK: arith.addi
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @other_body(%x: tensor<5x4xi8>, %w: tensor<3x4xi8>, %zp: tensor<i8>, %init: tensor<5x3xi32>) -> tensor<5x3xi32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #s, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w, %zp : tensor<5x4xi8>, tensor<3x4xi8>, tensor<i8>) outs(%init : tensor<5x3xi32>) attrs = {decoda.qlinear_acc} {
  ^bb0(%a: i8, %b: i8, %z: i8, %acc: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %z32 = arith.extsi %z : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %q = arith.addi %p, %z32 : i32
    %s2 = arith.addi %acc, %q : i32
    linalg.yield %s2 : i32
  }
  -> tensor<5x3xi32>
  return %r : tensor<5x3xi32>
}
