"""The Python binding's device-resident tensors (decoda.runtime.DeviceArray) on a CUDA model run
on the fake driver (Inputs/fake_cuda.c: device memory is host memory, copies are memcpy,
launches run nothing), so what is checked is where buffers go, not what kernels compute:
    device_resident.py MODEL.so   with DECODA_CUDA_DRIVER pointing at fake_cuda.so
MODEL is device-resident.mlir: `step` donates k_cache and v_cache."""

import ctypes
import os
import sys

import numpy as np

from decoda import runtime as rt
from decoda import testing as T

fake = ctypes.CDLL(os.environ["DECODA_CUDA_DRIVER"])  # the runtime's handle: same library
rng = np.random.default_rng(1)


def live_buffers():
    buffers, streams = ctypes.c_int(), ctypes.c_int()
    fake.fake_cuda_live(ctypes.byref(buffers), ctypes.byref(streams))
    return buffers.value


def inputs():
    f = lambda *s: rng.standard_normal(s).astype(np.float32)
    return [f(1, 1, 2, 8), f(1, 1, 1, 8), f(1, 1, 1, 8), f(1, 16, 1, 8), f(1, 16, 1, 8),
            np.array(3, np.int64)]


def test_device_arrays():
    m = rt.load(sys.argv[1])
    a = rng.standard_normal((3, 5)).astype(np.float32)
    before = live_buffers()
    d = m.to_device(a)
    T.check(live_buffers() == before + 1, "to_device allocates one device buffer")
    T.check(m._lib.decoda_is_device_pointer(m._handle, d.ptr) == 1, "DeviceArray.ptr is device memory")
    T.check(m._lib.decoda_is_device_pointer(m._handle, a.ctypes.data) == 0, "an ndarray is host memory")
    T.check(d.shape == (3, 5) and d.dtype == "float32" and d.nbytes == 60, repr(d))
    T.check(np.array_equal(d.numpy(), a), "numpy() gives back what to_device copied")
    b = a * 2
    d.copy_from(b)
    T.check(np.array_equal(d.numpy(), b), "copy_from overwrites it")
    d.free()
    T.check(live_buffers() == before, "free releases it")
    d.free()  # twice: nothing


def test_donated_device_arrays():
    m = rt.load(sys.argv[1])
    q, k, v, kc, vc, off = inputs()
    dkc, dvc, dq = m.to_device(kc), m.to_device(vc), m.to_device(q)
    before = live_buffers()
    o, kc2, vc2 = m.run("step", dq, k, v, dkc, dvc, off, donate=True)
    T.check(kc2 is dkc and vc2 is dvc, "donated device arrays come back as themselves")
    T.check(isinstance(o, np.ndarray) and o.shape == (1, 1, 2, 8), "o is a host array")
    T.check(live_buffers() == before, "the call leaves no device buffer behind")
    # by name, only one of them
    o, kc2, vc2 = m.run("step", dq, k, v, dkc, dvc, off, donate=["k_cache", "v_cache"])
    T.check(kc2 is dkc and vc2 is dvc, "donate by name")


def test_not_donated_device_array():
    m = rt.load(sys.argv[1])
    q, k, v, kc, vc, off = inputs()
    dkc, dvc = m.to_device(kc), m.to_device(vc)
    before = live_buffers()
    o, kc2, vc2 = m.run("step", q, k, v, dkc, dvc, off, donate=["k_cache"])
    T.check(kc2 is dkc, "the donated one is itself")
    T.check(isinstance(vc2, rt.DeviceArray) and vc2 is not dvc and vc2.ptr != dvc.ptr,
            f"the other is a new device array (a copy the model wrote): {vc2!r}")
    # The fake driver runs no kernel: the copy holds the input's cache, and the input is unchanged.
    T.check(np.array_equal(vc2.numpy(), vc) and np.array_equal(dvc.numpy(), vc),
            "the runtime's device copy of the input")
    T.check(live_buffers() == before + 1, "one device buffer more: the returned copy")
    vc2.free()
    T.check(live_buffers() == before, "freed through decoda_tensor_free")


def test_errors():
    m = rt.load(sys.argv[1])
    q, k, v, kc, vc, off = inputs()
    d = m.to_device(q)
    d.free()
    try:
        m.run("step", d, k, v, kc, vc, off)
        T.check(False, "a freed device array is refused")
    except rt.DecodaError as e:
        T.check(e.status == "ARGUMENT" and "freed device array" in str(e), str(e))
    wrong = m.to_device(kc.astype(np.float64))
    try:
        m.run("step", q, k, v, wrong, vc, off)
        T.check(False, "a device array of the wrong dtype is refused")
    except rt.DecodaError as e:
        T.check(e.status == "DTYPE" and "k_cache" in str(e), str(e))
    status = m._lib.decoda_device_free(m._handle, ctypes.c_void_p(q.ctypes.data))
    T.check(status == 3, f"decoda_device_free of host memory: status {status}")


for test in (test_device_arrays, test_donated_device_arrays, test_not_donated_device_array,
             test_errors):
    test()
    print("PASS", test.__name__)
