// decoda-gpu-tensorcore-matmul on the INT8 contraction of decoda.qlinear (i8 x i8 -> i32,
// body out + extsi(a) * extsi(b)): one gpu.launch with i8 shared tiles, cp.async, ldmatrix
// and mma.sync m16n8k32 on vector<4x4xi8> / vector<2x4xi8> / vector<2x2xi32>; shapes and forms
// it does not take stay SIMT with a remark under report=true. PTX: tensorcore-int8-ptx.mlir;
// numerics: tensorcore-int8-sim.mlir.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul=report=true --verify-diagnostics | FileCheck %s

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// K = 128: stages of 64 i8 (64 bytes a row, as the bf16 kernel's 32 bf16), rows padded by 16
// bytes ([2][128][80] i8, 40 KiB in all); the zero i32 fill is folded; two m16n8k32 k slices
// per stage.
// CHECK-LABEL: func.func @qlinear(
// CHECK-SAME: %[[X:.*]]: memref<1x?x128xi8>, %[[W:.*]]: memref<136x128xi8>, %[[Y:.*]]: memref<1x?x136xi32>)
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[A:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<1x?x128xi8> into memref<?x128xi8>
// CHECK-DAG: %[[C:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : memref<1x?x136xi32> into memref<?x136xi32>
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{[^ ]+}} = %[[C2]], {{.*}} threads({{.*}}) in (%{{[^ ]+}} = %[[C256]],
// CHECK-SAME: workgroup(%[[AS:.*]] : memref<2x128x80xi8, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<2x128x80xi8, #gpu.address_space<workgroup>>)
// CHECK: nvgpu.device_async_copy %[[A]][{{.*}}], %[[AS]][{{.*}}], 16, %{{.*}} {bypassL1} : memref<?x128xi8> to memref<2x128x80xi8, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %[[W]][{{.*}}], %[[BS]][{{.*}}], 16, %{{.*}} {bypassL1}
// CHECK: %[[FIRST:.*]] = nvgpu.device_async_create_group
// CHECK: scf.for {{.*}} -> (vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>)
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK: nvgpu.device_async_wait %[[FIRST]] {numGroups = 0 : i32}
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[AS]][{{.*}}] {numTiles = 4 : i32, transpose = false} : {{.*}} -> vector<4x4xi8>
// CHECK: %[[B01:.*]] = nvgpu.ldmatrix %[[BS]][{{.*}}] {numTiles = 4 : i32, transpose = false} : {{.*}} -> vector<4x4xi8>
// CHECK: vector.extract %[[B01]][0] : vector<4xi8> from vector<4x4xi8>
// CHECK-COUNT-16: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
// CHECK-COUNT-16: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]}
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK: scf.if
// CHECK: vector.store %{{.*}}, %[[C]][{{.*}}] {alignment = 8 : i64} : memref<?x136xi32>, vector<2xi32>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @qlinear(%x: memref<1x?x128xi8>, %w: memref<136x128xi8>, %y: memref<1x?x136xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%y : memref<1x?x136xi32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x?x128xi8>, memref<136x128xi8>) outs(%y : memref<1x?x136xi32>) attrs = {decoda.qlinear_acc} {
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

// K = 96 is a multiple of 32 but not of 64: stages of 32 i8 ([2][128][48], one k slice per
// stage, three stages); operands of the multiply and add in the other order; no fill: the
// accumulators start from C (guarded loads).
#a2 = affine_map<(m, n, k) -> (m, k)>
#w2 = affine_map<(m, n, k) -> (n, k)>
#c2 = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @k96(
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<2x128x48xi8, #gpu.address_space<workgroup>>, %{{.*}} : memref<2x128x48xi8, #gpu.address_space<workgroup>>)
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<?x96xi32>, vector<2xi32>
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C3]]
// CHECK-COUNT-16: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]}
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.barrier
func.func @k96(%x: memref<?x96xi8>, %w: memref<96x96xi8>, %y: memref<?x96xi32>) {
  linalg.generic {indexing_maps = [#a2, #w2, #c2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x96xi8>, memref<96x96xi8>) outs(%y : memref<?x96xi32>) {
  ^bb0(%p: i8, %q: i8, %o: i32):
    %pe = arith.extsi %p : i8 to i32
    %qe = arith.extsi %q : i8 to i32
    %r = arith.muli %qe, %pe : i32
    %s = arith.addi %r, %o : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// Left to the SIMT loops, with the reason: K not a multiple of 32, an activation zero point
// (the asymmetric qlinear form, three inputs), unsigned extension, an f32 accumulator.
#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#s = affine_map<(m, n, k) -> ()>
// CHECK-LABEL: func.func @refused(
// CHECK-NOT: gpu.launch
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: gpu.launch
func.func @refused(%x: memref<?x80xi8>, %w: memref<64x80xi8>, %y: memref<?x64xi32>,
                   %x2: memref<?x64xi8>, %w2: memref<64x64xi8>, %zp: memref<i8>, %f: memref<?x64xf32>) {
  // expected-remark @+1 {{decoda-gpu-tensorcore-matmul: left to the SIMT path: K = 80 is not a multiple of 32 (the shortest i8 stage)}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x80xi8>, memref<64x80xi8>) outs(%y : memref<?x64xi32>) {
  ^bb0(%p: i8, %q: i8, %o: i32):
    %pe = arith.extsi %p : i8 to i32
    %qe = arith.extsi %q : i8 to i32
    %r = arith.muli %pe, %qe : i32
    %t = arith.addi %o, %r : i32
    linalg.yield %t : i32
  }
  // expected-remark @+1 {{decoda-gpu-tensorcore-matmul: left to the SIMT path: an INT8 contraction with an activation zero point (only symmetric activations map to s8 mma)}}
  linalg.generic {indexing_maps = [#a, #w, #s, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x2, %w2, %zp : memref<?x64xi8>, memref<64x64xi8>, memref<i8>) outs(%y : memref<?x64xi32>) attrs = {decoda.qlinear_acc} {
  ^bb0(%p: i8, %q: i8, %z: i8, %o: i32):
    %pe = arith.extsi %p : i8 to i32
    %ze = arith.extsi %z : i8 to i32
    %pz = arith.subi %pe, %ze : i32
    %qe = arith.extsi %q : i8 to i32
    %r = arith.muli %pz, %qe : i32
    %t = arith.addi %o, %r : i32
    linalg.yield %t : i32
  }
  // expected-remark @+1 {{decoda-gpu-tensorcore-matmul: left to the SIMT path: the body is not out + extsi(a) * extsi(b)}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x2, %w2 : memref<?x64xi8>, memref<64x64xi8>) outs(%y : memref<?x64xi32>) {
  ^bb0(%p: i8, %q: i8, %o: i32):
    %pe = arith.extui %p : i8 to i32
    %qe = arith.extsi %q : i8 to i32
    %r = arith.muli %pe, %qe : i32
    %t = arith.addi %o, %r : i32
    linalg.yield %t : i32
  }
  // expected-remark @+1 {{decoda-gpu-tensorcore-matmul: left to the SIMT path: the accumulator is not i32}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x2, %w2 : memref<?x64xi8>, memref<64x64xi8>) outs(%f : memref<?x64xf32>) {
  ^bb0(%p: i8, %q: i8, %o: f32):
    %pe = arith.sitofp %p : i8 to f32
    %qe = arith.sitofp %q : i8 to f32
    %r = arith.mulf %pe, %qe : f32
    %t = arith.addf %o, %r : f32
    linalg.yield %t : f32
  }
  return
}
