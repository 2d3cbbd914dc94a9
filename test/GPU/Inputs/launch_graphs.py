"""Launch graphs (Model.cuda_graphs, docs/ABI.md "Launch graphs") on launch-graphs.mlir's decode
step, run on the fake driver of fake_cuda.c, which runs no kernel but writes every kernel it
would run, with its launch dimensions and argument values, to $FAKE_CUDA_EXEC_LOG, and every
driver call to $FAKE_CUDA_LOG:
    launch_graphs.py MODEL.so DIR   with DECODA_CUDA_DRIVER pointing at fake_cuda.so

The same calls (cache offsets 3, 3, 4, 9, 9) are made with graphs and then without; what the device
runs must be the same kernels in the same order with the same arguments. A buffer's address
differs between the two (the graphs' temporaries come from an arena, the others from the pool),
and a freed temporary's memory is reused by later ones in an order each allocator picks, so the
arguments are compared after naming every device address of a kernel by its first use among
that kernel's arguments (A0, A1, ...): the same values, and the same buffers passed twice where
one kernel takes one buffer twice. The calls without graphs are compared with each other with
addresses named by first use in the call (the pool hands the same blocks back in the same order
every call): the same buffers flow between the same kernels, only the kernels that take the
offset differ. Prints what it found; the lit file checks the figures."""

import ctypes
import os
import re
import sys

import numpy as np

from decoda import runtime as rt
from decoda import testing as T

model_path, work = sys.argv[1], sys.argv[2]
fake = ctypes.CDLL(os.environ["DECODA_CUDA_DRIVER"])  # the runtime's handle: same library
fake.fake_cuda_graphs_live.restype = ctypes.c_int
rng = np.random.default_rng(3)
OFFSETS = [3, 3, 4, 9, 9]


def bf16(*shape):
    return rt.float32_to_bf16(rng.standard_normal(shape).astype(np.float32) * 0.1)


def inputs(m):
    """Weights and caches in device memory (uploaded once), h and the offset from the host."""
    shapes = [(64,), (64, 64), (32, 64), (32, 64), (64, 64), (64,), (128, 64), (128, 64),
              (64, 128), (1, 32, 2, 16), (1, 32, 2, 16)]
    return bf16(1, 1, 64), [m.to_device(bf16(*s)) for s in shapes]


def driver_log(path):
    return [l.strip() for l in open(path)] if os.path.exists(path) else []


def calls(m, h, dev, log, exec_log):
    """The calls of OFFSETS, the driver's and the device's log of each."""
    per_call = []
    for off in OFFSETS:
        for p in (log, exec_log):
            if os.path.exists(p):
                os.remove(p)
        os.environ["FAKE_CUDA_LOG"], os.environ["FAKE_CUDA_EXEC_LOG"] = log, exec_log
        m.run("step", h, *dev, np.array(off, np.int64), donate=True)
        del os.environ["FAKE_CUDA_LOG"], os.environ["FAKE_CUDA_EXEC_LOG"]
        per_call.append((driver_log(log), driver_log(exec_log)))
    return per_call


def canonical(execs):
    """A call's kernels with every device address named by its first use in the call."""
    names = {}

    def name(match):
        return names.setdefault(match.group(0), f"A{len(names)}")

    # A narrower parameter (an i1 flag) is logged as 8 bytes, the host's stack above it (the
    # fake driver takes every parameter as 8 bytes): integers of 2^32 and more by their low byte.
    def low_byte(match):
        v = int(match.group(0))
        return f"{v & 0xFF}~" if v >= 1 << 32 else match.group(0)

    return [re.sub(r"(?<![b+\d])\d+(?!\+)", low_byte, re.sub(r"b\d+\+\d+", name, line))
            for line in execs]


def per_kernel(execs):
    """A call's kernels with every device address named by its first use in the kernel."""
    return [canonical([line])[0] for line in execs]


def count(lines, prefix):
    return sum(1 for l in lines if l.startswith(prefix))


