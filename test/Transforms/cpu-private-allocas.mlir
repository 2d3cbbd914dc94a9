// RUN: decoda-opt %s --decoda-cpu-private-allocas --split-input-file | FileCheck %s
// RUN: decoda-opt %s --convert-scf-to-openmp --decoda-cpu-private-allocas --convert-scf-to-cf --split-input-file | FileCheck %s --check-prefix=PIPE

// A static scratch buffer of an OpenMP loop body moves to the start of the parallel region
// (once per thread); the alloca scopes disappear.
// CHECK-LABEL: func.func @per_thread(
// CHECK:         omp.parallel {
// CHECK-NEXT:      %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK-NEXT:      omp.wsloop {
// CHECK-NOT:       memref.alloca_scope
// CHECK:             scf.for
// CHECK:               memref.store %{{.*}}, %[[BUF]]
// PIPE-LABEL: func.func @per_thread(
// PIPE:         omp.parallel {
// PIPE-NEXT:      memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
// PIPE-NOT:     memref.alloca_scope
// PIPE:         cf.cond_br
func.func @per_thread(%n: index, %x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 0.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.alloca_scope {
          %buf = memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
          scf.for %j = %c0 to %c32 step %c1 {
            memref.store %f, %buf[%j, %j] : memref<256x32xf32>
          }
          %v = memref.load %buf[%c0, %c0] : memref<256x32xf32>
          memref.store %v, %x[%i] : memref<?xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A dynamically sized alloca cannot move: its scope becomes stacksave/stackrestore.
// CHECK-LABEL: func.func @dynamic(
// CHECK:         %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT:    memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK:         llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// CHECK-NOT:     memref.alloca_scope
func.func @dynamic(%n: index) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.0 : f32
  memref.alloca_scope {
    %buf = memref.alloca(%n) : memref<?xf32>
    memref.store %f, %buf[%c0] : memref<?xf32>
  }
  return
}

// -----

// A static alloca in a sequential loop moves to the function entry.
// CHECK-LABEL: func.func @sequential(
// CHECK-NEXT:    memref.alloca() : memref<16xf32>
// CHECK:         scf.for
func.func @sequential(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %buf = memref.alloca() : memref<16xf32>
    memref.store %f, %buf[%c0] : memref<16xf32>
  }
  return
}
