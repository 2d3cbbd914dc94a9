"""Runs a CUDA model's kernels on the PTX interpreter (ptxsim.py) and compares the result with
NumPy: the numerical check of generated kernels on a machine without a GPU.

  gpusim_run.py DUMP_DIR KERNELS.ptx --inputs in.npz --expect out.npz [--rtol R --atol A]

DUMP_DIR is decoda-compile --target=cuda --dump-ir-after-each=DIR of the model; the host
function is read from the IR before decoda-lower-runtime-checks (after decoda-gpu-device-buffers,
lower-affine, canonicalize and CSE), where its code is gpu.alloc/memcpy/dealloc, memref views,
index arithmetic and gpu.launch_func; KERNELS.ptx is --emit=ptx of the same model. The host
function runs here with its buffers in the interpreter's memory and every launch on the
interpreter; the first public function is run, its results compared with `--expect` (arrays
named out0, out1, ...). Inputs are the .npz arrays in argument order (arg0, arg1, ...).
Prints each kernel's instruction mix and `ok` or the worst mismatch.
"""
import argparse
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptxsim  # noqa: E402

DT = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16, "i32": np.int32, "i64": np.int64,
      "i8": np.int8, "index": np.int64, "i1": np.bool_}


def memref_type(t):
    m = re.match(r"memref<(.*)>", t.strip())
    if not m:
        raise SystemExit(f"not a memref type: {t}")
    body = m.group(1)
    # memref<1x?x256xbf16> or memref<4xf32, #gpu...>: shape dims then element type.
    body = body.split(",")[0]
    parts = body.split("x")
    return [(-1 if d == "?" else int(d)) for d in parts[:-1]], parts[-1]


class MemRef:
    def __init__(self, base, offset, shape, strides, el):
        self.base, self.offset, self.shape, self.strides, self.el = base, offset, list(shape), list(strides), el

    def params(self):
        return [self.base, self.base, self.offset] + self.shape + self.strides


