"""Linear systems and what is computed from an LU factorization: ``solve inv det slogdet
tensorsolve tensorinv matrix_power``, and from singular values: ``lstsq pinv cond``.

Stacks of matrices (``(..., M, M)``) are factored in one call (batched on the device). NumPy's
errors: ``LinAlgError('Singular matrix')`` where the LU factorization finds an exactly zero
pivot (read after the solve: one host read), NumPy's messages for shapes. Single precision
stays single on the device (see ``_lapack.common_type``).
"""

from __future__ import annotations

import math
import operator
from collections import namedtuple

import numpy as np

from .. import _ember
from .._creation import arange, asarray, ascontiguousarray, empty, zeros
from .._indexing import where
from .._linalg import _array, matmul
from .._ndarray import _wrap, ndarray
from .._shape import broadcast_to, swapaxes
from .._triangles import eye
from .._ufuncs import UFUNCS
from . import _lapack
from ._lapack import LinAlgError, common_type, from_columns, stacked_square, to_columns

SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])

_abs, _log, _isnan = UFUNCS["absolute"], UFUNCS["log"], UFUNCS["isnan"]


def _lu(a: ndarray, compute: np.dtype):
    """``a``'s matrices factored: the column-major stack, pivots and info (device arrays)."""
    lu = to_columns(a, compute)
    pivots, info = _lapack.getrf(lu)
    return lu, pivots, info


def _solve_columns(a: ndarray, b: ndarray, compute: np.dtype) -> ndarray:
    """``X`` with ``A X = B`` for each matrix of ``a`` (``(batch, n, n)``) and ``b`` (``(batch,
    n, k)``), as a ``(batch, k, n)`` column-major stack; raises for a singular matrix."""
    lu, pivots, info = _lu(a, compute)
    x = to_columns(b, compute)
    _lapack.getrs(lu, pivots, x)
    if _lapack.failed(info):
        raise LinAlgError("Singular matrix")
    return x


def solve(a, b) -> ndarray:
    """Solves ``a @ x = b`` (NumPy 2: ``b`` is a stack of vectors only when it is 1-d)."""
    a, b = _array(a, "linalg.solve"), _array(b, "linalg.solve")
    stacked_square(a)
    compute, result = common_type(a, b)
    vector = b.ndim == 1
    rhs = b[:, None] if vector else b
    if rhs.ndim < 2:
        raise ValueError("solve: Input operand 1 does not have enough dimensions (has 0, gufunc core "
                         "with signature (m,m),(m)->(m) requires 1)")
    n = a.shape[-1]
    if rhs.shape[-2] != n:
        signature, dim = ("(m,m),(m)->(m)", 0) if vector else ("(m,m),(m,n)->(m,n)", 0)
        raise ValueError(f"solve: Input operand 1 has a mismatch in its core dimension {dim}, with gufunc "
                         f"signature {signature} (size {rhs.shape[-2]} is different from {n})")
    batch = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
    k = rhs.shape[-1]
    if math.prod(batch) * n * k == 0:
        if math.prod(batch) * n and _lapack.failed(_lu(broadcast_to(a, batch + (n, n)), compute)[2]):
            raise LinAlgError("Singular matrix")  # as NumPy 2.4 does with no right-hand side
        out = zeros(batch + (n, k), dtype=result)
    else:
        x = _solve_columns(broadcast_to(a, batch + (n, n)), broadcast_to(rhs, batch + (n, k)), compute)
        out = from_columns(x, batch, result)
    return out[..., 0] if vector else out


def inv(a) -> ndarray:
    """The inverse of each matrix; ``LinAlgError('Singular matrix')`` where one has none."""
    a = _array(a, "linalg.inv")
    stacked_square(a)
    compute, result = common_type(a)
    batch, n = a.shape[:-2], a.shape[-1]
    if math.prod(batch) * n == 0:
        return empty(a.shape, dtype=result)
    if n <= _ember.LAPACK_INVERSE_LARGEST:
        # Small matrices: Gauss-Jordan, every matrix in one launch.
        stack = ascontiguousarray(a.astype(compute, copy=False)).reshape((-1, n, n))
        x, info = _ember.lapack_inverse(stack._a)
        if _lapack.failed(info):
            raise LinAlgError("Singular matrix")
        return _wrap(x).reshape(a.shape).astype(result, copy=False)
    identity = broadcast_to(eye(n, dtype=compute), batch + (n, n))
    return from_columns(_solve_columns(a, identity, compute), batch, result)


