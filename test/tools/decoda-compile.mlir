// Artifacts at every --emit level, the per-pass dumps, and the errors users meet.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s -o %t/m.mlir --emit=mlir && FileCheck %s --check-prefix=MLIR < %t/m.mlir
// RUN: decoda-compile %s -o %t/m.ll --emit=llvm && FileCheck %s --check-prefix=LL < %t/m.ll
// RUN: decoda-compile %s -o %t/m.o --emit=obj && test -s %t/m.o
// RUN: decoda-compile %s -o %t/m.so --dump-ir-after-each=%t/dump
// RUN: FileCheck %s --check-prefix=HDR < %t/m.h
// RUN: decoda-run %t/m.so --list | FileCheck %s --check-prefix=SIG
// RUN: ls %t/dump | FileCheck %s --check-prefix=DUMP
// RUN: cat %t/dump/*-decoda-fuse-residual-norm.mlir | FileCheck %s --check-prefix=FUSED
// RUN: not decoda-compile %t/missing.mlir -o %t/x.so 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not decoda-compile %s -o %t/x.so --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: touch %t/model.onnx && not decoda-compile %t/model.onnx -o %t/x.so 2>&1 | FileCheck %s --check-prefix=ONNX
// RUN: echo 'func.func @f(%%a: i32) -> i32 { return %%a : i32 }' > %t/scalar.mlir
// RUN: not decoda-compile %t/scalar.mlir -o %t/x.so 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: echo 'func.func @f(' > %t/broken.mlir
// RUN: not decoda-compile %t/broken.mlir -o %t/x.so 2>&1 | FileCheck %s --check-prefix=BROKEN
// RUN: echo 'func.func private @f(%%a: tensor<2xf32>) -> tensor<2xf32>' > %t/none.mlir
// RUN: not decoda-compile %t/none.mlir -o %t/x.so 2>&1 | FileCheck %s --check-prefix=NONE

// MLIR: llvm.func @block
// MLIR: llvm.func @_mlir_ciface_block
// MLIR-NOT: decoda.
// LL: define {{.*}} @_mlir_ciface_block(
// HDR: entry block
// HDR: input  0: h f32[2x?x16]
// HDR: output 0: y f32[2x?x16]
// HDR: void decoda_entry_block(void **args);
// SIG: entry block
// SIG: input h: f32 [2, ?, 16]
// SIG: output y: f32 [2, ?, 16]
// DUMP: {{^[0-9][0-9]}}-canonicalize.mlir
// DUMP: {{^[0-9][0-9]}}-decoda-fuse-projections.mlir
// DUMP: {{^[0-9][0-9]}}-decoda-fuse-residual-norm.mlir
// DUMP: decoda-convert-to-linalg.mlir
// DUMP: decoda-check-backend-contract.mlir
// FUSED: decoda.add_rms_norm
// MISSING: decoda-compile: error: cannot open '{{.*}}missing.mlir'
// TARGET: Cannot find option named 'tpu'
// ONNX: model.onnx:0:0: error: the ONNX model has no graph
// SCALAR: entry point 'f': argument 0 has type 'i32'; entry points take and return ranked tensors
// BROKEN: error:
// NONE: the module has no public func.func to compile as an entry point

func.func @block(%h: tensor<2x?x16xf32> {decoda.name = "h"}, %a: tensor<2x?x16xf32> {decoda.name = "a"},
                 %w: tensor<16xf32> {decoda.name = "w"}) -> (tensor<2x?x16xf32> {decoda.name = "y"}) {
  %u = decoda.residual_add %h, %a : tensor<2x?x16xf32>
  %n = decoda.rms_norm %u, %w {eps = 1.0e-05 : f64} : tensor<2x?x16xf32>, tensor<16xf32>
  %y = decoda.residual_add %u, %n : tensor<2x?x16xf32>
  return %y : tensor<2x?x16xf32>
}