def row_major(shape):
    return [int(np.prod(shape[i + 1:])) for i in range(len(shape))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("ptx")
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-3)
    args = ap.parse_args()

    files = sorted(os.listdir(args.dump))
    idx = next(i for i, f in enumerate(files) if f.endswith("-decoda-lower-runtime-checks.mlir"))
    host_ir = open(os.path.join(args.dump, files[idx - 1])).read()
    ptx = open(args.ptx).read()
    modules = {}
    for m in re.finditer(r"^// gpu.binary @(\S+)\n(.*?)(?=^// gpu.binary @|\Z)", ptx, flags=re.M | re.S):
        modules[m.group(1)] = m.group(2)

    fm = re.search(r"func\.func @(\w+)\((.*?)\)( -> .*?)? \{\n(.*?)\n  \}\n", host_ir, flags=re.S)
    if not fm:
        raise SystemExit("no host function found")
    fname, sig, body = fm.group(1), fm.group(2), fm.group(4)
    mem = ptxsim.Memory()
    env = {}
    inputs = np.load(args.inputs)
    arg_types = re.findall(r"(%arg\d+): (memref<[^>]*>|index|i\d+|f\d+)", sig)
    for i, (name, ty) in enumerate(arg_types):
        a = inputs[f"arg{i}"]
        shape, el = memref_type(ty)
        a = np.ascontiguousarray(a.astype(DT[el]) if el != "bf16" else a.astype(np.uint16))
        base = mem.alloc(a)
        env[name] = MemRef(base, 0, a.shape, row_major(a.shape), el)

    def val(tok):
        tok = tok.strip()
        if tok not in env:
            raise SystemExit(f"unknown value {tok}")
        return env[tok]

    results = []
    launches = 0
    stats_all = {}
    for line in body.split("\n"):
        line = line.strip()
        if not line or line.startswith("//"):
            continue
        lhs, _, rhs = line.partition(" = ") if re.match(r"^%[\w#:, %]+ = ", line) else ("", "", line)
        names = [n.strip() for n in lhs.split(",")] if lhs else []
        op = re.match(r"[\w.]+", rhs).group(0)
        if op == "arith.constant":
            m = re.match(r"arith\.constant (-?\d+)(?: : \w+)?$", rhs)
            if m:
                env[names[0]] = int(m.group(1))
            elif "true" in rhs or "false" in rhs:
                env[names[0]] = "true" in rhs
            else:
                env[names[0]] = None  # float or vector constants: host code does not use them
        elif op in ("arith.addi", "arith.subi", "arith.muli", "arith.divui", "arith.divsi", "arith.remui",
                    "arith.remsi", "arith.ceildivui", "arith.ceildivsi", "arith.floordivsi", "arith.minui",
                    "arith.maxui", "arith.minsi", "arith.maxsi", "arith.andi", "arith.ori"):
            a, b = [val(x) for x in re.match(r"\S+ ([^,]+), ([^ :]+)", rhs).groups()]
            f = {"arith.addi": lambda: a + b, "arith.subi": lambda: a - b, "arith.muli": lambda: a * b,
                 "arith.divui": lambda: a // b, "arith.divsi": lambda: int(a / b), "arith.remui": lambda: a % b,
                 "arith.remsi": lambda: a - int(a / b) * b, "arith.ceildivui": lambda: -(-a // b),
                 "arith.ceildivsi": lambda: -(-a // b), "arith.floordivsi": lambda: a // b,
                 "arith.minui": lambda: min(a, b), "arith.maxui": lambda: max(a, b), "arith.minsi": lambda: min(a, b),
                 "arith.maxsi": lambda: max(a, b), "arith.andi": lambda: a & b, "arith.ori": lambda: a | b}[op]
            env[names[0]] = f()
        elif op == "arith.cmpi":
            pred, a, b = re.match(r"arith\.cmpi (\w+), ([^,]+), ([^ :]+)", rhs).groups()
            a, b = val(a), val(b)
            env[names[0]] = {"eq": a == b, "ne": a != b, "slt": a < b, "sle": a <= b, "sgt": a > b, "sge": a >= b,
                             "ult": a < b, "ule": a <= b, "ugt": a > b, "uge": a >= b}[pred]
        elif op == "arith.select":
            c, a, b = re.match(r"arith\.select ([^,]+), ([^,]+), ([^ :]+)", rhs).groups()
            env[names[0]] = val(a) if val(c) else val(b)
        elif op == "arith.index_cast":
            env[names[0]] = val(re.match(r"arith\.index_cast (\S+)", rhs).group(1))
        elif op == "memref.dim":
            src, d = re.match(r"memref\.dim ([^,]+), ([^ :]+)", rhs).groups()
            env[names[0]] = val(src).shape[val(d)]
        elif op in ("memref.collapse_shape", "memref.expand_shape"):
            src = val(re.match(r"\S+ (%[\w#]+)", rhs).group(1))
            out_ty = rhs.rsplit(" into ", 1)[1]
            shape, el = memref_type(out_ty)
            if op == "memref.collapse_shape":
                groups = [[int(x) for x in g.split(",")] for g in re.findall(r"\[([\d, ]+)\]", rhs.split(" : ")[0])]
                shape = [int(np.prod([src.shape[i] for i in g])) for g in groups]
            else:
                om = re.search(r"output_shape \[([^\]]*)\]", rhs)
                shape = [int(x) if re.match(r"-?\d+$", x.strip()) else val(x) for x in om.group(1).split(",")]
            env[names[0]] = MemRef(src.base, src.offset, shape, row_major(shape), el)
        elif op in ("memref.alloc", "gpu.alloc"):
            dyn = re.search(r"\(([^)]*)\)", rhs.split(":")[0].split("async")[-1])
            dims = [val(x) for x in dyn.group(1).split(",")] if dyn and dyn.group(1).strip() else []
            shape, el = memref_type(rhs.split(" : ")[-1])
            it = iter(dims)
            shape = [next(it) if d < 0 else d for d in shape]
            a = np.full(shape, 0x7FC0 if el == "bf16" else np.nan, dtype=DT[el]) if el in ("f32", "f16", "bf16") \
                else np.zeros(shape, dtype=DT[el])
            env[names[0]] = MemRef(mem.alloc(a), 0, shape, row_major(shape), el)
            if len(names) > 1:
                env[names[1]] = None
        elif op == "gpu.memcpy":
            dst, src = re.search(r"\] ([^,]+), ([^ :]+) :", rhs).groups()
            d, s = val(dst), val(src)
            nbytes = int(np.prod(s.shape)) * np.dtype(DT[s.el]).itemsize
            i_s, i_d = mem.bases.index(s.base), mem.bases.index(d.base)
            mem.arrays[i_d][:nbytes] = mem.arrays[i_s][:nbytes]
            env[names[0]] = None
        elif op in ("gpu.wait", "gpu.dealloc"):
            if names:
                env[names[0]] = None
        elif op == "gpu.launch_func":
            m = re.search(r"@(\w+)::@(\w+) blocks in \(([^)]*)\) threads in \(([^)]*)\)(?:.*?args\((.*)\))?", rhs)
            mod, entry = m.group(1), m.group(2)
            grid = [val(x) for x in m.group(3).split(",")]
            block = [val(x) for x in m.group(4).split(",")]
            flat = []
            for a in re.findall(r"(%[\w#]+) : ", m.group(5) or ""):
                v = val(a)
                flat += v.params() if isinstance(v, MemRef) else [int(v)]
            kernel = ptxsim.Kernel(modules[mod], entry)
            if len(flat) != len(kernel.params):
                raise SystemExit(f"{mod}: {len(flat)} argument words for {len(kernel.params)} parameters")
            params = {n: int(v & ((1 << 64) - 1)).to_bytes(8, "little") for (n, _), v in zip(kernel.params, flat)}
            stats = {}
            if min(grid) > 0:
                ptxsim.run(kernel, mem, grid, block, params, stats)
            launches += 1
            print(f"launch {mod}: grid {grid} block {block} shared {kernel.shared_size} bytes; "
                  + ", ".join(f"{k} {v}" for k, v in sorted(stats.items()) if k in ("mma", "ldmatrix", "cp", "bar", "shfl")))
            for k, v in stats.items():
                stats_all[k] = stats_all.get(k, 0) + v
            if names:
                env[names[0]] = None
        elif op == "return" or op == "func.return":
            results = [val(x) for x in re.match(r"return ([^:]*)", rhs).group(1).split(",") if x.strip()]
        elif op == "builtin.unrealized_conversion_cast" or op.startswith("llvm."):
            raise SystemExit(f"host op {op} (constants) is not supported by this driver; pass weights as arguments")
        else:
            raise SystemExit(f"host op {op} not supported: {line}")

    expect = np.load(args.expect)
    status = 0
    for i, r in enumerate(results):
        got = mem.view(r.base, DT[r.el], r.shape) if r.offset == 0 else None
        want = expect[f"out{i}"]
        if r.el == "bf16":
            got = (got.astype(np.uint32) << 16).view(np.float32)
            want = (want.astype(np.uint32) << 16).view(np.float32) if want.dtype == np.uint16 else want
        got = got.astype(np.float64)
        want = want.astype(np.float64)
        err = np.abs(got - want)
        bad = err > args.atol + args.rtol * np.abs(want)
        if bad.any() or np.isnan(got).any():
            j = np.unravel_index(np.argmax(np.where(np.isnan(got), np.inf, err)), got.shape)
            print(f"out{i}: MISMATCH at {j}: got {got[j]} want {want[j]} ({int(bad.sum())} of {bad.size} elements)")
            status = 1
        else:
            print(f"out{i}: ok ({got.size} elements, max abs error {err.max():.3g})")
    print(f"{launches} launches")
    sys.exit(status)


if __name__ == "__main__":
    main()
