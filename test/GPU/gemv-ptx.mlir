// The PTX of decode-sized projections through decoda-lower-to-cuda (decoda-gpu-gemv runs before
// decoda-gpu-tensorcore-matmul): a static T = 1 bf16 Llama K projection (2048 -> 512) is one
// GEMV kernel (16-byte ld.global.v4 of the weight row and of x, f32 fma, five shfl.sync.bfly;
// N = 512 is narrow, so K is split over the 4 warps of a block: 16 bytes of shared partials and
// one barrier) whose storing lane rounds the sum to bf16 (the epilogue fused: no second kernel,
// no f32 store); the same projection with a dynamic T (prefill) is
// dispatched at run time: the same GEMV kernel when T = 1, the tensor-core GEMV for 16 rows
// (mma.sync m16n8k16 with the weights' 16-byte loads as B fragments; rows past T read row
// T - 1, stores guarded) when 2 <= T <= 16, the tensor cores' tiles otherwise (the wgmma
// kernel on sm_90a). Eight rows (a bf16 down projection, K = 8192) are the tensor-core GEMV
// too: its loop 38 PTX instructions for a lane's 64 weights (8 loads of weights and 8 of x,
// 16 mma.sync) where the SIMT kernel (--gpu-gemv-mma=false, SIMT below) takes 729 for 32
// (every weight and x element converted to f32, 8 FMAs a weight). An INT8
// decode projection (qlinear 2048 -> 512, T = 1) is a GEMV kernel of dp4a.s32.s32 (four per
// 16-byte vector, straight from the loaded registers) and i32 shuffles, and the dequantising
// epilogue in its storing lane (cvt to f32, the scales, the bf16 rounding, a 2-byte store).
// ptxas for sm_90a: no spills for M = 1, M = 8 (bf16, K = 8192; tensor cores and SIMT), f32
// M = 4 (N = 2048, no split), the dynamic-T 16-row kernel and the INT8 M = 1 kernel.
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
// CHECK-NOT: st.global.b32
// CHECK: cvt.rn.bf16.f32
// CHECK: st.global.b16
// CHECK: // gpu.binary @down_m8_kernel
// CHECK-NOT: shfl.sync
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: // gpu.binary @k_proj_prefill_kernel
// CHECK-NOT: mma.sync
// CHECK: shfl.sync.bfly
// CHECK: st.global.b16
// CHECK: // gpu.binary @k_proj_prefill_kernel_0
// CHECK-NOT: shfl.sync
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: st.global.b16
// CHECK: // gpu.binary @k_proj_prefill_kernel_1
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: // gpu.binary @q8_decode_kernel
// The 16-byte loads of x and of the weight row, then four dp4a on their registers in order:
// CHECK: ld.global.v4.b32 {%r[[P0:[0-9]+]], %r[[P1:[0-9]+]], %r[[P2:[0-9]+]], %r[[P3:[0-9]+]]}
// CHECK: ld.global.v4.b32 {%r[[Q0:[0-9]+]], %r[[Q1:[0-9]+]], %r[[Q2:[0-9]+]], %r[[Q3:[0-9]+]]}
// CHECK: dp4a.s32.s32 %r[[S0:[0-9]+]], %r[[P0]], %r[[Q0]], %r{{[0-9]+}};
// CHECK-NEXT: dp4a.s32.s32 %r[[S1:[0-9]+]], %r[[P1]], %r[[Q1]], %r[[S0]];
// CHECK-NEXT: dp4a.s32.s32 %r[[S2:[0-9]+]], %r[[P2]], %r[[Q2]], %r[[S1]];
// CHECK-NEXT: dp4a.s32.s32 %r{{[0-9]+}}, %r[[P3]], %r[[Q3]], %r[[S2]];
// CHECK: shfl.sync.bfly.b32
// CHECK: add.s32
// CHECK: cvt.rn.f32.s32
// CHECK: cvt.rn.bf16.f32
// CHECK: st.global.b16
// CHECK-NOT: // gpu.binary
// RUN: %PYTHON -c "import re, sys; t = open('%t/k.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]; [print(n, 'ld.global.v4', b.count('ld.global.v4'), 'ld.global.v2', b.count('ld.global.v2'), 'shfl.bfly', b.count('shfl.sync.bfly'), 'fma', b.count('fma.rn.f32'), 'mma', b.count('mma.sync'), 'wgmma', b.count('wgmma.mma_async'), 'dp4a', b.count('dp4a.s32.s32')) for n, b in zip(p[1::2], p[2::2]) if n.endswith('_kernel') or n.startswith('k_proj_prefill_kernel_')]" | FileCheck %s --check-prefix=COUNT
// M = 1 (split): per lane one step of 2 weight + 2 x vectors (8 bf16 each), 16 FMAs; M = 8
// (tensor cores, K split over 4 warps): per unrolled step 8 weight + 8 x vectors, 16 mma.sync,
// no shuffles; f32 M = 4: 4 weight + 16 x vectors of 4 f32; the prefill entry: the M = 1 GEMV,
// the 16-row tensor-core GEMV (8 weight + 16 x vectors: rows g and g + 8) and the TMA wgmma
// kernel (4 k16 wgmma per 64-wide k tile); INT8 M = 1 (split over 4
// warps, one 512-byte stride each): 1 weight + 1 x vector of 16 i8, 4 dp4a, no float FMA.
// COUNT: k_proj_decode_kernel ld.global.v4 4 ld.global.v2 0 shfl.bfly 5 fma 16 mma 0 wgmma 0 dp4a 0
// COUNT: down_m8_kernel ld.global.v4 16 ld.global.v2 0 shfl.bfly 0 fma 0 mma 16 wgmma 0 dp4a 0
// COUNT: f32_m4_kernel ld.global.v4 20 ld.global.v2 0 shfl.bfly 20 fma 64 mma 0 wgmma 0 dp4a 0
// COUNT: k_proj_prefill_kernel ld.global.v4 4 ld.global.v2 0 shfl.bfly 5 fma 16 mma 0 wgmma 0 dp4a 0
// COUNT: k_proj_prefill_kernel_0 ld.global.v4 24 ld.global.v2 0 shfl.bfly 0 fma 0 mma 16 wgmma 0 dp4a 0
// COUNT: k_proj_prefill_kernel_1 ld.global.v4 0 ld.global.v2 0 shfl.bfly 0 fma 0 mma 0 wgmma 4 dp4a 0
// COUNT: q8_decode_kernel ld.global.v4 2 ld.global.v2 0 shfl.bfly 5 fma 0 mma 0 wgmma 0 dp4a 4
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/k_proj_decode_kernel.ptx -o %t/m1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/down_m8_kernel.ptx -o %t/m8.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/f32_m4_kernel.ptx -o %t/f32.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/k_proj_prefill_kernel_0.ptx -o %t/m8dyn.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/q8_decode_kernel.ptx -o %t/q8.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// The SIMT kernel of 8 rows (--gpu-gemv-mma=false): per unrolled step 4 weight + 32 x
// vectors, 8 x 5 shuffles, 256 FMAs, no spills.
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a --gpu-gemv-mma=false --emit=ptx -o %t/simt.ptx
// RUN: %PYTHON -c "import re, sys; t = open('%t/simt.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/simt_' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]; [print(n, 'ld.global.v4', b.count('ld.global.v4'), 'shfl.bfly', b.count('shfl.sync.bfly'), 'fma', b.count('fma.rn.f32'), 'mma', b.count('mma.sync')) for n, b in zip(p[1::2], p[2::2]) if n == 'down_m8_kernel']" | FileCheck %s --check-prefix=SIMT
// SIMT: down_m8_kernel ld.global.v4 36 shfl.bfly 40 fma 256 mma 0
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/simt_down_m8_kernel.ptx -o %t/simt8.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
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
func.func @q8_decode(%x: tensor<1x1x2048xi8>, %w: tensor<512x2048xi8>, %xs: tensor<1x1x1xf32>, %ws: tensor<512xf32>) -> tensor<1x1x512xbf16> {
  %y = decoda.qlinear %x, %w, %xs, %ws : tensor<1x1x2048xi8>, tensor<512x2048xi8>, tensor<1x1x1xf32>, tensor<512xf32> -> tensor<1x1x512xbf16>
  return %y : tensor<1x1x512xbf16>
}
