// Numerics of the sm_90a wgmma kernel with cp.async loads (decoda-gpu-tensorcore-matmul with
// wgmma, as decoda-lower-to-cuda sets it for gpu-arch=sm_90a with --gpu-tma=false; the TMA
// kernel, the default, runs the same cases in tma-sim.mlir) without a GPU: the PTX runs on the PTX
// interpreter (Inputs/ptxsim.py: wgmma.mma_async with shared-memory descriptors decoded and read
// as the PTX ISA's no-swizzle K-major layout, the D fragment of m64nNk16, results only at
// the wgmma.wait_group that covers their group, accumulators not touched before it, a wgmma.fence
// before each batch, fence.proxy.async between the cp.async writes and the wgmma reads, shared
// bytes under an in-flight wgmma left alone; cp.async landing at its wait_group, shared races
// between barriers) with the host on Inputs/gpusim_run.py, against NumPy (Inputs/matmul_data.py).
// Cases: bf16 with M = 37 and N = 136 ragged over the 128 x 128 tile, 4 k tiles through the
// 3-stage ring (exact after the bf16 rounding); f16 with two lead dims and a bias (2 k tiles);
// accumulation onto an input f32 C over two row blocks, M = 130, N = 40, 3 k tiles (1e-6);
// f16 with two lead dims, M = 90, N = 200 ragged and 7 k tiles (within one f16 ulp: the f32
// accumulation order differs from NumPy's float64 sum, which can move a rounding).
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a --gpu-tma=false --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
// RUN: %PYTHON %S/Inputs/matmul_data.py linear-bf16 %t/a-in.npz %t/a-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --inputs %t/a-in.npz --expect %t/a-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=BF16
// 2 blocks x 4 k tiles x (fence, 2 mma_async, commit, wait) + the final wait: 42 steps of wgmma.
// BF16: launch linear_kernel{{(_[0-9]+)?}}: grid [2, 1, 1] block [256, 1, 1] shared 49152 bytes; bar 8, cp 50, wgmma 42
// BF16: out0: ok (5032 elements, max abs error 0)
// RUN: decoda-compile %S/Inputs/linear_f16_bias.mlir --target=cuda --gpu-arch=sm_90a --gpu-tma=false --emit=ptx -o %t/b.ptx --dump-ir-after-each=%t/b
// RUN: %PYTHON %S/Inputs/matmul_data.py linear-f16-bias %t/b-in.npz %t/b-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b %t/b.ptx --inputs %t/b-in.npz --expect %t/b-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=F16
// F16: launch linear_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [256, 1, 1] shared 49152 bytes; {{.*}} wgmma 11
// F16: out0: ok (2736 elements
// RUN: decoda-compile %S/Inputs/accumulate_bf16.mlir --target=cuda --gpu-arch=sm_90a --gpu-tma=false --emit=ptx -o %t/c.ptx --dump-ir-after-each=%t/c
// RUN: %PYTHON %S/Inputs/matmul_data.py accumulate-bf16 %t/c-in.npz %t/c-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --inputs %t/c-in.npz --expect %t/c-out.npz --rtol 1e-6 --atol 1e-6 | FileCheck %s --check-prefix=ACC
// ACC: launch acc_kernel{{(_[0-9]+)?}}: grid [1, 2, 1] block [256, 1, 1] shared 49152 bytes; {{.*}} wgmma 32
// ACC: out0: ok (5200 elements
// RUN: decoda-compile %S/Inputs/linear_f16_long.mlir --target=cuda --gpu-arch=sm_90a --gpu-tma=false --emit=ptx -o %t/d.ptx --dump-ir-after-each=%t/d
// RUN: %PYTHON %S/Inputs/matmul_data.py linear-f16-long %t/d-in.npz %t/d-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --inputs %t/d-in.npz --expect %t/d-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=LONG
// LONG: launch linear_kernel{{(_[0-9]+)?}}: grid [2, 1, 1] block [256, 1, 1] shared 49152 bytes; bar 14, cp 86, wgmma 72
// LONG: out0: ok (18000 elements
// INT8 (decoda.qlinear; Inputs/qlinear_data.py, exact: --rtol 0 --atol 0) on wgmma m64n128k32
// .s32.s8.s8 with the dequantising epilogue in the stores (one launch each): unit scales so the
// output is the i32 accumulator, M = 130 and N = 136 ragged over 2 x 2 blocks, 4 k tiles of 64,
// extreme rows (-128 against -128 / +127: wrapping i32 sums); bf16 output with per-channel
// scales and a bias (K = 256); requantised i8 output, M = 33, K = 128, some outputs clamped.
// RUN: decoda-compile %S/Inputs/qlinear_acc.mlir --target=cuda --gpu-arch=sm_90a --gpu-tma=false --emit=ptx -o %t/q.ptx --dump-ir-after-each=%t/q
// RUN: %PYTHON %S/Inputs/qlinear_data.py acc %t/q-in.npz %t/q-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QACC
// QACC: launch acc_kernel{{(_[0-9]+)?}}: grid [2, 2, 1] block [256, 1, 1] shared 49152 bytes; bar 16, cp 100, wgmma 84
// QACC: out0: ok (17680 elements, max abs error 0)
// QACC: 1 launches
// RUN: decoda-compile %S/Inputs/qlinear_bf16.mlir --target=cuda --gpu-arch=sm_90a --gpu-tma=false --emit=ptx -o %t/r.ptx --dump-ir-after-each=%t/r
// RUN: %PYTHON %S/Inputs/qlinear_data.py bf16 %t/r-in.npz %t/r-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --inputs %t/r-in.npz --expect %t/r-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QBF16
// QBF16: launch bf16_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [256, 1, 1] shared 49152 bytes; bar 4, cp 25, wgmma 21
// QBF16: out0: ok (1280 elements, max abs error 0)
// RUN: decoda-compile %S/Inputs/qlinear_requant.mlir --target=cuda --gpu-arch=sm_90a --gpu-tma=false --emit=ptx -o %t/s.ptx --dump-ir-after-each=%t/s
// RUN: %PYTHON %S/Inputs/qlinear_data.py requant %t/s-in.npz %t/s-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --inputs %t/s-in.npz --expect %t/s-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QREQ
// QREQ: launch requant_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [256, 1, 1] shared 49152 bytes; bar 2, cp 13, wgmma 11
// QREQ: out0: ok (2112 elements, max abs error 0)
// The s8 operands read as u8 (a wrong type) are caught:
// RUN: sed '0,/m64n128k32.s32.s8.s8/s//m64n128k32.s32.u8.s8/' %t/q.ptx > %t/q-u8.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q-u8.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QWRONG
// QWRONG: out0: MISMATCH at
func.func @linear(%x: tensor<1x?x128xbf16>, %w: tensor<136x128xbf16>) -> tensor<1x?x136xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x128xbf16>, tensor<136x128xbf16>
  return %y : tensor<1x?x136xbf16>
}
