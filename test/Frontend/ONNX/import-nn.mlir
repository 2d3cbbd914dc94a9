// One ONNX node -> one decoda op where the semantics coincide; elementwise ops become
// broadcasting linalg.generic ops; constant subgraphs fold at import.
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.mm.onnx --case mm
// RUN: decoda-translate --import-onnx %t.mm.onnx | FileCheck %s --check-prefix=MM
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.gemm.onnx --case gemm
// RUN: decoda-translate --import-onnx %t.gemm.onnx | FileCheck %s --check-prefix=GEMM
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.norm.onnx --case norm
// RUN: decoda-translate --import-onnx %t.norm.onnx | FileCheck %s --check-prefix=NORM
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.bcast.onnx --case bcast
// RUN: decoda-translate --import-onnx %t.bcast.onnx | FileCheck %s --check-prefix=BCAST
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.fold.onnx --case fold
// RUN: decoda-translate --import-onnx %t.fold.onnx | FileCheck %s --check-prefix=FOLD
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.attn.onnx --case attn
// RUN: decoda-translate --import-onnx %t.attn.onnx | FileCheck %s --check-prefix=ATTN
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.gqa.onnx --case gqa
// RUN: decoda-translate --import-onnx %t.gqa.onnx | FileCheck %s --check-prefix=GQA
// RUN: decoda-translate --import-onnx --onnx-shared-kv-buffers %t.gqa.onnx | FileCheck %s --check-prefix=GQASHARED
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.gqapad.onnx --case gqapad
// RUN: decoda-translate --import-onnx %t.gqapad.onnx | FileCheck %s --check-prefix=GQAPAD
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.res.onnx --case res --raw
// RUN: decoda-translate --import-onnx %t.res.onnx | FileCheck %s --check-prefix=RES
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.nbits.onnx --case nbits
// RUN: decoda-translate --import-onnx %t.nbits.onnx | FileCheck %s --check-prefix=NBITS
// RUN: decoda-translate --import-onnx %t.nbits.onnx | decoda-opt --decoda-fold-constant-dequantize | FileCheck %s --check-prefix=NBITSFOLD

// A rank-2 right operand is a projection in in_out layout; a batched one a generic contraction.
//ONNX-mm <ir_version: 8, opset_import: ["" : 17]>
//ONNX-mm g (float[b, t, 8] x, float[8, 6] w, float[b, 2, t, 8] q, float[b, 2, 8, t] k) => (float[b, t, 6] y, float[b, 2, t, t] s)
//ONNX-mm {
//ONNX-mm   y = MatMul(x, w)
//ONNX-mm   s = MatMul(q, k)
//ONNX-mm }
// MM-LABEL: func.func @main
// MM:         decoda.linear %arg0, %arg1 {weight_layout = #decoda.weight_layout<in_out>} : tensor<?x?x8xf32>, tensor<8x6xf32>
// MM:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// MM-SAME:      ins(%arg2, %arg3 : tensor<?x2x?x8xf32>, tensor<?x2x8x?xf32>)
// MM:           arith.mulf
// MM:           arith.addf

// Gemm with transB and a vector C: a linear with a bias in out_in layout.
//ONNX-gemm <ir_version: 8, opset_import: ["" : 17]>
//ONNX-gemm g (float[n, 8] a, float[6, 8] w, float[6] c) => (float[n, 6] y)
//ONNX-gemm {
//ONNX-gemm   y = Gemm<transB = 1>(a, w, c)
//ONNX-gemm }
// GEMM-LABEL: func.func @main
// GEMM:         decoda.linear %arg0, %arg1, %arg2 : tensor<?x8xf32>, tensor<6x8xf32>, tensor<6xf32>

// Norms over the last axis and the com.microsoft fused residual form.
//ONNX-norm <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-norm g (float[b, t, 8] x, float[b, t, 8] r, float[8] w, float[8] bias) => (float[b, t, 8] y, float[b, t, 8] z, float[b, t, 8] s)
//ONNX-norm {
//ONNX-norm   y = LayerNormalization<axis = -1, epsilon = 0.001>(x, w, bias)
//ONNX-norm   z, m, iv, s = com.microsoft.SkipSimplifiedLayerNormalization<epsilon = 0.00001>(x, r, w)
//ONNX-norm }
// NORM-LABEL: func.func @main
// NORM:         decoda.layer_norm %arg0, %arg2, %arg3 {eps = 0.0010000000474974513 : f64}
// NORM:         %[[S:.+]], %[[N:.+]] = decoda.add_rms_norm %arg0, %arg1, %arg2 {eps = 9.99999974{{.*}} : f64}
// NORM:         return {{.*}}, %[[N]], %[[S]]

