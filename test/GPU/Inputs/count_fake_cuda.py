"""Summarises the log of fake_cuda.c: calls (kernel-launch groups), copies and allocations by
size, allocations never freed, whether every free came before the first module unload, and the
streams: how many were created and destroyed, which ones launches, copies and stream-ordered
allocations used, and how many synchronisations there were."""
import collections
import sys

lines = [l.strip() for l in open(sys.argv[1]) if l.strip()]
copies = collections.Counter(int(l.split()[1]) for l in lines if l.startswith("copy "))
allocs = collections.Counter(int(l.split()[1]) for l in lines if l.startswith("alloc "))
frees = sum(1 for l in lines if l == "free")
# A call's launches end with a wait for the stream (the copy of its results, or the call's
# end; frees come within calls now, after each buffer's last use): count the runs of launches
# separated by waits.
calls, in_call = 0, False
for l in lines:
    if l.startswith("launch"):
        if not in_call:
            calls += 1
        in_call = True
    elif l.startswith("sync stream"):
        in_call = False
unload = next((i for i, l in enumerate(lines) if l == "module unload"), len(lines))
last_free = max((i for i, l in enumerate(lines) if l == "free"), default=-1)
print("calls", calls)
for size, n in sorted(copies.items(), reverse=True):
    print(f"copies of {size} bytes: {n}")
for size, n in sorted(allocs.items(), reverse=True):
    print(f"allocations of {size} bytes: {n}")
print("unfreed allocations:", sum(allocs.values()) - frees)
print("freed before the modules were unloaded:", "yes" if last_free < unload else "no")

streams = [l.split()[2] for l in lines if l.startswith("stream create ")]
print("streams created:", len(streams))
print("streams destroyed:", sum(1 for l in lines if l.startswith("stream destroy ")))
for what, prefix in (("launches", "launch stream "), ("copies", "copy-to "),
                     ("stream-ordered allocations", "pool alloc stream "),
                     ("stream-ordered frees", "pool free stream ")):
    used = sorted({l.split()[-1] for l in lines if l.startswith(prefix)})
    print(f"streams used by {what}: {len(used)}")
print("stream-ordered allocations:", sum(1 for l in lines if l.startswith("pool alloc ")))
print("copies to the host:", sum(1 for l in lines if l.startswith("copy-to host ")))
print("synchronisations:", sum(1 for l in lines if l.startswith("sync stream ")))
for l in lines:
    if l.startswith("pool release threshold ") and l != "pool release threshold 0":
        print("pool release threshold:", l.split()[-1])
print("pool trims:", sum(1 for l in lines if l.startswith("pool trim ")))
if any(l.startswith("graph ") for l in lines):
    print("kernel launches:", sum(1 for l in lines if l.startswith("launch blocks ")))
    print("graph launches:", sum(1 for l in lines if l.startswith("graph launch stream ")))
    print("graph instantiations:", sum(1 for l in lines if l.startswith("graph instantiate ")))
    print("graph node updates:", sum(1 for l in lines if l == "graph set params"))
# Programmatic dependent launch: launches with the attribute, the modules whose marker the
# runtime found, and graph edges by kind.
print("dependent-launch modules:", sum(1 for l in lines if l == "module global decoda_dependent_launch"))
print("dependent launches:", sum(1 for l in lines if l == "launch dependent"))
print("programmatic graph edges:", sum(1 for l in lines if l == "graph edge programmatic"))
print("plain graph edges added after their node:", sum(1 for l in lines if l == "graph edge"))
