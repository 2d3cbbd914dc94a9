// decoda-gpu-gemv: projection contractions with a static row count M <= max-m (decode steps)
// become one GEMV gpu.launch each: a warp per weight row, 16-byte vector loads along K, f32
// FMA accumulators (i8: i32 accumulators, dp4a), a butterfly of gpu.shuffle xor, lane 0
// storing C. A dynamic M is dispatched at run time (the kernel when M = 1, the contraction
// otherwise); larger static M is left alone (remark under report=true) for
// decoda-gpu-tensorcore-matmul or the SIMT loops.
// Numerics of the generated kernels: gemv-sim.mlir; PTX and ptxas: gemv-ptx.mlir.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=report=true --verify-diagnostics | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=min-blocks=1 2>/dev/null | FileCheck %s --check-prefix=NOSPLIT
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv="min-blocks=1 unroll=4" 2>/dev/null | FileCheck %s --check-prefix=UNROLL4
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv="report=true max-m=2" 2>&1 >/dev/null | FileCheck %s --check-prefix=MAXM
// MAXM-NOT: M = 1 is above
// MAXM: M = 4 is above max-m = 2
// MAXM: M = 16 is above max-m = 2
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv="report=true dynamic-m=false" 2>&1 >/dev/null | FileCheck %s --check-prefix=NODYN
// NODYN-COUNT-1: remark: decoda-gpu-gemv: left alone: M is dynamic{{$}}
// NODYN-NOT: remark: decoda-gpu-gemv: left alone: M is dynamic
// prefetch-bytes (the CUDA pipeline's 16 MiB with dependent launch): lane 0 of each warp of
// part 0 prefetches the start of its weight row into L2 before anything else, the budget
// spread over the weight's rows (whole rows here: 4096, 2192, 256 and 512 bytes; a 16-byte
// unit at least); none for rows that are not 16-byte multiples (f32 K = 1030).
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=prefetch-bytes=16777216 2>/dev/null | FileCheck %s --check-prefix=PREFETCH
// PREFETCH-LABEL: func.func @bf16_m1(
// PREFETCH: gpu.launch
// PREFETCH: %[[FIRST:.*]] = arith.andi
// PREFETCH-NEXT: scf.if %[[FIRST]] {
// PREFETCH-NEXT: %[[SIZE:.*]] = arith.constant 4096 : i32
// PREFETCH-NEXT: memref.extract_strided_metadata %arg1
// PREFETCH: nvvm.cp.async.bulk.prefetch %{{.*}}, %[[SIZE]]
// PREFETCH-NEXT: }
// PREFETCH-NOT: nvvm.cp.async.bulk.prefetch
// PREFETCH: vector.load %arg1
// PREFETCH-LABEL: func.func @bf16_m4(
// PREFETCH: arith.constant 2192 : i32
// PREFETCH-LABEL: func.func @f32(
// PREFETCH: arith.constant 256 : i32
// PREFETCH: nvvm.cp.async.bulk.prefetch
// PREFETCH-NOT: nvvm.cp.async.bulk.prefetch
// PREFETCH-LABEL: func.func @refused(
// Both dispatched kernels of a dynamic M.
// PREFETCH-LABEL: func.func @dynamic_m(
// PREFETCH-COUNT-2: nvvm.cp.async.bulk.prefetch
// PREFETCH-LABEL: func.func @int8(
// PREFETCH: arith.constant 512 : i32
// PREFETCH: nvvm.cp.async.bulk.prefetch
// A budget of 64 KiB: 128 bytes of each of bf16_m1's 512 rows, 928 of bf16_m4's 70.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=prefetch-bytes=65536 2>/dev/null | FileCheck %s --check-prefix=SMALL
// SMALL-LABEL: func.func @bf16_m1(
// SMALL: arith.constant 128 : i32
// SMALL-LABEL: func.func @bf16_m4(
// SMALL: arith.constant 928 : i32
// Off by default.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv 2>/dev/null | FileCheck %s --check-prefix=NOPREFETCH
// NOPREFETCH-NOT: cp.async.bulk.prefetch
// RUN: not decoda-opt %s --split-input-file --decoda-gpu-gemv=prefetch-bytes=-1 2>&1 | FileCheck %s --check-prefix=BADPREFETCH
// BADPREFETCH: error: decoda-gpu-gemv: invalid options max-m=8 warps=4 cols-per-warp=1 unroll=8 prefetch-bytes=-1 (need max-m, cols-per-warp and unroll at least 1, warps in [1, 32], prefetch-bytes at least 0)

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// bf16, M = 1 (a decode step, the Llama K projection): the zero fill is folded; N = 512 over
// 4 warps would be 128 blocks, under min-blocks = 512, so the 4 warps of a block share a
// column (512 blocks): warp part p takes the 256-element strides p, p + 4, ... of K = 2048 (two
// of them, both loads in one unrolled step, no remainder loop), 8 bf16 (16 bytes) per load;
// the four warp sums meet in shared memory after a barrier and lane 0 of part 0 stores.
// With mma (the pipeline sets it for sm_80 and later) bf16/f16 weights with 2 to 16 rows take
// the tensor-core GEMV: a warp takes 8 weight rows, each lane 16 bytes (8 weights) of its row
// at k = step + 8q, their pairs the B fragments of two mma.sync m16n8k16 as they come, A's
// 16-byte load of the same k the matching pairs (no shuffles); M = 4 reads A's rows g < 4
// (others clamped to the last), no fill: the storing lanes add the old C. One row stays on the
// SIMT kernel, f32 too; a dynamic M's second kernel takes up to 16 rows; M = 16 bf16 (left
// alone above) is taken, its rows g and g + 8 two A registers each.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=mma=true 2>/dev/null | FileCheck %s --check-prefix=MMA
// MMA-LABEL: func.func @bf16_m1(
// MMA-NOT:     nvgpu.mma.sync
// MMA:         vector.fma
// MMA-LABEL: func.func @bf16_m4(
// MMA:         gpu.launch
// MMA:           scf.for
// MMA:           %[[W:.*]] = vector.load %{{.*}} : memref<70x1096xbf16>, vector<8xbf16>
// MMA:           %[[A:.*]] = vector.load %{{.*}} : memref<4x1096xbf16>, vector<8xbf16>
// MMA:           vector.shuffle %[[W]], %[[W]] [0, 1] : vector<8xbf16>, vector<8xbf16>
// MMA:           vector.shuffle %[[W]], %[[W]] [2, 3] : vector<8xbf16>, vector<8xbf16>
// MMA:           vector.shuffle %[[W]], %[[W]] [4, 5] : vector<8xbf16>, vector<8xbf16>
// MMA:           vector.shuffle %[[W]], %[[W]] [6, 7] : vector<8xbf16>, vector<8xbf16>
// MMA:           nvgpu.mma.sync
// MMA-SAME:        {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// MMA:           nvgpu.mma.sync
// MMA-NOT:       gpu.shuffle
// MMA:           gpu.barrier
// MMA:           memref.load %{{.*}} : memref<4x70xf32>
// MMA:           arith.addf
// MMA:           memref.store %{{.*}} : memref<4x70xf32>
// MMA-LABEL: func.func @f32(
// MMA-NOT:     nvgpu.mma.sync
// MMA:         return
// MMA-LABEL: func.func @dynamic_m(
// MMA:         scf.if
// MMA-NOT:       nvgpu.mma.sync
// MMA:         } else {
// MMA:           %[[FEW:.*]] = arith.cmpi ult, %{{.*}}, %c16{{(_[0-9]+)?}} : index
// MMA:           scf.if %[[FEW]] {
// MMA:             nvgpu.mma.sync
// MMA:             linalg.fill
// MMA-NEXT:        linalg.generic
// MMA-LABEL: func.func @bf16_m16(
// MMA:         gpu.launch
// MMA:           vector.load %{{.*}} : memref<16x64xbf16>, vector<8xbf16>
// MMA:           vector.load %{{.*}} : memref<16x64xbf16>, vector<8xbf16>
// MMA:           nvgpu.mma.sync
// MMA-NOT:     linalg.generic
// MMA:         return

