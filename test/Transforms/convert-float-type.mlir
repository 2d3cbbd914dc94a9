// decoda-convert-float-type (decoda-compile --float-type): an f32 program's decoda ops and the
// tensor ops between them are rebuilt with bf16 (or f16) tensors, the f32 constants they read
// converted at compile time (round to nearest even), function arguments and results kept f32
// with arith.truncf / arith.extf at the boundary; ops that do not verify in 16 bits (the INT8
// ones) or are not rebuilt (arith on tensors, linalg) stay f32 between casts.
// RUN: decoda-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(decoda-convert-float-type{report}))' --verify-diagnostics | FileCheck %s
// RUN: decoda-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(decoda-convert-float-type{to=f16}))' 2>/dev/null | FileCheck %s --check-prefix=F16
// RUN: not decoda-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(decoda-convert-float-type{to=f64}))' 2>&1 | FileCheck %s --check-prefix=BADTYPE
// BADTYPE: error: decoda-convert-float-type: to must be bf16 or f16, found 'f64'
// RUN: decoda-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(decoda-convert-float-type{io}))' 2>/dev/null | FileCheck %s --check-prefix=IO

// Numbers: a block (RMSNorm, projection, residual, RMSNorm, gated MLP, residual) with constant
// weights built with --float-type=bf16 / f16 equals the NumPy reference computed with bf16 / f16
// storage (reference.py, the ops' f32 accumulation) exactly, while the f32 build is 2e-2 (bf16)
// and 4.6e-3 (f16) away from those references: the converted programs round where the
// references do, and nowhere else.
// RUN: rm -rf %t && mkdir -p %t && %PYTHON %S/Inputs/float_type_block.py %t
// RUN: decoda-compile %t/block.mlir --float-type=bf16 -o %t/bf16.so
// RUN: decoda-compile %t/block.mlir --float-type=f16 -o %t/f16.so
// RUN: decoda-compile %t/block.mlir -o %t/f32.so
// RUN: decoda-run %t/bf16.so --input x=%t/x.npy --check y=%t/ref_bf16.npy --rtol 0 --atol 1e-6 | FileCheck %s --check-prefix=NUM
// RUN: decoda-run %t/f16.so --input x=%t/x.npy --check y=%t/ref_f16.npy --rtol 0 --atol 1e-6 | FileCheck %s --check-prefix=NUM
// RUN: decoda-run %t/f32.so --input x=%t/x.npy --check y=%t/ref_f32.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=NUM
// RUN: not decoda-run %t/f32.so --input x=%t/x.npy --check y=%t/ref_bf16.npy --rtol 0 --atol 1e-3 2>&1 | FileCheck %s --check-prefix=APART
// RUN: not decoda-run %t/f32.so --input x=%t/x.npy --check y=%t/ref_f16.npy --rtol 0 --atol 1e-3 2>&1 | FileCheck %s --check-prefix=APART
// NUM: check y: PASS
// APART: check y: FAIL
// --float-type-io: the input and the output in bf16 / f16 (the input given as bf16 bits or as
// float16), the same numbers; the f32 input is refused by name.
// RUN: decoda-compile %t/block.mlir --float-type=bf16 --float-type-io -o %t/bf16io.so
// RUN: decoda-compile %t/block.mlir --float-type=f16 --float-type-io -o %t/f16io.so
// RUN: decoda-run %t/bf16io.so --input x=%t/x_bf16.npy --check y=%t/ref_bf16.npy --rtol 0 --atol 1e-6 | FileCheck %s --check-prefix=NUM
// RUN: decoda-run %t/f16io.so --input x=%t/x_f16.npy --check y=%t/ref_f16.npy --rtol 0 --atol 1e-6 | FileCheck %s --check-prefix=NUM
// RUN: decoda-run %t/bf16io.so --list | FileCheck %s --check-prefix=SIG
// SIG: input x: bf16 [2, 3, 64]
// SIG: output y: bf16 [2, 3, 64]
// RUN: not decoda-run %t/bf16io.so --input x=%t/x.npy 2>&1 | FileCheck %s --check-prefix=IOTYPE
// IOTYPE: error: input 'x' of entry 'block' {{.*}} dtype float32 ('<f4') does not match the model's bf16
// RUN: not decoda-compile %t/block.mlir --float-type-io -o %t/e.so 2>&1 | FileCheck %s --check-prefix=IOFLAG
// IOFLAG: error: --float-type-io needs --float-type=bf16 or f16
// --report's precision section shows the converted program.
// RUN: decoda-compile %t/block.mlir --float-type=bf16 --report -o %t/r.so 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT: precision of every op (after the graph passes and decoda-convert-float-type):
// REPORT: float     decoda.rms_norm          bf16
// REPORT: float     decoda.gated_mlp         bf16
// The flag: with INT8 quantisation an error; an unknown type is refused by name.
// RUN: not decoda-compile %t/block.mlir --float-type=bf16 --quantize=int8 --no-smooth --quant-attention=false -o %t/e.so 2>&1 | FileCheck %s --check-prefix=INT8
// INT8: error: --float-type needs --quantize=none (the INT8 stage calibrates the f32 model)
// RUN: not decoda-compile %t/block.mlir --float-type=f64 -o %t/e.so 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: Cannot find option named 'f64'

