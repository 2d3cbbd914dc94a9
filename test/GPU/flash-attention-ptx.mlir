// The bench's attention (bf16, causal GQA 32 over 8 heads, head dim 128; bench/gpu_check.sh
// times it at T = 4096) with its dynamic T is three kernels: flash decoding's split kernel and
// combine (taken at run time when the rows of a K/V head fit one block, T <= 4) and the
// one-pass flash-attention kernel (T = 4096), each with 41 KiB of 16-byte aligned shared tiles
// but the combine; ptxas for sm_90a assembles each without spills.
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d128.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/a.ptx
// RUN: FileCheck %s --input-file=%t/a.ptx
// RUN: %PYTHON -c "import re; t = open('%t/a.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]; print(' '.join(p[1::2]))" | FileCheck %s --check-prefix=NAMES
// NAMES: attention_d128_kernel attention_d128_kernel_0 attention_d128_kernel_1{{$}}
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel.ptx -o %t/s.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel_0.ptx -o %t/c.cubin 2>&1 | FileCheck %s --check-prefix=COMBINE
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel_1.ptx -o %t/o.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// CHECK: // gpu.binary @attention_d128_kernel
// CHECK: .maxntid 128, 1, 1
// CHECK: .shared .align 16 .b8 __wg_attention_d128_kernel_0[8192];
// CHECK: .shared .align 16 .b8 __wg_attention_d128_kernel_1[16512];
// CHECK: .shared .align 16 .b8 __wg_attention_d128_kernel_2[16384];
// CHECK: shfl.sync.bfly.b32
// CHECK: shfl.sync.idx.b32
// CHECK: // gpu.binary @attention_d128_kernel_0
// CHECK-NOT: .shared
// CHECK: ex2.approx
// CHECK: // gpu.binary @attention_d128_kernel_1
// CHECK: .maxntid 128, 1, 1
// CHECK: .shared .align 16 .b8 __wg_attention_d128_kernel_0[8192];
// CHECK: .shared .align 16 .b8 __wg_attention_d128_kernel_1[16512];
// CHECK: .shared .align 16 .b8 __wg_attention_d128_kernel_2[16384];
// CHECK: shfl.sync.bfly.b32
// CHECK: shfl.sync.idx.b32
// CHECK-NOT: // gpu.binary @
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used {{[0-9]+}} registers, used 1 barriers, 41088 bytes smem
// COMBINE: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// COMBINE: Used {{[0-9]+}} registers, used 0 barriers
