"""Shared virtual memory (OpenCL 2.0), as PyOpenCL presents it: ``SVMAllocation`` (memory at
one address on the host and in kernels), ``SVM`` (a NumPy array over such memory, for kernels
and copies), maps for the host, fills, copies and migrations.

Coarse-grain memory may be touched by the host only while mapped (``with svm.map_rw(queue) as
a:``); fine-grain memory at any time. Devices report what they support in
``device.svm_capabilities``; an allocation the device cannot make raises ``LogicError`` saying
so. A buffer made over SVM memory (``SVM.as_buffer``, arrays from ``tools.SVMAllocator``) is the
same memory, so ember's array operations work on it.
"""

from __future__ import annotations

import numpy as np

from .. import _ember
from .._creation import _host_pointer
from ._constants import map_flags, mem_flags, status_code, svm_mem_flags
from ._errors import LogicError, invalid, native_call
from ._memory import Buffer, HostViewable, _host_bytes, _run
from ._platform import Context


def _call(routine: str, work):
    return native_call(routine, work, status_code.INVALID_OPERATION)


class SVMPointer:
    """Something that names shared virtual memory: ``svm_ptr`` (its address) and ``size``
    (bytes). Kernels take it as a pointer argument."""

    @property
    def _ember_svm_address(self) -> int:
        return self.svm_ptr

    def map(self, queue, flags, is_blocking=True, wait_for=None) -> SVMMap:
        """Maps the memory for the host (``map_flags``): ``with svm.map_rw(queue) as a:``."""
        for evt in wait_for or ():
            evt.wait()
        return SVMMap(self, queue, flags)

    def map_ro(self, queue, is_blocking=True, wait_for=None) -> SVMMap:
        return self.map(queue, map_flags.READ, is_blocking, wait_for)

    def map_rw(self, queue, is_blocking=True, wait_for=None) -> SVMMap:
        return self.map(queue, map_flags.READ | map_flags.WRITE, is_blocking, wait_for)


class SVMAllocation(SVMPointer, HostViewable):
    """``SVMAllocation(context, size, alignment, flags, queue=None)``: ``size`` bytes of shared
    virtual memory (``flags`` from ``svm_mem_flags``). Freed by ``release()`` or when the last
    reference goes, after the work queued on the device."""

    def __init__(self, context: Context, size, alignment, flags, queue=None):
        if not isinstance(context, Context):
            raise TypeError(f"context must be an ember.cl.Context, got {type(context).__name__}")
        self.context, self.size, self.flags = context, int(size), int(flags)
        self._device = context.devices[0]
        self._queue = queue
        self.svm_ptr = _call("clSVMAlloc", lambda: _ember.cl_svm_alloc(
            self._device.ordinal, self.flags, self.size, int(alignment or 0)))

    @property
    def mem(self) -> np.ndarray:
        """The memory as bytes (a NumPy array whose ``base`` is this allocation)."""
        return self._host_array((self.size,), np.uint8)

    @property
    def is_fine_grain(self) -> bool:
        return bool(self.flags & svm_mem_flags.SVM_FINE_GRAIN_BUFFER)

    def release(self) -> None:
        """Frees the memory (after the device's queued work)."""
        if self.svm_ptr:
            address, self.svm_ptr = self.svm_ptr, 0
            _call("clSVMFree", lambda: _ember.cl_svm_free(self._device.ordinal, address))

    def enqueue_release(self, queue=None, wait_for=None) -> None:
        """Frees the memory once the queue's work is done."""
        for evt in wait_for or ():
            evt.wait()
        self.release()

    def bind_to_queue(self, queue) -> None:
        """Makes ``queue`` the one whose work the memory belongs to."""
        self._queue = queue

    def unbind_from_queue(self) -> None:
        self._queue = None

    def _ember_buffer(self, owner=None) -> Buffer:
        """A ``Buffer`` over the memory itself (the same bytes, no copy); it keeps ``owner``
        (default: this allocation) alive while any array views it."""
        native = _call("clCreateBuffer", lambda: _ember.from_foreign(
            self._device.ordinal, self.svm_ptr, [max(self.size, 1)], None, "uint8", owner or self))
        return Buffer._view(self.context, mem_flags.READ_WRITE | mem_flags.USE_HOST_PTR, native)

    def as_buffer(self, context=None, flags=None) -> Buffer:
        """A ``Buffer`` over the same memory (kernels that take buffers see the SVM bytes)."""
        return self._ember_buffer()

    def _host_array(self, shape, dtype, order="C") -> np.ndarray:
        """A NumPy array over the memory whose ``base`` is this allocation."""
        return self._host_array_at(self.svm_ptr, shape, dtype, order)

    def __del__(self):
        try:
            self.release()
        except Exception:  # the process may be ending: the driver frees what is left
            pass

    def __repr__(self):
        return f"<ember.cl.SVMAllocation of {self.size} bytes at {self.svm_ptr:#x}>"


