// Bad ONNX input: one clear error naming the model, node, op, domain and opset; never a crash.
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.unsup.onnx --case unsup
// RUN: not decoda-translate --import-onnx %t.unsup.onnx 2>&1 | FileCheck %s --check-prefix=UNSUP
// RUN: not decoda-compile %t.unsup.onnx -o %t.so 2>&1 | FileCheck %s --check-prefix=UNSUP
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.opset.onnx --case opset
// RUN: not decoda-translate --import-onnx %t.opset.onnx 2>&1 | FileCheck %s --check-prefix=OPSET
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.trunc.onnx --case size --raw --truncate 40
// RUN: not decoda-translate --import-onnx %t.trunc.onnx 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: printf 'not a protobuf at all \377\377\377' > %t.garbage.onnx
// RUN: not decoda-translate --import-onnx %t.garbage.onnx 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.size.onnx --case size --set-initializer-bytes w=10
// RUN: not decoda-translate --import-onnx %t.size.onnx 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.dtype.onnx --case size --set-dtype w=8
// RUN: not decoda-translate --import-onnx %t.dtype.onnx 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.order.onnx --case order
// RUN: not decoda-translate --import-onnx %t.order.onnx 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.bcast.onnx --case bcast
// RUN: not decoda-translate --import-onnx %t.bcast.onnx 2>&1 | FileCheck %s --check-prefix=BCAST
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.axis.onnx --case axis
// RUN: not decoda-translate --import-onnx %t.axis.onnx 2>&1 | FileCheck %s --check-prefix=AXIS
// RUN: not decoda-translate --import-onnx %t.missing.onnx 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.gqaqk.onnx --case gqaqk
// RUN: not decoda-translate --import-onnx %t.gqaqk.onnx 2>&1 | FileCheck %s --check-prefix=GQAQK
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.gqaquant.onnx --case gqaquant
// RUN: not decoda-translate --import-onnx %t.gqaquant.onnx 2>&1 | FileCheck %s --check-prefix=GQAQUANT
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.gqapos.onnx --case gqapos
// RUN: not decoda-translate --import-onnx %t.gqapos.onnx 2>&1 | FileCheck %s --check-prefix=GQAPOS
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.gqasink.onnx --case gqasink
// RUN: not decoda-translate --import-onnx %t.gqasink.onnx 2>&1 | FileCheck %s --check-prefix=GQASINK
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.gqalens.onnx --case gqalens
// RUN: not decoda-translate --import-onnx %t.gqalens.onnx 2>&1 | FileCheck %s --check-prefix=GQALENS
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.gqacos.onnx --case gqacos
// RUN: not decoda-translate --import-onnx %t.gqacos.onnx 2>&1 | FileCheck %s --check-prefix=GQACOS
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.ropecols.onnx --case ropecols
// RUN: not decoda-translate --import-onnx %t.ropecols.onnx 2>&1 | FileCheck %s --check-prefix=ROPECOLS
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.gqacostype.onnx --case gqacostype
// RUN: not decoda-translate --import-onnx %t.gqacostype.onnx 2>&1 | FileCheck %s --check-prefix=GQACOSTYPE
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.ropetype.onnx --case ropetype
// RUN: not decoda-translate --import-onnx %t.ropetype.onnx 2>&1 | FileCheck %s --check-prefix=ROPETYPE
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.gqatot.onnx --case gqatot
// RUN: not decoda-translate --import-onnx %t.gqatot.onnx 2>&1 | FileCheck %s --check-prefix=GQATOT
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.nbgidx.onnx --case nbgidx
// RUN: not decoda-translate --import-onnx %t.nbgidx.onnx 2>&1 | FileCheck %s --check-prefix=NBGIDX
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.nbbits.onnx --case nbbits
// RUN: not decoda-translate --import-onnx %t.nbbits.onnx 2>&1 | FileCheck %s --check-prefix=NBBITS
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.nbscales.onnx --case nbscales
// RUN: not decoda-translate --import-onnx %t.nbscales.onnx 2>&1 | FileCheck %s --check-prefix=NBSCALES
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.nbshape.onnx --case nbshape
// RUN: not decoda-translate --import-onnx %t.nbshape.onnx 2>&1 | FileCheck %s --check-prefix=NBSHAPE
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.nbu8.onnx --case nbu8
// RUN: not decoda-translate --import-onnx %t.nbu8.onnx 2>&1 | FileCheck %s --check-prefix=NBU8
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.nbk.onnx --case nbk
// RUN: not decoda-translate --import-onnx %t.nbk.onnx 2>&1 | FileCheck %s --check-prefix=NBK
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.nbint8.onnx --case nbint8
// RUN: not decoda-translate --import-onnx %t.nbint8.onnx 2>&1 | FileCheck %s --check-prefix=NBINT8