// The chain of decoda and reshape ops in bf16; the arith.addf on tensors stays f32 between an
// extf and a truncf; the argument is cast once for both readers; the result is widened.
// CHECK-LABEL: func.func @block(
// CHECK-SAME: %[[X:.*]]: tensor<1x4x64xf32>, %[[POS:.*]]: tensor<1x4xi64>) -> tensor<1x4x64xf32>
// CHECK: %[[XB:.*]] = arith.truncf %[[X]] : tensor<1x4x64xf32> to tensor<1x4x64xbf16>
// CHECK-DAG: %[[W:.*]] = arith.constant dense<1.500000e+00> : tensor<64xbf16>
// CHECK-DAG: %[[WQ:.*]] = arith.constant dense<2.500000e-01> : tensor<64x64xbf16>
// CHECK: %[[N:.*]] = decoda.rms_norm %[[XB]], %[[W]] {{.*}} : tensor<1x4x64xbf16>, tensor<64xbf16>
// CHECK: %[[Q:.*]] = decoda.linear %[[N]], %[[WQ]] : tensor<1x4x64xbf16>, tensor<64x64xbf16>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[Q]] {{.*}} into tensor<1x4x4x16xbf16>
// CHECK: %[[R:.*]] = decoda.rope %[[E]] positions(%[[POS]] : tensor<1x4xi64>) : tensor<1x4x4x16xbf16>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[R]] {{.*}} into tensor<1x4x64xbf16>
// CHECK: %[[CW:.*]] = arith.extf %[[C]] : tensor<1x4x64xbf16> to tensor<1x4x64xf32>
// CHECK: %[[S:.*]] = arith.addf %[[CW]], %[[X]] : tensor<1x4x64xf32>
// CHECK: %[[SB:.*]] = arith.truncf %[[S]] : tensor<1x4x64xf32> to tensor<1x4x64xbf16>
// CHECK: %[[H:.*]] = decoda.residual_add %[[SB]], %[[XB]] : tensor<1x4x64xbf16>
// CHECK: %[[HW:.*]] = arith.extf %[[H]] : tensor<1x4x64xbf16> to tensor<1x4x64xf32>
// CHECK: return %[[HW]]
// F16-LABEL: func.func @block(
// F16: decoda.rms_norm %{{.*}}, %{{.*}} {{.*}} : tensor<1x4x64xf16>, tensor<64xf16>
// F16: decoda.linear %{{.*}}, %{{.*}} : tensor<1x4x64xf16>, tensor<64x64xf16>
// io: the argument and the result are bf16; the decoda ops read the argument itself, the f32
// addf reads it widened, and the result is the converted op's.
// IO-LABEL: func.func @block(
// IO-SAME: %[[X:.*]]: tensor<1x4x64xbf16>, %[[POS:.*]]: tensor<1x4xi64>) -> tensor<1x4x64xbf16>
// IO: %[[XW:.*]] = arith.extf %[[X]] : tensor<1x4x64xbf16> to tensor<1x4x64xf32>
// IO: decoda.rms_norm %[[X]], %{{.*}} : tensor<1x4x64xbf16>, tensor<64xbf16>
// IO: %[[CW:.*]] = arith.extf %{{.*}} : tensor<1x4x64xbf16> to tensor<1x4x64xf32>
// IO: %[[S:.*]] = arith.addf %[[CW]], %[[XW]] : tensor<1x4x64xf32>
// IO: %[[SB:.*]] = arith.truncf %[[S]]
// IO: %[[H:.*]] = decoda.residual_add %[[SB]], %[[X]] : tensor<1x4x64xbf16>
// IO-NEXT: return %[[H]] : tensor<1x4x64xbf16>
func.func @block(%x: tensor<1x4x64xf32>, %pos: tensor<1x4xi64>) -> tensor<1x4x64xf32> {
  %w = arith.constant dense<1.5> : tensor<64xf32>
  %wq = arith.constant dense<0.25> : tensor<64x64xf32>
  %n = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x4x64xf32>, tensor<64xf32>
  %q = decoda.linear %n, %wq : tensor<1x4x64xf32>, tensor<64x64xf32>
  %e = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [1, 4, 4, 16] : tensor<1x4x64xf32> into tensor<1x4x4x16xf32>
  %r = decoda.rope %e positions(%pos : tensor<1x4xi64>) : tensor<1x4x4x16xf32>
  %c = tensor.collapse_shape %r [[0], [1], [2, 3]] : tensor<1x4x4x16xf32> into tensor<1x4x64xf32>
  // expected-remark @below {{decoda-convert-float-type: kept in f32}}
  %s = arith.addf %c, %x : tensor<1x4x64xf32>
  %h = decoda.residual_add %s, %x : tensor<1x4x64xf32>
  return %h : tensor<1x4x64xf32>
}

