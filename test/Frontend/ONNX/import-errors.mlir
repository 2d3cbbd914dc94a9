// Bad ONNX input: one clear error naming the model, node, op, domain and opset; never a crash.
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.unsup.onnx --case unsup
// RUN: not decoda-translate --import-onnx %t.unsup.onnx 2>&1 | FileCheck %s --check-prefix=UNSUP
// RUN: not decoda-compile %t.unsup.onnx -o %t.so 2>&1 | FileCheck %s --check-prefix=UNSUP
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.opset.onnx --case opset
// RUN: not decoda-translate --import-onnx %t.opset.onnx 2>&1 | FileCheck %s --check-prefix=OPSET
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.trunc.onnx --case size --raw --truncate 40
// RUN: not decoda-translate --import-onnx %t.trunc.onnx 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: printf 'not a protobuf at all \377\377\377' > %t.garbage.onnx
// RUN: not decoda-translate --import-onnx %t.garbage.onnx 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.size.onnx --case size --set-initializer-bytes w=10
// RUN: not decoda-translate --import-onnx %t.size.onnx 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.dtype.onnx --case size --set-dtype w=8
// RUN: not decoda-translate --import-onnx %t.dtype.onnx 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.order.onnx --case order
// RUN: not decoda-translate --import-onnx %t.order.onnx 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.bcast.onnx --case bcast
// RUN: not decoda-translate --import-onnx %t.bcast.onnx 2>&1 | FileCheck %s --check-prefix=BCAST
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t.axis.onnx --case axis
// RUN: not decoda-translate --import-onnx %t.axis.onnx 2>&1 | FileCheck %s --check-prefix=AXIS
// RUN: not decoda-translate --import-onnx %t.missing.onnx 2>&1 | FileCheck %s --check-prefix=MISSING

// Every unsupported node is listed, not just the first.
//ONNX-unsup <ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
//ONNX-unsup g (float[4] x) => (float[4] y)
//ONNX-unsup {
//ONNX-unsup   a = Hardmax(x)
//ONNX-unsup   b = com.example.Frobnicate(a)
//ONNX-unsup   y = Relu(b)
//ONNX-unsup }
// UNSUP: error: 2 unsupported ONNX nodes: '#1' Hardmax (domain ai.onnx, opset 17), '#2' Frobnicate (domain com.example, opset 1)

//ONNX-opset <ir_version: 7, opset_import: ["" : 11]>
//ONNX-opset g (float[4] x) => (float[4] y)
//ONNX-opset {
//ONNX-opset   y = Relu(x)
//ONNX-opset }
// OPSET: error: default-domain opset 11 is not supported (supported: 13 to 23)

//ONNX-size <ir_version: 8, opset_import: ["" : 17]>
//ONNX-size g (float[4] x) => (float[4] y)
//ONNX-size <float[4] w = {1.0, 2.0, 3.0, 4.0}>
//ONNX-size {
//ONNX-size   y = Add(x, w)
//ONNX-size }
// TRUNC: error: not a valid ONNX model: the protobuf cannot be parsed (truncated or corrupted file?)
// SIZE: error: initializer 'w': raw_data has 10 bytes, expected 16 for 'tensor<4xf32>'
// DTYPE: error: unsupported ONNX data type 8 (supported: float, float16, bfloat16, double, int8, int16, int32, int64, bool)

//ONNX-order <ir_version: 8, opset_import: ["" : 17]>
//ONNX-order g (float[4] x) => (float[4] y)
//ONNX-order {
//ONNX-order   y = Relu(t)
//ONNX-order   t = Neg(x)
//ONNX-order }
// ORDER: error: ONNX node 'Relu_1' (Relu): input 't' is not produced by any earlier node, input or initializer (the graph must be topologically sorted)

//ONNX-bcast <ir_version: 8, opset_import: ["" : 17]>
//ONNX-bcast g (float[4, 3] x, float[5] z) => (float[4, 5] y)
//ONNX-bcast {
//ONNX-bcast   y = Add(x, z)
//ONNX-bcast }
// BCAST: error: ONNX node 'Add_1' (Add, domain ai.onnx, opset 17): cannot broadcast dimension sizes 3 and 5

//ONNX-axis <ir_version: 8, opset_import: ["" : 17]>
//ONNX-axis g (float[4, 3] x) => (float[4, 3] y)
//ONNX-axis {
//ONNX-axis   y = Softmax<axis = 2>(x)
//ONNX-axis }
// AXIS: error: ONNX node 'Softmax_1' (Softmax, domain ai.onnx, opset 17): axis 2 is out of range for rank 2

// MISSING: cannot open input file '{{.*}}missing.onnx'
