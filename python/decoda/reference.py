"""NumPy reference implementations of the ``decoda`` dialect ops.

Every function here is written from the op descriptions in ``dialects/Decoda/DecodaOps.td`` and
``DecodaAttrs.td`` and from the formulas they cite (RMSNorm/LayerNorm, SiTU-GLU, mHC, MLA, GQA,
RoPE and its Hugging Face scalings, masks, sinks, MoE routing, SmoothQuant-style INT8), never from
compiler code. They favour clarity over speed: attention materialises its score matrix, MoE loops
over experts. They are what a lowering is compared against.

Dtype policy (the dialect's: "every reduction ... is carried out in f32 whatever the storage type,
and the result is cast back to the storage type"):

- A *storage type* is one of ``"f32"``, ``"f16"``, ``"bf16"``. NumPy has no bfloat16, so bf16
  tensors are emulated as ``float32`` arrays whose values are bf16-representable (see
  :func:`to_bf16`). Every float op takes an optional ``storage=`` keyword; without it the storage
  type is read off the primary operand's dtype (``float16`` -> f16, ``float32`` -> f32), so bf16
  must be asked for explicitly with ``storage="bf16"``.
- Operands whose type the op ties to the result (the activation inputs) are rounded to the
  storage type on entry (a no-op for values that already are), then widened to the compute type.
  Weights keep their own dtype and are widened to the compute type.
- The compute type is ``float32`` for f32/f16/bf16. As a reference-only extension, ``float64``
  operands (storage ``"f64"``) are computed and returned in ``float64``; tests use it where they
  need tolerances far below f32 rounding.
- Results are rounded to the storage type: ``float32``/``float16`` arrays, or bf16-rounded
  ``float32`` arrays for bf16.

Enum-valued attributes are plain strings spelled as in the dialect (``"out_in"``, ``"half_split"``,
``"swiglu"``, ...). Parameterised attributes are the small dataclasses :class:`Glu` and
:class:`RopeScaling` (plain strings / dicts are accepted too).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Union

import numpy as np

__all__ = [
    # dtype helpers
    "STORAGE_TYPES", "to_bf16", "is_bf16", "storage_of", "to_storage",
    # pointwise helpers
    "sigmoid", "silu", "relu", "gelu_erf", "gelu_tanh", "ACTIVATIONS", "GLU_KINDS",
    # attributes
    "Glu", "RopeScaling",
    # ops
    "rms_norm", "layer_norm", "add_rms_norm", "add_layer_norm", "residual_add", "sinkhorn",
    "hyper_connection", "linear", "embedding", "mlp", "glu", "gated_mlp", "softcap",
    "rope_inv_freq", "rope_attention_factor", "rope", "attention", "cached_attention", "mla",
    "mla_absorbed", "moe", "quantize", "dequantize", "qlinear",
]

# ------------------------------------------------------------------------------------------------
# Storage types and bf16 emulation
# ------------------------------------------------------------------------------------------------

STORAGE_TYPES = ("f32", "f16", "bf16", "f64")
_NP_STORAGE = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
               np.dtype(np.float64): "f64"}


def to_bf16(x) -> np.ndarray:
    """Round to bfloat16, round-to-nearest-even on the float32 bit pattern; returns float32 values.

    ``x`` is first converted to float32. The upper 16 bits of the float32 pattern are kept after
    adding ``0x7FFF + lsb`` (``lsb`` = bit 16), which is round-half-to-even on the dropped 16 bits;
    finite values past the bf16 range round to ±inf, infinities stay, NaNs become the quiet NaN.
    """
    a = np.asarray(x, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    lsb = (bits >> np.uint64(16)) & np.uint64(1)
    rounded = ((bits + np.uint64(0x7FFF) + lsb) >> np.uint64(16)) << np.uint64(16)
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), np.float32(np.nan), out).astype(np.float32)


def is_bf16(x) -> bool:
    """Whether every value of ``x`` is representable in bf16 (NaNs count as representable)."""
    a = np.asarray(x, dtype=np.float32)
    return bool(np.array_equal(to_bf16(a), a, equal_nan=True))


def storage_of(x, storage: Optional[str] = None) -> str:
    """The storage type of operand ``x``: ``storage`` if given, else read off ``x.dtype``."""
    if storage is not None:
        if storage not in STORAGE_TYPES:
            raise ValueError(f"storage must be one of {STORAGE_TYPES}, got {storage!r}")
        return storage
    dt = np.asarray(x).dtype
    if dt not in _NP_STORAGE:
        raise TypeError(f"expected a float16/float32(/float64) tensor, got dtype {dt}")
    return _NP_STORAGE[dt]


def _compute_dtype(storage: str):
    return np.float64 if storage == "f64" else np.float32


def to_storage(y, storage: str) -> np.ndarray:
    """Round ``y`` to ``storage`` (bf16: float32 array with bf16-rounded values)."""
    if storage == "f32":
        return np.asarray(y).astype(np.float32)
    if storage == "f16":
        return np.asarray(y).astype(np.float16)
    if storage == "bf16":
        return to_bf16(y)
    if storage == "f64":
        return np.asarray(y).astype(np.float64)
    raise ValueError(f"unknown storage type {storage!r}")


def _float_array(x, what: str) -> np.ndarray:
    a = np.asarray(x)
    if not np.issubdtype(a.dtype, np.floating):
        raise TypeError(f"{what} must be a float tensor, got dtype {a.dtype}")
    return a


def _act(x, storage: str, what: str = "input") -> np.ndarray:
    """An activation operand: rounded to the storage type, widened to the compute type."""
    a = _float_array(x, what)
    return to_storage(a, storage).astype(_compute_dtype(storage))


def _w(x, storage: str, what: str = "weight") -> np.ndarray:
    """A weight operand: kept as stored, widened to the compute type."""
    return _float_array(x, what).astype(_compute_dtype(storage))


def _check(cond: bool, msg: str):
    if not cond:
        raise ValueError(msg)


# ------------------------------------------------------------------------------------------------
# Pointwise functions (evaluated in the dtype of their argument)
# ------------------------------------------------------------------------------------------------

def sigmoid(z):
    """σ(z) = 1 / (1 + e^-z), without overflow for large |z|."""
    z = np.asarray(z)
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(z.dtype)


def silu(z):
    """silu(z) = z · σ(z)."""
    z = np.asarray(z)
    return (z * sigmoid(z)).astype(z.dtype)


def relu(z):
    z = np.asarray(z)
    return np.maximum(z, 0).astype(z.dtype)


_ERF = np.frompyfunc(math.erf, 1, 1)


def gelu_erf(z):
    """Exact GELU: z · Φ(z) = 0.5 z (1 + erf(z / √2)); erf is math.erf (evaluated in float64)."""
    z = np.asarray(z)
    z64 = z.astype(np.float64)
    erf = _ERF(z64 / math.sqrt(2.0)).astype(np.float64) if z.size else z64
    return (0.5 * z64 * (1.0 + erf)).astype(z.dtype)


def gelu_tanh(z):
    """Tanh GELU: 0.5 z (1 + tanh(√(2/π) (z + 0.044715 z³)))."""
    z = np.asarray(z)
    c = np.asarray(math.sqrt(2.0 / math.pi), dtype=z.dtype)
    return (0.5 * z * (1.0 + np.tanh(c * (z + np.asarray(0.044715, z.dtype) * z * z * z)))
            ).astype(z.dtype)


ACTIVATIONS: Mapping[str, Callable] = {
    "gelu_erf": gelu_erf, "gelu_tanh": gelu_tanh, "relu": relu, "silu": silu,
}

GLU_KINDS = ("swiglu", "geglu", "geglu_tanh", "situ", "clamped_swiglu")


def _softcap_f(z, cap):
    """cap · tanh(z / cap) in the dtype of z; cap = +inf is the identity."""
    if math.isinf(cap):
        return z
    c = np.asarray(cap, dtype=z.dtype)
    return c * np.tanh(z / c)


# ------------------------------------------------------------------------------------------------
# Attributes
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Glu:
    """``#decoda.glu``: ``h = act(g) ⊙ lin(u)``.

    ====================  =================================================  ==================
    kind                  h                                                  parameters
    ====================  =================================================  ==================
    ``swiglu``            ``silu(g) * u``
    ``geglu``             ``gelu_erf(g) * u``
    ``geglu_tanh``        ``gelu_tanh(g) * u``
    ``situ``              ``β1·tanh(g/β1) · σ(g) · β2·tanh(u/β2)``            ``beta1, beta2``
    ``clamped_swiglu``    ``silu(min(g, L)) * clamp(u, -L, L)``              ``limit`` (L)
    ====================  =================================================  ==================

    A parameter may be ``inf``; that cap then disappears.
    """

    kind: str
    beta1: Optional[float] = None
    beta2: Optional[float] = None
    limit: Optional[float] = None

    def __post_init__(self):
        _check(self.kind in GLU_KINDS, f"glu kind must be one of {GLU_KINDS}, got {self.kind!r}")
        need = {"situ": ("beta1", "beta2"), "clamped_swiglu": ("limit",)}.get(self.kind, ())
        for name in ("beta1", "beta2", "limit"):
            value = getattr(self, name)
            if name in need:
                _check(value is not None, f"glu kind {self.kind} needs {name}")
                _check(value > 0, f"glu {name} must be positive (inf allowed), got {value}")
            else:
                _check(value is None, f"glu kind {self.kind} takes no {name}")


GluLike = Union[Glu, str]


def _as_glu(kind: GluLike, beta1=None, beta2=None, limit=None) -> Glu:
    if isinstance(kind, Glu):
        _check(beta1 is None and beta2 is None and limit is None,
               "pass GLU parameters either in the Glu attribute or as keywords, not both")
        return kind
    return Glu(kind, beta1=beta1, beta2=beta2, limit=limit)


@dataclass(frozen=True)
class RopeScaling:
    """``#decoda.rope_scaling``: context-extension scaling of rotary frequencies.

    ``kind`` is ``"linear"``, ``"yarn"`` or ``"llama3"``. ``original_max_position`` is required by
    yarn and llama3. Unset optional parameters take the Hugging Face defaults: ``beta_fast`` 32,
    ``beta_slow`` 1, ``attention_factor`` ``0.1·ln(factor) + 1`` (1 when ``factor ≤ 1``),
    ``low_freq_factor`` 1, ``high_freq_factor`` 4.
    """

    kind: str
    factor: float
    original_max_position: Optional[int] = None
    beta_fast: Optional[float] = None
    beta_slow: Optional[float] = None
    attention_factor: Optional[float] = None
    low_freq_factor: Optional[float] = None
    high_freq_factor: Optional[float] = None

    def __post_init__(self):
        _check(self.kind in ("linear", "yarn", "llama3"),
               f"rope scaling kind must be linear, yarn or llama3, got {self.kind!r}")
        _check(self.factor > 0, f"rope scaling factor must be positive, got {self.factor}")
        if self.kind in ("yarn", "llama3"):
            _check(self.original_max_position is not None and self.original_max_position > 0,
                   f"{self.kind} rope scaling needs a positive original_max_position")


def _as_scaling(scaling) -> Optional[RopeScaling]:
    if scaling is None or isinstance(scaling, RopeScaling):
        return scaling
    if isinstance(scaling, Mapping):
        return RopeScaling(**scaling)
    raise TypeError(f"scaling must be a RopeScaling, a dict or None, got {type(scaling)}")


# ------------------------------------------------------------------------------------------------
# Norms and residuals
# ------------------------------------------------------------------------------------------------

def _check_per_feature(param: np.ndarray, x: np.ndarray, op: str, what: str):
    _check(param.shape == (x.shape[-1],),
           f"{op}: {what} must have shape [{x.shape[-1]}] (one entry per feature), "
           f"got {list(param.shape)}")


def rms_norm(x, weight, eps: float, weight_offset: float = 0.0, *, storage=None):
    """``decoda.rms_norm``: ``y = x / sqrt(mean(x², last axis) + eps) * (weight + weight_offset)``.

    Mean square and product in f32; ``y`` is cast back to the storage type of ``x``. ``weight`` is
    ``[D]`` for ``x`` ``[..., D]`` (QK-norm: ``x`` ``[B, T, H, D]``, weight ``[D]``).
    """
    st = storage_of(x, storage)
    cd = _compute_dtype(st)
    xf = _act(x, st)
    w = _w(weight, st)
    _check_per_feature(w, xf, "rms_norm", "weight")
    ms = np.mean(xf * xf, axis=-1, keepdims=True)
    y = xf / np.sqrt(ms + cd(eps)) * (w + cd(weight_offset))
    return to_storage(y, st)


def layer_norm(x, weight, bias=None, eps: float = 1e-5, *, storage=None):
    """``decoda.layer_norm``: ``(x - mean) / sqrt(var + eps) * weight + bias``.

    Biased variance over the last axis, two passes in f32; ``bias`` optional; cast back.
    """
    st = storage_of(x, storage)
    cd = _compute_dtype(st)
    xf = _act(x, st)
    w = _w(weight, st)
    _check_per_feature(w, xf, "layer_norm", "weight")
    mean = np.mean(xf, axis=-1, keepdims=True)
    centred = xf - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    y = centred / np.sqrt(var + cd(eps)) * w
    if bias is not None:
        b = _w(bias, st, "bias")
        _check_per_feature(b, xf, "layer_norm", "bias")
        y = y + b
    return to_storage(y, st)


def residual_add(residual, branch, scale: float = 1.0, *, storage=None):
    """``decoda.residual_add``: ``residual + scale * branch``.

    Computed in f32 (``scale`` as an f32 constant) and rounded once to the storage type; for
    ``scale = 1`` that is exactly the storage-type addition of the reference models.
    """
    st = storage_of(residual, storage)
    cd = _compute_dtype(st)
    r = _act(residual, st, "residual")
    b = _act(branch, st, "branch")
    _check(r.shape == b.shape, f"residual_add: residual {list(r.shape)} and branch "
           f"{list(b.shape)} must have the same shape")
    if scale != 1.0:
        b = np.asarray(scale, dtype=cd) * b
    return to_storage(r + b, st)


def add_rms_norm(residual, branch, weight, eps: float, weight_offset: float = 0.0,
                 scale: float = 1.0, *, storage=None):
    """``decoda.add_rms_norm``: returns ``(sum, normalized)``.

    ``sum = residual_add(residual, branch, scale)`` (rounded to the storage type) and
    ``normalized = rms_norm(sum)``: exactly the unfused program.
    """
    st = storage_of(residual, storage)
    s = residual_add(residual, branch, scale, storage=st)
    return s, rms_norm(s, weight, eps, weight_offset, storage=st)


def add_layer_norm(residual, branch, weight, bias=None, eps: float = 1e-5, scale: float = 1.0,
                   *, storage=None):
    """``decoda.add_layer_norm``: returns ``(sum, layer_norm(sum))`` as the unfused program."""
    st = storage_of(residual, storage)
    s = residual_add(residual, branch, scale, storage=st)
    return s, layer_norm(s, weight, bias, eps, storage=st)


def sinkhorn(logits, iters: int = 20):
    """The Sinkhorn projection of mHC: ``exp(logits)`` normalised ``iters`` times.

    One iteration normalises the rows (last axis) to sum 1, then the columns. ``logits`` is
    ``[..., n, n]``; computed in float32 (float64 for float64 logits). The exponential is taken
    after subtracting each row's maximum, which changes nothing after the first row
    normalisation (with ``iters = 0`` the plain ``exp(logits)`` is returned).
    """
    a = _float_array(logits, "logits")
    cd = np.float64 if a.dtype == np.float64 else np.float32
    a = a.astype(cd)
    _check(a.ndim >= 2 and a.shape[-1] == a.shape[-2],
           f"sinkhorn: logits must be [..., n, n], got {list(a.shape)}")
    _check(iters >= 0, "sinkhorn: iters must be non-negative")
    if iters == 0:
        return np.exp(a)
    m = np.exp(a - a.max(axis=-1, keepdims=True))
    for _ in range(iters):
        m = m / m.sum(axis=-1, keepdims=True)
        m = m / m.sum(axis=-2, keepdims=True)
    return m


def hyper_connection(streams, read_logits, mix_logits, write_logits,
                     body: Callable[[np.ndarray], np.ndarray], sinkhorn_iters: int = 20, *,
                     storage=None, return_coefficients: bool = False):
    """``decoda.hyper_connection`` (mHC): ``X' = B X + C ⊗ F(A X)``.

    ``streams`` ``X`` is ``[..., n, d]``. ``A = σ(read_logits)``, ``B = sinkhorn(mix_logits)``,
    ``C = 2σ(write_logits)``; the logits are static (``[n]``, ``[n, n]``, ``[n]``) or per token
    (``[..., n]``, ``[..., n, n]``, ``[..., n]`` with the leading dims of ``streams``), each
    independently. ``body`` is the layer ``F``: it receives ``A X`` (``[..., d]``, rounded to the
    storage type) and returns an array of the same shape. Mixing and Sinkhorn run in f32; the
    result is rounded to the storage type. With ``return_coefficients`` returns
    ``(result, A, B, C)``.
    """
    st = storage_of(streams, storage)
    cd = _compute_dtype(st)
    x = _act(streams, st, "streams")
    _check(x.ndim >= 2, f"hyper_connection: streams must be [..., n, d], got {list(x.shape)}")
    n = x.shape[-2]
    lead = x.shape[:-2]

    def coeff(logits, tail, what):
        c = _w(logits, st, what)
        _check(c.shape == tail or c.shape == lead + tail,
               f"hyper_connection: {what} must be {list(tail)} or {list(lead + tail)}, "
               f"got {list(c.shape)}")
        return c

    a = sigmoid(coeff(read_logits, (n,), "read_logits"))
    b = sinkhorn(coeff(mix_logits, (n, n), "mix_logits"), sinkhorn_iters).astype(cd)
    c = 2 * sigmoid(coeff(write_logits, (n,), "write_logits"))

    layer_in = to_storage(np.einsum("...i,...id->...d", a, x), st)
    f = np.asarray(body(layer_in))
    _check(f.shape == layer_in.shape,
           f"hyper_connection: body must return shape {list(layer_in.shape)}, got {list(f.shape)}")
    f = _act(f, st, "body result")
    y = np.einsum("...ij,...jd->...id", b, x) + c[..., :, None] * f[..., None, :]
    y = to_storage(y, st)
    return (y, a, b, c) if return_coefficients else y


# ------------------------------------------------------------------------------------------------
# Projections and MLPs
# ------------------------------------------------------------------------------------------------

_LAYOUTS = ("out_in", "in_out")


def _project(x: np.ndarray, w: np.ndarray, layout: str, op: str) -> np.ndarray:
    """``x[..., K] @ W`` in the compute dtype with a 2-D weight in ``layout``."""
    _check(layout in _LAYOUTS, f"{op}: weight_layout must be out_in or in_out, got {layout!r}")
    _check(w.ndim == 2, f"{op}: weight must be 2-D, got {list(w.shape)}")
    kn = w if layout == "in_out" else w.T
    _check(x.shape[-1] == kn.shape[0],
           f"{op}: input features {x.shape[-1]} do not match weight {list(w.shape)} ({layout})")
    return x @ kn


def linear(x, weight, bias=None, weight_layout: str = "out_in", *, storage=None):
    """``decoda.linear``: ``y[..., n] = Σ_k x[..., k] W[n, k] + bias[n]``, accumulated in f32.

    2-D weight: ``[N, K]`` (``out_in``) or ``[K, N]`` (``in_out``), bias ``[N]``. 3-D weight (one
    projection per head): ``[H, N, K]`` (``out_in``) or ``[H, K, N]`` (``in_out``) applied to
    ``x`` ``[..., H, K]``, giving ``[..., H, N]``, bias ``[H, N]``.
    """
    st = storage_of(x, storage)
    xf = _act(x, st)
    w = _w(weight, st)
    _check(weight_layout in _LAYOUTS,
           f"linear: weight_layout must be out_in or in_out, got {weight_layout!r}")
    if w.ndim == 2:
        y = _project(xf, w, weight_layout, "linear")
    elif w.ndim == 3:
        hkn = w if weight_layout == "in_out" else w.transpose(0, 2, 1)
        _check(xf.ndim >= 2 and xf.shape[-2:] == hkn.shape[:2],
               f"linear: per-head weight {list(w.shape)} ({weight_layout}) needs input "
               f"[..., {hkn.shape[0]}, {hkn.shape[1]}], got {list(xf.shape)}")
        y = np.einsum("...hk,hkn->...hn", xf, hkn)
    else:
        raise ValueError(f"linear: weight must be 2-D or 3-D, got {list(w.shape)}")
    if bias is not None:
        b = _w(bias, st, "bias")
        want = y.shape[-(w.ndim - 1):]
        _check(b.shape == want, f"linear: bias must be {list(want)}, got {list(b.shape)}")
        y = y + b
    return to_storage(y, st)


def embedding(ids, table):
    """``decoda.embedding``: ``table[ids]``, shape ``ids.shape + [D]``, the table's dtype.

    Raises ``IndexError`` for an id outside ``[0, V)`` (the op's run-time error).
    """
    ids = np.asarray(ids)
    table = _float_array(table, "table")
    if not np.issubdtype(ids.dtype, np.integer):
        raise TypeError(f"embedding: ids must be integers, got dtype {ids.dtype}")
    _check(table.ndim == 2, f"embedding: table must be [V, D], got {list(table.shape)}")
    vocab = table.shape[0]
    if ids.size:
        lo, hi = int(ids.min()), int(ids.max())
        if lo < 0 or hi >= vocab:
            bad = lo if lo < 0 else hi
            raise IndexError(f"embedding: id {bad} outside [0, {vocab})")
    return table[ids].copy()


def mlp(x, w_up, w_down, activation: str, b_up=None, b_down=None,
        weight_layout: str = "out_in", *, storage=None):
    """``decoda.mlp``: ``y = act(x W_upᵀ + b_up) W_downᵀ + b_down``.

    Matmuls accumulate in f32; the activation is applied to the f32 pre-activation and the
    hidden activation is rounded to the storage type before the down projection. Weights:
    ``out_in`` ``W_up [F, D]``, ``W_down [D, F]`` (``in_out``: transposed). Biases in pairs.
    """
    _check((b_up is None) == (b_down is None), "mlp: biases come in pairs (b_up, b_down) or not")
    _check(activation in ACTIVATIONS,
           f"mlp: activation must be one of {tuple(ACTIVATIONS)}, got {activation!r}")
    st = storage_of(x, storage)
    cd = _compute_dtype(st)
    xf = _act(x, st)
    h = _project(xf, _w(w_up, st, "w_up"), weight_layout, "mlp")
    if b_up is not None:
        h = h + _w(b_up, st, "b_up")
    h = to_storage(ACTIVATIONS[activation](h), st).astype(cd)
    y = _project(h, _w(w_down, st, "w_down"), weight_layout, "mlp")
    if b_down is not None:
        y = y + _w(b_down, st, "b_down")
    _check(y.shape == xf.shape, f"mlp: result {list(y.shape)} must match input {list(xf.shape)}")
    return to_storage(y, st)


def _glu_f(g: np.ndarray, u: np.ndarray, spec: Glu) -> np.ndarray:
    """The GLU in the dtype of its (compute-typed) arguments."""
    if spec.kind == "swiglu":
        return silu(g) * u
    if spec.kind == "geglu":
        return gelu_erf(g) * u
    if spec.kind == "geglu_tanh":
        return gelu_tanh(g) * u
    if spec.kind == "situ":
        return _softcap_f(g, spec.beta1) * sigmoid(g) * _softcap_f(u, spec.beta2)
    if spec.kind == "clamped_swiglu":
        lim = np.asarray(spec.limit, dtype=g.dtype)
        return silu(np.minimum(g, lim)) * np.clip(u, -lim, lim)
    raise AssertionError(spec.kind)


def glu(gate, up, kind: GluLike, *, beta1=None, beta2=None, limit=None, storage=None):
    """``decoda.glu``: ``h = glu(gate, up)`` elementwise (see :class:`Glu`), in f32, rounded."""
    spec = _as_glu(kind, beta1, beta2, limit)
    st = storage_of(gate, storage)
    g = _act(gate, st, "gate")
    u = _act(up, st, "up")
    _check(g.shape == u.shape, f"glu: gate {list(g.shape)} and up {list(u.shape)} must match")
    return to_storage(_glu_f(g, u, spec), st)


def _gated_mlp_f(xf, w_gate, w_up, w_down, spec: Glu, layout: str, st: str,
                 b_gate=None, b_up=None, b_down=None) -> np.ndarray:
    """Gated MLP on a compute-typed input; returns the unrounded compute-typed result."""
    cd = _compute_dtype(st)
    g = _project(xf, _w(w_gate, st, "w_gate"), layout, "gated_mlp")
    u = _project(xf, _w(w_up, st, "w_up"), layout, "gated_mlp")
    if b_gate is not None:
        g = g + _w(b_gate, st, "b_gate")
        u = u + _w(b_up, st, "b_up")
    h = to_storage(_glu_f(g, u, spec), st).astype(cd)
    y = _project(h, _w(w_down, st, "w_down"), layout, "gated_mlp")
    if b_down is not None:
        y = y + _w(b_down, st, "b_down")
    _check(y.shape == xf.shape,
           f"gated_mlp: result {list(y.shape)} must match input {list(xf.shape)}")
    return y


def gated_mlp(x, w_gate, w_up, w_down, kind: GluLike, b_gate=None, b_up=None, b_down=None,
              weight_layout: str = "out_in", *, beta1=None, beta2=None, limit=None,
              storage=None):
    """``decoda.gated_mlp``: ``glu(x W_gateᵀ + b_gate, x W_upᵀ + b_up) W_downᵀ + b_down``.

    Matmuls accumulate in f32; the GLU is evaluated in f32 on the f32 pre-activations and rounded
    to the storage type before the down projection. Weights: ``out_in`` ``W_gate``, ``W_up``
    ``[F, D]``, ``W_down`` ``[D, F]`` (``in_out``: transposed). Biases in triples or not at all.
    """
    biases = (b_gate, b_up, b_down)
    _check(all(b is None for b in biases) or all(b is not None for b in biases),
           "gated_mlp: biases come in triples (b_gate, b_up, b_down) or not at all")
    spec = _as_glu(kind, beta1, beta2, limit)
    st = storage_of(x, storage)
    y = _gated_mlp_f(_act(x, st), w_gate, w_up, w_down, spec, weight_layout, st, *biases)
    return to_storage(y, st)


def softcap(x, cap: float, *, storage=None):
    """``decoda.softcap``: ``cap · tanh(x / cap)``; ``cap > 0``, ``cap = inf`` is the identity."""
    _check(cap > 0, f"softcap: cap must be positive, got {cap}")
    st = storage_of(x, storage)
    return to_storage(_softcap_f(_act(x, st), cap), st)


# ------------------------------------------------------------------------------------------------
# Rotary position embeddings
# ------------------------------------------------------------------------------------------------

def rope_inv_freq(theta: float, rotary_dim: int, scaling=None) -> np.ndarray:
    """Rotary inverse frequencies ``[rotary_dim / 2]`` in float64, per the Hugging Face definitions.

    Plain: ``inv_freq[k] = theta^(-2k / rotary_dim)``. Scalings:

    - ``linear``: ``inv_freq / factor``.
    - ``yarn``: correction dim ``cd(r) = d·ln(L / (2π r)) / (2 ln theta)`` (``d = rotary_dim``,
      ``L = original_max_position``); ``low = max(floor(cd(beta_fast)), 0)``,
      ``high = min(ceil(cd(beta_slow)), d - 1)`` (``high += 0.001`` when equal);
      ``ramp[k] = clamp((k - low) / (high - low), 0, 1)`` over the pair index ``k``;
      ``inv_freq = (inv_freq / factor) · ramp + inv_freq · (1 - ramp)``.
    - ``llama3``: wavelength ``λ = 2π / inv_freq``; ``λ > L / low_freq_factor``: divided by
      ``factor``; ``λ < L / high_freq_factor``: kept; in between
      ``(1 - s) · inv_freq / factor + s · inv_freq`` with
      ``s = (L / λ - low_freq_factor) / (high_freq_factor - low_freq_factor)``.
    """
    _check(rotary_dim > 0 and rotary_dim % 2 == 0,
           f"rope: rotary_dim must be positive and even, got {rotary_dim}")
    _check(theta > 0, f"rope: theta must be positive, got {theta}")
    d = float(rotary_dim)
    k = np.arange(rotary_dim // 2, dtype=np.float64)
    inv_freq = 1.0 / np.power(float(theta), 2.0 * k / d)
    sc = _as_scaling(scaling)
    if sc is None:
        return inv_freq
    factor = float(sc.factor)
    if sc.kind == "linear":
        return inv_freq / factor
    if sc.kind == "yarn":
        max_pos = float(sc.original_max_position)
        beta_fast = 32.0 if sc.beta_fast is None else float(sc.beta_fast)
        beta_slow = 1.0 if sc.beta_slow is None else float(sc.beta_slow)

        def correction_dim(rotations):
            return d * math.log(max_pos / (rotations * 2.0 * math.pi)) / (2.0 * math.log(theta))

        low = max(math.floor(correction_dim(beta_fast)), 0)
        high = min(math.ceil(correction_dim(beta_slow)), rotary_dim - 1)
        if low == high:
            high += 0.001
        ramp = np.clip((k - low) / (high - low), 0.0, 1.0)
        return (inv_freq / factor) * ramp + inv_freq * (1.0 - ramp)
    # llama3
    old_context = float(sc.original_max_position)
    low_ff = 1.0 if sc.low_freq_factor is None else float(sc.low_freq_factor)
    high_ff = 4.0 if sc.high_freq_factor is None else float(sc.high_freq_factor)
    wavelen = 2.0 * math.pi / inv_freq
    low_freq_wavelen = old_context / low_ff
    high_freq_wavelen = old_context / high_ff
    smooth = (old_context / wavelen - low_ff) / (high_ff - low_ff)
    smoothed = (1.0 - smooth) * inv_freq / factor + smooth * inv_freq
    out = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    medium = (wavelen >= high_freq_wavelen) & (wavelen <= low_freq_wavelen)
    return np.where(medium, smoothed, out)


def rope_attention_factor(scaling=None) -> float:
    """The factor that multiplies cos/sin: YaRN's ``attention_factor`` (default
    ``0.1·ln(factor) + 1``, or 1 when ``factor ≤ 1``, as Hugging Face's ``get_mscale``); 1 for
    plain, linear and llama3 RoPE."""
    sc = _as_scaling(scaling)
    if sc is None or sc.kind != "yarn":
        return 1.0
    if sc.attention_factor is not None:
        return float(sc.attention_factor)
    return 1.0 if sc.factor <= 1.0 else 0.1 * math.log(sc.factor) + 1.0


def rope(x, positions=None, theta: float = 10000.0, rotary_dim: Optional[int] = None,
         layout: str = "half_split", scaling=None, *, storage=None):
    """``decoda.rope``: rotate the first ``rotary_dim`` features of each head of ``x`` [B,T,H,D].

    Pair ``k`` at position ``p`` turns by ``p · inv_freq[k]``
    (``(a, b) -> (a cos - b sin, b cos + a sin)``), with :func:`rope_inv_freq`; cos and sin are
    multiplied by :func:`rope_attention_factor`. Pairs: ``half_split`` ``(x[k], x[k + r/2])``,
    ``interleaved`` ``(x[2k], x[2k+1])``. Features past ``rotary_dim`` pass through. ``positions``
    is ``[T]``, ``[B, T]`` or ``None`` (token ``t`` at position ``t``). Angles and the rotation
    are computed in f32 (inv_freq computed in f64 and rounded to f32).
    """
    _check(layout in ("half_split", "interleaved"),
           f"rope: layout must be half_split or interleaved, got {layout!r}")
    st = storage_of(x, storage)
    cd = _compute_dtype(st)
    xf = _act(x, st)
    _check(xf.ndim == 4, f"rope: input must be [B, T, H, D], got {list(xf.shape)}")
    bsz, seq, _, dim = xf.shape
    r = dim if rotary_dim is None else int(rotary_dim)
    _check(0 < r <= dim and r % 2 == 0,
           f"rope: rotary_dim must be even and in (0, {dim}], got {r}")
    if positions is None:
        pos = np.arange(seq)[None, :]
    else:
        pos = np.asarray(positions)
        if not np.issubdtype(pos.dtype, np.integer):
            raise TypeError(f"rope: positions must be integers, got dtype {pos.dtype}")
        _check(pos.shape in ((seq,), (bsz, seq)),
               f"rope: positions must be [{seq}] or [{bsz}, {seq}], got {list(pos.shape)}")
        if pos.ndim == 1:
            pos = pos[None, :]
    inv_freq = rope_inv_freq(theta, r, scaling).astype(cd)
    af = cd(rope_attention_factor(scaling))
    angle = pos.astype(cd)[..., None] * inv_freq            # [B|1, T, r/2]
    cos = (np.cos(angle) * af)[:, :, None, :]               # [B|1, T, 1, r/2]
    sin = (np.sin(angle) * af)[:, :, None, :]
    out = xf.copy()
    half = r // 2
    if layout == "half_split":
        a, b = xf[..., :half], xf[..., half:r]
        out[..., :half] = a * cos - b * sin
        out[..., half:r] = b * cos + a * sin
    else:
        a, b = xf[..., 0:r:2], xf[..., 1:r:2]
        out[..., 0:r:2] = a * cos - b * sin
        out[..., 1:r:2] = b * cos + a * sin
    return to_storage(out, st)


# ------------------------------------------------------------------------------------------------
# Attention
# ------------------------------------------------------------------------------------------------

def _visibility(tq: int, tk: int, causal: bool, window, chunk_size) -> np.ndarray:
    """``[Tq, Tk]`` bool: key j visible from query i (at position p_i = Tk - Tq + i)."""
    p = (tk - tq + np.arange(tq))[:, None]
    j = np.arange(tk)[None, :]
    vis = np.ones((tq, tk), dtype=bool)
    if causal:
        vis &= j <= p
    if window is not None:
        _check(causal, "attention: window needs causal")
        _check(window > 0, f"attention: window must be positive, got {window}")
        vis &= (p - j) < window
    if chunk_size is not None:
        _check(chunk_size > 0, f"attention: chunk_size must be positive, got {chunk_size}")
        vis &= (j // chunk_size) == (p // chunk_size)
    return vis


def _masked_softmax_attend(scores, visible, values_per_head, sinks):
    """softmax over keys of ``scores`` ``[B, H, Tq, Tk]`` where ``visible`` (broadcastable),
    with optional ``sinks`` ``[H]`` joining the denominator; rows with no visible key give 0.
    ``values_per_head`` is ``[B, Tk, H, Dv]``. Returns ``[B, Tq, H, Dv]``."""
    s = np.where(visible, scores, -np.inf)
    row_max = s.max(axis=-1, keepdims=True)
    dead = np.isneginf(row_max)
    m = row_max
    if sinks is not None:
        m = np.maximum(m, sinks[None, :, None, None])
    m = np.where(np.isneginf(m), 0, m)
    p = np.exp(s - m)
    denom = p.sum(axis=-1, keepdims=True)
    if sinks is not None:
        denom = denom + np.exp(sinks[None, :, None, None] - m)
    w = np.where(dead, 0, p / np.where(dead, 1, denom))
    return np.einsum("bhij,bjhd->bihd", w, values_per_head)


def _quantize_sym(x: np.ndarray, scale, lo: int, hi: int) -> np.ndarray:
    """``clamp(round_half_even(x / scale), lo, hi)`` computed in f32, as int64."""
    s = np.float32(scale)
    _check(np.isfinite(s) and s > 0, f"attention: quantisation scales must be finite and "
           f"positive, got {s}")
    return np.clip(np.rint(x.astype(np.float32) / s), lo, hi).astype(np.int64)


def _int8_scores(q, kh, q_scale, k_scale, sc):
    """INT8 ``q kᵀ``: q and k quantised per tensor to [-127, 127], an exact integer dot product,
    scaled back in f32 by ``sc · q_scale · k_scale``."""
    qi = _quantize_sym(q, q_scale, -127, 127)
    ki = _quantize_sym(kh, k_scale, -127, 127)
    acc = np.einsum("bihd,bjhd->bhij", qi, ki)
    factor = np.float32(sc) * np.float32(q_scale) * np.float32(k_scale)
    return acc.astype(np.float32) * factor


def _masked_softmax_attend_int8(scores, visible, vh, sinks, v_scale):
    """``_masked_softmax_attend`` with u8 probabilities and s8 values: with ``m`` the row max
    (visible scores and sink) and ``l = Σ exp(s - m)`` (+ sink) in f32, ``pᵤ = clamp(rint(255 ·
    exp(s - m)), 0, 255)``, ``out = (Σ_j pᵤ vᵢ) · v_scale / (255 · l)`` (integer sum exact)."""
    s = np.where(visible, scores, -np.inf).astype(np.float32)
    row_max = s.max(axis=-1, keepdims=True)
    dead = np.isneginf(row_max)
    m = row_max
    if sinks is not None:
        m = np.maximum(m, sinks[None, :, None, None].astype(np.float32))
    m = np.where(np.isneginf(m), 0, m).astype(np.float32)
    p = np.exp(s - m).astype(np.float32)
    denom = p.sum(axis=-1, keepdims=True, dtype=np.float32)
    if sinks is not None:
        denom = denom + np.exp(sinks[None, :, None, None].astype(np.float32) - m)
    pu = np.clip(np.rint(p * np.float32(255)), 0, 255).astype(np.int64)
    vi = _quantize_sym(vh, v_scale, -127, 127)
    acc = np.einsum("bhij,bjhd->bihd", pu, vi)
    # [B, H, Tq, 1] -> [B, Tq, H, 1]
    l = np.transpose(np.where(dead, 1, denom), (0, 2, 1, 3)).astype(np.float32)
    out = acc.astype(np.float32) * np.float32(v_scale) / (np.float32(255) * l)
    return np.where(np.transpose(dead, (0, 2, 1, 3)), 0, out).astype(np.float32)


def attention(query, key, value, *, num_heads: Optional[int] = None,
              num_kv_heads: Optional[int] = None, scale: Optional[float] = None,
              causal: bool = False, window: Optional[int] = None,
              chunk_size: Optional[int] = None, softcap: Optional[float] = None,
              mask=None, segment_ids=None, sinks=None, storage=None,
              q_scale=None, k_scale=None, v_scale=None):
    """``decoda.attention``: ``softmax(mask(softcap(scale · q kᵀ))) v`` per head.

    ``query`` ``[B, Tq, Hq, D]``, ``key`` ``[B, Tk, Hkv, D]``, ``value`` ``[B, Tk, Hkv, Dv]`` ->
    ``[B, Tq, Hq, Dv]`` in the storage type of ``query``. Query ``i`` is at position
    ``p_i = Tk - Tq + i``, key ``j`` at ``j``. ``scale`` defaults to ``1/sqrt(D)``; ``softcap``
    caps scores by ``softcap · tanh(s / softcap)`` before masking. Visibility: ``causal``
    ``j ≤ p_i``; ``window`` (needs causal) ``p_i - j < window``; ``chunk_size``
    ``⌊j/c⌋ = ⌊p_i/c⌋``; ``segment_ids`` ``[B, Tk]``: ``seg[b, j] = seg[b, p_i]``. ``mask`` is an
    additive float ``[B|1, Hq|1, Tq, Tk]``. ``sinks`` ``[Hq]`` join the softmax denominator
    without a value. Query head ``h`` reads K/V head ``⌊h · Hkv / Hq⌋``. A row whose keys are all
    masked gives 0. Scores, softmax and the weighted sum are computed in f32 (materialised).

    With ``q_scale``, ``k_scale``, ``v_scale`` (all three: ``quantize(...)``, INT8 attention):
    q, k, v are quantised per tensor (round half to even, clamp ±127), ``q kᵀ`` is an exact
    integer dot product scaled back by ``scale · q_scale · k_scale``, the softmax is f32, and the
    unnormalised probabilities ``exp(s - m)`` are quantised as u8 with scale 1/255 against s8
    values (see ``_masked_softmax_attend_int8``).
    """
    quant = [x is not None for x in (q_scale, k_scale, v_scale)]
    _check(all(quant) or not any(quant),
           "attention: quantize needs all three of q_scale, k_scale, v_scale")
    st = storage_of(query, storage)
    cd = _compute_dtype(st)
    q = _act(query, st, "query")
    k = _act(key, st, "key")
    v = _act(value, st, "value")
    _check(q.ndim == 4 and k.ndim == 4 and v.ndim == 4,
           "attention: query, key, value must be [B, T, H, D]")
    bsz, tq, hq, dim = q.shape
    _, tk, hkv, _ = k.shape
    _check(k.shape[0] == bsz and v.shape[0] == bsz, "attention: batch sizes differ")
    _check(k.shape[3] == dim, f"attention: key head dim {k.shape[3]} != query head dim {dim}")
    _check(v.shape[:3] == k.shape[:3], f"attention: value {list(v.shape)} does not match key "
           f"{list(k.shape)} in [B, Tk, Hkv]")
    _check(num_heads is None or num_heads == hq, f"attention: num_heads {num_heads} != {hq}")
    _check(num_kv_heads is None or num_kv_heads == hkv,
           f"attention: num_kv_heads {num_kv_heads} != {hkv}")
    _check(1 <= hkv <= hq, f"attention: need 1 <= num_kv_heads ({hkv}) <= num_heads ({hq})")

    kv_of_head = (np.arange(hq) * hkv) // hq
    kh = k[:, :, kv_of_head, :]
    vh = v[:, :, kv_of_head, :]
    sc = cd(1.0 / math.sqrt(dim) if scale is None else scale)
    if all(quant):
        s = _int8_scores(q, kh, q_scale, k_scale, sc)
    else:
        s = np.einsum("bihd,bjhd->bhij", q, kh) * sc
    if softcap is not None:
        _check(softcap > 0, f"attention: softcap must be positive, got {softcap}")
        s = _softcap_f(s, softcap)

    visible = _visibility(tq, tk, causal, window, chunk_size)[None, None]
    if segment_ids is not None:
        seg = np.asarray(segment_ids)
        if not np.issubdtype(seg.dtype, np.integer):
            raise TypeError(f"attention: segment_ids must be integers, got {seg.dtype}")
        _check(seg.shape == (bsz, tk), f"attention: segment_ids must be [{bsz}, {tk}], "
               f"got {list(seg.shape)}")
        _check(tq <= tk, "attention: segment_ids need Tq <= Tk (query positions are keys)")
        seg_q = seg[:, tk - tq:]
        visible = visible & (seg_q[:, None, :, None] == seg[:, None, None, :])
    if mask is not None:
        mk = _w(mask, st, "mask")
        _check(mk.ndim == 4 and mk.shape[0] in (1, bsz) and mk.shape[1] in (1, hq)
               and mk.shape[2:] == (tq, tk),
               f"attention: mask must be [{bsz}|1, {hq}|1, {tq}, {tk}], got {list(mk.shape)}")
        s = s + mk
    sk = None
    if sinks is not None:
        sk = _w(sinks, st, "sinks")
        _check(sk.shape == (hq,), f"attention: sinks must be [{hq}], got {list(sk.shape)}")
    if all(quant):
        out = _masked_softmax_attend_int8(s, visible, vh, sk, v_scale)
    else:
        out = _masked_softmax_attend(s, visible, vh, sk)
    return to_storage(out, st)


def cached_attention(query, key, value, key_cache, value_cache, offset: int, *,
                     num_heads: Optional[int] = None, num_kv_heads: Optional[int] = None,
                     scale: Optional[float] = None, causal: bool = False,
                     window: Optional[int] = None, chunk_size: Optional[int] = None,
                     softcap: Optional[float] = None, sinks=None, storage=None,
                     q_scale=None, k_scale=None, v_scale=None):
    """``decoda.cached_attention``: returns ``(out, key_cache_out, value_cache_out)``.

    Caches are ``[B, S, Hkv, D]`` / ``[B, S, Hkv, Dv]``; ``key``/``value`` (``[B, T, ...]``) are
    written at ``[offset, offset + T)`` of copies of the caches, and the ``T`` queries (positions
    ``offset + i``) attend to cache entries ``[0, offset + T)`` with the semantics of
    :func:`attention`. Raises ``IndexError`` when ``offset < 0`` or ``offset + T > S``.

    With ``q_scale``, ``k_scale``, ``v_scale`` (``quantize(...)``): INT8 attention as in
    :func:`attention` over the cache entries ``[0, offset + T)``. The caches keep their storage
    type (the new keys and values are written in float); K and V are quantised when read, which
    with static per-tensor scales gives the values that quantising at append time would.
    """
    st = storage_of(query, storage)
    kc = np.array(_float_array(key_cache, "key_cache"))
    vc = np.array(_float_array(value_cache, "value_cache"))
    k = np.asarray(key)
    v = np.asarray(value)
    _check(kc.ndim == 4 and vc.ndim == 4, "cached_attention: caches must be [B, S, H, D]")
    _check(k.shape[0] == kc.shape[0] and k.shape[2:] == kc.shape[2:],
           f"cached_attention: key {list(k.shape)} does not fit key_cache {list(kc.shape)}")
    _check(v.shape[0] == vc.shape[0] and v.shape[2:] == vc.shape[2:],
           f"cached_attention: value {list(v.shape)} does not fit value_cache {list(vc.shape)}")
    _check(kc.shape[:3] == vc.shape[:3], "cached_attention: key and value caches differ in [B,S,H]")
    _check(k.shape[1] == v.shape[1], "cached_attention: key and value differ in T")
    t, s_max = k.shape[1], kc.shape[1]
    offset = int(offset)
    if offset < 0 or offset + t > s_max:
        raise IndexError(f"cached_attention: writing [{offset}, {offset + t}) past a cache of "
                         f"{s_max} tokens")
    kc[:, offset:offset + t] = to_storage(k, st).astype(kc.dtype)
    vc[:, offset:offset + t] = to_storage(v, st).astype(vc.dtype)
    out = attention(query, kc[:, :offset + t], vc[:, :offset + t], num_heads=num_heads,
                    num_kv_heads=num_kv_heads, scale=scale, causal=causal, window=window,
                    chunk_size=chunk_size, softcap=softcap, sinks=sinks, storage=st,
                    q_scale=q_scale, k_scale=k_scale, v_scale=v_scale)
    return out, kc, vc


def _mla_shapes(qn, qr, c, kr, wuk, wuv, num_heads):
    _check(qn.ndim == 4 and qr.ndim == 4 and c.ndim == 3 and kr.ndim == 3,
           "mla: q_nope/q_rope must be [B, Tq, H, *], latent/k_rope [B, Tk, *]")
    bsz, tq, h, dn = qn.shape
    tk, dc = c.shape[1], c.shape[2]
    dr = qr.shape[3]
    _check(qr.shape[:3] == (bsz, tq, h), f"mla: q_rope {list(qr.shape)} vs q_nope {list(qn.shape)}")
    _check(c.shape[0] == bsz and kr.shape[:2] == (bsz, tk) and kr.shape[2] == dr,
           f"mla: k_rope must be [{bsz}, {tk}, {dr}], got {list(kr.shape)}")
    _check(wuk.shape == (h, dn, dc), f"mla: w_uk must be [{h}, {dn}, {dc}], got {list(wuk.shape)}")
    _check(wuv.ndim == 3 and wuv.shape[0] == h and wuv.shape[2] == dc,
           f"mla: w_uv must be [{h}, Dv, {dc}], got {list(wuv.shape)}")
    _check(num_heads is None or num_heads == h, f"mla: num_heads {num_heads} != {h}")
    return bsz, tq, tk, h, dn, dr, dc


def mla(q_nope, q_rope, latent, k_rope, w_uk, w_uv, *, num_heads: Optional[int] = None,
        scale: Optional[float] = None, causal: bool = False, storage=None):
    """``decoda.mla``: multi-head latent attention with decoupled RoPE, computed the naive way.

    ``k[h] = [c W_UK[h]ᵀ ; k_rope]``, ``v[h] = c W_UV[h]ᵀ``, ``q[h] = [q_nope[h] ; q_rope[h]]``,
    ``out[h] = softmax(mask(scale · q[h] k[h]ᵀ)) v[h]``. Shapes: ``q_nope`` ``[B,Tq,H,Dn]``,
    ``q_rope`` ``[B,Tq,H,Dr]``, ``latent`` ``[B,Tk,Dc]``, ``k_rope`` ``[B,Tk,Dr]``, ``w_uk``
    ``[H,Dn,Dc]``, ``w_uv`` ``[H,Dv,Dc]`` -> ``[B,Tq,H,Dv]``. ``scale`` defaults to
    ``1/sqrt(Dn + Dr)``; queries are aligned to the end of the keys. The decompressed K and V are
    kept in f32 (not rounded to the storage type).
    """
    st = storage_of(q_nope, storage)
    cd = _compute_dtype(st)
    qn, qr = _act(q_nope, st, "q_nope"), _act(q_rope, st, "q_rope")
    c, kr = _act(latent, st, "latent"), _act(k_rope, st, "k_rope")
    wuk, wuv = _w(w_uk, st, "w_uk"), _w(w_uv, st, "w_uv")
    _, tq, tk, _, dn, dr, _ = _mla_shapes(qn, qr, c, kr, wuk, wuv, num_heads)
    k_nope = np.einsum("bjc,hnc->bjhn", c, wuk)                 # [B, Tk, H, Dn]
    v = np.einsum("bjc,hvc->bjhv", c, wuv)                      # [B, Tk, H, Dv]
    sc = cd(1.0 / math.sqrt(dn + dr) if scale is None else scale)
    s = (np.einsum("bihn,bjhn->bhij", qn, k_nope) + np.einsum("bihr,bjr->bhij", qr, kr)) * sc
    visible = _visibility(tq, tk, causal, None, None)[None, None]
    return to_storage(_masked_softmax_attend(s, visible, v, None), st)


def mla_absorbed(q_nope, q_rope, latent, k_rope, w_uk, w_uv, *,
                 num_heads: Optional[int] = None, scale: Optional[float] = None,
                 causal: bool = False, storage=None):
    """The same function as :func:`mla`, computed the absorbed way (``decoda-absorb-mla``).

    ``W_UK`` is folded into the query (``q_lat[h] = q_nope[h] W_UK[h]``, ``[.., Dc]``) and scored
    against the latent directly: an MQA :func:`attention` with one K/V head, key ``[c ; k_rope]``
    (width ``Dc + Dr``), value ``c``, and the original scale ``1/sqrt(Dn + Dr)``; ``W_UV`` is
    applied to the attended latent afterwards. Intermediates stay in f32.
    """
    st = storage_of(q_nope, storage)
    cd_st = "f64" if st == "f64" else "f32"
    qn, qr = _act(q_nope, st, "q_nope"), _act(q_rope, st, "q_rope")
    c, kr = _act(latent, st, "latent"), _act(k_rope, st, "k_rope")
    wuk, wuv = _w(w_uk, st, "w_uk"), _w(w_uv, st, "w_uv")
    _, _, _, h, dn, dr, _ = _mla_shapes(qn, qr, c, kr, wuk, wuv, num_heads)
    q_lat = np.einsum("bihn,hnc->bihc", qn, wuk)                # [B, Tq, H, Dc]
    query = np.concatenate([q_lat, qr], axis=-1)                # [B, Tq, H, Dc + Dr]
    key = np.concatenate([c, kr], axis=-1)[:, :, None, :]       # [B, Tk, 1, Dc + Dr]
    value = c[:, :, None, :]                                    # [B, Tk, 1, Dc]
    sc = 1.0 / math.sqrt(dn + dr) if scale is None else scale
    o_lat = attention(query, key, value, num_heads=h, num_kv_heads=1, scale=sc, causal=causal,
                      storage=cd_st)                            # [B, Tq, H, Dc]
    return to_storage(np.einsum("bihc,hvc->bihv", o_lat, wuv), st)


# ------------------------------------------------------------------------------------------------
# Mixture of experts
# ------------------------------------------------------------------------------------------------

def moe(x, router, w_gate, w_up, w_down, *, top_k: int, scoring: str = "softmax",
        kind: GluLike = "swiglu", normalize: bool = False, routed_scale: float = 1.0,
        selection_bias=None, shared_gate=None, shared_up=None, shared_down=None,
        weight_layout: str = "out_in", beta1=None, beta2=None, limit=None, storage=None,
        return_routing: bool = False):
    """``decoda.moe``: top-k routed gated-MLP experts plus an optional shared expert.

    Per token: ``z = x routerᵀ`` (``router`` ``[E, D]``), ``s = softmax(z)`` or ``σ(z)``; the
    ``top_k`` experts by ``s + selection_bias`` (ties to the lower index); gates ``g = s`` of the
    chosen experts (the bias never weights), divided by their sum when ``normalize``, times
    ``routed_scale``; ``y = Σ g_i expert_i(x) + shared(x)``. Experts are bias-free gated MLPs
    (``kind``) with ``w_gate``/``w_up`` ``[E, F, D]``, ``w_down`` ``[E, D, F]`` (``out_in``;
    ``in_out`` transposes each expert); the shared expert has ``[Fs, D]``, ``[Fs, D]``,
    ``[D, Fs]``. Routing in f32. Only the chosen experts are evaluated, on the tokens that chose
    them. Each expert's output is rounded to the storage type (it is a gated MLP); the gated sum
    is accumulated in f32 and rounded once. With ``return_routing`` returns
    ``(y, experts [N, top_k], gates [N, top_k])`` for the flattened tokens.
    """
    _check(scoring in ("softmax", "sigmoid"), f"moe: scoring must be softmax or sigmoid, "
           f"got {scoring!r}")
    spec = _as_glu(kind, beta1, beta2, limit)
    st = storage_of(x, storage)
    cd = _compute_dtype(st)
    xf = _act(x, st)
    d = xf.shape[-1]
    tokens = xf.reshape(-1, d)
    r = _w(router, st, "router")
    _check(r.ndim == 2 and r.shape[1] == d, f"moe: router must be [E, {d}], got {list(r.shape)}")
    num_experts = r.shape[0]
    _check(1 <= top_k <= num_experts, f"moe: top_k must be in [1, {num_experts}], got {top_k}")
    for name, w in (("w_gate", w_gate), ("w_up", w_up), ("w_down", w_down)):
        _check(np.ndim(w) == 3 and np.shape(w)[0] == num_experts,
               f"moe: {name} must be [{num_experts}, ., .], got {list(np.shape(w))}")
    shared = (shared_gate, shared_up, shared_down)
    _check(all(s is None for s in shared) or all(s is not None for s in shared),
           "moe: shared expert weights come in triples or not at all")

    rf = np.float64 if cd == np.float64 else np.float32
    z = tokens.astype(rf) @ r.astype(rf).T                       # [N, E]
    if scoring == "softmax":
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        scores = e / e.sum(axis=-1, keepdims=True)
    else:
        scores = sigmoid(z)
    sel = scores
    if selection_bias is not None:
        b = _w(selection_bias, st, "selection_bias").astype(rf)
        _check(b.shape == (num_experts,), f"moe: selection_bias must be [{num_experts}]")
        sel = scores + b
    chosen = np.argsort(-sel, axis=-1, kind="stable")[:, :top_k]   # stable: ties -> lower index
    gates = np.take_along_axis(scores, chosen, axis=-1)
    if normalize:
        gates = gates / gates.sum(axis=-1, keepdims=True)
    gates = gates * rf(routed_scale)

    y = np.zeros_like(tokens)
    for ex in range(num_experts):
        rows, slot = np.nonzero(chosen == ex)
        if rows.size == 0:
            continue
        out = _gated_mlp_f(tokens[rows], np.asarray(w_gate)[ex], np.asarray(w_up)[ex],
                           np.asarray(w_down)[ex], spec, weight_layout, st)
        out = to_storage(out, st).astype(cd)
        y[rows] += gates[rows, slot][:, None].astype(cd) * out
    if shared_gate is not None:
        out = _gated_mlp_f(tokens, shared_gate, shared_up, shared_down, spec, weight_layout, st)
        y += to_storage(out, st).astype(cd)
    y = to_storage(y.reshape(xf.shape), st)
    return (y, chosen, gates) if return_routing else y


# ------------------------------------------------------------------------------------------------
# INT8 quantisation
# ------------------------------------------------------------------------------------------------

def _quant_param(p, data_shape, what: str, dtype) -> np.ndarray:
    """A scale / zero point that broadcasts the NumPy way at the data's rank, or rank 0."""
    a = np.asarray(p)
    if dtype == np.int8:
        if a.dtype != np.int8:
            raise TypeError(f"{what} must be int8, got dtype {a.dtype}")
    else:
        a = a.astype(np.float32)
    _check(a.ndim == 0 or (a.ndim == len(data_shape) and all(
        s in (1, n) for s, n in zip(a.shape, data_shape))),
        f"{what} {list(a.shape)} must be rank 0 or broadcast at rank {len(data_shape)} "
        f"against {list(data_shape)}")
    return a


def _round_clamp_i8(y: np.ndarray) -> np.ndarray:
    if np.isnan(y).any():
        raise ValueError("quantize: NaN has no int8 value")
    return np.clip(np.rint(y), -128, 127).astype(np.int8)     # rint: round half to even


def quantize(x, scale, zero_point=None, *, storage=None):
    """``decoda.quantize``: ``clamp(round_half_even(x / scale) + zero_point, -128, 127)`` as int8.

    Computed in f32. ``scale`` (f32) and ``zero_point`` (int8, default 0) are rank 0 or have the
    rank of ``x`` and broadcast against it (per-tensor, per-channel ``[N, 1]``, per-token
    ``[B, T, 1]``). NaN inputs raise ``ValueError`` (the op leaves them unspecified).
    """
    st = storage_of(x, storage)
    xf = _act(x, st).astype(np.float32)
    s = _quant_param(scale, xf.shape, "quantize: scale", np.float32)
    q = np.rint(xf / s)
    if zero_point is not None:
        zp = _quant_param(zero_point, xf.shape, "quantize: zero_point", np.int8)
        _check(zp.shape == s.shape, "quantize: zero_point must have the shape of scale")
        q = q + zp.astype(np.float32)
    return _round_clamp_i8(q)


def dequantize(q, scale, zero_point=None, *, dtype: str = "f32"):
    """``decoda.dequantize``: ``(q - zero_point) · scale`` in f32, rounded to ``dtype``."""
    qa = np.asarray(q)
    if qa.dtype != np.int8:
        raise TypeError(f"dequantize: input must be int8, got dtype {qa.dtype}")
    _check(dtype in ("f32", "f16", "bf16"), "dequantize: dtype must be f32, f16 or bf16")
    s = _quant_param(scale, qa.shape, "dequantize: scale", np.float32)
    centred = qa.astype(np.float32)
    if zero_point is not None:
        zp = _quant_param(zero_point, qa.shape, "dequantize: zero_point", np.int8)
        _check(zp.shape == s.shape, "dequantize: zero_point must have the shape of scale")
        centred = centred - zp.astype(np.float32)
    return to_storage(centred * s, dtype)


def qlinear(x, weight, x_scale, w_scale, *, x_zero_point=None, bias=None, out_scale=None,
            out_dtype: str = "f32"):
    """``decoda.qlinear``: int8 × int8 -> int32 accumulation, dequantising epilogue.

    ``acc[..., n] = Σ_k (x[..., k] - x_zero_point) · w[n, k]`` (exact; ``OverflowError`` if a sum
    leaves the int32 range), ``y = acc · x_scale · w_scale[n] + bias[n]`` in f32, rounded to
    ``out_dtype``; with ``out_scale``: ``clamp(round_half_even(y / out_scale), -128, 127)`` int8.
    ``x`` ``[..., K]`` int8, ``weight`` ``[N, K]`` int8 (``out_in``, symmetric), ``x_scale`` rank 0
    or ``[..., 1]`` (per token), ``w_scale`` rank 0 or ``[N]``, ``x_zero_point`` int8 rank 0 or
    the shape of a per-token ``x_scale``, ``bias`` ``[N]`` float, ``out_scale`` rank 0 or
    broadcasting at the result's rank.
    """
    xa, wa = np.asarray(x), np.asarray(weight)
    if xa.dtype != np.int8 or wa.dtype != np.int8:
        raise TypeError(f"qlinear: input and weight must be int8, got {xa.dtype}, {wa.dtype}")
    _check(wa.ndim == 2 and xa.ndim >= 1 and xa.shape[-1] == wa.shape[1],
           f"qlinear: weight must be [N, {xa.shape[-1]}], got {list(wa.shape)}")
    n = wa.shape[0]
    per_token = xa.shape[:-1] + (1,)
    xs = np.asarray(x_scale).astype(np.float32)
    _check(xs.ndim == 0 or xs.shape == per_token,
           f"qlinear: x_scale must be rank 0 or {list(per_token)}, got {list(xs.shape)}")
    ws = np.asarray(w_scale).astype(np.float32)
    _check(ws.ndim == 0 or ws.shape == (n,),
           f"qlinear: w_scale must be rank 0 or [{n}], got {list(ws.shape)}")
    xi = xa.astype(np.int64)
    if x_zero_point is not None:
        zp = np.asarray(x_zero_point)
        if zp.dtype != np.int8:
            raise TypeError(f"qlinear: x_zero_point must be int8, got {zp.dtype}")
        _check(zp.ndim == 0 or zp.shape == per_token,
               f"qlinear: x_zero_point must be rank 0 or {list(per_token)}")
        xi = xi - zp.astype(np.int64)
    acc = xi @ wa.astype(np.int64).T
    if acc.size and (acc.max() > 2**31 - 1 or acc.min() < -2**31):
        raise OverflowError("qlinear: an accumulator leaves the int32 range")
    y = acc.astype(np.float32) * xs * ws
    if bias is not None:
        b = _float_array(bias, "bias").astype(np.float32)
        _check(b.shape == (n,), f"qlinear: bias must be [{n}], got {list(b.shape)}")
        y = y + b
    if out_scale is not None:
        os_ = _quant_param(out_scale, y.shape, "qlinear: out_scale", np.float32)
        return _round_clamp_i8(y / os_)
    _check(out_dtype in ("f32", "f16", "bf16"), "qlinear: out_dtype must be f32, f16 or bf16")
    return to_storage(y, out_dtype)