// Every unsupported node is listed, not just the first.
//ONNX-unsup <ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
//ONNX-unsup g (float[4] x) => (float[4] y)
//ONNX-unsup {
//ONNX-unsup   a = Hardmax(x)
//ONNX-unsup   b = com.example.Frobnicate(a)
//ONNX-unsup   y = Relu(b)
//ONNX-unsup }
// UNSUP: error: 2 unsupported ONNX nodes: '#1' Hardmax (domain ai.onnx, opset 17), '#2' Frobnicate (domain com.example, opset 1)

//ONNX-opset <ir_version: 7, opset_import: ["" : 11]>
//ONNX-opset g (float[4] x) => (float[4] y)
//ONNX-opset {
//ONNX-opset   y = Relu(x)
//ONNX-opset }
// OPSET: error: default-domain opset 11 is not supported (supported: 13 to 23)

//ONNX-size <ir_version: 8, opset_import: ["" : 17]>
//ONNX-size g (float[4] x) => (float[4] y)
//ONNX-size <float[4] w = {1.0, 2.0, 3.0, 4.0}>
//ONNX-size {
//ONNX-size   y = Add(x, w)
//ONNX-size }
// TRUNC: error: not a valid ONNX model: the protobuf cannot be parsed (truncated or corrupted file?)
// SIZE: error: initializer 'w': raw_data has 10 bytes, expected 16 for 'tensor<4xf32>'
// DTYPE: error: unsupported ONNX data type 8 (supported: float, float16, bfloat16, double, int8, int16, int32, int64, bool)

//ONNX-order <ir_version: 8, opset_import: ["" : 17]>
//ONNX-order g (float[4] x) => (float[4] y)
//ONNX-order {
//ONNX-order   y = Relu(t)
//ONNX-order   t = Neg(x)
//ONNX-order }
// ORDER: error: ONNX node 'Relu_1' (Relu): input 't' is not produced by any earlier node, input or initializer (the graph must be topologically sorted)

//ONNX-bcast <ir_version: 8, opset_import: ["" : 17]>
//ONNX-bcast g (float[4, 3] x, float[5] z) => (float[4, 5] y)
//ONNX-bcast {
//ONNX-bcast   y = Add(x, z)
//ONNX-bcast }
// BCAST: error: ONNX node 'Add_1' (Add, domain ai.onnx, opset 17): cannot broadcast dimension sizes 3 and 5

//ONNX-axis <ir_version: 8, opset_import: ["" : 17]>
//ONNX-axis g (float[4, 3] x) => (float[4, 3] y)
//ONNX-axis {
//ONNX-axis   y = Softmax<axis = 2>(x)
//ONNX-axis }
// AXIS: error: ONNX node 'Softmax_1' (Softmax, domain ai.onnx, opset 17): axis 2 is out of range for rank 2

// MISSING: cannot open input file '{{.*}}missing.onnx'

// GroupQueryAttention: what the importer does not implement is refused by name, and constant
// row lengths that do not fit are refused at import (run-time ones: e2e/gqa_runtime_checks.py).
//ONNX-gqaqk <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-gqaqk g (float[1, 1, 64] q, float[1, 1, 32] k, float[1, 1, 32] v, int32[1] sl, int32 tot) => (float[1, 1, 64] y, float[1, 4, 1, 1] qk)
//ONNX-gqaqk {
//ONNX-gqaqk   y, ok, ov, qk = com.microsoft.GroupQueryAttention<num_heads = 4, kv_num_heads = 2, qk_output = 1>(q, k, v, , , sl, tot)
//ONNX-gqaqk }
// GQAQK: error: ONNX node 'GroupQueryAttention_1' (GroupQueryAttention, domain com.microsoft, opset 1): output 3 (output_qk, qk_output) is not supported

