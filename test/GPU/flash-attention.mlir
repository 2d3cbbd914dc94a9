// decoda-gpu-flash-attention: the body of a decoda.gpu_attention function (made by
// decoda-convert-to-linalg{gpu-kernel-calls}, here written after bufferization) becomes one
// gpu.launch. bf16/f16 with head dims that are multiples of 16 up to 128 get the tensor-core
// kernel (128 threads, 64 rows per block, two cp.async stages of K/V tiles, ldmatrix and
// mma.sync for Q·Kᵀ and P·V, V through ldmatrix.trans, quad shuffles for the row max / sum);
// everything else the f32 SIMT kernel (blocks of 16 rows, shared Q/K/V tiles, barriers around
// each key tile, warp shuffles), with a remark naming the reason under report=true (RUN 1);
// tensor-cores=false gives the SIMT kernel to all (RUN 2). Configurations neither kernel takes
// keep their body, with a remark naming the op.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention=report=true --verify-diagnostics | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention=tensor-cores=false 2>/dev/null | FileCheck %s --check-prefix=SIMT

// CHECK-LABEL: func.func private @__decoda_gpu_attention(
// CHECK-SAME: %[[Q:.*]]: memref<1x?x4x32xbf16>, %[[K:.*]]: memref<1x?x2x32xbf16>, %[[V:.*]]: memref<1x?x2x32xbf16>, %[[N:.*]]: index)
// CHECK-NOT: decoda.gpu_attention
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) : memref<1x?x4x32xbf16>
// CHECK: scf.if
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %c2{{.*}}, %{{.*}} = %{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[KS:.*]] : memref<2x64x40xbf16, #gpu.address_space<workgroup>>, %[[VS:.*]] : memref<2x64x40xbf16, #gpu.address_space<workgroup>>)
// Q through the K stages into registers.
// CHECK: nvgpu.device_async_copy %[[Q]][{{.*}}], %[[KS]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[KS]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %[[KS]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK: gpu.barrier
// The first K/V tile, then the loop: prefetch of the next one, S = Q·Kᵀ, softmax, P·V.
// CHECK: nvgpu.device_async_copy %[[K]]
// CHECK: nvgpu.device_async_copy %[[V]]
// CHECK: scf.for
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy %[[K]]
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK: } else {
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[KS]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: arith.cmpi sle
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: %[[NB:.*]] = arith.negf
// CHECK: %[[ARG:.*]] = math.fma %{{.*}}, %{{.*}}, %[[NB]] : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[ARG]]) : (f32) -> f32
// CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: nvgpu.ldmatrix %[[VS]][{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.mma.sync
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK: gpu.terminator
// CHECK: return %[[OUT]]
// SIMT-LABEL: func.func private @__decoda_gpu_attention(
// SIMT-SAME: %[[Q:.*]]: memref<1x?x4x32xbf16>, %[[K:.*]]: memref<1x?x2x32xbf16>, %[[V:.*]]: memref<1x?x2x32xbf16>, %[[N:.*]]: index)
// SIMT-NOT: decoda.gpu_attention
// SIMT: %[[OUT:.*]] = memref.alloc(%{{.*}}) : memref<1x?x4x32xbf16>
// SIMT: scf.if
// SIMT: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %c2{{.*}}, %{{.*}} = %{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[QS:.*]] : memref<16x32xf32, #gpu.address_space<workgroup>>, %[[KS:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>>, %[[VS:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>>)
// SIMT: memref.store %{{.*}}, %[[QS]]
// SIMT: scf.for
// SIMT: gpu.barrier
// SIMT: memref.store %{{.*}}, %[[KS]]
// SIMT: memref.store %{{.*}}, %[[VS]]
// SIMT: gpu.barrier
// SIMT: math.fma
// SIMT: arith.cmpi sle
// SIMT: gpu.shuffle  xor
// SIMT: %[[NB:.*]] = arith.negf
// SIMT: %[[ARG:.*]] = math.fma %{{.*}}, %{{.*}}, %[[NB]] : f32
// SIMT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[ARG]]) : (f32) -> f32
// SIMT: gpu.shuffle  idx
// SIMT: scf.yield
// SIMT: arith.truncf %{{.*}} : f32 to bf16
// SIMT: memref.store %{{.*}}, %[[OUT]]
// SIMT: gpu.terminator
// SIMT: return %[[OUT]]
func.func private @__decoda_gpu_attention(%q: memref<1x?x4x32xbf16>, %k: memref<1x?x2x32xbf16>, %v: memref<1x?x2x32xbf16>, %n: index) -> memref<1x?x4x32xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.17677669529663687 : f64, segment_ids = false, sinks = false}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<1x?x4x32xbf16>
  %o = memref.alloc(%t) : memref<1x?x4x32xbf16>
  return %o : memref<1x?x4x32xbf16>
}

// -----

// Sinks, a window and a mask: read inside the kernel; f32 takes the SIMT kernel.
// CHECK-LABEL: func.func private @extras(
// CHECK: gpu.launch
// CHECK: memref.load %arg4
// CHECK: memref.load %arg5
// CHECK: gpu.terminator
// expected-remark @+1 {{decoda-gpu-flash-attention: decoda.attention takes the f32 SIMT kernel, not the tensor-core one: f32 storage (the tensor-core kernel takes bf16 and f16)}}
func.func private @extras(%q: memref<2x8x2x16xf32>, %k: memref<2x8x2x16xf32>, %v: memref<2x8x2x16xf32>, %n: index, %m: memref<1x2x8x8xf32>, %s: memref<2xf32>) -> memref<2x8x2x16xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, window = 4 : i64, mask = true, num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.25 : f64, segment_ids = false, sinks = true}} {
  %o = memref.alloc() : memref<2x8x2x16xf32>
  return %o : memref<2x8x2x16xf32>
}

