// The elementwise consumer of a projection's f32 (i32) result is applied in the contraction
// kernel's stores (GPUContraction.h, fusableEpilogue): decoda-gpu-tensorcore-matmul (mma.sync,
// wgmma) stores the epilogue's bf16 result, C (a temporary) is neither written nor allocated,
// and the epilogue is gone. Refused, with the reason under report=true: C read by a second op,
// C read through a transposed map, the output aliasing an input or an operand of the
// contraction; not tried: a contraction that does not start from a zero fill. GEMV and the
// dynamic-M dispatch: gemv-epilogue.mlir; PTX: epilogue-ptx.mlir; numerics: epilogue-sim.mlir.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul=report=true --verify-diagnostics | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true" 2>/dev/null | FileCheck %s --check-prefix=WG
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="fuse-epilogue=false" 2>/dev/null | FileCheck %s --check-prefix=NOFUSE

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>

// The plain bf16 rounding of decoda.linear: the kernel goes where the epilogue was, rounds each
// accumulator and stores the two columns of a pair as one vector<2xbf16> (4 bytes) to the
// output; C's allocation, its fill and its deallocation are gone.
// CHECK-LABEL: func.func @truncf(
// CHECK-SAME: %[[X:[^:]*]]: memref<1x?x64xbf16>, %[[W:[^:]*]]: memref<64x64xbf16>, %[[Y:[^:]*]]: memref<1x?x64xbf16>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[Y2:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : memref<1x?x64xbf16> into memref<?x64xbf16>
// CHECK: gpu.launch
// CHECK: nvgpu.mma.sync
// CHECK: scf.if
// CHECK: %[[T0:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[T1:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[P:.*]] = vector.from_elements %[[T0]], %[[T1]] : vector<2xbf16>
// CHECK: vector.store %[[P]], %[[Y2]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<?x64xbf16>, vector<2xbf16>
// CHECK-NOT: vector.store {{.*}}vector<2xf32>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// CHECK: return
// The wgmma kernel stores through the same callback.
// WG-LABEL: func.func @truncf(
// WG-NOT: memref.alloc
// WG: gpu.launch
// WG: nvvm.wgmma.mma_async
// WG: nvvm.wgmma.wait.group.sync.aligned 0
// WG: arith.truncf %{{.*}} : f32 to bf16
// WG: vector.store %{{.*}} {alignment = 4 : i64} : memref<?x64xbf16>, vector<2xbf16>
// WG-NOT: vector.store %{{.*}} vector<2xf32>
// WG: gpu.terminator
// WG-NOT: linalg.generic
// WG: return
// Fusion off: the f32 pairs are stored to C and the rounding stays a generic.
// NOFUSE-LABEL: func.func @truncf(
// NOFUSE: memref.alloc
// NOFUSE: gpu.launch
// NOFUSE: vector.store %{{.*}} {alignment = 8 : i64} : memref<?x64xf32>, vector<2xf32>
// NOFUSE-NOT: vector<2xbf16>
// NOFUSE: gpu.terminator
// NOFUSE: linalg.generic
// NOFUSE: arith.truncf
func.func @truncf(%x: memref<1x?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<1x?x64xbf16>) {
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
  %t2 = memref.dim %acc, %c1 : memref<1x?x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x?x64xf32>) outs(%y : memref<1x?x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  }
  memref.dealloc %acc : memref<1x?x64xf32>
  return
}

// -----

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
#col = affine_map<(b, m, n) -> (n)>

