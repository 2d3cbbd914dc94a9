// decoda-gpu-flash-attention: an attention call whose K is two buffers concatenated along the
// head dim, as absorbed MLA's [c ; k_rope] bufferizes (an alloc filled by two memref.copy into
// its column ranges, expanded to one K/V head), takes the sources themselves when the SIMT
// kernel takes the call: the latent as K (its first 512 columns), the RoPE key appended as the
// function's last operand, and the copies and the buffer go; the kernel's 16-byte chunk loads
// pick the buffer by column. V, the first 512 columns of K (flash-attention-v-from-k.mlir),
// then views the latent. Not when: the split is not a whole 16-byte chunk, a source may be
// written between its copy and the call, the buffer has another reader, one copy fills only
// part of it, or a tensor-core kernel takes the call. Numerics:
// flash-attention-v-from-k-sim.mlir (decoda.mla with absorb-mla, f32 and bf16).
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention="max-shared-bytes=232448 report=true" --verify-diagnostics | FileCheck %s

// The bufferized absorbed form, bf16: the call takes the latent and the RoPE key through the
// expand_shape K had; the function gets a fifth operand; no copy or alloc is left.
// CHECK-LABEL: func.func private @mla(
// CHECK-SAME: %{{.*}}: memref<1x1x16x576xbf16>, %[[K:.*]]: memref<1x?x1x512xbf16>, %{{.*}}: memref<1x?x1x512xbf16, strided<[?, 512, 512, 1]>>, %{{.*}}: index, %[[K2:.*]]: memref<1x?x1x64xbf16>)
// CHECK: arith.constant 110720 : i32
// CHECK: scf.if
// CHECK: vector.load %[[K]]
// CHECK: else
// CHECK: vector.load %[[K2]]
// CHECK: gpu.terminator
// CHECK-LABEL: func.func @call_mla(
// CHECK-SAME: %{{.*}}: memref<1x1x16x576xbf16>, %[[C:.*]]: memref<1x?x512xbf16>, %[[KR:.*]]: memref<1x?x64xbf16>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: %[[EC:.*]] = memref.expand_shape %[[C]] {{\[}}[0], [1], [2, 3]] output_shape [1, %{{.*}}, 1, 512]
// CHECK: %[[ER:.*]] = memref.expand_shape %[[KR]] {{\[}}[0], [1], [2, 3]] output_shape [1, %{{.*}}, 1, 64]
// CHECK: %[[V:.*]] = memref.subview %[[EC]][0, 0, 0, 0]
// CHECK: call @mla(%{{.*}}, %[[EC]], %[[V]], %{{.*}}, %[[ER]])
// CHECK-NOT: memref.dealloc
// CHECK: return
// expected-remark @+2 {{V is the first 512 columns of K: P·V reads the K tile}}
// expected-remark @+1 {{decoda.attention reads K from the two buffers its columns were copied from (0 .. 511, 512 .. 575); the copies go}}
func.func private @mla(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %v: memref<1x?x1x512xbf16>, %n: index) -> memref<1x1x16x512xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}
func.func @call_mla(%q: memref<1x1x16x576xbf16>, %c: memref<1x?x512xbf16>, %kr: memref<1x?x64xbf16>) -> memref<1x1x16x512xbf16> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %c, %c1 : memref<1x?x512xbf16>
  %buf = memref.alloc(%n) : memref<1x?x576xbf16>
  %s1 = memref.subview %buf[0, 0, 0] [1, %n, 512] [1, 1, 1] : memref<1x?x576xbf16> to memref<1x?x512xbf16, strided<[?, 576, 1]>>
  memref.copy %c, %s1 : memref<1x?x512xbf16> to memref<1x?x512xbf16, strided<[?, 576, 1]>>
  %s2 = memref.subview %buf[0, 0, 512] [1, %n, 64] [1, 1, 1] : memref<1x?x576xbf16> to memref<1x?x64xbf16, strided<[?, 576, 1], offset: 512>>
  memref.copy %kr, %s2 : memref<1x?x64xbf16> to memref<1x?x64xbf16, strided<[?, 576, 1], offset: 512>>
  %k = memref.expand_shape %buf [[0], [1], [2, 3]] output_shape [1, %n, 1, 576] : memref<1x?x576xbf16> into memref<1x?x1x576xbf16>
  %sv = memref.subview %k[0, 0, 0, 0] [1, %n, 1, 512] [1, 1, 1, 1] : memref<1x?x1x576xbf16> to memref<1x?x1x512xbf16, strided<[?, 576, 576, 1]>>
  %v = memref.alloc(%n) : memref<1x?x1x512xbf16>
  memref.copy %sv, %v : memref<1x?x1x512xbf16, strided<[?, 576, 576, 1]>> to memref<1x?x1x512xbf16>
  %o = call @mla(%q, %k, %v, %n) : (memref<1x1x16x576xbf16>, memref<1x?x1x576xbf16>, memref<1x?x1x512xbf16>, index) -> memref<1x1x16x512xbf16>
  memref.dealloc %v : memref<1x?x1x512xbf16>
  memref.dealloc %buf : memref<1x?x576xbf16>
  return %o : memref<1x1x16x512xbf16>
}

