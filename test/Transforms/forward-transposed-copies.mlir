// decoda-forward-transposed-copies: a linalg.transpose into a fresh buffer that is only read
// (by linalg inputs, through subviews, in loops) is read in place through memref.transpose of
// its source; anything that may write the source before the last reader, or a use that is not
// a read, keeps the copy.
// RUN: decoda-opt %s --split-input-file --decoda-forward-transposed-copies | FileCheck %s
// Numbers (Inputs/forward-transposed-copies-run.mlir): the same function lowered with and
// without the pass prints the same sums, written here from the formula (cache[0, h, s, d] =
// 6 h + 2 s + d; out[s, h] = sum over d = 12 h + 4 s + 1).
// RUN: decoda-opt %S/Inputs/forward-transposed-copies-run.mlir --decoda-forward-transposed-copies | FileCheck %S/Inputs/forward-transposed-copies-run.mlir
// RUN: decoda-opt %S/Inputs/forward-transposed-copies-run.mlir --decoda-forward-transposed-copies --convert-linalg-to-loops --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void | FileCheck %s --check-prefix=NUM
// RUN: decoda-opt %S/Inputs/forward-transposed-copies-run.mlir --convert-linalg-to-loops --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void | FileCheck %s --check-prefix=NUM
// NUM: 1 13 5 17 9 21

// Readers through subviews inside a loop (the CPU attention's key blocks): each subview is
// rebuilt on the view with its strided type inferred.
// CHECK-LABEL: func.func @in_loop(
// CHECK-SAME:    %[[CACHE:[^:]+]]: memref<?x2x?x16xf32>
// CHECK:         %[[V:.+]] = memref.transpose %[[CACHE]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK:         scf.for %[[J:.+]] =
// CHECK:           %[[S:.+]] = memref.subview %[[V]][0, %[[J]], 0, 0] [%{{.+}}, 64, 2, 16] [1, 1, 1, 1] : memref<?x?x2x16xf32, strided<[?, 16, ?, 1]>> to memref<?x64x2x16xf32, strided<[?, 16, ?, 1], offset: ?>>
// CHECK:           linalg.generic {{.*}} ins(%[[S]] :
// CHECK-NOT:     memref.alloc
func.func @in_loop(%cache: memref<?x2x?x16xf32>, %out: memref<?x64x2xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %b = memref.dim %cache, %c0 : memref<?x2x?x16xf32>
  %t = memref.dim %cache, %c2 : memref<?x2x?x16xf32>
  %buf = memref.alloc(%b, %t) : memref<?x?x2x16xf32>
  linalg.transpose ins(%cache : memref<?x2x?x16xf32>) outs(%buf : memref<?x?x2x16xf32>) permutation = [0, 2, 1, 3]
  scf.for %j = %c0 to %n step %c64 {
    %blk = memref.subview %buf[0, %j, 0, 0] [%b, 64, 2, 16] [1, 1, 1, 1] : memref<?x?x2x16xf32> to memref<?x64x2x16xf32, strided<[?, 32, 16, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(b, s, h, d) -> (b, s, h, d)>, affine_map<(b, s, h, d) -> (b, s, h)>],
                    iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%blk : memref<?x64x2x16xf32, strided<[?, 32, 16, 1], offset: ?>>) outs(%out : memref<?x64x2xf32>) {
    ^bb0(%k: f32, %acc: f32):
      %s = arith.addf %acc, %k : f32
      linalg.yield %s : f32
    }
  }
  memref.dealloc %buf : memref<?x?x2x16xf32>
  return
}

// -----

// A general permutation (not its own inverse) keeps linalg.transpose's convention.
// CHECK-LABEL: func.func @rotate(
// CHECK:         memref.transpose %{{.+}} (d0, d1, d2, d3) -> (d2, d0, d1, d3) : memref<2x3x4x5xf32> to memref<4x2x3x5xf32, strided<[5, 60, 20, 1]>>
// CHECK-NOT:     linalg.transpose
func.func @rotate(%src: memref<2x3x4x5xf32>, %out: memref<4x2x3x5xf32>) {
  %buf = memref.alloc() : memref<4x2x3x5xf32>
  linalg.transpose ins(%src : memref<2x3x4x5xf32>) outs(%buf : memref<4x2x3x5xf32>) permutation = [2, 0, 1, 3]
  linalg.copy ins(%buf : memref<4x2x3x5xf32>) outs(%out : memref<4x2x3x5xf32>)
  return
}

