#!/usr/bin/python3
"""Randomized differential testing of whole decoder blocks.

A seeded generator of random but valid decoder blocks written in the ``decoda`` dialect, each
with a NumPy reference assembled from ``python/decoda/reference.py`` (never from compiler code).
Every block is compiled through the pass-pipeline configurations that matter and run on random
inputs at several sequence lengths; the results are compared with the reference.

What a block draws (per seed, :func:`draw_spec`):

- storage dtype f32 / f16 / bf16; batch 1-2; model width, head dim (even, not always a power of
  two), query heads over KV heads with GQA ratios 1-4 (MHA, GQA, MQA);
- norm RMSNorm (random ``eps``, sometimes ``weight_offset`` 1 as Gemma) or LayerNorm (with or
  without bias), placed before (pre-norm) or after (post-norm) each residual add; optional
  QK-norm; optional q/k/v biases;
- MLP: gated (SwiGLU, GeGLU erf/tanh, SiTU-GLU with active caps, clamped SwiGLU with an active
  limit) or plain (GELU erf/tanh, ReLU, SiLU), with or without biases;
- RoPE: none, full or partial ``rotary_dim``; half-split or interleaved pairs; plain, linear,
  YaRN or Llama 3 scaling; random ``theta``;
- attention: causal or not, sliding window, sinks, score softcap, explicit scale;
- MLA instead of GQA attention (low-rank or direct queries, decoupled RoPE, latent RMSNorm);
- each weight either a function argument or a constant in the program (all, none or mixed);
- sequence lengths: always 1, plus lengths that are not multiples of the tiles (and some longer
  than the attention key tile).

Pipelines (:data:`PIPELINES`): ``default`` (decoda-compile as is), ``no-graph-opt``,
``no-fuse-projections`` (decoda-graph-opt with fuse-projections off), ``absorb-mla`` (MLA blocks
only), ``key-tile`` (a small ``--attention-key-tile``, so that several key tiles and partial tiles
run even at small T).

Tolerances (:func:`compare`): f32 ``|a - r| <= 1e-5·|r| + 2e-5·max|r|``; f16 and bf16
``max|a - r| <= tol·max|r|`` with tol 4e-3 (f16) and 3e-2 (bf16): the reference rounds every op's
result to the storage type as the program does, so what remains is accumulation order and a
few last-bit roundings that propagate (the same tolerances as test/e2e/harness.py).

Usage::

    python3 python/tools/random_blocks.py --seeds 0:50               # every pipeline per case
    python3 python/tools/random_blocks.py --seeds 0:50 --rotate      # one pipeline per case
    python3 python/tools/random_blocks.py --seed 17 --print          # the block's MLIR text
    nice -n 19 python3 python/tools/random_blocks.py --seeds 1000:2000 --rotate --json long.json
    # stopped? the same command with --resume continues where long.json ends
    nice -n 19 python3 python/tools/random_blocks.py --seeds 1000:2000 --rotate --json long.json --resume
    python3 python/tools/random_blocks.py --merge a.json b.json --json all.json   # disjoint runs

Exit status 1 when any case failed; each failure is printed with its seed, pipeline, T and the
error, and ``--keep DIR`` writes the failing blocks' MLIR there.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

import numpy as np

sys.path.append(str(Path(__file__).resolve().parents[1]))
from decoda import reference as R  # noqa: E402
from decoda import runtime  # noqa: E402
from decoda.compiler import CompileError, compile_mlir  # noqa: E402

# ------------------------------------------------------------------------------------------------
# Pipelines
# ------------------------------------------------------------------------------------------------

#: name -> decoda-compile flags. ``key-tile`` gets its tile from the spec (see :func:`flags_for`).
PIPELINES = {
    "default": [],
    "no-graph-opt": ["--no-graph-opt"],
    "no-fuse-projections": ["--graph-opt-options=fuse-projections=false"],
    "absorb-mla": ["--graph-opt-options=absorb-mla=true"],
    "key-tile": [],
}


def pipelines_for(spec: "Spec", only: Optional[List[str]] = None) -> List[str]:
    """The pipelines a block goes through: all of them (absorb-mla only for MLA blocks), or
    those of `only`."""
    return [p for p in (only or PIPELINES) if p != "absorb-mla" or spec.mla is not None]


def flags_for(pipeline: str, key_tile: int) -> List[str]:
    if pipeline == "key-tile":
        return [f"--attention-key-tile={key_tile}"]
    return list(PIPELINES[pipeline])


# ------------------------------------------------------------------------------------------------
# The random spec
# ------------------------------------------------------------------------------------------------

GATED = ("swiglu", "geglu", "geglu_tanh", "situ", "clamped_swiglu")
PLAIN = ("gelu_erf", "gelu_tanh", "relu", "silu")


@dataclass
class Spec:
    seed: int
    dtype: str
    batch: int
    d_model: int
    heads: int
    kv_heads: int
    head_dim: int
    norm: str                     # "rms" | "layer"
    norm_bias: bool               # layer norm with bias
    weight_offset: float          # rms_norm weight_offset (0 or 1)
    eps: float
    placement: str                # "pre" | "post"
    qk_norm: bool
    qkv_bias: bool
    mlp: str                      # a GATED kind or "mlp:<activation>"
    glu_params: dict
    mlp_bias: bool
    ffn: int
    rope: Optional[dict]          # theta, rotary_dim, layout, scaling (dict or None)
    causal: bool
    window: Optional[int]
    sinks: bool
    softcap: Optional[float]
    scale: Optional[float]
    mla: Optional[dict]           # dn, dr, dc, dv, q_rank (0: direct), layout, theta
    weights: str                  # "args" | "consts" | "mixed"
    lengths: List[int]
    key_tile: int
    chunk: Optional[int] = None   # attention chunk_size (Llama 4 chunked attention)
    const_names: List[str] = field(default_factory=list)

    def describe(self) -> str:
        attn = (f"MLA(dn={self.mla['dn']}, dr={self.mla['dr']}, dc={self.mla['dc']}, "
                f"dv={self.mla['dv']}, q_rank={self.mla['q_rank']})" if self.mla else
                f"H{self.heads}/KV{self.kv_heads}x{self.head_dim}")
        bits = [self.dtype, f"B{self.batch}", f"D{self.d_model}", attn,
                f"{self.placement}-{self.norm}"]
        if self.qk_norm:
            bits.append("qk-norm")
        bits.append(self.mlp + (f"{self.glu_params}" if self.glu_params else ""))
        if self.rope and not self.mla:
            r = self.rope
            bits.append(f"rope(r={r['rotary_dim']}, {r['layout']}, "
                        f"{r['scaling']['kind'] if r['scaling'] else 'plain'})")
        if self.causal:
            bits.append("causal")
        if self.window:
            bits.append(f"window={self.window}")
        if self.chunk:
            bits.append(f"chunk={self.chunk}")
        if self.sinks:
            bits.append("sinks")
        if self.softcap:
            bits.append(f"softcap={self.softcap}")
        if self.scale:
            bits.append(f"scale={self.scale:.3g}")
        bits.append(f"weights={self.weights}")
        bits.append(f"T={self.lengths}")
        return " ".join(bits)


def draw_spec(seed: int) -> Spec:
    """A random valid block for `seed` (deterministic)."""
    g = np.random.default_rng([0xDEC0DA, seed])
    pick = (lambda seq: seq[int(g.integers(len(seq)))])
    dtype = pick(["f32", "f32", "f16", "bf16"])
    mla = None
    if g.random() < 0.15:
        mla = dict(dn=pick([8, 16]), dr=pick([4, 8]), dc=pick([16, 24, 32]), dv=pick([8, 16]),
                   q_rank=pick([0, 24]), layout=pick(["interleaved", "half_split"]),
                   theta=pick([1e4, 5e5]))
        heads, kv_heads, head_dim = pick([1, 2, 4]), 1, 0
        kv_heads = heads
    else:
        kv_heads = pick([1, 1, 2, 2, 3, 4])
        heads = kv_heads * pick([1, 2, 3, 4])
        head_dim = pick([8, 12, 16, 16, 24, 32])
    d_model = pick([16, 24, 32, 48, 64])
    norm = pick(["rms", "rms", "layer"])
    gated = g.random() < 0.7
    if gated:
        mlp = pick(list(GATED))
        glu_params = ({"beta1": pick([1.0, 2.0, 4.0]), "beta2": pick([1.5, 3.0, 25.0])}
                      if mlp == "situ" else
                      {"limit": pick([0.5, 1.0, 2.0, 7.0])} if mlp == "clamped_swiglu" else {})
    else:
        mlp, glu_params = "mlp:" + pick(list(PLAIN)), {}
    rope = None
    if not mla and g.random() < 0.8:
        rotary = head_dim if g.random() < 0.6 else 2 * int(g.integers(1, head_dim // 2 + 1))
        kind = pick([None, None, "linear", "yarn", "llama3"])
        scaling = None
        if kind == "linear":
            scaling = {"kind": "linear", "factor": pick([2.0, 4.0, 1.5])}
        elif kind == "yarn":
            scaling = {"kind": "yarn", "factor": pick([2.0, 4.0, 16.0]),
                       "original_max_position": pick([32, 64, 4096])}
            if g.random() < 0.5:
                scaling.update(beta_fast=pick([16.0, 32.0]), beta_slow=pick([1.0, 2.0]))
            if g.random() < 0.3:
                scaling["attention_factor"] = pick([1.0, 1.25])
        elif kind == "llama3":
            scaling = {"kind": "llama3", "factor": pick([8.0, 32.0]),
                       "original_max_position": pick([16, 64, 8192])}
            if g.random() < 0.5:
                scaling.update(low_freq_factor=pick([1.0, 2.0]),
                               high_freq_factor=pick([4.0, 8.0]))
        rope = dict(theta=pick([1e4, 1.5e5, 5e5, 1e6]), rotary_dim=rotary,
                    layout=pick(["half_split", "half_split", "interleaved"]), scaling=scaling)
    causal = bool(mla) or g.random() < 0.85
    window = int(g.integers(1, 24)) if (causal and not mla and g.random() < 0.3) else None
    sinks = (not mla) and g.random() < 0.3
    softcap = pick([2.0, 5.0, 30.0]) if (not mla and g.random() < 0.25) else None
    scale = float(g.uniform(0.05, 0.5)) if g.random() < 0.15 else None
    key_tile = pick([4, 8, 16])
    lengths = [1]
    lengths.append(int(g.integers(2, 20)))
    if g.random() < 0.5:
        lengths.append(int(g.integers(20, 72)))
    spec = Spec(
        seed=seed, dtype=dtype, batch=pick([1, 1, 2]), d_model=d_model, heads=heads,
        kv_heads=kv_heads, head_dim=head_dim, norm=norm,
        norm_bias=norm == "layer" and g.random() < 0.7,
        weight_offset=1.0 if norm == "rms" and g.random() < 0.2 else 0.0,
        eps=pick([1e-5, 1e-6, 1e-3]), placement=pick(["pre", "pre", "post"]),
        qk_norm=(not mla) and g.random() < 0.3, qkv_bias=(not mla) and g.random() < 0.3,
        mlp=mlp, glu_params=glu_params, mlp_bias=g.random() < 0.3,
        ffn=pick([16, 40, 64, 96]), rope=rope, causal=causal, window=window, sinks=sinks,
        softcap=softcap, scale=scale, mla=mla,
        weights=pick(["args", "args", "consts", "mixed"]), lengths=lengths, key_tile=key_tile)
    # Drawn last, so that adding it left every other draw of a seed as it was.
    spec.chunk = pick([3, 8, 16]) if (not mla and g.random() < 0.2) else None
    return spec


# ------------------------------------------------------------------------------------------------
# Parameters
# ------------------------------------------------------------------------------------------------

class Params:
    """Named weights in the storage type, with their role (argument or constant) in the program."""

    def __init__(self, spec: Spec, g: np.random.Generator):
        self.spec, self.g = spec, g
        self.values: Dict[str, np.ndarray] = {}
        self.is_const: Dict[str, bool] = {}

    def _role(self) -> bool:
        w = self.spec.weights
        return w == "consts" or (w == "mixed" and self.g.random() < 0.5)

    def add(self, name, shape, kind="weight", scale_mult=1.0):
        g = self.g
        if kind == "weight":
            v = g.standard_normal(shape) * (scale_mult / math.sqrt(shape[-1]))
        elif kind == "norm":
            v = 1.0 + 0.1 * g.standard_normal(shape)
            if self.spec.weight_offset:
                v = v - self.spec.weight_offset
        elif kind == "bias":
            v = 0.1 * g.standard_normal(shape)
        elif kind == "sinks":
            v = g.uniform(-1.0, 3.0, size=shape)
        else:
            raise AssertionError(kind)
        self.values[name] = R.to_storage(v, self.spec.dtype)
        self.is_const[name] = self._role()
        return name

    def __getitem__(self, name):
        return self.values[name]

    def get(self, name):
        return self.values.get(name)


# ------------------------------------------------------------------------------------------------
# MLIR text
# ------------------------------------------------------------------------------------------------

def _f(x: float) -> str:
    """An MLIR float literal (it needs a '.' before any exponent)."""
    s = repr(float(x))
    return s.replace("e", ".0e") if "e" in s and "." not in s else s


def _hex(a: np.ndarray, dtype: str) -> str:
    if dtype == "bf16":
        raw = runtime.float32_to_bf16(np.asarray(a, np.float32)).astype("<u2").tobytes()
    elif dtype == "f16":
        raw = np.asarray(a, "<f2").tobytes()
    else:
        raw = np.asarray(a, "<f4").tobytes()
    return "0x" + raw.hex().upper()


class Builder:
    def __init__(self, spec: Spec, params: Params):
        self.spec, self.p = spec, params
        self.lines: List[str] = []
        self.n = 0
        self.dt = spec.dtype

    def ty(self, *dims) -> str:
        return "tensor<" + "x".join("?" if d is None else str(d) for d in dims) + f"x{self.dt}>"

    def fresh(self, base="v"):
        self.n += 1
        return f"%{base}{self.n}"

    def emit(self, text):
        self.lines.append("  " + text)

    def weight(self, name):
        """SSA name of a parameter: the argument, or a constant emitted at first use."""
        if not self.p.is_const[name]:
            return f"%{name}"
        cname = f"%c_{name}"
        if cname not in self.consts:
            v = self.p[name]
            self.emit(f'{cname} = arith.constant dense<"{_hex(v, self.dt)}"> : '
                      f'{self.ty(*v.shape)}')
            self.consts.add(cname)
        return cname

    consts: set


def _glu_attr(spec: Spec) -> str:
    k = spec.mlp
    if k == "situ":
        return (f"#decoda.glu<situ, beta1 = {_f(spec.glu_params['beta1'])}, "
                f"beta2 = {_f(spec.glu_params['beta2'])}>")
    if k == "clamped_swiglu":
        return f"#decoda.glu<clamped_swiglu, limit = {_f(spec.glu_params['limit'])}>"
    return f"#decoda.glu<{k}>"


def _rope_attr(theta, rotary_dim, layout, scaling, full_dim) -> str:
    a = [f"theta = {_f(theta)} : f64"]
    if rotary_dim != full_dim:
        a.append(f"rotary_dim = {rotary_dim} : i64")
    if layout != "half_split":
        a.append(f"layout = #decoda.rope_layout<{layout}>")
    if scaling:
        s = [scaling["kind"], f"factor = {_f(scaling['factor'])}"]
        if "original_max_position" in scaling:
            s.append(f"original_max_position = {scaling['original_max_position']}")
        for k in ("beta_fast", "beta_slow", "attention_factor", "low_freq_factor",
                  "high_freq_factor"):
            if k in scaling:
                s.append(f"{k} = {_f(scaling[k])}")
        a.append("scaling = #decoda.rope_scaling<" + ", ".join(s) + ">")
    return "{" + ", ".join(a) + "}"


def _scaling_obj(scaling):
    return R.RopeScaling(**scaling) if scaling else None


def build(spec: Spec, fn_name: str):
    """Returns (mlir function text, Params, argument names in order, reference function)."""
    g = np.random.default_rng([0xB10C, spec.seed])
    P = Params(spec, g)
    D, B, dt = spec.d_model, spec.batch, spec.dtype
    H, KV, Dh = spec.heads, spec.kv_heads, spec.head_dim

    def norm_params(prefix):
        P.add(prefix + "_w", (D,), "norm")
        if spec.norm == "layer" and spec.norm_bias:
            P.add(prefix + "_b", (D,), "bias")

    # -------- parameters
    norm_params("n1")
    if spec.mla:
        m = spec.mla
        dq = H * (m["dn"] + m["dr"])
        if m["q_rank"]:
            P.add("w_dq", (m["q_rank"], D))
            P.add("q_norm", (m["q_rank"],), "norm")
            P.add("w_uq", (dq, m["q_rank"]))
        else:
            P.add("wq", (dq, D))
        P.add("w_dkv", (m["dc"] + m["dr"], D))
        P.add("kv_norm", (m["dc"],), "norm")
        P.add("w_uk", (H, m["dn"], m["dc"]))
        P.add("w_uv", (H, m["dv"], m["dc"]))
        P.add("wo", (D, H * m["dv"]))
    else:
        P.add("wq", (H * Dh, D))
        P.add("wk", (KV * Dh, D))
        P.add("wv", (KV * Dh, D))
        if spec.qkv_bias:
            P.add("bq", (H * Dh,), "bias")
            P.add("bk", (KV * Dh,), "bias")
            P.add("bv", (KV * Dh,), "bias")
        if spec.qk_norm:
            P.add("q_norm", (Dh,), "norm")
            P.add("k_norm", (Dh,), "norm")
        if spec.sinks:
            P.add("sinks", (H,), "sinks")
        P.add("wo", (D, H * Dh))
    norm_params("n2")
    F = spec.ffn
    # Active caps: larger gate/up weights for the capped GLUs.
    cap_mult = 4.0 if spec.mlp in ("situ", "clamped_swiglu") else 1.0
    if spec.mlp in GATED:
        P.add("w_gate", (F, D), scale_mult=cap_mult)
        P.add("w_up", (F, D), scale_mult=cap_mult)
        P.add("w_down", (D, F))
        if spec.mlp_bias:
            P.add("b_gate", (F,), "bias")
            P.add("b_up", (F,), "bias")
            P.add("b_down", (D,), "bias")
    else:
        P.add("w_up", (F, D))
        P.add("w_down", (D, F))
        if spec.mlp_bias:
            P.add("b_up", (F,), "bias")
            P.add("b_down", (D,), "bias")

    # -------- MLIR
    bld = Builder(spec, P)
    bld.consts = set()
    ty = bld.ty
    xt = ty(B, None, D)
    bld.emit("%c1 = arith.constant 1 : index")
    bld.emit(f"%t = tensor.dim %h, %c1 : {xt}")

    def norm(x, prefix):
        out = bld.fresh("n")
        w = bld.weight(prefix + "_w")
        if spec.norm == "rms":
            attrs = f"eps = {_f(spec.eps)} : f64"
            if spec.weight_offset:
                attrs += f", weight_offset = {_f(spec.weight_offset)} : f64"
            bld.emit(f"{out} = decoda.rms_norm {x}, {w} {{{attrs}}} : {xt}, {ty(D)}")
        else:
            b = f", {bld.weight(prefix + '_b')}" if spec.norm_bias else ""
            bts = f", {ty(D)}" if spec.norm_bias else ""
            bld.emit(f"{out} = decoda.layer_norm {x}, {w}{b} {{eps = {_f(spec.eps)} : f64}} "
                     f": {xt}, {ty(D)}{bts}")
        return out

    def linear(x, in_dims, w, b=None):
        wv = P[w]
        out = bld.fresh("l")
        bias = f", {bld.weight(b)}" if b else ""
        bts = f", {ty(*P[b].shape)}" if b else ""
        bld.emit(f"{out} = decoda.linear {x}, {bld.weight(w)}{bias} : {ty(*in_dims)}, "
                 f"{ty(*wv.shape)}{bts}")
        return out, in_dims[:-1] + (wv.shape[0],)

    def heads(x, n, d):
        out = bld.fresh("e")
        bld.emit(f"{out} = tensor.expand_shape {x} [[0], [1], [2, 3]] output_shape "
                 f"[{B}, %t, {n}, {d}] : {ty(B, None, n * d)} into {ty(B, None, n, d)}")
        return out

    def merge(x, n, d):
        out = bld.fresh("m")
        bld.emit(f"{out} = tensor.collapse_shape {x} [[0], [1], [2, 3]] : "
                 f"{ty(B, None, n, d)} into {ty(B, None, n * d)}")
        return out

    def rope(x, n, d, theta, rotary, layout, scaling):
        out = bld.fresh("r")
        bld.emit(f"{out} = decoda.rope {x} {_rope_attr(theta, rotary, layout, scaling, d)} : "
                 f"{ty(B, None, n, d)}")
        return out

    def attention_branch(x):
        if spec.mla:
            return mla_branch(x)
        q2, _ = linear(x, (B, None, D), "wq", "bq" if spec.qkv_bias else None)
        k2, _ = linear(x, (B, None, D), "wk", "bk" if spec.qkv_bias else None)
        v2, _ = linear(x, (B, None, D), "wv", "bv" if spec.qkv_bias else None)
        q, k, v = heads(q2, H, Dh), heads(k2, KV, Dh), heads(v2, KV, Dh)
        if spec.qk_norm:
            for name, n, nw in (("q", H, "q_norm"), ("k", KV, "k_norm")):
                out = bld.fresh("qk")
                bld.emit(f"{out} = decoda.rms_norm {q if name == 'q' else k}, "
                         f"{bld.weight(nw)} {{eps = {_f(spec.eps)} : f64}} : "
                         f"{ty(B, None, n, Dh)}, {ty(Dh)}")
                if name == "q":
                    q = out
                else:
                    k = out
        if spec.rope:
            r = spec.rope
            q = rope(q, H, Dh, r["theta"], r["rotary_dim"], r["layout"], r["scaling"])
            k = rope(k, KV, Dh, r["theta"], r["rotary_dim"], r["layout"], r["scaling"])
        attrs = [f"num_heads = {H} : i64", f"num_kv_heads = {KV} : i64"]
        if spec.scale is not None:
            attrs.append(f"scale = {_f(spec.scale)} : f64")
        if spec.causal:
            attrs.append("causal")
        if spec.window:
            attrs.append(f"window = {spec.window} : i64")
        if spec.chunk:
            attrs.append(f"chunk_size = {spec.chunk} : i64")
        if spec.softcap:
            attrs.append(f"softcap = {_f(spec.softcap)} : f64")
        sinks = f" sinks({bld.weight('sinks')} : {ty(H)})" if spec.sinks else ""
        o = bld.fresh("o")
        bld.emit(f"{o} = decoda.attention {q}, {k}, {v}{sinks} {{{', '.join(attrs)}}} : "
                 f"{ty(B, None, H, Dh)}, {ty(B, None, KV, Dh)}, {ty(B, None, KV, Dh)}")
        o2 = merge(o, H, Dh)
        out, _ = linear(o2, (B, None, H * Dh), "wo")
        return out

    def mla_branch(x):
        m = spec.mla
        dn, dr, dc, dv = m["dn"], m["dr"], m["dc"], m["dv"]
        if m["q_rank"]:
            cq, _ = linear(x, (B, None, D), "w_dq")
            cqn = bld.fresh("cq")
            bld.emit(f"{cqn} = decoda.rms_norm {cq}, {bld.weight('q_norm')} "
                     f"{{eps = {_f(spec.eps)} : f64}} : {ty(B, None, m['q_rank'])}, "
                     f"{ty(m['q_rank'])}")
            q2, _ = linear(cqn, (B, None, m["q_rank"]), "w_uq")
        else:
            q2, _ = linear(x, (B, None, D), "wq")
        q = heads(q2, H, dn + dr)
        qn, qp = bld.fresh("qn"), bld.fresh("qp")
        bld.emit(f"{qn} = tensor.extract_slice {q}[0, 0, 0, 0] [{B}, %t, {H}, {dn}] [1, 1, 1, 1] "
                 f": {ty(B, None, H, dn + dr)} to {ty(B, None, H, dn)}")
        bld.emit(f"{qp} = tensor.extract_slice {q}[0, 0, 0, {dn}] [{B}, %t, {H}, {dr}] "
                 f"[1, 1, 1, 1] : {ty(B, None, H, dn + dr)} to {ty(B, None, H, dr)}")
        qr = rope(qp, H, dr, m["theta"], dr, m["layout"], None)
        kv, _ = linear(x, (B, None, D), "w_dkv")
        craw, kp3 = bld.fresh("cr"), bld.fresh("kp")
        bld.emit(f"{craw} = tensor.extract_slice {kv}[0, 0, 0] [{B}, %t, {dc}] [1, 1, 1] : "
                 f"{ty(B, None, dc + dr)} to {ty(B, None, dc)}")
        c = bld.fresh("c")
        bld.emit(f"{c} = decoda.rms_norm {craw}, {bld.weight('kv_norm')} "
                 f"{{eps = {_f(spec.eps)} : f64}} : {ty(B, None, dc)}, {ty(dc)}")
        bld.emit(f"{kp3} = tensor.extract_slice {kv}[0, 0, {dc}] [{B}, %t, {dr}] [1, 1, 1] : "
                 f"{ty(B, None, dc + dr)} to {ty(B, None, dr)}")
        kp4 = heads(kp3, 1, dr)
        kr4 = rope(kp4, 1, dr, m["theta"], dr, m["layout"], None)
        kr = merge(kr4, 1, dr)
        attrs = [f"num_heads = {H} : i64", "causal"]
        if spec.scale is not None:
            attrs.append(f"scale = {_f(spec.scale)} : f64")
        o = bld.fresh("o")
        bld.emit(f"{o} = decoda.mla {qn}, {qr}, {c}, {kr}, {bld.weight('w_uk')}, "
                 f"{bld.weight('w_uv')} {{{', '.join(attrs)}}} : {ty(B, None, H, dn)}, "
                 f"{ty(B, None, H, dr)}, {ty(B, None, dc)}, {ty(B, None, dr)}, "
                 f"{ty(H, dn, dc)}, {ty(H, dv, dc)}")
        o2 = merge(o, H, dv)
        out, _ = linear(o2, (B, None, H * dv), "wo")
        return out

    def mlp_branch(x):
        out = bld.fresh("f")
        if spec.mlp in GATED:
            ws = f"{bld.weight('w_gate')}, {bld.weight('w_up')}, {bld.weight('w_down')}"
            bias = ""
            if spec.mlp_bias:
                bias = (f" bias({bld.weight('b_gate')}, {bld.weight('b_up')}, "
                        f"{bld.weight('b_down')} : {ty(F)}, {ty(F)}, {ty(D)})")
            bld.emit(f"{out} = decoda.gated_mlp {x}, {ws}{bias} {{kind = {_glu_attr(spec)}}} : "
                     f"{xt}, {ty(F, D)}, {ty(F, D)}, {ty(D, F)}")
        else:
            act = spec.mlp.split(":")[1]
            bias = ""
            if spec.mlp_bias:
                bias = (f" bias({bld.weight('b_up')}, {bld.weight('b_down')} : {ty(F)}, "
                        f"{ty(D)})")
            bld.emit(f"{out} = decoda.mlp {x}, {bld.weight('w_up')}, {bld.weight('w_down')}"
                     f"{bias} {{activation = #decoda.activation<{act}>}} : {xt}, {ty(F, D)}, "
                     f"{ty(D, F)}")
        return out

    def residual(a, b):
        out = bld.fresh("s")
        bld.emit(f"{out} = decoda.residual_add {a}, {b} : {xt}")
        return out

    if spec.placement == "pre":
        u = residual("%h", attention_branch(norm("%h", "n1")))
        y = residual(u, mlp_branch(norm(u, "n2")))
    else:
        u = norm(residual("%h", attention_branch("%h")), "n1")
        y = norm(residual(u, mlp_branch(u)), "n2")
    bld.emit(f"return {y} : {xt}")

    arg_names = [n for n in P.values if not P.is_const[n]]
    args = [f'%h: {xt} {{decoda.name = "h"}}'] + [
        f'%{n}: {ty(*P[n].shape)} {{decoda.name = "{n}"}}' for n in arg_names]
    text = (f"func.func @{fn_name}({', '.join(args)}) -> {xt} {{\n" + "\n".join(bld.lines)
            + "\n}\n")
    spec.const_names = [n for n in P.values if P.is_const[n]]
    return text, P, arg_names, make_reference(spec, P)


# ------------------------------------------------------------------------------------------------
# The reference (reference.py only)
# ------------------------------------------------------------------------------------------------

def make_reference(spec: Spec, P: Params) -> Callable[[np.ndarray], np.ndarray]:
    st = spec.dtype
    H, KV, Dh = spec.heads, spec.kv_heads, spec.head_dim

    def norm(x, prefix):
        if spec.norm == "rms":
            return R.rms_norm(x, P[prefix + "_w"], spec.eps, spec.weight_offset, storage=st)
        return R.layer_norm(x, P[prefix + "_w"], P.get(prefix + "_b"), spec.eps, storage=st)

    def heads(x, n):
        b, t, f = x.shape
        return x.reshape(b, t, n, f // n)

    def merge(x):
        return x.reshape(x.shape[0], x.shape[1], -1)

    def lin(x, w, b=None):
        return R.linear(x, P[w], P.get(b) if b else None, storage=st)

    def attention(x):
        if spec.mla:
            return mla(x)
        bq, bk, bv = ("bq", "bk", "bv") if spec.qkv_bias else (None, None, None)
        q, k, v = heads(lin(x, "wq", bq), H), heads(lin(x, "wk", bk), KV), heads(lin(x, "wv", bv),
                                                                                  KV)
        if spec.qk_norm:
            q = R.rms_norm(q, P["q_norm"], spec.eps, storage=st)
            k = R.rms_norm(k, P["k_norm"], spec.eps, storage=st)
        if spec.rope:
            r = spec.rope
            sc = _scaling_obj(r["scaling"])
            q = R.rope(q, None, r["theta"], r["rotary_dim"], r["layout"], sc, storage=st)
            k = R.rope(k, None, r["theta"], r["rotary_dim"], r["layout"], sc, storage=st)
        o = R.attention(q, k, v, num_heads=H, num_kv_heads=KV, scale=spec.scale,
                        causal=spec.causal, window=spec.window, chunk_size=spec.chunk,
                        softcap=spec.softcap,
                        sinks=P.get("sinks") if spec.sinks else None, storage=st)
        return lin(merge(o), "wo")

    def mla(x):
        m = spec.mla
        dn, dc = m["dn"], m["dc"]
        if m["q_rank"]:
            cq = R.rms_norm(lin(x, "w_dq"), P["q_norm"], spec.eps, storage=st)
            q = heads(lin(cq, "w_uq"), spec.heads)
        else:
            q = heads(lin(x, "wq"), spec.heads)
        q_nope = np.ascontiguousarray(q[..., :dn])
        q_rope = R.rope(np.ascontiguousarray(q[..., dn:]), None, m["theta"], None, m["layout"],
                        storage=st)
        kv = lin(x, "w_dkv")
        c = R.rms_norm(np.ascontiguousarray(kv[..., :dc]), P["kv_norm"], spec.eps, storage=st)
        k_rope = R.rope(np.ascontiguousarray(kv[..., None, dc:]), None, m["theta"], None,
                        m["layout"], storage=st)[:, :, 0, :]
        o = R.mla(q_nope, q_rope, c, k_rope, P["w_uk"], P["w_uv"], num_heads=spec.heads,
                  scale=spec.scale, causal=True, storage=st)
        return lin(merge(o), "wo")

    def mlp(x):
        if spec.mlp in GATED:
            glu = R.Glu(spec.mlp, **spec.glu_params)
            b = (P["b_gate"], P["b_up"], P["b_down"]) if spec.mlp_bias else (None, None, None)
            return R.gated_mlp(x, P["w_gate"], P["w_up"], P["w_down"], glu, *b, storage=st)
        b = (P["b_up"], P["b_down"]) if spec.mlp_bias else (None, None)
        return R.mlp(x, P["w_up"], P["w_down"], spec.mlp.split(":")[1], *b, storage=st)

    def block(h):
        if spec.placement == "pre":
            u = R.residual_add(h, attention(norm(h, "n1")), storage=st)
            return R.residual_add(u, mlp(norm(u, "n2")), storage=st)
        u = norm(R.residual_add(h, attention(h), storage=st), "n1")
        return norm(R.residual_add(u, mlp(u), storage=st), "n2")

    return block


# ------------------------------------------------------------------------------------------------
# Comparison
# ------------------------------------------------------------------------------------------------

TOL = {"f32": (1e-5, 2e-5), "f16": (0.0, 4e-3), "bf16": (0.0, 3e-2)}


def compare(actual, expected, dtype: str) -> Optional[str]:
    """None when within tolerance, else a message (worst element, relative error)."""
    a = np.asarray(actual, np.float64)
    e = np.asarray(expected, np.float64)
    if a.shape != e.shape:
        return f"shape {a.shape} != reference {e.shape}"
    if not np.all(np.isfinite(e)):
        return "the reference is not finite (generator bug)"
    if not np.all(np.isfinite(a)):
        return f"{int(np.sum(~np.isfinite(a)))} non-finite values in the result"
    rtol, atol_rel = TOL[dtype]
    scale = max(float(np.max(np.abs(e))) if e.size else 0.0, 1e-30)
    err = np.abs(a - e)
    bad = err > rtol * np.abs(e) + atol_rel * scale
    if bad.any():
        idx = np.unravel_index(int(np.argmax(err - rtol * np.abs(e))), a.shape)
        return (f"{int(bad.sum())}/{a.size} elements off; worst at {tuple(int(i) for i in idx)}: "
                f"{a[idx]!r} vs reference {e[idx]!r} (max|err|/max|ref| = "
                f"{float(err.max()) / scale:.3g}, tol {atol_rel:g})")
    return None


def max_rel_error(actual, expected) -> float:
    a, e = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    if not e.size:
        return 0.0
    return float(np.max(np.abs(a - e))) / max(float(np.max(np.abs(e))), 1e-30)


# ------------------------------------------------------------------------------------------------
# Running
# ------------------------------------------------------------------------------------------------

@dataclass
class Case:
    spec: Spec
    name: str
    text: str
    params: Params
    arg_names: List[str]
    reference: Callable


def make_case(seed: int) -> Case:
    spec = draw_spec(seed)
    name = f"block_{seed}"
    text, params, arg_names, ref = build(spec, name)
    return Case(spec, name, text, params, arg_names, ref)


def _to_device(x, dtype):
    if dtype == "bf16":
        return runtime.float32_to_bf16(np.asarray(x, np.float32))
    return np.asarray(x, np.float16 if dtype == "f16" else np.float32)


def _from_device(y, dtype):
    return runtime.bf16_to_float32(y) if dtype == "bf16" else np.asarray(y)


def run_case(model, case: Case, pipeline: str) -> List[dict]:
    """Runs one compiled case at each of its lengths; returns one record per length."""
    spec = case.spec
    out = []
    for t in spec.lengths:
        g = np.random.default_rng([0x1A9, spec.seed, t])
        h = R.to_storage(g.standard_normal((spec.batch, t, spec.d_model)), spec.dtype)
        args = [h] + [case.params[n] for n in case.arg_names]
        rec = {"seed": spec.seed, "pipeline": pipeline, "T": t, "dtype": spec.dtype}
        try:
            ins = [_to_device(a, spec.dtype) for a in args]
            y = _from_device(model.run(case.name, *ins), spec.dtype)
            with np.errstate(all="ignore"):
                ref = case.reference(h)
            msg = compare(y, ref, spec.dtype)
            rec["error"] = max_rel_error(y, ref) if msg is None or "non-finite" not in msg else None
            if msg:
                rec["failure"] = msg
        except Exception as exc:  # noqa: BLE001 - a failing case is recorded, not fatal
            rec["failure"] = f"{type(exc).__name__}: {exc}"
        out.append(rec)
    return out


def compile_group(cases: List[Case], pipeline: str, key_tile: int, workdir: Path):
    """Compiles `cases` as one module through `pipeline`; on failure, each case alone (so that a
    bad case does not hide the others). Returns {case name: model or error message}."""
    flags = flags_for(pipeline, key_tile)
    tag = f"{pipeline}-{key_tile}-{cases[0].spec.seed}"
    try:
        path = compile_mlir("\n".join(c.text for c in cases), f"m-{tag}", flags, workdir)
        model = runtime.load(str(path))
        return {c.name: model for c in cases}
    except CompileError as exc:
        if len(cases) == 1:
            return {cases[0].name: f"CompileError: {exc}"}
    res = {}
    for c in cases:
        res.update(compile_group([c], pipeline, key_tile, workdir))
    return res


def run(seeds: List[int], *, rotate: bool = False, group: int = 8, keep: Optional[str] = None,
        verbose: bool = False, workdir: Optional[str] = None,
        pipelines: Optional[List[str]] = None, chunk: int = 40,
        previous: Optional[dict] = None, save: Optional[Callable[[dict], None]] = None) -> dict:
    """Generates, compiles and checks `seeds`. With `rotate`, a case goes through one pipeline
    (cycling through :func:`pipelines_for` by seed, so that a resumed run draws the same) instead
    of all of them. Seeds are taken `chunk` at a time; within a chunk, cases that share a pipeline
    (and key tile) are compiled together, `group` per module. `previous` is an earlier result of
    the same command (:func:`load_result`): its seeds are skipped and its records kept. `save`,
    when given, receives the result so far after every chunk."""
    start = time.time()
    work = Path(workdir or tempfile.mkdtemp(prefix="decoda-random-"))
    work.mkdir(parents=True, exist_ok=True)
    prev = previous or {}
    records: List[dict] = list(prev.get("records", []))
    done: List[int] = list(prev.get("done_seeds", []))
    runs = int(prev.get("summary", {}).get("compiled_runs", 0))
    seconds0 = float(prev.get("summary", {}).get("seconds", 0.0))
    used_pipelines = set(prev.get("summary", {}).get("pipelines", []))
    skip = set(done)
    todo = [s for s in seeds if s not in skip]

    def result() -> dict:
        failures = [r for r in records if "failure" in r]
        worst: Dict[str, float] = {}
        for r in records:
            if r.get("error") is not None:
                worst[r["dtype"]] = max(worst.get(r["dtype"], 0.0), r["error"])
        summary = {
            "cases": len(done), "compiled_runs": runs, "checks": len(records),
            "failures": len(failures), "failed_seeds": sorted({f["seed"] for f in failures}),
            "seconds": round(seconds0 + time.time() - start, 1),
            "worst_rel_error": {k: float(f"{v:.3g}") for k, v in sorted(worst.items())},
            "pipelines": sorted(used_pipelines),
            "seed_range": [min(done), max(done)] if done else None,
        }
        return {"summary": summary, "failures": failures, "done_seeds": sorted(done),
                "records": records}

    for c0 in range(0, len(todo), chunk):
        cases = [make_case(s) for s in todo[c0:c0 + chunk]]
        plan: Dict[tuple, List[Case]] = {}
        for c in cases:
            pipes = pipelines_for(c.spec, pipelines)
            if rotate and pipes:
                # One pipeline per case; MLA blocks (few) always go through absorb-mla as well.
                chosen = pipes[c.spec.seed % len(pipes)]
                pipes = [chosen] + [p for p in pipes if p == "absorb-mla" and p != chosen]
            for p in pipes:
                key = (p, c.spec.key_tile if p == "key-tile" else 0)
                plan.setdefault(key, []).append(c)
        for (pipeline, tile), group_cases in plan.items():
            used_pipelines.add(pipeline)
            for i in range(0, len(group_cases), group):
                part = group_cases[i:i + group]
                compiled = compile_group(part, pipeline, tile or 64, work)
                for c in part:
                    m = compiled[c.name]
                    runs += 1
                    if isinstance(m, str):
                        recs = [{"seed": c.spec.seed, "pipeline": pipeline, "T": None,
                                 "dtype": c.spec.dtype, "failure": m}]
                    else:
                        recs = run_case(m, c, pipeline)
                    for r in recs:
                        r["spec"] = c.spec.describe()
                        records.append(r)
                        if "failure" in r:
                            print(f"FAIL seed {r['seed']} [{pipeline}] T={r['T']}: "
                                  f"{c.spec.describe()}\n    {r['failure'][:2000]}", flush=True)
                            if keep:
                                os.makedirs(keep, exist_ok=True)
                                Path(keep, f"{c.name}.mlir").write_text(c.text)
                        elif verbose:
                            print(f"ok   seed {r['seed']} [{pipeline}] T={r['T']} "
                                  f"err {r['error']:.2e}", flush=True)
        done.extend(c.spec.seed for c in cases)
        r = result()
        s = r["summary"]
        print(f"progress: {s['cases']} blocks, {runs} compiled runs, {s['checks']} checks, "
              f"{s['failures']} failures, {s['seconds']:.0f} s (last seed {cases[-1].spec.seed})",
              flush=True)
        if save:
            save(r)
    return result()


def load_result(path: str) -> dict:
    """A result written by --json (possibly by a run that was stopped); {} if there is none."""
    p = Path(path)
    if not p.exists():
        return {}
    data = json.loads(p.read_text())
    if "records" not in data or "done_seeds" not in data:
        raise SystemExit(f"random_blocks: '{path}' has no records/done_seeds (written by an "
                         "older version?); cannot resume from it")
    return data


def merge_results(results: List[dict]) -> dict:
    """One result from several runs over disjoint seeds (e.g. a long run split over sessions)."""
    done, records, runs, seconds, pipes = [], [], 0, 0.0, set()
    for r in results:
        overlap = set(done) & set(r["done_seeds"])
        if overlap:
            raise SystemExit(f"random_blocks: results overlap in seeds {sorted(overlap)[:10]}")
        done += r["done_seeds"]
        records += r["records"]
        runs += r["summary"]["compiled_runs"]
        seconds += r["summary"]["seconds"]
        pipes |= set(r["summary"]["pipelines"])
    merged = {"summary": {"compiled_runs": runs, "seconds": seconds, "pipelines": sorted(pipes)},
              "done_seeds": done, "records": records}
    return run([], previous=merged)


def _write_json(path: str, result: dict) -> None:
    tmp = Path(path + ".tmp")
    tmp.write_text(json.dumps(result, indent=1))
    os.replace(tmp, path)


def _seed_range(text: str) -> List[int]:
    """'A:B' (half-open), or seeds and ranges separated by commas ('4,11,20:23')."""
    out = []
    for part in text.split(","):
        a, _, b = part.partition(":")
        out += list(range(int(a), int(b))) if b else [int(a)]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0:50",
                    help="A:B (half-open), or seeds and ranges separated by commas")
    ap.add_argument("--seed", type=int, help="one seed (overrides --seeds)")
    ap.add_argument("--rotate", action="store_true",
                    help="one pipeline per case (cycling by seed) instead of every pipeline")
    ap.add_argument("--pipelines", help="comma-separated subset of: " + ", ".join(PIPELINES))
    ap.add_argument("--group", type=int, default=8, help="cases per compiled module")
    ap.add_argument("--chunk", type=int, default=40,
                    help="seeds per step; --json is rewritten after each step")
    ap.add_argument("--print", action="store_true", help="print the blocks' MLIR and stop")
    ap.add_argument("--keep", help="write failing blocks' MLIR to this directory")
    ap.add_argument("--json", help="write the summary, failures and every check to this file "
                    "(after every --chunk seeds, so a stopped run keeps what it did)")
    ap.add_argument("--resume", action="store_true",
                    help="continue the run recorded in --json: skip its seeds, keep its records")
    ap.add_argument("--merge", nargs="+", metavar="FILE",
                    help="combine the --json results of runs over disjoint seeds into --json "
                    "(or print the summary) and stop")
    ap.add_argument("--workdir", help="where the compiled modules go (default: a temp dir)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    if a.merge:
        result = merge_results([load_result(f) or ap.error(f"no result in '{f}'")
                                for f in a.merge])
        print(json.dumps(result["summary"]))
        if a.json:
            _write_json(a.json, result)
        return 1 if result["summary"]["failures"] else 0
    if a.resume and not a.json:
        ap.error("--resume needs --json FILE (the result to continue)")
    seeds = [a.seed] if a.seed is not None else _seed_range(a.seeds)
    only = a.pipelines.split(",") if a.pipelines else None
    for p in only or ():
        if p not in PIPELINES:
            ap.error(f"unknown pipeline '{p}' (known: {', '.join(PIPELINES)})")
    if a.print:
        for s in seeds:
            c = make_case(s)
            print(f"// seed {s}: {c.spec.describe()}\n// constants: {c.spec.const_names}")
            print(c.text)
        return 0
    previous = load_result(a.json) if a.resume else None
    if previous:
        print(f"resuming: {len(previous['done_seeds'])} blocks already done", flush=True)
    save = (lambda r: _write_json(a.json, r)) if a.json else None
    result = run(seeds, rotate=a.rotate, group=a.group, keep=a.keep, verbose=a.verbose,
                 workdir=a.workdir, pipelines=only, chunk=a.chunk, previous=previous, save=save)
    print(json.dumps(result["summary"]))
    if a.json:
        _write_json(a.json, result)
    return 1 if result["summary"]["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