// A residual add and a bias after the rounding (decoda-fuse-elementwise's chain; C is the
// second input): the residual is read at the element's (lead..., n), rows of M split back
// into the two lead dims, the bias at n.
// CHECK-LABEL: func.func @residual(
// CHECK-SAME: %[[X:[^:]*]]: memref<2x?x64xbf16>, %[[W:[^:]*]]: memref<64x64xbf16>, %[[R:[^:]*]]: memref<2x?x64xbf16>, %[[B:[^:]*]]: memref<64xbf16>, %[[Y:[^:]*]]: memref<2x?x64xbf16>)
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: nvgpu.mma.sync
// CHECK: scf.if
// CHECK: arith.remui
// CHECK: arith.divui
// CHECK: memref.load %[[R]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x?x64xbf16>
// CHECK: memref.load %[[B]][%{{.*}}] : memref<64xbf16>
// CHECK: arith.truncf
// CHECK: arith.addf
// CHECK: arith.addf
// CHECK: arith.truncf
// CHECK: vector.store %{{.*}} : memref<?x64xbf16>, vector<2xbf16>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @residual(%x: memref<2x?x64xbf16>, %w: memref<64x64xbf16>, %res: memref<2x?x64xbf16>, %bias: memref<64xbf16>, %y: memref<2x?x64xbf16>) {
  %c1 = arith.constant 1 : index
  %t = memref.dim %x, %c1 : memref<2x?x64xbf16>
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc(%t) : memref<2x?x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<2x?x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x?x64xbf16>, memref<64x64xbf16>) outs(%acc : memref<2x?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%res, %acc, %bias : memref<2x?x64xbf16>, memref<2x?x64xf32>, memref<64xbf16>) outs(%y : memref<2x?x64xbf16>) {
  ^bb0(%in: bf16, %a: f32, %bb: bf16, %out: bf16):
    %ar = arith.truncf %a : f32 to bf16
    %re = arith.extf %in : bf16 to f32
    %ae = arith.extf %ar : bf16 to f32
    %be = arith.extf %bb : bf16 to f32
    %s = arith.addf %re, %ae : f32
    %s2 = arith.addf %s, %be : f32
    %v = arith.truncf %s2 : f32 to bf16
    linalg.yield %v : bf16
  }
  return
}

// -----

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>

