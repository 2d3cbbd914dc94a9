"""Shared end-to-end harness: build a one-function MLIR module, compile it with decoda-compile,
run it through the runtime, and compare with the NumPy reference (python/decoda/reference.py).

Not a test by itself (lit runs only files that start with a RUN line).
"""

from __future__ import annotations

import atexit

import numpy as np

from decoda import reference as R
from decoda import runtime, testing
from decoda.compiler import compile_mlir

_MLIR_TYPES = {"f32": "f32", "f16": "f16", "bf16": "bf16", "i64": "i64", "i32": "i32", "i8": "i8"}


def tensor_type(shape, dtype: str) -> str:
    dims = "x".join("?" if d is None else str(d) for d in shape)
    return f"tensor<{dims}x{_MLIR_TYPES[dtype]}>" if dims else f"tensor<{_MLIR_TYPES[dtype]}>"


def module(name: str, args, results, body: str) -> str:
    """``args``/``results``: lists of (name, shape, dtype); ``body`` uses %<arg name> and must
    end with ``return``. Shapes may hold None for dynamic extents."""
    a = ", ".join(f'%{n}: {tensor_type(s, d)} {{decoda.name = "{n}"}}' for n, s, d in args)
    r = ", ".join(f'{tensor_type(s, d)} {{decoda.name = "{n}"}}' for n, s, d in results)
    return f"func.func @{name}({a}) -> ({r}) {{\n{body}\n}}\n"


def to_device(x: np.ndarray, dtype: str) -> np.ndarray:
    """A storage-rounded float32 array as the runtime wants it for `dtype`."""
    if dtype == "bf16":
        return runtime.float32_to_bf16(np.asarray(x, np.float32))
    if dtype == "f16":
        return np.asarray(x, np.float16)
    if dtype == "f32":
        return np.asarray(x, np.float32)
    return np.asarray(x)


