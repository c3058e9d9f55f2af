"""Buffers, local memory, and the copies and fills between buffers and host memory.

A ``Buffer`` of n bytes is an ember array of n ``uint8`` on the context's first device, so a
buffer and an ``ember.ndarray`` can share memory both ways without a copy:
``buf.as_array(dtype, shape)`` views a buffer as an ember array, and ``Buffer.from_array(a)``
wraps an ember array as a buffer.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _ember
from .. import errors as _ember_errors
from .._creation import _c_strides, _host_pointer
from .._memory import ArrayMemory, MemoryPointer
from .._ndarray import _wrap, ndarray
from . import _handles
from ._constants import map_flags, mem_flags, mem_info, mem_object_type, status_code
from ._errors import AllocationError, LogicError, RuntimeError, from_driver, invalid
from ._platform import Context, context_of


def _host_bytes(obj, what="hostbuf", writable=False) -> np.ndarray:
    """``obj`` (a NumPy array or any buffer-protocol object) as a flat uint8 view."""
    if isinstance(obj, ndarray):
        raise TypeError(f"{what} is an ember.ndarray, which lives on the device; wrap it with "
                        f"Buffer.from_array(a) (no copy), or pass a NumPy array")
    try:
        arr = np.asarray(obj) if isinstance(obj, (np.ndarray, np.generic)) else np.asarray(memoryview(obj))
    except TypeError:
        raise TypeError(f"{what} must be a NumPy array or support the buffer protocol, "
                        f"got {type(obj).__name__}") from None
    if not (arr.flags.c_contiguous or arr.flags.f_contiguous):
        raise ValueError(f"{what} must be contiguous in memory (use numpy.ascontiguousarray)")
    if writable and not arr.flags.writeable:
        raise ValueError(f"{what} is read-only, but the copy writes into it")
    return arr.reshape(-1, order="A").view(np.uint8)


def _allocate(ordinal: int, size: int):
    try:
        return _ember.empty(ordinal, [size], "uint8")
    except _ember_errors.OutOfMemoryError as e:
        raise AllocationError(f"clCreateBuffer failed: MEM_OBJECT_ALLOCATION_FAILURE - {e}", requested=size) from None


class HostViewable:
    """Memory a NumPy array can be made over, with this object as the array's ``base`` (which
    keeps the memory alive): ``_host_array_at(address, shape, dtype, order)``. The object has an
    ``__array_interface__`` only while that array is being made."""

    def _host_array_at(self, address: int, shape, dtype, order="C") -> np.ndarray:
        dtype = np.dtype(dtype)
        shape = tuple(int(d) for d in shape)
        fortran = order in ("F", "f")
        self._host_view = {"shape": shape, "typestr": dtype.str, "data": (int(address), False),
                           "strides": tuple(_c_strides(shape[::-1], dtype.itemsize)[::-1]) if fortran else None,
                           "version": 3, "descr": dtype.descr}
        try:
            return np.asarray(self)  # its base: this object
        finally:
            del self._host_view

    @property
    def __array_interface__(self):
        view = getattr(self, "_host_view", None)
        if view is None:
            raise AttributeError(f"{type(self).__name__} is device memory: read it with enqueue_copy (or map it)")
        return view


class Buffer(HostViewable):
    """``Buffer(context, flags, size=0, hostbuf=None)``: device memory of ``size`` bytes.

    ``COPY_HOST_PTR`` copies ``hostbuf`` in. ``USE_HOST_PTR`` uses ``hostbuf``'s memory itself
    on a device that shares host memory (a CPU device such as PoCL) when it is writable, as
    OpenCL does; elsewhere it copies ``hostbuf`` in once, and later changes on either side are
    not seen by the other (read results back with ``enqueue_copy``). Access flags
    (``READ_ONLY``, ``HOST_NO_ACCESS``, ...) are recorded, not enforced.
    """

    def __init__(self, context: Context, flags, size=0, hostbuf=None):
        if not isinstance(context, Context):
            raise TypeError(f"context must be an ember.cl.Context, got {type(context).__name__}")
        flags, size = int(flags), int(size)
        use, copy = flags & mem_flags.USE_HOST_PTR, flags & mem_flags.COPY_HOST_PTR
        host = None
        if hostbuf is not None:
            if not (use or copy):
                warnings.warn("'hostbuf' was passed, but no memory flags to make use of it.", UserWarning,
                              stacklevel=2)
                raise invalid("create_buffer", status_code.INVALID_HOST_PTR,
                              "hostbuf needs mem_flags.COPY_HOST_PTR or mem_flags.USE_HOST_PTR", cls=LogicError)
            host = _host_bytes(hostbuf)
            if size == 0:
                size = host.nbytes
            elif size > host.nbytes:
                raise invalid("Buffer", status_code.INVALID_VALUE,
                              f"specified size is greater than host buffer size ({size} > {host.nbytes} bytes)")
        elif use or copy:
            raise invalid("create_buffer", status_code.INVALID_HOST_PTR,
                          "mem_flags.COPY_HOST_PTR and USE_HOST_PTR need a hostbuf", cls=LogicError)
        if use and copy:
            raise invalid("create_buffer", status_code.INVALID_VALUE,
                          "mem_flags.USE_HOST_PTR and COPY_HOST_PTR exclude each other")
        if size <= 0:
            raise invalid("create_buffer", status_code.INVALID_BUFFER_SIZE,
                          f"size must be positive, got {size}", cls=LogicError)
        device = context.devices[0]
        if use and device.host_unified_memory and host.flags.writeable:
            native = _ember.from_foreign(device.ordinal, _host_pointer(host), [size], [1], "uint8", hostbuf)
        else:
            native = _allocate(device.ordinal, size)
            if host is not None:
                native.set_from_host(_host_pointer(host), size)
        self._init(context, flags, native, hostbuf, 0)

    def _init(self, context, flags, native, hostbuf, offset):
        self.context = context
        self.flags = flags
        self.size = native.shape[0]
        self.hostbuf = hostbuf
        self.offset = offset
        self._native = native
        self._array = _wrap(native)

    @classmethod
    def _view(cls, context, flags, native, hostbuf=None, offset=0) -> Buffer:
        buf = object.__new__(cls)
        buf._init(context, flags, native, hostbuf, offset)
        return buf

    @classmethod
    def from_array(cls, a: ndarray, context: Context | None = None, flags=mem_flags.READ_WRITE) -> Buffer:
        """A buffer sharing the memory of the C-contiguous ember array ``a`` (no copy).

        A kernel takes it only if ``a`` starts at the beginning of its memory (not a view
        into the middle of another array)."""
        if not isinstance(a, ndarray):
            raise TypeError(f"Buffer.from_array takes an ember.ndarray, got {type(a).__name__}")
        if not a.flags.c_contiguous:
            raise ValueError("Buffer.from_array needs a C-contiguous array; copy it first with a.copy()")
        if a.nbytes == 0:
            raise invalid("create_buffer", status_code.INVALID_BUFFER_SIZE, "the array is empty", cls=LogicError)
        n = a._a
        context = context or context_of(n.device)
        if context.devices[0].ordinal != n.device:
            raise invalid("Buffer.from_array", status_code.INVALID_CONTEXT,
                          f"the array is on ember device {n.device}, the context on {context.devices[0]!r}")
        return cls._view(context, int(flags), n.view([a.nbytes], [1], n.offset, "uint8"))

    def as_array(self, dtype=np.uint8, shape=None) -> ndarray:
        """The buffer's memory as an ember array of ``dtype`` (no copy). ``shape`` defaults to
        as many elements as fit. The array's operations go to ember's current stream, which
        is also a default ``CommandQueue``'s, so they are ordered with the queue's commands;
        finish a queue with a stream of its own before using the array elsewhere."""
        dtype = np.dtype(dtype)
        if shape is None:
            if self.size % dtype.itemsize:
                raise ValueError(f"a buffer of {self.size} bytes is not a whole number of {dtype} items; give shape=")
            shape = (self.size // dtype.itemsize,)
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if nbytes > self.size:
            raise ValueError(f"an array of shape {shape} and dtype {dtype} needs {nbytes} bytes; "
                             f"the buffer has {self.size}")
        strides, step = [], dtype.itemsize
        for d in reversed(shape):
            strides.append(step)
            step *= max(d, 1)
        return _wrap(self._native.view(list(shape), strides[::-1], self._native.offset, dtype.name))

    @property
    def data(self) -> MemoryPointer:
        """A pointer to the buffer's first byte, for ``ember.ndarray(shape, dtype, memptr=buf.data)``."""
        mem = ArrayMemory(self._native)
        return MemoryPointer(mem, self._native.address - mem.ptr)

    type = mem_object_type.BUFFER

    def get_info(self, param):
        if param == mem_info.TYPE:
            return self.type
        if param == mem_info.SIZE:
            return self.size
        if param == mem_info.FLAGS:
            return self.flags
        if param == mem_info.CONTEXT:
            return self.context
        if param == mem_info.OFFSET:
            return self.offset
        if param == mem_info.HOST_PTR:
            return self._native.address if self.flags & mem_flags.USE_HOST_PTR else None
        raise invalid("clGetMemObjectInfo", status_code.INVALID_VALUE, f"info parameter {param!r} is not available")

    def get_host_array(self, shape, dtype, order="C") -> np.ndarray:
        """The host memory of a ``USE_HOST_PTR`` buffer as a NumPy array (its ``base`` is the
        buffer, which keeps the memory alive)."""
        if not self.flags & mem_flags.USE_HOST_PTR or self.hostbuf is None:
            raise invalid("get_host_array", status_code.INVALID_VALUE,
                          "only a buffer made with mem_flags.USE_HOST_PTR has host memory to view", cls=LogicError)
        host = _host_bytes(self.hostbuf)
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)
        dtype = np.dtype(dtype)
        if int(np.prod(shape, dtype=np.int64)) * dtype.itemsize > host.nbytes:
            raise invalid("get_host_array", status_code.INVALID_VALUE,
                          f"shape {shape} of {dtype} is larger than the buffer's {host.nbytes} host bytes")
        return self._host_array_at(host.ctypes.data, shape, dtype, order)

    def get_sub_region(self, origin, size, flags=0) -> Buffer:
        """``size`` bytes from ``origin``, sharing this buffer's memory. Copies and fills take
        it; kernels take only buffers that start at the beginning of their memory, so pass the
        whole buffer and an offset argument there."""
        origin, size = int(origin), int(size)
        if origin < 0 or size <= 0 or origin + size > self.size:
            raise invalid("clCreateSubBuffer", status_code.INVALID_VALUE,
                          f"region [{origin}, {origin + size}) is outside the buffer's {self.size} bytes")
        native = self._native.view([size], [1], self._native.offset + origin, "uint8")
        return Buffer._view(self.context, int(flags) or self.flags, native, self.hostbuf, self.offset + origin)

    def __getitem__(self, index):
        if not isinstance(index, slice) or index.step not in (None, 1):
            raise TypeError("buffers can only be sliced with a step of 1, e.g. buf[16:64]")
        start, stop, _ = index.indices(self.size)
        return self.get_sub_region(start, stop - start)

    def release(self) -> None:
        """Drops this handle's reference to the memory (freed when no array views it)."""
        self._native = self._array = None

    @property
    def int_ptr(self) -> int:
        """The ``cl_mem`` handle, for other OpenCL libraries (a whole buffer's; a sub-buffer
        has none of its own in ember)."""
        if self._native.offset:
            raise invalid("Buffer.int_ptr", status_code.INVALID_MEM_OBJECT,
                          f"this sub-buffer starts {self._native.offset} bytes into its memory and has no cl_mem "
                          f"of its own in ember; pass the whole buffer's int_ptr and the offset", cls=LogicError)
        return _handles.seen(self, self._native.memory_handle)

    from_int_ptr = classmethod(_handles.from_int_ptr)

    def __repr__(self):
        return f"<ember.cl.Buffer of {self.size} bytes on {self.context.devices[0].name!r}>"