// Numpy broadcasting: size-1 dims read index 0, missing leading dims are not indexed.
//ONNX-bcast <ir_version: 8, opset_import: ["" : 17]>
//ONNX-bcast g (float[b, t, 8] x, float[b, t, 1] r, float[8] w) => (float[b, t, 8] y)
//ONNX-bcast {
//ONNX-bcast   p = Mul(x, r)
//ONNX-bcast   y = Sub(p, w)
//ONNX-bcast }
// BCAST-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// BCAST-DAG: #[[COL:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// BCAST-DAG: #[[VEC:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// BCAST-LABEL: func.func @main
// BCAST:         linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]]
// BCAST:           arith.mulf
// BCAST:         linalg.generic {indexing_maps = [#[[ID]], #[[VEC]], #[[ID]]]
// BCAST:           arith.subf

// RoPE frequency tables computed in the graph from constants fold to one constant.
//ONNX-fold <ir_version: 8, opset_import: ["" : 17]>
//ONNX-fold g (float[b, 4] x) => (float[b, 4] y)
//ONNX-fold {
//ONNX-fold   z = Constant<value = float {0.0}>()
//ONNX-fold   l = Constant<value = float {8.0}>()
//ONNX-fold   two = Constant<value = float {2.0}>()
//ONNX-fold   idx = Range(z, l, two)
//ONNX-fold   d = Constant<value = float {8.0}>()
//ONNX-fold   e = Div(idx, d)
//ONNX-fold   theta = Constant<value = float {10000.0}>()
//ONNX-fold   p = Pow(theta, e)
//ONNX-fold   inv = Reciprocal(p)
//ONNX-fold   y = Mul(x, inv)
//ONNX-fold }
// FOLD-LABEL: func.func @main
// FOLD:         arith.constant dense<[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]> : tensor<4xf32>
// FOLD-NOT:     math.powf
// FOLD:         arith.mulf
// FOLD-NOT:     linalg.generic

// Attention-23 over [B, H, S, D] with GQA heads: transposes into decoda's [B, S, H, D].
//ONNX-attn <ir_version: 10, opset_import: ["" : 23]>
//ONNX-attn g (float[b, 4, t, 16] q, float[b, 2, t, 16] k, float[b, 2, t, 16] v) => (float[b, 4, t, 16] y)
//ONNX-attn {
//ONNX-attn   y = Attention<is_causal = 1, scale = 0.5>(q, k, v)
//ONNX-attn }
// ATTN-LABEL: func.func @main
// ATTN:         %[[Q:.+]] = linalg.transpose ins(%arg0 {{.*}} permutation = [0, 2, 1, 3]
// ATTN:         %[[O:.+]] = decoda.attention %[[Q]], %{{.+}}, %{{.+}} {causal, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 5.000000e-01 : f64}
// ATTN:         linalg.transpose ins(%[[O]] {{.*}} permutation = [0, 2, 1, 3]

