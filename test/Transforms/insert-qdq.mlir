// RUN: decoda-opt %s --decoda-insert-qdq --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-insert-qdq="activations=per-tensor scales=static" --split-input-file | FileCheck %s --check-prefix=STATIC
// RUN: decoda-opt %s --decoda-insert-qdq="activations=per-tensor" --split-input-file | FileCheck %s --check-prefix=PTDYN
// RUN: decoda-opt %s --decoda-insert-qdq="weights=per-tensor keep-float=attention,down" --split-input-file | FileCheck %s --check-prefix=KEEP
// RUN: decoda-opt %s --decoda-insert-qdq="keep-float=cached_attention" --split-input-file | FileCheck %s --check-prefix=KEEPCACHED
// RUN: decoda-opt %s --decoda-insert-qdq --decoda-fold-qlinear --split-input-file | FileCheck %s --check-prefix=FOLD
// RUN: not decoda-opt %s --decoda-insert-qdq="scales=static" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADSTATIC
// RUN: not decoda-opt %s --decoda-insert-qdq="activations=per-row" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADACT
// RUN: not decoda-opt %s --decoda-insert-qdq="weights=per-row" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADW
// RUN: not decoda-opt %s --decoda-insert-qdq="scales=sometimes" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADSCALES
// Numerics: the program with INT8 boundaries against the float program on random inputs (the
// tolerance covers the quantisation error, which random [-1, 1) inputs put near 1e-2), and
// the folding into qlinear against the unfolded boundaries (same values up to f32 rounding):
// RUN: decoda-compile %S/Inputs/smooth-quant-block.mlir --no-graph-opt --emit=mlir -o %t.mlir \
// RUN:   --test-insert-pass-after-graph-opt=decoda-insert-qdq --verify-numerics --verify-numerics-tol=0.05 2>&1 | FileCheck %s --check-prefix=NUM
// RUN: decoda-opt %S/Inputs/smooth-quant-block.mlir --decoda-insert-qdq -o %t.qdq.mlir
// RUN: decoda-compile %t.qdq.mlir --no-graph-opt --emit=mlir -o %t.mlir \
// RUN:   --test-insert-pass-after-graph-opt=decoda-fold-qlinear --verify-numerics 2>&1 | FileCheck %s --check-prefix=NUMFOLD
// The error of the INT8 program is real but bounded: a tolerance of 1e-4 must see it drift.
// RUN: not decoda-compile %S/Inputs/smooth-quant-block.mlir --no-graph-opt --emit=mlir -o %t.mlir \
// RUN:   --test-insert-pass-after-graph-opt=decoda-insert-qdq --verify-numerics --verify-numerics-tol=1e-4 2>&1 | FileCheck %s --check-prefix=NUMTIGHT

// BADSTATIC: error: decoda-insert-qdq: static activation scales are per tensor (activations=per-tensor); per-token scales are dynamic
// BADACT: error: decoda-insert-qdq: activations must be per-token or per-tensor, got 'per-row'
// BADW: error: decoda-insert-qdq: weights must be per-channel or per-tensor, got 'per-row'
// BADSCALES: error: decoda-insert-qdq: scales must be dynamic or static, got 'sometimes'
// NUM: after decoda-insert-qdq: ok
// NUM: no drift after 1 graph passes
// NUMFOLD: after decoda-fold-qlinear: ok
// NUMTIGHT: error: --verify-numerics: output 0 of @block drifts beyond tolerance 0.0001 after pass 'decoda-insert-qdq'

