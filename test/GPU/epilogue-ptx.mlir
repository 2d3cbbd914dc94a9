// The PTX of a bf16 projection followed by a residual add (decoda.linear, decoda.residual_add;
// one elementwise generic after decoda-fuse-elementwise) with a dynamic T: three kernels, the
// GEMV kernels for T = 1 and for 2 <= T <= 16 (mma.sync on sm_80 and later) and the tensor-core
// kernel otherwise, each storing
// the bf16 result itself; no elementwise kernel after them, no f32 store of the accumulators.
// The GEMV lane stores one bf16 per row (st.global.b16), the tensor-core kernels a rounded pair
// (st.global.b32; LLVM forms the residual add in bf16x2: exact, as f32 has more than 2 * 8 + 2
// bits). The wgmma kernel loads the residual of all its pairs (64 bf16 a thread: 128 columns, two
// rows) before its K loop, unguarded at clamped indices, and none after: under the stores'
// guards each load waited out its own memory latency (measured on an H200: the SwiGLU up kernel
// of the Llama-3.2-1B-shaped block, its gate read that way, took 0.255 ms against the gate
// kernel's 0.137; 0.181 with the loads issued together before the last wait). ptxas for
// sm_90a: no spills. Unfused (fuse-epilogue=false through decoda-opt): four
// kernels, f32 stores, the elementwise kernel last.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/k90.ptx
// RUN: FileCheck %s --check-prefix=SM90 < %t/k90.ptx
// SM90: // gpu.binary @res_kernel
// SM90: shfl.sync.bfly
// SM90-NOT: st.global.b32
// SM90: st.global.b16
// SM90: // gpu.binary @res_kernel_0
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90-NOT: st.global.b32
// SM90: st.global.b16
// SM90: // gpu.binary @res_kernel_1
// SM90-COUNT-64: ld.global.b16
// SM90-NOT: ld.global
// SM90: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// SM90-NOT: ld.global
// SM90: wgmma.wait_group.sync.aligned 0;
// SM90-NOT: {{st.global.v2|ld.global}}
// SM90: cvt.rn.bf16x2.f32
// SM90: st.global.b32
// SM90-NOT: {{ld.global|// gpu.binary}}
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t/k80.ptx
// RUN: FileCheck %s --check-prefix=SM80 < %t/k80.ptx
// SM80: // gpu.binary @res_kernel
// SM80: st.global.b16
// SM80: // gpu.binary @res_kernel_0
// SM80: st.global.b16
// SM80: // gpu.binary @res_kernel_1
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM80-NOT: st.global.v2
// SM80: cvt.rn.bf16x2.f32
// SM80: st.global.b32
// SM80-NOT: // gpu.binary
// RUN: decoda-opt %s --decoda-lower-to-cuda="format=isa fuse-epilogue=false" --mlir-print-ir-before=decoda-lower-runtime-checks 2>%t/u-host.mlir >%t/u-out.mlir
// RUN: %PYTHON %S/Inputs/opt_ptx.py %t/u-host.mlir %t/u-out.mlir %t/u %t/u.ptx
// RUN: FileCheck %s --check-prefix=UNFUSED < %t/u.ptx
// UNFUSED: // gpu.binary @res_kernel
// UNFUSED-NOT: st.global.b16
// UNFUSED: st.global.b32
// UNFUSED: // gpu.binary @res_kernel_0
// UNFUSED-NOT: st.global.b16
// UNFUSED: st.global.b32
// UNFUSED: // gpu.binary @res_kernel_1
// UNFUSED: st.global.v2.b32
// UNFUSED: // gpu.binary @res_kernel_2
// UNFUSED: st.global.b16
// UNFUSED-NOT: // gpu.binary
// RUN: %PYTHON -c "import re, sys; t = open('%t/k90.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]"
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/res_kernel.ptx -o %t/g.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/res_kernel_0.ptx -o %t/g8.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if cuda-toolkit %{ %ptxas -arch=sm_90a -v %t/res_kernel_1.ptx -o %t/w.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @res(%x: tensor<1x?x2048xbf16>, %w: tensor<512x2048xbf16>, %r: tensor<1x?x512xbf16>) -> tensor<1x?x512xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x2048xbf16>, tensor<512x2048xbf16>
  %o = decoda.residual_add %r, %y : tensor<1x?x512xbf16>
  return %o : tensor<1x?x512xbf16>
}
