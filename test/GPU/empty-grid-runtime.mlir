// A launch whose grid has no blocks at run time (an extent 0: a decoder's empty past cache at
// its first prompt, which an ONNX export still copies into the present) is skipped by the
// artifact's support code (mgpuLaunchKernel, lib/Target/CUDA/CUDATarget.cpp): the driver
// refuses a zero grid extent (CUDA_ERROR_INVALID_VALUE), as the fake driver of
// Inputs/fake_cuda.c does (without the skip the empty calls fail: checked by hand). Here a model of two elementwise kernels and a row norm (which
// guards itself against no rows) over x [N, 64], called with N = 0 one by one and with launch
// graphs, then with N = 3: the empty calls succeed with an empty output and launch nothing.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda -o %t/m.so
// RUN: cc -shared -fPIC %S/Inputs/fake_cuda.c -o %t/fake_cuda.so
// RUN: %PYTHON -c "import numpy as np; np.save('%t/x0.npy', np.ones((0, 64), np.float32)); np.save('%t/x3.npy', np.ones((3, 64), np.float32))"
// RUN: env FAKE_CUDA_LOG=%t/log0 DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --input x=%t/x0.npy | FileCheck %s --check-prefix=EMPTY
// RUN: env FAKE_CUDA_LOG=%t/log0g DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --input x=%t/x0.npy --cuda-graphs --bench 2 --warmup 0 | FileCheck %s --check-prefix=EMPTY
// EMPTY: output y: f32 [0, 64]
// RUN: %PYTHON -c "import sys; t = open('%t/log0').read() + open('%t/log0g').read(); print('launches', t.count('launch blocks'), 'graph nodes', t.count('graph node'), 'refused', t.count('refused'))" | FileCheck %s --check-prefix=LOG0
// LOG0: launches 0 graph nodes 0 refused 0
// RUN: env FAKE_CUDA_LOG=%t/log3 DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --input x=%t/x3.npy | FileCheck %s --check-prefix=THREE
// THREE: output y: f32 [3, 64]
// RUN: %PYTHON -c "t = open('%t/log3').read(); print('launches', t.count('launch blocks'), 'refused', t.count('refused'))" | FileCheck %s --check-prefix=LOG3
// LOG3: launches {{[1-9]}} refused 0
func.func @scale_norm(%x: tensor<?x64xf32> {decoda.name = "x"}) -> (tensor<?x64xf32> {decoda.name = "y"}) {
  %w = arith.constant dense<0.5> : tensor<64xf32>
  %t = arith.mulf %x, %x : tensor<?x64xf32>
  %n = decoda.rms_norm %t, %w {eps = 1.0e-05 : f64} : tensor<?x64xf32>, tensor<64xf32>
  %y = arith.addf %n, %x : tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