// SwiGLU: gate and up each from their own zero fill, then silu(gate) * up in f32, rounded.
// The gate's kernel is followed by the up's fill, so it stores its f32 result; the up's kernel
// applies the product, reading the gate's f32 result as its other input.
// CHECK-LABEL: func.func @swiglu(
// CHECK: %[[G:.*]] = memref.alloc(%{{.*}}) : memref<1x?x96xf32>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: vector.store %{{.*}}, %{{.*}} : memref<?x96xf32>, vector<2xf32>
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: nvgpu.mma.sync
// CHECK: memref.load %[[G]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x?x96xf32>
// CHECK: math.exp
// CHECK: arith.truncf
// CHECK: vector.store %{{.*}} : memref<?x96xbf16>, vector<2xbf16>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @swiglu(%x: memref<1x?x64xbf16>, %wg: memref<96x64xbf16>, %wu: memref<96x64xbf16>, %y: memref<1x?x96xbf16>) {
  %c1 = arith.constant 1 : index
  %t = memref.dim %x, %c1 : memref<1x?x64xbf16>
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %g = memref.alloc(%t) : memref<1x?x96xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<1x?x96xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wg : memref<1x?x64xbf16>, memref<96x64xbf16>) outs(%g : memref<1x?x96xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  %u = memref.alloc(%t) : memref<1x?x96xf32>
  linalg.fill ins(%zero : f32) outs(%u : memref<1x?x96xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wu : memref<1x?x64xbf16>, memref<96x64xbf16>) outs(%u : memref<1x?x96xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %u : memref<1x?x96xf32>, memref<1x?x96xf32>) outs(%y : memref<1x?x96xbf16>) {
  ^bb0(%gi: f32, %ui: f32, %out: bf16):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %sg = arith.divf %one, %d : f32
    %si = arith.mulf %gi, %sg : f32
    %h = arith.mulf %si, %ui : f32
    %v = arith.truncf %h : f32 to bf16
    linalg.yield %v : bf16
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#tr = affine_map<(m, n) -> (n, m)>

// Refused: C read again after its epilogue (the f32 result is needed), and C read through a
// transposed map (element (m, n) of the output needs accumulator (n, m), held by another
// thread). Both kernels store f32 and the generics stay.
// CHECK-LABEL: func.func @refused_reads(
// CHECK: gpu.launch
// CHECK: vector.store %{{.*}} : memref<?x64xf32>, vector<2xf32>
// CHECK: gpu.terminator
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: gpu.launch
// CHECK: vector.store %{{.*}} : memref<64x64xf32>, vector<2xf32>
// CHECK: gpu.terminator
// CHECK: linalg.generic
func.func @refused_reads(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<?x64xbf16>, %y2: memref<?x64xf32>,
                         %xs: memref<64x64xbf16>, %ys: memref<64x64xbf16>) {
  %c0 = arith.constant 0 : index
  %t = memref.dim %x, %c0 : memref<?x64xbf16>
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc(%t) : memref<?x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<?x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xbf16>, memref<64x64xbf16>) outs(%acc : memref<?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{decoda-gpu-tensorcore-matmul: epilogue not fused: C has another user (linalg.generic)}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<?x64xf32>) outs(%y : memref<?x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<?x64xf32>) outs(%y2 : memref<?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %in : f32
    linalg.yield %v : f32
  }
  %acc2 = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xs, %w : memref<64x64xbf16>, memref<64x64xbf16>) outs(%acc2 : memref<64x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{decoda-gpu-tensorcore-matmul: epilogue not fused: C is not read with the identity map}}
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<64x64xf32>) outs(%ys : memref<64x64xbf16>) {
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

// Refused: the output is the residual input itself, or the contraction's A (other blocks still
// read A while one stores); and a contraction that starts from a fill of 1.0 (not zero: the
// accumulators start from C, which must hold the fill) is not tried.
// CHECK-LABEL: func.func @refused_outputs(
// CHECK: gpu.launch
// CHECK: vector.store %{{.*}} : memref<?x64xf32>, vector<2xf32>
// CHECK: gpu.terminator
// CHECK: linalg.generic
// CHECK: gpu.launch
// CHECK: vector.store %{{.*}} : memref<?x64xf32>, vector<2xf32>
// CHECK: gpu.terminator
// CHECK: linalg.generic
// CHECK: linalg.fill
// CHECK: gpu.launch
// CHECK: vector.load %{{.*}} : memref<?x64xf32>, vector<2xf32>
// CHECK: vector.store %{{.*}} : memref<?x64xf32>, vector<2xf32>
// CHECK: gpu.terminator
// CHECK: linalg.generic
func.func @refused_outputs(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %res: memref<?x64xbf16>, %y: memref<?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %t = memref.dim %x, %c0 : memref<?x64xbf16>
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %acc = memref.alloc(%t) : memref<?x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<?x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xbf16>, memref<64x64xbf16>) outs(%acc : memref<?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{decoda-gpu-tensorcore-matmul: epilogue not fused: the output aliases an input}}
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %res : memref<?x64xf32>, memref<?x64xbf16>) outs(%res : memref<?x64xbf16>) {
  ^bb0(%in: f32, %r: bf16, %out: bf16):
    %re = arith.extf %r : bf16 to f32
    %s = arith.addf %in, %re : f32
    %v = arith.truncf %s : f32 to bf16
    linalg.yield %v : bf16
  }
  %acc2 = memref.alloc(%t) : memref<?x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<?x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xbf16>, memref<64x64xbf16>) outs(%acc2 : memref<?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{decoda-gpu-tensorcore-matmul: epilogue not fused: the output aliases an operand of the contraction}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<?x64xf32>) outs(%x : memref<?x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  }
  %acc3 = memref.alloc(%t) : memref<?x64xf32>
  linalg.fill ins(%one : f32) outs(%acc3 : memref<?x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%res, %w : memref<?x64xbf16>, memref<64x64xbf16>) outs(%acc3 : memref<?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc3 : memref<?x64xf32>) outs(%y : memref<?x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  }
  return
}

// -----

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#id4 = affine_map<(b, m, h, d) -> (b, m, h, d)>

