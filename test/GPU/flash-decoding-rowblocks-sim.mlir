// Numerics of the SIMT split form over several 16-row blocks (decoda-gpu-flash-attention: calls
// no tensor-core kernel takes, up to 128 rows per (batch, K/V head), split when the run-time
// split count, aiming at 528 blocks over all row blocks, is above 1) on the PTX interpreter
// against reference.py (Inputs/attention_data.py, Inputs/attention_rowblocks_cases.mlir), every
// block's shared memory starting as NaN bytes (--shared-fill 0xff). Cases: f32 speculative
// decoding (5 causal draft tokens of 8 heads over 2: 20 rows a K/V head, 2 row blocks) over 300
// keys (5 splits: grid 5 x 2 row blocks) and over 40 (one split: the one-pass kernel instead),
// and absorbed MLA with 40 heads (bf16, D = 576, Dv = 512: 3 row blocks, the last with 8 rows)
// at batch 2 over 130 keys (3 splits). Tolerances: f32 1e-5; bf16 rtol 7.9e-3 (both outputs
// rounded once to bf16), atol 1e-3.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/attention_rowblocks_cases.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
//
// RUN: %PYTHON %S/Inputs/attention_data.py rb_spec_f32 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry rb_spec_f32 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 1e-5 --atol 1e-5 --shared-fill 0xff | FileCheck %s --check-prefix=SPEC
// SPEC: launch rb_spec_f32_kernel{{(_[0-9]+)?}}: grid [10, 2, 1] block [128, 1, 1] shared 20736 bytes
// SPEC: launch rb_spec_f32_kernel{{(_[0-9]+)?}}: grid [10, 2, 1] block [128, 1, 1] shared 0 bytes
// SPEC: out0: ok (2560 elements
// SPEC: 2 launches
//
// RUN: %PYTHON %S/Inputs/attention_data.py rb_spec_short_f32 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry rb_spec_f32 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-5 --atol 1e-5 --shared-fill 0xff | FileCheck %s --check-prefix=SHORT
// SHORT: launch rb_spec_f32_kernel{{(_[0-9]+)?}}: grid [2, 2, 1] block [128, 1, 1] shared 20736 bytes
// SHORT: out0: ok (2560 elements
// SHORT: 1 launches
//
// RUN: %PYTHON %S/Inputs/attention_data.py rb_mla40_bf16 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry rb_mla40_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 1e-3 --shared-fill 0xff | FileCheck %s --check-prefix=MLA
// MLA: launch rb_mla40_bf16_kernel{{(_[0-9]+)?}}: grid [9, 1, 2] block [128, 1, 1] shared 0 + 176384 dynamic bytes
// MLA: launch rb_mla40_bf16_kernel{{(_[0-9]+)?}}: grid [160, 1, 2] block [128, 1, 1] shared 0 bytes
// MLA: out0: ok (40960 elements
// MLA: 2 launches
//
// A mutation: the short cache's reference against the long cache's inputs must not match.
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry rb_spec_f32 --inputs %t/1-in.npz --expect %t/2-out.npz --rtol 1e-5 --atol 1e-5 2>&1 | FileCheck %s --check-prefix=MUT
// MUT: out0
//
// ptxas (sm_90a): the kernels with dynamic tiles here and those of DeepSeek-V3's shape
// (bench/gpu/mla128_absorbed_decode.mlir: 128 heads, the split form over 8 row blocks and the
// one-pass kernel) neither spill nor use a stack frame.
// RUN: decoda-compile %decoda_src/bench/gpu/mla128_absorbed_decode.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/v3.ptx
// RUN: %PYTHON -c "import re; [open('%t/k-' + n + '.ptx', 'w').write(b) for f in ('a', 'v3') for t in [open('%t/' + f + '.ptx').read()] for p in [re.split(r'(?m)^// gpu.binary @(\S+)\n', t)] for n, b in zip(p[1::2], p[2::2]) if '__dynamic_shmem__' in b]; print('dynamic', len([1 for f in ('a', 'v3') for b in re.split(r'(?m)^// gpu.binary @\S+\n', open('%t/' + f + '.ptx').read()) if '__dynamic_shmem__' in b]))" | FileCheck %s --check-prefix=NDYN
// NDYN: dynamic 4
// RUN: for f in %t/k-*.ptx; do %ptxas -arch=sm_90a -v $f -o %t/k.cubin 2>&1; done | FileCheck %s --check-prefix=PTXAS
// PTXAS-COUNT-4: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
