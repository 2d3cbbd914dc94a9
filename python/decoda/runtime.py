"""ctypes binding of the Decoda runtime (``libdecoda_runtime.so``, ``include/decoda-c/runtime.h``).

Loads a compiled model (a shared library with the ABI of ``docs/ABI.md``) and runs its entry
points on NumPy arrays::

    import decoda.runtime as rt
    model = rt.load("block.so")
    model.entries                      # ('forward',)
    model.signature("forward")         # EntrySignature(name='forward', inputs=(...), outputs=(...))
    y = model(x, w)                    # the only entry; one output -> an array, else a tuple
    y = model.run("forward", x, w)     # by name (or index)

Inputs must have the entry's dtype (``float32`` for f32, ``float16``, ``float64``, ``int8``,
``int32``, ``int64``, ``bool`` for i1) and shape; non-contiguous or byte-swapped arrays are copied,
Python lists and scalars are converted to the expected dtype. Every validation error of the runtime
(count, dtype, rank, static extent) and every failed run-time check inside the model raises
:class:`DecodaError` with the runtime's message and its status (``error.status``, e.g. ``"SHAPE"``).

Donated inputs (docs/ABI.md): ``model.donations(entry)`` lists the inputs an entry writes an
output into (KV caches); ``model.run(entry, *arrays, donate=True)`` (or a list of input names)
lets the model update those arrays in place and returns them as the outputs, without a copy.

Device-resident tensors (CUDA models, docs/ABI.md): ``model.to_device(array)`` copies an array into
device memory once and returns a :class:`DeviceArray`, which ``run`` accepts in place of an array:
the model reads it where it is, and a donated one (``donate=``) is written in place and returned
as that output, so a decode step's KV cache stays on the device across calls.
``model.device_empty(shape, dtype)`` allocates one; ``DeviceArray.numpy()`` copies it back.

NumPy has no bfloat16: bf16 tensors travel as ``uint16`` arrays of bf16 bit patterns, in and out.
:func:`float32_to_bf16` (round to nearest even) and :func:`bf16_to_float32` convert.

The library is found through the environment variable ``DECODA_RUNTIME_LIB``, else at
``build/lib/libdecoda_runtime.so`` of the source tree this package lives in; it is loaded on the
first :func:`load`, so importing this module never fails when it is not built. Runs on one model
may be issued concurrently from several threads (ctypes releases the GIL during the call).
"""

import ctypes
import os
import threading
from collections import namedtuple

__all__ = [
    "load", "Model", "DeviceArray", "DecodaError", "TensorSpec", "EntrySignature", "float32_to_bf16",
    "bf16_to_float32", "library_path", "DTYPES",
]

MAX_RANK = 8
#: Decoda dtypes by their ``decoda_dtype`` value.
DTYPES = ("f32", "f16", "bf16", "f64", "i8", "i32", "i64", "i1")
_STATUS = {0: "OK", 1: "IO", 2: "FORMAT", 3: "ARGUMENT", 4: "DTYPE", 5: "SHAPE", 6: "RUNTIME",
           7: "NO_DEVICE"}
# NumPy dtype names carrying each Decoda dtype (bf16 as its bit patterns).
_NUMPY_OF = {"f32": "float32", "f16": "float16", "bf16": "uint16", "f64": "float64",
             "i8": "int8", "i32": "int32", "i64": "int64", "i1": "bool"}
_DECODA_OF = {v: k for k, v in _NUMPY_OF.items()}


