"""Writes one-node ONNX models whose node omits a required input (an empty name, or too few
inputs), for required-inputs.mlir:  missing_inputs.py OUTDIR"""

import os
import sys

from onnx import TensorProto, helper

CASES = {
    # name: (op, inputs, domain, attributes)
    "matmul-b": ("MatMul", ["x", ""], "", {}),
    "gemm-b": ("Gemm", ["x", ""], "", {}),
    "reshape-shape": ("Reshape", ["x", ""], "", {}),
    "layernorm-scale": ("LayerNormalization", ["x", ""], "", {}),
    "concat-none": ("Concat", [], "", {"axis": 0}),
    "add-a": ("Add", ["", "x"], "", {}),
    "rmsnorm-none": ("RMSNormalization", [], "", {}),
    "rmsnorm-scale": ("RMSNormalization", ["x", ""], "", {}),
    "skiplayernorm-none": ("SkipLayerNormalization", [], "com.microsoft", {}),
    # Optional inputs may be omitted: LayerNormalization without its bias imports.
    "layernorm-no-bias": ("LayerNormalization", ["x", "s", ""], "", {}),
}

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, (op, inputs, domain, attrs) in CASES.items():
    node = helper.make_node(op, inputs, ["y"], domain=domain, **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[helper.make_tensor("s", TensorProto.FLOAT, [4], [1.0] * 4)])
    opsets = [helper.make_opsetid("", 23)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    model = helper.make_model(graph, opset_imports=opsets, ir_version=10)
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())