class SVMMap:
    """A host mapping of SVM memory: ``array`` is the memory; ``release()`` (or leaving the
    ``with`` block) ends it, after which kernels see the host's writes."""

    def __init__(self, svm: SVM, queue, flags):
        self._svm, self._queue, self.array = svm, queue, svm.mem
        _run(queue, None, lambda: _call("clEnqueueSVMMap", lambda: _ember.cl_svm_map(
            queue.device.ordinal, svm.svm_ptr, svm.size, int(flags), False, queue._handle)), done=True)
        self._mapped = True

    def release(self, queue=None, wait_for=None):
        if not self._mapped:
            raise LogicError("SVMMap.release failed: INVALID_VALUE - the memory is not mapped",
                             routine="SVMMap.release", code=status_code.INVALID_VALUE)
        self._mapped = False
        queue = queue or self._queue
        return _run(queue, wait_for, lambda: _call("clEnqueueSVMUnmap", lambda: _ember.cl_svm_map(
            queue.device.ordinal, self._svm.svm_ptr, 0, 0, True, queue._handle)), done=False)

    def __enter__(self):
        return self.array

    def __exit__(self, *exc):
        self.release()


class SVM(SVMPointer):
    """``SVM(mem)``: the NumPy array ``mem`` (made by ``svm_empty`` and friends, or any array
    on a device with fine-grain system SVM) as shared virtual memory for kernels and copies."""

    def __init__(self, mem):
        if isinstance(mem, SVMAllocation):
            mem = mem._host_array((mem.size,), np.uint8)
        if not isinstance(mem, np.ndarray):
            raise TypeError(f"SVM takes a NumPy array over shared virtual memory, got {type(mem).__name__}")
        self.mem = mem
        self.svm_ptr = _host_pointer(mem)
        self.size = mem.nbytes
        self._allocation = mem.base if isinstance(mem.base, SVMAllocation) else None

    def as_buffer(self, context, flags=None) -> Buffer:
        """A ``Buffer`` over the same memory (kernels that take buffers see the SVM bytes)."""
        if self._allocation is None:
            raise invalid("SVM.as_buffer", status_code.INVALID_VALUE,
                          "only memory from svm_empty/SVMAllocation can be a buffer in ember", cls=LogicError)
        whole = self._allocation._ember_buffer()
        start = self.svm_ptr - self._allocation.svm_ptr
        return whole if start == 0 and self.size == whole.size else whole.get_sub_region(start, self.size)


def svm_empty(ctx: Context, flags, shape, dtype, order="C", alignment=None, queue=None) -> np.ndarray:
    """An uninitialised NumPy array in new shared virtual memory (its ``base`` is the
    ``SVMAllocation``)."""
    dtype = np.dtype(dtype)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    alloc = SVMAllocation(ctx, nbytes, alignment or dtype.alignment, flags, queue)
    return alloc._host_array(shape, dtype, order)


def svm_empty_like(ctx: Context, flags, ary, alignment=None) -> np.ndarray:
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"
    return svm_empty(ctx, flags, ary.shape, ary.dtype, order, alignment)


def csvm_empty(ctx: Context, shape, dtype, order="C", alignment=None, queue=None) -> np.ndarray:
    """``svm_empty`` of coarse-grain, read-write memory."""
    return svm_empty(ctx, svm_mem_flags.READ_WRITE, shape, dtype, order, alignment, queue)


