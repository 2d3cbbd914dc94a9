"""Runs a CUDA model on the fake driver (Inputs/fake_cuda.c) and checks that calls leave no
device buffer behind: a call that succeeds frees its own, a call that fails (a kernel launch
failure, a failed stream synchronisation) has them released by the call-memory hooks
(CallMemory.c) before the runtime reports the error. The calling thread's stream is the model's
until it is unloaded (one, however many calls and failures), then it is destroyed too.
    call_memory.py MODEL.so   with DECODA_CUDA_DRIVER pointing at fake_cuda.so"""

import ctypes
import os
import sys

import numpy as np

from decoda import runtime as rt
from decoda import testing as T

fake = ctypes.CDLL(os.environ["DECODA_CUDA_DRIVER"])  # the runtime's handle: same library


def live():
    buffers, streams = ctypes.c_int(), ctypes.c_int()
    launches = fake.fake_cuda_live(ctypes.byref(buffers), ctypes.byref(streams))
    return buffers.value, streams.value, launches


def test_no_device_memory_left_behind():
    m = rt.load(sys.argv[1])
    x = np.ones((3, 4), np.float32)
    m.run("f", x)
    b, s, launches = live()
    T.check(launches >= 1 and (b, s) == (0, 1),
            f"after a successful call: {b} device buffers, {s} streams live ({launches} launches)")
    for var, value, what in (("FAKE_CUDA_FAIL_LAUNCH", "1", "kernel launch failed"),
                             ("FAKE_CUDA_FAIL_SYNC", "1", "stream synchronization")):
        os.environ[var] = value
        for _ in range(5):
            try:
                m.run("f", x)
            except rt.DecodaError as e:
                T.check(e.status == "RUNTIME" and what in str(e), f"{var}: {e}")
            else:
                T.check(False, f"{var}={value}: the call did not fail")
        del os.environ[var]
        b, s, _ = live()
        T.check((b, s) == (0, 1), f"after 5 failed calls ({what}): {b} device buffers and {s} "
                "streams still live")
        print(f"  {var}: 5 failed calls, nothing left on the device")
    m.run("f", x)
    T.check(live()[:2] == (0, 1), "after a successful call following the failures")
    m.close()
    T.check(live()[:2] == (0, 0), f"after unloading the model: {live()[:2]} buffers, streams")


if __name__ == "__main__":
    T.run_tests(globals())