def buffer_of_pointer(ptr: MemoryPointer) -> Buffer:
    """The ``Buffer`` a ``MemoryPointer`` (an ember array's ``.data``) names, for kernels and
    copies: the array's memory from its first element."""
    mem = ptr.mem
    if not isinstance(mem, ArrayMemory):
        raise TypeError("this memory pointer is not ember array memory: pass the array's own .data")
    native = mem._native
    start = ptr.ptr - mem.ptr
    view = native.view([mem.size - start], [1], start, "uint8")
    return Buffer._view(context_of(native.device), mem_flags.READ_WRITE, view, offset=start)


class LocalMemory:
    """``__local`` memory of ``size`` bytes for one kernel argument."""

    __slots__ = ("size",)

    def __init__(self, size):
        self.size = int(size)

    @property
    def _ember_local_bytes(self) -> int:
        return self.size

    def __repr__(self):
        return f"<ember.cl.LocalMemory of {self.size} bytes>"


def _bytes_at(buf: Buffer, offset: int, count: int):
    """The native uint8 view of ``count`` bytes at ``offset`` in ``buf``."""
    return buf._native.view([count], [1], buf._native.offset + offset, "uint8")


def _check_range(routine: str, what: str, offset: int, count: int, size: int) -> None:
    if offset < 0 or count < 0 or offset + count > size:
        raise invalid(routine, status_code.INVALID_VALUE,
                      f"{count} bytes at {what} {offset} do not fit in a buffer of {size} bytes")


