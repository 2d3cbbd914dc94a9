// TopK, ScatterND and ScatterElements import as scf.for loops carrying their output (K rounds of
// a masked arg-max; one slice or element written per index, each index range-checked at run
// time), and the sequence ops resolve at import into the Split/Concat/Squeeze/Unsqueeze they
// amount to. What cannot be resolved at import is refused naming the node. Numerics:
// e2e/ops_indexing.py and e2e/ops_sequence.py.
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.topk.onnx --case topk
// RUN: decoda-translate --import-onnx %t.topk.onnx | FileCheck %s --check-prefix=TOPK
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.snd.onnx --case snd
// RUN: decoda-translate --import-onnx %t.snd.onnx | FileCheck %s --check-prefix=SND
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.sel.onnx --case sel
// RUN: decoda-translate --import-onnx %t.sel.onnx | FileCheck %s --check-prefix=SEL
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.seq.onnx --case seq
// RUN: decoda-translate --import-onnx %t.seq.onnx | FileCheck %s --check-prefix=SEQ
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.rtk.onnx --case rtk
// RUN: not decoda-translate --import-onnx %t.rtk.onnx 2>&1 | FileCheck %s --check-prefix=RTK
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.bigk.onnx --case bigk
// RUN: not decoda-translate --import-onnx %t.bigk.onnx 2>&1 | FileCheck %s --check-prefix=BIGK
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.sndrank.onnx --case sndrank
// RUN: not decoda-translate --import-onnx %t.sndrank.onnx 2>&1 | FileCheck %s --check-prefix=SNDRANK
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.seqdyn.onnx --case seqdyn
// RUN: not decoda-translate --import-onnx %t.seqdyn.onnx 2>&1 | FileCheck %s --check-prefix=SEQDYN
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.seqpos.onnx --case seqpos
// RUN: not decoda-translate --import-onnx %t.seqpos.onnx 2>&1 | FileCheck %s --check-prefix=SEQPOS
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.seqout.onnx --case seqout
// RUN: not decoda-translate --import-onnx %t.seqout.onnx 2>&1 | FileCheck %s --check-prefix=SEQOUT
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.sequse.onnx --case sequse
// RUN: not decoda-translate --import-onnx %t.sequse.onnx 2>&1 | FileCheck %s --check-prefix=SEQUSE

//ONNX-topk <ir_version: 8, opset_import: ["" : 17]>
//ONNX-topk g (float[b, 8] x) => (float[b, 3] v, int64[b, 3] i)
//ONNX-topk {
//ONNX-topk   k = Constant<value = int64[1] {3}>()
// K rounds over the last axis; each an arg-max reduction that skips taken elements.
// TOPK-LABEL: func.func @main(%arg0: tensor<?x8xf32> {decoda.dims = ["b", ""], decoda.name = "x"}) -> (tensor<?x3xf32> {decoda.name = "v"}, tensor<?x3xi64> {decoda.name = "i"})
// TOPK:         %[[L:.+]]:3 = scf.for %{{.+}} = %{{.+}} to %c3 step %c1 iter_args(
// TOPK:           linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0,
// TOPK:             arith.cmpf ogt
// TOPK:           scf.yield
// TOPK:         return %[[L]]#1, %[[L]]#2
//ONNX-topk   v, i = TopK<axis = -1>(x, k)
//ONNX-topk }

//ONNX-snd <ir_version: 8, opset_import: ["" : 17]>
//ONNX-snd g (float[2, 10, 8] cache, int64[2, t, 2] idx, float[2, t, 8] upd) => (float[2, 10, 8] y)
//ONNX-snd {
//ONNX-snd   y = ScatterND(cache, idx, upd)
//ONNX-snd }
// One slice per (batch, position) tuple, each index checked against its data dim.
// SND-LABEL: func.func @main
// SND:         scf.for {{.*}} iter_args(%[[A:.+]] = %arg0) -> (tensor<2x10x8xf32>)
// SND:           cf.assert {{.*}} "ONNX node 'ScatterND_1' (ScatterND): an index is out of range for data dim 0"
// SND:           cf.assert {{.*}} "ONNX node 'ScatterND_1' (ScatterND): an index is out of range for data dim 1"
// SND:           tensor.insert_slice %{{.+}} into %[[A]][%{{.+}}, %{{.+}}, 0] [1, 1, 8] [1, 1, 1] : tensor<8xf32> into tensor<2x10x8xf32>

//ONNX-sel <ir_version: 8, opset_import: ["" : 17]>
//ONNX-sel g (float[t, 8] z, int64[t, 2] idx, float[t, 2] upd) => (float[t, 8] y)
//ONNX-sel {
//ONNX-sel   y = ScatterElements<axis = 1, reduction = "add">(z, idx, upd)
//ONNX-sel }
// One element per index; reduction = add reads the element it writes.
// SEL-LABEL: func.func @main
// SEL:         scf.for {{.*}} iter_args(%[[A:.+]] = %arg0) -> (tensor<?x8xf32>)
// SEL:           cf.assert {{.*}} "ONNX node 'ScatterElements_1' (ScatterElements): an index is out of range"
// SEL:           %[[OLD:.+]] = tensor.extract %[[A]]
// SEL:           %[[SUM:.+]] = arith.addf %[[OLD]]
// SEL:           tensor.insert %[[SUM]] into %[[A]]

