"""Runs a CUDA model's kernels on the PTX interpreter (ptxsim.py) and compares the result with
NumPy: the numerical check of generated kernels on a machine without a GPU.

  gpusim_run.py DUMP_DIR KERNELS.ptx --inputs in.npz --expect out.npz [--rtol R --atol A]
                [--opt decoda-opt] [--quiet] [--entry FUNC] [--save got.npz]

DUMP_DIR is decoda-compile --target=cuda --dump-ir-after-each=DIR of the model; the host
function is read from the IR before decoda-lower-runtime-checks (after decoda-gpu-device-buffers,
lower-affine, canonicalize and CSE), printed in MLIR's generic form by decoda-opt (found through
--opt, $DECODA_BIN_DIR or PATH). KERNELS.ptx is --emit=ptx of the same model. The host function
is interpreted here -- arith index/integer ops, scf.for/scf.if (with iter_args and results),
cf.assert, memref views (subview, expand/collapse_shape, cast, dim), memref.get_global and the
constants' device copies (llvm.call @decoda_cuda_constant and its descriptor), gpu.alloc/memcpy/
dealloc/wait and gpu.launch_func (with its dynamic shared memory) -- with every launch on the interpreter;
llvm.call @decoda_cuda_tensor_map(base, inner, rows, row_stride_bytes, elem_bytes, box_inner, box_rows,
swizzle_bytes) encodes a TMA tensor map (ptxsim.encode_tensor_map) of device memory at byte address base
into a new 128-byte device buffer and returns its address, as does llvm.call
@decoda_cuda_tensor_map_3d(base, inner, rows, planes, row_stride_bytes, plane_stride_bytes, elem_bytes,
box_inner, box_rows, swizzle_bytes) for a 3-D one (an empty tensor: no map, address 0). Host buffers (arguments,
globals, memref.alloc) and device buffers live in one address space, but a kernel that touches a
host buffer, or a buffer already freed, is an error, as is a gpu.memcpy between buffers of
different sizes. Device buffers start as NaN (bf16: 0x7FC0) so that an element nobody wrote shows.
The first public function (or --entry) is run, its results compared with `--expect` (arrays named out0,
out1, ...; an array argN is compared with what argument N holds after the call: a donated cache written
in place). --device-inputs passes those arguments in device memory, as a caller's device-resident
tensors (llvm.call @decoda_cuda_is_device answers from where a buffer lives); the function must call
decoda_cuda_finish once before its return. Inputs are the .npz arrays in argument order (arg0, arg1, ...; an index argument
takes a 0-d integer array; a float array given for a bf16 argument is rounded to bf16). Prints each launch (grid, block, shared bytes, collective counts)
unless --quiet, then `outN: ok` or the worst mismatch, and the number of launches. A launch of an
empty grid (an extent 0 at run time) is not run and not counted, as the runtime skips it (the driver
would refuse it); the count says how many there were.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "python"))
import ptxsim  # noqa: E402
from decoda.runtime import float32_to_bf16  # noqa: E402

DT = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16, "f64": np.float64, "i32": np.int32,
      "i64": np.int64, "i16": np.int16, "i8": np.int8, "index": np.int64, "i1": np.bool_}
DYN = -9223372036854775808


class HostError(Exception):
    pass


# -- types -----------------------------------------------------------------------------------------

def split_top(s, sep=","):
    """Splits `s` at `sep` outside brackets (<>, (), [], {}; '->' is not a bracket)."""
    out, depth, cur, i = [], 0, "", 0
    while i < len(s):
        ch = s[i]
        if ch == '"':
            j = s.index('"', i + 1)
            cur += s[i:j + 1]
            i = j + 1
            continue
        if ch in "<([{":
            depth += 1
        elif ch in ")]}" or (ch == ">" and not (i > 0 and s[i - 1] == "-")):
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    if cur.strip():
        out.append(cur.strip())
    return out


def memref_type(t):
    """(shape with -1 for '?', element type) of a memref type."""
    m = re.match(r"memref<(.*)>$", t.strip())
    if not m:
        raise HostError(f"not a memref type: {t}")
    body = split_top(m.group(1))[0]
    parts = body.split("x")
    if len(parts) == 1:
        return [], parts[0]
    return [(-1 if d == "?" else int(d)) for d in parts[:-1]], parts[-1]


def row_major(shape):
    return [int(np.prod(shape[i + 1:])) for i in range(len(shape))]


#: The module's affine map aliases (#mapN = affine_map<...>), for attributes that name them.
MAP_ALIASES = {}


class MemRef:
    def __init__(self, base, offset, shape, strides, el):
        self.base, self.offset, self.shape, self.strides, self.el = base, offset, list(shape), list(strides), el

    def params(self):
        return [self.base, self.base, self.offset] + self.shape + self.strides

    def contiguous(self):
        return self.strides == row_major(self.shape)


# -- the generic-form parser -----------------------------------------------------------------------

class Op:
    def __init__(self, results, name, operands, attrs, types, regions):
        self.results, self.name, self.operands, self.attrs = results, name, operands, attrs
        self.in_types, self.out_types = types
        self.regions = regions  # list of list of (block args, ops)

    def attr(self, key):
        m = re.search(r"(?:^|[{<, ])" + re.escape(key) + r"\s*=\s*", self.attrs)
        if not m:
            return None
        rest = self.attrs[m.end():]
        depth, i = 0, 0
        while i < len(rest):
            ch = rest[i]
            if ch == '"':
                i = rest.index('"', i + 1)
            elif ch in "<([{":
                depth += 1
            elif ch in ")]}" or (ch == ">" and rest[i - 1] != "-"):
                depth -= 1
                if depth < 0:
                    break
            elif ch == "," and depth == 0:
                break
            i += 1
        return rest[:i].strip()

    def has_attr(self, key):
        return re.search(r"(?:^|[{<, ])" + re.escape(key) + r"(?:[,}>]| =)", self.attrs) is not None

    def segments(self, n_expected=None):
        seg = self.attr("operandSegmentSizes")
        sizes = [int(x) for x in re.match(r"array<i32(?::\s*(.*))?>", seg).group(1).split(",")]
        out, i = [], 0
        for s in sizes:
            out.append(self.operands[i:i + s])
            i += s
        return out


def parse_functype(t):
    """'(a, b) -> c' or '(a) -> (b, c)' into ([a, b], [c])."""
    t = t.strip()
    depth, i = 0, 0
    for i, ch in enumerate(t):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                break
    ins = split_top(t[1:i])
    rest = t[i + 1:].strip()
    assert rest.startswith("->"), t
    rest = rest[2:].strip()
    outs = split_top(rest[1:-1]) if rest.startswith("(") else [rest]
    return ins, outs


def parse_results(lhs):
    names = []
    for part in lhs.split(","):
        part = part.strip()
        m = re.match(r"(%[\w$.-]+)(?::(\d+))?$", part)
        if m.group(2):
            names += [f"{m.group(1)}#{i}" for i in range(int(m.group(2)))]
        else:
            names.append(m.group(1))
    return names


OP_RE = re.compile(r'^(?:(%[^=]+?)\s*=\s*)?"([\w.]+)"\((.*?)\)(.*)$')


def parse_block(lines, i, indent_close):
    """Ops from lines[i] up to a line starting with '}' (a region end). Returns (blocks, i)."""
    blocks = [([], [])]
    while i < len(lines):
        line = lines[i].strip()
        if not line:
            i += 1
            continue
        if line.startswith("}"):
            return blocks, i
        bm = re.match(r"^\^\w+(?:\((.*)\))?:$", line)
        if bm:
            args = [a.split(":")[0].strip() for a in split_top(bm.group(1) or "")]
            if blocks[-1][1] or blocks[-1][0]:
                blocks.append((args, []))
            else:
                blocks[-1] = (args, [])
            i += 1
            continue
        op, i = parse_op(lines, i)
        blocks[-1][1].append(op)
    return blocks, i


def parse_op(lines, i):
    line = lines[i].strip()
    m = OP_RE.match(line)
    if not m:
        raise HostError(f"cannot parse: {line[:200]}")
    results = parse_results(m.group(1)) if m.group(1) else []
    name = m.group(2)
    operands = [x.strip() for x in m.group(3).split(",") if x.strip()]
    rest = m.group(4).strip()
    if rest.startswith("["):  # successors: not in the host code we run
        raise HostError(f"{name}: branches with successors are not supported")
    attrs = ""
    regions = []
    if rest.endswith("({"):
        attrs = rest[:-2].strip()
        i += 1
        while True:
            blocks, i = parse_block(lines, i, None)
            regions.append(blocks)
            close = lines[i].strip()
            if close == "}, {":
                i += 1
                continue
            if not close.startswith("})"):
                raise HostError(f"unexpected region end: {close[:200]}")
            rest = close[2:].strip()
            break
    # rest: [<{props}>] [{attrs}] : type [loc(...)]
    depth, j = 0, 0
    while j < len(rest):
        ch = rest[j]
        if ch == '"':
            j = rest.index('"', j + 1)
        elif ch in "<([{":
            depth += 1
        elif ch in ")]}" or (ch == ">" and rest[j - 1] != "-"):
            depth -= 1
        elif ch == ":" and depth == 0:
            break
        j += 1
    attrs = (attrs + " " + rest[:j]).strip()
    ty = rest[j + 1:].strip()
    ty = re.sub(r"\s+loc\(.*\)$", "", ty)
    types = parse_functype(ty)
    return Op(results, name, operands, attrs, types, regions), i + 1


def parse_module(text):
    """The top-level ops of a generic-form module: memref.global and func.func (with bodies)."""
    lines = text.split("\n")
    globals_, funcs = {}, []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith('"memref.global"'):
            op, i = parse_op(lines, i)
            globals_[op.attr("sym_name").strip('"')] = op
            continue
        if line.startswith('"func.func"') and line.endswith("({"):
            op, i = parse_op(lines, i)
            funcs.append(op)
            continue
        if line.startswith('"gpu.module"') and line.endswith("({"):
            # Skip the kernels (they run from the PTX): to the matching region end.
            depth = 0
            while True:
                s = lines[i].strip()
                if s.endswith("({") or s == "}, {":
                    depth += 1 if s.endswith("({") else 0
                if s.startswith("})"):
                    depth -= 1
                    if depth == 0:
                        i += 1
                        break
                i += 1
            continue
        i += 1
    return globals_, funcs


# The module's dense_resource blobs (name -> hex data after the 4-byte alignment header), from
# its `{-# dialect_resources: { builtin: { name: "0x..." } } #-}` section.
RESOURCES = {}


def read_resources(text):
    sec = re.search(r"\{-#(.*?)#-\}", text, flags=re.S)
    if sec:
        for name, hexdata in re.findall(r'([\w.$-]+)\s*:\s*"0x([0-9A-Fa-f]*)"', sec.group(1)):
            RESOURCES[name] = hexdata[8:]


def dense_bytes(attr, el, count):
    """The bytes of a dense<"0x..."> attribute of `count` elements of `el` (hex form; a splat has
    one element's bytes), of a decimal one (dense<v> or dense<[v, ...]>: MLIR prints small
    constants so, each value exactly: a bf16 value is an f32 with zero low bits), or of a
    dense_resource<name> (its blob in the module's resource section)."""
    r = re.match(r"dense_resource<([\w.$-]+)>", attr.strip())
    if r:
        if r.group(1) not in RESOURCES:
            raise HostError(f"dense_resource<{r.group(1)}>: no blob in the module's resources")
        attr = f'dense<"0x{RESOURCES[r.group(1)]}">'
    m = re.match(r'dense<"0x([0-9A-Fa-f]*)">', attr.strip())
    if not m:
        d = re.match(r'dense<\[?([^\]<>"]*)\]?>', attr.strip())
        if not d or el not in DT:
            raise HostError(f"global initial value not in hex or decimal form: {attr[:80]}")
        vals = [v.strip() for v in d.group(1).split(",") if v.strip()]
        if el == "bf16":
            arr = (np.array([float(v) for v in vals], np.float32).view(np.uint32) >> 16).astype(np.uint16)
        elif el == "i1":
            arr = np.array([v == "true" for v in vals], np.bool_)
        elif el.startswith("f"):
            arr = np.array([float(v) for v in vals], DT[el])
        else:
            arr = np.array([int(v) for v in vals], DT[el])
        if arr.size == 1 and count != 1:
            arr = np.repeat(arr, count)
        if arr.size != count:
            raise HostError(f"global of {count} x {el}: {arr.size} initial values")
        return arr
    raw = bytes.fromhex(m.group(1))
    if el == "i1" and count > 1 and len(raw) * 8 >= count and len(raw) == (count + 7) // 8:
        # MLIR keeps i1 elements bit-packed (least significant bit first); in memory each is a byte.
        return np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")[:count].astype(np.bool_)
    size = np.dtype(DT[el]).itemsize
    if len(raw) == size and count != 1:
        raw = raw * count
    if len(raw) != size * count:
        raise HostError(f"global of {count} x {el}: {len(raw)} bytes of initial value")
    return np.frombuffer(raw, dtype=DT[el]).copy()


# -- the interpreter -------------------------------------------------------------------------------

def sdiv(a, b):
    if b == 0:
        raise HostError("host division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


INT_BINOPS = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b, "arith.muli": lambda a, b: a * b,
    "arith.divsi": sdiv, "arith.divui": lambda a, b: a // b, "arith.remsi": lambda a, b: a - sdiv(a, b) * b,
    "arith.remui": lambda a, b: a % b, "arith.ceildivsi": lambda a, b: -sdiv(-a, b) if (a % b) else sdiv(a, b),
    "arith.ceildivui": lambda a, b: -(-a // b), "arith.floordivsi": lambda a, b: a // b,
    "arith.minsi": min, "arith.maxsi": max, "arith.minui": min, "arith.maxui": max,
    "arith.andi": lambda a, b: a & b, "arith.ori": lambda a, b: a | b, "arith.xori": lambda a, b: a ^ b,
    "arith.shli": lambda a, b: a << b, "arith.shrui": lambda a, b: a >> b, "arith.shrsi": lambda a, b: a >> b,
}
CMP = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b, 3: lambda a, b: a <= b,
       4: lambda a, b: a > b, 5: lambda a, b: a >= b, 6: lambda a, b: a < b, 7: lambda a, b: a <= b,
       8: lambda a, b: a > b, 9: lambda a, b: a >= b}


class Host:
    def __init__(self, globals_, modules, quiet, shared_fill=0):
        self.mem = ptxsim.Memory()
        self.globals, self.modules, self.quiet = globals_, modules, quiet
        self.shared_fill = shared_fill  # the byte each block's shared memory starts as
        self.kernels = {}
        self.global_bufs = {}
        self.constants = {}  # slot -> device address
        self.launches = 0
        self.empty = 0  # launches of an empty grid, which the runtime skips
        self.tensor_maps = 0  # maps encoded by decoda_cuda_tensor_map and decoda_cuda_tensor_map_3d
        self.finishes = 0  # decoda_cuda_finish calls (one per return)
        self.stats = {}
        self.threads = 0  # threads of every launch (that ran)

    # buffers
    def new_buffer(self, shape, el, device, fill_nan=True):
        if el in ("f32", "f16", "f64") and fill_nan:
            a = np.full(shape, np.nan, dtype=DT[el])
        elif el == "bf16" and fill_nan:
            a = np.full(shape, 0x7FC0, dtype=np.uint16)
        else:
            a = np.zeros(shape, dtype=DT[el])
        return MemRef(self.mem.alloc(a, host=not device), 0, shape, row_major(shape), el)

    def array_view(self, r):
        """A NumPy view of the elements of memref `r`."""
        data = self.mem.buffer(r.base)
        itemsize = np.dtype(DT[r.el]).itemsize
        typed = data.view(DT[r.el])
        if r.offset < 0 or any(s < 0 for s in r.shape):
            raise HostError(f"bad view: offset {r.offset} shape {r.shape}")
        if np.prod(r.shape) == 0:
            return np.zeros(r.shape, DT[r.el])
        last = r.offset + sum((n - 1) * s for n, s in zip(r.shape, r.strides))
        if last >= typed.size:
            raise HostError(f"view of {r.shape} at offset {r.offset} strides {r.strides} past its buffer")
        return np.lib.stride_tricks.as_strided(typed[r.offset:], shape=r.shape,
                                               strides=[s * itemsize for s in r.strides])

    def kernel(self, mod, entry):
        key = (mod, entry)
        if key not in self.kernels:
            if mod not in self.modules:
                raise HostError(f"no PTX for kernel module {mod}")
            self.kernels[key] = ptxsim.Kernel(self.modules[mod], entry)
        return self.kernels[key]

    def run_func(self, fn, args):
        body = fn.regions[0][0]
        env = dict(zip(body[0], args))
        return self.run_block(body[1], env)

    def run_block(self, ops, env):
        for op in ops:
            r = self.step(op, env)
            if r is not None:
                return r
        return None

    def tensor_map(self, fn, base, *shape):
        """The device address of a new 128-byte buffer holding the tensor map (ptxsim's format,
        encode_tensor_map(base, *shape)) of device memory at byte address base; `fn` names the
        support function in errors."""
        bases = self.mem.bases
        i = max((j for j, b in enumerate(bases) if b <= base), key=lambda j: bases[j], default=None)
        if i is None or base >= bases[i] + self.mem.arrays[i].size or self.mem.host[i] or self.mem.freed[i]:
            what = "a host buffer" if i is not None and base < bases[i] + self.mem.arrays[i].size and \
                self.mem.host[i] else "a freed buffer" if i is not None and \
                base < bases[i] + self.mem.arrays[i].size else "no buffer"
            raise HostError(f"{fn}: base {base:#x} is not inside a device buffer ({what})")
        try:
            raw = ptxsim.encode_tensor_map(base, *shape)
        except ptxsim.SimError as e:
            raise HostError(f"{fn}: {e}") from None
        self.tensor_maps += 1
        return self.mem.alloc(np.frombuffer(raw, dtype=np.uint8), host=False)

    def step(self, op, env):
        def v(name):
            if name not in env:
                raise HostError(f"{op.name}: unknown value {name}")
            return env[name]

        def setr(*vals):
            for n, x in zip(op.results, vals):
                env[n] = x

        n = op.name
        ins = [v(x) for x in op.operands]
        if n in ("func.return", "scf.yield"):
            return ("yield", ins)
        if n == "arith.constant" or n == "llvm.mlir.constant":
            a = op.attr("value")
            m = re.match(r"(-?\d+)(?:\s*:\s*\w+)?$", a)
            if m:
                setr(int(m.group(1)))
            elif a in ("true", "false"):
                setr(a == "true")
            else:
                setr(None)  # float/vector constants: no host use
        elif n in INT_BINOPS:
            setr(INT_BINOPS[n](ins[0], ins[1]))
        elif n == "arith.cmpi":
            setr(CMP[int(op.attr("predicate").split(":")[0])](ins[0], ins[1]))
        elif n == "arith.select":
            setr(ins[1] if ins[0] else ins[2])
        elif n in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
                   "llvm.inttoptr", "llvm.ptrtoint", "memref.extract_aligned_pointer_as_index"):
            if n == "memref.extract_aligned_pointer_as_index":
                setr(ins[0].base)
            else:
                setr(ins[0])
        elif n == "llvm.mlir.poison" or n == "llvm.mlir.undef":
            setr([None, None, None, [], []])
        elif n == "llvm.insertvalue":
            st = [x if not isinstance(x, list) else list(x) for x in ins[0]]
            pos = [int(x) for x in re.match(r"array<i64:\s*(.*)>", op.attr("position")).group(1).split(",")]
            if len(pos) == 1:
                st[pos[0]] = ins[1]
            else:
                lst = st[pos[0]]
                while len(lst) <= pos[1]:
                    lst.append(None)
                lst[pos[1]] = ins[1]
            setr(st)
        elif n == "llvm.call" and op.attr("callee") == "@decoda_cuda_is_device":
            setr(0 if self.mem.host[self.mem._index(ins[0])] else 1)
        elif n == "llvm.call" and op.attr("callee") == "@decoda_cuda_finish":
            self.finishes += 1
        elif n == "llvm.call" and op.attr("callee") in ("@decoda_cuda_tensor_map", "@decoda_cuda_tensor_map_3d"):
            # 2-D: (base, inner, rows, row_stride_bytes, elem_bytes, box_inner, box_rows,
            # swizzle_bytes); 3-D: (base, inner, rows, planes, row_stride_bytes,
            # plane_stride_bytes, elem_bytes, box_inner, box_rows, swizzle_bytes): a tiled tensor
            # map of device memory at byte address base, in a new 128-byte device buffer
            # (ptxsim's format); its address is the result.
            fn = op.attr("callee")[1:]
            three = fn.endswith("_3d")
            if len(ins) != (10 if three else 8):
                raise HostError(f"{fn}: {len(ins)} arguments, {10 if three else 8} expected")
            if three:
                base, inner, rows, planes, stride, pstride, eb, box_inner, box_rows, swz = [int(x) for x in ins]
            else:
                base, inner, rows, stride, eb, box_inner, box_rows, swz = [int(x) for x in ins]
                planes, pstride = 1, 0
            if min(inner, rows, planes) <= 0:
                setr(0)  # an empty tensor has no map, as in the support code (CUDATarget.cpp)
            else:
                setr(self.tensor_map(fn, base, eb, inner, rows, stride, box_inner, box_rows, swz, planes, pstride))
        elif n == "llvm.call":
            callee = op.attr("callee")
            if callee != "@decoda_cuda_constant":
                raise HostError(f"llvm.call of {callee} is not supported")
            slot, host, nbytes = ins
            if slot not in self.constants:
                src = self.mem.buffer(host)
                if src.size < nbytes:
                    raise HostError(f"decoda_cuda_constant: {nbytes} bytes from a {src.size}-byte buffer")
                self.constants[slot] = self.mem.alloc(src[:nbytes].copy(), host=False)
            setr(self.constants[slot])
        elif n == "builtin.unrealized_conversion_cast":
            st = ins[0]
            shape, el = memref_type(op.out_types[0])
            if not isinstance(st, list):
                raise HostError("unrealized_conversion_cast of a non-descriptor")
            if st[0] != st[1]:
                raise HostError("descriptor with different allocated and aligned pointers")
            setr(MemRef(st[1], st[2], st[3], st[4], el))
        elif n == "memref.get_global":
            name = op.attr("name").lstrip("@")
            if name not in self.global_bufs:
                g = self.globals[name]
                shape, el = memref_type(g.attr("type"))
                init = g.attr("initial_value")
                data = dense_bytes(init, el, int(np.prod(shape))) if init else np.zeros(int(np.prod(shape)), DT[el])
                base = self.mem.alloc(data.reshape(shape), host=True)
                self.global_bufs[name] = MemRef(base, 0, shape, row_major(shape), el)
            setr(self.global_bufs[name])
        elif n == "memref.load":
            r = ins[0]
            if not self.mem.host[self.mem._index(r.base)]:
                raise HostError("host memref.load of a device buffer")
            setr(self.array_view(r)[tuple(ins[1:])].item())
        elif n == "memref.dim":
            setr(ins[0].shape[ins[1]])
        elif n == "memref.extract_strided_metadata":
            src = ins[0]
            base = MemRef(src.base, 0, [], [], src.el)
            setr(base, src.offset, *src.shape, *src.strides)
        elif n == "memref.cast":
            src = ins[0]
            setr(MemRef(src.base, src.offset, src.shape, src.strides, src.el))
        elif n == "memref.subview":
            src, offs, sizes, strides = op.segments()
            src = v(src[0])
            it = {"o": iter([v(x) for x in offs]), "s": iter([v(x) for x in sizes]), "t": iter([v(x) for x in strides])}

            def mixed(key, it_):
                vals = [int(x) for x in re.match(r"array<i64:\s*(.*)>", op.attr(key)).group(1).split(",")]
                return [next(it_) if x == DYN else x for x in vals]
            o = mixed("static_offsets", it["o"])
            s = mixed("static_sizes", it["s"])
            t = mixed("static_strides", it["t"])
            for d in range(len(o)):
                if o[d] < 0 or s[d] < 0 or o[d] + (s[d] - 1) * t[d] >= src.shape[d] and s[d] > 0:
                    raise HostError(f"memref.subview out of bounds: dim {d} offset {o[d]} size {s[d]} of {src.shape[d]}")
            off = src.offset + sum(a * b for a, b in zip(o, src.strides))
            _, el = memref_type(op.out_types[0])
            shape_out, _ = memref_type(op.out_types[0])
            keep = list(range(len(s)))
            if len(shape_out) != len(s):  # rank-reducing: drop unit dims the result type drops
                keep, k = [], 0
                for d in range(len(s)):
                    if k < len(shape_out) and (shape_out[k] == s[d] or shape_out[k] == -1) and \
                            len(s) - d > len(shape_out) - k - 1 and not (s[d] == 1 and len(s) - d - 1 >= len(shape_out) - k and shape_out[k] != 1):
                        keep.append(d)
                        k += 1
                if len(keep) != len(shape_out):
                    raise HostError(f"memref.subview: cannot match {s} to {shape_out}")
            strides_out = [src.strides[d] * t[d] for d in keep]
            s = [s[d] for d in keep]
            setr(MemRef(src.base, off, s, strides_out, el))
        elif n == "memref.transpose":
            # permutation = affine_map<(d0, d1, ...) -> (d_p0, d_p1, ...)>: result dim i is
            # source dim p_i (a view: shape and strides permuted).
            src = ins[0]
            attr = op.attr("permutation")
            attr = MAP_ALIASES.get(attr, attr)
            m = re.search(r"->\s*\(([^)]*)\)", attr)
            perm = [int(x.strip()[1:]) for x in m.group(1).split(",")]
            _, el = memref_type(op.out_types[0])
            setr(MemRef(src.base, src.offset, [src.shape[p] for p in perm],
                        [src.strides[p] for p in perm], el))
        elif n == "memref.collapse_shape":
            src = ins[0]
            groups = [[int(x) for x in g.split(",")] for g in re.findall(r"\[([\d, ]+)\]", op.attr("reassociation"))]
            shape, strides = [], []
            for g in groups:
                for a, b in zip(g, g[1:]):
                    if src.shape[a] != 1 and src.shape[b] != 1 and src.strides[a] != src.strides[b] * src.shape[b]:
                        raise HostError("memref.collapse_shape of non-contiguous dims")
                shape.append(int(np.prod([src.shape[d] for d in g])))
                strides.append(src.strides[g[-1]])
            _, el = memref_type(op.out_types[0])
            setr(MemRef(src.base, src.offset, shape, strides, el))
        elif n == "memref.expand_shape":
            src = ins[0]
            dyn = iter(ins[1:])
            static = [int(x) for x in re.match(r"array<i64:\s*(.*)>", op.attr("static_output_shape")).group(1).split(",")]
            shape = [next(dyn) if x == DYN else x for x in static]
            groups = [[int(x) for x in g.split(",")] for g in re.findall(r"\[([\d, ]+)\]", op.attr("reassociation"))]
            strides = [0] * len(shape)
            for sd, g in enumerate(groups):
                if int(np.prod([shape[d] for d in g])) != src.shape[sd]:
                    raise HostError(f"memref.expand_shape: {[shape[d] for d in g]} do not make {src.shape[sd]}")
                acc = src.strides[sd]
                for d in reversed(g):
                    strides[d] = acc
                    acc *= shape[d]
            _, el = memref_type(op.out_types[0])
            setr(MemRef(src.base, src.offset, shape, strides, el))
        elif n in ("memref.alloc", "memref.alloca", "gpu.alloc"):
            shape, el = memref_type(op.out_types[0])
            dyn = ins
            if n == "gpu.alloc":
                dyn = [v(x) for x in op.segments()[1]]
            it = iter(dyn)
            shape = [next(it) if d < 0 else d for d in shape]
            setr(self.new_buffer(shape, el, device=(n == "gpu.alloc")), None)
        elif n == "gpu.memcpy":
            deps = op.segments()[0] if op.has_attr("operandSegmentSizes") else []
            dst, src = ins[len(deps):len(deps) + 2] if deps else ins[-2:]
            if dst.shape != src.shape:
                raise HostError(f"gpu.memcpy between shapes {dst.shape} and {src.shape}")
            if not dst.contiguous() or not src.contiguous():
                raise HostError("gpu.memcpy of a non-contiguous view")
            self.array_view(dst)[...] = self.array_view(src)
            setr(None)
        elif n == "gpu.dealloc":
            if self.mem.host[self.mem._index(ins[-1].base)]:
                raise HostError("gpu.dealloc of a host buffer")
            self.mem.free(ins[-1].base)
            setr(None)
        elif n == "memref.dealloc":
            if not self.mem.host[self.mem._index(ins[0].base)]:
                raise HostError("memref.dealloc of a device buffer")
            self.mem.free(ins[0].base, host=True)
        elif n == "gpu.wait":
            setr(None)
        elif n == "cf.assert":
            if not ins[0]:
                raise HostError(f"run-time check failed: {op.attr('msg')}")
        elif n == "scf.for":
            lb, ub, st = ins[:3]
            carried = ins[3:]
            blocks = op.regions[0]
            args, ops = blocks[0]
            i = lb
            while i < ub:
                env2 = env
                env2[args[0]] = i
                for a, x in zip(args[1:], carried):
                    env2[a] = x
                r = self.run_block(ops, env2)
                carried = r[1] if r else []
                i += st
            setr(*carried)
        elif n == "scf.if":
            region = op.regions[0] if ins[0] else (op.regions[1] if len(op.regions) > 1 else None)
            res = []
            if region and region[0][1]:
                r = self.run_block(region[0][1], env)
                res = r[1] if r else []
            setr(*res)
        elif n == "gpu.launch_func":
            self.launch(op, env)
        else:
            raise HostError(f"host op {n} is not supported by this driver")
        return None

    def launch(self, op, env):
        seg = op.segments()
        v = lambda x: env[x]
        grid = [v(seg[1][0]), v(seg[2][0]), v(seg[3][0])]
        block = [v(seg[4][0]), v(seg[5][0]), v(seg[6][0])]
        dyn = int(v(seg[10][0])) if seg[10] else 0
        mod, entry = re.match(r"@([\w$.]+)::@([\w$.]+)", op.attr("kernel")).groups()
        flat = []
        for a in seg[11]:
            x = v(a)
            flat += x.params() if isinstance(x, MemRef) else [int(x)]
        kernel = self.kernel(mod, entry)
        if len(flat) != len(kernel.params):
            raise HostError(f"{mod}: {len(flat)} argument words for {len(kernel.params)} parameters")
        params = {nm: int(x & ((1 << 64) - 1)).to_bytes(8, "little") for (nm, _), x in zip(kernel.params, flat)}
        stats = {}
        if min(grid) > 0:
            try:
                ptxsim.run(kernel, self.mem, grid, block, params, stats, dyn_shared=dyn,
                           shared_fill=self.shared_fill)
            except ptxsim.SimError as e:
                raise ptxsim.SimError(f"kernel {mod}: {e}") from None
        # A grid of no blocks: the runtime returns without launching (the driver refuses one).
        if min(grid) == 0:
            self.empty += 1
            if not self.quiet:
                print(f"empty {mod}: grid {grid}: not launched")
            return
        self.launches += 1
        self.threads += grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2]
        if not self.quiet:
            dyn_s = f" + {dyn} dynamic" if kernel.dyn_name is not None or dyn else ""
            print(f"launch {mod}: grid {grid} block {block} shared {kernel.shared_bytes}{dyn_s} bytes; "
                  + ", ".join(f"{k} {c}" for k, c in sorted(stats.items()) if k in ("mma", "ldmatrix", "cp", "bar", "nbar", "shfl", "wgmma", "mbarrier")))
        for k, c in stats.items():
            self.stats[k] = self.stats.get(k, 0) + c


