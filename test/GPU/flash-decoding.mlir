// decoda-gpu-flash-attention, decode steps (flash decoding): when all rows of a (batch, K/V
// head) fit one block (Tq * group <= 16: the SIMT kernel's split form), the keys are split over
// a run-time number of blocks (splits = max(1, min(ceil(target / (B * Hkv)), ceil(keys /
// min-keys), decode-splits)); SIMT: target 528 and min-keys 64 by default), each leaving m, l and
// the unnormalised accumulator in a workspace [B][Hkv][splits][16][Dv + 2], and a second kernel
// combines them (a thread per (row, value column), ceil(rows * Dv / 128) blocks per (K/V head,
// batch), its loops over the splits stepping by 8 with the 8 loads of a step issued first).
// K/V tiles are staged by 16-byte vector loads (both head dims whole 16-byte chunks), the next
// tile's loaded while the current one is computed. bf16/f16 calls on the tensor-core kernel with
// 17 to 64 rows take its own split form with its own count (decode-tc-target-blocks 264,
// decode-tc-min-keys 256; 64 rows a split in the workspace; the one-pass kernel when the
// run-time split count is 1). A dynamic query count compiles the forms and picks one at run
// time; decode-splits=1 turns the split off.
// Calls no tensor-core kernel takes (f32, head dims over what they take) split up to 128 rows
// (8 row blocks of 16 a split) when the run-time split count is above 1.
// Numerics: flash-decoding-sim.mlir, flash-decoding-rowblocks-sim.mlir.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention=decode-splits=1 | FileCheck %s --check-prefix=OFF
// RUN: not decoda-opt %s --split-input-file --decoda-gpu-flash-attention="decode-target-blocks=0" 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: decoda-gpu-flash-attention: decode-target-blocks, decode-min-keys, decode-tc-target-blocks and decode-tc-min-keys must be at least 1 (got 0, 64, 264, 256)
// RUN: not decoda-opt %s --split-input-file --decoda-gpu-flash-attention="decode-tc-min-keys=0" 2>&1 | FileCheck %s --check-prefix=BADTC
// BADTC: error: decoda-gpu-flash-attention: decode-target-blocks, decode-min-keys, decode-tc-target-blocks and decode-tc-min-keys must be at least 1 (got 528, 64, 264, 0)

