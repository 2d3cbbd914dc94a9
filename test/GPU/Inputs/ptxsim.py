"""A small PTX interpreter for checking generated kernels without a GPU.

It runs the PTX that decoda-compile --emit=ptx writes (LLVM's NVPTX output) one thread block
at a time, all threads of a block in lock step by the lowest program counter (threads that
branch away wait at the join point: the usual reconvergence of structured code). It knows the
instructions Decoda's kernels use -- integer/float arithmetic, compares, selects, branches,
global and shared loads/stores, cp.async (with commit/wait groups: a copy lands only when its
group is waited for), ldmatrix, mma.sync m16n8k16 (f16/bf16 -> f32) and m16n8k32 (s8/u8 x s8/u8 -> s32, wrapping
or .satfinite), shfl.sync, vote.sync, bar.sync -- and fails loudly on anything else. Fragment layouts of
ldmatrix and mma are those of the PTX ISA ("Matrix fragments for mma.m16n8k16", "Matrix
fragments for mma.m16n8k32", "ldmatrix"), written here independently of the compiler.

Checks beyond the values: every global access must fall inside an allocated buffer; every
shared access inside the block's shared variables; 16-byte cp.async and ldmatrix rows must be
16-byte aligned; warp collectives (ldmatrix, mma, shfl, vote) must be reached by all 32 lanes together
and bar.sync by every thread of the block; and shared memory is checked for races between
barriers: a thread reading bytes another thread wrote (or has a cp.async pending on) since the
last bar.sync, or writing bytes another thread read since then, is an error.

sm_90a: wgmma (bf16/f16 -> f32 with A from registers or a descriptor, K-major or MN-major
(transposed) operands, and s8/u8 -> s32 K-major; no-swizzle and 32/64/128-byte-swizzled
descriptors), dynamic shared memory (the .extern .shared array, sized by run(dyn_shared=...)),
generic shared addresses (a window at SHARED_WINDOW), mbarriers with deadlock detection, and
TMA 2-D and 3-D tile loads (cp.async.bulk.tensor.2d / .3d) through tensor maps of this module's
format (encode_tensor_map: a matrix [rows][inner], or `planes` such matrices plane_stride_bytes
apart; boxes of box_rows x box_inner of one plane, zero outside any extent), whose bytes are
visible to a thread only after it observed the mbarrier phase that completes the copy; a copy
whose dimensionality is not its map's is an error.
Named barriers (bar.sync / barrier.sync[.aligned] id, n and bar.arrive / barrier.arrive id, n
with id 1..15; the PTX ISA's "bar, barrier"): each warp that reaches one counts 32 arrivals
(all its live lanes together: a warp split by a branch or a predicate is an error); a warp in a
sync waits, each at its own instruction, until n threads arrived, then all waiters continue
past their own barrier instruction and the count starts again. Reported: n not a positive
multiple of 32 or beyond the block, warps of one phase that disagree on n, a deadlock (who
waits where, the count), and a barrier left with arrivals when the block exits. Named barriers
order execution only: the race check still asks for a block-wide bar.sync (0) between a write
and another thread's access, so a kernel that used a named barrier to order shared memory would
be reported (conservatively), never passed.
A collective (bar.sync, wgmma, ldmatrix, mma, shfl, vote) runs once all live threads of its group
(block, warpgroup, warp) are there: threads that reach it first wait for the others, which may
have diverged past a join that LLVM laid out at a lower address (a loop latch); a group that
never completes is reported as reached by only some of its threads. A warpgroup is always the
aligned 128 threads 128 w .. 128 w + 127, whatever the block size: a block of 128 W + 32
threads (W consumer warpgroups and a producer warp) has a trailing partial group, which must
never reach a wgmma.
"""
import re

import numpy as np

INF = 1 << 62
# Generic addresses of shared memory (cvta.shared): the block's shared window starts here, far
# above every global buffer (Memory hands those out from 1 << 40 up), so the two never mix.
SHARED_WINDOW = 1 << 60


