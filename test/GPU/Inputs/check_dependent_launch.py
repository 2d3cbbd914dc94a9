"""Checks the dependent-launch code of decoda-compile --emit=ptx output (decoda-gpu-dependent-launch):
for every kernel (.entry) whether a griddepcontrol.wait comes before its first instruction that
accesses global memory (ld/st/atom/red.global, generic ld/st, cp.async copies and TMA; not
the L2 prefetch cp.async.bulk.prefetch, which may come first) in the text -- its entry block
comes first, so a global access in it before the wait would show -- and counts the waits, the
launch_dependents, the modules that define the marker global decoda_dependent_launch and the
prefetches.

  check_dependent_launch.py KERNELS.ptx
"""
import re
import sys

text = open(sys.argv[1]).read()
GLOBAL = re.compile(r"^\s*(?:@!?%p\d+\s+)?(?:(?:ld|st|atom|red)\.(?:global|(?![a-z]+::|shared|param|local|const)[a-z0-9]+)"
                    r"|cp\.async\.(?:ca|cg)|cp\.async\.bulk\.tensor)\b")
entries = list(re.finditer(r"\.visible\s+\.entry\s+(\w+)\(", text))
kernels = waited = waits = triggers = prefetches = 0
for i, m in enumerate(entries):
    body = text[m.end():entries[i + 1].start() if i + 1 < len(entries) else len(text)]
    kernels += 1
    waits += body.count("griddepcontrol.wait;")
    triggers += body.count("griddepcontrol.launch_dependents;")
    prefetches += body.count("cp.async.bulk.prefetch.L2.global")
    first_wait = body.find("griddepcontrol.wait;")
    first_access = -1
    for line in re.finditer(r"[^\n]*\n", body):
        if GLOBAL.match(line.group(0)):
            first_access = line.start()
            break
    if first_wait >= 0 and (first_access < 0 or first_wait < first_access):
        waited += 1
    elif first_wait >= 0:
        print(f"{m.group(1)}: a global access before griddepcontrol.wait: "
              f"{body[first_access:body.index(chr(10), first_access)].strip()}")
marked = len(re.findall(r"^\.visible \.global \.align 4 \.u32 decoda_dependent_launch = 1;", text, flags=re.M))
print(f"{kernels} kernels: {waited} with griddepcontrol.wait before their first global access "
      f"({waits} waits, {triggers} launch_dependents), {marked} modules marked, {prefetches} L2 prefetches")
