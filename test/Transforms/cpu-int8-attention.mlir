// RUN: decoda-opt %s --split-input-file --decoda-convert-to-linalg=int8-attention-calls=true \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --decoda-cpu-int8-attention --verify-diagnostics | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-convert-to-linalg=int8-attention-calls=true \
// RUN:   --decoda-cpu-int8-attention 2>&1 | FileCheck %s --check-prefix=TENSORS
// RUN: decoda-opt %s --split-input-file --decoda-convert-to-linalg=int8-attention-calls=true \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --decoda-cpu-int8-attention=vnni=false 2>/dev/null | FileCheck %s --check-prefix=NOVNNI

// INT8 attention becomes a call of a private function tagged decoda.int8_attention (its body
// the target-neutral form); after bufferization decoda-cpu-int8-attention replaces that body by
// the VNNI kernel: K/V quantised and packed in one scf.parallel over (batch, KV head, panel of 32
// keys), then an scf.parallel over (batch, KV head, query block) with vpdpbusd register tiles for
// q·k (corrected by 128 · the per-key sums of K) and for P·V, exp on 16 lanes as a polynomial
// (no libm call left). Functions the kernel does not handle keep their body, with a remark.
// (The numbers: test/e2e/attention_int8.py, test/e2e/cached_attention_int8.py.)
// vnni=false (targets without AVX-512 VNNI): the same kernel with each vpdpbusd as i32 vector
// ops (bytes sign-extended by shifts, multiplied and added), no intrinsic anywhere.

// NOVNNI-NOT:   vpdpbusd
// NOVNNI-LABEL: func.func private @__decoda_int8_attention(
// NOVNNI:         scf.parallel
// NOVNNI:         scf.parallel
// NOVNNI:           arith.shrsi %{{.*}}, %{{.*}} : vector<16xi32>
// NOVNNI:           arith.muli %{{.*}}, %{{.*}} : vector<16xi32>
// NOVNNI:           arith.addi %{{.*}}, %{{.*}} : vector<16xi32>
// NOVNNI-NOT:   vpdpbusd

