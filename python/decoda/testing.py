"""Small helpers for the Python tests of Decoda.

- :func:`rng` / :func:`randn` / :func:`uniform`: seeded random tensors in a storage type
  (``"f32"``, ``"f16"``, ``"bf16"`` emulated as bf16-valued float32, ``"f64"``).
- :func:`assert_allclose`: ``|actual - expected| <= atol + rtol·|expected|`` elementwise, with a
  message that names the op, counts the offending elements and shows the worst index.
- :func:`assert_close_to_fp32`: the documented tolerances for an f16/bf16 result against the
  f32 result of the same op on the same (storage-rounded) inputs.
- :func:`check` / :func:`assert_equal` / :func:`assert_raises`: counted plain checks.
- :func:`run_tests`: runs every ``test_*`` function of a test file in order, prints one line per
  test and the number of checks, and exits non-zero when any test failed.

Every assertion helper increments a per-process check counter, so a test file reports how many
independent facts it verified.
"""

from __future__ import annotations

import sys
import time
import traceback
from typing import Optional

import numpy as np

from .reference import to_storage

_checks = 0

#: Documented tolerances of f16/bf16 results against the f32 result of the same op on the same
#: inputs: ``max|low - f32| <= tol · max(max|f32|, 1e-30)``. f16 keeps 11 significant bits
#: (unit roundoff 2^-11 ≈ 4.9e-4), bf16 keeps 8 (2^-8 ≈ 3.9e-3); the tolerances allow a few
#: roundings of intermediates (hidden activations, sums) on top of the final one.
LOW_PRECISION_TOL = {"f32": 1e-6, "f16": 4e-3, "bf16": 3e-2}


def checks_done() -> int:
    """How many checks this process has run."""
    return _checks


def _count():
    global _checks
    _checks += 1


def rng(seed: int) -> np.random.Generator:
    """A seeded generator."""
    return np.random.default_rng(seed)


def randn(gen: np.random.Generator, shape, storage: str = "f32", scale: float = 1.0,
          mean: float = 0.0) -> np.ndarray:
    """Normal values ``mean + scale·N(0, 1)`` rounded to ``storage``."""
    return to_storage(mean + scale * gen.standard_normal(shape), storage)


def uniform(gen: np.random.Generator, shape, low: float = -1.0, high: float = 1.0,
            storage: str = "f32") -> np.ndarray:
    """Uniform values in ``[low, high)`` rounded to ``storage``."""
    return to_storage(gen.uniform(low, high, size=shape), storage)


def check(cond, message: str = "check failed"):
    """A counted plain assertion."""
    _count()
    if not bool(cond):
        raise AssertionError(message)


def assert_equal(actual, expected, op: str = "?", what: str = ""):
    """Exact equality (shape, and values with NaN == NaN)."""
    _count()
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape:
        raise AssertionError(f"{op}: {what} shape {a.shape} != expected {e.shape}")
    if np.issubdtype(a.dtype, np.floating) or np.issubdtype(e.dtype, np.floating):
        eq = (a == e) | (np.isnan(a.astype(np.float64)) & np.isnan(e.astype(np.float64)))
    else:
        eq = a == e
    if not np.all(eq):
        bad = np.argwhere(~np.asarray(eq))
        idx = tuple(int(i) for i in bad[0])
        raise AssertionError(f"{op}: {what} differs at {len(bad)}/{a.size} elements; first at "
                             f"index {idx}: actual {a[idx]!r}, expected {e[idx]!r}")


def assert_allclose(actual, expected, rtol: float = 1e-6, atol: float = 0.0, op: str = "?",
                    what: str = ""):
    """``|actual - expected| <= atol + rtol·|expected|`` elementwise, compared in float64.

    Shapes must match exactly. NaNs must coincide, infinities must coincide with the same sign.
    The failure message names ``op`` and ``what``, the number of offending elements and the
    worst index (largest excess over the tolerance) with both values.
    """
    _count()
    a = np.asarray(actual).astype(np.float64)
    e = np.asarray(expected).astype(np.float64)
    if a.shape != e.shape:
        raise AssertionError(f"{op}: {what} shape {a.shape} != expected {e.shape}")
    both_nan = np.isnan(a) & np.isnan(e)
    same_inf = np.isinf(a) & np.isinf(e) & (np.sign(a) == np.sign(e))
    with np.errstate(invalid="ignore"):
        err = np.abs(a - e)
        tol = atol + rtol * np.abs(e)
        bad = ~(both_nan | same_inf) & ~(err <= tol)
    if bad.any():
        excess = np.where(bad, np.nan_to_num(err - tol, nan=np.inf), -np.inf)
        idx = np.unravel_index(int(np.argmax(excess)), a.shape) if a.ndim else ()
        idx = tuple(int(i) for i in idx)
        raise AssertionError(
            f"{op}: {what} mismatch at {int(bad.sum())}/{a.size} elements "
            f"(rtol={rtol:g}, atol={atol:g}); worst at index {idx}: actual {a[idx]!r}, "
            f"expected {e[idx]!r}, |diff| {err[idx]:.3g}")


