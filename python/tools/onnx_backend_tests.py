#!/usr/bin/python3
"""Runs ONNX's backend node tests (Debian's libonnx-testdata) through Decoda.

For every test directory (``model.onnx`` + ``test_data_set_*/{input,output}_*.pb``) whose graph is
one node of a supported op (the importer's list, default domain), compiles ``model.onnx`` with
``decoda-compile``, runs entry ``main`` on each data set through the runtime binding, and compares
with the expected outputs (ONNX's backend tolerances: rtol 1e-3, atol 1e-7; integers and bools
exact). Prints ``PASS``/``FAIL``/``UNSUPPORTED`` per test and the summary line
``N of M supported-op node tests pass``.

Each test runs in its own process (a crash in one compiled model cannot take the others down)
with a time limit.

    /usr/bin/python3 python/tools/onnx_backend_tests.py [-j 2] [--filter REGEX] [--expanded]
        [--quiet] [--data /usr/share/libonnx-testdata/data/node]

``--expanded`` also runs multi-node tests (the ``*_expanded`` function bodies) whose ops are all
supported. Tests outside the importer's opsets (13 to 23), tests whose tensors have a dtype the
runtime cannot carry (strings, unsigned, float8...) and tests with sequence/optional inputs count
as UNSUPPORTED and stay out of M.
Exit status 1 when a supported test fails.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PYTHON_DIR))

DEFAULT_DATA = "/usr/share/libonnx-testdata/data/node"

#: The default-domain ops the ONNX importer takes (issue 3).
SUPPORTED_OPS = frozenset("""
MatMul Gemm Add Sub Mul Div Pow Sqrt Reciprocal Neg Exp Log Tanh Erf Sigmoid Relu Gelu Where Equal
Less Not Cast Clip Max Min ReduceMean ReduceSum ReduceMax Softmax LayerNormalization
RMSNormalization Attention RotaryEmbedding Reshape Transpose Unsqueeze Squeeze Expand Concat Slice
Split Gather Shape Range ConstantOfShape Trilu Tile Cos Sin Constant Identity TopK ScatterND
ScatterElements SequenceConstruct SequenceEmpty SequenceAt SequenceInsert SequenceErase
SequenceLength ConcatFromSequence SplitToSequence
""".split())
#: The default-domain opsets the importer takes.
OPSETS = (13, 23)

# ONNX TensorProto data types the runtime carries (decoda.runtime: f32 f16 f64 i8 i32 i64 i1).
# bf16 travels as uint16 bit patterns both in the runtime binding and in the test data files.
_RUNTIME_TYPES = {1: "float32", 10: "float16", 11: "float64", 3: "int8", 6: "int32", 7: "int64",
                  9: "bool", 16: "bfloat16"}
_BF16 = 16
_TYPE_NAMES = {2: "uint8", 4: "uint16", 5: "int16", 8: "string", 12: "uint32", 13: "uint64",
               14: "complex64", 15: "complex128", 17: "float8e4m3fn",
               18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz"}
RTOL, ATOL = 1e-3, 1e-7
# bf16 results are compared as values to within one bf16 ulp: onnx 1.12's data truncates
# float -> bfloat16 where the spec now rounds to nearest even.
BF16_RTOL = 2.0 ** -7


def classify(test_dir: Path, expanded: bool):
    """(status, reason, ops): status None when the test runs, else 'UNSUPPORTED' or 'SKIP'
    (ops outside the list: not counted at all)."""
    import onnx
    model = onnx.load(str(test_dir / "model.onnx"))
    ops = [(n.domain, n.op_type) for n in model.graph.node]
    names = sorted({t for _, t in ops})
    if not ops or any(d not in ("", "ai.onnx") or t not in SUPPORTED_OPS for d, t in ops):
        return "SKIP", "ops " + ",".join(names), names
    if len(ops) > 1 and not expanded:
        return "SKIP", "several nodes", names
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
    if opset is not None and not OPSETS[0] <= opset <= OPSETS[1]:
        return "UNSUPPORTED", f"opset {opset} (the importer takes {OPSETS[0]} to {OPSETS[1]})", names
    for vi in list(model.graph.input) + list(model.graph.output):
        kind = vi.type.WhichOneof("value")
        if kind != "tensor_type":
            return "UNSUPPORTED", f"'{vi.name}' is a {kind}", names
        et = vi.type.tensor_type.elem_type
        if et not in _RUNTIME_TYPES:
            return "UNSUPPORTED", f"'{vi.name}' has dtype {_TYPE_NAMES.get(et, et)}", names
    return None, "", names


def _load_pb(path: Path):
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    t.ParseFromString(path.read_bytes())
    return numpy_helper.to_array(t)


def _compare(name, actual, expected, bf16=False):
    import numpy as np
    actual, expected = np.asarray(actual), np.asarray(expected)
    if bf16:
        from decoda.runtime import bf16_to_float32
        if actual.dtype != np.uint16:
            return f"output '{name}': dtype {actual.dtype}, expected bf16 bits (uint16)"
        actual, expected = bf16_to_float32(actual), bf16_to_float32(expected)
        if actual.shape != expected.shape:
            return f"output '{name}': shape {list(actual.shape)}, expected {list(expected.shape)}"
        if not np.allclose(actual, expected, rtol=BF16_RTOL, atol=0.0, equal_nan=True):
            return f"output '{name}': bf16 values differ by more than one ulp"
        return None
    if actual.shape != expected.shape:
        return f"output '{name}': shape {list(actual.shape)}, expected {list(expected.shape)}"
    if actual.dtype != expected.dtype:
        return f"output '{name}': dtype {actual.dtype}, expected {expected.dtype}"
    if expected.dtype.kind in "biu":
        if not np.array_equal(actual, expected):
            return f"output '{name}': {int(np.sum(actual != expected))} elements differ"
        return None
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    if not np.allclose(a, e, rtol=RTOL, atol=ATOL, equal_nan=True):
        err = np.abs(a - e)
        err[np.isnan(err)] = np.inf
        return f"output '{name}': max abs error {float(np.max(err)):.3g}"
    return None


def run_one(test_dir: Path, workdir: Path, timeout: int) -> dict:
    """Compiles and runs one test (in this process); returns {'status', 'detail'}."""
    import onnx

    from decoda import runtime
    from decoda.compiler import bin_dir, onnx_entry_name

    model = onnx.load(str(test_dir / "model.onnx"))
    inits = {t.name for t in model.graph.initializer}
    in_names = [i.name for i in model.graph.input if i.name not in inits]
    out_names = [o.name for o in model.graph.output]
    out_bf16 = [o.type.tensor_type.elem_type == _BF16 for o in model.graph.output]
    so = workdir / f"{test_dir.name}.so"
    try:
        proc = subprocess.run([str(bin_dir() / "decoda-compile"), str(test_dir / "model.onnx"),
                               "-o", str(so)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "FAIL", "detail": f"decoda-compile timed out after {timeout} s"}
    if proc.returncode != 0:
        msg = " | ".join(proc.stderr.strip().splitlines()[:3])
        return {"status": "FAIL", "detail": f"decoda-compile: {msg}"}
    m = runtime.load(str(so))
    if "main" not in m.entries:
        return {"status": "FAIL", "detail": f"no entry 'main' ({', '.join(m.entries)})"}
    sig = m.signature("main")
    want = [onnx_entry_name(n) for n in in_names], [onnx_entry_name(n) for n in out_names]
    got = [t.name for t in sig.inputs], [t.name for t in sig.outputs]
    if got != want:
        return {"status": "FAIL", "detail": f"signature {got}, expected {want}"}
    sets = sorted(test_dir.glob("test_data_set_*"))
    for ds in sets:
        ins = [_load_pb(ds / f"input_{i}.pb") for i in range(len(in_names))]
        exp = [_load_pb(ds / f"output_{i}.pb") for i in range(len(out_names))]
        try:
            outs = m.run("main", *ins)
        except runtime.DecodaError as exc:
            return {"status": "FAIL", "detail": f"{ds.name}: runtime: {exc}"}
        if not isinstance(outs, tuple):
            outs = (outs,)
        for n, a, e, bf in zip(out_names, outs, exp, out_bf16):
            bad = _compare(n, a, e, bf)
            if bad:
                return {"status": "FAIL", "detail": f"{ds.name}: {bad}"}
    return {"status": "PASS", "detail": f"{len(sets)} data set(s)"}


def _child(test_dir: Path, workdir: Path, timeout: int, py: str) -> dict:
    cmd = [py, str(Path(__file__).resolve()), "--one", str(test_dir), "--workdir", str(workdir),
           "--timeout", str(timeout)]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(PYTHON_DIR) + (os.pathsep + env["PYTHONPATH"]
                                           if env.get("PYTHONPATH") else "")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=2 * timeout + 60,
                              env=env)
    except subprocess.TimeoutExpired:
        return {"status": "FAIL", "detail": "timed out"}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("@@RESULT "):
            return json.loads(line[9:])
    tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
    return {"status": "FAIL", "detail": f"crashed (exit {proc.returncode}): {tail}"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=DEFAULT_DATA, help="the node tests' directory")
    p.add_argument("--filter", help="only tests whose name matches this regular expression")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=int, default=300, help="seconds per compile")
    p.add_argument("--expanded", action="store_true",
                   help="also multi-node tests whose ops are all supported")
    p.add_argument("--quiet", action="store_true", help="print only failures and the summary")
    p.add_argument("--workdir", help="keep the compiled libraries here")
    p.add_argument("--one", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.one:
        work = Path(args.workdir or tempfile.mkdtemp(prefix="decoda-node-"))
        work.mkdir(parents=True, exist_ok=True)
        try:
            result = run_one(Path(args.one), work, args.timeout)
        except Exception as exc:  # noqa: BLE001 - reported as the test's failure
            result = {"status": "FAIL", "detail": f"{type(exc).__name__}: {exc}"}
        print("@@RESULT " + json.dumps(result))
        return 0

    data = Path(args.data)
    if not data.is_dir():
        print(f"no ONNX node tests at {data} (Debian package libonnx-testdata)")
        return 2
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="decoda-node-"))
    work.mkdir(parents=True, exist_ok=True)
    tests = sorted(d for d in data.iterdir() if (d / "model.onnx").is_file())
    if args.filter:
        tests = [d for d in tests if re.search(args.filter, d.name)]

    runnable, results = [], {}
    for d in tests:
        status, reason, _ = classify(d, args.expanded)
        if status is None:
            runnable.append(d)
        elif status == "UNSUPPORTED":
            results[d.name] = {"status": "UNSUPPORTED", "detail": reason}

    t0 = time.perf_counter()

    def job(d):
        r = _child(d, work, args.timeout, sys.executable)
        if not args.quiet or r["status"] == "FAIL":
            print(f"{r['status']} {d.name}: {r['detail']}", flush=True)
        return d.name, r

    if not args.quiet:
        for name, r in sorted(results.items()):
            print(f"UNSUPPORTED {name}: {r['detail']}", flush=True)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name, r in pool.map(job, runnable):
            results[name] = r
    if not args.workdir:
        import shutil
        shutil.rmtree(work, ignore_errors=True)

    passed = sum(r["status"] == "PASS" for r in results.values())
    failed = sum(r["status"] == "FAIL" for r in results.values())
    unsupported = sum(r["status"] == "UNSUPPORTED" for r in results.values())
    kind = "supported-op node tests" + (" (with expanded)" if args.expanded else "")
    print(f"{passed} of {len(runnable)} {kind} pass ({failed} fail; {unsupported} more are "
          f"outside the importer's opsets or use types the runtime does not carry; "
          f"{time.perf_counter() - t0:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
