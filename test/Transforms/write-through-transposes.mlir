// decoda-write-through-transposes: a gather (a generic whose body loads from memory, as RoPE
// reads the pair partner) into a fresh buffer that is only copied by a linalg.transpose moves to
// the copy and writes the copy's destination through memref.transpose by the inverse
// permutation; the buffer, the copy and its deallocation go. Near misses keep the copy.
// RUN: decoda-opt %s --split-input-file --decoda-write-through-transposes | FileCheck %s
// Numbers (Inputs/write-through-transposes-run.mlir): the same function lowered with and
// without the pass prints the same cache, written here from the formula (x[0, t, h, d] =
// 4 t + 2 h + d; the gather 10 x + x[.., 1 - d]; cache[0, h, s, d] that at t = s - 1, -1 at
// s = 0).
// RUN: decoda-opt %S/Inputs/write-through-transposes-run.mlir --decoda-write-through-transposes | FileCheck %S/Inputs/write-through-transposes-run.mlir
// RUN: decoda-opt %S/Inputs/write-through-transposes-run.mlir --decoda-write-through-transposes --convert-linalg-to-loops --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void | FileCheck %s --check-prefix=NUM
// RUN: decoda-opt %S/Inputs/write-through-transposes-run.mlir --convert-linalg-to-loops --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void | FileCheck %s --check-prefix=NUM
// NUM: -1 -1 1 10 45 54 89 98 -1 -1 23 32 67 76 111 120

#id = affine_map<(b, t, h, d) -> (b, t, h, d)>

// Dynamic T: the buffer's extent asked by memref.dim is the allocation's size; the generic
// moves past an unrelated write (another buffer) to the copy.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x?x2x4xf32>, %[[C:[^:]+]]: memref<1x2x?x4xf32>, %[[O:[^:]+]]: memref<4xf32>, %[[T:[^:]+]]: index
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.fill {{.*}} outs(%[[O]]
// CHECK:         %[[S:.+]] = memref.subview %[[C]][0, 0, 1, 0] [1, 2, %[[T]], 4]
// CHECK:         %[[V:.+]] = memref.transpose %[[S]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<1x?x2x4xf32>) outs(%[[V]] :
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[T]]
func.func @dynamic(%x: memref<1x?x2x4xf32>, %cache: memref<1x2x?x4xf32>, %o: memref<4xf32>, %t: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc(%t) : memref<1x?x2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x?x2x4xf32>) outs(%buf : memref<1x?x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = memref.load %x[%c0, %c0, %c0, %c0] : memref<1x?x2x4xf32>
    %r = arith.addf %in, %p : f32
    linalg.yield %r : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<4xf32>)
  %n = memref.dim %buf, %c1 : memref<1x?x2x4xf32>
  %slice = memref.subview %cache[0, 0, 1, 0] [1, 2, %n, 4] [1, 1, 1, 1] : memref<1x2x?x4xf32> to memref<1x2x?x4xf32, strided<[?, ?, 4, 1], offset: 4>>
  linalg.transpose ins(%buf : memref<1x?x2x4xf32>) outs(%slice : memref<1x2x?x4xf32, strided<[?, ?, 4, 1], offset: 4>>) permutation = [0, 2, 1, 3]
  memref.dealloc %buf : memref<1x?x2x4xf32>
  return %n : index
}

// -----

#id = affine_map<(b, t, h, d) -> (b, t, h, d)>

// Negative: an elementwise generic (no load: it may be a projection's epilogue, fused on the GPU
// only into identity-layout outputs) keeps its buffer and the copy.
// CHECK-LABEL: func.func @elementwise(
// CHECK:         memref.alloc
// CHECK:         linalg.generic
// CHECK:         linalg.transpose
func.func @elementwise(%x: memref<1x3x2x4xf32>, %cache: memref<1x2x3x4xf32>) {
  %buf = memref.alloc() : memref<1x3x2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x3x2x4xf32>) outs(%buf : memref<1x3x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %in : f32
    linalg.yield %r : f32
  }
  linalg.transpose ins(%buf : memref<1x3x2x4xf32>) outs(%cache : memref<1x2x3x4xf32>) permutation = [0, 2, 1, 3]
  memref.dealloc %buf : memref<1x3x2x4xf32>
  return
}

// -----

#id = affine_map<(b, t, h, d) -> (b, t, h, d)>

// Negatives: the gather's input written between it and the copy (moving it would read the new
// values); the gather reading the destination's memory (it would read what it writes); a
// permutation that moves the last dim (rows would lose their unit stride); the buffer read by
// someone else.
// CHECK-LABEL: func.func @near_misses(
// CHECK-COUNT-4: linalg.transpose
func.func @near_misses(%x: memref<1x3x2x4xf32>, %cache: memref<1x2x3x4xf32>, %cache4: memref<1x3x4x2xf32>, %o: memref<1x3x2x4xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %b1 = memref.alloc() : memref<1x3x2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x3x2x4xf32>) outs(%b1 : memref<1x3x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = memref.load %x[%c0, %c0, %c0, %c0] : memref<1x3x2x4xf32>
    %r = arith.addf %in, %p : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%x : memref<1x3x2x4xf32>)
  linalg.transpose ins(%b1 : memref<1x3x2x4xf32>) outs(%cache : memref<1x2x3x4xf32>) permutation = [0, 2, 1, 3]
  %b2 = memref.alloc() : memref<1x3x2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o : memref<1x3x2x4xf32>) outs(%b2 : memref<1x3x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = memref.load %cache[%c0, %c0, %c0, %c0] : memref<1x2x3x4xf32>
    %r = arith.addf %in, %p : f32
    linalg.yield %r : f32
  }
  linalg.transpose ins(%b2 : memref<1x3x2x4xf32>) outs(%cache : memref<1x2x3x4xf32>) permutation = [0, 2, 1, 3]
  %b3 = memref.alloc() : memref<1x3x2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o : memref<1x3x2x4xf32>) outs(%b3 : memref<1x3x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = memref.load %o[%c0, %c0, %c0, %c0] : memref<1x3x2x4xf32>
    %r = arith.addf %in, %p : f32
    linalg.yield %r : f32
  }
  linalg.transpose ins(%b3 : memref<1x3x2x4xf32>) outs(%cache4 : memref<1x3x4x2xf32>) permutation = [0, 1, 3, 2]
  %b4 = memref.alloc() : memref<1x3x2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o : memref<1x3x2x4xf32>) outs(%b4 : memref<1x3x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = memref.load %o[%c0, %c0, %c0, %c0] : memref<1x3x2x4xf32>
    %r = arith.addf %in, %p : f32
    linalg.yield %r : f32
  }
  linalg.transpose ins(%b4 : memref<1x3x2x4xf32>) outs(%cache : memref<1x2x3x4xf32>) permutation = [0, 2, 1, 3]
  linalg.copy ins(%b4 : memref<1x3x2x4xf32>) outs(%o : memref<1x3x2x4xf32>)
  return
}