//ONNX-seq <ir_version: 8, opset_import: ["" : 17]>
//ONNX-seq g (float[b, 6, 4] x) => (float[b, 3, 4] last, int64 n, float[b, 6, 4] y, float[2, b, 4] st)
//ONNX-seq {
//ONNX-seq   sp = Constant<value = int64[3] {1, 2, 3}>()
// Split into slices, SequenceAt(-1) is the last slice, the concat puts them back, the length is
// a constant; unit pieces squeezed, four erased from the back, two stacked on a new axis.
// SEQ-LABEL: func.func @main
// SEQ-NOT:     scf.for
// SEQ:         %[[P2:.+]] = tensor.extract_slice %arg0[0, 3, 0] [%{{.+}}, 3, 4] [1, 1, 1]
// SEQ:         %[[Y:.+]] = tensor.concat dim(1) %{{.+}}, %{{.+}}, %[[P2]] : {{.*}} -> tensor<?x6x4xf32>
// SEQ:         %[[ST:.+]] = tensor.concat dim(0) %{{.+}}, %{{.+}} : {{.*}} -> tensor<2x?x4xf32>
// SEQ:         %[[N:.+]] = arith.constant dense<3> : tensor<i64>
// SEQ:         return %[[P2]], %[[N]], %[[Y]], %[[ST]]
//ONNX-seq   s = SplitToSequence<axis = 1>(x, sp)
//ONNX-seq   m1 = Constant<value = int64 {-1}>()
//ONNX-seq   last = SequenceAt(s, m1)
//ONNX-seq   n = SequenceLength(s)
//ONNX-seq   y = ConcatFromSequence<axis = 1>(s)
//ONNX-seq   u = SplitToSequence<axis = 1, keepdims = 0>(x)
//ONNX-seq   e = SequenceErase(u)
//ONNX-seq   e2 = SequenceErase(e)
//ONNX-seq   e3 = SequenceErase(e2)
//ONNX-seq   e4 = SequenceErase(e3)
//ONNX-seq   st = ConcatFromSequence<axis = 0, new_axis = 1>(e4)
//ONNX-seq }

//ONNX-rtk <ir_version: 8, opset_import: ["" : 17]>
//ONNX-rtk g (float[2, 8] x, int64[1] k) => (float[2, 3] v)
//ONNX-rtk {
//ONNX-rtk   v, i = TopK(x, k)
//ONNX-rtk }
// RTK: error: ONNX node 'TopK_1' (TopK, domain ai.onnx, opset 17): K must be a one-element constant known at compile time

//ONNX-bigk <ir_version: 8, opset_import: ["" : 17]>
//ONNX-bigk g (float[2, 8] x) => (float[2, 9] v)
//ONNX-bigk {
//ONNX-bigk   k = Constant<value = int64[1] {9}>()
//ONNX-bigk   v, i = TopK(x, k)
//ONNX-bigk }
// BIGK: error: ONNX node 'TopK_2' (TopK, domain ai.onnx, opset 17): K = 9 is larger than the axis (8)

//ONNX-sndrank <ir_version: 8, opset_import: ["" : 17]>
//ONNX-sndrank g (float[4, 8] data, int64[3, 1] idx, float[3] upd) => (float[4, 8] y)
//ONNX-sndrank {
//ONNX-sndrank   y = ScatterND(data, idx, upd)
//ONNX-sndrank }
// SNDRANK: error: ONNX node 'ScatterND_1' (ScatterND, domain ai.onnx, opset 17): updates have rank 1, expected 2 (indices rank - 1 + data rank - index depth)

//ONNX-seqdyn <ir_version: 8, opset_import: ["" : 17]>
//ONNX-seqdyn g (float[t, 4] x) => (float[4] y)
//ONNX-seqdyn {
//ONNX-seqdyn   s = SplitToSequence<axis = 0, keepdims = 0>(x)
//ONNX-seqdyn   z = Constant<value = int64 {0}>()
//ONNX-seqdyn   y = SequenceAt(s, z)
//ONNX-seqdyn }
// SEQDYN: error: ONNX node 'SplitToSequence_1' (SplitToSequence, domain ai.onnx, opset 17): splits a dynamic axis: the sequence length would be known only at run time, which is not supported

//ONNX-seqpos <ir_version: 8, opset_import: ["" : 17]>
//ONNX-seqpos g (float[3, 4] x, int64 p) => (float[4] y)
//ONNX-seqpos {
//ONNX-seqpos   s = SplitToSequence<axis = 0, keepdims = 0>(x)
//ONNX-seqpos   y = SequenceAt(s, p)
//ONNX-seqpos }
// SEQPOS: error: ONNX node 'SequenceAt_2' (SequenceAt, domain ai.onnx, opset 17): the position must be known at compile time (sequences are resolved at import)

//ONNX-seqout <ir_version: 8, opset_import: ["" : 17]>
//ONNX-seqout g (float[3, 4] x) => (float[4] s)
//ONNX-seqout {
//ONNX-seqout   s = SplitToSequence<axis = 0, keepdims = 0>(x)
//ONNX-seqout }
// SEQOUT: error: graph output 's' is a sequence; sequence-typed graph outputs are not supported

//ONNX-sequse <ir_version: 8, opset_import: ["" : 17]>
//ONNX-sequse g (float[3, 4] x) => (float[4] y)
//ONNX-sequse {
//ONNX-sequse   s = SplitToSequence<axis = 0, keepdims = 0>(x)
//ONNX-sequse   y = Neg(s)
//ONNX-sequse }
// SEQUSE: error: ONNX node 'Neg_2' (Neg): input 's' is a sequence; only the sequence ops take sequences
