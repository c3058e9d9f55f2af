"""Numba's ``numba.cuda.kernels.transpose``: the transpose of a 2-d device array into another.

ember's transposed copy is the tiled kernel every ``a.T`` copy uses (shared/local-memory tiles,
coalesced reads and writes), so this is that copy with Numba's argument checks."""

from __future__ import annotations

from ... import _index_tricks
from ..._jit.host import as_cuda_array, device_array
from ..._ndarray import ndarray


def transpose(a, b=None):
    """``b`` (allocated when not given) becomes the transpose of the 2-d device array ``a``;
    returns ``b``. Any dtype, records and booleans included."""
    a = a if isinstance(a, ndarray) else as_cuda_array(a)
    if a.ndim != 2:
        raise ValueError(f"transpose() takes a 2-d array, got {a.ndim} dimensions")
    shape = (a.shape[1], a.shape[0])
    if b is None:
        b = device_array(shape, dtype=a.dtype)
    elif not isinstance(b, ndarray):
        b = as_cuda_array(b)
    if b.shape != shape or b.dtype != a.dtype:
        raise ValueError(
            f"transpose() writes a {shape[0]}x{shape[1]} array of {a.dtype}; "
            f"got b of shape {b.shape} and dtype {b.dtype}"
        )
    _index_tricks.copyto(b, a.T)
    return b