// -----

// K a rank-4 buffer filled directly (no expand_shape), V a buffer of its own (read as before):
// f32, the split at column 256 (64 chunks of 4) of 320.
// CHECK-LABEL: func.func private @direct(
// CHECK-SAME: %[[K:[^:]*]]: memref<1x?x2x256xf32, strided<[?, 1024, 512, 1]>>, %{{.*}}: memref<1x?x2x128xf32>, %{{.*}}: index, %[[K2:[^:]*]]: memref<1x?x2x64xf32>)
// CHECK: vector.load %[[K]]
// CHECK: vector.load %[[K2]]
// CHECK-LABEL: func.func @call_direct(
// CHECK: %[[SUB:.*]] = memref.subview %arg1[0, 0, 0, 0] [1, %{{.*}}, 2, 256]
// CHECK: call @direct(%arg0, %[[SUB]], %{{.*}}, %{{.*}}, %arg2)
// expected-remark @+2 {{f32 storage (the tensor-core kernel takes bf16 and f16) (its tiles in}}
// expected-remark @+1 {{reads K from the two buffers its columns were copied from (0 .. 255, 256 .. 319); the copies go}}
func.func private @direct(%q: memref<1x?x4x320xf32>, %k: memref<1x?x2x320xf32>, %v: memref<1x?x2x128xf32>, %n: index) -> memref<1x?x4x128xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.0625 : f64, segment_ids = false, sinks = false}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<1x?x4x320xf32>
  %o = memref.alloc(%t) : memref<1x?x4x128xf32>
  return %o : memref<1x?x4x128xf32>
}
func.func @call_direct(%q: memref<1x?x4x320xf32>, %a: memref<1x?x2x512xf32>, %r: memref<1x?x2x64xf32>, %v: memref<1x?x2x128xf32>) -> memref<1x?x4x128xf32> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %r, %c1 : memref<1x?x2x64xf32>
  %a1 = memref.subview %a[0, 0, 0, 0] [1, %n, 2, 256] [1, 1, 1, 1] : memref<1x?x2x512xf32> to memref<1x?x2x256xf32, strided<[?, 1024, 512, 1]>>
  %buf = memref.alloc(%n) : memref<1x?x2x320xf32>
  %s1 = memref.subview %buf[0, 0, 0, 0] [1, %n, 2, 256] [1, 1, 1, 1] : memref<1x?x2x320xf32> to memref<1x?x2x256xf32, strided<[?, 640, 320, 1]>>
  memref.copy %a1, %s1 : memref<1x?x2x256xf32, strided<[?, 1024, 512, 1]>> to memref<1x?x2x256xf32, strided<[?, 640, 320, 1]>>
  %s2 = memref.subview %buf[0, 0, 0, 256] [1, %n, 2, 64] [1, 1, 1, 1] : memref<1x?x2x320xf32> to memref<1x?x2x64xf32, strided<[?, 640, 320, 1], offset: 256>>
  memref.copy %r, %s2 : memref<1x?x2x64xf32> to memref<1x?x2x64xf32, strided<[?, 640, 320, 1], offset: 256>>
  %o = call @direct(%q, %buf, %v, %n) : (memref<1x?x4x320xf32>, memref<1x?x2x320xf32>, memref<1x?x2x128xf32>, index) -> memref<1x?x4x128xf32>
  memref.dealloc %buf : memref<1x?x2x320xf32>
  return %o : memref<1x?x4x128xf32>
}

