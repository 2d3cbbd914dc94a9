# RUN: rm -rf %t && mkdir -p %t
# RUN: cc -shared -fPIC %S/Inputs/fake_model.c -o %t/model.so
# RUN: %PYTHON %s %t/model.so
"""Concurrent runs of one model from several Python threads: every result is right, and every
failed run-time check reports its own thread's message."""

import sys
import threading

import numpy as np

from decoda import runtime as rt
from decoda import testing as T

MODEL = sys.argv[1]
THREADS = 8
ITERATIONS = 150


def test_concurrent_runs():
    model = rt.load(MODEL)
    table = (np.arange(8, dtype=np.float16) / 8).reshape(4, 2)
    barrier = threading.Barrier(THREADS)
    errors = []
    failures = [0] * THREADS

    def worker(tid):
        try:
            gen = T.rng(100 + tid)
            barrier.wait()
            for i in range(ITERATIONS):
                n = 1 + (tid + i) % 9
                x = gen.standard_normal((n, 4)).astype(np.float32)
                y = gen.standard_normal((n, 4)).astype(np.float32)
                s, xa = model.run("add", x, y)
                np.testing.assert_array_equal(s, x + y)
                np.testing.assert_array_equal(xa, x)
                if (tid + i) % 4 == 0:
                    bad = 1000 * tid + i + 4
                    try:
                        model.run("embed", np.array([0, bad], np.int64), table)
                    except rt.DecodaError as e:
                        assert e.status == "RUNTIME", e.status
                        assert f"embedding id {bad} out of range" in str(e), str(e)
                        failures[tid] += 1
                    else:
                        raise AssertionError("no failure for an out-of-range id")
                else:
                    ids = gen.integers(0, 4, size=n)
                    np.testing.assert_array_equal(model.run("embed", ids, table), table[ids])
                c, t, t2, g, o = model.run("consts")
                assert t.tolist() == [[0, 3], [1, 4], [2, 5]] and float(g) == 42.0
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(f"thread {tid}: {exc!r}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    T.check(not errors, "\n".join(errors))
    expected = sum(sum(1 for i in range(ITERATIONS) if (tid + i) % 4 == 0)
                   for tid in range(THREADS))
    T.check(sum(failures) == expected, f"{sum(failures)} failed checks, expected {expected}")


if __name__ == "__main__":
    T.run_tests(globals())