class DecodaError(RuntimeError):
    """An error reported by the runtime; ``status`` names its ``decoda_status`` (``"SHAPE"``...)."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


#: One input or output: ``dtype`` is a Decoda dtype name, ``shape`` a tuple with -1 for a
#: dynamic extent.
TensorSpec = namedtuple("TensorSpec", "name dtype shape")
EntrySignature = namedtuple("EntrySignature", "name inputs outputs")


class _Tensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_RANK), ("data", ctypes.c_void_p)]


class _KernelTime(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_char_p), ("ms", ctypes.c_double)]


_lib = None
_lib_lock = threading.Lock()


def _np():
    import numpy  # noqa: PLC0415 - NumPy loads on first use, not on `import decoda`
    return numpy


def library_path():
    """The path of ``libdecoda_runtime.so`` this binding loads."""
    env = os.environ.get("DECODA_RUNTIME_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "build", "lib",
                                         "libdecoda_runtime.so"))


def _library():
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        path = library_path()
        if not os.path.exists(path):
            raise DecodaError(
                f"the Decoda runtime library '{path}' does not exist; build it (ninja -C build "
                "decoda_runtime) or point DECODA_RUNTIME_LIB at libdecoda_runtime.so", "IO")
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise DecodaError(f"cannot load the Decoda runtime library '{path}': {exc}",
                              "IO") from exc
        c_int, c_char_p, c_void_p = ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p
        model_p = c_void_p
        protos = {
            "decoda_last_error": (c_char_p, []),
            "decoda_dtype_size": (ctypes.c_size_t, [c_int]),
            "decoda_dtype_name": (c_char_p, [c_int]),
            "decoda_model_load": (c_int, [c_char_p, ctypes.POINTER(c_void_p)]),
            "decoda_model_free": (None, [model_p]),
            "decoda_model_num_entries": (c_int, [model_p]),
            "decoda_model_entry_name": (c_char_p, [model_p, c_int]),
            "decoda_model_find_entry": (c_int, [model_p, c_char_p]),
            "decoda_entry_num_inputs": (c_int, [model_p, c_int]),
            "decoda_entry_num_outputs": (c_int, [model_p, c_int]),
            "decoda_run": (c_int, [model_p, c_int, ctypes.POINTER(_Tensor), c_int,
                                   ctypes.POINTER(_Tensor), c_int]),
            "decoda_run_donating": (c_int, [model_p, c_int, ctypes.POINTER(_Tensor), c_int,
                                            ctypes.POINTER(_Tensor), c_int,
                                            ctypes.POINTER(ctypes.c_uint8)]),
            "decoda_entry_input_donated_to": (c_int, [model_p, c_int, c_int]),
            "decoda_tensor_free": (None, [ctypes.POINTER(_Tensor)]),
            "decoda_device_alloc": (c_int, [model_p, ctypes.c_size_t, ctypes.POINTER(c_void_p)]),
            "decoda_device_free": (c_int, [model_p, c_void_p]),
            "decoda_device_copy": (c_int, [model_p, c_void_p, c_void_p, ctypes.c_size_t]),
            "decoda_is_device_pointer": (c_int, [model_p, c_void_p]),
            "decoda_profile_enable": (c_int, [model_p, c_int]),
            "decoda_cuda_graphs_enable": (c_int, [model_p, c_int]),
            "decoda_profile_last": (c_int, [model_p, ctypes.POINTER(ctypes.POINTER(_KernelTime)),
                                            ctypes.POINTER(ctypes.c_int64)]),
        }
        info = [model_p, c_int, c_int, ctypes.POINTER(c_char_p), ctypes.POINTER(c_int),
                ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.POINTER(ctypes.c_int64))]
        protos["decoda_entry_input"] = (c_int, info)
        protos["decoda_entry_output"] = (c_int, info)
        for name, (restype, argtypes) in protos.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        _lib = lib
        return lib


def _error(lib, status, suffix=""):
    message = lib.decoda_last_error().decode("utf-8", "replace")
    return DecodaError(message + suffix, _STATUS.get(status, str(status)))


class DeviceArray:
    """A tensor in a CUDA model's device memory (``Model.to_device``, ``Model.device_empty``):
    ``shape``, ``dtype`` (a NumPy dtype name; bf16 is ``uint16``), ``nbytes`` and ``ptr`` (the
    device address). ``numpy()`` copies it to a new array; ``free()`` (or garbage collection)
    releases it. It keeps its model alive."""

    def __init__(self, model, ptr, shape, dtype, owned="alloc"):
        self.model, self.ptr, self.shape, self.dtype = model, ptr, tuple(shape), dtype
        self._owned = owned  # "alloc": decoda_device_free; "tensor": decoda_tensor_free

    @property
    def nbytes(self):
        n = _np().dtype(self.dtype).itemsize
        for d in self.shape:
            n *= d
        return n

    def numpy(self):
        np = _np()
        out = np.empty(self.shape, dtype=self.dtype)
        if self.ptr is None:
            raise DecodaError("the device array was freed", "ARGUMENT")
        if out.nbytes:
            status = self.model._lib.decoda_device_copy(self.model._handle, out.ctypes.data,
                                                         self.ptr, out.nbytes)
            if status != 0:
                raise _error(self.model._lib, status)
        return out

    def copy_from(self, array):
        """Overwrites the device array with ``array`` (same shape and dtype)."""
        np = _np()
        a = np.ascontiguousarray(array)
        if a.shape != self.shape or a.dtype.name != self.dtype:
            raise DecodaError(f"copy_from: a {a.dtype} array of shape {a.shape} into a device "
                              f"array of {self.dtype} {self.shape}", "SHAPE")
        if a.nbytes:
            status = self.model._lib.decoda_device_copy(self.model._handle, self.ptr,
                                                         a.ctypes.data, a.nbytes)
            if status != 0:
                raise _error(self.model._lib, status)

    def free(self):
        ptr, self.ptr = self.ptr, None
        if ptr is None or not self._owned or self.model._handle is None:
            return
        if self._owned == "tensor":
            t = _Tensor()
            t.data = ptr
            self.model._lib.decoda_tensor_free(ctypes.byref(t))
        else:
            self.model._lib.decoda_device_free(self.model._handle, ptr)

    def __del__(self):
        try:
            self.free()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass

    def __repr__(self):
        return f"<decoda.runtime.DeviceArray {self.dtype} {list(self.shape)} at {self.ptr or 0:#x}>"


class Model:
    """A loaded compiled model. Use :func:`load` to create one; ``close()`` (or a ``with`` block)
    unloads it, as does garbage collection."""

    def __init__(self, path):
        lib = _library()
        handle = ctypes.c_void_p()
        status = lib.decoda_model_load(os.fsencode(os.fspath(path)), ctypes.byref(handle))
        if status != 0:
            raise _error(lib, status)
        self._lib = lib
        self._handle = handle
        self.path = os.fspath(path)
        self._signatures = tuple(self._read_signature(i)
                                 for i in range(lib.decoda_model_num_entries(handle)))
        # Per entry: input index -> the output index it is donated to (docs/ABI.md).
        self._donations = tuple(
            {i: o for i in range(len(s.inputs))
             if (o := lib.decoda_entry_input_donated_to(handle, e, i)) >= 0}
            for e, s in enumerate(self._signatures))

    def _read_signature(self, index):
        lib, h = self._lib, self._handle
        specs = []
        for getter, count in ((lib.decoda_entry_input, lib.decoda_entry_num_inputs),
                              (lib.decoda_entry_output, lib.decoda_entry_num_outputs)):
            tensors = []
            for i in range(count(h, index)):
                name, dtype = ctypes.c_char_p(), ctypes.c_int()
                rank, shape = ctypes.c_int32(), ctypes.POINTER(ctypes.c_int64)()
                status = getter(h, index, i, ctypes.byref(name), ctypes.byref(dtype),
                                ctypes.byref(rank), ctypes.byref(shape))
                if status != 0:
                    raise _error(lib, status)
                tensors.append(TensorSpec(name.value.decode(), DTYPES[dtype.value],
                                          tuple(shape[d] for d in range(rank.value))))
            specs.append(tuple(tensors))
        name = lib.decoda_model_entry_name(h, index).decode()
        return EntrySignature(name, specs[0], specs[1])

    # -- metadata ------------------------------------------------------------------------------

    @property
    def entries(self):
        """The names of the entry points, in signature order."""
        return tuple(s.name for s in self._signatures)

    def _index(self, entry):
        if entry is None:
            if len(self._signatures) == 1:
                return 0
            raise DecodaError(f"'{self.path}' has {len(self._signatures)} entries "
                              f"({', '.join(self.entries) or 'none'}); choose one with entry=",
                              "ARGUMENT")
        if isinstance(entry, int) and not isinstance(entry, bool):
            if 0 <= entry < len(self._signatures):
                return entry
            raise DecodaError(f"entry index {entry} out of range (the model has "
                              f"{len(self._signatures)} entries)", "ARGUMENT")
        for i, s in enumerate(self._signatures):
            if s.name == entry:
                return i
        raise DecodaError(f"'{self.path}' has no entry '{entry}' (entries: "
                          f"{', '.join(self.entries) or 'none'})", "ARGUMENT")

    def signature(self, entry=None):
        """The :class:`EntrySignature` of ``entry`` (a name or index; may be omitted when the
        model has one entry)."""
        return self._signatures[self._index(entry)]

    def donations(self, entry=None):
        """``{input name: output name}`` of the inputs ``entry`` writes an output into (donated
        inputs, docs/ABI.md), e.g. a KV cache that comes back updated."""
        index = self._index(entry)
        sig = self._signatures[index]
        return {sig.inputs[i].name: sig.outputs[o].name
                for i, o in self._donations[index].items()}

    def device_empty(self, shape, dtype):
        """A :class:`DeviceArray` of ``shape`` and NumPy ``dtype`` in the model's device memory
        (uninitialised). A CPU model raises :class:`DecodaError` (``NO_DEVICE``)."""
        np = _np()
        dtype = np.dtype(dtype).name
        if dtype not in _DECODA_OF:
            raise DecodaError(f"device_empty: NumPy dtype {dtype} has no Decoda equivalent",
                              "DTYPE")
        n = np.dtype(dtype).itemsize
        for d in shape:
            n *= int(d)
        ptr = ctypes.c_void_p()
        status = self._lib.decoda_device_alloc(self._handle, n, ctypes.byref(ptr))
        if status != 0:
            raise _error(self._lib, status)
        return DeviceArray(self, ptr.value, [int(d) for d in shape], dtype)

    def profile(self, on=True):
        """Kernel profiles of this thread's calls of CUDA models (docs/ABI.md, "Kernel
        profiles"): while on, each call records CUDA events around its launches, and
        :meth:`last_profile` returns them. A CPU model raises :class:`DecodaError`
        (``NO_DEVICE``)."""
        status = self._lib.decoda_profile_enable(self._handle, 1 if on else 0)
        if status != 0:
            raise _error(self._lib, status)

    def cuda_graphs(self, on=True):
        """Launch graphs for this thread's calls of CUDA models (docs/ABI.md, "Launch
        graphs"): while on, each run of a call's launches with nothing else between them goes
        to the device as one CUDA graph, kept and replayed by later calls. Turning it off
        destroys the thread's graphs. A CPU model raises :class:`DecodaError`
        (``NO_DEVICE``); a driver without graphs (before CUDA 12.4) ``RUNTIME``."""
        status = self._lib.decoda_cuda_graphs_enable(self._handle, 1 if on else 0)
        if status != 0:
            raise _error(self._lib, status)

    def last_profile(self):
        """The launches of this thread's last profiled call: a list of (kernel name,
        milliseconds of device time from the end of the launch before it to its end)."""
        kernels = ctypes.POINTER(_KernelTime)()
        count = ctypes.c_int64()
        status = self._lib.decoda_profile_last(self._handle, ctypes.byref(kernels),
                                               ctypes.byref(count))
        if status != 0:
            raise _error(self._lib, status)
        return [(kernels[i].kernel.decode(), kernels[i].ms) for i in range(count.value)]

    def to_device(self, array):
        """A :class:`DeviceArray` holding a copy of ``array``."""
        np = _np()
        a = np.ascontiguousarray(array)
        d = self.device_empty(a.shape, a.dtype)
        d.copy_from(a)
        return d

    def _donated_inputs(self, index, donate):
        """The input indices to donate: ``donate`` is True (every donatable input), or names or
        indices of inputs."""
        sig, table = self._signatures[index], self._donations[index]
        if donate is True:
            return set(table)
        if not donate:
            return set()
        if isinstance(donate, (str, int)):
            donate = [donate]
        chosen = set()
        for d in donate:
            i = d if isinstance(d, int) and not isinstance(d, bool) else next(
                (k for k, s in enumerate(sig.inputs) if s.name == d), None)
            if i is None or not 0 <= i < len(sig.inputs):
                raise DecodaError(f"entry '{sig.name}': donate={d!r} names no input", "ARGUMENT")
            if i not in table:
                raise DecodaError(f"entry '{sig.name}': input '{sig.inputs[i].name}' cannot be "
                                  "donated (the entry writes no output into it; donatable: "
                                  f"{', '.join(self.donations(index)) or 'none'})", "ARGUMENT")
            chosen.add(i)
        return chosen

    # -- running -------------------------------------------------------------------------------

    def __call__(self, *arrays, entry=None, donate=()):
        """Runs ``entry`` on ``arrays``; returns the output array, or a tuple of them when the
        entry has zero or several outputs."""
        return self.run(entry, *arrays, donate=donate)

    def run(self, entry, *arrays, donate=()):
        """Runs ``entry`` (a name, an index, or None for the only entry) on ``arrays``.

        ``donate`` (True for every donatable input, or input names/indices) hands those arrays
        to the model: it writes the paired output into the array, which is returned as that
        output (the same object, no copy). A donated array must be a writable, C-contiguous
        ndarray of the input's exact dtype. Without ``donate`` no input array changes."""
        np = _np()
        if self._handle is None:
            raise DecodaError(f"the model '{self.path}' is closed", "ARGUMENT")
        index = self._index(entry)
        sig = self._signatures[index]
        donated = self._donated_inputs(index, donate)
        keep = []  # the converted arrays stay alive during the call
        tensors = (_Tensor * max(len(arrays), 1))()
        for i, a in enumerate(arrays):
            spec = sig.inputs[i] if i < len(sig.inputs) else None
            if isinstance(a, DeviceArray):
                if a.model._handle is None or a.ptr is None:
                    raise DecodaError(f"entry '{sig.name}': input #{i} is a freed device array",
                                      "ARGUMENT")
                decoda_dtype = _DECODA_OF[a.dtype]
                keep.append(a)
                t = tensors[i]
                t.dtype = DTYPES.index(decoda_dtype)
                t.rank = len(a.shape)
                for d in range(min(len(a.shape), MAX_RANK)):
                    t.shape[d] = a.shape[d]
                t.data = a.ptr
                continue
            if i in donated:
                ok = (isinstance(a, np.ndarray) and a.dtype.name == _NUMPY_OF[spec.dtype] and
                      a.dtype.isnative and a.flags.c_contiguous and a.flags.writeable)
                if not ok:
                    raise DecodaError(
                        f"entry '{sig.name}': donated input '{spec.name}' (#{i}) must be a "
                        f"writable C-contiguous ndarray of dtype {_NUMPY_OF[spec.dtype]} "
                        "(it is written in place)", "ARGUMENT")
            if not isinstance(a, np.ndarray):
                a = np.asarray(a, dtype=_NUMPY_OF[spec.dtype] if spec else None)
            where = f"entry '{sig.name}': input '{spec.name}' (#{i})" if spec else \
                f"entry '{sig.name}': input #{i}"
            decoda_dtype = _DECODA_OF.get(a.dtype.name)
            if decoda_dtype is None:
                expected = f"expected dtype {spec.dtype}, found " if spec else ""
                raise DecodaError(f"{where}: {expected}NumPy dtype {a.dtype} (which has no "
                                  "Decoda equivalent)", "DTYPE")
            if not a.dtype.isnative:
                a = a.astype(a.dtype.newbyteorder("="))
            if not a.flags.c_contiguous:
                a = np.ascontiguousarray(a)
            keep.append(a)
            t = tensors[i]
            t.dtype = DTYPES.index(decoda_dtype)
            t.rank = a.ndim
            for d in range(min(a.ndim, MAX_RANK)):
                t.shape[d] = a.shape[d]
            t.data = a.ctypes.data if a.size else None
        outputs = (_Tensor * max(len(sig.outputs), 1))()
        flags = (ctypes.c_uint8 * max(len(arrays), 1))(
            *[1 if i in donated else 0 for i in range(len(arrays))])
        status = self._lib.decoda_run_donating(self._handle, index, tensors, len(arrays),
                                               outputs, len(sig.outputs), flags)
        if status != 0:
            hint = ""
            if _STATUS.get(status) == "DTYPE" and any(
                    s.dtype == "bf16" for s in sig.inputs):
                hint = (" (bf16 inputs are uint16 arrays of bf16 bit patterns; see "
                        "decoda.runtime.float32_to_bf16)")
            raise _error(self._lib, status, hint)
        results = []
        by_output = {self._donations[index][i]: i for i in donated}
        try:
            for o, spec in enumerate(sig.outputs):
                t = outputs[o]
                if o in by_output:  # the donated array itself, written in place
                    results.append(arrays[by_output[o]])
                    t.data = None   # the caller's memory: never decoda_tensor_free
                    continue
                shape = tuple(t.shape[d] for d in range(t.rank))
                if t.data and self._lib.decoda_is_device_pointer(self._handle, t.data):
                    # A donatable device array not donated: the model wrote a device copy.
                    results.append(DeviceArray(self, t.data, shape, _NUMPY_OF[DTYPES[t.dtype]],
                                               owned="tensor"))
                    t.data = None
                    continue
                arr = np.empty(shape, dtype=_NUMPY_OF[DTYPES[t.dtype]])
                if arr.nbytes:
                    ctypes.memmove(arr.ctypes.data, t.data, arr.nbytes)
                results.append(arr)
        finally:
            for o in range(len(sig.outputs)):
                self._lib.decoda_tensor_free(ctypes.byref(outputs[o]))
        return results[0] if len(results) == 1 else tuple(results)

    # -- lifetime ------------------------------------------------------------------------------

    def close(self):
        """Unloads the model; later runs raise :class:`DecodaError`."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None and handle.value:
            self._lib.decoda_model_free(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass

    def __repr__(self):
        return f"<decoda.runtime.Model '{self.path}' entries={list(self.entries)}>"


def load(path):
    """Loads the compiled model at ``path`` (raises :class:`DecodaError` when it cannot be
    opened or is not a Decoda model)."""
    return Model(path)


def float32_to_bf16(x):
    """bf16 bit patterns (``uint16``) of ``x`` rounded to nearest even; NaN stays (quiet) NaN."""
    np = _np()
    a = np.array(x, dtype=np.float32, order="C", copy=True)
    flat = a.reshape(-1)
    bits = flat.view(np.uint32).astype(np.uint64)  # no overflow when rounding up
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(flat)
    rounded[nan] = ((bits[nan] >> 16) | 0x0040).astype(np.uint16)
    return rounded.reshape(a.shape)


def bf16_to_float32(bits):
    """The ``float32`` values of bf16 bit patterns (any integer array, taken as ``uint16``)."""
    np = _np()
    b = np.asarray(bits)
    flat = b.reshape(-1).astype(np.uint16).astype(np.uint32)
    return (flat << 16).view(np.float32).reshape(b.shape)
