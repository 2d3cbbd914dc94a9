// Numerics of the sm_90a wgmma kernel with TMA loads (the default of decoda-lower-to-cuda for
// gpu-arch=sm_90a; tensorcore-wgmma-tma.mlir has the IR, tensorcore-wgmma-ptx.mlir the PTX)
// on the PTX interpreter (Inputs/ptxsim.py: the tensor maps the host code asks
// decoda_cuda_tensor_map for, TMA boxes with the 128-byte swizzle and zero fill out of bounds,
// mbarrier phases and transaction bytes, wgmma reading 128B-swizzled descriptors, shared races
// including the ordering an mbarrier gives) against NumPy, the cases of tensorcore-wgmma-sim.mlir
// and one deep K. Per block with t k tiles of 64 bf16 / 128 i8 (K rounded up: TMA zero-fills
// past K): 1 + t bar.sync (after the mbarrier init, then one per tile), 2t TMA loads (A's box
// and B's), and 7t + 1 wgmma-family ops (per tile 4 wgmma, fence, commit, wait; the final
// wait) when the two warpgroups run in step (t <= 3: no refill inside the loop; with refills
// thread 0 lags the others by its load and the interpreter runs the warpgroups apart, counting
// each op once per warpgroup); 132128 dynamic bytes.
// RUN: rm -rf %t && mkdir -p %t
// bf16, K = 128 (t = 2), M = 37 and N = 136 ragged: 2 blocks.
// RUN: decoda-compile %S/tensorcore-wgmma-sim.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
// RUN: %PYTHON %S/Inputs/matmul_data.py linear-bf16 %t/a-in.npz %t/a-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --inputs %t/a-in.npz --expect %t/a-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=BF16
// BF16: launch linear_kernel{{(_[0-9]+)?}}: grid [2, 1, 1] block [256, 1, 1] shared 0 + 132128 dynamic bytes; bar 6, cp 8, mbarrier {{[0-9]+}}, wgmma 30
// BF16: out0: ok (5032 elements, max abs error 0)
// BF16: 2 tensor maps (decoda_cuda_tensor_map)
// f16 with two lead dims and a bias, K = 64 (t = 1).
// RUN: decoda-compile %S/Inputs/linear_f16_bias.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/b.ptx --dump-ir-after-each=%t/b
// RUN: %PYTHON %S/Inputs/matmul_data.py linear-f16-bias %t/b-in.npz %t/b-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b %t/b.ptx --inputs %t/b-in.npz --expect %t/b-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=F16
// F16: launch linear_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [256, 1, 1] shared 0 + 132128 dynamic bytes; bar 2, cp 2, mbarrier {{[0-9]+}}, wgmma 8
// F16: out0: ok (2736 elements
// Accumulation onto an input f32 C over two row blocks, K = 96: t = 2, the second tile half
// past K (zero-filled).
// RUN: decoda-compile %S/Inputs/accumulate_bf16.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/c.ptx --dump-ir-after-each=%t/c
// RUN: %PYTHON %S/Inputs/matmul_data.py accumulate-bf16 %t/c-in.npz %t/c-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --inputs %t/c-in.npz --expect %t/c-out.npz --rtol 1e-6 --atol 1e-6 | FileCheck %s --check-prefix=ACC
// ACC: launch acc_kernel{{(_[0-9]+)?}}: grid [1, 2, 1] block [256, 1, 1] shared 0 + 132128 dynamic bytes; bar 6, cp 8, mbarrier {{[0-9]+}}, wgmma 30
// ACC: out0: ok (5200 elements
// f16, K = 224 (t = 4: one refill; the last tile half past K), M = 2 * 45, N = 200 ragged.
// RUN: decoda-compile %S/Inputs/linear_f16_long.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/d.ptx --dump-ir-after-each=%t/d
// RUN: %PYTHON %S/Inputs/matmul_data.py linear-f16-long %t/d-in.npz %t/d-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --inputs %t/d-in.npz --expect %t/d-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=LONG
// LONG: launch linear_kernel{{(_[0-9]+)?}}: grid [2, 1, 1] block [256, 1, 1] shared 0 + 132128 dynamic bytes; bar 10, cp 16, mbarrier {{[0-9]+}}, wgmma {{[0-9]+}}
// LONG: out0: ok (18000 elements
// bf16, K = 648: t = 11 through the 4 stages (every stage refilled twice, the last tile 8
// wide), M = 150, N = 264 ragged: 6 blocks.
// RUN: decoda-compile %S/Inputs/linear_bf16_deep.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/e.ptx --dump-ir-after-each=%t/e
// RUN: %PYTHON %S/Inputs/matmul_data.py linear-bf16-deep %t/e-in.npz %t/e-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/e %t/e.ptx --inputs %t/e-in.npz --expect %t/e-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=DEEP
// DEEP: launch linear_kernel{{(_[0-9]+)?}}: grid [3, 2, 1] block [256, 1, 1] shared 0 + 132128 dynamic bytes; bar 72, cp 132,
// DEEP: out0: ok (39600 elements
// --gpu-matmul-tile-n=256: two column blocks of 256 (the second 8 wide), each m64n256k16.
// RUN: decoda-compile %S/Inputs/linear_bf16_deep.mlir --target=cuda --gpu-arch=sm_90a --gpu-matmul-tile-n=256 --emit=ptx -o %t/n.ptx --dump-ir-after-each=%t/n
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --inputs %t/e-in.npz --expect %t/e-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=N256
// N256: launch linear_kernel{{(_[0-9]+)?}}: grid [2, 2, 1] block [256, 1, 1] shared 0 + 197664 dynamic bytes
// N256: out0: ok (39600 elements
// The flag: 128 or 256, and only for the TMA wgmma kernel; the pipeline option likewise.
// RUN: not decoda-compile %S/Inputs/linear_bf16_deep.mlir --target=cuda --gpu-arch=sm_90a --gpu-matmul-tile-n=192 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=N192
// N192: error: --gpu-matmul-tile-n=192: expected 128 or 256
// RUN: not decoda-compile %S/Inputs/linear_bf16_deep.mlir --target=cuda --gpu-arch=sm_90a --gpu-tma=false --gpu-matmul-tile-n=256 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=NTMA
// RUN: not decoda-compile %S/Inputs/linear_bf16_deep.mlir --target=cuda --gpu-arch=sm_80 --gpu-matmul-tile-n=256 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=NTMA
// NTMA: error: --gpu-matmul-tile-n needs --target=cuda --gpu-arch=sm_90a and --gpu-tma (the TMA wgmma projection kernel)
// RUN: not decoda-opt %S/Inputs/linear_bf16_deep.mlir --decoda-lower-to-cuda="gpu-matmul-tile-n=64" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPT
// NOPT: error: decoda-lower-to-cuda: gpu-matmul-tile-n=64: expected 128 or 256, and 256 needs gpu-arch=sm_90a with gpu-tma
// INT8 exactly: the unit-scale i32 result (K = 256 i8: t = 2), M = 130, N = 136 ragged (4
// blocks); a bf16 output with scales and bias; a requantised i8 output (K = 128: t = 1).
// RUN: decoda-compile %S/Inputs/qlinear_acc.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/q.ptx --dump-ir-after-each=%t/q
// RUN: %PYTHON %S/Inputs/qlinear_data.py acc %t/q-in.npz %t/q-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QACC
// QACC: launch acc_kernel{{(_[0-9]+)?}}: grid [2, 2, 1] block [256, 1, 1] shared 0 + 132128 dynamic bytes; bar 12, cp 16, mbarrier {{[0-9]+}}, wgmma 60
// QACC: out0: ok (17680 elements, max abs error 0)
// RUN: decoda-compile %S/Inputs/qlinear_bf16.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/r.ptx --dump-ir-after-each=%t/r
// RUN: %PYTHON %S/Inputs/qlinear_data.py bf16 %t/r-in.npz %t/r-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --inputs %t/r-in.npz --expect %t/r-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QBF16
// QBF16: out0: ok (1280 elements, max abs error 0)
// RUN: decoda-compile %S/Inputs/qlinear_requant.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/s.ptx --dump-ir-after-each=%t/s
// RUN: %PYTHON %S/Inputs/qlinear_data.py requant %t/s-in.npz %t/s-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --inputs %t/s-in.npz --expect %t/s-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QREQ
// QREQ: launch requant_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [256, 1, 1] shared 0 + 132128 dynamic bytes; bar 2, cp 2, mbarrier {{[0-9]+}}, wgmma 8
// QREQ: out0: ok (2112 elements, max abs error 0)
//
// Warp-specialised (--gpu-warp-specialize): 384 threads (the producer warpgroup and two MMA
// warpgroups), 32 more bytes (the empty mbarriers), one bar.sync per block (after the init):
// the stages are handed over through mbarriers only; one shfl.sync per block (the warpgroup
// index broadcast that makes the role branch warp-uniform for ptxas). The same counts of loads
// and wgmma-family ops (the MMA warpgroups run in step).
// RUN: decoda-compile %S/Inputs/linear_bf16_deep.mlir --target=cuda --gpu-arch=sm_90a --gpu-warp-specialize --emit=ptx -o %t/we.ptx --dump-ir-after-each=%t/we
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/we %t/we.ptx --inputs %t/e-in.npz --expect %t/e-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=WDEEP
// WDEEP: launch linear_kernel{{(_[0-9]+)?}}: grid [3, 2, 1] block [384, 1, 1] shared 0 + 132160 dynamic bytes; bar 6, cp 132, mbarrier {{[0-9]+}}, shfl 6, wgmma 468
// WDEEP: out0: ok (39600 elements
// RUN: decoda-compile %S/Inputs/accumulate_bf16.mlir --target=cuda --gpu-arch=sm_90a --gpu-warp-specialize --emit=ptx -o %t/wc.ptx --dump-ir-after-each=%t/wc
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/wc %t/wc.ptx --inputs %t/c-in.npz --expect %t/c-out.npz --rtol 1e-6 --atol 1e-6 | FileCheck %s --check-prefix=WACC
// WACC: block [384, 1, 1] shared 0 + 132160 dynamic bytes; bar 2, cp 8, mbarrier {{[0-9]+}}, shfl 2, wgmma 30
// WACC: out0: ok (5200 elements
// RUN: decoda-compile %S/Inputs/qlinear_acc.mlir --target=cuda --gpu-arch=sm_90a --gpu-warp-specialize --emit=ptx -o %t/wq.ptx --dump-ir-after-each=%t/wq
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/wq %t/wq.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=WQACC
// WQACC: block [384, 1, 1] shared 0 + 132160 dynamic bytes; bar 4, cp 16, mbarrier {{[0-9]+}}, shfl 4, wgmma 60
// WQACC: out0: ok (17680 elements, max abs error 0)
//
// Broken kernels the interpreter must reject. The default kernel: the k loop's bar.sync
// removed (thread 0 then refills a stage the other warpgroup's wgmma may still read); the
// consumers' try_wait removed (the wgmma reads a stage before its TMA landed); the tensor map's
// box taken as 64 rows instead of 128 (a short expect_tx: the phase never completes).
// RUN: awk '/bar.sync/ && prev ~ /wgmma.wait_group.sync.aligned[ \t]+1;/ {prev = $0; next} {prev = $0; print}' %t/e.ptx > %t/e-nobar.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/e %t/e-nobar.ptx --inputs %t/e-in.npz --expect %t/e-out.npz 2>&1 | FileCheck %s --check-prefix=NOBAR
// NOBAR: shared race: thread 0 writes bytes at {{[0-9]+}} read by another thread since the last barrier
// RUN: awk 'BEGIN{n=0} /mbarrier.try_wait.parity/{n++; if(n==1) sub(/mbarrier.try_wait.parity.shared.b64 P1, \[[^]]*\], [^,]*, [^;]*;/, "setp.eq.s32 P1, 1, 1;")} {print}' %t/e.ptx > %t/e-nowait.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/e %t/e-nowait.ptx --inputs %t/e-in.npz --expect %t/e-out.npz 2>&1 | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: read before the mbarrier phase that completes its TMA copy was waited for
// The warp-specialised kernel: the producer's wait for an empty stage removed (it refills a
// stage the MMA warpgroups read, with nothing ordering the two: a race); the MMA warps'
// release removed (the producer waits for ever: a deadlock).
// RUN: awk 'BEGIN{n=0} /mbarrier.try_wait.parity/{n++; if(n==3) sub(/mbarrier.try_wait.parity.shared.b64 P1, \[[^]]*\], [^,]*, [^;]*;/, "setp.eq.s32 P1, 1, 1;")} {print}' %t/we.ptx > %t/we-nowait.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/we %t/we-nowait.ptx --inputs %t/e-in.npz --expect %t/e-out.npz 2>&1 | FileCheck %s --check-prefix=WNOWAIT
// WNOWAIT: shared race: thread 0 writes bytes at {{[0-9]+}} read by another thread since the last barrier
// RUN: sed 's/^\tmbarrier.arrive.shared.b64 \t\(%rd[0-9]*\), \[%rd[0-9]*\];/\tmov.b64 \1, 0;/' %t/we.ptx > %t/we-norelease.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/we %t/we-norelease.ptx --inputs %t/e-in.npz --expect %t/e-out.npz 2>&1 | FileCheck %s --check-prefix=WNOREL
// WNOREL: deadlock: every live thread waits on an mbarrier (thread 0 on the mbarrier at shared offset {{[0-9]+}} for the phase of parity 0; its phase 0 has 8 arrivals
