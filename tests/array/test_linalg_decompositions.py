"""ember.linalg's factorizations and what is built on them, against NumPy: random
well-conditioned, ill-conditioned, singular and not positive-definite inputs; stacks; every
float and complex dtype; NumPy's errors and messages. On CUDA every test runs twice: through
cuSOLVER and through ember's own kernels (``use_ember_kernels``)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import on_cuda
from ember import linalg as la
from hypothesis import given, settings
from hypothesis import strategies as st

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
SEED = 20261126


@pytest.fixture(params=["default", "ember"] if on_cuda() else ["default"], autouse=True)
def engine(request):
    la.use_ember_kernels(request.param == "ember")
    yield request.param
    la.use_ember_kernels(False)


def tolerance(dtype) -> float:
    return 2e-4 if np.dtype(dtype).char in "fF" else 1e-10


def random_matrix(shape, dtype, seed=SEED, condition=None):
    """Random matrices; square ones made well conditioned (or with singular values spread to
    ``condition``)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if len(shape) > 1 and shape[-1] == shape[-2] and shape[-1] > 0:
        n = shape[-1]
        u, _, vh = np.linalg.svd(a)
        top = condition or 4.0
        s = np.geomspace(1.0, 1.0 / top, n)
        a = (u * s[..., None, :]) @ vh
    return a.astype(dtype)


def hermitian(shape, dtype, seed=SEED, definite=False):
    a = random_matrix(shape, dtype, seed)
    h = a + np.conj(np.swapaxes(a, -1, -2))
    if definite:
        h = a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])
    return h.astype(dtype)


def close(got, want, dtype, scale=1.0):
    got = got.get() if isinstance(got, ember.ndarray) else np.asarray(got)
    np.testing.assert_allclose(got, want, rtol=tolerance(dtype) * scale, atol=tolerance(dtype) * scale)


SHAPES = [(1, 1), (2, 2), (5, 5), (33, 33), (3, 4, 4), (2, 3, 7, 7), (70, 70)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_solve_inv_det_slogdet_match_numpy(shape, dtype):
    a = random_matrix(shape, dtype)
    b = random_matrix(shape[:-1] + (3,), dtype, seed=SEED + 1)
    x = la.solve(ember.asarray(a), ember.asarray(b))
    assert x.dtype == np.dtype(dtype) and x.shape == b.shape
    close(x, np.linalg.solve(a, b), dtype, scale=10)
    close(la.inv(ember.asarray(a)), np.linalg.inv(a), dtype, scale=10)
    close(la.det(ember.asarray(a)), np.linalg.det(a), dtype, scale=10)
    sign, logdet = la.slogdet(ember.asarray(a))
    want_sign, want_log = np.linalg.slogdet(a)
    close(sign, want_sign, dtype, scale=10)
    close(logdet, want_log, dtype, scale=10)


def test_solve_takes_vectors_only_when_b_is_1d_and_broadcasts_batches():
    a = random_matrix((3, 4, 4), np.float64)
    v = np.arange(4.0)
    close(la.solve(ember.asarray(a), ember.asarray(v)), np.linalg.solve(a, v), np.float64)
    b = random_matrix((4, 2), np.float64)
    close(la.solve(ember.asarray(a), ember.asarray(b)), np.linalg.solve(a, b), np.float64)
    ints = np.array([[2, 1], [1, 3]])
    x = la.solve(ember.asarray(ints), ember.asarray([1, 2]))
    assert x.dtype == np.float64
    close(x, np.linalg.solve(ints, [1, 2]), np.float64)


def test_singular_matrices():
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]])
    with pytest.raises(np.linalg.LinAlgError, match="^Singular matrix$"):
        la.solve(ember.asarray(a), ember.asarray(np.ones((2, 2, 1))))
    with pytest.raises(la.LinAlgError, match="^Singular matrix$"):
        la.inv(ember.asarray(a))
    close(la.det(ember.asarray(a)), [0.0, 1.0], np.float64)
    sign, logdet = la.slogdet(ember.asarray(a))
    np.testing.assert_array_equal(sign.get(), [0.0, 1.0])
    np.testing.assert_array_equal(logdet.get(), [-np.inf, 0.0])
    # The process keeps working after the error.
    close(la.inv(ember.asarray(a[1])), np.eye(2), np.float64)


