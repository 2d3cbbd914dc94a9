// Input of forward-transposed-copies.mlir (the numbers): decoda-forward-transposed-copies on a
// function lowered to LLVM and run, with and without the pass.
// A cache [B, H, S, D] copied to [B, S, H, D] and summed over D: the sum reads the cache
// through the transposed view; the copy, its buffer and its dealloc are gone.
// CHECK-LABEL: func.func @numbers(
// CHECK-SAME:    %[[CACHE:[^:]+]]: memref<1x2x3x2xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[V:.+]] = memref.transpose %[[CACHE]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<1x2x3x2xf32> to memref<1x3x2x2xf32, strided<[12, 2, 6, 1]>>
// CHECK:         linalg.generic {{.*}} ins(%[[V]] : memref<1x3x2x2xf32, strided<[12, 2, 6, 1]>>)
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @numbers(%cache: memref<1x2x3x2xf32>, %out: memref<1x3x2xf32>) {
  %buf = memref.alloc() : memref<1x3x2x2xf32>
  linalg.transpose ins(%cache : memref<1x2x3x2xf32>) outs(%buf : memref<1x3x2x2xf32>) permutation = [0, 2, 1, 3]
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<1x3x2xf32>)
  linalg.generic {indexing_maps = [affine_map<(b, s, h, d) -> (b, s, h, d)>, affine_map<(b, s, h, d) -> (b, s, h)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%buf : memref<1x3x2x2xf32>) outs(%out : memref<1x3x2xf32>) {
  ^bb0(%k: f32, %acc: f32):
    %s = arith.addf %acc, %k : f32
    linalg.yield %s : f32
  }
  memref.dealloc %buf : memref<1x3x2x2xf32>
  return
}

llvm.func @printf(!llvm.ptr, ...) -> i32
llvm.mlir.global internal constant @fmt("%g \00")
llvm.mlir.global internal constant @nl("\0A\00")

// cache[0, h, s, d] = 6 h + 2 s + d; prints out[0, s, h] for s, then h.
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %cache = memref.alloc() : memref<1x2x3x2xf32>
  %out = memref.alloc() : memref<1x3x2xf32>
  scf.for %h = %c0 to %c2 step %c1 {
    scf.for %s = %c0 to %c3 step %c1 {
      scf.for %d = %c0 to %c2 step %c1 {
        %h6 = arith.muli %h, %c3 : index
        %h6b = arith.muli %h6, %c2 : index
        %s2 = arith.muli %s, %c2 : index
        %a = arith.addi %h6b, %s2 : index
        %x = arith.addi %a, %d : index
        %xi = arith.index_cast %x : index to i64
        %xf = arith.sitofp %xi : i64 to f32
        memref.store %xf, %cache[%c0, %h, %s, %d] : memref<1x2x3x2xf32>
      }
    }
  }
  func.call @numbers(%cache, %out) : (memref<1x2x3x2xf32>, memref<1x3x2xf32>) -> ()
  %fmt = llvm.mlir.addressof @fmt : !llvm.ptr
  scf.for %s = %c0 to %c3 step %c1 {
    scf.for %h = %c0 to %c2 step %c1 {
      %v = memref.load %out[%c0, %s, %h] : memref<1x3x2xf32>
      %vd = arith.extf %v : f32 to f64
      %0 = llvm.call @printf(%fmt, %vd) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, f64) -> i32
    }
  }
  %nl = llvm.mlir.addressof @nl : !llvm.ptr
  %1 = llvm.call @printf(%nl) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr) -> i32
  return
}