// -----

// Head dim 256: the f32 tiles would need 82 KiB of shared memory, over the default
// max-shared-bytes (48 KiB).
// CHECK-LABEL: func.func private @big(
// CHECK-NOT: gpu.launch
// CHECK: linalg.fill
// expected-remark @+1 {{decoda-gpu-flash-attention: decoda.cached_attention keeps the target-neutral lowering (key-tile loop of kernels): the tiles need 82176 bytes of shared memory, over the 49152 a block may use on the target (max-shared-bytes; head dims 256, 256); no tensor-core kernel: f32 storage}}
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

// -----

// bf16 with sinks, a window, a mask and segment ids, D = 64: the tensor-core kernel (64-key
// tiles, 36 KiB of stages) reads the mask and the segment ids per fragment element and the
// sinks at the end.
// CHECK-LABEL: func.func private @tc_extras(
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<2x64x72xbf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<2x64x72xbf16, #gpu.address_space<workgroup>>)
// CHECK: nvgpu.mma.sync
// CHECK: memref.load %arg4
// CHECK: memref.load %arg5
// CHECK: nvgpu.ldmatrix {{.*}}transpose = true
// CHECK: memref.load %arg6
// CHECK: gpu.terminator
func.func private @tc_extras(%q: memref<2x?x8x64xbf16>, %k: memref<2x?x2x64xbf16>, %v: memref<2x?x2x64xbf16>, %n: index, %m: memref<2x1x?x?xbf16>, %seg: memref<2x?xi32>, %s: memref<8xbf16>) -> memref<2x?x8x64xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, window = 100 : i64, mask = true, num_heads = 8 : i64, num_kv_heads = 2 : i64, scale = 0.125 : f64, segment_ids = true, sinks = true}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<2x?x8x64xbf16>
  %o = memref.alloc(%t) : memref<2x?x8x64xbf16>
  return %o : memref<2x?x8x64xbf16>
}

// -----

// f16 cached attention with head dim 128, 16 new tokens of 32 heads over 8 (64 rows, more than
// flash decoding takes): 32-key tiles, two stages of K and V in 34 KiB.
// CHECK-LABEL: func.func private @tc_d128(
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<2x32x136xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<2x32x136xf16, #gpu.address_space<workgroup>>)
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
func.func private @tc_d128(%q: memref<1x16x32x128xf16>, %k: memref<1x4096x8x128xf16>, %v: memref<1x4096x8x128xf16>, %n: index) -> memref<1x16x32x128xf16>
    attributes {decoda.gpu_attention = {op = "decoda.cached_attention", causal = true, mask = false, num_heads = 32 : i64, num_kv_heads = 8 : i64, scale = 0.08838834764831845 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x16x32x128xf16>
  return %o : memref<1x16x32x128xf16>
}

// -----

// bf16 head dims the tensor-core kernel does not take: 40 (not a multiple of 16) and 112
// (64-key stages would need 60 KiB, 32-key tiles are 448 chunks of 16 bytes for 128 threads)
// take the SIMT kernel; 256 (over 128) also exceeds the SIMT kernel's shared memory at the
// default max-shared-bytes (the static 48 KiB) and keeps the target-neutral body
// (flash-attention-dynamic-shared.mlir: with a larger limit, dynamic shared memory).
// CHECK-LABEL: func.func private @d40(
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<16x40xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: func.func private @d112(
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<16x112xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: func.func private @d256(
// CHECK-NOT: gpu.launch
// expected-remark @+1 {{decoda.attention takes the f32 SIMT kernel, not the tensor-core one: head dims 40, 40 are not multiples of 16 (mma.sync k16 slices and pairs of n8 fragments)}}
func.func private @d40(%q: memref<1x4x1x40xbf16>, %k: memref<1x4x1x40xbf16>, %v: memref<1x4x1x40xbf16>, %n: index) -> memref<1x4x1x40xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 1 : i64, num_kv_heads = 1 : i64, scale = 0.15 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x4x1x40xbf16>
  return %o : memref<1x4x1x40xbf16>
}
// expected-remark @+1 {{decoda.attention takes the f32 SIMT kernel, not the tensor-core one: head dims 112, 112: no K/V tile of 32 or 64 keys fits 48 KiB with its 16-byte chunks a multiple of 128 threads}}
func.func private @d112(%q: memref<1x4x1x112xbf16>, %k: memref<1x4x1x112xbf16>, %v: memref<1x4x1x112xbf16>, %n: index) -> memref<1x4x1x112xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 1 : i64, num_kv_heads = 1 : i64, scale = 0.1 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x4x1x112xbf16>
  return %o : memref<1x4x1x112xbf16>
}
// expected-remark @+1 {{decoda.attention keeps the target-neutral lowering (key-tile loop of kernels): the tiles need 82176 bytes of shared memory, over the 49152 a block may use on the target (max-shared-bytes; head dims 256, 256); no tensor-core kernel: head dims 256, 256 over 128 (Q fragments and accumulators would not fit in registers)}}
func.func private @d256(%q: memref<1x4x1x256xbf16>, %k: memref<1x4x1x256xbf16>, %v: memref<1x4x1x256xbf16>, %n: index) -> memref<1x4x1x256xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 1 : i64, num_kv_heads = 1 : i64, scale = 0.0625 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x4x1x256xbf16>
  return %o : memref<1x4x1x256xbf16>
}
