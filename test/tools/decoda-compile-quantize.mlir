// decoda-compile --quantize=int8: calibration, the precision policy in --report, saved
// statistics, the precision graph, and every bad-input error.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import numpy as np; r = np.random.default_rng(0); h = r.normal(0, 1, (3, 6, 8)).astype(np.float32); h[:, :, 2] *= 30; np.savez('%t/calib.npz', h=h)"
// RUN: decoda-compile %S/Inputs/quant-block.mlir --emit=mlir -o %t/int8.mlir --quantize=int8 \
// RUN:   --calibration=%t/calib.npz --save-calibration=%t/stats.json --report=%t/report.txt \
// RUN:   --emit-precision-graph=%t/graph.dot
// RUN: FileCheck %s --check-prefix=POLICY < %t/report.txt
// RUN: FileCheck %s --check-prefix=JSON < %t/stats.json
// RUN: FileCheck %s --check-prefix=DOT < %t/graph.dot
// Saved statistics give the same program as running the calibration again:
// RUN: decoda-compile %S/Inputs/quant-block.mlir --emit=mlir -o %t/int8-json.mlir --quantize=int8 --calibration=%t/stats.json
// RUN: diff %t/int8.mlir %t/int8-json.mlir
// The same statistics from the .npz twice: deterministic.
// RUN: decoda-compile %S/Inputs/quant-block.mlir --emit=mlir -o %t/int8-again.mlir --quantize=int8 --calibration=%t/calib.npz
// RUN: diff %t/int8.mlir %t/int8-again.mlir
// SVG picture, and the float program's precision (all float) in --report:
// RUN: decoda-compile %S/Inputs/quant-block.mlir --emit=mlir -o %t/f32.mlir --report=%t/f32.txt --emit-precision-graph=%t/graph.svg
// RUN: FileCheck %s --check-prefix=SVG < %t/graph.svg
// RUN: FileCheck %s --check-prefix=FLOAT < %t/f32.txt
// Plain W8A8 with dynamic scales only needs no calibration:
// RUN: decoda-compile %S/Inputs/quant-block.mlir --emit=mlir -o %t/nocal.mlir --quantize=int8 --no-smooth --quant-attention=false --report=%t/nocal.txt
// RUN: FileCheck %s --check-prefix=NOCAL < %t/nocal.txt
// Static per-tensor scales: the SiTU-GLU down projection takes beta1 * beta2 / 127 without
// calibration (its statistics are not used):
// RUN: decoda-compile %S/Inputs/quant-block.mlir --emit=mlir -o %t/static.mlir --quantize=int8 --calibration=%t/calib.npz --quant-activations=per-tensor --quant-scales=static --mlir-print-ir-after=decoda-fold-qlinear 2>&1 | FileCheck %s --check-prefix=STATIC
//
// Errors, each naming the thing and failing:
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 2>&1 | FileCheck %s --check-prefix=NOCALIB
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 --calibration=%t/missing.npz 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo "not a zip archive" > %t/bad.npz
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 --calibration=%t/bad.npz 2>&1 | FileCheck %s --check-prefix=CORRUPT
// RUN: %PYTHON -c "import numpy as np; np.savez('%t/key.npz', x=np.zeros((1, 6, 8), np.float32))"
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 --calibration=%t/key.npz 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: %PYTHON -c "import numpy as np; np.savez('%t/empty.npz')"
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 --calibration=%t/empty.npz 2>&1 | FileCheck %s --check-prefix=NOINPUT
// RUN: %PYTHON -c "import numpy as np; np.savez('%t/shape.npz', h=np.zeros((2, 6, 5), np.float32))"
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 --calibration=%t/shape.npz 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: %PYTHON -c "import numpy as np; np.savez('%t/dtype.npz', h=np.zeros((2, 6, 8), np.float64))"
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 --calibration=%t/dtype.npz 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 --calibration=%t/calib.npz --smooth-alpha=1.5 2>&1 | FileCheck %s --check-prefix=ALPHA
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --calibration=%t/calib.npz 2>&1 | FileCheck %s --check-prefix=NOQUANT
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 --calibration=%t/calib.npz --quant-scales=static 2>&1 | FileCheck %s --check-prefix=STATICTOKEN
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --emit-precision-graph=%t/g.png 2>&1 | FileCheck %s --check-prefix=GRAPHEXT
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 --calibration=%t/stats.json --save-calibration=%t/again.json 2>&1 | FileCheck %s --check-prefix=SAVEJSON
// Statistics of another program do not apply:
// RUN: %PYTHON -c "import numpy as np; np.savez('%t/other.npz', arg0=np.ones((2, 6, 8), np.float32))"
// RUN: decoda-compile %S/../Transforms/Inputs/smooth-quant-block.mlir --emit=mlir -o %t/o.mlir --quantize=int8 --calibration=%t/other.npz --save-calibration=%t/other.json
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 --calibration=%t/other.json 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: echo '{"format": "something-else"}' > %t/wrong.json
// RUN: not decoda-compile %S/Inputs/quant-block.mlir -o %t/x.so --quantize=int8 --calibration=%t/wrong.json 2>&1 | FileCheck %s --check-prefix=WRONGJSON

