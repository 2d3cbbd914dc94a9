// decoda-donate-inputs: a returned value is materialised in its donated argument, which becomes
// writable; decoda-drop-donated-results removes the result once bufferization wrote it into the
// argument's buffer. Numerics (the cache written in place equals the reference, the runtime
// paths with and without donation): test/e2e/donation.py.
// RUN: decoda-opt %s --decoda-donate-inputs --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-donate-inputs=auto-caches=true --split-input-file | FileCheck %s --check-prefix=AUTO
// RUN: decoda-opt %s --split-input-file --decoda-convert-to-linalg --decoda-donate-inputs --decoda-mark-readonly-inputs --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --decoda-drop-donated-results --canonicalize | FileCheck %s --check-prefix=BUF
// RUN: decoda-opt %s --split-input-file --decoda-donate-inputs=auto-caches=true --decoda-convert-to-linalg --decoda-mark-readonly-inputs --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --decoda-drop-donated-results --canonicalize | FileCheck %s --check-prefix=BOTH
// Without donation the cache is read-only: the append goes into a fresh buffer.
// RUN: decoda-opt %s --split-input-file --decoda-convert-to-linalg --decoda-mark-readonly-inputs --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize | FileCheck %s --check-prefix=NODONATE

// CHECK-LABEL: func @step
// CHECK-SAME:    %[[KC:[a-z0-9]+]]: tensor<1x16x2x8xf32> {bufferization.writable = true, decoda.donate = 1 : i64}
// CHECK-SAME:    %[[VC:[a-z0-9]+]]: tensor<1x16x2x8xf32>,
// CHECK:         %[[O:.+]], %[[KO:.+]], %[[VO:.+]] = decoda.cached_attention
// CHECK:         %[[M:.+]] = bufferization.materialize_in_destination %[[KO]] in %[[KC]]
// CHECK:         return %[[O]], %[[M]], %[[VO]]
// AUTO-LABEL: func @step
// AUTO-SAME:    {bufferization.writable = true, decoda.donate = 1 : i64}
// AUTO-SAME:    {bufferization.writable = true, decoda.donate = 2 : i64}
// AUTO-COUNT-2: bufferization.materialize_in_destination
// Only the key cache is donated: it is appended in place and no longer returned; the value
// cache is copied into a new buffer first.
// BUF-LABEL: func @step
// BUF-SAME:    %[[KC:[a-z0-9]+]]: memref<1x16x2x8xf32>, %[[VC:[a-z0-9]+]]: memref<1x16x2x8xf32>, %{{.+}}: memref<i64>) -> (memref<1x?x4x8xf32>, memref<1x16x2x8xf32>)
// BUF-NOT:     memref.copy %[[KC]]
// BUF:         memref.subview %[[KC]]
// BUF:         %[[A:.+]] = memref.alloc() {{.*}}: memref<1x16x2x8xf32>
// BUF-NEXT:    memref.copy %[[VC]], %[[A]]
// BUF-NOT:     memref.alloc() {{.*}}: memref<1x16x2x8xf32>
// BUF:         return %{{.+}}, %[[A]] : memref<1x?x4x8xf32>, memref<1x16x2x8xf32>
// Both caches donated (auto-caches): nothing of the caches' size is allocated or copied.
// BOTH-LABEL: func @step
// BOTH-SAME:    -> memref<1x?x4x8xf32>
// BOTH-NOT:     memref.alloc() {{.*}}: memref<1x16x2x8xf32>
// BOTH:         return %{{.+}} : memref<1x?x4x8xf32>
// NODONATE-LABEL: func @step
// NODONATE-SAME:  -> (memref<1x?x4x8xf32>, memref<1x16x2x8xf32>, memref<1x16x2x8xf32>)
// NODONATE-COUNT-2: memref.alloc() {{.*}}: memref<1x16x2x8xf32>
func.func @step(%q: tensor<1x?x4x8xf32>, %k: tensor<1x?x2x8xf32>, %v: tensor<1x?x2x8xf32>,
                %kc: tensor<1x16x2x8xf32> {decoda.donate = 1 : i64}, %vc: tensor<1x16x2x8xf32>,
                %offset: tensor<i64>)
    -> (tensor<1x?x4x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x?x4x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>
  return %o, %kc2, %vc2 : tensor<1x?x4x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>
}

// -----

// A donated argument returned unchanged needs nothing materialised; a private function is no
// entry point and is left alone (even by auto-caches).
// CHECK-LABEL: func @identity
// CHECK-NOT:     materialize_in_destination
// CHECK:         return %arg0
// CHECK-LABEL: func private @helper
// CHECK-NOT:     writable
// AUTO-LABEL: func private @helper
// AUTO-NOT:     decoda.donate
// BUF-LABEL: func @identity
// BUF-SAME:    (%arg0: memref<4xf32>) {
// BUF-NEXT:    return
// BUF-NEXT:  }
func.func @identity(%x: tensor<4xf32> {decoda.donate = 0 : i64}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @helper(%q: tensor<1x1x4x8xf32>, %kc: tensor<1x16x2x8xf32>, %vc: tensor<1x16x2x8xf32>, %off: index) -> (tensor<1x1x4x8xf32>, tensor<1x16x2x8xf32>) {
  %k = tensor.extract_slice %kc[0, 0, 0, 0] [1, 1, 2, 8] [1, 1, 1, 1] : tensor<1x16x2x8xf32> to tensor<1x1x2x8xf32>
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %vc[%off] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x4x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>
  return %o, %kc2 : tensor<1x1x4x8xf32>, tensor<1x16x2x8xf32>
}
