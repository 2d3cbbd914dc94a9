// decoda-raise-onnx on imported exporter graphs (ONNX text -> decoda-translate -> the pass):
// positive cases raise to decoda ops, negative ones (near misses) stay as they are. The numeric
// before/after check of every pattern against ONNX Runtime is test/Frontend/ONNX/e2e/raise_numerics.py.
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.rms.onnx --case rms
// RUN: decoda-translate --import-onnx %t.rms.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=RMS
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.rmsx.onnx --case rmsx
// RUN: decoda-translate --import-onnx %t.rmsx.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=RMSX
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.rmsxneg.onnx --case rmsxneg
// RUN: decoda-translate --import-onnx %t.rmsxneg.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=RMSXNEG
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.ln.onnx --case ln
// RUN: decoda-translate --import-onnx %t.ln.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=LN
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.mlp.onnx --case mlp
// RUN: decoda-translate --import-onnx %t.mlp.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=MLP
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.gateup.onnx --case gateup
// RUN: decoda-translate --import-onnx %t.gateup.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=GATEUP
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.gateupneg.onnx --case gateupneg
// RUN: decoda-translate --import-onnx %t.gateupneg.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=GATEUPNEG
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.attn.onnx --case attn
// RUN: decoda-translate --import-onnx %t.attn.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=ATTN
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.rope.onnx --case rope
// RUN: decoda-translate --import-onnx %t.rope.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=ROPE
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.ropei.onnx --case ropei
// RUN: decoda-translate --import-onnx %t.ropei.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=ROPEI
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.ropep.onnx --case ropep
// RUN: decoda-translate --import-onnx %t.ropep.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=ROPEP
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.ropeneg.onnx --case ropeneg
// RUN: decoda-translate --import-onnx %t.ropeneg.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=ROPENEG
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.gpt2mlp.onnx --case gpt2mlp
// RUN: decoda-translate --import-onnx %t.gpt2mlp.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=GPT2MLP
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.gpt2neg.onnx --case gpt2neg
// RUN: decoda-translate --import-onnx %t.gpt2neg.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=GPT2NEG
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.cap.onnx --case cap
// RUN: decoda-translate --import-onnx %t.cap.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=CAP
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.half.onnx --case half
// RUN: decoda-translate --import-onnx %t.half.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=HALF
// The same graph in bfloat16 (the types and the casts' targets replaced).
// RUN: sed -e 's/float16\[/bfloat16[/g' -e 's/to = 10>/to = 16>/g' %s > %t.bhalf.mlir
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %t.bhalf.mlir %t.bhalf.onnx --case half
// RUN: decoda-translate --import-onnx %t.bhalf.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=BHALF
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.halfneg.onnx --case halfneg
// RUN: decoda-translate --import-onnx %t.halfneg.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=HALFNEG
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.halfgelu.onnx --case halfgelu
// RUN: decoda-translate --import-onnx %t.halfgelu.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=HALFGELU
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.halfnorm.onnx --case halfnorm
// RUN: decoda-translate --import-onnx %t.halfnorm.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=HALFNORM
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.par.onnx --case par
// RUN: decoda-translate --import-onnx %t.par.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=PAR
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.parneg.onnx --case parneg
// RUN: decoda-translate --import-onnx %t.parneg.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=PARNEG
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.qkvt.onnx --case qkvt
// RUN: decoda-translate --import-onnx %t.qkvt.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=QKVT
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.qkvtneg.onnx --case qkvtneg
// RUN: decoda-translate --import-onnx %t.qkvtneg.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=QKVTNEG
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.neg.onnx --case neg
// RUN: decoda-translate --import-onnx %t.neg.onnx | decoda-opt --decoda-raise-onnx="report=true" 2>&1 | FileCheck %s --check-prefix=NEG

// RMSNorm in the Reciprocal-of-Sqrt form with the weight first, and in the Pow/Div form; the
// residual add of a projection becomes residual_add.
//ONNX-rms <ir_version: 8, opset_import: ["" : 17]>
//ONNX-rms g (float[b, t, 8] x, float[8] w, float[8, 8] p) => (float[b, t, 8] y, float[b, t, 8] z)
//ONNX-rms {
//ONNX-rms   sq = Mul(x, x)
//ONNX-rms   m = ReduceMean<axes = [-1], keepdims = 1>(sq)
//ONNX-rms   e = Constant<value = float {0.00001}>()
//ONNX-rms   a = Add(m, e)
//ONNX-rms   s = Sqrt(a)
//ONNX-rms   r = Reciprocal(s)
//ONNX-rms   n = Mul(x, r)
//ONNX-rms   y = Mul(w, n)
//ONNX-rms   two = Constant<value = float {2.0}>()
//ONNX-rms   h = MatMul(y, p)
//ONNX-rms   res = Add(x, h)
//ONNX-rms   sq2 = Pow(res, two)
//ONNX-rms   m2 = ReduceMean<axes = [-1], keepdims = 1>(sq2)
//ONNX-rms   a2 = Add(m2, e)
//ONNX-rms   s2 = Sqrt(a2)
//ONNX-rms   n2 = Div(res, s2)
//ONNX-rms   z = Mul(n2, w)
//ONNX-rms }
// RMS-LABEL: func.func @main
// RMS:         %[[N:.+]] = decoda.rms_norm %arg0, %arg1 {eps = 9.99999974{{.*}} : f64}
// RMS:         %[[H:.+]] = decoda.linear %[[N]], %arg2
// RMS:         %[[R:.+]] = decoda.residual_add %arg0, %[[H]]
// RMS:         %[[N2:.+]] = decoda.rms_norm %[[R]], %arg1
// RMS-NOT:     linalg.generic
// RMS:         return %[[N]], %[[N2]]

// The normalised input computed by elementwise ops the expression reader looks through:
// Gemma's embeddings times sqrt(hidden) into an RMSNorm (the product's factors spread among the
// norm's numerator; its (1 + w) weight is w with weight_offset 1), and GPT-2's token plus position
// embeddings into a decomposed LayerNorm. The scaled and summed tensors are the norms' inputs,
// kept for their other readers (the residual stream).
//ONNX-rmsx <ir_version: 8, opset_import: ["" : 17]>
//ONNX-rmsx g (float[b, t, 8] e, float[b, t, 8] p, float[8] w, float[8] lw, float[8] lb) => (float[b, t, 8] y, float[b, t, 8] xs, float[b, t, 8] z, float[b, t, 8] xa)
//ONNX-rmsx {
//ONNX-rmsx   c = Constant<value = float {2.828427}>()
//ONNX-rmsx   xs = Mul(e, c)
//ONNX-rmsx   sq = Mul(xs, xs)
//ONNX-rmsx   m = ReduceMean<axes = [-1], keepdims = 1>(sq)
//ONNX-rmsx   eps = Constant<value = float {0.000001}>()
//ONNX-rmsx   a = Add(m, eps)
//ONNX-rmsx   s = Sqrt(a)
//ONNX-rmsx   r = Reciprocal(s)
//ONNX-rmsx   n = Mul(xs, r)
//ONNX-rmsx   one = Constant<value = float {1.0}>()
//ONNX-rmsx   w1 = Add(one, w)
//ONNX-rmsx   y = Mul(n, w1)
//ONNX-rmsx   xa = Add(e, p)
//ONNX-rmsx   mu = ReduceMean<axes = [-1], keepdims = 1>(xa)
//ONNX-rmsx   d = Sub(xa, mu)
//ONNX-rmsx   d2 = Mul(d, d)
//ONNX-rmsx   v = ReduceMean<axes = [-1], keepdims = 1>(d2)
//ONNX-rmsx   ve = Add(v, eps)
//ONNX-rmsx   sd = Sqrt(ve)
//ONNX-rmsx   nd = Div(d, sd)
//ONNX-rmsx   nw = Mul(nd, lw)
//ONNX-rmsx   z = Add(nw, lb)
//ONNX-rmsx }
// RMSX: remark: decoda-raise-onnx: rms_norm 1, layer_norm 1,
// RMSX-LABEL: func.func @main
// RMSX:         %[[XS:.+]] = linalg.generic
// RMSX:           arith.mulf
// RMSX:         %[[Y:.+]] = decoda.rms_norm %[[XS]], %arg2 {eps = 9.99999997{{.*}} : f64, weight_offset = 1.000000e+00 : f64}
// RMSX:         %[[XA:.+]] = linalg.generic
// RMSX:           arith.addf
// RMSX:         %[[Z:.+]] = decoda.layer_norm %[[XA]], %arg3, %arg4
// RMSX:         return %[[Y]], %[[XS]], %[[Z]], %[[XA]]

