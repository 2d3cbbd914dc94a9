"""A small PTX interpreter for checking generated kernels without a GPU.

It runs the PTX that decoda-compile --emit=ptx writes (LLVM's NVPTX output) one thread block
at a time, all threads of a block in lock step by the lowest program counter (threads that
branch away wait at the join point: the usual reconvergence of structured code). It knows the
instructions Decoda's kernels use -- integer/float arithmetic, compares, selects, branches,
global and shared loads/stores, cp.async (with commit/wait groups: a copy lands only when its
group is waited for), ldmatrix, mma.sync m16n8k16 (f16/bf16 -> f32), shfl.sync, bar.sync --
and fails loudly on anything else. Fragment layouts of ldmatrix and mma are those of the PTX
ISA ("Matrix fragments for mma.m16n8k16", "ldmatrix"), written here independently of the
compiler.

Checks beyond the values: every global access must fall inside an allocated buffer; every
shared access inside the block's shared variables; 16-byte cp.async and ldmatrix rows must be
16-byte aligned; warp collectives (ldmatrix, mma, shfl) must be reached by all 32 lanes together
and bar.sync by every thread of the block; and shared memory is checked for races between
barriers: a thread reading bytes another thread wrote (or has a cp.async pending on) since the
last bar.sync, or writing bytes another thread read since then, is an error.
"""
import re

import numpy as np

INF = 1 << 62


class SimError(Exception):
    pass


def _u(bits):
    return (1 << bits) - 1


