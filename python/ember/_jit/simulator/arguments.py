"""A simulated launch's arguments on the host: NumPy arrays as they are, device arrays as
views of one host copy of each allocation (aliased views stay aliased), records passed by
reference, scalars in the types the kernel takes them; and what the threads changed, copied
back after the launch.
"""

from __future__ import annotations

import numpy as np

from ..._operands import on_device
from .arrays import kernel_view


def _root(array):
    """The allocation ``array`` views: the array at the end of its ``base`` chain."""
    from ..._ndarray import ndarray

    root = array
    while isinstance(getattr(root, "base", None), ndarray):
        root = root.base
    return root


class Arguments:
    """The kernel's arguments on the host: NumPy arrays as they are, device arrays as views of
    a host copy of the allocation they view (so aliased arguments stay aliased), copied back
    after the launch where the threads changed them."""

    def __init__(self):
        self._copies: dict = {}  # id(root) -> (root, host copy, snapshot)
        self._records: list = []  # (the caller's record, the copy the kernel saw)

    def host(self, value):
        from ..._creation import asarray

        if isinstance(value, np.ndarray):
            return kernel_view(value)
        if isinstance(value, np.void) and value.dtype.names is not None:
            # A record is passed by reference: the kernel's writes reach it after the launch.
            holder = np.empty(1, dtype=(np.record, value.dtype))
            holder[0] = value
            self._records.append((value, holder))
            return holder[0]
        if isinstance(value, tuple):
            items = [self.host(v) for v in value]
            return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
        if on_device(value):
            array = asarray(value)
            root = _root(array)
            if root is not array and (root._a.offset != 0 or not root.flags.c_contiguous):
                root = array
            entry = self._copies.get(id(root))
            if entry is None:
                host = root.get()
                entry = self._copies[id(root)] = (root, host, host.copy())
            if root is array:
                return kernel_view(entry[1])
            view = np.ndarray(array.shape, array.dtype, buffer=entry[1], offset=array._a.offset,
                              strides=array.strides)
            return kernel_view(view)
        return value

    def write_back(self):
        for record, holder in self._records:
            for name in record.dtype.names:
                record[name] = holder[0][name]
        for root, host, snapshot in self._copies.values():
            if host.tobytes() != snapshot.tobytes():
                root.set(host)


def scalar(value, kind):
    """A scalar as the kernel takes it: in its signature's type (integers wrap, as C casts),
    else as Numba types a Python number (int64, float64, complex128), so arithmetic wraps and
    divides as on the device."""
    from ...types import as_dtype, is_type

    numeric = isinstance(value, (int, float, complex, np.number)) and not isinstance(value, (bool, np.bool_))
    if kind is not None and numeric and is_type(kind):
        try:
            dtype = as_dtype(kind)
        except (TypeError, ValueError):
            return value
        if dtype.kind in "iu" and isinstance(value, (int, np.integer)):
            bits = dtype.itemsize * 8
            wrapped = int(value) & ((1 << bits) - 1)
            if dtype.kind == "i" and wrapped >= 1 << (bits - 1):
                wrapped -= 1 << bits
            return dtype.type(wrapped)
        if dtype.kind in "fc" or (dtype.kind in "iu" and np.isfinite(value)):
            return dtype.type(value)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
        return value
    if isinstance(value, int):
        return np.int64(value) if -(2**63) <= value < 2**63 else np.uint64(value)
    return np.float64(value) if isinstance(value, float) else np.complex128(value)
