"""``ember.cuda``: two APIs under one name, as code written for CuPy and for Numba expects.

- CuPy's ``cupy.cuda``: ``Device``, ``Stream``, ``Event``, memory pools and pointers.
- Numba's ``numba.cuda``: ``@cuda.jit`` kernels and device functions written in Python, the
  intrinsics they call (``cuda.grid``, ``cuda.shared.array``, ``cuda.atomic``...), ``cuda.random``
  and the host API (``to_device``, ``device_array``, ``synchronize``...).

``cuda`` names the programming model: all of it works on every backend (kernels written in
Python compile to OpenCL C where there is no CUDA device).
"""

from __future__ import annotations

import sys as _sys

from .. import _config as config  # noqa: E402  (numba.cuda.config: the settings ember reads)
from .. import types  # noqa: E402
from .._jit import intrinsics as _intrinsics
from .._jit.host import (
    as_cuda_array,
    default_stream,
    detect,
    device_array,
    device_array_like,
    event,
    event_elapsed_time,
    from_cuda_array_interface,
    get_current_device,
    is_available,
    is_cuda_array,
    profile_start,
    profile_stop,
    select_device,
    stream,
    synchronize,
    to_device,
)
from .._jit.intrinsics import *  # noqa: F403  (every row of ember-jit's intrinsic registry)
from .._jit.simulator import jit  # compiled kernels, or the simulator's (EMBER_SIMULATE=1)
from .._memory import MemoryPointer, UnownedMemory
from .._pinned import PinnedMemory, PinnedMemoryPointer, PinnedMemoryPool, get_default_pinned_memory_pool
from .._runtime import (
    Device,
    Event,
    MemoryPool,
    Stream,
    current_device_id,
    get_current_stream,
    get_default_memory_pool,
    get_elapsed_time,
)

# Numba's type objects, as numba-cuda exports them (``from numba.cuda import float32, void``).
from ..types import *  # noqa: E402, F403
from ..types import __all__ as _type_names  # noqa: E402
from . import (  # noqa: E402, F401  (Numba's cuda.random; CuPy's others)
    cudadrv,  # noqa: E402, F401  (Numba's driver-level names for type checks)
    cufft,
    device,
    random,
    runtime,
)

_sys.modules[__name__ + ".types"] = types  # numba-cuda's module path: import numba.cuda.types


def get_device_id() -> int:
    """The current device of this thread (CuPy's ``cupy.cuda.get_device_id``)."""
    return current_device_id()


def alloc(size: int) -> MemoryPointer:
    """``size`` bytes from the default memory pool (CuPy's ``cupy.cuda.alloc``)."""
    return get_default_memory_pool().malloc(size)


def alloc_pinned_memory(size: int) -> PinnedMemoryPointer:
    """``size`` bytes of page-locked host memory from the default pinned pool."""
    return get_default_pinned_memory_pool().malloc(size)


def get_local_runtime_version() -> int:
    """CuPy's name for :func:`ember.cuda.runtime.runtimeGetVersion`."""
    return runtime.runtimeGetVersion()


# Numba's host API beyond arrays and streams: devices, host memory the device addresses,
# ufunc builders, reductions (see ember/_jit/devices.py, mapped.py, vectorize.py, reduction.py).
from .._jit.externs import CUSource, declare_device  # noqa: E402
from .._jit.host import (  # noqa: E402
    ExternalStream,
    close,
    current_context,
    defer_cleanup,
    external_stream,
    gpus,
    is_bfloat16_supported,
    is_float16_supported,
    legacy_default_stream,
    list_devices,
    per_thread_default_stream,
    pinned,
)
from .._jit.ipc import open_ipc_array  # noqa: E402
from .._jit.mapped import (  # noqa: E402
    managed_array,
    mapped,
    mapped_array,
    mapped_array_like,
    pinned_array,
    pinned_array_like,
)
from .._jit.ptx import (  # noqa: E402  (PTX without a GPU, through NVRTC)
    compile,
    compile_for_current_device,
    compile_ptx,
    compile_ptx_for_current_device,
)
from .._jit.reduction import Reduce, reduce  # noqa: E402
from .._jit.vectorize import cuda_guvectorize as guvectorize  # noqa: E402
from .._jit.vectorize import cuda_vectorize as vectorize  # noqa: E402

__all__ = [
    "as_cuda_array", "default_stream", "detect", "device_array", "device_array_like", "event", "event_elapsed_time",
    "get_current_device", "is_available", "is_cuda_array", "jit", "pinned_array", "profile_start", "profile_stop",
    "random", "select_device", "stream", "synchronize", "to_device", "Device", "Event", "MemoryPointer",
    "MemoryPool", "Stream", "UnownedMemory", "get_current_stream", "get_default_memory_pool", "get_elapsed_time",
    "PinnedMemory", "PinnedMemoryPointer", "PinnedMemoryPool", "alloc", "alloc_pinned_memory", "get_device_id",
    "get_local_runtime_version", "runtime", "types", *_type_names, "ExternalStream", "Reduce", "close",
    "current_context", "defer_cleanup", "external_stream", "gpus", "guvectorize", "is_bfloat16_supported",
    "is_float16_supported", "legacy_default_stream", "list_devices", "managed_array", "mapped", "mapped_array",
    "mapped_array_like", "per_thread_default_stream", "pinned", "pinned_array_like", "reduce", "vectorize",
    "compile", "compile_for_current_device", "compile_ptx", "compile_ptx_for_current_device",
    "CUSource", "declare_device", "from_cuda_array_interface", "config", "cudadrv", "open_ipc_array",
]
__all__ += [n for n in _intrinsics.__all__ if n not in __all__]  # cuda.grid, cuda.atomic, ...
