// decoda-gpu-rope: each tagged RoPE rotation (decoda-convert-to-linalg{gpu-kernel-calls}) becomes
// one kernel with its cos/sin table in shared memory; the table generic is erased. Numerics:
// rope-sim.mlir (PTX interpreter against the NumPy reference, bit-identical to the generic
// lowering).
// RUN: decoda-opt %s --split-input-file --pass-pipeline="builtin.module(decoda-convert-to-linalg{gpu-kernel-calls=true},func.func(convert-elementwise-to-linalg),canonicalize,cse,func.func(decoda-fuse-elementwise),canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize,func.func(decoda-gpu-rope))" 2>/dev/null | FileCheck %s
// RUN: decoda-opt %s --split-input-file --pass-pipeline="builtin.module(decoda-convert-to-linalg{gpu-kernel-calls=true},func.func(convert-elementwise-to-linalg),canonicalize,cse,func.func(decoda-fuse-elementwise),canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize,func.func(decoda-gpu-rope))" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// The float-op fingerprint: a rotation tag whose count no longer matches its body is refused.
// RUN: decoda-opt %s --split-input-file --pass-pipeline="builtin.module(decoda-convert-to-linalg{gpu-kernel-calls=true},func.func(convert-elementwise-to-linalg),canonicalize,cse,func.func(decoda-fuse-elementwise),canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize)" | sed 's/float_ops = \([0-9]*\)/float_ops = 99/' | decoda-opt --split-input-file --pass-pipeline="builtin.module(func.func(decoda-gpu-rope))" 2>&1 >/dev/null | FileCheck %s --check-prefix=TAMPER

// bf16, dynamic T, positions: 4 heads x 4 chunks of 8 pairs = 16 work items a token, 16 tokens
// a block (a 16 x 32 table); the work-item loop twice: vector accesses when the views are
// aligned, element by element otherwise.
// CHECK-LABEL: func.func @half_split_bf16
// CHECK-NOT: linalg.generic
// CHECK: memref.extract_strided_metadata
// CHECK: arith.ceildivui %{{.*}}, %c16
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>)
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: math.cos
// CHECK: math.sin
// CHECK: gpu.barrier
// CHECK: scf.if %{{.*}} {
// CHECK: scf.for
// CHECK: vector.load %arg0{{.*}} {alignment = 16 : i64} : memref<1x?x4x64xbf16>, vector<8xbf16>
// CHECK: arith.negf %{{.*}} : vector<8xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<1x?x4x64xbf16>, vector<8xbf16>
// CHECK: } else {
// CHECK: scf.for
// CHECK: memref.load %arg0
// CHECK: vector.from_elements
// CHECK: memref.store
// CHECK-NOT: linalg.generic
// TAMPER-COUNT-5: remark: decoda-gpu-rope: this rope keeps the generic lowering: its body changed since lowering (fused with another op)
// TAMPER-NOT: remark
func.func @half_split_bf16(%x: tensor<1x?x4x64xbf16>, %pos: tensor<?xi64>) -> tensor<1x?x4x64xbf16> {
  %y = decoda.rope %x positions(%pos : tensor<?xi64>) {theta = 5.0e+05 : f64} : tensor<1x?x4x64xbf16>
  return %y : tensor<1x?x4x64xbf16>
}

// -----

// f32 interleaved over 64 of 96 features with YaRN (attention factor folded into cos/sin):
// chunks of 4 features (2 pairs; cos/sin duplicated and partners swapped by shuffles), 8
// pass-through chunks a head.
// CHECK-LABEL: func.func @interleaved_yarn_f32
// CHECK: gpu.launch
// CHECK: math.cos
// CHECK: arith.mulf %{{.*}}, %cst
// CHECK: gpu.barrier
// CHECK: vector.shuffle %{{.*}} [0, 0, 1, 1] : vector<2xf32>, vector<2xf32>
// CHECK: vector.shuffle %{{.*}} [1, 0, 3, 2] : vector<4xf32>, vector<4xf32>
// CHECK: vector.shuffle %{{.*}} [0, 5, 2, 7] : vector<4xf32>, vector<4xf32>
// CHECK-NOT: linalg.generic
func.func @interleaved_yarn_f32(%x: tensor<2x5x2x96xf32>, %pos: tensor<2x5xi32>) -> tensor<2x5x2x96xf32> {
  %y = decoda.rope %x positions(%pos : tensor<2x5xi32>) {theta = 1.0e+04 : f64, rotary_dim = 64 : i64, layout = #decoda.rope_layout<interleaved>, scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096>} : tensor<2x5x2x96xf32>
  return %y : tensor<2x5x2x96xf32>
}

// -----

// q and k of one position share one table generic: two kernels, the table erased once both
// read it no more.
// CHECK-LABEL: func.func @qk_bf16
// CHECK-NOT: linalg.generic
// CHECK-COUNT-2: gpu.launch
// CHECK-NOT: linalg.generic
func.func @qk_bf16(%q: tensor<1x1x32x64xbf16>, %k: tensor<1x1x8x64xbf16>, %pos: tensor<1xi64>) -> (tensor<1x1x32x64xbf16>, tensor<1x1x8x64xbf16>) {
  %qr = decoda.rope %q positions(%pos : tensor<1xi64>) {theta = 5.0e+05 : f64} : tensor<1x1x32x64xbf16>
  %kr = decoda.rope %k positions(%pos : tensor<1xi64>) {theta = 5.0e+05 : f64} : tensor<1x1x8x64xbf16>
  return %qr, %kr : tensor<1x1x32x64xbf16>, tensor<1x1x8x64xbf16>
}

// -----

// Negative: an elementwise consumer fused into the rotation (decoda-fuse-elementwise makes a
// new generic without the tag): the generic lowering stays, table included.
// CHECK-LABEL: func.func @fused_consumer
// CHECK-NOT: gpu.launch
// CHECK: math.cos
// CHECK: linalg.generic
// CHECK-NOT: gpu.launch
func.func @fused_consumer(%x: tensor<1x3x2x64xf32>) -> tensor<1x3x2x64xf32> {
  %y = decoda.rope %x {theta = 1.0e+04 : f64} : tensor<1x3x2x64xf32>
  %z = arith.mulf %y, %x : tensor<1x3x2x64xf32>
  return %z : tensor<1x3x2x64xf32>
}

// -----

// Negative: interleaved pairs with an odd number of features past rotary_dim (no vector width
// of at least one pair divides both): a remark, the generic lowering.
// REMARK-NOT: remark: decoda-gpu-rope
// REMARK: remark: decoda-gpu-rope: this rope keeps the generic lowering: interleaved pairs with an odd number of features past rotary_dim
// REMARK-NOT: remark: decoda-gpu-rope
// CHECK-LABEL: func.func @interleaved_odd_tail
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @interleaved_odd_tail(%x: tensor<1x3x2x67xf16>) -> tensor<1x3x2x67xf16> {
  %y = decoda.rope %x {theta = 1.0e+04 : f64, rotary_dim = 64 : i64, layout = #decoda.rope_layout<interleaved>} : tensor<1x3x2x67xf16>
  return %y : tensor<1x3x2x67xf16>
}
