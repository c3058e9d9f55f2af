"""``numba.cuda.cudadrv.devicearray``: Numba's device array is ember's array."""

from ..._jit.host import device_array_like
from ..._ndarray import ndarray as DeviceNDArray


def is_cuda_ndarray(obj) -> bool:
    """Whether ``obj`` is a device array of this library."""
    return isinstance(obj, DeviceNDArray)


def from_array_like(ary, stream=0, gpu_data=None):
    """An uninitialised device array like ``ary`` (Numba's name): its shape, dtype and axis
    order, laid out densely. ``gpu_data`` (Numba's own memory object) is not taken."""
    if gpu_data is not None:
        raise TypeError("from_array_like(gpu_data=...) takes Numba's memory objects; ember allocates the array")
    return device_array_like(ary, stream=stream)


__all__ = ["DeviceNDArray", "from_array_like", "is_cuda_ndarray"]
