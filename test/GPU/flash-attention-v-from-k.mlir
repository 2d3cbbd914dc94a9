// decoda-gpu-flash-attention: an attention call whose V is the first Dv columns of its K (as
// decoda-absorb-mla gives absorbed MLA: K = [c ; k_rope], V = c taken as K's slice; after
// bufferization V is a buffer one memref.copy filled from a subview of K at offset 0) takes
// the SIMT kernel without a V tile: P·V reads the K tile (Ks [32][D + 1]), and the copy that
// made V goes (the call takes the subview, which the kernel does not read). Absorbed MLA:
// 4 (16 x 576 + 32 x 577) = 110720 bytes of tiles instead of 176384, so sm_80's 163 KiB hold
// them too. Not when V is another slice (offset 64), K may be written between the copy and
// the call, V comes from another buffer, or V's padded columns (32 a lane group) pass K's
// row. Numerics: flash-attention-v-from-k-sim.mlir.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention="max-shared-bytes=232448 report=true" --verify-diagnostics | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention="max-shared-bytes=166912" 2>&1 >/dev/null | FileCheck %s --check-prefix=SM80
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention="max-shared-bytes=166912" 2>/dev/null | FileCheck %s --check-prefix=SM80IR

// CHECK-LABEL: func.func private @mla_vk(
// CHECK-SAME: %{{.*}}: memref<1x?x1x512xbf16, strided<[?, 576, 576, 1]>>
// CHECK: %[[BYTES:.*]] = arith.constant 110720 : i32
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %[[BYTES]]
// CHECK: memref.view {{.*}} to memref<16x576xf32, #gpu.address_space<workgroup>>
// CHECK: %[[KS:.*]] = memref.view {{.*}} to memref<32x577xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.view
// CHECK: scf.for
// P·V: K's columns in Ks times the probabilities broadcast from their lanes.
// CHECK: memref.load %[[KS]]
// CHECK: gpu.shuffle idx
// CHECK: gpu.terminator
// CHECK-LABEL: func.func @call_mla_vk(
// CHECK: %[[SV:.*]] = memref.subview %[[K:arg[0-9]+]][0, 0, 0, 0]
// CHECK-NOT: memref.copy
// CHECK: call @mla_vk(%{{.*}}, %[[K]], %[[SV]], %{{.*}})
// CHECK-NOT: memref.dealloc
// CHECK: return
// SM80-NOT: keeps the target-neutral lowering
// SM80IR-LABEL: func.func private @mla_vk(
// SM80IR: dynamic_shared_memory_size
// expected-remark @+1 {{(its tiles in 110720 bytes of dynamic shared memory); V is the first 512 columns of K: P·V reads the K tile}}
func.func private @mla_vk(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %v: memref<1x?x1x512xbf16>, %n: index) -> memref<1x1x16x512xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}
func.func @call_mla_vk(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>) -> memref<1x1x16x512xbf16> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %k, %c1 : memref<1x?x1x576xbf16>
  %sv = memref.subview %k[0, 0, 0, 0] [1, %n, 1, 512] [1, 1, 1, 1] : memref<1x?x1x576xbf16> to memref<1x?x1x512xbf16, strided<[?, 576, 576, 1]>>
  %v = memref.alloc(%n) : memref<1x?x1x512xbf16>
  memref.copy %sv, %v : memref<1x?x1x512xbf16, strided<[?, 576, 576, 1]>> to memref<1x?x1x512xbf16>
  %o = call @mla_vk(%q, %k, %v, %n) : (memref<1x1x16x576xbf16>, memref<1x?x1x576xbf16>, memref<1x?x1x512xbf16>, index) -> memref<1x1x16x512xbf16>
  memref.dealloc %v : memref<1x?x1x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}

// -----

