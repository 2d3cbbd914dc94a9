// The sm_90a wgmma attention kernel with 128-key K/V tiles (--gpu-attention-keys=128: S = Q·Kᵀ
// as m64n128k16, P·V as 8 k slices; half the tiles of the default, each with twice the
// tensor-core work for one barrier, one pair of row-max butterflies and one rescale of O) on
// the PTX interpreter against reference.py, with the cases and tolerances of
// flash-attention-wgmma-sim.mlir (Inputs/attention_wgmma_cases.mlir; one warpgroup of 64
// rows): f16 not causal with Tq < Tk, softcap, sinks, D = 64 != Dv = 128; f16 causal with a
// mask and segment ids over 70 keys (one ragged 128-key tile); bf16 causal GQA at head dim 128;
// bf16 causal GQA with a window over 300 rows; f16 causal with a sink; the split form (8 draft
// tokens over 700 keys at head dim 128: 3 splits of 256 keys, two tiles each). ptxas: no spills
// at head dims 64 and 128, no wgmma serialised.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-keys=128 --emit=ptx -o %t/k.ptx --dump-ir-after-each=%t/k
// RUN: %PYTHON %S/Inputs/attention_data.py wg_chunk_sinks_f16 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/k %t/k.ptx --entry wg_chunk_sinks_f16 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=CHUNK
// 107520 = 2 (64 x 64 + 2 x 128 x (64 + 128)) + 1024 bytes.
// CHUNK: launch wg_chunk_sinks_f16_kernel{{(_[0-9]+)?}}: grid [1, 2, 1] block [128, 1, 1] shared 0 + 107520 dynamic bytes
// CHUNK: out0: ok (5120 elements
// RUN: %PYTHON %S/Inputs/attention_data.py wg_mask_segments_f16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/k %t/k.ptx --entry wg_mask_segments_f16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=MASK
// MASK: out0: ok
// RUN: %PYTHON %S/Inputs/attention_data.py wg_gqa_d128_bf16 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/k %t/k.ptx --entry wg_gqa_d128_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=GQA
// GQA: out0: ok
// RUN: %PYTHON %S/Inputs/attention_data.py wg_rows_window_bf16 %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/k %t/k.ptx --entry wg_rows_window_bf16 --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=ROWS
// ROWS: out0: ok
// RUN: %PYTHON %S/Inputs/attention_data.py wg_sink_causal_f16 %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/k %t/k.ptx --entry wg_sink_causal_f16 --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=SINK
// SINK: out0: ok
// RUN: %PYTHON %S/Inputs/attention_data.py wg_spec_d128_bf16 %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/k %t/k.ptx --entry wg_spec_d128_bf16 --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=SPEC
// SPEC: out0: ok
//
// The kernels' wgmma shapes: S as m64n128k16 only, P·V over 8 k slices of 16 keys.
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d128.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-keys=128 --emit=ptx -o %t/d.ptx
// RUN: %PYTHON -c "import re; t = open('%t/d.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/d' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]; k = open('%t/dattention_d128_kernel_3.ptx').read(); print('n64', k.count('m64n64k16'), 'n128', k.count('m64n128k16'))" | FileCheck %s --check-prefix=SHAPES
// One S block (8 k slices at d128) and one P·V block (8 k slices) in the loop, the prologue's S
// and the epilogue's P·V: 8 + 8 + 8 + 8 m64n128k16, no m64n64k16.
// SHAPES: n64 0 n128 32
// RUN: %ptxas -arch=sm_90a -v %t/dattention_d128_kernel_3.ptx -o %t/d.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=serialized --implicit-check-not="warpgroup.arrive is injected"
// RUN: decoda-compile %decoda_src/bench/gpu/llama32_1b_block.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-keys=128 --emit=ptx -o %t/b.ptx
// The block's attention at head dim 64: its one-pass kernel and the split form of the
// dynamic-T dispatch, both with 128-key tiles, neither spilling.
// RUN: %PYTHON -c "import re; t = open('%t/b.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); a = [b for n, b in zip(p[1::2], p[2::2]) if 'm64n128k16' in b and 'ex2.approx' in b]; print('attention kernels', len(a)); [open('%t/battn%d.ptx' % i, 'w').write(b) for i, b in enumerate(a)]" | FileCheck %s --check-prefix=BLOCK
// BLOCK: attention kernels 2
// RUN: %ptxas -arch=sm_90a -v %t/battn0.ptx -o %t/b0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=serialized --implicit-check-not="warpgroup.arrive is injected"
// RUN: %ptxas -arch=sm_90a -v %t/battn1.ptx -o %t/b1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=serialized --implicit-check-not="warpgroup.arrive is injected"
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//
// FlashAttention-3's configuration at head dim 128: 128-key tiles with 128-row blocks and K/V by
// TMA from a producer warp (288 threads, the two warpgroups in ping-pong); the kernel asks for
// the 224 registers a thread that fit one block per SM (decoda-gpu-outline-kernels; ptxas would
// budget 168 and spill). Cases: GQA at head dim 128 (a block whose second warpgroup has rows),
// a window over 300 rows at head dim 64 (the last block's second warpgroup has none), a chunked
// prefill into caches holding NaN past the key count (a ragged last 128-key tile), D = 64 !=
// Dv = 128 with softcap and sinks (20 rows: one warpgroup with rows, no ping-pong).
// RUN: decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-keys=128 --gpu-attention-rows=128 --gpu-attention-tma --emit=ptx -o %t/f.ptx --dump-ir-after-each=%t/f
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry wg_gqa_d128_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=FA3
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry wg_rows_window_bf16 --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=FA3
// RUN: %PYTHON %S/Inputs/attention_data.py wg_cached_chunk_bf16 %t/7-in.npz %t/7-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry wg_cached_chunk_bf16 --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=FA3
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry wg_chunk_sinks_f16 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=FA3ONE --implicit-check-not=nbar
// FA3: block [288, 1, 1] {{.*}} nbar {{[1-9]}}
// FA3: out0: ok
// 20 rows a (batch, K/V head): the second warpgroup has none, no turns to take.
// FA3ONE: block [288, 1, 1]
// FA3ONE: out0: ok
// The bench kernel in that configuration: 224 registers allowed, no spills, no wgmma serialised.
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d128.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-keys=128 --gpu-attention-rows=128 --gpu-attention-tma --emit=ptx -o %t/fa3.ptx
// RUN: %PYTHON -c "import re; t = open('%t/fa3.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); k = [b for b in p[2::2] if 'cp.async.bulk.tensor.3d' in b][0]; open('%t/fa3k.ptx', 'w').write(k); print('maxnreg', k.split('.maxnreg ')[1].split()[0], 'n128', k.count('m64n128k16'))" | FileCheck %s --check-prefix=FA3K
// FA3K: maxnreg 224 n128 32
// RUN: %ptxas -arch=sm_90a -v %t/fa3k.ptx -o %t/fa3.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=serialized --implicit-check-not="warpgroup.arrive is injected"
//
// The flag is for the wgmma kernel only.
// RUN: not decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-keys=96 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=BADKEYS
// BADKEYS: --gpu-attention-keys=96: expected 64 or 128
// RUN: not decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-wgmma=false --gpu-attention-keys=128 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=NOWGMMA
// NOWGMMA: --gpu-attention-keys needs --target=cuda --gpu-arch=sm_90a and the wgmma attention kernel