//ONNX-gqaquant <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-gqaquant g (float[1, 1, 64] q, float[1, 1, 32] k, float[1, 1, 32] v, int32[1] sl, int32 tot) => (float[1, 1, 64] y)
//ONNX-gqaquant {
//ONNX-gqaquant   y, ok, ov = com.microsoft.GroupQueryAttention<num_heads = 4, kv_num_heads = 2, k_quant_type = "PER_TENSOR">(q, k, v, , , sl, tot)
//ONNX-gqaquant }
// GQAQUANT: error: ONNX node 'GroupQueryAttention_1' (GroupQueryAttention, domain com.microsoft, opset 1): k_quant_type = "PER_TENSOR" (a quantised KV cache) is not supported

//ONNX-gqapos <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-gqapos g (float[1, 1, 64] q, float[1, 1, 32] k, float[1, 1, 32] v, int32[1] sl, int32 tot, int64[1, 1] pos) => (float[1, 1, 64] y)
//ONNX-gqapos {
//ONNX-gqapos   y, ok, ov = com.microsoft.GroupQueryAttention<num_heads = 4, kv_num_heads = 2>(q, k, v, , , sl, tot, , , pos)
//ONNX-gqapos }
// GQAPOS: error: ONNX node 'GroupQueryAttention_1' (GroupQueryAttention, domain com.microsoft, opset 1): input 9 (position_ids) is not supported

//ONNX-gqasink <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-gqasink g (float[1, 1, 64] q, float[1, 1, 32] k, float[1, 1, 32] v, int32[1] sl, int32 tot, float[2] hs) => (float[1, 1, 64] y)
//ONNX-gqasink {
//ONNX-gqasink   y, ok, ov = com.microsoft.GroupQueryAttention<num_heads = 4, kv_num_heads = 2>(q, k, v, , , sl, tot, , , , , hs)
//ONNX-gqasink }
// GQASINK: error: ONNX node 'GroupQueryAttention_1' (GroupQueryAttention, domain com.microsoft, opset 1): head_sink must be [num_heads] = [4] of 'f32', got 'tensor<2xf32>'

//ONNX-gqalens <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-gqalens g (float[2, 1, 64] q, float[2, 1, 32] k, float[2, 1, 32] v, float[2, 2, 4, 16] pk, float[2, 2, 4, 16] pv) => (float[2, 1, 64] y)
//ONNX-gqalens <int32[2] sl = {4, 5}, int32 tot = {5}>
//ONNX-gqalens {
//ONNX-gqalens   y, ok, ov = com.microsoft.GroupQueryAttention<num_heads = 4, kv_num_heads = 2>(q, k, v, pk, pv, sl, tot)
//ONNX-gqalens }
// GQALENS: error: ONNX node 'GroupQueryAttention_1' (GroupQueryAttention, domain com.microsoft, opset 1): seqlens_k 5 does not fit total sequence length 5, sequence length 1, past length 4

// cos/sin tables of different shapes, or narrower than the rotary dim, would be read out of
// bounds: refused.
//ONNX-gqacos <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-gqacos g (float[1, 1, 64] q, float[1, 1, 32] k, float[1, 1, 32] v, int32[1] sl, int32 tot, float[64, 8] cs, float[32, 8] sn) => (float[1, 1, 64] y)
//ONNX-gqacos {
//ONNX-gqacos   y, ok, ov = com.microsoft.GroupQueryAttention<num_heads = 4, kv_num_heads = 2, do_rotary = 1>(q, k, v, , , sl, tot, cs, sn)
//ONNX-gqacos }
// GQACOS: error: ONNX node 'GroupQueryAttention_1' (GroupQueryAttention, domain com.microsoft, opset 1): cos_cache 'tensor<64x8xf32>' and sin_cache 'tensor<32x8xf32>' differ in shape

