// RUN: decoda-opt %s --decoda-fuse-residual-norm --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-fuse-residual-norm="layer-norm=false" --split-input-file | FileCheck %s --check-prefix=NOLN

// Pre-norm: the sum feeds the norm and the next residual add.
// CHECK-LABEL: func @pre_norm
// CHECK-SAME:    (%[[H:.+]]: tensor<2x8x64xf32>, %[[A:.+]]: tensor<2x8x64xf32>, %[[W:.+]]: tensor<64xf32>, %[[M:.+]]: tensor<2x8x64xf32>)
// CHECK:         %[[SUM:.+]], %[[NORM:.+]] = decoda.add_rms_norm %[[H]], %[[A]], %[[W]] {eps = 1.000000e-05 : f64, weight_offset = 5.000000e-01 : f64}
// CHECK-NOT:     decoda.rms_norm
// CHECK-NOT:     decoda.residual_add %[[H]]
// CHECK:         %[[OUT:.+]] = decoda.residual_add %[[SUM]], %[[NORM]]
// CHECK:         return %[[OUT]]
func.func @pre_norm(%h: tensor<2x8x64xf32>, %a: tensor<2x8x64xf32>, %w: tensor<64xf32>, %m: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
  %u = decoda.residual_add %h, %a : tensor<2x8x64xf32>
  %n = decoda.rms_norm %u, %w {eps = 1.0e-05 : f64, weight_offset = 0.5 : f64} : tensor<2x8x64xf32>, tensor<64xf32>
  %o = decoda.residual_add %u, %n : tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}

// -----

// Post-norm with a scaled branch: u = LN(h + 0.5 * Attn(h)); the sum has no other user.
// CHECK-LABEL: func @post_norm
// CHECK:         %{{.+}}, %[[NORM:.+]] = decoda.add_layer_norm %arg0, %arg1, %arg2, %arg3 {eps = 1.000000e-05 : f64, scale = 5.000000e-01 : f64}
// CHECK-NEXT:    return %[[NORM]]
// NOLN-LABEL: func @post_norm
// NOLN:         decoda.residual_add
// NOLN:         decoda.layer_norm
func.func @post_norm(%h: tensor<2x8x64xf16>, %a: tensor<2x8x64xf16>, %w: tensor<64xf16>, %b: tensor<64xf16>) -> tensor<2x8x64xf16> {
  %u = decoda.residual_add %h, %a {scale = 0.5 : f64} : tensor<2x8x64xf16>
  %n = decoda.layer_norm %u, %w, %b {eps = 1.0e-05 : f64} : tensor<2x8x64xf16>, tensor<64xf16>, tensor<64xf16>
  return %n : tensor<2x8x64xf16>
}

// -----

// Across a block boundary: the MLP residual of block l with the first norm of block l+1; a sum
// that two norms read (GPT-NeoX's parallel block) is not fused: the add stays (on the GPU the
// epilogue of the projection before it) and both norms read it.
// CHECK-LABEL: func @chain
// CHECK:         %[[S1:.+]], %[[N1:.+]] = decoda.add_rms_norm %arg0, %arg1, %arg2
// CHECK-NEXT:    %[[V:.+]] = decoda.residual_add %[[S1]], %[[N1]]
// CHECK-NEXT:    decoda.rms_norm %[[V]], %arg3
// CHECK-NEXT:    decoda.rms_norm %[[V]], %arg2
// CHECK-NOT:     decoda.add_rms_norm
func.func @chain(%h: tensor<4x64xbf16>, %m: tensor<4x64xbf16>, %w1: tensor<64xbf16>, %w2: tensor<64xbf16>) -> (tensor<4x64xbf16>, tensor<4x64xbf16>) {
  %u = decoda.residual_add %h, %m : tensor<4x64xbf16>
  %n1 = decoda.rms_norm %u, %w1 {eps = 1.0e-06 : f64} : tensor<4x64xbf16>, tensor<64xbf16>
  %v = decoda.residual_add %u, %n1 : tensor<4x64xbf16>
  %n2 = decoda.rms_norm %v, %w2 {eps = 1.0e-06 : f64} : tensor<4x64xbf16>, tensor<64xbf16>
  %n3 = decoda.rms_norm %v, %w1 {eps = 1.0e-06 : f64} : tensor<4x64xbf16>, tensor<64xbf16>
  return %n2, %n3 : tensor<4x64xbf16>, tensor<4x64xbf16>
}

