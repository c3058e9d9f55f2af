"""PyCUDA's ``pycuda.gpuarray`` on ember: ``import ember.cuda.gpuarray as gpuarray``.

A GPUArray *is* an :class:`ember.ndarray`: ``GPUArray(...)`` and the functions here return ember
arrays, and ``isinstance(x, GPUArray)`` holds for every ember array. So PyCUDA code gets ember's
whole array API (math, reductions, indexing), and ember arrays have PyCUDA's ``gpudata`` and
``ptr``. Methods keep ember's (CuPy's) signatures: ``a.get()`` and ``a.set(host)`` work, PyCUDA's
``get(ary)``/``get_async``/``mem_size`` do not.
"""

from __future__ import annotations

import numpy as np

from .. import _creation
from .._creation import _shape_tuple
from .._memory import MemoryPointer
from .._ndarray import ndarray
from .driver import _memptr, _strides


class _GPUArrayType(type):
    """Makes ``isinstance(x, GPUArray)`` mean "x is an ember array"."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, ndarray)

    def __subclasscheck__(cls, sub):
        return isinstance(sub, type) and issubclass(sub, ndarray)


class _KeepAlive:
    """Device memory at ``ptr`` that ``owners`` keep alive (a foreign ``gpudata`` with a ``base``)."""

    __slots__ = ("ptr", "owners")

    def __init__(self, ptr: int, owners: tuple):
        self.ptr, self.owners = ptr, owners


class GPUArray(metaclass=_GPUArrayType):
    """``GPUArray(shape, dtype, allocator=None, base=None, gpudata=None, strides=None, order="C")``:
    a new ember array, or with ``gpudata`` (a DeviceAllocation, an int address, a CuPy array's
    ``data.ptr``) a view of memory that is already there. A foreign ``gpudata`` is not owned: the
    caller (or ``base``) keeps it alive, as in PyCUDA. ``allocator(nbytes)`` returns the memory for
    a new array (e.g. ``drv.mem_alloc``); by default it comes from ember's pool."""

    def __new__(cls, shape, dtype, allocator=None, base=None, gpudata=None, strides=None, order="C"):
        shape, dtype = _shape_tuple(shape), np.dtype(dtype)
        if order not in ("C", "F"):
            raise ValueError(f"order must be 'C' or 'F', got {order!r}")
        if gpudata is None:
            if base is not None:
                raise ValueError("base= is only meaningful with gpudata=: it keeps that memory alive")
            if allocator is None and strides is None and order == "C":
                return _creation.empty(shape, dtype)
            nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            gpudata = allocator(nbytes) if allocator is not None else _creation.empty((nbytes,), np.uint8)
        memptr = _memptr(gpudata)
        if base is not None and not isinstance(memptr, MemoryPointer):
            memptr = _KeepAlive(int(gpudata), (gpudata, base))
        strides = _strides(shape, dtype.itemsize, order) if strides is None else tuple(strides)
        return ndarray(shape, dtype, memptr=memptr, strides=strides)


empty = GPUArray


def _order_of(host: np.ndarray) -> str:
    """PyCUDA keeps an F-contiguous array's layout; everything else becomes C-ordered."""
    return "F" if host.ndim > 1 and host.flags.f_contiguous and not host.flags.c_contiguous else "C"


def to_gpu(ary, allocator=None) -> ndarray:
    """A device copy of the host array ``ary``."""
    return to_gpu_async(ary, allocator)


def to_gpu_async(ary, allocator=None, stream=None) -> ndarray:
    """:func:`to_gpu` queued on ``stream`` (None: the current stream)."""
    host = np.asarray(ary)
    result = GPUArray(host.shape, host.dtype, allocator=allocator, order=_order_of(host))
    result.set(host, stream=stream)
    return result


def zeros(shape, dtype=np.float64, allocator=None, order="C") -> ndarray:
    """A new array of zeros."""
    result = GPUArray(shape, dtype, allocator=allocator, order=order)
    result.fill(0)
    return result


def ones(shape, dtype=np.float64, allocator=None, order="C") -> ndarray:
    """A new array of ones."""
    result = GPUArray(shape, dtype, allocator=allocator, order=order)
    result.fill(1)
    return result


def _like(other, dtype, order):
    if order == "K":
        order = "F" if other.ndim > 1 and other.flags.f_contiguous and not other.flags.c_contiguous else "C"
    return other.shape, other.dtype if dtype is None else dtype, order


def empty_like(other_ary, dtype=None, order="K") -> ndarray:
    """An uninitialised array shaped like ``other_ary`` (its layout kept when ``order="K"``)."""
    shape, dtype, order = _like(other_ary, dtype, order)
    return GPUArray(shape, dtype, order=order)


def zeros_like(other_ary, dtype=None, order="K") -> ndarray:
    shape, dtype, order = _like(other_ary, dtype, order)
    return zeros(shape, dtype, order=order)


def ones_like(other_ary, dtype=None, order="K") -> ndarray:
    shape, dtype, order = _like(other_ary, dtype, order)
    return ones(shape, dtype, order=order)


__all__ = ["GPUArray", "empty", "empty_like", "ones", "ones_like", "to_gpu", "to_gpu_async", "zeros", "zeros_like"]
