// Streams and allocations of a CUDA model's calls (docs/GPU.md, "Streams"): the host code asks for
// a stream around every launch, allocation, copy and free; the model's support code serves them
// all from one stream per calling thread, kept until the model is unloaded, allocates
// temporaries in stream order from the device's default pool (kept for reuse: release threshold
// unlimited, trimmed at unload) and waits only after a copy into host memory, never after a
// launch. Run on the fake driver of Inputs/fake_cuda.c (kernels do not run: only the sequence of
// driver calls is checked), three calls of a model with two outputs, a temporary (t, between
// the product kernel and the second norm) and a weight.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda -o %t/m.so
// RUN: cc -shared -fPIC %S/Inputs/fake_cuda.c -o %t/fake_cuda.so
// RUN: %PYTHON -c "import numpy as np; np.save('%t/x.npy', np.ones((4, 64), np.float32))"
// RUN: env FAKE_CUDA_LOG=%t/log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --input x=%t/x.npy --bench 2 --warmup 0 > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/log | FileCheck %s
// CHECK: calls 3
// The input and both outputs each call, the weight once.
// CHECK: copies of 1024 bytes: 9
// CHECK: copies of 256 bytes: 1
// CHECK: unfreed allocations: 0
// CHECK: freed before the modules were unloaded: yes
// One stream for everything, destroyed at unload.
// CHECK: streams created: 1
// CHECK: streams destroyed: 1
// CHECK: streams used by launches: 1
// CHECK: streams used by copies: 1
// CHECK: streams used by stream-ordered allocations: 1
// CHECK: streams used by stream-ordered frees: 1
// The input, both outputs and the temporary of each call (the weight is not from the pool).
// CHECK: stream-ordered allocations: 12
// CHECK: copies to the host: 6
// One wait per copy to the host, one after the weight's upload, one at unload: none per launch.
// CHECK: synchronisations: 8
// CHECK: pool release threshold: 18446744073709551615
// CHECK: pool trims: 1
//
// A device without memory pools: plain allocations, freed after the stream's next wait (not a
// wait each).
// RUN: env FAKE_CUDA_NO_POOL=1 FAKE_CUDA_LOG=%t/log2 DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --input x=%t/x.npy --bench 2 --warmup 0 > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/log2 | FileCheck %s --check-prefix=NOPOOL
// NOPOOL: calls 3
// NOPOOL: unfreed allocations: 0
// NOPOOL: streams created: 1
// NOPOOL: stream-ordered allocations: 0
// Four frees a call (x, y, t, z): those after the last copy wait for the stream once at the
// call's end, 3, and the 8 above (before: each free after a wait, 12).
// NOPOOL: synchronisations: 11
// NOPOOL: pool trims: 0
func.func @norm(%x: tensor<4x64xf32> {decoda.name = "x"}) -> (tensor<4x64xf32> {decoda.name = "y"}, tensor<4x64xf32> {decoda.name = "z"}) {
  %w = arith.constant dense<[0.5, 0.6, 0.8, 0.9, 1.0, 1.1, 1.2, 1.4, 1.5, 1.6, 1.8, 1.9, 2.0, 2.1, 2.2, 2.4, 2.5, 2.6, 2.8, 2.9, 3.0, 3.1, 3.2, 3.4, 3.5, 3.6, 3.8, 3.9, 4.0, 4.1, 4.2, 4.4, 4.5, 4.6, 4.8, 4.9, 5.0, 5.1, 5.2, 5.4, 5.5, 5.6, 5.8, 5.9, 6.0, 6.1, 6.2, 6.4, 6.5, 6.6, 6.8, 6.9, 7.0, 7.1, 7.2, 7.4, 7.5, 7.6, 7.8, 7.9, 8.0, 8.1, 8.2, 8.4]> : tensor<64xf32>
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<4x64xf32>, tensor<64xf32>
  %t = arith.mulf %y, %x : tensor<4x64xf32>
  %z = decoda.rms_norm %t, %w {eps = 1.0e-05 : f64} : tensor<4x64xf32>, tensor<64xf32>
  return %y, %z : tensor<4x64xf32>, tensor<4x64xf32>
}
