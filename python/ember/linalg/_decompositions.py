"""Factorizations, as ``numpy.linalg`` returns them: ``cholesky qr eigh eigvalsh eig eigvals
svd``, for stacks of matrices, on the device (``_lapack``).

NumPy's results and errors: named tuples (``QRResult``, ``EighResult``, ``EigResult``,
``SVDResult``), ``LinAlgError`` with NumPy's messages where LAPACK reports a matrix that is not
positive definite or an iteration that did not converge (one host read of the status), ``eig``
complex for real matrices too (NumPy 2.5's and CuPy's rule). Differences: single precision stays single
(as in CuPy); ``eigh``/``eigvalsh`` take float16 (computed in float32, as CuPy does).
"""

from __future__ import annotations

import math
import warnings
from collections import namedtuple

import numpy as np

from .. import _ember
from .._creation import asarray, empty, zeros
from .._index_tricks import take_along_axis
from .._linalg import _array
from .._ndarray import _wrap, ndarray
from .._shape import swapaxes
from .._sorting import argsort, sort
from .._triangles import triu
from .._ufuncs import UFUNCS
from ..errors import BackendUnavailableError
from . import _lapack
from ._lapack import LinAlgError, common_type, from_columns, real_of, stacked_2d, stacked_square, to_columns

QRResult = namedtuple("QRResult", ["Q", "R"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])

_abs = UFUNCS["absolute"]


def cholesky(a, /, *, upper=False) -> ndarray:
    """The Cholesky factor of each Hermitian positive-definite matrix: lower ``L`` with ``a =
    L @ L.H``, or with ``upper`` the ``U = L.H``; only that triangle of ``a`` is read."""
    a = _array(a, "linalg.cholesky")
    stacked_square(a)
    compute, result = common_type(a)
    if a.size == 0:
        return empty(a.shape, dtype=result)
    # Column-major copies both ways: cuSOLVER's lower factor runs 1.6x faster than its upper
    # one (8,192 float64 on an H200: 9.2 against 14.6 ms), which the row-major buffer as it
    # is (A^T) would need.
    factor = to_columns(a, compute)
    info = _lapack.potrf(factor, not upper)
    if _lapack.failed(info):
        raise LinAlgError("Matrix is not positive definite")
    # The triangle taken straight from the column-major factor: one transposing pass makes
    # the C-ordered result and zeroes the other triangle.
    factor = _wrap(_ember.lapack_triangle(factor._a, not upper)).reshape(a.shape)
    return factor.astype(result, copy=False)


_QR_MODES = ("reduced", "complete", "r", "raw")


def qr(a, mode="reduced"):
    """The QR factorization of each matrix, NumPy's modes: ``'reduced'`` (Q ``(..., M, K)``, R
    ``(..., K, N)``, ``K = min(M, N)``), ``'complete'`` (Q ``(..., M, M)``), ``'r'`` (R
    alone), ``'raw'`` (LAPACK's Householder reflectors ``h`` ``(..., N, M)`` and ``tau``)."""
    if mode not in _QR_MODES:
        if mode in ("f", "full"):
            warnings.warn("The 'full' option is deprecated in favor of 'reduced'.\nFor backward "
                          "compatibility let mode default.", DeprecationWarning, stacklevel=2)
            mode = "reduced"
        elif mode in ("e", "economic"):
            warnings.warn("The 'economic' option is deprecated.", DeprecationWarning, stacklevel=2)
            mode = "economic"
        else:
            raise ValueError(f"Unrecognized mode '{mode}'")
    a = _array(a, "linalg.qr")
    stacked_2d(a)
    compute, result = common_type(a)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    columns = m if mode == "complete" and m > n else k
    if math.prod(batch) * m * n == 0:
        return _empty_qr(mode, batch, m, n, k, columns, result)
    h = to_columns(a, compute)
    tau = _lapack.geqrf(h)
    factored = from_columns(h, batch)
    if mode == "r":
        return triu(factored[..., :k, :]).astype(result, copy=False)
    if mode == "raw":
        return (h.reshape(batch + (n, m)).astype(result, copy=False),
                tau.reshape(batch + (k,)).astype(result, copy=False))
    if mode == "economic":
        return factored.astype(result, copy=False)
    q = zeros((h.shape[0], columns, m), dtype=compute)
    q[:, :k, :] = h[:, :k, :]
    _lapack.orgqr(q, tau)
    r = triu(factored[..., :columns, :])
    return QRResult(from_columns(q, batch, result), r.astype(result, copy=False))


def _empty_qr(mode, batch, m, n, k, columns, result):
    if mode == "r":
        return zeros(batch + (k, n), dtype=result)
    if mode == "raw":
        return zeros(batch + (n, m), dtype=result), zeros(batch + (k,), dtype=result)
    if mode == "economic":
        return zeros(batch + (m, n), dtype=result)
    q = zeros(batch + (m, columns), dtype=result)
    if m and columns:  # the identity's first columns
        q[..., range(min(m, columns)), range(min(m, columns))] = 1
    return QRResult(q, zeros(batch + (columns, n), dtype=result))


def _uplo(UPLO) -> bool:
    """Whether ``UPLO`` names the lower triangle (NumPy's check)."""
    UPLO = UPLO.upper()
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO == "L"