// CHECK-LABEL: func.func @bf16_m1(
// CHECK-SAME: %[[X:.*]]: memref<1x1x2048xbf16>, %[[W:.*]]: memref<512x2048xbf16>, %[[Y:.*]]: memref<1x1x512xf32>)
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[A:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<1x1x2048xbf16> into memref<1x2048xbf16>
// CHECK-DAG: %[[C:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : memref<1x1x512xf32> into memref<1x512xf32>
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[G:.*]] = arith.constant 512 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{[^ ]+}} = %[[G]], {{.*}} threads({{.*}}) in (%{{[^ ]+}} = %[[C128]], {{.*}} workgroup(%[[P:.*]] : memref<4x1xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[ROW:.*]] = arith.select
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// CHECK-COUNT-2: vector.load %[[W]][%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<512x2048xbf16>, vector<8xbf16>
// CHECK: vector.load %[[A]][%{{.*}}] {alignment = 16 : i64} : memref<1x2048xbf16>, vector<8xbf16>
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK: scf.yield
// CHECK-NOT: scf.for
// CHECK: vector.reduction <add>, %{{.*}} : vector<8xf32> into f32
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[P]][
// CHECK: gpu.barrier
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-COUNT-3: memref.load %[[P]][
// CHECK: scf.if
// CHECK: scf.if
// CHECK-NOT: memref.load
// CHECK: memref.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] : memref<1x512xf32>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// Without the split (min-blocks=1): 128 blocks, a warp per column, all eight loads of a lane
// in one step (unroll 8: 8 weight and 8 activation vectors, 64 registers, within the 144 of
// a step), no shared memory, no barrier; unroll=4 takes two steps of four.
// NOSPLIT-LABEL: func.func @bf16_m1(
// NOSPLIT: gpu.launch blocks({{.*}}) in (%{{[^ ]+}} = %c128{{(_[0-9]+)?}}, {{.*}}) threads
// NOSPLIT-NOT: workgroup
// NOSPLIT: scf.for %{{.*}} = %{{.*}} to %c1{{(_[0-9]+)?}} step
// NOSPLIT-COUNT-8: vector.load %{{.*}} : memref<512x2048xbf16>, vector<8xbf16>
// NOSPLIT-NOT: gpu.barrier
// NOSPLIT: gpu.terminator
// UNROLL4-LABEL: func.func @bf16_m1(
// UNROLL4: scf.for %{{.*}} = %{{.*}} to %c2 step
// UNROLL4-COUNT-4: vector.load %{{.*}} : memref<512x2048xbf16>, vector<8xbf16>
// UNROLL4-NOT: vector.load %{{.*}} : memref<512x2048xbf16>
// UNROLL4: scf.yield
func.func @bf16_m1(%x: memref<1x1x2048xbf16>, %w: memref<512x2048xbf16>, %y: memref<1x1x512xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x1x512xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x1x2048xbf16>, memref<512x2048xbf16>) outs(%y : memref<1x1x512xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// bf16, M = 4 (batch 2 x 2 tokens), N = 70, K = 1096 split over 4 warps (70 blocks): one
// step of the 4 x 256 strides, then a remainder loop over the last 72 from (p * 32 + lane) * 8;
// no fill: lane 0 adds the old C. Four accumulators, four partials per warp.
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @bf16_m4(
// CHECK-DAG: %[[C70:.*]] = arith.constant 70 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{[^ ]+}} = %[[C70]], {{.*}} workgroup(%{{.*}} : memref<4x4xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: vector.load %{{.*}} : memref<70x1096xbf16>, vector<8xbf16>
// CHECK: %[[REST:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[REST]] to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-COUNT-20: gpu.shuffle  xor
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<4x70xf32>
// CHECK: arith.addf
// CHECK: memref.store %{{.*}} : memref<4x70xf32>
func.func @bf16_m4(%x: memref<2x2x1096xbf16>, %w: memref<70x1096xbf16>, %y: memref<2x2x70xf32>) {
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x2x1096xbf16>, memref<70x1096xbf16>) outs(%y : memref<2x2x70xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %qe, %pe : f32
    %s = arith.addf %r, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// f32, M = 1 and M = 4 (no extf in the body): 4 f32 (16 bytes) per load; K = 1030 is not a
// multiple of 4, so 2-wide (8-byte) loads.
#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @f32(
// CHECK: gpu.launch
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<40x64xf32>, vector<4xf32>
// CHECK: vector.fma {{.*}} : vector<4xf32>
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<41x1030xf32>, vector<2xf32>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @f32(%x: memref<4x64xf32>, %w: memref<40x64xf32>, %y: memref<4x40xf32>,
               %x1: memref<1x1030xf32>, %w1: memref<41x1030xf32>, %y1: memref<1x41xf32>) {
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x64xf32>, memref<40x64xf32>) outs(%y : memref<4x40xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x1, %w1 : memref<1x1030xf32>, memref<41x1030xf32>) outs(%y1 : memref<1x41xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: M = 16 > 8, a weight indexed by the row (no projection: B [m, k]), a body that
// is not a multiply-accumulate. (An i8 contraction with a dynamic M is dispatched like a float
// one: gemv-epilogue.mlir. Weights stored [k, n]: gemv-columns.mlir.)
#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#wm = affine_map<(m, n, k) -> (m, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @refused(
// CHECK-NOT: gpu.launch
// CHECK-COUNT-3: linalg.generic
func.func @refused(%w: memref<64x64xbf16>, %wrow: memref<1x64xbf16>,
                   %x16: memref<16x64xf32>, %w32: memref<64x64xf32>, %y16: memref<16x64xf32>,
                   %x1: memref<1x64xbf16>, %y1: memref<1x64xf32>) {
  // expected-remark @+1 {{M = 16 is above max-m = 8}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x16, %w32 : memref<16x64xf32>, memref<64x64xf32>) outs(%y16 : memref<16x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{B is not a [n, k] weight}}
  linalg.generic {indexing_maps = [#a, #wm, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x1, %wrow : memref<1x64xbf16>, memref<1x64xbf16>) outs(%y1 : memref<1x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{the body is not out + extf(a) * extf(b)}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x1, %w : memref<1x64xbf16>, memref<64x64xbf16>) outs(%y1 : memref<1x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.maximumf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A dynamic M (the token count of a prefill entry called with T = 1, or a few tokens): if
// M = 1 the GEMV kernel, with the zero fill folded; else if M - 1 < 8 (unsigned: M = 0 goes on)
// the GEMV kernel for 8 rows, A's row index clamped to M - 1 and the stores of rows 1 .. 7
// guarded by r < M; otherwise the zero fill and the contraction as they were, for the
// tensor-core pass.
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @dynamic_m(
// CHECK-SAME: %[[X:.*]]: memref<?x?x256xbf16>, %[[W:.*]]: memref<64x256xbf16>, %[[Y:.*]]: memref<?x?x64xf32>)
// CHECK-DAG: %[[D0:.*]] = memref.dim %[[X]], %c0
// CHECK-DAG: %[[D1:.*]] = memref.dim %[[X]], %c1
// CHECK: %[[M:.*]] = arith.muli %{{.*}}, %[[D1]] : index
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[M]], %c1{{(_[0-9]+)?}} : index
// CHECK: scf.if %[[ONE]] {
// CHECK: memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<?x?x256xbf16> into memref<?x256xbf16>
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK: gpu.terminator
// CHECK: } else {
// CHECK: %[[MM1:.*]] = arith.subi %[[M]], %c1{{(_[0-9]+)?}} : index
// CHECK: %[[FEW:.*]] = arith.cmpi ult, %[[MM1]], %c8{{(_[0-9]+)?}} : index
// CHECK: scf.if %[[FEW]] {
// CHECK: gpu.launch
// CHECK: %[[LAST:.*]] = arith.subi %[[M]], %c1{{(_[0-9]+)?}} : index
// CHECK: %[[ROW7:.*]] = arith.select %{{.*}}, %c7{{(_[0-9]+)?}}, %[[LAST]] : index
// CHECK-COUNT-8: vector.fma {{.*}} : vector<8xf32>
// CHECK: memref.store
// CHECK: %[[R7:.*]] = arith.cmpi ult, %c7{{(_[0-9]+)?}}, %[[M]] : index
// CHECK: scf.if %[[R7]] {
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK: } else {
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[Y]] : memref<?x?x64xf32>)
// CHECK-NEXT: linalg.generic
// CHECK: }
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @dynamic_m(%x: memref<?x?x256xbf16>, %w: memref<64x256xbf16>, %y: memref<?x?x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<?x?x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x?x256xbf16>, memref<64x256xbf16>) outs(%y : memref<?x?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// i8 x i8 -> i32 (a qlinear's contraction), M = 1: 16 i8 per load, four dp4a per vector into
// an i32 accumulator, i32 shuffles and stores; K = 37 (odd) goes byte by byte.
#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @int8(
// CHECK: gpu.launch
// CHECK: scf.for {{.*}} -> (i32)
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x512xi8>, vector<16xi8>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x512xi8>, vector<16xi8>
// CHECK-COUNT-4: nvvm.dot.accumulate.4way {{.*}} <signed>, {{.*}} <signed>, {{.*}} : vector<4xi8>, vector<4xi8>
// CHECK-NOT: vector.reduction
// CHECK-COUNT-5: gpu.shuffle  xor {{.*}} : i32
// CHECK: memref.store %{{.*}} : memref<1x64xi32>
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK-NOT: nvvm.dot.accumulate.4way
// CHECK: vector.load %{{.*}} : memref<9x37xi8>, vector<1xi8>
// CHECK: arith.extsi
// CHECK: arith.muli
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @int8(%x: memref<1x512xi8>, %w: memref<64x512xi8>, %y: memref<1x64xi32>,
                %x2: memref<2x37xi8>, %w2: memref<9x37xi8>, %y2: memref<2x9xi32>) {
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x512xi8>, memref<64x512xi8>) outs(%y : memref<1x64xi32>) {
  ^bb0(%p: i8, %q: i8, %o: i32):
    %pe = arith.extsi %p : i8 to i32
    %qe = arith.extsi %q : i8 to i32
    %r = arith.muli %pe, %qe : i32
    %s = arith.addi %o, %r : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x2, %w2 : memref<2x37xi8>, memref<9x37xi8>) outs(%y2 : memref<2x9xi32>) {
  ^bb0(%p: i8, %q: i8, %o: i32):
    %pe = arith.extsi %p : i8 to i32
    %qe = arith.extsi %q : i8 to i32
    %r = arith.muli %pe, %qe : i32
    %s = arith.addi %o, %r : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// bf16 with 16 rows: above max-m for the SIMT kernel (left alone), the tensor-core GEMV's
// with mma (MMA above).
#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @bf16_m16(
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @bf16_m16(%x: memref<16x64xbf16>, %w: memref<24x64xbf16>, %y: memref<16x24xf32>) {
  // expected-remark @+1 {{M = 16 is above max-m = 8}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<16x64xbf16>, memref<24x64xbf16>) outs(%y : memref<16x24xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}