def from_device(y: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bf16":
        return runtime.bf16_to_float32(y)
    return np.asarray(y)


def _call(model, entry, arrays, dtypes_in, dtypes_out):
    """Runs `entry` on storage-rounded arrays and checks that the model left its inputs alone
    (docs/ABI.md: inputs are read-only for the model)."""
    ins = [to_device(a, d) for a, d in zip(arrays, dtypes_in)]
    saved = [np.array(a, copy=True) for a in ins]
    outs = model.run(entry, *ins)
    for i, (a, b) in enumerate(zip(ins, saved)):
        testing.check(np.array_equal(a, b, equal_nan=np.issubdtype(a.dtype, np.floating)),
                      f"entry '{entry}' wrote into its input #{i} (inputs are read-only for the "
                      "model, docs/ABI.md)")
    if not isinstance(outs, (list, tuple)):
        outs = [outs]
    return [from_device(o, d) for o, d in zip(outs, dtypes_out)]


class Compiled:
    """A compiled one-entry model called with storage-rounded float32 arrays."""

    def __init__(self, text: str, entry: str, dtypes_in, dtypes_out, flags=()):
        self.path = compile_mlir(text, entry, flags)
        self.model = runtime.load(str(self.path))
        self.entry = entry
        self.dtypes_in, self.dtypes_out = list(dtypes_in), list(dtypes_out)

    def __call__(self, *arrays):
        return _call(self.model, self.entry, arrays, self.dtypes_in, self.dtypes_out)


class CompiledModule:
    """A compiled module with several entry points (one compile shared by many cases).

    ``entry(name, dtypes_in, dtypes_out)`` returns a callable like :class:`Compiled`."""

    def __init__(self, text: str, flags=(), name: str = "model"):
        self.path = compile_mlir(text, name, flags)
        self.model = runtime.load(str(self.path))

    def entry(self, entry: str, dtypes_in, dtypes_out) -> "Entry":
        return Entry(self.model, entry, dtypes_in, dtypes_out)


class Entry:
    """One entry point of a loaded model, called with storage-rounded float32 arrays."""

    def __init__(self, model, entry: str, dtypes_in, dtypes_out):
        self.model, self.entry = model, entry
        self.dtypes_in, self.dtypes_out = list(dtypes_in), list(dtypes_out)

    def __call__(self, *arrays):
        return _call(self.model, self.entry, arrays, self.dtypes_in, self.dtypes_out)


def check(op: str, actual, expected, dtype: str, rtol=None, atol=None, what: str = ""):
    """f32: tight elementwise tolerance; f16/bf16: the documented relative-to-max tolerance of
    testing.LOW_PRECISION_TOL (the reference computes in f32 with the same storage roundings, so
    the gap is accumulation order and a few last-bit roundings). Returns the error relative to
    max|expected| (:func:`max_rel_error`)."""
    actual = np.asarray(actual, np.float64)
    expected = np.asarray(expected, np.float64)
    testing.check(actual.shape == expected.shape,
                  f"{op}{what}: shape {actual.shape} != reference {expected.shape}")
    if dtype == "f32":
        scale = max(float(np.max(np.abs(expected))) if expected.size else 0.0, 1e-30)
        testing.assert_allclose(actual, expected, rtol=rtol or 1e-5,
                                atol=atol if atol is not None else 1e-5 * scale, op=op, what=what)
    else:
        tol = {"f16": 4e-3, "bf16": 3e-2}[dtype]
        scale = max(float(np.max(np.abs(expected))) if expected.size else 0.0, 1e-30)
        testing.assert_allclose(actual, expected, rtol=0.0, atol=tol * scale, op=op, what=what)
    err = max_rel_error(actual, expected)
    key = (op, dtype)
    WORST[key] = max(WORST.get(key, 0.0), err)
    return err


#: The largest error relative to max|reference| seen by :func:`check`, per (op, dtype); printed
#: when the test process exits.
WORST: dict = {}


@atexit.register
def _print_worst():
    if WORST:
        print("max |actual - ref| / max|ref|: " + ", ".join(
            f"{op} {dt} {e:.2e}" for (op, dt), e in sorted(WORST.items())))


def max_rel_error(actual, expected) -> float:
    """max|actual - expected| / max(max|expected|, 1e-30): what :func:`check` returns."""
    actual = np.asarray(actual, np.float64)
    expected = np.asarray(expected, np.float64)
    if not expected.size:
        return 0.0
    scale = max(float(np.max(np.abs(expected))), 1e-30)
    return float(np.max(np.abs(actual - expected))) / scale


def attention_attrs(num_heads, num_kv_heads, *, causal=False, window=None, chunk=None,
                    softcap=None, scale=None) -> str:
    """The attribute dictionary of a decoda.attention / cached_attention op."""
    a = [f"num_heads = {num_heads} : i64", f"num_kv_heads = {num_kv_heads} : i64"]
    if scale is not None:
        a.append(f"scale = {float(scale)!r} : f64")
    if causal:
        a.append("causal")
    if window is not None:
        a.append(f"window = {window} : i64")
    if chunk is not None:
        a.append(f"chunk_size = {chunk} : i64")
    if softcap is not None:
        a.append(f"softcap = {float(softcap)!r} : f64")
    return "{" + ", ".join(a) + "}"


__all__ = ["R", "np", "testing", "module", "tensor_type", "Compiled", "CompiledModule", "Entry",
           "check"]


def disassembly_count(so, mnemonic: str) -> int:
    """How many instructions `mnemonic` (e.g. "vpdpbusd") the library `so` holds (objdump -d)."""
    import subprocess
    proc = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(so)], capture_output=True,
                          text=True)
    testing.check(proc.returncode == 0, f"objdump -d {so} failed: {proc.stderr[-500:]}")
    return sum(1 for line in proc.stdout.splitlines()
               if len(line.split("\t")) > 1 and line.split("\t")[1].split()[:1] == [mnemonic])