// One query of 8 heads over 2 K/V heads (8 rows), bf16.
// CHECK-LABEL: func.func private @decode(
// CHECK-SAME: %[[Q:.*]]: memref<1x1x8x64xbf16>, %[[K:.*]]: memref<1x?x2x64xbf16>, %[[V:.*]]: memref<1x?x2x64xbf16>, %[[N:.*]]: index)
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1x1x8x64xbf16>
// CHECK: scf.if
// The split count: ceil(528 / (B * 2)), ceil(keys / 64), at most 64, at least 1.
// CHECK: %[[BH:.*]] = arith.muli %{{.*}}, %c2{{(_[0-9]+)?}} : index
// CHECK: %[[WANT:.*]] = arith.ceildivui %c528{{(_[0-9]+)?}}, %[[BH]] : index
// CHECK: %[[BYKEYS:.*]] = arith.ceildivui %[[N]], %c64{{(_[0-9]+)?}} : index
// CHECK: %[[M1:.*]] = arith.minsi %[[WANT]], %[[BYKEYS]] : index
// CHECK: %[[M2:.*]] = arith.minsi %[[M1]], %c64{{(_[0-9]+)?}} : index
// CHECK: %[[S:.*]] = arith.maxsi %c1{{(_[0-9]+)?}}, %[[M2]] : index
// CHECK: %[[WORK:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// The partial kernel: grid (splits, Hkv, B); whole 32-key tiles of the block's share; the
// first tile's K and V chunks (64 bf16 a row: 256 16-byte chunks of each, 2 a thread) loaded
// ahead of the loop, when the share is not empty.
// CHECK: gpu.launch blocks(%[[SPLIT:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[S]], %{{.*}} = %c2{{(_[0-9]+)?}}, %{{.*}} = %{{.*}}) threads(%{{.*}}) in (%{{.*}} = %c128
// CHECK: arith.ceildivui %{{.*}}, %[[S]] : index
// CHECK: arith.ceildivui %{{.*}}, %c32{{(_[0-9]+)?}} : index
// CHECK: scf.if %{{.*}} -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>)
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x?x2x64xbf16>, vector<8xbf16>
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>)
// In the loop: the carried chunks widened and stored, a barrier, the next tile's loads, then
// the scores.
// CHECK: arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK: gpu.barrier
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x?x2x64xbf16>, vector<8xbf16>
// CHECK: scf.for
// CHECK: %[[NB:.*]] = arith.negf
// CHECK: %[[ARG:.*]] = math.fma %{{.*}}, %{{.*}}, %[[NB]] : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[ARG]]) : (f32) -> f32
// CHECK: scf.yield
// CHECK-NOT: arith.truncf
// CHECK: memref.store %{{.*}}, %[[WORK]][%{{.*}}] : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[WORK]][%{{.*}}] : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[WORK]][%{{.*}}] : memref<?xf32>
// CHECK: gpu.terminator
// The combining kernel: grid (ceil(rows * Dv / 128), Hkv, B) (8 rows of 64 columns: 4 blocks);
// max over the splits, then the rescaled sums.
// CHECK: %[[ELEMS:.*]] = arith.muli %{{.*}}, %c64{{(_[0-9]+)?}} : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[ELEMS]], %c128{{(_[0-9]+)?}} : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[BLOCKS]], %{{.*}} = %c2{{(_[0-9]+)?}}, %{{.*}} = %{{.*}}) threads
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %[[S]] step %c8{{(_[0-9]+)?}} iter_args(%{{.*}}) -> (f32)
// CHECK-COUNT-8: memref.load %[[WORK]]
// CHECK: arith.maximumf
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %[[S]] step %c8{{(_[0-9]+)?}} iter_args(%{{.*}}, %{{.*}}) -> (f32, f32)
// CHECK-COUNT-24: memref.load %[[WORK]]
// CHECK: %[[NB:.*]] = arith.negf
// CHECK: %[[ARG:.*]] = math.fma %{{.*}}, %{{.*}}, %[[NB]] : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[ARG]]) : (f32) -> f32
// CHECK: math.fma
// CHECK: math.fma
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK: gpu.terminator
// CHECK: memref.dealloc %[[WORK]]
// CHECK-NOT: gpu.launch
// CHECK: return %[[OUT]]
// OFF-LABEL: func.func private @decode(
// OFF-NOT: memref<?xf32>
// OFF: gpu.launch
// OFF-NOT: gpu.launch
// OFF: return
func.func private @decode(%q: memref<1x1x8x64xbf16>, %k: memref<1x?x2x64xbf16>, %v: memref<1x?x2x64xbf16>, %n: index) -> memref<1x1x8x64xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.cached_attention", causal = true, mask = false, num_heads = 8 : i64, num_kv_heads = 2 : i64, scale = 0.125 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x8x64xbf16>
  return %o : memref<1x1x8x64xbf16>
}

// -----

