// The sm_90a wgmma form of the tensor-core attention kernel (the default of decoda-lower-to-cuda
// for sm_90a, head dims 64 and 128) on the bench's attention (bf16, causal GQA 32 over 8 heads,
// head dim 128; bench/gpu_check.sh times it at T = 4096). With its dynamic T the module has the
// same five kernels as with mma.sync (flash-attention-ptx.mlir): flash decoding's SIMT split
// kernel and combine, this kernel's split form (_1) and combine, and the one-pass kernel (_3).
// Both wgmma kernels: 128 threads (one warpgroup), no static shared memory but the dynamic
// Q tile and two stages of 64-key K and V tiles (16 + 2 x (16 + 16) KiB + 1 KiB of alignment,
// passed at launch), filled by cp.async in 16-byte chunks (per thread Q 8, each K or V tile of
// 64 keys x 128 x 2 bytes 8), one fence.proxy.async before the barrier that publishes a tile to wgmma; per tile S = Q·Kᵀ as
// 8 wgmma m64n64k16 (k slices of 16 of D = 128) with both operands from shared descriptors
// (K-major: imm-trans 0, 0) and the first one not accumulating (scale-d 0), one commit and
// wait; then O += P·V as 4 wgmma m64n128k16 with A from registers ({4 registers}) and V
// MN-major (imm-trans-b 1); no ldmatrix, no mma.sync. ptxas: no spills, and no
// warpgroup.arrive injected (nothing touches the registers of the P·V wgmma between them: the A
// fragments are made before the wgmma.fence).
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d128.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/a.ptx
// RUN: %PYTHON -c "import re; t = open('%t/a.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]; print(' '.join(p[1::2]))" | FileCheck %s --check-prefix=NAMES
// NAMES: attention_d128_kernel attention_d128_kernel_0 attention_d128_kernel_1 attention_d128_kernel_2 attention_d128_kernel_3{{$}}
// RUN: FileCheck %s --input-file=%t/attention_d128_kernel_3.ptx
// RUN: FileCheck %s --input-file=%t/attention_d128_kernel_1.ptx
// CHECK: .maxntid 128, 1, 1
// CHECK: .shared .align 16 .b8 __dynamic_shmem__0;
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.sync 0;
// CHECK: wgmma.fence.sync.aligned;
// CHECK: setp.ne.b32 p, 0, 0;
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{(%r[0-9]+, ){31}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1,  1, 0,  0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: ex2.approx
// CHECK: cvt.rn.bf16x2.f32
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{{(%r[0-9]+, ){63}%r[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 0;
// Static counts (the loop body is one tile of 64 keys): cp.async per thread Q 8, K + V 8 + 8
// in the first tile's copy and again in the prefetch; the one-pass kernel stores 64 bf16
// outputs per thread (two rows x 32 columns), the split form 68 f32 partials (64 accumulators,
// m and l of two rows).
// RUN: %PYTHON -c "[print(k, 'wgmma.n64', t.count('wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16'), 'wgmma.n128', t.count('wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16'), 'regA', t.count('p, 1, 1, 1;'), 'fence', t.count('wgmma.fence'), 'commit', t.count('wgmma.commit_group'), 'cp.async', t.count('cp.async.cg.shared.global'), 'proxy', t.count('fence.proxy.async'), 'bar.sync', t.count('bar.sync'), 'ldmatrix', t.count('ldmatrix'), 'mma.sync', t.count('mma.sync'), 'st.global.b16', t.count('st.global.b16'), 'st.global.b32', t.count('st.global.b32')) for k in ('_3', '_1') for t in [open('%t/attention_d128_kernel' + k + '.ptx').read()]]" | FileCheck %s --check-prefix=COUNT
// COUNT: _3 wgmma.n64 8 wgmma.n128 4 regA 4 fence 2 commit 2 cp.async 40 proxy 1 bar.sync 2 ldmatrix 0 mma.sync 0 st.global.b16 64 st.global.b32 0
// COUNT: _1 wgmma.n64 8 wgmma.n128 4 regA 4 fence 2 commit 2 cp.async 40 proxy 1 bar.sync 2 ldmatrix 0 mma.sync 0 st.global.b16 0 st.global.b32 68
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel_3.ptx -o %t/o.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel_1.ptx -o %t/t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: warpgroup.arrive is injected
// PTXAS-NOT: serialized
// PTXAS: Compiling entry function 'attention_d128_kernel' for 'sm_90a'
// PTXAS-NOT: warpgroup.arrive is injected
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used {{[0-9]+}} registers, used 1 barriers
// PTXAS-NOT: warpgroup.arrive is injected
