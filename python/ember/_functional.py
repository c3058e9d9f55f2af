"""NumPy's functions that apply Python functions over an array: ``apply_along_axis``,
``apply_over_axes`` and ``piecewise``. The Python function runs on the host, once per slice
(or per condition); what it computes runs on the device."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from . import _ember
from ._creation import array, asarray, empty, zeros_like
from ._reductions import any as _any
from ._shape import concatenate, expand_dims, transpose
from ._ufuncs import UFUNCS

__all__ = ["apply_along_axis", "apply_over_axes", "piecewise"]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to every 1-d slice of ``arr`` along ``axis``; its results (all of one
    shape) take that axis's place."""
    arr = _array(arr)
    nd = arr.ndim
    axis = normalize_axis_index(axis, nd)
    dims = list(range(nd))
    # The slices along the last axis, the other axes in order before it.
    view = transpose(arr, dims[:axis] + dims[axis + 1:] + [axis])
    positions = np.ndindex(view.shape[:-1])
    try:
        first = next(positions)
    except StopIteration:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0") from None
    result = _array(func1d(view[first], *args, **kwargs))
    out = empty(view.shape[:-1] + result.shape, dtype=result.dtype)
    out[first] = result
    for position in positions:
        out[position] = _array(func1d(view[position], *args, **kwargs))
    # The result's own axes go where ``axis`` was.
    outer = out.ndim - result.ndim
    order = list(range(axis)) + list(range(outer, out.ndim)) + list(range(axis, outer))
    return transpose(out, order)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each of ``axes`` in turn, a removed axis kept as length
    1 so the dimensions stay."""
    val = _array(a)
    n = val.ndim
    for axis in (axes,) if np.ndim(axes) == 0 else axes:
        axis = axis + n if axis < 0 else axis
        res = func(val, axis)
        if res.ndim != val.ndim:
            res = expand_dims(res, axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


def piecewise(x, condlist, funclist, *args, **kw):
    """``x`` evaluated piecewise: where ``condlist[i]`` holds, ``funclist[i]`` (a value or a
    function of the selected elements); one more function than conditions covers the rest."""
    x = _array(x)
    n2 = len(funclist)
    one_condition = (
        np.isscalar(condlist)
        or (isinstance(condlist, _ember.ndarray) and condlist.ndim == 0)
        or (not isinstance(condlist[0], list | np.ndarray | _ember.ndarray) and x.ndim != 0)
    )
    if one_condition:
        condlist = [condlist]
    conds = array(condlist, dtype=bool) if not isinstance(condlist, _ember.ndarray) else condlist.astype(bool)
    n = len(conds)
    if n == n2 - 1:
        rest = UFUNCS["logical_not"](_any(conds, axis=0, keepdims=True))
        conds = concatenate([conds, rest], axis=0)
        n += 1
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = zeros_like(x)
    for cond, func in zip(conds, funclist, strict=True):
        if not isinstance(func, Callable):
            y[cond] = func
            continue
        vals = x[cond]
        if vals.size > 0:
            y[cond] = func(vals, *args, **kw)
    return y