def _lu_diagonal(a: ndarray):
    """The diagonal of U (``(batch..., n)``) and the parity of the row interchanges (bool)
    of each matrix of ``a``, in ``a``'s compute dtype."""
    compute, result = common_type(a)
    batch, n = a.shape[:-2], a.shape[-1]
    lu, pivots, _ = _lu(a, compute)
    diagonal = lu.diagonal(axis1=-2, axis2=-1).reshape(batch + (n,))
    moved = _wrap(pivots) != arange(1, n + 1, dtype=np.int32)
    odd = (moved.sum(axis=-1) % 2 == 1).reshape(batch)
    return diagonal, odd, result


def det(a) -> ndarray:
    """The determinant of each matrix: the product of U's diagonal, signed by the pivots."""
    a = _array(a, "linalg.det")
    stacked_square(a)
    _, result = common_type(a)
    if a.shape[-1] == 0 or 0 in a.shape[:-2]:
        return UFUNCS["add"](zeros(a.shape[:-2], dtype=result), 1)
    diagonal, odd, result = _lu_diagonal(a)
    product = diagonal.prod(axis=-1)
    return where(odd, -product, product).astype(result, copy=False)


def slogdet(a) -> SlogdetResult:
    """``(sign, logabsdet)`` of each matrix (sign 0 and logabsdet -inf when it is singular)."""
    a = _array(a, "linalg.slogdet")
    stacked_square(a)
    _, result = common_type(a)
    real = _lapack.real_of(result)
    if a.shape[-1] == 0 or 0 in a.shape[:-2]:
        ones = UFUNCS["add"](zeros(a.shape[:-2], dtype=result), 1)
        return SlogdetResult(ones, zeros(a.shape[:-2], dtype=real))
    diagonal, odd, result = _lu_diagonal(a)
    magnitude = _abs(diagonal)
    units = where(magnitude == 0, 0, diagonal / where(magnitude == 0, 1, magnitude))
    sign = units.prod(axis=-1)
    sign = where(odd, -sign, sign)
    logdet = _log(magnitude).sum(axis=-1)
    return SlogdetResult(sign.astype(result, copy=False), logdet.astype(real, copy=False))


def tensorsolve(a, b, axes=None) -> ndarray:
    """``x`` with ``tensordot(a, x, axes=x.ndim) == b`` (NumPy's reshaping to one system)."""
    a, b = _array(a, "linalg.tensorsolve"), _array(b, "linalg.tensorsolve")
    an = a.ndim
    if axes is not None:
        order = list(range(an))
        for k in axes:
            order.remove(k)
            order.insert(an, k)
        a = a.transpose(order)
    old = a.shape[-(an - b.ndim):]
    prod = math.prod(old)
    if a.size != prod**2:
        raise LinAlgError("Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == "
                          "prod(a.shape[:b.ndim])")
    return solve(a.reshape((prod, prod)), b.ravel()).reshape(old)


def tensorinv(a, ind=2) -> ndarray:
    """The inverse of ``a`` as a tensor: ``tensordot(tensorinv(a), a, ind)`` is the identity."""
    a = _array(a, "linalg.tensorinv")
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    old = a.shape
    inverse_shape = old[ind:] + old[:ind]
    return inv(a.reshape((math.prod(old[ind:]), -1))).reshape(inverse_shape)


def matrix_power(a, n) -> ndarray:
    """``a`` raised to the integer power ``n`` (negative: of its inverse), by squaring."""
    a = _array(a, "linalg.matrix_power")
    stacked_square(a)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        return ascontiguousarray(broadcast_to(eye(a.shape[-1], dtype=a.dtype), a.shape))
    if n < 0:
        a, n = inv(a), -n
    result = z = None
    while n > 0:
        z = a if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


def _svd(a, full: bool):
    from ._decompositions import svd

    return svd(a, full_matrices=full)


