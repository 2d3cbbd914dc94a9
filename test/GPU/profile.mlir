// Kernel profiles (docs/ABI.md, "Kernel profiles"; decoda-run --profile): CUDA events before the
// first launch of a call and after each launch, their times per launch by kernel name. Runs on
// the fake driver of Inputs/fake_cuda.c, whose device clock advances by each launch's block
// count and each copy's KiB: check_profile.py works out from the driver's log where the events
// fell and what each launch must have taken, and compares that with what decoda-run printed
// (the inputs' copies before the first launch and the output's after the last are not in it).
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda -o %t/m.so
// RUN: cc -shared -fPIC %S/Inputs/fake_cuda.c -o %t/fake_cuda.so
// RUN: %PYTHON -c "import numpy as np; r = np.random.default_rng(0); np.savez('%t/in.npz', x=r.standard_normal((1, 40, 256)).astype('f4'), g=r.standard_normal((256,)).astype('f4'), w=r.standard_normal((96, 256)).astype('f4'))"
// RUN: env FAKE_CUDA_LOG=%t/log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --inputs %t/in.npz --bench 1 --warmup 0 --profile > %t/out
// RUN: FileCheck %s --input-file=%t/out
// CHECK: profile norm_proj: 1 runs, [[N:[2-9]]] launches a run: kernels median {{[0-9.]+}} ms
// CHECK-NEXT: launch 0 norm_proj_kernel median {{[0-9.]+}} ms
// CHECK-NEXT: launch 1 norm_proj_kernel_{{[0-9]+}} median
// CHECK: bench norm_proj: 0 warm-up, 1 timed runs
// RUN: %PYTHON %S/Inputs/check_profile.py %t/log %t/out | FileCheck %s --check-prefix=LOG
// LOG: problems: none
// LOG: profile agrees with the log: yes
// Three calls (one run, one profiled, one timed); events only in the profiled one, and turning
// profiling off destroys the events it created.
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/log | FileCheck %s --check-prefix=COUNT
// COUNT: calls 3
// RUN: %PYTHON -c "import collections; c = collections.Counter(l.split()[0] + ' ' + l.split()[1] for l in open('%t/log') if l.startswith('event')); print('created', c['event create'], 'destroyed', c['event destroy'])" | FileCheck %s --check-prefix=EVENTS
// EVENTS: created [[E:[3-9]]] destroyed [[E]]
//
// The Python binding: the same launches (names and fake times as decoda-run printed them).
// RUN: env DECODA_CUDA_DRIVER=%t/fake_cuda.so %PYTHON %S/Inputs/profile_binding.py %t/m.so > %t/py
// RUN: %PYTHON -c "import re; a = re.findall(r'launch +\d+ (\S+) +median ([0-9.]+) ms', open('%t/out').read()); b = re.findall(r'  (\S+): ([0-9.]+) ms', open('%t/py').read()); print('same' if a == b and a else 'different', len(a))" | FileCheck %s --check-prefix=PYSAME
// PYSAME: same {{[2-9]}}
// RUN: FileCheck %s --check-prefix=PY --input-file=%t/py
// PY: unprofiled: []
// PY: launches: {{[2-9]}}
// PY: after turning it off: []
//
// Usage errors: --profile without --bench; a CPU model; a driver without events.
// RUN: %rc env DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --inputs %t/in.npz --profile 2>&1 | FileCheck %s --check-prefix=NOBENCH
// NOBENCH: decoda-run: error: --profile needs --bench N (the number of profiled runs)
// NOBENCH: exit code 2
// RUN: decoda-compile %s -o %t/cpu.so
// RUN: %rc decoda-run %t/cpu.so --inputs %t/in.npz --bench 1 --profile 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: decoda-run: error: --profile: decoda_profile_enable: model '{{.*}}cpu.so' is a CPU model; kernel profiles are for CUDA models
// CPU: exit code 2
// RUN: cc -shared -fPIC -DFAKE_CUDA_NO_EVENTS %S/Inputs/fake_cuda.c -o %t/fake_cuda_no_events.so
// RUN: %rc env DECODA_CUDA_DRIVER=%t/fake_cuda_no_events.so decoda-run %t/m.so --inputs %t/in.npz --bench 1 --profile 2>&1 | FileCheck %s --check-prefix=NOEVENTS
// NOEVENTS: decoda-run: error: --profile: decoda_profile_enable: the CUDA driver lacks the event entry points kernel profiles use
// NOEVENTS: exit code 2
func.func @norm_proj(%x: tensor<1x?x256xf32> {decoda.name = "x"}, %g: tensor<256xf32> {decoda.name = "g"},
                     %w: tensor<96x256xf32> {decoda.name = "w"}) -> (tensor<1x?x96xf32> {decoda.name = "y"}) {
  %n = decoda.rms_norm %x, %g {eps = 1.0e-05 : f64} : tensor<1x?x256xf32>, tensor<256xf32>
  %y = decoda.linear %n, %w : tensor<1x?x256xf32>, tensor<96x256xf32>
  return %y : tensor<1x?x96xf32>
}