// CHECK-LABEL: func.func private @__decoda_int8_attention(
// CHECK-SAME:    %[[Q:.*]]: memref<1x?x8x16xf32>, %[[K:.*]]: memref<1x?x2x16xf32>, %[[V:.*]]: memref<1x?x2x16xf32>, %[[LEN:.*]]: index,
// CHECK-SAME:    -> memref<1x?x8x16xf32> attributes {decoda.int8_attention = {causal = true, mask = false, num_heads = 8 : i64, num_kv_heads = 2 : i64, scale = 2.500000e-01 : f64, segment_ids = false, sinks = false}}
// CHECK-NOT:     linalg.generic
// CHECK:         %[[KP:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x2x?x512xi8>
// CHECK:         %[[KSUM:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x2x?x32xi32>
// CHECK:         %[[VP:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x2x?x64xi8>
// CHECK:         %[[OUT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<1x?x8x16xf32>
// CHECK:         scf.parallel
// CHECK:           vector.maskedload %[[K]]
// CHECK:           vector.reduction <add>
// CHECK:           memref.store %{{.*}}, %[[KSUM]]
// CHECK:           vector.maskedload %[[V]]
// CHECK:           vector.shuffle
// CHECK:           vector.store %{{.*}}, %[[VP]]
// CHECK:         } {decoda.parallel_all_dims}
// CHECK:         scf.parallel
// CHECK:           memref.alloc() {alignment = 64 : i64} : memref<16x16xi8>
// CHECK:           memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<16x?xf32>
// CHECK:           memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<16x?xi8>
// CHECK:           vector.maskedload %[[Q]]
// CHECK-COUNT-16:  llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:           vector.load %[[KSUM]]
// CHECK:           arith.muli %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK:           vector.reduction <maximumf>
// CHECK-NOT:       math.exp
// CHECK:           llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:           vector.store %{{.*}}, %[[OUT]]
// CHECK:         } {decoda.parallel_all_dims}
// CHECK:         memref.dealloc %[[KP]]
// CHECK:         return %[[OUT]]
// CHECK-LABEL: func.func @gqa(
// CHECK:         call @__decoda_int8_attention(
// Before bufferization the pass leaves the function alone:
// TENSORS:       remark: decoda-cpu-int8-attention: keeps the scalar INT8 attention of '__decoda_int8_attention': an operand that is not an identity-layout buffer (not yet bufferized?)
func.func @gqa(%q: tensor<1x?x8x16xf32>, %k: tensor<1x?x2x16xf32>, %v: tensor<1x?x2x16xf32>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x?x8x16xf32> {
  %o = decoda.attention %q, %k, %v quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x?x8x16xf32>, tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>
  return %o : tensor<1x?x8x16xf32>
}

// -----

// cached_attention: the append stays at the call site (in place in the cache buffer); the
// kernel reads the caches up to offset + T. Sinks, a window and a softcap are in the
// configuration; tanh too is a polynomial.
// CHECK-LABEL: func.func private @__decoda_int8_attention(
// CHECK-SAME:    attributes {decoda.int8_attention = {causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 1 : i64, scale = 1.250000e-01 : f64, segment_ids = false, sinks = true, softcap = 5.000000e+01 : f64, window = 8 : i64}}
// CHECK-NOT:     math.tanh
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT:     math.tanh
// CHECK:         return
// CHECK-LABEL: func.func @decode(
// CHECK:         %[[LEN:.*]] = arith.addi %{{.*}}, %c1 : index
// CHECK:         memref.subview
// CHECK:         memref.copy
// CHECK:         call @__decoda_int8_attention(%{{.*}}, %{{.*}}, %{{.*}}, %[[LEN]],
func.func @decode(%q: tensor<1x1x4x64xf32>, %k: tensor<1x1x1x64xf32>, %v: tensor<1x1x1x64xf32>, %kc: tensor<1x64x1x64xf32>, %vc: tensor<1x64x1x64xf32>, %off: index, %s: tensor<4xf32>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> (tensor<1x1x4x64xf32>, tensor<1x64x1x64xf32>) {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] sinks(%s : tensor<4xf32>) quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal, window = 8 : i64, softcap = 50.0 : f64} : tensor<1x1x4x64xf32>, tensor<1x1x1x64xf32>, tensor<1x1x1x64xf32>, tensor<1x64x1x64xf32>, tensor<1x64x1x64xf32>
  return %o, %kc2 : tensor<1x1x4x64xf32>, tensor<1x64x1x64xf32>
}

// -----

// Dv = 24 is not a multiple of 16: the scalar form stays (a remark names the function).
// CHECK-LABEL: func.func private @__decoda_int8_attention(
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         linalg.generic
// CHECK:         return
// CHECK-LABEL: func.func @dv24(
// CHECK:         call @__decoda_int8_attention(
func.func @dv24(%q: tensor<1x8x2x16xf32>, %k: tensor<1x8x2x16xf32>, %v: tensor<1x8x2x24xf32>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x8x2x24xf32> {
  // expected-remark @+1 {{decoda-cpu-int8-attention: keeps the scalar INT8 attention of '__decoda_int8_attention': value head dim Dv not a multiple of 16}}
  %o = decoda.attention %q, %k, %v quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 2 : i64, num_kv_heads = 2 : i64} : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x24xf32>
  return %o : tensor<1x8x2x24xf32>
}

// -----

// Untagged functions (float attention) are left alone.
// CHECK-LABEL: func.func @float_attention(
// CHECK-NOT:     llvm.call_intrinsic
// CHECK-NOT:     call @
// CHECK:         return
func.func @float_attention(%q: tensor<1x8x2x16xf32>, %k: tensor<1x8x2x16xf32>, %v: tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 2 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}
