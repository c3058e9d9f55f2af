"""Matrix products on a CPU device through the host's BLAS (NumPy's), in place on ember's memory.

A CPU device's arrays are host memory that NumPy views without a copy (DLPack), so a product of
float or complex matrices there is NumPy's ``matmul`` on those views: the host's BLAS is that
device's vendor library, as cuBLAS is a GPU's (1,024 x 1,024 float32 on 2 cores: 11 ms, where
ember's OpenCL kernel on PoCL takes 160 ms). Small products stay kernels: a view waits for the
device's queued work, which a kernel does not.
"""

from __future__ import annotations

import numpy as np

from . import _ember, _runtime
from ._creation import empty
from ._interop import _DL_CPU

_BLAS_TYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64), np.dtype(np.complex128))

# Multiply-adds below which the kernel is kept (about 64^3: a few tens of microseconds either way).
_MIN_WORK = 1 << 18


def product(a, b, dtype: np.dtype, out, conj_a: bool):
    """``matmul(a, b)`` in ``dtype`` into ``out`` (or a new array) through the host's BLAS, or
    None where that does not apply (not a CPU device, not a BLAS dtype, a small product, or
    operands the device's own path checks and reports)."""
    if dtype not in _BLAS_TYPES or a.ndim == 0 or b.ndim == 0:
        return None
    if out is not None and (not isinstance(out, _ember.ndarray) or out.dtype != dtype):
        return None
    if a.__dlpack_device__()[0] != _DL_CPU or b.__dlpack_device__()[0] != _DL_CPU:
        return None
    shape = _result_shape(a.shape, b.shape)
    if shape is None or (out is not None and out.shape != shape):
        return None
    k = a.shape[-1]
    if k * int(np.prod(shape, dtype=np.int64)) < _MIN_WORK:
        return None
    a, b = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
    if out is None:
        out = empty(shape, dtype=dtype)
    # One wait for the work writing the operands (the casts included), then views that wait
    # no more: each export of host memory would otherwise wait again.
    _runtime.get_current_stream().synchronize()
    av, bv, ov = (np.from_dlpack(_Waited(x)) for x in (a, b, out))
    if conj_a:
        av = np.conjugate(av)
    np.matmul(av, bv, out=ov)
    return out


class _Waited:
    """An array whose device work has been waited for: its DLPack export asks for no wait."""

    def __init__(self, array):
        self._array = array

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**{**kwargs, "stream": -1})


def _result_shape(sa: tuple, sb: tuple):
    """NumPy's matmul result shape, or None when the core dimensions do not match or the batch
    axes do not broadcast."""
    a2 = (1,) + sa if len(sa) == 1 else sa
    b2 = sb + (1,) if len(sb) == 1 else sb
    if a2[-1] != b2[-2]:
        return None
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        return None
    rows = () if len(sa) == 1 else (a2[-2],)
    cols = () if len(sb) == 1 else (b2[-1],)
    return tuple(batch) + rows + cols
