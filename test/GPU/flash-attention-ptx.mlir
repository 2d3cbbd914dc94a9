// The bench's attention (bf16, causal GQA 32 over 8 heads, head dim 128; bench/gpu_check.sh
// times it at T = 4096) is one kernel module: one flash-attention kernel with 41 KiB of
// 16-byte aligned shared tiles; ptxas for sm_90a assembles it without spills.
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d128.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/a.ptx
// RUN: FileCheck %s --input-file=%t/a.ptx
// RUN: %ptxas -arch=sm_90a -v %t/a.ptx -o %t/a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// CHECK-COUNT-1: // gpu.binary @
// CHECK-NOT: // gpu.binary @
// CHECK: .maxntid 128, 1, 1
// CHECK: .shared .align 16 .b8 __wg_attention_d128_kernel_0[8192];
// CHECK: .shared .align 16 .b8 __wg_attention_d128_kernel_1[16512];
// CHECK: .shared .align 16 .b8 __wg_attention_d128_kernel_2[16384];
// CHECK: shfl.sync.bfly.b32
// CHECK: shfl.sync.idx.b32
// PTXAS: Compiling entry function 'attention_d128_kernel' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used {{[0-9]+}} registers, used 1 barriers, 41088 bytes smem
