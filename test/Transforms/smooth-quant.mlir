// RUN: decoda-opt %s --decoda-smooth-quant --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-smooth-quant="alpha=1.0" --split-input-file | FileCheck %s --check-prefix=A1
// RUN: not decoda-opt %s --decoda-smooth-quant="alpha=1.5" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADALPHA
// The smoothed program computes the same function (JIT-run before and after on random inputs):
// RUN: decoda-compile %S/Inputs/smooth-quant-block.mlir --no-graph-opt --emit=mlir -o %t.mlir \
// RUN:   --test-insert-pass-after-graph-opt=decoda-smooth-quant --verify-numerics 2>&1 | FileCheck %s --check-prefix=NUM

// BADALPHA: error: decoda-smooth-quant: alpha must be in [0, 1], got 1.5
// NUM: decoda-smooth-quant: ok

// a = calib_absmax = [16, 1]; w_j = max_n |W[n, j]| = [2, 4].
// alpha = 0.5: s = sqrt(a / w) = [2.828427, 0.5]: gamma / s = [0.353553, 4],
// W[:, 0] * 2.828427, W[:, 1] * 0.5, calib / s = [5.656854, 2].
// CHECK-LABEL: func @rms_one_linear
// CHECK:       %[[G:.+]] = arith.constant dense<[0.353553{{[0-9]*}}, 4.000000e+00]> : tensor<2xf32>
// CHECK:       %[[N:.+]] = decoda.rms_norm %{{.+}}, %[[G]]
// CHECK:       %[[W:.+]] = arith.constant dense<{{\[}}[2.828427{{[0-9]*}}, 2.000000e+00], [5.656854{{[0-9]*}}, 5.000000e-01]]> : tensor<2x2xf32>
// CHECK:       decoda.linear %[[N]], %[[W]] {decoda.calib_absmax = array<f32: 5.65685{{[0-9]*}}, 2.000000e+00>, decoda.smoothed}
// alpha = 1: s = a = [16, 1].
// A1-LABEL: func @rms_one_linear
// A1-DAG:   arith.constant dense<[6.250000e-02, 2.000000e+00]> : tensor<2xf32>
// A1-DAG:   arith.constant dense<{{\[}}[1.600000e+01, 4.000000e+00], [3.200000e+01, 1.000000e+00]]> : tensor<2x2xf32>
// A1:       decoda.calib_absmax = array<f32: 1.000000e+00, 1.000000e+00>
func.func @rms_one_linear(%h: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %g = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %w = arith.constant dense<[[1.0, 4.0], [2.0, 1.0]]> : tensor<2x2xf32>
  %x = decoda.rms_norm %h, %g {eps = 1.0e-5 : f64} : tensor<1x3x2xf32>, tensor<2xf32>
  %y = decoda.linear %x, %w {decoda.calib_absmax = array<f32: 16.0, 1.0>} : tensor<1x3x2xf32>, tensor<2x2xf32>
  return %y : tensor<1x3x2xf32>
}

// -----