// GroupQueryAttention with a past and run-time row lengths: the rows are checked on the host
// (one pass, then an assert per condition); past_b = 0 for a prompt, else seqlens_k + 1 - S;
// present has max(P, total) entries (a past buffer longer than the tokens, or exactly them),
// each row's earlier tokens from the past, its new ones at past_b, zeros after; the keys
// attended are present's first total_sequence_length: when every row holds total tokens (the
// row pass's third result) without a mask, else masked per row.
//ONNX-gqa <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-gqa g (float[b, 1, 64] q, float[b, 1, 32] k, float[b, 1, 32] v, float[b, 2, p, 16] pk, float[b, 2, p, 16] pv, int32[b] sl, int32 tot) => (float[b, 1, 64] y, float[b, 2, n, 16] ok, float[b, 2, n, 16] ov)
//ONNX-gqa {
//ONNX-gqa   y, ok, ov = com.microsoft.GroupQueryAttention<num_heads = 4, kv_num_heads = 2>(q, k, v, pk, pv, sl, tot)
//ONNX-gqa }
// GQA-LABEL: func.func @main
// GQA:         %[[TOT:.+]] = arith.index_cast %{{.+}} : i32 to index
// GQA:         %[[PROMPT:.+]] = arith.cmpi eq, %c1{{.*}}, %[[TOT]] : index
// GQA:         cf.assert {{.*}} "ONNX node 'GroupQueryAttention_1' (GroupQueryAttention): total_sequence_length is less than the sequence length"
// GQA:         %[[ROWS:.+]]:3 = scf.for {{.*}} iter_args
// GQA:           tensor.extract %arg5[
// GQA:           arith.cmpi eq, %{{.+}}, %[[TOT]] : index
// GQA:         cf.assert %[[ROWS]]#0, {{.*}} seqlens_k[b] + 1 must be in [1, total_sequence_length]
// GQA:         cf.assert %[[ROWS]]#1, {{.*}} seqlens_k[b] + 1 - sequence length (the row's earlier tokens) must be in [0, past length]
// GQA:         %[[PASTB:.+]] = linalg.generic {{.*}} ins(%arg5 : tensor<?xi32>) outs(%{{.+}} : tensor<?xi64>)
// GQA:           arith.select %[[PROMPT]]
// GQA:         %[[LEN:.+]] = arith.maxui %{{.+}}, %[[TOT]] : index
// GQA:         %[[PK:.+]] = linalg.generic {{.*}} ins(%[[PASTB]] : tensor<?xi64>) outs(%{{.+}} : tensor<?x2x?x16xf32>)
// GQA:           scf.if
// GQA:             tensor.extract %{{.+}} : tensor<?x1x2x16xf32>
// GQA:             scf.if
// GQA:               tensor.extract %arg3
// GQA:         %[[PV:.+]] = linalg.generic {{.*}} ins(%[[PASTB]] : tensor<?xi64>)
// GQA:         %[[O:.+]] = scf.if %[[ROWS]]#2 -> (tensor<?x1x4x16xf32>) {
// GQA:           tensor.extract_slice %[[PK]][0, 0, 0, 0] [%{{.+}}, 2, %[[TOT]], 16]
// GQA-NOT:       linalg.generic
// GQA:           %[[A:.+]] = decoda.attention %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} {causal, num_heads = 4 : i64, num_kv_heads = 2 : i64}
// GQA:           scf.yield %[[A]]
// GQA:         } else {
// GQA:           tensor.extract_slice %[[PK]][0, 0, 0, 0] [%{{.+}}, 2, %[[TOT]], 16]
// GQA:           %[[M:.+]] = linalg.generic {{.*}} ins(%arg5, %[[PASTB]] : tensor<?xi32>, tensor<?xi64>) outs(%{{.+}} : tensor<?x1x1x?xf32>)
// GQA:           %[[B:.+]] = decoda.attention {{.*}} mask(%[[M]] : tensor<?x1x1x?xf32>) {causal, num_heads = 4 : i64, num_kv_heads = 2 : i64}
// GQA:           scf.yield %[[B]]
// GQA:         tensor.collapse_shape %[[O]]
// GQA:         return %{{.+}}, %[[PK]], %[[PV]]