// Near misses: the square is of e·c, the numerator's x is e·k (another tensor); the variance
// is of (e + p) - mean(e + p), the numerator (e + p2) - mean(e + p). Neither is a norm.
//ONNX-rmsxneg <ir_version: 8, opset_import: ["" : 17]>
//ONNX-rmsxneg g (float[b, t, 8] e, float[b, t, 8] p, float[b, t, 8] p2, float[8] w) => (float[b, t, 8] y, float[b, t, 8] z)
//ONNX-rmsxneg {
//ONNX-rmsxneg   c = Constant<value = float {2.0}>()
//ONNX-rmsxneg   k = Constant<value = float {3.0}>()
//ONNX-rmsxneg   xs = Mul(e, c)
//ONNX-rmsxneg   xk = Mul(e, k)
//ONNX-rmsxneg   sq = Mul(xs, xs)
//ONNX-rmsxneg   m = ReduceMean<axes = [-1], keepdims = 1>(sq)
//ONNX-rmsxneg   eps = Constant<value = float {0.000001}>()
//ONNX-rmsxneg   a = Add(m, eps)
//ONNX-rmsxneg   s = Sqrt(a)
//ONNX-rmsxneg   n = Div(xk, s)
//ONNX-rmsxneg   y = Mul(n, w)
//ONNX-rmsxneg   xa = Add(e, p)
//ONNX-rmsxneg   xb = Add(e, p2)
//ONNX-rmsxneg   mu = ReduceMean<axes = [-1], keepdims = 1>(xa)
//ONNX-rmsxneg   da = Sub(xa, mu)
//ONNX-rmsxneg   db = Sub(xb, mu)
//ONNX-rmsxneg   d2 = Mul(da, da)
//ONNX-rmsxneg   v = ReduceMean<axes = [-1], keepdims = 1>(d2)
//ONNX-rmsxneg   ve = Add(v, eps)
//ONNX-rmsxneg   sd = Sqrt(ve)
//ONNX-rmsxneg   z = Div(db, sd)
//ONNX-rmsxneg }
// RMSXNEG: remark: decoda-raise-onnx: rms_norm 0, layer_norm 0,
// RMSXNEG-LABEL: func.func @main
// RMSXNEG-NOT:   decoda.rms_norm
// RMSXNEG-NOT:   decoda.layer_norm
// RMSXNEG:       math.sqrt

// LayerNorm decomposed: (x - mean) / sqrt(var + eps) * w + b.
//ONNX-ln <ir_version: 8, opset_import: ["" : 17]>
//ONNX-ln g (float[t, 8] x, float[8] w, float[8] bias) => (float[t, 8] y)
//ONNX-ln {
//ONNX-ln   mu = ReduceMean<axes = [-1], keepdims = 1>(x)
//ONNX-ln   d = Sub(x, mu)
//ONNX-ln   d2 = Mul(d, d)
//ONNX-ln   v = ReduceMean<axes = [-1], keepdims = 1>(d2)
//ONNX-ln   e = Constant<value = float {0.001}>()
//ONNX-ln   ve = Add(v, e)
//ONNX-ln   s = Sqrt(ve)
//ONNX-ln   n = Div(d, s)
//ONNX-ln   nw = Mul(n, w)
//ONNX-ln   y = Add(nw, bias)
//ONNX-ln }
// LN-LABEL: func.func @main
// LN:         %[[Y:.+]] = decoda.layer_norm %arg0, %arg1, %arg2 {eps = 0.0010000000474974513 : f64}
// LN-NOT:     linalg.generic
// LN:         return %[[Y]]

// SwiGLU written as x·sigmoid(x)·up, then down, is one gated_mlp; an erf-GELU MLP is one mlp.
//ONNX-mlp <ir_version: 8, opset_import: ["" : 17]>
//ONNX-mlp g (float[t, 8] x, float[8, 16] wg, float[8, 16] wu, float[16, 8] wd, float[8, 16] w1, float[16, 8] w2) => (float[t, 8] y, float[t, 8] z)
//ONNX-mlp {
//ONNX-mlp   g = MatMul(x, wg)
//ONNX-mlp   u = MatMul(x, wu)
//ONNX-mlp   sg = Sigmoid(g)
//ONNX-mlp   silu = Mul(g, sg)
//ONNX-mlp   h = Mul(silu, u)
//ONNX-mlp   y = MatMul(h, wd)
//ONNX-mlp   a = MatMul(x, w1)
//ONNX-mlp   c = Constant<value = float {1.4142135}>()
//ONNX-mlp   ad = Div(a, c)
//ONNX-mlp   er = Erf(ad)
//ONNX-mlp   one = Constant<value = float {1.0}>()
//ONNX-mlp   e1 = Add(er, one)
//ONNX-mlp   ae = Mul(a, e1)
//ONNX-mlp   half = Constant<value = float {0.5}>()
//ONNX-mlp   ge = Mul(ae, half)
//ONNX-mlp   z = MatMul(ge, w2)
//ONNX-mlp }
// MLP-LABEL: func.func @main
// MLP:         %[[Y:.+]] = decoda.gated_mlp %arg0, %arg1, %arg2, %arg3 {kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>}
// MLP:         %[[Z:.+]] = decoda.mlp %arg0, %arg4, %arg5 {activation = #decoda.activation<gelu_erf>, weight_layout = #decoda.weight_layout<in_out>}
// MLP:         return %[[Y]], %[[Z]]

// Phi-3's gate_up_proj: one projection, its columns split in halves (Split) into the GLU. A
// constant [K, 2F] weight (wc: columns 0-1 the gate, 2-3 the up) is split at compile time into
// two [K, F] constants; a run-time one (wa) is sliced. The halves' row extents are x's, checked
// at run time (here the model's dims b and t against the norm's result).
//ONNX-gateup <ir_version: 8, opset_import: ["" : 17]>
//ONNX-gateup g (float[b, t, 2] x, float[2, 4] wa, float[2, 2] wd) => (float[b, t, 2] y, float[b, t, 2] z)
//ONNX-gateup <float[2, 4] wc = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}, int64[2] sp = {2, 2}>
//ONNX-gateup {
//ONNX-gateup   h = MatMul(x, wc)
//ONNX-gateup   g, u = Split<axis = -1>(h, sp)
//ONNX-gateup   sg = Sigmoid(g)
//ONNX-gateup   silu = Mul(g, sg)
//ONNX-gateup   m = Mul(silu, u)
//ONNX-gateup   y = MatMul(m, wd)
//ONNX-gateup   ha = MatMul(x, wa)
//ONNX-gateup   ga, ua = Split<axis = -1>(ha, sp)
//ONNX-gateup   sga = Sigmoid(ga)
//ONNX-gateup   silua = Mul(ga, sga)
//ONNX-gateup   ma = Mul(silua, ua)
//ONNX-gateup   z = MatMul(ma, wd)
//ONNX-gateup }
// GATEUP: remark: decoda-raise-onnx: {{.*}}glu 2, mlp 0, gated_mlp 2,
// GATEUP-LABEL: func.func @main
// GATEUP-DAG:   %[[WG:.+]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>
// GATEUP-DAG:   %[[WU:.+]] = arith.constant dense<{{\[\[}}3.000000e+00, 4.000000e+00], [7.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// GATEUP:       cf.assert {{.*}}"decoda-raise-onnx: the halves of a fused gate/up projection do not span its rows"
// GATEUP:       %[[Y:.+]] = decoda.gated_mlp %arg0, %[[WG]], %[[WU]], %arg2 {kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>}
// GATEUP-DAG:   %[[AG:.+]] = tensor.extract_slice %arg1[0, 0] [2, 2] [1, 1] : tensor<2x4xf32> to tensor<2x2xf32>
// GATEUP-DAG:   %[[AU:.+]] = tensor.extract_slice %arg1[0, 2] [2, 2] [1, 1] : tensor<2x4xf32> to tensor<2x2xf32>
// GATEUP:       %[[Z:.+]] = decoda.gated_mlp %arg0, %[[AG]], %[[AU]], %arg2
// GATEUP:       return %[[Y]], %[[Z]]