def _eigh(a, UPLO, vectors: bool, name: str):
    lower = _uplo(UPLO)
    a = _array(a, name)
    stacked_square(a)
    compute, result = common_type(a, float16=True)
    batch, n = a.shape[:-2], a.shape[-1]
    real = real_of(result)
    if a.size == 0:
        return empty(batch + (n,), dtype=real), empty(a.shape, dtype=result)
    v = to_columns(a, compute)
    v, unscale = _lapack.scaled(v)
    w, info = _lapack.syevd(v, lower, vectors)
    if unscale is not None:
        w = w * unscale[:, None].astype(w.dtype)
    if _lapack.failed(info):
        raise LinAlgError("Eigenvalues did not converge")
    w = w.reshape(batch + (n,)).astype(real, copy=False)
    return w, (from_columns(v, batch, result) if vectors else None)


def eigh(a, UPLO="L") -> EighResult:
    """Eigenvalues (ascending) and orthonormal eigenvectors (columns) of each Hermitian
    matrix, reading only its ``UPLO`` triangle."""
    return EighResult(*_eigh(a, UPLO, True, "linalg.eigh"))


def eigvalsh(a, UPLO="L") -> ndarray:
    """Eigenvalues (ascending) of each Hermitian matrix, reading only its ``UPLO`` triangle."""
    return _eigh(a, UPLO, False, "linalg.eigvalsh")[0]


def _finite(a: ndarray) -> None:
    if a.size and not bool(UFUNCS["isfinite"](a).all()):
        raise LinAlgError("Array must not contain infs or NaNs")


def _eig(a, vectors: bool, name: str):
    a = _array(a, name)
    stacked_square(a)
    _finite(a)
    compute, result = common_type(a)
    batch, n = a.shape[:-2], a.shape[-1]
    complex_ = np.result_type(result, np.complex64)
    if a.size == 0:
        return empty(batch + (n,), dtype=complex_), empty(a.shape, dtype=complex_)
    try:
        w, v, info = _lapack.geev(to_columns(a, compute), vectors)
    except BackendUnavailableError:
        return _host_eig(a, compute, complex_, vectors)
    if _lapack.failed(info):
        raise LinAlgError("Eigenvalues did not converge")
    # Complex always, as NumPy 2.5 and CuPy return them (NumPy 2.4 made them real when every
    # eigenvalue was: that needed a host read).
    w = w.reshape(batch + (n,)).astype(complex_, copy=False)
    return w, (from_columns(v, batch, complex_) if vectors else None)


def _host_eig(a: ndarray, compute, complex_, vectors: bool):
    """``eig`` by NumPy's LAPACK on the host, for devices without cuSOLVER's ``xGEEV`` (ember
    has no kernel for general eigenproblems): one copy each way."""
    host = a.get().astype(compute)
    if vectors:
        w, v = np.linalg.eig(host)
        return asarray(w.astype(complex_)), asarray(v.astype(complex_))
    return asarray(np.linalg.eigvals(host).astype(complex_)), None


def eig(a) -> EigResult:
    """Eigenvalues and right eigenvectors (columns, unit norm) of each square matrix."""
    return EigResult(*_eig(a, True, "linalg.eig"))


def eigvals(a) -> ndarray:
    """Eigenvalues of each square matrix."""
    return _eig(a, False, "linalg.eigvals")[0]


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """``a = U @ diag(S) @ Vh`` for each matrix, ``S`` descending; ``compute_uv=False`` gives
    ``S`` alone; ``hermitian`` takes it from ``eigh`` (NumPy's way)."""
    a = _array(a, "linalg.svd")
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    stacked_2d(a)
    compute, result = common_type(a)
    real = real_of(result)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    if math.prod(batch) * m * n == 0:
        s = zeros(batch + (k,), dtype=real)
        if not compute_uv:
            return s
        u_cols, v_rows = (m, n) if full_matrices else (k, k)
        return SVDResult(_eye_stack(batch, m, u_cols, result), s, _eye_stack(batch, v_rows, n, result))
    columns, unscale = _lapack.scaled(to_columns(a, compute))
    s, u, vt, info = _lapack.gesvd(columns, bool(full_matrices), bool(compute_uv))
    if unscale is not None:
        s = s * unscale[:, None].astype(s.dtype)
    if _lapack.failed(info):
        raise LinAlgError("SVD did not converge")
    s = s.reshape(batch + (k,)).astype(real, copy=False)
    if not compute_uv:
        return s
    return SVDResult(from_columns(u, batch, result), s,
                     from_columns(vt, batch, result))


def _eye_stack(batch, rows, cols, dtype) -> ndarray:
    out = zeros(batch + (rows, cols), dtype=dtype)
    d = min(rows, cols)
    if d and math.prod(batch):
        out[..., range(d), range(d)] = 1
    return out


def _hermitian_svd(a: ndarray, compute_uv: bool):
    if not compute_uv:
        return sort(_abs(eigvalsh(a)), axis=-1)[..., ::-1]
    w, u = eigh(a)
    sign = UFUNCS["copysign"](1.0, w).astype(w.dtype)
    s = _abs(w)
    order = argsort(s, axis=-1)[..., ::-1]
    sign = take_along_axis(sign, order, axis=-1)
    s = take_along_axis(s, order, axis=-1)
    u = take_along_axis(u, order[..., None, :], axis=-1)
    vt = swapaxes(u * sign[..., None, :], -1, -2).conj()
    return SVDResult(u, s, vt)
