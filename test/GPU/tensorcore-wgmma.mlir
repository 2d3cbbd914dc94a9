// decoda-gpu-tensorcore-matmul with wgmma=true (what decoda-lower-to-cuda sets for
// gpu-arch=sm_90a): a bf16/f16 projection contraction becomes the warpgroup-MMA kernel (two
// warpgroups, three cp.async stages in the no-swizzle core-matrix layout, nvvm.wgmma.mma_async
// m64n128k16 on shared-memory descriptors, one wgmma group in flight); so does an INT8
// contraction whose K is a multiple of 64 (m64n128k32 .s8; else it keeps mma.sync); without the
// option (every other gpu-arch) the mma.sync kernel is emitted. Numerics:
// tensorcore-wgmma-sim.mlir; PTX and ptxas: tensorcore-wgmma-ptx.mlir.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true report=true" --verify-diagnostics | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="report=true" --verify-diagnostics | FileCheck %s --check-prefix=MMA
// RUN: not decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true tile-m=256" 2>&1 | FileCheck %s --check-prefix=TILEM
// RUN: not decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true wgmma-stages=4" 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true wgmma-stages=2" 2>&1 | FileCheck %s --check-prefix=STAGES
// TILEM: invalid wgmma tiling tile-m=256 tile-n=128 tile-k=32 wgmma-stages=3: tile-m must be 64 or 128
// SHARED: the stages need 65536 bytes of shared memory, over the 48 KiB static limit
// STAGES: wgmma-stages must be at least 3

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// The zero fill is folded (the accumulators start as llvm.mlir.zero, after the prologue's
// copies); 2 blocks along N = 136, 256 threads; stages [3][128 * 32] for A and B; one prologue
// stage; per k tile: wait for it,
// fence.proxy.async, barrier, refill the next stage, commit, then wgmma.fence, two k16 wgmma on
// descriptors (LBO 128, SBO 512: 0x2000080000 = 137439477760), commit, wait for all but one;
// after the loop wait for all, then stores guarded by M and N.
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: %[[X:.*]]: memref<1x?x64xbf16>, %[[W:.*]]: memref<136x64xbf16>, %[[Y:.*]]: memref<1x?x136xf32>)
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[A:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<1x?x64xbf16> into memref<?x64xbf16>
// CHECK-DAG: %[[C:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : memref<1x?x136xf32> into memref<?x136xf32>
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{[^ ]+}} = %[[C2]], {{.*}} threads({{.*}}) in (%{{[^ ]+}} = %[[C256]],
// CHECK-SAME: workgroup(%[[AS:.*]] : memref<3x4096xbf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<3x4096xbf16, #gpu.address_space<workgroup>>)
// CHECK: memref.extract_aligned_pointer_as_index %[[AS]]
// CHECK: memref.extract_aligned_pointer_as_index %[[BS]]
// CHECK-COUNT-2: nvgpu.device_async_copy %[[A]][{{.*}}], %[[AS]][{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x64xbf16> to memref<3x4096xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: nvgpu.device_async_copy %[[W]][{{.*}}], %[[BS]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[ZERO:.*]] = llvm.mlir.zero : !llvm.struct<({{(f32, )+}}f32)>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (!llvm.struct<
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-COUNT-2: nvgpu.device_async_copy %[[A]]
// CHECK-COUNT-2: nvgpu.device_async_copy %[[W]]
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.ori %{{.*}}, %{{.*}} : i64
// CHECK: %[[D0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[ACC]], <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: %[[D1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]], <m = 64, n = 128, k = 16>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.yield %[[D1]]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.if
// CHECK: llvm.extractvalue %{{.*}}[0]
// CHECK: llvm.extractvalue %{{.*}}[1]
// CHECK: vector.store %{{.*}}, %[[C]][{{.*}}] {alignment = 8 : i64} : memref<?x136xf32>, vector<2xf32>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK-NOT: nvgpu.mma.sync
// MMA-LABEL: func.func @linear(
// MMA-NOT: nvvm.wgmma
// MMA: nvgpu.mma.sync
func.func @linear(%x: memref<1x?x64xbf16>, %w: memref<136x64xbf16>, %y: memref<1x?x136xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x?x136xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x?x64xbf16>, memref<136x64xbf16>) outs(%y : memref<1x?x136xf32>) {
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

// No zero fill: the accumulators start from C (guarded pair loads inserted into the struct);
// f16 operands.
// CHECK-LABEL: func.func @accumulate(
// CHECK: gpu.launch
// CHECK: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<
// CHECK: scf.if %{{.*}} -> (vector<2xf32>)
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<?x32xf32>, vector<2xf32>
// CHECK: llvm.insertvalue %{{.*}}, %[[U]][0]
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// MMA-LABEL: func.func @accumulate(
// MMA: nvgpu.mma.sync
func.func @accumulate(%x: memref<?x32xf16>, %w: memref<32x32xf16>, %y: memref<?x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x32xf16>, memref<32x32xf16>) outs(%y : memref<?x32xf32>) {
  ^bb0(%p: f16, %q: f16, %o: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Long K: 4096 / 32 = 128 k tiles through the three-stage ring (the loop bound).
// CHECK-LABEL: func.func @long_k(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c128{{(_[0-9]+)?}} step
// CHECK-COUNT-2: nvvm.wgmma.mma_async
func.func @long_k(%x: memref<?x4096xbf16>, %w: memref<256x4096xbf16>, %y: memref<?x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<?x256xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x4096xbf16>, memref<256x4096xbf16>) outs(%y : memref<?x256xf32>) {
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

// INT8 (i8 x i8 -> i32) with K a multiple of 64 (the 64-byte stage row): wgmma m64n128k32
// .s32.s8.s8 on i32 accumulators; K = 96 (a multiple of 32 only) keeps the s8 mma.sync kernel.
// CHECK-LABEL: func.func @int8(
// CHECK: workgroup(%{{.*}} : memref<3x8192xi8, #gpu.address_space<workgroup>>, %{{.*}} : memref<3x8192xi8, #gpu.address_space<workgroup>>)
// CHECK: llvm.mlir.zero : !llvm.struct<({{(i32, )+}}i32)>
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>]
// CHECK: vector.store %{{.*}} : memref<?x64xi32>, vector<2xi32>
// CHECK-NOT: nvgpu.mma.sync
// CHECK-LABEL: func.func @int8_k96(
// CHECK-NOT: nvvm.wgmma
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]}
// MMA-LABEL: func.func @int8(
// MMA: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]}
func.func @int8(%x: memref<?x64xi8>, %w: memref<64x64xi8>, %y: memref<?x64xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%y : memref<?x64xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xi8>, memref<64x64xi8>) outs(%y : memref<?x64xi32>) {
  ^bb0(%p: i8, %q: i8, %o: i32):
    %pe = arith.extsi %p : i8 to i32
    %qe = arith.extsi %q : i8 to i32
    %r = arith.muli %pe, %qe : i32
    %s = arith.addi %o, %r : i32
    linalg.yield %s : i32
  }
  return
}
func.func @int8_k96(%x: memref<?x96xi8>, %w: memref<64x96xi8>, %y: memref<?x64xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%y : memref<?x64xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x96xi8>, memref<64x96xi8>) outs(%y : memref<?x64xi32>) {
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

// Refused as for mma.sync: K not a multiple of tile-k, N not a multiple of 8, f32 operands.
// CHECK-LABEL: func.func @refused(
// CHECK-NOT: nvvm.wgmma
// CHECK-NOT: gpu.launch
func.func @refused(%x: memref<?x48xbf16>, %w: memref<64x48xbf16>, %y: memref<?x64xf32>,
                   %x2: memref<?x64xbf16>, %w2: memref<60x64xbf16>, %y2: memref<?x60xf32>,
                   %x3: memref<?x64xf32>, %w3: memref<64x64xf32>, %y3: memref<?x64xf32>) {
  // expected-remark @+1 {{K = 48 is not a multiple of tile-k = 32}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x48xbf16>, memref<64x48xbf16>) outs(%y : memref<?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{N = 60 is not a multiple of 8}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x2, %w2 : memref<?x64xbf16>, memref<60x64xbf16>) outs(%y2 : memref<?x60xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{operands are not bf16, f16 or i8}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x3, %w3 : memref<?x64xf32>, memref<64x64xf32>) outs(%y3 : memref<?x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}
