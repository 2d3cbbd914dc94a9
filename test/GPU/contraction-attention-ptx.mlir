// decoda-lower-to-cuda on f32 projections and attention. f32 contractions are SIMT loops
// (one output element per thread, a multiply and an add per k step from global memory; no TF32
// tensor cores, docs/GPU.md; bf16 ones: tensorcore-ptx.mlir), after a run-time dispatch that
// takes the GEMV kernel when T = 1 (gemv-ptx.mlir). Attention with a dynamic T is the
// flash-decoding pair (split kernel and combine, when the rows of a K/V head fit one block) and
// the one-pass flash-attention kernel (numerics: flash-attention-sim.mlir,
// flash-decoding-sim.mlir).
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a --emit=ptx -o - | FileCheck %s

// CHECK: // gpu.binary @linear_kernel
// CHECK: .visible .entry linear_kernel(
// CHECK: shfl.sync.bfly.b32
// CHECK: // gpu.binary @linear_kernel_{{[0-9]+}}
// CHECK: .target sm_90a
// CHECK-DAG: %ctaid.y
// CHECK-DAG: %tid.y
// CHECK: [[LOOP:\$L__BB[0-9_]+]]:
// CHECK: ld.global
// CHECK: mul.rn.f32
// CHECK: add.rn.f32
// CHECK: @%p{{[0-9]+}} bra [[LOOP]]
func.func @linear(%x: tensor<1x?x256xf32>, %w: tensor<512x256xf32>) -> tensor<1x?x512xf32> {
  %y = decoda.linear %x, %w : tensor<1x?x256xf32>, tensor<512x256xf32>
  return %y : tensor<1x?x512xf32>
}

// Attention (decoda-gpu-flash-attention): the split kernel, shared Q/K/V tiles (16-byte
// aligned), two barriers per key tile, butterfly shuffles for the row max and sum, indexed
// shuffles for the P·V broadcast, exponentials, its partials stored to global memory; the
// combine (no shared memory: exponentials of the partial maxima); the one-pass kernel, the
// same tiles; nothing after it.
// CHECK: // gpu.binary @attention_kernel
// CHECK: .visible .entry attention_kernel(
// CHECK-DAG: .shared .align 16 .b8 __wg_attention_kernel_0[2048];
// CHECK-DAG: .shared .align 16 .b8 __wg_attention_kernel_1[4224];
// CHECK-DAG: .shared .align 16 .b8 __wg_attention_kernel_2[4224];
// CHECK: bar.sync 0;
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: shfl.sync.bfly.b32
// CHECK: ex2.approx
// CHECK: shfl.sync.idx.b32
// CHECK: // gpu.binary @attention_kernel_{{[0-9]+}}
// CHECK-NOT: .shared
// CHECK: ex2.approx
// CHECK: // gpu.binary @attention_kernel_[[ONE:[0-9]+]]
// CHECK: .visible .entry attention_kernel_[[ONE]](
// CHECK-DAG: .shared .align 16 .b8 __wg_attention_kernel_[[ONE]]_0[2048];
// CHECK-DAG: .shared .align 16 .b8 __wg_attention_kernel_[[ONE]]_1[4224];
// CHECK-DAG: .shared .align 16 .b8 __wg_attention_kernel_[[ONE]]_2[4224];
// CHECK: bar.sync 0;
// CHECK: shfl.sync.idx.b32
// CHECK-NOT: // gpu.binary
func.func @attention(%q: tensor<1x?x8x32xf32>, %k: tensor<1x?x2x32xf32>,
                     %v: tensor<1x?x2x32xf32>) -> tensor<1x?x8x32xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x8x32xf32>, tensor<1x?x2x32xf32>, tensor<1x?x2x32xf32>
  return %o : tensor<1x?x8x32xf32>
}
