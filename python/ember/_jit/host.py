"""Numba's host-side ``cuda`` API over ember's runtime: device arrays are ``ember.ndarray``."""

from __future__ import annotations

import numpy as np

from .. import _runtime
from .._creation import asarray, empty
from .._operands import on_device


def to_device(obj, stream=0, copy=True, to=None):
    """Copies host array ``obj`` to the device (into ``to`` when given)."""
    if to is not None:
        to.set(np.asarray(obj))
        return to
    return asarray(obj if on_device(obj) else np.asarray(obj))


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialised device array."""
    if strides is not None:
        raise ValueError("device_array(strides=...) is not supported; use order='C' or 'F'")
    return empty(shape, dtype=dtype, order=order)


def device_array_like(ary, stream=0):
    """An uninitialised device array with ``ary``'s shape and dtype."""
    order = "F" if getattr(ary, "flags", None) is not None and ary.flags.f_contiguous and not ary.flags.c_contiguous \
        else "C"
    return empty(ary.shape, dtype=ary.dtype, order=order)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A host array in page-locked memory (plain host memory where the backend has none)."""
    if _runtime.backend() == "cuda":
        from ..cuda import driver

        return driver.pagelocked_empty(shape, dtype, order=order)
    return np.empty(shape, dtype=dtype, order=order)


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


def stream():
    """A new stream."""
    return _runtime.Stream()


def default_stream():
    return _runtime.get_current_stream()


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


def detect() -> bool:
    """Prints the devices ember sees; True when there is at least one."""
    from .._info import report

    print(report())
    return is_available()


def select_device(device_id: int):
    """Makes device ``device_id`` current for this thread."""
    dev = _runtime.Device(device_id)
    dev.use()
    return dev


def get_current_device():
    return _runtime.Device()


__all__ = [
    "as_cuda_array", "default_stream", "detect", "device_array", "device_array_like", "event",
    "event_elapsed_time", "get_current_device", "is_available", "is_cuda_array", "pinned_array",
    "profile_start", "profile_stop", "select_device", "stream", "synchronize", "to_device",
]
