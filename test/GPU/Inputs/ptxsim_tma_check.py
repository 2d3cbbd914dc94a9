"""Runs the hand-written TMA / mbarrier / swizzled-wgmma kernels of ptxsim-tma-selftest.mlir on
the PTX interpreter and compares what they write with NumPy, the expected values computed from
the formulas (PTX ISA / CUDA tensor-map semantics), not from the simulator.

  ptxsim_tma_check.py KERNELS.ptx CASE [--bug BUG]

CASE tile-swz128 / tile-none: kernel @tile loads boxes of a bf16 tensor (100 x 40 elements,
rows 256 bytes apart) with a tensor map, some boxes partly out of bounds (zero fill), and copies
the shared bytes as they lie to global memory; expected: the box, zero-filled, its 16-byte chunks
at the swizzled addresses (swizzle 128: bits 4-6 ^= bits 7-9 of the shared address).
CASE wgmma: kernel @wgmma_tma loads A (64 x 64) and B (64 x 64) with 128-byte swizzle and runs four
wgmma.m64n64k16 on them (descriptors with swizzle mode 1, SBO 1024, start + 32 j); expected
A @ B^T in the accumulator fragment layout. BUG: parity1 (waits for parity 1), misaligned (the
destination 128 bytes past a 1024-byte boundary), noswizzle (descriptors with swizzle mode 0),
refill (a TMA refills A while the wgmma reading it is in flight), badmap (box of 128 bf16 with
swizzle 128). --threads N: a block of N threads (128 + 32: a warpgroup and a warp, which must
leave before the wgmma).
CASE tile3d-swz128 / tile3d-none: kernel @tile3 loads boxes of 16 rows x 64 elements of a 3-D
tensor map (planes, rows, elements) over a [B = 3, S = 10, H * D = 2 * 64] tensor of 16-bit
elements (K or V of a cache: B planes, rows = keyLen = 7 < S, plane stride S rows) at planes 0..2,
rows 0 and 4, elements 0 and 64, and out of bounds (plane -1, plane 3, a corner at (-16, -3) of
plane 1); expected: from the tensor itself, element (c0 + j) of row (c1 + i) of plane c2, zero
unless 0 <= c2 < B, 0 <= c1 + i < keyLen (rows keyLen..S-1 hold data and must read as zero) and
0 <= c0 + j < H * D; 128-byte swizzle: row i's 16-byte chunk c at chunk c ^ (i mod 8) of that
row (the 8-row, 1024-byte atoms of the box). BUG: map2d (the 3d copy through a 2-D map of the
same tensor), planestride (a plane stride not a multiple of 16), planeoverlap (a plane stride
below keyLen rows).
CASE tile-map3d: kernel @tile (a 2d copy) through the 3-D map: an error.
  ptxsim_tma_check.py host-data IN.npz OUT.npz [B_BYTE_OFFSET]: the data of Inputs/tma_host.mlir.
  ptxsim_tma_check.py host-data3 IN.npz OUT.npz: the data of Inputs/tma3_host.mlir.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptxsim  # noqa: E402

INNER, ROWS, STRIDE = 100, 40, 256  # elements, rows, row stride in bytes
BOX_INNER, BOX_ROWS = 64, 32


def bf16(x):
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def f32(h):
    return (h.astype(np.uint32) << 16).view(np.float32)


def swizzled(box_bytes, dst, swz):
    """The shared bytes from dst on: box rows densely, each 16-byte chunk at
    addr ^ (((addr >> 7) & (swz / 16 - 1)) << 4)."""
    flat = box_bytes.reshape(-1)
    out = np.zeros_like(flat)
    logical = dst + 16 * np.arange(flat.size // 16)
    phys = logical ^ (((logical >> 7) & (swz // 16 - 1)) << 4) if swz else logical
    for k in range(flat.size // 16):
        out[phys[k] - dst:phys[k] - dst + 16] = flat[16 * k:16 * k + 16]
    return out


def params(kernel, values):
    return {name: int(v & ((1 << 64) - 1)).to_bytes(8, "little") for (name, _), v in zip(kernel.params, values)}


def tile(ptx, swz, bug):
    rng = np.random.default_rng(1)
    mem = ptxsim.Memory()
    t = np.zeros((ROWS, STRIDE // 2), np.uint16)
    t[:, :INNER] = bf16(rng.standard_normal((ROWS, INNER)))
    t[:, INNER:] = 0x7FC0  # row padding: never read (NaN if it were)
    g = mem.alloc(t)
    tm = mem.alloc(np.frombuffer(ptxsim.encode_tensor_map(g, 2, INNER, ROWS, STRIDE, BOX_INNER, BOX_ROWS, swz),
                                 np.uint8))
    k = ptxsim.Kernel(ptx, "tile")
    nbytes = BOX_INNER * BOX_ROWS * 2
    dstoff = 128 if bug == "misaligned" else 0
    parity = 1 if bug == "parity1" else 0
    status = 0
    for c0, c1 in [(0, 0), (48, 20), (-16, -3), (36, 8)]:
        out = mem.alloc(np.full(nbytes // 2, 0xFFFF, np.uint16))
        ptxsim.run(k, mem, (1, 1, 1), (128, 1, 1), params(k, [tm, out, c0, c1, parity, dstoff, nbytes]),
                   dyn_shared=1024 + dstoff + nbytes)
        box = np.zeros((BOX_ROWS, BOX_INNER), np.uint16)
        for i in range(BOX_ROWS):
            for j in range(BOX_INNER):
                r, c = c1 + i, c0 + j
                if 0 <= r < ROWS and 0 <= c < INNER:
                    box[i, j] = t[r, c]
        # The kernel aligns its buffer to 1024 bytes: the swizzle pattern starts at row 0.
        want = swizzled(box.view(np.uint8), 0, swz)
        got = mem.view(out, np.uint8, (nbytes,))
        if (got != want).any():
            j = int(np.argmax(got != want))
            print(f"box ({c0}, {c1}): MISMATCH at byte {j}: got {got[j]} want {want[j]}")
            status = 1
        else:
            print(f"box ({c0}, {c1}) swizzle {swz}: ok ({nbytes} bytes)")
    return status


# The 3-D cases: a K/V cache [B, S, H * D] of 16-bit elements, its map over the first KEYLEN rows
# of each plane.
B3, S3, HD3, KEYLEN = 3, 10, 128, 7
BOX3_INNER, BOX3_ROWS = 64, 16
BOXES3 = [(0, 0, 0), (64, 4, 0), (0, 4, 1), (64, 0, 1), (0, 0, 2), (64, 4, 2), (0, 0, -1), (64, 4, 3),
          (-16, -3, 1)]


def kv_tensor():
    rng = np.random.default_rng(4)
    return rng.integers(1, 0x7F80, (B3, S3, HD3), dtype=np.uint16)  # no zeros: zero fill shows


def kv_box(x, c0, c1, c2):
    """The box at (element c0, row c1, plane c2), element by element: zero outside the planes,
    the first KEYLEN rows of a plane and its HD3 elements."""
    box = np.zeros((BOX3_ROWS, BOX3_INNER), np.uint16)
    for i in range(BOX3_ROWS):
        for j in range(BOX3_INNER):
            p, r, c = c2, c1 + i, c0 + j
            if 0 <= p < B3 and 0 <= r < KEYLEN and 0 <= c < HD3:
                box[i, j] = x[p, r, c]
    return box


def swizzled128(box):
    """A box of 128-byte rows as the 128-byte swizzle lays it out from a 1024-byte aligned
    address: row i's 16-byte chunk c at chunk c ^ (i mod 8) of the row."""
    rows = box.view(np.uint8).reshape(box.shape[0], 8, 16)
    out = np.zeros_like(rows)
    for i in range(rows.shape[0]):
        for c in range(8):
            out[i, c ^ (i % 8)] = rows[i, c]
    return out.reshape(-1)


