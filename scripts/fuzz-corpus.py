#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/) from the test models into OUT/<target>/.

    /usr/bin/python3 scripts/fuzz-corpus.py OUT

onnx     every model of python/decoda/onnx_models.py (the ONNX test models) and the small
         PyTorch exports of test/Frontend/ONNX/models
mlir     every test/**/*.mlir file, split at `// -----` like the lit tests' --split-input-file
npy      the .npz input sets of the ONNX test models (stored members), a compressed copy of
         some, and one .npy per element type decoda-run reads (versions 1, 2 and 3)
runtime  the decoda_signature texts of the runtime tests' hand-written models
"""
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))


def onnx_seeds(out: Path):
    subprocess.run([sys.executable, "-m", "decoda.onnx_models", "--out", str(out.resolve()),
                    "--inputs"], check=True, cwd=ROOT / "python", stdout=subprocess.DEVNULL)
    for f in (ROOT / "test/Frontend/ONNX/models").glob("*.onnx"):
        if f.stat().st_size <= 4096:
            (out / f.name).write_bytes(f.read_bytes())
    # The input sets go to the npy corpus; keep models of at most 64 KiB (fast executions).
    npz = sorted(out.glob("*.npz"))
    for f in out.glob("*.onnx"):
        if f.stat().st_size > 65536:
            f.unlink()
    return npz


def npy_seeds(out: Path, npz_files):
    for f in npz_files[:200]:
        f.rename(out / f.name)
    for f in list(out.glob("*.npz"))[:20]:
        with zipfile.ZipFile(f) as src, zipfile.ZipFile(out / ("deflate." + f.name), "w",
                                                        zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                dst.writestr(info.filename, src.read(info))
    rng = np.random.default_rng(0)
    for dtype in ["<f4", "<f2", "<f8", "|i1", "<i4", "<i8", "|b1", "<u2"]:
        a = (rng.standard_normal((2, 3)) * 4).astype(dtype)
        name = dtype.strip("<|")
        np.save(out / f"{name}.npy", a)
        for version in [(2, 0), (3, 0)]:
            with open(out / f"{name}.v{version[0]}.npy", "wb") as fh:
                np.lib.format.write_array(fh, a, version=version)
    np.save(out / "scalar.npy", np.float32(1.5))
    np.save(out / "empty.npy", np.zeros((0, 4), np.float32))
    np.savez(out / "two.npz", x=np.ones((2, 2), np.float32), ids=np.arange(3))
    np.savez_compressed(out / "two.compressed.npz", x=np.ones((2, 2), np.float32))


def mlir_seeds(out: Path):
    for f in sorted(ROOT.glob("test/**/*.mlir")):
        for i, part in enumerate(re.split(r"^// -----\s*$", f.read_text(), flags=re.M)):
            text = "\n".join(l for l in part.splitlines() if not l.lstrip().startswith("//"))
            if text.strip():
                (out / f"{f.stem}.{i}.mlir").write_text(text + "\n")


def runtime_seeds(out: Path):
    for f in sorted((ROOT / "test/Runtime/Inputs").glob("*.c")):
        text = f.read_text()
        for i, m in enumerate(re.finditer(r"decoda_signature\[\]\s*=\s*((?:\s*\"[^\"]*\")+)", text)):
            sig = "".join(re.findall(r"\"([^\"]*)\"", m.group(1)))
            sig = sig.encode().decode("unicode_escape")
            (out / f"{f.stem}.{i}.txt").write_text(sig)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    dirs = {t: out / t for t in ["onnx", "mlir", "npy", "runtime"]}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    npz = onnx_seeds(dirs["onnx"])
    npy_seeds(dirs["npy"], npz)
    mlir_seeds(dirs["mlir"])
    runtime_seeds(dirs["runtime"])
    for t, d in dirs.items():
        files = list(d.iterdir())
        print(f"{t}: {len(files)} seeds, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()
