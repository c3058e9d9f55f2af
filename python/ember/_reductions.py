"""Reductions, as NumPy spells them: ``sum prod mean var std max min argmax argmin any all
cumsum`` (module functions and ``ndarray`` methods).

Axes, ``keepdims``, ``dtype`` and ``out`` follow NumPy 2; so do result dtypes (integer sums
in 64 bits, means of integers in float64, float16 computed in float32, variances of complex
arrays real) and errors (an out-of-range axis raises NumPy's ``AxisError``). Results are
ember arrays, 0-d when every axis is reduced. The kernels and their choice by layout live in
Rust (``ember_array::reduction``).
"""

from __future__ import annotations

import operator

import numpy as np

from . import _dtypes, _ember

__all__ = [
    "all", "amax", "amin", "any", "argmax", "argmin", "cumprod", "cumsum", "max", "mean", "min", "prod", "std",
    "sum", "var",
]


def _array(a, name: str):
    if isinstance(a, _ember.ndarray):
        return a
    if isinstance(a, np.ndarray):
        raise TypeError(
            f"Unsupported type {type(a)}: ember.{name} takes an ember.ndarray; copy NumPy arrays to the "
            "device with ember.asarray(x) first"
        )
    raise TypeError(f"Unsupported type {type(a)}: ember.{name} takes an ember.ndarray")


def _axes(axis):
    if axis is None:
        return None
    if type(axis) is int:
        return [axis]
    if isinstance(axis, (tuple, list)):
        return [operator.index(x) for x in axis]
    return [operator.index(axis)]


def _dtype(dtype):
    return None if dtype is None else _dtypes.name_of(dtype)


def _out(out):
    if out is None:
        return None
    if not isinstance(out, _ember.ndarray):
        raise TypeError(f"out must be an ember.ndarray, got {type(out).__name__}")
    return out._a


def _run(call, *args):
    """Calls the native reduction; an out-of-range axis becomes NumPy's AxisError (a
    ValueError and an IndexError)."""
    try:
        return call(*args)
    except ValueError as e:
        if "is out of bounds for array of dimension" in str(e):
            raise np.exceptions.AxisError(str(e)) from None
        raise


def _reduce(op, a, axis, dtype, out, keepdims, ddof=0):
    a = _array(a, op)
    if a.ndim == 0 and op in ("mean", "var", "std") and axis is not None:
        # NumPy's ufunc reductions accept axis 0 of a 0-d array; its mean/var/std do not.
        axes = axis if isinstance(axis, tuple) else (axis,)
        if axes:
            raise np.exceptions.AxisError(axes[0], 0)
    native = _run(_ember.reduce, op, a._a, _axes(axis), _dtype(dtype), _out(out), bool(keepdims), float(ddof))
    return out if out is not None else _ember.wrap(native)


def sum(a, axis=None, dtype=None, out=None, keepdims=False):
    """Sum of elements over ``axis`` (integers and bools in 64 bits unless ``dtype`` says)."""
    return _reduce("sum", a, axis, dtype, out, keepdims)


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """Product of elements over ``axis``."""
    return _reduce("prod", a, axis, dtype, out, keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Arithmetic mean over ``axis`` (float64 for integer inputs)."""
    return _reduce("mean", a, axis, dtype, out, keepdims)


def _ddof(ddof, correction):
    """The Array API's ``correction`` is NumPy's ``ddof`` (one of them, not both)."""
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
    """Variance over ``axis``, dividing by ``N - ddof`` (real for complex inputs)."""
    return _reduce("var", a, axis, dtype, out, keepdims, _ddof(ddof, correction))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
    """Standard deviation over ``axis``, dividing by ``N - ddof``."""
    return _reduce("std", a, axis, dtype, out, keepdims, _ddof(ddof, correction))


def max(a, axis=None, out=None, keepdims=False):
    """Largest element over ``axis``; NaN if any is NaN."""
    return _reduce("max", a, axis, None, out, keepdims)


def min(a, axis=None, out=None, keepdims=False):
    """Smallest element over ``axis``; NaN if any is NaN."""
    return _reduce("min", a, axis, None, out, keepdims)


amax, amin = max, min


def _arg(op, a, axis, out, keepdims):
    a = _array(a, op)
    axes = None if axis is None else [operator.index(axis)]
    native = _run(_ember.reduce, op, a._a, axes, None, _out(out), bool(keepdims), 0.0)
    return out if out is not None else _ember.wrap(native)


def argmax(a, axis=None, out=None, *, keepdims=False, dtype=None):
    """Index of the first largest element (of the first NaN, if any), as int64 (or CuPy's
    ``dtype``, keyword only: NumPy's third argument is ``out``); of the flattened array when
    ``axis`` is None."""
    return _index_dtype(_arg("argmax", a, axis, out, keepdims), dtype, out)


def argmin(a, axis=None, out=None, *, keepdims=False, dtype=None):
    """Index of the first smallest element (of the first NaN, if any), as int64 (or
    ``dtype``, as ``argmax``)."""
    return _index_dtype(_arg("argmin", a, axis, out, keepdims), dtype, out)


def _index_dtype(result, dtype, out):
    if dtype is None or out is not None:
        return result
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"the dtype of argmax/argmin indices must be an integer type, not {dtype}")
    return result.astype(dtype)


def any(a, axis=None, out=None, keepdims=False):
    """Whether any element over ``axis`` is non-zero (NaN counts as non-zero)."""
    return _reduce("any", a, axis, None, out, keepdims)


def all(a, axis=None, out=None, keepdims=False):
    """Whether every element over ``axis`` is non-zero."""
    return _reduce("all", a, axis, None, out, keepdims)


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along ``axis`` (of the flattened array when ``axis`` is None)."""
    a = _array(a, "cumsum")
    ax = None if axis is None else operator.index(axis)
    native = _run(_ember.cumulate, "sum", a._a, ax, _dtype(dtype), _out(out))
    return out if out is not None else _ember.wrap(native)


def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along ``axis`` (of the flattened array when ``axis`` is None)."""
    a = _array(a, "cumprod")
    ax = None if axis is None else operator.index(axis)
    native = _run(_ember.cumulate, "prod", a._a, ax, _dtype(dtype), _out(out))
    return out if out is not None else _ember.wrap(native)
