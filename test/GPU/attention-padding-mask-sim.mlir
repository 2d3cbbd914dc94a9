// Attention with Hugging Face's additive padding mask (the float's lowest value, -3.4e38, on
// padded keys) on the PTX interpreter against reference.py (Inputs/padding_mask_data.py, which
// also checks that its rows seeing only padding are the plain mean of their values, as the f32
// model and ONNX Runtime give). The kernels took e^(x - m) as ex2(x log2 e - m log2 e) with m
// log2 e rounded first: with every logit of a row (or of a decode split) about -3.4e38, m log2 e
// overflowed to infinity and the row became NaN; the next layer's attention then read NaN keys
// at the padded positions and every row of that batch entry was NaN. With a mask the kernels
// take the difference first, 2^((x - m) log2 e), exact for logits that close. Built without
// that (the exponent's old form for every call), every case below fails: all of batch row 1 of
// the prompts and every output of the decode and speculative steps NaN.
// Cases (Inputs/padding_mask_cases.mlir): a prompt of 70 tokens whose batch row 1 is padded by
// 66 (its first queries see only padding; every query's first key tile is all padding) in f32
// (SIMT kernel), in bf16 at head dim 64 with an f32 mask and with a bf16 mask holding bf16's
// lowest value (wgmma on sm_90a, mma.sync with --gpu-attention-wgmma=false); one query over 300
// keys in f32 and bf16 (flash decoding: whole splits are padding), row 1 all padding; eight
// tokens over 300 keys (32 rows a K/V head: the tensor-core kernel's split form). Tolerances as
// flash-attention-sim.mlir's for values uniform in [-1, 1].
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/padding_mask_cases.mlir --target=cuda --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
// RUN: decoda-compile %S/Inputs/padding_mask_cases.mlir --target=cuda --gpu-attention-wgmma=false --emit=ptx -o %t/m.ptx --dump-ir-after-each=%t/m
// RUN: %PYTHON %S/Inputs/padding_mask_data.py pad_f32 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry pad_f32 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=PROMPT
// RUN: %PYTHON %S/Inputs/padding_mask_data.py pad_bf16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry pad_bf16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefixes=PROMPT,WGMMA
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/m %t/m.ptx --entry pad_bf16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefixes=PROMPT,MMA
// RUN: %PYTHON %S/Inputs/padding_mask_data.py pad_bf16_mask16 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry pad_bf16_mask16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefixes=PROMPT,WGMMA
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/m %t/m.ptx --entry pad_bf16_mask16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefixes=PROMPT,MMA
// RUN: %PYTHON %S/Inputs/padding_mask_data.py pad_decode_f32 %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry pad_decode_f32 --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=SPLIT
// RUN: %PYTHON %S/Inputs/padding_mask_data.py pad_decode_bf16 %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry pad_decode_bf16 --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=SPLIT
// RUN: %PYTHON %S/Inputs/padding_mask_data.py pad_spec_bf16 %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry pad_spec_bf16 --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefixes=SPLIT,WGMMA
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/m %t/m.ptx --entry pad_spec_bf16 --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefixes=SPLIT,MMA
// PROMPT: out0: ok
// PROMPT: 1 launches
// SPLIT: out0: ok
// SPLIT: 2 launches
// WGMMA-SAME: , wgmma {{[0-9]+}}
// MMA-SAME: , mma {{[0-9]+}}
