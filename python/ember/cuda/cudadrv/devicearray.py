"""``numba.cuda.cudadrv.devicearray``: Numba's device array is ember's array."""

from ..._ndarray import ndarray as DeviceNDArray


def is_cuda_ndarray(obj) -> bool:
    """Whether ``obj`` is a device array of this library."""
    return isinstance(obj, DeviceNDArray)


__all__ = ["DeviceNDArray", "is_cuda_ndarray"]
