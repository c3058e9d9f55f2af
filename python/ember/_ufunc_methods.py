"""A ufunc's ``reduce`` and ``accumulate`` (``outer`` is in ``_ufuncs``), with NumPy's axes,
dtypes, ``initial=``, ``where=``, ``keepdims=`` and errors.

The reductions NumPy's ``sum prod max min all any`` are (``add``, ``multiply``, ``maximum``,
``minimum``, ``logical_and``, ``logical_or``) run ember's reduction kernels, and
``add.accumulate`` and ``multiply.accumulate`` its scans. Other ufuncs fold with their own kernel: those whose fold is
exact in any order (bitwise and logical operators, ``fmax``/``fmin``, ``gcd``/``lcm``)
pairwise, in log2(n) launches; the rest in order along the axis, one launch per element, as
NumPy's left fold defines them (``subtract.reduce([a, b, c])`` is ``a - b - c``).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from . import _reductions
from ._creation import asarray, empty, full
from ._indexing import where as _where
from ._shape import concatenate, moveaxis

_NAMED = {
    "add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min", "logical_and": "all",
    "logical_or": "any",
}
# Folds NumPy lets run over several axes (its "reorderable" ufuncs); add and multiply are
# among them but run as sum and prod.
_ANY_ORDER = {"bitwise_and", "bitwise_or", "bitwise_xor", "logical_xor", "fmax", "fmin", "gcd", "lcm",
              "maximum", "minimum", "logical_and", "logical_or", "add", "multiply"}


def _result_dtype(u, dtype):
    """The dtype ``u`` gives for two operands of ``dtype`` (NumPy's own resolution)."""
    probe = np.zeros(1, dtype)
    with np.errstate(all="ignore"):
        return getattr(np, u.__name__)(probe, probe).dtype


def _accumulated_dtype(u, dtype):
    """The dtype of ``u.accumulate`` over ``dtype`` (NumPy's own answer, on one element)."""
    with np.errstate(all="ignore"):
        return getattr(np, u.__name__).accumulate(np.zeros(1, dtype)).dtype


def _axes(axis, ndim: int, u) -> tuple:
    if axis is None:
        axes = tuple(range(ndim))
    elif isinstance(axis, tuple):
        axes = tuple(normalize_axis_index(int(k), ndim) for k in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
    else:
        axes = (normalize_axis_index(int(axis), ndim),)
    if len(axes) > 1 and u.__name__ not in _ANY_ORDER:
        raise ValueError(
            f"reduction operation '{u.__name__}' is not reorderable, so at most one axis may be specified"
        )
    return axes


def _fold_axis(u, a, axis: int, dtype):
    """``u`` folded along ``axis`` of ``a`` (a non-empty axis): pairwise where the order does
    not matter, else in order."""
    a = moveaxis(a, axis, 0)
    if u.__name__ in _ANY_ORDER:
        while a.shape[0] > 1:
            half = a.shape[0] // 2
            head = u(a[:half], a[half:2 * half], dtype=dtype)
            a = concatenate([head, a[2 * half:].astype(head.dtype)]) if a.shape[0] % 2 else head
        return a[0]
    acc = a[0] if dtype is None else a[0].astype(dtype)
    for k in range(1, a.shape[0]):
        acc = u(acc, a[k], dtype=dtype)
    return acc


def _deliver(result, out):
    if out is None:
        return result
    out[...] = result
    return out


def reduce_with(u, array, axis, dtype, out, keepdims, initial, where):
    """``u.reduce(array, axis, dtype, out, keepdims, initial, where)``."""
    a = asarray(array)
    if where is not True:
        fill = u.identity if initial is np._NoValue else initial
        if fill is None:
            raise ValueError(
                f"reduction operation '{u.__name__}' does not have an identity, so to use a where mask one has "
                "to specify 'initial'"
            )
        a = _where(where, a, asarray(fill, dtype=a.dtype))
    axes = _axes(axis, a.ndim, u)
    kept = tuple(1 if k in axes else n for k, n in enumerate(a.shape))
    shape = tuple(n for k, n in enumerate(a.shape) if k not in axes)
    empty_axis = any(a.shape[k] == 0 for k in axes)
    if empty_axis:
        start = u.identity if initial is np._NoValue else initial
        if start is None:
            raise ValueError(f"zero-size array to reduction operation {u.__name__} which has no identity")
        kind = np.dtype(dtype) if dtype is not None else _result_dtype(u, a.dtype)
        result = full(kept if keepdims else shape, start, dtype=kind)
        return _deliver(result, out)
    name = _NAMED.get(u.__name__)
    if name is not None:
        reduction = getattr(_reductions, name)
        if name in ("sum", "prod"):
            result = reduction(a, axis=axes, dtype=dtype, keepdims=keepdims)
        else:
            result = reduction(a, axis=axes, keepdims=keepdims)
            if dtype is not None:
                result = result.astype(dtype)
    else:
        result = a
        for k in sorted(axes, reverse=True):
            result = _fold_axis(u, result, k, dtype)
        if keepdims:
            result = result.reshape(kept)
    if initial is not np._NoValue:
        result = u(result, initial, dtype=dtype)
    return _deliver(result, out)


def accumulate_with(u, array, axis, dtype, out):
    """``u.accumulate(array, axis, dtype, out)``."""
    a = asarray(array)
    if a.ndim == 0:
        raise TypeError("cannot accumulate on a scalar")
    axis = normalize_axis_index(int(axis), a.ndim)
    kind = np.dtype(dtype) if dtype is not None else _accumulated_dtype(u, a.dtype)
    scan = {"add": _reductions.cumsum, "multiply": _reductions.cumprod}.get(u.__name__)
    if scan is not None and a.dtype.kind in "biufc":
        # The scan, in the accumulation's dtype (NumPy 2 widens add's and multiply's small
        # integers and booleans to 64 bits, as their reductions).
        return scan(a, axis=axis, dtype=kind, out=out)
    moved = moveaxis(a, axis, 0)
    result = empty(moved.shape, dtype=kind)
    if moved.shape[0]:
        result[0] = moved[0]
    for k in range(1, moved.shape[0]):
        u(result[k - 1], moved[k], out=result[k], dtype=dtype)
    return _deliver(moveaxis(result, 0, axis), out)


def reduceat_with(u, array, indices, axis, dtype, out):
    """``u.reduceat(array, indices, axis, dtype, out)``: one reduction per slice
    ``[indices[i], indices[i+1])`` (the last to the end), or the element at ``indices[i]``
    where the next index is not larger; the positions are read on the host, as NumPy takes them."""
    a = asarray(array)
    axis = normalize_axis_index(int(axis), max(a.ndim, 1))
    if a.ndim == 0:
        raise TypeError("cannot reduceat on a scalar")
    positions = np.asarray(indices.get() if isinstance(indices, type(a)) else indices).astype(np.intp).ravel()
    n = a.shape[axis]
    bad = (positions < 0) | (positions >= n)
    if bad.any():
        raise IndexError(f"index {positions[bad][0]} out-of-bounds in {u.__name__}.reduceat [0, {n})")
    with np.errstate(all="ignore"):
        kind = np.dtype(dtype) if dtype is not None else getattr(np, u.__name__).reduceat(
            np.zeros(1, a.dtype), [0]).dtype
    moved = moveaxis(a, axis, 0)
    # The result is C-ordered as NumPy's; each reduction lands in its slice along ``axis``.
    result = empty(a.shape[:axis] + (positions.size,) + a.shape[axis + 1:], dtype=kind)
    slots = moveaxis(result, axis, 0)
    ends = list(positions[1:]) + [n] if positions.size else []
    for k, (start, end) in enumerate(zip(positions, ends, strict=True)):
        if start < end:
            slots[k] = u.reduce(moved[start:end], axis=0, dtype=kind)
        else:
            slots[k] = moved[start].astype(kind)
    return _deliver(result, out)
