"""Shared harness of the ONNX end-to-end tests: ONNX Runtime gives the expected outputs,
decoda-compile compiles the same .onnx file, the runtime binding runs it, and the outputs are
compared case by case.

Not a test by itself (lit excludes files named harness.py). Each test file runs a group of
cases and prints ``PASS``/``FAIL`` per case with the largest absolute error, so one failing op
never hides the others; it exits non-zero when any case fails.

Environment: ``DECODA_ONNX_CASES`` (a regular expression) runs only the matching cases;
``DECODA_ONNX_ORT_ONLY=1`` checks only the ONNX Runtime half (the model loads and runs there,
outputs are finite); ``DECODA_ONNX_KEEP=DIR`` keeps the models, libraries and inputs in DIR;
``DECODA_ONNX_RUN_TIMEOUT`` (seconds, default 300) bounds one case's runs.

Each compiled model is loaded and run in a forked child, so a crash or a hang in one case is
reported as that case's failure and the others still run.
"""

from __future__ import annotations

import os
import pickle
import re
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from decoda import onnx_models as M
from decoda import runtime
from decoda.compiler import CompileError, compile_onnx, onnx_entry_name
from decoda.ort import OrtSession

ENTRY = "main"


class CaseFailure(Exception):
    pass


def _workdir() -> Path:
    keep = os.environ.get("DECODA_ONNX_KEEP")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        return Path(keep)
    return Path(tempfile.mkdtemp(prefix="decoda-onnx-e2e-"))


def _selected(name: str) -> bool:
    pattern = os.environ.get("DECODA_ONNX_CASES")
    return not pattern or re.search(pattern, name) is not None


