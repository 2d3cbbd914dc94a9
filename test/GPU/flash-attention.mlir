// decoda-gpu-flash-attention: the body of a decoda.gpu_attention function (made by
// decoda-convert-to-linalg{gpu-kernel-calls}, here written after bufferization) becomes one
// gpu.launch: 128 threads, blocks of 16 (query, head) rows of one K/V head, shared Q/K/V
// tiles, barriers around each key tile, warp shuffles for the row max / sum and the P·V
// broadcast. Unsupported configurations keep their body, with a remark naming the op.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func private @__decoda_gpu_attention(
// CHECK-SAME: %[[Q:.*]]: memref<1x?x4x32xbf16>, %[[K:.*]]: memref<1x?x2x32xbf16>, %[[V:.*]]: memref<1x?x2x32xbf16>, %[[N:.*]]: index)
// CHECK-NOT: decoda.gpu_attention
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) : memref<1x?x4x32xbf16>
// CHECK: scf.if
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %c2{{.*}}, %{{.*}} = %{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[QS:.*]] : memref<16x32xf32, #gpu.address_space<workgroup>>, %[[KS:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>>, %[[VS:.*]] : memref<32x32xf32, #gpu.address_space<workgroup>>)
// CHECK: memref.store %{{.*}}, %[[QS]]
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[KS]]
// CHECK: memref.store %{{.*}}, %[[VS]]
// CHECK: gpu.barrier
// CHECK: math.fma
// CHECK: arith.cmpi sle
// CHECK: gpu.shuffle  xor
// CHECK: math.exp
// CHECK: gpu.shuffle  idx
// CHECK: scf.yield
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK: gpu.terminator
// CHECK: return %[[OUT]]
func.func private @__decoda_gpu_attention(%q: memref<1x?x4x32xbf16>, %k: memref<1x?x2x32xbf16>, %v: memref<1x?x2x32xbf16>, %n: index) -> memref<1x?x4x32xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.17677669529663687 : f64, segment_ids = false, sinks = false}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<1x?x4x32xbf16>
  %o = memref.alloc(%t) : memref<1x?x4x32xbf16>
  return %o : memref<1x?x4x32xbf16>
}

// -----

// Sinks, a window and a mask: read inside the kernel.
// CHECK-LABEL: func.func private @extras(
// CHECK: gpu.launch
// CHECK: memref.load %arg4
// CHECK: memref.load %arg5
// CHECK: gpu.terminator
func.func private @extras(%q: memref<2x8x2x16xf32>, %k: memref<2x8x2x16xf32>, %v: memref<2x8x2x16xf32>, %n: index, %m: memref<1x2x8x8xf32>, %s: memref<2xf32>) -> memref<2x8x2x16xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, window = 4 : i64, mask = true, num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.25 : f64, segment_ids = false, sinks = true}} {
  %o = memref.alloc() : memref<2x8x2x16xf32>
  return %o : memref<2x8x2x16xf32>
}

// -----

// Head dim 256: the f32 tiles would need 82 KiB of shared memory.
// CHECK-LABEL: func.func private @big(
// CHECK-NOT: gpu.launch
// CHECK: linalg.fill
// expected-remark @+1 {{decoda-gpu-flash-attention: decoda.cached_attention keeps the target-neutral lowering (key-tile loop of kernels): the tiles need 82048 bytes of shared memory, over the 48 KiB static limit (head dims 256, 256)}}
func.func private @big(%q: memref<1x4x1x256xf32>, %k: memref<1x4x1x256xf32>, %v: memref<1x4x1x256xf32>, %n: index) -> memref<1x4x1x256xf32>
    attributes {decoda.gpu_attention = {op = "decoda.cached_attention", causal = true, mask = false, num_heads = 1 : i64, num_kv_heads = 1 : i64, scale = 0.0625 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x4x1x256xf32>
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%o : memref<1x4x1x256xf32>)
  return %o : memref<1x4x1x256xf32>
}

// -----

// Not yet bufferized (tensors), a malformed configuration, and an untagged function.
// CHECK-LABEL: func.func private @tensors(
// CHECK-NOT: gpu.launch
// CHECK-LABEL: func.func private @groups(
// CHECK-NOT: gpu.launch
// CHECK-LABEL: func.func @plain(
// CHECK-NOT: gpu.launch
// expected-remark @+1 {{an operand that is not an identity-layout buffer (not yet bufferized?)}}
func.func private @tensors(%q: tensor<1x4x1x32xf32>, %k: tensor<1x4x1x32xf32>, %v: tensor<1x4x1x32xf32>, %n: index) -> tensor<1x4x1x32xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = false, mask = false, num_heads = 1 : i64, num_kv_heads = 1 : i64, scale = 1.0 : f64, segment_ids = false, sinks = false}} {
  return %q : tensor<1x4x1x32xf32>
}
// expected-remark @+1 {{malformed configuration}}
func.func private @groups(%q: memref<1x4x3x32xf32>, %k: memref<1x4x2x32xf32>, %v: memref<1x4x2x32xf32>, %n: index) -> memref<1x4x3x32xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = false, mask = false, num_heads = 3 : i64, num_kv_heads = 2 : i64, scale = 1.0 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x4x3x32xf32>
  return %o : memref<1x4x3x32xf32>
}
func.func @plain(%q: memref<1x4x1x32xf32>) -> memref<1x4x1x32xf32> {
  return %q : memref<1x4x1x32xf32>
}
