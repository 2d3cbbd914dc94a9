// The PTX of a bf16 projection (a Llama K projection, 2048 -> 512) through decoda-lower-to-cuda
// for sm_90a. By default the wgmma kernel is fed by TMA (TMA section below); with --gpu-tma=false
// by cp.async: two warpgroups; three cp.async stages of
// 128 x 32 bf16 for A and B in the no-swizzle core-matrix layout; per k tile: cp.async.wait_group,
// fence.proxy.async, one bar.sync, the refill of the next stage, then wgmma.fence, two
// wgmma.mma_async m64n128k16 on shared-memory descriptors, wgmma.commit_group and
// wgmma.wait_group 1) that stores its accumulators rounded to bf16 (the epilogue fused: one
// cvt.rn.bf16x2.f32 and one 4-byte store per pair, no SIMT kernel after it). ptxas for sm_90a: no spills, 48 KiB of
// shared memory, and no serialization of the wgmma (its accumulators stay in place across the
// loop).
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a --gpu-tma=false --emit=ptx -o %t/k.ptx
// RUN: FileCheck %s < %t/k.ptx
// T is dynamic: first the GEMV kernels decoda-gpu-gemv dispatches to when T = 1 (SIMT) and
// T <= 16 (mma.sync; gemv-ptx.mlir), then the tensor-core kernel.
// CHECK: // gpu.binary @k_proj_kernel
// CHECK: shfl.sync.bfly
// CHECK: // gpu.binary @k_proj_kernel_0
// CHECK-NOT: shfl.sync
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: // gpu.binary @k_proj_kernel_1
// CHECK: .target sm_90a
// CHECK: .visible .entry k_proj_kernel_1(
// CHECK: .maxntid 256, 1, 1
// CHECK-DAG: .shared .align {{[0-9]+}} .b8 __wg_k_proj_kernel_1_0[24576];
// CHECK-DAG: .shared .align {{[0-9]+}} .b8 __wg_k_proj_kernel_1_1[24576];
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.commit_group;
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {[[ACC:%r[0-9]+, %r[0-9]+]], {{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {[[ACC]], {{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: cp.async.wait_group 0;
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync 0;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: st.global.v2
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.b32
// CHECK-NOT: // gpu.binary
// RUN: %PYTHON -c "import re; t = open('%t/k.ptx').read(); m = re.search(r'// gpu.binary @k_proj_kernel_1\n(.*?)(?=// gpu.binary|\\Z)', t, re.S).group(1); open('%t/wgmma.ptx', 'w').write(m); print(*[k + ' ' + str(m.count(k)) for k in ('wgmma.mma_async', 'wgmma.fence', 'wgmma.commit_group', 'wgmma.wait_group', 'cp.async.cg.shared.global', 'cp.async.commit_group', 'cp.async.wait_group', 'fence.proxy.async', 'bar.sync', 'mma.sync', 'ldmatrix')])" | FileCheck %s --check-prefix=COUNT
// Per k tile (the loop body, also the only copy of each): 2 wgmma (k16 each), 1 fence, 1
// commit, 1 wait; 4 cp.async of 16 bytes per thread (2 for A, 2 for B), 1 commit, 1 wait, 1
// proxy fence, 1 barrier. The prologue issues 4 more copies, the epilogue the final wait.
// COUNT: wgmma.mma_async 2 wgmma.fence 1 wgmma.commit_group 1 wgmma.wait_group 2 cp.async.cg.shared.global 8 cp.async.commit_group 2 cp.async.wait_group 1 fence.proxy.async 1 bar.sync 1 mma.sync 0 ldmatrix 0
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/wgmma.ptx -o %t/wgmma.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// PTXAS-NOT: serialized
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: serialized
// PTXAS: Used {{([0-9]|[0-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])}} registers, used 1 barriers, 49152 bytes smem
// PTXAS-NOT: serialized
// The same projection for sm_90 (without the "a" features: no wgmma) keeps mma.sync.
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90 --emit=ptx -o %t/k90.ptx
// RUN: FileCheck %s --check-prefix=MMA < %t/k90.ptx
// MMA-NOT: wgmma
// MMA: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// MMA-NOT: wgmma
// INT8 (the decoda.qlinear of tensorcore-int8-ptx.mlir: K = 2048, per-token and per-channel
// scales, bf16 output) on sm_90a, cp.async: wgmma.mma_async m64n128k32 .s32.s8.s8 (wrapping, no
// .satfinite) on the same 64-byte stage rows, the dequantising epilogue in the stores (a pair
// of bf16 per 4-byte store).
// RUN: decoda-compile %S/tensorcore-int8-ptx.mlir --target=cuda --gpu-arch=sm_90a --gpu-tma=false --emit=ptx -o %t/i8.ptx
// RUN: FileCheck %s --check-prefix=INT8 < %t/i8.ptx
// T is dynamic: first the dp4a GEMV kernel for T = 1 (its epilogue fused too: one bf16 store).
// INT8: // gpu.binary @k_proj_kernel
// INT8: dp4a.s32.s32
// INT8: st.global.b16
// INT8: // gpu.binary @k_proj_kernel_0
// INT8: shfl.sync.bfly
// INT8: // gpu.binary @k_proj_kernel_1
// INT8: .maxntid 256, 1, 1
// INT8: wgmma.fence.sync.aligned;
// INT8: wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p;
// INT8: wgmma.wait_group.sync.aligned 1;
// INT8: wgmma.wait_group.sync.aligned 0;
// INT8: cvt.rn.f32.s32
// INT8: cvt.rn.bf16x2.f32
// INT8: st.global.b32
// RUN: %PYTHON -c "import re; t = open('%t/i8.ptx').read(); m = re.search(r'// gpu.binary @k_proj_kernel_1\n(.*)', t, re.S).group(1); open('%t/i8k.ptx', 'w').write(m); print(*[k + ' ' + str(m.count(k)) for k in ('wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8', 'wgmma.wait_group', 'cp.async.cg.shared.global', 'fence.proxy.async', 'bar.sync', 'mma.sync', 'satfinite', 'st.global.b16', 'st.global.b32')])" | FileCheck %s --check-prefix=COUNT8
// COUNT8: wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 2 wgmma.wait_group 2 cp.async.cg.shared.global 8 fence.proxy.async 1 bar.sync 1 mma.sync 0 satfinite 0 st.global.b16 0 st.global.b32 32
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/i8k.ptx -o %t/i8k.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS8 %}
// PTXAS8-NOT: serialized
// PTXAS8: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS8: Used {{([0-9]|[0-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])}} registers, used 1 barriers, 49152 bytes smem
// PTXAS8-NOT: serialized
// TMA (the default for sm_90a): the same projection's wgmma kernel has no static shared arrays
// but the dynamic bytes (LLVM declares gpu.dynamic_shared_memory's zero-size global as a demoted
// .shared byte; the launch's dynamic bytes follow it); thread 0 inits four mbarriers, fences the
// init, and after the barrier loads three stages (expect_tx, then A's and B's box by
// cp.async.bulk.tensor.2d with mbarrier::complete_tx); per k tile: one try_wait.parity loop,
// wgmma.fence, four k16 wgmma (64 bf16 per 128-byte swizzled row) on descriptors with the
// 128B-swizzle bits (or 4611686293305360384 = 1 << 62 | 64 << 32 | 1 << 16), commit, wait 1,
// bar.sync, thread 0's refill (one expect_tx, two loads); the same fused bf16 stores.
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/tma.ptx
// RUN: FileCheck %s --check-prefix=TMA < %t/tma.ptx
// TMA: // gpu.binary @k_proj_kernel_0
// TMA: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// TMA: // gpu.binary @k_proj_kernel_1
// TMA: .visible .entry k_proj_kernel_1(
// TMA: .maxntid 256, 1, 1
// TMA-NOT: __wg_k_proj_kernel_1
// TMA: .shared .align 16 .b8 __dynamic_shmem__0;
// TMA-COUNT-4: mbarrier.init.shared.b64
// TMA: fence.mbarrier_init.release.cluster;
// TMA: bar.sync 0;
// TMA: mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [[[BAR:%rd[0-9]+]]], [[TX:%r[0-9]+]];
// TMA: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [[[MAPA:%rd[0-9]+]], {[[K0:%r[0-9]+]], %r{{[0-9]+}}}], [[[BAR]]];
// TMA: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [[[MAPB:%rd[0-9]+]], {[[K0]], %r{{[0-9]+}}}], [[[BAR]]];
// TMA: mbarrier.try_wait.parity.shared.b64 P1, [%r{{[0-9]+}}], %r{{[0-9]+}}, %r{{[0-9]+}};
// TMA: wgmma.fence.sync.aligned;
// TMA: or.b64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 4611686293305360384;
// TMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// TMA: wgmma.commit_group.sync.aligned;
// TMA: wgmma.wait_group.sync.aligned 1;
// TMA: bar.sync 0;
// TMA: mbarrier.arrive.expect_tx.shared.b64
// TMA: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [[[MAPA]], {
// TMA: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [[[MAPB]], {
// TMA: wgmma.wait_group.sync.aligned 0;
// TMA: cvt.rn.bf16x2.f32
// TMA: st.global.b32
// RUN: %PYTHON -c "import re; t = open('%t/tma.ptx').read(); m = re.search(r'// gpu.binary @k_proj_kernel_1\n(.*?)(?=// gpu.binary|\Z)', t, re.S).group(1); open('%t/tmak.ptx', 'w').write(m); print(*[k + ' ' + str(m.count(k)) for k in ('wgmma.mma_async', 'wgmma.fence', 'wgmma.commit_group', 'wgmma.wait_group', 'cp.async.bulk.tensor.2d', 'mbarrier.init', 'mbarrier.arrive.expect_tx', 'mbarrier.try_wait.parity', 'cp.async.cg', 'bar.sync', 'mma.sync', 'ldmatrix', 'st.global.b32')])" | FileCheck %s --check-prefix=TMACOUNT
// Prologue: 4 inits, 3 x (expect_tx + 2 loads); loop body (the only copy): 4 wgmma, 1 fence,
// 1 commit, 1 wait, 1 try_wait, 1 barrier, 1 expect_tx + 2 loads; the final wait; 32 stores of
// a bf16 pair (64 accumulators a thread).
// TMACOUNT: wgmma.mma_async 4 wgmma.fence 1 wgmma.commit_group 1 wgmma.wait_group 2 cp.async.bulk.tensor.2d 8 mbarrier.init 4 mbarrier.arrive.expect_tx 4 mbarrier.try_wait.parity 1 cp.async.cg 0 bar.sync 2 mma.sync 0 ldmatrix 0 st.global.b32 32
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/tmak.ptx -o %t/tmak.cubin 2>&1 | FileCheck %s --check-prefix=PTXASTMA %}
// PTXASTMA-NOT: serialized
// PTXASTMA: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXASTMA: Used {{([0-9]|[0-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])}} registers, used 1 barriers
// PTXASTMA-NOT: serialized
// Warp-specialised (--gpu-warp-specialize): 384 threads; 8 mbarrier inits (full and empty per
// stage), one bar.sync (after them); the producer's loop (its one empty wait, expect_tx and two
// loads); the MMA loop, which LLVM peels once (8 = 2 x 4 wgmma, 2 full waits, one release per
// warp after wgmma.wait_group 1); ptxas as above.
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a --gpu-warp-specialize --emit=ptx -o %t/ws.ptx
// RUN: %PYTHON -c "import re; t = open('%t/ws.ptx').read(); m = re.search(r'// gpu.binary @k_proj_kernel_1\n(.*?)(?=// gpu.binary|\Z)', t, re.S).group(1); open('%t/wsk.ptx', 'w').write(m); print(re.search(r'\.maxntid [0-9]+', m).group(0), *[k + ' ' + str(m.count(k)) for k in ('wgmma.mma_async', 'cp.async.bulk.tensor.2d', 'mbarrier.init', 'mbarrier.arrive.expect_tx', 'mbarrier.arrive.shared', 'mbarrier.try_wait.parity', 'bar.sync')])" | FileCheck %s --check-prefix=WSCOUNT
// WSCOUNT: .maxntid 384 wgmma.mma_async 8 cp.async.bulk.tensor.2d 2 mbarrier.init 8 mbarrier.arrive.expect_tx 1 mbarrier.arrive.shared 1 mbarrier.try_wait.parity 3 bar.sync 1
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/wsk.ptx -o %t/wsk.cubin 2>&1 | FileCheck %s --check-prefix=PTXASTMA %}
// INT8 with TMA loads (K = 2048 of i8 is 16 tiles of 128; four k32 .s8 wgmma per tile, the same loads).
// RUN: decoda-compile %S/tensorcore-int8-ptx.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/i8tma.ptx
// RUN: %PYTHON -c "import re; t = open('%t/i8tma.ptx').read(); m = re.search(r'// gpu.binary @k_proj_kernel_1\n(.*)', t, re.S).group(1); open('%t/i8tmak.ptx', 'w').write(m); print(*[k + ' ' + str(m.count(k)) for k in ('wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8', 'wgmma.wait_group', 'cp.async.bulk.tensor.2d', 'mbarrier.try_wait.parity', 'cp.async.cg.shared.global', 'bar.sync', 'mma.sync', 'satfinite', 'st.global.b16', 'st.global.b32')])" | FileCheck %s --check-prefix=COUNT8TMA
// COUNT8TMA: wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 4 wgmma.wait_group 2 cp.async.bulk.tensor.2d 8 mbarrier.try_wait.parity 1 cp.async.cg.shared.global 0 bar.sync 2 mma.sync 0 satfinite 0 st.global.b16 0 st.global.b32 32
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/i8tmak.ptx -o %t/i8tmak.cubin 2>&1 | FileCheck %s --check-prefix=PTXASTMA %}
func.func @k_proj(%x: tensor<1x?x2048xbf16>, %w: tensor<512x2048xbf16>) -> tensor<1x?x512xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x2048xbf16>, tensor<512x2048xbf16>
  return %y : tensor<1x?x512xbf16>
}
