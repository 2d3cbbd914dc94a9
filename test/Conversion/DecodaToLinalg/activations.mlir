// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s --check-prefix=NODECODA

// Lowering of glu and softcap: one elementwise generic each, evaluated in f32.

// NODECODA-NOT: {{^[^"]*decoda\.}}

// SwiGLU, f32: silu(g) * u with silu = g * 1 / (1 + exp(-g)).
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @glu_swiglu(
// CHECK-SAME:    %[[G:[a-z0-9]+]]: tensor<2x16x256xf32>, %[[U:[a-z0-9]+]]: tensor<2x16x256xf32>)
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[G]], %[[U]] : tensor<2x16x256xf32>, tensor<2x16x256xf32>)
// CHECK-NEXT:    ^bb0(%[[GV:[a-z0-9_]+]]: f32, %[[UV:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[GV]] : f32
// CHECK-NEXT:      %[[EXP:.*]] = math.exp %[[NEG]] : f32
// CHECK-NEXT:      %[[DEN:.*]] = arith.addf %{{.*}}, %[[EXP]] : f32
// CHECK-NEXT:      %[[SIG:.*]] = arith.divf %{{.*}}, %[[DEN]] : f32
// CHECK-NEXT:      %[[SILU:.*]] = arith.mulf %[[GV]], %[[SIG]] : f32
// CHECK-NEXT:      %[[H:.*]] = arith.mulf %[[SILU]], %[[UV]] : f32
// CHECK-NEXT:      linalg.yield %[[H]] : f32
// CHECK:         return %[[Y]]
func.func @glu_swiglu(%g: tensor<2x16x256xf32>, %u: tensor<2x16x256xf32>) -> tensor<2x16x256xf32> {
  %h = decoda.glu %g, %u {kind = #decoda.glu<swiglu>} : tensor<2x16x256xf32>
  return %h : tensor<2x16x256xf32>
}

// -----

// Clamped SwiGLU in bf16 with a dynamic dim: gate bounded above by L, linear branch clamped to
// [-L, L], computed in f32 and rounded.
// CHECK-LABEL: func.func @glu_clamped_bf16(
// CHECK-SAME:    %[[G:[a-z0-9]+]]: tensor<?x256xbf16>, %[[U:[a-z0-9]+]]: tensor<?x256xbf16>)
// CHECK-DAG:     %[[L:.*]] = arith.constant 1.000000e+01 : f32
// CHECK-DAG:     %[[NL:.*]] = arith.constant -1.000000e+01 : f32
// CHECK:         %[[D0:.*]] = tensor.dim %[[G]], %c0
// CHECK:         %[[E:.*]] = tensor.empty(%[[D0]]) : tensor<?x256xbf16>
// CHECK:         linalg.generic {{.*}} ins(%[[G]], %[[U]] : tensor<?x256xbf16>, tensor<?x256xbf16>) outs(%[[E]] : tensor<?x256xbf16>)
// CHECK-NEXT:    ^bb0(%[[GV:[a-z0-9_]+]]: bf16, %[[UV:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: bf16):
// CHECK-NEXT:      %[[GF:.*]] = arith.extf %[[GV]] : bf16 to f32
// CHECK-NEXT:      %[[UF:.*]] = arith.extf %[[UV]] : bf16 to f32
// CHECK-NEXT:      %[[GC:.*]] = arith.minimumf %[[GF]], %[[L]] : f32
// CHECK-NEXT:      %[[UC1:.*]] = arith.minimumf %[[UF]], %[[L]] : f32
// CHECK-NEXT:      %[[UC:.*]] = arith.maximumf %[[UC1]], %[[NL]] : f32
// CHECK:           %[[SILU:.*]] = arith.mulf %[[GC]], %{{.*}} : f32
// CHECK-NEXT:      %[[H:.*]] = arith.mulf %[[SILU]], %[[UC]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[H]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
func.func @glu_clamped_bf16(%g: tensor<?x256xbf16>, %u: tensor<?x256xbf16>) -> tensor<?x256xbf16> {
  %h = decoda.glu %g, %u {kind = #decoda.glu<clamped_swiglu, limit = 10.0>} : tensor<?x256xbf16>
  return %h : tensor<?x256xbf16>
}

// -----

// SiTU-GLU, f16: β1·tanh(g/β1) · σ(g) · β2·tanh(u/β2).
// CHECK-LABEL: func.func @glu_situ_f16(
// CHECK-DAG:     %[[B1:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-DAG:     %[[IB1:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG:     %[[B2:.*]] = arith.constant 2.500000e+01 : f32
// CHECK-DAG:     %[[IB2:.*]] = arith.constant 4.000000e-02 : f32
// CHECK:         linalg.generic
// CHECK:           %[[GF:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:           %[[UF:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:           arith.mulf %[[GF]], %[[IB1]] : f32
// CHECK:           math.tanh
// CHECK:           arith.mulf %[[B1]], %{{.*}} : f32
// CHECK:           arith.mulf %[[UF]], %[[IB2]] : f32
// CHECK:           math.tanh
// CHECK:           arith.mulf %[[B2]], %{{.*}} : f32
// CHECK:           arith.truncf %{{.*}} : f32 to f16
func.func @glu_situ_f16(%g: tensor<8x32xf16>, %u: tensor<8x32xf16>) -> tensor<8x32xf16> {
  %h = decoda.glu %g, %u {kind = #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0>} : tensor<8x32xf16>
  return %h : tensor<8x32xf16>
}

// -----

// GeGLU (erf) and GeGLU (tanh).
// CHECK-LABEL: func.func @glu_geglu(
// CHECK:         linalg.generic
// CHECK:           math.erf
// CHECK:         linalg.generic
// CHECK:           math.tanh
func.func @glu_geglu(%g: tensor<8xf32>, %u: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = decoda.glu %g, %u {kind = #decoda.glu<geglu>} : tensor<8xf32>
  %b = decoda.glu %g, %u {kind = #decoda.glu<geglu_tanh>} : tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// softcap in f16: cap * tanh(x * (1 / cap)), in f32.
// CHECK-LABEL: func.func @softcap_f16(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x1000xf16>)
// CHECK-DAG:     %[[INV:.*]] = arith.constant 0.0333333351 : f32
// CHECK-DAG:     %[[CAP:.*]] = arith.constant 3.000000e+01 : f32
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]{{.*}} ins(%[[X]] : tensor<2x16x1000xf16>) outs(%{{.*}} : tensor<2x16x1000xf16>)
// CHECK-NEXT:    ^bb0(%[[V:[a-z0-9_]+]]: f16, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT:      %[[F:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.mulf %[[F]], %[[INV]] : f32
// CHECK-NEXT:      %[[T:.*]] = math.tanh %[[S]] : f32
// CHECK-NEXT:      %[[C:.*]] = arith.mulf %[[CAP]], %[[T]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.truncf %[[C]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[R]] : f16
// CHECK:         return %[[Y]]
func.func @softcap_f16(%x: tensor<2x16x1000xf16>) -> tensor<2x16x1000xf16> {
  %y = decoda.softcap %x {cap = 3.0e+01 : f64} : tensor<2x16x1000xf16>
  return %y : tensor<2x16x1000xf16>
}

// -----

// An infinite cap is the identity (the pass runs without folding, so the lowering handles it).
// CHECK-LABEL: func.func @softcap_inf(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x8xbf16>)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[X]]
func.func @softcap_inf(%x: tensor<?x8xbf16>) -> tensor<?x8xbf16> {
  %y = decoda.softcap %x {cap = 0x7FF0000000000000 : f64} : tensor<?x8xbf16>
  return %y : tensor<?x8xbf16>
}
