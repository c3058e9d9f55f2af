"""``ember.cuda.runtime``: the part of CuPy's ``cupy.cuda.runtime`` (CUDA runtime API) that code
uses without thinking, on every backend.

Devices, synchronisation, memory info and device properties answer for the selected backend
(CUDA, or OpenCL where there is no CUDA device); errors are :class:`CUDARuntimeError`, as in
CuPy. Where OpenCL cannot know a value, the function's docstring says what it returns instead.
"""

from __future__ import annotations

import ctypes

import numpy as np

from .. import _ember, _runtime
from ..errors import CUDARuntimeError

__all__ = [
    "CUDARuntimeError", "deviceSynchronize", "driverGetVersion", "free", "getDevice", "getDeviceCount",
    "getDeviceProperties", "is_hip", "malloc", "memGetInfo", "memcpy", "memset", "runtimeGetVersion", "setDevice",
    "streamSynchronize", "memcpyHostToHost", "memcpyHostToDevice", "memcpyDeviceToHost", "memcpyDeviceToDevice",
    "memcpyDefault", "streamLegacy", "streamPerThread", "get_version", "is_supported_version",
]

is_hip = False  # ember never runs on HIP

# cudaMemcpyKind and the special stream handles, with CUDA's values.
memcpyHostToHost, memcpyHostToDevice, memcpyDeviceToHost, memcpyDeviceToDevice, memcpyDefault = 0, 1, 2, 3, 4
streamLegacy, streamPerThread = 1, 2

_INVALID_VALUE, _INVALID_MEMCPY_DIRECTION = 1, 21


# --- devices ----------------------------------------------------------------------------------
def getDeviceCount() -> int:
    """Number of devices of the selected backend."""
    return _ember.device_count()


def getDevice() -> int:
    """The current device of this thread."""
    return _runtime.current_device_id()


def setDevice(device: int) -> None:
    """Makes ``device`` current on this thread (:class:`CUDARuntimeError` if it does not exist)."""
    _runtime.Device(device).use()


def deviceSynchronize() -> None:
    """Waits for all work on the current device."""
    _runtime.synchronize()


def streamSynchronize(stream: int) -> None:
    """Waits for the stream whose handle is ``stream`` (a ``Stream.ptr``). A handle that is not
    the current stream's (another library's, or ``streamLegacy``) waits for the whole current
    device, which includes that stream's work."""
    current = _runtime.get_current_stream()
    if int(stream) == current.ptr:
        current.synchronize()
    else:
        _runtime.synchronize()


def memGetInfo() -> tuple[int, int]:
    """``(free, total)`` bytes of the current device. On OpenCL, which has no query for free
    memory, total is the device's global memory and free is total less what ember's pool holds."""
    return _runtime.memory_info(_runtime.current_device_id())


def getDeviceProperties(device: int) -> dict:
    """CuPy's property dict for the keys ember knows on every backend: ``name`` (bytes),
    ``totalGlobalMem``, ``multiProcessorCount`` (compute units on OpenCL), ``maxThreadsPerBlock``,
    ``maxThreadsDim``, ``warpSize`` (1 on a CPU OpenCL device), ``major``/``minor`` (0, 0 on
    OpenCL: no compute capability). Keys ember does not know (``sharedMemPerBlock``,
    ``clockRate``, PCI ids...) are absent rather than guessed."""
    info = _ember.device_info(_runtime.Device(device).id)
    major, minor = _runtime.compute_capability(info)
    return {
        "name": info["name"].encode(),
        "totalGlobalMem": info["total_memory"],
        "multiProcessorCount": info["multiprocessors"],
        "maxThreadsPerBlock": info["max_threads_per_block"],
        "maxThreadsDim": tuple(info["max_block_dims"]),
        "warpSize": info["warp_size"],
        "major": major,
        "minor": minor,
    }


# --- versions ---------------------------------------------------------------------------------
def _version_number(major: int, minor: int) -> int:
    """13, 0 as CUDA's version number 13000."""
    return int(major) * 1000 + int(minor) * 10


