"""ember's own QR, Hermitian eigensolver and SVD kernels (the LAPACK contract's ``geqrf``,
``orgqr``, ``syevd``, ``gesvd``), called through ``ember._ember.lapack_*`` on column-major
stacks and checked against SciPy's LAPACK and against their own reconstructions.

Tolerances are ``C * n * eps * ||A||`` (``n`` the larger dimension, ``eps`` the dtype's): the
backward-error bounds of Householder QR and of Jacobi, with ``C = 10`` (measured errors stay
below ``2 n eps ||A||``). On PoCL every kernel costs about a second to build: one Householder
and three Jacobi kernels a dtype serve every shape here.
"""

import ember
import numpy as np
import pytest
import scipy.linalg as sl
from ember._ndarray import _wrap

_ember = ember._ember

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
C = 10


pytestmark = pytest.mark.usefixtures("ember_lapack_kernels")


def randn(rng, shape, dtype):
    if np.dtype(dtype).kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def column_major(a):
    """A (batch, rows, cols) stack as the contract takes it: (batch, cols, rows), C-ordered."""
    return ember.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2)))


def row_major(x):
    return np.swapaxes((x if isinstance(x, ember.ndarray) else _wrap(x)).get(), -1, -2)


def eps(dtype):
    return float(np.finfo(dtype).eps)


def adjoint(a):
    return np.swapaxes(a.conj(), -1, -2)


def assert_small(err, tol, what):
    assert err <= tol, f"{what}: {err:.3g} > {tol:.3g}"


def assert_orthonormal_columns(q, tol, what):
    k = q.shape[-1]
    assert_small(np.abs(adjoint(q) @ q - np.eye(k)).max(initial=0), tol, what)