//ONNX-ropecols <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-ropecols g (float[1, 3, 64] x, int64[1, 3] pos, float[16, 8] cs, float[16, 8] sn) => (float[1, 3, 64] y)
//ONNX-ropecols {
//ONNX-ropecols   y = com.microsoft.RotaryEmbedding<num_heads = 2, rotary_embedding_dim = 32>(x, pos, cs, sn)
//ONNX-ropecols }
// ROPECOLS: error: ONNX node 'RotaryEmbedding_1' (RotaryEmbedding, domain com.microsoft, opset 1): the cos/sin caches' 8 columns do not cover rotary dim 32

// Tables of another element type than the input (T is one type for both): refused by name
// (they reached the rotation's arithmetic, which did not verify).
//ONNX-gqacostype <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-gqacostype g (float16[1, 1, 64] q, float16[1, 1, 32] k, float16[1, 1, 32] v, int32[1] sl, int32 tot, float[64, 8] cs, float[64, 8] sn) => (float16[1, 1, 64] y)
//ONNX-gqacostype {
//ONNX-gqacostype   y, ok, ov = com.microsoft.GroupQueryAttention<num_heads = 4, kv_num_heads = 2, do_rotary = 1>(q, k, v, , , sl, tot, cs, sn)
//ONNX-gqacostype }
// GQACOSTYPE: error: ONNX node 'GroupQueryAttention_1' (GroupQueryAttention, domain com.microsoft, opset 1): cos_cache and sin_cache must be of the input's element type 'f16', got 'tensor<64x8xf32>' and 'tensor<64x8xf32>'
// GQACOSTYPE-NOT: internal error

//ONNX-ropetype <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-ropetype g (float16[1, 3, 64] x, int64[1, 3] pos, float[16, 16] cs, float16[16, 16] sn) => (float16[1, 3, 64] y)
//ONNX-ropetype {
//ONNX-ropetype   y = com.microsoft.RotaryEmbedding<num_heads = 2>(x, pos, cs, sn)
//ONNX-ropetype }
// ROPETYPE: error: ONNX node 'RotaryEmbedding_1' (RotaryEmbedding, domain com.microsoft, opset 1): cos_cache and sin_cache must be of the input's element type 'f16', got 'tensor<16x16xf32>' and 'tensor<16x16xf16>'

//ONNX-gqatot <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-gqatot g (float[1, 3, 64] q, float[1, 3, 32] k, float[1, 3, 32] v) => (float[1, 3, 64] y)
//ONNX-gqatot <int32[1] sl = {3}, int32 tot = {4}>
//ONNX-gqatot {
//ONNX-gqatot   y, ok, ov = com.microsoft.GroupQueryAttention<num_heads = 4, kv_num_heads = 2>(q, k, v, , , sl, tot)
//ONNX-gqatot }
// GQATOT: error: ONNX node 'GroupQueryAttention_1' (GroupQueryAttention, domain com.microsoft, opset 1): without a past, total_sequence_length (4) must equal the sequence length (3)

// com.microsoft MatMulNBits: g_idx (act-order), other bit widths, run-time scales or codes,
// sizes that disagree with K and N, and uint8 constants read by any other op are refused by name.
//ONNX-nbgidx <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-nbgidx g (float[3, 16] a) => (float[3, 2] y)
//ONNX-nbgidx <uint8[2, 1, 8] B = {152, 152, 152, 152, 152, 152, 152, 152, 16, 16, 16, 16, 16, 16, 16, 16}, float[2] s = {0.5, 0.25}, int32[16] gi = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}>
//ONNX-nbgidx {
//ONNX-nbgidx   y = com.microsoft.MatMulNBits<K = 16, N = 2, bits = 4, block_size = 16>(a, B, s, , gi)
//ONNX-nbgidx }
// NBGIDX: error: ONNX node 'MatMulNBits_1' (MatMulNBits, domain com.microsoft, opset 1): input 4 (g_idx) is not supported