// Per-channel weights: row 0 [1, -0.5] -> scale 1/127, [127, -64] (-63.5 rounds to even);
// row 1 [0.25, 0] -> scale 0.25/127, [127, 0]. Dynamic per-token activation scale
// max(max|x|, 1e-30) / 127 over the last axis, [1, T, 1].
// CHECK-LABEL: func @linear
// CHECK-SAME:    (%[[X:.+]]: tensor<1x?x2xf32>)
// CHECK:         %[[B:.+]] = arith.constant dense<[5.000000e-01, -1.000000e+00]>
// CHECK:         %[[AMAX:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<1x?x2xf32>) outs(%{{.+}} : tensor<1x?x1xf32>) attrs = {decoda.dynamic_scale}
// CHECK:           math.absf
// CHECK:           arith.maximumf
// CHECK:         %[[S:.+]] = linalg.generic {{.+}} ins(%[[AMAX]] : tensor<1x?x1xf32>)
// CHECK:           arith.constant 1.000000e-30
// CHECK:           arith.constant 1.270000e+02
// CHECK:           arith.maximumf
// CHECK:           arith.divf
// CHECK:         %[[WQ:.+]] = arith.constant dense<{{\[}}[127, -64], [127, 0]]> : tensor<2x2xi8>
// CHECK:         %[[WS:.+]] = arith.constant dense<{{\[}}[0.00787401571], [0.00196850393]]> : tensor<2x1xf32>
// CHECK:         %[[XQ:.+]] = decoda.quantize %[[X]], %[[S]] : tensor<1x?x2xf32>, tensor<1x?x1xf32>
// CHECK:         %[[XD:.+]] = decoda.dequantize %[[XQ]], %[[S]]
// CHECK:         %[[WD:.+]] = decoda.dequantize %[[WQ]], %[[WS]] : tensor<2x2xi8>, tensor<2x1xf32> -> tensor<2x2xf32>
// CHECK:         %[[Y:.+]] = decoda.linear %[[XD]], %[[WD]], %[[B]]
// CHECK:         return %[[Y]]
// Static: the per-tensor scale is max(calib_absmax) / 127 = 2.54 / 127 = 0.02.
// STATIC-LABEL: func @linear
// STATIC:         %[[S:.+]] = arith.constant dense<2.000000e-02> : tensor<f32>
// STATIC:         decoda.quantize %{{.+}}, %[[S]] : tensor<1x?x2xf32>, tensor<f32>
// STATIC-NOT:     linalg.generic
// PTDYN-LABEL: func @linear
// PTDYN:         linalg.generic {{.+}} iterator_types = ["reduction", "reduction", "reduction"]} ins(%{{.+}} : tensor<1x?x2xf32>) outs(%{{.+}} : tensor<f32>)
// PTDYN:         decoda.quantize %{{.+}}, %{{.+}} : tensor<1x?x2xf32>, tensor<f32>
// Per-tensor weights: one scale 1/127 for the whole matrix: [[127, -64], [32, 0]].
// KEEP-LABEL: func @linear
// KEEP:         arith.constant dense<{{\[}}[127, -64], [32, 0]]> : tensor<2x2xi8>
// KEEP:         arith.constant dense<0.00787401571> : tensor<f32>
// FOLD-LABEL: func @linear
// FOLD:         %[[XQ:.+]] = decoda.quantize
// FOLD:         %[[Y:.+]] = decoda.qlinear %[[XQ]], %{{.+}}, %{{.+}}, %{{.+}} bias(%{{.+}} : tensor<2xf32>) {{.*}}: tensor<1x?x2xi8>, tensor<2x2xi8>, tensor<1x?x1xf32>, tensor<2xf32> -> tensor<1x?x2xf32>
// FOLD-NOT:     decoda.dequantize
// FOLD-NOT:     decoda.linear
// FOLD:         return %[[Y]]
func.func @linear(%x: tensor<1x?x2xf32>) -> tensor<1x?x2xf32> {
  %w = arith.constant dense<[[1.0, -0.5], [0.25, 0.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %y = decoda.linear %x, %w, %b {decoda.calib_absmax = array<f32: 2.54, 1.0>} : tensor<1x?x2xf32>, tensor<2x2xf32>, tensor<2xf32>
  return %y : tensor<1x?x2xf32>
}

// -----

// An in_out weight [K, N] = [[1, 2]] is stored transposed as out_in [N, K] = [[127], [127]].
// The down projection of a SiTU-GLU (beta1 = 4, beta2 = 25) gets the static scale
// 100 / 127 = 0.787402 without calibration statistics, and is marked so.
// CHECK-LABEL: func @in_out_and_situ
// CHECK:         arith.constant dense<127> : tensor<2x1xi8>
// CHECK:         decoda.linear %{{.+}}, %{{.+}} : tensor<1x?x1xf32>, tensor<2x1xf32>
// STATIC-LABEL: func @in_out_and_situ
// STATIC:         arith.constant dense<0.787401{{[0-9]*}}> : tensor<f32>
// STATIC:         decoda.linear {{.+}}decoda.scale_from_glu_bound = 1.000000e+02
// KEEP-LABEL: func @in_out_and_situ
// KEEP:         decoda.glu
// KEEP-NOT:     decoda.dequantize
// KEEP:         decoda.linear %{{.+}}, %{{.+}} : tensor<1x?x2xf32>, tensor<2x2xf32>
// KEEP-NEXT:    decoda.residual_add
func.func @in_out_and_situ(%x: tensor<1x?x1xf32>, %wd: tensor<2x2xf32>) -> tensor<1x?x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %wgu = arith.constant dense<[[1.0], [0.5], [2.0], [-1.0]]> : tensor<4x1xf32>
  %y = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<in_out>, decoda.calib_absmax = array<f32: 1.0>} : tensor<1x?x1xf32>, tensor<1x2xf32>
  %c1 = arith.constant 1 : index
  %t = tensor.dim %x, %c1 : tensor<1x?x1xf32>
  %gu = decoda.linear %x, %wgu {decoda.calib_absmax = array<f32: 1.0>} : tensor<1x?x1xf32>, tensor<4x1xf32>
  %g = tensor.extract_slice %gu[0, 0, 0] [1, %t, 2] [1, 1, 1] : tensor<1x?x4xf32> to tensor<1x?x2xf32>
  %u = tensor.extract_slice %gu[0, 0, 2] [1, %t, 2] [1, 1, 1] : tensor<1x?x4xf32> to tensor<1x?x2xf32>
  %h = decoda.glu %g, %u {kind = #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0>} : tensor<1x?x2xf32>
  %wdc = arith.constant dense<[[1.0, 0.5], [0.25, 1.0]]> : tensor<2x2xf32>
  %d = decoda.linear %h, %wdc : tensor<1x?x2xf32>, tensor<2x2xf32> loc("down")
  %s = decoda.residual_add %y, %d : tensor<1x?x2xf32>
  return %s : tensor<1x?x2xf32>
}

// -----

// Cached attention (KV cache prefill/decode) follows the same policy: static per-tensor scales
// from its statistics (the caches stay f32). keep-float=attention names decoda.attention
// only; keep-float=cached_attention keeps this one float.
// CHECK-LABEL: func @cached_attention
// CHECK-DAG:     %[[QS:.+]] = arith.constant dense<1.000000e-01> : tensor<f32>
// CHECK-DAG:     %[[KS:.+]] = arith.constant dense<5.000000e-02> : tensor<f32>
// CHECK-DAG:     %[[VS:.+]] = arith.constant dense<0.00999999977> : tensor<f32>
// CHECK:         decoda.cached_attention %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}[%{{.+}}] quantize(%[[QS]], %[[KS]], %[[VS]] : tensor<f32>, tensor<f32>, tensor<f32>)
// CHECK-SAME:    : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>, tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>
// KEEP-LABEL: func @cached_attention
// KEEP:         decoda.cached_attention {{.*}} quantize(
// KEEPCACHED-LABEL: func @cached_attention
// KEEPCACHED-NOT:   quantize(
// KEEPCACHED:       return
func.func @cached_attention(%q: tensor<1x1x2x8xf32>, %k: tensor<1x1x1x8xf32>, %v: tensor<1x1x1x8xf32>, %kc: tensor<1x16x1x8xf32>, %vc: tensor<1x16x1x8xf32>, %off: index) -> (tensor<1x1x2x8xf32>, tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>) {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal, decoda.calib_absmax = array<f32: 12.7, 6.35, 1.27>}
      : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>, tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>
  return %o, %kc2, %vc2 : tensor<1x1x2x8xf32>, tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>
}