// Near miss: the projection's result also read elsewhere (h is an output): the GLU stays on
// it. Any two column ranges are a gate and an up, overlapping ones too (columns 0-1 and 1-2 of
// a Slice pair: the same products as the GLU computes from h2).
//ONNX-gateupneg <ir_version: 8, opset_import: ["" : 17]>
//ONNX-gateupneg g (float[b, t, 2] x, float[2, 4] w, float[2, 2] wd) => (float[b, t, 2] y, float[b, t, 4] h, float[b, t, 2] z)
//ONNX-gateupneg <int64[2] sp = {2, 2}, int64[1] s0 = {0}, int64[1] s1 = {1}, int64[1] s2 = {2}, int64[1] s3 = {3}, int64[1] ax = {-1}>
//ONNX-gateupneg {
//ONNX-gateupneg   h = MatMul(x, w)
//ONNX-gateupneg   g, u = Split<axis = -1>(h, sp)
//ONNX-gateupneg   sg = Sigmoid(g)
//ONNX-gateupneg   silu = Mul(g, sg)
//ONNX-gateupneg   m = Mul(silu, u)
//ONNX-gateupneg   y = MatMul(m, wd)
//ONNX-gateupneg   h2 = MatMul(x, w)
//ONNX-gateupneg   g2 = Slice(h2, s0, s2, ax)
//ONNX-gateupneg   u2 = Slice(h2, s1, s3, ax)
//ONNX-gateupneg   sg2 = Sigmoid(g2)
//ONNX-gateupneg   silu2 = Mul(g2, sg2)
//ONNX-gateupneg   m2 = Mul(silu2, u2)
//ONNX-gateupneg   z = MatMul(m2, wd)
//ONNX-gateupneg }
// GATEUPNEG: remark: decoda-raise-onnx: {{.*}}glu 2, mlp 0, gated_mlp 1,
// GATEUPNEG-LABEL: func.func @main
// GATEUPNEG:     %[[H:.+]] = decoda.linear %arg0, %arg1
// GATEUPNEG:     decoda.glu
// GATEUPNEG-DAG: %[[G:.+]] = tensor.extract_slice %arg1[0, 0] [2, 2] [1, 1]
// GATEUPNEG-DAG: %[[U:.+]] = tensor.extract_slice %arg1[0, 1] [2, 2] [1, 1]
// GATEUPNEG:     decoda.gated_mlp %arg0, %[[G]], %[[U]], %arg2
// GATEUPNEG:     return {{.*}}, %[[H]],

// Attention over [B, H, T, D] with repeat-KV (2 KV heads -> 4), a Div scale and a Trilu mask:
// GQA by index, causal, default scale.
//ONNX-attn <ir_version: 8, opset_import: ["" : 17]>
//ONNX-attn g (float[b, 4, t, 16] q, float[b, 2, t, 16] k, float[b, 2, t, 16] v) => (float[b, 4, t, 16] y)
//ONNX-attn {
//ONNX-attn   ax = Constant<value = int64[1] {2}>()
//ONNX-attn   k5 = Unsqueeze(k, ax)
//ONNX-attn   v5 = Unsqueeze(v, ax)
//ONNX-attn   shk = Shape(k)
//ONNX-attn   i0 = Constant<value = int64[1] {0}>()
//ONNX-attn   i2 = Constant<value = int64[1] {2}>()
//ONNX-attn   bd = Gather<axis = 0>(shk, i0)
//ONNX-attn   td = Gather<axis = 0>(shk, i2)
//ONNX-attn   c2 = Constant<value = int64[1] {2}>()
//ONNX-attn   c16 = Constant<value = int64[1] {16}>()
//ONNX-attn   c4 = Constant<value = int64[1] {4}>()
//ONNX-attn   eshape = Concat<axis = 0>(bd, c2, c2, td, c16)
//ONNX-attn   ke = Expand(k5, eshape)
//ONNX-attn   ve = Expand(v5, eshape)
//ONNX-attn   rshape = Concat<axis = 0>(bd, c4, td, c16)
//ONNX-attn   kr = Reshape(ke, rshape)
//ONNX-attn   vr = Reshape(ve, rshape)
//ONNX-attn   kt = Transpose<perm = [0, 1, 3, 2]>(kr)
//ONNX-attn   s = MatMul(q, kt)
//ONNX-attn   sc = Constant<value = float {4.0}>()
//ONNX-attn   ss = Div(s, sc)
//ONNX-attn   tt = Concat<axis = 0>(td, td)
//ONNX-attn   lowest = ConstantOfShape<value = float[1] {-3.4028234e38}>(tt)
//ONNX-attn   one = Constant<value = int64 {1}>()
//ONNX-attn   mask = Trilu<upper = 1>(lowest, one)
//ONNX-attn   sm = Add(ss, mask)
//ONNX-attn   p = Softmax<axis = -1>(sm)
//ONNX-attn   y = MatMul(p, vr)
//ONNX-attn }
// ATTN-LABEL: func.func @main
// ATTN-DAG:     %[[Q:.+]] = linalg.transpose ins(%arg0
// ATTN-DAG:     %[[K:.+]] = linalg.transpose ins(%arg1
// ATTN-DAG:     %[[V:.+]] = linalg.transpose ins(%arg2
// ATTN:         %[[O:.+]] = decoda.attention %[[Q]], %[[K]], %[[V]] {causal, num_heads = 4 : i64, num_kv_heads = 2 : i64}
// ATTN-NOT:     linalg.softmax

// Rotate-half RoPE with tables from Range -> Cos/Sin of positions x theta^(-2k/D).
//ONNX-rope <ir_version: 8, opset_import: ["" : 17]>
//ONNX-rope g (float[b, t, 2, 8] x, int64[b, t] pos) => (float[b, t, 2, 8] y)
//ONNX-rope {
//ONNX-rope   inv = Constant<value = float[4] {1.0, 0.1, 0.01, 0.001}>()
//ONNX-rope   pf = Cast<to = 1>(pos)
//ONNX-rope   ax = Constant<value = int64[1] {-1}>()
//ONNX-rope   p3 = Unsqueeze(pf, ax)
//ONNX-rope   f = Mul(p3, inv)
//ONNX-rope   emb = Concat<axis = -1>(f, f)
//ONNX-rope   c = Cos(emb)
//ONNX-rope   s = Sin(emb)
//ONNX-rope   ax2 = Constant<value = int64[1] {2}>()
//ONNX-rope   c4 = Unsqueeze(c, ax2)
//ONNX-rope   s4 = Unsqueeze(s, ax2)
//ONNX-rope   st0 = Constant<value = int64[1] {0}>()
//ONNX-rope   st4 = Constant<value = int64[1] {4}>()
//ONNX-rope   st8 = Constant<value = int64[1] {8}>()
//ONNX-rope   a3 = Constant<value = int64[1] {3}>()
//ONNX-rope   x1 = Slice(x, st0, st4, a3)
//ONNX-rope   x2 = Slice(x, st4, st8, a3)
//ONNX-rope   nx2 = Neg(x2)
//ONNX-rope   rot = Concat<axis = -1>(nx2, x1)
//ONNX-rope   xc = Mul(x, c4)
//ONNX-rope   rs = Mul(rot, s4)
//ONNX-rope   y = Add(xc, rs)
//ONNX-rope }
// theta 10000 is decoda.rope's default, so it is not printed.
// ROPE-LABEL: func.func @main
// ROPE:         %[[R:.+]] = decoda.rope %arg0 positions(%arg1 : tensor<?x?xi64>) : tensor<?x?x2x8xf32>
// ROPE:         return %[[R]]

