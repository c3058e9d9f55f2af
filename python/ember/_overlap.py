"""Whether two arrays use the same memory: NumPy's ``shares_memory`` (exact) and
``may_share_memory`` (by address bounds), for ember arrays. Only addresses, shapes and
strides are compared; no data is read."""

from __future__ import annotations

import numpy as np

from . import _ember

__all__ = ["byte_bounds", "may_share_memory", "shares_memory"]


class _Layout:
    """An array's addresses described to NumPy (``__array_interface__``) without its data:
    NumPy's overlap solver reads only pointers, shapes and strides."""

    def __init__(self, a):
        self.__array_interface__ = {
            "data": (a._a.address if a.size else 0, True),
            "shape": a.shape,
            "strides": a.strides,
            "typestr": a.dtype.str,
            "version": 3,
        }


def _layout(a):
    if isinstance(a, _ember.ndarray):
        return np.asarray(_Layout(a))
    if isinstance(a, np.ndarray):
        return a
    return np.asarray(a)  # Python scalars and lists: their own new memory


def shares_memory(a, b, /, max_work=None):
    """Whether ``a`` and ``b`` have an element's memory in common (NumPy's exact answer)."""
    if _device_of(a) != _device_of(b):
        return False
    return np.shares_memory(_layout(a), _layout(b), max_work=max_work)


def may_share_memory(a, b, /, max_work=None):
    """Whether the address ranges of ``a`` and ``b`` overlap (may give True for interleaved
    arrays that share no element)."""
    if _device_of(a) != _device_of(b):
        return False
    return np.may_share_memory(_layout(a), _layout(b), max_work=max_work)


def _device_of(a):
    """Where ``a``'s memory is: its device allocation (different ones never overlap), or
    the host."""
    return (a._a.device, a._a.buffer_id) if isinstance(a, _ember.ndarray) else "host"


def byte_bounds(a):
    """The first and one-past-last byte addresses ``a``'s elements occupy (NumPy's
    ``lib.array_utils.byte_bounds``, CuPy's ``byte_bounds``)."""
    if not isinstance(a, _ember.ndarray):
        return np.lib.array_utils.byte_bounds(np.asarray(a))
    low = high = a.data.ptr
    if a.size == 0:
        return low, high
    for extent, stride in zip(a.shape, a.strides, strict=True):
        if stride < 0:
            low += (extent - 1) * stride
        else:
            high += (extent - 1) * stride
    return low, high + a.itemsize
