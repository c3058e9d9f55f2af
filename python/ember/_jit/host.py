"""Numba's host-side ``cuda`` API over ember's runtime: device arrays are ``ember.ndarray``.

Devices and contexts (``cuda.gpus``, ``current_context``...) are in ``devices.py``; host memory
the device reads in place (``mapped_array``, ``managed_array``) in ``mapped.py``.
"""

from __future__ import annotations

import contextlib

import numpy as np

from .. import _ember, _runtime
from .._creation import asarray, empty
from .._operands import on_device
from . import devices


def _on(stream):
    """A context sending work to ``stream`` (0 or None: the current stream)."""
    return contextlib.nullcontext() if stream in (0, None) else stream


def to_device(obj, stream=0, copy=True, to=None):
    """Copies host array ``obj`` to the device, on ``stream`` (into ``to`` when given; with
    ``copy=False`` and ``to``, nothing is copied)."""
    with _on(stream):
        if to is not None:
            if copy:
                to.set(np.asarray(obj))
            return to
        return asarray(obj if on_device(obj) else np.asarray(obj))


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialised device array, C- or Fortran-ordered, or with ``strides`` (in bytes) that
    lay the elements out densely in some order of the axes (as ``device_array_like`` gives for a
    transposed array)."""
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    if strides is None:
        return empty(shape, dtype=dtype, order=order)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)
    strides = (int(strides),) if np.ndim(strides) == 0 else tuple(int(s) for s in strides)
    itemsize = np.dtype(dtype).itemsize
    if len(strides) != len(shape):
        raise ValueError(f"strides {strides} and shape {shape} have different lengths")
    if not _dense(shape, strides, itemsize):
        raise ValueError(
            f"strides {strides} do not lay out shape {shape} of {itemsize}-byte elements densely: give the "
            "strides of a C, Fortran or transposed contiguous array"
        )
    flat = empty(int(np.prod(shape, dtype=np.int64)), dtype=dtype)
    from ..lib.stride_tricks import as_strided

    return as_strided(flat, shape, strides)


def _dense(shape, strides, itemsize) -> bool:
    """Whether ``strides`` place every element of ``shape`` once, with no gap: each axis,
    taken from the smallest stride up, steps over all the axes before it."""
    if 0 in shape:
        return True
    step = itemsize
    for n, s in sorted(((n, s) for n, s in zip(shape, strides, strict=True) if n > 1), key=lambda p: p[1]):
        if s != step:
            return False
        step *= n
    return True


def _contiguous_strides_like(ary):
    """Strides of a dense array with ``ary``'s axis order (None when C or F order will do), as
    Numba's ``device_array_like`` computes them (after NumPy's ``empty_like``)."""
    flags = ary.flags
    if flags.c_contiguous or flags.f_contiguous or ary.ndim <= 1:
        return None
    order = sorted(range(ary.ndim), key=lambda k: ary.strides[k])
    strides = [0] * ary.ndim
    step = ary.dtype.itemsize
    for k in order:
        strides[k] = step
        step *= ary.shape[k]
    return tuple(strides)


def _order_like(ary) -> str:
    flags = getattr(ary, "flags", None)
    return "F" if flags is not None and flags.f_contiguous and not flags.c_contiguous else "C"


def device_array_like(ary, stream=0):
    """An uninitialised device array with ``ary``'s shape, dtype and axis order."""
    strides = _contiguous_strides_like(ary) if hasattr(ary, "strides") else None
    return device_array(ary.shape, dtype=ary.dtype, strides=strides, order=_order_like(ary))


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A host array in page-locked memory (plain host memory where the backend has none)."""
    from .mapped import host_array

    return host_array(shape, dtype, strides, order)


def pinned_array_like(ary):
    """:func:`pinned_array` with ``ary``'s shape, dtype and axis order."""
    return pinned_array(ary.shape, ary.dtype, _contiguous_strides_like(ary), _order_like(ary))