// The same node with a shared past/present buffer (decoda-compile --shared-kv-buffers): the
// row pass also finds the least and greatest past_b; total must fit the buffer; only the
// window [lo, hi + S) of the past is rewritten (extract_slice, generic keeping the entries
// that are not new, insert_slice back into the past), and each past is donated to its present.
// GQASHARED-LABEL: func.func @main
// GQASHARED-SAME:    %arg3: tensor<?x2x?x16xf32> {decoda.dims = ["b", "", "p", ""], decoda.donate = 1 : i64
// GQASHARED-SAME:    %arg4: tensor<?x2x?x16xf32> {decoda.dims = ["b", "", "p", ""], decoda.donate = 2 : i64
// GQASHARED:         %[[ROWS:.+]]:5 = scf.for {{.*}} -> (i1, i1, i1, index, index)
// GQASHARED:           arith.minsi
// GQASHARED:           arith.maxsi
// GQASHARED:         cf.assert {{.*}} total_sequence_length exceeds the past buffer's length
// GQASHARED:         %[[WIN:.+]] = tensor.extract_slice %arg3[0, 0, %[[ROWS]]#3, 0] [%{{.+}}, 2, %[[W:.+]], 16]
// GQASHARED:         %[[UPD:.+]] = linalg.generic {{.*}} outs(%[[WIN]] : tensor<?x2x?x16xf32>)
// GQASHARED:           scf.if
// GQASHARED:           } else {
// GQASHARED-NEXT:        scf.yield %out
// GQASHARED:         %[[PK:.+]] = tensor.insert_slice %[[UPD]] into %arg3[0, 0, %[[ROWS]]#3, 0] [%{{.+}}, 2, %[[W]], 16]
// GQASHARED:         %[[PV:.+]] = tensor.insert_slice %{{.+}} into %arg4[0, 0, %[[ROWS]]#3, 0]
// GQASHARED-NOT:     arith.maxui
// GQASHARED:         decoda.attention
// GQASHARED:         return %{{.+}}, %[[PK]], %[[PV]]

// GroupQueryAttention on a prompt without past may be right-padded: each row's keys past
// seqlens_k[b] are masked by an additive [B, 1, S, S] mask (0 or -inf), built only when some
// row is padded; total_sequence_length must equal the sequence length.
//ONNX-gqapad <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-gqapad g (float[b, s, 64] q, float[b, s, 32] k, float[b, s, 32] v, int32[b] sl, int32 tot) => (float[b, s, 64] y)
//ONNX-gqapad {
//ONNX-gqapad   y, ok, ov = com.microsoft.GroupQueryAttention<num_heads = 4, kv_num_heads = 2>(q, k, v, , , sl, tot)
//ONNX-gqapad }
// GQAPAD-LABEL: func.func @main
// GQAPAD:         cf.assert {{.*}} without a past, total_sequence_length must equal the sequence length
// GQAPAD:         cf.assert {{.*}} seqlens_k[b] + 1 must be in [1, total_sequence_length]
// GQAPAD-NOT:     past length
// GQAPAD:         scf.if %{{.+}}#2 -> (tensor<?x?x4x16xf32>) {
// GQAPAD-NOT:       linalg.generic
// GQAPAD:           decoda.attention %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} {causal, num_heads = 4 : i64, num_kv_heads = 2 : i64}
// GQAPAD:         } else {
// GQAPAD:           %[[M:.+]] = linalg.generic {{.*}} ins(%arg3, %{{.+}} : tensor<?xi32>, tensor<?xi64>) outs(%{{.+}} : tensor<?x1x?x?xf32>)
// GQAPAD:           linalg.index 3
// GQAPAD:           arith.cmpi sle
// GQAPAD:           %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// GQAPAD:           arith.select %{{.+}}, %{{.+}}, %[[NEGINF]]
// GQAPAD-NOT:     tensor.extract_slice
// GQAPAD:         decoda.attention %{{.+}}, %{{.+}}, %{{.+}} mask(%[[M]] : tensor<?x1x?x?xf32>) {causal, num_heads = 4 : i64, num_kv_heads = 2 : i64}