// The rounding of a q projection after its split into heads (decoda-graph-opt reshapes before
// the rounding): the epilogue reads C through an expand_shape of N into 4 x 16; the kernel
// stores into the output collapsed back to [M, 64], n split into (n / 16, n % 16) for the
// epilogue's indices; the view goes with the epilogue. Splitting a lead dim instead is refused.
// CHECK-LABEL: func.func @heads(
// CHECK-SAME: %[[Y:[^:]*]]: memref<1x?x4x16xbf16>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.expand_shape
// CHECK: %[[Y3:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0], [1], [2, 3]] : memref<1x?x4x16xbf16> into memref<1x?x64xbf16>
// CHECK: %[[Y2:.*]] = memref.collapse_shape %[[Y3]] {{\[\[}}0, 1], [2]] : memref<1x?x64xbf16> into memref<?x64xbf16>
// CHECK: gpu.launch
// CHECK: nvgpu.mma.sync
// CHECK: arith.truncf
// CHECK: vector.store %{{.*}}, %[[Y2]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<?x64xbf16>, vector<2xbf16>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @lead_split(
// CHECK: gpu.launch
// CHECK: vector.store %{{.*}} : memref<?x64xf32>, vector<2xf32>
// CHECK: gpu.terminator
// CHECK: linalg.generic
func.func @heads(%x: memref<1x?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<1x?x4x16xbf16>) {
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
  %e = memref.expand_shape %acc [[0], [1], [2, 3]] output_shape [1, %t, 4, 16] : memref<1x?x64xf32> into memref<1x?x4x16xf32>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e : memref<1x?x4x16xf32>) outs(%y : memref<1x?x4x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  }
  return
}

#a2 = affine_map<(m, n, k) -> (m, k)>
#w2 = affine_map<(m, n, k) -> (n, k)>
#c2 = affine_map<(m, n, k) -> (m, n)>
#id3 = affine_map<(b, m, n) -> (b, m, n)>
func.func @lead_split(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<2x?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %t = memref.dim %x, %c0 : memref<?x64xbf16>
  %c2 = arith.constant 2 : index
  %h = arith.divui %t, %c2 : index
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc(%t) : memref<?x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<?x64xf32>)
  linalg.generic {indexing_maps = [#a2, #w2, #c2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xbf16>, memref<64x64xbf16>) outs(%acc : memref<?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  %e = memref.expand_shape %acc [[0, 1], [2]] output_shape [2, %h, 64] : memref<?x64xf32> into memref<2x?x64xf32>
  // expected-remark @+1 {{decoda-gpu-tensorcore-matmul: epilogue not fused: C is read through a view other than a split of N}}
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e : memref<2x?x64xf32>) outs(%y : memref<2x?x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  }
  return
}

// -----

// One epilogue operand (the residual): the kernels load it for all of a thread's accumulator
// pairs ahead (64 values a thread: the wgmma kernel before its K loop, the mma.sync one before
// its guarded stores), at row and column clamped into the output (arith.minui), and the stores
// use those values. @residual above has two (the residual and a bias): 128 values a thread, over
// the 64 of epilogueLoadsFit, so its loads stay in the guarded stores (CHECK above).
// CHECK-LABEL: func.func @residual_only(
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: nvgpu.mma.sync
// CHECK: arith.minui
// CHECK: memref.load
// CHECK-COUNT-63: memref.load
// CHECK-NOT: memref.load
// CHECK: scf.if
// CHECK-NOT: memref.load
// CHECK: vector.store %{{.*}} : memref<?x64xbf16>, vector<2xbf16>
// CHECK: gpu.terminator
// WG-LABEL: func.func @residual_only(
// WG: gpu.launch
// WG: arith.minui
// WG-COUNT-64: memref.load
// WG: scf.for
// WG: nvvm.wgmma.mma_async
// WG-NOT: memref.load
// WG: nvvm.wgmma.wait.group.sync.aligned 0
// WG-NOT: memref.load
// WG: gpu.terminator
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @residual_only(%x: memref<2x?x64xbf16>, %w: memref<64x64xbf16>, %res: memref<2x?x64xbf16>, %y: memref<2x?x64xbf16>) {
  %c1 = arith.constant 1 : index
  %t = memref.dim %x, %c1 : memref<2x?x64xbf16>
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc(%t) : memref<2x?x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<2x?x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x?x64xbf16>, memref<64x64xbf16>) outs(%acc : memref<2x?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%res, %acc : memref<2x?x64xbf16>, memref<2x?x64xf32>) outs(%y : memref<2x?x64xbf16>) {
  ^bb0(%in: bf16, %a: f32, %out: bf16):
    %ar = arith.truncf %a : f32 to bf16
    %re = arith.extf %in : bf16 to f32
    %ae = arith.extf %ar : bf16 to f32
    %s = arith.addf %re, %ae : f32
    %v = arith.truncf %s : f32 to bf16
    linalg.yield %v : bf16
  }
  return
}