def lstsq(a, b, rcond=None):
    """``(x, residuals, rank, s)``: the least-squares solution of ``a @ x = b`` by the SVD of
    ``a``, singular values below ``rcond * s.max()`` taken as zero. ``rcond`` defaults to
    ``eps * max(M, N)`` of the compute dtype (CuPy's rule; NumPy takes float64's eps always)."""
    a, b = _array(a, "linalg.lstsq"), _array(b, "linalg.lstsq")
    vector = b.ndim == 1
    rhs = b[:, None] if vector else b
    for x in (a, rhs):
        if x.ndim != 2:
            raise LinAlgError(f"{x.ndim}-dimensional array given. Array must be two-dimensional")
    m, n = a.shape
    if rhs.shape[0] != m:
        raise LinAlgError("Incompatible dimensions")
    compute, result = common_type(a, b)
    real = _lapack.real_of(result)
    if rcond is None:
        rcond = np.finfo(compute).eps * max(m, n)
    elif rcond < 0:  # LAPACK's xGELSD: machine precision
        rcond = np.finfo(compute).eps
    k = min(m, n)
    if k == 0:
        x = zeros((n, rhs.shape[1]), dtype=result)
        s = zeros((0,), dtype=real)
        rank = 0
    else:
        u, s, vh = _svd(a.astype(compute, copy=False), False)
        cutoff = rcond * s.max()
        large = s > cutoff
        rank = int(large.sum())  # (int32 below, as LAPACK reports it and NumPy returns it)
        inverse = where(large, 1 / where(large, s, 1), 0).astype(compute, copy=False)
        uhb = matmul(swapaxes(u, 0, 1).conj(), rhs.astype(compute, copy=False))
        x = matmul(swapaxes(vh, 0, 1).conj(), inverse[:, None] * uhb).astype(result, copy=False)
        s = s.astype(real, copy=False)
    if rank == n and m > n:
        residual = matmul(a.astype(result, copy=False), x) - rhs
        residuals = (_abs(residual) ** 2).sum(axis=0).astype(real, copy=False)
    else:
        residuals = empty((0,), dtype=real)
    return (x[:, 0] if vector else x), residuals, np.int32(rank), s


class _NoValue:
    """NumPy's marker of an argument not given (``pinv``'s ``rtol``)."""


def pinv(a, rcond=None, hermitian=False, *, rtol=_NoValue) -> ndarray:
    """The Moore-Penrose pseudo-inverse of each matrix, by its SVD; singular values at most
    ``rcond`` times the largest are dropped (NumPy 2's ``rcond``/``rtol`` defaults)."""
    a = _array(a, "linalg.pinv")
    if rcond is None:
        if rtol is _NoValue:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * np.finfo(common_type(a)[0]).eps
        else:
            rcond = rtol
    elif rtol is not _NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    _lapack.stacked_2d(a)
    m, n = a.shape[-2:]
    compute, result = common_type(a)
    if m * n == 0:
        return empty(a.shape[:-2] + (n, m), dtype=a.dtype)  # a's dtype, as NumPy's
    from ._decompositions import svd

    u, s, vh = svd(a.astype(compute, copy=False), full_matrices=False, hermitian=hermitian)
    cutoff = asarray(rcond)[..., None] * s.max(axis=-1, keepdims=True)
    large = s > cutoff
    inverse = where(large, 1 / where(large, s, 1), 0).astype(compute, copy=False)
    product = matmul(swapaxes(vh, -1, -2).conj(), inverse[..., None] * swapaxes(u, -1, -2).conj())
    return product.astype(result, copy=False)


def cond(x, p=None) -> ndarray:
    """The condition number of each matrix in norm ``p`` (NumPy's ``cond``: from singular
    values for ``None``/2/-2, else ``norm(x, p) * norm(inv(x), p)``; inf for a singular
    matrix without NaN)."""
    from ._decompositions import svd
    from ._norms import norm

    x = _array(x, "linalg.cond")
    _lapack.stacked_2d(x)
    if x.size == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or p in (2, -2):
        s = svd(x, compute_uv=False)
        r = s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    else:
        stacked_square(x)
        compute, result = common_type(x)
        real = _lapack.real_of(result)
        # One factorization and no status read: singular matrices' inverses are NaN, and
        # their condition numbers inf below.
        inverse = _singular_safe_inverse(x, compute)
        r = (norm(x, p, axis=(-2, -1)) * norm(inverse, p, axis=(-2, -1))).astype(real, copy=False)
    has_nan = _isnan(x).any(axis=(-2, -1))
    return where(_isnan(r) & ~has_nan, np.inf, r)


def _singular_safe_inverse(x: ndarray, compute: np.dtype) -> ndarray:
    """The inverse of each matrix, NaN-filled where one is singular (NumPy's ``inv`` under
    ``errstate(all='ignore')``, as ``cond`` calls it)."""
    batch, n = x.shape[:-2], x.shape[-1]
    lu, pivots, info = _lu(x, compute)
    columns = to_columns(broadcast_to(eye(n, dtype=compute), batch + (n, n)), compute)
    _lapack.getrs(lu, pivots, columns)
    singular = (_wrap(info) != 0).reshape(batch + (1, 1))
    return where(singular, np.nan, from_columns(columns, batch))