def test_errstate_ignore_reads_no_status_and_raises_nothing():
    singular = ember.asarray(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with ember.errstate(linalg="ignore"):
        la.inv(singular)  # whatever the factorization left; no error, no host read
        la.cholesky(-ember.eye(2))
    assert ember.geterr()["linalg"] == "raise"
    with pytest.raises(la.LinAlgError, match="^Singular matrix$"):
        la.solve(ember.zeros((3, 3)), ember.zeros((3, 0)))


def test_ill_conditioned_systems_are_as_accurate_as_numpys():
    a = random_matrix((40, 40), np.float64, condition=1e10)
    b = random_matrix((40, 2), np.float64, seed=7)
    x = la.solve(ember.asarray(a), ember.asarray(b)).get()
    # Backward stable: the residual is small relative to |A||x|, as LAPACK's.
    residual = np.abs(a @ x - b).max() / (np.abs(a).max() * np.abs(x).max())
    assert residual < 1e-13
    assert np.abs(x - np.linalg.solve(a, b)).max() / np.abs(x).max() < 1e-4


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (33, 33), (3, 6, 6), (90, 90)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_matches_numpy(shape, dtype, upper):
    a = hermitian(shape, dtype, definite=True)
    # Only one triangle is read: garbage in the other must not matter.
    noisy = a.copy()
    other = np.tril(np.ones(shape[-2:]), -1).astype(bool)
    if not upper:
        other = other.T
    noisy[..., other] = np.nan if shape == (33, 33) else 1e6  # NaN too: zeroed, not multiplied
    got = la.cholesky(ember.asarray(noisy), upper=upper)
    assert got.flags.c_contiguous  # as NumPy's
    close(got, np.linalg.cholesky(a, upper=upper), dtype, scale=20)


def test_cholesky_refuses_a_matrix_that_is_not_positive_definite():
    a = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(la.LinAlgError, match="^Matrix is not positive definite$"):
        la.cholesky(ember.asarray(a))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (3, 5), (33, 33), (2, 9, 4), (80, 50)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
def test_qr_modes_match_numpy(shape, dtype, mode):
    a = random_matrix(shape, dtype)
    got = la.qr(ember.asarray(a), mode=mode)
    want = np.linalg.qr(a, mode=mode)
    if mode == "r":
        close(np.abs(got.get()), np.abs(want), dtype, scale=20)
        return
    if mode == "raw":
        h, tau = got
        assert h.shape == want[0].shape and tau.shape == want[1].shape
        assert h.dtype == want[0].dtype
        # The same reflectors as LAPACK's (Householder's convention fixes them).
        close(h, want[0], dtype, scale=20)
        close(tau, want[1], dtype, scale=20)
        return
    q, r = got
    assert q.shape == want.Q.shape and r.shape == want.R.shape
    q, r = q.get(), r.get()
    close(q @ r, a, dtype, scale=20)
    eye = np.eye(q.shape[-1])
    close(np.conj(np.swapaxes(q, -1, -2)) @ q, np.broadcast_to(eye, q.shape[:-2] + eye.shape), dtype, scale=20)
    np.testing.assert_array_equal(np.triu(r), r)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (6, 6), (33, 33), (3, 5, 5), (64, 64)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_matches_numpy(shape, dtype, uplo):
    a = hermitian(shape, dtype)
    noisy = a.copy()
    other = np.triu(np.ones(shape[-2:]), 1).astype(bool)
    if uplo == "U":
        other = other.T
    noisy[..., other] = 7.0
    w, v = la.eigh(ember.asarray(noisy), UPLO=uplo)
    want = np.linalg.eigvalsh(a)
    assert w.dtype == want.dtype and v.dtype == np.dtype(dtype)
    scale = 20 * max(1.0, float(np.abs(want).max()))
    close(w, want, dtype, scale=scale)
    close(la.eigvalsh(ember.asarray(noisy), UPLO=uplo), want, dtype, scale=scale)
    v = v.get()
    close(a @ v, v * w.get()[..., None, :], dtype, scale=scale)
    eye = np.broadcast_to(np.eye(shape[-1]), v.shape)
    close(np.conj(np.swapaxes(v, -1, -2)) @ v, eye, dtype, scale=20)


def test_eigh_with_repeated_eigenvalues():
    rng = np.random.default_rng(SEED)
    q, _ = np.linalg.qr(rng.standard_normal((12, 12)) + 1j * rng.standard_normal((12, 12)))
    w = np.array([1.0] * 5 + [2.0] * 4 + [-3.0] * 3)
    a = (q * w) @ q.conj().T
    got_w, got_v = la.eigh(ember.asarray(a))
    close(got_w, np.sort(w), np.complex128, scale=10)
    v = got_v.get()
    close(a @ v, v * got_w.get(), np.complex128, scale=10)
    close(v.conj().T @ v, np.eye(12), np.complex128, scale=10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (6, 3), (3, 6), (33, 20), (2, 7, 5), (60, 60)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_matches_numpy(shape, dtype, full):
    a = random_matrix(shape, dtype)
    u, s, vh = la.svd(ember.asarray(a), full_matrices=full)
    want_u, want_s, want_vh = np.linalg.svd(a, full_matrices=full)
    assert (u.shape, s.shape, vh.shape) == (want_u.shape, want_s.shape, want_vh.shape)
    assert s.dtype == want_s.dtype and u.dtype == np.dtype(dtype)
    close(s, want_s, dtype, scale=20)
    close(la.svd(ember.asarray(a), compute_uv=False), want_s, dtype, scale=20)
    u, s, vh = u.get(), s.get(), vh.get()
    k = s.shape[-1]
    close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, dtype, scale=20)
    for q in (u, np.swapaxes(vh, -1, -2)):
        eye = np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2)
        close(np.conj(np.swapaxes(q, -1, -2)) @ q, eye, dtype, scale=20)