m = rt.load(model_path)
h, dev = inputs(m)
log, exec_log = os.path.join(work, "driver.log"), os.path.join(work, "exec.log")

# With graphs first: the fake driver learns each kernel's parameter count from the runtime's
# questions (cuFuncGetParamInfo, asked only with graphs on) and logs the arguments of the
# kernels launched one by one after that too.
m.cuda_graphs(True)
graphs = calls(m, h, dev, log, exec_log)
m.cuda_graphs(False)
plain = calls(m, h, dev, log, exec_log)
m.cuda_graphs(True)

kernels = len(plain[0][1])
print("kernels a call:", kernels)
T.check(kernels > 4 and all(len(e) == kernels for _, e in plain + graphs),
        "every call runs the same number of kernels")
T.check(all(" params ?" not in l for _, e in plain + graphs for l in e),
        "the runtime asked for every kernel's parameters")
same = all(per_kernel(a[1]) == per_kernel(b[1]) for a, b in zip(plain, graphs))
print("same kernels, dimensions and arguments with and without graphs:", "yes" if same else "no")
for i, (a, b) in enumerate(zip(plain, graphs)):
    if per_kernel(a[1]) != per_kernel(b[1]):
        for x, y in zip(per_kernel(a[1]), per_kernel(b[1])):
            if x != y:
                print(f"  call {i} differs:\n    {x}\n    {y}")
                break
# The offset is an argument of some kernels: the calls at another offset differ from the call
# before in those kernels' arguments only.
moved = [sum(x != y for x, y in zip(canonical(plain[i][1]), canonical(plain[i - 1][1])))
         for i in range(1, len(OFFSETS))]
print("kernels whose arguments change with the offset:", moved)

print("without graphs, driver launches a call:", [count(d, "launch blocks") for d, _ in plain])
for i, (d, _) in enumerate(graphs):
    print(f"with graphs, call {i} (offset {OFFSETS[i]}): launches {count(d, 'launch blocks')}, "
          f"graph launches {count(d, 'graph launch stream')}, "
          f"instantiations {count(d, 'graph instantiate')}, "
          f"node updates {count(d, 'graph set params')}, "
          f"allocations {count(d, 'pool alloc')}, frees {count(d, 'pool free')}")

# The first call with graphs allocates what a call without them does (the arena is still
# empty); every later one allocates and frees nothing.
print("first call's pool allocations and frees as without graphs:",
      "yes" if (count(graphs[0][0], "pool alloc"), count(graphs[0][0], "pool free")) ==
      (count(plain[0][0], "pool alloc"), count(plain[0][0], "pool free")) else "no")

# A profiled call launches kernel by kernel (each needs its events), graphs or not.
m.profile(True)
m.run("step", h, *dev, np.array(5, np.int64), donate=True)
print("profiled call with graphs on, launches profiled:", len(m.last_profile()))
m.profile(False)
m.run("step", h, *dev, np.array(5, np.int64), donate=True)

# Turning graphs off destroys the thread's graphs (and its arena goes back to the pool).
print("live graphs before turning off:", fake.fake_cuda_graphs_live())
m.cuda_graphs(False)
print("live graphs after turning off:", fake.fake_cuda_graphs_live())

# A launch that fails inside a graph fails the call with the driver's message, naming the graph.
m.cuda_graphs(True)
m.run("step", h, *dev, np.array(5, np.int64), donate=True)
os.environ["FAKE_CUDA_FAIL_LAUNCH"] = "1"
try:
    m.run("step", h, *dev, np.array(6, np.int64), donate=True)
    print("failed launch: no error")
except rt.DecodaError as e:
    print("failed launch:", e.status, str(e).splitlines()[0])
del os.environ["FAKE_CUDA_FAIL_LAUNCH"]
m.run("step", h, *dev, np.array(6, np.int64), donate=True)
print("the next call runs:", "yes")
m.close()
print("live graphs after close:", fake.fake_cuda_graphs_live())
