// RUN: decoda-opt %s --decoda-fuse-elementwise --split-input-file | FileCheck %s

// An elementwise producer (here SiLU-like scaling) feeding a projection is not fused into it:
// the contraction keeps two inputs and the mulf/addf body.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#o = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @producer_into_contraction(
// CHECK:         %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[P]], %{{.*}} : tensor<1x8x16xf32>, tensor<32x16xf32>)
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:      linalg.yield
func.func @producer_into_contraction(%x: tensor<1x8x16xf32>, %w: tensor<32x16xf32>) -> tensor<1x8x32xf32> {
  %e = tensor.empty() : tensor<1x8x16xf32>
  %p = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x16xf32>) outs(%e : tensor<1x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x8x16xf32>
  %zero = arith.constant 0.0 : f32
  %acc0 = tensor.empty() : tensor<1x8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %w : tensor<1x8x16xf32>, tensor<32x16xf32>) outs(%acc : tensor<1x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x32xf32>
  return %r : tensor<1x8x32xf32>
}

// -----

// Fusion still happens between elementwise ops and into a row reduction that reads its input
// through a permutation (a norm's sum of squares).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @still_fused(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%{{.*}} : tensor<4x64xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
func.func @still_fused(%x: tensor<4x64xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%sq : tensor<4x64xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %r = arith.addf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A collapse_shape feeding a projection (attention heads merged before the output projection)
// is not folded into it: the contraction keeps one reduction dim.
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#o = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @reshape_into_contraction(
// CHECK:         tensor.collapse_shape
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<1x8x64xf32>, tensor<32x64xf32>)
func.func @reshape_into_contraction(%x: tensor<1x8x4x16xf32>, %w: tensor<32x64xf32>) -> tensor<1x8x32xf32> {
  %c = tensor.collapse_shape %x [[0], [1], [2, 3]] : tensor<1x8x4x16xf32> into tensor<1x8x64xf32>
  %zero = arith.constant 0.0 : f32
  %acc0 = tensor.empty() : tensor<1x8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%c, %w : tensor<1x8x64xf32>, tensor<32x64xf32>) outs(%acc : tensor<1x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %cc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %cc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x32xf32>
  return %r : tensor<1x8x32xf32>
}
