// RUN: decoda-opt %s --decoda-cpu-parallel-loops="min-work=0" --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-cpu-parallel-loops --split-input-file | FileCheck %s --check-prefix=WORK

// One level of scf.parallel per nest, over leading dims only (min-work=0: the dim rules alone;
// the default min-work=16384 (prefix WORK): nests with less static work become sequential).

// An elementwise loop over [1, T, D]: the unit batch dim and the dynamic T stay parallel, D
// (innermost, contiguous) becomes an scf.for.
// CHECK-LABEL: func.func @elementwise(
// CHECK:         scf.parallel (%[[B:.*]], %[[T:.*]]) = (%c0, %c0) to (%c1, %{{.*}}) step (%c1, %c1) {
// CHECK-NEXT:      scf.for %[[D:.*]] = %c0 to %c64 step %c1 {
// CHECK-NEXT:        memref.load %{{.*}}[%[[B]], %[[T]], %[[D]]]
// CHECK-NOT:     scf.parallel
func.func @elementwise(%x: memref<1x?x64xf32>, %y: memref<1x?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = memref.dim %x, %c1 : memref<1x?x64xf32>
  scf.parallel (%b, %i, %d) = (%c0, %c0, %c0) to (%c1, %t, %c64) step (%c1, %c1, %c1) {
    %v = memref.load %x[%b, %i, %d] : memref<1x?x64xf32>
    memref.store %v, %y[%b, %i, %d] : memref<1x?x64xf32>
    scf.reduce
  }
  return
}

// -----

// Static dims: leading dims until 16 iterations (2 x 4 < 16, 2 x 4 x 8 >= 16).
// CHECK-LABEL: func.func @static_dims(
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%c2, %c4, %c8)
// CHECK-NEXT:      scf.for %{{.*}} = %c0 to %c32
func.func @static_dims(%x: memref<2x4x8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 0.0 : f32
  scf.parallel (%a, %b, %c, %d) = (%c0, %c0, %c0, %c0) to (%c2, %c4, %c8, %c32) step (%c1, %c1, %c1, %c1) {
    memref.store %f, %x[%a, %b, %c, %d] : memref<2x4x8x32xf32>
    scf.reduce
  }
  return
}

// -----

// A nested parallel loop becomes sequential; a loop with a single iteration too.
// CHECK-LABEL: func.func @nested_and_trivial(
// CHECK:         scf.parallel (%{{.*}}) = (%c0) to (%{{.*}})
// CHECK-NEXT:      scf.for %{{.*}} = %c0 to %c16
// CHECK-NOT:       scf.parallel
// CHECK:         scf.for %{{.*}} = %c0 to %c1
// CHECK-NOT:     scf.parallel
func.func @nested_and_trivial(%x: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %f = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
      memref.store %f, %x[%i, %j] : memref<?x16xf32>
      scf.reduce
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    memref.store %f, %x[%i, %i] : memref<?x16xf32>
    scf.reduce
  }
  return
}

// -----

// Loops marked by decoda-cpu-contraction-codegen keep every dim (the mark is dropped).
// CHECK-LABEL: func.func @all_dims(
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c1, %c64)
// CHECK-NOT:     decoda.parallel_all_dims
func.func @all_dims(%x: memref<1x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1, %c64) step (%c1, %c1) {
    memref.store %f, %x[%i, %j] : memref<1x64xf32>
    scf.reduce
  } {decoda.parallel_all_dims}
  return
}

// -----

// min-work: a one-token step's RoPE-sized loop (32 x 64 scalar stores, work 2048) and a
// 16-lane vector loop over 8 x 64 rows (8 x 64 x (16 + 16): 16384, not below) and an exp over
// 32 x 64 (math ops weigh 10: 32 x 64 x (1 + 10 + 1) = 24576, not below).
// WORK-LABEL: func.func @small_work(
// WORK-NOT:     scf.parallel
// WORK:         scf.for %{{.*}} = %c0 to %c32
// WORK-NEXT:      scf.for %{{.*}} = %c0 to %c64
// WORK:         scf.parallel (%{{.*}}) = (%c0) to (%c8)
// WORK:         scf.parallel (%{{.*}}) = (%c0) to (%c32)
// WORK:           math.exp
// CHECK-LABEL: func.func @small_work(
// CHECK:         scf.parallel (%{{.*}}) = (%c0) to (%c32)
// CHECK:         scf.parallel (%{{.*}}) = (%c0) to (%c8)
// CHECK:         scf.parallel (%{{.*}}) = (%c0) to (%c32)
func.func @small_work(%x: memref<32x64xf32>, %v: memref<8x64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c64) step (%c1, %c1) {
    memref.store %f, %x[%i, %j] : memref<32x64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c64 step %c1 {
      %a = vector.load %v[%i, %j, %c0] : memref<8x64x16xf32>, vector<16xf32>
      vector.store %a, %v[%i, %j, %c0] : memref<8x64x16xf32>, vector<16xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c64) step (%c1, %c1) {
    %a = memref.load %x[%i, %j] : memref<32x64xf32>
    %e = math.exp %a : f32
    memref.store %e, %x[%i, %j] : memref<32x64xf32>
    scf.reduce
  }
  return
}

// -----

// Negative: unknown work (a dynamic trip count inside, a call) keeps the loop parallel however
// small the static part; a marked contraction loop is serialised like any other when tiny.
// WORK-LABEL: func.func @unknown_work(
// WORK:         scf.parallel (%{{.*}}) = (%c0) to (%c2)
// WORK:           scf.for %{{.*}} = %c0 to %{{.*}}
// WORK:         scf.parallel (%{{.*}}) = (%c0) to (%c2)
// WORK:           func.call @opaque
// WORK-NOT:     scf.parallel
// WORK:         scf.for %{{.*}} = %c0 to %c2
// WORK-NOT:     decoda.parallel_all_dims
func.func private @opaque(index)
func.func @unknown_work(%x: memref<2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %x, %c1 : memref<2x?xf32>
  %f = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    scf.for %j = %c0 to %n step %c1 {
      memref.store %f, %x[%i, %j] : memref<2x?xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    func.call @opaque(%i) : (index) -> ()
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    memref.store %f, %x[%i, %c0] : memref<2x?xf32>
    scf.reduce
  } {decoda.parallel_all_dims}
  return
}
