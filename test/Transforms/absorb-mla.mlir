// RUN: decoda-opt %s --decoda-absorb-mla --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-absorb-mla="fold-output-projection=always" --split-input-file | FileCheck %s --check-prefix=ALWAYS
// RUN: decoda-opt %s --decoda-absorb-mla="fold-output-projection=never" --split-input-file | FileCheck %s --check-prefix=NEVER
// RUN: decoda-opt %s --decoda-absorb-mla="report=true" --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: decoda-opt %s --decoda-graph-opt --split-input-file | FileCheck %s --check-prefix=PIPE
// RUN: decoda-opt %s --decoda-graph-opt="absorb-mla=true" --split-input-file | FileCheck %s --check-prefix=PIPEABS
// RUN: not decoda-opt %s --decoda-absorb-mla="fold-output-projection=sometimes" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADOPT

// BADOPT: error: decoda-absorb-mla: fold-output-projection must be 'cost', 'always' or 'never', found 'sometimes'

// Weights as arguments (mla_block's shapes: H = 4, Dn = 16, Dr = 8, Dc = 32, Dv = 16):
// q_lat = q_nope · W_UK per head (w_uk read as in_out [H, K = Dn, N = Dc]), MQA attention of
// [q_lat ; q_rope] against [c ; k_rope] with the latent as the value (the key's first Dc
// columns: its slice, so that a kernel sees V as a prefix of K) at scale 1/sqrt(16 + 8), then
// W_UV per head (out_in [H, N = Dv, K = Dc]).
// CHECK-LABEL: func @absorb
// CHECK-SAME:    (%[[QN:.+]]: tensor<1x?x4x16xf32>, %[[QR:.+]]: tensor<1x?x4x8xf32>, %[[C:.+]]: tensor<1x?x32xf32>, %[[KR:.+]]: tensor<1x?x8xf32>, %[[WUK:.+]]: tensor<4x16x32xf32>, %[[WUV:.+]]: tensor<4x16x32xf32>)
// CHECK:         %[[QL:.+]] = decoda.linear %[[QN]], %[[WUK]] {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x?x4x16xf32>, tensor<4x16x32xf32>
// CHECK:         %[[Q:.+]] = tensor.concat dim(3) %[[QL]], %[[QR]] : (tensor<1x?x4x32xf32>, tensor<1x?x4x8xf32>) -> tensor<1x?x4x40xf32>
// CHECK:         %[[K3:.+]] = tensor.concat dim(2) %[[C]], %[[KR]] : (tensor<1x?x32xf32>, tensor<1x?x8xf32>) -> tensor<1x?x40xf32>
// CHECK:         %[[K:.+]] = tensor.expand_shape %[[K3]] {{\[}}[0], [1], [2, 3]] output_shape [1, %{{.+}}, 1, 40] : tensor<1x?x40xf32> into tensor<1x?x1x40xf32>
// CHECK:         %[[V:.+]] = tensor.extract_slice %[[K]][0, 0, 0, 0] [1, %{{.+}}, 1, 32] [1, 1, 1, 1] : tensor<1x?x1x40xf32> to tensor<1x?x1x32xf32>
// CHECK:         %[[O:.+]] = decoda.attention %[[Q]], %[[K]], %[[V]] {causal, num_heads = 4 : i64, num_kv_heads = 1 : i64, scale = 0.20412414523193154 : f64} : tensor<1x?x4x40xf32>, tensor<1x?x1x40xf32>, tensor<1x?x1x32xf32>
// CHECK:         %[[Y:.+]] = decoda.linear %[[O]], %[[WUV]] : tensor<1x?x4x32xf32>, tensor<4x16x32xf32>
// CHECK-NOT:     decoda.mla
// CHECK:         return %[[Y]]
// REPORT: remark: KV cache per token and layer: absorbed 40 numbers (160 bytes: latent 32 + RoPE key 8), decompressed 160 numbers (640 bytes: 4 heads x (16 + 8) keys + 4 heads x 16 values); 4.0x smaller
// PIPE-LABEL: func @absorb
// PIPE:         decoda.mla
// PIPEABS-LABEL: func @absorb
// PIPEABS-NOT:   decoda.mla
// PIPEABS:       decoda.attention
func.func @absorb(%qn: tensor<1x?x4x16xf32>, %qr: tensor<1x?x4x8xf32>, %c: tensor<1x?x32xf32>, %kr: tensor<1x?x8xf32>,
                  %wuk: tensor<4x16x32xf32>, %wuv: tensor<4x16x32xf32>) -> tensor<1x?x4x16xf32> {
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64, causal}
      : tensor<1x?x4x16xf32>, tensor<1x?x4x8xf32>, tensor<1x?x32xf32>, tensor<1x?x8xf32>, tensor<4x16x32xf32>, tensor<4x16x32xf32>
  return %o : tensor<1x?x4x16xf32>
}