@contextlib.contextmanager
def pinned(*arrays):
    """Numba's context manager that page-locks host arrays for the block. ember's copies
    between host and device already go through page-locked staging buffers, so there is
    nothing to pin: the block runs as it is (the arrays must be NumPy arrays)."""
    for a in arrays:
        if not isinstance(a, np.ndarray):
            raise TypeError(f"cuda.pinned() takes NumPy arrays, got {type(a).__name__}")
    yield


def as_cuda_array(obj, sync=True):
    """A device array viewing ``obj`` (``__cuda_array_interface__`` or DLPack) without a copy."""
    if not on_device(obj):
        raise TypeError(f"{type(obj).__name__} has no __cuda_array_interface__ (and is not a device array)")
    return asarray(obj)


def is_cuda_array(obj) -> bool:
    return hasattr(obj, "__cuda_array_interface__")


def synchronize():
    """Waits for all work on the current device."""
    _runtime.synchronize()


class Event(_runtime.Event):
    """Numba's event: ``record(stream=0)``, ``synchronize()``, ``wait(stream)``,
    ``elapsed_time(end)`` in milliseconds."""

    def __init__(self, timing=True):
        super().__init__()

    def record(self, stream=0):
        super().record(stream if stream not in (0, None) else None)

    def query(self) -> bool:
        return self.done

    def wait(self, stream=0):
        s = stream if stream not in (0, None) else _runtime.get_current_stream()
        s.wait_event(self)

    def elapsed_time(self, evtend) -> float:
        return _runtime.get_elapsed_time(self, evtend)


def event(timing=True) -> Event:
    return Event(timing)


def event_elapsed_time(evtstart, evtend) -> float:
    return _runtime.get_elapsed_time(evtstart, evtend)


class Stream(_runtime.Stream):
    """Numba's stream: ember's stream (``with stream:``, ``synchronize()``, ``ptr``) with
    Numba's spellings, ``handle`` and ``int(stream)`` for the backend's handle and
    ``auto_synchronize()``."""

    @property
    def handle(self) -> int:
        return self.ptr

    def __int__(self):
        return self.ptr

    @contextlib.contextmanager
    def auto_synchronize(self):
        """A block after which the stream is synchronized."""
        yield self
        self.synchronize()

    def __repr__(self):
        return f"<ember.cuda stream {self.ptr:#x} on device {self.device_id}>"


class ExternalStream:
    """A stream another library made, wrapped by :func:`external_stream`. Kernels launch on it
    (``kernel[g, b, stream]``; ember never keeps such a launch queued: the stream's owner
    orders its own work on it). Copies given it (``to_device(x, stream=s)``) run after its work
    so far and are done when they return. ember neither creates nor destroys it."""

    external = True

    def __init__(self, handle: int, device_id: int):
        self.handle = handle
        self.device_id = device_id

    @property
    def ptr(self) -> int:
        return self.handle

    def __int__(self):
        return self.handle

    def synchronize(self):
        """Waits for the work queued on the stream so far."""
        _ember.synchronize_stream(self.device_id, self.handle)

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def __cuda_stream__(self) -> tuple[int, int]:
        if _runtime.backend() != "cuda":
            raise TypeError(f"the stream protocol is CUDA's; this stream is on the {_runtime.backend()} backend")
        return (0, self.handle)

    def __enter__(self):
        # ember's own work in the block (copies) is ordered after the stream's work and before
        # whatever its owner queues next by waiting, not by queueing on a stream ember does not
        # order: the copies run on ember's stream between two synchronizations.
        self.synchronize()
        return self

    def __exit__(self, *exc):
        _runtime.get_current_stream(self.device_id).synchronize()

    def __eq__(self, other):
        return isinstance(other, ExternalStream) and (other.handle, other.device_id) == (self.handle, self.device_id)

    def __hash__(self):
        return hash(("ember.cuda.ExternalStream", self.handle, self.device_id))

    def __repr__(self):
        return f"<ember.cuda external stream {self.handle:#x} on device {self.device_id}>"


