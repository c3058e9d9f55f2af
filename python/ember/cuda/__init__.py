"""``ember.cuda``: two APIs under one name, as code written for CuPy and for Numba expects.

- CuPy's ``cupy.cuda``: ``Device``, ``Stream``, ``Event``, memory pools and pointers.
- Numba's ``numba.cuda``: ``@cuda.jit`` kernels and device functions written in Python, the
  intrinsics they call (``cuda.grid``, ``cuda.shared.array``, ``cuda.atomic``...), ``cuda.random``
  and the host API (``to_device``, ``device_array``, ``synchronize``...).

``cuda`` names the programming model: all of it works on every backend (kernels written in
Python compile to OpenCL C where there is no CUDA device).
"""

from __future__ import annotations

from .._jit import jit
from .._jit.host import (
    as_cuda_array,
    default_stream,
    detect,
    device_array,
    device_array_like,
    event,
    event_elapsed_time,
    get_current_device,
    is_available,
    is_cuda_array,
    pinned_array,
    profile_start,
    profile_stop,
    select_device,
    stream,
    synchronize,
    to_device,
)
from .._jit.intrinsics import (
    atomic,
    blockDim,
    blockIdx,
    const,
    grid,
    gridDim,
    gridsize,
    laneid,
    local,
    shared,
    syncthreads,
    syncwarp,
    threadfence,
    threadfence_block,
    threadfence_system,
    threadIdx,
    warpsize,
)
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
from . import random  # noqa: E402  (Numba's cuda.random)

__all__ = [
    "as_cuda_array", "atomic", "blockDim", "blockIdx", "const", "default_stream", "detect", "device_array",
    "device_array_like", "event", "event_elapsed_time", "get_current_device", "grid", "gridDim", "gridsize",
    "is_available", "is_cuda_array", "jit", "laneid", "local", "pinned_array", "profile_start", "profile_stop",
    "random", "select_device", "shared", "stream", "synchronize", "syncthreads", "syncwarp", "threadIdx",
    "threadfence", "threadfence_block", "threadfence_system", "to_device", "warpsize",
    "Device", "Event", "MemoryPointer", "MemoryPool", "Stream", "UnownedMemory", "get_current_stream",
    "get_default_memory_pool", "get_elapsed_time",
]
