// Constant [K, N] weights (in_out: ONNX MatMul initializers, how PyTorch exports nn.Linear) take
// the GEMV path on the GPU: decoda-transpose-constant-weights (first in decoda-lower-to-cuda)
// makes them [N, K] constants, which decoda-gpu-gemv and decoda-gpu-tensorcore-matmul read;
// before, such a projection was a SIMT loop nest. A bf16 RMSNorm read by two in_out projections
// (fused into one [K, 136] weight by decoda-fuse-projections, then transposed), T = 1, on the
// PTX interpreter against NumPy (reference.py, Inputs/in_out_model.py): one GEMV kernel of 34
// blocks (136 rows, 4 warps a block) that computes the norm too.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/in_out_model.py %t/m.mlir %t/in.npz %t/out.npz
// RUN: decoda-compile %t/m.mlir --target=cuda --emit=ptx -o %t/m.ptx --dump-ir-after-each=%t/d
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s
// CHECK: launch proj_kernel: grid [34, 1, 1] block [128, 1, 1] shared 528 bytes; bar 68, shfl 340
// CHECK: out0: ok (96 elements, max abs error 0)
// CHECK: out1: ok (40 elements, max abs error 0)
// The transposed weight is what the kernel reads: a [136, 256] constant, the linear out_in.
// RUN: %PYTHON -c "import glob; t = open(glob.glob('%t/d/*-decoda-transpose-constant-weights.mlir')[0]).read(); print('transposed', t.count('tensor<136x256xbf16>') > 0, 'in_out left', 'in_out' in t)" | FileCheck %s --check-prefix=IR
// IR: transposed True in_out left False
