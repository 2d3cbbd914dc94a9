// decoda-gpu-gemv applies the elementwise consumer of C in the lane that stores (float and
// dp4a kernels); a dynamic M puts it in both branches of the dispatch: the GEMV kernel applies
// it, and in the other branch it follows the contraction again, for
// decoda-gpu-tensorcore-matmul to fuse. A contraction onto an input C is not tried; with
// fuse-epilogue=false the f32 result is stored and the epilogue stays a generic.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=report=true --verify-diagnostics | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv --decoda-gpu-tensorcore-matmul | FileCheck %s --check-prefix=BOTH
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=fuse-epilogue=false | FileCheck %s --check-prefix=NOFUSE

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>

// M = 1 bf16 with a residual add: the butterfly sum, then the residual read at (0, 0, n), the
// rounding and one bf16 store by lane 0; no f32 temporary.
// CHECK-LABEL: func.func @m1(
// CHECK-SAME: %[[X:[^:]*]]: memref<1x1x256xbf16>, %[[W:[^:]*]]: memref<40x256xbf16>, %[[R:[^:]*]]: memref<1x1x40xbf16>, %[[Y:[^:]*]]: memref<1x1x40xbf16>)
// CHECK-NOT: memref.alloc
// CHECK-DAG: %[[Y2:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : memref<1x1x40xbf16> into memref<1x40xbf16>
// CHECK: gpu.launch
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: scf.if
// CHECK: scf.if
// CHECK: memref.load %[[R]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x1x40xbf16>
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.addf
// CHECK: %[[V:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %[[V]], %[[Y2]][%{{.*}}, %{{.*}}] : memref<1x40xbf16>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// CHECK: return
// NOFUSE-LABEL: func.func @m1(
// NOFUSE: memref.alloc() : memref<1x1x40xf32>
// NOFUSE: gpu.launch
// NOFUSE: memref.store %{{.*}} : memref<1x40xf32>
// NOFUSE: gpu.terminator
// NOFUSE: linalg.generic
// NOFUSE: arith.truncf
func.func @m1(%x: memref<1x1x256xbf16>, %w: memref<40x256xbf16>, %res: memref<1x1x40xbf16>, %y: memref<1x1x40xbf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x1x40xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x1x40xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x1x256xbf16>, memref<40x256xbf16>) outs(%acc : memref<1x1x40xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%res, %acc : memref<1x1x40xbf16>, memref<1x1x40xf32>) outs(%y : memref<1x1x40xbf16>) {
  ^bb0(%in: bf16, %a: f32, %out: bf16):
    %ar = arith.truncf %a : f32 to bf16
    %re = arith.extf %in : bf16 to f32
    %ae = arith.extf %ar : bf16 to f32
    %s = arith.addf %re, %ae : f32
    %v = arith.truncf %s : f32 to bf16
    linalg.yield %v : bf16
  }
  memref.dealloc %acc : memref<1x1x40xf32>
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (m, 0)>
#col = affine_map<(m, n) -> (n)>

// The INT8 dequantisation (decoda.qlinear_epilogue) after the dp4a GEMV: per-token x_scale read
// at (m, 0), w_scale and the bias at n, one bf16 store per (column, row).
// CHECK-LABEL: func.func @i8(
// CHECK-SAME: %[[X:[^:]*]]: memref<2x128xi8>, %[[W:[^:]*]]: memref<40x128xi8>, %[[XS:[^:]*]]: memref<2x1xf32>, %[[WS:[^:]*]]: memref<40xf32>, %[[B:[^:]*]]: memref<40xbf16>, %[[Y:[^:]*]]: memref<2x40xbf16>)
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: nvvm.dot.accumulate.4way
// CHECK: gpu.shuffle  xor %{{.*}} : i32
// CHECK: memref.load %[[XS]][%{{.*}}, %{{.*}}] : memref<2x1xf32>
// CHECK: memref.load %[[WS]][%{{.*}}] : memref<40xf32>
// CHECK: memref.load %[[B]][%{{.*}}] : memref<40xbf16>
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: memref.store %{{.*}}, %[[Y]][%{{.*}}, %{{.*}}] : memref<2x40xbf16>
// CHECK: memref.load %[[XS]]
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: memref.store %{{.*}}, %[[Y]][%{{.*}}, %{{.*}}] : memref<2x40xbf16>
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @i8(%x: memref<2x128xi8>, %w: memref<40x128xi8>, %xs: memref<2x1xf32>, %ws: memref<40xf32>, %b: memref<40xbf16>, %y: memref<2x40xbf16>) {
  %zero = arith.constant 0 : i32
  %acc = memref.alloc() : memref<2x40xi32>
  linalg.fill ins(%zero : i32) outs(%acc : memref<2x40xi32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x128xi8>, memref<40x128xi8>) outs(%acc : memref<2x40xi32>) attrs = {decoda.qlinear_acc} {
  ^bb0(%p: i8, %q: i8, %o: i32):
    %pe = arith.extsi %p : i8 to i32
    %qe = arith.extsi %q : i8 to i32
    %r = arith.muli %pe, %qe : i32
    %s = arith.addi %o, %r : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %xs, %ws, %b : memref<2x40xi32>, memref<2x1xf32>, memref<40xf32>, memref<40xbf16>) outs(%y : memref<2x40xbf16>) attrs = {decoda.qlinear_epilogue} {
  ^bb0(%a: i32, %s1: f32, %s2: f32, %bb: bf16, %out: bf16):
    %af = arith.sitofp %a : i32 to f32
    %m1 = arith.mulf %af, %s1 : f32
    %m2 = arith.mulf %m1, %s2 : f32
    %be = arith.extf %bb : bf16 to f32
    %s = arith.addf %m2, %be : f32
    %v = arith.truncf %s : f32 to bf16
    linalg.yield %v : bf16
  }
  return
}