// GPT-J interleaved RoPE: pairs (x[2k], x[2k+1]) from step-2 Slices, rotated with cos/sin
// tables of D/2 columns, stacked on a new last axis and reshaped back.
//ONNX-ropei <ir_version: 8, opset_import: ["" : 17]>
//ONNX-ropei g (float[b, 2, t, 8] x) => (float[b, 2, t, 8] y)
//ONNX-ropei {
//ONNX-ropei   sh = Shape(x)
//ONNX-ropei   i2 = Constant<value = int64 {2}>()
//ONNX-ropei   tt = Gather<axis = 0>(sh, i2)
//ONNX-ropei   z = Constant<value = int64 {0}>()
//ONNX-ropei   one = Constant<value = int64 {1}>()
//ONNX-ropei   r = Range(z, tt, one)
//ONNX-ropei   pf = Cast<to = 1>(r)
//ONNX-ropei   ax = Constant<value = int64[1] {-1}>()
//ONNX-ropei   p2 = Unsqueeze(pf, ax)
//ONNX-ropei   inv = Constant<value = float[4] {1.0, 0.1, 0.01, 0.001}>()
//ONNX-ropei   f = Mul(p2, inv)
//ONNX-ropei   c = Cos(f)
//ONNX-ropei   s = Sin(f)
//ONNX-ropei   s0 = Constant<value = int64[1] {0}>()
//ONNX-ropei   s1 = Constant<value = int64[1] {1}>()
//ONNX-ropei   big = Constant<value = int64[1] {9223372036854775807}>()
//ONNX-ropei   a3 = Constant<value = int64[1] {-1}>()
//ONNX-ropei   st2 = Constant<value = int64[1] {2}>()
//ONNX-ropei   x0 = Slice(x, s0, big, a3, st2)
//ONNX-ropei   x1 = Slice(x, s1, big, a3, st2)
//ONNX-ropei   x0c = Mul(x0, c)
//ONNX-ropei   x1s = Mul(x1, s)
//ONNX-ropei   r0 = Sub(x0c, x1s)
//ONNX-ropei   x0s = Mul(x0, s)
//ONNX-ropei   x1c = Mul(x1, c)
//ONNX-ropei   r1 = Add(x0s, x1c)
//ONNX-ropei   u0 = Unsqueeze(r0, ax)
//ONNX-ropei   u1 = Unsqueeze(r1, ax)
//ONNX-ropei   st = Concat<axis = -1>(u0, u1)
//ONNX-ropei   shp = Constant<value = int64[4] {0, 0, 0, -1}>()
//ONNX-ropei   y = Reshape(st, shp)
//ONNX-ropei }
// ROPEI-LABEL: func.func @main
// ROPEI:         %[[T:.+]] = linalg.transpose ins(%arg0 : tensor<?x2x?x8xf32>) {{.*}} permutation = [0, 2, 1, 3]
// ROPEI:         %[[R:.+]] = decoda.rope %[[T]] positions(%{{.+}} : tensor<?xi64>) {layout = #decoda.rope_layout<interleaved>} : tensor<?x?x2x8xf32>
// ROPEI:         %[[B:.+]] = linalg.transpose ins(%[[R]] : tensor<?x?x2x8xf32>) {{.*}} permutation = [0, 2, 1, 3]
// ROPEI:         return %[[B]]
// ROPEI-NOT:     math.cos

// Partial rotary: rotate-half on the first 4 of 8 features, the other 4 passed through.
//ONNX-ropep <ir_version: 8, opset_import: ["" : 17]>
//ONNX-ropep g (float[b, t, 2, 8] x, int64[b, t] pos) => (float[b, t, 2, 8] y)
//ONNX-ropep {
//ONNX-ropep   inv = Constant<value = float[2] {1.0, 0.01}>()
//ONNX-ropep   pf = Cast<to = 1>(pos)
//ONNX-ropep   ax = Constant<value = int64[1] {-1}>()
//ONNX-ropep   p3 = Unsqueeze(pf, ax)
//ONNX-ropep   f = Mul(p3, inv)
//ONNX-ropep   emb = Concat<axis = -1>(f, f)
//ONNX-ropep   c = Cos(emb)
//ONNX-ropep   s = Sin(emb)
//ONNX-ropep   ax2 = Constant<value = int64[1] {2}>()
//ONNX-ropep   c4 = Unsqueeze(c, ax2)
//ONNX-ropep   s4 = Unsqueeze(s, ax2)
//ONNX-ropep   st0 = Constant<value = int64[1] {0}>()
//ONNX-ropep   st2 = Constant<value = int64[1] {2}>()
//ONNX-ropep   st4 = Constant<value = int64[1] {4}>()
//ONNX-ropep   st8 = Constant<value = int64[1] {8}>()
//ONNX-ropep   a3 = Constant<value = int64[1] {3}>()
//ONNX-ropep   xr = Slice(x, st0, st4, a3)
//ONNX-ropep   xp = Slice(x, st4, st8, a3)
//ONNX-ropep   x1 = Slice(xr, st0, st2, a3)
//ONNX-ropep   x2 = Slice(xr, st2, st4, a3)
//ONNX-ropep   nx2 = Neg(x2)
//ONNX-ropep   rot = Concat<axis = -1>(nx2, x1)
//ONNX-ropep   xc = Mul(xr, c4)
//ONNX-ropep   rs = Mul(rot, s4)
//ONNX-ropep   yr = Add(xc, rs)
//ONNX-ropep   y = Concat<axis = -1>(yr, xp)
//ONNX-ropep }
// ROPEP-LABEL: func.func @main
// ROPEP:         %[[R:.+]] = decoda.rope %arg0 positions(%arg1 : tensor<?x?xi64>) {rotary_dim = 4 : i64} : tensor<?x?x2x8xf32>
// ROPEP-NOT:     tensor.concat
// ROPEP:         return %[[R]]

// Near misses stay: interleaved halves swapped in the second output (r1 = x1·s + x0·c is still
// a rotation, but r0 = x1·c - x0·s is not), and a partial concat whose tail skips a feature.
//ONNX-ropeneg <ir_version: 8, opset_import: ["" : 17]>
//ONNX-ropeneg g (float[b, t, 2, 8] x, int64[b, t] pos) => (float[b, t, 2, 8] y, float[b, t, 2, 7] z)
//ONNX-ropeneg {
//ONNX-ropeneg   inv4 = Constant<value = float[4] {1.0, 0.1, 0.01, 0.001}>()
//ONNX-ropeneg   pf = Cast<to = 1>(pos)
//ONNX-ropeneg   ax = Constant<value = int64[1] {-1}>()
//ONNX-ropeneg   p3 = Unsqueeze(pf, ax)
//ONNX-ropeneg   f = Mul(p3, inv4)
//ONNX-ropeneg   c = Cos(f)
//ONNX-ropeneg   s = Sin(f)
//ONNX-ropeneg   ax2 = Constant<value = int64[1] {2}>()
//ONNX-ropeneg   c4 = Unsqueeze(c, ax2)
//ONNX-ropeneg   s4 = Unsqueeze(s, ax2)
//ONNX-ropeneg   s0 = Constant<value = int64[1] {0}>()
//ONNX-ropeneg   s1 = Constant<value = int64[1] {1}>()
//ONNX-ropeneg   big = Constant<value = int64[1] {9223372036854775807}>()
//ONNX-ropeneg   a3 = Constant<value = int64[1] {-1}>()
//ONNX-ropeneg   st2 = Constant<value = int64[1] {2}>()
//ONNX-ropeneg   x0 = Slice(x, s0, big, a3, st2)
//ONNX-ropeneg   x1 = Slice(x, s1, big, a3, st2)
//ONNX-ropeneg   x1c = Mul(x1, c4)
//ONNX-ropeneg   x0s = Mul(x0, s4)
//ONNX-ropeneg   r0 = Sub(x1c, x0s)
//ONNX-ropeneg   x1s = Mul(x1, s4)
//ONNX-ropeneg   x0c = Mul(x0, c4)
//ONNX-ropeneg   r1 = Add(x1s, x0c)
//ONNX-ropeneg   u0 = Unsqueeze(r0, ax)
//ONNX-ropeneg   u1 = Unsqueeze(r1, ax)
//ONNX-ropeneg   st = Concat<axis = -1>(u0, u1)
//ONNX-ropeneg   shp = Constant<value = int64[4] {0, 0, 0, -1}>()
//ONNX-ropeneg   y = Reshape(st, shp)
//ONNX-ropeneg   inv2 = Constant<value = float[2] {1.0, 0.01}>()
//ONNX-ropeneg   f2 = Mul(p3, inv2)
//ONNX-ropeneg   emb = Concat<axis = -1>(f2, f2)
//ONNX-ropeneg   ce = Cos(emb)
//ONNX-ropeneg   se = Sin(emb)
//ONNX-ropeneg   cc = Unsqueeze(ce, ax2)
//ONNX-ropeneg   ss = Unsqueeze(se, ax2)
//ONNX-ropeneg   t4 = Constant<value = int64[1] {4}>()
//ONNX-ropeneg   t5 = Constant<value = int64[1] {5}>()
//ONNX-ropeneg   t8 = Constant<value = int64[1] {8}>()
//ONNX-ropeneg   a33 = Constant<value = int64[1] {3}>()
//ONNX-ropeneg   xr = Slice(x, s0, t4, a33)
//ONNX-ropeneg   xp = Slice(x, t5, t8, a33)
//ONNX-ropeneg   q1 = Slice(xr, s0, st2, a33)
//ONNX-ropeneg   q2 = Slice(xr, st2, t4, a33)
//ONNX-ropeneg   nq2 = Neg(q2)
//ONNX-ropeneg   rot = Concat<axis = -1>(nq2, q1)
//ONNX-ropeneg   xcc = Mul(xr, cc)
//ONNX-ropeneg   rss = Mul(rot, ss)
//ONNX-ropeneg   yr = Add(xcc, rss)
//ONNX-ropeneg   z = Concat<axis = -1>(yr, xp)
//ONNX-ropeneg }
// The rotate-half on the 4-feature head still raises (rope 1); nothing else does.
// ROPENEG: remark: decoda-raise-onnx: {{.*}}, rope 1
// ROPENEG-LABEL: func.func @main
// ROPENEG-NOT:   rotary_dim
// ROPENEG:       tensor.concat
// ROPENEG-NOT:   layout = #decoda.rope_layout<interleaved>

