// decoda-gpu-flash-attention{wgmma} at head dims other than 64 and 128: the wgmma kernel holds
// Q, K and V tiles as whole 64-column blocks (128-byte swizzle rows), so a head dim D that is
// a multiple of 16 up to 256 takes D / 16 k slices of S = Q·Kᵀ and a value head dim Dv takes
// P·V as m64n{Dv rounded up to 64}k16 (O's padding columns neither rescaled nor stored). Asked
// for 128-row blocks, 128-key tiles and TMA here: a value head dim over 128 keeps 64-key tiles
// (O takes 128 registers a thread), TMA takes only whole 64-column boxes (else cp.async), and
// each is said with report=true. Head dims over 256 or not multiples of 16 are refused with
// both kernels' reasons. Numerics: flash-attention-wgmma-headdims-sim.mlir.
// RUN: decoda-opt %s --decoda-gpu-flash-attention="wgmma=true report=true wgmma-keys=128 wgmma-rows=128 wgmma-tma=true" --verify-diagnostics | FileCheck %s

// Gemma's 256: 16 k slices (four column blocks) of m64n64k16, P·V as m64n256k16. One-pass:
// 128 rows and a producer warp (288 threads at 224 registers), 2 (128 x 256 + 2 x 64 x (256 +
// 256)) + 1024 + 64 = 197696 bytes; the split form (decode) 64 rows, cp.async, 164864 bytes.
// CHECK-LABEL: func.func private @d256(
// CHECK: gpu.launch {{.*}} threads({{.*}} = %c128{{.*}}) dynamic_shared_memory_size %c164864_i32
// CHECK: llvm.inline_asm has_side_effects "{{[^"]*}}wgmma.fence.sync.aligned;\0A{{(wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 [^;]*, 1, 1, 0, 0;\\0A){15}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 [^;]*, 1, 1, 0, 0;\\0A}}wgmma.commit_group
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: call @decoda_cuda_tensor_map_3d
// CHECK: gpu.launch {{.*}} threads({{.*}} = %c288{{.*}}) dynamic_shared_memory_size %c197696_i32
// CHECK: } {decoda.kernel_attrs = {nvvm.maxnreg = 224 : i32}}
// expected-remark @+1 {{decoda.attention takes 128-row blocks and 64-key tiles (head dims 256, 256: registers and shared memory)}}
func.func private @d256(%q: memref<1x?x2x256xbf16>, %k: memref<1x?x1x256xbf16>, %v: memref<1x?x1x256xbf16>, %n: index) -> memref<1x?x2x256xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 2 : i64, num_kv_heads = 1 : i64, scale = 0.0625 : f64, segment_ids = false, sinks = false}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<1x?x2x256xbf16>
  %o = memref.alloc(%t) : memref<1x?x2x256xbf16>
  return %o : memref<1x?x2x256xbf16>
}

// Phi-3's 96: 6 k slices of m64n128k16 (128-key tiles), P·V as m64n128k16 over V's 96 columns
// and 32 unwritten ones; cp.async (96 columns are no whole 64-column boxes): 2 (128 x 128 + 2
// x 128 x (128 + 128)) + 1024 = 164864 bytes for 128 rows; no tensor map.
// CHECK-LABEL: func.func private @d96(
// CHECK-NOT: decoda_cuda_tensor_map_3d
// CHECK: llvm.inline_asm has_side_effects "{{[^"]*}}wgmma.fence.sync.aligned;\0A{{(wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 [^;]*, 1, 1, 0, 0;\\0A){5}wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 [^;]*, 1, 1, 0, 0;\\0A}}wgmma.commit_group
// CHECK-NOT: decoda_cuda_tensor_map_3d
// CHECK: gpu.launch {{.*}} threads({{.*}} = %c256{{.*}}) dynamic_shared_memory_size %c164864_i32
// CHECK-NOT: decoda_cuda_tensor_map_3d
// CHECK-LABEL: func.func private @d192
// expected-remark @+1 {{decoda.attention loads K/V by cp.async, not TMA: head dims 96, 96 are not whole 64-column boxes}}
func.func private @d96(%q: memref<1x?x2x96xbf16>, %k: memref<1x?x2x96xbf16>, %v: memref<1x?x2x96xbf16>, %n: index) -> memref<1x?x2x96xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.1 : f64, segment_ids = false, sinks = false}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<1x?x2x96xbf16>
  %o = memref.alloc(%t) : memref<1x?x2x96xbf16>
  return %o : memref<1x?x2x96xbf16>
}

// MLA's prefill (D = 192, Dv = 128): 12 k slices, whole boxes (TMA), 128-key tiles (O of 128
// columns), 2 (128 x 192 + 2 x 128 x (192 + 128)) + 1024 + 64 = 214080 bytes.
// CHECK: llvm.inline_asm has_side_effects "{{[^"]*}}wgmma.fence.sync.aligned;\0A{{(wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 [^;]*, 1, 1, 0, 0;\\0A){11}wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 [^;]*, 1, 1, 0, 0;\\0A}}wgmma.commit_group
// CHECK: call @decoda_cuda_tensor_map_3d
// CHECK: gpu.launch {{.*}} threads({{.*}} = %c288{{.*}}) dynamic_shared_memory_size %c214080_i32
func.func private @d192(%q: memref<1x?x2x192xbf16>, %k: memref<1x?x2x192xbf16>, %v: memref<1x?x2x128xbf16>, %n: index) -> memref<1x?x2x128xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.0723 : f64, segment_ids = false, sinks = false}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<1x?x2x192xbf16>
  %o = memref.alloc(%t) : memref<1x?x2x128xbf16>
  return %o : memref<1x?x2x128xbf16>
}

// Refused: over 256 (neither kernel; the SIMT tiles over 48 KiB: the body stays), and not a
// multiple of 16 (the SIMT kernel).
// CHECK-LABEL: func.func private @d272(
// CHECK-NOT: gpu.launch
// CHECK-LABEL: func.func private @d40(
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<16x40xf32, #gpu.address_space<workgroup>>
// expected-remark @+1 {{decoda.attention keeps the target-neutral lowering (key-tile loop of kernels): the tiles need 89344 bytes of shared memory, over the 49152 a block may use on the target (max-shared-bytes; head dims 272, 272); no tensor-core kernel: head dims 272, 272 over 128 (Q fragments and accumulators would not fit in registers); wgmma: head dims 272, 272 (the wgmma form takes multiples of 16 up to 256)}}
func.func private @d272(%q: memref<1x4x1x272xbf16>, %k: memref<1x4x1x272xbf16>, %v: memref<1x4x1x272xbf16>, %n: index) -> memref<1x4x1x272xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 1 : i64, num_kv_heads = 1 : i64, scale = 0.0625 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x4x1x272xbf16>
  return %o : memref<1x4x1x272xbf16>
}
// expected-remark @+1 {{decoda.attention takes the f32 SIMT kernel, not the tensor-core one: head dims 40, 40 are not multiples of 16 (mma.sync k16 slices and pairs of n8 fragments); wgmma: head dims 40, 40 (the wgmma form takes multiples of 16 up to 256)}}
func.func private @d40(%q: memref<1x4x1x40xbf16>, %k: memref<1x4x1x40xbf16>, %v: memref<1x4x1x40xbf16>, %n: index) -> memref<1x4x1x40xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 1 : i64, num_kv_heads = 1 : i64, scale = 0.15 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x4x1x40xbf16>
  return %o : memref<1x4x1x40xbf16>
}
