// Entry points may not take the names of the model's own support symbols: an entry called
// `malloc` or `free` would replace the C library's inside the model (-Bsymbolic), one called
// `decoda_...` would clash with the support code (decoda_check_failed, the call-memory hooks
// of CallMemory.c). Each is an error naming the function, never a broken model.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed 's/@NAME/@malloc/' %s > %t/malloc.mlir
// RUN: not decoda-compile %t/malloc.mlir -o %t/m.so 2>&1 | FileCheck %s --check-prefix=MALLOC
// MALLOC: error: entry point name 'malloc' is the C library's allocation function, which the model calls itself; rename the function
// RUN: sed 's/@NAME/@free/' %s > %t/free.mlir
// RUN: not decoda-compile %t/free.mlir -o %t/m.so 2>&1 | FileCheck %s --check-prefix=FREE
// FREE: error: entry point name 'free' is the C library's allocation function
// RUN: sed 's/@NAME/@decoda_mem_free/' %s > %t/hook.mlir
// RUN: not decoda-compile %t/hook.mlir -o %t/m.so 2>&1 | FileCheck %s --check-prefix=HOOK
// HOOK: error: entry point name 'decoda_mem_free': names starting with 'decoda_' are reserved for the model's support code (docs/ABI.md); rename the function
// RUN: sed 's/@NAME/@step/' %s > %t/step.mlir
// RUN: decoda-compile %t/step.mlir -o %t/step.so
// RUN: decoda-run %t/step.so --list | FileCheck %s --check-prefix=OK
// OK: entry step
func.func @NAME(%x: tensor<?x4xf32> {decoda.name = "x"}) -> tensor<?x4xf32> {
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x4xf32>) outs(%x : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
