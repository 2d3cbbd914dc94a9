// Programmatic dependent launch in the runtime (docs/ABI.md, "Dependent launch"): the kernels of
// a module that defines decoda_dependent_launch (decoda-gpu-dependent-launch, on by default for
// sm_90 and later) are launched with the programmatic-stream-serialization attribute
// (cuLaunchKernelEx), and in launch graphs follow the node before them on a programmatic edge
// (cuGraphAddDependencies_v2 from the programmatic port). Run on the fake driver of
// Inputs/fake_cuda.c (it runs no kernel; it logs the launches and the kernels it would run
// with their arguments). The model is launch-graphs.mlir's small bf16 decode step, 7 kernels a
// call.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/launch-graphs.mlir --target=cuda -o %t/m.so
// RUN: decoda-compile %S/launch-graphs.mlir --target=cuda --gpu-dependent-launch=false -o %t/off.so
// RUN: decoda-compile %S/launch-graphs.mlir --target=cuda --gpu-arch=sm_80 -o %t/sm80.so
// RUN: cc -shared -fPIC %S/Inputs/fake_cuda.c -o %t/fake_cuda.so
// RUN: cc -shared -fPIC -DFAKE_CUDA_NO_DEPENDENT_LAUNCH %S/Inputs/fake_cuda.c -o %t/fake_old.so
// RUN: %PYTHON -c "import numpy as np; r = np.random.default_rng(0); b = lambda *s: (r.standard_normal(s).astype('f4').view('u4') >> 16).astype('u2'); np.savez('%t/in.npz', h=b(1, 1, 64), attn_norm=b(64), wq=b(64, 64), wk=b(32, 64), wv=b(32, 64), wo=b(64, 64), mlp_norm=b(64), w_gate=b(128, 64), w_up=b(128, 64), w_down=b(64, 128), k_cache=b(1, 32, 2, 16), v_cache=b(1, 32, 2, 16), offset=np.array(7, np.int64))"
//
// Three calls: each of the 7 kernels' modules is looked up once, every launch is dependent.
// RUN: env FAKE_CUDA_LOG=%t/on.log FAKE_CUDA_EXEC_LOG=%t/on.exec DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --inputs %t/in.npz --bench 2 --warmup 0 > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/on.log | FileCheck %s --check-prefix=ON
// ON: dependent-launch modules: 7
// ON-NEXT: dependent launches: 21
// The device runs the same kernels with the same launch dimensions as a build without the waits,
// launched in plain stream order (the fake driver logs arguments once the runtime asked for the
// parameter sizes, which launch graphs do: compared below).
// RUN: env FAKE_CUDA_LOG=%t/off.log FAKE_CUDA_EXEC_LOG=%t/off.exec DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/off.so --inputs %t/in.npz --bench 2 --warmup 0 > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/off.log | FileCheck %s --check-prefix=OFF
// RUN: diff %t/on.exec %t/off.exec
// OFF: dependent-launch modules: 0
// OFF-NEXT: dependent launches: 0
// sm_80 has no griddepcontrol: no marker, plain launches.
// RUN: env FAKE_CUDA_LOG=%t/sm80.log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/sm80.so --inputs %t/in.npz > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/sm80.log | FileCheck %s --check-prefix=OFF
// DECODA_CUDA_DEPENDENT_LAUNCH=0: plain stream order without recompiling (the marker is not
// even looked up); same kernel runs.
// RUN: env DECODA_CUDA_DEPENDENT_LAUNCH=0 FAKE_CUDA_LOG=%t/env.log FAKE_CUDA_EXEC_LOG=%t/env.exec DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --inputs %t/in.npz --bench 2 --warmup 0 > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/env.log | FileCheck %s --check-prefix=OFF
// RUN: diff %t/on.exec %t/env.exec
// Any other value is refused, naming the variable.
// RUN: %rc env DECODA_CUDA_DEPENDENT_LAUNCH=yes DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --inputs %t/in.npz 2>&1 | FileCheck %s --check-prefix=BADENV
// BADENV: DECODA_CUDA_DEPENDENT_LAUNCH=yes (expected 0, plain stream order, or 1, programmatic dependent launch)
// BADENV: exit code 2
// A driver without cuModuleGetGlobal/cuLaunchKernelEx (before CUDA 12.3): plain launches, same
// kernel runs.
// RUN: env FAKE_CUDA_LOG=%t/old.log FAKE_CUDA_EXEC_LOG=%t/old.exec DECODA_CUDA_DRIVER=%t/fake_old.so decoda-run %t/m.so --inputs %t/in.npz --bench 2 --warmup 0 > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/old.log | FileCheck %s --check-prefix=OFF
// RUN: diff %t/on.exec %t/old.exec
//
// Launch graphs: the graph built by the first call has 6 programmatic edges (each node after
// the first); the other calls replay it.
// RUN: env FAKE_CUDA_LOG=%t/graphs.log FAKE_CUDA_EXEC_LOG=%t/graphs.exec DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --inputs %t/in.npz --cuda-graphs --bench 2 --warmup 0 > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/graphs.log | FileCheck %s --check-prefix=GRAPHS
// GRAPHS: graph launches: 3
// GRAPHS-NEXT: graph instantiations: 1
// GRAPHS: dependent launches: 0
// GRAPHS-NEXT: programmatic graph edges: 6
// GRAPHS-NEXT: plain graph edges added after their node: 0
// Without the marker, graph nodes keep their plain edges (made with the node); the device runs
// the same kernels with the same arguments (the graphs' temporaries come from the arena, so
// the comparison is with graphs on both sides).
// RUN: env FAKE_CUDA_LOG=%t/graphs-off.log FAKE_CUDA_EXEC_LOG=%t/graphs-off.exec DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/off.so --inputs %t/in.npz --cuda-graphs --bench 2 --warmup 0 > /dev/null
// RUN: %PYTHON %S/Inputs/same_kernel_runs.py %t/graphs.exec %t/graphs-off.exec | FileCheck %s --check-prefix=SAME
// SAME: same kernel runs: yes (21)
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/graphs-off.log | FileCheck %s --check-prefix=GRAPHSOFF
// GRAPHSOFF: graph instantiations: 1
// GRAPHSOFF: programmatic graph edges: 0
//
// Profiled runs launch each kernel alone between its events (no overlap to blur the times):
// 2 profiled runs of plain launches, then the 2 timed runs and the first one dependent.
// RUN: env FAKE_CUDA_LOG=%t/profile.log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --inputs %t/in.npz --bench 2 --warmup 0 --profile > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/profile.log | FileCheck %s --check-prefix=PROFILE
// PROFILE: dependent launches: 21{{$}}
