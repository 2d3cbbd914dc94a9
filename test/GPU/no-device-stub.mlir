// With the CUDA toolkit's stub driver (it exports the driver API, cuInit fails), the runtime
// reports the driver's own error as "no CUDA device"; decoda-run exits cleanly.
// REQUIRES: cuda-driver-stub
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda -o %t/m.so
// RUN: %PYTHON -c "import numpy as np; np.save('%t/x.npy', np.ones(4, np.float32))"
// RUN: %rc env DECODA_CUDA_DRIVER=%cuda_stub decoda-run %t/m.so --input x=%t/x.npy | FileCheck %s
// CHECK: no CUDA device: cuInit failed: {{.*}}CUDA error 34
// CHECK: exit code {{[12]}}
func.func @neg(%x: tensor<4xf32> {decoda.name = "x"}) -> tensor<4xf32> {
  %y = arith.negf %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