def test_svd_of_rank_deficient_and_zero_matrices_and_hermitian_svd():
    rng = np.random.default_rng(SEED)
    a = rng.standard_normal((20, 3)) @ rng.standard_normal((3, 15))
    close(la.svd(ember.asarray(a), compute_uv=False), np.linalg.svd(a, compute_uv=False), np.float64, scale=100)
    assert int(la.matrix_rank(ember.asarray(a))) == 3
    u, s, vh = la.svd(ember.zeros((4, 3)))
    np.testing.assert_array_equal(s.get(), np.zeros(3))
    close(u.get().T @ u.get(), np.eye(4), np.float64)
    h = hermitian((8, 8), np.complex128)
    u, s, vh = la.svd(ember.asarray(h), hermitian=True)
    close(s, np.linalg.svd(h, compute_uv=False), np.complex128, scale=10)
    close((u.get() * s.get()) @ vh.get(), h, np.complex128, scale=10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (8, 8), (2, 5, 5), (40, 40)])
def test_eig_matches_numpy(shape, dtype):
    a = random_matrix(shape, dtype)
    w, v = la.eig(ember.asarray(a))
    want = np.linalg.eigvals(a)
    assert w.dtype == np.result_type(dtype, np.complex64) and v.dtype == w.dtype
    key = lambda x: np.sort_complex(np.round(x, 3))  # noqa: E731
    close(key(w.get()), key(want), dtype, scale=50)
    w, v = w.get(), v.get()
    close(a @ v, v * w[..., None, :], dtype, scale=50)
    close(np.linalg.norm(v, axis=-2), np.ones(shape[:-1]), dtype, scale=10)
    close(key(la.eigvals(ember.asarray(a)).get()), key(want), dtype, scale=50)


def test_eig_of_real_matrices_is_complex_and_refuses_inf():
    # NumPy 2.5 and CuPy: complex results for real input, real eigenvalues or not.
    a = np.array([[2.0, 1.0], [0.0, 3.0]])
    w, v = la.eig(ember.asarray(a))
    assert w.dtype == np.complex128 and v.dtype == np.complex128
    close(np.sort(w.get().real), [2.0, 3.0], np.float64)
    np.testing.assert_array_equal(w.get().imag, 0)
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]], dtype=np.float32)
    close(np.sort_complex(la.eigvals(ember.asarray(rotation)).get()), [-1j, 1j], np.float32)
    with pytest.raises(la.LinAlgError, match="^Array must not contain infs or NaNs$"):
        la.eig(ember.asarray(np.array([[np.inf, 0.0], [0.0, 1.0]])))


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
@pytest.mark.parametrize("shape", [(9, 4), (4, 9), (12, 12)])
@pytest.mark.parametrize("vector", [True, False])
def test_lstsq_matches_numpy(shape, dtype, vector):
    a = random_matrix(shape, dtype)
    b = random_matrix((shape[0],) if vector else (shape[0], 3), dtype, seed=3)
    x, residuals, rank, s = la.lstsq(ember.asarray(a), ember.asarray(b))
    wx, wres, wrank, ws = np.linalg.lstsq(a, b, rcond=np.finfo(dtype).eps * max(shape))
    assert rank == wrank and x.shape == wx.shape and residuals.shape == wres.shape
    assert type(rank) is type(wrank) is np.int32
    close(x, wx, dtype, scale=50)
    close(residuals, wres, dtype, scale=50)
    close(s, ws, dtype, scale=50)


