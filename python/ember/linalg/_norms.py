"""``ember.linalg``: NumPy's ``numpy.linalg`` norms, singular values, rank and products, and the
Array API's ``linalg`` extension (``vector_norm matrix_norm vecdot matrix_transpose outer cross
diagonal trace tensordot matmul svdvals``), on ember arrays.

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

from .. import _ember
from .._creation import ascontiguousarray, zeros
from .._indexing import where
from .._linalg import _array
from .._ndarray import ndarray
from .._shape import concatenate, moveaxis, swapaxes
from .._ufuncs import UFUNCS

__all__ = [
    "cross", "diagonal", "matmul", "matrix_norm", "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer",
    "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]

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


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2) -> ndarray:
    """The Array API's vector norm: over every axis (the flattened array) by default, over
    ``axis`` (an int or a tuple of ints) otherwise."""
    x = _array(x, "linalg.vector_norm")
    if x.dtype.kind not in "fc":
        x = x.astype(np.float64)
    if axis is None:
        value = _vector_norm(x.reshape(-1), ord, (0,), False)
        return value.reshape([1] * x.ndim) if keepdims else value
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(normalize_axis_index(operator.index(a), x.ndim) for a in axes)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    # Several axes: moved last and flattened into one.
    rest = [a for a in range(x.ndim) if a not in axes]
    moved = moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim)))
    flat = moved.reshape(tuple(x.shape[a] for a in rest) + (-1,))
    value = _vector_norm(flat, ord, (flat.ndim - 1,), False)
    if keepdims:
        value = value.reshape(tuple(1 if a in axes else x.shape[a] for a in range(x.ndim)))
    return value


def matrix_norm(x, /, *, keepdims=False, ord="fro") -> ndarray:
    """The Array API's matrix norm over the last two axes."""
    x = _array(x, "linalg.matrix_norm")
    if x.ndim < 2:
        raise np.exceptions.AxisError(-2, x.ndim)
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def svdvals(x, /) -> ndarray:
    """The singular values of each matrix (last two axes), largest first (one-sided Jacobi on
    the device, as ``norm(ord=2)`` computes them)."""
    from .._sorting import sort

    x = _array(x, "linalg.svdvals")
    if x.ndim < 2:
        raise np.linalg.LinAlgError(
            f"{x.ndim}-dimensional array given. Array must be at least two-dimensional")
    if x.dtype.kind not in "fc":
        x = x.astype(np.float64)
    sv = sort(_singular_values(x, x.ndim - 2, x.ndim - 1), axis=-1)[..., ::-1]
    # A complex matrix's real form has each singular value twice.
    return sv[..., ::2] if x.dtype.kind == "c" else sv


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None) -> ndarray:
    """The number of singular values above ``tol`` (by default ``S.max() * max(M, N) * eps``,
    or ``S.max() * rtol``), as NumPy counts them."""
    a = _array(A, "linalg.matrix_rank")
    if a.ndim < 2:
        return UFUNCS["not_equal"](a, 0).any().astype(np.int64)
    s = svdvals(a)
    if tol is None:
        if rtol is None:
            rtol = max(a.shape[-2:]) * np.finfo(s.dtype).eps
        limit = s.max(axis=-1, keepdims=True) * _array(rtol, "rtol")[..., None]
    else:
        limit = _array(tol, "tol")[..., None]
    return UFUNCS["greater"](s, limit).sum(axis=-1)


def multi_dot(arrays, *, out=None) -> ndarray:
    """The product of a chain of matrices in the cheapest order (NumPy's dynamic program over
    the products' costs); the first and last may be vectors."""
    from .._linalg import matmul as _matmul

    arrays = [_array(a, "linalg.multi_dot") for a in arrays]
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    first, last = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if first:
        arrays[0] = arrays[0].reshape(1, -1)
    if last:
        arrays[-1] = arrays[-1].reshape(-1, 1)
    for a in arrays:
        if a.ndim != 2:
            raise np.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    dims = [arrays[0].shape[0]] + [a.shape[1] for a in arrays]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i, j):
        if i == j:
            return arrays[i]
        return _matmul(product(i, split[i][j]), product(split[i][j] + 1, j))

    result = product(0, n - 1)
    if first and last:
        result = result.reshape(())
    elif first:
        result = result.reshape(-1)
    elif last:
        result = result.reshape(-1)
    if out is not None:
        out[...] = result
        return out
    return result


def vecdot(x1, x2, /, *, axis=-1) -> ndarray:
    """``sum(conj(x1) * x2)`` along ``axis`` (broadcast), the Array API's ``vecdot``."""
    from .._array_api import vecdot as _vecdot

    return _vecdot(x1, x2, axis=axis)


def matrix_transpose(x, /) -> ndarray:
    """The last two axes swapped."""
    from .._manipulation import matrix_transpose as _transpose

    return _transpose(_array(x, "linalg.matrix_transpose"))


def outer(x1, x2, /) -> ndarray:
    """The outer product of two vectors (1-d only, as NumPy's ``linalg.outer``)."""
    from .._linalg import outer as _outer

    a, b = _array(x1, "linalg.outer"), _array(x2, "linalg.outer")
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(
            f"Input arrays must be one-dimensional, but they are x1.ndim={a.ndim} and x2.ndim={b.ndim}.")
    return _outer(a, b)


def cross(x1, x2, /, *, axis=-1) -> ndarray:
    """The cross product of 3-vectors along ``axis``."""
    from .._calculus import cross as _cross

    a, b = _array(x1, "linalg.cross"), _array(x2, "linalg.cross")
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they are {a.shape[axis]} and {b.shape[axis]} dimensional instead.")
    return _cross(a, b, axis=axis)


def diagonal(x, /, *, offset=0) -> ndarray:
    """The diagonals of the matrices of the last two axes."""
    from .._diagonals import diagonal as _diagonal

    return _diagonal(_array(x, "linalg.diagonal"), offset, -2, -1)


def trace(x, /, *, offset=0, dtype=None) -> ndarray:
    """The sums of the diagonals of the matrices of the last two axes."""
    from .._diagonals import trace as _trace

    return _trace(_array(x, "linalg.trace"), offset, -2, -1, dtype)


def tensordot(x1, x2, /, *, axes=2) -> ndarray:
    """NumPy's ``tensordot``."""
    from .._contractions import tensordot as _tensordot

    return _tensordot(x1, x2, axes)


def matmul(x1, x2, /) -> ndarray:
    """NumPy's ``matmul``."""
    from .._linalg import matmul as _matmul

    return _matmul(x1, x2)
