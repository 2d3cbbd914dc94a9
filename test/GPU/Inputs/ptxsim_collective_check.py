"""The interpreter's warp collectives on a hand-written kernel of 64 threads (two warps): a
shfl.sync.bfly that only warp 1 executes (warp 0 branches around it, as the tensor-core
attention kernel's warps without rows skip their mma) runs, and gives each lane of warp 1 its
partner's value (lane ^ 1); with --diverge the branch is taken per lane (lanes 0 .. 15 of each
warp skip), which must be reported as reached by only some threads of a warp.

Then vote.sync (the wgmma attention's warp-uniform skip of O's rescale) on 64 threads, each
lane's predicate tid % 32 == 3 + 26 * (tid / 32) (lane 3 of warp 0, lane 29 of warp 1) and
tid < 32 (all of warp 0, none of warp 1): any, all, uni and ballot per warp, checked against
the values written out here by hand.

  ptxsim_collective_check.py [--diverge]
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptxsim  # noqa: E402

PTX = r"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry coll(.param .u64 out, .param .u32 shift)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r6, [shift];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, -1;
  shr.u32 %r2, %r1, %r6;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra SKIP;
  shfl.sync.bfly.b32 %r3, %r1, 1, 31, -1;
SKIP:
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r3;
  ret;
}
"""


VOTE = r"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry vote(.param .u64 out)
{
  .reg .pred %p<12>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shr.u32 %r3, %r1, 5;
  mul.lo.u32 %r4, %r3, 26;
  add.u32 %r4, %r4, 3;
  setp.eq.u32 %p1, %r2, %r4;
  setp.lt.u32 %p2, %r1, 32;
  vote.sync.any.pred %p3, %p1, -1;
  vote.sync.all.pred %p4, %p2, -1;
  vote.sync.uni.pred %p5, %p2, -1;
  vote.sync.uni.pred %p6, %p1, -1;
  vote.sync.any.pred %p7, !%p2, -1;
  vote.sync.ballot.b32 %r5, %p1, -1;
  selp.u32 %r6, 1, 0, %p3;
  selp.u32 %r7, 2, 0, %p4;
  selp.u32 %r8, 4, 0, %p5;
  selp.u32 %r9, 8, 0, %p6;
  selp.u32 %r10, 16, 0, %p7;
  or.b32 %r6, %r6, %r7;
  or.b32 %r6, %r6, %r8;
  or.b32 %r6, %r6, %r9;
  or.b32 %r6, %r6, %r10;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r6;
  st.global.u32 [%rd4+4], %r5;
  ret;
}
"""


def vote():
    k = ptxsim.Kernel(VOTE, "vote")
    mem = ptxsim.Memory()
    out = mem.alloc(np.zeros(128, np.uint32))
    params = {name: int(out).to_bytes(8, "little") for name, _ in k.params}
    ptxsim.run(k, mem, (1, 1, 1), (64, 1, 1), params)
    got = mem.view(out, np.uint32, (64, 2))
    # Warp 0: any(lane 3) 1, all(tid < 32) 2, uni(tid < 32) 4, uni(lane 3) no, any(!(tid < 32))
    # no; ballot 1 << 3. Warp 1: any(lane 29) 1, all no, uni(all false) 4, uni(lane 29) no,
    # any(!(tid < 32)) 16; ballot 1 << 29.
    want = np.array([[1 | 2 | 4, 1 << 3]] * 32 + [[1 | 4 | 16, 1 << 29]] * 32, np.uint32)
    if (got != want).any():
        print("vote MISMATCH", got[0].tolist(), got[32].tolist())
        sys.exit(1)
    print("vote.sync any/all/uni/ballot per warp: ok")


def main():
    diverge = "--diverge" in sys.argv[1:]
    k = ptxsim.Kernel(PTX, "coll")
    mem = ptxsim.Memory()
    out = mem.alloc(np.zeros(64, np.uint32))
    # shift 5: tid >> 5 is the warp (warp 0 skips); shift 4: tid >> 4 == 0 for lanes 0 .. 15
    # of warp 0 only -- a branch that splits warp 0.
    shift = 4 if diverge else 5
    params = {name: int(v).to_bytes(8 if name == "out" else 4, "little")
              for (name, _), v in zip(k.params, [out, shift])}
    try:
        ptxsim.run(k, mem, (1, 1, 1), (64, 1, 1), params)
    except ptxsim.SimError as e:
        print(f"error: {e}")
        sys.exit(1)
    got = mem.view(out, np.uint32, (64,))
    want = np.array([0xFFFFFFFF] * 32 + [t ^ 1 for t in range(32, 64)], np.uint32)
    if (got != want).any():
        print("MISMATCH", got.tolist())
        sys.exit(1)
    print("warp 0 skipped, warp 1 shuffled: ok")
    vote()


if __name__ == "__main__":
    main()
