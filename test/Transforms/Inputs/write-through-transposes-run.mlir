// Input of write-through-transposes.mlir (the numbers): decoda-write-through-transposes on a
// function lowered to LLVM and run, with and without the pass.
// A gather over new keys [B, T, H, D] (each element times 10 plus its pair partner, read by a
// memref.load as RoPE reads it) into a buffer copied by a transpose into the [B, H, S, D] cache
// at S offset 1: the gather writes the cache slice through a transposed view.
// CHECK-LABEL: func.func @numbers(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x3x2x2xf32>, %[[CACHE:[^:]+]]: memref<1x2x4x2xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         %[[S:.+]] = memref.subview %[[CACHE]][0, 0, 1, 0] [1, 2, 3, 2] [1, 1, 1, 1]
// CHECK:         %[[V:.+]] = memref.transpose %[[S]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<1x3x2x2xf32>) outs(%[[V]] :
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @numbers(%x: memref<1x3x2x2xf32>, %cache: memref<1x2x4x2xf32>) {
  %c1 = arith.constant 1 : index
  %buf = memref.alloc() : memref<1x3x2x2xf32>
  linalg.generic {indexing_maps = [affine_map<(b, t, h, d) -> (b, t, h, d)>, affine_map<(b, t, h, d) -> (b, t, h, d)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x3x2x2xf32>) outs(%buf : memref<1x3x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %b = linalg.index 0 : index
    %t = linalg.index 1 : index
    %h = linalg.index 2 : index
    %d = linalg.index 3 : index
    %p = arith.subi %c1, %d : index
    %partner = memref.load %x[%b, %t, %h, %p] : memref<1x3x2x2xf32>
    %ten = arith.constant 10.0 : f32
    %m = arith.mulf %in, %ten : f32
    %r = arith.addf %m, %partner : f32
    linalg.yield %r : f32
  }
  %slice = memref.subview %cache[0, 0, 1, 0] [1, 2, 3, 2] [1, 1, 1, 1] : memref<1x2x4x2xf32> to memref<1x2x3x2xf32, strided<[16, 8, 2, 1], offset: 2>>
  linalg.transpose ins(%buf : memref<1x3x2x2xf32>) outs(%slice : memref<1x2x3x2xf32, strided<[16, 8, 2, 1], offset: 2>>) permutation = [0, 2, 1, 3]
  memref.dealloc %buf : memref<1x3x2x2xf32>
  return
}

llvm.func @printf(!llvm.ptr, ...) -> i32
llvm.mlir.global internal constant @fmt("%g \00")
llvm.mlir.global internal constant @nl("\0A\00")

// x[0, t, h, d] = 4 t + 2 h + d; the cache starts at -1; prints cache[0, h, s, d] for h, s, d.
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %x = memref.alloc() : memref<1x3x2x2xf32>
  %cache = memref.alloc() : memref<1x2x4x2xf32>
  %m1 = arith.constant -1.0 : f32
  linalg.fill ins(%m1 : f32) outs(%cache : memref<1x2x4x2xf32>)
  scf.for %t = %c0 to %c3 step %c1 {
    scf.for %h = %c0 to %c2 step %c1 {
      scf.for %d = %c0 to %c2 step %c1 {
        %t4 = arith.muli %t, %c4 : index
        %h2 = arith.muli %h, %c2 : index
        %a = arith.addi %t4, %h2 : index
        %v = arith.addi %a, %d : index
        %vi = arith.index_cast %v : index to i64
        %vf = arith.sitofp %vi : i64 to f32
        memref.store %vf, %x[%c0, %t, %h, %d] : memref<1x3x2x2xf32>
      }
    }
  }
  func.call @numbers(%x, %cache) : (memref<1x3x2x2xf32>, memref<1x2x4x2xf32>) -> ()
  %fmt = llvm.mlir.addressof @fmt : !llvm.ptr
  scf.for %h = %c0 to %c2 step %c1 {
    scf.for %s = %c0 to %c4 step %c1 {
      scf.for %d = %c0 to %c2 step %c1 {
        %v = memref.load %cache[%c0, %h, %s, %d] : memref<1x2x4x2xf32>
        %vd = arith.extf %v : f32 to f64
        %0 = llvm.call @printf(%fmt, %vd) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, f64) -> i32
      }
    }
  }
  %nl = llvm.mlir.addressof @nl : !llvm.ptr
  %1 = llvm.call @printf(%nl) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr) -> i32
  return
}
