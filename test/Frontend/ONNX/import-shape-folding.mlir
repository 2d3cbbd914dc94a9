// The exporter's Shape -> Gather -> Concat -> Reshape chain folds at import: head counts and
// head dims become static, batch and sequence stay the symbolic dims of the input.
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.onnx
// RUN: decoda-translate --import-onnx %t.onnx | FileCheck %s
// RUN: decoda-translate --import-onnx %t.onnx --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

//ONNX <ir_version: 8, opset_import: ["" : 17]>
//ONNX block (float[batch, seq, 64] x) => (float[batch, seq, 4, 16] y, int64[3] s, float[batch, seq, 64] z)
//ONNX {
//ONNX   sh = Shape(x)
//ONNX   i0 = Constant<value = int64[1] {0}>()
//ONNX   i1 = Constant<value = int64[1] {1}>()
//ONNX   b = Gather<axis = 0>(sh, i0)
//ONNX   t = Gather<axis = 0>(sh, i1)
//ONNX   h = Constant<value = int64[1] {4}>()
//ONNX   d = Constant<value = int64[1] {-1}>()
//ONNX   target = Concat<axis = 0>(b, t, h, d)
//ONNX   y = Reshape(x, target)
//ONNX   s = Shape(x)
//ONNX   back = Concat<axis = 0>(b, t, d)
//ONNX   z = Reshape(y, back)
//ONNX }

// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[X:.+]]: tensor<?x?x64xf32> {decoda.dims = ["batch", "seq", ""], decoda.name = "x"})
// CHECK-SAME:    -> (tensor<?x?x4x16xf32> {decoda.name = "y"}, tensor<3xi64> {decoda.name = "s"}, tensor<?x?x64xf32> {decoda.name = "z"})
// CHECK-DAG:     %[[B:.+]] = tensor.dim %[[X]], %c0
// CHECK-DAG:     %[[T:.+]] = tensor.dim %[[X]], %c1
// CHECK:         %[[Y:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [%[[B]], %[[T]], 4, 16]
// CHECK-NOT:     tensor.reshape
// The reshape back is a collapse of the expanded value: no run-time shape arithmetic left.
// CHECK:         %[[Z:.+]] = tensor.collapse_shape %[[Y]] {{\[}}[0], [1], [2, 3]]
// CHECK-NOT:     arith.muli
// The shape output is the only place the symbolic dims become data.
// CHECK:         %[[S:.+]] = tensor.from_elements {{.*}} : tensor<3xi64>
// CHECK:         return %[[Y]], %[[S]], %[[Z]]

// Node names become locations (unnamed nodes: op type and position).
// LOC: tensor.expand_shape {{.*}} loc(#[[L:.+]])
// LOC: #[[L]] = loc("Reshape_9"
