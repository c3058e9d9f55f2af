"""``eye identity tri triu tril``: matrices built on the device from index comparisons."""

from __future__ import annotations

import numpy as np

from ._creation import _elsewhere, arange, asarray
from ._indexing import where
from ._ndarray import ndarray


def _grid(n: int, m: int):
    rows = arange(n, dtype=np.int64).reshape((n, 1))
    cols = arange(m, dtype=np.int64).reshape((1, m))
    return rows, cols


def tri(N, M=None, k=0, dtype=float) -> ndarray:
    """Ones at and below the ``k``-th diagonal of an ``N`` x ``M`` matrix, zeros above."""
    M = N if M is None else M
    rows, cols = _grid(int(N), int(M))
    return (cols <= rows + int(k)).astype(dtype)


def tril(m, k=0) -> ndarray:
    """``m`` with the elements above the ``k``-th diagonal zeroed (over the last two axes)."""
    m = m if isinstance(m, ndarray) else asarray(m)
    if m.ndim < 1:
        raise ValueError("tril needs an array of at least 1 dimension, got a 0-d array")
    # A 1-d m is the row of an (N, N) matrix (NumPy broadcasts it the same way).
    keep = tri(*(m.shape[-2:] if m.ndim > 1 else (m.shape[0], m.shape[0])), k, dtype=bool)
    return where(keep, m, m.dtype.type(0))


def triu(m, k=0) -> ndarray:
    """``m`` with the elements below the ``k``-th diagonal zeroed (over the last two axes)."""
    m = m if isinstance(m, ndarray) else asarray(m)
    if m.ndim < 1:
        raise ValueError("triu needs an array of at least 1 dimension, got a 0-d array")
    below = tri(*(m.shape[-2:] if m.ndim > 1 else (m.shape[0], m.shape[0])), k - 1, dtype=bool)
    return where(below, m.dtype.type(0), m)


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None) -> ndarray:
    """An ``N`` x ``M`` matrix with ones on the ``k``-th diagonal."""
    if device is not None:
        return _elsewhere(device, eye, N, M, k, dtype, order)
    M = N if M is None else M
    rows, cols = _grid(int(N), int(M))
    return (cols - rows == int(k)).astype(dtype)


def identity(n, dtype=float) -> ndarray:
    """The ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=dtype)
