# RUN: rm -rf %t && mkdir -p %t
# RUN: decoda-compile %S/Inputs/failed_check.mlir -o %t/model.so
# RUN: %PYTHON %s %t/model.so
"""2000 failed calls through the runtime (Python binding) do not grow the resident set: each
call of Inputs/failed_check.mlir allocates 256 KiB before its run-time check fails, which the
model used to lose (500 MiB over the loop); the bound is 64 MiB. Successful calls in between
still return right outputs, which stay valid after later failures (they are the caller's).
Under ASan (the sanitizer build preloads it into Python) freed memory sits in ASan's quarantine,
so the resident-set bound is not checked there; a stale or doubly freed block is still an ASan
error."""

import os
import sys

import numpy as np

from decoda import runtime as rt
from decoda import testing as T

MODEL = sys.argv[1]
CALLS = 2000
UNDER_ASAN = "asan" in os.environ.get("LD_PRELOAD", "")


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_failed_calls_do_not_grow_the_resident_set():
    m = rt.load(MODEL)
    x = np.ones((16, 4096), np.float32)
    table = np.arange(32, dtype=np.float32).reshape(4, 8)
    bad, good = np.array([0, 9], np.int64), np.array([1, 2], np.int64)

    def fail_once():
        try:
            m.run("f", x, bad, table)
        except rt.DecodaError as e:
            T.check(e.status == "RUNTIME" and "decoda.embedding" in str(e), str(e))
            return
        T.check(False, "the call with id 9 did not fail")

    y0, e0 = m.run("f", x, good, table)
    for _ in range(20):  # warm-up: allocator arenas, the model's thread-local state
        fail_once()
    before = rss_bytes()
    for i in range(CALLS):
        fail_once()
        if i % 500 == 250:
            y, e = m.run("f", x, good, table)
            T.assert_equal(y, 2 * x, op="failed_check", what=f"y after {i} failed calls")
            T.assert_equal(e, table[[1, 2]], op="failed_check", what=f"e after {i} failed calls")
    growth = rss_bytes() - before
    T.assert_equal(y0, 2 * x, op="failed_check", what="y of the first call after the failures")
    print(f"  resident set growth over {CALLS} failed calls: {growth / 2**20:.1f} MiB")
    if not UNDER_ASAN:
        T.check(growth < 64 * 2**20,
                f"resident set grew by {growth / 2**20:.1f} MiB over {CALLS} failed calls "
                "(256 KiB lost per call would be 500 MiB)")


if __name__ == "__main__":
    T.run_tests(globals())
