// decoda-drop-donated-results: a donated result that is the argument's buffer (through casts)
// is removed; one that is another buffer is an error naming result and argument.
// RUN: decoda-opt %s --decoda-drop-donated-results --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @in_place
// CHECK-SAME:    (%[[X:.+]]: memref<4xf32>, %[[Y:.+]]: memref<4xf32>) -> memref<4xf32>
// CHECK-NOT:     decoda.donate
// CHECK:         return %[[Y]] : memref<4xf32>
func.func @in_place(%x: memref<4xf32> {decoda.donate = 0 : i64}, %y: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %c = memref.cast %x : memref<4xf32> to memref<4xf32>
  return %c, %y : memref<4xf32>, memref<4xf32>
}

// -----

// expected-error @+1 {{'elsewhere': result 0 is donated from argument 0 but is not that argument's buffer after bufferization}}
func.func @elsewhere(%x: memref<4xf32> {decoda.donate = 0 : i64}) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  return %a : memref<4xf32>
}