// -----

// Negative: a permutation moving the last dim (readers would lose their unit-stride rows).
// CHECK-LABEL: func.func @last_dim_moved(
// CHECK:         linalg.transpose
// CHECK-NOT:     memref.transpose
func.func @last_dim_moved(%src: memref<2x3x4xf32>, %out: memref<3x4x2xf32>) {
  %buf = memref.alloc() : memref<3x4x2xf32>
  linalg.transpose ins(%src : memref<2x3x4xf32>) outs(%buf : memref<3x4x2xf32>) permutation = [1, 2, 0]
  linalg.copy ins(%buf : memref<3x4x2xf32>) outs(%out : memref<3x4x2xf32>)
  return
}

// -----

// Negative: the source is written between the copy and the reader; the copy stays.
// CHECK-LABEL: func.func @source_written(
// CHECK:         linalg.transpose
// CHECK-NOT:     memref.transpose
func.func @source_written(%src: memref<2x3x4xf32>, %out: memref<3x2x4xf32>) {
  %buf = memref.alloc() : memref<3x2x4xf32>
  linalg.transpose ins(%src : memref<2x3x4xf32>) outs(%buf : memref<3x2x4xf32>) permutation = [1, 0, 2]
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%src : memref<2x3x4xf32>)
  linalg.copy ins(%buf : memref<3x2x4xf32>) outs(%out : memref<3x2x4xf32>)
  memref.dealloc %buf : memref<3x2x4xf32>
  return
}

// -----

// Negative: the buffer is written after the copy (an init of another op); the copy stays.
// CHECK-LABEL: func.func @buffer_written(
// CHECK:         linalg.transpose
// CHECK-NOT:     memref.transpose
func.func @buffer_written(%src: memref<2x3x4xf32>, %out: memref<3x2x4xf32>) {
  %buf = memref.alloc() : memref<3x2x4xf32>
  linalg.transpose ins(%src : memref<2x3x4xf32>) outs(%buf : memref<3x2x4xf32>) permutation = [1, 0, 2]
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%buf : memref<3x2x4xf32>)
  linalg.copy ins(%buf : memref<3x2x4xf32>) outs(%out : memref<3x2x4xf32>)
  return
}

// -----

// Negative: a call between the copy and the reader may write anything; the copy stays.
// CHECK-LABEL: func.func @call_between(
// CHECK:         linalg.transpose
// CHECK-NOT:     memref.transpose
func.func private @unknown(memref<2x3x4xf32>)
func.func @call_between(%src: memref<2x3x4xf32>, %out: memref<3x2x4xf32>) {
  %buf = memref.alloc() : memref<3x2x4xf32>
  linalg.transpose ins(%src : memref<2x3x4xf32>) outs(%buf : memref<3x2x4xf32>) permutation = [1, 0, 2]
  func.call @unknown(%src) : (memref<2x3x4xf32>) -> ()
  linalg.copy ins(%buf : memref<3x2x4xf32>) outs(%out : memref<3x2x4xf32>)
  return
}

// -----

// Negative: a use that is not a linalg read (a reshape needing contiguity); the copy stays.
// CHECK-LABEL: func.func @reshaped(
// CHECK:         linalg.transpose
// CHECK-NOT:     memref.transpose
func.func @reshaped(%src: memref<2x3x4xf32>) -> memref<24xf32> {
  %buf = memref.alloc() : memref<3x2x4xf32>
  linalg.transpose ins(%src : memref<2x3x4xf32>) outs(%buf : memref<3x2x4xf32>) permutation = [1, 0, 2]
  %flat = memref.collapse_shape %buf [[0, 1, 2]] : memref<3x2x4xf32> into memref<24xf32>
  return %flat : memref<24xf32>
}