// A dynamic query count (f32: no tensor-core kernel): rows <= 16 take the split kernels, and
// so do up to 128 rows (8 row blocks a split) when the run-time split count, aiming at the
// target over all row blocks, is above 1; the rest the one-pass kernel. Block x of the split
// kernel is row block x % blocks of split x / blocks.
// CHECK-LABEL: func.func private @dynamic(
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %c4{{(_[0-9]+)?}} : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[ROWS]], %c16{{(_[0-9]+)?}} : index
// CHECK: %[[BH:.*]] = arith.muli %{{.*}}, %[[BLOCKS]] : index
// CHECK: arith.ceildivui %c528{{(_[0-9]+)?}}, %[[BH]] : index
// CHECK: %[[N:.*]] = arith.maxsi
// CHECK: %[[MANY:.*]] = arith.cmpi ugt, %[[N]], %c1{{(_[0-9]+)?}} : index
// CHECK: %[[FITS:.*]] = arith.cmpi ule, %[[ROWS]], %c128{{(_[0-9]+)?}} : index
// CHECK: %[[ONE:.*]] = arith.cmpi ule, %[[ROWS]], %c16{{(_[0-9]+)?}} : index
// CHECK: %[[BOTH:.*]] = arith.andi %[[FITS]], %[[MANY]] : i1
// CHECK: %[[SPLIT:.*]] = arith.ori %[[ONE]], %[[BOTH]] : i1
// CHECK: scf.if %[[SPLIT]] {
// CHECK: %[[RB:.*]] = arith.ceildivui %[[ROWS]], %c16{{(_[0-9]+)?}} : index
// CHECK: %[[SPLITS:.*]] = arith.maxsi
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: %[[GRID:.*]] = arith.muli %[[SPLITS]], %[[RB]] : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]],
// CHECK: arith.remui %[[BX]], %[[RB]] : index
// CHECK: arith.divui %[[BX]], %[[RB]] : index
// CHECK: gpu.launch
// CHECK: memref.dealloc
// CHECK: } else {
// CHECK-NOT: memref<?xf32>
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
// OFF-LABEL: func.func private @dynamic(
// OFF-NOT: arith.cmpi ule
// OFF: gpu.launch
// OFF-NOT: gpu.launch
// OFF: return
func.func private @dynamic(%q: memref<1x?x4x32xf32>, %k: memref<1x?x1x32xf32>, %v: memref<1x?x1x32xf32>, %n: index) -> memref<1x?x4x32xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 1 : i64, scale = 0.17677669529663687 : f64, segment_ids = false, sinks = false}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<1x?x4x32xf32>
  %o = memref.alloc(%t) : memref<1x?x4x32xf32>
  return %o : memref<1x?x4x32xf32>
}

// -----

// A static query count with more rows than a block (5 queries x 4 heads = 20): split over two
// row blocks when the keys give more than one split (decided at run time), else one pass.
// 40 queries (160 rows, over 8 row blocks): never split.
// CHECK-LABEL: func.func private @prefill(
// CHECK: arith.cmpi ugt
// CHECK: arith.cmpi ule, %{{.*}}, %c128
// CHECK: scf.if
// CHECK: memref<?xf32>
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: } else {
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
// CHECK-LABEL: func.func private @prefill40(
// CHECK-NOT: memref<?xf32>
// CHECK-NOT: arith.cmpi ule
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func private @prefill(%q: memref<1x5x4x32xf32>, %k: memref<1x5x1x32xf32>, %v: memref<1x5x1x32xf32>, %n: index) -> memref<1x5x4x32xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 1 : i64, scale = 0.17677669529663687 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x5x4x32xf32>
  return %o : memref<1x5x4x32xf32>
}
func.func private @prefill40(%q: memref<1x40x4x32xf32>, %k: memref<1x40x1x32xf32>, %v: memref<1x40x1x32xf32>, %n: index) -> memref<1x40x4x32xf32>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 1 : i64, scale = 0.17677669529663687 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x40x4x32xf32>
  return %o : memref<1x40x4x32xf32>
}

// -----

