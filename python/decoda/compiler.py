"""Drive ``decoda-compile`` from Python: compile ``.mlir`` text or files, or ``.onnx`` files, to
loadable models.

The tools are found through ``DECODA_BIN_DIR`` (set by the test suite), else ``build/bin`` next
to this package's checkout.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import Optional, Sequence


class CompileError(RuntimeError):
    """decoda-compile rejected the input; the message is its diagnostics."""


def bin_dir() -> Path:
    env = os.environ.get("DECODA_BIN_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "build" / "bin"


def compile_file(source: os.PathLike, output: os.PathLike, flags: Sequence[str] = ()) -> Path:
    """``decoda-compile source -o output flags...``; returns ``output``."""
    tool = bin_dir() / "decoda-compile"
    try:
        proc = subprocess.run([str(tool), str(source), "-o", str(output), *flags],
                              capture_output=True, text=True)
    except OSError as exc:  # missing, not executable, or being relinked
        raise CompileError(f"cannot run {tool}: {exc}; build it (ninja -C build decoda-compile) "
                           "or point DECODA_BIN_DIR at the tools") from exc
    if proc.returncode != 0:
        raise CompileError(f"decoda-compile {source} failed ({proc.returncode}):\n{proc.stderr}")
    return Path(output)


def compile_mlir(text: str, name: str = "model", flags: Sequence[str] = (),
                 workdir: Optional[os.PathLike] = None) -> Path:
    """Compiles MLIR text to ``<workdir>/<name>.so`` (a fresh temporary directory by default)."""
    work = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="decoda-"))
    work.mkdir(parents=True, exist_ok=True)
    src = work / f"{name}.mlir"
    src.write_text(text)
    return compile_file(src, work / f"{name}.so", flags)


def compile_onnx(model: os.PathLike, output: Optional[os.PathLike] = None,
                 flags: Sequence[str] = ()) -> Path:
    """``decoda-compile model.onnx -o output``; ``output`` defaults to ``model`` with ``.so``.

    The compiled model has one entry, ``main``, whose inputs and outputs are the ONNX graph's
    inputs and outputs in graph order, named by :func:`onnx_entry_name`."""
    model = Path(model)
    return compile_file(model, Path(output) if output else model.with_suffix(".so"), flags)


def onnx_entry_name(name: str) -> str:
    """The runtime name of an ONNX graph input/output: every character outside
    ``[A-Za-z0-9_.-]`` becomes ``_``."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "_.-") else "_" for c in name)