def csvm_empty_like(ctx: Context, ary, alignment=None) -> np.ndarray:
    return svm_empty_like(ctx, svm_mem_flags.READ_WRITE, ary, alignment)


def fsvm_empty(ctx: Context, shape, dtype, order="C", alignment=None, queue=None) -> np.ndarray:
    """``svm_empty`` of fine-grain, read-write memory (the host may touch it at any time)."""
    return svm_empty(ctx, svm_mem_flags.READ_WRITE | svm_mem_flags.SVM_FINE_GRAIN_BUFFER, shape, dtype, order,
                     alignment, queue)


def fsvm_empty_like(ctx: Context, ary, alignment=None) -> np.ndarray:
    return svm_empty_like(ctx, svm_mem_flags.READ_WRITE | svm_mem_flags.SVM_FINE_GRAIN_BUFFER, ary, alignment)


def _span(svm) -> tuple[int, int]:
    if isinstance(svm, SVMPointer):
        return svm.svm_ptr, svm.size
    raise TypeError(f"expected SVM memory (cl.SVM or cl.SVMAllocation), got {type(svm).__name__}")


def enqueue_svm_memfill(queue, dest, pattern, byte_count=None, wait_for=None):
    """Fills ``dest`` (``byte_count`` bytes, default all) with repetitions of ``pattern``."""
    address, size = _span(dest)
    p = _host_bytes(pattern, "pattern")
    count = size if byte_count is None else int(byte_count)
    if not p.nbytes or count % p.nbytes or count > size:
        raise invalid("clEnqueueSVMMemFill", status_code.INVALID_VALUE,
                      f"{count} bytes must be a multiple of the pattern's {p.nbytes} and fit in {size}")
    pattern_bytes = list(p.tobytes())
    return _run(queue, wait_for, lambda: _call("clEnqueueSVMMemFill", lambda: _ember.cl_svm_fill(
        queue.device.ordinal, address, pattern_bytes, count, queue._handle)), done=False)


def enqueue_svm_migratemem(queue, svms, flags=None, wait_for=None):
    """Moves the memory of ``svms`` toward the device (``flags`` from ``mem_migration_flags``:
    ``HOST`` moves it to the host)."""
    spans = [_span(s) for s in svms]
    return _run(queue, wait_for, lambda: _call("clEnqueueSVMMigrateMem", lambda: _ember.cl_svm_migrate(
        queue.device.ordinal, spans, int(flags or 0), queue._handle)), done=False)


def copy_with_svm(queue, dest, src, kwargs: dict):
    """``enqueue_copy`` where ``dest`` or ``src`` is SVM memory: a host array on the other side
    stands for its own memory. ``byte_count`` defaults to the source's size."""
    kwargs.pop("is_blocking", None)  # copies with host memory complete before returning
    wait_for = kwargs.pop("wait_for", None)
    byte_count = kwargs.pop("byte_count", None)
    if kwargs.pop("src_offset", 0) or kwargs.pop("dst_offset", 0):
        raise ValueError("SVM copies take no offsets: copy from a slice of the array instead")
    if kwargs:
        raise TypeError(f"enqueue_copy with SVM does not take {', '.join(sorted(kwargs))}")
    host = {}
    for side, obj in (("dest", dest), ("src", src)):
        if not isinstance(obj, SVMPointer):
            host[side] = _host_bytes(obj, side, writable=side == "dest")
    dst_addr, dst_size = _span(dest) if "dest" not in host else (_host_pointer(host["dest"]), host["dest"].nbytes)
    src_addr, src_size = _span(src) if "src" not in host else (_host_pointer(host["src"]), host["src"].nbytes)
    count = src_size if byte_count is None else int(byte_count)
    if count > dst_size or count > src_size:
        raise invalid("clEnqueueSVMMemcpy", status_code.INVALID_VALUE,
                      f"{count} bytes do not fit: the source has {src_size}, the destination {dst_size}")
    return _run(queue, wait_for, lambda: _call("clEnqueueSVMMemcpy", lambda: _ember.cl_svm_memcpy(
        queue.device.ordinal, dst_addr, src_addr, count, queue._handle)), done=True)