def kv_map(mem, g, swz=128, bug=""):
    """The tensor's map in device memory: B3 planes of KEYLEN rows (2-D with bug map2d: its first
    KEYLEN rows), plane stride S3 rows (wrong with bug planestride / planeoverlap)."""
    row_bytes = 2 * HD3
    plane = {"planestride": S3 * row_bytes + 8, "planeoverlap": (KEYLEN - 1) * row_bytes}.get(bug, S3 * row_bytes)
    planes = {} if bug == "map2d" else dict(planes=B3, plane_stride_bytes=plane)
    return mem.alloc(np.frombuffer(ptxsim.encode_tensor_map(g, 2, HD3, KEYLEN, row_bytes, BOX3_INNER, BOX3_ROWS, swz,
                                                            **planes), np.uint8))


def tile3d(ptx, swz, bug):
    mem = ptxsim.Memory()
    x = kv_tensor()
    tm = kv_map(mem, mem.alloc(x), swz, bug)
    k = ptxsim.Kernel(ptx, "tile3")
    nbytes = BOX3_INNER * BOX3_ROWS * 2
    status = 0
    for c0, c1, c2 in BOXES3:
        out = mem.alloc(np.full(nbytes // 2, 0xFFFF, np.uint16))
        ptxsim.run(k, mem, (1, 1, 1), (128, 1, 1), params(k, [tm, out, c0, c1, c2, 0, 0, nbytes]),
                   dyn_shared=1024 + nbytes)
        box = kv_box(x, c0, c1, c2)
        want = swizzled128(box) if swz == 128 else box.view(np.uint8).reshape(-1)
        got = mem.view(out, np.uint8, (nbytes,))
        zero_rows = int((box == 0).all(axis=1).sum())
        if (got != want).any():
            j = int(np.argmax(got != want))
            print(f"box ({c0}, {c1}, {c2}): MISMATCH at byte {j}: got {got[j]} want {want[j]}")
            status = 1
        else:
            print(f"box ({c0}, {c1}, {c2}) swizzle {swz}: ok ({nbytes} bytes, {zero_rows} zero rows)")
    return status


def tile_map3d(ptx):
    """@tile's 2d copy through a 3-D map."""
    mem = ptxsim.Memory()
    tm = kv_map(mem, mem.alloc(kv_tensor()))
    out = mem.alloc(np.zeros(BOX3_INNER * BOX3_ROWS, np.uint16))
    k = ptxsim.Kernel(ptx, "tile")
    ptxsim.run(k, mem, (1, 1, 1), (128, 1, 1), params(k, [tm, out, 0, 0, 0, 0, 2 * BOX3_INNER * BOX3_ROWS]),
               dyn_shared=1024 + 2 * BOX3_INNER * BOX3_ROWS)
    print("tile-map3d: no error")
    return 1


def wgmma(ptx, bug, threads=128):
    rng = np.random.default_rng(2)
    mem = ptxsim.Memory()
    A = bf16(rng.standard_normal((64, 64)))
    B = bf16(rng.standard_normal((64, 64)))
    ga, gb = mem.alloc(A), mem.alloc(B)
    box_inner = 128 if bug == "badmap" else 64
    tma = mem.alloc(np.frombuffer(ptxsim.encode_tensor_map(ga, 2, 64, 64, 128, box_inner, 64, 128), np.uint8))
    tmb = mem.alloc(np.frombuffer(ptxsim.encode_tensor_map(gb, 2, 64, 64, 128, 64, 64, 128), np.uint8))
    out = mem.alloc(np.full(128 * 32, np.nan, np.float32))
    k = ptxsim.Kernel(ptx, "wgmma_tma")
    dflags = (0 if bug == "noswizzle" else 1 << 62) | (1024 >> 4) << 32 | 1 << 16
    stats = {}
    ptxsim.run(k, mem, (1, 1, 1), (threads, 1, 1), params(k, [tma, tmb, out, dflags, int(bug == "refill")]), stats,
               dyn_shared=1024 + 16384)
    regs = mem.view(out, np.float32, (128, 32))
    want = (f32(A).astype(np.float64) @ f32(B).astype(np.float64).T).astype(np.float32)
    # PTX ISA, wgmma .m64nNk16 D fragments: thread t of the warpgroup, warp v = t // 32, lane l,
    # g = l // 4, q = l % 4: register 4 i + 2 h + e holds D[16 v + 8 h + g][8 i + 2 q + e].
    got = np.full((64, 64), np.nan, np.float32)
    for t in range(128):
        v, g, q = t // 32, (t % 32) // 4, t % 4
        for i in range(8):
            for h in range(2):
                for e in range(2):
                    got[16 * v + 8 * h + g, 8 * i + 2 * q + e] = regs[t, 4 * i + 2 * h + e]
    err = np.abs(got - want)
    if not (err <= 1e-3 + 1e-3 * np.abs(want)).all():
        j = np.unravel_index(np.argmax(np.where(np.isnan(err), np.inf, err)), err.shape)
        print(f"wgmma: MISMATCH at {tuple(int(x) for x in j)}: got {got[j]} want {want[j]}")
        return 1
    print(f"wgmma: ok (64 x 64, max abs error {err.max():.3g}; cp {stats.get('cp', 0)}, "
          f"wgmma {stats.get('wgmma', 0)}, tma bytes {stats.get('tma_bytes', 0)})")
    return 0


def frag_to_matrix(regs, n):
    """The m64nN accumulators per thread (128 x n/2) as the 64 x n matrix D (PTX ISA, wgmma
    .m64nNk16 D fragments: warp v = t // 32, g = lane // 4, q = lane % 4: register 4 i + 2 h + e
    holds D[16 v + 8 h + g][8 i + 2 q + e])."""
    got = np.full((64, n), np.nan, np.float32)
    for t in range(128):
        v, g, q = t // 32, (t % 32) // 4, t % 4
        for i in range(n // 8):
            for h in range(2):
                for e in range(2):
                    got[16 * v + 8 * h + g, 8 * i + 2 * q + e] = regs[t, 4 * i + 2 * h + e]
    return got


def pipe(ptx):
    """@pipe: a 3-stage TMA/mbarrier/wgmma pipeline over K = 384 (six k-tiles of 64, each stage
    barrier completing phases 0 and 1), A 60 x 384 and B 56 x 384 (rows past them zero-filled)."""
    rng = np.random.default_rng(3)
    mem = ptxsim.Memory()
    M, N, K = 60, 56, 384
    A = bf16(rng.standard_normal((M, K)))
    B = bf16(rng.standard_normal((N, K)))
    ga, gb = mem.alloc(A), mem.alloc(B)
    tma = mem.alloc(np.frombuffer(ptxsim.encode_tensor_map(ga, 2, K, M, 2 * K, 64, 64, 128), np.uint8))
    tmb = mem.alloc(np.frombuffer(ptxsim.encode_tensor_map(gb, 2, K, N, 2 * K, 64, 64, 128), np.uint8))
    out = mem.alloc(np.full(128 * 32, np.nan, np.float32))
    k = ptxsim.Kernel(ptx, "pipe")
    stats = {}
    ptxsim.run(k, mem, (1, 1, 1), (128, 1, 1), params(k, [tma, tmb, out, K // 64]), stats,
               dyn_shared=1024 + 3 * 16384)
    got = frag_to_matrix(mem.view(out, np.float32, (128, 32)), 64)
    want = np.zeros((64, 64), np.float32)
    want[:M, :N] = (f32(A).astype(np.float64) @ f32(B).astype(np.float64).T).astype(np.float32)
    err = np.abs(got - want)
    if not (err <= 1e-3 + 1e-3 * np.abs(want)).all():
        j = np.unravel_index(np.argmax(np.where(np.isnan(err), np.inf, err)), err.shape)
        print(f"pipe: MISMATCH at {tuple(int(x) for x in j)}: got {got[j]} want {want[j]}")
        return 1
    print(f"pipe: ok (64 x 64 over K = {K}, max abs error {err.max():.3g}; cp {stats.get('cp', 0)}, "
          f"wgmma {stats.get('wgmma', 0)}, mbarrier {stats.get('mbarrier', 0)}, tma bytes {stats.get('tma_bytes', 0)})")
    return 0


def host_data(inp, out, boff):
    """Inputs and expected output of Inputs/tma_host.mlir (gpusim_run.py): A, B, B's byte offset;
    out0[t][4 i + 2 h + e] = (A @ B^T)[16 v + 8 h + g][8 i + 2 q + e]."""
    rng = np.random.default_rng(2)
    A = bf16(rng.standard_normal((64, 64)))
    B = bf16(rng.standard_normal((64, 64)))
    D = (f32(A).astype(np.float64) @ f32(B).astype(np.float64).T).astype(np.float32)
    regs = np.zeros((128, 32), np.float32)
    for t in range(128):
        v, g, q = t // 32, (t % 32) // 4, t % 4
        for i in range(8):
            for h in range(2):
                for e in range(2):
                    regs[t, 4 * i + 2 * h + e] = D[16 * v + 8 * h + g, 8 * i + 2 * q + e]
    np.savez(inp, arg0=A, arg1=B, arg2=np.array(boff, np.int64))
    np.savez(out, out0=regs)


def host_data3(inp, out):
    """Inputs and expected output of Inputs/tma3_host.mlir: the tensor of kv_tensor() and, as
    32-bit words, the box at (64, 4, 1) of its map (keyLen 7 of S = 10 rows), 128-byte swizzled."""
    x = kv_tensor()
    np.savez(inp, arg0=x)
    np.savez(out, out0=swizzled128(kv_box(x, 64, 4, 1)).view(np.int32))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "host-data":
        host_data(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 0)
        return
    if len(sys.argv) > 1 and sys.argv[1] == "host-data3":
        host_data3(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("ptx")
    ap.add_argument("case", choices=["tile-swz128", "tile-none", "wgmma", "pipe", "tile3d-swz128", "tile3d-none",
                                     "tile-map3d"])
    ap.add_argument("--bug", default="")
    ap.add_argument("--threads", type=int, default=128)
    args = ap.parse_args()
    ptx = open(args.ptx).read()
    try:
        if args.case == "wgmma":
            status = wgmma(ptx, args.bug, args.threads)
        elif args.case == "pipe":
            status = pipe(ptx)
        elif args.case.startswith("tile3d"):
            status = tile3d(ptx, 128 if args.case == "tile3d-swz128" else 0, args.bug)
        elif args.case == "tile-map3d":
            status = tile_map3d(ptx)
        else:
            status = tile(ptx, 128 if args.case == "tile-swz128" else 0, args.bug)
    except ptxsim.SimError as e:
        print(f"error: {e}")
        sys.exit(1)
    sys.exit(status)


if __name__ == "__main__":
    main()
