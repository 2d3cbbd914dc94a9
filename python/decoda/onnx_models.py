"""ONNX test models for Decoda's ONNX front end, built with ``onnx.helper`` (Debian's
``python3-onnx``; run with ``/usr/bin/python3``).

Three families, each a list of :class:`Case` (a builder plus inputs to run it on):

- ``ops``: one tiny graph per ONNX op the importer takes (default domain, opsets 13 to 23), with
  representative attributes;
- ``ms_ops``: the ``com.microsoft`` ops that LLM exports use;
- ``blocks``: decomposed decoder-block subgraphs the way exporters write them (dynamic ``batch``
  and ``sequence``): norms, MLPs, attention with masks and repeat-KV, RoPE, shape chains, a
  Llama-style and GPT-2-style block;
- ``models``: a whole decoder-only model with a KV cache in Hugging Face naming.

Weights are random from a fixed seed; dims are small. Models with opset > 17 (or IR > 8) are
beyond what onnx 1.12's checker knows, so only the others are checked (:func:`check`).

Expected values come from ONNX Runtime (:mod:`decoda.ort`), never from this module::

    from decoda import onnx_models as M
    case = M.case("rms_norm_pow_div")
    model = case.build()                        # onnx.ModelProto
    M.save(model, "/tmp/rms.onnx")
    for feeds in case.feeds(): ...              # dicts of NumPy arrays by graph input name

CLI: ``/usr/bin/python3 -m decoda.onnx_models --out DIR [--family F] [--inputs]`` writes every
model as ``DIR/<name>.onnx`` (and with ``--inputs`` its input sets as ``<name>.inputs<i>.npz``).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np
import onnx
import onnx.defs
from onnx import TensorProto, helper, numpy_helper

__all__ = ["Case", "GROUPS", "cases", "case", "families", "save", "check", "Graph", "decoder_model",
           "llama_block_model",
           "DecoderConfig", "decoder_feeds", "random_feeds", "input_names", "output_names",
           "FAMILIES"]

FAMILIES = ("ops", "ms_ops", "blocks", "models")
INT64_MAX = np.iinfo(np.int64).max
F32_MIN = float(np.finfo(np.float32).min)

# The IR version each default-domain opset came with (onnx 1.12 knows IR 8 / opset 17).
_IR_OF_OPSET = {13: 7, 14: 7, 15: 8, 16: 8, 17: 8, 18: 8, 19: 9, 20: 9, 21: 10, 22: 10, 23: 11}

_NP_OF = {TensorProto.FLOAT: np.float32, TensorProto.FLOAT16: np.float16,
          TensorProto.DOUBLE: np.float64, TensorProto.INT64: np.int64,
          TensorProto.INT32: np.int32, TensorProto.INT8: np.int8, TensorProto.UINT8: np.uint8,
          TensorProto.BOOL: np.bool_}
_TP_OF = {"f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16, "f64": TensorProto.DOUBLE,
          "i64": TensorProto.INT64, "i32": TensorProto.INT32, "i8": TensorProto.INT8,
          "u8": TensorProto.UINT8, "bool": TensorProto.BOOL}


# ---------------------------------------------------------------------------------------------
# Graph builder


class Graph:
    """A small builder over ``onnx.helper``: inputs, outputs, initializers and nodes with
    generated unique names (node names become MLIR locations in the importer)."""

    def __init__(self, name: str, opset: int = 17, ms: bool = False, seed: int = 0):
        self.name, self.opset, self.ms = name, opset, ms
        self.nodes: List[onnx.NodeProto] = []
        self.inputs: List[onnx.ValueInfoProto] = []
        self.outputs: List[onnx.ValueInfoProto] = []
        self.inits: List[onnx.TensorProto] = []
        self._counts: Dict[str, int] = {}
        self.rng = np.random.default_rng(seed)

    def _fresh(self, base: str) -> str:
        n = self._counts.get(base, 0)
        self._counts[base] = n + 1
        return f"{base}_{n}" if n else base

    def input(self, name: str, dtype: str, shape: Sequence) -> str:
        self.inputs.append(helper.make_tensor_value_info(name, _TP_OF[dtype], list(shape)))
        return name

    def output(self, value: str, name: str, dtype: str, shape: Sequence) -> str:
        """Makes ``value`` a graph output called ``name`` (through an Identity if renamed)."""
        if value != name:
            self.nodes.append(helper.make_node("Identity", [value], [name],
                                               name=self._fresh("Identity")))
        self.outputs.append(helper.make_tensor_value_info(name, _TP_OF[dtype], list(shape)))
        return name

    def init(self, array, name: Optional[str] = None) -> str:
        name = self._fresh(name or "const")
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def i64(self, values, name: Optional[str] = None) -> str:
        return self.init(np.asarray(values, np.int64), name or "i64")

    def f32(self, values, name: Optional[str] = None) -> str:
        return self.init(np.asarray(values, np.float32), name or "f32")

    def weight(self, shape, name: str, scale: Optional[float] = None, mean: float = 0.0,
               dtype=np.float32) -> str:
        """A random weight; ``scale`` defaults to 1/sqrt(fan-in) (the first dim)."""
        if scale is None:
            scale = 1.0 / math.sqrt(shape[0]) if len(shape) > 1 else 1.0
        w = mean + scale * self.rng.standard_normal(shape)
        return self.init(w.astype(dtype), name)

    def op(self, op_type: str, inputs: Sequence[str], n_out: int = 1, domain: str = "",
           name: Optional[str] = None, outs: Optional[Sequence[str]] = None, **attrs):
        """Adds a node; returns its output name (or a list of them when ``n_out != 1``)."""
        node_name = self._fresh(name or op_type)
        if outs is None:
            outs = [f"{node_name}_out{i}" if n_out > 1 else f"{node_name}_out"
                    for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, list(inputs), list(outs), name=node_name,
                                           domain=domain or None, **attrs))
        return outs[0] if n_out == 1 else list(outs)

    def ms_op(self, op_type: str, inputs: Sequence[str], n_out: int = 1, **attrs):
        self.ms = True
        return self.op(op_type, inputs, n_out, domain="com.microsoft", **attrs)

    def model(self, ir_version: Optional[int] = None) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        opsets = [helper.make_opsetid("", self.opset)]
        if self.ms:
            opsets.append(helper.make_opsetid("com.microsoft", 1))
        m = helper.make_model(graph, opset_imports=opsets, producer_name="decoda.onnx_models")
        m.ir_version = ir_version or _IR_OF_OPSET.get(self.opset, 8)
        return m

    # -- exporter idioms ----------------------------------------------------------------------

    def dim(self, x: str, axis: int) -> str:
        """``Shape(x) -> Gather(axis)``: a 0-d int64 extent, as torch exports ``x.size(axis)``."""
        return self.op("Gather", [self.op("Shape", [x]), self.i64(axis)], axis=0)

    def dims1(self, x: str, axis: int) -> str:
        """``Shape -> Gather -> Unsqueeze``: the extent as a 1-element vector for a Concat."""
        return self.op("Unsqueeze", [self.dim(x, axis), self.i64([0])])

    def shape_of(self, parts: Sequence) -> str:
        """``Concat`` of 1-element int64 vectors and constant ints: a runtime shape."""
        names = [p if isinstance(p, str) else self.i64([p]) for p in parts]
        return self.op("Concat", names, axis=0)


def _unary_graph(op, shape=(2, 3, 8), opset=17, **attrs):
    g = Graph(op.lower(), opset)
    x = g.input("x", "f32", shape)
    g.output(g.op(op, [x], **attrs), "y", "f32", shape)
    return g.model()


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass
class Case:
    """One model and what to run it on.

    ``build()`` returns the ModelProto; ``dims`` lists bindings of the symbolic dims (one input
    set per binding; ``[{}]`` for static models); ``special`` maps an input name to
    ``fn(rng, shape) -> array`` (default: standard normal floats, small non-negative ints, random
    bools); ``make_feeds`` overrides all of that. ``rtol``/``atol`` are the tolerances for the
    compiled result against ONNX Runtime: ``|a - ref| <= atol + rtol * max|ref|``. ``group``
    splits a family into the sets one test file runs (:data:`GROUPS`).
    """

    name: str
    family: str
    build: Callable[[], onnx.ModelProto]
    dims: List[Dict[str, int]] = field(default_factory=lambda: [{}])
    special: Dict[str, Callable] = field(default_factory=dict)
    make_feeds: Optional[Callable[[onnx.ModelProto, int], List[Dict[str, np.ndarray]]]] = None
    rtol: float = 1e-5
    atol: float = 1e-6
    seed: int = 0
    note: str = ""
    group: str = ""

    def feeds(self, model: Optional[onnx.ModelProto] = None) -> List[Dict[str, np.ndarray]]:
        model = model or self.build()
        if self.make_feeds:
            return self.make_feeds(model, self.seed)
        return [random_feeds(model, d, self.seed + i, self.special)
                for i, d in enumerate(self.dims)]


def input_names(model: onnx.ModelProto) -> List[str]:
    inits = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def output_names(model: onnx.ModelProto) -> List[str]:
    return [o.name for o in model.graph.output]


def random_feeds(model: onnx.ModelProto, dims: Dict[str, int], seed: int,
                 special: Optional[Dict[str, Callable]] = None) -> Dict[str, np.ndarray]:
    """Random inputs for every graph input, symbolic dims bound by ``dims``."""
    rng = np.random.default_rng(seed)
    inits = {t.name for t in model.graph.initializer}
    feeds = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        shape = []
        for d in tt.shape.dim:
            if d.HasField("dim_value"):
                shape.append(d.dim_value)
            elif d.dim_param in dims:
                shape.append(dims[d.dim_param])
            else:
                raise ValueError(f"input '{vi.name}': no value for dim '{d.dim_param}'")
        dt = _NP_OF[tt.elem_type]
        if special and vi.name in special:
            a = np.asarray(special[vi.name](rng, tuple(shape)))
            a = a.astype(dt) if a.dtype != dt else a
        elif np.issubdtype(dt, np.floating):
            a = rng.standard_normal(shape).astype(dt)
        elif dt == np.bool_:
            a = rng.random(shape) < 0.5
        else:
            a = rng.integers(0, 4, shape).astype(dt)
        feeds[vi.name] = a
    return feeds


def _positive(lo=0.1, hi=3.0):
    return lambda rng, s: rng.uniform(lo, hi, s).astype(np.float32)


def _away_from_zero(rng, s):
    return (rng.uniform(0.5, 2.0, s) * rng.choice([-1.0, 1.0], s)).astype(np.float32)


def _ints(lo, hi, dtype=np.int64):
    return lambda rng, s: rng.integers(lo, hi, s).astype(dtype)


_REGISTRY: List[Case] = []

#: The groups of each family, each run by one e2e test file (test/Frontend/ONNX/e2e/).
GROUPS = {
    "ops": ("elementwise", "matmul", "reduce_norm", "shape", "attention_rope", "indexing",
            "sequence"),
    "ms_ops": ("contrib",),
    "blocks": ("norm_mlp", "attention_rope", "block", "moe_mla_sinks"),
    "models": ("model",),
}
_GROUP_PREFIXES = {
    "ops": [("top_k", "indexing"), ("scatter", "indexing"), ("seq_", "sequence"),
            ("matmul", "matmul"), ("gemm", "matmul"), ("reduce_", "reduce_norm"),
            ("softmax", "reduce_norm"), ("layer_normalization", "reduce_norm"),
            ("rms_normalization", "reduce_norm"), ("attention23", "attention_rope"),
            ("rotary_embedding23", "attention_rope"), ("reshape", "shape"),
            ("transpose", "shape"), ("unsqueeze", "shape"), ("squeeze", "shape"),
            ("expand", "shape"), ("concat", "shape"), ("slice", "shape"), ("split", "shape"),
            ("gather", "shape"), ("shape", "shape"), ("range", "shape"),
            ("constant_of_shape", "shape"), ("trilu", "shape"), ("tile", "shape"),
            ("", "elementwise")],
    "ms_ops": [("", "contrib")],
    "blocks": [("moe_", "moe_mla_sinks"), ("mla_", "moe_mla_sinks"),
               ("sinks_", "moe_mla_sinks"), ("rms_norm", "norm_mlp"), ("layer_norm", "norm_mlp"), ("swiglu", "norm_mlp"),
               ("gelu", "norm_mlp"), ("attention", "attention_rope"), ("rope", "attention_rope"),
               ("shape_chain", "attention_rope"), ("", "block")],
    "models": [("", "model")],
}


def _group_of(name: str, family: str) -> str:
    return next(g for prefix, g in _GROUP_PREFIXES[family] if name.startswith(prefix))


def _register(name, family, build, **kw):
    group = kw.pop("group", None) or _group_of(name, family)
    assert group in GROUPS[family], (name, group)
    assert all(c.name != name for c in _REGISTRY), f"duplicate case {name}"
    _REGISTRY.append(Case(name=name, family=family, build=build, group=group, **kw))


def _case(family, **kw):
    def deco(fn):
        _register(kw.pop("name", fn.__name__), family, fn, **kw)
        return fn
    return deco


def _add(family, name, build, **kw):
    _register(name, family, build, **kw)


# ---------------------------------------------------------------------------------------------
# (a) one graph per default-domain op

@_case("ops")
def matmul_2d_weight():
    g = Graph("matmul_2d_weight")
    x = g.input("x", "f32", [2, 5, 16])
    g.output(g.op("MatMul", [x, g.weight([16, 24], "w")]), "y", "f32", [2, 5, 24])
    return g.model()


@_case("ops")
def matmul_batched_4d():
    g = Graph("matmul_batched_4d")
    a = g.input("a", "f32", [2, 3, 5, 8])
    b = g.input("b", "f32", [2, 3, 8, 6])
    g.output(g.op("MatMul", [a, b]), "y", "f32", [2, 3, 5, 6])
    return g.model()


@_case("ops")
def matmul_broadcast_batch():
    g = Graph("matmul_broadcast_batch")
    a = g.input("a", "f32", [2, 3, 5, 8])
    b = g.input("b", "f32", [3, 8, 6])
    g.output(g.op("MatMul", [a, b]), "y", "f32", [2, 3, 5, 6])
    return g.model()


@_case("ops")
def gemm_transb():
    g = Graph("gemm_transb")
    x = g.input("x", "f32", [5, 16])
    y = g.op("Gemm", [x, g.weight([24, 16], "w", scale=0.25), g.weight([24], "c", scale=0.1)],
             transB=1, alpha=0.5, beta=2.0)
    g.output(y, "y", "f32", [5, 24])
    return g.model()


@_case("ops")
def gemm_plain():
    g = Graph("gemm_plain", opset=13)
    x = g.input("x", "f32", [5, 16])
    g.output(g.op("Gemm", [x, g.weight([16, 24], "w")]), "y", "f32", [5, 24])
    return g.model()


def _binary(op, a_shape, b_shape, out_shape, special=None, b_init=False, opset=17):
    def build():
        g = Graph(op.lower(), opset)
        a = g.input("a", "f32", a_shape)
        if b_init:
            b = g.init(np.random.default_rng(1).uniform(0.5, 2.0, b_shape).astype(np.float32), "b")
        else:
            b = g.input("b", "f32", b_shape)
        g.output(g.op(op, [a, b]), "y", "f32", out_shape)
        return g.model()
    return build


_add("ops", "add_broadcast", _binary("Add", [2, 3, 4], [4], [2, 3, 4]))
_add("ops", "sub_broadcast", _binary("Sub", [2, 3, 4], [2, 1, 4], [2, 3, 4]))
_add("ops", "mul_initializer", _binary("Mul", [2, 3, 4], [3, 1], [2, 3, 4], b_init=True))
_add("ops", "div", _binary("Div", [2, 3, 4], [2, 3, 4], [2, 3, 4]),
     special={"b": _away_from_zero})
_add("ops", "pow_tensor", _binary("Pow", [2, 3, 4], [4], [2, 3, 4]),
     special={"a": _positive(0.2, 2.0), "b": lambda r, s: r.uniform(-2, 2, s)}, rtol=1e-5)


@_case("ops")
def pow_scalar_two():
    g = Graph("pow_scalar_two")
    x = g.input("x", "f32", [2, 3, 4])
    g.output(g.op("Pow", [x, g.f32(2.0)]), "y", "f32", [2, 3, 4])
    return g.model()


_add("ops", "sqrt", lambda: _unary_graph("Sqrt"), special={"x": _positive()})
_add("ops", "reciprocal", lambda: _unary_graph("Reciprocal"), special={"x": _away_from_zero})
_add("ops", "neg", lambda: _unary_graph("Neg"))
_add("ops", "exp", lambda: _unary_graph("Exp"))
_add("ops", "log", lambda: _unary_graph("Log"), special={"x": _positive()})
_add("ops", "tanh", lambda: _unary_graph("Tanh"))
_add("ops", "erf", lambda: _unary_graph("Erf"))
_add("ops", "sigmoid", lambda: _unary_graph("Sigmoid"))
_add("ops", "relu", lambda: _unary_graph("Relu"))
_add("ops", "cos", lambda: _unary_graph("Cos"), special={"x": lambda r, s: 4 * r.standard_normal(s)})
_add("ops", "sin", lambda: _unary_graph("Sin"), special={"x": lambda r, s: 4 * r.standard_normal(s)})
_add("ops", "gelu_none_opset20", lambda: _unary_graph("Gelu", opset=20))
_add("ops", "gelu_tanh_opset20", lambda: _unary_graph("Gelu", opset=20, approximate="tanh"))
_add("ops", "softmax_last", lambda: _unary_graph("Softmax", opset=13, axis=-1))
_add("ops", "softmax_axis1", lambda: _unary_graph("Softmax", shape=(2, 5, 3), axis=1))
_add("ops", "identity", lambda: _unary_graph("Identity"))


@_case("ops")
def where_broadcast():
    g = Graph("where_broadcast")
    c = g.input("cond", "bool", [2, 1, 4])
    x = g.input("x", "f32", [2, 3, 4])
    g.output(g.op("Where", [c, x, g.f32(-1e9)]), "y", "f32", [2, 3, 4])
    return g.model()


@_case("ops", special={"a": _ints(0, 3), "b": _ints(0, 3)})
def equal_i64():
    g = Graph("equal_i64")
    a = g.input("a", "i64", [2, 5])
    b = g.input("b", "i64", [5])
    g.output(g.op("Equal", [a, b]), "y", "bool", [2, 5])
    return g.model()


@_case("ops")
def less_f32():
    g = Graph("less_f32")
    a = g.input("a", "f32", [2, 5])
    b = g.input("b", "f32", [2, 5])
    g.output(g.op("Less", [a, b]), "y", "bool", [2, 5])
    return g.model()


@_case("ops")
def not_bool():
    g = Graph("not_bool")
    g.output(g.op("Not", [g.input("x", "bool", [2, 5])]), "y", "bool", [2, 5])
    return g.model()


def _cast(src, dst, special=None):
    def build():
        g = Graph(f"cast_{src}_to_{dst}")
        x = g.input("x", src, [2, 8])
        g.output(g.op("Cast", [x], to=_TP_OF[dst]), "y", dst, [2, 8])
        return g.model()
    return build


_add("ops", "cast_f32_to_f16", _cast("f32", "f16"))
_add("ops", "cast_f16_to_f32", _cast("f16", "f32"))
_add("ops", "cast_i64_to_f32", _cast("i64", "f32"), special={"x": _ints(-1000, 1000)})
_add("ops", "cast_bool_to_f32", _cast("bool", "f32"))
_add("ops", "cast_f32_to_i64", _cast("f32", "i64"),
     special={"x": lambda r, s: 10 * r.standard_normal(s)},
     note="float -> int truncates toward zero")
_add("ops", "cast_i64_to_bool", _cast("i64", "bool"), special={"x": _ints(-1, 2)})
_add("ops", "cast_i32_to_i64", _cast("i32", "i64"), special={"x": _ints(-50, 50, np.int32)})


@_case("ops")
def clip_min_max():
    g = Graph("clip_min_max", opset=13)
    x = g.input("x", "f32", [2, 3, 4])
    g.output(g.op("Clip", [x, g.f32(-0.5), g.f32(0.75)]), "y", "f32", [2, 3, 4])
    return g.model()


@_case("ops")
def clip_max_only():
    g = Graph("clip_max_only")
    x = g.input("x", "f32", [2, 3, 4])
    g.output(g.op("Clip", [x, "", g.f32(0.25)]), "y", "f32", [2, 3, 4])
    return g.model()


@_case("ops")
def max_variadic():
    g = Graph("max_variadic")
    a, b, c = (g.input("a", "f32", [2, 3, 4]), g.input("b", "f32", [4]),
               g.input("c", "f32", [3, 1]))
    g.output(g.op("Max", [a, b, c]), "y", "f32", [2, 3, 4])
    return g.model()


@_case("ops")
def min_binary():
    g = Graph("min_binary")
    a, b = g.input("a", "f32", [2, 3, 4]), g.input("b", "f32", [2, 1, 4])
    g.output(g.op("Min", [a, b]), "y", "f32", [2, 3, 4])
    return g.model()


def _reduce(op, opset, axes, keepdims, out_shape, axes_as_input):
    def build():
        g = Graph(f"{op.lower()}_{opset}", opset)
        x = g.input("x", "f32", [2, 3, 8])
        attrs = {"keepdims": keepdims}
        if axes_as_input:
            y = g.op(op, [x, g.i64(axes)], **attrs)
        else:
            y = g.op(op, [x], axes=axes, **attrs)
        g.output(y, "y", "f32", out_shape)
        return g.model()
    return build


# ReduceMean/ReduceMax take axes as an attribute up to opset 17 and as an input from 18;
# ReduceSum moved its axes to an input already in opset 13.
_add("ops", "reduce_mean_attr_keep1_op13", _reduce("ReduceMean", 13, [-1], 1, [2, 3, 1], False))
_add("ops", "reduce_mean_attr_keep0_op17",
     _reduce("ReduceMean", 17, [0, 2], 0, [3], False))
_add("ops", "reduce_mean_input_keep1_op18", _reduce("ReduceMean", 18, [-1], 1, [2, 3, 1], True))
_add("ops", "reduce_mean_input_keep0_op18", _reduce("ReduceMean", 18, [1], 0, [2, 8], True))
_add("ops", "reduce_sum_input_keep1_op13", _reduce("ReduceSum", 13, [-1], 1, [2, 3, 1], True))
_add("ops", "reduce_sum_input_keep0_op18", _reduce("ReduceSum", 18, [0, 1], 0, [8], True))
_add("ops", "reduce_max_attr_keep0_op13", _reduce("ReduceMax", 13, [2], 0, [2, 3], False))
_add("ops", "reduce_max_input_keep1_op18", _reduce("ReduceMax", 18, [-1], 1, [2, 3, 1], True))


@_case("ops")
def layer_normalization():
    g = Graph("layer_normalization")
    x = g.input("x", "f32", [2, 5, 16])
    y = g.op("LayerNormalization", [x, g.weight([16], "scale", 0.2, 1.0), g.weight([16], "bias", 0.1)],
             axis=-1, epsilon=1e-5)
    g.output(y, "y", "f32", [2, 5, 16])
    return g.model()


@_case("ops")
def layer_normalization_no_bias():
    g = Graph("layer_normalization_no_bias")
    x = g.input("x", "f32", [2, 5, 16])
    g.output(g.op("LayerNormalization", [x, g.weight([16], "scale", 0.2, 1.0)], epsilon=1e-6),
             "y", "f32", [2, 5, 16])
    return g.model()


@_case("ops")
def rms_normalization_op23():
    g = Graph("rms_normalization_op23", 23)
    x = g.input("x", "f32", [2, 5, 16])
    y = g.op("RMSNormalization", [x, g.weight([16], "scale", 0.2, 1.0)], axis=-1, epsilon=1e-6)
    g.output(y, "y", "f32", [2, 5, 16])
    return g.model()


def _attention23(name, q_shape, k_shape, v_shape, out_shape, *, mask=None, past=None,
                 present_shape=None, **attrs):
    def build():
        g = Graph(name, 23)
        q = g.input("q", "f32", q_shape)
        k = g.input("k", "f32", k_shape)
        v = g.input("v", "f32", v_shape)
        ins = [q, k, v]
        if mask is not None or past is not None:
            ins.append(g.input("attn_mask", mask[0], mask[1]) if mask else "")
        if past is not None:
            ins += [g.input("past_key", "f32", past), g.input("past_value", "f32", past)]
        n_out = 3 if past is not None else 1
        outs = g.op("Attention", ins, n_out=n_out, **attrs)
        if past is not None:
            g.output(outs[0], "y", "f32", out_shape)
            g.output(outs[1], "present_key", "f32", present_shape)
            g.output(outs[2], "present_value", "f32", present_shape)
        else:
            g.output(outs, "y", "f32", out_shape)
        return g.model()
    return build


_add("ops", "attention23_4d_gqa_causal",
     _attention23("attention23_4d_gqa_causal", [2, 4, 5, 8], [2, 2, 5, 8], [2, 2, 5, 8],
                  [2, 4, 5, 8], is_causal=1), rtol=1e-5)
_add("ops", "attention23_3d_float_mask",
     _attention23("attention23_3d_float_mask", [2, 5, 32], [2, 7, 32], [2, 7, 32], [2, 5, 32],
                  mask=("f32", [2, 1, 5, 7]), q_num_heads=4, kv_num_heads=4, scale=0.3))
_add("ops", "attention23_bool_mask_softcap",
     _attention23("attention23_bool_mask_softcap", [2, 4, 5, 8], [2, 4, 6, 8], [2, 4, 6, 8],
                  [2, 4, 5, 8], mask=("bool", [5, 6]), softcap=2.0),
     special={"attn_mask": lambda r, s: np.concatenate(
         [np.ones((s[0], 1), bool), r.random((s[0], s[1] - 1)) < 0.7], axis=1)})
_add("ops", "attention23_kv_cache",
     _attention23("attention23_kv_cache", [2, 4, 1, 8], [2, 2, 1, 8], [2, 2, 1, 8],
                  [2, 4, 1, 8], past=[2, 2, 6, 8], present_shape=[2, 2, 7, 8], is_causal=1))


def _rope23(name, x_shape, cache_shape, **attrs):
    def build():
        g = Graph(name, 23)
        x = g.input("x", "f32", x_shape)
        pos = g.input("position_ids", "i64", [x_shape[0], x_shape[2] if len(x_shape) == 4
                                               else x_shape[1]])
        cos, sin = _rope_tables(cache_shape[0], 2 * cache_shape[1])
        y = g.op("RotaryEmbedding", [x, g.f32(cos, "cos_cache"), g.f32(sin, "sin_cache"), pos],
                 **attrs)
        g.output(y, "y", "f32", x_shape)
        return g.model()
    return build


def _rope_tables(max_pos, rot_dim, theta=10000.0):
    inv = 1.0 / theta ** (np.arange(0, rot_dim, 2, dtype=np.float64) / rot_dim)
    f = np.outer(np.arange(max_pos), inv)
    return np.cos(f).astype(np.float32), np.sin(f).astype(np.float32)


# ONNX RotaryEmbedding-23: X [B, H, S, D] (4D) or [B, S, H*D] with num_heads (3D); caches
# [max_pos, rotary_dim / 2] gathered by position_ids [B, S].
_add("ops", "rotary_embedding23_4d_half", _rope23("rotary_embedding23_4d_half", [2, 3, 5, 16], [32, 8]),
     special={"position_ids": _ints(0, 32)})
_add("ops", "rotary_embedding23_3d_interleaved",
     _rope23("rotary_embedding23_3d_interleaved", [2, 5, 32], [32, 8], num_heads=2, interleaved=1),
     special={"position_ids": _ints(0, 32)})
_add("ops", "rotary_embedding23_partial",
     _rope23("rotary_embedding23_partial", [2, 3, 5, 16], [32, 4], rotary_embedding_dim=8),
     special={"position_ids": _ints(0, 32)})


@_case("ops")
def reshape_zero_minus_one():
    g = Graph("reshape_zero_minus_one")
    x = g.input("x", "f32", [2, 3, 8])
    g.output(g.op("Reshape", [x, g.i64([0, -1, 4])]), "y", "f32", [2, 6, 4])
    return g.model()


@_case("ops", dims=[{"batch": 2, "sequence": 5}, {"batch": 1, "sequence": 3}])
def reshape_dynamic_zero():
    g = Graph("reshape_dynamic_zero")
    x = g.input("x", "f32", ["batch", "sequence", 32])
    g.output(g.op("Reshape", [x, g.i64([0, 0, 4, 8])]), "y", "f32", ["batch", "sequence", 4, 8])
    return g.model()


@_case("ops")
def transpose_0213():
    g = Graph("transpose_0213")
    x = g.input("x", "f32", [2, 3, 4, 5])
    g.output(g.op("Transpose", [x], perm=[0, 2, 1, 3]), "y", "f32", [2, 4, 3, 5])
    return g.model()


@_case("ops")
def transpose_default_reverse():
    g = Graph("transpose_default_reverse")
    x = g.input("x", "f32", [2, 3, 4])
    g.output(g.op("Transpose", [x]), "y", "f32", [4, 3, 2])
    return g.model()


@_case("ops")
def unsqueeze_axes_input():
    g = Graph("unsqueeze_axes_input")
    x = g.input("x", "f32", [3, 4])
    g.output(g.op("Unsqueeze", [x, g.i64([0, -1])]), "y", "f32", [1, 3, 4, 1])
    return g.model()


@_case("ops")
def squeeze_axes_input():
    g = Graph("squeeze_axes_input")
    x = g.input("x", "f32", [1, 3, 1, 4])
    g.output(g.op("Squeeze", [x, g.i64([0, 2])]), "y", "f32", [3, 4])
    return g.model()


@_case("ops")
def squeeze_all_ones():
    g = Graph("squeeze_all_ones")
    x = g.input("x", "f32", [1, 3, 1, 4])
    g.output(g.op("Squeeze", [x]), "y", "f32", [3, 4])
    return g.model()


@_case("ops")
def expand_broadcast():
    g = Graph("expand_broadcast")
    x = g.input("x", "f32", [3, 1])
    g.output(g.op("Expand", [x, g.i64([2, 3, 4])]), "y", "f32", [2, 3, 4])
    return g.model()


@_case("ops")
def concat_last_axis():
    g = Graph("concat_last_axis")
    a, b, c = (g.input("a", "f32", [2, 3]), g.input("b", "f32", [2, 1]),
               g.input("c", "f32", [2, 4]))
    g.output(g.op("Concat", [a, b, c], axis=-1), "y", "f32", [2, 8])
    return g.model()


@_case("ops")
def slice_negative_steps():
    g = Graph("slice_negative_steps")
    x = g.input("x", "f32", [4, 10, 6])
    y = g.op("Slice", [x, g.i64([-8, 1]), g.i64([-1, 1000]), g.i64([1, 2]), g.i64([2, 2])])
    g.output(y, "y", "f32", [4, 4, 3])
    return g.model()


@_case("ops")
def slice_reverse():
    g = Graph("slice_reverse")
    x = g.input("x", "f32", [4, 6])
    y = g.op("Slice", [x, g.i64([-1]), g.i64([-INT64_MAX]), g.i64([1]), g.i64([-1])])
    g.output(y, "y", "f32", [4, 6])
    return g.model()


@_case("ops")
def slice_default_axes():
    g = Graph("slice_default_axes")
    x = g.input("x", "f32", [4, 6])
    g.output(g.op("Slice", [x, g.i64([1]), g.i64([3])]), "y", "f32", [2, 6])
    return g.model()


@_case("ops")
def split_sizes_op13():
    g = Graph("split_sizes_op13", 13)
    x = g.input("x", "f32", [2, 8])
    a, b = g.op("Split", [x, g.i64([3, 5])], n_out=2, axis=1)
    g.output(a, "a", "f32", [2, 3])
    g.output(b, "b", "f32", [2, 5])
    return g.model()


@_case("ops")
def split_num_outputs_op18():
    g = Graph("split_num_outputs_op18", 18)
    x = g.input("x", "f32", [2, 3, 12])
    a, b, c = g.op("Split", [x], n_out=3, axis=-1, num_outputs=3)
    for n, v in zip("abc", (a, b, c)):
        g.output(v, n, "f32", [2, 3, 4])
    return g.model()


@_case("ops")
def split_equal_op13():
    g = Graph("split_equal_op13", 13)
    x = g.input("x", "f32", [2, 3, 12])
    q, k, v = g.op("Split", [x], n_out=3, axis=2)
    for n, t in zip("qkv", (q, k, v)):
        g.output(t, n, "f32", [2, 3, 4])
    return g.model()


@_case("ops", special={"ids": _ints(0, 50)})
def gather_embedding():
    g = Graph("gather_embedding")
    ids = g.input("ids", "i64", [2, 5])
    g.output(g.op("Gather", [g.weight([50, 16], "table", 1.0), ids], axis=0), "y", "f32",
             [2, 5, 16])
    return g.model()


@_case("ops")
def gather_scalar_index():
    g = Graph("gather_scalar_index")
    x = g.input("x", "f32", [4, 6, 8])
    g.output(g.op("Gather", [x, g.i64(2)], axis=1), "y", "f32", [4, 8])
    return g.model()


@_case("ops")
def gather_negative_index():
    g = Graph("gather_negative_index")
    x = g.input("x", "f32", [4, 6, 8])
    g.output(g.op("Gather", [x, g.i64([-1, 0])], axis=-1), "y", "f32", [4, 6, 2])
    return g.model()


@_case("ops", dims=[{"batch": 2, "sequence": 5}, {"batch": 3, "sequence": 1}])
def shape_start_end():
    g = Graph("shape_start_end", 15)
    x = g.input("x", "f32", ["batch", "sequence", 8])
    g.output(g.op("Shape", [x], start=1, end=-1), "y", "i64", [1])
    g.output(g.op("Shape", [x]), "full", "i64", [3])
    return g.model()


@_case("ops")
def range_const_f32():
    g = Graph("range_const_f32")
    g.input("x", "f32", [1])
    y = g.op("Range", [g.f32(0.0), g.f32(10.0), g.f32(1.5)])
    g.output(g.op("Add", [y, "x"]), "y", "f32", [7])
    return g.model()


@_case("ops", dims=[{"batch": 2, "sequence": 5}, {"batch": 1, "sequence": 8}])
def range_dynamic_limit():
    g = Graph("range_dynamic_limit")
    x = g.input("x", "f32", ["batch", "sequence"])
    g.output(g.op("Range", [g.i64(0), g.dim(x, 1), g.i64(1)]), "y", "i64", ["sequence"])
    return g.model()


@_case("ops", dims=[{"batch": 2}, {"batch": 5}])
def constant_of_shape_f32():
    g = Graph("constant_of_shape_f32")
    x = g.input("x", "f32", ["batch", 4])
    c = g.op("ConstantOfShape", [g.op("Shape", [x])],
             value=helper.make_tensor("value", TensorProto.FLOAT, [1], [0.5]))
    g.output(g.op("Add", [x, c]), "y", "f32", ["batch", 4])
    return g.model()


@_case("ops")
def constant_of_shape_i64():
    g = Graph("constant_of_shape_i64")
    g.input("x", "i64", [3])
    c = g.op("ConstantOfShape", [g.i64([2, 3])],
             value=helper.make_tensor("value", TensorProto.INT64, [1], [7]))
    g.output(g.op("Add", [c, "x"]), "y", "i64", [2, 3])
    return g.model()


@_case("ops")
def trilu_upper_k1():
    g = Graph("trilu_upper_k1", 14)
    x = g.input("x", "f32", [2, 5, 5])
    g.output(g.op("Trilu", [x, g.i64(1)], upper=1), "y", "f32", [2, 5, 5])
    return g.model()


@_case("ops")
def trilu_lower():
    g = Graph("trilu_lower")
    x = g.input("x", "f32", [5, 7])
    g.output(g.op("Trilu", [x], upper=0), "y", "f32", [5, 7])
    return g.model()


@_case("ops")
def trilu_lower_neg_k():
    g = Graph("trilu_lower_neg_k")
    x = g.input("x", "f32", [6, 4])
    g.output(g.op("Trilu", [x, g.i64(-1)], upper=0), "y", "f32", [6, 4])
    return g.model()


@_case("ops")
def tile_2d():
    g = Graph("tile_2d")
    x = g.input("x", "f32", [2, 3])
    g.output(g.op("Tile", [x, g.i64([2, 2])]), "y", "f32", [4, 6])
    return g.model()


@_case("ops")
def constant_tensor():
    g = Graph("constant_tensor")
    x = g.input("x", "f32", [2, 4])
    c = g.op("Constant", [], value=numpy_helper.from_array(
        np.array([1.0, -2.0, 0.5, 3.0], np.float32), "c"))
    g.output(g.op("Add", [x, c]), "y", "f32", [2, 4])
    return g.model()


@_case("ops")
def constant_value_float():
    g = Graph("constant_value_float")
    x = g.input("x", "f32", [2, 4])
    g.output(g.op("Mul", [x, g.op("Constant", [], value_float=0.5)]), "y", "f32", [2, 4])
    return g.model()


@_case("ops")
def constant_value_ints():
    g = Graph("constant_value_ints")
    x = g.input("x", "f32", [4, 3])
    g.output(g.op("Reshape", [x, g.op("Constant", [], value_ints=[2, -1])]), "y", "f32", [2, 6])
    return g.model()


# -- TopK, ScatterND, ScatterElements (MoE routing, KV-cache updates) --------------------------


def _distinct_rows(n_rows, count, size, lo=0):
    """``fn(rng, shape)`` giving, per row, ``count`` distinct indices in [lo, lo + size)."""
    def make(rng, shape):
        rows = [rng.permutation(size)[:count] + lo for _ in range(int(np.prod(shape[:-1])))]
        return np.asarray(rows, np.int64).reshape(shape)
    return make


@_case("ops", dims=[{"batch": 3}, {"batch": 1}])
def top_k_last_axis():
    g = Graph("top_k_last_axis", 13)
    x = g.input("x", "f32", ["batch", 8])
    v, i = g.op("TopK", [x, g.i64([3])], n_out=2)
    g.output(v, "values", "f32", ["batch", 3])
    g.output(i, "indices", "i64", ["batch", 3])
    return g.model()


@_case("ops")
def top_k_axis1_smallest():
    g = Graph("top_k_axis1_smallest", 13)
    x = g.input("x", "f32", [3, 7, 4])
    v, i = g.op("TopK", [x, g.i64([2])], n_out=2, axis=1, largest=0)
    g.output(v, "values", "f32", [3, 2, 4])
    g.output(i, "indices", "i64", [3, 2, 4])
    return g.model()


@_case("ops", special={"x": lambda rng, s: rng.integers(0, 3, s).astype(np.float32)})
def top_k_ties_int_values():
    """Equal values: the lower index comes first (ONNX's rule)."""
    g = Graph("top_k_ties_int_values", 13)
    x = g.input("x", "f32", [4, 9])
    v, i = g.op("TopK", [x, g.i64([5])], n_out=2, axis=-1)
    g.output(v, "values", "f32", [4, 5])
    g.output(i, "indices", "i64", [4, 5])
    return g.model()


def _scatter_nd_rows(rng, shape):
    # [B, T, 2] tuples (b, position): every batch row writes T distinct positions of 10.
    b, t, _ = shape
    out = np.zeros(shape, np.int64)
    for bi in range(b):
        out[bi, :, 0] = bi
        out[bi, :, 1] = rng.permutation(10)[:t]
    return out


@_case("ops", special={"idx": _scatter_nd_rows})
def scatter_nd_kv_cache_rows():
    """A KV-cache update: rows of a [B, S, D] cache written at (batch, position) tuples."""
    g = Graph("scatter_nd_kv_cache_rows", 13)
    cache = g.input("cache", "f32", [2, 10, 8])
    idx = g.input("idx", "i64", [2, 3, 2])
    upd = g.input("upd", "f32", [2, 3, 8])
    g.output(g.op("ScatterND", [cache, idx, upd]), "y", "f32", [2, 10, 8])
    return g.model()


@_case("ops", special={"idx": _ints(0, 4)})
def scatter_nd_add_elements():
    """Full-depth tuples with repeats, summed (reduction = add, opset 16)."""
    g = Graph("scatter_nd_add_elements", 16)
    data = g.input("data", "f32", [4, 4])
    idx = g.input("idx", "i64", [6, 2])
    upd = g.input("upd", "f32", [6])
    g.output(g.op("ScatterND", [data, idx, upd], reduction="add"), "y", "f32", [4, 4])
    return g.model()


@_case("ops", special={"idx": _ints(0, 5)})
def scatter_nd_max_slices():
    g = Graph("scatter_nd_max_slices", 18)
    data = g.input("data", "f32", [5, 3, 4])
    idx = g.input("idx", "i64", [4, 1])
    upd = g.input("upd", "f32", [4, 3, 4])
    g.output(g.op("ScatterND", [data, idx, upd], reduction="max"), "y", "f32", [5, 3, 4])
    return g.model()


@_case("ops", dims=[{"tokens": 5}, {"tokens": 1}], special={"idx": _distinct_rows(0, 2, 8)})
def scatter_elements_gates():
    """MoE gates: top-k weights scattered into a zero [tokens, experts] matrix."""
    g = Graph("scatter_elements_gates", 13)
    zeros = g.input("zeros", "f32", ["tokens", 8])
    idx = g.input("idx", "i64", ["tokens", 2])
    upd = g.input("upd", "f32", ["tokens", 2])
    g.output(g.op("ScatterElements", [zeros, idx, upd], axis=1), "y", "f32", ["tokens", 8])
    return g.model()


@_case("ops", special={"idx": _distinct_rows(0, 3, 6, lo=-6)})
def scatter_elements_negative_indices():
    g = Graph("scatter_elements_negative_indices", 13)
    data = g.input("data", "f32", [2, 4, 6])
    idx = g.input("idx", "i64", [2, 4, 3])
    upd = g.input("upd", "f32", [2, 4, 3])
    g.output(g.op("ScatterElements", [data, idx, upd], axis=-1), "y", "f32", [2, 4, 6])
    return g.model()


@_case("ops", special={"idx": _ints(0, 3)})
def scatter_elements_add_axis0():
    g = Graph("scatter_elements_add_axis0", 16)
    data = g.input("data", "f32", [3, 5])
    idx = g.input("idx", "i64", [4, 5])
    upd = g.input("upd", "f32", [4, 5])
    g.output(g.op("ScatterElements", [data, idx, upd], axis=0, reduction="add"), "y", "f32",
             [3, 5])
    return g.model()


# -- Sequence ops (resolved at import) ---------------------------------------------------------


@_case("ops", dims=[{"batch": 2}, {"batch": 3}])
def seq_split_at_concat():
    """torch.split along dim 1 -> a sequence; its last piece, its length, and the concat back."""
    g = Graph("seq_split_at_concat", 17)
    x = g.input("x", "f32", ["batch", 6, 4])
    s = g.op("SplitToSequence", [x, g.i64([1, 2, 3])], axis=1)
    g.output(g.op("SequenceAt", [s, g.i64(-1)]), "last", "f32", ["batch", 3, 4])
    g.output(g.op("SequenceLength", [s]), "n", "i64", [])
    g.output(g.op("ConcatFromSequence", [s], axis=1), "y", "f32", ["batch", 6, 4])
    return g.model()


@_case("ops")
def seq_construct_insert_stack():
    """A list built up and stacked (torch.stack), one element erased and read back."""
    g = Graph("seq_construct_insert_stack", 17)
    a = g.input("a", "f32", [3, 4])
    b = g.input("b", "f32", [3, 4])
    c = g.input("c", "f32", [3, 4])
    s = g.op("SequenceConstruct", [a, b])
    s = g.op("SequenceInsert", [s, g.op("Neg", [c]), g.i64(1)])
    g.output(g.op("ConcatFromSequence", [s], axis=-1, new_axis=1), "stacked", "f32", [3, 4, 3])
    e = g.op("SequenceErase", [s, g.i64(0)])
    g.output(g.op("SequenceAt", [e, g.i64(0)]), "first", "f32", [3, 4])
    return g.model()


@_case("ops", dims=[{"n": 5}, {"n": 2}])
def seq_unbind_empty_insert():
    """torch.unbind (keepdims = 0 splits into unit pieces and squeezes), a list started empty."""
    g = Graph("seq_unbind_empty_insert", 17)
    x = g.input("x", "f32", [3, "n"])
    s = g.op("SplitToSequence", [x], axis=0, keepdims=0)
    t = g.op("SequenceEmpty", [], dtype=TensorProto.FLOAT)
    t = g.op("SequenceInsert", [t, g.op("SequenceAt", [s, g.i64(2)])])
    t = g.op("SequenceInsert", [t, g.op("SequenceAt", [s, g.i64(0)])])
    g.output(g.op("ConcatFromSequence", [t], axis=0, new_axis=1), "y", "f32", [2, "n"])
    s2 = g.op("SplitToSequence", [x, g.i64(2)], axis=0)
    g.output(g.op("SequenceAt", [s2, g.i64(1)]), "tail", "f32", [1, "n"])
    return g.model()


# ---------------------------------------------------------------------------------------------
# (a') com.microsoft ops


@_case("ms_ops", note="default domain: ONNX Runtime registers SimplifiedLayerNormalization there "
                      "and rejects com.microsoft:SimplifiedLayerNormalization")
def ms_simplified_layer_norm():
    g = Graph("ms_simplified_layer_norm")
    x = g.input("x", "f32", [2, 5, 16])
    y = g.op("SimplifiedLayerNormalization", [x, g.weight([16], "scale", 0.2, 1.0)],
             axis=-1, epsilon=1e-6)
    g.output(y, "y", "f32", [2, 5, 16])
    return g.model()


@_case("ms_ops")
def ms_skip_simplified_layer_norm():
    g = Graph("ms_skip_simplified_layer_norm", ms=True)
    x = g.input("x", "f32", [2, 5, 16])
    s = g.input("skip", "f32", [2, 5, 16])
    y, _, _, r = g.ms_op("SkipSimplifiedLayerNormalization",
                         [x, s, g.weight([16], "gamma", 0.2, 1.0)], n_out=4, epsilon=1e-6)
    g.nodes[-1].output[1] = g.nodes[-1].output[2] = ""
    g.output(y, "y", "f32", [2, 5, 16])
    g.output(r, "residual", "f32", [2, 5, 16])
    return g.model()


@_case("ms_ops")
def ms_skip_simplified_layer_norm_bias():
    g = Graph("ms_skip_simplified_layer_norm_bias", ms=True)
    x = g.input("x", "f32", [2, 5, 16])
    s = g.input("skip", "f32", [2, 5, 16])
    y = g.ms_op("SkipSimplifiedLayerNormalization",
                [x, s, g.weight([16], "gamma", 0.2, 1.0), g.weight([16], "bias", 0.1)],
                epsilon=1e-5)
    g.output(y, "y", "f32", [2, 5, 16])
    return g.model()


@_case("ms_ops")
def ms_skip_layer_norm():
    g = Graph("ms_skip_layer_norm", ms=True)
    x = g.input("x", "f32", [2, 5, 16])
    s = g.input("skip", "f32", [2, 5, 16])
    outs = g.ms_op("SkipLayerNormalization",
                   [x, s, g.weight([16], "gamma", 0.2, 1.0), g.weight([16], "beta", 0.1),
                    g.weight([16], "bias", 0.1)], n_out=4, epsilon=1e-5)
    g.nodes[-1].output[1] = g.nodes[-1].output[2] = ""
    g.output(outs[0], "y", "f32", [2, 5, 16])
    g.output(outs[3], "residual", "f32", [2, 5, 16])
    return g.model()


def _ms_rope(name, x_shape, rot_half, max_pos=32, **attrs):
    def build():
        g = Graph(name, ms=True)
        x = g.input("x", "f32", x_shape)
        s = x_shape[2] if len(x_shape) == 4 else x_shape[1]
        pos = g.input("position_ids", "i64", [x_shape[0], s])
        cos, sin = _rope_tables(max_pos, 2 * rot_half)
        y = g.ms_op("RotaryEmbedding", [x, pos, g.f32(cos, "cos_cache"), g.f32(sin, "sin_cache")],
                    **attrs)
        g.output(y, "y", "f32", x_shape)
        return g.model()
    return build


# com.microsoft RotaryEmbedding: inputs (input, position_ids, cos_cache, sin_cache).
_add("ms_ops", "ms_rotary_embedding_3d", _ms_rope("ms_rotary_embedding_3d", [2, 5, 32], 8, num_heads=2),
     special={"position_ids": _ints(0, 32)})
_add("ms_ops", "ms_rotary_embedding_4d_interleaved",
     _ms_rope("ms_rotary_embedding_4d_interleaved", [2, 3, 5, 16], 8, interleaved=1),
     special={"position_ids": _ints(0, 32)})
_add("ms_ops", "ms_rotary_embedding_partial",
     _ms_rope("ms_rotary_embedding_partial", [2, 5, 32], 4, num_heads=2, rotary_embedding_dim=8),
     special={"position_ids": _ints(0, 32)})


def _gqa(name, *, seq, past, heads=4, kv_heads=2, dh=16, batch=2, rotary=False, seqlens=None,
         **attrs):
    """com.microsoft GroupQueryAttention: query/key/value [B, S, H*D], past [B, Hkv, P, D],
    seqlens_k [B] = total - 1 (int32; ``seqlens`` gives per-row values for a padded batch),
    total_sequence_length (int32 scalar)."""
    total = past + seq

    def build():
        g = Graph(name, ms=True)
        q = g.input("query", "f32", [batch, seq, heads * dh])
        k = g.input("key", "f32", [batch, seq, kv_heads * dh])
        v = g.input("value", "f32", [batch, seq, kv_heads * dh])
        pk = g.input("past_key", "f32", [batch, kv_heads, past, dh])
        pv = g.input("past_value", "f32", [batch, kv_heads, past, dh])
        lens = g.i64(seqlens if seqlens is not None else [total - 1] * batch)
        lens = g.op("Cast", [lens], to=TensorProto.INT32)
        tot = g.op("Cast", [g.i64(total)], to=TensorProto.INT32)
        ins = [q, k, v, pk, pv, lens, tot]
        if rotary:
            cos, sin = _rope_tables(64, dh)
            ins += [g.f32(cos, "cos_cache"), g.f32(sin, "sin_cache")]
            attrs["do_rotary"] = 1
        y, pk2, pv2 = g.ms_op("GroupQueryAttention", ins, n_out=3, num_heads=heads,
                              kv_num_heads=kv_heads, **attrs)
        g.output(y, "y", "f32", [batch, seq, heads * dh])
        g.output(pk2, "present_key", "f32", [batch, kv_heads, total, dh])
        g.output(pv2, "present_value", "f32", [batch, kv_heads, total, dh])
        return g.model()
    return build


_add("ms_ops", "ms_gqa_prefill", _gqa("ms_gqa_prefill", seq=6, past=0))
_add("ms_ops", "ms_gqa_decode", _gqa("ms_gqa_decode", seq=1, past=7))
_add("ms_ops", "ms_gqa_local_window", _gqa("ms_gqa_local_window", seq=8, past=0,
                                            local_window_size=3))
_add("ms_ops", "ms_gqa_softcap", _gqa("ms_gqa_softcap", seq=5, past=0, softcap=2.0, scale=0.5))
# ONNX Runtime's CPU GroupQueryAttention refuses sequence > 1 on a non-empty cache unless
# batch is 1 ("batch_size must be 1 when sequence_length > 1 and past context is given").
_add("ms_ops", "ms_gqa_chunked_prefill", _gqa("ms_gqa_chunked_prefill", seq=3, past=4, batch=1),
     note="batch 1: ONNX Runtime takes sequence > 1 with a past only for batch 1")
_add("ms_ops", "ms_gqa_rotary", _gqa("ms_gqa_rotary", seq=5, past=0, rotary=True))
# A right-padded prompt batch: row b has seqlens_k[b] + 1 real tokens; keys past that are
# masked per row (query rows in the padding see every real key, as in ONNX Runtime).
_add("ms_ops", "ms_gqa_padded_prefill", _gqa("ms_gqa_padded_prefill", seq=6, past=0, batch=3,
                                             seqlens=[5, 3, 0]))
_add("ms_ops", "ms_gqa_padded_prefill_rotary_window",
     _gqa("ms_gqa_padded_prefill_rotary_window", seq=7, past=0, batch=2, seqlens=[6, 2],
          rotary=True, local_window_size=3))


# com.microsoft MatMulNBits (onnxruntime-genai's int4 weight-only models): B [N, k_blocks,
# block_size * bits / 8] uint8 codes packed low-first along K, scales [N * k_blocks] of A's type,
# zero points packed codes (each row's padded to whole bytes) or floats, default 2^(bits - 1);
# W[n, k] = (code - zero point) * scale; Y = A W^T (+ bias).
def _pack_codes(codes, bits):
    """[rows, groups, count] integer codes < 2^bits -> [rows, groups, count * bits / 8] bytes,
    low bits first."""
    per = 8 // bits
    rows, groups, count = codes.shape
    c = codes.reshape(rows, groups, count // per, per).astype(np.uint32)
    out = np.zeros((rows, groups, count // per), np.uint32)
    for j in range(per):
        out |= c[..., j] << (bits * j)
    return out.astype(np.uint8)


def _matmul_nbits(name, *, k, n, bits=4, block=32, zero_points=None, bias=False,
                  dtype="f32", lead=(2, 3), **attrs):
    """A [*lead, K] input; B, scales, zero points (None, "packed" or "float") and bias
    initializers drawn from a fixed seed."""
    npt = np.float16 if dtype == "f16" else np.float32

    def build():
        g = Graph(name, ms=True)
        rng = np.random.default_rng(7)
        blocks = (k + block - 1) // block
        a = g.input("a", dtype, list(lead) + [k])
        codes = rng.integers(0, 2 ** bits, (n, blocks, block))
        ins = [a, g.init(_pack_codes(codes, bits), "B"),
               g.init((0.02 + 0.05 * rng.random(n * blocks)).astype(npt), "scales")]
        if zero_points == "packed":
            per = 8 // bits
            padded = np.zeros((n, -(-blocks // per) * per), np.int64)
            padded[:, :blocks] = rng.integers(0, 2 ** bits, (n, blocks))
            ins.append(g.init(_pack_codes(padded[:, None, :], bits).reshape(-1), "zero_points"))
        elif zero_points == "float":
            ins.append(g.init((rng.random(n * blocks) * (2 ** bits - 1)).astype(npt),
                              "zero_points"))
        if bias:
            ins += [""] * (5 - len(ins)) + [g.init(rng.standard_normal(n).astype(npt), "bias")]
        y = g.ms_op("MatMulNBits", ins, K=k, N=n, bits=bits, block_size=block, **attrs)
        g.output(y, "y", dtype, list(lead) + [n])
        return g.model()
    return build


for _name, _kw, _tol in [
        ("ms_matmul_nbits_4bit", {"k": 64, "n": 24}, {}),
        # K = 80 in blocks of 32: the last block is ragged (its padding codes unused).
        ("ms_matmul_nbits_4bit_zero_points_bias",
         {"k": 80, "n": 10, "zero_points": "packed", "bias": True}, {}),
        ("ms_matmul_nbits_4bit_block16_float_zero_points",
         {"k": 64, "n": 12, "block": 16, "zero_points": "float"}, {}),
        ("ms_matmul_nbits_8bit", {"k": 96, "n": 12, "bits": 8, "zero_points": "packed"}, {}),
        ("ms_matmul_nbits_2bit", {"k": 64, "n": 12, "bits": 2, "zero_points": "packed"}, {}),
        # N x K = 64 elements: the dequantized weight inline rather than a resource blob.
        ("ms_matmul_nbits_small", {"k": 16, "n": 4, "block": 16, "lead": (5,)}, {}),
        ("ms_matmul_nbits_f16", {"k": 64, "n": 16, "dtype": "f16", "zero_points": "packed",
                                 "bias": True}, {"rtol": 2e-3, "atol": 2e-3}),
        # 80 rows: a prefill's projection (tensor cores on the GPU).
        ("ms_matmul_nbits_f16_prefill", {"k": 128, "n": 64, "dtype": "f16",
                                         "zero_points": "packed", "lead": (2, 40)},
         {"rtol": 2e-3, "atol": 2e-3})]:
    _add("ms_ops", _name, _matmul_nbits(_name, **_kw), **_tol)


# GroupQueryAttention with seqlens_k and total_sequence_length as model inputs (run-time row
# lengths) and a symbolic past length, the way onnxruntime-genai exports feed it: each input set
# below is one of the forms ONNX Runtime accepts for the same file. "buffer" sets pass a past of
# a maximum length (present has that length; genai's shared past/present on CUDA).
#: (label, batch, sequence, past length, seqlens_k, total_sequence_length)
GQA_RUNTIME_SETS = [
    ("buffer decode", 2, 1, 10, [6, 6], 7),
    ("buffer decode, rows of different lengths", 2, 1, 10, [6, 3], 7),
    ("concatenated decode", 2, 1, 5, [5, 5], 6),
    ("prompt, empty past", 2, 3, 0, [2, 2], 3),
    ("right-padded prompt into a buffer", 2, 4, 10, [3, 1], 4),
    ("chunk into a buffer", 1, 3, 12, [8], 9),
    ("chunk concatenated", 1, 3, 4, [6], 7),
    ("batch-1 decode into a buffer", 1, 1, 10, [6], 7),
]


#: Prompts and chunks long enough for the GPU's tensor-core attention (more than 16 rows per
#: K/V head).
GQA_LONG_SETS = [
    ("prompt of 64 tokens", 1, 64, 0, [63], 64),
    ("chunk of 32 tokens into a buffer", 1, 32, 64, [47], 48),
]


def _gqa_runtime(name, *, heads=4, kv_heads=2, dh=16, rotary=False, sink=False, dtype="f32",
                 sets=None, rotary_table=64, **attrs):
    """GroupQueryAttention over inputs query/key/value [B, S, H*D], past_key/past_value
    [B, Hkv, P, D], seqlens_k [B] (int32), total_sequence_length (int32 scalar), optionally
    head_sink [H]; present has the symbolic length max(P, total). ``dtype`` f16: every float
    input, the tables and outputs in float16 (onnxruntime-genai's CUDA models)."""
    npt = np.float16 if dtype == "f16" else np.float32

    def build():
        g = Graph(name, ms=True)
        q = g.input("query", dtype, ["batch", "sequence", heads * dh])
        k = g.input("key", dtype, ["batch", "sequence", kv_heads * dh])
        v = g.input("value", dtype, ["batch", "sequence", kv_heads * dh])
        pk = g.input("past_key", dtype, ["batch", kv_heads, "past", dh])
        pv = g.input("past_value", dtype, ["batch", kv_heads, "past", dh])
        lens = g.input("seqlens_k", "i32", ["batch"])
        tot = g.input("total_sequence_length", "i32", [])
        ins = [q, k, v, pk, pv, lens, tot]
        if rotary:
            cos, sin = _rope_tables(rotary_table, dh)
            ins += [g.init(cos.astype(npt), "cos_cache"), g.init(sin.astype(npt), "sin_cache")]
            attrs["do_rotary"] = 1
        if sink:
            ins += [""] * (11 - len(ins)) + [g.input("head_sink", dtype, [heads])]
        y, pk2, pv2 = g.ms_op("GroupQueryAttention", ins, n_out=3, num_heads=heads,
                              kv_num_heads=kv_heads, **attrs)
        g.output(y, "y", dtype, ["batch", "sequence", heads * dh])
        g.output(pk2, "present_key", dtype, ["batch", kv_heads, "present", dh])
        g.output(pv2, "present_value", dtype, ["batch", kv_heads, "present", dh])
        return g.model()

    def feeds(model, seed):
        rng = np.random.default_rng(seed)
        out = []
        for _, b, t, p, lens, total in sets or GQA_RUNTIME_SETS:
            f = {"query": rng.standard_normal((b, t, heads * dh)).astype(npt),
                 "key": rng.standard_normal((b, t, kv_heads * dh)).astype(npt),
                 "value": rng.standard_normal((b, t, kv_heads * dh)).astype(npt),
                 "past_key": rng.standard_normal((b, kv_heads, p, dh)).astype(npt),
                 "past_value": rng.standard_normal((b, kv_heads, p, dh)).astype(npt),
                 "seqlens_k": np.asarray(lens, np.int32),
                 "total_sequence_length": np.asarray(total, np.int32)}
            if sink:
                f["head_sink"] = rng.standard_normal(heads).astype(npt)
            out.append(f)
        return out
    return build, feeds


# f16 results are within an f16 ulp or two of ONNX Runtime's.
for _name, _kw, _tol in [
        ("ms_gqa_runtime_lengths", {}, {}),
        ("ms_gqa_runtime_lengths_f16_d64",
         {"dtype": "f16", "heads": 4, "kv_heads": 2, "dh": 64, "rotary": True},
         {"rtol": 2e-3, "atol": 2e-3}),
        ("ms_gqa_runtime_lengths_f16_d64_long",
         {"dtype": "f16", "heads": 4, "kv_heads": 2, "dh": 64, "rotary": True,
          "sets": GQA_LONG_SETS},
         {"rtol": 2e-3, "atol": 4e-3}),
        ("ms_gqa_runtime_lengths_rotary_window", {"rotary": True, "local_window_size": 3}, {}),
        ("ms_gqa_runtime_lengths_rotary_interleaved", {"rotary": True, "rotary_interleaved": 1},
         {}),
        ("ms_gqa_runtime_lengths_head_sink", {"sink": True}, {}),
        ("ms_gqa_runtime_lengths_smooth_softmax", {"smooth_softmax": 1}, {})]:
    _b, _f = _gqa_runtime(_name, **_kw)
    _add("ms_ops", _name, _b, make_feeds=_f, **_tol,
         note="past buffers, rows of different lengths, prompts and chunks: "
              + "; ".join(s[0] for s in _kw.get("sets", GQA_RUNTIME_SETS)))


def _gqa_lengths_from_mask(g, mask):
    """seqlens_k and total_sequence_length from an attention_mask [batch, total] as genai's
    model builder computes them: ReduceSum - 1 and Shape[1], cast to int32."""
    summed = g.op("ReduceSum", [mask, g.i64([1])], keepdims=0)
    lens = g.op("Cast", [g.op("Sub", [summed, g.i64(1)])], to=TensorProto.INT32)
    width = g.op("Gather", [g.op("Shape", [mask]), g.i64(1)], axis=0)
    return lens, g.op("Cast", [width], to=TensorProto.INT32)


def _mask_of_lengths(lens, total):
    """The attention_mask [batch, total] whose row b holds lens[b] + 1 ones."""
    return (np.arange(total)[None, :] <= np.asarray(lens)[:, None]).astype(np.int64)


def _gqa_attention_mask(name, *, heads=4, kv_heads=2, dh=16):
    """GroupQueryAttention as onnxruntime-genai's model builder feeds it: seqlens_k and
    total_sequence_length computed in the graph from an attention_mask input [batch, total]
    (ReduceSum - 1, Shape[1]), rotary on, past buffers of any length."""
    def build():
        g = Graph(name, ms=True)
        q = g.input("query", "f32", ["batch", "sequence", heads * dh])
        k = g.input("key", "f32", ["batch", "sequence", kv_heads * dh])
        v = g.input("value", "f32", ["batch", "sequence", kv_heads * dh])
        pk = g.input("past_key", "f32", ["batch", kv_heads, "past", dh])
        pv = g.input("past_value", "f32", ["batch", kv_heads, "past", dh])
        mask = g.input("attention_mask", "i64", ["batch", "total"])
        lens, tot = _gqa_lengths_from_mask(g, mask)
        cos, sin = _rope_tables(64, dh)
        y, pk2, pv2 = g.ms_op("GroupQueryAttention",
                              [q, k, v, pk, pv, lens, tot, g.f32(cos, "cos_cache"),
                               g.f32(sin, "sin_cache")],
                              n_out=3, num_heads=heads, kv_num_heads=kv_heads, do_rotary=1)
        g.output(y, "y", "f32", ["batch", "sequence", heads * dh])
        g.output(pk2, "present_key", "f32", ["batch", kv_heads, "present", dh])
        g.output(pv2, "present_value", "f32", ["batch", kv_heads, "present", dh])
        return g.model()

    def feeds(model, seed):
        rng = np.random.default_rng(seed)
        out = []
        for _, b, t, p, lens, total in GQA_RUNTIME_SETS:
            mask = _mask_of_lengths(lens, total)
            out.append({"query": rng.standard_normal((b, t, heads * dh)).astype(np.float32),
                        "key": rng.standard_normal((b, t, kv_heads * dh)).astype(np.float32),
                        "value": rng.standard_normal((b, t, kv_heads * dh)).astype(np.float32),
                        "past_key": rng.standard_normal((b, kv_heads, p, dh)).astype(np.float32),
                        "past_value": rng.standard_normal((b, kv_heads, p, dh)).astype(np.float32),
                        "attention_mask": mask})
        return out
    return build, feeds


_b, _f = _gqa_attention_mask("ms_gqa_attention_mask")
_add("ms_ops", "ms_gqa_attention_mask", _b, make_feeds=_f,
     note="seqlens_k / total_sequence_length from an attention_mask input, as genai exports")


def _genai_int4_layer(name, *, hidden=64, heads=4, kv_heads=2, inter=128, block=32,
                      dtype="f32"):
    """One decoder layer as onnxruntime-genai's model builder exports an int4 Llama: the
    residual stream and the previous layer's output into SkipSimplifiedLayerNormalization,
    q/k/v/o and gate/up/down as MatMulNBits (4-bit, packed zero points), GroupQueryAttention
    with rotary and seqlens_k / total_sequence_length from the attention_mask, SiLU as
    Sigmoid * x; outputs the residual stream and the layer's output (the next layer's Skip
    inputs) and the presents."""
    dh = hidden // heads
    npt = np.float16 if dtype == "f16" else np.float32

    def build():
        g = Graph(name, ms=True)
        rng = np.random.default_rng(11)

        def nbits(x, k, n, label):
            blocks = (k + block - 1) // block
            codes = rng.integers(0, 16, (n, blocks, block))
            zp = np.zeros((n, -(-blocks // 2) * 2), np.int64)
            zp[:, :blocks] = rng.integers(6, 11, (n, blocks))
            scale = (0.2 / math.sqrt(k) * (0.5 + rng.random(n * blocks))).astype(npt)
            return g.ms_op("MatMulNBits",
                           [x, g.init(_pack_codes(codes, 4), f"{label}.B"),
                            g.init(scale, f"{label}.scales"),
                            g.init(_pack_codes(zp[:, None, :], 4).reshape(-1), f"{label}.zp")],
                           K=k, N=n, bits=4, block_size=block, accuracy_level=0,
                           name=label)

        def weight(n):
            return g.init((1.0 + 0.1 * rng.standard_normal(n)).astype(npt), "norm")

        resid = g.input("residual", dtype, ["batch", "sequence", hidden])
        x = g.input("hidden", dtype, ["batch", "sequence", hidden])
        pk = g.input("past_key", dtype, ["batch", kv_heads, "past", dh])
        pv = g.input("past_value", dtype, ["batch", kv_heads, "past", dh])
        mask = g.input("attention_mask", "i64", ["batch", "total"])
        normed, _, _, resid1 = g.ms_op("SkipSimplifiedLayerNormalization",
                                       [x, resid, weight(hidden)], n_out=4, epsilon=1e-5)
        q = nbits(normed, hidden, heads * dh, "q_proj")
        k = nbits(normed, hidden, kv_heads * dh, "k_proj")
        v = nbits(normed, hidden, kv_heads * dh, "v_proj")
        lens, tot = _gqa_lengths_from_mask(g, mask)
        cos, sin = _rope_tables(64, dh)
        att, pk2, pv2 = g.ms_op("GroupQueryAttention",
                                [q, k, v, pk, pv, lens, tot, g.init(cos.astype(npt), "cos_cache"),
                                 g.init(sin.astype(npt), "sin_cache")],
                                n_out=3, num_heads=heads, kv_num_heads=kv_heads, do_rotary=1)
        o = nbits(att, heads * dh, hidden, "o_proj")
        normed2, _, _, resid2 = g.ms_op("SkipSimplifiedLayerNormalization",
                                        [o, resid1, weight(hidden)], n_out=4, epsilon=1e-5)
        gate = nbits(normed2, hidden, inter, "gate_proj")
        up = nbits(normed2, hidden, inter, "up_proj")
        act = g.op("Mul", [g.op("Mul", [gate, g.op("Sigmoid", [gate])]), up])
        down = nbits(act, inter, hidden, "down_proj")
        g.output(resid2, "residual_out", dtype, ["batch", "sequence", hidden])
        g.output(down, "hidden_out", dtype, ["batch", "sequence", hidden])
        g.output(pk2, "present_key", dtype, ["batch", kv_heads, "present", dh])
        g.output(pv2, "present_value", dtype, ["batch", kv_heads, "present", dh])
        return g.model()

    def feeds(model, seed):
        rng = np.random.default_rng(seed)
        out = []
        for _, b, t, p, lens, total in GQA_RUNTIME_SETS:
            mask = _mask_of_lengths(lens, total)
            out.append({"residual": rng.standard_normal((b, t, hidden)).astype(npt),
                        "hidden": rng.standard_normal((b, t, hidden)).astype(npt),
                        "past_key": rng.standard_normal((b, kv_heads, p, dh)).astype(npt),
                        "past_value": rng.standard_normal((b, kv_heads, p, dh)).astype(npt),
                        "attention_mask": mask})
        return out
    return build, feeds


for _name, _kw, _tol in [("ms_genai_int4_layer", {}, {"rtol": 1e-5, "atol": 1e-5}),
                         ("ms_genai_int4_layer_f16", {"dtype": "f16"},
                          {"rtol": 4e-3, "atol": 4e-3})]:
    _b, _f = _genai_int4_layer(_name, **_kw)
    _add("ms_ops", _name, _b, make_feeds=_f, **_tol,
         note="a decoder layer as onnxruntime-genai exports int4 Llama models: "
              "SkipSimplifiedLayerNormalization, MatMulNBits, GroupQueryAttention from an "
              "attention_mask, SiLU; every form of past of GQA_RUNTIME_SETS")

@_case("ms_ops")
def ms_multi_head_attention():
    g = Graph("ms_multi_head_attention", ms=True)
    q = g.input("query", "f32", [2, 5, 32])
    k = g.input("key", "f32", [2, 7, 32])
    v = g.input("value", "f32", [2, 7, 32])
    g.output(g.ms_op("MultiHeadAttention", [q, k, v], num_heads=4), "y", "f32", [2, 5, 32])
    return g.model()


@_case("ms_ops")
def ms_multi_head_attention_causal_bias():
    g = Graph("ms_multi_head_attention_causal_bias", ms=True)
    q = g.input("query", "f32", [2, 5, 32])
    k = g.input("key", "f32", [2, 5, 32])
    v = g.input("value", "f32", [2, 5, 32])
    bias = g.input("attention_bias", "f32", [1, 4, 5, 5])
    y = g.ms_op("MultiHeadAttention", [q, k, v, "", "", bias], num_heads=4, unidirectional=1,
                scale=0.25)
    g.output(y, "y", "f32", [2, 5, 32])
    return g.model()


@_case("ms_ops")
def ms_fast_gelu():
    g = Graph("ms_fast_gelu", ms=True)
    x = g.input("x", "f32", [2, 5, 16])
    g.output(g.ms_op("FastGelu", [x, g.weight([16], "bias", 0.1)]), "y", "f32", [2, 5, 16])
    return g.model()


@_case("ms_ops")
def ms_fast_gelu_no_bias():
    g = Graph("ms_fast_gelu_no_bias", ms=True)
    x = g.input("x", "f32", [2, 5, 16])
    g.output(g.ms_op("FastGelu", [x]), "y", "f32", [2, 5, 16])
    return g.model()


@_case("ms_ops")
def ms_quick_gelu():
    g = Graph("ms_quick_gelu", ms=True)
    x = g.input("x", "f32", [2, 5, 16])
    g.output(g.ms_op("QuickGelu", [x], alpha=1.702), "y", "f32", [2, 5, 16])
    return g.model()


@_case("ms_ops")
def ms_bias_gelu():
    g = Graph("ms_bias_gelu", ms=True)
    x = g.input("x", "f32", [2, 5, 16])
    g.output(g.ms_op("BiasGelu", [x, g.weight([16], "bias", 0.1)]), "y", "f32", [2, 5, 16])
    return g.model()


# ---------------------------------------------------------------------------------------------
# (b) decomposed decoder-block subgraphs, dynamic batch and sequence

D, H, HKV, DH, FF = 64, 4, 2, 16, 128
_DYN = [{"batch": 2, "sequence": 5}, {"batch": 1, "sequence": 9}]
_X = ["batch", "sequence", D]


def rms_norm_subgraph(g: Graph, x: str, w: str, eps=1e-6, form="pow_div") -> str:
    """Exporter forms of RMSNorm over the last axis: ``pow_div`` (x / sqrt(mean(x^2) + eps)),
    ``reciprocal`` (x * Reciprocal(Sqrt(..))), ``div_one`` (x * (1 / Sqrt(..)), torch's rsqrt)
    and ``mul_self`` (x*x instead of Pow)."""
    sq = g.op("Mul", [x, x]) if form == "mul_self" else g.op("Pow", [x, g.f32(2.0)])
    ms = g.op("ReduceMean", [sq], axes=[-1], keepdims=1)
    rms = g.op("Sqrt", [g.op("Add", [ms, g.f32(eps)])])
    if form in ("pow_div", "mul_self"):
        n = g.op("Div", [x, rms])
    elif form == "reciprocal":
        n = g.op("Mul", [x, g.op("Reciprocal", [rms])])
    elif form == "div_one":
        n = g.op("Mul", [x, g.op("Div", [g.f32(1.0), rms])])
    else:
        raise ValueError(form)
    return g.op("Mul", [w, n])


def layer_norm_subgraph(g: Graph, x: str, w: str, b: str, eps=1e-5) -> str:
    mean = g.op("ReduceMean", [x], axes=[-1], keepdims=1)
    d = g.op("Sub", [x, mean])
    var = g.op("ReduceMean", [g.op("Pow", [d, g.f32(2.0)])], axes=[-1], keepdims=1)
    n = g.op("Div", [d, g.op("Sqrt", [g.op("Add", [var, g.f32(eps)])])])
    return g.op("Add", [g.op("Mul", [n, w]), b])


def _norm_case(form):
    def build():
        g = Graph(f"rms_norm_{form}", seed=3)
        x = g.input("x", "f32", _X)
        g.output(rms_norm_subgraph(g, x, g.weight([D], "weight", 0.2, 1.0), form=form),
                 "y", "f32", _X)
        return g.model()
    return build


for _form in ("pow_div", "reciprocal", "div_one", "mul_self"):
    _add("blocks", f"rms_norm_{_form}", _norm_case(_form), dims=_DYN)


@_case("blocks", dims=_DYN, rtol=2e-3, atol=1e-3,
       note="fp16 in and out, statistics in fp32 (HF LlamaRMSNorm under autocast)")
def rms_norm_cast_fp32():
    g = Graph("rms_norm_cast_fp32", seed=3)
    x = g.input("x", "f16", _X)
    x32 = g.op("Cast", [x], to=TensorProto.FLOAT)
    ms = g.op("ReduceMean", [g.op("Pow", [x32, g.f32(2.0)])], axes=[-1], keepdims=1)
    inv = g.op("Reciprocal", [g.op("Sqrt", [g.op("Add", [ms, g.f32(1e-6)])])])
    n = g.op("Cast", [g.op("Mul", [x32, inv])], to=TensorProto.FLOAT16)
    w = g.weight([D], "weight", 0.2, 1.0, dtype=np.float16)
    g.output(g.op("Mul", [w, n]), "y", "f16", _X)
    return g.model()


@_case("blocks", dims=_DYN, rtol=1e-5, atol=1e-5,
       note="norm inputs computed by elementwise ops; a (1 + w) weight from a graph input")
def norm_of_computed_input():
    """Gemma's first norm: RMSNorm(embeddings * sqrt(hidden)) * (1 + w), w a graph input (the
    raised op's weight_offset); GPT-2's first LayerNorm over token + position embeddings."""
    g = Graph("norm_of_computed_input", seed=9)
    e = g.input("embeddings", "f32", _X)
    p = g.input("positions", "f32", _X)
    w = g.input("w", "f32", [D])
    xs = g.op("Mul", [e, g.f32(math.sqrt(D))])
    y = rms_norm_subgraph(g, xs, g.op("Add", [g.f32(1.0), w]), form="reciprocal")
    z = layer_norm_subgraph(g, g.op("Add", [e, p]), g.weight([D], "ln.weight", 0.2, 1.0),
                            g.weight([D], "ln.bias", 0.1))
    g.output(y, "y", "f32", _X)
    g.output(z, "z", "f32", _X)
    return g.model()


@_case("blocks", dims=_DYN)
def layer_norm_decomposed():
    g = Graph("layer_norm_decomposed", seed=4)
    x = g.input("x", "f32", _X)
    y = layer_norm_subgraph(g, x, g.weight([D], "weight", 0.2, 1.0), g.weight([D], "bias", 0.1))
    g.output(y, "y", "f32", _X)
    return g.model()


def swiglu_subgraph(g: Graph, x: str, prefix="mlp", d: int = D, ff: int = FF) -> str:
    gate = g.op("MatMul", [x, g.weight([d, ff], f"{prefix}.gate_proj")])
    up = g.op("MatMul", [x, g.weight([d, ff], f"{prefix}.up_proj")])
    silu = g.op("Mul", [gate, g.op("Sigmoid", [gate])])
    return g.op("MatMul", [g.op("Mul", [silu, up]), g.weight([ff, d], f"{prefix}.down_proj")])


def gelu_erf_subgraph(g: Graph, h: str) -> str:
    """torch's GELU export below opset 20: x * 0.5 * (1 + erf(x / sqrt(2)))."""
    e = g.op("Erf", [g.op("Div", [h, g.f32(1.4142135381698608)])])
    return g.op("Mul", [g.op("Mul", [h, g.op("Add", [e, g.f32(1.0)])]), g.f32(0.5)])


def gelu_tanh_subgraph(g: Graph, h: str) -> str:
    """GPT-2's NewGELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    cube = g.op("Mul", [g.op("Pow", [h, g.f32(3.0)]), g.f32(0.044715)])
    t = g.op("Tanh", [g.op("Mul", [g.op("Add", [h, cube]), g.f32(math.sqrt(2.0 / math.pi))])])
    return g.op("Mul", [g.op("Mul", [h, g.f32(0.5)]), g.op("Add", [t, g.f32(1.0)])])


def _mlp(g, x, act, prefix="mlp"):
    h = g.op("Add", [g.op("MatMul", [x, g.weight([D, FF], f"{prefix}.fc1")]),
                     g.weight([FF], f"{prefix}.fc1.bias", 0.1)])
    a = act(g, h)
    return g.op("Add", [g.op("MatMul", [a, g.weight([FF, D], f"{prefix}.fc2")]),
                        g.weight([D], f"{prefix}.fc2.bias", 0.1)])


@_case("blocks", dims=_DYN, rtol=1e-5)
def swiglu_mlp():
    g = Graph("swiglu_mlp", seed=5)
    x = g.input("x", "f32", _X)
    g.output(swiglu_subgraph(g, x), "y", "f32", _X)
    return g.model()


@_case("blocks", dims=_DYN, rtol=1e-5,
       note="Phi-3's gate_up_proj: one projection split into the GLU's halves")
def gate_up_fused_mlp():
    """SwiGLU over one [D, 2FF] projection whose halves a Split takes (Phi-3), with a constant
    weight (y) and with the weight a graph input (z)."""
    g = Graph("gate_up_fused_mlp", seed=10)
    x = g.input("x", "f32", _X)
    w_in = g.input("gate_up", "f32", [D, 2 * FF])
    down = g.weight([FF, D], "mlp.down_proj")

    def mlp(w):
        gate, up = g.op("Split", [g.op("MatMul", [x, w]), g.i64([FF, FF])], n_out=2, axis=-1)
        silu = g.op("Mul", [gate, g.op("Sigmoid", [gate])])
        return g.op("MatMul", [g.op("Mul", [silu, up]), down])
    g.output(mlp(g.weight([D, 2 * FF], "mlp.gate_up_proj")), "y", "f32", _X)
    g.output(mlp(w_in), "z", "f32", _X)
    return g.model()


@_case("blocks", dims=_DYN)
def gelu_erf_mlp():
    g = Graph("gelu_erf_mlp", seed=6)
    x = g.input("x", "f32", _X)
    g.output(_mlp(g, x, gelu_erf_subgraph), "y", "f32", _X)
    return g.model()


@_case("blocks", dims=_DYN)
def gelu_tanh_mlp():
    g = Graph("gelu_tanh_mlp", seed=7)
    x = g.input("x", "f32", _X)
    g.output(_mlp(g, x, gelu_tanh_subgraph), "y", "f32", _X)
    return g.model()


@_case("blocks", dims=_DYN)
def gelu_tanh_mlp_conv1d():
    """GPT-2's Conv1D MLP as torch exports it: Reshape [-1, D] -> Gemm(W, b) -> Reshape to
    [B, S, FF] (Shape/Gather/Concat) -> tanh GELU -> Reshape [-1, FF] -> Gemm -> Reshape back."""
    g = Graph("gelu_tanh_mlp_conv1d", seed=8)
    x = g.input("x", "f32", _X)
    h = g.op("Gemm", [g.op("Reshape", [x, g.i64([-1, D])]), g.weight([D, FF], "mlp.c_fc"),
                      g.weight([FF], "mlp.c_fc.bias", 0.1)])
    h = g.op("Reshape", [h, g.shape_of([g.dims1(x, 0), g.dims1(x, 1), FF])])
    a = g.op("Reshape", [gelu_tanh_subgraph(g, h), g.i64([-1, FF])])
    y = g.op("Gemm", [a, g.weight([FF, D], "mlp.c_proj"), g.weight([D], "mlp.c_proj.bias", 0.1)])
    g.output(g.op("Reshape", [y, g.op("Shape", [x])]), "y", "f32", _X)
    return g.model()


def split_heads(g: Graph, x: str, heads: int, style="chain", dh: int = DH) -> str:
    """[B, S, heads*DH] -> [B, heads, S, DH]: Reshape (shape from a Shape/Gather/Concat chain,
    or the static [0, 0, heads, DH] form) then Transpose."""
    if style == "chain":
        shape = g.shape_of([g.dims1(x, 0), g.dims1(x, 1), heads, dh])
    else:
        shape = g.i64([0, 0, heads, dh])
    return g.op("Transpose", [g.op("Reshape", [x, shape])], perm=[0, 2, 1, 3])


def merge_heads(g: Graph, x: str, style="chain") -> str:
    t = g.op("Transpose", [x], perm=[0, 2, 1, 3])
    if style == "chain":
        shape = g.shape_of([g.dims1(t, 0), g.dims1(t, 1), -1])
    else:
        shape = g.i64([0, 0, -1])
    return g.op("Reshape", [t, shape])


def repeat_kv(g: Graph, x: str, n_rep: int, dh: int = DH) -> str:
    """HF repeat_kv: x[:, :, None].expand(B, Hkv, n_rep, S, DH).reshape(B, Hkv*n_rep, S, DH)."""
    if n_rep == 1:
        return x
    u = g.op("Unsqueeze", [x, g.i64([2])])
    b, hkv, s = g.dims1(x, 0), g.dims1(x, 1), g.dims1(x, 2)
    e = g.op("Expand", [u, g.shape_of([b, hkv, n_rep, s, dh])])
    heads = g.op("Mul", [hkv, g.i64([n_rep])])
    return g.op("Reshape", [e, g.shape_of([b, heads, s, dh])])


def causal_additive_trilu(g: Graph, scores: str) -> str:
    """``torch.full((S, S), min).triu(1)`` added to the scores."""
    s = g.dims1(scores, 2)
    full = g.op("ConstantOfShape", [g.shape_of([s, s])],
                value=helper.make_tensor("value", TensorProto.FLOAT, [1], [F32_MIN]))
    return g.op("Add", [scores, g.op("Trilu", [full, g.i64(1)], upper=1)])


def causal_where_range(g: Graph, scores: str) -> str:
    """future = Less(row, col) from two Ranges; Where(future, min, scores)."""
    s = g.dim(scores, 2)
    r = g.op("Range", [g.i64(0), s, g.i64(1)])
    row = g.op("Unsqueeze", [r, g.i64([1])])
    col = g.op("Unsqueeze", [r, g.i64([0])])
    future = g.op("Less", [row, col])
    return g.op("Where", [future, g.f32(F32_MIN), scores])


def causal_where_trilu_bool(g: Graph, scores: str) -> str:
    """Lower-triangular ones (Trilu of ConstantOfShape) cast to bool; Where(keep, scores, min)."""
    s = g.dims1(scores, 2)
    ones = g.op("ConstantOfShape", [g.shape_of([s, s])],
                value=helper.make_tensor("value", TensorProto.FLOAT, [1], [1.0]))
    keep = g.op("Cast", [g.op("Trilu", [ones], upper=0)], to=TensorProto.BOOL)
    return g.op("Where", [keep, scores, g.f32(F32_MIN)])


def rope_tables_subgraph(g: Graph, positions: str, dim: int, theta=10000.0, halves=True):
    """cos/sin [..., S, dim] from int64 positions [..., S]: Cast -> Unsqueeze -> Mul inv_freq
    (-> Concat(f, f) for the half-split layout) -> Cos/Sin."""
    inv = 1.0 / theta ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    p = g.op("Unsqueeze", [g.op("Cast", [positions], to=TensorProto.FLOAT), g.i64([-1])])
    f = g.op("Mul", [p, g.f32(inv.astype(np.float32), "inv_freq")])
    if halves:
        f = g.op("Concat", [f, f], axis=-1)
    return g.op("Cos", [f]), g.op("Sin", [f])


def rotate_half_subgraph(g: Graph, x: str, cos: str, sin: str, dim: int = DH) -> str:
    """x * cos + rotate_half(x) * sin, rotate_half = Concat(-x[..., d/2:], x[..., :d/2])."""
    h = dim // 2
    x1 = g.op("Slice", [x, g.i64([0]), g.i64([h]), g.i64([-1]), g.i64([1])])
    x2 = g.op("Slice", [x, g.i64([h]), g.i64([INT64_MAX]), g.i64([-1]), g.i64([1])])
    rot = g.op("Concat", [g.op("Neg", [x2]), x1], axis=-1)
    return g.op("Add", [g.op("Mul", [x, cos]), g.op("Mul", [rot, sin])])


def rope_interleaved_subgraph(g: Graph, x: str, cos: str, sin: str) -> str:
    """GPT-J layout: pairs (x[2i], x[2i+1]) rotated; taken with step-2 Slices, put back with
    Unsqueeze/Concat/Reshape. ``cos``/``sin`` are [.., S, DH/2]."""
    x0 = g.op("Slice", [x, g.i64([0]), g.i64([INT64_MAX]), g.i64([-1]), g.i64([2])])
    x1 = g.op("Slice", [x, g.i64([1]), g.i64([INT64_MAX]), g.i64([-1]), g.i64([2])])
    r0 = g.op("Sub", [g.op("Mul", [x0, cos]), g.op("Mul", [x1, sin])])
    r1 = g.op("Add", [g.op("Mul", [x0, sin]), g.op("Mul", [x1, cos])])
    st = g.op("Concat", [g.op("Unsqueeze", [r0, g.i64([-1])]),
                         g.op("Unsqueeze", [r1, g.i64([-1])])], axis=-1)
    return g.op("Reshape", [st, g.i64([0, 0, 0, -1])])


_HEADS_X = ["batch", H, "sequence", DH]


@_case("blocks", dims=_DYN, rtol=1e-5, atol=1e-5)
def rope_rotate_half_range():
    g = Graph("rope_rotate_half_range")
    x = g.input("x", "f32", _HEADS_X)
    pos = g.op("Range", [g.i64(0), g.dim(x, 2), g.i64(1)])
    cos, sin = rope_tables_subgraph(g, pos, DH)
    g.output(rotate_half_subgraph(g, x, cos, sin), "y", "f32", _HEADS_X)
    return g.model()


@_case("blocks", dims=_DYN, special={"position_ids": _ints(0, 40)}, rtol=1e-5, atol=1e-5)
def rope_rotate_half_position_ids():
    """HF LlamaRotaryEmbedding: inv_freq[None, :, None] @ position_ids[:, None, :], transposed;
    cos/sin unsqueezed at the head axis."""
    g = Graph("rope_rotate_half_position_ids")
    x = g.input("x", "f32", _HEADS_X)
    pos = g.input("position_ids", "i64", ["batch", "sequence"])
    inv = 1.0 / 10000.0 ** (np.arange(0, DH, 2, dtype=np.float64) / DH)
    inv_e = g.op("Expand", [g.f32(inv.reshape(1, -1, 1).astype(np.float32), "inv_freq"),
                            g.shape_of([g.dims1(pos, 0), 1, 1])])
    p = g.op("Unsqueeze", [g.op("Cast", [pos], to=TensorProto.FLOAT), g.i64([1])])
    freqs = g.op("Transpose", [g.op("MatMul", [inv_e, p])], perm=[0, 2, 1])
    emb = g.op("Concat", [freqs, freqs], axis=-1)
    cos = g.op("Unsqueeze", [g.op("Cos", [emb]), g.i64([1])])
    sin = g.op("Unsqueeze", [g.op("Sin", [emb]), g.i64([1])])
    g.output(rotate_half_subgraph(g, x, cos, sin), "y", "f32", _HEADS_X)
    return g.model()


@_case("blocks", dims=_DYN, rtol=1e-5, atol=1e-5)
def rope_interleaved_range():
    g = Graph("rope_interleaved_range")
    x = g.input("x", "f32", _HEADS_X)
    pos = g.op("Range", [g.i64(0), g.dim(x, 2), g.i64(1)])
    cos, sin = rope_tables_subgraph(g, pos, DH, halves=False)
    g.output(rope_interleaved_subgraph(g, x, cos, sin), "y", "f32", _HEADS_X)
    return g.model()


@_case("blocks", dims=_DYN, rtol=1e-5, atol=1e-5)
def rope_partial_rotate_half():
    """GPT-NeoX rotary_pct / Phi partial rotary: rotate-half RoPE on the first 8 of 16 features
    (Slice), the rest passed through, Concat back."""
    g = Graph("rope_partial_rotate_half")
    x = g.input("x", "f32", _HEADS_X)
    rd = DH // 2
    x_rot = g.op("Slice", [x, g.i64([0]), g.i64([rd]), g.i64([-1]), g.i64([1])])
    x_pass = g.op("Slice", [x, g.i64([rd]), g.i64([INT64_MAX]), g.i64([-1]), g.i64([1])])
    pos = g.op("Range", [g.i64(0), g.dim(x, 2), g.i64(1)])
    cos, sin = rope_tables_subgraph(g, pos, rd)
    y = g.op("Concat", [rotate_half_subgraph(g, x_rot, cos, sin, rd), x_pass], axis=-1)
    g.output(y, "y", "f32", _HEADS_X)
    return g.model()


@_case("blocks", dims=_DYN)
def shape_chain_reshape():
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as torch exports x.view(b, s, h, d),
    plus a flattening whose extent is computed (Mul of gathered dims) and the head dim read back
    through Shape -> Gather -> Cast -> Sqrt."""
    g = Graph("shape_chain_reshape")
    x = g.input("x", "f32", _X)
    heads = split_heads(g, x, H)
    g.output(heads, "heads", "f32", ["batch", H, "sequence", DH])
    flat = g.op("Mul", [g.dims1(x, 1), g.dims1(x, 2)])
    g.output(g.op("Reshape", [x, g.shape_of([g.dims1(x, 0), flat])]), "flat", "f32",
             ["batch", "sequence_x_64"])
    scale = g.op("Sqrt", [g.op("Cast", [g.dim(heads, 3)], to=TensorProto.FLOAT)])
    g.output(g.op("Div", [heads, scale]), "scaled", "f32", ["batch", H, "sequence", DH])
    return g.model()


def attention_subgraph(g: Graph, x: str, *, heads=H, kv_heads=HKV, scale="div",
                       mask="trilu_add", reshape="chain", rope=None, prefix="self_attn",
                       d: int = D, dh: int = DH) -> str:
    """q/k/v projections -> split heads -> (RoPE) -> repeat-KV -> QK^T -> scale -> causal mask ->
    Softmax -> PV -> merge heads -> o_proj, in the shapes torch exports."""
    q = g.op("MatMul", [x, g.weight([d, heads * dh], f"{prefix}.q_proj")])
    k = g.op("MatMul", [x, g.weight([d, kv_heads * dh], f"{prefix}.k_proj")])
    v = g.op("MatMul", [x, g.weight([d, kv_heads * dh], f"{prefix}.v_proj")])
    q, k, v = (split_heads(g, q, heads, reshape, dh), split_heads(g, k, kv_heads, reshape, dh),
               split_heads(g, v, kv_heads, reshape, dh))
    if rope is not None:
        cos, sin = rope
        q, k = (rotate_half_subgraph(g, q, cos, sin, dh), rotate_half_subgraph(g, k, cos, sin, dh))
    k, v = repeat_kv(g, k, heads // kv_heads, dh), repeat_kv(g, v, heads // kv_heads, dh)
    kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
    if scale == "mul_q":
        q = g.op("Mul", [q, g.f32(1.0 / math.sqrt(dh))])
        s = g.op("MatMul", [q, kt])
    else:
        s = g.op("MatMul", [q, kt])
        if scale == "div":
            s = g.op("Div", [s, g.f32(math.sqrt(dh))])
        elif scale == "mul":
            s = g.op("Mul", [s, g.f32(1.0 / math.sqrt(dh))])
        elif scale == "div_shape":
            s = g.op("Div", [s, g.op("Sqrt", [g.op("Cast", [g.dim(q, 3)],
                                                   to=TensorProto.FLOAT)])])
    s = {"trilu_add": causal_additive_trilu, "where_range": causal_where_range,
         "where_trilu_bool": causal_where_trilu_bool, None: lambda g_, t: t}[mask](g, s)
    p = g.op("Softmax", [s], axis=-1)
    o = merge_heads(g, g.op("MatMul", [p, v]), reshape)
    return g.op("MatMul", [o, g.weight([heads * dh, d], f"{prefix}.o_proj")])


def _attn_case(name, **kw):
    def build():
        g = Graph(name, seed=11)
        x = g.input("x", "f32", _X)
        g.output(attention_subgraph(g, x, **kw), "y", "f32", _X)
        return g.model()
    _add("blocks", name, build, dims=_DYN, rtol=1e-5, atol=1e-5)


_attn_case("attention_mha_div_trilu_add", heads=H, kv_heads=H, scale="div", mask="trilu_add")
_attn_case("attention_gqa_mul_where_range", scale="mul", mask="where_range")
_attn_case("attention_gqa_mulq_where_trilu_bool", scale="mul_q", mask="where_trilu_bool",
           reshape="static")
_attn_case("attention_mqa_div_shape_trilu_add", kv_heads=1, scale="div_shape",
           mask="trilu_add")
_attn_case("attention_gqa_no_mask", scale="div", mask=None)


# -- MoE, MLA and sliding-window + sink attention, the way exporters write them ---------------

E, TOPK, FE = 8, 2, 32


def moe_subgraph(g: Graph, x: str, scoring: str, prefix="moe", d: int = D) -> str:
    """gpt-oss / Mixtral-style routed MoE as torch exports the dense path: router MatMul ->
    Softmax or Sigmoid -> TopK -> normalised gates -> ScatterElements into a zero
    [tokens, experts] matrix -> every expert's SwiGLU as one batched MatMul over stacked weights
    -> gate-weighted ReduceSum over experts; plus one shared SwiGLU expert."""
    tokens = g.op("Reshape", [x, g.i64([-1, d])])
    logits = g.op("MatMul", [tokens, g.weight([d, E], f"{prefix}.router")])
    scores = g.op("Softmax" if scoring == "softmax" else "Sigmoid", [logits],
                  **({"axis": -1} if scoring == "softmax" else {}))
    topv, topi = g.op("TopK", [scores, g.i64([TOPK])], n_out=2, axis=-1)
    denom = g.op("ReduceSum", [topv, g.i64([-1])], keepdims=1)
    if scoring == "sigmoid":
        denom = g.op("Add", [denom, g.f32(1e-20)])
    topv = g.op("Div", [topv, denom])
    if scoring == "sigmoid":
        topv = g.op("Mul", [topv, g.f32(2.5)])  # DeepSeek-V3's routed_scaling_factor
    zeros = g.op("ConstantOfShape", [g.shape_of([g.dims1(tokens, 0), E])],
                 value=helper.make_tensor("value", TensorProto.FLOAT, [1], [0.0]))
    gates = g.op("ScatterElements", [zeros, topi, topv], axis=1)
    h = g.op("Unsqueeze", [tokens, g.i64([0])])  # [1, T, D]
    gate = g.op("MatMul", [h, g.weight([E, d, FE], f"{prefix}.experts.gate", 1 / math.sqrt(d))])
    up = g.op("MatMul", [h, g.weight([E, d, FE], f"{prefix}.experts.up", 1 / math.sqrt(d))])
    act = g.op("Mul", [g.op("Mul", [gate, g.op("Sigmoid", [gate])]), up])
    y = g.op("MatMul", [act, g.weight([E, FE, d], f"{prefix}.experts.down", 1 / math.sqrt(FE))])
    w = g.op("Unsqueeze", [g.op("Transpose", [gates], perm=[1, 0]), g.i64([-1])])  # [E, T, 1]
    routed = g.op("ReduceSum", [g.op("Mul", [y, w]), g.i64([0])], keepdims=0)
    shared = swiglu_subgraph(g, tokens, f"{prefix}.shared_expert", d, FE)
    return g.op("Reshape", [g.op("Add", [routed, shared]), g.op("Shape", [x])])


def _moe_case(scoring):
    name = f"moe_top2_shared_{scoring}"

    def build():
        g = Graph(name, seed=31)
        x = g.input("x", "f32", _X)
        g.output(moe_subgraph(g, x, scoring), "y", "f32", _X)
        return g.model()
    _add("blocks", name, build, dims=_DYN, rtol=1e-4, atol=1e-5)


_moe_case("softmax")
_moe_case("sigmoid")


@_case("blocks", dims=_DYN, rtol=1e-4, atol=1e-5)
def mla_deepseek_v2_block():
    """DeepSeek-V2 multi-head latent attention at small scale (4 heads, q_lora 32, kv_lora 32,
    nope 16 + rope 8 query/key dims, value 16): the low-rank query and latent KV paths with
    their RMSNorms, the decoupled RoPE key shared by all heads (rotate-half on the rope slice),
    Concat of the nope and rope parts, softmax scale 1/sqrt(24), Trilu causal mask."""
    g = Graph("mla_deepseek_v2_block", seed=41)
    heads, ql, kvl, nope, rope, vd = 4, 32, 32, 16, 8, 16
    x = g.input("x", "f32", _X)
    cq = rms_norm_subgraph(g, g.op("MatMul", [x, g.weight([D, ql], "q_a_proj")]),
                           g.weight([ql], "q_a_layernorm", 0.2, 1.0))
    q = split_heads(g, g.op("MatMul", [cq, g.weight([ql, heads * (nope + rope)], "q_b_proj")]),
                    heads, dh=nope + rope)
    q_nope, q_pe = g.op("Split", [q, g.i64([nope, rope])], n_out=2, axis=-1)
    ckv = g.op("MatMul", [x, g.weight([D, kvl + rope], "kv_a_proj_with_mqa")])
    c, k_pe = g.op("Split", [ckv, g.i64([kvl, rope])], n_out=2, axis=-1)
    k_pe = split_heads(g, k_pe, 1, dh=rope)  # [B, 1, S, rope]
    kv = g.op("MatMul", [rms_norm_subgraph(g, c, g.weight([kvl], "kv_a_layernorm", 0.2, 1.0)),
                         g.weight([kvl, heads * (nope + vd)], "kv_b_proj")])
    kv = split_heads(g, kv, heads, dh=nope + vd)
    k_nope, v = g.op("Split", [kv, g.i64([nope, vd])], n_out=2, axis=-1)
    pos = g.op("Range", [g.i64(0), g.dim(x, 1), g.i64(1)])
    cos, sin = rope_tables_subgraph(g, pos, rope)
    q_pe = rotate_half_subgraph(g, q_pe, cos, sin, rope)
    k_pe = rotate_half_subgraph(g, k_pe, cos, sin, rope)
    k_pe = g.op("Expand", [k_pe, g.shape_of([g.dims1(x, 0), heads, g.dims1(x, 1), rope])])
    qf = g.op("Concat", [q_nope, q_pe], axis=-1)
    kf = g.op("Concat", [k_nope, k_pe], axis=-1)
    s = g.op("Mul", [g.op("MatMul", [qf, g.op("Transpose", [kf], perm=[0, 1, 3, 2])]),
                     g.f32(1.0 / math.sqrt(nope + rope))])
    p = g.op("Softmax", [causal_additive_trilu(g, s)], axis=-1)
    o = merge_heads(g, g.op("MatMul", [p, v]))
    g.output(g.op("MatMul", [o, g.weight([heads * vd, D], "o_proj")]), "y", "f32", _X)
    return g.model()


def sinks_window_attention_subgraph(g: Graph, x: str, window: int, prefix="self_attn") -> str:
    """gpt-oss eager attention: GQA with repeat-KV, scores·scale plus a sliding-window causal
    mask (Where on Range row/column indices), each head's learned sink logit concatenated as
    an extra column, max subtracted, Softmax, the sink column sliced off, PV."""
    q = split_heads(g, g.op("MatMul", [x, g.weight([D, H * DH], f"{prefix}.q_proj")]), H)
    k = split_heads(g, g.op("MatMul", [x, g.weight([D, HKV * DH], f"{prefix}.k_proj")]), HKV)
    v = split_heads(g, g.op("MatMul", [x, g.weight([D, HKV * DH], f"{prefix}.v_proj")]), HKV)
    k, v = repeat_kv(g, k, H // HKV), repeat_kv(g, v, H // HKV)
    s = g.op("Mul", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])]),
                     g.f32(1.0 / math.sqrt(DH))])
    n = g.dim(s, 2)
    r = g.op("Range", [g.i64(0), n, g.i64(1)])
    row = g.op("Unsqueeze", [r, g.i64([1])])
    col = g.op("Unsqueeze", [r, g.i64([0])])
    keep = g.op("And", [g.op("LessOrEqual", [col, row]),
                        g.op("Less", [g.op("Sub", [row, col]), g.i64(window)])])
    s = g.op("Where", [keep, s, g.f32(F32_MIN)])
    sinks = g.op("Expand", [g.op("Reshape", [g.weight([H], f"{prefix}.sinks", 1.0),
                                             g.i64([1, -1, 1, 1])]),
                            g.shape_of([g.dims1(s, 0), H, g.dims1(s, 2), 1])])
    comb = g.op("Concat", [s, sinks], axis=-1)
    comb = g.op("Sub", [comb, g.op("ReduceMax", [comb], axes=[-1], keepdims=1)])
    p = g.op("Softmax", [comb], axis=-1)
    p = g.op("Slice", [p, g.i64([0]), g.i64([-1]), g.i64([-1]), g.i64([1])])
    o = merge_heads(g, g.op("MatMul", [p, v]))
    return g.op("MatMul", [o, g.weight([H * DH, D], f"{prefix}.o_proj")])


@_case("blocks", dims=_DYN, rtol=1e-4, atol=1e-5)
def sinks_sliding_window_attention():
    g = Graph("sinks_sliding_window_attention", seed=51)
    x = g.input("x", "f32", _X)
    g.output(sinks_window_attention_subgraph(g, x, window=3), "y", "f32", _X)
    return g.model()


def llama_block_subgraph(g: Graph, x: str, cos: str, sin: str, prefix: str,
                         mask="trilu_add", norm="reciprocal", d: int = D, heads: int = H,
                         kv_heads: int = HKV, dh: int = DH, ff: int = FF,
                         eps: float = 1e-6) -> str:
    h = rms_norm_subgraph(g, x, g.weight([d], f"{prefix}.input_layernorm", 0.2, 1.0),
                          eps=eps, form=norm)
    a = attention_subgraph(g, h, heads=heads, kv_heads=kv_heads, scale="div_shape", mask=mask,
                           rope=(cos, sin), prefix=f"{prefix}.self_attn", d=d, dh=dh)
    x = g.op("Add", [x, a])
    h = rms_norm_subgraph(g, x, g.weight([d], f"{prefix}.post_attention_layernorm", 0.2, 1.0),
                          eps=eps, form=norm)
    return g.op("Add", [x, swiglu_subgraph(g, h, f"{prefix}.mlp", d, ff)])


def _hf_cos_sin(g: Graph, position_ids: str, dh: int = DH, theta: float = 10000.0):
    """cos/sin [B, 1, S, dh] from position_ids [B, S] (HF LlamaRotaryEmbedding + unsqueeze)."""
    cos, sin = rope_tables_subgraph(g, position_ids, dh, theta)
    return (g.op("Unsqueeze", [cos, g.i64([1])]), g.op("Unsqueeze", [sin, g.i64([1])]))


@_case("blocks", dims=_DYN, special={"position_ids": _ints(0, 40)}, rtol=1e-4, atol=1e-5)
def llama_block():
    """A whole Llama-style block: RMSNorm -> GQA attention with rotate-half RoPE from
    position_ids, repeat-KV, head-dim scale from Shape, Trilu causal mask -> residual ->
    RMSNorm -> SwiGLU -> residual."""
    return llama_block_model()


def llama_block_model(hidden: int = D, heads: int = H, kv_heads: int = HKV, head_dim: int = DH,
                      ffn: int = FF, seed: int = 21, name: str = "llama_block",
                      theta: float = 10000.0, eps: float = 1e-6) -> onnx.ModelProto:
    """The :func:`llama_block` graph at any size, e.g. Llama-3.2-1B's block for benchmarks:
    ``llama_block_model(2048, 32, 8, 64, 8192, theta=500000.0, eps=1e-5)`` (about 240 MB of f32
    weights). ``theta`` is the RoPE base, ``eps`` the RMSNorm epsilon. Inputs
    ``hidden_states`` [batch, sequence, hidden] f32 and ``position_ids`` [batch, sequence] i64;
    output ``y``."""
    g = Graph(name, seed=seed)
    x = g.input("hidden_states", "f32", ["batch", "sequence", hidden])
    pos = g.input("position_ids", "i64", ["batch", "sequence"])
    cos, sin = _hf_cos_sin(g, pos, head_dim, theta)
    y = llama_block_subgraph(g, x, cos, sin, "layers.0", d=hidden, heads=heads,
                             kv_heads=kv_heads, dh=head_dim, ff=ffn, eps=eps)
    g.output(y, "y", "f32", ["batch", "sequence", hidden])
    return g.model()


def gpt2_attention(g: Graph, x: str, prefix: str, max_pos: int = 64) -> str:
    """GPT-2: c_attn (MatMul + bias) -> Split q/k/v -> heads -> scores / sqrt(d) -> Where(causal
    buffer sliced to [S, S], scores, min) -> Softmax -> PV -> merge -> c_proj."""
    qkv = g.op("Add", [g.op("MatMul", [x, g.weight([D, 3 * D], f"{prefix}.c_attn")]),
                       g.weight([3 * D], f"{prefix}.c_attn.bias", 0.1)])
    q, k, v = g.op("Split", [qkv, g.i64([D, D, D])], n_out=3, axis=2)
    q, k, v = (split_heads(g, t, H) for t in (q, k, v))
    s = g.op("Div", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])]),
                     g.f32(math.sqrt(DH))])
    buf = g.init(np.tril(np.ones((max_pos, max_pos), bool)), f"{prefix}.bias")
    seq = g.dims1(x, 1)
    causal = g.op("Slice", [buf, g.i64([0, 0]), g.op("Concat", [seq, seq], axis=0),
                            g.i64([0, 1])])
    s = g.op("Where", [causal, s, g.f32(F32_MIN)])
    o = merge_heads(g, g.op("MatMul", [g.op("Softmax", [s], axis=-1), v]))
    return g.op("Add", [g.op("MatMul", [o, g.weight([D, D], f"{prefix}.c_proj")]),
                        g.weight([D], f"{prefix}.c_proj.bias", 0.1)])


@_case("blocks", dims=_DYN, rtol=1e-4, atol=1e-5)
def gpt2_block_prenorm():
    """GPT-2 block: x + attn(LN(x)); + mlp(LN(.)) with LayerNormalization ops and NewGELU."""
    g = Graph("gpt2_block_prenorm", seed=31)
    x = g.input("x", "f32", _X)

    def ln(t, name):
        return g.op("LayerNormalization", [t, g.weight([D], f"{name}.weight", 0.2, 1.0),
                                           g.weight([D], f"{name}.bias", 0.1)], epsilon=1e-5)
    x = g.op("Add", [x, gpt2_attention(g, ln(x, "ln_1"), "attn")])
    x = g.op("Add", [x, _mlp(g, ln(x, "ln_2"), gelu_tanh_subgraph)])
    g.output(x, "y", "f32", _X)
    return g.model()


@_case("blocks", dims=_DYN, rtol=1e-4, atol=1e-5)
def gpt2_block_postnorm():
    """Post-norm variant (original Transformer / BERT placement): LN(x + attn(x)) then
    LN(h + mlp(h)), decomposed LayerNorm and erf GELU."""
    g = Graph("gpt2_block_postnorm", seed=32)
    x = g.input("x", "f32", _X)
    h = layer_norm_subgraph(g, g.op("Add", [x, gpt2_attention(g, x, "attn")]),
                            g.weight([D], "ln_1.weight", 0.2, 1.0), g.weight([D], "ln_1.bias", 0.1))
    y = layer_norm_subgraph(g, g.op("Add", [h, _mlp(g, h, gelu_erf_subgraph)]),
                            g.weight([D], "ln_2.weight", 0.2, 1.0), g.weight([D], "ln_2.bias", 0.1))
    g.output(y, "y", "f32", _X)
    return g.model()


# ---------------------------------------------------------------------------------------------
# (c) a whole decoder-only model with a KV cache, Hugging Face naming


@dataclass
class DecoderConfig:
    layers: int = 2
    hidden: int = D
    heads: int = H
    kv_heads: int = HKV
    head_dim: int = DH
    ffn: int = FF
    vocab: int = 256
    eps: float = 1e-6
    theta: float = 10000.0
    seed: int = 42
    # Architecture variants, as their Hugging Face exports spell them:
    qkv_bias: bool = False        # Qwen2: q/k/v projections with a bias (MatMul -> Add)
    fused_qkv: str = ""           # one qkv projection: "slices" (Phi-3: three Slices), "split"
                                  # (GPT-2's c_attn: one Split), "per_head" (GPT-NeoX: viewed as
                                  # [B, S, heads, 3 * head_dim], transposed, Split per head)
    fused_gate_up: bool = False   # Phi-3: one gate_up_proj, halves by Split
    rotary_dim: int = 0           # partial rotary (Phi-3.5/4-mini, NeoX): 0 = head_dim
    act: str = "silu"             # the MLP's activation: silu, gelu_tanh (Gemma, GPT-2, Phi-2)
                                  # or gelu (erf: GPT-NeoX)
    norm: str = "rms"             # "rms"; "layer": LayerNorm with a bias, decomposed (opset < 17
                                  # exports: GPT-2); "layer_op": LayerNormalization (opset 17)
    mlp: str = "gated"            # "gated" (gate, up, down) or "plain" (fc_in, act, fc_out)
    bias: bool = False            # every projection but lm_head with a bias (GPT-2, NeoX, Phi-2)
    parallel: str = ""            # attention and MLP side by side on one residual: "two_norms"
                                  # (GPT-NeoX), "shared_norm" (Phi-2, Falcon: one norm feeds both)
    positions: str = "rope"       # "rope", or "learned" (GPT-2: a position table added)
    lm_head_bias: bool = False    # Phi-2
    norm_offset: bool = False     # Gemma's RMSNorm: x̂ * (1 + w)
    embed_scale: bool = False     # Gemma: the embeddings times sqrt(hidden)
    tie_embeddings: bool = False  # lm_head reads the embedding table through a Transpose
    sliding_window: int = 0       # Mistral: keys within `sliding_window` of the query only


def _decoder_norm(g: Graph, cfg: DecoderConfig, x: str, name: str) -> str:
    if cfg.norm != "rms":
        w = g.weight([cfg.hidden], name, 0.2, 1.0)
        b = g.weight([cfg.hidden], name.replace(".weight", ".bias"), 0.1)
        if cfg.norm == "layer":
            return layer_norm_subgraph(g, x, w, b, eps=cfg.eps)
        assert cfg.norm == "layer_op", cfg.norm
        return g.op("LayerNormalization", [x, w, b], axis=-1, epsilon=cfg.eps)
    if not cfg.norm_offset:
        return rms_norm_subgraph(g, x, g.weight([cfg.hidden], name, 0.2, 1.0), eps=cfg.eps,
                                 form="reciprocal")
    # GemmaRMSNorm: the weight is stored around 0 and applied as (1 + w).
    w = g.op("Add", [g.f32(1.0), g.weight([cfg.hidden], name, 0.2, 0.0)])
    return rms_norm_subgraph(g, x, w, eps=cfg.eps, form="reciprocal")


def _decoder_rope(g: Graph, cfg: DecoderConfig, x: str, cos: str, sin: str) -> str:
    rot = cfg.rotary_dim or cfg.head_dim
    if rot == cfg.head_dim:
        return rotate_half_subgraph(g, x, cos, sin, rot)
    # HF's partial rotary: rotate x[..., :rot], pass x[..., rot:] through, concatenate.
    x_rot = g.op("Slice", [x, g.i64([0]), g.i64([rot]), g.i64([-1]), g.i64([1])])
    x_pass = g.op("Slice", [x, g.i64([rot]), g.i64([INT64_MAX]), g.i64([-1]), g.i64([1])])
    return g.op("Concat", [rotate_half_subgraph(g, x_rot, cos, sin, rot), x_pass], axis=-1)


def _decoder_linear(g: Graph, cfg: DecoderConfig, x: str, k: int, n: int, name: str,
                    bias: bool) -> str:
    y = g.op("MatMul", [x, g.weight([k, n], name)])
    return g.op("Add", [y, g.weight([n], f"{name}.bias", 0.5)]) if bias else y


def _decoder_act(g: Graph, cfg: DecoderConfig, x: str) -> str:
    if cfg.act == "silu":
        return g.op("Mul", [x, g.op("Sigmoid", [x])])
    if cfg.act == "gelu_tanh":
        return gelu_tanh_subgraph(g, x)
    if cfg.act == "gelu":
        return gelu_erf_subgraph(g, x)
    raise ValueError(cfg.act)


def _decoder_mlp(g: Graph, cfg: DecoderConfig, h: str, p: str) -> str:
    d, ff = cfg.hidden, cfg.ffn
    if cfg.mlp == "plain":
        a = _decoder_act(g, cfg, _decoder_linear(g, cfg, h, d, ff, f"{p}.mlp.fc_in", cfg.bias))
        return _decoder_linear(g, cfg, a, ff, d, f"{p}.mlp.fc_out", cfg.bias)
    if cfg.fused_gate_up:
        gu = g.op("MatMul", [h, g.weight([d, 2 * ff], f"{p}.mlp.gate_up_proj")])
        gate, up = g.op("Split", [gu, g.i64([ff, ff])], n_out=2, axis=-1)
    else:
        gate = g.op("MatMul", [h, g.weight([d, ff], f"{p}.mlp.gate_proj")])
        up = g.op("MatMul", [h, g.weight([d, ff], f"{p}.mlp.up_proj")])
    a = _decoder_act(g, cfg, gate)
    return _decoder_linear(g, cfg, g.op("Mul", [a, up]), ff, d, f"{p}.mlp.down_proj", cfg.bias)


def decoder_model(cfg: DecoderConfig = DecoderConfig()) -> onnx.ModelProto:
    """A Llama-style decoder-only model as an HF/Optimum export with a cache.

    Inputs: ``input_ids`` [batch, sequence] i64, ``attention_mask`` [batch, total_sequence] i64
    (1 = attend; total = past + sequence), ``position_ids`` [batch, sequence] i64,
    ``past_key_values.{i}.key|value`` [batch, kv_heads, past_sequence, head_dim].
    Outputs: ``logits`` [batch, sequence, vocab], ``present.{i}.key|value``
    [batch, kv_heads, total_sequence, head_dim].
    The mask is HF's: causal over absolute positions (query i sits at past + i) plus padding from
    attention_mask, both additive with the dtype's minimum.
    """
    d, dh = cfg.hidden, cfg.head_dim
    g = Graph("decoder_kv", seed=cfg.seed)
    ids = g.input("input_ids", "i64", ["batch", "sequence"])
    am = g.input("attention_mask", "i64", ["batch", "total_sequence"])
    pos = g.input("position_ids", "i64", ["batch", "sequence"])
    past = []
    for i in range(cfg.layers):
        shape = ["batch", cfg.kv_heads, "past_sequence", dh]
        past.append((g.input(f"past_key_values.{i}.key", "f32", shape),
                     g.input(f"past_key_values.{i}.value", "f32", shape)))
    embed = g.weight([cfg.vocab, d], "model.embed_tokens.weight", 1.0)
    x = g.op("Gather", [embed, ids], axis=0)
    if cfg.embed_scale:
        x = g.op("Mul", [x, g.f32(math.sqrt(d))])
    if cfg.positions == "learned":
        x = g.op("Add", [x, g.op("Gather", [g.weight([64, d], "model.embed_positions.weight", 1.0),
                                            pos], axis=0)])

    # Additive mask [B, 1, S, T]: causal (key j > past + i) and padding (attention_mask == 0).
    seq = g.dim(ids, 1)
    past_len = g.dim(past[0][0], 2)
    total = g.op("Add", [past_len, seq])
    q_pos = g.op("Range", [past_len, total, g.i64(1)])
    k_pos = g.op("Range", [g.i64(0), total, g.i64(1)])
    future = g.op("Less", [g.op("Unsqueeze", [q_pos, g.i64([1])]),
                           g.op("Unsqueeze", [k_pos, g.i64([0])])])
    causal = g.op("Where", [future, g.f32(F32_MIN), g.f32(0.0)])
    pad = g.op("Equal", [am, g.i64(0)])
    pad = g.op("Where", [g.op("Unsqueeze", [pad, g.i64([1, 2])]), g.f32(F32_MIN), g.f32(0.0)])
    if cfg.sliding_window:
        # Mistral: key j is also masked when j <= i_abs - window.
        old = g.op("LessOrEqual", [g.op("Unsqueeze", [k_pos, g.i64([0])]),
                                   g.op("Sub", [g.op("Unsqueeze", [q_pos, g.i64([1])]),
                                                g.i64(cfg.sliding_window)])])
        causal = g.op("Where", [old, g.f32(F32_MIN), causal])
    # min + min overflows to -inf in f32; clamp the sum like HF's masked_fill does.
    mask = g.op("Max", [g.op("Add", [g.op("Unsqueeze", [causal, g.i64([0, 1])]), pad]),
                        g.f32(F32_MIN)])

    if cfg.positions == "rope":
        cos, sin = _hf_cos_sin(g, pos, cfg.rotary_dim or dh, cfg.theta)
    inv_sqrt = g.f32(1.0 / math.sqrt(dh))
    presents = []
    for i in range(cfg.layers):
        p = f"model.layers.{i}"
        hnorm = _decoder_norm(g, cfg, x, f"{p}.input_layernorm.weight")
        nq, nkv = cfg.heads * dh, cfg.kv_heads * dh
        qkv_bias = cfg.qkv_bias or cfg.bias
        if cfg.fused_qkv == "per_head":
            # GPT-NeoX: qkv viewed as [B, S, heads, 3 * head_dim] (q, k, v interleaved per head).
            assert cfg.kv_heads == cfg.heads
            qkv = _decoder_linear(g, cfg, hnorm, d, 3 * nq, f"{p}.attention.query_key_value",
                                  qkv_bias)
            qkv = g.op("Reshape", [qkv, g.shape_of([g.dims1(hnorm, 0), g.dims1(hnorm, 1),
                                                    cfg.heads, 3 * dh])])
            q, k, v = g.op("Split", [g.op("Transpose", [qkv], perm=[0, 2, 1, 3]),
                                     g.i64([dh, dh, dh])], n_out=3, axis=-1)
        else:
            if cfg.fused_qkv:
                qkv = _decoder_linear(g, cfg, hnorm, d, nq + 2 * nkv, f"{p}.self_attn.qkv_proj",
                                      qkv_bias)
                if cfg.fused_qkv == "split":
                    q, k, v = g.op("Split", [qkv, g.i64([nq, nkv, nkv])], n_out=3, axis=-1)
                else:
                    assert cfg.fused_qkv == "slices", cfg.fused_qkv
                    q = g.op("Slice", [qkv, g.i64([0]), g.i64([nq]), g.i64([-1]), g.i64([1])])
                    k = g.op("Slice", [qkv, g.i64([nq]), g.i64([nq + nkv]), g.i64([-1]),
                                       g.i64([1])])
                    v = g.op("Slice", [qkv, g.i64([nq + nkv]), g.i64([INT64_MAX]), g.i64([-1]),
                                       g.i64([1])])
            else:
                q = _decoder_linear(g, cfg, hnorm, d, nq, f"{p}.self_attn.q_proj", qkv_bias)
                k = _decoder_linear(g, cfg, hnorm, d, nkv, f"{p}.self_attn.k_proj", qkv_bias)
                v = _decoder_linear(g, cfg, hnorm, d, nkv, f"{p}.self_attn.v_proj", qkv_bias)
            q = split_heads(g, q, cfg.heads, dh=dh)
            k = split_heads(g, k, cfg.kv_heads, dh=dh)
            v = split_heads(g, v, cfg.kv_heads, dh=dh)
        if cfg.positions == "rope":
            q = _decoder_rope(g, cfg, q, cos, sin)
            k = _decoder_rope(g, cfg, k, cos, sin)
        k = g.op("Concat", [past[i][0], k], axis=2)
        v = g.op("Concat", [past[i][1], v], axis=2)
        presents.append((k, v))
        kr = repeat_kv(g, k, cfg.heads // cfg.kv_heads, dh)
        vr = repeat_kv(g, v, cfg.heads // cfg.kv_heads, dh)
        s = g.op("Mul", [g.op("MatMul", [q, g.op("Transpose", [kr], perm=[0, 1, 3, 2])]),
                         inv_sqrt])
        prob = g.op("Softmax", [g.op("Add", [s, mask])], axis=-1)
        o = merge_heads(g, g.op("MatMul", [prob, vr]))
        attn = _decoder_linear(g, cfg, o, cfg.heads * dh, d, f"{p}.self_attn.o_proj", cfg.bias)
        if cfg.parallel:
            # x + attn(norm1(x)) + mlp(norm2(x)), or mlp(norm1(x)) with one shared norm.
            if cfg.parallel == "two_norms":
                hnorm = _decoder_norm(g, cfg, x, f"{p}.post_attention_layernorm.weight")
            else:
                assert cfg.parallel == "shared_norm", cfg.parallel
            x = g.op("Add", [g.op("Add", [_decoder_mlp(g, cfg, hnorm, p), attn]), x])
            continue
        x = g.op("Add", [x, attn])
        hnorm = _decoder_norm(g, cfg, x, f"{p}.post_attention_layernorm.weight")
        x = g.op("Add", [x, _decoder_mlp(g, cfg, hnorm, p)])
    x = _decoder_norm(g, cfg, x, "model.norm.weight")
    if cfg.tie_embeddings:
        head = g.op("Transpose", [embed], perm=[1, 0])
    else:
        head = g.weight([d, cfg.vocab], "lm_head.weight")
    logits = g.op("MatMul", [x, head])
    if cfg.lm_head_bias:
        logits = g.op("Add", [logits, g.weight([cfg.vocab], "lm_head.bias", 0.5)])
    g.output(logits, "logits", "f32", ["batch", "sequence", cfg.vocab])
    for i, (k, v) in enumerate(presents):
        shape = ["batch", cfg.kv_heads, "total_sequence", dh]
        g.output(k, f"present.{i}.key", "f32", shape)
        g.output(v, f"present.{i}.value", "f32", shape)
    return g.model()


def decoder_feeds(cfg: DecoderConfig, batch: int, seq: int, past: int, seed: int = 0,
                  left_pad: Sequence[int] = ()) -> Dict[str, np.ndarray]:
    """Inputs of :func:`decoder_model`: random ids, a random past cache, attention_mask with
    ``left_pad[b]`` leading zeros per row, position_ids = cumsum(mask) - 1 (HF's rule; padded
    slots get 1)."""
    rng = np.random.default_rng(seed)
    total = past + seq
    am = np.ones((batch, total), np.int64)
    for b, n in enumerate(left_pad):
        am[b, :n] = 0
    pos_all = np.cumsum(am, axis=1) - 1
    pos_all[am == 0] = 1
    feeds = {"input_ids": rng.integers(0, cfg.vocab, (batch, seq)).astype(np.int64),
             "attention_mask": am, "position_ids": pos_all[:, past:].astype(np.int64)}
    for i in range(cfg.layers):
        for kv in ("key", "value"):
            feeds[f"past_key_values.{i}.{kv}"] = rng.standard_normal(
                (batch, cfg.kv_heads, past, cfg.head_dim)).astype(np.float32)
    return feeds


def _decoder_feeds_of(cfg: DecoderConfig):
    def feeds(model, seed):
        return [decoder_feeds(cfg, 2, 6, 0, seed),                      # prefill, empty cache
                decoder_feeds(cfg, 2, 1, 6, seed + 1),                  # one decode step
                decoder_feeds(cfg, 1, 4, 3, seed + 2),                  # chunked prefill
                decoder_feeds(cfg, 2, 5, 0, seed + 3, left_pad=(0, 2))]  # left-padded batch
    return feeds


_decoder_case_feeds = _decoder_feeds_of(DecoderConfig())

_add("models", "decoder_kv", lambda: decoder_model(), make_feeds=_decoder_case_feeds,
     rtol=1e-4, atol=1e-5,
     note="2 layers, hidden 64, GQA 4/2 heads of 16, vocab 256; feeds: prefill, decode, "
          "chunked prefill, left padding")

# The same model as other architectures export it (the same four input sets each).
DECODER_VARIANTS = {
    "qwen2": (DecoderConfig(qkv_bias=True, theta=1000000.0),
              "Qwen2: q/k/v biases, RoPE base 1e6"),
    "phi3": (DecoderConfig(fused_qkv="slices", fused_gate_up=True, rotary_dim=12, kv_heads=4),
             "Phi-3/Phi-4-mini: one qkv_proj sliced, one gate_up_proj split, rotary on 12 of "
             "16 features, 4 KV heads (MHA)"),
    "gemma": (DecoderConfig(act="gelu_tanh", norm_offset=True, embed_scale=True,
                            tie_embeddings=True, head_dim=32, kv_heads=1),
              "Gemma: tanh-GELU gate, (1 + w) norms, embeddings times sqrt(hidden), lm_head "
              "tied to the embedding, 4 heads of 32 over a 64 hidden (MQA)"),
    "mistral": (DecoderConfig(sliding_window=3),
                "Mistral: a sliding window of 3 keys in the additive mask"),
    "gpt2": (DecoderConfig(norm="layer", mlp="plain", bias=True, fused_qkv="split",
                           positions="learned", act="gelu_tanh", tie_embeddings=True, kv_heads=4,
                           ffn=256, eps=1e-5),
             "GPT-2: learned positions added to the embeddings, decomposed LayerNorms, one "
             "c_attn with a bias split into q/k/v, tanh-GELU MLP with biases, tied lm_head, "
             "no RoPE, MHA"),
    "neox": (DecoderConfig(norm="layer_op", mlp="plain", bias=True, fused_qkv="per_head",
                           rotary_dim=4, parallel="two_norms", act="gelu", kv_heads=4, ffn=256,
                           eps=1e-5),
             "GPT-NeoX / Pythia: LayerNormalization, q/k/v interleaved per head in one "
             "projection, rotary on 4 of 16 features, attention and MLP in parallel off two "
             "norms, erf-GELU MLP, biases"),
    "phi2": (DecoderConfig(norm="layer_op", mlp="plain", bias=True, rotary_dim=8,
                           parallel="shared_norm", act="gelu_tanh", lm_head_bias=True,
                           kv_heads=4, ffn=256, eps=1e-5),
             "Phi-2 / Falcon form: attention and MLP in parallel off one shared LayerNorm, "
             "rotary on 8 of 16 features, biases everywhere incl. lm_head"),
}
for _arch, (_cfg, _note) in DECODER_VARIANTS.items():
    _add("models", f"decoder_kv_{_arch}", (lambda c: lambda: decoder_model(c))(_cfg),
         make_feeds=_decoder_feeds_of(_cfg), rtol=1e-4, atol=1e-5, note=_note)


# ---------------------------------------------------------------------------------------------
# API


def families() -> Sequence[str]:
    return FAMILIES


def cases(family: Optional[str] = None) -> List[Case]:
    """Every case, or those of ``family`` (one of :data:`FAMILIES`), in definition order."""
    if family is not None and family not in FAMILIES:
        raise ValueError(f"unknown family '{family}' (families: {', '.join(FAMILIES)})")
    return [c for c in _REGISTRY if family is None or c.family == family]


def case(name: str) -> Case:
    for c in _REGISTRY:
        if c.name == name:
            return c
    raise KeyError(f"no ONNX test case '{name}'")


def checkable(model: onnx.ModelProto) -> bool:
    """Whether onnx 1.12's checker knows this model (IR <= 8, default opset <= 17, only ONNX's
    own ops: ONNX Runtime's SimplifiedLayerNormalization sits in the default domain)."""
    opsets = {o.domain: o.version for o in model.opset_import}
    return (model.ir_version <= 8 and opsets.get("", 0) <= 17
            and set(opsets) <= {"", "ai.onnx"}
            and all(onnx.defs.has(n.op_type, n.domain) for n in model.graph.node))


def check(model: onnx.ModelProto) -> bool:
    """Runs onnx's checker with full shape inference when it knows the model; returns whether
    it ran."""
    if not checkable(model):
        return False
    onnx.checker.check_model(model, full_check=True)
    return True


def save(model: onnx.ModelProto, path: os.PathLike) -> Path:
    """Writes ``model`` to ``path`` (creating the directory); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))
    return path


def _main(argv=None) -> int:
    import argparse
    p = argparse.ArgumentParser(description="Write Decoda's ONNX test models.")
    p.add_argument("--out", help="output directory")
    p.add_argument("--family", choices=FAMILIES, help="only this family")
    p.add_argument("--inputs", action="store_true", help="also write <name>.inputs<i>.npz")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    args = p.parse_args(argv)
    selected = cases(args.family)
    if args.list:
        for c in selected:
            print(f"{c.family:7s} {c.name}" + (f"  ({c.note})" if c.note else ""))
        return 0
    if not args.out:
        p.error("--out is required (unless --list)")
    out = Path(args.out)
    for c in selected:
        m = c.build()
        check(m)
        save(m, out / f"{c.name}.onnx")
        if args.inputs:
            for i, f in enumerate(c.feeds(m)):
                np.savez(out / f"{c.name}.inputs{i}.npz", **f)
    print(f"wrote {len(selected)} models to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