// -----

// Attention: q, k, v scales absmax / 127 from the statistics: 12.7 -> 0.1, 6.35 -> 0.05,
// 1.27 -> 0.01. keep-float=attention leaves it float. A linear with an argument weight stays
// float with a remark.
// CHECK-LABEL: func @attention
// CHECK-DAG:     %[[QS:.+]] = arith.constant dense<1.000000e-01> : tensor<f32>
// CHECK-DAG:     %[[KS:.+]] = arith.constant dense<5.000000e-02> : tensor<f32>
// CHECK-DAG:     %[[VS:.+]] = arith.constant dense<0.00999999977> : tensor<f32>
// CHECK:         decoda.attention %{{.+}}, %{{.+}}, %{{.+}} quantize(%[[QS]], %[[KS]], %[[VS]] : tensor<f32>, tensor<f32>, tensor<f32>)
// CHECK:         decoda.linear %{{.+}}, %arg3 :
// KEEP-LABEL: func @attention
// KEEP-NOT:     quantize(
// KEEP:         return
func.func @attention(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x1x8xf32>, %v: tensor<1x4x1x8xf32>, %wo: tensor<8x16xf32>) -> tensor<1x4x8xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal, decoda.calib_absmax = array<f32: 12.7, 6.35, 1.27>}
      : tensor<1x4x2x8xf32>, tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x4x2x8xf32> into tensor<1x4x16xf32>
  %y = decoda.linear %o2, %wo : tensor<1x4x16xf32>, tensor<8x16xf32>
  return %y : tensor<1x4x8xf32>
}
