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