// Large initializers share the model's bytes (dense_resource), small ones are inline.
//ONNX-res <ir_version: 8, opset_import: ["" : 17]>
//ONNX-res g (float[t, 128] x) => (float[t, 128] y)
//ONNX-res <float[128] big = {1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0,9.0,10.0,11.0,12.0,13.0,14.0,15.0,16.0,17.0,18.0,19.0,20.0,21.0,22.0,23.0,24.0,25.0,26.0,27.0,28.0,29.0,30.0,31.0,32.0,33.0,34.0,35.0,36.0,37.0,38.0,39.0,40.0,41.0,42.0,43.0,44.0,45.0,46.0,47.0,48.0,49.0,50.0,51.0,52.0,53.0,54.0,55.0,56.0,57.0,58.0,59.0,60.0,61.0,62.0,63.0,64.0,65.0,66.0,67.0,68.0,69.0,70.0,71.0,72.0,73.0,74.0,75.0,76.0,77.0,78.0,79.0,80.0,81.0,82.0,83.0,84.0,85.0,86.0,87.0,88.0,89.0,90.0,91.0,92.0,93.0,94.0,95.0,96.0,97.0,98.0,99.0,100.0,101.0,102.0,103.0,104.0,105.0,106.0,107.0,108.0,109.0,110.0,111.0,112.0,113.0,114.0,115.0,116.0,117.0,118.0,119.0,120.0,121.0,122.0,123.0,124.0,125.0,126.0,127.0,128.0}, float[2] small = {0.5, 0.25}>
//ONNX-res {
//ONNX-res   a = Add(x, big)
//ONNX-res   h = Constant<value = int64[1] {0}>()
//ONNX-res   s0 = Gather<axis = 0>(small, h)
//ONNX-res   y = Mul(a, s0)
//ONNX-res }
// RES-LABEL: func.func @main
// RES:         arith.constant dense_resource<big> : tensor<128xf32>
// RES:         dialect_resources
// RES-NEXT:      builtin
// RES-NEXT:        big: "0x04000000

// com.microsoft MatMulNBits: the packed 4-bit codes stay packed, a decoda.dequantize_blocks of
// the bytes as i8 [N, blocks * block_size / 2] (152 = 0x98 is -104), the scales [N, blocks],
// no zero points (the default 8), read by a decoda.linear in out_in layout (the default, not
// printed) with the bias. Folded (the CPU pipeline's decoda-fold-constant-dequantize), the
// weights are (code - 8) * scale: row 0's bytes 0x98 are codes 8, 9 (low nibble first) -> 0,
// 0.5 at scale 0.5; row 1's 0x10 are 0, 1 -> -2, -1.75 at 0.25.
//ONNX-nbits <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-nbits g (float[t, 16] a) => (float[t, 2] y)
//ONNX-nbits <uint8[2, 1, 8] B = {152, 152, 152, 152, 152, 152, 152, 152, 16, 16, 16, 16, 16, 16, 16, 16}, float[2] s = {0.5, 0.25}, float[2] bias = {1.0, -1.0}>
//ONNX-nbits {
//ONNX-nbits   y = com.microsoft.MatMulNBits<K = 16, N = 2, bits = 4, block_size = 16>(a, B, s, , , bias)
//ONNX-nbits }
// NBITS-LABEL: func.func @main
// NBITS-DAG:     %[[C:.+]] = arith.constant dense<{{\[}}[-104, -104, -104, -104, -104, -104, -104, -104], [16, 16, 16, 16, 16, 16, 16, 16]]> : tensor<2x8xi8>
// NBITS-DAG:     %[[S:.+]] = arith.constant dense<{{\[}}[5.000000e-01], [2.500000e-01]]> : tensor<2x1xf32>
// NBITS:         %[[W:.+]] = decoda.dequantize_blocks %[[C]], %[[S]] {bits = 4 : i64, block_size = 16 : i64} : tensor<2x8xi8>, tensor<2x1xf32> -> tensor<2x16xf32>
// NBITS:         %[[B:.+]] = arith.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// NBITS:         decoda.linear %arg0, %[[W]], %[[B]] : tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>
// NBITS-NOT:     ui8
// NBITS-NOT:     in_out
// NBITSFOLD-LABEL: func.func @main
// NBITSFOLD-NOT:     decoda.dequantize_blocks
// NBITSFOLD-NOT:     xi8>
// NBITSFOLD-DAG:     %[[W:.+]] = arith.constant dense<{{\[}}[0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01], [-2.000000e+00, -1.750000e+00, -2.000000e+00, -1.750000e+00, -2.000000e+00, -1.750000e+00, -2.000000e+00, -1.750000e+00, -2.000000e+00, -1.750000e+00, -2.000000e+00, -1.750000e+00, -2.000000e+00, -1.750000e+00, -2.000000e+00, -1.750000e+00]]> : tensor<2x16xf32>
// NBITSFOLD-DAG:     %[[B:.+]] = arith.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// NBITSFOLD:         decoda.linear %arg0, %[[W]], %[[B]] : tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>
