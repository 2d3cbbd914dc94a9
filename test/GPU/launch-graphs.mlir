// Launch graphs (docs/ABI.md, "Launch graphs"; decoda_cuda_graphs_enable, decoda-run
// --cuda-graphs, Python Model.cuda_graphs): a call's launches that nothing else on the stream
// separates go to the device as one CUDA graph, kept and replayed by later calls with only the
// nodes whose arguments changed updated; the call's temporaries come from an arena, so their
// addresses do not change from call to call. Run on the fake driver of Inputs/fake_cuda.c,
// which runs no kernel but logs every kernel it would run with its arguments: the model is a
// small bf16 decode step (norms, GEMV projections, RoPE with the V cache write, flash decoding,
// SwiGLU), 7 kernels a call (its two RMSNorms computed in the GEMV kernels that read them;
// 9 before).
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda -o %t/m.so
// RUN: cc -shared -fPIC %S/Inputs/fake_cuda.c -o %t/fake_cuda.so
// RUN: env DECODA_CUDA_DRIVER=%t/fake_cuda.so %PYTHON %S/Inputs/launch_graphs.py %t/m.so %t | FileCheck %s
// CHECK: kernels a call: 7
// The device runs the same kernels with the same arguments with graphs as without (device
// addresses compared within each kernel's arguments: the arena and the pool reuse freed
// temporaries' memory in orders of their own).
// CHECK: same kernels, dimensions and arguments with and without graphs: yes
// Three kernels take the offset (the q/k/v GEMV, which rounds V straight into the V cache's
// slice, RoPE, which writes K into the K cache, and the attention): calls 2 and 3 move it;
// every other kernel gets the same buffers, named by first use in the call, every call.
// (Two before 8 Dec 2026, when RoPE's kernel also copied V from a temporary into the cache.)
// CHECK: kernels whose arguments change with the offset: [0, 3, 3, 0]
// CHECK: without graphs, driver launches a call: [7, 7, 7, 7, 7]
// The first call builds the graph (its temporaries from the pool); the second takes them from
// the arena, one allocation of what the first call needed, so every node is updated once; after
// that a call is one graph launch, no allocation or free, and updates only the nodes whose
// arguments moved.
// (11 temporaries: 12 before V went straight into the cache, its temporary gone; 11 before
// decoda-unshare-fills gave each linalg op writing into a shared tensor.empty one of its own.)
// CHECK: with graphs, call 0 (offset 3): launches 0, graph launches 1, instantiations 1, node updates 0, allocations 11, frees 11
// CHECK: with graphs, call 1 (offset 3): launches 0, graph launches 1, instantiations 0, node updates 7, allocations 1, frees 0
// CHECK: with graphs, call 2 (offset 4): launches 0, graph launches 1, instantiations 0, node updates 3, allocations 0, frees 0
// CHECK: with graphs, call 3 (offset 9): launches 0, graph launches 1, instantiations 0, node updates 3, allocations 0, frees 0
// CHECK: with graphs, call 4 (offset 9): launches 0, graph launches 1, instantiations 0, node updates 0, allocations 0, frees 0
// CHECK: first call's pool allocations and frees as without graphs: yes
// A profiled call launches kernel by kernel (each between its events).
// CHECK: profiled call with graphs on, launches profiled: 7
// A graph and its executable graph (the fake driver counts both).
// CHECK: live graphs before turning off: 2
// CHECK: live graphs after turning off: 0
// CHECK: failed launch: RUNTIME entry 'step': run-time check failed: CUDA: copy failed: a CUDA graph of 7 launches (the first step_kernel): cuGraphLaunch: fake launch failure (CUDA error 719)
// CHECK: the next call runs: yes
// CHECK: live graphs after close: 0
//
// decoda-run --cuda-graphs: one graph launch a call (6 calls: the first run, one warm-up, four
// timed), built once; with --profile the profiled runs launch kernel by kernel (3 runs of 7)
// and the others replay the graph (the first run and 3 timed ones).
// RUN: %PYTHON -c "import numpy as np; r = np.random.default_rng(0); b = lambda *s: (r.standard_normal(s).astype('f4').view('u4') >> 16).astype('u2'); np.savez('%t/in.npz', h=b(1, 1, 64), attn_norm=b(64), wq=b(64, 64), wk=b(32, 64), wv=b(32, 64), wo=b(64, 64), mlp_norm=b(64), w_gate=b(128, 64), w_up=b(128, 64), w_down=b(64, 128), k_cache=b(1, 32, 2, 16), v_cache=b(1, 32, 2, 16), offset=np.array(7, np.int64))"
// RUN: env FAKE_CUDA_LOG=%t/run.log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --inputs %t/in.npz --device-inputs=k_cache,v_cache,wq,wk,wv,wo,w_gate,w_up,w_down --donate --cuda-graphs --bench 4 --warmup 1 | FileCheck %s --check-prefix=BENCH
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/run.log | FileCheck %s --check-prefix=RUNLOG
// BENCH: bench step: 1 warm-up, 4 timed runs
// RUNLOG: unfreed allocations: 0
// The first call's 13 pool allocations (host inputs and temporaries), then the arena's one.
// RUNLOG: stream-ordered allocations: 14
// RUNLOG: kernel launches: 0
// RUNLOG: graph launches: 6
// RUNLOG: graph instantiations: 1
// RUNLOG: graph node updates: 7
// RUN: env FAKE_CUDA_LOG=%t/profile.log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --inputs %t/in.npz --device-inputs=k_cache,v_cache,wq,wk,wv,wo,w_gate,w_up,w_down --donate --cuda-graphs --bench 3 --warmup 0 --profile | FileCheck %s --check-prefix=PROFILE
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/profile.log | FileCheck %s --check-prefix=PROFILELOG
// PROFILE: profile step: 3 runs, 7 launches a run
// PROFILELOG: kernel launches: 21
// PROFILELOG: graph launches: 4
// PROFILELOG: graph instantiations: 1
// RUN: decoda-compile %s -o %t/cpu.so
// RUN: %rc decoda-run %t/cpu.so --inputs %t/in.npz --cuda-graphs 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: decoda-run: error: --cuda-graphs: decoda_cuda_graphs_enable: model '{{.*}}cpu.so' is a CPU model; launch graphs are for CUDA models
// CPU: exit code 2
// A driver without the graph entry points (before CUDA 12.4): --cuda-graphs is refused, naming
// them; without it the model runs as before.
// RUN: cc -shared -fPIC -DFAKE_CUDA_NO_GRAPHS %S/Inputs/fake_cuda.c -o %t/fake_cuda_old.so
// RUN: %rc env DECODA_CUDA_DRIVER=%t/fake_cuda_old.so decoda-run %t/m.so --inputs %t/in.npz --cuda-graphs 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: decoda-run: error: --cuda-graphs: decoda_cuda_graphs_enable: the CUDA driver lacks the entry points launch graphs use (cuFuncGetParamInfo, cuGraphCreate, cuGraphAddKernelNode, cuGraphInstantiateWithFlags, cuGraphExecKernelNodeSetParams, cuGraphLaunch, cuGraphExecDestroy, cuGraphDestroy; CUDA 12.4 or later has them)
// OLD: exit code 2
// RUN: %rc env DECODA_CUDA_DRIVER=%t/fake_cuda_old.so decoda-run %t/m.so --inputs %t/in.npz 2>&1 | FileCheck %s --check-prefix=OLDCALL
// OLDCALL: output h_out: bf16 [1, 1, 64]
// OLDCALL: exit code 0
func.func @step(
    %h: tensor<1x1x64xbf16> {decoda.name = "h"},
    %attn_norm: tensor<64xbf16> {decoda.name = "attn_norm"},
    %wq: tensor<64x64xbf16> {decoda.name = "wq"},
    %wk: tensor<32x64xbf16> {decoda.name = "wk"},
    %wv: tensor<32x64xbf16> {decoda.name = "wv"},
    %wo: tensor<64x64xbf16> {decoda.name = "wo"},
    %mlp_norm: tensor<64xbf16> {decoda.name = "mlp_norm"},
    %w_gate: tensor<128x64xbf16> {decoda.name = "w_gate"},
    %w_up: tensor<128x64xbf16> {decoda.name = "w_up"},
    %w_down: tensor<64x128xbf16> {decoda.name = "w_down"},
    %kc: tensor<1x32x2x16xbf16> {decoda.name = "k_cache", decoda.donate = 1 : i64},
    %vc: tensor<1x32x2x16xbf16> {decoda.name = "v_cache", decoda.donate = 2 : i64},
    %offset: tensor<i64> {decoda.name = "offset"})
    -> (tensor<1x1x64xbf16> {decoda.name = "h_out"},
        tensor<1x32x2x16xbf16> {decoda.name = "k_cache_out"},
        tensor<1x32x2x16xbf16> {decoda.name = "v_cache_out"}) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-05 : f64} : tensor<1x1x64xbf16>, tensor<64xbf16>
  %q2 = decoda.linear %x, %wq : tensor<1x1x64xbf16>, tensor<64x64xbf16>
  %k2 = decoda.linear %x, %wk : tensor<1x1x64xbf16>, tensor<32x64xbf16>
  %v2 = decoda.linear %x, %wv : tensor<1x1x64xbf16>, tensor<32x64xbf16>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, 1, 4, 16]
      : tensor<1x1x64xbf16> into tensor<1x1x4x16xbf16>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, 1, 2, 16]
      : tensor<1x1x32xbf16> into tensor<1x1x2x16xbf16>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, 1, 2, 16]
      : tensor<1x1x32xbf16> into tensor<1x1x2x16xbf16>
  %pos = tensor.expand_shape %offset [] output_shape [1] : tensor<i64> into tensor<1xi64>
  %qr = decoda.rope %q positions(%pos : tensor<1xi64>) {theta = 1.0e+04 : f64} : tensor<1x1x4x16xbf16>
  %kr = decoda.rope %k positions(%pos : tensor<1xi64>) {theta = 1.0e+04 : f64} : tensor<1x1x2x16xbf16>
  %o, %kc2, %vc2 = decoda.cached_attention %qr, %kr, %v, %kc, %vc[%off]
      {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x1x4x16xbf16>, tensor<1x1x2x16xbf16>, tensor<1x1x2x16xbf16>,
        tensor<1x32x2x16xbf16>, tensor<1x32x2x16xbf16>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x1x4x16xbf16> into tensor<1x1x64xbf16>
  %attn = decoda.linear %o2, %wo : tensor<1x1x64xbf16>, tensor<64x64xbf16>
  %u = decoda.residual_add %h, %attn : tensor<1x1x64xbf16>
  %y = decoda.rms_norm %u, %mlp_norm {eps = 1.0e-05 : f64} : tensor<1x1x64xbf16>, tensor<64xbf16>
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
      : tensor<1x1x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>
  %out = decoda.residual_add %u, %m : tensor<1x1x64xbf16>
  return %out, %kc2, %vc2 : tensor<1x1x64xbf16>, tensor<1x32x2x16xbf16>, tensor<1x32x2x16xbf16>
}