def assert_close_to_fp32(actual, ref_f32, storage: str, op: str = "?", what: str = "",
                         tol: Optional[float] = None):
    """An f16/bf16 result against the f32 result of the same op on the same inputs.

    Passes when ``max|actual - ref| <= tol · max|ref|`` with ``tol`` from
    :data:`LOW_PRECISION_TOL` (unless given). Also checks that the result is in the storage type:
    ``float16`` for f16, bf16-representable ``float32`` for bf16.
    """
    _count()
    a = np.asarray(actual)
    if storage == "f16" and a.dtype != np.float16:
        raise AssertionError(f"{op}: {what} f16 result has dtype {a.dtype}")
    if storage == "bf16":
        if a.dtype != np.float32 or not np.array_equal(to_storage(a, "bf16"), a, equal_nan=True):
            raise AssertionError(f"{op}: {what} bf16 result is not bf16-valued float32")
    t = LOW_PRECISION_TOL[storage] if tol is None else tol
    a64 = a.astype(np.float64)
    r64 = np.asarray(ref_f32).astype(np.float64)
    if a64.shape != r64.shape:
        raise AssertionError(f"{op}: {what} shape {a64.shape} != expected {r64.shape}")
    ref_max = max(float(np.max(np.abs(r64))) if r64.size else 0.0, 1e-30)
    err = np.abs(a64 - r64)
    worst = int(np.argmax(err)) if err.size else 0
    rel = float(err.flat[worst]) / ref_max if err.size else 0.0
    if not rel <= t:
        idx = tuple(int(i) for i in np.unravel_index(worst, a64.shape))
        raise AssertionError(
            f"{op}: {what} {storage} result off by {rel:.3g} of max|ref| (> {t:g}); worst at "
            f"index {idx}: {storage} {a64[idx]!r}, f32 {r64[idx]!r}")


def assert_raises(exc_type, fn, *args, op: str = "?", what: str = "", **kwargs):
    """``fn(*args, **kwargs)`` must raise ``exc_type``."""
    _count()
    try:
        fn(*args, **kwargs)
    except exc_type:
        return
    except Exception as other:  # noqa: BLE001 - report the wrong exception type
        raise AssertionError(f"{op}: {what} raised {type(other).__name__} ({other}), "
                             f"expected {exc_type.__name__}") from other
    raise AssertionError(f"{op}: {what} did not raise {exc_type.__name__}")


def run_tests(namespace: dict) -> None:
    """Run every ``test_*`` callable of ``namespace`` in definition order, then exit.

    Prints ``PASS``/``FAIL`` per test with its number of checks, tracebacks of failures, and a
    summary line; exits with status 1 when a test failed, 0 otherwise.
    """
    tests = [(name, fn) for name, fn in namespace.items()
             if name.startswith("test_") and callable(fn)]
    failed = []
    start = time.perf_counter()
    for name, fn in tests:
        before = _checks
        try:
            with np.errstate(over="raise", invalid="raise", divide="raise"):
                fn()
        except Exception:  # noqa: BLE001 - a test runner reports every failure
            failed.append(name)
            print(f"FAIL {name}")
            traceback.print_exc(file=sys.stdout)
        else:
            print(f"PASS {name} ({_checks - before} checks)")
    elapsed = time.perf_counter() - start
    print(f"{len(tests) - len(failed)}/{len(tests)} tests passed, {_checks} checks, "
          f"{elapsed:.2f} s")
    sys.stdout.flush()
    sys.exit(1 if failed else 0)