def _run(queue, wait_for, work, done: bool):
    """Runs ``work()`` on ``queue``'s stream after ``wait_for``; returns the command's Event."""
    queue._wait_for(wait_for or ())
    start = queue._start()
    try:
        with queue._stream:
            work()
    except _ember_errors.DriverError as e:
        raise from_driver(e) from None
    return queue._event(start, done=done)


def _copy_buffer(queue, src: Buffer, dst: Buffer, byte_count=-1, src_offset=0, dst_offset=0, wait_for=None,
                 is_blocking=False):
    src_offset, dst_offset = int(src_offset), int(dst_offset)
    count = int(byte_count)
    if count < 0:
        count = min(src.size - src_offset, dst.size - dst_offset)
    _check_range("clEnqueueCopyBuffer", "source offset", src_offset, count, src.size)
    _check_range("clEnqueueCopyBuffer", "destination offset", dst_offset, count, dst.size)
    s, d = _bytes_at(src, src_offset, count), _bytes_at(dst, dst_offset, count)
    if s.buffer_id == d.buffer_id and abs(s.offset - d.offset) < count:
        raise RuntimeError("clEnqueueCopyBuffer failed: MEM_COPY_OVERLAP - the source and destination ranges overlap",
                           routine="clEnqueueCopyBuffer", code=status_code.MEM_COPY_OVERLAP)
    event = _run(queue, wait_for, lambda: s.copy_into(d), done=False)
    if is_blocking:
        event.wait()
    return event


