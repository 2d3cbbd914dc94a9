// The PTX interpreter that checks the tensor-core kernels (tensorcore-sim.mlir) catches the
// mistakes it is there for: each RUN line breaks the kernel's PTX in one way and expects the
// interpreter to report it -- a missing bar.sync before a stage is refilled (a write-after-read
// race), cp.async data read before its group is waited for, a wrong ldmatrix row offset, a
// transposed B fragment, the f16 instead of the bf16 mma. The INT8 kernel (mma.sync m16n8k32
// .s8, Inputs/qlinear_epilogue.mlir, exact when unbroken): A's registers 1 and 2 swapped (rows
// g + 8 and k + 16 confused: a wrong fragment layout), B's two registers swapped, A read as
// u8 instead of s8.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda --emit=ptx -o %t/k.ptx --dump-ir-after-each=%t/d
// RUN: %PYTHON %S/Inputs/matmul_data.py linear-bf16 %t/in.npz %t/out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/k.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=GOOD
// GOOD: out0: ok
// RUN: awk 'BEGIN{n=0} /bar.sync/{n++; if(n==2) next} {print}' %t/k.ptx > %t/nobar.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/nobar.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=NOBAR
// NOBAR: shared race: thread {{[0-9]+}} writes bytes at {{[0-9]+}} read by another thread since the last barrier
// RUN: sed 's/cp.async.wait_group \t1/cp.async.wait_group \t2/' %t/k.ptx > %t/wait.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/wait.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=WAIT
// WAIT: shared race: thread {{[0-9]+}} reads bytes at {{[0-9]+}} that thread {{[0-9]+}} wrote (or is copying into) since the last barrier
// RUN: sed -E '0,/(ldmatrix.sync.aligned.m8n8.x4.shared.b16 [^]]*)\+1280\]/s//\1+1296]/' %t/k.ptx > %t/offset.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/offset.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: awk 'BEGIN{n=0} /ldmatrix.sync.aligned.m8n8.x4/{n++; if(n==5) sub(/x4/,"x4.trans")} {print}' %t/k.ptx > %t/trans.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/trans.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: sed '0,/f32.bf16.bf16.f32/s//f32.f16.f16.f32/' %t/k.ptx > %t/f16.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/f16.ptx --inputs %t/in.npz --expect %t/out.npz 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: out0: MISMATCH at
// RUN: decoda-compile %S/Inputs/qlinear_epilogue.mlir --target=cuda --emit=ptx -o %t/q.ptx --dump-ir-after-each=%t/q
// RUN: %PYTHON %S/Inputs/qlinear_data.py epilogue %t/q-in.npz %t/q-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=GOOD
// RUN: awk 'BEGIN{n=0; l=0} /mma.sync.aligned.m16n8k32/{n++; if(n==1) l=NR+2} NR==l{match($0, /\{[^}]*\}/); split(substr($0, RSTART+1, RLENGTH-2), r, ", "); $0="\t\t{" r[1] ", " r[3] ", " r[2] ", " r[4] "},"} {print}' %t/q.ptx > %t/qa.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/q %t/qa.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: awk 'BEGIN{n=0; l=0} /mma.sync.aligned.m16n8k32/{n++; if(n==1) l=NR+3} NR==l{match($0, /\{[^}]*\}/); split(substr($0, RSTART+1, RLENGTH-2), r, ", "); $0="\t\t{" r[2] ", " r[1] "},"} {print}' %t/q.ptx > %t/qb.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/q %t/qb.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: sed '0,/row.col.s32.s8.s8.s32/s//row.col.s32.u8.s8.s32/' %t/q.ptx > %t/qu.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/q %t/qu.ptx --inputs %t/q-in.npz --expect %t/q-out.npz --rtol 0 --atol 0 2>&1 | FileCheck %s --check-prefix=WRONG
// The tensor-core flash-attention kernel (Inputs/attention_cases.mlir, tc_gqa_bf16: bf16 causal
// GQA, D = 64, T = 70, within the tolerance derived in flash-attention-sim.mlir when unbroken;
// its dynamic T also compiles flash decoding's SIMT kernels, which have no ldmatrix and lose
// their second barrier too, unused at T = 70): the
// first V fragment loaded without .trans (V[key][dv] read as if it were [dv][key]) is caught
// as a mismatch, and without the barrier between Q's ldmatrix and the first K/V tile's copy
// (the copy reuses the K stage Q came through) as a shared-memory race.
// RUN: decoda-compile %S/Inputs/attention_cases.mlir --target=cuda --emit=ptx -o %t/fa.ptx --dump-ir-after-each=%t/fa
// RUN: %PYTHON %S/Inputs/attention_data.py tc_gqa_bf16 %t/fa-in.npz %t/fa-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/fa %t/fa.ptx --entry tc_gqa_bf16 --inputs %t/fa-in.npz --expect %t/fa-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=GOOD
// RUN: awk '/gpu.binary @/{on=0; done=0} /gpu.binary @tc_gqa_bf16_kernel/{on=1} on && /ldmatrix.sync.aligned.m8n8.x4.trans/ && !done {sub(/x4.trans/, "x4"); done=1} {print}' %t/fa.ptx > %t/fa-notrans.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/fa %t/fa-notrans.ptx --entry tc_gqa_bf16 --inputs %t/fa-in.npz --expect %t/fa-out.npz --rtol 7.9e-3 --atol 4.3e-3 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: awk '/gpu.binary @/{on=0; n=0} /gpu.binary @tc_gqa_bf16_kernel/{on=1} on && /bar.sync/ {n++; if (n == 2) next} {print}' %t/fa.ptx > %t/fa-nobar.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/fa %t/fa-nobar.ptx --entry tc_gqa_bf16 --inputs %t/fa-in.npz --expect %t/fa-out.npz --rtol 7.9e-3 --atol 4.3e-3 2>&1 | FileCheck %s --check-prefix=NOBAR
func.func @linear(%x: tensor<1x?x128xbf16>, %w: tensor<136x128xbf16>) -> tensor<1x?x136xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x128xbf16>, tensor<136x128xbf16>
  return %y : tensor<1x?x136xbf16>
}
