"""A minimal ``pyopencl.array``: device arrays that live in a ``Buffer``, with ``to_device``,
``empty``, ``zeros``, ``get`` and ``set``. Arithmetic and the other methods of PyOpenCL's
``Array`` are not provided: use ``a.as_ember()`` (an ``ember.ndarray`` sharing the memory)
for computing.
"""

from __future__ import annotations

import numpy as np

from .._ndarray import ndarray as _ember_ndarray
from ._constants import mem_flags
from ._memory import Buffer, _bytes_at, _host_bytes, _run, enqueue_fill_buffer
from ._queue import CommandQueue


class ArrayHasOffsetError(ValueError):
    """``Array.data`` of an array that does not start at the beginning of its buffer."""

    def __init__(self, val="The operation you are attempting does not yet support arrays that start at an offset "
                           "from the beginning of their buffer."):
        super().__init__(val)


class Array:
    """``Array(queue, shape, dtype, data=None, offset=0)``: a C-ordered array in a buffer.
    Pass ``a.data`` (the ``Buffer``) to kernels."""

    def __init__(self, cq, shape, dtype, order="C", allocator=None, data=None, offset=0, strides=None, events=None):
        if order != "C" or strides is not None:
            raise ValueError("ember.cl.array supports C-ordered arrays only")
        if not isinstance(cq, CommandQueue):
            raise TypeError(f"the first argument must be an ember.cl.CommandQueue, got {type(cq).__name__}")
        self.queue = cq
        self.shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        self.offset = int(offset)
        if data is None:
            data = Buffer(cq.context, mem_flags.READ_WRITE, max(self.nbytes, 1))
        elif self.offset + self.nbytes > data.size:
            raise ValueError(f"an array of {self.nbytes} bytes at offset {self.offset} does not fit in {data!r}")
        self.base_data = data
        self.events = list(events or ())

    @property
    def data(self) -> Buffer:
        if self.offset:
            raise ArrayHasOffsetError()
        return self.base_data

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def strides(self) -> tuple[int, ...]:
        strides, step = [], self.dtype.itemsize
        for d in reversed(self.shape):
            strides.append(step)
            step *= max(d, 1)
        return tuple(reversed(strides))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def get(self, queue=None, ary=None) -> np.ndarray:
        """A NumPy copy (into ``ary`` when given)."""
        if ary is None:
            ary = np.empty(self.shape, self.dtype)
        elif ary.shape != self.shape or ary.dtype != self.dtype:
            raise TypeError(f"ary must have shape {self.shape} and dtype {self.dtype}")
        host = _host_bytes(ary, "ary", writable=True)
        if self.nbytes:
            view = _bytes_at(self.base_data, self.offset, self.nbytes)
            _run(queue or self.queue, self.events, lambda: view.to_host(host.ctypes.data, self.nbytes), done=True)
        return ary

    def set(self, ary, queue=None, async_=False) -> None:
        """Copies a host array of the same size and dtype in."""
        ary = np.ascontiguousarray(ary)
        if ary.size != self.size:
            raise ValueError("ary and self must be the same size")
        if ary.dtype != self.dtype:
            raise ValueError("ary and self must have the same dtype")
        host = _host_bytes(ary, "ary")
        if self.nbytes:
            view = _bytes_at(self.base_data, self.offset, self.nbytes)
            _run(queue or self.queue, self.events, lambda: view.set_from_host(host.ctypes.data, self.nbytes),
                 done=True)

    def as_ember(self) -> _ember_ndarray:
        """An ``ember.ndarray`` sharing this array's memory."""
        sub = self.base_data.get_sub_region(self.offset, self.nbytes) if self.offset else self.base_data
        return sub.as_array(self.dtype, self.shape)

    def with_queue(self, queue) -> Array:
        return Array(queue, self.shape, self.dtype, data=self.base_data, offset=self.offset)

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())


def to_device(queue, ary, allocator=None, async_=False, array_queue=None) -> Array:
    """A device copy of the host array ``ary``."""
    ary = np.asarray(ary)
    result = Array(queue, ary.shape, ary.dtype)
    result.set(ary)
    return result


def empty(queue, shape, dtype, order="C", allocator=None) -> Array:
    """An uninitialised array."""
    return Array(queue, shape, dtype, order=order)


def zeros(queue, shape, dtype, order="C", allocator=None) -> Array:
    """An array of zeros."""
    result = Array(queue, shape, dtype, order=order)
    enqueue_fill_buffer(queue, result.base_data, np.uint8(0), 0, result.base_data.size)
    return result


def empty_like(ary: Array) -> Array:
    return Array(ary.queue, ary.shape, ary.dtype)


def zeros_like(ary: Array) -> Array:
    return zeros(ary.queue, ary.shape, ary.dtype)
