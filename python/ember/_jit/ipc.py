"""Numba's CUDA interprocess memory: one process hands a device array's memory to another
(``ctx.get_ipc_handle(array.gpu_data)``, ``array.get_ipc_handle()``, ``cuda.open_ipc_array``).

A CUDA IPC handle names a whole allocation (one block of ember's pool), so a handle also carries
where the memory starts in it (``offset``) and how long it is (``size``). Handles pickle; the
other process opens one, gets a device array over the same memory, and closes it when done.
"""

from __future__ import annotations

import contextlib

import numpy as np

from .. import _dtypes, _ember, _runtime
from .._creation import _c_strides
from .._memory import MemoryPointer, UnownedMemory


def _array_over(memory: MemoryPointer, shape, dtype, strides=None):
    """A device array over ``memory`` (which keeps the opened handle alive)."""
    dtype = np.dtype(dtype)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)
    if strides is None:
        strides = _c_strides(shape, dtype.itemsize)
    native = _ember.from_foreign(memory.device_id, memory.ptr, list(shape), [int(s) for s in strides],
                                 _dtypes.name_of(dtype), memory)
    return _ember.wrap(native)


class IpcMemHandle:
    """The driver's handle: its 64 bytes (``reserved``, as Numba's binding names them)."""

    __slots__ = ("reserved",)

    def __init__(self, reserved):
        self.reserved = _handle_bytes(reserved)

    def __eq__(self, other):
        return isinstance(other, IpcMemHandle) and other.reserved == self.reserved

    def __hash__(self):
        return hash(self.reserved)

    def __repr__(self):
        return f"<IpcMemHandle {self.reserved.hex()[:16]}...>"


def _handle_bytes(handle) -> bytes:
    raw = handle.reserved if isinstance(handle, IpcMemHandle) else handle
    raw = bytes(bytearray(raw)) if not isinstance(raw, bytes) else raw
    if len(raw) != 64:
        raise ValueError(f"a CUDA IPC memory handle is 64 bytes, got {len(raw)}")
    return raw


class IpcHandle:
    """Numba's ``IpcHandle``: ``size`` bytes at ``offset`` into the allocation ``handle`` names.
    ``base`` is the memory it was made from (None once pickled: the other process has none)."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base
        self.handle = handle if isinstance(handle, IpcMemHandle) else IpcMemHandle(handle)
        self.size = int(size)
        self.source_info = source_info
        self.offset = int(offset)
        self._opened = None  # (device id, address of the allocation here)

    def open(self, context=None) -> MemoryPointer:
        """The memory in this process (a pointer ``size`` bytes long)."""
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened")
        device_id = _runtime.current_device_id() if context is None else context.device.id
        address = _ember.ipc_open(device_id, list(self.handle.reserved))
        self._opened = (device_id, address)
        return MemoryPointer(UnownedMemory(address, self.offset + self.size, self, device_id), self.offset)

    def open_array(self, context=None, shape=None, dtype=np.float64, strides=None):
        """A device array over the memory (``shape`` defaults to all of it as one dimension)."""
        memory = self.open(context)
        shape = (self.size // np.dtype(dtype).itemsize,) if shape is None else shape
        return _array_over(memory, shape, dtype, strides)

    def close(self):
        """Closes the memory opened here (arrays over it must not be used after)."""
        if self._opened is None:
            raise ValueError("IpcHandle is not opened")
        device_id, address = self._opened
        self._opened = None
        _ember.ipc_close(device_id, address)

    def __reduce__(self):
        return (IpcHandle, (None, self.handle, self.size, self.source_info, self.offset))

    def __repr__(self):
        return f"<IpcHandle {self.size} bytes at offset {self.offset}>"


def get_ipc_handle(memory, device_id: int) -> IpcHandle:
    """The handle of ``memory`` (a pointer with a ``size``, as ``array.gpu_data`` gives)."""
    if _ember.device_info(device_id)["backend"] != "cuda":
        raise ValueError(
            "interprocess memory handles are CUDA's: the current device is an OpenCL device; pass the data "
            "through the host (copy_to_host, then to_device in the other process)"
        )
    address = int(memory.ptr if hasattr(memory, "ptr") else memory)
    raw, base, _ = _ember.ipc_export(device_id, address)
    size = getattr(memory, "size", None)
    return IpcHandle(memory, bytes(raw), size, source_info=device_id, offset=address - base)


class IpcArrayHandle:
    """Numba's handle of a whole device array: ``with handle as array:`` opens it (in another
    process) for the block; ``open()``/``close()`` by hand."""

    def __init__(self, ipc_handle: IpcHandle, array_desc: dict):
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc

    @classmethod
    def of(cls, array) -> IpcArrayHandle:
        memory = array.gpu_data
        handle = get_ipc_handle(memory, array.device.id)
        # The array's first element, from the lowest byte its elements span.
        first = array.data.ptr - memory.ptr if array.size else 0
        desc = {"shape": array.shape, "strides": array.strides, "dtype": array.dtype, "first": first}
        return cls(handle, desc)

    def open(self):
        d = self._array_desc
        memory = self._ipc_handle.open()
        return _array_over(memory + d["first"], d["shape"], d["dtype"], d["strides"])

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """Numba's ``cuda.open_ipc_array``: for the block, a device array over another process's
    memory given the handle's bytes (``ipc_handle.handle.reserved``)."""
    dtype = np.dtype(dtype)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(shape)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    ipc = IpcHandle(None, handle, size, offset=offset)
    array = ipc.open_array(shape=shape, dtype=dtype, strides=strides)
    try:
        yield array
    finally:
        ipc.close()