// -----

// An explicit scale is kept; no causal mask stays no mask; bf16 (DeepSeek-V2's full shapes:
// 128 heads, Dn = 128, Dr = 64, Dc = 512, Dv = 128).
// CHECK-LABEL: func @scale_bf16
// CHECK:         decoda.attention %{{.+}}, %{{.+}}, %{{.+}} {num_heads = 128 : i64, num_kv_heads = 1 : i64, scale = 1.250000e-01 : f64} : tensor<2x1x128x576xbf16>, tensor<2x9x1x576xbf16>, tensor<2x9x1x512xbf16>
// REPORT: remark: KV cache per token and layer: absorbed 576 numbers (1152 bytes: latent 512 + RoPE key 64), decompressed 40960 numbers (81920 bytes: 128 heads x (128 + 64) keys + 128 heads x 128 values); 71.1x smaller
func.func @scale_bf16(%qn: tensor<2x1x128x128xbf16>, %qr: tensor<2x1x128x64xbf16>, %c: tensor<2x9x512xbf16>, %kr: tensor<2x9x64xbf16>,
                      %wuk: tensor<128x128x512xbf16>, %wuv: tensor<128x128x512xbf16>) -> tensor<2x1x128x128xbf16> {
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 128 : i64, scale = 0.125 : f64}
      : tensor<2x1x128x128xbf16>, tensor<2x1x128x64xbf16>, tensor<2x9x512xbf16>, tensor<2x9x64xbf16>, tensor<128x128x512xbf16>, tensor<128x128x512xbf16>
  return %o : tensor<2x1x128x128xbf16>
}

// -----

// Constant W_UV and W_O, H = 2, Dv = Dc = 1, D = 2: folding costs D·H·Dc = 4 multiply-adds per
// token against H·Dv·Dc + D·H·Dv = 6, so `cost` folds: W_O'[d, h] = W_O[d, h] · W_UV[h] =
// [[1·2, 2·3], [3·2, 4·3]], and the output projection reads the attended latent directly.
// CHECK-LABEL: func @fold_out_in
// CHECK-DAG:     %[[W:.+]] = arith.constant dense<{{\[}}[2.000000e+00, 6.000000e+00], [6.000000e+00, 1.200000e+01]]> : tensor<2x2xf32>
// CHECK:         %[[O:.+]] = decoda.attention
// CHECK:         %[[F:.+]] = tensor.collapse_shape %[[O]] {{\[}}[0], [1], [2, 3]] : tensor<1x3x2x1xf32> into tensor<1x3x2xf32>
// CHECK:         %[[Y:.+]] = decoda.linear %[[F]], %[[W]], %arg5 : tensor<1x3x2xf32>, tensor<2x2xf32>, tensor<2xf32>
// CHECK-NOT:     decoda.linear
// CHECK:         return %[[Y]]
// NEVER-LABEL: func @fold_out_in
// NEVER:         %[[O:.+]] = decoda.attention
// NEVER:         %[[U:.+]] = decoda.linear %[[O]], %{{.+}} : tensor<1x3x2x1xf32>, tensor<2x1x1xf32>
// NEVER:         tensor.collapse_shape %[[U]]
func.func @fold_out_in(%qn: tensor<1x3x2x4xf32>, %qr: tensor<1x3x2x2xf32>, %c: tensor<1x5x1xf32>, %kr: tensor<1x5x2xf32>,
                       %wuk: tensor<2x4x1xf32>, %bo: tensor<2xf32>) -> tensor<1x3x2xf32> {
  %wuv = arith.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %wo = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 2 : i64, causal}
      : tensor<1x3x2x4xf32>, tensor<1x3x2x2xf32>, tensor<1x5x1xf32>, tensor<1x5x2xf32>, tensor<2x4x1xf32>, tensor<2x1x1xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x3x2x1xf32> into tensor<1x3x2xf32>
  %y = decoda.linear %o2, %wo, %bo : tensor<1x3x2xf32>, tensor<2x2xf32>, tensor<2xf32>
  return %y : tensor<1x3x2xf32>
}

