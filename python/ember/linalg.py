"""``ember.linalg``: NumPy's ``numpy.linalg.norm`` on ember arrays.

Norms are composed from ember's ufuncs and reductions, so they run on the device and follow
NumPy's dtype rules: integer inputs are taken as float64; complex inputs give real norms;
float32 and float16 stay in their precision. Results are ember arrays (0-d for a single norm).
Matrix norms from singular values (``ord=2``, ``-2``, ``'nuc'``) compute them on the device by
one-sided Jacobi sweeps; whether a sweep is the last, and whether a matrix holds NaN (NumPy
raises ``LinAlgError`` then), are read on the host: one int per sweep, one bool per call. A
complex matrix is taken in its real form, twice as large each way.
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from . import _ember
from ._creation import ascontiguousarray, zeros
from ._indexing import where
from ._linalg import _array
from ._ndarray import ndarray
from ._shape import concatenate, moveaxis, swapaxes
from ._ufuncs import UFUNCS

__all__ = ["norm"]

_abs, _sqrt, _square, _power = UFUNCS["absolute"], UFUNCS["sqrt"], UFUNCS["square"], UFUNCS["power"]


def _squared_magnitude(x: ndarray) -> ndarray:
    """``|x|²`` elementwise, real."""
    return _square(_abs(x) if x.dtype.kind == "c" else x)


def _max0(y: ndarray, axis, keepdims: bool = False) -> ndarray:
    """``y.max(axis, initial=0)`` of a non-negative ``y``, as NumPy 2's norms take it: an
    empty reduced axis gives 0."""
    axes = (axis,) if isinstance(axis, int) else axis
    if all(y.shape[a] for a in axes):
        return y.max(axis=axis, keepdims=keepdims)
    shape = [1 if a in axes else n for a, n in enumerate(y.shape)] if keepdims else [
        n for a, n in enumerate(y.shape) if a not in axes]
    return zeros(tuple(shape), dtype=y.dtype)


def _vector_norm(x: ndarray, ord, axis: tuple, keepdims: bool) -> ndarray:
    if ord is None or ord == 2:
        return _sqrt(_squared_magnitude(x).sum(axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == np.inf:
        return _max0(_abs(x), axis, keepdims)
    if ord == -np.inf:
        return _abs(x).min(axis=axis, keepdims=keepdims)
    if ord == 0:
        real = np.finfo(x.dtype).dtype
        return UFUNCS["not_equal"](x, 0).astype(real).sum(axis=axis, keepdims=keepdims)
    if ord == 1:
        return _abs(x).sum(axis=axis, keepdims=keepdims)
    total = _power(_abs(x), float(ord)).sum(axis=axis, keepdims=keepdims)
    return _power(total, 1.0 / float(ord))


def _singular_values(x: ndarray, row_axis: int, col_axis: int) -> ndarray:
    """The singular values of each matrix of ``x`` over ``(row_axis, col_axis)``, computed on
    the device by one-sided Jacobi: shape = the other axes + ``(min(rows, cols),)``, in any
    order. A complex matrix ``X + iY`` is taken in its real form ``[[X, -Y], [Y, X]]``, which
    has each of its singular values twice."""
    if x.dtype == np.float16:
        raise TypeError("array type float16 is unsupported in linalg")
    a = moveaxis(x, (row_axis, col_axis), (-2, -1))
    if a.dtype.kind == "c":
        re, im = a.real, a.imag
        a = concatenate([concatenate([re, -im], axis=-1), concatenate([im, re], axis=-1)], axis=-2)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    if k == 0 or 0 in batch:
        return zeros(batch + (k,), dtype=a.dtype)
    # Jacobi rotates k columns as long as the other side: the matrix or its transpose, one
    # column after another in memory.
    w = a if m < n else swapaxes(a, -1, -2)
    # Scaled to at most 1 in magnitude: the squared sums neither overflow nor underflow early.
    scale = _abs(w).max(axis=(-2, -1), keepdims=True)
    if bool(UFUNCS["isnan"](scale).any()):  # one host read, as NumPy raises for NaN
        raise np.linalg.LinAlgError("SVD did not converge")
    finite = UFUNCS["isfinite"](scale)
    w = where(finite, w / where(finite & (scale > 0), scale, 1), 0)
    w = ascontiguousarray(w.reshape((-1,) + w.shape[-2:]))
    if not _ember.orthogonalize_columns(w._a):
        raise np.linalg.LinAlgError("SVD did not converge")
    # Column norms, each column scaled by its largest entry first: a tiny singular value must
    # not underflow in its square.
    peak = _abs(w).max(axis=-1, keepdims=True)
    norms = _sqrt(_square(w / where(peak > 0, peak, 1)).sum(axis=-1)) * peak.reshape(peak.shape[:-1])
    sv = norms.reshape(batch + (k,)) * scale.reshape(batch + (1,))
    # An infinite entry makes every singular value NaN, as in NumPy.
    return where(finite.reshape(batch + (1,)), sv, np.nan)


def _matrix_norm(x: ndarray, ord, axis: tuple, keepdims: bool) -> ndarray:
    row_axis, col_axis = (normalize_axis_index(operator.index(a), x.ndim) for a in axis)
    if row_axis == col_axis:
        raise ValueError("Duplicate axes given.")
    if ord in (2, -2, "nuc"):
        sv = _singular_values(x, row_axis, col_axis)
        if ord == 2:
            value = _max0(sv, sv.ndim - 1)
        elif ord == -2:
            value = sv.min(axis=-1)
        else:
            # A complex matrix's real form has each singular value twice.
            value = sv.sum(axis=-1) * (0.5 if x.dtype.kind == "c" else 1.0)
    elif ord == 1 or ord == -1:
        sums = _abs(x).sum(axis=row_axis)
        col = col_axis - 1 if col_axis > row_axis else col_axis
        value = _max0(sums, col) if ord == 1 else sums.min(axis=col)
    elif ord == np.inf or ord == -np.inf:
        sums = _abs(x).sum(axis=col_axis)
        row = row_axis - 1 if row_axis > col_axis else row_axis
        value = _max0(sums, row) if ord == np.inf else sums.min(axis=row)
    elif ord is None or ord in ("fro", "f"):
        value = _sqrt(_squared_magnitude(x).sum(axis=(row_axis, col_axis)))
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[row_axis] = shape[col_axis] = 1
        value = value.reshape(shape)
    return value


def norm(x, ord=None, axis=None, keepdims=False) -> ndarray:
    """Matrix or vector norm (NumPy's ``numpy.linalg.norm``).

    ``ord`` for vectors: None/2 (Euclidean), ``inf``, ``-inf``, 0 (count of non-zeros), 1, or
    any other number p (``sum(|x|**p)**(1/p)``); for matrices: None/``'fro'``, 1, -1, ``inf``,
    ``-inf``, 2 (largest singular value), -2 (smallest), ``'nuc'`` (their sum). ``axis`` (an
    int for vector norms, a pair for matrix norms) and ``keepdims`` as in NumPy; with
    ``axis=None`` a 1-d array gets a vector norm and a 2-d one a matrix norm,
    and ``ord=None`` gives the 2-norm of the flattened array of any shape.
    """
    x = _array(x, "linalg.norm")
    if x.dtype.kind not in "fc":
        x = x.astype(np.float64)
    nd = x.ndim
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            value = _sqrt(_squared_magnitude(x).sum())
            return value.reshape([1] * nd) if keepdims else value
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = (operator.index(axis),)
        except TypeError as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
    if len(axis) == 1:
        return _vector_norm(x, ord, axis, keepdims)
    if len(axis) == 2:
        return _matrix_norm(x, ord, axis, keepdims)
    raise ValueError("Improper number of dimensions to norm.")