// -----

// The split at column 508 is not a whole 16-byte chunk (8 bf16): the copies stay.
// CHECK-LABEL: func.func @call_misaligned(
// CHECK-COUNT-2: memref.copy
// CHECK: call @misaligned(
// expected-remark @+1 {{(its tiles in 176384 bytes of dynamic shared memory)}}
func.func private @misaligned(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %v: memref<1x?x1x512xbf16>, %n: index) -> memref<1x1x16x512xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}
func.func @call_misaligned(%q: memref<1x1x16x576xbf16>, %c: memref<1x?x508xbf16>, %kr: memref<1x?x68xbf16>, %v: memref<1x?x1x512xbf16>) -> memref<1x1x16x512xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %c, %c1 : memref<1x?x508xbf16>
  %buf = memref.alloc(%n) : memref<1x?x576xbf16>
  %s1 = memref.subview %buf[0, 0, 0] [1, %n, 508] [1, 1, 1] : memref<1x?x576xbf16> to memref<1x?x508xbf16, strided<[?, 576, 1]>>
  memref.copy %c, %s1 : memref<1x?x508xbf16> to memref<1x?x508xbf16, strided<[?, 576, 1]>>
  %s2 = memref.subview %buf[0, 0, 508] [1, %n, 68] [1, 1, 1] : memref<1x?x576xbf16> to memref<1x?x68xbf16, strided<[?, 576, 1], offset: 508>>
  memref.copy %kr, %s2 : memref<1x?x68xbf16> to memref<1x?x68xbf16, strided<[?, 576, 1], offset: 508>>
  %k = memref.expand_shape %buf [[0], [1], [2, 3]] output_shape [1, %n, 1, 576] : memref<1x?x576xbf16> into memref<1x?x1x576xbf16>
  %o = call @misaligned(%q, %k, %v, %n) : (memref<1x1x16x576xbf16>, memref<1x?x1x576xbf16>, memref<1x?x1x512xbf16>, index) -> memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}

// -----

// The RoPE key written between its copy and the call: the copies stay.
// CHECK-LABEL: func.func @call_written(
// CHECK-COUNT-2: memref.copy
// CHECK: memref.store
// CHECK: call @written(
// expected-remark @+1 {{(its tiles in 176384 bytes of dynamic shared memory)}}
func.func private @written(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %v: memref<1x?x1x512xbf16>, %n: index) -> memref<1x1x16x512xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}
func.func @call_written(%q: memref<1x1x16x576xbf16>, %c: memref<1x?x512xbf16>, %kr: memref<1x?x64xbf16>, %v: memref<1x?x1x512xbf16>, %x: bf16) -> memref<1x1x16x512xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %c, %c1 : memref<1x?x512xbf16>
  %buf = memref.alloc(%n) : memref<1x?x576xbf16>
  %s1 = memref.subview %buf[0, 0, 0] [1, %n, 512] [1, 1, 1] : memref<1x?x576xbf16> to memref<1x?x512xbf16, strided<[?, 576, 1]>>
  memref.copy %c, %s1 : memref<1x?x512xbf16> to memref<1x?x512xbf16, strided<[?, 576, 1]>>
  %s2 = memref.subview %buf[0, 0, 512] [1, %n, 64] [1, 1, 1] : memref<1x?x576xbf16> to memref<1x?x64xbf16, strided<[?, 576, 1], offset: 512>>
  memref.copy %kr, %s2 : memref<1x?x64xbf16> to memref<1x?x64xbf16, strided<[?, 576, 1], offset: 512>>
  memref.store %x, %kr[%c0, %c0, %c0] : memref<1x?x64xbf16>
  %k = memref.expand_shape %buf [[0], [1], [2, 3]] output_shape [1, %n, 1, 576] : memref<1x?x576xbf16> into memref<1x?x1x576xbf16>
  %o = call @written(%q, %k, %v, %n) : (memref<1x1x16x576xbf16>, memref<1x?x1x576xbf16>, memref<1x?x1x512xbf16>, index) -> memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}

// -----

