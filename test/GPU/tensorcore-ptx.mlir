// The PTX of a bf16 projection (a Llama K projection, 2048 -> 512) through decoda-lower-to-cuda
// for sm_80 (every target but sm_90a, which gets the wgmma kernel of tensorcore-wgmma-ptx.mlir):
// the contraction is a tensor-core kernel (cp.async into .shared tiles, ldmatrix, bf16
// mma.sync m16n8k16 with f32 accumulators, bar.sync around each stage) that rounds its
// accumulators to bf16 itself (the epilogue fused: one cvt.rn.bf16x2.f32 and one 4-byte store
// per pair, no f32 store, no SIMT kernel after it); with ptxas for sm_80 it needs no spills and
// 40 KiB of shared memory.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t/k.ptx
// RUN: FileCheck %s < %t/k.ptx
// T is dynamic: first the GEMV kernels decoda-gpu-gemv dispatches to when T = 1 (SIMT) and
// T <= 16 (mma.sync; gemv-ptx.mlir), then the tensor-core kernel.
// CHECK: // gpu.binary @k_proj_kernel
// CHECK: shfl.sync.bfly
// CHECK: // gpu.binary @k_proj_kernel_0
// CHECK-NOT: shfl.sync
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: // gpu.binary @k_proj_kernel_1
// CHECK: .target sm_80
// CHECK: .visible .entry k_proj_kernel_1(
// CHECK: .maxntid 256, 1, 1
// CHECK-DAG: .shared .align {{[0-9]+}} .b8 __wg_k_proj_kernel_1_0[20480];
// CHECK-DAG: .shared .align {{[0-9]+}} .b8 __wg_k_proj_kernel_1_1[20480];
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group {{[01]}};
// CHECK: bar.sync 0;
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: bar.sync 0;
// CHECK-NOT: st.global.v2
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.b32
// CHECK-NOT: // gpu.binary
// RUN: %PYTHON -c "import re; t = open('%t/k.ptx').read(); m = re.search(r'// gpu.binary @k_proj_kernel_1\n(.*?)(?=// gpu.binary|\\Z)', t, re.S).group(1); open('%t/mma.ptx', 'w').write(m); print('mma.sync', m.count('mma.sync.aligned.m16n8k16'), 'ldmatrix.x4', m.count('ldmatrix.sync.aligned.m8n8.x4'), 'ldmatrix.x2', m.count('ldmatrix.sync.aligned.m8n8.x2'), 'cp.async', m.count('cp.async.cg.shared.global'))" | FileCheck %s --check-prefix=COUNT
// Unrolled: 2 k-slices x (4 A + 2 B ldmatrix.x4, 16 mma) per warp per stage; the prologue and
// the loop each issue 4 copies.
// COUNT: mma.sync 32 ldmatrix.x4 12 ldmatrix.x2 0 cp.async 8
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_80 -v %t/mma.ptx -o %t/mma.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used {{([0-9]|[0-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])}} registers, used 1 barriers, 40960 bytes smem
func.func @k_proj(%x: tensor<1x?x2048xbf16>, %w: tensor<512x2048xbf16>) -> tensor<1x?x512xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x2048xbf16>, tensor<512x2048xbf16>
  return %y : tensor<1x?x512xbf16>
}
