// decoda-gpu-gemv on per-head projections (decoda.linear with a [H, N, K] weight: absorbed
// MLA's W_UK and W_UV at a decode step): C[m, h, n] += A[m, h, k] * B[h, n, k], the head A's
// and C's last lead dim. The kernel's columns are B's H·N rows (B collapsed to [H·N, K]), a
// warp's columns in one head h = column / N; it reads A's row m·H + h and stores C's
// (m·H + h, column - h·N), A and C collapsed over all their lead dims. M counts the rows
// without the head (a dynamic M is dispatched on them alone). decoda-gpu-tensorcore-matmul
// leaves per-head contractions alone (they stay SIMT loops above max-m).
// Numerics on the PTX interpreter: gemv-heads-sim.mlir.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=report=true --verify-diagnostics | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=cols-per-warp=2 2>/dev/null | FileCheck %s --check-prefix=COLS2
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=mma=true --canonicalize --cse 2>/dev/null | FileCheck %s --check-prefix=MMA
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul=report=true 2>&1 >/dev/null | FileCheck %s --check-prefix=TC
// TC-COUNT-7: remark: decoda-gpu-tensorcore-matmul: left to the SIMT path: B is a per-head [h, n, k] weight
// TC-NOT: per-head

#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// Two rows, 16 heads, N = 48, K = 64: 768 columns, 192 blocks of 4 warps.
// CHECK-LABEL: func.func @heads_bf16(
// CHECK-SAME: %[[X:[^:]*]]: memref<2x16x64xbf16>, %[[W:[^:]*]]: memref<16x48x64xbf16>, %[[Y:[^:]*]]: memref<2x16x48xf32>
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[A2:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<2x16x64xbf16> into memref<32x64xbf16>
// CHECK-DAG: %[[C2:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : memref<2x16x48xf32> into memref<32x48xf32>
// CHECK-DAG: %[[B2:.*]] = memref.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : memref<16x48x64xbf16> into memref<768x64xbf16>
// CHECK-DAG: %[[G:.*]] = arith.constant 192 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[G]],
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[COL:.*]], %c768
// CHECK: %[[ROW:.*]] = arith.select %[[IN]], %[[COL]], %c767
// CHECK: %[[H:.*]] = arith.divui %[[ROW]], %c48
// CHECK: %[[A0:.*]] = arith.addi %{{.*}}, %[[H]]
// CHECK: %[[A1:.*]] = arith.addi %{{.*}}, %[[H]]
// CHECK: scf.for
// CHECK: vector.load %[[B2]][%[[ROW]], %{{.*}}] {{.*}} : memref<768x64xbf16>, vector<8xbf16>
// CHECK: vector.load %[[A2]][%[[A0]], %{{.*}}] {{.*}} : memref<32x64xbf16>, vector<8xbf16>
// CHECK: vector.load %[[A2]][%[[A1]], %{{.*}}] {{.*}} : memref<32x64xbf16>, vector<8xbf16>
// CHECK-COUNT-10: gpu.shuffle xor
// CHECK: scf.if %{{.*}} {
// CHECK: scf.if %{{.*}} {
// CHECK: %[[HN:.*]] = arith.muli %[[H]], %c48
// CHECK: %[[N:.*]] = arith.subi %[[COL]], %[[HN]]
// CHECK: %[[R0:.*]] = arith.addi %c0{{.*}}, %[[H]]
// CHECK: memref.store %{{.*}}, %[[C2]][%[[R0]], %[[N]]] : memref<32x48xf32>
// CHECK: %[[R1:.*]] = arith.addi %c16{{.*}}, %[[H]]
// CHECK: memref.store %{{.*}}, %[[C2]][%[[R1]], %[[N]]] : memref<32x48xf32>
// CHECK-NOT: linalg.generic
// With two columns a warp (N even: both in one head) 96 blocks, four stores (2 columns, 2 rows).
// COLS2-LABEL: func.func @heads_bf16(
// COLS2: %[[G:.*]] = arith.constant 96 : index
// COLS2: gpu.launch blocks({{.*}}) in ({{.*}} = %[[G]],
// COLS2-COUNT-4: memref.store
// COLS2-NOT: memref.store
// With mma (sm_80 and later) the two bf16 rows take the tensor-core GEMV: 8 weight rows a warp
// (N = 48 a multiple of 8, so one head's), 48 blocks; A's rows and C's of the warp's head.
// MMA-LABEL: func.func @heads_bf16(
// MMA: memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<16x48x64xbf16> into memref<768x64xbf16>
// MMA: gpu.launch blocks({{.*}}) in ({{.*}} = %c48,
// MMA: %[[H:.*]] = arith.divui %{{.*}}, %c48 : index
// MMA: nvgpu.mma.sync
// MMA: gpu.barrier
// MMA: %[[R:.*]] = arith.addi %{{.*}}, %[[H]] : index
// MMA: %[[HN:.*]] = arith.muli %[[H]], %c48 : index
// MMA: %[[N:.*]] = arith.subi %{{.*}}, %[[HN]] : index
// MMA: memref.store %{{.*}}, %{{.*}}[%[[R]], %[[N]]] : memref<32x48xf32>
func.func @heads_bf16(%x: memref<2x16x64xbf16>, %w: memref<16x48x64xbf16>, %y: memref<2x16x48xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<2x16x48xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x16x64xbf16>, memref<16x48x64xbf16>) outs(%y : memref<2x16x48xf32>) {
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

#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// f32 onto an input C (no fill: the stores add the loaded value), N = 7 odd: with
// cols-per-warp=2 a warp still takes one column (its columns would cross heads), 3 · 7 = 21
// columns in 6 blocks either way.
// CHECK-LABEL: func.func @heads_f32_acc(
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c6,
// CHECK: %[[H:.*]] = arith.divui %{{.*}}, %c7
// CHECK: %[[N:.*]] = arith.subi
// CHECK: %[[R:.*]] = arith.addi %c0{{.*}}, %[[H]]
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[%[[R]], %[[N]]] : memref<3x7xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]],
// CHECK: memref.store %[[NEW]], %{{.*}}[%[[R]], %[[N]]] : memref<3x7xf32>
// COLS2-LABEL: func.func @heads_f32_acc(
// COLS2: gpu.launch blocks({{.*}}) in ({{.*}} = %c6,
func.func @heads_f32_acc(%x: memref<1x3x30xf32>, %w: memref<3x7x30xf32>, %y: memref<1x3x7xf32>) {
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x3x30xf32>, memref<3x7x30xf32>) outs(%y : memref<1x3x7xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A dynamic batch: the dispatch counts rows without the head (dim 0 alone, not times 8).
// CHECK-LABEL: func.func @heads_dynamic(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x8x128xbf16>
// CHECK: %[[M:.*]] = memref.dim %[[X]], %c0
// CHECK-NEXT: %[[COUNT:.*]] = arith.muli %c1{{.*}}, %[[M]]
// CHECK-NEXT: %[[ONE:.*]] = arith.cmpi eq, %[[COUNT]], %c1
// CHECK-NEXT: scf.if %[[ONE]] {
// CHECK: gpu.launch
// CHECK: } else {
// CHECK: arith.subi %[[COUNT]], %c1
// CHECK: gpu.launch
// CHECK: } else {
// CHECK: linalg.generic {{.*}}decoda.gpu_gemv_dispatched
// With mma, 2 to 16 rows on the tensor-core GEMV (N = 64 a multiple of 8).
// MMA-LABEL: func.func @heads_dynamic(
// MMA: arith.cmpi ult, %{{.*}}, %c16
// MMA: nvgpu.mma.sync
func.func @heads_dynamic(%x: memref<?x8x128xbf16>, %w: memref<8x64x128xbf16>, %y: memref<?x8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<?x8x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x8x128xbf16>, memref<8x64x128xbf16>) outs(%y : memref<?x8x64xf32>) {
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

#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#wfirst = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>

// Left alone: a head that is not the last lead dim, a head count only known at run time, and
// 16 rows (above max-m: the head is not a row). (A per-head weight stored [H, K, N]:
// gemv-columns.mlir.)
// CHECK-LABEL: func.func @refused(
// CHECK-NOT: gpu.launch
// CHECK-COUNT-3: linalg.generic
func.func @refused(%x: memref<1x4x64xbf16>, %y: memref<1x4x32xf32>,
                   %wf: memref<1x32x64xbf16>, %wd: memref<?x32x64xbf16>,
                   %x16: memref<16x4x64xbf16>, %w: memref<4x32x64xbf16>, %y16: memref<16x4x32xf32>) {
  // expected-remark @+1 {{B is not a [n, k] weight}}
  linalg.generic {indexing_maps = [#a, #wfirst, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wf : memref<1x4x64xbf16>, memref<1x32x64xbf16>) outs(%y : memref<1x4x32xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{H, N or K is dynamic}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wd : memref<1x4x64xbf16>, memref<?x32x64xbf16>) outs(%y : memref<1x4x32xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{M = 16 is above max-m = 8}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x16, %w : memref<16x4x64xbf16>, memref<4x32x64xbf16>) outs(%y16 : memref<16x4x32xf32>) {
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

#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// The bf16 rounding of a per-head result into a slice of a concatenation ([q_lat ; q_rope]:
// rows 80 elements apart) is the kernel's epilogue: it stores into the slice, collapsed to
// [rows, N] with its strides; a slice whose lead dims do not collapse (rows of a [2, 20, 48]
// buffer taken 16 of 20) stays a separate loop nest.
// CHECK-LABEL: func.func @into_concat(
// CHECK-SAME: %[[Q:[^:]*]]: memref<2x16x80xbf16>
// CHECK: %[[S:.*]] = memref.subview %[[Q]][0, 0, 0] [2, 16, 48] [1, 1, 1]
// CHECK: %[[S2:.*]] = memref.collapse_shape %[[S]] {{\[\[}}0, 1], [2]] : memref<2x16x48xbf16, strided<[1280, 80, 1]>> into memref<32x48xbf16, strided<[80, 1]>>
// CHECK: gpu.launch
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %[[T]], %[[S2]][
// CHECK: gpu.launch
// CHECK-NOT: arith.truncf
// CHECK: memref.store %{{.*}} : memref<32x48xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : memref<2x16x48xbf16, strided<[960, 48, 1]>>)
func.func @into_concat(%x: memref<2x16x64xbf16>, %w: memref<16x48x64xbf16>, %q: memref<2x16x80xbf16>,
                       %big: memref<2x20x48xbf16>) {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<2x16x48xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<2x16x48xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x16x64xbf16>, memref<16x48x64xbf16>) outs(%y : memref<2x16x48xf32>) {
  ^bb0(%p: bf16, %r: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %re = arith.extf %r : bf16 to f32
    %m = arith.mulf %pe, %re : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  %slice = memref.subview %q[0, 0, 0] [2, 16, 48] [1, 1, 1]
      : memref<2x16x80xbf16> to memref<2x16x48xbf16, strided<[1280, 80, 1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y : memref<2x16x48xf32>) outs(%slice : memref<2x16x48xbf16, strided<[1280, 80, 1]>>) {
  ^bb0(%i: f32, %o: bf16):
    %t = arith.truncf %i : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %y : memref<2x16x48xf32>
  %y2 = memref.alloc() : memref<2x16x48xf32>
  linalg.fill ins(%zero : f32) outs(%y2 : memref<2x16x48xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x16x64xbf16>, memref<16x48x64xbf16>) outs(%y2 : memref<2x16x48xf32>) {
  ^bb0(%p: bf16, %r: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %re = arith.extf %r : bf16 to f32
    %m = arith.mulf %pe, %re : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  %rows = memref.subview %big[0, 0, 0] [2, 16, 48] [1, 1, 1]
      : memref<2x20x48xbf16> to memref<2x16x48xbf16, strided<[960, 48, 1]>>
  // expected-remark @+1 {{decoda-gpu-gemv: epilogue not fused: the output's lead dims or N do not collapse into one (its strides)}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y2 : memref<2x16x48xf32>) outs(%rows : memref<2x16x48xbf16, strided<[960, 48, 1]>>) {
  ^bb0(%i: f32, %o: bf16):
    %t = arith.truncf %i : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %y2 : memref<2x16x48xf32>
  return
}