// -----

// Negative: a norm whose input is a plain arith.addf, not a residual add.
// CHECK-LABEL: func @not_residual
// CHECK:         arith.addf
// CHECK:         decoda.rms_norm
// CHECK-NOT:     decoda.add_rms_norm
func.func @not_residual(%h: tensor<4x64xf32>, %m: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %u = arith.addf %h, %m : tensor<4x64xf32>
  %n = decoda.rms_norm %u, %w {eps = 1.0e-06 : f64} : tensor<4x64xf32>, tensor<64xf32>
  return %n : tensor<4x64xf32>
}

// -----

// Negative: the norm weight is computed after the add, so the fused op could not take its place.
// CHECK-LABEL: func @weight_after_add
// CHECK:         decoda.residual_add
// CHECK:         decoda.rms_norm
// CHECK-NOT:     decoda.add_rms_norm
func.func @weight_after_add(%h: tensor<4x64xf32>, %m: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %u = decoda.residual_add %h, %m : tensor<4x64xf32>
  %w2 = arith.addf %w, %w : tensor<64xf32>
  %n = decoda.rms_norm %u, %w2 {eps = 1.0e-06 : f64} : tensor<4x64xf32>, tensor<64xf32>
  return %n : tensor<4x64xf32>
}

// -----

// Negative: the norm lives in another region (a hyper-connection body) than the add.
// CHECK-LABEL: func @other_region
// CHECK:         decoda.residual_add
// CHECK:         decoda.hyper_connection
// CHECK:           decoda.rms_norm
// CHECK-NOT:     decoda.add_rms_norm
func.func @other_region(%x: tensor<2x4x64xf32>, %h: tensor<2x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>, %c: tensor<4xf32>, %w: tensor<64xf32>) -> tensor<2x4x64xf32> {
  %u = decoda.residual_add %h, %h : tensor<2x64xf32>
  %y = decoda.hyper_connection %x, %a, %b, %c {sinkhorn_iters = 20 : i64}
      : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%l: tensor<2x64xf32>):
    %n = decoda.rms_norm %u, %w {eps = 1.0e-06 : f64} : tensor<2x64xf32>, tensor<64xf32>
    decoda.yield %n : tensor<2x64xf32>
  }
  return %y : tensor<2x4x64xf32>
}

// -----

// Norms of one value are placed side by side, after the first (so the GPU runs them as one
// launch): %n2 moves up past the linear; %n3, whose weight is defined after the first norm, stays.
// CHECK-LABEL: func @group_norms
// CHECK:         %[[N1:.+]] = decoda.layer_norm %arg0, %arg1, %arg2
// CHECK-NEXT:    %[[N2:.+]] = decoda.rms_norm %arg0, %arg1
// CHECK-NEXT:    decoda.linear %[[N1]], %arg3
// CHECK:         arith.addf
// CHECK-NEXT:    decoda.rms_norm %arg0, %{{.+}}
func.func @group_norms(%x: tensor<4x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>, %p: tensor<64x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>) {
  %n1 = decoda.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>
  %y = decoda.linear %n1, %p : tensor<4x64xf32>, tensor<64x64xf32>
  %n2 = decoda.rms_norm %x, %w {eps = 1.0e-06 : f64} : tensor<4x64xf32>, tensor<64xf32>
  %w2 = arith.addf %w, %b : tensor<64xf32>
  %n3 = decoda.rms_norm %x, %w2 {eps = 1.0e-06 : f64} : tensor<4x64xf32>, tensor<64xf32>
  return %y, %n2, %n3 : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
}
