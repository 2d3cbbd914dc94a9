"""The interpreter's prmt.b32 (default mode) on a hand-written kernel against values worked out
by hand from the PTX ISA ("prmt": the bytes {b, a} numbered 0-3 from a and 4-7 from b; result
byte i is the byte named by bits 4i .. 4i + 2 of the selector, or, with bit 4i + 3 set, that
byte's sign replicated), including the two selectors LLVM's NVPTX back end emits to pack bytes
(0x3340, 0x5410), and a byte of the expected value changed must be reported.

  ptxsim_prmt_check.py [--wrong]
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
.visible .entry prmt_check(.param .u64 out, .param .u32 a, .param .u32 b, .param .u32 sel)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [a];
  ld.param.u32 %r2, [b];
  ld.param.u32 %r3, [sel];
  cvta.to.global.u64 %rd2, %rd1;
  prmt.b32 %r4, %r1, %r2, %r3;
  st.global.u32 [%rd2], %r4;
  ret;
}
"""

A, B = 0x44332211, 0x88776655
# (selector, the result worked out by hand)
CASES = [
    (0x3210, 0x44332211),  # a unchanged
    (0x7654, 0x88776655),  # b
    (0x5410, 0x66552211),  # low halves of a, b (LLVM: two packed byte pairs -> one word)
    (0x3340, 0x44445511),  # a.b0, b.b0, then a.b3 twice (LLVM packs a byte pair so)
    (0x0123, 0x11223344),  # a byte-reversed
    (0x8888, 0x00000000),  # a.b0 = 0x11: sign 0 replicated
    (0xFFFF, 0xFFFFFFFF),  # b.b3 = 0x88: sign 1 replicated
    (0x7F40, 0x88FF5511),  # b.b3, sign of b.b3, b.b0, a.b0
]


def main():
    wrong = "--wrong" in sys.argv[1:]
    k = ptxsim.Kernel(PTX, "prmt_check")
    status = 0
    for sel, want in CASES:
        if wrong and sel == 0x3340:
            want ^= 0x00010000
        mem = ptxsim.Memory()
        out = mem.alloc(np.zeros(1, np.uint32))
        vals = [out, A, B, sel]
        params = {name: int(v).to_bytes(8 if name == "out" else 4, "little")
                  for (name, _), v in zip(k.params, vals)}
        ptxsim.run(k, mem, (1, 1, 1), (1, 1, 1), params)
        got = int(mem.view(out, np.uint32, (1,))[0])
        if got != want:
            print(f"prmt {sel:#06x}: MISMATCH got {got:#010x} want {want:#010x}")
            status = 1
        else:
            print(f"prmt {sel:#06x}: ok {got:#010x}")
    sys.exit(status)


if __name__ == "__main__":
    main()