// -----

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>

// A dynamic M: the epilogue goes into both branches (the GEMV kernel applies it; the other
// branch has the fill, the contraction and the epilogue), and the tensor-core pass fuses it in
// the M > 1 branch: no generic and no f32 temporary are left.
// CHECK-LABEL: func.func @dyn(
// CHECK: memref.alloc(%{{.*}}) : memref<1x?x64xf32>
// CHECK: scf.if
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}} : memref<?x64xbf16>
// CHECK: gpu.terminator
// CHECK: } else {
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: arith.truncf
// CHECK: }
// CHECK-NOT: linalg.generic
// CHECK: return
// BOTH-LABEL: func.func @dyn(
// BOTH-NOT: memref.alloc
// BOTH: scf.if
// BOTH: gpu.launch
// BOTH: gpu.shuffle
// BOTH: arith.truncf
// BOTH: memref.store %{{.*}} : memref<?x64xbf16>
// BOTH: gpu.terminator
// BOTH: } else {
// BOTH: gpu.launch
// BOTH: nvgpu.mma.sync
// BOTH: arith.truncf
// BOTH: vector.store %{{.*}} : memref<?x64xbf16>, vector<2xbf16>
// BOTH: gpu.terminator
// BOTH-NOT: linalg.generic
// BOTH-NOT: memref.alloc
// BOTH: return
func.func @dyn(%x: memref<1x?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<1x?x64xbf16>) {
  %c1 = arith.constant 1 : index
  %t = memref.dim %x, %c1 : memref<1x?x64xbf16>
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc(%t) : memref<1x?x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x?x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x?x64xbf16>, memref<64x64xbf16>) outs(%acc : memref<1x?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x?x64xf32>) outs(%y : memref<1x?x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>

// INT8 with a dynamic M is dispatched too now (the epilogue fused in both branches: dp4a GEMV,
// s8 mma.sync).
// CHECK-LABEL: func.func @dyn_i8(
// CHECK: scf.if
// CHECK: gpu.launch
// CHECK: nvvm.dot.accumulate.4way
// CHECK: } else {
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: }
// BOTH-LABEL: func.func @dyn_i8(
// BOTH-NOT: memref.alloc
// BOTH: scf.if
// BOTH: gpu.launch
// BOTH: nvvm.dot.accumulate.4way
// BOTH: arith.sitofp
// BOTH: memref.store %{{.*}} : memref<?x40xf32>
// BOTH: } else {
// BOTH: gpu.launch
// BOTH: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]}
// BOTH: arith.sitofp
// BOTH: vector.store %{{.*}} : memref<?x40xf32>, vector<2xf32>
// BOTH-NOT: linalg.generic
// BOTH: return
func.func @dyn_i8(%x: memref<?x128xi8>, %w: memref<40x128xi8>, %ws: memref<40xf32>, %y: memref<?x40xf32>) {
  %c0 = arith.constant 0 : index
  %t = memref.dim %x, %c0 : memref<?x128xi8>
  %zero = arith.constant 0 : i32
  %acc = memref.alloc(%t) : memref<?x40xi32>
  linalg.fill ins(%zero : i32) outs(%acc : memref<?x40xi32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x128xi8>, memref<40x128xi8>) outs(%acc : memref<?x40xi32>) attrs = {decoda.qlinear_acc} {
  ^bb0(%p: i8, %q: i8, %o: i32):
    %pe = arith.extsi %p : i8 to i32
    %qe = arith.extsi %q : i8 to i32
    %r = arith.muli %pe, %qe : i32
    %s = arith.addi %o, %r : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %ws : memref<?x40xi32>, memref<40xf32>) outs(%y : memref<?x40xf32>) attrs = {decoda.qlinear_epilogue} {
  ^bb0(%a: i32, %s2: f32, %out: f32):
    %af = arith.sitofp %a : i32 to f32
    %m2 = arith.mulf %af, %s2 : f32
    linalg.yield %m2 : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>

// Not tried: the contraction accumulates onto C as it was (no zero fill; the sums are added to
// the old C, which only the f32 store keeps); and C read by a second op (refused, remark).
// CHECK-LABEL: func.func @refused(
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}} : memref<2x40xf32>
// CHECK: memref.store %{{.*}} : memref<2x40xf32>
// CHECK: gpu.terminator
// CHECK: linalg.generic
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}} : memref<2x40xf32>
// CHECK: gpu.terminator
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func @refused(%x: memref<2x128xbf16>, %w: memref<40x128xbf16>, %c: memref<2x40xf32>, %y: memref<2x40xbf16>, %y2: memref<2x40xbf16>) {
  %acc = memref.alloc() : memref<2x40xf32>
  memref.copy %c, %acc : memref<2x40xf32> to memref<2x40xf32>
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x128xbf16>, memref<40x128xbf16>) outs(%acc : memref<2x40xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<2x40xf32>) outs(%y : memref<2x40xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  }
  %zero = arith.constant 0.0 : f32
  %acc2 = memref.alloc() : memref<2x40xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<2x40xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x128xbf16>, memref<40x128xbf16>) outs(%acc2 : memref<2x40xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{decoda-gpu-gemv: epilogue not fused: C has another user (linalg.generic)}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<2x40xf32>) outs(%y : memref<2x40xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<2x40xf32>) outs(%y2 : memref<2x40xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  }
  return
}
