"""ember's own LU (getrf, getrs) and Cholesky (potrf) kernels, through the LAPACK contract's
bindings, against SciPy's LAPACK.

Matrices go in as LAPACK keeps them, column after column: a stack ``a`` of shape (batch, n, n)
is passed as ``ascontiguousarray(swapaxes(a, -1, -2))``. On CPU devices ember factors
matrices of order up to 32 whole in local memory and larger ones blocked (LU: blocks of 32,
panels split down to leaves of 8; Cholesky: blocks of 32 whose diagonal blocks are factored
by steps of 16), so orders 33 to 300 cover the blocked paths with several panels.

Tolerances: a backward-stable factorization reconstructs its matrix to a few units of
``n * eps * ||A||`` (the bound is ``n * eps * |L| |U|``; random Gaussian matrices have small
growth), so reconstructions are checked to ``30 * n * eps`` relative to the largest entry of A,
and factors and solutions against SciPy's to ``tol`` of the dtype times the problem's scale.
"""

import ember as em
import numpy as np
import pytest
import scipy.linalg as sla
from ember import _ember
from ember._ndarray import _wrap

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
ORDERS = [0, 1, 2, 7, 33, 64, 65, 200, 300]


pytestmark = pytest.mark.usefixtures("ember_lapack_kernels")


def random(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def to_device(a):
    """A (..., rows, cols) stack as ember's column-major stack."""
    return em.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2)))


def to_host(x):
    return np.swapaxes(x.get(), -1, -2)


def eps(dtype):
    return np.finfo(dtype).eps


def lapack(name, a):
    return sla.get_lapack_funcs((name,), (a,))[0]


def reconstruct_lu(lu, piv):
    """P L U of LAPACK's packed factors (0-based row interchanges)."""
    n = lu.shape[0]
    lower = np.tril(lu, -1) + np.eye(n, dtype=lu.dtype)
    a = lower @ np.triu(lu)
    for k in reversed(range(n)):
        a[[k, piv[k]]] = a[[piv[k], k]]
    return a


def getrf(a):
    x = to_device(a)
    piv, info = _ember.lapack_getrf(x._a)
    return to_host(x), _wrap(piv).get(), _wrap(info).get()


@pytest.mark.parametrize("dtype", DTYPES)
def test_getrf_matches_lapack_at_every_order(dtype):
    rng = np.random.default_rng(1)
    for n in ORDERS:
        batch = 3 if n <= 65 else 1
        a = random(rng, (batch, n, n), dtype)
        lu, piv, info = getrf(a)
        assert piv.shape == (batch, n) and piv.dtype == np.int32
        assert (info == 0).all(), (n, info)
        scale = max(np.abs(a).max(initial=0), 1)
        for k in range(batch if n else 0):  # LAPACK refuses order 0
            ref_lu, ref_piv, ref_info = lapack("getrf", a[k])(a[k])
            assert ref_info == 0
            np.testing.assert_array_equal(piv[k], ref_piv + 1, err_msg=f"n={n}")
            err = np.abs(reconstruct_lu(lu[k].astype(np.complex128), piv[k] - 1) - a[k]).max(
                initial=0
            )
            assert err <= 30 * n * eps(dtype) * scale, (n, err)
            # The factors themselves agree to the conditioning of the steps (loosely).
            np.testing.assert_allclose(lu[k], ref_lu, rtol=0, atol=1e4 * n * eps(dtype) * scale)


