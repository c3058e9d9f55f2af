"""CuPy's memory handles: ``MemoryPointer`` (what ``ndarray.data`` is, and what
``ndarray(shape, dtype, memptr=...)`` views) and ``UnownedMemory`` (memory another library
owns, e.g. a PyCUDA allocation or a PyTorch tensor)."""

from __future__ import annotations


class ArrayMemory:
    """The memory under an ember array (its whole buffer)."""

    __slots__ = ("_native", "ptr", "size", "device_id")

    def __init__(self, native):
        self._native = native
        self.ptr = native.buffer_address
        self.size = native.buffer_nbytes
        self.device_id = native.device


class UnownedMemory:
    """``size`` bytes of device memory at ``ptr`` that ``owner`` keeps alive."""

    __slots__ = ("ptr", "size", "owner", "device_id")

    def __init__(self, ptr, size, owner, device_id=-1):
        from ._runtime import current_device_id

        self.ptr, self.size, self.owner = int(ptr), int(size), owner
        self.device_id = current_device_id() if device_id is None or device_id < 0 else int(device_id)


class MemoryPointer:
    """A position ``offset`` bytes into ``mem``; ``ptr`` is its address."""

    __slots__ = ("mem", "ptr", "device_id")

    def __init__(self, mem, offset):
        self.mem = mem
        self.ptr = mem.ptr + int(offset)
        self.device_id = mem.device_id

    def __int__(self):
        return self.ptr

    def __add__(self, offset):
        return MemoryPointer(self.mem, self.ptr - self.mem.ptr + int(offset))

    def __repr__(self):
        return f"<ember.MemoryPointer {self.ptr:#x} on device {self.device_id}>"
