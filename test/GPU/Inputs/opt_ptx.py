"""Turns a `decoda-opt --decoda-lower-to-cuda="format=isa ..."` run into what gpusim_run.py reads
from decoda-compile (--dump-ir-after-each and --emit=ptx), for builds with pipeline options that
decoda-compile does not expose (e.g. fuse-epilogue=false):

  opt_ptx.py HOST.mlir OUT.mlir DUMP_DIR KERNELS.ptx

HOST.mlir is decoda-opt's stderr with --mlir-print-ir-before=decoda-lower-runtime-checks (the
host function gpusim_run.py interprets), OUT.mlir its output; DUMP_DIR gets the host IR as the
file before a (empty) decoda-lower-runtime-checks one, KERNELS.ptx the PTX text of every
gpu.binary as `// gpu.binary @NAME` sections.
"""
import os
import re
import sys

host, out, dump, ptx = sys.argv[1:]
os.makedirs(dump, exist_ok=True)
with open(os.path.join(dump, "1-host.mlir"), "w") as f:
    f.write(open(host).read())
open(os.path.join(dump, "2-decoda-lower-runtime-checks.mlir"), "w").close()


def unescape(s):
    """An MLIR string literal's body: \\XX hex escapes, \\\\, \\", \\n, \\t."""
    out, i = bytearray(), 0
    while i < len(s):
        if s[i] != "\\":
            out += s[i].encode()
            i += 1
            continue
        nxt = s[i + 1]
        if nxt in '\\"':
            out += nxt.encode()
            i += 2
        elif nxt == "n":
            out += b"\n"
            i += 2
        elif nxt == "t":
            out += b"\t"
            i += 2
        else:
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
    return out.decode()


text = open(out).read()
sections = []
for m in re.finditer(r'gpu\.binary @(\S+)\s+\[#gpu\.object<#nvvm\.target<[^>]*>,[^"]*"((?:[^"\\]|\\.)*)"', text):
    sections.append(f"// gpu.binary @{m.group(1)}\n" + unescape(m.group(2)))
if not sections:
    raise SystemExit("opt_ptx: no gpu.binary with PTX text in " + out)
with open(ptx, "w") as f:
    f.write("".join(sections))