// GPT-2's MLP through token-flattening reshapes: Reshape [-1, D] -> Gemm -> Reshape [B, T, F]
// (the shape from Shape/Slice/Concat) -> erf GELU -> Reshape [-1, F] -> Gemm -> Reshape back.
// The GELU moves to the flat side, the reshape pair folds, and the two Gemms with the GELU
// become one decoda.mlp on the flat tokens.
//ONNX-gpt2mlp <ir_version: 8, opset_import: ["" : 17]>
//ONNX-gpt2mlp g (float[b, t, 8] x, float[8, 16] w1, float[16] b1, float[16, 8] w2, float[8] b2) => (float[b, t, 8] y)
//ONNX-gpt2mlp {
//ONNX-gpt2mlp   s2 = Constant<value = int64[2] {-1, 8}>()
//ONNX-gpt2mlp   x2 = Reshape(x, s2)
//ONNX-gpt2mlp   h = Gemm(x2, w1, b1)
//ONNX-gpt2mlp   sh = Shape(x)
//ONNX-gpt2mlp   z1 = Constant<value = int64[1] {0}>()
//ONNX-gpt2mlp   t2 = Constant<value = int64[1] {2}>()
//ONNX-gpt2mlp   bt = Slice(sh, z1, t2)
//ONNX-gpt2mlp   f = Constant<value = int64[1] {16}>()
//ONNX-gpt2mlp   s3 = Concat<axis = 0>(bt, f)
//ONNX-gpt2mlp   h3 = Reshape(h, s3)
//ONNX-gpt2mlp   r2 = Constant<value = float {1.4142135381698608}>()
//ONNX-gpt2mlp   hd = Div(h3, r2)
//ONNX-gpt2mlp   e = Erf(hd)
//ONNX-gpt2mlp   one = Constant<value = float {1.0}>()
//ONNX-gpt2mlp   e1 = Add(e, one)
//ONNX-gpt2mlp   he = Mul(h3, e1)
//ONNX-gpt2mlp   half = Constant<value = float {0.5}>()
//ONNX-gpt2mlp   g = Mul(he, half)
//ONNX-gpt2mlp   s16 = Constant<value = int64[2] {-1, 16}>()
//ONNX-gpt2mlp   g2 = Reshape(g, s16)
//ONNX-gpt2mlp   o = Gemm(g2, w2, b2)
//ONNX-gpt2mlp   y = Reshape(o, sh)
//ONNX-gpt2mlp }
// GPT2MLP-LABEL: func.func @main
// GPT2MLP:         %[[M:.+]] = decoda.mlp %{{.+}}, %arg1, %arg3 bias(%arg2, %arg4 : tensor<16xf32>, tensor<8xf32>) {activation = #decoda.activation<gelu_erf>, weight_layout = #decoda.weight_layout<in_out>} : tensor<?x8xf32>
// GPT2MLP-NOT:     math.erf
// GPT2MLP:         %[[Y:.+]] = tensor.reshape %[[M]]
// GPT2MLP:         return %[[Y]]

// Near miss: the activation also multiplies by a [B, T, F] input, which has no flat form, so
// nothing moves and no MLP is formed.
//ONNX-gpt2neg <ir_version: 8, opset_import: ["" : 17]>
//ONNX-gpt2neg g (float[b, t, 8] x, float[8, 16] w1, float[16, 8] w2, float[b, t, 16] m) => (float[b, t, 8] y)
//ONNX-gpt2neg {
//ONNX-gpt2neg   s2 = Constant<value = int64[2] {-1, 8}>()
//ONNX-gpt2neg   x2 = Reshape(x, s2)
//ONNX-gpt2neg   h = Gemm(x2, w1)
//ONNX-gpt2neg   sh = Shape(x)
//ONNX-gpt2neg   z1 = Constant<value = int64[1] {0}>()
//ONNX-gpt2neg   t2 = Constant<value = int64[1] {2}>()
//ONNX-gpt2neg   bt = Slice(sh, z1, t2)
//ONNX-gpt2neg   f = Constant<value = int64[1] {16}>()
//ONNX-gpt2neg   s3 = Concat<axis = 0>(bt, f)
//ONNX-gpt2neg   h3 = Reshape(h, s3)
//ONNX-gpt2neg   t = Tanh(h3)
//ONNX-gpt2neg   g = Mul(t, m)
//ONNX-gpt2neg   s16 = Constant<value = int64[2] {-1, 16}>()
//ONNX-gpt2neg   g2 = Reshape(g, s16)
//ONNX-gpt2neg   o = Gemm(g2, w2)
//ONNX-gpt2neg   y = Reshape(o, sh)
//ONNX-gpt2neg }
// GPT2NEG: remark: decoda-raise-onnx: {{.*}} mlp 0,
// GPT2NEG-LABEL: func.func @main
// GPT2NEG-NOT:   decoda.mlp
// GPT2NEG:       math.tanh

// Softcap c·tanh(x / c).
//ONNX-cap <ir_version: 8, opset_import: ["" : 17]>
//ONNX-cap g (float[t, 8] x) => (float[t, 8] y)
//ONNX-cap {
//ONNX-cap   c = Constant<value = float {30.0}>()
//ONNX-cap   d = Div(x, c)
//ONNX-cap   th = Tanh(d)
//ONNX-cap   y = Mul(th, c)
//ONNX-cap }
// CAP-LABEL: func.func @main
// CAP:         %[[Y:.+]] = decoda.softcap %arg0 {cap = 3.000000e+01 : f64}
// CAP:         return %[[Y]]