// -----

// Constants round to nearest even: 1 + 2^-8 (a tie) to 1, 1 + 3·2^-8 (a tie) to 1 + 2^-6, the
// largest f32 past bf16's range to +inf, -0 stays -0. f16: 1 + 2^-8 is exact there.
// CHECK-LABEL: func.func @constants(
// CHECK: arith.constant dense<[1.000000e+00, 1.015630e+00, 0x7F80, -0.000000e+00]> : tensor<4xbf16>
// CHECK-NOT: tensor<4xf32>>
// IO-LABEL: func.func @constants(%arg0: tensor<4xbf16>) -> tensor<4xbf16>
// IO-NOT: arith.extf
// IO: decoda.residual_add %arg0, %{{.*}} : tensor<4xbf16>
// IO-NEXT: return
// F16-LABEL: func.func @constants(
// F16: arith.constant dense<[1.003910e+00, 1.011720e+00, 0x7C00, -0.000000e+00]> : tensor<4xf16>
func.func @constants(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.00390625, 1.01171875, 0x7F7FFFFF, -0.0]> : tensor<4xf32>
  %r = decoda.residual_add %x, %c : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A dense_resource weight (an ONNX initializer) becomes a new resource of the 16-bit type, its
// bytes converted (1.0, -2.5 in bf16: 0x3F80, 0xC020); the f32 resource goes.
// CHECK-LABEL: func.func @resource(
// CHECK: %[[W:.*]] = arith.constant dense_resource<decoda_bf16> : tensor<2xbf16>
// CHECK: decoda.residual_add %{{.*}}, %[[W]] : tensor<2xbf16>
// CHECK: decoda_bf16: "0x10000000803F20C0"
func.func @resource(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = arith.constant dense_resource<weights> : tensor<2xf32>
  %r = decoda.residual_add %x, %w : tensor<2xf32>
  return %r : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000020C0"
    }
  }
#-}

// -----

// An op that does not verify with 16-bit operands stays f32 and nothing is left of the try:
// decoda.quantize's scale must be f32. Its input, the converted norm's result, is widened.
// CHECK-LABEL: func.func @int8(
// CHECK: %[[N:.*]] = decoda.rms_norm {{.*}} : tensor<2x8xbf16>, tensor<8xbf16>
// CHECK: %[[NW:.*]] = arith.extf %[[N]] : tensor<2x8xbf16> to tensor<2x8xf32>
// CHECK: decoda.quantize %[[NW]], %arg2 : tensor<2x8xf32>, tensor<2x1xf32>
// CHECK-NOT: arith.truncf %arg2
// io: every f32 argument is 16-bit, the scale too (the kept quantize reads it widened).
// IO-LABEL: func.func @int8(%arg0: tensor<2x8xbf16>, %arg1: tensor<8xbf16>, %arg2: tensor<2x1xbf16>) -> tensor<2x8xi8>
// IO: %[[SW:.*]] = arith.extf %arg2 : tensor<2x1xbf16> to tensor<2x1xf32>
// IO: %[[N:.*]] = decoda.rms_norm %arg0, %arg1
// IO: %[[NW:.*]] = arith.extf %[[N]]
// IO: decoda.quantize %[[NW]], %[[SW]] : tensor<2x8xf32>, tensor<2x1xf32>
func.func @int8(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %s: tensor<2x1xf32>) -> tensor<2x8xi8> {
  %n = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<2x8xf32>, tensor<8xf32>
  // expected-remark @below {{decoda-convert-float-type: kept in f32}}
  %q = decoda.quantize %n, %s : tensor<2x8xf32>, tensor<2x1xf32>
  return %q : tensor<2x8xi8>
}