class Kernel:
    def __init__(self, ptx, entry=None):
        m = None
        for m in re.finditer(r"\.visible\s+\.entry\s+(\w+)\s*\(", ptx):
            if entry is None or m.group(1) == entry:
                break
        else:
            m = None
        if m is None:
            raise SimError(f"entry {entry!r} not found")
        self.name = m.group(1)
        start = m.end()
        close = ptx.index(")", start)
        self.params = []
        for p in ptx[start:close].split(","):
            p = p.strip()
            if not p:
                continue
            pm = re.match(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+(?:\.ptr\s+(?:\.\w+\s+)?\.align\s+\d+\s+)?(\w+)(?:\[(\d+)\])?", p)
            if not pm:
                raise SimError(f"cannot parse parameter {p!r}")
            kind, name, count = pm.group(1), pm.group(2), pm.group(3)
            size = {"u64": 8, "b64": 8, "s64": 8, "u32": 4, "b32": 4, "s32": 4, "f32": 4}.get(kind)
            if count is not None:
                size = int(count) * {"b8": 1}.get(kind, 1)
            self.params.append((name, size))
        body_start = ptx.index("{", close)
        depth, i = 0, body_start
        while True:
            if ptx[i] == "{":
                depth += 1
            elif ptx[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        body = ptx[body_start + 1:i]
        body = re.sub(r"//[^\n]*", "", body)
        self.shared = {}  # name -> (offset, size)
        self.shared_size = 0
        self.instrs = []
        self.labels = {}
        for stmt in body.split(";"):
            stmt = " ".join(stmt.split())
            while True:
                lm = re.match(r"^(\$?[\w$]+):\s*(.*)$", stmt)
                if not lm:
                    break
                self.labels[lm.group(1)] = len(self.instrs)
                stmt = lm.group(2)
            if not stmt or stmt in ("{", "}"):
                continue
            stmt = stmt.strip("{} ") if stmt.startswith("{") and stmt.count("{") == 1 and stmt.endswith("}") else stmt
            if stmt.startswith(".reg") or stmt.startswith(".local"):
                continue
            if stmt.startswith(".shared"):
                sm = re.match(r"\.shared\s+\.align\s+(\d+)\s+\.b8\s+(\w+)\[(\d+)\]", stmt)
                if not sm:
                    raise SimError(f"cannot parse {stmt!r}")
                align, name, size = int(sm.group(1)), sm.group(2), int(sm.group(3))
                off = (self.shared_size + max(align, 16) - 1) // max(align, 16) * max(align, 16)
                self.shared[name] = (off, size)
                self.shared_size = off + size
                continue
            pred = None
            pm = re.match(r"^@(!?)(%\w+)\s+(.*)$", stmt)
            if pm:
                pred = (pm.group(1) == "!", pm.group(2))
                stmt = pm.group(3)
            parts = stmt.split(" ", 1)
            op = parts[0]
            ops = _split_operands(parts[1]) if len(parts) > 1 else []
            self.instrs.append((pred, op, ops))


def _split_operands(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class Memory:
    """Global memory: buffers at distinct addresses with unmapped gaps between them."""

    def __init__(self):
        self.bases, self.arrays = [], []
        self.next = 1 << 40

    def alloc(self, array):
        data = np.ascontiguousarray(array).view(np.uint8).reshape(-1).copy()
        base = self.next
        self.next += (data.size + 4095) // 4096 * 4096 + (1 << 20)
        self.bases.append(base)
        self.arrays.append(data)
        return base

    def view(self, base, dtype, shape):
        i = self.bases.index(base)
        return self.arrays[i].view(dtype).reshape(shape)

    def _locate(self, addrs, size, what):
        addrs = np.asarray(addrs, dtype=np.uint64)
        bases = np.array(self.bases, dtype=np.uint64)
        idx = np.searchsorted(bases, addrs, side="right") - 1
        ok = idx >= 0
        if ok.all():
            off = (addrs - bases[idx]).astype(np.int64)
            lens = np.array([a.size for a in self.arrays], dtype=np.int64)[idx]
            ok = (off >= 0) & (off + size <= lens)
        if not ok.all():
            bad = int(addrs[~ok][0])
            raise SimError(f"{what}: global access of {size} bytes at {bad:#x} outside every buffer")
        return idx, off

    def read(self, addrs, size):
        idx, off = self._locate(addrs, size, "load")
        out = np.zeros((len(off), size), dtype=np.uint8)
        for j, (i, o) in enumerate(zip(idx, off)):
            out[j] = self.arrays[i][o:o + size]
        return out

    def write(self, addrs, data):
        size = data.shape[1]
        idx, off = self._locate(addrs, size, "store")
        for j, (i, o) in enumerate(zip(idx, off)):
            self.arrays[i][o:o + size] = data[j]


def _bytes_to_uint(b):
    b = b.astype(np.uint64)
    v = np.zeros(b.shape[0], dtype=np.uint64)
    for k in range(b.shape[1]):
        v |= b[:, k] << np.uint64(8 * k)
    return v


def _uint_to_bytes(v, size):
    v = v.astype(np.uint64)
    return np.stack([((v >> np.uint64(8 * k)) & np.uint64(0xFF)).astype(np.uint8) for k in range(size)], axis=1)


def _f32(bits):
    return (bits & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)


def _from_f32(x):
    return np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)


def _half_to_f32(h, kind):
    h = h.astype(np.uint32) & np.uint32(0xFFFF)
    if kind == "bf16":
        return (h << np.uint32(16)).view(np.float32)
    return h.astype(np.uint16).view(np.float16).astype(np.float32)


class Block:
    def __init__(self, kernel, mem, params, ctaid, nctaid, ntid, stats):
        self.k, self.mem, self.stats = kernel, mem, stats
        self.T = ntid[0] * ntid[1] * ntid[2]
        t = np.arange(self.T)
        self.special = {
            "%tid.x": t % ntid[0], "%tid.y": (t // ntid[0]) % ntid[1], "%tid.z": t // (ntid[0] * ntid[1]),
            "%ntid.x": np.full(self.T, ntid[0]), "%ntid.y": np.full(self.T, ntid[1]), "%ntid.z": np.full(self.T, ntid[2]),
            "%ctaid.x": np.full(self.T, ctaid[0]), "%ctaid.y": np.full(self.T, ctaid[1]), "%ctaid.z": np.full(self.T, ctaid[2]),
            "%nctaid.x": np.full(self.T, nctaid[0]), "%nctaid.y": np.full(self.T, nctaid[1]), "%nctaid.z": np.full(self.T, nctaid[2]),
            "%laneid": t % 32, "%warpid": t // 32,
        }
        self.params = params
        self.regs = {}
        self.shared = np.zeros(max(kernel.shared_size, 1), dtype=np.uint8)
        n = self.shared.size
        self.w_thread = np.full(n, -1, dtype=np.int64)
        self.w_end = np.full(n, -1, dtype=np.int64)
        self.r_thread = np.full(n, -1, dtype=np.int64)
        self.r_epoch = np.full(n, -1, dtype=np.int64)
        self.epoch = 0
        self.pending = [[] for _ in range(self.T)]  # per thread: list of groups of copies
        self.open_group = [[] for _ in range(self.T)]

    # -- operands ---------------------------------------------------------------------------
    def reg(self, name):
        if name not in self.regs:
            self.regs[name] = np.zeros(self.T, dtype=np.uint64) if not name.startswith("%p") else np.zeros(self.T, dtype=bool)
        return self.regs[name]

    def value(self, s, bits=64):
        if s in self.special:
            return self.special[s].astype(np.uint64)
        if s.startswith("%"):
            return self.reg(s)
        if s in self.k.shared:
            return np.full(self.T, self.k.shared[s][0], dtype=np.uint64)
        if s.startswith("0f"):
            return np.full(self.T, int(s[2:], 16), dtype=np.uint64)
        if s.startswith("0d"):
            return np.full(self.T, int(s[2:], 16), dtype=np.uint64)
        v = int(s, 0)
        return np.full(self.T, v & _u(64), dtype=np.uint64)

    def set(self, name, val, mask, bits):
        r = self.reg(name)
        if r.dtype == bool:
            r[mask] = val[mask]
        else:
            r[mask] = (val.astype(np.uint64) & np.uint64(_u(bits)))[mask]

    def address(self, s):
        m = re.match(r"^\[([^\]+]+)(?:\+(-?\d+))?\]$", s)
        if not m:
            raise SimError(f"cannot parse address {s!r}")
        base = self.value(m.group(1))
        off = int(m.group(2) or 0)
        return (base.astype(np.int64) + off).astype(np.uint64)

    # -- shared memory with race checks --------------------------------------------------
    def _shared_span(self, addrs, size, what):
        a = addrs.astype(np.int64)
        if (a < 0).any() or (a + size > self.k.shared_size).any():
            raise SimError(f"{what}: shared access outside the block's shared memory")
        return a

    def shared_read(self, addrs, size, readers, what):
        a = self._shared_span(addrs, size, what)
        out = np.zeros((len(a), size), dtype=np.uint8)
        for j in range(len(a)):
            sl = slice(a[j], a[j] + size)
            for t in np.atleast_1d(readers[j]):
                w = self.w_thread[sl]
                bad = (w >= 0) & (w != t) & (self.w_end[sl] >= self.epoch)
                if bad.any():
                    raise SimError(f"{what}: shared race: thread {t} reads bytes at {a[j]} that thread "
                                   f"{int(w[bad][0])} wrote (or is copying into) since the last barrier")
                rt = self.r_thread[sl]
                self.r_thread[sl] = np.where((self.r_epoch[sl] == self.epoch) & (rt != t), -2, t)
                self.r_epoch[sl] = self.epoch
            out[j] = self.shared[sl]
        return out

    def shared_write_check(self, a, size, t, what):
        sl = slice(a, a + size)
        rt = self.r_thread[sl]
        bad = (self.r_epoch[sl] == self.epoch) & (rt != t)
        if bad.any():
            raise SimError(f"{what}: shared race: thread {t} writes bytes at {a} read by another thread "
                           "since the last barrier")
        w = self.w_thread[sl]
        bad = (w >= 0) & (w != t) & (self.w_end[sl] >= self.epoch)
        if bad.any():
            raise SimError(f"{what}: shared race: threads {t} and {int(w[bad][0])} write bytes at {a} "
                           "between two barriers")

    def shared_write(self, addrs, data, writers, what):
        a = self._shared_span(addrs, data.shape[1], what)
        for j in range(len(a)):
            self.shared_write_check(a[j], data.shape[1], writers[j], what)
            sl = slice(a[j], a[j] + data.shape[1])
            self.shared[sl] = data[j]
            self.w_thread[sl] = writers[j]
            self.w_end[sl] = self.epoch

    # -- execution -------------------------------------------------------------------------
    def run(self, max_steps=5_000_000):
        k = self.k
        pc = np.zeros(self.T, dtype=np.int64)
        done = np.zeros(self.T, dtype=bool)
        steps = 0
        while not done.all():
            steps += 1
            if steps > max_steps:
                raise SimError("too many steps (an endless loop?)")
            p = pc[~done].min()
            mask = (~done) & (pc == p)
            pred, op, ops = k.instrs[p]
            exec_mask = mask.copy()
            if pred is not None:
                pv = self.reg(pred[1])
                exec_mask &= (~pv if pred[0] else pv)
            self.stats[op.split(".")[0]] = self.stats.get(op.split(".")[0], 0) + 1
            nxt = np.full(self.T, p + 1, dtype=np.int64)
            base = op.split(".")[0]
            if base == "bra":
                target = k.labels[ops[0]]
                nxt = np.where(exec_mask, target, p + 1)
            elif base == "ret" or base == "exit":
                done |= exec_mask
            else:
                self.execute(op, ops, exec_mask, mask, done)
            pc = np.where(mask, nxt, pc)
        return steps

    def collective(self, mask, done, width, what):
        live = ~done
        for w0 in range(0, self.T, width):
            sl = slice(w0, w0 + width)
            if (mask[sl] != live[sl]).any():
                raise SimError(f"{what}: reached by only some threads of a {'warp' if width == 32 else 'block'}")

    def execute(self, op, ops, m, reached, done):
        parts = op.split(".")
        base = parts[0]
        ty = parts[-1]
        bits = {"pred": 1}.get(ty, None)
        if bits is None:
            mm = re.match(r"[bsuf](\d+)", ty)
            bits = int(mm.group(1)) if mm else 64
        signed = ty.startswith("s")

        def sval(x, b=bits):
            """Two's-complement value of the low `b` bits."""
            x = x & np.uint64(_u(b))
            if b == 64:
                return x.astype(np.int64)
            return np.where((x >> np.uint64(b - 1)) & np.uint64(1), x.astype(np.int64) - (1 << b), x.astype(np.int64))

        def src(i):
            return self.value(ops[i], bits)

        if base == "mov":
            if ops[1].startswith("{"):
                raise SimError("vector mov not supported")
            self.set(ops[0], src(1), m, bits)
        elif base == "ld" and parts[1] == "param":
            name = ops[1].strip("[]")
            vec = 2 if "v2" in parts else 4 if "v4" in parts else 1
            size = bits // 8
            pname, _, off = name.partition("+")
            raw = self.params[pname]
            off = int(off or 0)
            dsts = [d.strip() for d in ops[0].strip("{}").split(",")]
            for i, d in enumerate(dsts):
                chunk = raw[off + i * size: off + (i + 1) * size]
                v = int.from_bytes(chunk, "little")
                self.set(d, np.full(self.T, v, dtype=np.uint64), m, bits)
        elif base == "cvta":
            self.set(ops[0], src(1), m, 64)
        elif base in ("add", "sub", "mul", "mad", "and", "or", "xor", "shl", "shr", "div", "rem", "min", "max", "neg", "not", "abs") and ty != "f32" and ty != "f64":
            if ty == "pred":
                a = self.reg(ops[1])
                b = self.reg(ops[2]) if len(ops) > 2 else None
                r = {"and": lambda: a & b, "or": lambda: a | b, "xor": lambda: a ^ b, "not": lambda: ~a}[base]()
                self.set(ops[0], r, m, 1)
                return
            a = src(1)
            ib = bits
            wide = "wide" in parts
            sa = sval(a) if signed else a & np.uint64(_u(ib))
            if base in ("neg", "not", "abs"):
                r = {"neg": lambda: (-(sa.astype(np.int64))).astype(np.uint64), "not": lambda: ~a,
                     "abs": lambda: np.abs(sa).astype(np.uint64)}[base]()
                self.set(ops[0], r, m, bits)
                return
            b = src(2)
            sb = sval(b) if signed else b & np.uint64(_u(ib))
            if base == "shl":
                r = a << (b & np.uint64(63))
                r = np.where(b >= ib, 0, r)
            elif base == "shr":
                sh = np.minimum(b, np.uint64(ib - 1 if signed else 63))
                if signed:
                    r = (sa >> sh.astype(np.int64)).astype(np.uint64)
                else:
                    r = np.where(b >= ib, np.uint64(0), (a & np.uint64(_u(ib))) >> sh)
            elif base == "add":
                r = (sa.astype(np.uint64) + sb.astype(np.uint64))
            elif base == "sub":
                r = (sa.astype(np.uint64) - sb.astype(np.uint64))
            elif base == "mul" or base == "mad":
                if wide:
                    r = (sa.astype(np.uint64) * sb.astype(np.uint64))
                    obits = 2 * ib
                else:
                    r = (sa.astype(np.uint64) * sb.astype(np.uint64))
                    obits = ib
                if "hi" in parts:
                    raise SimError("mul.hi not supported")
                if base == "mad":
                    c = src(3)
                    r = r + c
                self.set(ops[0], r, m, obits if wide else bits)
                return
            elif base in ("div", "rem"):
                z = (sb == 0) & m
                if z.any():
                    raise SimError(f"{op}: division by zero")
                sbs = np.where(sb == 0, 1, sb)
                if signed:
                    q = (np.abs(sa) // np.abs(sbs)) * np.sign(sa) * np.sign(sbs)
                    r = q if base == "div" else sa - q * sbs
                    r = r.astype(np.uint64)
                else:
                    r = sa // sbs if base == "div" else sa % sbs
            elif base == "and":
                r = a & b
            elif base == "or":
                r = a | b
            elif base == "xor":
                r = a ^ b
            elif base in ("min", "max"):
                r = (np.minimum if base == "min" else np.maximum)(sa, sb).astype(np.uint64)
            self.set(ops[0], r, m, bits)
        elif base == "bfe":
            a, pos, ln = src(1), src(2) & np.uint64(0xFF), src(3) & np.uint64(0xFF)
            ln = np.minimum(ln, np.uint64(bits))
            field = (a >> pos) & ((np.uint64(1) << ln) - np.uint64(1))
            if signed:
                top = (field >> np.maximum(ln, np.uint64(1)) - np.uint64(1)) & np.uint64(1)
                field = np.where((top == 1) & (ln > 0), field | ~((np.uint64(1) << ln) - np.uint64(1)), field)
            self.set(ops[0], field, m, bits)
        elif base == "cvt":
            dty, sty = parts[-2], parts[-1]
            rnd = [p for p in parts[1:-2]]
            a = src(1)
            if sty[0] in "us" and dty[0] in "usb":
                sb_ = int(sty[1:])
                v = a & np.uint64(_u(sb_))
                if sty[0] == "s" and int(dty[1:]) > sb_:
                    sign = (v >> np.uint64(sb_ - 1)) & np.uint64(1)
                    v = np.where(sign == 1, v | np.uint64(_u(64) ^ _u(sb_)), v)
                self.set(ops[0], v, m, int(dty[1:]))
            elif dty in ("bf16", "f16") and sty == "f32":
                if "rn" not in rnd:
                    raise SimError(f"{op}: only round-to-nearest-even is supported")
                f = _f32(a)
                if dty == "f16":
                    v = f.astype(np.float16).view(np.uint16).astype(np.uint64)
                else:
                    u = f.view(np.uint32).astype(np.uint64)
                    nan = np.isnan(f)
                    v = ((u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16))
                    v = np.where(nan, np.uint64(0x7FC0), v)
                self.set(ops[0], v, m, 16)
            elif sty in ("bf16", "f16") and dty == "f32":
                self.set(ops[0], _from_f32(_half_to_f32(a, sty)), m, 32)
            else:
                raise SimError(f"{op} not supported")
        elif base == "setp":
            cmp, cty = parts[1], parts[2]
            cb = int(re.match(r"[bsuf](\d+)", cty).group(1))
            a, b = src(1), src(2)
            if cty[0] == "f":
                fa, fb = _f32(a), _f32(b)
                r = {"lt": fa < fb, "le": fa <= fb, "gt": fa > fb, "ge": fa >= fb, "eq": fa == fb, "ne": fa != fb}[cmp]
            else:
                if cty[0] == "s":
                    a, b = sval(a, cb), sval(b, cb)
                else:
                    a, b = a & np.uint64(_u(cb)), b & np.uint64(_u(cb))
                r = {"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b, "eq": a == b, "ne": a != b,
                     "lo": a < b, "ls": a <= b, "hi": a > b, "hs": a >= b}[cmp]
            self.set(ops[0], r, m, 1)
        elif base == "selp":
            c = self.reg(ops[3])
            self.set(ops[0], np.where(c, src(1), src(2)), m, bits)
        elif base in ("add", "sub", "mul", "fma", "max", "min", "neg", "abs", "ex2", "rcp", "sqrt", "rsqrt", "div") and ty == "f32":
            fa = _f32(src(1))
            if base in ("neg", "abs", "ex2", "rcp", "sqrt", "rsqrt"):
                r = {"neg": lambda: -fa, "abs": lambda: np.abs(fa), "ex2": lambda: np.exp2(fa),
                     "rcp": lambda: np.float32(1) / fa, "sqrt": lambda: np.sqrt(fa), "rsqrt": lambda: np.float32(1) / np.sqrt(fa)}[base]()
            else:
                fb = _f32(src(2))
                if base == "fma":
                    r = (fa.astype(np.float64) * fb + _f32(src(3))).astype(np.float32)
                else:
                    r = {"add": lambda: fa + fb, "sub": lambda: fa - fb, "mul": lambda: fa * fb, "div": lambda: fa / fb,
                         "max": lambda: np.maximum(fa, fb), "min": lambda: np.minimum(fa, fb)}[base]()
            self.set(ops[0], _from_f32(r), m, 32)
        elif base in ("ld", "st") and parts[1] in ("global", "shared"):
            space = parts[1]
            vec = 4 if "v4" in parts else 2 if "v2" in parts else 1
            size = bits // 8
            idx = np.nonzero(m)[0]
            if base == "ld":
                addrs = self.address(ops[1])[idx]
                dsts = [d.strip() for d in ops[0].strip("{}").split(",")]
                for i, d in enumerate(dsts):
                    a = addrs + np.uint64(i * size)
                    if space == "global":
                        data = self.mem.read(a, size)
                    else:
                        data = self.shared_read(a, size, idx, op)
                    v = np.zeros(self.T, dtype=np.uint64)
                    v[idx] = _bytes_to_uint(data)
                    self.set(d, v, m, bits)
            else:
                addrs = self.address(ops[0])[idx]
                srcs = [d.strip() for d in ops[1].strip("{}").split(",")]
                for i, s in enumerate(srcs):
                    a = addrs + np.uint64(i * size)
                    data = _uint_to_bytes(self.value(s)[idx], size)
                    if space == "global":
                        self.mem.write(a, data)
                    else:
                        self.shared_write(a, data, idx, op)
        elif base == "cp" and parts[1] == "async" and parts[2] in ("cg", "ca"):
            dst = self.address(ops[0])
            srcs = self.address(ops[1])
            cp = int(ops[2])
            ssz = self.value(ops[3]) if len(ops) > 3 else np.full(self.T, cp, dtype=np.uint64)
            for t in np.nonzero(m)[0]:
                d = int(dst[t])
                if d % cp or int(srcs[t]) % cp:
                    raise SimError(f"{op}: unaligned {cp}-byte copy")
                if d < 0 or d + cp > self.k.shared_size:
                    raise SimError(f"{op}: destination outside shared memory")
                n = int(ssz[t])
                data = self.mem.read(np.array([srcs[t]], dtype=np.uint64), n)[0] if n else np.zeros(0, np.uint8)
                # The source is read when the copy lands; its bytes are pending until then.
                self.shared_write_check(d, cp, t, op)
                self.w_thread[d:d + cp] = t
                self.w_end[d:d + cp] = INF
                self.open_group[t].append((d, int(srcs[t]), cp, n))
        elif base == "cp" and parts[2] == "commit_group":
            for t in np.nonzero(m)[0]:
                self.pending[t].append(self.open_group[t])
                self.open_group[t] = []
        elif base == "cp" and parts[2] == "wait_group":
            n = int(ops[0])
            for t in np.nonzero(m)[0]:
                while len(self.pending[t]) > n:
                    for d, s, cp, nb in self.pending[t].pop(0):
                        data = np.zeros(cp, dtype=np.uint8)
                        if nb:
                            data[:nb] = self.mem.read(np.array([s], dtype=np.uint64), nb)[0]
                        self.shared[d:d + cp] = data
                        self.w_end[d:d + cp] = self.epoch
        elif base == "bar" or base == "barrier":
            self.collective(m, done, self.T, op)
            self.epoch += 1
        elif base == "ldmatrix":
            self.collective(m, done, 32, op)
            num = int([p for p in parts if p.startswith("x")][0][1:])
            trans = "trans" in parts
            dsts = [d.strip() for d in ops[0].strip("{}").split(",")]
            addrs = self.address(ops[1])
            for w0 in range(0, self.T, 32):
                if not m[w0]:
                    continue
                lanes = np.arange(32)
                for i in range(num):
                    rows_addr = addrs[w0 + 8 * i: w0 + 8 * i + 8]
                    if (rows_addr % np.uint64(16)).any():
                        raise SimError(f"{op}: row address not 16-byte aligned")
                    readers = [np.arange(w0, w0 + 32)] * 8
                    rows = self.shared_read(rows_addr, 16, readers, op).view(np.uint16).reshape(8, 8)
                    g, q = lanes // 4, lanes % 4
                    if trans:
                        lo, hi = rows[2 * q, g], rows[2 * q + 1, g]
                    else:
                        lo, hi = rows[g, 2 * q], rows[g, 2 * q + 1]
                    v = lo.astype(np.uint64) | (hi.astype(np.uint64) << np.uint64(16))
                    r = self.reg(dsts[i])
                    r[w0:w0 + 32] = v
        elif base == "mma":
            self.collective(m, done, 32, op)
            shape = parts[3]
            if shape != "m16n8k16" or parts[4:6] != ["row", "col"]:
                raise SimError(f"{op} not supported")
            dty, aty, bty, cty = parts[6:10]
            regs = [[x.strip() for x in o.strip("{}").split(",")] for o in ops]
            D, A, B, C = regs
            lanes = np.arange(32)
            g, q = lanes // 4, lanes % 4
            for w0 in range(0, self.T, 32):
                if not m[w0]:
                    continue
                sl = slice(w0, w0 + 32)
                Am = np.zeros((16, 16), np.float32)
                Bm = np.zeros((16, 8), np.float32)
                Cm = np.zeros((16, 8), np.float32)
                for i, (r0, c0) in enumerate([(0, 0), (8, 0), (0, 8), (8, 8)]):
                    v = self.reg(A[i])[sl]
                    Am[g + r0, 2 * q + c0] = _half_to_f32(v, aty)
                    Am[g + r0, 2 * q + c0 + 1] = _half_to_f32(v >> np.uint64(16), aty)
                for i, k0 in enumerate([0, 8]):
                    v = self.reg(B[i])[sl]
                    Bm[2 * q + k0, g] = _half_to_f32(v, bty)
                    Bm[2 * q + k0 + 1, g] = _half_to_f32(v >> np.uint64(16), bty)
                for i, (r0, c0) in enumerate([(0, 0), (0, 1), (8, 0), (8, 1)]):
                    Cm[g + r0, 2 * q + c0] = _f32(self.reg(C[i])[sl])
                Dm = (Am.astype(np.float64) @ Bm.astype(np.float64) + Cm).astype(np.float32)
                for i, (r0, c0) in enumerate([(0, 0), (0, 1), (8, 0), (8, 1)]):
                    self.reg(D[i])[sl] = _from_f32(Dm[g + r0, 2 * q + c0])
        elif base == "shfl":
            self.collective(m, done, 32, op)
            mode = parts[2]
            a, b, c = src(1), src(2), src(3)
            out = np.zeros(self.T, dtype=np.uint64)
            for w0 in range(0, self.T, 32):
                lanes = np.arange(32)
                bb = b[w0:w0 + 32].astype(np.int64)
                if mode == "bfly":
                    srcl = lanes ^ bb
                elif mode == "down":
                    srcl = np.where(lanes + bb < 32, lanes + bb, lanes)
                elif mode == "up":
                    srcl = np.where(lanes - bb >= 0, lanes - bb, lanes)
                elif mode == "idx":
                    srcl = bb % 32
                out[w0:w0 + 32] = a[w0:w0 + 32][srcl]
            dst = ops[0].split("|")[0]
            self.set(dst, out, m, 32)
        else:
            raise SimError(f"instruction {op!r} not supported by the simulator")


def run(kernel, mem, grid, block, params, stats=None):
    """Runs `kernel` over the grid; `params` maps parameter names to bytes."""
    stats = {} if stats is None else stats
    steps = 0
    for z in range(grid[2]):
        for y in range(grid[1]):
            for x in range(grid[0]):
                b = Block(kernel, mem, params, (x, y, z), grid, block, stats)
                steps += b.run()
    return steps


def memref_params(kernel, values):
    """Parameter bytes for `kernel` from a list of logical arguments: ("memref", base, shape)
    for a row-major buffer (allocated and aligned pointer, offset 0, sizes, strides) or
    ("index", v)."""
    flat = []
    for v in values:
        if v[0] == "memref":
            _, base, shape = v
            strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
            flat += [base, base, 0] + list(shape) + strides
        elif v[0] == "index":
            flat.append(v[1])
        else:
            raise SimError(f"unknown argument kind {v[0]}")
    if len(flat) != len(kernel.params):
        raise SimError(f"{len(flat)} parameter values for {len(kernel.params)} parameters")
    return {name: int(val & _u(64)).to_bytes(8, "little") for (name, _), val in zip(kernel.params, flat)}
