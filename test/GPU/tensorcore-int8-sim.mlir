// Numerics of the INT8 tensor-core kernel (decoda.qlinear's i8 x i8 -> i32 contraction on
// mma.sync m16n8k32 .s8) without a GPU: the PTX runs on the interpreter (Inputs/ptxsim.py,
// whose s8 m16n8k32 fragment layouts are written from the PTX ISA), the host launches on
// Inputs/gpusim_run.py, and the outputs are compared with NumPy, all exactly (--rtol 0
// --atol 0): the accumulators are integers, and the epilogue computes the same float32
// operations in the same order as the NumPy formula. Cases: unit scales, so the output is the
// i32 accumulator itself, with M = 130 and N = 136 ragged over two 128x128 blocks each and four
// 64-wide k stages (stage reuse), extreme values (rows of -128 against -128 / +127); two lead
// dims with K = 96 (three 32-wide stages), per-token x_scale, per-channel w_scale and a bias;
// bf16 output (exact after the rounding); requantised i8 output (M = 33, some outputs clamped
// at -128 and 127); a float projection with a constant weight
// compiled with --quantize=int8 (dynamic per-token activation scales, the weight quantised at
// compile time and resident on the device) against NumPy's quantisation of x and the
// compiler's weight. The dequantising epilogue is computed in the tensor-core kernel's stores:
// one launch per qlinear.
// Activation zero points (decoda-gpu-split-zero-point: Σ x w - zp Σ w, the correction in the
// fused epilogue), against the op's formula Σ (x - zp) w in int64: per-token zero points with a
// run-time weight and bf16 output (x - zp reaching -255 and 255; the column sums one reduction
// launch, then the tensor-core kernel), a per-tensor zero point with a constant weight (column
// sums folded: one launch), and a decode step on the dp4a GEMV kernel.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/qlinear_data.py zp-mlir %t/zp.mlir
// RUN: decoda-compile %t/zp.mlir --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t/zp.ptx --dump-ir-after-each=%t/zp
// RUN: %PYTHON %S/Inputs/qlinear_data.py zp_token %t/zt-in.npz %t/zt-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/zp %t/zp.ptx --entry zp_token --inputs %t/zt-in.npz --expect %t/zt-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=ZPT
// ZPT: launch zp_token_kernel_1: grid [1, 1, 1] block [256, 1, 1] shared 24576 bytes; bar 6, cp 12, ldmatrix 18, mma 48
// ZPT: out0: ok (2736 elements, max abs error 0)
// ZPT: 3 launches
// RUN: %PYTHON %S/Inputs/qlinear_data.py zp_const %t/zc-in.npz %t/zc-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/zp %t/zp.ptx --entry zp_const --inputs %t/zc-in.npz --expect %t/zc-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=ZPC
// ZPC: launch zp_const_kernel: grid [1, 1, 1] block [256, 1, 1] shared 40960 bytes; bar 2, cp 6, ldmatrix 12, mma 24
// ZPC: out0: ok (1320 elements, max abs error 0)
// ZPC: 1 launches
// RUN: %PYTHON %S/Inputs/qlinear_data.py zp_decode %t/zd-in.npz %t/zd-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/zp %t/zp.ptx --entry zp_decode --inputs %t/zd-in.npz --expect %t/zd-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=ZPD
// ZPD: launch zp_decode_kernel_{{[0-9]+}}: grid [12, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 60
// ZPD: out0: ok (48 elements, max abs error 0)
// ZPD: 3 launches
// RUN: decoda-compile %S/Inputs/qlinear_acc.mlir --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
// RUN: %PYTHON %S/Inputs/qlinear_data.py acc %t/a-in.npz %t/a-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --inputs %t/a-in.npz --expect %t/a-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=ACC
// ACC: launch acc_kernel: grid [2, 2, 1] block [256, 1, 1] shared 40960 bytes; bar 32, cp 96, ldmatrix 192, mma 512
// ACC: out0: ok (17680 elements, max abs error 0)
// ACC: 1 launches
// RUN: decoda-compile %S/Inputs/qlinear_epilogue.mlir --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t/b.ptx --dump-ir-after-each=%t/b
// RUN: %PYTHON %S/Inputs/qlinear_data.py epilogue %t/b-in.npz %t/b-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b %t/b.ptx --inputs %t/b-in.npz --expect %t/b-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=EPI
// EPI: launch epilogue_kernel: grid [1, 1, 1] block [256, 1, 1] shared 24576 bytes; bar 6, cp 12, ldmatrix 18, mma 48
// EPI: out0: ok (2736 elements, max abs error 0)
// EPI: 1 launches
// RUN: decoda-compile %S/Inputs/qlinear_bf16.mlir --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t/d.ptx --dump-ir-after-each=%t/d
// RUN: %PYTHON %S/Inputs/qlinear_data.py bf16 %t/d-in.npz %t/d-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --inputs %t/d-in.npz --expect %t/d-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=BF16
// BF16: launch bf16_kernel: grid [1, 1, 1] block [256, 1, 1] shared 40960 bytes; bar 8, cp 24, ldmatrix 48, mma 128
// BF16: out0: ok (1280 elements, max abs error 0)
// BF16: 1 launches
// RUN: decoda-compile %S/Inputs/qlinear_requant.mlir --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t/e.ptx --dump-ir-after-each=%t/e
// RUN: %PYTHON %S/Inputs/qlinear_data.py requant %t/e-in.npz %t/e-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/e %t/e.ptx --inputs %t/e-in.npz --expect %t/e-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=REQ
// REQ: launch requant_kernel: grid [1, 1, 1] block [256, 1, 1] shared 40960 bytes; bar 4, cp 12, ldmatrix 24, mma 64
// REQ: out0: ok (2112 elements, max abs error 0)
// REQ: 1 launches
// RUN: %PYTHON %S/Inputs/qlinear_data.py block-mlir %t/block.mlir
// RUN: decoda-compile %t/block.mlir --quantize=int8 --no-smooth --quant-attention=false --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t/c.ptx --dump-ir-after-each=%t/c
// RUN: %PYTHON %S/Inputs/qlinear_data.py block %t/c/*-decoda-quantize-stage.mlir %t/c-in.npz %t/c-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --inputs %t/c-in.npz --expect %t/c-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=BLOCK
// BLOCK: launch proj_kernel_{{[0-9]+}}: grid [1, 1, 1] block [256, 1, 1] shared 40960 bytes; bar 6, cp 18, ldmatrix 36, mma 96
// BLOCK: out0: ok (1512 elements, max abs error 0)
// BLOCK: 5 launches
