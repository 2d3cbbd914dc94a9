// decoda-specialize-dims: every spec that matches nothing or contradicts a static dim is an error
// naming it; a decode entry whose name is taken is an error.
// RUN: not decoda-opt %s --decoda-specialize-dims="dims=len=8" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: dims=len=8: no argument dimension is named 'len' (named dimensions: batch, seq)
// RUN: not decoda-opt %s --decoda-specialize-dims="dims=w:0=8" 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: error: dims=w:0=8: dimension 0 of argument 'w' of 'norm' is static with size 16
// RUN: not decoda-opt %s --decoda-specialize-dims="dims=seq=x" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: dims: 'seq=x': the size 'x' is not a positive integer
// RUN: not decoda-opt %s --decoda-specialize-dims="decode-entries=true" 2>&1 | FileCheck %s --check-prefix=TAKEN
// TAKEN: error: cannot add the decode entry 'step_decode': a function of that name exists

func.func @norm(%x: tensor<?x?x16xf32> {decoda.dims = ["batch", "seq", ""], decoda.name = "x"}, %w: tensor<16xf32> {decoda.name = "w"}) -> tensor<?x?x16xf32> {
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<?x?x16xf32>, tensor<16xf32>
  return %y : tensor<?x?x16xf32>
}
func.func @step(%q: tensor<1x?x4x8xf32>, %k: tensor<1x?x2x8xf32>, %kc: tensor<1x16x2x8xf32>, %off: index) -> tensor<1x?x4x8xf32> {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x?x4x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>
  return %o : tensor<1x?x4x8xf32>
}
func.func @step_decode() {
  return
}