def stream() -> Stream:
    """A new stream on the current device."""
    return Stream()


def default_stream() -> Stream:
    """The stream work goes to when none is chosen: this thread's current stream (the legacy
    default stream unless a ``with stream:`` block is open)."""
    current = _runtime.get_current_stream()
    if isinstance(current, Stream) or not isinstance(current, _runtime.Stream):
        return current
    return legacy_default_stream() if current == _runtime.Stream.null else current


def legacy_default_stream() -> Stream:
    """The current device's default stream (CUDA's legacy stream 0; an OpenCL device's default
    command queue)."""
    return Stream(null=True)


def per_thread_default_stream() -> Stream:
    """This thread's own default stream on the current device: one per thread and device,
    made on first use (ember's per-thread stream, as ``ember.cuda.Stream.ptds``; on CUDA it is
    an ember stream, not the driver's ``cudaStreamPerThread`` handle, since ember launches
    through the driver API)."""
    s = Stream.__new__(Stream)
    ptds = _runtime.Stream.ptds
    s._native, s.device_id = ptds._native, ptds.device_id
    return s


def external_stream(ptr) -> ExternalStream:
    """A stream made outside ember, by its handle: a ``CUstream`` on CUDA (e.g. CuPy's or
    PyTorch's ``stream.ptr``); on OpenCL a ``cl_command_queue`` of the current device's
    context (ember's context, which ``ember.cl`` shares with PyOpenCL code). The handle is
    taken as given, as Numba does: a handle of another context fails at the first launch on
    it. 0 is the legacy default stream."""
    if isinstance(ptr, bool) or not isinstance(ptr, (int, np.integer)):
        raise TypeError(f"external_stream() takes a stream handle (an int), got {type(ptr).__name__}")
    if ptr < 0:
        raise ValueError(f"a stream handle is a pointer, not negative: {ptr}")
    if ptr == 0:
        return legacy_default_stream()
    return ExternalStream(int(ptr), _runtime.current_device_id())


def profile_start():
    """Accepted for Numba compatibility (profilers attach to the whole process)."""


def profile_stop():
    """Accepted for Numba compatibility."""


def is_available() -> bool:
    """Whether kernels can run: some device exists on ember's backend (a CUDA GPU, or any
    OpenCL device such as PoCL on the CPU)."""
    try:
        return _runtime.Device().id >= 0
    except Exception:
        return False


detect = devices.detect
get_current_device = devices.get_current_device
current_context = devices.current_context
list_devices = devices.list_devices
gpus = devices.gpus


def select_device(device_id: int) -> devices.Device:
    """Makes device ``device_id`` current for this thread; returns it."""
    dev = devices.Device(device_id)
    _runtime._set_device(dev.id)
    return dev


def close():
    """Numba's ``cuda.close()``: waits for the current device and gives its cached memory back
    (ember keeps its contexts for the life of the process)."""
    devices.get_current_device().reset()


@contextlib.contextmanager
def defer_cleanup():
    """Accepted for Numba compatibility: ember frees device memory into its pool, which
    reuses a block only in stream order, so no deallocation can break asynchronous work."""
    yield


def is_float16_supported() -> bool:
    """Whether kernels take float16 (always, as in Numba)."""
    return True


def is_bfloat16_supported() -> bool:
    return devices.get_current_device().supports_bfloat16


__all__ = [
    "ExternalStream", "Stream", "as_cuda_array", "close", "current_context", "default_stream", "defer_cleanup",
    "detect", "device_array", "device_array_like", "event", "event_elapsed_time", "external_stream",
    "get_current_device", "gpus", "is_available", "is_bfloat16_supported", "is_cuda_array", "is_float16_supported",
    "legacy_default_stream", "list_devices", "per_thread_default_stream", "pinned", "pinned_array",
    "pinned_array_like", "profile_start", "profile_stop", "select_device", "stream", "synchronize", "to_device",
]
