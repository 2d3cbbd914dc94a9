"""The interpreter's named barriers (bar.sync id, n / bar.arrive id, n) on a hand-written
ping-pong of two groups of two warps (128 threads; group g = tid / 64), the protocol of the
wgmma attention's --gpu-attention-pingpong: group g waits on barrier 1 + g (128 threads: its own
64 in bar.sync and the other group's 64 in bar.arrive) before each of its TURNS turns and arrives
on the other's barrier 2 - g after it; group 1 arrives on barrier 1 once up front and skips its
arrival after its last turn, so every phase of both barriers completes. In its turn, each
group's lane 0 reads a counter c in global memory, writes (g << 8 | turn) to log[c] and stores
c + 1: with the barriers, the log holds the strict alternation written out here by hand
(group 0 turn 0, group 1 turn 0, group 0 turn 1, ...).

  ptxsim_named_barrier_check.py [--bug BUG] [--turns N]

BUG, each reported: nobar (the named barriers removed: the groups run their turns together, the
log differs), noinit (group 1's first arrival removed: deadlock), lastarrive (group 1 also arrives
after its last turn: barrier 1 is left with 64 of 128 arrivals at exit), split (the bar.sync
predicated on lane 0: a warp split by a predicate), count (a thread count of 100), mixed (group
1's first arrival expects 96 threads where group 0 waits for 128), shared (the counter in shared
memory: a named barrier does not order shared memory for the race check, which asks for a
block-wide bar.sync).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptxsim  # noqa: E402

PTX = r"""
.version 8.0
.target sm_90a
.address_size 64
.visible .entry pp(.param .u64 out, .param .u32 turns)
{
  .shared .align 4 .b8 ctr_s[4];
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r10, [turns];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 6;
  and.b32 %r3, %r1, 63;
  setp.eq.u32 %p1, %r3, 0;
  add.u32 %r5, %r2, 1;
  mov.u32 %r7, 2;
  sub.u32 %r6, %r7, %r2;
  setp.eq.u32 %p2, %r2, 1;
  mov.u32 %r12, ctr_s;
  setp.eq.u32 %p5, %r1, 0;
  @%p5 st.shared.u32 [%r12], 0;
  bar.sync 0;
  INIT
  mov.u32 %r4, 0;
LOOP:
  SYNC
  @!%p1 bra AFTER;
  LOADCTR
  shl.b32 %r9, %r2, 8;
  or.b32 %r9, %r9, %r4;
  mul.wide.u32 %rd3, %r8, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4+4], %r9;
  add.u32 %r8, %r8, 1;
  STORECTR
AFTER:
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p3, %r4, %r10;
  setp.ge.u32 %p6, %r4, %r10;
  and.pred %p7, %p6, %p2;
  ARRIVE
  @%p3 bra LOOP;
  ret;
}
"""


def ptx(bug):
    sub = {
        "INIT": "@%p2 bar.arrive %r6, 128;",
        "SYNC": "bar.sync %r5, 128;",
        "ARRIVE": "@!%p7 bar.arrive %r6, 128;",
        "LOADCTR": "ld.global.u32 %r8, [%rd2];",
        "STORECTR": "st.global.u32 [%rd2], %r8;",
    }
    if bug == "nobar":
        sub["SYNC"] = sub["INIT"] = sub["ARRIVE"] = ""
    elif bug == "noinit":
        sub["INIT"] = ""
    elif bug == "lastarrive":
        sub["ARRIVE"] = "bar.arrive %r6, 128;"
    elif bug == "split":
        sub["SYNC"] = "@%p1 bar.sync %r5, 128;"
    elif bug == "count":
        sub["SYNC"] = "bar.sync %r5, 100;"
    elif bug == "mixed":
        sub["INIT"] = "@%p2 bar.arrive %r6, 96;"
    elif bug == "shared":
        sub["LOADCTR"] = "ld.shared.u32 %r8, [%r12];"
        sub["STORECTR"] = "st.shared.u32 [%r12], %r8;"
    text = PTX
    for k, v in sub.items():
        text = text.replace(k, v)
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bug", default=None,
                    choices=["nobar", "noinit", "lastarrive", "split", "count", "mixed", "shared"])
    ap.add_argument("--turns", type=int, default=3)
    a = ap.parse_args()
    k = ptxsim.Kernel(ptx(a.bug), "pp")
    mem = ptxsim.Memory()
    n = 2 * a.turns
    out = mem.alloc(np.zeros(1 + n, np.uint32))
    params = {name: int(v).to_bytes(8 if name == "out" else 4, "little")
              for (name, _), v in zip(k.params, [out, a.turns])}
    stats = {}
    try:
        ptxsim.run(k, mem, (1, 1, 1), (128, 1, 1), params, stats=stats)
    except ptxsim.SimError as e:
        print(f"error: {e}")
        sys.exit(1)
    got = mem.view(out, np.uint32, (1 + n,))
    # Turn i of group g is the (2 i + g)-th: group 0 turn 0, group 1 turn 0, group 0 turn 1, ...
    want = np.array([n] + [(g << 8) | i for i in range(a.turns) for g in (0, 1)], np.uint32)
    if (got != want).any():
        print("MISMATCH log", [hex(int(x)) for x in got[1:]], "counter", int(got[0]))
        sys.exit(1)
    print(f"ping-pong of {a.turns} turns: ok ({n} turns in strict alternation; named barrier instructions "
          f"{stats.get('nbar', 0)}, block barriers {stats.get('bar', 0)})")


if __name__ == "__main__":
    main()
