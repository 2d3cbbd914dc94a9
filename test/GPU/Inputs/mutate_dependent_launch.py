"""Breaks the dependent-launch code of one kernel of a PTX file, for the tests that the PTX
interpreter catches it:

  mutate_dependent_launch.py IN.ptx OUT.ptx KERNEL early-load   -- its first griddepcontrol.wait
      moved after its first ld.global (a load before the wait)
  mutate_dependent_launch.py IN.ptx OUT.ptx KERNEL prefetch-past -- its first L2 prefetch moved
      past the end of its row by the row's bytes (outside the weight for the last rows)
"""
import re
import sys

src, dst, kernel, how = sys.argv[1:5]
text = open(src).read()
m = re.search(r"\.visible\s+\.entry\s+" + re.escape(kernel) + r"\(", text)
if not m:
    sys.exit(f"no kernel {kernel} in {src}")
start = m.end()
nxt = re.search(r"\.visible\s+\.entry\s+", text[start:])
end = start + nxt.start() if nxt else len(text)
body = text[start:end]
if how == "early-load":
    w = re.search(r"[^\n]*griddepcontrol\.wait;\n", body)
    if not w:
        sys.exit(f"{kernel} has no griddepcontrol.wait")
    body = body[:w.start()] + body[w.end():]
    ld = re.search(r"[^\n]*ld\.global[^\n]*\n", body[w.start():])
    if not ld:
        sys.exit(f"{kernel} has no ld.global after its wait")
    at = w.start() + ld.end()
    body = body[:at] + w.group(0) + body[at:]
elif how == "prefetch-past":
    p = re.search(r"cp\.async\.bulk\.prefetch\.L2\.global \[(%rd\d+)\], (%r\d+);", body)
    if not p:
        sys.exit(f"{kernel} has no L2 prefetch")
    # address += size: the bytes right after the prefetched ones (past the weight's end for
    # the warps of its last rows).
    fix = (f"cvt.u64.u32 %rd_past, {p.group(2)};\n\tadd.s64 {p.group(1)}, {p.group(1)}, %rd_past;\n\t"
           f"{p.group(0)}")
    body = body[:p.start()] + fix + body[p.end():]
    decl = re.search(r"\.reg \.b64 [^;]*;", body)
    body = body[:decl.end()] + "\n\t.reg .b64 %rd_past;" + body[decl.end():]
else:
    sys.exit(f"unknown mutation {how}")
open(dst, "w").write(text[:start] + body + text[end:])
