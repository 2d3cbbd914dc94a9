// decoda-raise-onnx on imported exporter graphs (ONNX text -> decoda-translate -> the pass):
// positive cases raise to decoda ops, negative ones (near misses) stay as they are. The numeric
// before/after check of every pattern against ONNX Runtime is test/Frontend/ONNX/e2e/raise_numerics.py.
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.rms.onnx --case rms
// RUN: decoda-translate --import-onnx %t.rms.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=RMS
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.ln.onnx --case ln
// RUN: decoda-translate --import-onnx %t.ln.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=LN
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.mlp.onnx --case mlp
// RUN: decoda-translate --import-onnx %t.mlp.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=MLP
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.attn.onnx --case attn
// RUN: decoda-translate --import-onnx %t.attn.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=ATTN
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.rope.onnx --case rope
// RUN: decoda-translate --import-onnx %t.rope.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=ROPE
// RUN: %PYTHON %S/../Frontend/ONNX/Inputs/onnx_text.py %s %t.cap.onnx --case cap
// RUN: decoda-translate --import-onnx %t.cap.onnx | decoda-opt --decoda-raise-onnx | FileCheck %s --check-prefix=CAP
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
