// Numerics of the flash-attention kernel (decoda-gpu-flash-attention) on the PTX interpreter
// against reference.py's materialised softmax (Inputs/attention_data.py), one launch per call
// (two when the rows of a K/V head fit one block, as in cached_bf16: flash decoding's split
// kernel and combine, flash-decoding-sim.mlir):
// causal GQA with ragged key tiles and rows; bf16 MQA with a sliding window, batch 2 and a
// partly used value column; f16 with Tq < Tk, chunks, softcap, sinks and Dv != D; an additive
// mask with segment ids; bf16 cached attention at offset 29 (with the updated caches); head
// dim 128 (41 KiB of shared tiles). The interpreter's race check catches a missing barrier
// before the key tile is overwritten.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/attention_cases.mlir --target=cuda --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
// RUN: %PYTHON %S/Inputs/attention_data.py gqa_causal %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry gqa_causal --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=GQA
// GQA: launch gqa_causal_kernel{{(_[0-9]+)?}}: grid [6, 2, 1] block [128, 1, 1] shared 10368 bytes; bar 32, shfl 2608
// GQA: out0: ok (5760 elements
// GQA: 1 launches
// RUN: %PYTHON %S/Inputs/attention_data.py mqa_window_bf16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry mqa_window_bf16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=MQA
// MQA: launch mqa_window_bf16_kernel{{(_[0-9]+)?}}: grid [7, 1, 2] block [128, 1, 1]
// MQA: out0: ok (8880 elements
// RUN: %PYTHON %S/Inputs/attention_data.py chunk_sinks_f16 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry chunk_sinks_f16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=CHUNK
// CHUNK: out0: ok (160 elements
// RUN: %PYTHON %S/Inputs/attention_data.py mask_segments %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry mask_segments --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=MASK
// MASK: out0: ok (640 elements
// RUN: %PYTHON %S/Inputs/attention_data.py cached_bf16 %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry cached_bf16 --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=CACHED
// CACHED: out0: ok (384 elements
// CACHED: out1: ok (4096 elements
// CACHED: out2: ok (4096 elements
// RUN: %PYTHON %S/Inputs/attention_data.py d128_bf16 %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry d128_bf16 --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=D128
// D128: shared 41088 bytes
// D128: out0: ok (4608 elements
// The first barrier of every gqa_causal kernel module removed (the one-pass kernel runs at T = 45):
// RUN: awk '/gpu.binary @/{on=0; done=0} /gpu.binary @gqa_causal_kernel/{on=1} on && /bar.sync/ && !done {done=1; next} {print}' %t/a.ptx > %t/nobar.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/a %t/nobar.ptx --entry gqa_causal --inputs %t/1-in.npz --expect %t/1-out.npz 2>&1 | FileCheck %s --check-prefix=NOBAR
// NOBAR: shared race
