// A CUDA model loads on a machine without a GPU only to say so: decoda-run reports
// "no CUDA device" with the runtime's reason and exit code 2, never a crash. This machine
// has no libcuda.so.1 (or has it and no device); with the toolkit's stub driver cuInit fails.
// UNSUPPORTED: cuda-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda -o %t/m.so
// RUN: %PYTHON -c "import numpy as np; np.save('%t/x.npy', np.ones((2, 4), np.float32))"
// RUN: %rc decoda-run %t/m.so --input x=%t/x.npy | FileCheck %s
// CHECK: no CUDA device
// CHECK: exit code {{[12]}}
// RUN: %rc env DECODA_CUDA_DRIVER=%t/missing.so decoda-run %t/m.so --input x=%t/x.npy | FileCheck %s --check-prefix=MISSING
// MISSING: no CUDA device: the CUDA driver '{{.*}}missing.so' cannot be loaded
// MISSING: exit code {{[12]}}
func.func @double(%x: tensor<2x4xf32> {decoda.name = "x"}) -> tensor<2x4xf32> {
  %y = arith.addf %x, %x : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
