// Numerics of the tensor-core kernels without a GPU: the kernels' PTX runs on the PTX
// interpreter (Inputs/ptxsim.py: PTX ISA fragment layouts of ldmatrix and mma.m16n8k16,
// cp.async landing only at its wait_group, checks of out-of-bounds accesses, alignment,
// collectives and shared-memory races between barriers), the host launches on
// Inputs/gpusim_run.py, and the outputs are compared with NumPy. Cases: bf16 with M and N
// ragged over the 128x128 block tile and four k-stages (stage reuse); f16 with two lead dims
// and a bias; accumulation onto an input C (no zero fill) over two row blocks.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
// RUN: %PYTHON %S/Inputs/matmul_data.py linear-bf16 %t/a-in.npz %t/a-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --inputs %t/a-in.npz --expect %t/a-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=BF16
// BF16: launch linear_kernel{{(_[0-9]+)?}}: grid [2, 1, 1] block [256, 1, 1] shared 40960 bytes; bar 16, cp 48, ldmatrix 96, mma 256
// BF16: out0: ok (5032 elements
// RUN: decoda-compile %S/Inputs/linear_f16_bias.mlir --target=cuda --emit=ptx -o %t/b.ptx --dump-ir-after-each=%t/b
// RUN: %PYTHON %S/Inputs/matmul_data.py linear-f16-bias %t/b-in.npz %t/b-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b %t/b.ptx --inputs %t/b-in.npz --expect %t/b-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=F16
// F16: launch linear_kernel{{(_[0-9]+)?}}: {{.*}} mma 64
// F16: out0: ok (2736 elements
// RUN: decoda-compile %S/Inputs/accumulate_bf16.mlir --target=cuda --emit=ptx -o %t/c.ptx --dump-ir-after-each=%t/c
// RUN: %PYTHON %S/Inputs/matmul_data.py accumulate-bf16 %t/c-in.npz %t/c-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --inputs %t/c-in.npz --expect %t/c-out.npz --rtol 1e-5 --atol 1e-4 | FileCheck %s --check-prefix=ACC
// ACC: launch acc_kernel{{(_[0-9]+)?}}: grid [1, 2, 1] block [256, 1, 1]
// ACC: out0: ok (5200 elements
func.func @linear(%x: tensor<1x?x128xbf16>, %w: tensor<136x128xbf16>) -> tensor<1x?x136xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x128xbf16>, tensor<136x128xbf16>
  return %y : tensor<1x?x136xbf16>
}