// Two linears share the input (Q and K; one in_out): one s from the max over both.
// a = [16, 1], w = max over W1 [[1, 4]] and W2^T (in_out [[8], [1]]: columns j=0 -> 8, j=1 -> 1)
//   = [8, 4]; alpha = 0.5: s = sqrt([2, 0.25]) = [1.414214, 0.5]. Each linear's statistics are
// divided by s: [11.3137, 2] and [11.3137, 1]. LayerNorm: gamma and beta divided by s.
// CHECK-LABEL: func @layer_norm_shared
// CHECK-DAG:   arith.constant dense<[0.707106{{[0-9]*}}, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG:   arith.constant dense<[1.41421{{[0-9]*}}, -2.000000e+00]> : tensor<2xf32>
// CHECK:       decoda.layer_norm
// CHECK:       arith.constant dense<{{\[}}[1.41421{{[0-9]*}}, 2.000000e+00]]> : tensor<1x2xf32>
// CHECK:       decoda.linear {{.+}}decoda.calib_absmax = array<f32: 11.3137{{[0-9]*}}, 2.000000e+00>, decoda.smoothed
// CHECK:       arith.constant dense<{{\[}}[11.3137{{[0-9]*}}], [5.000000e-01]]> : tensor<2x1xf32>
// CHECK:       decoda.linear {{.+}}decoda.calib_absmax = array<f32: 11.3137{{[0-9]*}}, 1.000000e+00>, decoda.smoothed
func.func @layer_norm_shared(%h: tensor<1x3x2xf32>) -> (tensor<1x3x1xf32>, tensor<1x3x1xf32>) {
  %g = arith.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %b = arith.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %w1 = arith.constant dense<[[1.0, 4.0]]> : tensor<1x2xf32>
  %w2 = arith.constant dense<[[8.0], [1.0]]> : tensor<2x1xf32>
  %x = decoda.layer_norm %h, %g, %b {eps = 1.0e-5 : f64} : tensor<1x3x2xf32>, tensor<2xf32>, tensor<2xf32>
  %q = decoda.linear %x, %w1 {decoda.calib_absmax = array<f32: 16.0, 1.0>} : tensor<1x3x2xf32>, tensor<1x2xf32>
  %k = decoda.linear %x, %w2 {decoda.calib_absmax = array<f32: 16.0, 0.5>, weight_layout = #decoda.weight_layout<in_out>} : tensor<1x3x2xf32>, tensor<2x1xf32>
  return %q, %k : tensor<1x3x1xf32>, tensor<1x3x1xf32>
}

// -----

// add_rms_norm with a Gemma-style weight offset (o = 1): (1 + gamma) / s - 1.
// a = [4, 1], w = [1, 1], alpha = 0.5: s = [2, 1]; gamma = [1, 0] -> [0, 0].
// CHECK-LABEL: func @add_rms_offset
// CHECK-DAG:   arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK:       decoda.add_rms_norm
// CHECK:       arith.constant dense<{{\[}}[2.000000e+00, 1.000000e+00]]> : tensor<1x2xf32>
// CHECK:       decoda.calib_absmax = array<f32: 2.000000e+00, 1.000000e+00>, decoda.smoothed
func.func @add_rms_offset(%h: tensor<1x3x2xf32>, %r: tensor<1x3x2xf32>) -> tensor<1x3x1xf32> {
  %g = arith.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %w = arith.constant dense<[[1.0, 1.0]]> : tensor<1x2xf32>
  %s, %x = decoda.add_rms_norm %h, %r, %g {eps = 1.0e-5 : f64, weight_offset = 1.0 : f64} : tensor<1x3x2xf32>, tensor<2xf32>
  %y = decoda.linear %x, %w {decoda.calib_absmax = array<f32: 4.0, 1.0>} : tensor<1x3x2xf32>, tensor<1x2xf32>
  return %y : tensor<1x3x1xf32>
}

// -----

// Not smoothed: the norm output has a user that is not a linear (the residual would change);
// a linear without statistics; an argument weight; a linear kept in float.
// CHECK-LABEL: func @not_smoothed
// CHECK-NOT:   decoda.smoothed
// CHECK:       return
func.func @not_smoothed(%h: tensor<1x3x2xf32>, %warg: tensor<2x2xf32>) -> (tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>) {
  %g = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %w = arith.constant dense<[[1.0, 4.0], [2.0, 1.0]]> : tensor<2x2xf32>
  %x = decoda.rms_norm %h, %g {eps = 1.0e-5 : f64} : tensor<1x3x2xf32>, tensor<2xf32>
  %y = decoda.linear %x, %w {decoda.calib_absmax = array<f32: 16.0, 1.0>} : tensor<1x3x2xf32>, tensor<2x2xf32>
  %x2 = decoda.rms_norm %h, %g {eps = 1.0e-6 : f64} : tensor<1x3x2xf32>, tensor<2xf32>
  %y2 = decoda.linear %x2, %w : tensor<1x3x2xf32>, tensor<2x2xf32>
  %x3 = decoda.rms_norm %h, %g {eps = 1.0e-4 : f64} : tensor<1x3x2xf32>, tensor<2xf32>
  %y3 = decoda.linear %x3, %warg {decoda.calib_absmax = array<f32: 16.0, 1.0>} : tensor<1x3x2xf32>, tensor<2x2xf32>
  %x4 = decoda.rms_norm %h, %g {eps = 1.0e-3 : f64} : tensor<1x3x2xf32>, tensor<2xf32>
  %y4 = decoda.linear %x4, %w {decoda.calib_absmax = array<f32: 16.0, 1.0>, decoda.float} : tensor<1x3x2xf32>, tensor<2x2xf32>
  return %x, %y, %y2, %y3, %y4 : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>
}
