// decoda-gpu-flash-attention{max-shared-bytes}: the SIMT kernel's tiles (Qs [16][D],
// Ks [32][D + 1], Vs [32][32 ceil(Dv / 32) + 1], f32) over the 48 KiB of static shared memory
// are views of the block's dynamic shared memory, up to the limit the option gives (the
// pipeline sets the arch's: 232448 bytes on sm_90). Calls whose tiles exceed it keep the
// target-neutral body with a remark naming the limit. RUN 1: sm_90's limit; RUN 2: the
// default (48 KiB) keeps the old refusal; RUN 3: sm_80's 163 KiB; RUN 4: values out of range.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention="max-shared-bytes=232448 report=true" --verify-diagnostics | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention 2>&1 >/dev/null | FileCheck %s --check-prefix=STATIC
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention 2>/dev/null | FileCheck %s --check-prefix=STATICIR
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention="max-shared-bytes=166912" 2>&1 >/dev/null | FileCheck %s --check-prefix=SM80
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention="max-shared-bytes=166912" 2>/dev/null | FileCheck %s --check-prefix=SM80IR
// STATICIR-NOT: gpu.launch
// RUN: not decoda-opt %s --decoda-gpu-flash-attention="max-shared-bytes=1024" 2>&1 | FileCheck %s --check-prefix=LOW
// RUN: not decoda-opt %s --decoda-gpu-flash-attention="max-shared-bytes=300000" 2>&1 | FileCheck %s --check-prefix=HIGH
// LOW: decoda-gpu-flash-attention: max-shared-bytes must be between 49152 (the static limit) and 232448 (sm_90's) (got 1024)
// HIGH: decoda-gpu-flash-attention: max-shared-bytes must be between 49152 (the static limit) and 232448 (sm_90's) (got 300000)

// f32 at head dim 256: 82176 = 4 (16 x 256 + 32 x 257 + 32 x 257) bytes of tiles, dynamic, the
// views at byte offsets 0, 16384 and 49280 (no workgroup attributions).
// CHECK-LABEL: func.func private @f32_d256(
// CHECK: %[[BYTES:.*]] = arith.constant 82176 : i32
// CHECK: gpu.launch blocks({{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) dynamic_shared_memory_size %[[BYTES]]
// CHECK-NOT: workgroup(
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[QS:.*]] = memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x256xf32, #gpu.address_space<workgroup>>
// CHECK: %[[KS:.*]] = memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x257xf32, #gpu.address_space<workgroup>>
// CHECK: %[[VS:.*]] = memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x257xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[QS]]
// CHECK: memref.store %{{.*}}, %[[KS]]
// CHECK: memref.store %{{.*}}, %[[VS]]
// CHECK: gpu.terminator
// STATIC: remark: decoda-gpu-flash-attention: decoda.attention keeps the target-neutral lowering (key-tile loop of kernels): the tiles need 82176 bytes of shared memory, over the 49152 a block may use on the target (max-shared-bytes; head dims 256, 256); no tensor-core kernel: f32 storage
// SM80IR-LABEL: func.func private @f32_d256(
// SM80IR: dynamic_shared_memory_size
// expected-remark @+1 {{decoda.attention takes the f32 SIMT kernel, not the tensor-core one: f32 storage (the tensor-core kernel takes bf16 and f16) (its tiles in 82176 bytes of dynamic shared memory)}}
func.func private @f32_d256(%q: memref<1x?x4x256xf32>, %k: memref<1x?x2x256xf32>, %v: memref<1x?x2x256xf32>, %n: index) -> memref<1x?x4x256xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.0625 : f64, segment_ids = false, sinks = false}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<1x?x4x256xf32>
  %o = memref.alloc(%t) : memref<1x?x4x256xf32>
  return %o : memref<1x?x4x256xf32>
}

// -----

// Absorbed MLA's decode step (bf16, D = 576, Dv = 512, MQA of 16 heads, one static query):
// 176384 bytes of tiles; the 16 rows fit one block, so the keys are split over blocks
// (the SIMT split form with the same dynamic tiles) and a second kernel combines. With
// sm_80's 166912 bytes the tiles do not fit.
// CHECK-LABEL: func.func private @mla_decode(
// CHECK: %[[BYTES:.*]] = arith.constant 176384 : i32
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %[[BYTES]]
// CHECK: memref.view {{.*}} to memref<16x576xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<32x577xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<32x513xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.terminator
// The combining kernel: no shared memory.
// CHECK: gpu.launch
// CHECK-NOT: dynamic_shared_memory_size
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
// STATIC: the tiles need 176384 bytes of shared memory, over the 49152 a block may use on the target (max-shared-bytes; head dims 576, 512); no tensor-core kernel: head dims 576, 512 over 128
// SM80IR-LABEL: func.func private @mla_decode(
// SM80IR-NOT: gpu.launch
// SM80IR: return
// SM80: the tiles need 176384 bytes of shared memory, over the 166912 a block may use on the target (max-shared-bytes; head dims 576, 512)
// expected-remark @+1 {{decoda.attention takes the f32 SIMT kernel, not the tensor-core one: head dims 576, 512 over 128 (Q fragments and accumulators would not fit in registers) (its tiles in 176384 bytes of dynamic shared memory)}}
func.func private @mla_decode(%q: memref<4x1x16x576xbf16>, %k: memref<4x?x1x576xbf16>, %v: memref<4x?x1x512xbf16>, %n: index) -> memref<4x1x16x512xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 16 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<4x1x16x512xbf16>
  return %o : memref<4x1x16x512xbf16>
}

// -----

// Over every limit: bf16 at head dim 768 needs 246016 bytes of tiles.
// CHECK-LABEL: func.func private @d768(
// CHECK-NOT: gpu.launch
// CHECK: return
// STATIC: the tiles need 246016 bytes of shared memory, over the 49152 a block
// SM80: the tiles need 246016 bytes of shared memory, over the 166912 a block
// expected-remark @+1 {{decoda.attention keeps the target-neutral lowering (key-tile loop of kernels): the tiles need 246016 bytes of shared memory, over the 232448 a block may use on the target (max-shared-bytes; head dims 768, 768); no tensor-core kernel: head dims 768, 768 over 128}}
func.func private @d768(%q: memref<1x4x1x768xbf16>, %k: memref<1x4x1x768xbf16>, %v: memref<1x4x1x768xbf16>, %n: index) -> memref<1x4x1x768xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 1 : i64, num_kv_heads = 1 : i64, scale = 0.036 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x4x1x768xbf16>
  return %o : memref<1x4x1x768xbf16>
}

// -----

// An empty value head dim: no kernel (the body stays; the SIMT kernel's P·V unroll divided by
// the value columns, 0 here).
// CHECK-LABEL: func.func private @dv0(
// CHECK-NOT: gpu.launch
// CHECK: return
// expected-remark @+1 {{decoda.attention keeps the target-neutral lowering (key-tile loop of kernels): an empty head dim}}
func.func private @dv0(%q: memref<1x4x1x32xf32>, %k: memref<1x4x1x32xf32>, %v: memref<1x4x1x0xf32>, %n: index) -> memref<1x4x1x0xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 1 : i64, num_kv_heads = 1 : i64, scale = 0.0625 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x4x1x0xf32>
  return %o : memref<1x4x1x0xf32>
}
