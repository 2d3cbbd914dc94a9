// decoda-lower-to-cuda on the elementwise and row-reduction families (norms with their residual
// add, RoPE, GLU activations) for sm_90a with PTX 8.0. The residual add and its RMSNorm (fused
// into add_rms_norm by the graph passes) are one row kernel (decoda-gpu-row-norm: a block per
// row, here one warp for 256 features, the row sum a butterfly of shuffles, both results
// stored by the same kernel); the elementwise kernels are grids of 32x8-thread blocks over
// the output, innermost dimension on threadIdx.x, guarded for the ragged edge.
// No GPU is needed: --emit=ptx stops before ptxas.
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a --emit=ptx -o - | FileCheck %s

// CHECK: // gpu.binary @residual_norm_kernel
// CHECK: .version 8.0
// CHECK: .target sm_90a
// CHECK: .visible .entry residual_norm_kernel(
// CHECK: .maxntid 32, 1, 1
// CHECK-DAG: mov.u32 {{.*}}%ctaid.x
// CHECK-DAG: mov.u32 {{.*}}%tid.x
// CHECK: ld.global
// CHECK: add.rn.f32
// CHECK: st.global
// CHECK-COUNT-5: shfl.sync.bfly.b32
// The normalisation: 1/sqrt of the mean square.
// CHECK: rsqrt.approx.f32
// CHECK: st.global
// CHECK-NOT: // gpu.binary @residual_norm_kernel_
func.func @residual_norm(%h: tensor<1x?x256xf32>, %r: tensor<1x?x256xf32>,
                         %w: tensor<256xf32>) -> (tensor<1x?x256xf32>, tensor<1x?x256xf32>) {
  %s = decoda.residual_add %h, %r : tensor<1x?x256xf32>
  %y = decoda.rms_norm %s, %w {eps = 1.0e-05 : f64} : tensor<1x?x256xf32>, tensor<256xf32>
  return %y, %s : tensor<1x?x256xf32>, tensor<1x?x256xf32>
}

// CHECK: // gpu.binary @rope_kernel
// CHECK: .visible .entry rope_kernel(
// CHECK: %tid.x
// CHECK: ld.global
// CHECK: st.global
func.func @rope(%q: tensor<1x?x8x32xf32>) -> tensor<1x?x8x32xf32> {
  %r = decoda.rope %q {theta = 5.0e+05 : f64} : tensor<1x?x8x32xf32>
  return %r : tensor<1x?x8x32xf32>
}

// CHECK: // gpu.binary @swiglu_kernel
// CHECK: .visible .entry swiglu_kernel(
// SiLU's exponential.
// CHECK: ex2.approx
func.func @swiglu(%g: tensor<1x?x768xf32>, %u: tensor<1x?x768xf32>) -> tensor<1x?x768xf32> {
  %y = decoda.glu %g, %u {kind = #decoda.glu<swiglu>} : tensor<1x?x768xf32>
  return %y : tensor<1x?x768xf32>
}
