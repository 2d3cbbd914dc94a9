// The PTX of decode-sized projections through decoda-lower-to-cuda (decoda-gpu-gemv runs before
// decoda-gpu-tensorcore-matmul): a static T = 1 bf16 Llama K projection (2048 -> 512) is one
// GEMV kernel (16-byte ld.global.v4 of the weight row and of x, f32 fma, five shfl.sync.bfly;
// N = 512 is narrow, so K is split over the 4 warps of a block: 16 bytes of shared partials and
// one barrier) plus the bf16 rounding; the same projection with a dynamic T (prefill) stays on
// the tensor cores (the wgmma kernel on sm_90a). ptxas for sm_90a: no spills for M = 1, M = 8 (bf16, K = 8192: the largest
// taken, no split) and f32 M = 4 (N = 2048, no split).
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/k.ptx
// RUN: FileCheck %s < %t/k.ptx
// CHECK: // gpu.binary @k_proj_decode_kernel
// CHECK: .target sm_90a
// CHECK: .visible .entry k_proj_decode_kernel(
// CHECK: .maxntid 128, 1, 1
// CHECK: .shared .align 16 .b8 __wg_k_proj_decode_kernel_0[16];
// CHECK: ld.global.v4.b32
// CHECK: fma.rn.f32
// CHECK-COUNT-5: shfl.sync.bfly.b32 {{.*}}, {{16|8|4|2|1}}, 31, -1;
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared
// CHECK: st.global.b32
// CHECK: // gpu.binary @k_proj_decode_kernel_0
// CHECK: cvt.rn.bf16.f32
// CHECK: // gpu.binary @k_proj_prefill_kernel
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// RUN: %PYTHON -c "import re, sys; t = open('%t/k.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]; [print(n, 'ld.global.v4', b.count('ld.global.v4'), 'ld.global.v2', b.count('ld.global.v2'), 'shfl.bfly', b.count('shfl.sync.bfly'), 'fma', b.count('fma.rn.f32'), 'mma', b.count('mma.sync'), 'wgmma', b.count('wgmma.mma_async')) for n, b in zip(p[1::2], p[2::2]) if n.endswith('_kernel')]" | FileCheck %s --check-prefix=COUNT
// M = 1 (split): per lane one step of 2 weight + 2 x vectors (8 bf16 each), 16 FMAs; M = 8: per
// unrolled step 4 weight + 32 x vectors, 8 x 5 shuffles; f32 M = 4: 4 weight + 16 x vectors of
// 4 f32.
// COUNT: k_proj_decode_kernel ld.global.v4 4 ld.global.v2 0 shfl.bfly 5 fma 16 mma 0 wgmma 0
// COUNT: down_m8_kernel ld.global.v4 36 ld.global.v2 0 shfl.bfly 40 fma 256 mma 0 wgmma 0
// COUNT: f32_m4_kernel ld.global.v4 20 ld.global.v2 0 shfl.bfly 20 fma 64 mma 0 wgmma 0
// COUNT: k_proj_prefill_kernel ld.global.v4 0 ld.global.v2 0 shfl.bfly 0 fma 0 mma 0 wgmma 2
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/k_proj_decode_kernel.ptx -o %t/m1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/down_m8_kernel.ptx -o %t/m8.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/f32_m4_kernel.ptx -o %t/f32.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used {{[0-9]+}} registers, used {{0|1}} barriers
func.func @k_proj_decode(%x: tensor<1x1x2048xbf16>, %w: tensor<512x2048xbf16>) -> tensor<1x1x512xbf16> {
  %y = decoda.linear %x, %w : tensor<1x1x2048xbf16>, tensor<512x2048xbf16>
  return %y : tensor<1x1x512xbf16>
}
func.func @down_m8(%x: tensor<1x8x8192xbf16>, %w: tensor<2048x8192xbf16>) -> tensor<1x8x2048xbf16> {
  %y = decoda.linear %x, %w : tensor<1x8x8192xbf16>, tensor<2048x8192xbf16>
  return %y : tensor<1x8x2048xbf16>
}
func.func @f32_m4(%x: tensor<4x2048xf32>, %w: tensor<2048x2048xf32>) -> tensor<4x2048xf32> {
  %y = decoda.linear %x, %w : tensor<4x2048xf32>, tensor<2048x2048xf32>
  return %y : tensor<4x2048xf32>
}
func.func @k_proj_prefill(%x: tensor<1x?x2048xbf16>, %w: tensor<512x2048xbf16>) -> tensor<1x?x512xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x2048xbf16>, tensor<512x2048xbf16>
  return %y : tensor<1x?x512xbf16>
}
