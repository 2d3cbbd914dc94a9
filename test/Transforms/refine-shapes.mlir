// decoda-refine-shapes: static sizes carried from tensor.casts through decoda ops (a decoda op
// reading a cast that dropped sizes reads its source; results re-inferred or taken from the
// operand of the same type, cast back for their old uses). decoda-specialize-dims runs it on
// the functions it retypes (specialize-dims.mlir). Numerics: the specialised programs of
// test/tools/decoda-compile-static-dims.mlir and test/e2e/prefill_decode.py run through it,
// and test/GPU/norm-fold-sim.mlir runs a --static-dims decode block whose norms the GEMV
// kernels now compute (static rows from the start) against NumPy.
// RUN: decoda-opt %s --split-input-file --decoda-refine-shapes | FileCheck %s

// A norm, then projections (InferTypeOpInterface) and a residual add: every op static; the
// function's result reaches its dynamic type through one cast.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[H:.*]]: tensor<1x1x64xf32>
// CHECK-NOT: tensor.cast
// CHECK: %[[N:.*]] = decoda.rms_norm %[[H]], %{{.*}} : tensor<1x1x64xf32>, tensor<64xf32>
// CHECK: %[[Q:.*]] = decoda.linear %[[N]], %{{.*}} : tensor<1x1x64xf32>, tensor<32x64xf32>
// CHECK: %[[O:.*]] = decoda.linear %[[Q]], %{{.*}} : tensor<1x1x32xf32>, tensor<64x32xf32>
// CHECK: %[[S:.*]] = decoda.residual_add %[[H]], %[[O]] : tensor<1x1x64xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[S]] : tensor<1x1x64xf32> to tensor<1x?x64xf32>
// CHECK: return %[[C]]
func.func @chain(%h: tensor<1x1x64xf32>, %w: tensor<64xf32>, %wq: tensor<32x64xf32>, %wo: tensor<64x32xf32>) -> tensor<1x?x64xf32> {
  %c = tensor.cast %h : tensor<1x1x64xf32> to tensor<1x?x64xf32>
  %n = decoda.rms_norm %c, %w {eps = 1.0e-05 : f64} : tensor<1x?x64xf32>, tensor<64xf32>
  %q = decoda.linear %n, %wq : tensor<1x?x64xf32>, tensor<32x64xf32>
  %o = decoda.linear %q, %wo : tensor<1x?x32xf32>, tensor<64x32xf32>
  %s = decoda.residual_add %c, %o : tensor<1x?x64xf32>
  return %s : tensor<1x?x64xf32>
}

// -----

// A shape op between decoda ops (expand_shape with a tensor.dim size) folds on the way: RoPE
// and attention see static shapes.
// CHECK-LABEL: func.func @through_expand(
// CHECK-NOT: tensor.dim
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 1, 2, 16] : tensor<1x1x32xf32> into tensor<1x1x2x16xf32>
// CHECK: decoda.rope %{{.*}} : tensor<1x1x2x16xf32>
// CHECK: decoda.attention %{{.*}} : tensor<1x1x2x16xf32>, tensor<1x1x2x16xf32>, tensor<1x1x2x16xf32>
func.func @through_expand(%x: tensor<1x1x32xf32>) -> tensor<1x?x2x16xf32> {
  %c1 = arith.constant 1 : index
  %c = tensor.cast %x : tensor<1x1x32xf32> to tensor<1x?x32xf32>
  %t = tensor.dim %c, %c1 : tensor<1x?x32xf32>
  %e = tensor.expand_shape %c [[0], [1], [2, 3]] output_shape [1, %t, 2, 16] : tensor<1x?x32xf32> into tensor<1x?x2x16xf32>
  %r = decoda.rope %e : tensor<1x?x2x16xf32>
  %a = decoda.attention %r, %r, %r {num_heads = 2 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>
  return %a : tensor<1x?x2x16xf32>
}

// -----

// Negative: operands that must share one type, only one of them refined (the other comes from
// a dynamic argument): the refined op would not verify, so it stays as it was.
// CHECK-LABEL: func.func @mismatch(
// CHECK: %[[C:.*]] = tensor.cast
// CHECK: decoda.residual_add %[[C]], %{{.*}} : tensor<1x?x64xf32>
func.func @mismatch(%h: tensor<1x1x64xf32>, %b: tensor<1x?x64xf32>) -> tensor<1x?x64xf32> {
  %c = tensor.cast %h : tensor<1x1x64xf32> to tensor<1x?x64xf32>
  %s = decoda.residual_add %c, %b : tensor<1x?x64xf32>
  return %s : tensor<1x?x64xf32>
}

// -----

// Negative: a cast that adds static sizes (a promise about a dynamic value) is not taken.
// CHECK-LABEL: func.func @promise(
// CHECK: %[[C:.*]] = tensor.cast %{{.*}} : tensor<1x?x64xf32> to tensor<1x4x64xf32>
// CHECK: decoda.rms_norm %[[C]], %{{.*}} : tensor<1x4x64xf32>
func.func @promise(%h: tensor<1x?x64xf32>, %w: tensor<64xf32>) -> tensor<1x4x64xf32> {
  %c = tensor.cast %h : tensor<1x?x64xf32> to tensor<1x4x64xf32>
  %n = decoda.rms_norm %c, %w {eps = 1.0e-05 : f64} : tensor<1x4x64xf32>, tensor<64xf32>
  return %n : tensor<1x4x64xf32>
}

// -----

// A decode step: cached_attention (InferTypeOpInterface) takes the static query, its output
// static; the caches keep their types.
// CHECK-LABEL: func.func @step(
// CHECK: decoda.cached_attention %{{.*}} : tensor<1x1x4x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>
// CHECK: tensor.cast %{{.*}} : tensor<1x1x4x8xf32> to tensor<1x?x4x8xf32>
func.func @step(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x2x8xf32>, %v: tensor<1x1x2x8xf32>, %kc: tensor<1x16x2x8xf32>, %vc: tensor<1x16x2x8xf32>, %off: index) -> (tensor<1x?x4x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>) {
  %qc = tensor.cast %q : tensor<1x1x4x8xf32> to tensor<1x?x4x8xf32>
  %kcst = tensor.cast %k : tensor<1x1x2x8xf32> to tensor<1x?x2x8xf32>
  %vcst = tensor.cast %v : tensor<1x1x2x8xf32> to tensor<1x?x2x8xf32>
  %o, %kc2, %vc2 = decoda.cached_attention %qc, %kcst, %vcst, %kc, %vc[%off] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x?x4x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>
  return %o, %kc2, %vc2 : tensor<1x?x4x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>
}
