// decoda-compile --quantize=int8 on a KV-cache block (Inputs/quant-cached-block.mlir):
// cached_attention gets INT8 scales from calibration like attention; its k/v statistics cover
// the cache entries attended to ([0, offset + T): the 1000s past them in sample 1 do not
// count); the <name>_decode entry (--decode-entries, on by default) takes its prefill entry's
// statistics; --report and the precision graph list cached_attention as INT8 with a float
// cache; the caches' Dv = 4 keeps the scalar INT8 form, with a remark.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import numpy as np; r = np.random.default_rng(0); h = r.normal(0, 1, (3, 6, 8)).astype(np.float32); kc = np.zeros((3, 16, 1, 4), np.float32); vc = np.zeros((3, 16, 1, 4), np.float32); kc[1, :4] = 3.0; vc[1, :4] = -7.5; kc[1, 10:] = 1000; vc[1, 10:] = 1000; np.savez('%t/calib.npz', h=h, key_cache=kc, value_cache=vc, pos=np.array([0, 4, 10], np.int64))"
// RUN: decoda-compile %S/Inputs/quant-cached-block.mlir -o %t/int8.so --quantize=int8 \
// RUN:   --calibration=%t/calib.npz --save-calibration=%t/stats.json --report=%t/report.txt \
// RUN:   --emit-precision-graph=%t/graph.dot 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=JSON < %t/stats.json
// RUN: FileCheck %s --check-prefix=POLICY < %t/report.txt
// RUN: FileCheck %s --check-prefix=DOT < %t/graph.dot
// keep-float keeps it float:
// RUN: decoda-compile %S/Inputs/quant-cached-block.mlir --emit=mlir -o %t/keep.mlir --quantize=int8 \
// RUN:   --calibration=%t/stats.json --quant-keep-float=cached_attention --report=%t/keep.txt
// RUN: FileCheck %s --check-prefix=KEEP < %t/keep.txt

// REMARK-NOT:  warning
// REMARK:      remark: decoda-cpu-int8-attention: keeps the scalar INT8 attention of '__decoda_int8_attention{{(_1)?}}': value head dim Dv not a multiple of 16
// REMARK-NOT:  warning
// JSON:        "function": "step"
// JSON:        "absmax": [
// JSON-NEXT:     {{[0-9.e+-]+}},
// JSON-NEXT:     3,
// JSON-NEXT:     7.5
// JSON-NEXT:   ],
// JSON-NEXT:   "function": "step",
// JSON:        "op": "decoda.cached_attention"
// JSON:        "function": "step_decode"
// JSON:        "absmax": [
// JSON-NEXT:     {{[0-9.e+-]+}},
// JSON-NEXT:     3,
// JSON-NEXT:     7.5
// JSON-NEXT:   ],
// JSON-NEXT:   "function": "step_decode",
// JSON:        "op": "decoda.cached_attention"
// POLICY-LABEL: precision of every op (after the graph passes and the INT8 passes):
// POLICY:       @step
// POLICY:       int8      decoda.cached_attention  int8           QK^T s8 x s8 -> i32, PV u8 x s8 -> i32; softmax f32; KV cache f32, quantized when read
// POLICY:       total: 3 int8
// POLICY:       @step_decode
// POLICY:       int8      decoda.cached_attention  int8
// DOT:          [label="cached_attention\nint8", fillcolor="#f4a261"]
// KEEP:         float     decoda.cached_attention
// KEEP:         total: 2 int8