def test_lstsq_of_a_rank_deficient_system():
    rng = np.random.default_rng(SEED)
    a = rng.standard_normal((10, 2)) @ rng.standard_normal((2, 5))
    b = rng.standard_normal(10)
    x, residuals, rank, s = la.lstsq(ember.asarray(a), ember.asarray(b))
    wx, wres, wrank, _ = np.linalg.lstsq(a, b, rcond=None)
    assert rank == wrank == 2 and residuals.shape == (0,)
    close(x, wx, np.float64, scale=1000)
    # rcond < 0 is machine precision (LAPACK's): a zero column's singular value is dropped,
    # not inverted.
    zero_column = rng.standard_normal((8, 4))
    zero_column[:, 2] = 0
    x, _, rank, _ = la.lstsq(ember.asarray(zero_column), ember.asarray(b[:8]), rcond=-1)
    wx, _, wrank, _ = np.linalg.lstsq(zero_column, b[:8], rcond=-1)
    assert rank == wrank == 3
    close(x, wx, np.float64, scale=1000)
    with pytest.raises(la.LinAlgError, match="^Incompatible dimensions$"):
        la.lstsq(ember.asarray(a), ember.ones(3))


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_pinv_cond_matrix_power_tensor_functions(dtype):
    a = random_matrix((3, 6, 4), dtype)
    close(la.pinv(ember.asarray(a)), np.linalg.pinv(a), dtype, scale=20)
    sq = random_matrix((2, 5, 5), dtype, seed=11)
    for p in (None, 1, -1, 2, -2, np.inf, -np.inf, "fro"):
        close(la.cond(ember.asarray(sq), p), np.linalg.cond(sq, p), dtype, scale=50)
    for n in (-3, -1, 0, 1, 2, 3, 6):
        close(la.matrix_power(ember.asarray(sq), n), np.linalg.matrix_power(sq, n), dtype, scale=50)
    t = random_matrix((24, 24), dtype, seed=5).reshape(4, 6, 8, 3)
    close(la.tensorinv(ember.asarray(t), ind=2), np.linalg.tensorinv(t, ind=2), dtype, scale=50)
    rhs = random_matrix((4, 6), dtype, seed=6)
    close(la.tensorsolve(ember.asarray(t), ember.asarray(rhs)), np.linalg.tensorsolve(t, rhs), dtype, scale=50)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert np.isinf(float(la.cond(ember.asarray(singular), 1)))


def test_bad_input_raises_numpys_errors():
    with pytest.raises(la.LinAlgError, match="^1-dimensional array given. Array must be at least two-dimensional$"):
        la.inv(ember.ones(3))
    with pytest.raises(la.LinAlgError, match="^Last 2 dimensions of the array must be square$"):
        la.det(ember.ones((2, 3)))
    with pytest.raises(TypeError, match="^array type float16 is unsupported in linalg$"):
        la.solve(ember.ones((2, 2), dtype=np.float16), ember.ones(2))
    with pytest.raises(ValueError, match="^UPLO argument must be 'L' or 'U'$"):
        la.eigh(ember.eye(2), UPLO="X")
    with pytest.raises(ValueError, match="^Unrecognized mode 'bad'$"):
        la.qr(ember.eye(2), mode="bad")
    with pytest.raises(TypeError, match="^exponent must be an integer$"):
        la.matrix_power(ember.eye(2), 1.5)
    with pytest.raises(ValueError, match="Invalid ind argument."):
        la.tensorinv(ember.eye(2), ind=0)
    with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
        la.solve(ember.eye(3), ember.ones(2))
    with pytest.raises(la.LinAlgError, match="^cond is not defined on empty arrays$"):
        la.cond(ember.ones((0, 0)))