# Lane l's groupID and threadID_in_group of the PTX ISA's mma fragment tables.
_GROUP, _IN_GROUP = np.arange(32) // 4, np.arange(32) % 4


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
        # Module-level .global arrays (libdevice tables): allocated in each Memory on first use.
        self.globals = {}
        for gm in re.finditer(r"^\.global\s+\.align\s+\d+\s+\.b8\s+(\w+)\[(\d+)\](?:\s*=\s*\{([^}]*)\})?;",
                              ptx, flags=re.M):
            size = int(gm.group(2))
            data = bytes(int(x) for x in gm.group(3).split(",")) if gm.group(3) else bytes(size)
            self.globals[gm.group(1)] = data
        self.global_bases = {}
        # The module's .extern .shared array (dynamic shared memory): sized by the launch. MLIR's
        # gpu.dynamic_shared_memory is a zero-length array global that LLVM may demote into the
        # kernel, declared without brackets (`.shared .align 16 .b8 __dynamic_shmem__0;`): the
        # same dynamic shared memory (self.dyn_names: every name of it).
        self.dyn_name, self.dyn_align, self.dyn_names = None, 16, []
        em = re.search(r"^\.extern\s+\.shared\s+\.align\s+(\d+)\s+\.b8\s+(\w+)\[\];", ptx, flags=re.M)
        if em:
            self.dyn_align, self.dyn_name = int(em.group(1)), em.group(2)
            self.dyn_names.append(self.dyn_name)
        self.local_name, self.local_size = None, 0
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
        body = _inline_asm_scopes(body)
        self.shared = {}  # name -> (offset, size)
        self.shared_size = 0  # the simulated layout's extent (with the placement offsets)
        self.shared_bytes = 0  # bytes declared
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
            if stmt.startswith(".reg") or stmt.startswith(".pragma"):
                continue
            if stmt.startswith(".local"):
                lm = re.match(r"\.local\s+\.align\s+(\d+)\s+\.b8\s+(\w+)\[(\d+)\]", stmt)
                if not lm:
                    raise SimError(f"cannot parse {stmt!r}")
                self.local_name, self.local_size = lm.group(2), int(lm.group(3))
                continue
            dm = re.match(r"^\.shared\s+\.align\s+(\d+)\s+\.b8\s+(\w+)$", stmt)
            if dm:
                self.dyn_align = max(self.dyn_align, int(dm.group(1))) if self.dyn_names else int(dm.group(1))
                self.dyn_name = self.dyn_name or dm.group(2)
                self.dyn_names.append(dm.group(2))
                continue
            if stmt.startswith(".shared"):
                sm = re.match(r"\.shared\s+\.align\s+(\d+)\s+\.b8\s+(\w+)\[(\d+)\]", stmt)
                if not sm:
                    raise SimError(f"cannot parse {stmt!r}")
                align, name, size = int(sm.group(1)), sm.group(2), int(sm.group(3))
                # Placed at an odd multiple of the declared alignment (when below 128 bytes): the
                # assembler promises no more than that, so code relying on more fails here.
                off = (self.shared_size + align - 1) // align * align
                if align < 128 and (off // align) % 2 == 0:
                    off += align
                self.shared[name] = (off, size)
                self.shared_size = off + size
                self.shared_bytes += size
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
        # Programmatic dependent launch: a kernel that executes griddepcontrol.wait may be
        # running while the kernel before it still does, so it must not access global memory
        # (other than L2 prefetches) before its wait (Block checks every thread's accesses).
        self.grid_dep = any(op == "griddepcontrol.wait" for _, op, _ in self.instrs)


def _inline_asm_scopes(body):
    """The inline-asm blocks of MLIR's NVVM ops (`{ .reg .pred p; setp.ne.b32 p, 1, 0;
    wgmma.mma_async ... p, ...; }`, or mbarrier.try_wait.parity's wait loop with its labels
    LAB_WAIT and DONE): the braces go, each scoped predicate gets a name of its own,
    %p_asm_<name> (every block writes it before its use, so blocks may share it), and each label
    defined inside a block is renamed <label>_asm<k>, k counting the blocks (the same loop
    is pasted once per wait)."""
    out, pos, k = [], 0, 0
    for mt in re.finditer(r"\{\s*\.reg\s+\.pred\s+\w+\s*;", body):
        if mt.start() < pos:
            continue
        depth, i = 0, mt.start()
        while True:
            if body[i] == "{":
                depth += 1
            elif body[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        inner = body[mt.start() + 1:i]
        for name in re.findall(r"\.reg\s+\.pred\s+(\w+)\s*;", inner):
            inner = re.sub(rf"(?<![%\w.$]){name}\b", f"%p_asm_{name}", inner)
        for name in set(re.findall(r"(?:^|(?<=[;\s{]))([A-Za-z_$][\w$]*):(?!:)", inner)):
            inner = re.sub(rf"(?<![\w.$%:]){re.escape(name)}(?![\w$])", f"{name}_asm{k}", inner)
        k += 1
        out.append(body[pos:mt.start()])
        out.append(inner)
        pos = i + 1
    out.append(body[pos:])
    return "".join(out)


# Instructions without a destination operand (their first operand is read, or an immediate).
_NO_DEST = {"st", "red", "cp", "bar", "barrier", "bra", "fence", "membar", "prefetch", "prefetchu",
            "wgmma", "nanosleep", "trap", "ret", "exit"}


def _written_regs(op, ops):
    """The registers an instruction writes: those of its first operand (d, {d0, d1}, p|q),
    unless it has no destination (st, cp, bar, ...) or that operand is an address."""
    if not ops or op.split(".")[0] in _NO_DEST or ops[0].startswith("["):
        return []
    return re.findall(r"%\w+", ops[0])


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
    """Global memory: buffers at distinct addresses with unmapped gaps between them. Buffers made
    with host=True (the host's own memory) and freed buffers are not accessible to kernels."""

    def __init__(self):
        self.bases, self.arrays, self.host, self.freed = [], [], [], []
        self.next = 1 << 40
        # Called before every kernel access (read, write): the running block's check that its
        # threads may access global memory yet (griddepcontrol.wait), or None.
        self.guard = None

    def alloc(self, array, host=False):
        data = np.ascontiguousarray(array).view(np.uint8).reshape(-1).copy()
        base = self.next
        self.next += (data.size + 4095) // 4096 * 4096 + (1 << 20)
        self.bases.append(base)
        self.arrays.append(data)
        self.host.append(host)
        self.freed.append(False)
        return base

    def _index(self, base):
        if base not in self.bases:
            raise SimError(f"no buffer at {base:#x}")
        return self.bases.index(base)

    def view(self, base, dtype, shape):
        return self.arrays[self._index(base)].view(dtype).reshape(shape)

    def buffer(self, base):
        """The bytes of the buffer starting at `base` (for the host side)."""
        i = self._index(base)
        if self.freed[i]:
            raise SimError(f"host access to the freed buffer at {base:#x}")
        return self.arrays[i]

    def free(self, base, host=False):
        """Frees a device buffer (gpu.dealloc), or with host=True a host one (memref.dealloc)."""
        i = self._index(base)
        if self.freed[i]:
            raise SimError(f"buffer at {base:#x} freed twice")
        if self.host[i] != host:
            raise SimError(f"{'memref' if host else 'gpu'}.dealloc of the "
                           f"{'device' if self.host[i] else 'host'} buffer at {base:#x}")
        self.freed[i] = True

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
        for i in np.unique(idx):
            if self.host[i]:
                raise SimError(f"{what}: kernel access to the host buffer at {self.bases[i]:#x}")
            if self.freed[i]:
                raise SimError(f"{what}: kernel access to the freed buffer at {self.bases[i]:#x}")
        return idx, off

    def read(self, addrs, size):
        if self.guard:
            self.guard()
        idx, off = self._locate(addrs, size, "load")
        out = np.zeros((len(off), size), dtype=np.uint8)
        span = np.arange(size)
        for i in np.unique(idx):
            sel = idx == i
            out[sel] = self.arrays[i][off[sel][:, None] + span]
        return out

    def write(self, addrs, data):
        if self.guard:
            self.guard()
        size = data.shape[1]
        idx, off = self._locate(addrs, size, "store")
        span = np.arange(size)
        for i in np.unique(idx):
            sel = np.nonzero(idx == i)[0]
            o = off[sel]
            # Lanes storing to the same address: the highest lane wins (one of them does on a GPU).
            self.arrays[i][o[:, None] + span] = data[sel]


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


def _fval(bits, ty):
    """Float values of register bits: f32/f64 as such, f16/bf16 widened to f32."""
    if ty == "f32":
        return _f32(bits)
    if ty == "f64":
        return bits.astype(np.uint64).view(np.float64)
    if ty in ("bf16", "f16"):
        return _half_to_f32(bits, ty)
    raise SimError(f"no float type {ty}")


def _round(x, ty, mode="rn"):
    """Register bits of float64 values `x` rounded to `ty` (f32/f64/f16/bf16) with a PTX rounding
    mode (rn, rz, rm, rp): nearest-even first, then one step toward the mode's direction when the
    nearest value lies on the wrong side of `x`."""
    x = np.asarray(x, dtype=np.float64)
    if ty == "f64":
        return x.view(np.uint64).copy()
    if ty == "f32":
        r = x.astype(np.float32)
    elif ty == "f16":
        r = x.astype(np.float16)
    else:  # bf16: round-to-nearest-even on the f32 pattern after an exact-enough f32 step
        r = None
    if ty == "bf16":
        f = x.astype(np.float32)
        u = f.view(np.uint32).astype(np.uint64)
        v = (u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
        v = np.where(np.isnan(f), np.uint64(0x7FC0), v)
        if mode != "rn":
            raise SimError(f"bf16 rounding mode {mode} not supported")
        return v
    if mode != "rn":
        back = r.astype(np.float64)
        with np.errstate(invalid="ignore"):
            if mode == "rm":
                r = np.where(back > x, np.nextafter(r, r.dtype.type(-np.inf)), r)
            elif mode == "rp":
                r = np.where(back < x, np.nextafter(r, r.dtype.type(np.inf)), r)
            elif mode == "rz":
                r = np.where(np.abs(back) > np.abs(x), np.nextafter(r, r.dtype.type(0)), r)
            else:
                raise SimError(f"rounding mode {mode} not supported")
    if ty == "f16":
        return r.view(np.uint16).astype(np.uint64)
    return r.view(np.uint32).astype(np.uint64)


def _ftz(f):
    """Subnormal values flushed to sign-preserving zero (.ftz)."""
    tiny = np.finfo(f.dtype).tiny
    with np.errstate(invalid="ignore"):
        return np.where((np.abs(f) < tiny) & (f != 0), np.copysign(f.dtype.type(0), f), f)


def _mul_hi(a, b, bits, signed):
    out = []
    for x, y in zip(a, b):
        x, y = int(x), int(y)
        out.append(((x * y) >> bits) & _u(bits))
    return np.array(out, dtype=np.uint64)


FLOAT_OPS = ("add", "sub", "mul", "fma", "mad", "div", "max", "min", "neg", "abs", "ex2", "lg2", "rcp",
             "sqrt", "rsqrt", "sin", "cos", "tanh", "copysign")


class Block:
    def __init__(self, kernel, mem, params, ctaid, nctaid, ntid, stats, dyn_shared=0, shared_fill=0):
        self.k, self.mem, self.stats = kernel, mem, stats
        # Dynamic shared memory (the .extern .shared array, sized by the launch): after the static
        # variables at an offset that is 16-byte aligned (or the declared alignment) but not
        # 1024-byte aligned, so a kernel that aligns its buffers at run time must do so.
        self.shared_syms = dict(kernel.shared)
        self.shared_size = kernel.shared_size
        self.shared_gap = (0, 0)  # the unallocated bytes before the dynamic shared memory
        if kernel.dyn_name is not None:
            al = kernel.dyn_align
            if al < 1024:
                off = (kernel.shared_size + 1023) // 1024 * 1024 + al
            else:
                off = (kernel.shared_size + al - 1) // al * al
            for name in kernel.dyn_names:
                self.shared_syms[name] = (off, int(dyn_shared))
            self.shared_size = off + int(dyn_shared)
            self.shared_gap = (kernel.shared_size, off)
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
        # A block's shared memory starts as `shared_fill` bytes (0 by default; 0xff makes every
        # f16/bf16/f32 read of a byte no one wrote a NaN, as a GPU's leftover contents may be).
        self.shared = np.full(max(self.shared_size, 1), shared_fill, dtype=np.uint8)
        n = self.shared.size
        self.w_thread = np.full(n, -1, dtype=np.int64)
        self.w_end = np.full(n, -1, dtype=np.int64)
        self.r_thread = np.full(n, -1, dtype=np.int64)
        self.r_epoch = np.full(n, -1, dtype=np.int64)
        # When each byte was last read (the step), and by which warpgroup when a wgmma read it
        # (-1: a thread's read, r_thread): a write after the read is ordered by an mbarrier the
        # readers arrived on after reading and the writer then waited on (see _released).
        self.r_time = np.full(n, -1, dtype=np.int64)
        self.r_wg = np.full(n, -1, dtype=np.int64)
        self.clock = 0
        self.epoch = 0
        self.local = np.zeros((self.T, max(kernel.local_size, 1)), dtype=np.uint8)
        self.carry = np.zeros(self.T, dtype=np.uint64)
        self.pending = [[] for _ in range(self.T)]  # per thread: list of groups of copies
        self.open_group = [[] for _ in range(self.T)]
        # wgmma (see wgmma()): per warpgroup its fence flag, uncommitted and committed ops; the
        # accumulator and A registers of ops not yet waited for (name -> threads); and the shared
        # bytes written through the generic proxy since their writer's fence.proxy.async.
        self.wgs = [{"fenced": False, "open": [], "groups": []} for _ in range((self.T + 127) // 128)]
        self.wg_busy = {}
        self.wg_a_busy = {}
        self.generic_dirty = np.zeros(n, dtype=bool)
        self.wg_reading = np.zeros(n, dtype=bool)  # shared bytes an in-flight wgmma reads
        # mbarriers (see mbarrier()): shared offset -> state; per thread and barrier the latest
        # phase the thread observed (a successful try_wait.parity); the threads blocked in a
        # try_wait (they retry when a barrier changes).
        self.mbars = {}
        self.obs = np.full((self.T, 4), -1, dtype=np.int64)
        # Per thread and thread: the latest step of that thread's mbarrier arrivals this thread
        # has acquired (a successful try_wait on a phase they completed): see _released.
        self.acq = np.full((self.T, self.T), -1, dtype=np.int64)
        self.blocked = np.zeros(self.T, dtype=bool)
        self.parked = np.zeros(self.T, dtype=bool)  # threads waiting in a bar.sync for the others
        # Named barriers (see named_barrier()): id -> arrivals of the current phase, its thread
        # count, the waiting threads and the instruction of the first arrival; the threads
        # waiting at one.
        self.nbars = {}
        self.nbar_wait = np.zeros(self.T, dtype=bool)
        self.blocked_on = {}
        # TMA copies (cp.async.bulk.tensor): per shared byte the copy that last wrote it (-1: none
        # or a generic write since); per copy its barrier's index, the phase its complete_tx
        # counts toward, and the issuing thread.
        self.tma_copy = np.full(n, -1, dtype=np.int64)
        self.copy_bar = np.zeros(0, dtype=np.int64)
        self.copy_phase = np.zeros(0, dtype=np.int64)
        self.copy_thread = np.zeros(0, dtype=np.int64)
        # Programmatic dependent launch: the threads past their griddepcontrol.wait; the
        # instruction being executed and its threads (for the check of global accesses).
        self.grid_waited = np.zeros(self.T, dtype=bool)
        self.current = None

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
        if s in self.shared_syms:
            return np.full(self.T, self.shared_syms[s][0], dtype=np.uint64)
        if s == self.k.local_name:
            return np.zeros(self.T, dtype=np.uint64)
        if s in self.k.globals:
            key = id(self.mem)
            if (key, s) not in self.k.global_bases:
                self.k.global_bases[(key, s)] = self.mem.alloc(np.frombuffer(self.k.globals[s], np.uint8))
            return np.full(self.T, self.k.global_bases[(key, s)], dtype=np.uint64)
        if s.startswith("0f"):
            return np.full(self.T, int(s[2:], 16), dtype=np.uint64)
        if s.startswith("0d"):
            return np.full(self.T, int(s[2:], 16), dtype=np.uint64)
        v = int(s[:-1] if s.endswith("U") else s, 0)  # PTX integer literals: 0x3340U
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
        if (a < 0).any() or (a + size > self.shared_size).any():
            raise SimError(f"{what}: shared access outside the block's shared memory")
        g0, g1 = self.shared_gap
        if g1 > g0 and ((a < g1) & (a + size > g0)).any():
            bad = int(a[(a < g1) & (a + size > g0)][0])
            raise SimError(f"{what}: shared access at {bad}, before the dynamic shared memory (at {g1}) and "
                           "past the static shared variables")
        return a

    def shared_read(self, addrs, size, readers, what):
        """Bytes [a, a + size) for each address; readers[j] is the thread (or array of threads)
        that reads row j. Vectorised race check against writes since the last barrier."""
        a = self._shared_span(addrs, size, what)
        span = np.arange(size)
        rows = [np.atleast_1d(r) for r in readers] if isinstance(readers, list) else \
            [np.atleast_1d(r) for r in np.asarray(readers)]
        counts = np.array([len(r) for r in rows])
        T = np.repeat(np.concatenate(rows), size)
        B = (np.repeat(a, counts)[:, None] + span).ravel()
        w = self.w_thread[B]
        bad = (w >= 0) & (w != T) & (self.w_end[B] >= self.epoch)
        if bad.any():
            k = int(np.argmax(bad))
            raise SimError(f"{what}: shared race: thread {int(T[k])} reads bytes at {int(B[k])} that "
                           f"thread {int(w[k])} wrote (or is copying into) since the last barrier")
        self._tma_visible(B, T, what)
        self._note_readers(B, T)
        return self.shared[a[:, None] + span]

    def _note_readers(self, B, T):
        ub, inv = np.unique(B, return_inverse=True)
        tmin = np.full(len(ub), np.iinfo(np.int64).max, dtype=np.int64)
        tmax = np.full(len(ub), -1, dtype=np.int64)
        np.minimum.at(tmin, inv, T)
        np.maximum.at(tmax, inv, T)
        prev_r, prev_e = self.r_thread[ub], self.r_epoch[ub]
        single = (tmin == tmax) & ((prev_e != self.epoch) | (prev_r == tmin))
        self.r_thread[ub] = np.where(single, tmin, -2)
        self.r_epoch[ub] = self.epoch
        self.r_time[ub] = self.clock
        self.r_wg[ub] = -1

    def _released(self, B, T):
        """Whether the reads of bytes B (since the last barrier) happen before writes by threads
        T through an mbarrier: the reader (every warp of the reading warpgroup, for a wgmma's
        read) arrived on an mbarrier after the read, and the writer then observed a phase that
        arrival completed (acq: per writer and thread, the latest step of that thread's arrivals
        the writer has acquired)."""
        rt, rw, tm = self.r_thread[B], self.r_wg[B], self.r_time[B]
        ok = np.zeros(B.size, dtype=bool)
        single = rt >= 0
        if single.any():
            ok[single] = self.acq[T[single], rt[single]] >= tm[single]
        byw = (rt == -2) & (rw >= 0)
        if byw.any():
            warps = self.acq.reshape(self.T, -1, 32).max(axis=2) if self.T % 32 == 0 else None
            if warps is not None:
                w4 = rw[byw][:, None] * 4 + np.arange(4)
                ok[byw] = (warps[T[byw][:, None], w4] >= tm[byw][:, None]).all(axis=1)
        return ok

    def _write_check(self, B, T, what):
        rt = self.r_thread[B]
        bad = (self.r_epoch[B] == self.epoch) & (rt != T)
        if bad.any():
            bad &= ~self._released(B, T)
        if bad.any():
            k = int(np.argmax(bad))
            raise SimError(f"{what}: shared race: thread {int(T[k])} writes bytes at {int(B[k])} read by another "
                           "thread since the last barrier")
        w = self.w_thread[B]
        bad = (w >= 0) & (w != T) & (self.w_end[B] >= self.epoch)
        if bad.any():
            k = int(np.argmax(bad))
            raise SimError(f"{what}: shared race: threads {int(T[k])} and {int(w[k])} write bytes at {int(B[k])} "
                           "between two barriers")
        ub, inv = np.unique(B, return_inverse=True)
        if len(ub) != len(B):
            tmin = np.full(len(ub), np.iinfo(np.int64).max, dtype=np.int64)
            tmax = np.full(len(ub), -1, dtype=np.int64)
            np.minimum.at(tmin, inv, T)
            np.maximum.at(tmax, inv, T)
            if (tmin != tmax).any():
                k = int(np.argmax(tmin != tmax))
                raise SimError(f"{what}: shared race: threads {int(tmin[k])} and {int(tmax[k])} write bytes at "
                               f"{int(ub[k])} between two barriers")

    def shared_write_check(self, a, size, t, what):
        B = a + np.arange(size)
        self._write_check(B, np.full(size, t, dtype=np.int64), what)

    def shared_write(self, addrs, data, writers, what):
        size = data.shape[1]
        a = self._shared_span(addrs, size, what)
        span = np.arange(size)
        B = (a[:, None] + span).ravel()
        T = np.repeat(np.asarray(writers, dtype=np.int64), size)
        self._write_check(B, T, what)
        self.shared[a[:, None] + span] = data
        self.w_thread[B] = T
        self.w_end[B] = self.epoch
        self.generic_dirty[B] = True
        self.tma_copy[B] = -1

    def _tma_visible(self, B, T, what, obs=None):
        """Bytes B read by threads T (or by a warpgroup whose per-barrier observed phases are
        `obs`): bytes a TMA copy wrote are visible only once the reader observed the mbarrier
        phase the copy's complete_tx counted toward."""
        c = self.tma_copy[B]
        sel = c >= 0
        if not sel.any():
            return
        c = c[sel]
        bar, ph = self.copy_bar[c], self.copy_phase[c]
        seen = obs[bar] if obs is not None else self.obs[np.asarray(T)[sel], bar]
        bad = seen < ph
        if bad.any():
            j = int(np.argmax(bad))
            off = [o for o, st in self.mbars.items() if st["idx"] == int(bar[j])]
            who = f"thread {int(np.asarray(T)[sel][j])}" if obs is None else T
            raise SimError(f"{what}: {who} reads shared bytes at {int(B[sel][j])} written by the TMA copy "
                           f"(cp.async.bulk.tensor) of thread {int(self.copy_thread[c[j]])}: read before the "
                           f"mbarrier phase that completes its TMA copy was waited for (mbarrier at "
                           f"{off[0] if off else '?'}, phase {int(ph[j])})")

    # -- execution -------------------------------------------------------------------------
    def _grid_dep_guard(self):
        op, m = self.current
        early = m & ~self.grid_waited
        if early.any():
            raise SimError(f"{op}: global memory access by thread {int(np.nonzero(early)[0][0])} before its "
                           "griddepcontrol.wait (a kernel launched as a programmatic dependent may run while "
                           "the kernel before it still does)")

    def run(self, max_steps=5_000_000):
        k = self.k
        self.mem.guard = self._grid_dep_guard if k.grid_dep else None
        pc = np.zeros(self.T, dtype=np.int64)
        done = np.zeros(self.T, dtype=bool)
        steps = 0
        while not done.all():
            steps += 1
            self.clock = steps
            if steps > max_steps:
                raise SimError("too many steps (an endless loop?)")
            runnable = (~done) & (~self.blocked) & (~self.parked) & (~self.nbar_wait)
            if not runnable.any():
                self._deadlock(pc)
            p = pc[runnable].min()
            mask = runnable & (pc == p)
            pred, op, ops = k.instrs[p]
            exec_mask = mask.copy()
            if pred is not None:
                pv = self.reg(pred[1])
                exec_mask &= (~pv if pred[0] else pv)
            base = op.split(".")[0]
            named = self._is_named_barrier(op, ops)
            width = 32 if named else self._collective_width(base)
            if width:
                # A collective (bar.sync, warp and warpgroup ops) runs once every live thread of
                # its group is there: threads that reach it first wait (parked) while the others,
                # diverged at higher program counters (a branch whose join lies at a lower
                # address, as LLVM lays out loop latches), catch up.
                arrived = mask | (self.parked & (pc == p) & ~done)
                live = ~done
                if self.T % width == 0:
                    ag, lg = arrived.reshape(-1, width), live.reshape(-1, width)
                    ready = np.repeat(ag.any(axis=1) & (ag == lg).all(axis=1), width)
                else:
                    ready = np.zeros(self.T, dtype=bool)
                    for g0 in range(0, self.T, width):
                        sl = slice(g0, g0 + width)
                        if arrived[sl].any() and (arrived[sl] == live[sl]).all():
                            ready[sl] = True
                ready &= arrived
                self.parked = (self.parked | arrived) & ~ready
                mask = arrived
                nxt = np.where(ready, p + 1, p)
                if not ready.any():
                    pc = np.where(mask, nxt, pc)
                    continue
                exec_mask = ready.copy()
                if pred is not None:
                    exec_mask &= (~pv if pred[0] else pv)
                if named:
                    # Released waiters elsewhere move on in place; the warps of this step that
                    # must wait stay here.
                    self.stats["nbar"] = self.stats.get("nbar", 0) + 1
                    if self.wg_busy:
                        self.wgmma_hazard(op, ops, exec_mask)
                    wait = self.named_barrier(op, ops, exec_mask, ready, pc)
                    nxt = np.where(ready & ~wait, p + 1, p)
                    pc = np.where(mask, nxt, pc)
                    continue
                self.stats[base] = self.stats.get(base, 0) + 1
                if self.wg_busy and base != "wgmma":
                    self.wgmma_hazard(op, ops, exec_mask)
                self.execute(op, ops, exec_mask, ready, done)
                pc = np.where(mask, nxt, pc)
                continue
            # (L2 prefetches apart from the cp.async copies the tests count)
            key = "prefetch" if op.startswith("cp.async.bulk.prefetch") else op.split(".")[0]
            self.stats[key] = self.stats.get(key, 0) + 1
            nxt = np.full(self.T, p + 1, dtype=np.int64)
            if base == "bra":
                target = k.labels[ops[0]]
                nxt = np.where(exec_mask, target, p + 1)
            elif base == "mbarrier" and op.split(".")[1] in ("try_wait", "test_wait"):
                # A failed wait blocks its thread at the wait (the wait loop's retry) until some
                # mbarrier changes; when every live thread is blocked, that is a deadlock.
                ok = self.mbarrier(op, ops, exec_mask, done)
                nxt = np.where(exec_mask & ~ok, p, p + 1)
            elif base == "ret" or base == "exit":
                done |= exec_mask
            else:
                if self.wg_busy and base != "wgmma":
                    self.wgmma_hazard(op, ops, exec_mask)
                self.execute(op, ops, exec_mask, mask, done)
            pc = np.where(mask, nxt, pc)
        for i, st in sorted(self.nbars.items()):
            if st["count"]:
                raise SimError(f"{st['op']}: named barrier {i} left with {st['count']} of its {st['n']} arrivals "
                               "when the block exited (unbalanced arrivals: some phase never completed)")
        return steps

    @staticmethod
    def _is_named_barrier(op, ops):
        """bar.arrive / barrier.arrive, and bar.sync / barrier.sync with a thread count or a
        barrier other than the literal 0 (bar.sync 0: the block-wide barrier)."""
        parts = op.split(".")
        if parts[0] not in ("bar", "barrier") or len(parts) < 2:
            return False
        if parts[1] == "arrive":
            return True
        return parts[1] == "sync" and (len(ops) > 1 or ops[0] != "0")

    def named_barrier(self, op, ops, m, ready, pc):
        """Threads m (whole warps: ready is the warps gathered at the instruction) arrive on
        the named barrier ops[0] expecting ops[1] threads (all of the block when absent); returns
        the threads of m that now wait. Waiters of a phase this step completes, parked at their
        own instruction, are released in place (pc + 1)."""
        sync = op.split(".")[1] == "sync"
        ids = self.value(ops[0]).astype(np.int64)
        ns = self.value(ops[1]).astype(np.int64) if len(ops) > 1 else np.full(self.T, self.T, dtype=np.int64)
        wait = np.zeros(self.T, dtype=bool)
        for w0 in range(0, self.T, 32):
            sl = slice(w0, w0 + 32)
            if not ready[sl].any():
                continue
            if not m[sl].any():
                continue  # the whole warp's predicate is false: it skips the barrier
            if (m[sl] != ready[sl]).any():
                raise SimError(f"{op}: executed by only some threads of warp {w0 // 32} (a predicate that "
                               "differs within the warp)")
            i, n = ids[sl][m[sl]], ns[sl][m[sl]]
            if (i != i[0]).any() or (n != n[0]).any():
                raise SimError(f"{op}: the barrier or thread count differs within warp {w0 // 32}")
            i, n = int(i[0]), int(n[0])
            if not 0 <= i <= 15:
                raise SimError(f"{op}: barrier {i} outside 0..15")
            if i == 0:
                raise SimError(f"{op}: barrier 0 with a thread count or from a register (the interpreter "
                               "models barrier 0 as the block-wide bar.sync 0 only)")
            if n <= 0 or n % 32 or n > (self.T + 31) // 32 * 32:
                raise SimError(f"{op}: thread count {n} of barrier {i} is not a positive multiple of 32 "
                               f"up to the block's {self.T} threads")
            st = self.nbars.setdefault(i, {"count": 0, "n": n, "waiters": np.zeros(self.T, dtype=bool),
                                           "op": op})
            if st["count"] == 0:
                st["n"], st["op"] = n, op
            elif st["n"] != n:
                raise SimError(f"{op}: warp {w0 // 32} expects {n} threads at barrier {i}, whose phase the "
                               f"warps before it began expecting {st['n']}")
            st["count"] += 32
            if sync:
                st["waiters"][sl] = True
                wait[sl] = True
            if st["count"] == st["n"]:
                w = st["waiters"]
                elsewhere = w & self.nbar_wait
                pc[elsewhere] += 1
                self.nbar_wait &= ~w
                wait &= ~w
                st["count"], st["waiters"] = 0, np.zeros(self.T, dtype=bool)
        self.nbar_wait |= wait
        return wait

    def _collective_width(self, base):
        if base in ("bar", "barrier"):
            return self.T
        if base == "wgmma":
            return 128  # the aligned warpgroup, also in a block with a trailing partial one
        if base in ("ldmatrix", "mma", "shfl", "vote"):
            return 32
        return 0

    def _deadlock(self, pc):
        nb = [(i, st) for i, st in sorted(self.nbars.items()) if st["waiters"].any()]
        if nb and not self.blocked.any():
            i, st = nb[0]
            t = int(np.nonzero(st["waiters"])[0][0])
            others = "".join(f"; barrier {j}: {s['count']} of {s['n']} arrived" for j, s in nb[1:])
            parked = int(self.parked.sum())
            raise SimError(f"{self.k.instrs[int(pc[t])][1]}: deadlock: every live thread waits at a barrier "
                           f"(named barrier {i}: {st['count']} of its {st['n']} threads arrived, thread {t} "
                           f"waits there{others}"
                           + (f"; {parked} threads wait at a collective (bar.sync, wgmma, ...)" if parked else "")
                           + ")")
        if not self.blocked.any():
            # Only threads waiting at collectives whose groups never complete.
            t = int(np.nonzero(self.parked)[0][0])
            op = self.k.instrs[int(pc[t])][1]
            width = self._collective_width(op.split(".")[0])
            group = {32: "warp", 128: "warpgroup"}.get(width, "block") if width != self.T else "block"
            raise SimError(f"{op}: reached by only some threads of a {group} (thread {t} waits there; "
                           "the others of its group have left or wait elsewhere)")
        t = int(np.nonzero(self.blocked)[0][0])
        parked = int(self.parked.sum())
        off, parity = self.blocked_on[t]
        st = self.mbars[off]
        raise SimError(f"mbarrier.try_wait.parity: deadlock: every live thread waits on an mbarrier (thread {t} "
                       f"on the mbarrier at shared offset {off} for the phase of parity {parity}; its phase "
                       f"{st['phase']} has {st['pending']} arrivals and {st['tx']} transaction bytes pending "
                       "and nothing else can run" + (f"; {parked} threads wait at a collective (bar.sync, wgmma, ...)" if parked else "")
                       + (f"; {int(self.nbar_wait.sum())} threads wait at named barriers" if self.nbar_wait.any() else "") + ")")

    # -- mbarrier (PTX ISA "Parallel Synchronization and Communication Instructions: mbarrier") --
    # An 8-byte object in shared memory: its current phase, the expected arrival count, the
    # arrivals still pending in this phase and the transaction count (tx). The phase completes
    # when no arrivals and no transaction bytes are pending; then the phase number increases and
    # the pending count is reset to the expected count. try_wait.parity P succeeds when the
    # phase of parity P has completed, i.e. the current phase's parity differs from P; a thread
    # whose wait succeeds has observed the phase before the current one (TMA bytes it helped
    # complete become visible to that thread; bar.sync passes what a thread observed on to the
    # block).
    def _mbar(self, addr, what, init=False, t=None):
        a = int(addr)
        if a >= SHARED_WINDOW:
            raise SimError(f"{what}: mbarrier address {a:#x} is a generic address, not a shared one")
        if a % 8:
            raise SimError(f"{what}: mbarrier at shared offset {a} is not 8-byte aligned")
        if a < 0 or a + 8 > self.shared_size or self.shared_gap[0] <= a < self.shared_gap[1]:
            raise SimError(f"{what}: mbarrier at shared offset {a} outside the block's shared memory "
                           f"({self.shared_size} bytes)")
        st = self.mbars.get(a)
        if not init and (st is None or not st["init"]):
            raise SimError(f"{what}: use of the uninitialised mbarrier at shared offset {a}")
        if not init and t is not None and st["init_epoch"] == self.epoch and int(t) != st["init_thread"]:
            raise SimError(f"{what}: thread {int(t)} uses the mbarrier at shared offset {a} that thread "
                           f"{st['init_thread']} initialised with no bar.sync in between")
        return a, st

    def _mbar_changed(self, a, st, what):
        # The transaction count may be negative for a while (PTX ISA: -(2^20-1) .. 2^20-1: a
        # complete_tx may come before its expect_tx), not once every arrival is in.
        if st["tx"] < 0 and (st["pending"] == 0 or st["tx"] <= -(1 << 20)):
            raise SimError(f"{what}: the transaction count of the mbarrier at shared offset {a} went negative "
                           f"({st['tx']}: more bytes completed than expected in phase {st['phase']})")
        if st["tx"] >= (1 << 20):
            raise SimError(f"{what}: the transaction count of the mbarrier at shared offset {a} exceeds 2^20-1")
        if st["pending"] < 0:
            raise SimError(f"{what}: more arrivals than the expected count {st['count']} on the mbarrier at "
                           f"shared offset {a} in phase {st['phase']}")
        if st["pending"] == 0 and st["tx"] == 0:
            st["phase"] += 1
            st["pending"] = st["count"]
            np.maximum(st["released"], st["arrived"], out=st["released"])
            st["arrived"][:] = -1
        self.blocked[:] = False

    def mbarrier(self, op, ops, m, done):
        """mbarrier.init / arrive / arrive.expect_tx / expect_tx / try_wait.parity / inval; returns
        the threads whose wait succeeded (try_wait)."""
        parts = op.split(".")
        sub = parts[1]
        idx = np.nonzero(m)[0]
        ok = np.zeros(self.T, dtype=bool)
        if sub == "try_wait" or sub == "test_wait":
            if "parity" not in parts:
                raise SimError(f"{op} not supported by the simulator (the .parity form only)")
            pred, addr, par = ops[0], self.address(ops[1]), self.value(ops[2])
            for t in idx:
                a, st = self._mbar(addr[t], op, t=t)
                want = int(par[t]) & 1
                if (st["phase"] & 1) != want:
                    ok[t] = True
                    i = st["idx"]
                    self.obs[t, i] = max(self.obs[t, i], st["phase"] - 1)
                    # What the arrivals of the completed phases released.
                    np.maximum(self.acq[t], st["released"], out=self.acq[t])
                else:
                    self.blocked[t] = True
                    self.blocked_on[int(t)] = (a, want)
            self.set(pred, ok, m, 1)
            return ok
        if sub == "init":
            addr, cnt = self.address(ops[0]), self.value(ops[1])
            for t in idx:
                a, st = self._mbar(addr[t], op, init=True)
                if st is not None and st["init"] and (st["tx"] != 0 or st["pending"] != st["count"]):
                    raise SimError(f"{op}: init of the mbarrier at shared offset {a} while it is in use (phase "
                                   f"{st['phase']}: {st['count'] - st['pending']} arrivals, {st['tx']} transaction "
                                   "bytes pending)")
                c = int(cnt[t]) & _u(32)
                if not 1 <= c < (1 << 20):
                    raise SimError(f"{op}: mbarrier count {c} outside 1..2^20-1")
                i = st["idx"] if st is not None else len(self.mbars)
                if i >= self.obs.shape[1]:
                    self.obs = np.concatenate([self.obs, np.full_like(self.obs, -1)], axis=1)
                self.obs[:, i] = -1
                self.mbars[a] = dict(idx=i, init=True, count=c, pending=c, tx=0, phase=0, init_thread=int(t),
                                     init_epoch=self.epoch,
                                     # per thread: the step of its latest arrival in the current
                                     # phase, and in the completed ones
                                     arrived=np.full(self.T, -1, dtype=np.int64),
                                     released=np.full(self.T, -1, dtype=np.int64))
            self.blocked[:] = False
            return ok
        if sub == "inval":
            addr = self.address(ops[0])
            for t in idx:
                a, st = self._mbar(addr[t], op, t=t)
                st["init"] = False
            return ok
        if sub in ("arrive", "expect_tx"):
            expect = sub == "expect_tx" or "expect_tx" in parts
            rest = ops if sub == "expect_tx" else ops[1:]
            dst = None if sub == "expect_tx" else ops[0]
            addr = self.address(rest[0])
            arg = self.value(rest[1]) if len(rest) > 1 else None
            state = np.zeros(self.T, dtype=np.uint64)
            for t in idx:
                a, st = self._mbar(addr[t], op, t=t)
                state[t] = st["phase"]
                if expect:
                    st["tx"] += int(arg[t]) & _u(32)
                    if sub == "expect_tx":
                        self._mbar_changed(a, st, op)
                        continue
                    n = 1
                else:
                    n = int(arg[t]) & _u(32) if arg is not None else 1
                st["pending"] -= n
                st["arrived"][t] = self.clock
                self._mbar_changed(a, st, op)
            if dst not in (None, "_"):
                self.set(dst, state, m, 64)
            return ok
        raise SimError(f"{op} not supported by the simulator")

    def convert(self, op, parts, ops, m):
        dty, sty = parts[-2], parts[-1]
        mods = parts[1:-2]
        a = self.value(ops[1])
        if dty in ("bf16x2", "f16x2"):
            # PTX ISA, cvt: two .f32 inputs a, b converted to .f16/.bf16 and packed, the value
            # from a in the upper half of d, the one from b in the lower half.
            if sty != "f32" or len(ops) != 3 or [x for x in mods if x != "rn"]:
                raise SimError(f"{op} not supported")
            hi = _round(_f32(a).astype(np.float64), dty[:-2])
            lo = _round(_f32(self.value(ops[2])).astype(np.float64), dty[:-2])
            self.set(ops[0], (hi << np.uint64(16)) | lo, m, 32)
            return
        rnd = next((x for x in mods if x in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi")), None)
        sat = "sat" in mods
        isint = lambda t: t[0] in "us" or (t[0] == "b" and t[1:].isdigit())
        if isint(sty) and isint(dty):
            sb_ = int(sty[1:])
            v = a & np.uint64(_u(sb_))
            if sty[0] == "s" and int(dty[1:]) > sb_:
                sign = (v >> np.uint64(sb_ - 1)) & np.uint64(1)
                v = np.where(sign == 1, v | np.uint64(_u(64) ^ _u(sb_)), v)
            self.set(ops[0], v, m, int(dty[1:]))
            return
        if isint(sty):  # integer -> float
            sb_ = int(sty[1:])
            v = a & np.uint64(_u(sb_))
            if sty[0] == "s":
                sign = (v >> np.uint64(sb_ - 1)) & np.uint64(1)
                iv = np.where(sign == 1, v.astype(np.int64) - (1 << sb_) if sb_ < 64 else v.astype(np.int64),
                              v.astype(np.int64)) if sb_ < 64 else v.view(np.int64)
                x = iv.astype(np.float64)
            else:
                x = v.astype(np.float64)
            self.set(ops[0], _round(x, dty, rnd or "rn"), m, int(dty[1:]) if dty[1:].isdigit() else 16)
            return
        x = _fval(a, sty).astype(np.float64)
        if "ftz" in mods:
            x = _ftz(_fval(a, sty)).astype(np.float64)
        if isint(dty):  # float -> integer: rounded, clamped to the range, NaN -> 0
            f = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}.get(rnd)
            if f is None:
                raise SimError(f"{op}: float-to-integer conversion needs an integer rounding mode")
            db = int(dty[1:])
            lo, hi = (-(1 << (db - 1)), (1 << (db - 1)) - 1) if dty[0] == "s" else (0, _u(db))
            with np.errstate(invalid="ignore"):
                y = np.clip(np.nan_to_num(f(x), nan=0.0), lo, hi)
            iv = np.array([int(t) & _u(64) for t in y], dtype=np.uint64)
            self.set(ops[0], iv, m, db)
            return
        # float -> float
        if rnd in ("rni", "rzi", "rmi", "rpi"):
            x = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[rnd](x)
            rnd = "rn"
        if sat:
            with np.errstate(invalid="ignore"):
                x = np.where(np.isnan(x), 0.0, np.clip(x, 0.0, 1.0))
        r = _round(x, dty, rnd or "rn")
        if "ftz" in mods and dty in ("f32",):
            r = _from_f32(_ftz(_f32(r)))
        self.set(ops[0], r, m, {"f32": 32, "f64": 64, "f16": 16, "bf16": 16}[dty])

    def float_op(self, op, parts, ops, m):
        base, ty = parts[0], parts[-1]
        mode = next((x for x in parts[1:] if x in ("rn", "rz", "rm", "rp")), "rn")
        approx = "approx" in parts or "full" in parts
        ftz = "ftz" in parts
        if ty.endswith("x2"):  # packed halves: the op on each 16-bit lane
            h = ty[:-2]
            out = np.zeros(self.T, dtype=np.uint64)
            for lane in (0, 1):
                args = [((self.value(o) >> np.uint64(16 * lane)) & np.uint64(0xFFFF)) for o in ops[1:]]
                r = self._float_compute(base, h, mode, approx, False, args, op, parts)
                out |= (r & np.uint64(0xFFFF)) << np.uint64(16 * lane)
            self.set(ops[0], out, m, 32)
            return
        args = [self.value(o) for o in ops[1:]]
        r = self._float_compute(base, ty, mode, approx, ftz, args, op, parts)
        self.set(ops[0], r, m, {"f32": 32, "f64": 64, "f16": 16, "bf16": 16}[ty])

    def _float_compute(self, base, ty, mode, approx, ftz, args, op, parts):
        f = [_fval(x, ty) for x in args]
        if ftz and ty == "f32":
            f = [_ftz(x) for x in f]
        d = [x.astype(np.float64) for x in f]
        with np.errstate(all="ignore"):
            if base in ("add", "sub", "mul"):
                x = {"add": d[0] + d[1], "sub": d[0] - d[1], "mul": d[0] * d[1]}[base]
            elif base in ("fma", "mad"):
                if ty == "f64":
                    x = np.array([float(np.longdouble(a_) * b_ + c_) for a_, b_, c_ in zip(d[0], d[1], d[2])])
                else:
                    x = d[0] * d[1] + d[2]  # the f32 product is exact in f64
            elif base == "div":
                x = d[0] / d[1] if not (approx and ty == "f32") else (f[0] * (np.float32(1) / f[1])).astype(np.float64)
            elif base in ("max", "min"):
                g = np.fmax if base == "max" else np.fmin
                x = g(d[0], d[1])
                if "NaN" in parts:
                    x = np.where(np.isnan(d[0]) | np.isnan(d[1]), np.nan, x)
            elif base == "neg":
                x = -d[0]
            elif base == "abs":
                x = np.abs(d[0])
            elif base == "copysign":
                x = np.copysign(d[1], d[0])
            elif base == "ex2":
                x = np.exp2(f[0]).astype(np.float64)
            elif base == "lg2":
                x = np.log2(f[0]).astype(np.float64)
            elif base == "rcp":
                x = 1.0 / d[0]
            elif base == "sqrt":
                x = np.sqrt(d[0])
            elif base == "rsqrt":
                x = 1.0 / np.sqrt(d[0])
            elif base in ("sin", "cos", "tanh"):
                x = {"sin": np.sin, "cos": np.cos, "tanh": np.tanh}[base](f[0]).astype(np.float64)
            else:
                raise SimError(f"{op} not supported")
        r = _round(x, ty, mode)
        if ftz and ty == "f32":
            r = _from_f32(_ftz(_f32(r)))
        return r

    def collective(self, mask, done, width, what):
        # Per group: a group none of whose threads execute it now is elsewhere (a warp whose
        # uniform branch skipped the op); one that executes it must have all its live threads.
        live = ~done
        for w0 in range(0, self.T, width):
            sl = slice(w0, w0 + width)
            if mask[sl].any() and (mask[sl] != live[sl]).any():
                raise SimError(f"{what}: reached by only some threads of a {'warp' if width == 32 else 'block'}")

    def execute(self, op, ops, m, reached, done):
        self.current = (op, m)
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
            if ops[1].startswith("{"):  # pack: mov.b32 %r, {%rs1, %rs2}
                srcs = [x.strip() for x in ops[1].strip("{}").split(",")]
                w = bits // len(srcs)
                r = np.zeros(self.T, dtype=np.uint64)
                for i, x in enumerate(srcs):
                    r |= (self.value(x) & np.uint64(_u(w))) << np.uint64(i * w)
                self.set(ops[0], r, m, bits)
            elif ops[0].startswith("{"):  # unpack: mov.b32 {%rs1, %rs2}, %r
                dsts = [x.strip() for x in ops[0].strip("{}").split(",")]
                w = bits // len(dsts)
                a = src(1)
                for i, d in enumerate(dsts):
                    if d != "_":
                        self.set(d, a >> np.uint64(i * w), m, w)
            else:
                self.set(ops[0], src(1), m, bits)
        elif base == "ld" and parts[1] == "param":
            name = ops[1].strip("[]")
            size = bits // 8
            pname, _, off = name.partition("+")
            raw = self.params[pname]
            off = int(off or 0)
            dsts = [d.strip() for d in ops[0].strip("{}").split(",")]
            for i, d in enumerate(dsts):
                chunk = raw[off + i * size: off + (i + 1) * size]
                v = int.from_bytes(chunk, "little")
                self.set(d, np.full(self.T, v, dtype=np.uint64), m, bits)
        elif base in ("ld", "st") and parts[1] == "local":
            size = bits // 8
            idx = np.nonzero(m)[0]
            span = np.arange(size)
            if base == "ld":
                addrs = self.address(ops[1])[idx].astype(np.int64)
                regs = [d.strip() for d in ops[0].strip("{}").split(",")]
            else:
                addrs = self.address(ops[0])[idx].astype(np.int64)
                regs = [d.strip() for d in ops[1].strip("{}").split(",")]
            for i, r in enumerate(regs):
                a = addrs + i * size
                if (a < 0).any() or (a + size > self.k.local_size).any():
                    raise SimError(f"{op}: local access outside the thread's {self.k.local_size}-byte frame")
                if base == "ld":
                    v = np.zeros(self.T, dtype=np.uint64)
                    v[idx] = _bytes_to_uint(self.local[idx[:, None], a[:, None] + span])
                    self.set(r, v, m, bits)
                else:
                    self.local[idx[:, None], a[:, None] + span] = _uint_to_bytes(self.value(r)[idx], size)
        elif base == "cvta":
            # Shared addresses: cvta.shared moves them into the generic shared window,
            # cvta.to.shared(::cta / ::cluster: a one-CTA cluster, the CTA's own window) back.
            space = parts[2] if parts[1] == "to" else parts[1]
            a = src(1)
            if space.startswith("shared"):
                idx = np.nonzero(m)[0]
                if parts[1] == "to":
                    bad = (a[idx] < np.uint64(SHARED_WINDOW)) | (a[idx] > np.uint64(SHARED_WINDOW + self.shared_size))
                    if bad.any():
                        raise SimError(f"{op}: {int(a[idx][bad][0]):#x} is not a generic address of the block's "
                                       "shared memory")
                    a = a - np.uint64(SHARED_WINDOW)
                else:
                    if (a[idx] > np.uint64(self.shared_size)).any():
                        raise SimError(f"{op}: {int(a[idx].max()):#x} is not a shared address of the block")
                    a = a + np.uint64(SHARED_WINDOW)
            self.set(ops[0], a, m, 64 if ty.endswith("64") else 32)
        elif base == "mad" and "cc" in parts or base == "madc":
            # Extended-precision multiply-add with the carry flag (libdevice's inline asm).
            a, b, c = (src(i) & np.uint64(_u(bits)) for i in (1, 2, 3))
            prod = [int(x) * int(y) for x, y in zip(a, b)]
            part = [(p_ >> bits) if "hi" in parts else (p_ & _u(bits)) for p_ in prod]
            cin = [int(x) for x in self.carry] if base == "madc" else [0] * self.T
            full = [p_ + int(z) + ci for p_, z, ci in zip(part, c, cin)]
            r = np.array([f & _u(bits) for f in full], dtype=np.uint64)
            if "cc" in parts:
                cout = np.array([f >> bits for f in full], dtype=np.uint64)
                self.carry = np.where(m, cout, self.carry)
            self.set(ops[0], r, m, bits)
        elif base == "shf":
            a, b = src(1) & np.uint64(_u(32)), src(2) & np.uint64(_u(32))
            n = src(3) & np.uint64(_u(32))
            n = n & np.uint64(31) if "wrap" in parts else np.minimum(n, np.uint64(32))
            both = (b << np.uint64(32)) | a
            if parts[1] == "l":
                r = np.where(n == 32, a, ((both << n) >> np.uint64(32)) & np.uint64(_u(32)))
            else:
                r = np.where(n == 32, b, (both >> n) & np.uint64(_u(32)))
            self.set(ops[0], r, m, 32)
        elif base in ("popc", "clz", "brev"):
            a = src(1) & np.uint64(_u(bits))
            vals = [int(x) for x in a]
            if base == "popc":
                r = [bin(x).count("1") for x in vals]
            elif base == "clz":
                r = [bits - x.bit_length() for x in vals]
            else:
                r = [int(format(x, f"0{bits}b")[::-1], 2) for x in vals]
            self.set(ops[0], np.array(r, dtype=np.uint64), m, 32 if base != "brev" else bits)
        elif base in ("add", "sub", "mul", "mad", "and", "or", "xor", "shl", "shr", "div", "rem", "min", "max", "neg", "not", "abs") and ty[0] != "f" and ty not in ("bf16", "bf16x2"):
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
                    r = _mul_hi(sa, sb, ib, signed)
                    self.set(ops[0], r, m, bits)
                    return
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
        elif base == "dp4a":
            # PTX ISA "dp4a": d = c + sum over the four bytes i of ext(a.byte i) * ext(b.byte i),
            # each byte sign-extended for .s32 and zero-extended for .u32, the sum wrapping to 32
            # bits.
            def lanes(x, sgn):
                x = [int(v) & 0xFFFFFFFF for v in x]
                out = []
                for v in x:
                    bs = [(v >> (8 * i)) & 0xFF for i in range(4)]
                    out.append([b - 256 if sgn and b >= 128 else b for b in bs])
                return out
            av, bv = lanes(src(1), parts[1] == "s32"), lanes(src(2), parts[2] == "s32")
            cv = [int(v) & 0xFFFFFFFF for v in src(3)]
            r = [(cc + sum(x * y for x, y in zip(aa, bb))) & 0xFFFFFFFF
                 for aa, bb, cc in zip(av, bv, cv)]
            self.set(ops[0], np.array(r, dtype=np.uint64), m, 32)
        elif base == "prmt":
            # PTX ISA "prmt" (default mode only): the eight bytes {b, a} (a bytes 0-3, b bytes
            # 4-7); result byte i is the byte selected by bits 4i .. 4i + 2 of c, or, with bit
            # 4i + 3 set, that byte's sign bit replicated.
            if len(parts) != 2 or parts[1] != "b32":
                raise SimError(f"prmt: only the default mode of prmt.b32 is supported ({op})")
            a, bb, c = (src(i) & np.uint64(0xFFFFFFFF) for i in (1, 2, 3))
            both = a | (bb << np.uint64(32))
            r = np.zeros_like(a)
            for i in range(4):
                sel = (c >> np.uint64(4 * i)) & np.uint64(0xF)
                byte = (both >> ((sel & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
                sign = np.where((byte >> np.uint64(7)) & np.uint64(1) == 1, np.uint64(0xFF), np.uint64(0))
                byte = np.where(sel & np.uint64(8) != 0, sign, byte)
                r |= byte << np.uint64(8 * i)
            self.set(ops[0], r, m, 32)
        elif base == "bfe":
            a, pos, ln = src(1), src(2) & np.uint64(0xFF), src(3) & np.uint64(0xFF)
            ln = np.minimum(ln, np.uint64(bits))
            field = (a >> pos) & ((np.uint64(1) << ln) - np.uint64(1))
            if signed:
                top = (field >> np.maximum(ln, np.uint64(1)) - np.uint64(1)) & np.uint64(1)
                field = np.where((top == 1) & (ln > 0), field | ~((np.uint64(1) << ln) - np.uint64(1)), field)
            self.set(ops[0], field, m, bits)
        elif base == "cvt":
            self.convert(op, parts, ops, m)
        elif base == "setp":
            cmp, cty = parts[1], parts[2]
            cb = int(re.match(r"[bsuf](\d+)", cty).group(1))
            a, b = src(1), src(2)
            if cty[0] == "f":
                fa, fb = _fval(a, cty), _fval(b, cty)
                if "ftz" in parts:
                    fa, fb = _ftz(fa), _ftz(fb)
                nan = np.isnan(fa) | np.isnan(fb)
                with np.errstate(invalid="ignore"):
                    ordered = {"lt": fa < fb, "le": fa <= fb, "gt": fa > fb, "ge": fa >= fb, "eq": fa == fb,
                               "ne": (fa != fb) & ~nan}
                if cmp in ordered:
                    r = ordered[cmp] & ~nan
                elif cmp.endswith("u") and cmp[:-1] in ordered:
                    r = ordered[cmp[:-1]] | nan
                elif cmp == "num":
                    r = ~nan
                elif cmp == "nan":
                    r = nan
                else:
                    raise SimError(f"{op} not supported")
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
        elif base == "testp":
            f = _fval(src(1), ty)
            kind = parts[1]
            with np.errstate(invalid="ignore"):
                tiny = np.finfo(np.float32 if ty == "f32" else np.float64).tiny
                r = {"finite": np.isfinite(f), "infinite": np.isinf(f), "number": ~np.isnan(f),
                     "notanumber": np.isnan(f), "normal": np.isfinite(f) & (np.abs(f) >= tiny),
                     "subnormal": (np.abs(f) < tiny) & (f != 0)}[kind]
            self.set(ops[0], r, m, 1)
        elif ty in ("f32", "f64", "bf16", "f16", "bf16x2", "f16x2") and base in FLOAT_OPS:
            self.float_op(op, parts, ops, m)
        elif base in ("ld", "st") and (parts[1] in ("global", "shared", "shared::cta") or
                                       re.fullmatch(r"v\d|[bsuf]\d+", parts[1])):
            space = "shared" if parts[1].startswith("shared") else parts[1]
            if space not in ("global", "shared"):
                # A generic address: the shared window or global memory (one of them per access).
                idx = np.nonzero(m)[0]
                a = self.address(ops[1] if base == "ld" else ops[0])[idx]
                win = a >= np.uint64(SHARED_WINDOW)
                if win.any() and not win.all():
                    raise SimError(f"{op}: generic accesses to shared and global memory in one instruction "
                                   "(not supported by the simulator)")
                space = "shared" if win.any() else "global"
                if win.any():
                    k_ = 1 if base == "ld" else 0
                    ops = list(ops)
                    mm_ = re.match(r"^\[([^\]+]+)(?:\+(-?\d+))?\]$", ops[k_])
                    tmp = "%__generic_shared"
                    self.set(tmp, self.value(mm_.group(1)) - np.uint64(SHARED_WINDOW), m, 64)
                    ops[k_] = f"[{tmp}+{mm_.group(2) or 0}]"
            vec = 4 if "v4" in parts else 2 if "v2" in parts else 1
            size = bits // 8
            idx = np.nonzero(m)[0]
            whole = self.address(ops[1] if base == "ld" else ops[0])[idx]
            if (whole % np.uint64(vec * size)).any():
                raise SimError(f"{op}: address not aligned to the {vec * size}-byte access")
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
                    if signed and bits < 64:
                        # PTX ISA "ld": a signed type narrower than the destination register is
                        # sign-extended to the register's width (here: to 64 bits; readers take
                        # their own width).
                        self.set(d, sval(v).astype(np.uint64), m, 64)
                    else:
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
                if d < 0 or d + cp > self.shared_size:
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
                        self.generic_dirty[d:d + cp] = True
                        self.tma_copy[d:d + cp] = -1
        elif base == "bar" or base == "barrier":
            if (self.blocked & ~done).any():
                t = int(np.nonzero(self.blocked & ~done)[0][0])
                off, parity = self.blocked_on[t]
                st = self.mbars[off]
                raise SimError(f"{op}: deadlock: waits for thread {t}, which waits on the mbarrier at shared offset "
                               f"{off} for the phase of parity {parity} (its phase {st['phase']} has "
                               f"{st['pending']} arrivals and {st['tx']} transaction bytes pending)")
            self.collective(m, done, self.T, op)
            self.epoch += 1
            # What each thread observed of the mbarriers is passed on to the whole block.
            self.obs[:] = self.obs.max(axis=0)
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
        elif base == "mma" and parts[3] == "m16n8k32":
            self.collective(m, done, 32, op)
            self.mma_s8(op, parts, ops, m)
        elif base == "mma":
            self.collective(m, done, 32, op)
            shape = parts[3]
            if shape != "m16n8k16" or parts[4:6] != ["row", "col"]:
                raise SimError(f"{op} not supported")
            dty, aty, bty, cty = parts[6:10]
            regs = [[x.strip() for x in o.strip("{}").split(",")] for o in ops]
            D, A, B, C = regs
            g, q = _GROUP, _IN_GROUP
            for sl in self.warps(m):
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
        elif base == "vote":
            # vote.sync.{any,all,uni}.pred d, [!]a, membermask; vote.sync.ballot.b32 d, [!]a, mask:
            # over the warp's lanes that execute it, every one of which must be in the mask.
            self.collective(m, done, 32, op)
            kind = parts[2]
            neg = ops[1].startswith("!")
            a = self.reg(ops[1].lstrip("!")).astype(bool)
            if neg:
                a = ~a
            member = self.value(ops[2]).astype(np.uint64)
            out = np.zeros(self.T, dtype=np.uint64)
            for w0 in range(0, self.T, 32):
                sl = slice(w0, w0 + 32)
                lanes = m[sl]
                if not lanes.any():
                    continue
                bits = (member[sl] >> np.arange(32, dtype=np.uint64)) & np.uint64(1)
                if (lanes & (bits == 0)).any():
                    raise SimError(f"{op}: a lane outside its membermask executes it")
                av = a[sl][lanes]
                if kind == "any":
                    r = int(av.any())
                elif kind == "all":
                    r = int(av.all())
                elif kind == "uni":
                    r = int(av.all() or not av.any())
                elif kind == "ballot":
                    r = int(sum(1 << i for i in range(32) if lanes[i] and a[sl][i]))
                else:
                    raise SimError(f"instruction {op!r} not supported by the simulator")
                out[sl] = r
            if kind == "ballot":
                self.set(ops[0], out, m, 32)
            else:
                self.set(ops[0], out.astype(bool), m, 1)
        elif base == "wgmma":
            self.wgmma(op, parts, ops, m, done)
        elif base == "mbarrier":
            self.mbarrier(op, ops, m, done)
        elif base == "fence" and parts[1] == "mbarrier_init":
            pass  # orders the inits before the async proxy's (TMA's) complete_tx: nothing to model
        elif base == "griddepcontrol" and parts[1] == "wait":
            # The grids before this one have completed (the simulator runs kernels one after
            # another): from here on the thread may access global memory.
            self.grid_waited |= m
            self.stats["grid_waits"] = self.stats.get("grid_waits", 0) + int(m.sum())
        elif base == "griddepcontrol" and parts[1] == "launch_dependents":
            pass  # lets the next kernel be scheduled early: nothing to model
        elif base == "cp" and parts[1:4] == ["async", "bulk", "prefetch"]:
            # cp.async.bulk.prefetch.L2.global [a], size: a hint that reads nothing into the
            # kernel; allowed before griddepcontrol.wait, but it must lie within one buffer,
            # 16-byte aligned and a multiple of 16 bytes.
            if parts[4:6] != ["L2", "global"]:
                raise SimError(f"instruction {op!r} not supported by the simulator")
            idx = np.nonzero(m)[0]
            a = self.address(ops[0])[idx]
            size = self.value(ops[1])[idx]
            for ai, si in zip(a, size):
                if int(ai) % 16 or int(si) % 16 or int(si) == 0:
                    raise SimError(f"{op}: {int(si)} bytes at {int(ai):#x}: address and size must be "
                                   "multiples of 16 (size > 0)")
                self.mem._locate(np.array([ai], dtype=np.uint64), int(si), op)
            self.stats["prefetch_bytes"] = self.stats.get("prefetch_bytes", 0) + int(size.sum())
        elif base == "cp" and parts[1:3] == ["async", "bulk"]:
            self.tma(op, parts, ops, m)
        elif base == "fence" and parts[1:3] == ["proxy", "async"]:
            # Orders this thread's generic-proxy writes of shared memory before later
            # async-proxy accesses (wgmma operands).
            writers = np.nonzero(m)[0]
            self.generic_dirty &= ~np.isin(self.w_thread, writers)
        else:
            raise SimError(f"instruction {op!r} not supported by the simulator")


    # -- TMA (cp.async.bulk.tensor) -----------------------------------------------------------
    def tma(self, op, parts, ops, m):
        """cp.async.bulk.tensor.{2d,3d}.shared::cluster.global.tile.mbarrier::complete_tx::bytes
        [dst], [tensor map, {c0, c1}] or [tensor map, {c0, c1, c2}], [mbar]: the box of the
        tensor map (encode_tensor_map; a 2d copy needs a 2-D map, a 3d copy a 3-D one) at element
        c0 of row c1 (of plane c2) (signed; elements outside the tensor, in any dimension, read
        as zero) lands at dst, row i at dst + i * box row bytes, each 16-byte chunk at its
        swizzled address, and its bytes complete_tx the mbarrier. Here the copy lands at once;
        its bytes become visible to a thread when it observed the phase the complete_tx counted
        toward."""
        mods = [x for x in parts[3:] if x != "L2::cache_hint"]  # a cache hint: its operand ignored
        if mods not in (["tensor", r, d, "global", "tile", "mbarrier::complete_tx::bytes"]
                        for r in ("2d", "3d") for d in ("shared::cluster", "shared::cta")):
            raise SimError(f"{op} not supported by the simulator (2d and 3d tile loads to shared::cluster "
                           "with mbarrier::complete_tx::bytes only)")
        rank = int(mods[1][0])
        if len(ops) != 3 + ("L2::cache_hint" in parts):
            raise SimError(f"{op}: expected {3 + ('L2::cache_hint' in parts)} operands")
        dst = self.address(ops[0])
        inner = ops[1].strip()[1:-1]
        tm_name, _, coords = inner.partition(",")
        coords = [c.strip() for c in coords.strip().strip("{}").split(",")]
        if len(coords) != rank:
            raise SimError(f"{op}: expected {rank} coordinates")
        tmap = self.value(tm_name.strip())
        cv = [self.value(c) for c in coords]
        bar = self.address(ops[2])
        for t in np.nonzero(m)[0]:
            ta = int(tmap[t])
            if ta % 64:
                raise SimError(f"{op}: tensor map address {ta:#x} is not 64-byte aligned")
            raw = self.mem.read(np.array([ta], dtype=np.uint64), 128)[0].tobytes()
            tm = decode_tensor_map(raw, f"{op}: tensor map at {ta:#x}")
            if tm["rank"] != rank:
                raise SimError(f"{op}: a {rank}d copy through a {tm['rank']}-D tensor map (at {ta:#x}; a "
                               f"{rank}d copy needs a {rank}-D map)")
            c0, c1, c2 = ([((int(x[t]) & _u(32)) ^ (1 << 31)) - (1 << 31) for x in cv] + [0])[:3]
            self._tma_one(op, int(t), int(dst[t]), tm, c0, c1, c2, int(bar[t]))

    def _tma_one(self, op, t, d, tm, c0, c1, c2, bar):
        eb, rowb = tm["elem_bytes"], tm["box_inner"] * tm["elem_bytes"]
        total = rowb * tm["box_rows"]
        swz = tm["swizzle"]
        align = 1024 if swz == 128 else 128
        if d >= SHARED_WINDOW:
            raise SimError(f"{op}: destination {d:#x} is a generic address, not a shared::cluster one")
        if d % align:
            raise SimError(f"{op}: destination at shared offset {d} is not {align}-byte aligned"
                           + (" (the 128-byte swizzle pattern would not match what wgmma expects)" if swz == 128 else ""))
        if d < 0 or d + total > self.shared_size or (d < self.shared_gap[1] and d + total > self.shared_gap[0]):
            raise SimError(f"{op}: destination [{d}, {d + total}) outside the block's shared memory "
                           f"({self.shared_size} bytes)")
        a_bar, st = self._mbar(bar, op, t=t)
        box = np.zeros((tm["box_rows"], rowb), dtype=np.uint8)
        i0, i1 = max(0, -c1), min(tm["box_rows"], tm["rows"] - c1)
        j0, j1 = max(0, -c0), min(tm["box_inner"], tm["inner"] - c0)
        if i1 > i0 and j1 > j0 and 0 <= c2 < tm["planes"]:  # one plane per box
            rows = np.arange(i0, i1, dtype=np.int64) + c1
            addrs = (tm["base"] + c2 * tm["plane_stride"] + rows * tm["row_stride"] + (c0 + j0) * eb).astype(np.uint64)
            try:
                box[i0:i1, j0 * eb:j1 * eb] = self.mem.read(addrs, (j1 - j0) * eb)
            except SimError as e:
                raise SimError(f"{op}: tensor map source: {e}") from None
        logical = d + 16 * np.arange(total // 16, dtype=np.int64)
        phys = logical ^ (((logical >> 7) & (swz // 16 - 1)) << 4) if swz else logical
        B = (phys[:, None] + np.arange(16)).ravel()
        if self.wg_reading[B].any():
            raise SimError(f"{op}: shared memory read by an in-flight wgmma.mma_async was overwritten (or has a "
                           "copy pending into it) before the wgmma.wait_group that completes it")
        self._write_check(B, np.full(B.size, t, dtype=np.int64), op)
        if d <= a_bar < d + total:
            raise SimError(f"{op}: the copy overwrites its own mbarrier at shared offset {a_bar}")
        self.shared[B] = box.reshape(-1)
        self.w_thread[B] = -1
        self.w_end[B] = -1
        self.generic_dirty[B] = False
        cid = len(self.copy_bar)
        self.copy_bar = np.append(self.copy_bar, st["idx"])
        self.copy_phase = np.append(self.copy_phase, st["phase"])
        self.copy_thread = np.append(self.copy_thread, t)
        self.tma_copy[B] = cid
        self.stats["tma_bytes"] = self.stats.get("tma_bytes", 0) + total
        st["tx"] -= total
        self._mbar_changed(a_bar, st, op)

    def warps(self, m):
        """The lane slices of the warps that execute (`m`: the active threads)."""
        for w0 in range(0, self.T, 32):
            if m[w0]:
                yield slice(w0, w0 + 32)

    def mma_s8(self, op, parts, ops, m):
        """mma.sync.aligned.m16n8k32.row.col{.satfinite}.s32.{s8,u8}.{s8,u8}.s32 (PTX ISA,
        "Matrix fragments for mma.m16n8k32", .s8/.u8): with g = lane / 4, q = lane % 4, each
        .b32 register holds four 8-bit values, lowest byte first, i = byte index 0..3:
          A (16x32): a0 -> A[g][4q+i], a1 -> A[g+8][4q+i], a2 -> A[g][16+4q+i], a3 -> A[g+8][16+4q+i]
          B (32x8):  b0 -> B[4q+i][g], b1 -> B[16+4q+i][g]
          C, D (16x8 s32): c0, c1 -> C[g][2q], C[g][2q+1]; c2, c3 -> C[g+8][2q], C[g+8][2q+1]
        D = A @ B + C in exact integers, then wrapped to 32 bits (or clamped with .satfinite)."""
        mods = parts[4:]
        sat = "satfinite" in mods
        mods = [x for x in mods if x != "satfinite"]
        if len(mods) != 6 or mods[:3] != ["row", "col", "s32"] or mods[5] != "s32" or \
                any(t not in ("s8", "u8") for t in mods[3:5]):
            raise SimError(f"{op} not supported")
        signed = [t == "s8" for t in mods[3:5]]
        D, A, B, C = [[x.strip() for x in o.strip("{}").split(",")] for o in ops]
        if (len(D), len(A), len(B), len(C)) != (4, 4, 2, 4):
            raise SimError(f"{op}: expected 4, 4, 2, 4 registers")
        g, q = _GROUP, _IN_GROUP

        def byte(v, i, sign):
            b = ((v >> np.uint64(8 * i)) & np.uint64(0xFF)).astype(np.int64)
            return b - ((b >> 7) << 8) if sign else b

        for sl in self.warps(m):
            Am = np.zeros((16, 32), np.int64)
            Bm = np.zeros((32, 8), np.int64)
            Cm = np.zeros((16, 8), np.int64)
            for r, (r0, c0) in enumerate([(0, 0), (8, 0), (0, 16), (8, 16)]):
                v = self.reg(A[r])[sl]
                for i in range(4):
                    Am[g + r0, 4 * q + c0 + i] = byte(v, i, signed[0])
            for r, k0 in enumerate([0, 16]):
                v = self.reg(B[r])[sl]
                for i in range(4):
                    Bm[4 * q + k0 + i, g] = byte(v, i, signed[1])
            for r, (r0, c0) in enumerate([(0, 0), (0, 1), (8, 0), (8, 1)]):
                v = self.reg(C[r])[sl] & np.uint64(0xFFFFFFFF)
                Cm[g + r0, 2 * q + c0] = v.astype(np.int64) - ((v >> np.uint64(31)).astype(np.int64) << 32)
            Dm = Am @ Bm + Cm
            if sat:
                Dm = np.clip(Dm, -(1 << 31), (1 << 31) - 1)
            Dm = Dm & 0xFFFFFFFF
            for r, (r0, c0) in enumerate([(0, 0), (0, 1), (8, 0), (8, 1)]):
                self.reg(D[r])[sl] = Dm[g + r0, 2 * q + c0].astype(np.uint64)

    # -- wgmma (sm_90a warpgroup MMA) --------------------------------------------------------
    # PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions":
    # wgmma.mma_async is issued by the 128 threads of a warpgroup together; it reads its
    # operands and writes its accumulators asynchronously: they are defined only after a
    # wgmma.wait_group that covers the group (wgmma.commit_group) it belongs to. Here an op runs
    # when it is waited for, with the accumulators as they are then (ops of a group chain in
    # order) and its operands as they were when it was issued; the shared bytes it reads must be
    # unchanged since then, and so must A's registers when A comes from registers (writing them
    # before that wait is an error, reading them is fine); touching its accumulator registers
    # at all before that wait is an error; every mma_async must follow a wgmma.fence of its
    # warpgroup since the warpgroup's last wait (the ISA asks for the fence before the first
    # mma_async and whenever other instructions accessed the accumulators or A's registers;
    # this check is the conservative form); and its shared operands must not hold bytes written
    # through the generic proxy (st.shared, cp.async) that their writer has not yet ordered by
    # fence.proxy.async.
    #
    # The forms run here (scale-d: a predicate or integer, 0 for D = A B^T, else D = A B^T + D;
    # imm-scale-a/b 1 or -1, negating the operand; imm-trans-a/b 0: K-major, 1: MN-major):
    #   .m64nNk16.f32.bf16.bf16 (or .f16.f16)
    #       d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b;
    #       d, {a0, a1, a2, a3}, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b;
    #   .m64nNk32.s32.{s8,u8}.{s8,u8} d, a-desc, b-desc, scale-d;   (K-major, no .satfinite)
    # The logical operands are A (64 x K) and B (N x K): D = A B^T, K = 16 (16-bit types) or 32
    # (8-bit), 32 bytes either way. The ISA allows transposes only for .f16/.bf16 operands read
    # through descriptors.
    #
    # Operands in shared memory (PTX ISA, "Matrix Descriptor Format", "Shared Memory Matrix
    # Layout"): the 64-bit descriptor holds the start address >> 4 in bits 0-13, the leading
    # dimension byte offset (LBO) >> 4 in bits 16-29, the stride dimension byte offset (SBO)
    # >> 4 in bits 32-45, the base offset in bits 49-51 and the swizzle mode in bits 62-63
    # (0: none, 1: 128-byte, 2: 64-byte, 3: 32-byte). Element (r, k) of an operand with e-byte
    # elements (r: its row, of M for A or N for B) is at, K-major:
    #   no swizzle: start + (r // 8) * SBO + (k * e // 16) * LBO + (r % 8) * 16 + (k * e) % 16
    #     (core matrices of 8 rows x 16 bytes, 128 contiguous bytes; adjacent in K LBO apart,
    #     in M or N SBO apart);
    #   S-byte swizzle: start + (r // 8) * SBO + (r % 8) * S + k * e (atoms of 8 rows x S bytes
    #     SBO apart; the 32 bytes of K lie in one row, LBO unused);
    # and MN-major (2-byte elements; CUTLASS's make_gmma_desc<Major::MN> canonical layouts):
    #   no swizzle: start + (r // 8) * SBO + (k // 8) * LBO + (k % 8) * 16 + (r % 8) * 2
    #     (core matrices of 8 K-rows x 16 bytes of 8 consecutive r; LBO and SBO swap roles);
    #   S-byte swizzle, E = S / 2 elements in a row: start + (r // E) * LBO + (k // 8) * SBO
    #     + (k % 8) * S + (r % E) * 2 (rows of S bytes along M or N, 8 K-rows an atom; atoms
    #     adjacent in M or N LBO apart, adjacent in K SBO apart).
    # Swizzled, each 16-byte chunk's address has bits 4.. XORed with bits 7.. (3, 2, 1 bits for
    # S = 128, 64, 32), the pattern TMA's swizzle writes; the atoms must be aligned to 8 S bytes
    # (base offset 0; the simulator supports no other).
    #
    # A from registers (PTX ISA, "Register Fragments", matrix A of .m64nNk16 with 16-bit types;
    # per warp the layout of mma.m16n8k16's A): warp v = (thread % 128) // 32 of the warpgroup,
    # lane l, g = l // 4, q = l % 4; each .b32 holds two elements, the lower half the lower
    # column: a0 = A[16 v + g][2 q, 2 q + 1], a1 = A[16 v + g + 8][2 q, 2 q + 1],
    # a2 = A[16 v + g][2 q + 8, 2 q + 9], a3 = A[16 v + g + 8][2 q + 8, 2 q + 9].
    #
    # Accumulators of .m64nNk16 with .f32 and of .m64nNk32 with .s32 (PTX ISA, "Register
    # Fragments", matrix D, the same for both): register 4 i + 2 h + e holds
    # D[16 v + 8 h + g][8 i + 2 q + e], i < N / 8. s8/u8 products are summed exactly and wrapped
    # to 32 bits.
    def _warpgroups(self, m, done, what):
        """The warpgroups (128 w .. 128 w + 127) that execute a wgmma: all of their threads, never
        the trailing partial group of a block that is not a multiple of 128 threads."""
        out = []
        for w in range((self.T + 127) // 128):
            sl = slice(128 * w, min(128 * w + 128, self.T))
            if m[sl].any():
                if sl.stop - sl.start < 128:
                    raise SimError(f"{what}: reached by threads {sl.start}..{sl.stop - 1}, the trailing "
                                   f"{sl.stop - sl.start} threads of a block of {self.T}: not a whole warpgroup")
                if not m[sl].all():
                    raise SimError(f"{what}: reached by only some threads of a warpgroup")
                out.append(w)
        return out

    def _wgmma_uniform(self, name, w, what):
        v = self.value(name)[128 * w:128 * w + 128]
        if (v != v[0]).any():
            raise SimError(f"{what}: {name} differs across the warpgroup")
        return int(v[0])

    def _wgmma_operand(self, desc, rows, k, ebytes, w, what, trans=False):
        """The 16-byte shared chunks of an operand of rows x k elements (rows: M for A, N for B)
        through descriptor `desc`, and their addresses. K-major: row r's chunks in K order, rows
        in order; MN-major (`trans`, 2-byte elements): K-row k's chunks of 8 consecutive r in
        order, K-rows in order."""
        start = (desc & 0x3FFF) << 4
        lbo, sbo = ((desc >> 16) & 0x3FFF) << 4, ((desc >> 32) & 0x3FFF) << 4
        swizzle, base = desc >> 62, (desc >> 49) & 7
        S = (0, 128, 64, 32)[swizzle]
        if base:
            raise SimError(f"{what}: matrix base offset {base} not supported by the simulator")
        if not trans:
            r = np.arange(rows)[:, None]
            c = np.arange(k * ebytes // 16)[None, :]
            if not S:
                logical = start + (r // 8) * sbo + c * lbo + (r % 8) * 16
            elif start % (8 * S) + k * ebytes > S or (rows > 8 and sbo % (8 * S)):
                raise SimError(f"{what}: {S}-byte swizzled operand at {start} (SBO {sbo}) not in "
                               f"{8 * S}-byte aligned atoms of 8 rows x {S} bytes (base offset 0)")
            else:
                logical = start + (r // 8) * sbo + (r % 8) * S + c * 16
        else:
            kk = np.arange(k)[:, None]
            c = np.arange(rows // 8)[None, :]  # chunk c: r = 8 c .. 8 c + 7
            if not S:
                logical = start + c * sbo + (kk // 8) * lbo + (kk % 8) * 16
            else:
                E = S // 2
                if start % (8 * S) + 2 * min(rows, E) > S or (k > 8 and sbo % (8 * S)) or \
                        (rows > E and lbo % (8 * S)):
                    raise SimError(f"{what}: {S}-byte swizzled MN-major operand at {start} (LBO {lbo}, SBO "
                                   f"{sbo}) not in {8 * S}-byte aligned atoms of 8 K-rows x {S} bytes "
                                   "(base offset 0)")
                logical = start + (8 * c // E) * lbo + (kk // 8) * sbo + (kk % 8) * S + (8 * c % E) * 2
        logical = logical.ravel().astype(np.int64)
        addrs = logical ^ (((logical >> 7) & (S // 16 - 1)) << 4) if S else logical
        a = self._shared_span(addrs.astype(np.uint64), 16, what)
        B = (a[:, None] + np.arange(16)).ravel()
        pending = self.w_end[B] == INF
        outside = (self.w_thread[B] >= 0) & (self.w_end[B] >= self.epoch) & \
            ((self.w_thread[B] // 128) != w)
        if (pending | outside).any():
            j = int(np.argmax(pending | outside))
            raise SimError(f"{what}: shared race: reads bytes at {int(B[j])} that thread "
                           f"{int(self.w_thread[B[j]])} wrote (or is copying into) since the last barrier")
        if self.generic_dirty[B].any():
            j = int(np.argmax(self.generic_dirty[B]))
            raise SimError(f"{what}: reads shared bytes at {int(B[j])} written through the generic proxy "
                           f"by thread {int(self.w_thread[B[j]])} without a fence.proxy.async after the write")
        self._tma_visible(B, f"warpgroup {w}", what, obs=self.obs[128 * w:128 * w + 128].min(axis=0))
        # Read by the whole warpgroup: a later write by anyone before the next barrier races,
        # unless an mbarrier orders it after the read (_released).
        self.r_thread[B] = -2
        self.r_epoch[B] = self.epoch
        self.r_time[B] = self.clock
        self.r_wg[B] = w
        return dict(kind="smem", trans=bool(trans), addr=a, data=self.shared[a[:, None] + np.arange(16)].copy())

    def _wgmma_reg_a(self, names, w):
        """A (64 x 16, 16-bit elements) from registers a0..a3 of warpgroup w, as they are now."""
        sl = slice(128 * w, 128 * w + 128)
        vals = np.stack([self.reg(r)[sl] & np.uint64(0xFFFFFFFF) for r in names])
        t = np.arange(128)
        v, g, q = t // 32, (t % 32) // 4, t % 4
        halves = np.zeros((64, 16), np.uint64)
        for i, (r0, c0) in enumerate([(0, 0), (8, 0), (0, 8), (8, 8)]):
            for e in range(2):
                halves[16 * v + r0 + g, c0 + 2 * q + e] = (vals[i] >> np.uint64(16 * e)) & np.uint64(0xFFFF)
        return dict(kind="reg", regs=names, vals=vals, halves=halves)

    def wgmma(self, op, parts, ops, m, done):
        sub = parts[1]
        groups = self._warpgroups(m, done, op)
        if sub == "fence":
            for w in groups:
                self.wgs[w]["fenced"] = True
        elif sub == "commit_group":
            for w in groups:
                self.wgs[w]["groups"].append(self.wgs[w]["open"])
                self.wgs[w]["open"] = []
        elif sub == "wait_group":
            n = int(ops[0])
            for w in groups:
                st = self.wgs[w]
                while len(st["groups"]) > n:
                    for mma in st["groups"].pop(0):
                        self._wgmma_run(w, mma, op)
                st["fenced"] = False
            self._wgmma_busy()
        elif sub == "mma_async":
            self._wgmma_issue(op, parts, ops, groups)
        else:
            raise SimError(f"{op} not supported by the simulator")

    def _wgmma_issue(self, op, parts, ops, groups):
        sm = re.fullmatch(r"m64n(\d+)k(16|32)", parts[4])
        floating = sm and sm.group(2) == "16" and len(parts) == 8 and parts[5] == "f32" and \
            parts[6] == parts[7] and parts[6] in ("bf16", "f16")
        integer = sm and sm.group(2) == "32" and len(parts) == 8 and parts[5] == "s32" and \
            parts[6] in ("s8", "u8") and parts[7] in ("s8", "u8")
        if parts[2:4] != ["sync", "aligned"] or not (floating or integer):
            raise SimError(f"{op} not supported by the simulator (m64nNk16.f32.bf16.bf16 / .f16.f16 and "
                           "m64nNk32.s32.{s8,u8}.{s8,u8} without .satfinite only)")
        n, ty = int(sm.group(1)), parts[6:8]
        reg_a = ops[1].startswith("{") if len(ops) > 1 else False
        if reg_a and not floating:
            raise SimError(f"{op}: A from registers not supported by the simulator for .s8/.u8 "
                           "(.bf16/.f16 only)")
        if integer and len(ops) == 8 and any(int(x, 0) for x in ops[6:8]):
            raise SimError(f"{op}: transposed (MN-major) operands (imm-trans-a {ops[6]}, imm-trans-b {ops[7]}) "
                           "are only for .f16/.bf16 (the PTX ISA has no imm-trans for .s8/.u8)")
        want = 7 if reg_a else 8 if floating else 4
        if len(ops) != want:
            form = ("d, {a0, a1, a2, a3}, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b" if reg_a else
                    "d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b" if floating else
                    "d, a-desc, b-desc, scale-d")
            raise SimError(f"{op}: expected {want} operands ({form}), found {len(ops)}")
        D = [x.strip() for x in ops[0].strip("{}").split(",")]
        if n % 8 or not 8 <= n <= 256 or len(D) != n // 2:
            raise SimError(f"{op}: expected {n // 2} accumulator registers, found {len(D)}")
        A = [x.strip() for x in ops[1].strip("{}").split(",")] if reg_a else None
        if reg_a and (len(A) != 4 or not all(re.fullmatch(r"%\w+", x) for x in A)):
            raise SimError(f"{op}: expected 4 A registers {{a0, a1, a2, a3}}, found {ops[1]}")
        imm = [int(x, 0) for x in (ops[4:6] + ["0"] + ops[6:7] if reg_a else ops[4:8])] if floating \
            else [1, 1, 0, 0]
        if imm[0] not in (1, -1) or imm[1] not in (1, -1) or imm[2] not in (0, 1) or imm[3] not in (0, 1):
            raise SimError(f"{op}: scale/transpose immediates {imm} outside the PTX ISA's (scale 1 or -1, "
                           "transpose 0 or 1)")
        for w in groups:
            st = self.wgs[w]
            sl = slice(128 * w, 128 * w + 128)
            if not st["fenced"]:
                raise SimError(f"{op}: no wgmma.fence by warpgroup {w} since its last wgmma.wait_group")
            # Among wgmma ops: chaining accumulators is the point; an A register that is an
            # in-flight op's accumulator, or an accumulator that is an in-flight op's A, is not.
            for r in A or []:
                if r in self.wg_busy and self.wg_busy[r][sl].any():
                    raise SimError(f"{op}: A register {r} is an accumulator of a wgmma.mma_async not yet "
                                   "waited for (wgmma.wait_group)")
            for r in D:
                if r in self.wg_a_busy and self.wg_a_busy[r][sl].any():
                    raise SimError(f"{op}: accumulator {r} is an A register of a wgmma.mma_async not yet "
                                   "waited for (wgmma.wait_group)")
            desc_b = self._wgmma_uniform(ops[2], w, op)
            scale_d = self._wgmma_uniform(ops[3], w, op)
            # 32 bytes of K either way: k16 of 2-byte or k32 of 1-byte elements.
            if reg_a:
                a = self._wgmma_reg_a(A, w)
            else:
                a = self._wgmma_operand(self._wgmma_uniform(ops[1], w, op), 64, 16, 2, w, op, imm[2])
            b = self._wgmma_operand(desc_b, n, 16, 2, w, op, imm[3])
            st["open"].append(dict(n=n, ty=ty, D=D, scale_d=bool(scale_d), signs=imm[:2], a=a, b=b))
        self._wgmma_busy()

    def _wgmma_busy(self):
        """The state of the in-flight ops: the shared bytes they read (wg_reading), their
        accumulators (wg_busy) and their A registers (wg_a_busy), each name -> threads."""
        busy, a_busy = {}, {}
        self.wg_reading[:] = False
        for w, st in enumerate(self.wgs):
            for mma in st["open"] + [x for g in st["groups"] for x in g]:
                for key in ("a", "b"):
                    o = mma[key]
                    if o["kind"] == "smem":
                        self.wg_reading[(o["addr"][:, None] + np.arange(16)).ravel()] = True
                    else:
                        for r in o["regs"]:
                            a_busy.setdefault(r, np.zeros(self.T, dtype=bool))[128 * w:128 * w + 128] = True
                for r in mma["D"]:
                    busy.setdefault(r, np.zeros(self.T, dtype=bool))[128 * w:128 * w + 128] = True
        self.wg_busy, self.wg_a_busy = busy, a_busy

    def wgmma_hazard(self, op, ops, m):
        """An instruction (not a wgmma) that touches an in-flight op's accumulators, or writes
        its A registers (the registers of its first operand, _written_regs)."""
        for r in re.findall(r"%\w+", " ".join(ops)):
            busy = self.wg_busy.get(r)
            if busy is not None and (busy & m).any():
                t = int(np.argmax(busy & m))
                raise SimError(f"{op}: thread {t} accesses {r}, an accumulator of a wgmma.mma_async not "
                               "yet waited for (wgmma.wait_group)")
        for r in _written_regs(op, ops) if self.wg_a_busy else []:
            busy = self.wg_a_busy.get(r)
            if busy is not None and (busy & m).any():
                t = int(np.argmax(busy & m))
                raise SimError(f"{op}: thread {t} writes {r}, an A register of a wgmma.mma_async not yet "
                               "waited for (wgmma.wait_group)")

    def _wgmma_run(self, w, mma, what):
        n, ty = mma["n"], mma["ty"]
        sl = slice(128 * w, 128 * w + 128)
        operands = []
        for idx, (key, rows) in enumerate((("a", 64), ("b", n))):
            o = mma[key]
            if o["kind"] == "reg":
                # wgmma_hazard reports the writes it sees; this catches any other change.
                now = np.stack([self.reg(r)[sl] & np.uint64(0xFFFFFFFF) for r in o["regs"]])
                if (now != o["vals"]).any():
                    raise SimError(f"{what}: the A registers {{{', '.join(o['regs'])}}} of an in-flight "
                                   "wgmma.mma_async changed before the wgmma.wait_group that completes it")
                operands.append(_half_to_f32(o["halves"], ty[idx]).reshape(64, 16))
                continue
            addr, data = o["addr"], o["data"]
            now = self.shared[addr[:, None] + np.arange(16)]
            # A cp.async still pending into them may land at any time after it was issued.
            if (now != data).any() or (self.w_end[(addr[:, None] + np.arange(16)).ravel()] == INF).any():
                raise SimError(f"{what}: shared memory read by an in-flight wgmma.mma_async was overwritten "
                               "(or has a copy pending into it) before the wgmma.wait_group that completes it")
            if ty[idx] in ("s8", "u8"):
                # K-major, rows x (2 chunks of 16 bytes): element (r, k) is byte k of row r.
                b8 = np.ascontiguousarray(data).reshape(rows, 32).astype(np.int64)
                operands.append(b8 - ((b8 >> 7) << 8) if ty[idx] == "s8" else b8)
                continue
            h = np.ascontiguousarray(data).view(np.uint16)
            # K-major: row r's 16 elements in order; MN-major: K-row k's `rows` elements in order.
            halves = h.reshape(16, rows).T if o["trans"] else h.reshape(rows, 16)
            operands.append(_half_to_f32(halves.astype(np.uint64), ty[idx]).reshape(rows, 16))
        Am, Bm = operands
        t = np.arange(128)
        v, lane = t // 32, t % 32
        g, q = lane // 4, lane % 4
        if ty[0] in ("s8", "u8"):
            # Exact integer products and sums, wrapped to 32 bits (no .satfinite).
            Dm = np.zeros((64, n), np.int64)
            if mma["scale_d"]:
                for i in range(n // 8):
                    for h in range(2):
                        for e in range(2):
                            r = self.reg(mma["D"][4 * i + 2 * h + e])[sl] & np.uint64(0xFFFFFFFF)
                            Dm[16 * v + 8 * h + g, 8 * i + 2 * q + e] = \
                                r.astype(np.int64) - ((r >> np.uint64(31)).astype(np.int64) << 32)
            Dm = (Am @ Bm.T + Dm) & 0xFFFFFFFF
            for i in range(n // 8):
                for h in range(2):
                    for e in range(2):
                        self.reg(mma["D"][4 * i + 2 * h + e])[sl] = \
                            Dm[16 * v + 8 * h + g, 8 * i + 2 * q + e].astype(np.uint64)
            return
        Am = Am * mma["signs"][0]
        Bm = Bm * mma["signs"][1]
        Dm = np.zeros((64, n), np.float32)
        if mma["scale_d"]:
            for i in range(n // 8):
                for h in range(2):
                    for e in range(2):
                        Dm[16 * v + 8 * h + g, 8 * i + 2 * q + e] = _f32(self.reg(mma["D"][4 * i + 2 * h + e])[sl])
        Dm = (Am.astype(np.float64) @ Bm.astype(np.float64).T + Dm).astype(np.float32)
        for i in range(n // 8):
            for h in range(2):
                for e in range(2):
                    self.reg(mma["D"][4 * i + 2 * h + e])[sl] = _from_f32(Dm[16 * v + 8 * h + g, 8 * i + 2 * q + e])


def run(kernel, mem, grid, block, params, stats=None, dyn_shared=0, shared_fill=0):
    """Runs `kernel` over the grid; `params` maps parameter names to bytes; `dyn_shared`: the
    bytes of dynamic shared memory (the kernel's .extern .shared array); `shared_fill`: the
    byte every block's shared memory starts as."""
    stats = {} if stats is None else stats
    steps = 0
    for z in range(grid[2]):
        for y in range(grid[1]):
            for x in range(grid[0]):
                b = Block(kernel, mem, params, (x, y, z), grid, block, stats, dyn_shared, shared_fill)
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


# -- tensor maps (TMA descriptors) --------------------------------------------------------------
# The simulator's own 128-byte format (a real CUtensorMap is opaque), little-endian:
#   0: magic b"PTXSIMTM"; 8: base (u64, byte address); 16: elem_bytes (u32); 20: inner (u32,
#   elements of the contiguous dimension); 24: rows (u32); 28: box_inner (u32); 32: box_rows
#   (u32); 36: swizzle_bytes (u32: 0, 32, 64, 128); 40: row_stride_bytes (u64); 48: rank (u32:
#   2 or 3); 52: planes (u32; 1 for rank 2); 56: plane_stride_bytes (u64; 0 for rank 2);
#   64..127: zero.
TMAP_MAGIC = b"PTXSIMTM"
_TMAP_FMT = "<8sQIIIIIIQIIQ"


def encode_tensor_map(base, elem_bytes, inner, rows, row_stride_bytes, box_inner, box_rows, swizzle_bytes,
                      planes=1, plane_stride_bytes=0):
    """A tiled tensor map, validated as cuTensorMapEncodeTiled does: 2-D ([rows][inner]) with
    the defaults, else 3-D (`planes` such matrices, plane_stride_bytes apart; boxes of one
    plane)."""
    import struct
    def bad(msg):
        raise SimError(f"invalid tensor map: {msg}")
    rank = 2 if (planes, plane_stride_bytes) == (1, 0) else 3
    if elem_bytes not in (1, 2, 4, 8):
        bad(f"element size {elem_bytes} bytes (1, 2, 4 or 8)")
    if base % 16:
        bad(f"global address {base:#x} not 16-byte aligned")
    if not (1 <= inner < (1 << 32) and 1 <= rows < (1 << 32) and 1 <= planes < (1 << 32)):
        bad(f"extents {inner} x {rows}" + (f" x {planes}" if rank == 3 else "")
            + " outside 1..2^32-1 (this format's u32 fields)")
    if row_stride_bytes % 16 or row_stride_bytes >= (1 << 40):
        bad(f"row stride {row_stride_bytes} bytes not a multiple of 16 below 2^40")
    if row_stride_bytes < inner * elem_bytes:
        bad(f"row stride {row_stride_bytes} bytes below the row's {inner * elem_bytes} bytes")
    if rank == 3 and (plane_stride_bytes % 16 or not 0 < plane_stride_bytes < (1 << 40)):
        bad(f"plane stride {plane_stride_bytes} bytes not a positive multiple of 16 below 2^40")
    if rank == 3 and plane_stride_bytes < rows * row_stride_bytes:
        bad(f"plane stride {plane_stride_bytes} bytes below the plane's {rows} rows of {row_stride_bytes} bytes")
    if not (1 <= box_inner <= 256 and 1 <= box_rows <= 256):
        bad(f"box {box_inner} x {box_rows} outside 1..256")
    if box_inner * elem_bytes % 16:
        bad(f"box inner dimension of {box_inner * elem_bytes} bytes not a multiple of 16")
    if swizzle_bytes not in (0, 32, 64, 128):
        bad(f"swizzle {swizzle_bytes} (0, 32, 64 or 128 bytes)")
    if swizzle_bytes and box_inner * elem_bytes > swizzle_bytes:
        bad(f"box inner dimension of {box_inner * elem_bytes} bytes exceeds the {swizzle_bytes}-byte swizzle span")
    raw = struct.pack(_TMAP_FMT, TMAP_MAGIC, base, elem_bytes, inner, rows, box_inner, box_rows,
                      swizzle_bytes, row_stride_bytes, rank, planes, plane_stride_bytes)
    return raw + bytes(128 - len(raw))


def decode_tensor_map(raw, what):
    import struct
    n = struct.calcsize(_TMAP_FMT)
    f = struct.unpack(_TMAP_FMT, bytes(raw[:n]))
    if f[0] != TMAP_MAGIC:
        raise SimError(f"{what}: not a tensor map (no magic word; made by encode_tensor_map?)")
    keys = ("base", "elem_bytes", "inner", "rows", "box_inner", "box_rows", "swizzle", "row_stride",
            "rank", "planes", "plane_stride")
    tm = dict(zip(keys, f[1:]))
    if tm["rank"] not in (2, 3):
        raise SimError(f"{what}: a tensor map of rank {tm['rank']} (2 or 3)")
    return tm
