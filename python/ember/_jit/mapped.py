"""Host memory for Numba's host API: page-locked arrays, and host arrays kernels read and write
in place (``cuda.mapped_array``, ``cuda.managed_array``, ``with cuda.mapped(a):``).

Which host memory a device can address:

- CUDA: page-locked memory from ``cuMemHostAlloc`` (ember's pinned memory). On every 64-bit
  host CUDA uses unified addressing, where such memory is mapped into the device's address
  space at its host address: a kernel given that address reads and writes the host memory.
- OpenCL devices that share host memory (PoCL's CPU device): any host memory; ember views it
  through DLPack, without a copy.
- Other OpenCL devices (discrete GPUs): none that ember can map; these functions say so.

``managed_array`` gives the same memory as ``mapped_array``: both host and device read and
write it at one address, which is what managed memory promises; what ember does not do is
migrate pages to the GPU, so a kernel that reads such an array many times is slower than on
CUDA's managed memory (copy it to the device for that).
"""

from __future__ import annotations

import contextlib

import numpy as np

from .. import _dtypes, _ember, _runtime
from .._interop import from_dlpack, stream_entry
from .layout import contiguous_strides_like, dense, order_like


def _shape(shape) -> tuple[int, ...]:
    return (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)


def host_array(shape, dtype=np.float64, strides=None, order="C") -> np.ndarray:
    """An uninitialised NumPy array in page-locked memory on CUDA (plain host memory on
    OpenCL, where the driver stages copies itself), with ``order`` or ``strides``."""
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    shape, dtype = _shape(shape), np.dtype(dtype)
    if strides is not None:
        strides = _shape(strides)
        if len(strides) != len(shape) or not dense(shape, strides, dtype.itemsize):
            raise ValueError(f"strides {strides} do not lay out shape {shape} of {dtype} densely")
        flat = host_array(int(np.prod(shape, dtype=np.int64)), dtype)
        return np.lib.stride_tricks.as_strided(flat, shape, strides)
    if _runtime.backend() == "cuda":
        from ..cuda import driver

        return driver.pagelocked_empty(shape, dtype, order=order)
    return np.empty(shape, dtype=dtype, order=order)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A host array in page-locked memory (plain host memory where the backend has none)."""
    return host_array(shape, dtype, strides, order)


def pinned_array_like(ary):
    """:func:`pinned_array` with ``ary``'s shape, dtype and axis order."""
    return pinned_array(ary.shape, ary.dtype, contiguous_strides_like(ary), order_like(ary))


def _can_map() -> bool:
    """Whether the current device addresses ember's page-locked host memory."""
    info = _ember.device_info(_runtime.current_device_id())
    return info["backend"] == "cuda" or bool(info["host_unified"])


def _refuse(what: str):
    info = _ember.device_info(_runtime.current_device_id())
    raise ValueError(
        f"{what} needs a device that addresses host memory (a CUDA GPU, or an OpenCL device sharing host "
        f"memory such as PoCL's CPU device); device {info['ordinal']} ({info['name']}) does not: allocate "
        "with cuda.device_array() and copy with cuda.to_device() instead"
    )


def device_view(host: np.ndarray):
    """An ember array over ``host``'s own memory (which the device must address)."""
    dev = _runtime.current_device_id()
    if _ember.device_info(dev)["backend"] == "cuda":
        address = host.__array_interface__["data"][0]
        return _ember.wrap(_ember.from_foreign(dev, address, list(host.shape), [int(s) for s in host.strides],
                                               _dtypes.name_of(host.dtype), host))
    return from_dlpack(host)


class MappedNDArray(np.ndarray):
    """A NumPy array in host memory that kernels take in place (no copy): what
    ``cuda.mapped_array`` and ``cuda.managed_array`` return. Read it on the host after
    ``cuda.synchronize()`` (or the stream's) once kernels have written it."""

    def __ember_device_view__(self):
        """The ember array kernels are given for it."""
        return device_view(self)

    @property
    def __cuda_array_interface__(self) -> dict:
        if _runtime.backend() != "cuda":
            raise AttributeError("__cuda_array_interface__ describes CUDA memory; this device is an OpenCL device")
        return {
            "shape": self.shape,
            "strides": None if self.flags.c_contiguous else self.strides,
            "data": (self.__array_interface__["data"][0], False),
            "typestr": self.dtype.str,
            "version": 3,
            "stream": stream_entry(getattr(self, "stream", 0), _runtime.current_device_id()),
        }

    def copy_to_host(self, ary=None, stream=0) -> np.ndarray:
        """A copy (into ``ary`` when given), as a device array's ``copy_to_host``."""
        if ary is None:
            return np.array(self, copy=True, subok=False)
        np.copyto(ary, self)
        return ary

    def copy_to_device(self, ary, stream=0):
        """Fills the array from ``ary`` (host or device data)."""
        src = ary.get() if hasattr(ary, "get") and not isinstance(ary, np.ndarray) else np.asarray(ary)
        np.copyto(self, src)


class ManagedNDArray(MappedNDArray):
    """What ``cuda.managed_array`` returns (see the module's doc for what ember allocates)."""


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    """A host array that kernels read and write in place (page-locked and mapped into the
    device's address space). ``portable`` and ``wc`` are hints ember accepts without effect."""
    if not _can_map():
        _refuse("mapped_array")
    arr = host_array(shape, dtype, strides, order).view(MappedNDArray)
    arr.stream = stream
    return arr


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    """:func:`mapped_array` with ``ary``'s shape, dtype and axis order."""
    return mapped_array(ary.shape, ary.dtype, contiguous_strides_like(ary), order_like(ary), stream)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0, attach_global=True):
    """A host array both host and device read and write at one address (Numba's managed
    memory; see the module's doc for what ember allocates)."""
    if not _can_map():
        _refuse("managed_array")
    arr = host_array(shape, dtype, strides, order).view(ManagedNDArray)
    arr.stream = stream
    return arr


@contextlib.contextmanager
def mapped(*arrays, stream=0):
    """Numba's ``with cuda.mapped(a, b) as (da, db):``: device arrays for NumPy arrays, for
    the block (one array gives one device array). On a device sharing host memory they view
    the arrays in place; on CUDA, where ember cannot map memory NumPy allocated, they are
    copies, made at the start of the block and copied back at its end (after the device's
    work is done): the arrays hold the kernels' results after the block, as with Numba."""
    for a in arrays:
        if not isinstance(a, np.ndarray):
            raise TypeError(f"cuda.mapped() takes NumPy arrays, got {type(a).__name__}")
    in_place = bool(_ember.device_info(_runtime.current_device_id())["host_unified"])
    if in_place:
        views = [device_view(a) for a in arrays]
    else:
        from .host import to_device

        views = [to_device(a, stream=stream) for a in arrays]
    try:
        yield views[0] if len(views) == 1 else views
    finally:
        _runtime.synchronize()
        if not in_place:
            for a, v in zip(arrays, views, strict=True):
                if a.flags.writeable:
                    v.get(out=a) if a.flags.c_contiguous else np.copyto(a, v.get())


__all__ = [
    "ManagedNDArray", "MappedNDArray", "host_array", "managed_array", "mapped", "mapped_array", "mapped_array_like",
]