def test_getrf_of_singular_matrices_records_the_first_zero_pivot_and_goes_on():
    rng = np.random.default_rng(2)
    for n, zero in [(6, 2), (70, 1), (70, 40)]:
        a = random(rng, (2, n, n), np.float64)
        a[0, :, zero] = 0  # a zero column: pivot `zero` is exactly 0
        lu, piv, info = getrf(a)
        for k in range(2):
            ref_lu, ref_piv, ref_info = lapack("getrf", a[k])(a[k])
            assert info[k] == ref_info, (n, k, info[k], ref_info)
            np.testing.assert_array_equal(piv[k], ref_piv + 1)
            err = np.abs(reconstruct_lu(lu[k], piv[k] - 1) - a[k]).max()
            assert err <= 30 * n * eps(np.float64) * np.abs(a[k]).max()
        assert info[0] == zero + 1 and info[1] == 0
    # Exact elimination to zero: [[1, 2], [2, 4]] and the zero matrix.
    for a, expected in [(np.array([[1.0, 2.0], [2.0, 4.0]]), 2), (np.zeros((3, 3)), 1)]:
        _, piv, info = getrf(a[None].astype(np.complex64))
        assert info[0] == expected
        assert piv[0, 0] == (2 if expected == 2 else 1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_getrs_solves_with_getrf_factors(dtype):
    rng = np.random.default_rng(3)
    # (Past 64 rows, products with fewer than 9 right-hand sides take another matmul kernel,
    # which costs PoCL seconds to build: the orders past 65 solve for 9 or more.)
    cases = [(0, 2, 2), (1, 1, 2), (2, 0, 3), (7, 3, 4), (33, 2, 2), (64, 4, 2), (65, 5, 2)]
    cases += [(200, 9, 1), (300, 12, 1)]
    for n, nrhs, batch in cases:
        a = random(rng, (batch, n, n), dtype) + n ** 0.5 * np.eye(n, dtype=dtype)
        b = random(rng, (batch, n, nrhs), dtype)
        x = to_device(a)
        piv, info = _ember.lapack_getrf(x._a)
        xb = to_device(b)
        _ember.lapack_getrs(x._a, piv, xb._a)
        got = to_host(xb)
        assert got.shape == b.shape
        if n == 0 or nrhs == 0:
            continue
        ref = np.linalg.solve(a.astype(np.complex128), b.astype(np.complex128))
        tol = 200 * n * eps(dtype)
        np.testing.assert_allclose(got, ref, rtol=0, atol=tol * np.abs(ref).max(), err_msg=f"n={n}")


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_row_interchanges_repeat_rows_across_chunks_as_laswp(dtype):
    # Factors of the identity, so getrs only applies the interchanges, in order (xLASWP):
    # pivots that pick a few late rows again and again, inside and outside each chunk of
    # interchanges the kernel takes at a time.
    rng = np.random.default_rng(5)
    for n, nrhs in [(64, 4), (200, 9)]:
        late = np.arange(n - 6, n)
        piv = np.array([rng.choice(late) if rng.random() < 0.7 else rng.integers(k, n) for k in range(n)])
        piv = np.maximum(piv, np.arange(n)).astype(np.int32)
        b = random(rng, (1, n, nrhs), dtype)
        ref = b[0].copy()
        for k, p in enumerate(piv):
            ref[[k, p]] = ref[[p, k]]
        lu = to_device(np.eye(n, dtype=dtype)[None])
        xb = to_device(b)
        _ember.lapack_getrs(lu._a, em.asarray((piv + 1)[None])._a, xb._a)
        np.testing.assert_array_equal(to_host(xb)[0], ref, err_msg=f"n={n}")


def test_inverses_of_many_small_matrices():
    rng = np.random.default_rng(4)
    a = random(rng, (500, 8, 8), np.float32) + 3 * np.eye(8, dtype=np.float32)
    x = to_device(a)
    piv, info = _ember.lapack_getrf(x._a)
    ident = em.asarray(np.broadcast_to(np.eye(8, dtype=np.float32), (500, 8, 8)).copy())
    _ember.lapack_getrs(x._a, piv, ident._a)
    inv = to_host(ident).astype(np.float64)
    # Backward error: |A X - I| within a few n eps |A| |X| (cond(A) scales the forward error).
    residual = np.abs(a @ inv - np.eye(8)).max(axis=(1, 2))
    bound = 30 * 8 * eps(np.float32) * np.abs(a).max(axis=(1, 2)) * np.abs(inv).max(axis=(1, 2))
    assert (residual <= bound).all()
    np.testing.assert_allclose(inv, np.linalg.inv(a), rtol=1e-3, atol=1e-4)


def test_bad_operands_raise_clear_errors():
    x = to_device(np.eye(3)[None])
    piv, _ = _ember.lapack_getrf(x._a)
    with pytest.raises(ValueError, match="right-hand sides of their order"):
        _ember.lapack_getrs(x._a, piv, to_device(np.ones((1, 4, 1)))._a)
    with pytest.raises(ValueError, match="square"):
        _ember.lapack_getrf(em.zeros((1, 3, 2))._a)
    with pytest.raises(TypeError, match="factors float32, float64, complex64 or complex128"):
        _ember.lapack_potrf(em.zeros((1, 2, 2), dtype=np.int32)._a, True)


def hermitian_positive(rng, batch, n, dtype):
    m = random(rng, (batch, n, n), dtype)
    return (m @ np.conj(np.swapaxes(m, -1, -2)) / max(n, 1) + np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_potrf_matches_lapack_and_leaves_the_other_triangle(dtype, lower):
    rng = np.random.default_rng(5)
    for n in ORDERS:
        batch = 2 if n <= 65 else 1
        a = hermitian_positive(rng, batch, n, dtype)
        # The triangle not read holds garbage that must stay as it was.
        other = np.triu(np.ones((n, n), bool), 1) if lower else np.tril(np.ones((n, n), bool), -1)
        a[:, other] = random(rng, (batch, int(other.sum())), dtype)
        x = to_device(a)
        info = _wrap(_ember.lapack_potrf(x._a, lower)).get()
        got = to_host(x)
        assert (info == 0).all(), (n, info)
        for k in range(batch):
            ref = sla.cholesky(a[k], lower=lower)
            mine = np.tril(got[k]) if lower else np.triu(got[k])
            np.testing.assert_allclose(mine, ref, rtol=0, atol=50 * n * eps(dtype), err_msg=f"n={n}")
            np.testing.assert_array_equal(got[k][other], a[k][other])


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_potrf_records_the_first_minor_not_positive_definite(dtype):
    rng = np.random.default_rng(6)
    for n, bad in [(5, 0), (5, 3), (70, 20), (70, 69)]:
        a = hermitian_positive(rng, 2, n, dtype)
        a[0, bad, bad] = -1
        for lower in (True, False):
            x = to_device(a)
            info = _wrap(_ember.lapack_potrf(x._a, lower)).get()
            _, ref_info = lapack("potrf", a[0])(a[0], lower=lower)
            assert info[0] == ref_info == bad + 1, (n, bad, info, ref_info)
            assert info[1] == 0
