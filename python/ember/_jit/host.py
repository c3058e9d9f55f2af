"""Numba's host-side ``cuda`` API over ember's runtime: device arrays are ``ember.ndarray``.

Devices and contexts (``cuda.gpus``, ``current_context``...) are in ``devices.py``; host memory
the device reads in place (``mapped_array``, ``managed_array``) in ``mapped.py``.
"""

from __future__ import annotations

import contextlib

import numpy as np

from .. import _runtime
from .._creation import asarray, empty
from .._interop import _from_cuda_array_interface, producer_stream
from .._ndarray import ndarray
from .._operands import on_device
from . import devices
from .layout import contiguous_strides_like, dense, order_like
from .streams import (  # noqa: F401  (Numba's host API names)
    Event,
    ExternalStream,
    Stream,
    default_stream,
    event,
    event_elapsed_time,
    external_stream,
    legacy_default_stream,
    per_thread_default_stream,
    stream,
)


def _on(stream):
    """A context sending work to ``stream`` (0 or None: the current stream)."""
    return contextlib.nullcontext() if stream in (0, None) else stream


def _made_on(arr, stream):
    """``arr``, made through Numba's API: it remembers the stream it was made with (Numba's
    ``DeviceNDArray.stream``, which its ``__cuda_array_interface__`` names; 0 for none) and
    converts to NumPy implicitly, as Numba's device arrays do."""
    arr._stream = stream or 0
    return arr


def to_device(obj, stream=0, copy=True, to=None):
    """Copies host array ``obj`` to the device, on ``stream`` (into ``to`` when given; with
    ``copy=False`` and ``to``, nothing is copied)."""
    with _on(stream):
        if to is not None:
            if copy:
                to.set(np.asarray(obj))
            return to
        return _made_on(asarray(obj if on_device(obj) else np.asarray(obj)), stream)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialised device array, C- or Fortran-ordered, or with ``strides`` (in bytes) that
    lay the elements out densely in some order of the axes (as ``device_array_like`` gives for a
    transposed array)."""
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    if strides is None:
        return _made_on(empty(shape, dtype=dtype, order=order), stream)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)
    strides = (int(strides),) if np.ndim(strides) == 0 else tuple(int(s) for s in strides)
    itemsize = np.dtype(dtype).itemsize
    if len(strides) != len(shape):
        raise ValueError(f"strides {strides} and shape {shape} have different lengths")
    if not dense(shape, strides, itemsize):
        raise ValueError(
            f"strides {strides} do not lay out shape {shape} of {itemsize}-byte elements densely: give the "
            "strides of a C, Fortran or transposed contiguous array"
        )
    # Both Numba-made: views of the result find the mark on the memory's owner.
    flat = _made_on(empty(int(np.prod(shape, dtype=np.int64)), dtype=dtype), stream)
    from ..lib.stride_tricks import as_strided

    return _made_on(as_strided(flat, shape, strides), stream)


def device_array_like(ary, stream=0):
    """An uninitialised device array with ``ary``'s shape, dtype and axis order."""
    strides = contiguous_strides_like(ary) if hasattr(ary, "strides") else None
    return device_array(ary.shape, dtype=ary.dtype, strides=strides, order=order_like(ary), stream=stream)


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
    """A device array viewing ``obj`` (``__cuda_array_interface__`` or DLPack) without a copy.
    When the interface names a stream, the array's ``stream`` is that stream, and with ``sync``
    (and ``config.CUDA_ARRAY_INTERFACE_SYNC``) its work so far is waited for first."""
    if not on_device(obj):
        raise TypeError(f"{type(obj).__name__} has no __cuda_array_interface__ (and is not a device array)")
    if _runtime.backend() == "cuda" and hasattr(obj, "__cuda_array_interface__") and not isinstance(obj, ndarray):
        arr = _from_cuda_array_interface(obj, sync=sync)
        return _made_on(arr, producer_stream(obj.__cuda_array_interface__))
    return _made_on(asarray(obj), 0) if not isinstance(obj, ndarray) else obj


class _Described:
    """An object carrying a CUDA array interface description (and what owns the memory)."""

    def __init__(self, desc: dict, owner):
        self.__cuda_array_interface__ = desc
        self._owner = owner


def from_cuda_array_interface(desc, owner=None, sync=True):
    """Numba's ``cuda.from_cuda_array_interface``: a device array over the memory a CUDA array
    interface dictionary describes (``owner`` keeps it alive), without a copy."""
    if not isinstance(desc, dict) or "data" not in desc or "shape" not in desc:
        raise TypeError("from_cuda_array_interface takes a __cuda_array_interface__ dictionary "
                        "(with 'shape', 'typestr' and 'data')")
    return as_cuda_array(_Described(desc, owner), sync=sync)


def is_cuda_array(obj) -> bool:
    return hasattr(obj, "__cuda_array_interface__")


def synchronize():
    """Waits for all work on the current device."""
    _runtime.synchronize()


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
    "legacy_default_stream", "list_devices", "per_thread_default_stream", "pinned", "profile_start", "profile_stop",
    "select_device", "stream", "synchronize", "to_device",
]