# --- geqrf / orgqr ---------------------------------------------------------------------------
QR_SHAPES = [(1, 1), (2, 2), (5, 5), (7, 3), (3, 7), (33, 33), (40, 12)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_geqrf_matches_lapack_raw_and_orgqr_forms_q(rng, dtype):
    for m, n in QR_SHAPES:
        a = randn(rng, (3, m, n), dtype)
        x = column_major(a)
        tau = _wrap(_ember.lapack_geqrf(x._a))
        assert tau.shape == (3, min(m, n)) and tau.dtype == dtype
        qr, tau = row_major(x), tau.get()
        tol = C * max(m, n) * eps(dtype) * np.abs(a).max()
        for b in range(3):
            # Same reflectors as LAPACK's xGEQRF: the same signs, R and tau, to rounding.
            (ref, ref_tau), _ = sl.qr(a[b], mode="raw")
            assert_small(np.abs(qr[b] - ref).max(), tol, f"{m}x{n} factors")
            assert_small(np.abs(tau[b] - ref_tau).max(), C * max(m, n) * eps(dtype), f"{m}x{n} tau")
        # Q from the reflectors: reduced (k columns) and complete (m columns).
        k = min(m, n)
        r = np.triu(qr)[:, :k, :]
        for qcols in sorted({k, m}):
            stack = np.zeros((3, m, qcols), dtype)
            stack[:, :, :k] = qr[:, :, :k]
            qx = column_major(stack)
            _ember.lapack_orgqr(qx._a, ember.asarray(tau)._a)
            q = row_major(qx)
            assert_orthonormal_columns(q, C * m * eps(dtype), f"{m}x{n} Q^H Q ({qcols} columns)")
            assert_small(np.abs(q[:, :, :k] @ r - a).max(), tol, f"{m}x{n} QR = A")
            ref_q = sl.qr(a[0], mode="full" if qcols == m else "economic")[0]
            assert_small(np.abs(q[0] - ref_q).max(), C * m * eps(dtype), f"{m}x{n} Q against SciPy's")


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_large_qr_goes_column_by_column(rng, dtype):
    # More than 128 reflectors in a batch of one: each column's reflector, then its update
    # spread over many blocks.
    m, n = 170, 150
    a = randn(rng, (1, m, n), dtype)
    x = column_major(a)
    tau = _wrap(_ember.lapack_geqrf(x._a)).get()
    qr = row_major(x)
    (ref, ref_tau), _ = sl.qr(a[0], mode="raw")
    tol = C * m * eps(dtype) * np.abs(a).max()
    assert_small(np.abs(qr[0] - ref).max(), tol, "factors")
    assert_small(np.abs(tau[0] - ref_tau).max(), C * m * eps(dtype), "tau")
    q = np.zeros((1, m, m), dtype)
    q[:, :, :n] = qr[:, :, :n]
    qx = column_major(q)
    _ember.lapack_orgqr(qx._a, ember.asarray(tau[None] if tau.ndim == 1 else tau)._a)
    q = row_major(qx)
    assert_orthonormal_columns(q, C * m * eps(dtype), "Q^H Q")
    assert_small(np.abs(q[0, :, :n] @ np.triu(qr[0])[:n] - a[0]).max(), tol, "QR = A")


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_qr_of_zero_and_rank_deficient_matrices(rng, dtype):
    a = np.zeros((2, 6, 4), dtype)
    a[1] = randn(rng, (6, 2), dtype) @ randn(rng, (2, 4), dtype)  # rank 2
    x = column_major(a)
    tau = _wrap(_ember.lapack_geqrf(x._a)).get()
    qr = row_major(x)
    np.testing.assert_array_equal(tau[0], 0)  # LAPACK: no reflection of a zero column
    np.testing.assert_array_equal(qr[0], 0)
    (ref, ref_tau), _ = sl.qr(a[1], mode="raw")
    tol = C * 6 * eps(dtype) * np.abs(a).max()
    # The first two reflectors are determined; the rest reflect rounding noise.
    assert_small(np.abs(np.triu(qr[1])[:2] - np.triu(ref)[:2]).max(), tol, "R's first rows")
    q = np.ascontiguousarray(qr[:, :, :4])
    qx = column_major(q)
    _ember.lapack_orgqr(qx._a, ember.asarray(tau)._a)
    q = row_major(qx)
    assert_orthonormal_columns(q, C * 6 * eps(dtype), "Q^H Q")
    assert_small(np.abs(q @ np.triu(qr)[:, :4] - a).max(), tol, "QR = A")


def test_qr_of_empty_stacks(rng):
    for shape in [(0, 3, 4), (2, 0, 5), (2, 4, 0)]:
        x = ember.asarray(randn(rng, shape, np.float64))
        tau = _wrap(_ember.lapack_geqrf(x._a))
        assert tau.shape == (shape[0], min(shape[1:]))
    # No reflectors: Q is the identity's first columns.
    q = ember.zeros((2, 3, 5))
    _ember.lapack_orgqr(q._a, ember.zeros((2, 0))._a)
    np.testing.assert_array_equal(row_major(q), np.broadcast_to(np.eye(5)[:, :3], (2, 5, 3)))


def test_qr_refuses_bad_input():
    with pytest.raises(TypeError, match="int32"):
        _ember.lapack_geqrf(ember.zeros((1, 2, 2), dtype=np.int32)._a)
    with pytest.raises(ValueError, match="axes"):
        _ember.lapack_geqrf(ember.zeros((2, 2))._a)
    with pytest.raises(ValueError, match="k <= qcols <= rows"):
        _ember.lapack_orgqr(ember.zeros((1, 3, 2))._a, ember.zeros((1, 2))._a)
    with pytest.raises(ValueError, match="tau"):
        _ember.lapack_orgqr(ember.zeros((1, 2, 3))._a, ember.zeros((2, 2))._a)


# --- syevd -----------------------------------------------------------------------------------
def hermitian(rng, batch, n, dtype):
    a = randn(rng, (batch, n, n), dtype)
    return ((a + adjoint(a)) / 2).astype(dtype)


def check_eigh(h, w, v, dtype, what):
    n = h.shape[-1]
    norm = max(np.abs(np.linalg.eigvalsh(h.astype(np.complex128))).max(initial=0), 1e-300)
    tol = C * max(n, 1) * eps(dtype) * norm
    assert w.dtype == np.finfo(dtype).dtype
    ref = np.stack([sl.eigh(m, eigvals_only=True) for m in h.astype(np.complex128)]) if n else w
    assert_small(np.abs(w - ref).max(initial=0), tol, f"{what} eigenvalues")
    assert np.all(np.diff(w, axis=-1) >= 0), f"{what}: not ascending"
    if v is not None:
        assert_small(np.abs(h @ v - v * w[:, None, :]).max(initial=0), tol, f"{what} A V - V w")
        assert_orthonormal_columns(v, C * max(n, 1) * eps(dtype), f"{what} V^H V")


@pytest.mark.parametrize("dtype", DTYPES)
def test_syevd_matches_scipy_reading_one_triangle(rng, dtype):
    for n in [1, 2, 5, 33, 100]:
        h = hermitian(rng, 2, n, dtype)
        for lower in (True, False):
            # The other triangle is NaN: it must not be read.
            given = h.copy()
            rows, cols = np.triu_indices(n, 1) if lower else np.tril_indices(n, -1)
            given[:, rows, cols] = np.nan
            x = column_major(given)
            w, info = _ember.lapack_syevd(x._a, lower, True)
            np.testing.assert_array_equal(_wrap(info).get(), 0)
            check_eigh(h, _wrap(w).get(), row_major(x), dtype, f"n={n} lower={lower}")
        w, info = _ember.lapack_syevd(column_major(h)._a, True, False)
        check_eigh(h, _wrap(w).get(), None, dtype, f"n={n} values only")


@pytest.mark.parametrize("dtype", DTYPES)
def test_syevd_of_repeated_eigenvalues(rng, dtype):
    # Eigenvalues 2, 2, 2, -1, -1, 0, 0, 5 (complex: a complex unitary basis): a real 2n
    # embedding would double each and mix their eigenvectors.
    n = 8
    q, _ = np.linalg.qr(randn(rng, (n, n), np.complex128 if np.dtype(dtype).kind == "c" else np.float64))
    lam = np.array([2, 2, 2, -1, -1, 0, 0, 5.0])
    h = np.stack([(q * lam) @ adjoint(q), np.eye(n), np.zeros((n, n)), -np.eye(n)]).astype(dtype)
    x = column_major(h)
    w, info = _ember.lapack_syevd(x._a, True, True)
    np.testing.assert_array_equal(_wrap(info).get(), 0)
    check_eigh(h, _wrap(w).get(), row_major(x), dtype, "repeated")


def test_syevd_of_empty_stacks_and_bad_input(rng):
    for shape in [(0, 4, 4), (3, 0, 0)]:
        w, info = _ember.lapack_syevd(ember.zeros(shape)._a, True, True)
        assert _wrap(w).shape == shape[:2] and _wrap(info).shape == shape[:1]
    with pytest.raises(ValueError, match="square"):
        _ember.lapack_syevd(ember.zeros((1, 3, 4))._a, True, True)


# --- gesvd -----------------------------------------------------------------------------------
def check_svd(a, s, u, vt, dtype, full, what):
    m, n = a.shape[-2:]
    k = min(m, n)
    norm = max(np.linalg.svd(a.astype(np.complex128), compute_uv=False).max(initial=0), 1e-300)
    tol = C * max(m, n, 1) * eps(dtype) * norm
    assert s.shape == a.shape[:-2] + (k,) and s.dtype == np.finfo(dtype).dtype
    ref = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
    assert_small(np.abs(s - ref).max(initial=0), tol, f"{what} s")
    assert np.all(np.diff(s, axis=-1) <= 0), f"{what}: not descending"
    if u is None:
        return
    assert u.shape == a.shape[:-2] + ((m, m) if full else (m, k)), (what, u.shape)
    assert vt.shape == a.shape[:-2] + ((n, n) if full else (k, n)), (what, vt.shape)
    assert_small(np.abs((u[..., :k] * s[..., None, :]) @ vt[..., :k, :] - a).max(initial=0), tol, f"{what} U S V^H")
    unit = C * max(m, n, 1) * eps(dtype)
    assert_orthonormal_columns(u, unit, f"{what} U^H U")
    assert_orthonormal_columns(adjoint(vt), unit, f"{what} V^H V")


@pytest.mark.parametrize("dtype", DTYPES)
def test_gesvd_reconstructs_with_orthonormal_factors(rng, dtype):
    for m, n in [(1, 1), (2, 2), (5, 5), (9, 4), (4, 9), (33, 33), (100, 20)]:
        a = randn(rng, (2, m, n), dtype)
        for full in (False, True):
            s, u, vt, info = _ember.lapack_gesvd(column_major(a)._a, full, True)
            np.testing.assert_array_equal(_wrap(info).get(), 0)
            check_svd(a, _wrap(s).get(), row_major(u), row_major(vt), dtype, full, f"{m}x{n} full={full}")
        s, u, vt, info = _ember.lapack_gesvd(column_major(a)._a, False, False)
        assert u is None and vt is None
        check_svd(a, _wrap(s).get(), None, None, dtype, False, f"{m}x{n} values")


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_gesvd_of_rank_deficient_and_zero_matrices(rng, dtype):
    # Zero singular values: U's and V's columns for them are completed to orthonormal bases.
    for m, n in [(7, 5), (5, 7)]:
        low = randn(rng, (m, 2), dtype) @ randn(rng, (2, n), dtype)
        a = np.stack([low, np.zeros((m, n), dtype), np.ones((m, n), dtype)])
        for full in (False, True):
            s, u, vt, info = _ember.lapack_gesvd(column_major(a)._a, full, True)
            np.testing.assert_array_equal(_wrap(info).get(), 0)
            check_svd(a, _wrap(s).get(), row_major(u), row_major(vt), dtype, full, f"{m}x{n} rank-deficient")


def test_gesvd_of_empty_stacks(rng):
    s, u, vt, info = _ember.lapack_gesvd(ember.zeros((0, 3, 4))._a, True, True)
    assert _wrap(s).shape == (0, 3) and _wrap(u).shape == (0, 4, 4) and _wrap(vt).shape == (0, 3, 3)
    # A 0 x 3 matrix (a (1, 3, 0) stack): no singular values, V^H the identity when full.
    s, u, vt, info = _ember.lapack_gesvd(ember.zeros((1, 3, 0))._a, True, True)
    assert _wrap(s).shape == (1, 0) and _wrap(u).shape == (1, 0, 0)
    np.testing.assert_array_equal(row_major(vt)[0], np.eye(3))


def test_nan_input_gives_nan_values_and_returns():
    # No rotation compares true on NaN: the sweeps stop at once, and every value is NaN
    # (sorted last, each in its own place).
    a = np.full((2, 6, 6), np.nan)
    w, info = _ember.lapack_syevd(ember.asarray(a)._a, True, True)
    assert np.isnan(_wrap(w).get()).all()
    s, u, vt, info = _ember.lapack_gesvd(ember.asarray(a)._a, False, True)
    assert np.isnan(_wrap(s).get()).all()


def test_gesvd_of_a_matrix_wider_than_the_grid(rng):
    # V^H's 70,000 columns: more than a grid axis holds (65,535 blocks), so its kernels loop.
    a = randn(rng, (1, 3, 70_000), np.float64)
    s, u, vt, info = _ember.lapack_gesvd(column_major(a)._a, False, True)
    check_svd(a, _wrap(s).get(), row_major(u), row_major(vt), np.float64, False, "3 x 70000")
