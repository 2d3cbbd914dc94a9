#!/usr/bin/python3
"""Writes the front end's 16-bit fixtures in test/Frontend/ONNX/models/: the PyTorch exports of
the Llama decoder layer and the GPT-2 block (f32) turned into the graphs an fp16 export of the
same modules (``model.half()``) has.

Debian's torch 1.13 cannot trace a Half ``nn.Linear`` on the CPU, so the files are derived from
the f32 exports by the dtype rules of the modules in export_torch_blocks.py (Hugging Face's):

``f16_llama_decoder_layer_dynamic.onnx``:

* inputs, outputs and weights (the ``inv_freq`` buffer too) in float16;
* LlamaRMSNorm: ``.to(float32)`` before the variance stays a Cast to f32, the ``.to(input_dtype)``
  after it becomes a Cast to f16, and the residual adds read the f16 hidden states (the f32
  export reads the norm's no-op upcast there);
* rotary embedding: computed in f32 (``.float()``), cos and sin cast to f16 (``.to(x.dtype)``);
* ``softmax(..., dtype=float32).to(q.dtype)``: a Cast to f32 before the Softmax, one to f16
  after it;
* the causal mask filled with float16's lowest value (``torch.finfo(dtype).min``), the score
  scale a float16 constant; the norms' constants stay f32.

``f16_gpt2_block_dynamic.onnx``: GPT-2's modules compute in the model's type throughout (the
score scale is ``torch.full(..., dtype=attn_weights.dtype)``, the mask value
``torch.finfo(dtype).min``, NewGELU's constants Python floats), so every float tensor, constant
and Cast becomes float16 (float32's lowest value float16's).

    /usr/bin/python3 python/tools/f16_exports.py [MODELS_DIR]
"""

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper
from onnx import TensorProto as TP

MODELS = Path(__file__).resolve().parents[2] / "test" / "Frontend" / "ONNX" / "models"
F32, F16 = TP.FLOAT, TP.FLOAT16
F32_MIN, F16_MIN = np.finfo(np.float32).min, np.finfo(np.float16).min

# The `.to(input_dtype)` / `.to(x.dtype)` / `.to(q.dtype)` casts of the modules.
TO_F16 = {"/input_layernorm/Cast_1", "/post_attention_layernorm/Cast_1",
          "/self_attn/rotary_emb/Cast_3", "/self_attn/rotary_emb/Cast_4", "/self_attn/Cast_5"}
# Elementwise ops whose float operands share one type.
SAME_TYPE = {"Add", "Sub", "Mul", "Div", "MatMul", "Where", "Max", "Min"}


def to_f16_array(a):
    return np.where(a <= F32_MIN, F16_MIN, a).astype(np.float16)


def signature_and_weights_to_f16(g: onnx.GraphProto) -> None:
    """The graph's float inputs, outputs and initializers in float16."""
    for v in list(g.input) + list(g.output):
        if v.type.tensor_type.elem_type == F32:
            v.type.tensor_type.elem_type = F16
    for t in g.initializer:
        if t.data_type == F32:
            t.CopyFrom(numpy_helper.from_array(to_f16_array(numpy_helper.to_array(t)), t.name))


def convert(m: onnx.ModelProto) -> onnx.ModelProto:
    g = m.graph
    nodes = {n.name: n for n in g.node}
    for name in TO_F16:
        for a in nodes[name].attribute:
            if a.name == "to":
                a.i = F16
    # softmax(dtype=float32): the upcast before the Softmax, the cast back after it.
    sm, up, down = nodes["/self_attn/Softmax"], nodes["/self_attn/Cast_4"], nodes["/self_attn/Cast_5"]
    up.input[0] = sm.input[0]
    sm.input[0] = up.output[0]
    down.input[0] = sm.output[0]
    order = list(g.node)
    i, j = order.index(sm), order.index(up)
    order[i], order[j] = up, sm
    # The residuals read the f16 hidden states, not the norms' upcasts.
    nodes["/Add"].input[0] = g.input[0].name
    nodes["/Add_1"].input[0] = "/Add_output_0"
    del g.node[:]
    g.node.extend(order)

    signature_and_weights_to_f16(g)
    del g.value_info[:]
    for n in g.node:
        if n.name == "/self_attn/ConstantOfShape_2":  # the causal mask's fill
            t = n.attribute[0].t
            t.CopyFrom(numpy_helper.from_array(to_f16_array(numpy_helper.to_array(t))))

    # Element types forward; a float Constant takes the type of the operand it meets.
    types = {v.name: v.type.tensor_type.elem_type for v in g.input}
    types.update({t.name: t.data_type for t in g.initializer})
    consts = {}
    for n in g.node:
        if n.op_type == "Constant":
            consts[n.output[0]] = n
            types[n.output[0]] = n.attribute[0].t.data_type

    def retype(name, want):
        t = consts[name].attribute[0].t
        a = numpy_helper.to_array(t)
        t.CopyFrom(numpy_helper.from_array(
            to_f16_array(a) if want == F16 else a.astype(np.float32), t.name))
        types[name] = want

    for n in g.node:
        if n.op_type == "Constant":
            continue
        if n.op_type in SAME_TYPE or n.op_type == "Pow":
            floats = [(x, types.get(x)) for x in n.input if types.get(x) in (F32, F16)]
            fixed = {t for x, t in floats if x not in consts}
            if n.op_type == "Pow":
                fixed = {types.get(n.input[0])}
            if len(fixed) > 1:
                raise SystemExit(f"f16_llama_export: {n.name} mixes {fixed}")
            if fixed:
                want = fixed.pop()
                for x, t in floats:
                    if x in consts and t != want:
                        retype(x, want)
        if n.op_type == "Cast":
            out = next(a.i for a in n.attribute if a.name == "to")
        elif n.op_type == "Shape":
            out = TP.INT64
        elif n.op_type in ("Equal", "Less", "Greater", "Not"):
            out = TP.BOOL
        elif n.op_type == "ConstantOfShape":
            at = [a for a in n.attribute if a.name == "value"]
            out = at[0].t.data_type if at else F32
        elif n.op_type == "Where":
            out = types.get(n.input[1])
        else:
            out = next((types[x] for x in n.input if types.get(x) is not None), None)
        for o in n.output:
            types[o] = out
    onnx.checker.check_model(m)
    onnx.shape_inference.infer_shapes(m, strict_mode=True)
    return m


def convert_uniform(m: onnx.ModelProto) -> onnx.ModelProto:
    """Every float tensor, constant and Cast of `m` in float16."""
    g = m.graph
    signature_and_weights_to_f16(g)
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == F32:
                a.t.CopyFrom(numpy_helper.from_array(to_f16_array(numpy_helper.to_array(a.t)),
                                                     a.t.name))
            if n.op_type == "Cast" and a.name == "to" and a.i == F32:
                a.i = F16
    del g.value_info[:]
    onnx.checker.check_model(m)
    onnx.shape_inference.infer_shapes(m, strict_mode=True)
    return m


def main():
    models = Path(sys.argv[1]) if len(sys.argv) > 1 else MODELS
    for src, dst, fn in (("torch_llama_decoder_layer_dynamic", "f16_llama_decoder_layer_dynamic",
                          convert),
                         ("torch_gpt2_block_dynamic", "f16_gpt2_block_dynamic", convert_uniform)):
        out = models / f"{dst}.onnx"
        onnx.save(fn(onnx.load(str(models / f"{src}.onnx"))), str(out))
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
