// decoda-gpu-tensorcore-matmul with wgmma=true wgmma-tma=true (what decoda-lower-to-cuda sets
// for gpu-arch=sm_90a): the stages of the wgmma kernel are filled by TMA. The host code asks
// for A's and B's tensor maps (decoda_cuda_tensor_map(base, inner = K, rows, row bytes,
// element bytes, box inner = 64 bf16 or 128 i8, box rows = tile-m or tile-n, swizzle 128));
// the kernel has no static shared memory but 4 * (128 + 128) * 128 + 1024 + 4 * 8 = 132128
// dynamic bytes, aligns them to 1024, inits one mbarrier per stage (count 1), and thread 0
// loads stages - 1 = 3 tiles ahead (expect_tx of 32768 bytes, then A's and B's box). Per k
// tile: try_wait.parity, four k16 wgmma (64 bf16 of k per 128-byte swizzled row) through
// descriptors with swizzle mode 1, SBO 1024, LBO 16 (1 << 62 | 64 << 32 | 1 << 16 =
// 4611686293305360384), commit, wait for all but one, barrier, thread 0 refills. K = 200 is
// not a multiple of the 64-element stage: 4 tiles, the last zero-filled by the TMA past K
// (without TMA K = 200 is left to SIMT: not a multiple of tile-k = 32). Numerics:
// tma-sim.mlir; PTX, ptxas and the runtime: tma-runtime.mlir.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true wgmma-tma=true report=true" --canonicalize --cse --verify-diagnostics | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true report=true" 2>&1 | FileCheck %s --check-prefix=NOTMA
// RUN: not decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true wgmma-tma=true tma-stages=1" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true wgmma-tma=true tile-n=256 tma-stages=5" 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true wgmma-tma=true tile-n=256 tma-stages=4 tile-k=64" --canonicalize | FileCheck %s --check-prefix=N256
// STAGES: invalid wgmma tiling tile-m=128 tile-n=128 tile-k=32 tma-stages=1: tma-stages must be at least 2
// SHARED: tma-stages=5: the TMA stages need 246824 bytes of shared memory, over the 232448-byte limit of a block
// 4 * (128 + 256) * 128 + 1024 + 32 = 197664 bytes; one n256 wgmma per k16 slice.
// N256: dynamic_shared_memory_size %c197664_i32
// N256: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// CHECK-LABEL: func.func @linear(
// CHECK-SAME: %[[X:.*]]: memref<1x?x200xbf16>, %[[W:.*]]: memref<136x200xbf16>, %[[Y:.*]]: memref<1x?x136xf32>)
// CHECK-DAG: %[[DESC:.*]] = arith.constant 4611686293305360384 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 200 : i64
// CHECK-DAG: %[[ROWB:.*]] = arith.constant 400 : i64
// CHECK-DAG: %[[EB:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[BOXK:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[BOX:.*]] = arith.constant 128 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 136 : i64
// CHECK-DAG: %[[TX:.*]] = arith.constant 32768 : i32
// CHECK-DAG: %[[A:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]]
// CHECK: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[PA64:.*]] = arith.index_cast %[[PA]] : index to i64
// CHECK: %[[M:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[MAPA:.*]] = llvm.call @decoda_cuda_tensor_map(%[[PA64]], %[[K]], %[[M]], %[[ROWB]], %[[EB]], %[[BOXK]], %[[BOX]], %[[BOX]])
// CHECK: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK: %[[PB64:.*]] = arith.index_cast %[[PB]] : index to i64
// CHECK: %[[MAPB:.*]] = llvm.call @decoda_cuda_tensor_map(%[[PB64]], %[[K]], %[[N]], %[[ROWB]], %[[EB]], %[[BOXK]], %[[BOX]], %[[BOX]])
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c132128_i32 {
// CHECK-NOT: workgroup(
// CHECK: gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: arith.andi %{{.*}}, %c-1024_i64 : i64
// CHECK: scf.if
// CHECK-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR0:.*]], %[[TX]]
// CHECK: %[[DA:.*]] = llvm.inttoptr %[[MAPA]] : i64 to !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DA]], %[[BAR0]], box[%c0_i32, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: %[[DB:.*]] = llvm.inttoptr %[[MAPB]] : i64 to !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DB]], %[[BAR0]], box[%c0_i32, %{{.*}}]
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[TX]]
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} box[%c64_i32,
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[TX]]
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} box[%c128_i32,
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %c10000000_i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.ori %{{.*}}, %[[DESC]] : i64
// CHECK: %[[D0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[ACC]], <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: %[[D1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]]
// CHECK: %[[D2:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D1]]
// CHECK: %[[D3:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D2]]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[TX]]
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.yield %[[D3]]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: vector.store %{{.*}}, %{{.*}}[{{.*}}] {alignment = 8 : i64} : memref<?x136xf32>, vector<2xf32>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK: llvm.func @decoda_cuda_tensor_map(i64, i64, i64, i64, i64, i64, i64, i64) -> i64
// NOTMA: remark: decoda-gpu-tensorcore-matmul: left to the SIMT path: K = 200 is not a multiple of tile-k = 32
func.func @linear(%x: memref<1x?x200xbf16>, %w: memref<136x200xbf16>, %y: memref<1x?x136xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x?x136xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x?x200xbf16>, memref<136x200xbf16>) outs(%y : memref<1x?x136xf32>) {
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

// INT8 (i8 x i8 -> i32), K = 48: one 128-byte tile of 128 i8 (the loop of one trip folds), the
// rest zero-filled; i32
// accumulators start from C (no fill: loaded first); four k32 .s8 wgmma per tile. Without TMA
// K = 48 is not a multiple of the i8 stage: mma.sync with tile-k = 32 would not take it either.
// CHECK-LABEL: func.func @qlinear(
// CHECK: llvm.call @decoda_cuda_tensor_map(%{{.*}}, %c48_i64, %{{.*}}, %c48_i64, %c1_i64, %c128_i64, %c128_i64, %c128_i64)
// CHECK: llvm.call @decoda_cuda_tensor_map(%{{.*}}, %c48_i64, %c64_i64, %c48_i64, %c1_i64, %c128_i64, %c128_i64, %c128_i64)
// CHECK: gpu.launch
// CHECK: vector.load
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: vector.store %{{.*}} : memref<?x64xi32>, vector<2xi32>
// NOTMA: remark: decoda-gpu-tensorcore-matmul: left to the SIMT path: K = 48 is not a multiple of 32
func.func @qlinear(%x: memref<?x48xi8>, %w: memref<64x48xi8>, %y: memref<?x64xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x48xi8>, memref<64x48xi8>) outs(%y : memref<?x64xi32>) {
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

// K = 100 bf16: 200-byte rows, not 16-byte aligned: no tensor map can describe A; the
// cp.async kernel cannot take K = 100 either (not a multiple of tile-k): SIMT.
func.func @unaligned(%x: memref<?x100xbf16>, %w: memref<64x100xbf16>, %y: memref<?x64xf32>) {
  // expected-remark @below {{left to the SIMT path: K = 100: rows of 200 bytes are not 16-byte aligned (TMA tensor maps need it)}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x100xbf16>, memref<64x100xbf16>) outs(%y : memref<?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}
