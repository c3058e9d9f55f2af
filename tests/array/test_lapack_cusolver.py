"""The LAPACK contract (`ember._ember.lapack_*`) through cuSOLVER, against SciPy's LAPACK.

Matrices go in as the contract takes them: a NumPy stack `(batch, rows, cols)` becomes the
C-contiguous `(batch, cols, rows)` stack of its column-major matrices (`swapaxes`), and comes
back the same way. Sizes cover both of ember's paths: the batched routines (stacks of two or
more matrices of order <= 32) and one cuSOLVER call a matrix (larger, or alone).

Tolerances: residuals and differences are measured relative to the matrix's norm, 2e-4 in
single precision and 1e-10 in double (LAPACK's backward errors are a small multiple of n
times epsilon; the largest n here is 40).
"""

from __future__ import annotations

import ember
import numpy as np
import pytest
import scipy.linalg as sl
from ember import _ember
from ember._ndarray import _wrap

pytestmark = pytest.mark.gpu

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]

# (order, batch): batched routines, then a call a matrix (too large, or alone).
SQUARE_SIZES = [(8, 6), (1, 3), (32, 3), (33, 2), (40, 1), (5, 1)]


@pytest.fixture(autouse=True)
def vendor_engine():
    _ember.lapack_use_portable(False)
    assert _ember.lapack_engine(0) == "cusolver"
    yield
    _ember.lapack_use_portable(False)


def tol(dtype) -> float:
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def random(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def hermitian(rng, batch, n, dtype, definite=False):
    m = random(rng, (batch, n, n), dtype)
    a = m + np.conj(np.swapaxes(m, -1, -2))
    if definite:
        a = m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)
    return a.astype(dtype)


def to_device(a):
    """A NumPy stack (batch, rows, cols) as the contract's (batch, cols, rows) native array."""
    return ember.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2)))._a


def from_device(native):
    """A contract stack back as NumPy's (batch, rows, cols)."""
    return np.swapaxes(_wrap(native).get(), -1, -2)


def get(native):
    return _wrap(native).get()


def close(actual, expected, dtype, scale=None):
    scale = np.linalg.norm(expected) if scale is None else scale
    assert np.linalg.norm(actual - expected) <= tol(dtype) * max(scale, 1.0)


