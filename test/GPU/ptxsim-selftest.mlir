// The PTX interpreter that checks the tensor-core kernels (tensorcore-sim.mlir, the mma.sync kernel
// of gpu-arch sm_80; tensorcore-wgmma-sim.mlir) catches the
// mistakes it is there for: each RUN line breaks the kernel's PTX in one way and expects the
// interpreter to report it -- a missing bar.sync before a stage is refilled (a write-after-read
// race), cp.async data read before its group is waited for, a wrong ldmatrix row offset, a
// transposed B fragment, the f16 instead of the bf16 mma (in linear_kernel_1, the tile kernel;
// linear_kernel_0 is the dynamic T's GEMV of 2 to 16 rows). The INT8 kernel (mma.sync m16n8k32
// .s8, Inputs/qlinear_epilogue.mlir, exact when unbroken): A's registers 1 and 2 swapped (rows
// g + 8 and k + 16 confused: a wrong fragment layout), B's two registers swapped, A read as
// u8 instead of s8. The sm_90a wgmma kernel with cp.async loads (--gpu-tma=false,
// tensorcore-wgmma-sim.mlir; the TMA kernel: ptxsim-tma-selftest.mlir, tma-sim.mlir): its descriptors' leading
// and stride byte offsets swapped (a wrong core-matrix layout), bf16 operands read as f16, the
// accumulators stored before the final wgmma.wait_group, no fence.proxy.async between the
// cp.async writes and the wgmma reads, no wgmma.fence, and two wgmma groups left in flight
// (wgmma.wait_group 2), so a stage is refilled while a wgmma still reads it.
// The wgmma forms beyond K-major shared operands (A from registers; MN-major, transposed operands
// with no swizzle and 32/64/128-byte swizzle) on hand-written kernels against NumPy, and their
// mistakes -- B's LBO and SBO swapped, imm-trans-b 0 on MN-major data, an A register written
// before the wgmma.wait_group, a transposed s8 operand, a misaligned swizzled atom, a base
// offset -- reported (Inputs/ptxsim_wgmma_check.py).
// The byte permute LLVM emits to pack bytes (prmt.b32, default mode: the INT8 attention's Q
// and P fragments) against values worked out by hand from the PTX ISA, and a wrong expected
// value reported (Inputs/ptxsim_prmt_check.py).
// RUN: %PYTHON %S/Inputs/ptxsim_prmt_check.py | FileCheck %s --check-prefix=PRMT
// PRMT-COUNT-8: : ok 0x
// RUN: not %PYTHON %S/Inputs/ptxsim_prmt_check.py --wrong | FileCheck %s --check-prefix=PRMTBAD
// PRMTBAD: prmt 0x3340: MISMATCH got 0x44445511 want 0x44455511
// Warp collectives are per warp: a shuffle that one warp skips by a warp-uniform branch runs
// in the other (as the attention kernel's warps without rows skip their mma), while a branch
// that splits a warp before it is reported (Inputs/ptxsim_collective_check.py).
// RUN: %PYTHON %S/Inputs/ptxsim_collective_check.py | FileCheck %s --check-prefix=COLL
// COLL: warp 0 skipped, warp 1 shuffled: ok
// vote.sync any / all / uni / ballot per warp, against values worked out by hand.
// COLL-NEXT: vote.sync any/all/uni/ballot per warp: ok
// RUN: not %PYTHON %S/Inputs/ptxsim_collective_check.py --diverge | FileCheck %s --check-prefix=COLLBAD
// COLLBAD: error: shfl.sync.bfly.b32: reached by only some threads of a warp
// Named barriers (bar.sync / bar.arrive id, n) on a hand-written ping-pong of two groups of two
// warps, the protocol of the wgmma attention's --gpu-attention-pingpong: the turns alternate
// strictly (a log written out by hand), and each broken form is reported
// (Inputs/ptxsim_named_barrier_check.py).
// RUN: %PYTHON %S/Inputs/ptxsim_named_barrier_check.py | FileCheck %s --check-prefix=NBAR
// RUN: %PYTHON %S/Inputs/ptxsim_named_barrier_check.py --turns 1 | FileCheck %s --check-prefix=NBAR1
// NBAR: ping-pong of 3 turns: ok (6 turns in strict alternation;
// NBAR1: ping-pong of 1 turns: ok (2 turns in strict alternation;
// RUN: not %PYTHON %S/Inputs/ptxsim_named_barrier_check.py --bug nobar | FileCheck %s --check-prefix=NBARNONE
// NBARNONE: MISMATCH log ['0x100', '0x101', '0x102', '0x0', '0x0', '0x0'] counter 3
// RUN: not %PYTHON %S/Inputs/ptxsim_named_barrier_check.py --bug noinit | FileCheck %s --check-prefix=NBARDEAD
// NBARDEAD: error: bar.sync: deadlock: every live thread waits at a barrier (named barrier 1: 64 of its 128 threads arrived, thread 0 waits there; barrier 2: 64 of 128 arrived)
// RUN: not %PYTHON %S/Inputs/ptxsim_named_barrier_check.py --bug lastarrive | FileCheck %s --check-prefix=NBAREXIT
// NBAREXIT: error: bar.arrive: named barrier 1 left with 64 of its 128 arrivals when the block exited
// RUN: not %PYTHON %S/Inputs/ptxsim_named_barrier_check.py --bug split | FileCheck %s --check-prefix=NBARSPLIT
// NBARSPLIT: error: bar.sync: executed by only some threads of warp 0
// RUN: not %PYTHON %S/Inputs/ptxsim_named_barrier_check.py --bug count | FileCheck %s --check-prefix=NBARCOUNT
// NBARCOUNT: error: bar.sync: thread count 100 of barrier 1 is not a positive multiple of 32
// RUN: not %PYTHON %S/Inputs/ptxsim_named_barrier_check.py --bug mixed | FileCheck %s --check-prefix=NBARMIXED
// NBARMIXED: error: bar.sync: warp 0 expects 128 threads at barrier 1, whose phase the warps before it began expecting 96
// RUN: not %PYTHON %S/Inputs/ptxsim_named_barrier_check.py --bug shared | FileCheck %s --check-prefix=NBARRACE
// NBARRACE: error: ld.shared.u32: shared race: thread 64 reads bytes at 4 that thread 0 wrote
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t/k.ptx --dump-ir-after-each=%t/d
// RUN: %PYTHON %S/Inputs/matmul_data.py linear-bf16 %t/in.npz %t/out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/k.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=GOOD
// GOOD: out0: ok
// RUN: awk 'BEGIN{n=0} /\.entry linear_kernel_1\(/{k=1} k && /bar.sync/{n++; if(n==2) next} {print}' %t/k.ptx > %t/nobar.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/nobar.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=NOBAR
// NOBAR: shared race: thread {{[0-9]+}} writes bytes at {{[0-9]+}} read by another thread since the last barrier
// RUN: sed 's/cp.async.wait_group \t1/cp.async.wait_group \t2/' %t/k.ptx > %t/wait.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/wait.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=WAIT
// WAIT: shared race: thread {{[0-9]+}} reads bytes at {{[0-9]+}} that thread {{[0-9]+}} wrote (or is copying into) since the last barrier
// RUN: sed -E '0,/(ldmatrix.sync.aligned.m8n8.x4.shared.b16 [^]]*)\+1280\]/s//\1+1296]/' %t/k.ptx > %t/offset.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/offset.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: awk 'BEGIN{n=0} /ldmatrix.sync.aligned.m8n8.x4/{n++; if(n==5) sub(/x4/,"x4.trans")} {print}' %t/k.ptx > %t/trans.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/trans.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: awk '/\.entry linear_kernel_1\(/{k=1} k && !d && /f32.bf16.bf16.f32/{sub(/f32.bf16.bf16.f32/, "f32.f16.f16.f32"); d=1} {print}' %t/k.ptx > %t/f16.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/f16.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: out0: MISMATCH at
// RUN: decoda-compile %S/Inputs/qlinear_epilogue.mlir --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t/q.ptx --dump-ir-after-each=%t/q
// RUN: %PYTHON %S/Inputs/qlinear_data.py epilogue %t/q-in.npz %t/q-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=GOOD
// RUN: awk 'BEGIN{n=0; l=0} /mma.sync.aligned.m16n8k32/{n++; if(n==1) l=NR+2} NR==l{match($0, /\{[^}]*\}/); split(substr($0, RSTART+1, RLENGTH-2), r, ", "); $0="\t\t{" r[1] ", " r[3] ", " r[2] ", " r[4] "},"} {print}' %t/q.ptx > %t/qa.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/q %t/qa.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: awk 'BEGIN{n=0; l=0} /mma.sync.aligned.m16n8k32/{n++; if(n==1) l=NR+3} NR==l{match($0, /\{[^}]*\}/); split(substr($0, RSTART+1, RLENGTH-2), r, ", "); $0="\t\t{" r[2] ", " r[1] "},"} {print}' %t/q.ptx > %t/qb.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/q %t/qb.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: sed '0,/row.col.s32.s8.s8.s32/s//row.col.s32.u8.s8.s32/' %t/q.ptx > %t/qu.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/q %t/qu.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a --gpu-tma=false --emit=ptx -o %t/w.ptx --dump-ir-after-each=%t/w
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/w %t/w.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=GOOD
// RUN: grep -c 137439477760 %t/w.ptx | FileCheck %s --check-prefix=DESC
// DESC: 4
// RUN: sed 's/137439477760/34361835520/' %t/w.ptx > %t/w-lbo.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/w %t/w-lbo.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: sed '0,/m64n128k16.f32.bf16.bf16/s//m64n128k16.f32.f16.f16/' %t/w.ptx > %t/w-f16.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/w %t/w-f16.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: grep -v 'wgmma.wait_group.sync.aligned..0;' %t/w.ptx > %t/w-early.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/w %t/w-early.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=EARLY
// The first read of the accumulators is the bf16 rounding of the fused epilogue:
// EARLY: cvt.rn.bf16x2.f32: thread 0 accesses %r{{[0-9]+}}, an accumulator of a wgmma.mma_async not yet waited for (wgmma.wait_group)
// RUN: grep -v 'fence.proxy.async' %t/w.ptx > %t/w-proxy.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/w %t/w-proxy.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=PROXY
// PROXY: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16: reads shared bytes at {{[0-9]+}} written through the generic proxy by thread {{[0-9]+}} without a fence.proxy.async after the write
// RUN: grep -v 'wgmma.fence.sync.aligned' %t/w.ptx > %t/w-fence.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/w %t/w-fence.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=FENCE
// FENCE: no wgmma.fence by warpgroup 0 since its last wgmma.wait_group
// RUN: sed 's/wgmma.wait_group.sync.aligned \t1;/wgmma.wait_group.sync.aligned \t2;/' %t/w.ptx > %t/w-inflight.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/w %t/w-inflight.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=INFLIGHT
// INFLIGHT: wgmma.wait_group.sync.aligned: shared memory read by an in-flight wgmma.mma_async was overwritten (or has a copy pending into it) before the wgmma.wait_group that completes it
// The tensor-core flash-attention kernel (Inputs/attention_cases.mlir, tc_gqa_bf16: bf16 causal
// GQA, D = 64, T = 70, compiled with --gpu-attention-wgmma=false for the mma.sync kernel;
// within the tolerance derived in flash-attention-sim.mlir when unbroken;
// its dynamic T also compiles flash decoding's SIMT kernels, which have no ldmatrix and lose
// their second barrier too, unused at T = 70): the
// first V fragment loaded without .trans (V[key][dv] read as if it were [dv][key]) is caught
// as a mismatch, and without the barrier between Q's ldmatrix and the first K/V tile's copy
// (the copy reuses the K stage Q came through) as a shared-memory race.
// RUN: decoda-compile %S/Inputs/attention_cases.mlir --target=cuda --gpu-attention-wgmma=false --emit=ptx -o %t/fa.ptx --dump-ir-after-each=%t/fa
// RUN: %PYTHON %S/Inputs/attention_data.py tc_gqa_bf16 %t/fa-in.npz %t/fa-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/fa %t/fa.ptx --entry tc_gqa_bf16 --inputs %t/fa-in.npz --expect %t/fa-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=GOOD
// RUN: awk '/gpu.binary @/{on=0; done=0} /gpu.binary @tc_gqa_bf16_kernel/{on=1} on && /ldmatrix.sync.aligned.m8n8.x4.trans/ && !done {sub(/x4.trans/, "x4"); done=1} {print}' %t/fa.ptx > %t/fa-notrans.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/fa %t/fa-notrans.ptx --entry tc_gqa_bf16 --inputs %t/fa-in.npz --expect %t/fa-out.npz --rtol 7.9e-3 --atol 4.3e-3 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: awk '/gpu.binary @/{on=0; n=0} /gpu.binary @tc_gqa_bf16_kernel/{on=1} on && /bar.sync/ {n++; if (n == 2) next} {print}' %t/fa.ptx > %t/fa-nobar.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/fa %t/fa-nobar.ptx --entry tc_gqa_bf16 --inputs %t/fa-in.npz --expect %t/fa-out.npz --rtol 7.9e-3 --atol 4.3e-3 2>&1 | FileCheck %s --check-prefix=NOBAR
// RUN: %PYTHON %S/Inputs/ptxsim_wgmma_check.py | FileCheck %s --check-prefix=WGMMA
// WGMMA-COUNT-8: : ok (64 x
// WGMMA-NEXT: 8 cases run: all as expected
// RUN: not %PYTHON %S/Inputs/ptxsim_wgmma_check.py --bug swap | FileCheck %s --check-prefix=WGSWAP
// WGSWAP: rs-f16-n128 (bug swap): MISMATCH at
// RUN: not %PYTHON %S/Inputs/ptxsim_wgmma_check.py --bug notrans | FileCheck %s --check-prefix=WGNOTRANS
// WGNOTRANS: rs-bf16-n64 (bug notrans): MISMATCH at
// RUN: not %PYTHON %S/Inputs/ptxsim_wgmma_check.py --bug areg | FileCheck %s --check-prefix=WGAREG
// WGAREG: rs-bf16-n64: error: mov.b32: thread 0 writes %r10, an A register of a wgmma.mma_async not yet waited for (wgmma.wait_group)
// RUN: not %PYTHON %S/Inputs/ptxsim_wgmma_check.py --bug s8trans | FileCheck %s --check-prefix=WGS8
// WGS8: s8-trans: error: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8: transposed (MN-major) operands (imm-trans-a 0, imm-trans-b 1) are only for .f16/.bf16
// RUN: not %PYTHON %S/Inputs/ptxsim_wgmma_check.py --bug misaligned | FileCheck %s --check-prefix=WGALIGN
// WGALIGN: rs-bf16-n64: error: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16: 128-byte swizzled MN-major operand at 8320 (LBO 4096, SBO 1024) not in 1024-byte aligned atoms of 8 K-rows x 128 bytes (base offset 0)
// RUN: not %PYTHON %S/Inputs/ptxsim_wgmma_check.py --bug baseoff | FileCheck %s --check-prefix=WGBASE
// WGBASE: rs-bf16-n64: error: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16: matrix base offset 1 not supported by the simulator
func.func @linear(%x: tensor<1x?x128xbf16>, %w: tensor<136x128xbf16>) -> tensor<1x?x136xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x128xbf16>, tensor<136x128xbf16>
  return %y : tensor<1x?x136xbf16>
}
