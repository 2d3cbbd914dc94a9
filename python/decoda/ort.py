"""ONNX Runtime as the oracle of Decoda's ONNX tests and benchmarks, through Node.js.

ONNX Runtime comes as the npm package ``onnxruntime-node`` (CPU), installed by
``scripts/setup.sh`` into ``tools/ort/node_modules``; ``python/decoda/ort_run.js`` serves it to
this module over a pipe, with tensors passed as raw little-endian files in a temporary
directory::

    from decoda.ort import run_ort, bench_ort, OrtSession
    outs = run_ort("model.onnx", {"x": x})              # {"y": array, ...} in graph order
    median_s = bench_ort("model.onnx", {"x": x}, threads=2, iters=20)
    with OrtSession("model.onnx") as s:                  # one Node process, many runs
        a = s.run({"x": x}); b = s.run({"x": x2})

Supported dtypes: float32, float16, float64, int64, int32, int16, int8, uint8, uint16, bool.
``node`` is found through ``DECODA_NODE`` else ``PATH``; the ``node_modules`` directory through
``DECODA_ORT_NODE_MODULES`` else ``tools/ort/node_modules`` of this checkout. Either missing
raises :class:`OrtUnavailable` saying how to install it.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Mapping, Optional

import numpy as np

__all__ = ["run_ort", "bench_ort", "OrtSession", "OrtError", "OrtUnavailable", "node_modules",
           "available"]

_HERE = Path(__file__).resolve().parent
_SCRIPT = _HERE / "ort_run.js"
_REPO = _HERE.parents[1]

# NumPy dtype name <-> ONNX Runtime (JavaScript) tensor type.
_ORT_OF = {"float32": "float32", "float16": "float16", "float64": "float64", "int64": "int64",
           "int32": "int32", "int16": "int16", "int8": "int8", "uint8": "uint8",
           "uint16": "uint16", "bool": "bool"}
_NUMPY_OF = {v: k for k, v in _ORT_OF.items()}


class OrtError(RuntimeError):
    """ONNX Runtime rejected the model or failed to run it; the message is its own."""


class OrtUnavailable(OrtError):
    """``node`` or ``onnxruntime-node`` is not installed."""


def node_modules() -> Path:
    """The ``node_modules`` directory that holds ``onnxruntime-node``."""
    env = os.environ.get("DECODA_ORT_NODE_MODULES")
    return Path(env) if env else _REPO / "tools" / "ort" / "node_modules"


def _node() -> str:
    node = os.environ.get("DECODA_NODE") or shutil.which("node")
    if not node:
        raise OrtUnavailable("Node.js ('node') is not on PATH; ONNX Runtime runs through "
                             "onnxruntime-node. Run scripts/setup.sh (or set DECODA_NODE).")
    if not (os.path.isfile(node) and os.access(node, os.X_OK)):
        raise OrtUnavailable(f"DECODA_NODE='{node}' is not an executable file")
    if not (node_modules() / "onnxruntime-node").is_dir():
        raise OrtUnavailable(
            f"onnxruntime-node is not installed in {node_modules()}; run scripts/setup.sh, or "
            "'cd tools/ort && ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip "
            "npm ci' (or set DECODA_ORT_NODE_MODULES)")
    return node


def available() -> bool:
    """Whether node and onnxruntime-node are both there."""
    try:
        _node()
        return True
    except OrtUnavailable:
        return False


class OrtSession:
    """One ONNX Runtime inference session in a private Node.js process.

    ``optimization`` is ONNX Runtime's graph optimisation level: ``"all"`` (its default, as users
    run it), ``"extended"``, ``"basic"`` or ``"disabled"``. ``threads`` is the intra-op thread
    count (inter-op is 1, execution sequential).
    """

    def __init__(self, model_path: os.PathLike, threads: int = 1, optimization: str = "all"):
        node = _node()
        self._tmp = Path(tempfile.mkdtemp(prefix="decoda-ort-"))
        env = dict(os.environ, DECODA_ORT_NODE_MODULES=str(node_modules()))
        self._proc = subprocess.Popen([node, str(_SCRIPT)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      env=env)
        self.model_path = os.fspath(model_path)
        try:
            r = self._request({"cmd": "load", "model": os.path.abspath(self.model_path),
                               "threads": int(threads), "optimization": optimization})
        except BaseException:
            self.close()
            raise
        self._id = r["session"]
        self.input_names: List[str] = r["inputs"]
        self.output_names: List[str] = r["outputs"]

    def _request(self, req: dict) -> dict:
        if self._proc is None:
            raise OrtError("the ONNX Runtime session is closed")
        try:
            self._proc.stdin.write(json.dumps(req) + "\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            pass
        while True:
            line = self._proc.stdout.readline()
            if not line:
                err = self._proc.stderr.read() if self._proc.stderr else ""
                raise OrtError(f"ONNX Runtime (node {_SCRIPT.name}) exited: {err.strip()}")
            if line.startswith("@@ORT "):
                break
        r = json.loads(line[6:])
        if not r.get("ok"):
            raise OrtError(f"ONNX Runtime on {self.model_path}: {r.get('error')}")
        return r

    def _write_inputs(self, inputs: Mapping[str, np.ndarray]) -> List[dict]:
        for f in self._tmp.iterdir():
            f.unlink()
        specs = []
        for i, (name, value) in enumerate(inputs.items()):
            a = np.asarray(value)
            dtype = _ORT_OF.get(a.dtype.name)
            if dtype is None:
                raise OrtError(f"input '{name}': NumPy dtype {a.dtype} is not supported")
            a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
            file = f"in_{i}.bin"
            a.tofile(self._tmp / file)
            specs.append({"name": name, "dtype": dtype, "shape": list(a.shape), "file": file})
        return specs

    def run(self, inputs: Mapping[str, np.ndarray]) -> Dict[str, np.ndarray]:
        """Runs the model; returns its outputs by name, in graph order."""
        r = self._request({"cmd": "run", "session": self._id, "dir": str(self._tmp),
                           "inputs": self._write_inputs(inputs)})
        outs = {}
        for o in r["outputs"]:
            dt = np.dtype(_NUMPY_OF[o["dtype"]]).newbyteorder("<")
            a = np.fromfile(self._tmp / o["file"], dtype=dt).reshape(o["shape"])
            outs[o["name"]] = a.astype(a.dtype.newbyteorder("="))
        return outs

    def bench(self, inputs: Mapping[str, np.ndarray], iters: int = 10,
              warmup: int = 2) -> List[float]:
        """Seconds per run for ``iters`` timed runs after ``warmup`` untimed ones."""
        r = self._request({"cmd": "bench", "session": self._id, "dir": str(self._tmp),
                           "inputs": self._write_inputs(inputs), "iters": int(iters),
                           "warmup": int(warmup)})
        return r["times"]

    def close(self) -> None:
        if self._proc is not None:
            proc, self._proc = self._proc, None
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            for stream in (proc.stdout, proc.stderr):
                if stream:
                    stream.close()
        if self._tmp is not None and self._tmp.exists():
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def run_ort(model_path: os.PathLike, inputs: Mapping[str, np.ndarray], threads: int = 1,
            optimization: str = "all") -> Dict[str, np.ndarray]:
    """Runs ``model_path`` under ONNX Runtime (CPU) on ``inputs`` (by graph input name);
    returns the outputs by name, in graph order."""
    with OrtSession(model_path, threads=threads, optimization=optimization) as s:
        return s.run(inputs)


def bench_ort(model_path: os.PathLike, inputs: Mapping[str, np.ndarray], threads: int = 1,
              iters: int = 10, warmup: int = 2, optimization: str = "all") -> float:
    """Median seconds per run of ``model_path`` under ONNX Runtime with graph optimisations on
    (``all``), ``threads`` intra-op threads, after ``warmup`` untimed runs."""
    with OrtSession(model_path, threads=threads, optimization=optimization) as s:
        return statistics.median(s.bench(inputs, iters=iters, warmup=warmup))


def _main(argv: Optional[List[str]] = None) -> int:
    """``python -m decoda.ort MODEL.onnx [NAME=FILE.npy ...]``: prints the outputs' shapes."""
    import argparse
    p = argparse.ArgumentParser(description=_main.__doc__)
    p.add_argument("model")
    p.add_argument("inputs", nargs="*", help="NAME=FILE.npy")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--bench", type=int, default=0, help="timed runs (median printed)")
    p.add_argument("--output-dir", help="write each output as NAME.npy")
    args = p.parse_args(argv)
    feeds = {}
    for item in args.inputs:
        name, _, file = item.partition("=")
        feeds[name] = np.load(file)
    with OrtSession(args.model, threads=args.threads) as s:
        outs = s.run(feeds)
        for name, a in outs.items():
            print(f"{name}: {a.dtype} {list(a.shape)}")
            if args.output_dir:
                os.makedirs(args.output_dir, exist_ok=True)
                np.save(os.path.join(args.output_dir, f"{name}.npy"), a)
        if args.bench:
            t = s.bench(feeds, iters=args.bench)
            print(f"median {statistics.median(t) * 1e3:.3f} ms over {len(t)} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
