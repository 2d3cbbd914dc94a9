// --graph-opt-options=fuse-gated-mlp: an f32 gated MLP with constant weights is split by
// decoda-fuse-projections into one gate|up linear, a GLU and the down linear (the default);
// fuse-gated-mlp=false keeps it one op, and so does --float-type=bf16 unless the option is
// given (the 16-bit gated form keeps its GLU in the projection's kernel).
// RUN: decoda-compile %s -o %t.so --print-ir-after=decoda-fuse-projections 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: decoda-compile %s -o %t.so --graph-opt-options=fuse-gated-mlp=false --print-ir-after=decoda-fuse-projections 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: decoda-compile %s -o %t.so --float-type=bf16 --print-ir-after=decoda-fuse-projections 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: decoda-compile %s -o %t.so --float-type=bf16 --graph-opt-options=fuse-gated-mlp=true --print-ir-after=decoda-fuse-projections 2>&1 | FileCheck %s --check-prefix=SPLIT

// SPLIT-NOT: decoda.gated_mlp
// SPLIT: decoda.linear %{{.*}} : tensor<1x?x8xf32>, tensor<32x8xf32>
// SPLIT: decoda.glu %
// WHOLE: decoda.gated_mlp
// WHOLE-NOT: decoda.glu %

func.func @f(%x: tensor<1x?x8xf32>) -> tensor<1x?x8xf32> {
  %wg = arith.constant dense<0.5> : tensor<16x8xf32>
  %wu = arith.constant dense<0.25> : tensor<16x8xf32>
  %wd = arith.constant dense<0.125> : tensor<8x16xf32>
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>} : tensor<1x?x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8x16xf32>
  return %y : tensor<1x?x8xf32>
}
