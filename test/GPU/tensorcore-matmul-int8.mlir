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
  // expected-remark @+1 {{decoda-gpu-tensorcore-matmul: left to the SIMT path: an INT8 contraction with an activation zero point (only symmetric activations map to s8 mma; decoda-gpu-split-zero-point splits it out)}}
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

// -----

// decoda.qlinear as bufferized: the zero fill, the tagged contraction into a temporary and the
// tagged epilogue (per-token x_scale, per-channel w_scale, bias, bf16 output). The epilogue is
// applied in the kernel's stores (sitofp, the scales read by (row, n), the bias, truncf, one
// 4-byte store of the two bf16 of each accumulator pair; rows of M are split back into the lead dims by the
// output's extents), and the kernel goes where the epilogue was; with fuse-epilogue=false the
// i32 result is stored and the epilogue stays for the SIMT loops.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="fuse-epilogue=false" | FileCheck %s --check-prefix=UNFUSED
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#tok = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#ch = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @fused(
// CHECK-SAME: %[[X:.*]]: memref<1x?x128xi8>, %[[W:.*]]: memref<136x128xi8>, %[[XS:.*]]: memref<1x?x1xf32>, %[[WS:.*]]: memref<136xf32>, %[[B:.*]]: memref<136xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<1x?x136xbf16>
// CHECK: %[[O2:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1], [2]] : memref<1x?x136xbf16> into memref<?x136xbf16>
// CHECK: gpu.launch
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]}
// CHECK: scf.if
// CHECK: %[[V:.*]] = vector.extract %{{.*}}[0] : i32 from vector<2xi32>
// CHECK: %[[S:.*]] = memref.load %[[XS]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x?x1xf32>
// CHECK: memref.load %[[WS]][%{{.*}}] : memref<136xf32>
// CHECK: memref.load %[[B]][%{{.*}}] : memref<136xf32>
// CHECK: %[[F:.*]] = arith.sitofp %[[V]] : i32 to f32
// CHECK: arith.mulf %[[F]], %[[S]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.sitofp
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: vector.store %{{.*}}, %[[O2]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<?x136xbf16>, vector<2xbf16>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
// UNFUSED-LABEL: func.func @fused(
// UNFUSED: gpu.launch
// UNFUSED: vector.store %{{.*}} : memref<?x136xi32>, vector<2xi32>
// UNFUSED: linalg.generic {{.*}} attrs = {decoda.qlinear_epilogue}
func.func @fused(%arg0: memref<1x?x128xi8>, %arg1: memref<136x128xi8>, %arg2: memref<1x?x1xf32>, %arg3: memref<136xf32>, %arg4: memref<136xf32>) -> memref<1x?x136xbf16> {
  %c0_i32 = arith.constant 0 : i32
  %c1 = arith.constant 1 : index
  %dim = memref.dim %arg0, %c1 : memref<1x?x128xi8>
  %acc = memref.alloc(%dim) {alignment = 64 : i64} : memref<1x?x136xi32>
  linalg.fill ins(%c0_i32 : i32) outs(%acc : memref<1x?x136xi32>)
  linalg.generic {indexing_maps = [#x, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : memref<1x?x128xi8>, memref<136x128xi8>) outs(%acc : memref<1x?x136xi32>) attrs = {decoda.qlinear_acc} {
  ^bb0(%in: i8, %in_1: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    %1 = arith.extsi %in_1 : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %out, %2 : i32
    linalg.yield %3 : i32
  }
  %y = memref.alloc(%dim) {alignment = 64 : i64} : memref<1x?x136xbf16>
  linalg.generic {indexing_maps = [#id, #tok, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%acc, %arg2, %arg3, %arg4 : memref<1x?x136xi32>, memref<1x?x1xf32>, memref<136xf32>, memref<136xf32>) outs(%y : memref<1x?x136xbf16>) attrs = {decoda.qlinear_epilogue} {
  ^bb0(%in: i32, %in_1: f32, %in_2: f32, %in_3: f32, %out: bf16):
    %0 = arith.sitofp %in : i32 to f32
    %1 = arith.mulf %0, %in_1 : f32
    %2 = arith.mulf %1, %in_2 : f32
    %3 = arith.addf %2, %in_3 : f32
    %4 = arith.truncf %3 : f32 to bf16
    linalg.yield %4 : bf16
  }
  return %y : memref<1x?x136xbf16>
}
