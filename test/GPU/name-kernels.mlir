// decoda-gpu-name-kernels: each module's only kernel takes the module's name, its launches follow.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-name-kernels | FileCheck %s
// In the CUDA pipeline (profile.mlir's RMSNorm and projection, T = 40: a norm kernel and the
// projection's kernels of a dynamic T), the PTX entries are the modules' names and the program
// computes what NumPy does (reference.py) on the PTX interpreter, which finds each launch's
// kernel by its reference.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/profile.mlir --target=cuda --emit=ptx -o %t/m.ptx --dump-ir-after-each=%t/m
// RUN: %PYTHON -c "import re; t = open('%t/m.ptx').read(); m = re.findall(r'(?m)^// gpu.binary @(\S+)\n', t); e = re.findall(r'\.entry (\S+)\(', t); print('entries', 'match' if m == e else 'differ', len(e))" | FileCheck %s --check-prefix=ENTRIES
// ENTRIES: entries match {{[2-9]}}
// RUN: %PYTHON -c "import numpy as np; from decoda import reference as R; r = np.random.default_rng(0); x, g, w = r.standard_normal((1, 40, 256)).astype('f4'), r.standard_normal((256,)).astype('f4'), r.standard_normal((96, 256)).astype('f4'); np.savez('%t/in.npz', arg0=x, arg1=g, arg2=w); np.savez('%t/out.npz', out0=R.linear(R.rms_norm(x, g, 1e-5), w).astype('f4'))"
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/m %t/m.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 1e-4 --atol 1e-4 | FileCheck %s --check-prefix=SIM
// SIM: launch norm_proj_kernel: grid
// SIM: out0: ok (3840 elements

// Three modules as gpu-kernel-outlining leaves them: the same kernel name in each.
// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @f_kernel::@f_kernel
// CHECK: gpu.launch_func @f_kernel_0::@f_kernel_0
// CHECK: gpu.launch_func @f_kernel_1::@f_kernel_1
// CHECK: gpu.launch_func @f_kernel_0::@f_kernel_0
// CHECK: gpu.module @f_kernel
// CHECK: gpu.func @f_kernel(
// CHECK: gpu.module @f_kernel_0
// CHECK: gpu.func @f_kernel_0(
// CHECK: gpu.module @f_kernel_1
// CHECK: gpu.func @f_kernel_1(
module attributes {gpu.container_module} {
  func.func @f(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_1::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @f_kernel {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @f_kernel_0 {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @f_kernel_1 {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel { gpu.return }
  }
}

// -----

// Left alone: a module with two kernels (their names differ already), and a module whose name
// is also the name of a device function in it.
// CHECK-LABEL: func.func @g
// CHECK: gpu.launch_func @two::@a
// CHECK: gpu.launch_func @two::@b
// CHECK: gpu.launch_func @taken::@k
// CHECK: gpu.func @a(
// CHECK: gpu.func @b(
// CHECK: func.func @taken(
// CHECK: gpu.func @k(
module attributes {gpu.container_module} {
  func.func @g(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @two::@a blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @two::@b blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @taken::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @two {
    gpu.func @a(%m: memref<4xf32>) kernel { gpu.return }
    gpu.func @b(%m: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @taken {
    func.func @taken() { return }
    gpu.func @k(%m: memref<4xf32>) kernel { gpu.return }
  }
}
