"""Summarises the log of fake_cuda.c: calls (kernel-launch groups), copies and allocations by
size, allocations never freed, and whether every free came before the first module unload."""
import collections
import sys

lines = [l.strip() for l in open(sys.argv[1]) if l.strip()]
copies = collections.Counter(int(l.split()[1]) for l in lines if l.startswith("copy "))
allocs = collections.Counter(int(l.split()[1]) for l in lines if l.startswith("alloc "))
frees = sum(1 for l in lines if l == "free")
# A call starts with the copy of its first input after the previous call's last free (or at
# the start): count the runs of launches separated by frees.
calls, in_call = 0, False
for l in lines:
    if l.startswith("launch"):
        if not in_call:
            calls += 1
        in_call = True
    elif l == "free":
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