// -----

// The same with an in_out output projection [H·Dv, D]: W_O' is [H·Dc, D].
// CHECK-LABEL: func @fold_in_out
// CHECK-DAG:     %[[W:.+]] = arith.constant dense<{{\[}}[2.000000e+00, 6.000000e+00], [6.000000e+00, 1.200000e+01]]> : tensor<2x2xf32>
// CHECK:         decoda.linear %{{.+}}, %[[W]] {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x3x2xf32>, tensor<2x2xf32>
func.func @fold_in_out(%qn: tensor<1x3x2x4xf32>, %qr: tensor<1x3x2x2xf32>, %c: tensor<1x5x1xf32>, %kr: tensor<1x5x2xf32>,
                       %wuk: tensor<2x4x1xf32>) -> tensor<1x3x2xf32> {
  %wuv = arith.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %wo = arith.constant dense<[[1.0, 3.0], [2.0, 4.0]]> : tensor<2x2xf32>
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 2 : i64, causal}
      : tensor<1x3x2x4xf32>, tensor<1x3x2x2xf32>, tensor<1x5x1xf32>, tensor<1x5x2xf32>, tensor<2x4x1xf32>, tensor<2x1x1xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x3x2x1xf32> into tensor<1x3x2xf32>
  %y = decoda.linear %o2, %wo {weight_layout = #decoda.weight_layout<in_out>} : tensor<1x3x2xf32>, tensor<2x2xf32>
  return %y : tensor<1x3x2xf32>
}

// -----

// Constant weights with Dc > Dv (H = 2, Dv = 1, Dc = 3, D = 4): folding would cost D·H·Dc = 24
// multiply-adds per token against H·Dv·Dc + D·H·Dv = 14, so `cost` keeps the per-head W_UV and
// the original W_O; `always` folds into [D, H·Dc] = [4, 6].
// CHECK-LABEL: func @fold_too_costly
// CHECK:         %[[O:.+]] = decoda.attention
// CHECK:         %[[U:.+]] = decoda.linear %[[O]], %{{.+}} : tensor<1x3x2x3xf32>, tensor<2x1x3xf32>
// CHECK:         %[[F:.+]] = tensor.collapse_shape %[[U]]
// CHECK:         decoda.linear %[[F]], %{{.+}} : tensor<1x3x2xf32>, tensor<4x2xf32>
// ALWAYS-LABEL: func @fold_too_costly
// ALWAYS:         %[[O:.+]] = decoda.attention
// ALWAYS:         %[[F:.+]] = tensor.collapse_shape %[[O]]
// ALWAYS:         decoda.linear %[[F]], %{{.+}} : tensor<1x3x6xf32>, tensor<4x6xf32>
func.func @fold_too_costly(%qn: tensor<1x3x2x4xf32>, %qr: tensor<1x3x2x2xf32>, %c: tensor<1x5x3xf32>, %kr: tensor<1x5x2xf32>,
                           %wuk: tensor<2x4x3xf32>) -> tensor<1x3x4xf32> {
  %wuv = arith.constant dense<1.0> : tensor<2x1x3xf32>
  %wo = arith.constant dense<2.0> : tensor<4x2xf32>
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 2 : i64, causal}
      : tensor<1x3x2x4xf32>, tensor<1x3x2x2xf32>, tensor<1x5x3xf32>, tensor<1x5x2xf32>, tensor<2x4x3xf32>, tensor<2x1x3xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x3x2x1xf32> into tensor<1x3x2xf32>
  %y = decoda.linear %o2, %wo : tensor<1x3x2xf32>, tensor<4x2xf32>
  return %y : tensor<1x3x4xf32>
}

// -----

