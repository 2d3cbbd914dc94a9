"""The interpreter's warp collectives on a hand-written kernel of 64 threads (two warps): a
shfl.sync.bfly that only warp 1 executes (warp 0 branches around it, as the tensor-core
attention kernel's warps without rows skip their mma) runs, and gives each lane of warp 1 its
partner's value (lane ^ 1); with --diverge the branch is taken per lane (lanes 0 .. 15 of each
warp skip), which must be reported as reached by only some threads of a warp.

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


if __name__ == "__main__":
    main()
