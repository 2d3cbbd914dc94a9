// The host side of a CUDA model frees what a failed call holds: the device buffers and streams
// of the call are resources of the call-memory hooks (lib/Target/CPU/CallMemory.c), released
// when a CUDA error or run-time check fails the call, as its host buffers are. Runs on the fake
// driver of Inputs/fake_cuda.c (no GPU needed: launches run nothing), which counts what is live.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda -o %t/m.so
// RUN: cc -shared -fPIC %S/Inputs/fake_cuda.c -o %t/fake_cuda.so
// RUN: env DECODA_CUDA_DRIVER=%t/fake_cuda.so %PYTHON %S/Inputs/call_memory.py %t/m.so | FileCheck %s
// CHECK: FAKE_CUDA_FAIL_LAUNCH: 5 failed calls, nothing left on the device
// CHECK: FAKE_CUDA_FAIL_SYNC: 5 failed calls, nothing left on the device
// CHECK: PASS test_no_device_memory_left_behind
// The host code's allocations go through the hooks too.
// RUN: decoda-compile %s --target=cuda --emit=llvm -o %t/m.ll
// RUN: FileCheck %s --check-prefix=IR < %t/m.ll
// IR-NOT: @malloc(
// IR: @decoda_mem_malloc(
// IR-NOT: @malloc(
func.func @f(%x: tensor<?x4xf32> {decoda.name = "x"}) -> tensor<?x4xf32> {
  %y = arith.addf %x, %x : tensor<?x4xf32>
  %z = arith.mulf %y, %x : tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}
