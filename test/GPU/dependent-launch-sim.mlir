// decoda-gpu-dependent-launch (on by default for sm_90 and later) and the GEMV kernels' L2
// weight prefetch (decoda-gpu-gemv{prefetch-bytes}, 16 MiB a kernel in the pipeline) on the PTX
// interpreter: the kernels compute what NumPy does (reference.py through block_data.py), bit
// for bit what the build without them computes, and no thread touches global memory before its
// griddepcontrol.wait (the interpreter checks every access of a kernel that has one; a kernel
// launched as a programmatic dependent may run while the kernel before it still does).
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/decode_step_bf16.mlir --target=cuda --emit=ptx -o %t/on.ptx --dump-ir-after-each=%t/on
// RUN: decoda-compile %S/Inputs/decode_step_bf16.mlir --target=cuda --gpu-dependent-launch=false --emit=ptx -o %t/off.ptx --dump-ir-after-each=%t/off
// Every kernel waits once before its first global access; a merged kernel (q, k and v's GEMVs
// dispatched on the block id) once per branch. Every module is marked for the runtime. (12
// waits before 8 Dec 2026: RoPE's kernel was a merged launch of three branches, one the copy
// of V into the cache, which the v GEMV now stores there itself.)
// RUN: %PYTHON %S/Inputs/check_dependent_launch.py %t/on.ptx | FileCheck %s --check-prefix=PTX
// PTX: 7 kernels: 7 with griddepcontrol.wait before their first global access (10 waits, 10 launch_dependents), 7 modules marked, 7 L2 prefetches
// RUN: %PYTHON %S/Inputs/check_dependent_launch.py %t/off.ptx | FileCheck %s --check-prefix=PTXOFF
// PTXOFF: 7 kernels: 0 with griddepcontrol.wait before their first global access (0 waits, 0 launch_dependents), 0 modules marked, 0 L2 prefetches
//
// The decode step (the model of launch-graphs.mlir, T = 1): 7 launches; every thread of every
// block waits once (on the path its block takes); the GEMV kernels prefetch their weights'
// rows (q, k, v, o, gate, up and down: 36864 bf16 weights, every byte once, all of them fitting
// the 16 MiB budget).
// RUN: %PYTHON %S/Inputs/block_data.py step-bf16 1 %t/in.npz %t/out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/on %t/on.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 2e-2 --atol 2e-2 --save %t/got.npz | FileCheck %s --check-prefix=STEP
// STEP: out0: ok (64 elements
// STEP: 7 launches
// STEP: dependent launch: [[N:[0-9]+]] thread waits (griddepcontrol.wait) of [[N]] threads, 73728 bytes prefetched into L2
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/off %t/off.ptx --inputs %t/in.npz --expect %t/got.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=OFF
// OFF: out0: ok (64 elements, max abs error 0)
// OFF: 7 launches
// OFF-NOT: dependent launch
//
// A load moved before the wait of the merged q/k/v kernel is reported.
// RUN: %PYTHON %S/Inputs/mutate_dependent_launch.py %t/on.ptx %t/early.ptx step_kernel early-load
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/on %t/early.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 2e-2 --atol 2e-2 --quiet 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: error: kernel step_kernel: ld.global{{[.a-z0-9]*}}: global memory access by thread {{[0-9]+}} before its griddepcontrol.wait
// So is a prefetch past the end of a weight (each row's prefetch moved by its own length).
// RUN: %PYTHON %S/Inputs/mutate_dependent_launch.py %t/on.ptx %t/past.ptx step_kernel prefetch-past
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/on %t/past.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 2e-2 --atol 2e-2 --quiet 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: error: kernel step_kernel: cp.async.bulk.prefetch.L2.global: global access of {{[0-9]+}} bytes at {{0x[0-9a-f]+}} outside every buffer
//
// The flag needs CUDA and sm_90 or later.
// RUN: not decoda-compile %S/Inputs/decode_step_bf16.mlir --target=cuda --gpu-arch=sm_80 --gpu-dependent-launch -o %t/x.so 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: error: --gpu-dependent-launch needs --target=cuda and --gpu-arch=sm_90 or later (griddepcontrol) (--gpu-arch=sm_80)
// RUN: not decoda-compile %S/Inputs/decode_step_bf16.mlir --gpu-dependent-launch -o %t/x.so 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: error: --gpu-dependent-launch needs --target=cuda and --gpu-arch=sm_90 or later (griddepcontrol){{$}}