// Near misses stay: a mean over the wrong axis, x·sigmoid(1.5x)·up (not SiLU), a softmax over
// the query axis, and x + f(x) where x is a projection (not a residual connection).
//ONNX-neg <ir_version: 8, opset_import: ["" : 17]>
//ONNX-neg g (float[b, t, 8] x, float[8] w, float[8, 8] wg, float[8, 8] wu, float[8, 8] wd, float[b, 2, t, 8] q, float[b, 2, 8, t] kt, float[b, 2, t, 8] v) => (float[b, t, 8] y, float[b, t, 8] z, float[b, 2, t, 8] o, float[b, t, 8] r)
//ONNX-neg {
//ONNX-neg   sq = Mul(x, x)
//ONNX-neg   m = ReduceMean<axes = [1], keepdims = 1>(sq)
//ONNX-neg   e = Constant<value = float {0.00001}>()
//ONNX-neg   a = Add(m, e)
//ONNX-neg   s = Sqrt(a)
//ONNX-neg   n = Div(x, s)
//ONNX-neg   y = Mul(n, w)
//ONNX-neg   g = MatMul(x, wg)
//ONNX-neg   u = MatMul(x, wu)
//ONNX-neg   k = Constant<value = float {1.5}>()
//ONNX-neg   gk = Mul(g, k)
//ONNX-neg   sg = Sigmoid(gk)
//ONNX-neg   gs = Mul(g, sg)
//ONNX-neg   h = Mul(gs, u)
//ONNX-neg   z = MatMul(h, wd)
//ONNX-neg   sc = MatMul(q, kt)
//ONNX-neg   p = Softmax<axis = 2>(sc)
//ONNX-neg   o = MatMul(p, v)
//ONNX-neg   l = MatMul(x, wg)
//ONNX-neg   l2 = Mul(l, l)
//ONNX-neg   r = Add(l, l2)
//ONNX-neg }
// NEG: remark: decoda-raise-onnx: rms_norm 0, layer_norm 0, glu 0, mlp 0, gated_mlp 0, softcap 0, attention 0 (causal 0), residual_add 0, linear bias 0, rope 0
// NEG-LABEL: func.func @main
// NEG-NOT:     decoda.rms_norm
// NEG-NOT:     decoda.glu
// NEG-NOT:     decoda.gated_mlp
// NEG:         linalg.softmax dimension(2)
// NEG-NOT:     decoda.attention
// NEG-NOT:     decoda.residual_add

// A 16-bit model as exported from Hugging Face modules in fp16: the RMSNorm's variance in f32
// between Casts with the weight applied in f16 after the cast back; softmax(dtype=float32) as a
// Cast to f32 before the Softmax and one back after it, under a causal mask built in f32 and
// cast to f16 (a mask filled with float16's lowest value, -65504, is the fixture's:
// test/Frontend/ONNX/e2e/raise_numerics.py); the rotary tables computed in f32 and cast to
// f16. Each becomes the decoda op in f16 (which computes in f32 and rounds its result).
//ONNX-half <ir_version: 8, opset_import: ["" : 17]>
//ONNX-half g (float16[b, t, 8] x, float16[8] w, float16[b, 2, t, 8] q, float16[b, 2, t, 8] k, float16[b, 2, t, 8] v, float16[b, t, 2, 8] rx, int64[b, t] pos) => (float16[b, t, 8] y, float16[b, 2, t, 8] o, float16[b, t, 2, 8] ry)
//ONNX-half {
//ONNX-half   xf = Cast<to = 1>(x)
//ONNX-half   two = Constant<value = float {2.0}>()
//ONNX-half   sq = Pow(xf, two)
//ONNX-half   m = ReduceMean<axes = [-1], keepdims = 1>(sq)
//ONNX-half   e = Constant<value = float {0.00001}>()
//ONNX-half   a = Add(m, e)
//ONNX-half   s = Sqrt(a)
//ONNX-half   one = Constant<value = float {1.0}>()
//ONNX-half   r = Div(one, s)
//ONNX-half   n = Mul(xf, r)
//ONNX-half   nh = Cast<to = 10>(n)
//ONNX-half   y = Mul(w, nh)
//ONNX-half   kt = Transpose<perm = [0, 1, 3, 2]>(k)
//ONNX-half   sc = MatMul(q, kt)
//ONNX-half   df = Constant<value = float {2.828125}>()
//ONNX-half   d = Cast<to = 10>(df)
//ONNX-half   ss = Div(sc, d)
//ONNX-half   shq = Shape(q)
//ONNX-half   i2 = Constant<value = int64[1] {2}>()
//ONNX-half   td = Gather<axis = 0>(shq, i2)
//ONNX-half   tt = Concat<axis = 0>(td, td)
//ONNX-half   lowest = ConstantOfShape<value = float[1] {-3.4028234e38}>(tt)
//ONNX-half   i1 = Constant<value = int64 {1}>()
//ONNX-half   maskf = Trilu<upper = 1>(lowest, i1)
//ONNX-half   mask = Cast<to = 10>(maskf)
//ONNX-half   sm = Add(ss, mask)
//ONNX-half   smf = Cast<to = 1>(sm)
//ONNX-half   p = Softmax<axis = -1>(smf)
//ONNX-half   ph = Cast<to = 10>(p)
//ONNX-half   o = MatMul(ph, v)
//ONNX-half   inv = Constant<value = float[4] {1.0, 0.1, 0.01, 0.001}>()
//ONNX-half   pf = Cast<to = 1>(pos)
//ONNX-half   ax = Constant<value = int64[1] {-1}>()
//ONNX-half   p3 = Unsqueeze(pf, ax)
//ONNX-half   f = Mul(p3, inv)
//ONNX-half   emb = Concat<axis = -1>(f, f)
//ONNX-half   c = Cos(emb)
//ONNX-half   sn = Sin(emb)
//ONNX-half   ch = Cast<to = 10>(c)
//ONNX-half   sh = Cast<to = 10>(sn)
//ONNX-half   ax2 = Constant<value = int64[1] {2}>()
//ONNX-half   c4 = Unsqueeze(ch, ax2)
//ONNX-half   s4 = Unsqueeze(sh, ax2)
//ONNX-half   st0 = Constant<value = int64[1] {0}>()
//ONNX-half   st4 = Constant<value = int64[1] {4}>()
//ONNX-half   st8 = Constant<value = int64[1] {8}>()
//ONNX-half   a3 = Constant<value = int64[1] {3}>()
//ONNX-half   x1 = Slice(rx, st0, st4, a3)
//ONNX-half   x2 = Slice(rx, st4, st8, a3)
//ONNX-half   nx2 = Neg(x2)
//ONNX-half   rot = Concat<axis = -1>(nx2, x1)
//ONNX-half   xc = Mul(rx, c4)
//ONNX-half   rs = Mul(rot, s4)
//ONNX-half   ry = Add(xc, rs)
//ONNX-half }
// HALF: remark: decoda-raise-onnx: rms_norm 1, layer_norm 0, glu 0, mlp 0, gated_mlp 0, softcap 0, attention 1 (causal 1), residual_add 0, linear bias 0, rope 1
// HALF-LABEL: func.func @main
// HALF:         %[[Y:.+]] = decoda.rms_norm %arg0, %arg1 {eps = 9.99999974{{.*}} : f64} : tensor<?x?x8xf16>, tensor<8xf16>
// The scale 1 / 2.828125 (sqrt(8) rounded to f16 by the export), not the default 1 / sqrt(8).
// HALF:         decoda.attention {{.*}} {causal, num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.35359116{{[0-9]*}} : f64} : tensor<?x?x2x8xf16>
// HALF-NOT:     linalg.softmax
// HALF:         %[[R:.+]] = decoda.rope %arg5 positions(%arg6 : tensor<?x?xi64>) : tensor<?x?x2x8xf16>
// HALF-NOT:     arith.truncf
// HALF:         return %[[Y]], %{{.*}}, %[[R]]
// BHALF: remark: decoda-raise-onnx: rms_norm 1, layer_norm 0, glu 0, mlp 0, gated_mlp 0, softcap 0, attention 1 (causal 1), residual_add 0, linear bias 0, rope 1
// BHALF-LABEL: func.func @main
// BHALF:         decoda.rms_norm %arg0, %arg1 {{.*}} : tensor<?x?x8xbf16>, tensor<8xbf16>
// BHALF:         decoda.attention {{.*}} {causal, num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.35359116{{[0-9]*}} : f64} : tensor<?x?x2x8xbf16>
// BHALF:         decoda.rope %arg5 positions(%arg6 : tensor<?x?xi64>) : tensor<?x?x2x8xbf16>

