"""The interpreter's sm_90a wgmma.mma_async forms beyond K-major shared operands, on hand-written
PTX kernels of one warpgroup (128 threads): A from registers, and MN-major (transposed, imm-trans
1) operands through descriptors with no swizzle and 32/64/128-byte swizzle. Each kernel stores
the shared operands element by element with st.shared at the offsets this script computes from
the layouts (fence.proxy.async, bar.sync), loads A's register fragments from global memory,
runs one or two chained wgmma.m64nNk16, waits, and stores the accumulators; the script compares
them with A @ B^T from NumPy. The layouts, fragment tables and expected values are worked out
here from the PTX ISA ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate": matrix
descriptors, register fragments) and CUTLASS's canonical GMMA layouts (make_gmma_desc), not
taken from the simulator:
  K-major, no swizzle:  (r, k) at start + (r // 8) SBO + (k // 8) LBO + (r % 8) 16 + (k % 8) 2
  K-major, S-byte:      (r, k) at swz(start + (r // 8) SBO + (r % 8) S + 2 k)
  MN-major, no swizzle: (r, k) at start + (r // 8) SBO + (k // 8) LBO + (k % 8) 16 + (r % 8) 2
  MN-major, S-byte:     (r, k) at swz(start + (r // E) LBO + (k // 8) SBO + (k % 8) S + (r % E) 2),
                        E = S / 2
  swz(x) = x ^ (((x >> 7) & (S / 16 - 1)) << 4); r: the row of M (A) or N (B).
A's registers (thread t, warp v = t // 32, g = (t % 32) // 4, q = t % 4; low half first):
  a0 = A[16v+g][2q, 2q+1], a1 = A[16v+g+8][2q, 2q+1], a2 = A[16v+g][2q+8, 2q+9], a3 = A[16v+g+8][2q+8, 2q+9].

  ptxsim_wgmma_check.py               every case; one line each, exit 1 if any fails
  ptxsim_wgmma_check.py --bug BUG     one broken case, which must fail (a MISMATCH or an error):
    swap       rs-f16-n128 with B's LBO and SBO swapped (its two 64-column blocks misplaced)
    notrans    rs-bf16-n64 with imm-trans-b 0 on MN-major B
    areg       rs-bf16-n64 writing a0 (mov.b32) between mma_async and wait_group
    s8trans    an s8 wgmma with imm-trans-b 1
    misaligned MN-major 128-byte swizzled B 128 bytes past an atom boundary
    baseoff    B's descriptor with base offset 1
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptxsim  # noqa: E402

SMEM = 32768
A_AT, B_AT = 0, 8192  # the operands' offsets in the kernel's shared array
MODE = {0: 0, 128: 1, 64: 2, 32: 3}  # descriptor swizzle field


def bits16(x, ty):
    """Round float32 values to bf16 / f16; their bits (uint16) and values (float64)."""
    x = np.asarray(x, np.float32)
    if ty == "f16":
        h = x.astype(np.float16)
        return h.view(np.uint16), h.astype(np.float64)
    u = x.view(np.uint32).astype(np.uint64)
    b = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint32)
    return b.astype(np.uint16), (b << 16).view(np.float32).astype(np.float64)


def swz(x, S):
    return x ^ (((x >> 7) & (S // 16 - 1)) << 4) if S else x


def layout(major, S, rows, kt):
    """LBO and SBO of an operand of rows x kt elements laid out densely, and the byte offset of
    element (r, k) from its start; `step(j)`: the start offset of k16 slice j."""
    if major == "K" and not S:
        lbo, sbo = 128, 128 * (kt // 8)  # core matrices adjacent along K, then along r
        off = lambda r, k: (r // 8) * sbo + (k // 8) * lbo + (r % 8) * 16 + (k % 8) * 2
        step = lambda j: 2 * j * lbo
    elif major == "K":
        assert 2 * kt <= S
        lbo, sbo = 16, 8 * S  # atoms of 8 rows adjacent; LBO unused
        off = lambda r, k: swz((r // 8) * sbo + (r % 8) * S + 2 * k, S)
        step = lambda j: 32 * j
    elif not S:
        lbo, sbo = 128, 128 * (kt // 8)  # core matrices adjacent along K, then along r
        off = lambda r, k: (r // 8) * sbo + (k // 8) * lbo + (k % 8) * 16 + (r % 8) * 2
        step = lambda j: 2 * j * lbo
    else:
        E = S // 2
        sbo = 8 * S  # 8-K-row atoms adjacent along K, then the next E-wide block of r
        lbo = sbo * (kt // 8)
        off = lambda r, k: swz((r // E) * lbo + (k // 8) * sbo + (k % 8) * S + (r % E) * 2, S)
        step = lambda j: 2 * j * sbo
    return lbo, sbo, off, step


def desc(start, lbo, sbo, S, base=0):
    return (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | base << 49 | MODE[S] << 62


# Each case: name, type, N, k16 steps, A ("reg" or (major, swizzle)), B (major, swizzle),
# imm-scale-a, imm-scale-b.
CASES = [
    ("rs-bf16-n64", "bf16", 64, 2, "reg", ("MN", 128), 1, 1),
    ("rs-f16-n128", "f16", 128, 1, "reg", ("MN", 128), 1, 1),
    ("ss-bf16-kA128-mnB128", "bf16", 64, 2, ("K", 128), ("MN", 128), -1, 1),
    ("ss-f16-mnA128-mnB128", "f16", 64, 2, ("MN", 128), ("MN", 128), 1, 1),
    ("ss-bf16-mnA64-kB0", "bf16", 32, 1, ("MN", 64), ("K", 0), 1, -1),
    ("ss-bf16-kA0-mnB0", "bf16", 64, 2, ("K", 0), ("MN", 0), 1, 1),
    ("ss-f16-kA128-mnB64", "f16", 64, 1, ("K", 128), ("MN", 64), 1, 1),
    ("ss-bf16-mnA32-mnB32", "bf16", 32, 2, ("MN", 32), ("MN", 32), 1, 1),
]
BUG_CASE = {"swap": "rs-f16-n128", "notrans": "rs-bf16-n64", "areg": "rs-bf16-n64",
            "misaligned": "rs-bf16-n64", "baseoff": "rs-bf16-n64"}


def kernel_ptx(ty, n, nk, reg_a, trans, sa, sb, bug):
    """The kernel: params vals (u16 values), offs (u32 shared offsets), count, afrag (per step
    and thread four u32), descs (per step A's and B's descriptor, start relative to the shared
    array), out (per thread N / 2 f32)."""
    atype = "s32.s8.s8" if bug == "s8trans" else f"f32.{ty}.{ty}"
    shape = f"m64n{n}k32" if bug == "s8trans" else f"m64n{n}k16"
    D = ", ".join(f"%f{i}" for i in range(n // 2))
    L = [".version 8.0", ".target sm_90a", ".address_size 64",
         ".visible .entry wg(.param .u64 vals, .param .u64 offs, .param .u32 count, .param .u64 afrag, "
         ".param .u64 descs, .param .u64 out)", "{",
         ".reg .pred %p<2>;", ".reg .b16 %rs<2>;", ".reg .b32 %r<64>;", ".reg .f32 %f<64>;", ".reg .b64 %rd<64>;",
         f".shared .align 1024 .b8 smem[{SMEM}];",
         "ld.param.u64 %rd1, [vals];", "ld.param.u64 %rd2, [offs];", "ld.param.u32 %r1, [count];",
         "ld.param.u64 %rd3, [afrag];", "ld.param.u64 %rd4, [descs];", "ld.param.u64 %rd5, [out];",
         "cvta.to.global.u64 %rd1, %rd1;", "cvta.to.global.u64 %rd2, %rd2;", "cvta.to.global.u64 %rd3, %rd3;",
         "cvta.to.global.u64 %rd4, %rd4;", "cvta.to.global.u64 %rd5, %rd5;",
         "mov.u32 %r2, %tid.x;", "mov.u64 %rd6, smem;", "mov.u32 %r3, %r2;",
         # for (j = tid; j < count; j += 128) smem[offs[j]] = vals[j] (16 bits)
         "LOOP:", "setp.ge.u32 %p1, %r3, %r1;", "@%p1 bra DONE;",
         "mul.wide.u32 %rd7, %r3, 4;", "add.s64 %rd8, %rd2, %rd7;", "ld.global.u32 %r4, [%rd8];",
         "mul.wide.u32 %rd9, %r3, 2;", "add.s64 %rd10, %rd1, %rd9;", "ld.global.u16 %rs1, [%rd10];",
         "cvt.u64.u32 %rd11, %r4;", "add.s64 %rd12, %rd6, %rd11;", "st.shared.u16 [%rd12], %rs1;",
         "add.u32 %r3, %r3, 128;", "bra LOOP;",
         "DONE:", "fence.proxy.async.shared::cta;", "bar.sync 0;",
         "mul.wide.u32 %rd13, %r2, 16;", "add.s64 %rd14, %rd3, %rd13;", "shr.u64 %rd15, %rd6, 4;"]
    for j in range(nk):
        L += [f"ld.global.u64 %rd{20 + 2 * j}, [%rd4+{16 * j}];", f"ld.global.u64 %rd{21 + 2 * j}, [%rd4+{16 * j + 8}];",
              f"add.s64 %rd{20 + 2 * j}, %rd{20 + 2 * j}, %rd15;", f"add.s64 %rd{21 + 2 * j}, %rd{21 + 2 * j}, %rd15;"]
        if reg_a:
            L.append(f"ld.global.v4.u32 {{%r{10 + 4 * j}, %r{11 + 4 * j}, %r{12 + 4 * j}, %r{13 + 4 * j}}}, "
                     f"[%rd14+{2048 * j}];")
    L.append("wgmma.fence.sync.aligned;")
    for j in range(nk):
        a = f"{{%r{10 + 4 * j}, %r{11 + 4 * j}, %r{12 + 4 * j}, %r{13 + 4 * j}}}" if reg_a else f"%rd{20 + 2 * j}"
        imm = f"{sa}, {sb}, {trans[1]}" if reg_a else f"{sa}, {sb}, {trans[0]}, {trans[1]}"
        L += ["{", ".reg .pred p;", f"setp.ne.b32 p, {int(j > 0)}, 0;",
              f"wgmma.mma_async.sync.aligned.{shape}.{atype} {{{D}}}, {a}, %rd{21 + 2 * j}, p, {imm};", "}"]
    L.append("wgmma.commit_group.sync.aligned;")
    if reg_a:
        L.append("add.u32 %r40, %r10, 1;")  # reading A's registers before the wait is fine
    if bug == "areg":
        L.append("mov.b32 %r10, 0;")
    L += ["wgmma.wait_group.sync.aligned 0;",
          f"mul.wide.u32 %rd16, %r2, {2 * n};", "add.s64 %rd17, %rd5, %rd16;"]
    L += [f"st.global.f32 [%rd17+{4 * i}], %f{i};" for i in range(n // 2)]
    L += ["ret;", "}"]
    return "\n".join(L) + "\n"


def run_case(case, bug=""):
    name, ty, n, nk, a_spec, b_spec, sa, sb = case
    rng = np.random.default_rng(sum(map(ord, name)))
    K = 16 * nk
    a_bits, a_val = bits16(rng.standard_normal((64, K)), ty)
    b_bits, b_val = bits16(rng.standard_normal((n, K)), ty)
    want = ((sa * a_val) @ (sb * b_val).T).astype(np.float32)
    reg_a = a_spec == "reg"
    offs, vals, descs = [], [], np.zeros((nk, 2), np.uint64)
    b_at = B_AT + (128 if bug == "misaligned" else 0)
    for key, spec, rows, bits, at in (("a", a_spec, 64, a_bits, A_AT), ("b", b_spec, n, b_bits, b_at)):
        if spec == "reg":
            continue
        major, S = spec
        lbo, sbo, off, step = layout(major, S, rows, K)
        for r in range(rows):
            for k in range(K):
                offs.append(at + off(r, k))
                vals.append(bits[r, k])
        if key == "b" and bug == "swap":
            lbo, sbo = sbo, lbo
        for j in range(nk):
            descs[j, int(key == "b")] = desc(at + step(j), lbo, sbo, S, base=1 if key == "b" and bug == "baseoff" else 0)
    assert len(set(offs)) == len(offs), "overlapping shared offsets: a layout bug in this script"
    trans = [int(a_spec != "reg" and a_spec[0] == "MN"), int(b_spec[0] == "MN")]
    if bug == "notrans":
        trans[1] = 0
    if bug == "s8trans":
        trans = [0, 1]
    # A's fragments: per step j and thread t, registers a0..a3 (two 16-bit elements each).
    afrag = np.zeros((nk, 128, 4), np.uint32)
    for j in range(nk):
        for t in range(128):
            v, g, q = t // 32, (t % 32) // 4, t % 4
            for i, (r0, c0) in enumerate([(0, 0), (8, 0), (0, 8), (8, 8)]):
                row, col = 16 * v + g + r0, 16 * j + 2 * q + c0
                afrag[j, t, i] = int(a_bits[row, col]) | int(a_bits[row, col + 1]) << 16
    ptx = kernel_ptx(ty, n, nk, reg_a, trans, sa, sb, bug)
    k = ptxsim.Kernel(ptx, "wg")
    mem = ptxsim.Memory()
    gv = mem.alloc(np.array(vals or [0], np.uint16))
    go = mem.alloc(np.array(offs or [0], np.uint32))
    ga = mem.alloc(afrag)
    gd = mem.alloc(descs)
    out = mem.alloc(np.full(128 * n // 2, np.nan, np.float32))
    params = {nm: int(x).to_bytes(sz, "little") for (nm, sz), x in
              zip(k.params, [gv, go, len(offs), ga, gd, out])}
    stats = {}
    ptxsim.run(k, mem, (1, 1, 1), (128, 1, 1), params, stats)
    regs = mem.view(out, np.float32, (128, n // 2))
    got = np.full((64, n), np.nan, np.float32)
    for t in range(128):
        v, g, q = t // 32, (t % 32) // 4, t % 4
        for i in range(n // 8):
            for h in range(2):
                for e in range(2):
                    got[16 * v + 8 * h + g, 8 * i + 2 * q + e] = regs[t, 4 * i + 2 * h + e]
    err = np.abs(got.astype(np.float64) - want)
    label = f"{name}" + (f" (bug {bug})" if bug else "")
    if not (err <= 1e-3 + 1e-3 * np.abs(want)).all():
        j = np.unravel_index(np.argmax(np.where(np.isnan(err), np.inf, err)), err.shape)
        print(f"{label}: MISMATCH at {tuple(int(x) for x in j)}: got {got[j]} want {want[j]}")
        return 1
    print(f"{label}: ok (64 x {n} x {K}, A {'registers' if reg_a else '/'.join(map(str, a_spec))}, "
          f"B {'/'.join(map(str, b_spec))}, max abs error {err.max():.3g}; wgmma {stats.get('wgmma', 0)})")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bug", default="", choices=["", "swap", "notrans", "areg", "s8trans", "misaligned", "baseoff"])
    args = ap.parse_args()
    if args.bug == "s8trans":
        cases = [("s8-trans", "bf16", 64, 1, ("K", 128), ("MN", 128), 1, 1)]
    elif args.bug:
        cases = [c for c in CASES if c[0] == BUG_CASE[args.bug]]
    else:
        cases = CASES
    status = 0
    for c in cases:
        try:
            status |= run_case(c, args.bug)
        except ptxsim.SimError as e:
            print(f"{c[0]}: error: {e}")
            status = 1
    if not args.bug:
        print(f"{len(cases)} cases run: {'all as expected' if not status else 'some FAILED'}")
    sys.exit(status)


if __name__ == "__main__":
    main()