def test_empty_stacks_give_numpys_shapes():
    for fn in (la.inv, la.det, la.cholesky, la.eigvalsh, la.pinv):
        for shape in ((0, 0), (3, 0, 0), (0, 2, 2)):
            a = np.zeros(shape)
            got, want = fn(ember.asarray(a)), fn.__name__ and getattr(np.linalg, fn.__name__)(a)
            assert got.shape == want.shape, (fn.__name__, shape)
    assert la.qr(ember.zeros((0, 3)), mode="complete").Q.shape == (0, 0)
    assert la.svd(ember.zeros((3, 0))).U.shape == (3, 3)


@settings(max_examples=15, deadline=None)
@given(
    batch=st.sampled_from([(), (2,), (2, 3)]),
    n=st.integers(1, 12),
    dtype=st.sampled_from(DTYPES),
    seed=st.integers(0, 2**16),
)
def test_random_stacks_agree_with_numpy(batch, n, dtype, seed):
    a = random_matrix(batch + (n, n), dtype, seed=seed)
    close(la.inv(ember.asarray(a)), np.linalg.inv(a), dtype, scale=20)
    close(la.svd(ember.asarray(a), compute_uv=False), np.linalg.svd(a, compute_uv=False), dtype, scale=20)
    h = hermitian(batch + (n, n), dtype, seed=seed, definite=True)
    close(la.eigvalsh(ember.asarray(h)), np.linalg.eigvalsh(h), dtype, scale=20 * n * n)
    close(la.cholesky(ember.asarray(h)), np.linalg.cholesky(h), dtype, scale=20 * n)


def test_cublas_batched_gesv_and_its_limit():
    a = random_matrix((6, 5, 5), np.float64)
    b = random_matrix((6, 5), np.float64, seed=9)
    old = ember.cublas.get_batched_gesv_limit()
    try:
        for limit in (0, 64):  # cuSOLVER a matrix at a time, then cuBLAS's batched routines
            ember.cublas.set_batched_gesv_limit(limit)
            assert ember.cublas.get_batched_gesv_limit() == limit
            close(ember.cublas.batched_gesv(ember.asarray(a), ember.asarray(b)),
                  np.linalg.solve(a, b[..., None])[..., 0], np.float64, scale=10)
            close(la.solve(ember.asarray(a), ember.asarray(a)), np.broadcast_to(np.eye(5), a.shape), np.float64,
                  scale=10)
    finally:
        ember.cublas.set_batched_gesv_limit(old)
    with pytest.raises(ValueError, match="must have"):
        ember.cublas.batched_gesv(ember.asarray(a), ember.ones(4))
    with pytest.raises(ValueError, match="at least 0"):
        ember.cublas.set_batched_gesv_limit(-1)


@pytest.mark.parametrize("magnitude", [1e-160, 1e-40, 1e77, 1e200])
def test_huge_and_tiny_matrices_neither_overflow_nor_underflow(magnitude):
    # Jacobi's sums of squares overflow from about 1e77 unless the matrix is scaled first.
    a = random_matrix((6, 4), np.float64) * magnitude
    close(la.svd(ember.asarray(a), compute_uv=False) / magnitude, np.linalg.svd(a, compute_uv=False) / magnitude,
          np.float64, scale=10)
    u, s, vh = la.svd(ember.asarray(a), full_matrices=False)
    close((u.get() * (s.get() / magnitude)) @ vh.get(), a / magnitude, np.float64, scale=10)
    close(la.pinv(ember.asarray(a)) * magnitude, np.linalg.pinv(a) * magnitude, np.float64, scale=10)
    h = hermitian((5, 5), np.float64) * magnitude
    w, v = la.eigh(ember.asarray(h))
    close(w / magnitude, np.linalg.eigvalsh(h) / magnitude, np.float64, scale=10)
    close(h @ v.get() / magnitude, v.get() * w.get() / magnitude, np.float64, scale=10)
    flat = np.full((2, 4), 5.78960446e76)  # the array-api suite's case: rank 1, all equal
    close(la.pinv(ember.asarray(flat)) * 1e77, np.linalg.pinv(flat) * 1e77, np.float64, scale=10)
