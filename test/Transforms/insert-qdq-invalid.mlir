// RUN: decoda-opt %s --decoda-insert-qdq --split-input-file --verify-diagnostics
// RUN: decoda-opt %s --decoda-insert-qdq="keep-float=attention,cached_attention,linear" --split-input-file | FileCheck %s

// Without calibration statistics, INT8 attention and static scales are errors naming the op;
// keeping those ops in float is the way out.
// CHECK-LABEL: func @attention_no_stats
// CHECK-NOT:     quantize(
func.func @attention_no_stats(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x1x8xf32>, %v: tensor<1x4x1x8xf32>) -> tensor<1x4x2x8xf32> {
  // expected-error @+1 {{decoda-insert-qdq: INT8 attention needs calibration statistics ('decoda.calib_absmax' = array<f32: q, k, v> absmax) on this op}}
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 1 : i64}
      : tensor<1x4x2x8xf32>, tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>
  return %o : tensor<1x4x2x8xf32>
}

// -----

// The same for the KV-cache form.
// CHECK-LABEL: func @cached_attention_no_stats
// CHECK-NOT:     quantize(
func.func @cached_attention_no_stats(%q: tensor<1x1x2x8xf32>, %k: tensor<1x1x1x8xf32>, %kc: tensor<1x16x1x8xf32>, %off: index) -> tensor<1x1x2x8xf32> {
  // expected-error @+1 {{decoda-insert-qdq: INT8 attention needs calibration statistics ('decoda.calib_absmax' = array<f32: q, k, v> absmax) on this op}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>, tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>
  return %o : tensor<1x1x2x8xf32>
}

// -----

// f16 attention stays float, with a remark (INT8 BMMs need f32 q, k, v).
// CHECK-LABEL: func @cached_attention_f16
// CHECK-NOT:     quantize(
func.func @cached_attention_f16(%q: tensor<1x1x2x8xf16>, %k: tensor<1x1x1x8xf16>, %kc: tensor<1x16x1x8xf16>, %off: index) -> tensor<1x1x2x8xf16> {
  // expected-remark @+1 {{decoda-insert-qdq: attention stays float (INT8 BMMs need f32 q, k, v)}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal, decoda.calib_absmax = array<f32: 1.0, 1.0, 1.0>}
      : tensor<1x1x2x8xf16>, tensor<1x1x1x8xf16>, tensor<1x1x1x8xf16>, tensor<1x16x1x8xf16>, tensor<1x16x1x8xf16>
  return %o : tensor<1x1x2x8xf16>
}

// -----

// Argument weights cannot be stored as i8: the linear stays float, with a remark.
func.func @argument_weight(%x: tensor<1x4x16xf32>, %w: tensor<8x16xf32>) -> tensor<1x4x8xf32> {
  // expected-remark @+1 {{decoda-insert-qdq: stays float (INT8 needs an f32 linear with a constant rank-2 weight)}}
  %y = decoda.linear %x, %w : tensor<1x4x16xf32>, tensor<8x16xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// A block-quantised weight (an int4 checkpoint's codes, MatMulNBits) is kept as it is: the linear
// stays float, with a remark saying why.
func.func @block_quantized_weight(%x: tensor<1x4x32xf32>) -> tensor<1x4x8xf32> {
  %c = arith.constant dense<17> : tensor<8x16xi8>
  %s = arith.constant dense<0.5> : tensor<8x1xf32>
  %w = decoda.dequantize_blocks %c, %s {bits = 4 : i64, block_size = 32 : i64} : tensor<8x16xi8>, tensor<8x1xf32> -> tensor<8x32xf32>
  // expected-remark @+1 {{decoda-insert-qdq: stays float (its weight is block-quantised, a decoda.dequantize_blocks: kept as its codes)}}
  %y = decoda.linear %x, %w : tensor<1x4x32xf32>, tensor<8x32xf32>
  return %y : tensor<1x4x8xf32>
}
