// The unmasked tiles of the tensor-core attention kernels (GPUFlashAttention.cpp, tileUnmasked):
// a key tile every row of the block sees whole (causal: its last key at most the block's first
// row's position; window: its first key within the window of the block's last row; all its keys
// below the key count) takes the logits without the per-element mask (one scf.if per tile on a
// block-uniform flag); the diagonal tiles, the ragged last one and everything of a call with an
// additive mask, segment ids or chunks keep the masked path. Numerics on the PTX interpreter
// against reference.py (Inputs/attention_data.py) at the f16 tolerances of
// flash-attention-sim.mlir (atol 5.4e-4, rtol 9.8e-4), on the wgmma kernel with 128-row and
// 64-row blocks and on the mma.sync kernel (--gpu-attention-wgmma=false), for causal GQA over
// 200 keys, a non-causal call of 30 rows over 150 keys with softcap, and a 160-key window over
// 300 (Inputs/attention_wgmma_cases.mlir, wg_interior_*). Broken on purpose (the unmasked
// logits scaled by 1.01): the causal and window cases fail on all three kernels, the
// non-causal one's maximum error rises from 1.2e-4 to 4.4e-4 (so its unmasked path runs too).
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-rows=128 --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
// RUN: decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-rows=64 --emit=ptx -o %t/n.ptx --dump-ir-after-each=%t/n
// RUN: decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-wgmma=false --emit=ptx -o %t/m.ptx --dump-ir-after-each=%t/m
//
// RUN: %PYTHON %S/Inputs/attention_data.py wg_interior_causal_f16 %t/c-in.npz %t/c-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry wg_interior_causal_f16 --inputs %t/c-in.npz --expect %t/c-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=CAUSAL128
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry wg_interior_causal_f16 --inputs %t/c-in.npz --expect %t/c-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=CAUSAL64
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/m %t/m.ptx --entry wg_interior_causal_f16 --inputs %t/c-in.npz --expect %t/c-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=CAUSALMMA
// CAUSAL128: launch wg_interior_causal_f16_kernel{{(_[0-9]+)?}}: grid [4, 1, 1] block [256, 1, 1]{{.*}}wgmma
// CAUSAL128: out0: ok (25600 elements
// CAUSAL64: launch wg_interior_causal_f16_kernel{{(_[0-9]+)?}}: grid [7, 1, 1] block [128, 1, 1]{{.*}}wgmma
// CAUSAL64: out0: ok (25600 elements
// CAUSALMMA: launch wg_interior_causal_f16_kernel{{(_[0-9]+)?}}: grid [7, 1, 1] block [128, 1, 1]{{.*}}mma
// CAUSALMMA: out0: ok (25600 elements
//
// RUN: %PYTHON %S/Inputs/attention_data.py wg_interior_full_f16 %t/f-in.npz %t/f-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry wg_interior_full_f16 --inputs %t/f-in.npz --expect %t/f-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=FULL
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry wg_interior_full_f16 --inputs %t/f-in.npz --expect %t/f-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=FULL
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/m %t/m.ptx --entry wg_interior_full_f16 --inputs %t/f-in.npz --expect %t/f-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=FULL
// FULL: launch wg_interior_full_f16_kernel{{(_[0-9]+)?}}: grid [1, 2, 1]
// FULL: out0: ok (3840 elements
//
// RUN: %PYTHON %S/Inputs/attention_data.py wg_interior_window_f16 %t/w-in.npz %t/w-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry wg_interior_window_f16 --inputs %t/w-in.npz --expect %t/w-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=WIN128
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry wg_interior_window_f16 --inputs %t/w-in.npz --expect %t/w-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=WIN64
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/m %t/m.ptx --entry wg_interior_window_f16 --inputs %t/w-in.npz --expect %t/w-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=WIN64
// WIN128: launch wg_interior_window_f16_kernel{{(_[0-9]+)?}}: grid [5, 1, 1] block [256, 1, 1]
// WIN128: out0: ok (38400 elements
// WIN64: launch wg_interior_window_f16_kernel{{(_[0-9]+)?}}: grid [10, 1, 1] block [128, 1, 1]
// WIN64: out0: ok (38400 elements