// The concatenated buffer read after the call too (another reader): the copies stay.
// CHECK-LABEL: func.func @call_reread(
// CHECK-COUNT-2: memref.copy
// CHECK: call @reread(
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<1x?x576xbf16>
// expected-remark @+1 {{(its tiles in 176384 bytes of dynamic shared memory)}}
func.func private @reread(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %v: memref<1x?x1x512xbf16>, %n: index) -> memref<1x1x16x512xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}
func.func @call_reread(%q: memref<1x1x16x576xbf16>, %c: memref<1x?x512xbf16>, %kr: memref<1x?x64xbf16>, %v: memref<1x?x1x512xbf16>) -> memref<1x1x16x512xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %c, %c1 : memref<1x?x512xbf16>
  %buf = memref.alloc(%n) : memref<1x?x576xbf16>
  %s1 = memref.subview %buf[0, 0, 0] [1, %n, 512] [1, 1, 1] : memref<1x?x576xbf16> to memref<1x?x512xbf16, strided<[?, 576, 1]>>
  memref.copy %c, %s1 : memref<1x?x512xbf16> to memref<1x?x512xbf16, strided<[?, 576, 1]>>
  %s2 = memref.subview %buf[0, 0, 512] [1, %n, 64] [1, 1, 1] : memref<1x?x576xbf16> to memref<1x?x64xbf16, strided<[?, 576, 1], offset: 512>>
  memref.copy %kr, %s2 : memref<1x?x64xbf16> to memref<1x?x64xbf16, strided<[?, 576, 1], offset: 512>>
  %k = memref.expand_shape %buf [[0], [1], [2, 3]] output_shape [1, %n, 1, 576] : memref<1x?x576xbf16> into memref<1x?x1x576xbf16>
  %o = call @reread(%q, %k, %v, %n) : (memref<1x1x16x576xbf16>, memref<1x?x1x576xbf16>, memref<1x?x1x512xbf16>, index) -> memref<1x1x16x512xbf16>
  %x = memref.load %buf[%c0, %c0, %c0] : memref<1x?x576xbf16>
  memref.store %x, %c[%c0, %c0, %c0] : memref<1x?x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}

// -----

// Only the latent copied in (the RoPE columns never written): not two parts, left alone.
// CHECK-LABEL: func.func @call_partial(
// CHECK: memref.copy
// CHECK: call @partial(
// expected-remark @+1 {{(its tiles in 176384 bytes of dynamic shared memory)}}
func.func private @partial(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %v: memref<1x?x1x512xbf16>, %n: index) -> memref<1x1x16x512xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}
func.func @call_partial(%q: memref<1x1x16x576xbf16>, %c: memref<1x?x512xbf16>, %kr: memref<1x?x64xbf16>, %v: memref<1x?x1x512xbf16>) -> memref<1x1x16x512xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %c, %c1 : memref<1x?x512xbf16>
  %buf = memref.alloc(%n) : memref<1x?x576xbf16>
  %s1 = memref.subview %buf[0, 0, 0] [1, %n, 512] [1, 1, 1] : memref<1x?x576xbf16> to memref<1x?x512xbf16, strided<[?, 576, 1]>>
  memref.copy %c, %s1 : memref<1x?x512xbf16> to memref<1x?x512xbf16, strided<[?, 576, 1]>>
  %k = memref.expand_shape %buf [[0], [1], [2, 3]] output_shape [1, %n, 1, 576] : memref<1x?x576xbf16> into memref<1x?x1x576xbf16>
  %o = call @partial(%q, %k, %v, %n) : (memref<1x1x16x576xbf16>, memref<1x?x1x576xbf16>, memref<1x?x1x512xbf16>, index) -> memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}

// -----