def _rect(buf: Buffer, origin, region, pitches, routine: str):
    """The native uint8 view of a rectangle of ``buf`` (OpenCL's rectangular copies: origin
    and region in (bytes, rows, slices), pitches in bytes, 0 meaning packed)."""
    w, h, d = (tuple(int(r) for r in region) + (1, 1))[:3]
    x, y, z = (tuple(int(o) for o in origin) + (0, 0))[:3]
    pitches = tuple(int(p) for p in (pitches or ()))
    row = pitches[0] if len(pitches) > 0 and pitches[0] else w
    plane = pitches[1] if len(pitches) > 1 and pitches[1] else h * row
    start = z * plane + y * row + x
    last = start + (d - 1) * plane + (h - 1) * row + w
    if min(w, h, d) <= 0 or min(x, y, z) < 0 or row < w or plane < h * row or last > buf.size:
        raise invalid(routine, status_code.INVALID_VALUE,
                      f"region {(w, h, d)} at origin {(x, y, z)} with pitches {(row, plane)} does not fit in "
                      f"a buffer of {buf.size} bytes")
    return buf._native.view([d, h, w], [plane, row, 1], buf._native.offset + start, "uint8")


def _copy_buffer_rect(queue, src: Buffer, dst: Buffer, src_origin, dst_origin, region, src_pitches=None,
                      dst_pitches=None, wait_for=None, is_blocking=False):
    s = _rect(src, src_origin, region, src_pitches, "clEnqueueCopyBufferRect")
    d = _rect(dst, dst_origin, region, dst_pitches, "clEnqueueCopyBufferRect")
    event = _run(queue, wait_for, lambda: _ember.setitem(_wrap(d), Ellipsis, _wrap(s)), done=False)
    if is_blocking:
        event.wait()
    return event


