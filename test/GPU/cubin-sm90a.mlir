// The kernels of a whole decoder block assemble for sm_90a: decoda-compile runs ptxas through
// gpu-module-to-binary (a cubin per kernel module, embedded in the model), and the PTX of every
// kernel assembles with ptxas -arch=sm_90a without register spills.
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %decoda_src/examples/llama_block.mlir --target=cuda --gpu-arch=sm_90a -o %t/block.so
// RUN: nm -D --defined-only %t/block.so | FileCheck %s --check-prefix=SYMS
// SYMS-DAG: decoda_cuda
// SYMS-DAG: decoda_cuda_api_version
// SYMS-DAG: decoda_entry_llama_block
// SYMS-DAG: decoda_target
// An embedded cubin: an ELF image for sm_90a inside the model.
// RUN: %PYTHON -c "import sys; d = open('%t/block.so', 'rb').read(); i = d.find(b'\x7fELF', 64); print('embedded ELF' if i > 0 else 'none'); print('nv_info' if b'.nv.info' in d else 'no nv_info')" | FileCheck %s --check-prefix=CUBIN
// CUBIN: embedded ELF
// CUBIN: nv_info
// RUN: decoda-compile %decoda_src/examples/llama_block.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/block.ptx
// RUN: %PYTHON -c "import re, sys; t = open('%t/block.ptx').read(); parts = re.split(r'^// gpu.binary @\S+\n', t, flags=re.M)[1:]; print(len(parts), 'kernel modules'); [open('%t/k%d.ptx' % i, 'w').write(p) for i, p in enumerate(parts)]"
// RUN: for f in %t/k*.ptx; do %ptxas -arch=sm_90a -v $f -o $f.cubin 2>&1 || exit 1; done | FileCheck %s --check-prefix=PTXAS
// PTXAS: Compiling entry function '{{.*}}' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: [1-9][0-9]* bytes spill
// The bf16 Llama-3.2-1B-shaped block (bench/gpu): an artifact with its seven projections on
// tensor cores (one wgmma kernel each on sm_90a, gate and up one kernel of two weights,
// m64n256k16) and its attention on the wgmma form of the
// flash-attention kernel (head dim 64; and its split form for 17 to 64 rows of a K/V head, a
// dynamic T of 5 to 16); mma.sync only in the six GEMV kernels of 2 to 16 rows (the dynamic-T
// dispatch of each projection kernel), every kernel assembling for sm_90a without spills.
// RUN: decoda-compile %decoda_src/bench/gpu/llama32_1b_block.mlir --target=cuda --gpu-arch=sm_90a -o %t/bf16.so
// RUN: nm -D --defined-only %t/bf16.so | FileCheck %s --check-prefix=SYMS32
// SYMS32: decoda_entry_llama32_1b_block
// RUN: mkdir -p %t/bf16-parts && decoda-compile %decoda_src/bench/gpu/llama32_1b_block.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/bf16.ptx
// RUN: %PYTHON -c "import re, sys; t = open('%t/bf16.ptx').read(); parts = re.split(r'^// gpu.binary @\S+\n', t, flags=re.M)[1:]; print(len(parts), 'kernel modules,', sum(bool(re.search(r'wgmma.mma_async.sync.aligned.m64n(128|256)k16.f32.bf16.bf16', p)) for p in parts), 'with bf16 wgmma,', sum('m64n256k16.f32.bf16' in p for p in parts), 'of two weights,', sum('scale1, 1, 1, 1;' in p for p in parts), 'with wgmma attention (A from registers),', sum('mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32' in p for p in parts), 'with bf16 mma.sync'); [open('%t/bf16-parts/k%d.ptx' % i, 'w').write(p) for i, p in enumerate(parts)]" | FileCheck %s --check-prefix=BF16
// BF16: {{[0-9]+}} kernel modules, 6 with bf16 wgmma, 1 of two weights, 2 with wgmma attention (A from registers), 6 with bf16 mma.sync
// RUN: for f in %t/bf16-parts/k*.ptx; do %ptxas -arch=sm_90a -v $f -o $f.cubin 2>&1 || exit 1; done | FileCheck %s --check-prefix=PTXAS
