"""Memory handles: CuPy's ``MemoryPointer`` (what ``ndarray.data`` is, and what
``ndarray(shape, dtype, memptr=...)`` views) and ``UnownedMemory`` (memory another library
owns, e.g. a PyCUDA allocation or a PyTorch tensor), and PyCUDA's ``DeviceAllocation`` (what
``ndarray.gpudata`` is; ``ember.cuda.driver`` gives it its public name)."""

from __future__ import annotations

from . import _ember
from .errors import LogicError


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
        self.ptr, self.size, self.owner = int(ptr), int(size), owner
        self.device_id = _ember.current_device() if device_id is None or device_id < 0 else int(device_id)


class MemoryPointer:
    """A position ``offset`` bytes into ``mem``; ``ptr`` is its address."""

    __slots__ = ("mem", "ptr", "device_id", "size")

    def __init__(self, mem, offset, size=None):
        self.mem = mem
        self.ptr = mem.ptr + int(offset)
        self.device_id = mem.device_id
        # Bytes from ptr that belong to it (Numba's MemoryPointer.size): the rest of ``mem``.
        self.size = mem.size - int(offset) if size is None else int(size)

    def __int__(self):
        return self.ptr

    def __add__(self, offset):
        return MemoryPointer(self.mem, self.ptr - self.mem.ptr + int(offset))

    def __eq__(self, other):
        return isinstance(other, MemoryPointer) and (other.ptr, other.device_id) == (self.ptr, self.device_id)

    def __hash__(self):
        return hash((self.ptr, self.device_id))

    def __repr__(self):
        return f"<ember.MemoryPointer {self.ptr:#x} on device {self.device_id}>"


class DeviceAllocation(_ember.DevicePointer):
    """A device address that kernels and ``memcpy_*`` take.

    ``mem_alloc`` returns one that owns its memory (from ember's pool, given back by ``free()`` or
    when the last reference goes). ``DeviceAllocation(ptr)`` wraps memory another library owns:
    the caller keeps that memory alive, and ``free()`` is refused.
    """

    __slots__ = ("_array", "_freed")

    def __new__(cls, ptr=0):
        return super().__new__(cls, int(ptr))

    def __init__(self, ptr=0):
        self._array = None  # the ember array holding the memory, when ember owns it
        self._freed = False

    @classmethod
    def _over(cls, array) -> DeviceAllocation:
        """The allocation at ``array``'s first element, keeping its memory alive."""
        alloc = cls(array._a.address)
        alloc._array = array
        return alloc

    def free(self) -> None:
        """Gives the memory back now (views of it made by ember keep it until they go)."""
        if self._freed:
            raise LogicError("DeviceAllocation.free failed: the allocation was already freed")
        if self._array is None:
            raise LogicError(
                f"DeviceAllocation.free failed: {self.ptr:#x} was allocated by another library; free it there"
            )
        self._array, self._freed = None, True
        self.ptr = 0  # a use after free reads address 0, not memory the pool handed to someone else

    def __repr__(self):
        owner = "freed" if self._freed else "owned" if self._array is not None else "foreign"
        return f"<ember.cuda.driver.DeviceAllocation {self.ptr:#x} ({owner})>"