def _write_buffer(queue, dst: Buffer, hostbuf, dst_offset=0, wait_for=None, is_blocking=True):
    host = _host_bytes(hostbuf)
    dst_offset = int(dst_offset)
    _check_range("clEnqueueWriteBuffer", "offset", dst_offset, host.nbytes, dst.size)
    view = _bytes_at(dst, dst_offset, host.nbytes)
    return _run(queue, wait_for, lambda: view.set_from_host(_host_pointer(host), host.nbytes), done=True)


def _read_buffer(queue, src: Buffer, hostbuf, src_offset=0, wait_for=None, is_blocking=True):
    host = _host_bytes(hostbuf, writable=True)
    src_offset = int(src_offset)
    _check_range("clEnqueueReadBuffer", "offset", src_offset, host.nbytes, src.size)
    view = _bytes_at(src, src_offset, host.nbytes)
    return _run(queue, wait_for, lambda: view.to_host(_host_pointer(host), host.nbytes), done=True)


def _as_buffer(obj):
    if isinstance(obj, ndarray):
        return Buffer.from_array(obj)
    if isinstance(obj, MemoryPointer):  # an array's .data
        return buffer_of_pointer(obj)
    return obj


def copy_buffers(queue, dest, src, **kwargs):
    """``enqueue_copy`` between buffers and host memory:

    - buffer from buffer: ``byte_count`` (default: as much as fits), ``src_offset``,
      ``dst_offset``; queued without waiting unless ``is_blocking=True``;
    - buffer from host: ``dst_offset``; host from buffer: ``src_offset``. Host transfers are
      done when the call returns (``is_blocking=False`` is accepted and also completes).

    ``wait_for`` lists events to wait for first. ember arrays may stand in for buffers.
    """
    dest, src = _as_buffer(dest), _as_buffer(src)
    if "dest_offset" in kwargs:
        kwargs["dst_offset"] = kwargs.pop("dest_offset")
    if "device_offset" in kwargs:
        kwargs["dst_offset" if isinstance(dest, Buffer) else "src_offset"] = kwargs.pop("device_offset")
    if isinstance(dest, Buffer) and isinstance(src, Buffer):
        if "region" in kwargs:
            return _copy_buffer_rect(queue, src, dest, **kwargs)
        return _copy_buffer(queue, src, dest, **kwargs)
    if isinstance(dest, Buffer):
        return _write_buffer(queue, dest, src, **kwargs)
    if isinstance(src, Buffer):
        return _read_buffer(queue, src, dest, **kwargs)
    raise TypeError("enqueue_copy cannot perform host-to-host transfers")