def unpivot(m, pivots):
    """P m from LAPACK's 1-based interchanges (row i was swapped with row pivots[i] - 1)."""
    m = m.copy()
    for i in reversed(range(len(pivots))):
        j = pivots[i] - 1
        m[[i, j]] = m[[j, i]]
    return m


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,batch", SQUARE_SIZES)
def test_getrf_matches_scipy_lu_factor(rng, dtype, n, batch):
    a = random(rng, (batch, n, n), dtype)
    lu_native = to_device(a)
    pivots, info = _ember.lapack_getrf(lu_native)
    lu, pivots, info = from_device(lu_native), get(pivots), get(info)
    assert pivots.dtype == np.int32 and pivots.shape == (batch, n)
    assert info.dtype == np.int32 and (info == 0).all()
    for i in range(batch):
        lower = np.tril(lu[i], -1) + np.eye(n)
        close(unpivot(lower @ np.triu(lu[i]), pivots[i]), a[i], dtype)
        if np.dtype(dtype).kind == "f":
            # Complex pivots may be chosen by |re| + |im| or by modulus: reals must agree.
            ref_lu, ref_piv = sl.lu_factor(a[i])
            np.testing.assert_array_equal(pivots[i], ref_piv + 1)
            close(lu[i], ref_lu, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,batch", [(8, 4), (40, 2)])
def test_getrf_reports_the_first_zero_pivot(rng, dtype, n, batch):
    a = random(rng, (batch, n, n), dtype)
    a[1, :, 2] = 0  # column 3 of matrix 1 is zero: U[2, 2] is exactly zero
    pivots, info = _ember.lapack_getrf(to_device(a))
    expected = np.zeros(batch, np.int32)
    expected[1] = 3
    np.testing.assert_array_equal(get(info), expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,batch", SQUARE_SIZES)
@pytest.mark.parametrize("nrhs", [1, 3])
def test_getrs_solves_like_scipy(rng, dtype, n, batch, nrhs):
    a = random(rng, (batch, n, n), dtype)
    b = random(rng, (batch, n, nrhs), dtype)
    lu = to_device(a)
    pivots, _ = _ember.lapack_getrf(lu)
    x = to_device(b)
    _ember.lapack_getrs(lu, pivots, x)
    x = from_device(x)
    for i in range(batch):
        wide = a[i].astype(np.complex128)  # a reference in double precision
        expected = sl.lu_solve(sl.lu_factor(wide), b[i].astype(np.complex128))
        close(x[i], expected, dtype, scale=np.linalg.norm(expected) * np.linalg.cond(a[i]))
        close(a[i] @ x[i], b[i], dtype, scale=np.linalg.norm(a[i]) * np.linalg.norm(x[i]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inverse_of_ten_thousand_small_matrices(rng, dtype):
    # The bench row `inv` of 10,000 8 x 8 matrices: one batched LU and one batched solve.
    a = random(rng, (10_000, 8, 8), dtype) + 8 * np.eye(8, dtype=dtype)  # well conditioned
    lu = to_device(a)
    pivots, info = _ember.lapack_getrf(lu)
    x = to_device(np.broadcast_to(np.eye(8, dtype=dtype), a.shape))
    _ember.lapack_getrs(lu, pivots, x)
    assert (get(info) == 0).all()
    x = from_device(x)
    close(x, np.linalg.inv(a.astype(np.float64)), dtype)
    close(a @ x, np.broadcast_to(np.eye(8), a.shape), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,batch", SQUARE_SIZES)
@pytest.mark.parametrize("lower", [True, False])
def test_potrf_matches_scipy_cholesky_and_keeps_the_other_triangle(rng, dtype, n, batch, lower):
    a = hermitian(rng, batch, n, dtype, definite=True)
    # The other triangle is not read, and must come back as it was: fill it with noise.
    noise = random(rng, (batch, n, n), dtype)
    strict = np.triu(np.ones((n, n), bool), 1) if lower else np.tril(np.ones((n, n), bool), -1)
    given = np.where(strict, noise, a)
    native = to_device(given)
    info = get(_ember.lapack_potrf(native, lower))
    out = from_device(native)
    assert info.dtype == np.int32 and (info == 0).all()
    np.testing.assert_array_equal(out[:, strict], given[:, strict])
    for i in range(batch):
        factor = np.tril(out[i]) if lower else np.triu(out[i])
        close(factor, sl.cholesky(a[i], lower=lower), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,batch", [(8, 4), (40, 2), (6, 1)])
@pytest.mark.parametrize("lower", [True, False])
def test_potrf_reports_the_leading_minor_that_is_not_definite(rng, dtype, n, batch, lower):
    a = hermitian(rng, batch, n, dtype, definite=True)
    a[batch - 1, 2, 2] = -100 * n  # minors 1 and 2 stay definite, 3 is not
    info = get(_ember.lapack_potrf(to_device(a), lower))
    expected = np.zeros(batch, np.int32)
    expected[batch - 1] = 3
    np.testing.assert_array_equal(info, expected)


QR_SHAPES = [(6, 4, 3), (4, 6, 3), (5, 5, 2), (40, 33, 2), (33, 40, 1), (1, 1, 2)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,cols,batch", QR_SHAPES)
def test_geqrf_and_orgqr_match_scipy_qr(rng, dtype, rows, cols, batch):
    a = random(rng, (batch, rows, cols), dtype)
    k = min(rows, cols)
    native = to_device(a)
    tau = _ember.lapack_geqrf(native)
    factored = from_device(native)
    assert get(tau).shape == (batch, k)
    # Q's k columns from the reflectors (the first k columns of the factored stack).
    q = to_device(np.ascontiguousarray(factored[:, :, :k]))
    _ember.lapack_orgqr(q, tau)
    q = from_device(q)
    for i in range(batch):
        r = np.triu(factored[i][:k])
        (_, _), ref_r = sl.qr(a[i], mode="raw")
        # R is unique up to a unimodular scaling of each row.
        phase = np.diag(r) / np.diag(ref_r)
        close(np.abs(phase), np.ones(k), dtype)
        close(r, phase[:, None] * ref_r, dtype)
        close(q[i].conj().T @ q[i], np.eye(k), dtype)
        close(q[i] @ r, a[i], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,cols,batch", [(7, 3, 2), (40, 33, 1)])
def test_orgqr_forms_the_full_square_q(rng, dtype, rows, cols, batch):
    a = random(rng, (batch, rows, cols), dtype)
    native = to_device(a)
    tau = _ember.lapack_geqrf(native)
    factored = from_device(native)
    reflectors = np.zeros((batch, rows, rows), dtype)
    reflectors[:, :, :cols] = factored
    q = to_device(reflectors)
    _ember.lapack_orgqr(q, tau)
    q = from_device(q)
    for i in range(batch):
        close(q[i].conj().T @ q[i], np.eye(rows), dtype)
        close(q[i][:, :cols] @ np.triu(factored[i][:cols]), a[i], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_orgqr_of_no_reflector_is_the_identity(dtype):
    q = to_device(np.full((2, 4, 3), 7, dtype))
    tau = ember.zeros((2, 0), dtype)._a
    _ember.lapack_orgqr(q, tau)
    np.testing.assert_array_equal(from_device(q), np.broadcast_to(np.eye(4, 3, dtype=dtype), (2, 4, 3)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,batch", SQUARE_SIZES)
@pytest.mark.parametrize("lower", [True, False])
def test_syevd_matches_scipy_eigh(rng, dtype, n, batch, lower):
    a = hermitian(rng, batch, n, dtype)
    noise = random(rng, (batch, n, n), dtype)
    strict = np.triu(np.ones((n, n), bool), 1) if lower else np.tril(np.ones((n, n), bool), -1)
    native = to_device(np.where(strict, noise, a))  # only the `lower` triangle is read
    w, info = _ember.lapack_syevd(native, lower, True)
    w, info, v = get(w), get(info), from_device(native)
    assert w.dtype == np.dtype(dtype).type(0).real.dtype and w.shape == (batch, n)
    assert (info == 0).all()
    for i in range(batch):
        scale = np.linalg.norm(a[i])
        close(w[i], sl.eigh(a[i], eigvals_only=True), dtype, scale)
        close(a[i] @ v[i], v[i] * w[i], dtype, scale)
        close(v[i].conj().T @ v[i], np.eye(n), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,batch", [(8, 3), (40, 2)])
def test_syevd_values_only(rng, dtype, n, batch):
    a = hermitian(rng, batch, n, dtype)
    w, info = _ember.lapack_syevd(to_device(a), True, False)
    assert (get(info) == 0).all()
    for i in range(batch):
        close(get(w)[i], sl.eigh(a[i], eigvals_only=True), dtype, np.linalg.norm(a[i]))


SVD_SHAPES = [(7, 4, 3), (4, 7, 3), (5, 5, 2), (40, 33, 2), (33, 40, 1), (1, 6, 2), (6, 1, 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,cols,batch", SVD_SHAPES)
@pytest.mark.parametrize("full", [True, False])
def test_gesvd_matches_scipy_svd(rng, dtype, rows, cols, batch, full):
    a = random(rng, (batch, rows, cols), dtype)
    k = min(rows, cols)
    s, u, vt, info = _ember.lapack_gesvd(to_device(a), full, True)
    s, u, vt, info = get(s), from_device(u), from_device(vt), get(info)
    ucols, vrows = (rows, cols) if full else (k, k)
    assert s.shape == (batch, k) and u.shape == (batch, rows, ucols) and vt.shape == (batch, vrows, cols)
    assert (info == 0).all()
    for i in range(batch):
        scale = np.linalg.norm(a[i])
        close(s[i], sl.svd(a[i], compute_uv=False), dtype, scale)
        close(u[i].conj().T @ u[i], np.eye(ucols), dtype)
        close(vt[i] @ vt[i].conj().T, np.eye(vrows), dtype)
        close((u[i][:, :k] * s[i]) @ vt[i][:k], a[i], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,cols", [(7, 4), (4, 7)])
def test_gesvd_values_only(rng, dtype, rows, cols):
    a = random(rng, (2, rows, cols), dtype)
    s, u, vt, info = _ember.lapack_gesvd(to_device(a), False, False)
    assert u is None and vt is None and (get(info) == 0).all()
    for i in range(2):
        close(get(s)[i], sl.svd(a[i], compute_uv=False), dtype, np.linalg.norm(a[i]))


@pytest.mark.parametrize("rows,cols", [(3, 0), (0, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_gesvd_of_empty_matrices_gives_identity_factors(rows, cols, full):
    s, u, vt, info = _ember.lapack_gesvd(to_device(np.zeros((2, rows, cols))), full, True)
    assert get(s).shape == (2, 0) and (get(info) == 0).all()
    ucols, vrows = (rows, cols) if full else (0, 0)
    np.testing.assert_array_equal(from_device(u), np.broadcast_to(np.eye(rows, ucols), (2, rows, ucols)))
    np.testing.assert_array_equal(from_device(vt), np.broadcast_to(np.eye(vrows, cols), (2, vrows, cols)))


def matched(values, reference, dtype, scale):
    """Every eigenvalue has a reference one near it, and the other way round."""
    distance = np.abs(values[:, None] - reference[None, :])
    assert distance.min(axis=1).max() <= tol(dtype) * scale * 10
    assert distance.min(axis=0).max() <= tol(dtype) * scale * 10


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,batch", [(6, 3), (1, 2), (40, 1)])
def test_geev_matches_scipy_eig(rng, dtype, n, batch):
    a = random(rng, (batch, n, n), dtype)
    w, v, info = _ember.lapack_geev(to_device(a), True)
    w, v, info = get(w), from_device(v), get(info)
    complex_dtype = np.result_type(dtype, np.complex64)
    assert w.dtype == complex_dtype and v.dtype == complex_dtype
    assert w.shape == (batch, n) and v.shape == (batch, n, n) and (info == 0).all()
    if np.dtype(dtype).kind == "f" and n > 1:
        assert (w.imag != 0).any()  # complex pairs: the packed vectors were unpacked
    for i in range(batch):
        scale = np.linalg.norm(a[i])
        matched(w[i], sl.eig(a[i], right=False), dtype, scale)
        close(a[i] @ v[i], v[i] * w[i], dtype, scale * 10)
        close(np.linalg.norm(v[i], axis=0), np.ones(n), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_geev_values_only(rng, dtype):
    a = random(rng, (2, 7, 7), dtype)
    w, v, info = _ember.lapack_geev(to_device(a), False)
    assert v is None and (get(info) == 0).all()
    for i in range(2):
        matched(get(w)[i], sl.eig(a[i], right=False), dtype, np.linalg.norm(a[i]))


def test_bad_input_is_refused_with_a_clear_error(rng):
    with pytest.raises(ValueError, match="square"):
        _ember.lapack_getrf(to_device(random(rng, (2, 3, 4), np.float64)))
    with pytest.raises(TypeError, match="int32"):
        _ember.lapack_getrf(to_device(np.ones((2, 3, 3), np.int32)))
    lu = to_device(random(rng, (2, 3, 3), np.float64))
    pivots, _ = _ember.lapack_getrf(lu)
    with pytest.raises(ValueError, match="right-hand sides"):
        _ember.lapack_getrs(lu, pivots, to_device(random(rng, (2, 4, 1), np.float64)))
