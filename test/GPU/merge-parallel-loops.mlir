// decoda-gpu-merge-parallel-loops: consecutive outermost scf.parallel nests that touch
// disjoint memory become one 1-D loop over the concatenated iteration spaces (an scf.if per
// nest on the running offsets, row-major delinearisation), tagged decoda.merged_loops; allocs
// and pure ops between them move before the run. Left alone: a nest reading or writing what an
// earlier one writes (through views too), an op with side effects between, reductions, nests
// inside a kernel or loop. max-loops caps a run. Numerics: the RUN lines at the end (two
// independent elementwise ops on the PTX interpreter against NumPy, merged and not, bit for
// bit).
// RUN: decoda-opt %s --split-input-file --decoda-gpu-merge-parallel-loops | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-merge-parallel-loops=max-loops=2 | FileCheck %s --check-prefix=MAX2
// Numerics (Inputs/merge_cases.mlir, Inputs/merge_data.py): a * a over [1, T, 4, 16] and exp(b)
// over [1, T, 2, 16] in f32 at T = 5 through decoda-lower-to-cuda (separate dynamic T: nothing
// fuses them): one kernel of 256 threads a block over 320 + 160 elements, one launch instead of
// two (merge-loops=false), against NumPy and bit for bit the unmerged build. (This used q's
// and k's RoPE until decoda-gpu-rope made each one kernel of its own.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/merge_cases.mlir --target=cuda --emit=ptx -o %t/m.ptx --dump-ir-after-each=%t/m
// RUN: %PYTHON %S/Inputs/merge_data.py mul_exp 5 %t/in.npz %t/out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/m %t/m.ptx --entry mul_exp --inputs %t/in.npz --expect %t/out.npz --rtol 1e-5 --atol 1e-5 --save %t/got.npz | FileCheck %s --check-prefix=SIM
// SIM: launch mul_exp_kernel: grid [2, 1, 1] block [256, 1, 1]
// SIM: out0: ok (320 elements
// SIM: out1: ok (160 elements
// SIM: 1 launches
// RUN: decoda-opt %S/Inputs/merge_cases.mlir --decoda-graph-opt --decoda-lower-to-cuda="format=isa merge-loops=false" --mlir-print-ir-before=decoda-lower-runtime-checks 2>%t/u-host.mlir >%t/u-out.mlir
// RUN: %PYTHON %S/Inputs/opt_ptx.py %t/u-host.mlir %t/u-out.mlir %t/u %t/u.ptx
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry mul_exp --inputs %t/in.npz --expect %t/got.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=UNMERGED
// UNMERGED: out0: ok (320 elements, max abs error 0)
// UNMERGED: out1: ok (160 elements, max abs error 0)
// UNMERGED: 2 launches

// Two nests of different ranks writing distinct allocations (an alloc between them moves up):
// trip counts 3 * 5 = 15 and 7, one loop to 22.
// CHECK-LABEL: func.func @two(
// CHECK-SAME: %[[X:.*]]: memref<3x5xf32>, %[[Y:.*]]: memref<7xf32>
// CHECK: %[[A:.*]] = memref.alloc() : memref<3x5xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<7xf32>
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%c22{{.*}}) step (%{{.*}}) {
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[I]], %c15{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: %[[J:.*]] = arith.remui %[[I]], %c5{{.*}} : index
// CHECK-NEXT: %[[II:.*]] = arith.divui %[[I]], %c5{{.*}} : index
// CHECK-NEXT: %[[V:.*]] = memref.load %[[X]][%[[II]], %[[J]]]
// CHECK: memref.store %{{.*}}, %[[A]][%[[II]], %[[J]]]
// CHECK: } else {
// CHECK-NEXT: %[[K:.*]] = arith.subi %[[I]], %c15{{.*}} : index
// CHECK-NEXT: memref.load %[[Y]][%[[K]]]
// CHECK: memref.store %{{.*}}, %[[B]][%[[K]]]
// CHECK: }
// CHECK: } {decoda.merged_loops = 2 : i64}
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @two(%x: memref<3x5xf32>, %y: memref<7xf32>) -> (memref<3x5xf32>, memref<7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %a = memref.alloc() : memref<3x5xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c5) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<3x5xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %a[%i, %j] : memref<3x5xf32>
    scf.reduce
  }
  %b = memref.alloc() : memref<7xf32>
  scf.parallel (%i) = (%c0) to (%c7) step (%c1) {
    %v = memref.load %y[%i] : memref<7xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %b[%i] : memref<7xf32>
    scf.reduce
  }
  return %a, %b : memref<3x5xf32>, memref<7xf32>
}