def enqueue_fill_buffer(queue, mem: Buffer, pattern, offset, size, wait_for=None):
    """Fills ``size`` bytes of ``mem`` from ``offset`` with repetitions of ``pattern`` (e.g.
    ``numpy.float32(7)``); both must be multiples of the pattern's size."""
    p = _host_bytes(pattern, "pattern")
    offset, size, n = int(offset), int(size), p.nbytes
    if n == 0 or size % n or offset % n:
        raise invalid("clEnqueueFillBuffer", status_code.INVALID_VALUE,
                      f"offset {offset} and size {size} must be multiples of the pattern's {n} bytes")
    _check_range("clEnqueueFillBuffer", "offset", offset, size, mem.size)
    if n in (1, 2, 4, 8):
        dtype = f"uint{8 * n}"
        view = mem._native.view([size // n], [n], mem._native.offset + offset, dtype)
        value = int(p.view(dtype)[0])
        return _run(queue, wait_for, lambda: view.fill(value), done=False)
    host = np.tile(p, size // n)
    view = _bytes_at(mem, offset, size)
    return _run(queue, wait_for, lambda: view.set_from_host(_host_pointer(host), size), done=True)


def enqueue_fill(queue, dest: Buffer, pattern, size, *, offset=0, wait_for=None):
    """``enqueue_fill_buffer`` with PyOpenCL's newer argument order."""
    return enqueue_fill_buffer(queue, dest, pattern, offset, size, wait_for=wait_for)


# ---- mapping -------------------------------------------------------------------------------


class MemoryMap:
    """A mapped region of a buffer: the host array's ``base``. ember maps by copying (as
    OpenCL allows): the region is read in when mapped for reading, and written back when a map
    for writing is released (``release()``, or leaving ``with array.base:``)."""

    def __init__(self, queue, buf: Buffer, offset: int, host: np.ndarray, flags: int):
        self._queue, self._buf, self._offset, self._host, self._flags = queue, buf, offset, host, flags
        self._released = False
        self.__array_interface__ = host.__array_interface__

    def release(self, queue=None, wait_for=None):
        """Unmaps the region (writing it back when mapped for writing); returns an event."""
        queue = queue or self._queue
        if self._released:
            raise invalid("clEnqueueUnmapMemObject", status_code.INVALID_VALUE,
                          "the region is already unmapped", cls=LogicError)
        self._released = True
        if self._flags & (map_flags.WRITE | map_flags.WRITE_INVALIDATE_REGION):
            return _write_buffer(queue, self._buf, self._host.reshape(-1, order="A").view(np.uint8),
                                 self._offset, wait_for)
        return _run(queue, wait_for, lambda: None, done=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self._released:
            self.release()


def enqueue_map_buffer(queue, buf: Buffer, flags, offset, shape, dtype, order="C", strides=None, wait_for=None,
                       is_blocking=True):
    """``(array, event)``: ``shape`` items of ``dtype`` at byte ``offset`` of ``buf`` as a host
    array, whose ``base`` (a :class:`MemoryMap`) unmaps it."""
    dtype = np.dtype(dtype)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)
    host = np.empty(shape, dtype, order="F" if order in ("F", "f") else "C")
    offset, flags = int(offset), int(flags)
    _check_range("clEnqueueMapBuffer", "offset", offset, host.nbytes, buf.size)
    if flags & map_flags.READ or not flags & map_flags.WRITE_INVALIDATE_REGION:
        event = _read_buffer(queue, buf, host.reshape(-1, order="A").view(np.uint8), offset, wait_for)
    else:
        event = _run(queue, wait_for, lambda: None, done=True)
    return np.asarray(MemoryMap(queue, buf, offset, host, flags)), event