//ONNX-nbbits <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-nbbits g (float[3, 16] a) => (float[3, 2] y)
//ONNX-nbbits <uint8[2, 1, 8] B = {152, 152, 152, 152, 152, 152, 152, 152, 16, 16, 16, 16, 16, 16, 16, 16}, float[2] s = {0.5, 0.25}>
//ONNX-nbbits {
//ONNX-nbbits   y = com.microsoft.MatMulNBits<K = 16, N = 2, bits = 3, block_size = 16>(a, B, s)
//ONNX-nbbits }
// NBBITS: error: ONNX node 'MatMulNBits_1' (MatMulNBits, domain com.microsoft, opset 1): bits = 3 is not supported (2, 4 or 8)

//ONNX-nbscales <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-nbscales g (float[3, 16] a, float[2] s) => (float[3, 2] y)
//ONNX-nbscales <uint8[2, 1, 8] B = {152, 152, 152, 152, 152, 152, 152, 152, 16, 16, 16, 16, 16, 16, 16, 16}>
//ONNX-nbscales {
//ONNX-nbscales   y = com.microsoft.MatMulNBits<K = 16, N = 2, bits = 4, block_size = 16>(a, B, s)
//ONNX-nbscales }
// NBSCALES: error: ONNX node 'MatMulNBits_1' (MatMulNBits, domain com.microsoft, opset 1): scales must be a constant (an initializer): quantized weights computed at run time are not supported

//ONNX-nbshape <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-nbshape g (float[3, 16] a) => (float[3, 3] y)
//ONNX-nbshape <uint8[2, 1, 8] B = {152, 152, 152, 152, 152, 152, 152, 152, 16, 16, 16, 16, 16, 16, 16, 16}, float[3] s = {0.5, 0.25, 1.0}>
//ONNX-nbshape {
//ONNX-nbshape   y = com.microsoft.MatMulNBits<K = 16, N = 3, bits = 4, block_size = 16>(a, B, s)
//ONNX-nbshape }
// NBSHAPE: error: ONNX node 'MatMulNBits_1' (MatMulNBits, domain com.microsoft, opset 1): B must have 24 elements, got 'tensor<2x1x8xui8>'

//ONNX-nbu8 <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-nbu8 g (float[2, 1, 8] x) => (float[2, 1, 8] y)
//ONNX-nbu8 <uint8[2, 1, 8] B = {152, 152, 152, 152, 152, 152, 152, 152, 16, 16, 16, 16, 16, 16, 16, 16}>
//ONNX-nbu8 {
//ONNX-nbu8   c = Cast<to = 1>(B)
//ONNX-nbu8   y = Add(x, c)
//ONNX-nbu8 }
// NBU8: error: ONNX node 'Cast_1' (Cast): input 0 ('B') is uint8, supported only as MatMulNBits's packed weights and zero points

//ONNX-nbk <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-nbk g (float[3, 32] a) => (float[3, 2] y)
//ONNX-nbk <uint8[2, 1, 8] B = {152, 152, 152, 152, 152, 152, 152, 152, 16, 16, 16, 16, 16, 16, 16, 16}, float[2] s = {0.5, 0.25}>
//ONNX-nbk {
//ONNX-nbk   y = com.microsoft.MatMulNBits<K = 16, N = 2, bits = 4, block_size = 16>(a, B, s)
//ONNX-nbk }
// NBK: error: ONNX node 'MatMulNBits_1' (MatMulNBits, domain com.microsoft, opset 1): A's last dim must be K = 16, got 'tensor<3x32xf32>'

//ONNX-nbint8 <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
//ONNX-nbint8 g (float[3, 16] a) => (float[3, 2] y)
//ONNX-nbint8 <int8[2, 1, 8] B = {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}, float[2] s = {0.5, 0.25}>
//ONNX-nbint8 {
//ONNX-nbint8   y = com.microsoft.MatMulNBits<K = 16, N = 2, bits = 4, block_size = 16>(a, B, s)
//ONNX-nbint8 }
// NBINT8: error: ONNX node 'MatMulNBits_1' (MatMulNBits, domain com.microsoft, opset 1): B must be uint8, got 'tensor<2x1x8xi8>'
