"""CuPy's pinned (page-locked) host memory pool: ``get_default_pinned_memory_pool()``,
``PinnedMemoryPool`` and ``empty_pinned``.

Page-locked memory is what the GPU copies from and to at full speed; allocating it is slow (it
is mapped for the device), so freed blocks are kept by size and reused, as CuPy does. On
OpenCL the blocks are plain host memory and the pool works the same way.
"""

from __future__ import annotations

import ctypes
import threading
from collections import defaultdict

import numpy as np

from . import _ember

# Sizes are rounded up to this, so that nearby sizes share blocks (CuPy rounds to 512 too).
_ROUND = 512


class PinnedMemory:
    """A block of the pool, given back to it when no longer referenced."""

    __slots__ = ("_native", "_pool", "ptr", "size", "device_id", "__weakref__")

    def __init__(self, native, pool, device_id):
        self._native, self._pool, self.device_id = native, pool, device_id
        self.ptr, self.size = native.address, native.size

    def __del__(self):
        pool = self._pool
        if pool is not None and self._native is not None:
            pool._give_back(self.device_id, self._native)


class PinnedMemoryPointer:
    """A position ``offset`` bytes into pinned memory ``mem``; ``ptr`` is its address."""

    __slots__ = ("mem", "ptr")

    def __init__(self, mem, offset=0):
        self.mem = mem
        self.ptr = mem.ptr + int(offset)

    def __int__(self):
        return self.ptr

    def __add__(self, offset):
        return PinnedMemoryPointer(self.mem, self.ptr - self.mem.ptr + int(offset))

    def __repr__(self):
        return f"<ember.PinnedMemoryPointer {self.ptr:#x} ({self.mem.size} bytes)>"


class PinnedMemoryPool:
    """Keeps freed page-locked blocks by size and hands them out again."""

    def __init__(self):
        self._free: dict[tuple[int, int], list] = defaultdict(list)
        self._lock = threading.Lock()

    def malloc(self, size: int) -> PinnedMemoryPointer:
        """``size`` bytes of pinned memory (a reused block when one of the size is free)."""
        size = int(size)
        if size < 0:
            raise ValueError(f"cannot allocate a negative size ({size} bytes)")
        rounded = max(_ROUND, -(-size // _ROUND) * _ROUND)
        device = _ember.current_device()
        with self._lock:
            blocks = self._free.get((device, rounded))
            native = blocks.pop() if blocks else None
        if native is None:
            native = _ember.PinnedMemory(device, rounded)
        return PinnedMemoryPointer(PinnedMemory(native, self, device))

    def _give_back(self, device, native):
        with self._lock:
            self._free[(device, native.size)].append(native)

    def n_free_blocks(self) -> int:
        """Freed blocks the pool holds."""
        with self._lock:
            return sum(len(b) for b in self._free.values())

    def free_bytes(self) -> int:
        """Bytes of the freed blocks the pool holds."""
        with self._lock:
            return sum(size * len(b) for (_, size), b in self._free.items())

    def free_all_blocks(self):
        """Gives every freed block back to the system."""
        with self._lock:
            self._free.clear()

    def __repr__(self):
        return f"<ember.PinnedMemoryPool: {self.n_free_blocks()} free blocks>"


_default = PinnedMemoryPool()


def get_default_pinned_memory_pool() -> PinnedMemoryPool:
    """The pool that :func:`empty_pinned` and ``malloc`` calls draw page-locked memory from."""
    return _default


def empty_pinned(shape, dtype=float, order="C") -> np.ndarray:
    """A NumPy array in pinned host memory from the default pool (CuPy's
    ``cupyx.empty_pinned``): copies between it and the device run at full speed."""
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    pointer = _default.malloc(nbytes)
    raw = (ctypes.c_byte * max(nbytes, 1)).from_address(pointer.ptr)
    raw._ember_pinned = pointer  # the array's buffer keeps the block out of the pool
    flat = np.frombuffer(raw, dtype=np.uint8, count=nbytes)
    return flat.view(dtype).reshape(shape, order=order)