def driverGetVersion() -> int:
    """The CUDA driver's version (13000 for 13.0); 0 on the OpenCL backend, as CUDA reports
    when no driver is installed."""
    if _runtime.backend() != "cuda":
        return 0
    text = _ember.device_info(_runtime.current_device_id())["driver_version"]  # "13.0"
    return _version_number(*text.split(".")[:2])


def runtimeGetVersion() -> int:
    """The CUDA toolkit version ember compiles with: NVRTC's (ember links no CUDA runtime);
    0 on the OpenCL backend."""
    if _runtime.backend() != "cuda":
        return 0
    return _version_number(*_ember.nvrtc_version())


# --- memory -----------------------------------------------------------------------------------
_allocations: dict[int, object] = {}  # address -> the ember array that owns the block


def malloc(size: int) -> int:
    """Address of ``size`` new bytes on the current device (from ember's pool, as CuPy's
    ``cudaMalloc`` is outside its pool); give it back with :func:`free`."""
    from .._creation import empty

    block = empty((max(int(size), 1),), np.uint8)
    address = block.data.ptr
    _allocations[address] = block
    return address


def free(ptr: int) -> None:
    """Gives back a block from :func:`malloc`."""
    if _allocations.pop(int(ptr), None) is None and int(ptr) != 0:  # cudaFree(0) is a no-op
        raise CUDARuntimeError(_INVALID_VALUE, f"address {int(ptr):#x} was not returned by malloc")


def _device_bytes(ptr: int, size: int):
    """``size`` bytes of device memory at ``ptr`` as a uint8 ember array (a view)."""
    from .._memory import ArrayMemory, MemoryPointer
    from .._ndarray import ndarray

    for base, block in _allocations.items():
        if base <= ptr and ptr + size <= base + block.nbytes:
            return ndarray((size,), np.uint8, memptr=MemoryPointer(ArrayMemory(block._a), ptr - base))
    return ndarray((size,), np.uint8, memptr=ptr)  # memory of an ember array or another library


def _host_bytes(ptr: int, size: int) -> np.ndarray:
    return np.frombuffer((ctypes.c_ubyte * size).from_address(ptr), np.uint8)


def memcpy(dst: int, src: int, size: int, kind: int) -> None:
    """Copies ``size`` bytes from address ``src`` to ``dst`` in the direction ``kind``
    (``memcpyHostToDevice``...). ``memcpyDefault`` needs unified addressing, which ember does
    not assume: it raises :class:`CUDARuntimeError`."""
    dst, src, size = int(dst), int(src), int(size)
    if size == 0:
        return
    if kind == memcpyHostToHost:
        ctypes.memmove(dst, src, size)
    elif kind == memcpyHostToDevice:
        _device_bytes(dst, size).set(_host_bytes(src, size))
    elif kind == memcpyDeviceToHost:
        _device_bytes(src, size).get(out=_host_bytes(dst, size))
    elif kind == memcpyDeviceToDevice:
        _device_bytes(src, size)._a.copy_into(_device_bytes(dst, size)._a)
    else:
        raise CUDARuntimeError(
            _INVALID_MEMCPY_DIRECTION,
            f"kind={kind}: ember needs the direction (memcpyHostToDevice, memcpyDeviceToHost, "
            "memcpyDeviceToDevice or memcpyHostToHost)",
        )


def memset(ptr: int, value: int, size: int) -> None:
    """Sets ``size`` bytes of device memory at ``ptr`` to the byte ``value``."""
    if int(size):
        _device_bytes(int(ptr), int(size)).fill(int(value) & 0xFF)


# --- Numba's ``cuda.runtime`` (the same name in numba.cuda) -----------------------------------
def get_version() -> tuple[int, int]:
    """Numba's ``cuda.runtime.get_version()``: :func:`runtimeGetVersion` as ``(major, minor)``."""
    version = runtimeGetVersion()
    return version // 1000, version % 1000 // 10


def is_supported_version() -> bool:
    """Numba's ``cuda.runtime.is_supported_version()``: ember supports whatever it runs on."""
    return True
