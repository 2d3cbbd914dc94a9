// Numerics of the SIMT attention kernel with its tiles in dynamic shared memory (over the 48
// KiB of static shared memory; flash-attention-dynamic-shared.mlir) on the PTX interpreter
// against reference.py (Inputs/attention_data.py), sm_90a (227 KiB a block): f32 at Gemma's
// head dim 256 as a prompt (GQA, 3 row blocks) and as a decode step (the SIMT split form over
// 5 splits and the combining kernel), and absorbed MLA (bf16, D = 576, Dv = 512, 16 heads over
// one latent K/V head, V the latent's first 512 columns) as a decode step at batch 2 (split)
// and a three-token chunk (48 rows: the split form over 3 row blocks, 2 splits of the 100
// keys; flash-decoding-rowblocks-sim.mlir). Before, each was the target-neutral
// loop of kernels per key tile. Every block's shared memory starts as 0xff bytes
// (--shared-fill: NaN), so no output depends on a byte no one wrote. Tolerances: f32 1e-5 (the
// order of the sums, ex2.approx); bf16 rtol 7.9e-3 (both outputs rounded once to bf16, the
// kernel's sums in f32 with P unrounded) and atol 1e-3 for values near zero.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/attention_dynamic_shared_cases.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
//
// RUN: %PYTHON %S/Inputs/attention_data.py dyn_d256_gqa_f32 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry dyn_d256_gqa_f32 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 1e-5 --atol 1e-5 --shared-fill 0xff | FileCheck %s --check-prefix=GQA
// GQA: launch dyn_d256_gqa_f32_kernel{{(_[0-9]+)?}}: grid [3, 2, 1] block [128, 1, 1] shared 0 + 82176 dynamic bytes
// GQA: out0: ok (20480 elements
// GQA: 1 launches
//
// RUN: %PYTHON %S/Inputs/attention_data.py dyn_d256_decode_f32 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry dyn_d256_decode_f32 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-5 --atol 1e-5 --shared-fill 0xff | FileCheck %s --check-prefix=DEC
// DEC: launch dyn_d256_decode_f32_kernel{{(_[0-9]+)?}}: grid [5, 2, 1] block [128, 1, 1] shared 0 + 82176 dynamic bytes
// DEC: launch dyn_d256_decode_f32_kernel{{(_[0-9]+)?}}: grid [8, 2, 1] block [128, 1, 1] shared 0 bytes
// DEC: out0: ok (2048 elements
// DEC: 2 launches
//
// RUN: %PYTHON %S/Inputs/attention_data.py dyn_mla_decode_bf16 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry dyn_mla_absorbed_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 1e-3 --shared-fill 0xff | FileCheck %s --check-prefix=MLA
// MLA: launch dyn_mla_absorbed_bf16_kernel{{(_[0-9]+)?}}: grid [4, 1, 2] block [128, 1, 1] shared 0 + 176384 dynamic bytes
// MLA: launch dyn_mla_absorbed_bf16_kernel{{(_[0-9]+)?}}: grid [64, 1, 2] block [128, 1, 1] shared 0 bytes
// MLA: out0: ok (16384 elements
// MLA: 2 launches
//
// RUN: %PYTHON %S/Inputs/attention_data.py dyn_mla_chunk_bf16 %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry dyn_mla_absorbed_bf16 --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 7.9e-3 --atol 1e-3 --shared-fill 0xff | FileCheck %s --check-prefix=CHUNK
// CHUNK: launch dyn_mla_absorbed_bf16_kernel{{(_[0-9]+)?}}: grid [6, 1, 1] block [128, 1, 1] shared 0 + 176384 dynamic bytes
// CHUNK: launch dyn_mla_absorbed_bf16_kernel{{(_[0-9]+)?}}: grid [192, 1, 1] block [128, 1, 1] shared 0 bytes
// CHUNK: out0: ok (24576 elements
// CHUNK: 2 launches
//
// A mutation: the reference of another input set must not match (the comparison can fail).
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry dyn_mla_absorbed_bf16 --inputs %t/4-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 1e-3 2>&1 | FileCheck %s --check-prefix=MUT
// MUT: out0
//
// ptxas (sm_90a): the kernels with dynamic tiles neither spill nor use a stack frame.
// RUN: %PYTHON -c "import re; t = open('%t/a.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/k-' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2]) if '__dynamic_shmem__' in b]; print('dynamic', sum('__dynamic_shmem__' in b for b in p[2::2]))" | FileCheck %s --check-prefix=NDYN
// NDYN: dynamic 6
// RUN: for f in %t/k-*.ptx; do %ptxas -arch=sm_90a -v $f -o %t/k.cubin 2>&1; done | FileCheck %s --check-prefix=PTXAS
// PTXAS-COUNT-6: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
