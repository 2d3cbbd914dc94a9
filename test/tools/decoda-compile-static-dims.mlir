// decoda-compile --static-dims: dims named by decoda.dims (NAME=N) or by position (ARG:DIM=N)
// become static in the signature; the runtime rejects other sizes naming the input; the static
// model's numbers equal NumPy's rms_norm (python/decoda/reference.py); every bad spec is an
// error naming it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s -o %t/named.so --static-dims=seq=8 && decoda-run %t/named.so --list | FileCheck %s --check-prefix=NAMED
// NAMED:      input x: f32 [?, 8, 16]
// NAMED-NEXT: input r: f32 [?, 8, 16]
// NAMED-NEXT: input w: f32 [16]
// NAMED-NEXT: output y: f32 [?, ?, 16]
// RUN: decoda-compile %s -o %t/pos.so --static-dims=x:0=2,1:1=8,batch=2 && decoda-run %t/pos.so --list | FileCheck %s --check-prefix=POS
// POS:      input x: f32 [2, ?, 16]
// POS-NEXT: input r: f32 [2, 8, 16]
// RUN: decoda-compile %s -o %t/dyn.so && decoda-run %t/dyn.so --list | FileCheck %s --check-prefix=DYN
// DYN: input x: f32 [?, ?, 16]

// RUN: %PYTHON -c "import numpy as np; from decoda import reference as R; g = np.random.default_rng(0); x = g.standard_normal((2, 8, 16)).astype(np.float32); r = g.standard_normal((2, 8, 16)).astype(np.float32); w = g.standard_normal(16).astype(np.float32); [np.save('%t/' + n + '.npy', a) for n, a in (('x', x), ('r', r), ('w', w), ('ref', R.rms_norm(R.residual_add(x, r), w, 1e-5)), ('x5', x[:, :5]), ('r5', r[:, :5]))]"
// RUN: decoda-run %t/named.so --input x=%t/x.npy --input r=%t/r.npy --input w=%t/w.npy --check y=%t/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=CHK
// RUN: not decoda-run %t/named.so --input x=%t/x5.npy --input r=%t/r5.npy --input w=%t/w.npy 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: decoda-run %t/dyn.so --input x=%t/x5.npy --input r=%t/r5.npy --input w=%t/w.npy | FileCheck %s --check-prefix=DYNOUT
// CHK: output y: f32 [2, 8, 16]
// CHK: check y: PASS
// WRONG: input 'x'{{.*}}shape [2, 5, 16] does not match the model's [?, 8, 16]
// DYNOUT: output y: f32 [2, 5, 16]

// RUN: not decoda-compile %s -o %t/e.so --static-dims=sequence=8 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: --static-dims=sequence=8: no argument dimension is named 'sequence' (named dimensions: batch, seq)
// RUN: not decoda-compile %s -o %t/e.so --static-dims=seq=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: --static-dims: 'seq=0': the size '0' is not a positive integer
// RUN: not decoda-compile %s -o %t/e.so --static-dims=seq=many 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: error: --static-dims: 'seq=many': the size 'many' is not a positive integer
// RUN: not decoda-compile %s -o %t/e.so --static-dims=seq 2>&1 | FileCheck %s --check-prefix=FORM
// FORM: error: --static-dims: 'seq': expected NAME=N or ARG:DIM=N
// RUN: not decoda-compile %s -o %t/e.so --static-dims=x:3=2 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: error: --static-dims=x:3=2: argument 'x' of 'norm' has rank 3
// RUN: not decoda-compile %s -o %t/e.so --static-dims=x:-1=2 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: --static-dims: 'x:-1=2': in ARG:DIM=N, DIM must be a dimension index >= 0
// RUN: not decoda-compile %s -o %t/e.so --static-dims=w:0=3 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: error: --static-dims=w:0=3: dimension 0 of argument 'w' of 'norm' is static with size 16
// RUN: not decoda-compile %s -o %t/e.so --static-dims=z:0=3 2>&1 | FileCheck %s --check-prefix=NOARG
// NOARG: error: --static-dims=z:0=3: no entry point has an argument 'z'
// RUN: not decoda-compile %s -o %t/e.so --static-dims=seq=4,x:1=8 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: --static-dims=x:1=8: dimension 1 of argument 'x' of 'norm' is also given size 4

func.func @norm(%x: tensor<?x?x16xf32> {decoda.name = "x", decoda.dims = ["batch", "seq", ""]},
                %r: tensor<?x?x16xf32> {decoda.name = "r", decoda.dims = ["batch", "seq", ""]},
                %w: tensor<16xf32> {decoda.name = "w"})
    -> (tensor<?x?x16xf32> {decoda.name = "y"}) {
  %u = decoda.residual_add %x, %r : tensor<?x?x16xf32>
  %y = decoda.rms_norm %u, %w {eps = 1.0e-05 : f64} : tensor<?x?x16xf32>, tensor<16xf32>
  return %y : tensor<?x?x16xf32>
}
