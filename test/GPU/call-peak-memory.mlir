// A call holds at once only the device temporaries live together, not all it makes
// (decoda-gpu-device-buffers frees each right after its last use, in stream order): six
// projections in a chain, each temporary 64 KiB, and the input's device copy freed after the
// first projection, on the fake driver of Inputs/fake_cuda.c (which counts the device bytes
// the program holds; launches run nothing). With the pool (kernels launched one by one) a call
// holds 3 temporaries' bytes at most; with launch graphs the first call takes its temporaries
// from the pool and frees them after its run of launches (7: all it makes, as every call did
// before the early frees), and later calls place them in the stream's arena, freed ranges
// reused first fit, the arena sized 9/8 of the first call's peak: 3.38.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda -o %t/m.so
// RUN: cc -shared -fPIC %S/Inputs/fake_cuda.c -o %t/fake_cuda.so
// RUN: env DECODA_CUDA_DRIVER=%t/fake_cuda.so %PYTHON %S/Inputs/call_peak_memory.py %t/m.so 65536 %t/driver.log | FileCheck %s
// The driver's log: 7 allocations of 64 KiB a call (the six projections' results and the
// input's device copy), each one "temporary" below.
// CHECK: allocations of 65536 bytes a call makes: 7
// CHECK-NEXT: pool: a call holds at most 3.00 temporaries
// CHECK-NEXT: graphs, first call: at most 7.00 temporaries (from the pool)
// CHECK-NEXT: graphs, later calls: at most 3.38 temporaries (the arena)
// Every temporary and the input's copy freed once: 7 frees (the 6 temporaries, the last one,
// the result, after its copy to the host; the input's copy under its is-host test).
// RUN: decoda-compile %s --target=cuda --emit=mlir -o %t/m.mlir
// RUN: grep -c "llvm.call @mgpuMemFree" %t/m.mlir | FileCheck %s --check-prefix=FREES
// FREES: 7
func.func @chain(%x: tensor<64x256xf32> {decoda.name = "x"}) -> tensor<64x256xf32> {
  %w = arith.constant dense<0.01> : tensor<256x256xf32>
  %a = decoda.linear %x, %w : tensor<64x256xf32>, tensor<256x256xf32>
  %b = decoda.linear %a, %w : tensor<64x256xf32>, tensor<256x256xf32>
  %c = decoda.linear %b, %w : tensor<64x256xf32>, tensor<256x256xf32>
  %d = decoda.linear %c, %w : tensor<64x256xf32>, tensor<256x256xf32>
  %e = decoda.linear %d, %w : tensor<64x256xf32>, tensor<256x256xf32>
  %f = decoda.linear %e, %w : tensor<64x256xf32>, tensor<256x256xf32>
  return %f : tensor<64x256xf32>
}