// V = columns 64 .. 575 of K: not its prefix, staged as before (a V tile, 176384 bytes; over
// sm_80's limit: the loop of kernels there). The copy is forwarded as any aligned view is.
// CHECK-LABEL: func.func private @mla_offset(
// CHECK: %[[BYTES:.*]] = arith.constant 176384 : i32
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %[[BYTES]]
// CHECK: memref.view {{.*}} to memref<32x577xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<32x513xf32, #gpu.address_space<workgroup>>
// SM80: remark: decoda-gpu-flash-attention: decoda.attention keeps the target-neutral lowering (key-tile loop of kernels): the tiles need 176384 bytes of shared memory, over the 166912
// expected-remark @+1 {{(its tiles in 176384 bytes of dynamic shared memory)}}
func.func private @mla_offset(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %v: memref<1x?x1x512xbf16>, %n: index) -> memref<1x1x16x512xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}
func.func @call_mla_offset(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>) -> memref<1x1x16x512xbf16> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %k, %c1 : memref<1x?x1x576xbf16>
  %sv = memref.subview %k[0, 0, 0, 64] [1, %n, 1, 512] [1, 1, 1, 1] : memref<1x?x1x576xbf16> to memref<1x?x1x512xbf16, strided<[?, 576, 576, 1], offset: 64>>
  %v = memref.alloc(%n) : memref<1x?x1x512xbf16>
  memref.copy %sv, %v : memref<1x?x1x512xbf16, strided<[?, 576, 576, 1], offset: 64>> to memref<1x?x1x512xbf16>
  %o = call @mla_offset(%q, %k, %v, %n) : (memref<1x1x16x576xbf16>, memref<1x?x1x576xbf16>, memref<1x?x1x512xbf16>, index) -> memref<1x1x16x512xbf16>
  memref.dealloc %v : memref<1x?x1x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}

// -----

// K written between the copy and the call: V holds K's old columns, staged from its own
// buffer (the copy stays).
// CHECK-LABEL: func.func private @mla_written(
// CHECK: arith.constant 176384 : i32
// CHECK-LABEL: func.func @call_mla_written(
// CHECK: memref.copy
// CHECK: memref.store
// CHECK: call @mla_written(
// expected-remark @+1 {{(its tiles in 176384 bytes of dynamic shared memory)}}
func.func private @mla_written(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %v: memref<1x?x1x512xbf16>, %n: index) -> memref<1x1x16x512xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}
func.func @call_mla_written(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %x: bf16) -> memref<1x1x16x512xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %k, %c1 : memref<1x?x1x576xbf16>
  %sv = memref.subview %k[0, 0, 0, 0] [1, %n, 1, 512] [1, 1, 1, 1] : memref<1x?x1x576xbf16> to memref<1x?x1x512xbf16, strided<[?, 576, 576, 1]>>
  %v = memref.alloc(%n) : memref<1x?x1x512xbf16>
  memref.copy %sv, %v : memref<1x?x1x512xbf16, strided<[?, 576, 576, 1]>> to memref<1x?x1x512xbf16>
  memref.store %x, %k[%c0, %c0, %c0, %c0] : memref<1x?x1x576xbf16>
  %o = call @mla_written(%q, %k, %v, %n) : (memref<1x1x16x576xbf16>, memref<1x?x1x576xbf16>, memref<1x?x1x512xbf16>, index) -> memref<1x1x16x512xbf16>
  memref.dealloc %v : memref<1x?x1x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}

// -----

// V copied from the prefix of another buffer than K: staged from V.
// CHECK-LABEL: func.func private @mla_other(
// CHECK: arith.constant 176384 : i32
// expected-remark @+1 {{(its tiles in 176384 bytes of dynamic shared memory)}}
func.func private @mla_other(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %v: memref<1x?x1x512xbf16>, %n: index) -> memref<1x1x16x512xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x16x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}
func.func @call_mla_other(%q: memref<1x1x16x576xbf16>, %k: memref<1x?x1x576xbf16>, %k2: memref<1x?x1x576xbf16>) -> memref<1x1x16x512xbf16> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %k, %c1 : memref<1x?x1x576xbf16>
  %sv = memref.subview %k2[0, 0, 0, 0] [1, %n, 1, 512] [1, 1, 1, 1] : memref<1x?x1x576xbf16> to memref<1x?x1x512xbf16, strided<[?, 576, 576, 1]>>
  %v = memref.alloc(%n) : memref<1x?x1x512xbf16>
  memref.copy %sv, %v : memref<1x?x1x512xbf16, strided<[?, 576, 576, 1]>> to memref<1x?x1x512xbf16>
  %o = call @mla_other(%q, %k, %v, %n) : (memref<1x1x16x576xbf16>, memref<1x?x1x576xbf16>, memref<1x?x1x512xbf16>, index) -> memref<1x1x16x512xbf16>
  memref.dealloc %v : memref<1x?x1x512xbf16>
  return %o : memref<1x1x16x512xbf16>
}