// Negative for folding (even with `always`): W_O is an argument; the result has a second user.
// ALWAYS-LABEL: func @no_fold
// ALWAYS-SAME:     %[[WO_ARG:[^:]+]]: tensor<2x2xf32>)
// ALWAYS:         %[[WO:.+]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// ALWAYS:         %[[O1:.+]] = decoda.attention
// ALWAYS:         decoda.linear %[[O1]], %{{.+}} : tensor<1x3x2x1xf32>, tensor<2x1x1xf32>
// ALWAYS:         decoda.linear %{{.+}}, %[[WO_ARG]] : tensor<1x3x2xf32>, tensor<2x2xf32>
// ALWAYS:         %[[O2:.+]] = decoda.attention
// ALWAYS:         decoda.linear %[[O2]], %{{.+}} : tensor<1x3x2x1xf32>, tensor<2x1x1xf32>
// ALWAYS:         decoda.linear %{{.+}}, %[[WO]] : tensor<1x3x2xf32>, tensor<2x2xf32>
// ALWAYS:         return
func.func @no_fold(%qn: tensor<1x3x2x4xf32>, %qr: tensor<1x3x2x2xf32>, %c: tensor<1x5x1xf32>, %kr: tensor<1x5x2xf32>,
                   %wuk: tensor<2x4x1xf32>, %wo_arg: tensor<2x2xf32>) -> (tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2x1xf32>) {
  %wuv = arith.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %wo = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 2 : i64, causal}
      : tensor<1x3x2x4xf32>, tensor<1x3x2x2xf32>, tensor<1x5x1xf32>, tensor<1x5x2xf32>, tensor<2x4x1xf32>, tensor<2x1x1xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x3x2x1xf32> into tensor<1x3x2xf32>
  %y = decoda.linear %o2, %wo_arg : tensor<1x3x2xf32>, tensor<2x2xf32>
  %p = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 2 : i64, causal}
      : tensor<1x3x2x4xf32>, tensor<1x3x2x2xf32>, tensor<1x5x1xf32>, tensor<1x5x2xf32>, tensor<2x4x1xf32>, tensor<2x1x1xf32>
  %p2 = tensor.collapse_shape %p [[0], [1], [2, 3]] : tensor<1x3x2x1xf32> into tensor<1x3x2xf32>
  %z = decoda.linear %p2, %wo : tensor<1x3x2xf32>, tensor<2x2xf32>
  return %y, %z, %p : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2x1xf32>
}

// -----

// Two MLA layers in a chain: each becomes its own MQA attention over its own latent.
// CHECK-LABEL: func @two_layers
// CHECK:         %[[A1:.+]] = decoda.attention
// CHECK:         %[[Y1:.+]] = decoda.linear %[[A1]]
// CHECK:         tensor.concat dim(3)
// CHECK:         decoda.attention
// CHECK-NOT:     decoda.mla
// CHECK:         return
// REPORT-COUNT-2: remark: KV cache per token and layer: absorbed 12 numbers (48 bytes: latent 8 + RoPE key 4)
func.func @two_layers(%qn: tensor<1x6x2x8xf32>, %qr: tensor<1x6x2x4xf32>, %c1: tensor<1x6x8xf32>, %c2: tensor<1x6x8xf32>,
                      %kr: tensor<1x6x4xf32>, %wuk: tensor<2x8x8xf32>, %wuv: tensor<2x8x8xf32>) -> tensor<1x6x2x8xf32> {
  %o1 = decoda.mla %qn, %qr, %c1, %kr, %wuk, %wuv {num_heads = 2 : i64, causal}
      : tensor<1x6x2x8xf32>, tensor<1x6x2x4xf32>, tensor<1x6x8xf32>, tensor<1x6x4xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>
  %o2 = decoda.mla %o1, %qr, %c2, %kr, %wuk, %wuv {num_heads = 2 : i64, causal}
      : tensor<1x6x2x8xf32>, tensor<1x6x2x4xf32>, tensor<1x6x8xf32>, tensor<1x6x4xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>
  return %o2 : tensor<1x6x2x8xf32>
}

// -----

// Negative: ordinary attention is left alone.
// CHECK-LABEL: func @not_mla
// CHECK:         decoda.attention %arg0, %arg1, %arg2 {num_heads = 2 : i64, num_kv_heads = 2 : i64}
// CHECK-NOT:     tensor.concat
// CHECK:         return
func.func @not_mla(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 2 : i64}
      : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>
  return %o : tensor<1x4x2x8xf32>
}
