// Weights live on the device for as long as the model is loaded (docs/ABI.md, "GPU models"):
// the host code asks the model's support code for its device copy of each constant
// (decoda_cuda_constant), which uploads it on the first call only; the runtime frees it when
// it unloads the model (decoda_cuda_release). Checked on the host LLVM IR and, with a fake
// driver that logs every allocation, copy and free (test/GPU/Inputs/fake_cuda.c; kernels do
// not run, so the outputs are meaningless), across three calls of decoda-run.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda --emit=llvm -o - | FileCheck %s --check-prefix=IR
// The 256-byte weight is never copied per call: no mgpuMemcpy of 256 bytes, one constant slot.
// IR-LABEL: define {{.*}} @norm(
// IR: call ptr @mgpuMemAlloc(i64 1024
// IR: call void @mgpuMemcpy({{.*}}, i64 1024
// IR: call ptr @decoda_cuda_constant(i64 0, ptr {{.*}}@{{[^,]+}}, i64 256)
// IR-NOT: i64 256
// IR: ret
// RUN: decoda-compile %s --target=cuda -o %t/m.so
// RUN: nm -D --defined-only %t/m.so | FileCheck %s --check-prefix=SYMS
// SYMS: decoda_cuda_release
// RUN: cc -shared -fPIC %S/Inputs/fake_cuda.c -o %t/fake_cuda.so
// RUN: %PYTHON -c "import numpy as np; np.save('%t/x.npy', np.ones((4, 64), np.float32))"
// RUN: env FAKE_CUDA_LOG=%t/log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --input x=%t/x.npy --bench 2 --warmup 0 > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/log | FileCheck %s --check-prefix=LOG
// Three calls: the input and the output cross the bus each time, the weight once.
// LOG: calls 3
// LOG: copies of 1024 bytes: 6
// LOG: copies of 256 bytes: 1
// LOG: allocations of 256 bytes: 1
// LOG: unfreed allocations: 0
// LOG: freed before the modules were unloaded: yes
func.func @norm(%x: tensor<4x64xf32> {decoda.name = "x"}) -> tensor<4x64xf32> {
  %w = arith.constant dense<[0.5, 0.6, 0.8, 0.9, 1.0, 1.1, 1.2, 1.4, 1.5, 1.6, 1.8, 1.9, 2.0, 2.1, 2.2, 2.4, 2.5, 2.6, 2.8, 2.9, 3.0, 3.1, 3.2, 3.4, 3.5, 3.6, 3.8, 3.9, 4.0, 4.1, 4.2, 4.4, 4.5, 4.6, 4.8, 4.9, 5.0, 5.1, 5.2, 5.4, 5.5, 5.6, 5.8, 5.9, 6.0, 6.1, 6.2, 6.4, 6.5, 6.6, 6.8, 6.9, 7.0, 7.1, 7.2, 7.4, 7.5, 7.6, 7.8, 7.9, 8.0, 8.1, 8.2, 8.4]> : tensor<64xf32>
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<4x64xf32>, tensor<64xf32>
  return %y : tensor<4x64xf32>
}