// Near misses stay 16-bit casts around f32 ops: the normalised value cast to bf16 while x is
// f16 (the raised f32 norm keeps its casts); a softmax whose f32 result is not cast back to
// the scores' type (P in f32 meets an f32 V); a mask filled with -1000, which does not hide a
// key (not causal: an additive mask operand instead).
//ONNX-halfneg <ir_version: 8, opset_import: ["" : 17]>
//ONNX-halfneg g (float16[b, t, 8] x, bfloat16[8] w, float16[b, 2, t, 8] q, float16[b, 2, t, 8] k, float[b, 2, t, 8] v, float16[b, 2, t, 8] v2) => (bfloat16[b, t, 8] y, float[b, 2, t, 8] o, float16[b, 2, t, 8] o2)
//ONNX-halfneg {
//ONNX-halfneg   xf = Cast<to = 1>(x)
//ONNX-halfneg   sq = Mul(xf, xf)
//ONNX-halfneg   m = ReduceMean<axes = [-1], keepdims = 1>(sq)
//ONNX-halfneg   e = Constant<value = float {0.00001}>()
//ONNX-halfneg   a = Add(m, e)
//ONNX-halfneg   s = Sqrt(a)
//ONNX-halfneg   n = Div(xf, s)
//ONNX-halfneg   nb = Cast<to = 16>(n)
//ONNX-halfneg   y = Mul(w, nb)
//ONNX-halfneg   kt = Transpose<perm = [0, 1, 3, 2]>(k)
//ONNX-halfneg   sc = MatMul(q, kt)
//ONNX-halfneg   scf = Cast<to = 1>(sc)
//ONNX-halfneg   p = Softmax<axis = -1>(scf)
//ONNX-halfneg   o = MatMul(p, v)
//ONNX-halfneg   shq = Shape(q)
//ONNX-halfneg   i2 = Constant<value = int64[1] {2}>()
//ONNX-halfneg   td = Gather<axis = 0>(shq, i2)
//ONNX-halfneg   tt = Concat<axis = 0>(td, td)
//ONNX-halfneg   small = ConstantOfShape<value = float[1] {-1000.0}>(tt)
//ONNX-halfneg   i1 = Constant<value = int64 {1}>()
//ONNX-halfneg   maskf = Trilu<upper = 1>(small, i1)
//ONNX-halfneg   mask = Cast<to = 10>(maskf)
//ONNX-halfneg   sc2 = MatMul(q, kt)
//ONNX-halfneg   sm2 = Add(sc2, mask)
//ONNX-halfneg   smf2 = Cast<to = 1>(sm2)
//ONNX-halfneg   p2 = Softmax<axis = -1>(smf2)
//ONNX-halfneg   ph2 = Cast<to = 10>(p2)
//ONNX-halfneg   o2 = MatMul(ph2, v2)
//ONNX-halfneg }
// HALFNEG: remark: decoda-raise-onnx: rms_norm 1, layer_norm 0, glu 0, mlp 0, gated_mlp 0, softcap 0, attention 1 (causal 0)
// HALFNEG-LABEL: func.func @main
// HALFNEG:       %[[N:.+]] = decoda.rms_norm {{.*}} : tensor<?x?x8xf32>, tensor<8xf32>
// HALFNEG:       arith.truncf {{.*}} : f32 to bf16
// HALFNEG:       linalg.softmax
// HALFNEG:       decoda.attention {{.*}} mask(%{{.*}} : tensor<1x1x?x?xf16>) {num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 1.000000e+00 : f64} : tensor<?x?x2x8xf16>

// NewGELU in a 16-bit model: its constants sqrt(2/pi) and 0.044715 are f16 values (4e-5 and
// 1.5e-4 off), within half an f16 ulp of the definition, so the MLP is raised with gelu_tanh; the
// same f16-rounded constants in an f32 model are 1e-4 off its definition, not raised (f32
// activations match to 1e-6); neither is an f16 MLP whose constant is 0.05 instead of 0.044715.
//ONNX-halfgelu <ir_version: 8, opset_import: ["" : 17]>
//ONNX-halfgelu g (float16[t, 8] x, float16[8, 16] w1, float16[16, 8] w2, float[t, 8] xf, float[8, 16] w1f, float[16, 8] w2f) => (float16[t, 8] y, float[t, 8] yf, float16[t, 8] yn)
//ONNX-halfgelu {
//ONNX-halfgelu   c3f = Constant<value = float {3.0}>()
//ONNX-halfgelu   c3 = Cast<to = 10>(c3f)
//ONNX-halfgelu   kf = Constant<value = float {0.044715}>()
//ONNX-halfgelu   k = Cast<to = 10>(kf)
//ONNX-halfgelu   sf = Constant<value = float {0.7978846}>()
//ONNX-halfgelu   s = Cast<to = 10>(sf)
//ONNX-halfgelu   onef = Constant<value = float {1.0}>()
//ONNX-halfgelu   one = Cast<to = 10>(onef)
//ONNX-halfgelu   hf = Constant<value = float {0.5}>()
//ONNX-halfgelu   h = Cast<to = 10>(hf)
//ONNX-halfgelu   a = MatMul(x, w1)
//ONNX-halfgelu   a3 = Pow(a, c3)
//ONNX-halfgelu   ka3 = Mul(k, a3)
//ONNX-halfgelu   in = Add(a, ka3)
//ONNX-halfgelu   sin = Mul(s, in)
//ONNX-halfgelu   th = Tanh(sin)
//ONNX-halfgelu   op = Add(one, th)
//ONNX-halfgelu   ha = Mul(h, a)
//ONNX-halfgelu   ge = Mul(ha, op)
//ONNX-halfgelu   y = MatMul(ge, w2)
//ONNX-halfgelu   kr = Constant<value = float {0.044708252}>()
//ONNX-halfgelu   sr = Constant<value = float {0.79785156}>()
//ONNX-halfgelu   af = MatMul(xf, w1f)
//ONNX-halfgelu   af3 = Pow(af, c3f)
//ONNX-halfgelu   kaf3 = Mul(kr, af3)
//ONNX-halfgelu   inf = Add(af, kaf3)
//ONNX-halfgelu   sinf = Mul(sr, inf)
//ONNX-halfgelu   thf = Tanh(sinf)
//ONNX-halfgelu   opf = Add(onef, thf)
//ONNX-halfgelu   haf = Mul(hf, af)
//ONNX-halfgelu   gef = Mul(haf, opf)
//ONNX-halfgelu   yf = MatMul(gef, w2f)
//ONNX-halfgelu   bf = Constant<value = float {0.05}>()
//ONNX-halfgelu   b = Cast<to = 10>(bf)
//ONNX-halfgelu   an = MatMul(x, w1)
//ONNX-halfgelu   an3 = Pow(an, c3)
//ONNX-halfgelu   ban3 = Mul(b, an3)
//ONNX-halfgelu   inn = Add(an, ban3)
//ONNX-halfgelu   sinn = Mul(s, inn)
//ONNX-halfgelu   thn = Tanh(sinn)
//ONNX-halfgelu   opn = Add(one, thn)
//ONNX-halfgelu   han = Mul(h, an)
//ONNX-halfgelu   gen = Mul(han, opn)
//ONNX-halfgelu   yn = MatMul(gen, w2)
//ONNX-halfgelu }
// HALFGELU-LABEL: func.func @main
// HALFGELU:       %[[Y:.+]] = decoda.mlp %arg0, %arg1, %arg2 {activation = #decoda.activation<gelu_tanh>, weight_layout = #decoda.weight_layout<in_out>} : tensor<?x8xf16>
// HALFGELU-NOT:   decoda.mlp
// HALFGELU:       math.tanh
// HALFGELU-NOT:   decoda.mlp
// HALFGELU:       return %[[Y]]