def compare(name: str, actual: np.ndarray, expected: np.ndarray, rtol: float,
            atol: float) -> float:
    """Raises CaseFailure unless ``actual`` matches ``expected``: same shape, same dtype kind,
    exact for integers and bools, ``|a - e| <= atol + rtol * max|e|`` for floats (NaN only where
    expected). Returns the largest absolute error."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape:
        raise CaseFailure(f"output '{name}': shape {list(actual.shape)}, expected "
                          f"{list(expected.shape)}")
    if actual.dtype != expected.dtype:
        raise CaseFailure(f"output '{name}': dtype {actual.dtype}, expected {expected.dtype}")
    if actual.size == 0:
        return 0.0
    if expected.dtype.kind in "biu":
        bad = np.argwhere(actual != expected)
        if bad.size:
            idx = tuple(int(i) for i in bad[0])
            raise CaseFailure(f"output '{name}': {len(bad)} elements differ; first at {idx}: "
                              f"{actual[idx]!r}, expected {expected[idx]!r}")
        return 0.0
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    if np.any(nan_a != nan_e):
        idx = tuple(int(i) for i in np.argwhere(nan_a != nan_e)[0])
        raise CaseFailure(f"output '{name}': NaN mismatch at {idx}: {a[idx]!r}, expected "
                          f"{e[idx]!r}")
    ok = ~nan_e
    inf_e = np.isinf(e) & ok
    if np.any(a[inf_e] != e[inf_e]):
        raise CaseFailure(f"output '{name}': infinities differ")
    fin = ok & ~inf_e
    if not np.any(fin):
        return 0.0
    err = np.where(fin, np.abs(a - e), 0.0)
    scale = float(np.max(np.abs(e[fin])))
    worst = np.unravel_index(int(np.argmax(err)), err.shape)
    max_err = float(err[worst])
    tol = atol + rtol * scale
    if not max_err <= tol:
        idx = tuple(int(i) for i in worst)
        raise CaseFailure(f"output '{name}': max abs error {max_err:.3g} > {tol:.3g} "
                          f"(atol {atol:g} + rtol {rtol:g} * max|ref| {scale:.3g}); worst at "
                          f"{idx}: {a[idx]!r}, expected {e[idx]!r}")
    return max_err


def check_signature(model, onnx_inputs: Sequence[str], onnx_outputs: Sequence[str]):
    """The compiled model has one entry ``main`` whose inputs/outputs are the graph's, in
    order, with sanitized names."""
    if ENTRY not in model.entries:
        raise CaseFailure(f"no entry '{ENTRY}' (entries: {', '.join(model.entries)})")
    sig = model.signature(ENTRY)
    got_in = [t.name for t in sig.inputs]
    got_out = [t.name for t in sig.outputs]
    want_in = [onnx_entry_name(n) for n in onnx_inputs]
    want_out = [onnx_entry_name(n) for n in onnx_outputs]
    if got_in != want_in:
        raise CaseFailure(f"entry inputs {got_in}, expected {want_in}")
    if got_out != want_out:
        raise CaseFailure(f"entry outputs {got_out}, expected {want_out}")


def isolated(fn, timeout: float):
    """Runs ``fn()`` in a forked child; returns its result, re-raises its CaseFailure, and turns
    a crash, a hang or any other exception into a CaseFailure."""
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(r)
        try:
            result = ("ok", fn())
        except CaseFailure as exc:
            result = ("fail", str(exc))
        except BaseException:  # noqa: BLE001 - everything goes back to the parent
            result = ("fail", "unexpected error:\n" + traceback.format_exc())
        try:
            with os.fdopen(w, "wb") as f:
                pickle.dump(result, f)
        finally:
            os._exit(0)
    os.close(w)
    chunks, deadline = [], time.monotonic() + timeout
    with os.fdopen(r, "rb") as f:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([f], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise CaseFailure(f"the compiled model did not finish within {timeout:g} s")
            chunk = os.read(f.fileno(), 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        how = (f"signal {os.WTERMSIG(status)} ({signal.Signals(os.WTERMSIG(status)).name})"
               if os.WIFSIGNALED(status) else f"exit status {os.WEXITSTATUS(status)}")
        raise CaseFailure(f"the compiled model crashed ({how})")
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "fail":
        raise CaseFailure(value)
    return value


class Runner:
    """Runs models through ONNX Runtime and Decoda and tallies per-case results."""

    def __init__(self, title: str):
        self.title = title
        self.work = _workdir()
        self.ort_only = os.environ.get("DECODA_ONNX_ORT_ONLY") == "1"
        self.results: List[tuple] = []
        self.t0 = time.perf_counter()

    def expected(self, path: Path, feeds_list, ort_optimization="all"):
        with OrtSession(path, optimization=ort_optimization) as s:
            outs = [s.run(f) for f in feeds_list]
        for i, o in enumerate(outs):
            for k, v in o.items():
                if v.dtype.kind == "f" and not np.all(np.isfinite(v)):
                    print(f"  note: ONNX Runtime output '{k}' of input set {i} is not finite")
        return outs

    def run_model(self, name: str, path: Path, feeds_list: List[Dict[str, np.ndarray]],
                  rtol: float, atol: float, onnx_inputs: Sequence[str],
                  onnx_outputs: Sequence[str], expected=None, flags: Sequence[str] = ()) -> None:
        """One case: expected outputs (ONNX Runtime unless given), compile (with decoda-compile
        `flags`), run, compare."""
        if not _selected(name):
            return
        t = time.perf_counter()
        try:
            if expected is None:
                try:
                    expected = self.expected(path, feeds_list)
                except Exception as exc:  # noqa: BLE001 - the oracle's failure is the case's
                    raise CaseFailure(f"ONNX Runtime: {exc}") from exc
            if self.ort_only:
                self._record(name, True, f"ONNX Runtime only, {len(feeds_list)} input set(s)", t)
                return
            try:
                so = compile_onnx(path, self.work / f"{name}.so", flags)
            except CompileError as exc:
                raise CaseFailure(f"decoda-compile: {_first_lines(str(exc), 12)}") from exc
            worst = isolated(lambda: _run_compiled(so, feeds_list, expected, rtol, atol,
                                                   onnx_inputs, onnx_outputs),
                             float(os.environ.get("DECODA_ONNX_RUN_TIMEOUT", "300")))
            self._record(name, True, f"max abs error {worst:.3g} over {len(feeds_list)} input "
                         f"set(s)", t)
        except CaseFailure as exc:
            self._record(name, False, str(exc), t)
        except Exception:  # noqa: BLE001 - report and go on with the next case
            self._record(name, False, "unexpected error:\n" + traceback.format_exc(), t)

    def run_case(self, case: M.Case) -> None:
        if not _selected(case.name):
            return
        try:
            model = case.build()
            M.check(model)
            path = M.save(model, self.work / f"{case.name}.onnx")
            feeds = case.feeds(model)
        except Exception:  # noqa: BLE001
            self._record(case.name, False, "building the model failed:\n" +
                         traceback.format_exc(), time.perf_counter())
            return
        self.run_model(case.name, path, feeds, case.rtol, case.atol, M.input_names(model),
                       M.output_names(model))

    def _record(self, name, ok, detail, t0):
        dt = time.perf_counter() - t0
        self.results.append((name, ok, detail))
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail} [{dt:.1f} s]")
        sys.stdout.flush()

    def finish(self) -> None:
        passed = sum(ok for _, ok, _ in self.results)
        total = len(self.results)
        failed = [n for n, ok, _ in self.results if not ok]
        mode = " (ONNX Runtime only)" if self.ort_only else ""
        print(f"{self.title}{mode}: {passed}/{total} cases pass in "
              f"{time.perf_counter() - self.t0:.1f} s")
        if failed:
            print("failed: " + " ".join(failed))
        if not os.environ.get("DECODA_ONNX_KEEP"):
            shutil.rmtree(self.work, ignore_errors=True)
        sys.stdout.flush()
        sys.exit(1 if failed or total == 0 else 0)


def _run_compiled(so, feeds_list, expected, rtol, atol, onnx_inputs, onnx_outputs) -> float:
    """Loads the compiled model, runs every input set, compares; the largest absolute error."""
    model = runtime.load(str(so))
    check_signature(model, onnx_inputs, onnx_outputs)
    sig = model.signature(ENTRY)
    worst = 0.0
    for i, (feeds, exp) in enumerate(zip(feeds_list, expected)):
        args = [_to_entry_type(feeds[n], t.dtype) for n, t in zip(onnx_inputs, sig.inputs)]
        saved = [np.array(a, copy=True) for a in args]
        try:
            outs = model.run(ENTRY, *args)
        except runtime.DecodaError as exc:
            raise CaseFailure(f"input set {i}: runtime: {exc}") from exc
        if not isinstance(outs, tuple):
            outs = (outs,)
        for a, b in zip(args, saved):
            if not np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
                raise CaseFailure(f"input set {i}: the model wrote into an input")
        for n, a, t in zip(onnx_outputs, outs, sig.outputs):
            if t.dtype in ("bf16", "f16") and exp[n].dtype == np.float32:
                a = (runtime.bf16_to_float32(a) if t.dtype == "bf16"
                     else np.asarray(a, np.float32))
            try:
                worst = max(worst, compare(n, a, exp[n], rtol, atol))
            except CaseFailure as exc:
                shapes = ", ".join(f"{k}{list(v.shape)}" for k, v in feeds.items())
                raise CaseFailure(f"input set {i} ({shapes}): {exc}") from exc
    return worst


def _to_entry_type(a: np.ndarray, dtype: str) -> np.ndarray:
    """An f32 feed for a 16-bit entry input (decoda-compile --float-type-io) in that type: bf16
    bit patterns rounded to nearest even, or float16; other feeds as they are."""
    if a.dtype != np.float32:
        return a
    if dtype == "bf16":
        return runtime.float32_to_bf16(a)
    if dtype == "f16":
        return a.astype(np.float16)
    return a


def _first_lines(text: str, n: int) -> str:
    lines = text.strip().splitlines()
    return "\n".join(lines[:n]) + (f"\n  ... ({len(lines) - n} more lines)" if len(lines) > n
                                   else "")


def run_group(family: str, group: str, title: Optional[str] = None) -> None:
    """Runs every case of ``family`` in ``group`` (see onnx_models.Case.group) and exits."""
    runner = Runner(title or f"{family}/{group}")
    selected = [c for c in M.cases(family) if c.group == group]
    for c in selected:
        runner.run_case(c)
    runner.finish()


__all__ = ["Runner", "run_group", "compare", "check_signature", "CaseFailure", "np", "M"]
