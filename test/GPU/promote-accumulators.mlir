// decoda-gpu-promote-accumulators: a reduction loop's output element (a load and a later store
// at loop-invariant indices, nothing else in the loop touching memory that may alias it, no op
// of unknown effects) is loaded before the loop, carried as an iter_arg and stored after it.
// Nests are promoted level by level; several accumulators of one loop together. Left alone:
// another access to the buffer in the loop (through a view too), indices that vary in the
// loop, a store before the load, the load in a nested region, an op of unknown effects, loops
// inside a gpu.launch. Numerics: the RUN lines at the end (a per-head decoda.linear of 12 rows,
// which no GEMV or tensor-core kernel takes, on the PTX interpreter against NumPy, promoted and
// not, bit for bit).
// RUN: decoda-opt %s --split-input-file --decoda-gpu-promote-accumulators | FileCheck %s
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/promote_cases.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/p.ptx --dump-ir-after-each=%t/p
// RUN: %PYTHON %S/Inputs/promote_data.py per_head %t/in.npz %t/out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/p %t/p.ptx --entry per_head --inputs %t/in.npz --expect %t/out.npz --rtol 7.9e-3 --atol 1e-3 --save %t/got.npz | FileCheck %s --check-prefix=SIM
// SIM: out0: ok (24576 elements
// RUN: decoda-opt %S/Inputs/promote_cases.mlir --decoda-graph-opt --decoda-lower-to-cuda="format=isa gpu-arch=sm_90a promote-accumulators=false" --mlir-print-ir-before=decoda-lower-runtime-checks 2>%t/u-host.mlir >%t/u-out.mlir
// RUN: %PYTHON %S/Inputs/opt_ptx.py %t/u-host.mlir %t/u-out.mlir %t/u %t/u.ptx
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry per_head --inputs %t/in.npz --expect %t/got.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=UNPROMOTED
// UNPROMOTED: out0: ok (24576 elements, max abs error 0)
// The promoted kernel's reduction loop stores nothing (before: a global store every
// iteration): the PTX of the per-head kernel's innermost loops, from a loop label to the
// branch back (the loop over a thread's rows around it stores each row's result once).
// RUN: %PYTHON %S/Inputs/promote_data.py loops %t/p.ptx | FileCheck %s --check-prefix=LOOP
// LOOP: global stores in loops: 0
// RUN: %PYTHON %S/Inputs/promote_data.py loops %t/u.ptx | FileCheck %s --check-prefix=ULOOP
// ULOOP: per_head_kernel{{(_[0-9]+)?}}: {{[1-9][0-9]*}} global stores in loops

// A matmul-shaped nest: acc[i, j] += a[i, k] * b[k, j].
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf32>
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK: %[[INIT:.*]] = memref.load %[[ACC]][%[[I]], %[[J]]]
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NOT: memref.store
// CHECK: %[[P:.*]] = arith.mulf
// CHECK: %[[N:.*]] = arith.addf %[[S]], %[[P]] : f32
// CHECK: scf.yield %[[N]] : f32
// CHECK: memref.store %[[SUM]], %[[ACC]][%[[I]], %[[J]]]
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>) -> memref<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %acc = memref.alloc() : memref<4x16xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c16) step (%c1, %c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %x = memref.load %a[%i, %k] : memref<4x8xf32>
      %y = memref.load %b[%k, %j] : memref<8x16xf32>
      %s = memref.load %acc[%i, %j] : memref<4x16xf32>
      %p = arith.mulf %x, %y : f32
      %n = arith.addf %s, %p : f32
      memref.store %n, %acc[%i, %j] : memref<4x16xf32>
    }
    scf.reduce
  }
  return %acc : memref<4x16xf32>
}

// -----

