"""Drive ``decoda-compile`` from Python: compile ``.mlir`` text or files to loadable models.

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
    proc = subprocess.run([str(tool), str(source), "-o", str(output), *flags],
                          capture_output=True, text=True)
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