// bf16 at D = 128 (64 + 64): the tensor-core kernel takes the call, its K stays one buffer.
// CHECK-LABEL: func.func @call_tensor_core(
// CHECK-COUNT-2: memref.copy
// CHECK: call @tensor_core(
func.func private @tensor_core(%q: memref<1x1x8x128xbf16>, %k: memref<1x?x1x128xbf16>, %v: memref<1x?x1x128xbf16>, %n: index) -> memref<1x1x8x128xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 8 : i64, num_kv_heads = 1 : i64, scale = 0.088 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x8x128xbf16>
  return %o : memref<1x1x8x128xbf16>
}
func.func @call_tensor_core(%q: memref<1x1x8x128xbf16>, %c: memref<1x?x64xbf16>, %kr: memref<1x?x64xbf16>, %v: memref<1x?x1x128xbf16>) -> memref<1x1x8x128xbf16> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %c, %c1 : memref<1x?x64xbf16>
  %buf = memref.alloc(%n) : memref<1x?x128xbf16>
  %s1 = memref.subview %buf[0, 0, 0] [1, %n, 64] [1, 1, 1] : memref<1x?x128xbf16> to memref<1x?x64xbf16, strided<[?, 128, 1]>>
  memref.copy %c, %s1 : memref<1x?x64xbf16> to memref<1x?x64xbf16, strided<[?, 128, 1]>>
  %s2 = memref.subview %buf[0, 0, 64] [1, %n, 64] [1, 1, 1] : memref<1x?x128xbf16> to memref<1x?x64xbf16, strided<[?, 128, 1], offset: 64>>
  memref.copy %kr, %s2 : memref<1x?x64xbf16> to memref<1x?x64xbf16, strided<[?, 128, 1], offset: 64>>
  %k = memref.expand_shape %buf [[0], [1], [2, 3]] output_shape [1, %n, 1, 128] : memref<1x?x128xbf16> into memref<1x?x1x128xbf16>
  %o = call @tensor_core(%q, %k, %v, %n) : (memref<1x1x8x128xbf16>, memref<1x?x1x128xbf16>, memref<1x?x1x128xbf16>, index) -> memref<1x1x8x128xbf16>
  return %o : memref<1x1x8x128xbf16>
}

// -----

// V = columns 64 .. 575 of the concatenated K (forwarded as a subview of it): its columns
// pass the latent's 512, so K stays one buffer (V's view could not move to the latent).
// CHECK-LABEL: func.func @call_v_across(
// CHECK-COUNT-2: memref.copy
// CHECK: call @v_across(
// expected-remark @+1 {{(its tiles in 176384 bytes of dynamic shared memory)}}
func.func private @v_across(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %v: memref<1x?x1x512xbf16>, %n: index) -> memref<1x1x16x512xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}
func.func @call_v_across(%q: memref<1x1x16x576xbf16>, %c: memref<1x?x512xbf16>, %kr: memref<1x?x64xbf16>) -> memref<1x1x16x512xbf16> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %c, %c1 : memref<1x?x512xbf16>
  %buf = memref.alloc(%n) : memref<1x?x576xbf16>
  %s1 = memref.subview %buf[0, 0, 0] [1, %n, 512] [1, 1, 1] : memref<1x?x576xbf16> to memref<1x?x512xbf16, strided<[?, 576, 1]>>
  memref.copy %c, %s1 : memref<1x?x512xbf16> to memref<1x?x512xbf16, strided<[?, 576, 1]>>
  %s2 = memref.subview %buf[0, 0, 512] [1, %n, 64] [1, 1, 1] : memref<1x?x576xbf16> to memref<1x?x64xbf16, strided<[?, 576, 1], offset: 512>>
  memref.copy %kr, %s2 : memref<1x?x64xbf16> to memref<1x?x64xbf16, strided<[?, 576, 1], offset: 512>>
  %k = memref.expand_shape %buf [[0], [1], [2, 3]] output_shape [1, %n, 1, 576] : memref<1x?x576xbf16> into memref<1x?x1x576xbf16>
  %sv = memref.subview %k[0, 0, 0, 64] [1, %n, 1, 512] [1, 1, 1, 1] : memref<1x?x1x576xbf16> to memref<1x?x1x512xbf16, strided<[?, 576, 576, 1], offset: 64>>
  %v = memref.alloc(%n) : memref<1x?x1x512xbf16>
  memref.copy %sv, %v : memref<1x?x1x512xbf16, strided<[?, 576, 576, 1], offset: 64>> to memref<1x?x1x512xbf16>
  %o = call @v_across(%q, %k, %v, %n) : (memref<1x1x16x576xbf16>, memref<1x?x1x576xbf16>, memref<1x?x1x512xbf16>, index) -> memref<1x1x16x512xbf16>
  memref.dealloc %v : memref<1x?x1x512xbf16>
  memref.dealloc %buf : memref<1x?x576xbf16>
  return %o : memref<1x1x16x512xbf16>
}