// -----

// A linalg op (left from an import) stays f32; a function without f32 tensors is unchanged.
// CHECK-LABEL: func.func @generic(
// CHECK: %[[XB:.*]] = arith.truncf %arg0
// CHECK: %[[N:.*]] = decoda.rms_norm %[[XB]]
// CHECK: %[[NW:.*]] = arith.extf %[[N]]
// CHECK: linalg.generic {{.*}} ins(%[[NW]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK-LABEL: func.func @already_bf16(
// CHECK-NEXT: decoda.residual_add %arg0, %arg1 : tensor<4xbf16>
// CHECK-NEXT: return
func.func @generic(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  %n = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<4x8xf32>, tensor<8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @below {{decoda-convert-float-type: kept in f32}}
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%n : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}
func.func @already_bf16(%x: tensor<4xbf16>, %y: tensor<4xbf16>) -> tensor<4xbf16> {
  %r = decoda.residual_add %x, %y : tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// -----

// A cached_attention whose caches are arguments (the f32 signature) stays f32: converting would
// pass over both whole caches twice per call. Caches made inside the function convert.
// CHECK-LABEL: func.func @cache_arguments(
// CHECK-NOT: truncf
// CHECK: decoda.cached_attention %arg0, %arg1, %arg2, %arg3, %arg4[%arg5] {{.*}} : tensor<1x1x4x16xf32>
// CHECK-LABEL: func.func @cache_inside(
// io: the caches arrive in bf16, so the public function's cached_attention converts; a
// private function keeps its f32 signature (and its cached_attention).
// IO-LABEL: func.func @cache_arguments(
// IO-NOT: arith.
// IO: decoda.cached_attention %arg0, %arg1, %arg2, %arg3, %arg4[%arg5] {{.*}} : tensor<1x1x4x16xbf16>, tensor<1x1x2x16xbf16>, tensor<1x1x2x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>
// IO-NEXT: return {{.*}} : tensor<1x1x4x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>
// IO-LABEL: func.func private @cache_private(
// IO-SAME: tensor<1x8x2x16xf32>
// IO-NOT: bf16
// IO: return
// CHECK: decoda.cached_attention {{.*}} : tensor<1x1x4x16xbf16>, tensor<1x1x2x16xbf16>, tensor<1x1x2x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>
func.func @cache_arguments(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x2x16xf32>, %v: tensor<1x1x2x16xf32>, %kc: tensor<1x8x2x16xf32>, %vc: tensor<1x8x2x16xf32>, %off: index) -> (tensor<1x1x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  // expected-remark @below {{decoda-convert-float-type: kept in f32}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x4x16xf32>, tensor<1x1x2x16xf32>, tensor<1x1x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %o, %kc2, %vc2 : tensor<1x1x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}
func.func @cache_inside(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x2x16xf32>, %v: tensor<1x1x2x16xf32>, %off: index) -> tensor<1x1x4x16xf32> {
  %z = arith.constant dense<0.0> : tensor<1x8x2x16xf32>
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %z, %z[%off] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x4x16xf32>, tensor<1x1x2x16xf32>, tensor<1x1x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %o : tensor<1x1x4x16xf32>
}
func.func private @cache_private(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x2x16xf32>, %v: tensor<1x1x2x16xf32>, %kc: tensor<1x8x2x16xf32>, %vc: tensor<1x8x2x16xf32>, %off: index) -> tensor<1x1x4x16xf32> {
  // expected-remark @below {{decoda-convert-float-type: kept in f32}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x4x16xf32>, tensor<1x1x2x16xf32>, tensor<1x1x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// -----

// An attention's additive mask stays f32 (added to f32 scores: in 16 bits large biases would
// round and the f32 lowest value that exporters put on padded keys would become -inf); q, k, v
// and the result are converted.
// CHECK-LABEL: func.func @attention_mask(
// CHECK-SAME: %[[Q:.*]]: tensor<1x4x2x16xf32>, %[[K:.*]]: tensor<1x4x2x16xf32>, %[[V:.*]]: tensor<1x4x2x16xf32>, %[[M:.*]]: tensor<1x1x4x4xf32>)
// CHECK-DAG: %[[QB:.*]] = arith.truncf %[[Q]] : tensor<1x4x2x16xf32> to tensor<1x4x2x16xbf16>
// CHECK-DAG: %[[KB:.*]] = arith.truncf %[[K]]
// CHECK-DAG: %[[VB:.*]] = arith.truncf %[[V]]
// CHECK-NOT: arith.truncf %[[M]]
// CHECK: %[[O:.*]] = decoda.attention %[[QB]], %[[KB]], %[[VB]] mask(%[[M]] : tensor<1x1x4x4xf32>) {{.*}} : tensor<1x4x2x16xbf16>, tensor<1x4x2x16xbf16>, tensor<1x4x2x16xbf16>
// CHECK: arith.extf %[[O]] : tensor<1x4x2x16xbf16> to tensor<1x4x2x16xf32>
// F16-LABEL: func.func @attention_mask(
// F16: decoda.attention {{.*}} mask(%{{.*}} : tensor<1x1x4x4xf32>) {{.*}} : tensor<1x4x2x16xf16>
// IO-LABEL: func.func @attention_mask(
// IO-SAME: tensor<1x4x2x16xbf16>, %{{.*}}: tensor<1x4x2x16xbf16>, %{{.*}}: tensor<1x4x2x16xbf16>, %[[IM:.*]]: tensor<1x1x4x4xbf16>)
// IO: %[[WM:.*]] = arith.extf %[[IM]] : tensor<1x1x4x4xbf16> to tensor<1x1x4x4xf32>
// IO: decoda.attention {{.*}} mask(%[[WM]] : tensor<1x1x4x4xf32>)
func.func @attention_mask(%q: tensor<1x4x2x16xf32>, %k: tensor<1x4x2x16xf32>, %v: tensor<1x4x2x16xf32>, %m: tensor<1x1x4x4xf32>) -> tensor<1x4x2x16xf32> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<1x1x4x4xf32>) {num_heads = 2 : i64, num_kv_heads = 2 : i64} : tensor<1x4x2x16xf32>, tensor<1x4x2x16xf32>, tensor<1x4x2x16xf32>
  return %o : tensor<1x4x2x16xf32>
}

// -----

// Linalg ops that only move elements are rebuilt in 16 bits (their bodies' scalars too): a
// transpose, a broadcasting generic that yields its input (ONNX Expand); a generic that
// computes (negf) stays f32 between casts.
// CHECK-LABEL: func.func @moves(
// CHECK: %[[X:.*]] = arith.truncf %arg0 : tensor<2x3x4xf32> to tensor<2x3x4xbf16>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4x3xbf16>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xbf16>) outs(%[[E]] : tensor<2x4x3xbf16>) permutation = [0, 2, 1]
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[T]] : tensor<2x4x3xbf16>) outs(%{{.*}} : tensor<2x2x4x3xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: linalg.yield %[[IN]] : bf16
// CHECK: %[[W:.*]] = arith.extf %[[B]] : tensor<2x2x4x3xbf16> to tensor<2x2x4x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[W]] : tensor<2x2x4x3xf32>) outs(%{{.*}} : tensor<2x2x4x3xf32>)
// CHECK: arith.negf %{{.*}} : f32
#bcast_in = affine_map<(a, b, c, d) -> (b, c, d)>
#bcast_out = affine_map<(a, b, c, d) -> (a, b, c, d)>
func.func @moves(%x: tensor<2x3x4xf32>) -> tensor<2x2x4x3xf32> {
  %e = tensor.empty() : tensor<2x4x3xf32>
  %t = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e : tensor<2x4x3xf32>) permutation = [0, 2, 1]
  %e2 = tensor.empty() : tensor<2x2x4x3xf32>
  %b = linalg.generic {indexing_maps = [#bcast_in, #bcast_out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<2x4x3xf32>) outs(%e2 : tensor<2x2x4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x2x4x3xf32>
  // expected-remark @below {{decoda-convert-float-type: kept in f32}}
  %n = linalg.generic {indexing_maps = [#bcast_out, #bcast_out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<2x2x4x3xf32>) outs(%e2 : tensor<2x2x4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.negf %in : f32
    linalg.yield %v : f32
  } -> tensor<2x2x4x3xf32>
  return %n : tensor<2x2x4x3xf32>
}
