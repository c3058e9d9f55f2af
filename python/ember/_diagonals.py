"""Diagonals: NumPy's ``diagonal`` (a view, as in CuPy), ``diag``, ``diagflat`` and
``trace``."""

from __future__ import annotations

import operator

from numpy.lib.array_utils import normalize_axis_index

from . import _ember
from ._creation import asarray, zeros
from ._reductions import sum as _sum
from ._shape import ravel

__all__ = ["diag", "diagflat", "diagonal", "trace"]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal ``offset`` above (below, if negative) the main one of the ``axis1``,
    ``axis2`` planes, as the last axis of a view."""
    a = _array(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    axis1, axis2 = normalize_axis_index(axis1, a.ndim), normalize_axis_index(axis2, a.ndim)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    offset = operator.index(offset)
    native = a._a
    n1, n2 = a.shape[axis1], a.shape[axis2]
    s1, s2 = native.strides[axis1], native.strides[axis2]
    start = native.offset
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        start += offset * s2 if length else 0
    else:
        length = max(0, min(n1 + offset, n2))
        start += -offset * s1 if length else 0
    rest = [k for k in range(a.ndim) if k not in (axis1, axis2)]
    shape = [a.shape[k] for k in rest] + [length]
    strides = [native.strides[k] for k in rest] + [s1 + s2]
    return _ember.wrap(native.view(shape, strides, start, a.dtype.name), a)


def diag(v, k=0):
    """For 1-d ``v``, a 2-d array with ``v`` on diagonal ``k``; for 2-d ``v``, its diagonal
    ``k`` (a view)."""
    v = _array(v)
    k = operator.index(k)
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        out = zeros((n, n), dtype=v.dtype)
        diagonal(out, k)[...] = v
        return out
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    """``v`` flattened, on diagonal ``k`` of a new 2-d array."""
    return diag(ravel(_array(v)), k)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The sum of diagonal ``offset`` (over the other axes, one sum each)."""
    return _sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype, out=out)
