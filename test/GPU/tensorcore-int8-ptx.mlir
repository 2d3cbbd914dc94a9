// The PTX of an INT8 projection (decoda.qlinear, a Llama K projection 2048 -> 512, per-token
// x_scale, per-channel w_scale, bf16 output) through decoda-lower-to-cuda: the i8 x i8 -> i32
// contraction is one tensor-core kernel (cp.async into .shared i8 tiles, ldmatrix, the
// wrapping mma.sync m16n8k32 .s32.s8.s8.s32 with i32 accumulators, bar.sync around each stage)
// whose stores apply the dequantising epilogue (cvt to f32, the two scales, the bf16 rounding
// of a pair, 4-byte stores), as every target but sm_90a gets it (sm_80 here; sm_90a: tensorcore-wgmma-ptx.mlir);
// with ptxas for sm_80 it needs no spills and 40 KiB of shared memory.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t/k.ptx
// RUN: FileCheck %s < %t/k.ptx
// T is dynamic: first the dp4a GEMV kernels for T = 1 and T <= 8 (gemv-ptx.mlir), epilogue fused.
// CHECK: // gpu.binary @k_proj_kernel
// CHECK: dp4a.s32.s32
// CHECK: cvt.rn.bf16.f32
// CHECK: st.global.b16
// CHECK: // gpu.binary @k_proj_kernel_0
// CHECK: shfl.sync.bfly
// CHECK: // gpu.binary @k_proj_kernel_1
// CHECK: .target sm_80
// CHECK: .visible .entry k_proj_kernel_1(
// CHECK: .maxntid 256, 1, 1
// CHECK-DAG: .shared .align 16 .b8 __wg_k_proj_kernel_1_0[20480];
// CHECK-DAG: .shared .align 16 .b8 __wg_k_proj_kernel_1_1[20480];
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group {{[01]}};
// CHECK: bar.sync 0;
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK-NEXT: {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}},
// CHECK-NEXT: {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}},
// CHECK-NEXT: {%r{{[0-9]+}}, %r{{[0-9]+}}},
// CHECK: bar.sync 0;
// CHECK: cvt.rn.f32.s32
// CHECK: mul.rn.f32
// CHECK: mul.rn.f32
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.b32
// CHECK-NOT: // gpu.binary
// The wrapping form (the reference's i32 arithmetic), not upstream's .satfinite:
// RUN: not grep satfinite %t/k.ptx
// RUN: %PYTHON -c "import re; t = open('%t/k.ptx').read(); m = re.search(r'// gpu.binary @k_proj_kernel_1\n(.*)', t, re.S).group(1); open('%t/mma.ptx', 'w').write(m); print('mma.sync', m.count('mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32'), 'ldmatrix.x4', m.count('ldmatrix.sync.aligned.m8n8.x4'), 'ldmatrix.x2', m.count('ldmatrix.sync.aligned.m8n8.x2'), 'cp.async', m.count('cp.async.cg.shared.global'), 'st.b32', m.count('st.global.b32'))" | FileCheck %s --check-prefix=COUNT
// Unrolled: 2 k-slices of 32 i8 x (4 A + 2 B ldmatrix.x4, 16 mma) per warp per 64-wide stage;
// the prologue and the loop each issue 4 copies; 64 accumulators stored two bf16 at a time.
// COUNT: mma.sync 32 ldmatrix.x4 12 ldmatrix.x2 0 cp.async 8 st.b32 32
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_80 -v %t/mma.ptx -o %t/mma.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used {{([0-9]|[0-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])}} registers, used 1 barriers, 40960 bytes smem
func.func @k_proj(%x: tensor<1x?x2048xi8>, %w: tensor<512x2048xi8>, %xs: tensor<1x?x1xf32>, %ws: tensor<512xf32>) -> tensor<1x?x512xbf16> {
  %y = decoda.qlinear %x, %w, %xs, %ws : tensor<1x?x2048xi8>, tensor<512x2048xi8>, tensor<1x?x1xf32>, tensor<512xf32> -> tensor<1x?x512xbf16>
  return %y : tensor<1x?x512xbf16>
}
