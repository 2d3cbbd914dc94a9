// The bench's INT8 attention (bench/gpu/attention_int8_d128.mlir: bf16, causal GQA 32 over 8
// heads, head dim 128, a dynamic T) for sm_90a: the split decode form taken at run time for
// T * 4 <= 64 (kernels 0-3: quantisation, partial maxima, partial sums and P·V, combination)
// and the one-pass form (kernels 3, 4): the quantisation (IEEE divisions by the scales, rint,
// K as 4-byte words, V's tile through shared memory `[64][132]` i8 then gathered into words) and the attention on integer tensor cores:
// Ks [2][64][144] i8 (18432 bytes) and Vs [2][128][20] i32 (20480 bytes) stages by cp.async;
// Q·Kᵀ on mma.sync m16n8k32 .s8.s8 (K by ldmatrix.x4), P·V on .u8.s8 (V by 32-bit shared loads),
// the wrapping forms (no .satfinite), exp as ex2.approx. ptxas assembles both without spills.
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %decoda_src/bench/gpu/attention_int8_d128.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/a.ptx
// RUN: %PYTHON -c "import re; t = open('%t/a.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]; print(' '.join(p[1::2]))" | FileCheck %s --check-prefix=NAMES
// NAMES: attention_int8_d128_kernel attention_int8_d128_kernel_0 attention_int8_d128_kernel_1 attention_int8_d128_kernel_2 attention_int8_d128_kernel_3 attention_int8_d128_kernel_4{{$}}
// RUN: FileCheck %s --check-prefix=QUANT --input-file=%t/attention_int8_d128_kernel_3.ptx
// RUN: FileCheck %s --input-file=%t/attention_int8_d128_kernel_4.ptx
// RUN: not grep satfinite %t/a.ptx
// RUN: %ptxas -arch=sm_90a -v %t/attention_int8_d128_kernel_3.ptx -o %t/q.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-QUANT
// RUN: %ptxas -arch=sm_90a -v %t/attention_int8_d128_kernel_4.ptx -o %t/a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// The split kernels: the partial maxima (K stages only, s8 mma), the partial sums (K and V
// stages, s8 and u8 mma), the SIMT combination; none spills.
// RUN: %PYTHON -c "t = [open('%t/attention_int8_d128_kernel_%%d.ptx' %% i).read() for i in (0, 1, 2)]; print(*[(x.count('mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32'), x.count('mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32'), x.count('cp.async.cg.shared.global'), x.count('bar.sync')) for x in t])" | FileCheck %s --check-prefix=SPLIT
// SPLIT: (32, 0, 8, 2) (32, 32, 16, 2) (0, 0, 0, 0)
// RUN: %ptxas -arch=sm_90a -v %t/attention_int8_d128_kernel_0.ptx -o %t/s0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-MAX
// RUN: %ptxas -arch=sm_90a -v %t/attention_int8_d128_kernel_1.ptx -o %t/s1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-SUM
// RUN: %ptxas -arch=sm_90a -v %t/attention_int8_d128_kernel_2.ptx -o %t/s2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-COMBINE
// PTXAS-MAX: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-MAX: Used {{[0-9]+}} registers, used 1 barriers, 18432 bytes smem
// PTXAS-SUM: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-SUM: Used {{[0-9]+}} registers, used 1 barriers, 38912 bytes smem
// QUANT: .shared .align 16 .b8 __wg_attention_int8_d128_kernel_3_0[8448];
// QUANT: div.rn.f32
// QUANT: cvt.rni.f32.f32
// QUANT: st.global.b32
// QUANT-NOT: st.global.b8
// QUANT: st.shared.b8
// QUANT: bar.sync 0;
// QUANT: ld.shared.b8
// QUANT: st.global.b32
// QUANT-NOT: mma.sync
// CHECK: .maxntid 128, 1, 1
// CHECK: .shared .align 16 .b8 __wg_attention_int8_d128_kernel_4_0[18432];
// CHECK: .shared .align 16 .b8 __wg_attention_int8_d128_kernel_4_1[20480];
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 1;
// CHECK: bar.sync 0;
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK: bar.sync 0;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK: ex2.approx
// CHECK: cvt.rni.f32.f32
// CHECK: ld.shared.b32
// CHECK: mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32
// CHECK: bar.sync 0;
// CHECK: st.global.b16
// Static counts (a loop body is one 64-key tile): pass 1 S = Q·Kᵀ 4 k32 slices x 4 key pairs =
// 16 ldmatrix.x4 and 32 mma; pass 2 the same again plus P·V 2 key slices x 16 dv fragments = 32
// u8 mma with 64 32-bit shared loads of V; cp.async per thread: K 4 in the first copy and 4 in
// the prefetch of pass 1, K 4 + V 4 in each of pass 2.
// RUN: %PYTHON -c "t = open('%t/attention_int8_d128_kernel_4.ptx').read(); print('s8', t.count('mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32'), 'u8', t.count('mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32'), 'ldmatrix.x4', t.count('ldmatrix.sync.aligned.m8n8.x4.shared'), 'ld.shared.b32', t.count('ld.shared.b32'), 'cp.async', t.count('cp.async.cg.shared.global'), 'bar.sync', t.count('bar.sync'))" | FileCheck %s --check-prefix=COUNT
// COUNT: s8 64 u8 32 ldmatrix.x4 32 ld.shared.b32 64 cp.async 24 bar.sync 4
// PTXAS-QUANT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-QUANT: Used {{[0-9]+}} registers, used 1 barriers, 8448 bytes smem
// PTXAS-COMBINE: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-COMBINE: Used {{[0-9]+}} registers, used 0 barriers
// PTXAS: Compiling entry function 'attention_int8_d128_kernel_4' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used {{[0-9]+}} registers, used 1 barriers, 38912 bytes smem
