// The sm_90a wgmma attention kernel with its K/V tiles loaded by TMA (--gpu-attention-tma, pass
// option wgmma-tma): a producer warp after the consumer warpgroups (block 128 W + 32 threads)
// issues, from lane 0, K of tile i and V of tile i - 1 through 3-D tensor maps encoded on the
// host ([B][min(keyLen, S)][Hkv D], decoda_cuda_tensor_map_3d; rows at or past the key count
// read as zero), each stage handed over by a full mbarrier (expect_tx) and an empty one (an
// arrival by every consumer warp with rows once its wgmma reading the stage is done): one
// block barrier per block (mbarrier init and Q's cp.async), none per tile. On the PTX
// interpreter against reference.py, with the cases and tolerances of
// flash-attention-wgmma-sim.mlir, one and two consumer warpgroups, plus a chunked prefill into
// caches that hold NaN past the key count (a ragged last V tile must multiply zeros). The split
// form (wg_spec_d128_bf16) keeps cp.async.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-tma --emit=ptx -o %t/n.ptx --dump-ir-after-each=%t/n
// RUN: decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-tma --gpu-attention-rows=128 --emit=ptx -o %t/w.ptx --dump-ir-after-each=%t/w
// RUN: %PYTHON %S/Inputs/attention_data.py wg_chunk_sinks_f16 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry wg_chunk_sinks_f16 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=CHUNK
// 58432 = 2 (64 x 64 + 2 x 64 x (64 + 128)) + 1024 + 8 mbarriers of 8 bytes; one bar.sync a block.
// CHUNK: launch wg_chunk_sinks_f16_kernel{{(_[0-9]+)?}}: grid [1, 2, 1] block [160, 1, 1] shared 0 + 58432 dynamic bytes; bar 2, {{.*}}mbarrier
// CHUNK: out0: ok (5120 elements
// CHUNK: 2 tensor maps
// RUN: %PYTHON %S/Inputs/attention_data.py wg_mask_segments_f16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry wg_mask_segments_f16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=OK
// RUN: %PYTHON %S/Inputs/attention_data.py wg_gqa_d128_bf16 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry wg_gqa_d128_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=OK
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/w %t/w.ptx --entry wg_gqa_d128_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=WIDE
// At 128 rows the two consumer warpgroups take turns at the tensor cores by default
// (--gpu-attention-pingpong: named barriers 1 and 2, bar.sync / bar.arrive of 256 threads, which
// the interpreter counts per warp and checks for balance at exit); with
// --gpu-attention-pingpong=false they do not, and the values are the same.
// WIDE: block [288, 1, 1] {{.*}} nbar {{[1-9]}}
// WIDE: out0: ok
// Without the arrivals, each warpgroup waits for the other forever: reported.
// RUN: sed '/bar.arrive/d' %t/w.ptx > %t/w-noarrive.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/w %t/w-noarrive.ptx --entry wg_gqa_d128_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 4.3e-3 2>&1 | FileCheck %s --check-prefix=PPDEAD
// PPDEAD: bar.sync: deadlock: every live thread waits at a barrier (named barrier 1: 128 of its 256 threads arrived
// RUN: decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-tma --gpu-attention-rows=128 --gpu-attention-pingpong=false --emit=ptx -o %t/f.ptx --dump-ir-after-each=%t/f
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry wg_gqa_d128_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=FREE --implicit-check-not=nbar
// FREE: block [288, 1, 1]
// FREE: out0: ok
// RUN: %PYTHON %S/Inputs/attention_data.py wg_rows_window_bf16 %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry wg_rows_window_bf16 --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=OK
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/w %t/w.ptx --entry wg_rows_window_bf16 --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=WIDE
// RUN: %PYTHON %S/Inputs/attention_data.py wg_sink_causal_f16 %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry wg_sink_causal_f16 --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=OK
// RUN: %PYTHON %S/Inputs/attention_data.py wg_cached_chunk_bf16 %t/7-in.npz %t/7-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry wg_cached_chunk_bf16 --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=OK
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/w %t/w.ptx --entry wg_cached_chunk_bf16 --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=WIDE
// OK: out0: ok
// The split form keeps cp.async (128 threads, no tensor maps).
// RUN: %PYTHON %S/Inputs/attention_data.py wg_spec_d128_bf16 %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry wg_spec_d128_bf16 --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=SPEC --implicit-check-not="tensor maps"
// SPEC: block [128, 1, 1]
// SPEC: out0: ok
//
// The bench kernel (head dim 128): one kernel with 3-D TMA loads, one bar.sync, no spills
// and no wgmma serialised, at 64 and 128 rows.
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d128.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-tma --emit=ptx -o %t/d.ptx
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d128.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-tma --gpu-attention-rows=128 --emit=ptx -o %t/d2.ptx
// RUN: %PYTHON -c "import re; t = open('%t/d.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); k = [b for b in p[2::2] if 'cp.async.bulk.tensor.3d' in b]; print('tma kernels', len(k), 'bar', k[0].count('bar.sync'), 'wgmma', k[0].count('wgmma.mma_async') > 0); open('%t/dk.ptx', 'w').write(k[0])" | FileCheck %s --check-prefix=D128
// D128: tma kernels 1 bar 1 wgmma True
// RUN: %PYTHON -c "import re; t = open('%t/d2.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); k = [b for b in p[2::2] if 'cp.async.bulk.tensor.3d' in b][0]; open('%t/dk2.ptx', 'w').write(k)"
// RUN: %ptxas -arch=sm_90a -v %t/dk.ptx -o %t/dk.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=serialized --implicit-check-not="warpgroup.arrive is injected"
// RUN: %ptxas -arch=sm_90a -v %t/dk2.ptx -o %t/dk2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=serialized --implicit-check-not="warpgroup.arrive is injected"
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// The ping-pong at 128 rows: each of the three wgmma issue sites waits on the warpgroup's
// named barrier (256 threads) and arrives on the other's; none at 64 rows.
// RUN: grep -c "bar.sync.*256;" %t/dk2.ptx | FileCheck %s --check-prefix=PPSYNC
// PPSYNC: 3
// RUN: grep -c "bar.arrive" %t/dk2.ptx | FileCheck %s --check-prefix=PPARRIVE
// PPARRIVE: {{[1-9]}}
// RUN: not grep "bar.arrive" %t/dk.ptx
// The host asks for K's and V's maps with rows min(keyLen, S).
// RUN: cat %t/n/*.mlir | grep -c "llvm.call @decoda_cuda_tensor_map_3d" | FileCheck %s --check-prefix=HOST
// HOST: {{[1-9][0-9]*}}
//
// The flag is for the wgmma kernel only.
// RUN: not decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-wgmma=false --gpu-attention-tma -o %t/x.so 2>&1 | FileCheck %s --check-prefix=NOWGMMA
// NOWGMMA: --gpu-attention-tma needs --target=cuda --gpu-arch=sm_90a and the wgmma attention kernel
// The ping-pong is for the TMA kernel's two warpgroups only.
// RUN: not decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-tma --gpu-attention-pingpong -o %t/x.so 2>&1 | FileCheck %s --check-prefix=NOPP
// RUN: not decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-rows=128 --gpu-attention-pingpong -o %t/x.so 2>&1 | FileCheck %s --check-prefix=NOPP
// NOPP: --gpu-attention-pingpong needs --target=cuda --gpu-arch=sm_90a --gpu-attention-tma --gpu-attention-rows=128