// Norms of a 16-bit model with the weights applied in f32 (`norm(x.float(), w.float(),
// b.float()).type_as(x)`): LayerNormalization on upcast x, w and b, cast back, and an RMSNorm
// times the upcast weight, cast back -> the norms in f16 with the f16 weights; a weight that is
// f32 in the model (not a cast of an f16 one) keeps the f32 norm between casts.
//ONNX-halfnorm <ir_version: 8, opset_import: ["" : 17]>
//ONNX-halfnorm g (float16[t, 8] x, float16[8] w, float16[8] b, float[8] wf) => (float16[t, 8] y, float16[t, 8] z, float16[t, 8] n)
//ONNX-halfnorm {
//ONNX-halfnorm   xf = Cast<to = 1>(x)
//ONNX-halfnorm   w32 = Cast<to = 1>(w)
//ONNX-halfnorm   b32 = Cast<to = 1>(b)
//ONNX-halfnorm   l = LayerNormalization<axis = -1, epsilon = 0.00001>(xf, w32, b32)
//ONNX-halfnorm   y = Cast<to = 10>(l)
//ONNX-halfnorm   sq = Mul(xf, xf)
//ONNX-halfnorm   m = ReduceMean<axes = [-1], keepdims = 1>(sq)
//ONNX-halfnorm   e = Constant<value = float {0.00001}>()
//ONNX-halfnorm   a = Add(m, e)
//ONNX-halfnorm   s = Sqrt(a)
//ONNX-halfnorm   r = Div(xf, s)
//ONNX-halfnorm   rw = Mul(r, w32)
//ONNX-halfnorm   z = Cast<to = 10>(rw)
//ONNX-halfnorm   rn = Mul(r, wf)
//ONNX-halfnorm   n = Cast<to = 10>(rn)
//ONNX-halfnorm }
// HALFNORM-LABEL: func.func @main
// HALFNORM-DAG:   %[[Y:.+]] = decoda.layer_norm %arg0, %arg1, %arg2 {{.*}} : tensor<?x8xf16>, tensor<8xf16>, tensor<8xf16>
// HALFNORM-DAG:   %[[Z:.+]] = decoda.rms_norm %arg0, %arg1 {{.*}} : tensor<?x8xf16>, tensor<8xf16>
// HALFNORM-DAG:   %[[N:.+]] = decoda.rms_norm %{{.*}}, %arg3 {{.*}} : tensor<?x8xf32>, tensor<8xf32>
// HALFNORM:       return %[[Y]], %[[Z]], %{{.*}}

// A parallel block (GPT-NeoX, Phi-2, Falcon: `mlp_out + attn_out + x`, the two branches off
// norms of x): `(b1 + b2) + x` becomes `(x + b1) + b2`, b1 the branch defined first and x + b1
// right after it (the epilogue of its projection on the GPU).
//ONNX-par <ir_version: 8, opset_import: ["" : 17]>
//ONNX-par g (float[b, t, 8] x, float[8] w, float[8] c, float[8, 8] pa, float[8, 8] pm) => (float[b, t, 8] y)
//ONNX-par {
//ONNX-par   h = LayerNormalization<axis = -1, epsilon = 0.00001>(x, w, c)
//ONNX-par   a = MatMul(h, pa)
//ONNX-par   h2 = LayerNormalization<axis = -1, epsilon = 0.00001>(x, c, w)
//ONNX-par   m = MatMul(h2, pm)
//ONNX-par   s = Add(m, a)
//ONNX-par   y = Add(s, x)
//ONNX-par }
// PAR: remark: decoda-raise-onnx: {{.*}}residual_add 2,
// PAR-LABEL: func.func @main
// PAR:         %[[A:.+]] = decoda.linear %{{.+}}, %arg3
// PAR-NEXT:    %[[XA:.+]] = decoda.residual_add %arg0, %[[A]]
// PAR:         %[[M:.+]] = decoda.linear %{{.+}}, %arg4
// PAR-NEXT:    %[[Y:.+]] = decoda.residual_add %[[XA]], %[[M]]
// PAR-NEXT:    return %[[Y]]

// Not raised: the branches' sum read by something else too (returned); a sum of two
// non-branches (x + x).
//ONNX-parneg <ir_version: 8, opset_import: ["" : 17]>
//ONNX-parneg g (float[b, t, 8] x, float[8, 8] pa, float[8, 8] pm) => (float[b, t, 8] y, float[b, t, 8] s, float[b, t, 8] z)
//ONNX-parneg {
//ONNX-parneg   a = MatMul(x, pa)
//ONNX-parneg   m = MatMul(x, pm)
//ONNX-parneg   s = Add(m, a)
//ONNX-parneg   y = Add(s, x)
//ONNX-parneg   d = Add(x, x)
//ONNX-parneg   z = Add(d, x)
//ONNX-parneg }
// PARNEG: remark: decoda-raise-onnx: {{.*}}residual_add 0,
// PARNEG-NOT:  decoda.residual_add

// GPT-NeoX's q/k/v, interleaved per head in one projection: viewed [B, T, H, 3 * Dh],
// transposed to [B, H, T, 3 * Dh], split, q transposed back: q becomes a slice of the view
// itself (the transposes fold), v (read transposed) moves only its own third.
//ONNX-qkvt <ir_version: 8, opset_import: ["" : 17]>
//ONNX-qkvt g (float[b, t, 8] x, float[8, 24] w) => (float[b, t, 2, 4] q, float[b, 2, t, 4] k, float[b, 2, t, 4] v)
//ONNX-qkvt <int64[4] hs = {0, 0, 2, 12}, int64[3] sp = {4, 4, 4}>
//ONNX-qkvt {
//ONNX-qkvt   p = MatMul(x, w)
//ONNX-qkvt   r = Reshape(p, hs)
//ONNX-qkvt   tr = Transpose<perm = [0, 2, 1, 3]>(r)
//ONNX-qkvt   q0, k, v = Split<axis = -1>(tr, sp)
//ONNX-qkvt   q = Transpose<perm = [0, 2, 1, 3]>(q0)
//ONNX-qkvt }
// QKVT-LABEL: func.func @main
// QKVT:        %[[R:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0], [1], [2, 3]]
// QKVT-DAG:    %[[Q:.+]] = tensor.extract_slice %[[R]][0, 0, 0, 0] [%{{.+}}, %{{.+}}, 2, 4] [1, 1, 1, 1]
// QKVT-DAG:    %[[K:.+]] = tensor.extract_slice %[[R]][0, 0, 0, 4] [%{{.+}}, %{{.+}}, 2, 4] [1, 1, 1, 1]
// QKVT-DAG:    %[[V:.+]] = tensor.extract_slice %[[R]][0, 0, 0, 8] [%{{.+}}, %{{.+}}, 2, 4] [1, 1, 1, 1]
// QKVT-DAG:    %[[KT:.+]] = linalg.transpose ins(%[[K]] : tensor<?x?x2x4xf32>) {{.*}} permutation = [0, 2, 1, 3]
// QKVT-DAG:    %[[VT:.+]] = linalg.transpose ins(%[[V]] : tensor<?x?x2x4xf32>) {{.*}} permutation = [0, 2, 1, 3]
// QKVT:        return %[[Q]], %[[KT]], %[[VT]]

// Kept: the whole transposed projection is read too (returned), so its slices stay after it.
//ONNX-qkvtneg <ir_version: 8, opset_import: ["" : 17]>
//ONNX-qkvtneg g (float[b, t, 8] x, float[8, 24] w) => (float[b, 2, t, 4] v, float[b, 2, t, 12] tr)
//ONNX-qkvtneg <int64[4] hs = {0, 0, 2, 12}, int64[3] sp = {4, 4, 4}>
//ONNX-qkvtneg {
//ONNX-qkvtneg   p = MatMul(x, w)
//ONNX-qkvtneg   r = Reshape(p, hs)
//ONNX-qkvtneg   tr = Transpose<perm = [0, 2, 1, 3]>(r)
//ONNX-qkvtneg   q0, k, v = Split<axis = -1>(tr, sp)
//ONNX-qkvtneg }
// QKVTNEG-LABEL: func.func @main
// QKVTNEG:       %[[T:.+]] = linalg.transpose
// QKVTNEG:       %[[V:.+]] = tensor.extract_slice %[[T]][0, 0, 0, 8]
// QKVTNEG-NOT:   linalg.transpose
// QKVTNEG:       return %[[V]], %[[T]]