// Two reduced dims (a nest of two loops) and two accumulators (sum and sum of squares) in an
// argument buffer and an allocation: both levels promoted, both accumulators at each.
// CHECK-LABEL: func.func @nest_two(
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32) {
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32) {
// CHECK-NOT: memref.store
// CHECK: scf.yield
// CHECK-NOT: memref.store
// CHECK: scf.yield
// CHECK: memref.store
// CHECK: memref.store
func.func @nest_two(%x: memref<3x5x7xf32>, %sum: memref<3xf32>) -> memref<3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %sq = memref.alloc() : memref<3xf32>
  scf.parallel (%i) = (%c0) to (%c3) step (%c1) {
    scf.for %j = %c0 to %c5 step %c1 {
      scf.for %k = %c0 to %c7 step %c1 {
        %v = memref.load %x[%i, %j, %k] : memref<3x5x7xf32>
        %s = memref.load %sum[%i] : memref<3xf32>
        %q = memref.load %sq[%i] : memref<3xf32>
        %s2 = arith.addf %s, %v : f32
        %v2 = arith.mulf %v, %v : f32
        %q2 = arith.addf %q, %v2 : f32
        memref.store %s2, %sum[%i] : memref<3xf32>
        memref.store %q2, %sq[%i] : memref<3xf32>
      }
    }
    scf.reduce
  }
  return %sq : memref<3xf32>
}

// -----

// The accumulator also read through a view in the loop: left alone.
// CHECK-LABEL: func.func @view_read(
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: memref.store
func.func @view_read(%a: memref<8xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %acc = memref.alloc() : memref<4xf32>
  %view = memref.subview %acc[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  scf.for %k = %c0 to %c8 step %c1 {
    %x = memref.load %a[%k] : memref<8xf32>
    %s = memref.load %acc[%c0] : memref<4xf32>
    %t = memref.load %view[%c0] : memref<2xf32, strided<[1], offset: 1>>
    %n = arith.addf %s, %x : f32
    %m = arith.addf %n, %t : f32
    memref.store %m, %acc[%c0] : memref<4xf32>
  }
  return %acc : memref<4xf32>
}

// -----

// Indices that vary in the loop (a scan, not a reduction), a store before its load, the load
// in a nested scf.if, a call of unknown effects: left alone.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: iter_args
// CHECK: return
func.func private @opaque()
func.func @left_alone(%a: memref<8xf32>, %c: i1) -> (memref<8xf32>, memref<1xf32>, memref<1xf32>, memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 1.0 : f32
  %scan = memref.alloc() : memref<8xf32>
  scf.for %k = %c0 to %c8 step %c1 {
    %x = memref.load %a[%k] : memref<8xf32>
    %s = memref.load %scan[%k] : memref<8xf32>
    %n = arith.addf %s, %x : f32
    memref.store %n, %scan[%k] : memref<8xf32>
  }
  %late = memref.alloc() : memref<1xf32>
  scf.for %k = %c0 to %c8 step %c1 {
    memref.store %f, %late[%c0] : memref<1xf32>
    %s = memref.load %late[%c0] : memref<1xf32>
    %x = memref.load %a[%k] : memref<8xf32>
    %n = arith.addf %s, %x : f32
    memref.store %n, %a[%k] : memref<8xf32>
  }
  %nested = memref.alloc() : memref<1xf32>
  scf.for %k = %c0 to %c8 step %c1 {
    %x = memref.load %a[%k] : memref<8xf32>
    %s = scf.if %c -> f32 {
      %l = memref.load %nested[%c0] : memref<1xf32>
      scf.yield %l : f32
    } else {
      scf.yield %f : f32
    }
    %n = arith.addf %s, %x : f32
    memref.store %n, %nested[%c0] : memref<1xf32>
  }
  %called = memref.alloc() : memref<1xf32>
  scf.for %k = %c0 to %c8 step %c1 {
    %x = memref.load %a[%k] : memref<8xf32>
    %s = memref.load %called[%c0] : memref<1xf32>
    func.call @opaque() : () -> ()
    %n = arith.addf %s, %x : f32
    memref.store %n, %called[%c0] : memref<1xf32>
  }
  return %scan, %late, %nested, %called : memref<8xf32>, memref<1xf32>, memref<1xf32>, memref<1xf32>
}

// -----

// A loop inside a kernel (shared between its threads as far as this pass knows): left alone.
// CHECK-LABEL: func.func @in_kernel(
// CHECK: gpu.launch
// CHECK-NOT: iter_args
// CHECK: gpu.terminator
func.func @in_kernel(%a: memref<8xf32>) -> memref<1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %acc = memref.alloc() : memref<1xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %x = memref.load %a[%k] : memref<8xf32>
      %s = memref.load %acc[%c0] : memref<1xf32>
      %n = arith.addf %s, %x : f32
      memref.store %n, %acc[%c0] : memref<1xf32>
    }
    gpu.terminator
  }
  return %acc : memref<1xf32>
}