// -----

// Static tiles (f32, D = 70, Dv = 40, element-by-element staging): Qs and Ks only, the value
// columns padded to 64 within K's 70.
// CHECK-LABEL: func.func private @ragged_vk(
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<16x70xf32, #gpu.address_space<workgroup>>, %[[KS:.*]] : memref<32x71xf32, #gpu.address_space<workgroup>>) {
// CHECK: memref.load %[[KS]]
// CHECK: gpu.shuffle idx
// expected-remark @+1 {{f32 storage (the tensor-core kernel takes bf16 and f16); V is the first 40 columns of K: P·V reads the K tile}}
func.func private @ragged_vk(%q: memref<1x?x4x70xf32>, %k: memref<1x?x2x70xf32>, %v: memref<1x?x2x40xf32>, %n: index) -> memref<1x?x4x40xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.125 : f64, segment_ids = false, sinks = false}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<1x?x4x70xf32>
  %o = memref.alloc(%t) : memref<1x?x4x40xf32>
  return %o : memref<1x?x4x40xf32>
}
func.func @call_ragged_vk(%q: memref<1x?x4x70xf32>, %k: memref<1x?x2x70xf32>) -> memref<1x?x4x40xf32> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %k, %c1 : memref<1x?x2x70xf32>
  %sv = memref.subview %k[0, 0, 0, 0] [1, %n, 2, 40] [1, 1, 1, 1] : memref<1x?x2x70xf32> to memref<1x?x2x40xf32, strided<[?, 140, 70, 1]>>
  %v = memref.alloc(%n) : memref<1x?x2x40xf32>
  memref.copy %sv, %v : memref<1x?x2x40xf32, strided<[?, 140, 70, 1]>> to memref<1x?x2x40xf32>
  %o = call @ragged_vk(%q, %k, %v, %n) : (memref<1x?x4x70xf32>, memref<1x?x2x70xf32>, memref<1x?x2x40xf32>, index) -> memref<1x?x4x40xf32>
  memref.dealloc %v : memref<1x?x2x40xf32>
  return %o : memref<1x?x4x40xf32>
}

// -----

// D = 40, Dv = 36: the value columns padded to 64 would pass K's 40, so V keeps its tile.
// CHECK-LABEL: func.func private @narrow_k(
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<16x40xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x41xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x65xf32, #gpu.address_space<workgroup>>)
// expected-remark @+1 {{f32 storage (the tensor-core kernel takes bf16 and f16)}}
func.func private @narrow_k(%q: memref<1x?x4x40xf32>, %k: memref<1x?x2x40xf32>, %v: memref<1x?x2x36xf32>, %n: index) -> memref<1x?x4x36xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.125 : f64, segment_ids = false, sinks = false}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<1x?x4x40xf32>
  %o = memref.alloc(%t) : memref<1x?x4x36xf32>
  return %o : memref<1x?x4x36xf32>
}
func.func @call_narrow_k(%q: memref<1x?x4x40xf32>, %k: memref<1x?x2x40xf32>) -> memref<1x?x4x36xf32> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %k, %c1 : memref<1x?x2x40xf32>
  %sv = memref.subview %k[0, 0, 0, 0] [1, %n, 2, 36] [1, 1, 1, 1] : memref<1x?x2x40xf32> to memref<1x?x2x36xf32, strided<[?, 80, 40, 1]>>
  %v = memref.alloc(%n) : memref<1x?x2x36xf32>
  memref.copy %sv, %v : memref<1x?x2x36xf32, strided<[?, 80, 40, 1]>> to memref<1x?x2x36xf32>
  %o = call @narrow_k(%q, %k, %v, %n) : (memref<1x?x4x40xf32>, memref<1x?x2x40xf32>, memref<1x?x2x36xf32>, index) -> memref<1x?x4x36xf32>
  memref.dealloc %v : memref<1x?x2x36xf32>
  return %o : memref<1x?x4x36xf32>
}
