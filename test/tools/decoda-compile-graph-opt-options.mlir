// --graph-opt-options passes options to decoda-graph-opt: with fuse-projections=false the two
// linears over one input and constant weights stay apart (fused by default); a bad option is an
// error naming the flag.
// RUN: decoda-compile %s -o %t.so --print-ir-after=decoda-fuse-residual-norm 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: decoda-compile %s -o %t.so --graph-opt-options=fuse-projections=false --print-ir-after=decoda-fuse-residual-norm 2>&1 | FileCheck %s --check-prefix=NOFUSE
// RUN: not decoda-compile %s -o %t.so --graph-opt-options=bogus=1 2>&1 | FileCheck %s --check-prefix=BAD

// DEFAULT: decoda.linear %{{.*}} : tensor<1x?x4xf32>, tensor<4x4xf32>
// DEFAULT-NOT: decoda.linear
// NOFUSE-COUNT-2: decoda.linear %{{.*}} : tensor<1x?x4xf32>, tensor<2x4xf32>
// NOFUSE-NOT: decoda.linear
// BAD: error: --graph-opt-options: cannot parse 'bogus=1' (options: raise-onnx, fuse-projections, fuse-gated-mlp, absorb-mla)

func.func @f(%x: tensor<1x?x4xf32>) -> (tensor<1x?x2xf32>, tensor<1x?x2xf32>) {
  %wa = arith.constant dense<1.0> : tensor<2x4xf32>
  %wb = arith.constant dense<2.0> : tensor<2x4xf32>
  %a = decoda.linear %x, %wa : tensor<1x?x4xf32>, tensor<2x4xf32>
  %b = decoda.linear %x, %wb : tensor<1x?x4xf32>, tensor<2x4xf32>
  return %a, %b : tensor<1x?x2xf32>, tensor<1x?x2xf32>
}
