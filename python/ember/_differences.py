"""Differences along an axis: NumPy's ``diff`` and ``ediff1d`` (``gradient`` to come)."""

from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from . import _ember
from ._creation import asarray
from ._shape import broadcast_to, concatenate, ravel
from ._ufuncs import UFUNCS

__all__ = ["diff", "ediff1d"]

_subtract, _not_equal = UFUNCS["subtract"], UFUNCS["not_equal"]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """The ``n``-th difference along ``axis``: ``a[1:] - a[:-1]``, ``n`` times (``!=`` for
    booleans), after joining ``prepend`` and ``append`` (broadcast to the other axes)."""
    a = _array(a)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if n == 0:
        return a
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis_index(axis, a.ndim)
    parts = []
    for extra, at in ((prepend, 0), (append, 1)):
        if extra is np._NoValue:
            continue
        extra = _array(extra)
        if extra.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            extra = broadcast_to(extra, tuple(shape))
        parts.append((at, extra))
    if parts:
        joined = [p for at, p in parts if at == 0] + [a] + [p for at, p in parts if at == 1]
        a = concatenate(joined, axis=axis)
    op = _not_equal if a.dtype == np.bool_ else _subtract
    head = [slice(None)] * a.ndim
    tail = [slice(None)] * a.ndim
    head[axis], tail[axis] = slice(1, None), slice(None, -1)
    head, tail = tuple(head), tuple(tail)
    for _ in range(n):
        a = op(a[head], a[tail])
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array, with ``to_begin`` and ``to_end`` around them (cast
    to ``ary``'s dtype, which must hold them exactly)."""
    ary = ravel(_array(ary))
    result = _subtract(ary[1:], ary[:-1])
    pieces = []
    for extra, name in ((to_begin, "to_begin"), (to_end, "to_end")):
        if extra is None:
            pieces.append(None)
            continue
        host = np.asanyarray(extra.get() if isinstance(extra, _ember.ndarray) else extra).ravel()
        if not np.can_cast(host, ary.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the `same_kind` rule.")
        pieces.append(asarray(host.astype(ary.dtype)))
    begin, end = pieces
    return concatenate([p for p in (begin, result, end) if p is not None])
