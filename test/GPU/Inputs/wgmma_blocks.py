"""Summarises the wgmma inline-asm blocks of a PTX kernel (flash-attention-wgmma-ptx.mlir):
    wgmma_blocks.py KERNEL.ptx
One line per block, in the order of the text: its wgmma instructions (fence, S = an
m64n64k16, PV = an m64n128k16, commit; runs of the same one counted), then what follows the
block up to the next barrier or block: its waits (wait N), and whether exponentials (ex2) and
roundings of P (cvt.rn.bf16x2) come before, between or after them."""
import re
import sys

lines = open(sys.argv[1]).read().splitlines()
i = 0
while i < len(lines):
    if "begin inline asm" not in lines[i]:
        i += 1
        continue
    j = i + 1
    ops = []
    while "end inline asm" not in lines[j]:
        t = lines[j].strip()
        if t.startswith("wgmma.fence"):
            ops.append("fence")
        elif t.startswith("wgmma.commit_group"):
            ops.append("commit")
        elif t.startswith("wgmma.mma_async"):
            ops.append("S" if ".m64n64k16." in t else "PV" if ".m64n128k16." in t else "?")
        j += 1
    i = j + 1
    if not ops:
        continue
    runs = []
    for op in ops:
        if runs and runs[-1][0] == op:
            runs[-1][1] += 1
        else:
            runs.append([op, 1])
    after = []
    k = i
    while k < len(lines) and "bar.sync" not in lines[k] and not (
            "begin inline asm" in lines[k] and "wgmma" in "".join(lines[k:k + 8])):
        t = lines[k].strip()
        m = re.match(r"wgmma\.wait_group\.sync\.aligned\s+(\d+);", t)
        if m:
            after.append("wait " + m.group(1))
        elif t.startswith("ex2.approx") and (not after or after[-1] != "ex2"):
            after.append("ex2")
        elif t.startswith("cvt.rn.bf16x2.f32") and (not after or after[-1] != "cvt"):
            after.append("cvt")
        k += 1
    print(" ".join(f"{op}{'x' + str(n) if n > 1 else ''}" for op, n in runs), "|", " ".join(after))
