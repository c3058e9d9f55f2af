"""``ember.cuda``: the device runtime as CuPy's ``cupy.cuda`` spells it (devices, streams,
events, memory pools). ``cuda`` names the programming model: these work on every backend.
"""

from __future__ import annotations

from .._memory import MemoryPointer, UnownedMemory
from .._runtime import (
    Device,
    Event,
    MemoryPool,
    Stream,
    get_current_stream,
    get_default_memory_pool,
    get_elapsed_time,
)

__all__ = [
    "Device", "Event", "MemoryPointer", "MemoryPool", "Stream", "UnownedMemory", "get_current_stream",
    "get_default_memory_pool", "get_elapsed_time",
]