// -----

// Three nests with run-time extents, a lower bound and a step (ceil((ub - lb) / step) trips),
// writing two arguments (distinct: donated ones overlap no other input) and an alloc: one loop,
// three branches. max-loops=2 merges the first two only.
// CHECK-LABEL: func.func @three(
// CHECK: %[[SPAN:.*]] = arith.subi %{{.*}}, %c2{{.*}} : index
// CHECK: %[[POS:.*]] = arith.maxsi %[[SPAN]], %c0{{.*}} : index
// CHECK: arith.ceildivui %[[POS]], %c3{{.*}} : index
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %arg0
// CHECK: } else {
// CHECK: scf.if
// CHECK: arith.muli %{{.*}}, %c3{{.*}} : index
// CHECK: memref.store %{{.*}}, %arg1
// CHECK: } else {
// CHECK: memref.store
// CHECK: } {decoda.merged_loops = 3 : i64}
// CHECK-NOT: scf.parallel
// MAX2-LABEL: func.func @three(
// MAX2: } {decoda.merged_loops = 2 : i64}
// MAX2: scf.parallel
// MAX2-NOT: decoda.merged_loops
// MAX2: return
func.func @three(%p: memref<?xf32>, %q: memref<?xf32>, %n: index) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %one, %p[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c2) to (%n) step (%c3) {
    memref.store %one, %q[%i] : memref<?xf32>
    scf.reduce
  }
  %r = memref.alloc(%n) : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %one, %r[%i] : memref<?xf32>
    scf.reduce
  }
  return %r : memref<?xf32>
}

// -----

// The second nest reads what the first writes (through a subview): left alone.
// CHECK-LABEL: func.func @dependent(
// CHECK-NOT: decoda.merged_loops
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: return
func.func @dependent(%x: memref<8xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %a[%i] : memref<8xf32>
    scf.reduce
  }
  %s = memref.subview %a[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  %b = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %s[%i] : memref<4xf32, strided<[1], offset: 4>>
    memref.store %v, %b[%i] : memref<4xf32>
    scf.reduce
  }
  return %b : memref<4xf32>
}

// -----

// Both nests write the same argument (write-write), and in @copy_between a memref.copy stands
// between two independent nests: left alone.
// CHECK-LABEL: func.func @same_output(
// CHECK-NOT: decoda.merged_loops
// CHECK: return
// CHECK-LABEL: func.func @copy_between(
// CHECK-NOT: decoda.merged_loops
// CHECK: return
func.func @same_output(%o: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %one, %o[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c4) to (%c8) step (%c1) {
    memref.store %one, %o[%i] : memref<8xf32>
    scf.reduce
  }
  return
}
func.func @copy_between(%x: memref<8xf32>, %y: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %one, %a[%i] : memref<8xf32>
    scf.reduce
  }
  memref.copy %x, %y : memref<8xf32> to memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %one, %b[%i] : memref<8xf32>
    scf.reduce
  }
  return %a, %b : memref<8xf32>, memref<8xf32>
}

// -----

// A nest with a reduction, and nests inside an scf.for: left alone.
// CHECK-LABEL: func.func @reduction(
// CHECK-NOT: decoda.merged_loops
// CHECK: return
// CHECK-LABEL: func.func @nested(
// CHECK-NOT: decoda.merged_loops
// CHECK: return
func.func @reduction(%x: memref<8xf32>, %y: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %s = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %v = memref.load %x[%i] : memref<8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%l: f32, %r: f32):
      %t = arith.addf %l, %r : f32
      scf.reduce.return %t : f32
    }
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %one, %y[%i] : memref<8xf32>
    scf.reduce
  }
  return %s : f32
}
func.func @nested(%a: memref<8xf32>, %b: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.for %t = %c0 to %n step %c1 {
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      memref.store %one, %a[%i] : memref<8xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      memref.store %one, %b[%i] : memref<8xf32>
      scf.reduce
    }
  }
  return
}