def find_opt(flag):
    for cand in [flag, os.path.join(os.environ.get("DECODA_BIN_DIR", ""), "decoda-opt"), shutil.which("decoda-opt")]:
        if cand and os.access(cand, os.X_OK):
            return cand
    raise SystemExit("gpusim_run: decoda-opt not found (--opt, $DECODA_BIN_DIR or PATH)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("ptx")
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-3)
    ap.add_argument("--opt", default=None)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--entry", default=None, help="the host function to run (default: the first public one)")
    ap.add_argument("--device-inputs", default="",
                    help="comma-separated argument indices passed in device memory (the caller's "
                         "device-resident tensors), or 'all'; the others are host memory")
    ap.add_argument("--shared-fill", type=lambda x: int(x, 0), default=0,
                    help="the byte every block's shared memory starts as (default 0; 0xff: "
                         "unwritten f16/bf16/f32 reads are NaN, as leftover contents may be)")
    ap.add_argument("--save", default=None,
                    help="also write the outputs as they are (bf16 as its bits) to this .npz, "
                         "e.g. as the --expect of another build of the same model")
    args = ap.parse_args()

    files = sorted(os.listdir(args.dump), key=lambda f: int(f.split("-")[0]) if f.split("-")[0].isdigit() else -1)
    idx = next(i for i, f in enumerate(files) if f.endswith("-decoda-lower-runtime-checks.mlir"))
    host_file = os.path.join(args.dump, files[idx - 1])
    generic = subprocess.run([find_opt(args.opt), host_file, "--mlir-print-op-generic",
                              "--mlir-print-elementsattrs-with-hex-if-larger=0"],
                             capture_output=True, text=True)
    if generic.returncode != 0:
        raise SystemExit(f"gpusim_run: decoda-opt could not read {host_file}:\n{generic.stderr}")
    MAP_ALIASES.update(re.findall(r"^(#map\d*) = (affine_map<.*>)$", generic.stdout, re.M))
    globals_, funcs = parse_module(generic.stdout)
    read_resources(generic.stdout)
    ptx = open(args.ptx).read()
    modules = {}
    for m in re.finditer(r"^// gpu.binary @(\S+)\n(.*?)(?=^// gpu.binary @|\Z)", ptx, flags=re.M | re.S):
        modules[m.group(1)] = m.group(2)
    fn = next((f for f in funcs if '"private"' not in (f.attr("sym_visibility") or "")
               and (args.entry is None or f.attr("sym_name") == f'"{args.entry}"')), None)
    if fn is None:
        raise SystemExit("gpusim_run: no public host function found")
    arg_types, _ = parse_functype(fn.attr("function_type"))

    host = Host(globals_, modules, args.quiet, args.shared_fill)
    inputs = np.load(args.inputs)
    vals = []
    for i, ty in enumerate(arg_types):
        a = inputs[f"arg{i}"]
        if not ty.startswith("memref"):
            vals.append(int(a))
            continue
        shape, el = memref_type(ty)
        if el == "bf16" and a.dtype.kind == "f":
            # A float input of a bf16 argument (a --float-type-io build): its bf16 bits, rounded
            # to nearest even as decoda's truncf does.
            a = float32_to_bf16(a)
        a = np.array(a.astype(DT[el]), order="C")  # (ascontiguousarray makes 0-d arrays 1-d)
        if len(a.shape) != len(shape) or any(d >= 0 and d != s for d, s in zip(shape, a.shape)):
            raise SystemExit(f"gpusim_run: arg{i} has shape {list(a.shape)} for {ty}")
        on_device = args.device_inputs == "all" or str(i) in args.device_inputs.split(",")
        vals.append(MemRef(host.mem.alloc(a, host=not on_device), 0, list(a.shape), row_major(a.shape), el))
    try:
        r = host.run_func(fn, vals)
    except (HostError, ptxsim.SimError) as e:
        print(f"error: {e}")
        sys.exit(1)
    results = r[1] if r else []

    if host.finishes != 1:
        print(f"error: {host.finishes} calls of decoda_cuda_finish (one before the return expected)")
        sys.exit(1)
    if args.save:
        np.savez(args.save, **{f"out{i}": np.array(host.array_view(res)) for i, res in enumerate(results)})
    expect = np.load(args.expect)
    status = 0
    # outN: the results; argN (optional): what argument N holds after the call (a donated cache
    # written in place, in host or device memory).
    checks = [(f"out{i}", res) for i, res in enumerate(results)]
    checks += [(k, vals[int(k[3:])]) for k in expect.files if k.startswith("arg")]
    for name, res in checks:
        if name.startswith("out") and not host.mem.host[host.mem._index(res.base)]:
            print(f"{name}: returned in device memory (results are host buffers)")
            status = 1
            continue
        got = np.array(host.array_view(res))
        want = expect[name]
        if res.el == "bf16":
            got = (got.astype(np.uint32) << 16).view(np.float32)
            want = (want.astype(np.uint32) << 16).view(np.float32) if want.dtype == np.uint16 else want
        if got.shape != want.shape:
            print(f"{name}: shape {list(got.shape)}, expected {list(want.shape)}")
            status = 1
            continue
        got = got.astype(np.float64)
        want = want.astype(np.float64)
        err = np.abs(got - want)
        bad = (err > args.atol + args.rtol * np.abs(want)) | (np.isnan(got) != np.isnan(want))
        if bad.any():
            j = np.unravel_index(np.argmax(np.where(bad, np.where(np.isnan(err), np.inf, err), -1)), got.shape)
            print(f"{name}: MISMATCH at {j}: got {got[j]} want {want[j]} ({int(bad.sum())} of {bad.size} elements)")
            status = 1
        else:
            print(f"{name}: ok ({got.size} elements, max abs error {np.nanmax(err) if err.size else 0:.3g})")
    empty = f" (and {host.empty} of an empty grid, not launched)" if host.empty else ""
    print(f"{host.launches} launches{empty}; "
          + ", ".join(f"{k} {c}" for k, c in sorted(host.stats.items()) if k in ("mma", "ldmatrix", "cp", "bar", "nbar", "shfl", "wgmma", "mbarrier")))
    if host.tensor_maps:
        print(f"{host.tensor_maps} tensor maps (decoda_cuda_tensor_map)")
    if host.stats.get("grid_waits") or host.stats.get("prefetch_bytes"):
        print(f"dependent launch: {host.stats.get('grid_waits', 0)} thread waits (griddepcontrol.wait) "
              f"of {host.threads} threads, "
              f"{host.stats.get('prefetch_bytes', 0)} bytes prefetched into L2")
    sys.exit(status)


if __name__ == "__main__":
    main()