// bf16, four tokens of 8 heads over one K/V head (32 rows): the tensor-core kernel's split form
// when the run-time split count is above 1, else the one-pass tensor-core kernel. Its count
// keeps the tensor-core form's target and minimum (264 blocks, 256 keys).
// CHECK-LABEL: func.func private @spec(
// CHECK: arith.ceildivui %c264{{(_[0-9]+)?}}, %{{.*}} : index
// CHECK: arith.ceildivui %{{.*}}, %c256{{(_[0-9]+)?}} : index
// CHECK: %[[S:.*]] = arith.maxsi %c1{{(_[0-9]+)?}}, %{{.*}} : index
// CHECK: %[[MANY:.*]] = arith.cmpi ugt, %[[S]], %c1{{(_[0-9]+)?}} : index
// CHECK: scf.if %[[MANY]] {
// CHECK: %[[WORK:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// The partial kernel: grid (splits, Hkv, B), whole 64-key tiles of the block's share, the
// tensor-core body, the partial state stored (m, l, then two columns a fragment).
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[S]], %{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %{{.*}}) threads(%{{.*}}) in (%{{.*}} = %c128
// CHECK: arith.ceildivui %{{.*}}, %[[S]] : index
// CHECK: arith.ceildivui %{{.*}}, %c64{{(_[0-9]+)?}} : index
// CHECK: nvgpu.mma.sync
// CHECK-NOT: arith.truncf {{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}}, %[[WORK]][%{{.*}}] : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[WORK]][%{{.*}}] : memref<?xf32>
// CHECK-COUNT-16: memref.store %{{.*}}, %[[WORK]][%{{.*}}] : memref<?xf32>
// CHECK: gpu.terminator
// The combining kernel: 32 rows x 64 columns, 16 blocks.
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %{{.*}}) threads
// CHECK-NOT: nvgpu.mma.sync
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %[[S]] step %c8{{(_[0-9]+)?}} iter_args(%{{.*}}) -> (f32)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: gpu.terminator
// CHECK: memref.dealloc %[[WORK]]
// CHECK: } else {
// CHECK-NOT: memref<?xf32>
// CHECK: gpu.launch
// CHECK: nvgpu.mma.sync
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
// OFF-LABEL: func.func private @spec(
// OFF-NOT: memref<?xf32>
// OFF: gpu.launch
// OFF-NOT: gpu.launch
// OFF: return
func.func private @spec(%q: memref<1x4x8x64xbf16>, %k: memref<1x?x1x64xbf16>, %v: memref<1x?x1x64xbf16>, %n: index) -> memref<1x4x8x64xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.cached_attention", causal = true, mask = false, num_heads = 8 : i64, num_kv_heads = 1 : i64, scale = 0.125 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x4x8x64xbf16>
  return %o : memref<1x4x8x64xbf16>
}

// -----

// A dynamic query count in bf16: up to 16 rows the SIMT split form, 17 to 64 with more than
// one split the tensor-core split form, otherwise the one-pass tensor-core kernel (once).
// CHECK-LABEL: func.func private @spec_dynamic(
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %c4{{(_[0-9]+)?}} : index
// CHECK: %[[IN64:.*]] = arith.cmpi ule, %[[ROWS]], %c64{{(_[0-9]+)?}} : index
// CHECK: %[[MANY:.*]] = arith.cmpi ugt, %{{.*}}, %c1{{(_[0-9]+)?}} : index
// CHECK: %[[TCSPLIT:.*]] = arith.andi %[[IN64]], %[[MANY]] : i1
// CHECK: %[[IN16:.*]] = arith.cmpi ule, %[[ROWS]], %c16{{(_[0-9]+)?}} : index
// CHECK: scf.if %[[IN16]] {
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.launch
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.launch
// CHECK-NOT: nvgpu.mma.sync
// CHECK: } else {
// CHECK-NEXT: scf.if %[[TCSPLIT]] {
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: gpu.launch
// CHECK: nvgpu.mma.sync
// CHECK: gpu.launch
// CHECK-NOT: nvgpu.mma.sync
// CHECK: } else {
// CHECK-NOT: memref<?xf32>
// CHECK: gpu.launch
// CHECK: nvgpu.mma.sync
// CHECK-NOT: gpu.launch
// CHECK: return
func.func private @spec_dynamic(%q: memref<1x?x4x64xbf16>, %k: memref<1x?x1x64xbf16>, %v: memref<1x?x1x64xbf16>, %n: index) -> memref<1x?x4x64xbf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 1 : i64, scale = 0.125 : f64, segment_ids = false, sinks = false}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %q, %c1 : memref<1x?x4x64xbf16>
  %o = memref.alloc(%t) : memref<1x?x4x64xbf16>
  return %o : memref<1x?x4x64xbf16>
}