// The policy: projections (fused Q/K/V, output, fused gate/up, down) and the attention BMMs are
// INT8; norms, RoPE, the GLU, the residual adds and the scale computations are float.
// POLICY-LABEL: precision of every op (after the graph passes and the INT8 passes):
// POLICY:       @block
// POLICY:       float     decoda.rms_norm
// POLICY:       boundary  decoda.quantize          f32 -> i8
// POLICY-NEXT:  int8      decoda.qlinear           int8           i8 x i8 -> i32 accumulation, dequantising epilogue -> f32
// POLICY:       float     decoda.rope
// POLICY:       float     decoda.rope
// POLICY-NEXT:  int8      decoda.attention         int8           QK^T s8 x s8 -> i32, PV u8 x s8 -> i32; softmax f32
// POLICY:       int8      decoda.qlinear
// POLICY-NEXT:  float     decoda.add_rms_norm
// POLICY:       int8      decoda.qlinear
// POLICY:       float     decoda.glu
// POLICY:       int8      decoda.qlinear
// POLICY-NEXT:  float     decoda.residual_add
// POLICY-NEXT:  total: 5 int8 4 boundary 14 float 9 view
// JSON: "format": "decoda-calibration-1"
// JSON: "op": "decoda.linear"
// JSON: "op": "decoda.attention"
// JSON: "samples": 3
// DOT: digraph precision {
// DOT: legend_int8 [label="int8", fillcolor="#f4a261"]
// DOT: [label="qlinear\nint8", fillcolor="#f4a261"]
// DOT: [label="attention\nint8", fillcolor="#f4a261"]
// DOT: [label="add_rms_norm\nf32", fillcolor="#8ecae6"]
// DOT: [label="quantize\nf32 -> i8", fillcolor="#e9c46a"]
// SVG: <svg xmlns="http://www.w3.org/2000/svg"
// SVG: >int8</text>
// SVG: fill="#8ecae6"
// SVG: >rms_norm</text>
// SVG: </svg>
// FLOAT-LABEL: precision of every op (after the graph passes):
// FLOAT-NOT:   int8 {{ }}
// FLOAT:       total: 0 int8 0 boundary {{[0-9]+}} float
// NOCAL:       float     decoda.attention
// NOCAL:       total: 4 int8 4 boundary
// STATIC:      decoda.qlinear {{.+}}decoda.scale_from_glu_bound = 1.000000e+02
// NOCALIB: error: --quantize=int8 needs --calibration=FILE.npz
// MISSING: error: --calibration: cannot read '{{.*}}missing.npz': no such file
// CORRUPT: error: --calibration: cannot read '{{.*}}bad.npz':
// KEY: error: --calibration: '{{.*}}key.npz' has an array 'x', which is not an input of the model; the inputs are: h
// NOINPUT: error: --calibration: '{{.*}}empty.npz' has no array for input 'h' of @block (expected [1, ?, 8] float32, samples stacked along the first axis)
// SHAPE: error: --calibration: array 'h' in '{{.*}}shape.npz' has shape [2, 6, 5]; input 'h' of @block is [1, ?, 8] (one or more samples stacked along the first axis: its size a multiple of 1)
// DTYPE: error: --calibration: array 'h' in '{{.*}}dtype.npz' is float64 ('<f8'); input 'h' of @block takes float32
// ALPHA: error: --smooth-alpha must be in [0, 1], got 1.5
// NOQUANT: error: --calibration needs --quantize=int8
// STATICTOKEN: error: --quant-scales=static needs --quant-activations=per-tensor
// GRAPHEXT: error: --emit-precision-graph={{.*}}g.png: the file must end in .dot (Graphviz) or .svg
// SAVEJSON: error: --save-calibration needs --calibration=FILE.npz
// MISMATCH: error: calibration statistics from '{{.*}}other.json' do not match this program
// WRONGJSON: error: --calibration: '{{.*}}wrong.json' is not a calibration file of this version (decoda-calibration-1)
