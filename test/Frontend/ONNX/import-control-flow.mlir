// Loop with a constant trip count unrolls at import (loop-carried values threaded, scan outputs
// stacked); If on a condition that folds (here from shapes) imports the chosen branch. Run-time
// trip counts and conditions are refused naming the node. Numerics: e2e/control_flow.py.
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.onnx
// RUN: decoda-translate --import-onnx %t.onnx | FileCheck %s
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.rt.onnx --case rt
// RUN: not decoda-translate --import-onnx %t.rt.onnx 2>&1 | FileCheck %s --check-prefix=RT
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.nested.onnx --case nested
// RUN: not decoda-translate --import-onnx %t.nested.onnx 2>&1 | FileCheck %s --check-prefix=NESTED

//ONNX <ir_version: 8, opset_import: ["" : 17]>
//ONNX g (float[t, 4] x) => (float[t, 4] y, float[3, t, 4] s, float[t, 4] z)
//ONNX {
//ONNX   m = Constant<value = int64 {3}>()
//ONNX   c = Constant<value = bool {1}>()
//ONNX   y, s = Loop(m, c, x) <body = lb (int64 i, bool cin, float[t, 4] xin) => (bool cout, float[t, 4] xout, float[t, 4] sc) {
//ONNX       cout = Identity(cin)
//ONNX       two = Constant<value = float {2.0}>()
//ONNX       xout = Mul(xin, two)
//ONNX       sc = Identity(xout)
//ONNX   }>
//ONNX   sh = Shape(x)
//ONNX   one = Constant<value = int64[1] {1}>()
//ONNX   d1 = Gather<axis = 0>(sh, one)
//ONNX   four = Constant<value = int64[1] {4}>()
//ONNX   isfour = Equal(d1, four)
//ONNX   z = If(isfour) <then_branch = tb () => (float[t, 4] r) { r = Neg(x) }, else_branch = eb () => (float[t, 4] r) { r = Identity(x) }>
//ONNX }

// CHECK-LABEL: func.func @main(
// CHECK-SAME:    -> (tensor<?x4xf32> {decoda.name = "y"}, tensor<3x?x4xf32> {decoda.name = "s"}, tensor<?x4xf32> {decoda.name = "z"})
// CHECK:         %[[I1:.+]] = linalg.generic {{.*}} ins(%arg0,
// CHECK:           arith.mulf
// CHECK:         %[[I2:.+]] = linalg.generic {{.*}} ins(%[[I1]],
// CHECK:         %[[I3:.+]] = linalg.generic {{.*}} ins(%[[I2]],
// CHECK:           arith.mulf
// CHECK-NOT:     arith.mulf
// CHECK:         %[[S:.+]] = tensor.concat dim(0) %{{.+}}, %{{.+}}, %{{.+}} : {{.*}} -> tensor<3x?x4xf32>
// CHECK:         %[[Z:.+]] = linalg.generic {{.*}} ins(%arg0
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.negf
// CHECK:         return %[[I3]], %[[S]], %[[Z]]

//ONNX-rt <ir_version: 8, opset_import: ["" : 17]>
//ONNX-rt g (float[4] x, int64 n) => (float[4] y)
//ONNX-rt {
//ONNX-rt   c = Constant<value = bool {1}>()
//ONNX-rt   y = Loop(n, c, x) <body = lb (int64 i, bool cin, float[4] xin) => (bool cout, float[4] xout) {
//ONNX-rt       cout = Identity(cin)
//ONNX-rt       xout = Neg(xin)
//ONNX-rt   }>
//ONNX-rt }
// RT: error: ONNX node 'Loop_2' (Loop, domain ai.onnx, opset 17): the trip count must be known at compile time

// Unsupported ops inside a body are listed with the others before anything is imported.
//ONNX-nested <ir_version: 8, opset_import: ["" : 17]>
//ONNX-nested g (float[4] x) => (float[4] y)
//ONNX-nested {
//ONNX-nested   m = Constant<value = int64 {2}>()
//ONNX-nested   c = Constant<value = bool {1}>()
//ONNX-nested   y = Loop(m, c, x) <body = lb (int64 i, bool cin, float[4] xin) => (bool cout, float[4] xout) {
//ONNX-nested       cout = Identity(cin)
//ONNX-nested       xout = Hardmax(xin)
//ONNX-nested   }>
//ONNX-nested }
// NESTED: error: 1 unsupported ONNX node: '#2' Hardmax (domain ai.onnx, opset 17)
