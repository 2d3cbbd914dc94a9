// A function lowered by upstream MLIR passes for the runtime tests (mlir_model.test): an
// aligned alloc output, an output that is an input, a constant global (allocated 0xdeadbeef), an
// i1 output, a rank-0 output and a cf.assert.
memref.global "private" constant @c : memref<3xf32> = dense<[1.5, -2.0, 0.25]>
func.func @f(%x: memref<?x4xf32>, %y: memref<?x4xf32>, %b: memref<3xi1>) -> (memref<?x4xf32>, memref<?x4xf32>, memref<3xf32>, memref<3xi1>, memref<f64>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %s = memref.alloc(%n) {alignment = 64 : i64} : memref<?x4xf32>
  linalg.add ins(%x, %y : memref<?x4xf32>, memref<?x4xf32>) outs(%s : memref<?x4xf32>)
  %g = memref.get_global @c : memref<3xf32>
  %nb = memref.alloc() : memref<3xi1>
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %v = memref.load %b[%i] : memref<3xi1>
    %t = arith.constant true
    %nv = arith.xori %v, %t : i1
    memref.store %nv, %nb[%i] : memref<3xi1>
  }
  %r = memref.alloc() : memref<f64>
  %f = arith.constant 42.0 : f64
  memref.store %f, %r[] : memref<f64>
  %ok = arith.cmpi sge, %n, %c1 : index
  cf.assert %ok, "need at least one row"
  return %s, %x, %g, %nb, %r : memref<?x4xf32>, memref<?x4xf32>, memref<3xf32>, memref<3xi1>, memref<f64>
}
