// RUN: decoda-opt %s --decoda-cpu-copies-to-linalg | FileCheck %s

// Copies involving a strided view become linalg.copy (loops later); contiguous ones stay
// memref.copy (memcpy).
// CHECK-LABEL: func.func @copies(
// CHECK-SAME:    %[[S:.*]]: memref<4x8xf32, strided<[16, 1], offset: ?>>, %[[D:.*]]: memref<4x8xf32>, %[[E:.*]]: memref<4x8xf32>)
// CHECK:         linalg.copy ins(%[[S]] : memref<4x8xf32, strided<[16, 1], offset: ?>>) outs(%[[D]] : memref<4x8xf32>)
// CHECK:         linalg.copy ins(%[[D]] : memref<4x8xf32>) outs(%[[S]] : memref<4x8xf32, strided<[16, 1], offset: ?>>)
// CHECK:         memref.copy %[[D]], %[[E]] : memref<4x8xf32> to memref<4x8xf32>
// CHECK-NOT:     linalg.copy
func.func @copies(%s: memref<4x8xf32, strided<[16, 1], offset: ?>>, %d: memref<4x8xf32>, %e: memref<4x8xf32>) {
  memref.copy %s, %d : memref<4x8xf32, strided<[16, 1], offset: ?>> to memref<4x8xf32>
  memref.copy %d, %s : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1], offset: ?>>
  memref.copy %d, %e : memref<4x8xf32> to memref<4x8xf32>
  return
}
