// decoda-specialize-dims: named or positional dims of entry-point arguments become static (uses
// see the old type through a tensor.cast, which decoda-refine-shapes then carries through the
// decoda ops: refine-shapes.mlir); decode-entries adds <name>_decode with query length 1 to
// functions using cached_attention. Numerics of the specialised programs:
// test/tools/decoda-compile-static-dims.mlir and test/e2e/prefill_decode.py.
// RUN: decoda-opt %s --decoda-specialize-dims="dims=seq=8" | FileCheck %s
// RUN: decoda-opt %s --decoda-specialize-dims="dims=0:0=2" | FileCheck %s --check-prefix=POS
// RUN: decoda-opt %s --decoda-specialize-dims="decode-entries=true" | FileCheck %s --check-prefix=DEC
// RUN: decoda-opt %s --decoda-specialize-dims="decode-entries=true dims=batch=1" | FileCheck %s --check-prefix=BOTH

// CHECK-LABEL: func @norm
// CHECK-SAME:    (%[[X:.+]]: tensor<?x8x16xf32> {decoda.dims = ["batch", "seq", ""]}, %[[W:.+]]: tensor<16xf32>) -> tensor<?x?x16xf32>
// CHECK:         %[[N:.+]] = decoda.rms_norm %[[X]], %[[W]] {{.*}} : tensor<?x8x16xf32>, tensor<16xf32>
// CHECK:         tensor.cast %[[N]] : tensor<?x8x16xf32> to tensor<?x?x16xf32>
// POS-LABEL: func @norm
// POS-SAME:    tensor<2x?x16xf32>
// DEC-LABEL: func @norm
// DEC-SAME:    tensor<?x?x16xf32>
// DEC-NOT:   func @norm_decode
func.func @norm(%x: tensor<?x?x16xf32> {decoda.dims = ["batch", "seq", ""]}, %w: tensor<16xf32>) -> tensor<?x?x16xf32> {
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<?x?x16xf32>, tensor<16xf32>
  return %y : tensor<?x?x16xf32>
}

// Unnamed dims: the decode copy fixes dim 1 of the non-cache arguments of rank >= 2 (q, k, v);
// the caches and the rank-0 offset keep their types.
// DEC-LABEL: func @step(
// DEC-SAME:    tensor<?x?x4x8xf32>
// DEC-LABEL: func @step_decode(
// DEC-SAME:    %[[Q:[a-z0-9]+]]: tensor<?x1x4x8xf32>, %[[K:[a-z0-9]+]]: tensor<?x1x2x8xf32>, %[[V:[a-z0-9]+]]: tensor<?x1x2x8xf32>, %{{.+}}: tensor<?x16x2x8xf32>, %{{.+}}: tensor<?x16x2x8xf32>, %{{.+}}: tensor<i64>)
// DEC:         %[[O:.+]], %{{.+}}, %{{.+}} = decoda.cached_attention %[[Q]], %[[K]], %[[V]], {{.*}} : tensor<?x1x4x8xf32>, tensor<?x1x2x8xf32>, tensor<?x1x2x8xf32>, tensor<?x16x2x8xf32>, tensor<?x16x2x8xf32>
// DEC:         tensor.cast %[[O]] : tensor<?x1x4x8xf32> to tensor<?x?x4x8xf32>
// BOTH-LABEL: func @step(
// BOTH-SAME:    tensor<?x?x4x8xf32>
// BOTH-LABEL: func @step_decode(
// BOTH-SAME:    tensor<?x1x4x8xf32>
func.func @step(%q: tensor<?x?x4x8xf32>, %k: tensor<?x?x2x8xf32>, %v: tensor<?x?x2x8xf32>, %kc: tensor<?x16x2x8xf32>, %vc: tensor<?x16x2x8xf32>, %offset: tensor<i64>) -> (tensor<?x?x4x8xf32>, tensor<?x16x2x8xf32>, tensor<?x16x2x8xf32>) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<?x?x4x8xf32>, tensor<?x?x2x8xf32>, tensor<?x?x2x8xf32>, tensor<?x16x2x8xf32>, tensor<?x16x2x8xf32>
  return %o, %kc2, %vc2 : tensor<?x?x4x8xf32>, tensor<?x16x2x8xf32>, tensor<?x16x2x8xf32>
}

// A donated argument (decoda.donate = N: an ONNX shared KV buffer updated in place) made static
// gives its result the same type (a tensor.cast at the return), so the donation still holds;
// other results keep theirs.
// CHECK-LABEL: func @donated
// CHECK-SAME:    (%[[B:.+]]: tensor<?x8x16xf32> {decoda.dims = ["batch", "seq", ""], decoda.donate = 0 : i64}, %{{.+}}: tensor<1x16xf32>) -> (tensor<?x8x16xf32>, tensor<?x16xf32>)
// CHECK:         %[[U:.+]] = tensor.insert_slice %{{.+}} into %[[B]]{{.*}} into tensor<?x8x16xf32>
// CHECK:         return %[[U]], %{{.+}} : tensor<?x8x16xf32>, tensor<?x16xf32>
// POS-LABEL: func @donated
// POS-SAME:    -> (tensor<2x?x16xf32>, tensor<?x16xf32>)
func.func @donated(%buf: tensor<?x?x16xf32> {decoda.dims = ["batch", "seq", ""], decoda.donate = 0 : i64}, %row: tensor<1x16xf32>) -> (tensor<?x?x16xf32>, tensor<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %u = tensor.insert_slice %row into %buf[0, 0, 0] [1, 1, 16] [1, 1, 1] : tensor<1x16xf32> into tensor<?x?x16xf32>
  %r = tensor.cast %row : tensor<1x16xf32> to tensor<?x16xf32>
  return %u, %r : tensor<?x?x16xf32>, tensor<?x16xf32>
}
