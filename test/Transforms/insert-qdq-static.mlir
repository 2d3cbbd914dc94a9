// RUN: decoda-opt %s --decoda-insert-qdq="activations=per-tensor scales=static attention=false" --verify-diagnostics

// A static activation scale needs statistics (a GLU output bound would do, a plain input not).
func.func @static_no_stats(%x: tensor<1x4x16xf32>) -> tensor<1x4x8xf32> {
  %w = arith.constant dense<1.0> : tensor<8x16xf32>
  // expected-error @+1 {{decoda-insert-qdq: a static activation scale needs calibration statistics ('decoda.calib_absmax' with 16 values) on this linear}}
  %y = decoda.linear %x, %w : tensor<1x4x16xf32>, tensor<8x16xf32>
  return %y : tensor<1x4x8xf32>
}
