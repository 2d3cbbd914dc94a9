"""Checks decoda-run --profile against the log of fake_cuda.c (test/GPU/profile.mlir).

  check_profile.py LOG PROFILE_OUTPUT

The fake driver's device clock advances by a launch's block count (microseconds) and by a
copy's size in KiB; its events record the clock. From the log alone this script works out what
a profile of the one profiled call (the lines between its first and last event record) must
say: one launch between consecutive events, the first event right before the first launch (no
copy of the inputs in between) and the last right after the last launch (no copy of the
outputs), and each launch's time the clock's advance since the event before it. It prints the
launches it expects and whether the profile printed by decoda-run agrees, line by line.
"""
import math
import re
import sys

log = [l.strip() for l in open(sys.argv[1]) if l.strip()]
events = [i for i, l in enumerate(log) if l.startswith("event record")]
if not events:
    sys.exit("no event records in the log: nothing was profiled")
window = log[events[0]:events[-1] + 1]
expected = []  # microseconds of each launch, from the event before it to the one after it
problems = []
current, launches = 0, 0
for l in window[1:]:
    if l.startswith("launch blocks "):
        current += int(l.split()[2])
        launches += 1
    elif l.startswith("copy ") and not l.startswith("copy-to"):
        if launches == 0:
            problems.append("a copy between the first event and the first launch")
        current += math.ceil(int(l.split()[1]) / 1024)
    elif l.startswith("event record"):
        if launches != 1:
            problems.append(f"{launches} launches between two events")
        expected.append(current)
        current, launches = 0, 0

printed = open(sys.argv[2]).read()
head = re.search(r"profile \S+: (\d+) runs, (\d+) launches a run: kernels median ([0-9.]+) ms", printed)
rows = re.findall(r"launch +(\d+) (\S+) +median ([0-9.]+) ms", printed)
print("expected launches:", len(expected), "span", sum(expected) / 1000, "ms")
print("problems:", problems or "none")
if not head:
    sys.exit("no profile line in the output")
ok = int(head.group(2)) == len(expected) == len(rows)
ok = ok and abs(float(head.group(3)) - sum(expected) / 1000) < 5e-4
for (i, name, ms), us in zip(rows, expected):
    same = abs(float(ms) - us / 1000) < 5e-5
    ok = ok and same
    print(f"launch {i} {name}: {ms} ms, expected {us / 1000:.4f}", "ok" if same else "DIFFERENT")
print("profile agrees with the log:", "yes" if ok and not problems else "no")
