"""ember.linalg's Array API functions and NumPy's rank and chain product, against NumPy:
vector_norm, matrix_norm, svdvals, matrix_rank, multi_dot, vecdot, matrix_transpose, outer,
cross, diagonal, trace, tensordot, matmul. Built on ember's reductions, products and the
device's one-sided Jacobi (no kernel of their own)."""

import ember
import numpy as np
import pytest

RNG_SEED = 20261126
rng = np.random.default_rng(RNG_SEED)
A = rng.standard_normal((3, 5, 4))
C = (rng.standard_normal((2, 4, 6)) + 1j * rng.standard_normal((2, 4, 6))).astype(np.complex64)


def same(got, want, rtol=1e-12):
    got = got.get() if isinstance(got, ember.ndarray) else got
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * max(1.0, np.max(np.abs(want), initial=0)))


@pytest.mark.parametrize("ord", [2, 1, np.inf, -np.inf, 0, 3.5])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (None, True), (1, False), ((0, 2), True), ((-1, 0), False)])
def test_vector_norm(ord, axis, keepdims):
    same(ember.linalg.vector_norm(ember.asarray(A), axis=axis, keepdims=keepdims, ord=ord),
         np.linalg.vector_norm(A, axis=axis, keepdims=keepdims, ord=ord))


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norm_and_svdvals(ord):
    same(ember.linalg.matrix_norm(ember.asarray(A), ord=ord), np.linalg.matrix_norm(A, ord=ord), 1e-10)
    same(ember.linalg.matrix_norm(ember.asarray(C), ord=ord, keepdims=True),
         np.linalg.matrix_norm(C, ord=ord, keepdims=True), 2e-5)


def test_svdvals_and_matrix_rank():
    same(ember.linalg.svdvals(ember.asarray(A)), np.linalg.svdvals(A), 1e-10)
    same(ember.linalg.svdvals(ember.asarray(C)), np.linalg.svdvals(C), 2e-5)
    low = rng.standard_normal((4, 6, 2)) @ rng.standard_normal((4, 2, 5))  # rank 2
    low[1, :, 0] = 0
    for kwargs in ({}, {"tol": 1e-3}, {"rtol": 1e-2}):
        got = ember.linalg.matrix_rank(ember.asarray(low), **kwargs).get()
        np.testing.assert_array_equal(got, np.linalg.matrix_rank(low, **kwargs))
    assert int(ember.linalg.matrix_rank(ember.asarray(np.eye(5)))) == 5
    assert int(ember.linalg.matrix_rank(ember.asarray(np.zeros(3)))) == 0
    with pytest.raises(np.linalg.LinAlgError, match="Array must be at least two-dimensional"):
        ember.linalg.svdvals(ember.ones(3))


def test_multi_dot_takes_the_cheapest_order():
    shapes = [(10, 300), (300, 5), (5, 200), (200, 7)]
    mats = [rng.standard_normal(s) for s in shapes]
    same(ember.linalg.multi_dot([ember.asarray(m) for m in mats]), np.linalg.multi_dot(mats), 1e-10)
    v, w = rng.standard_normal(10), rng.standard_normal(7)
    same(ember.linalg.multi_dot([ember.asarray(v)] + [ember.asarray(m) for m in mats] + [ember.asarray(w)]),
         np.linalg.multi_dot([v] + mats + [w]), 1e-10)
    with pytest.raises(ValueError, match="Expecting at least two arrays."):
        ember.linalg.multi_dot([ember.ones(3)])


def test_products_and_diagonals():
    x, y = rng.standard_normal((4, 3)), rng.standard_normal((2, 4, 3))
    same(ember.linalg.vecdot(ember.asarray(x), ember.asarray(y)), np.linalg.vecdot(x, y))
    same(ember.linalg.vecdot(ember.asarray(C), ember.asarray(C), axis=1), np.linalg.vecdot(C, C, axis=1), 2e-5)
    same(ember.linalg.matrix_transpose(ember.asarray(A)), np.linalg.matrix_transpose(A))
    same(ember.linalg.outer(ember.asarray(x[0]), ember.asarray(y[0, 1])), np.linalg.outer(x[0], y[0, 1]))
    same(ember.linalg.cross(ember.asarray(x), ember.asarray(y)), np.linalg.cross(x, y))
    for offset in (0, 1, -2):
        same(ember.linalg.diagonal(ember.asarray(A), offset=offset), np.linalg.diagonal(A, offset=offset))
        same(ember.linalg.trace(ember.asarray(A), offset=offset), np.linalg.trace(A, offset=offset))
    ints = np.arange(18, dtype=np.int8).reshape(2, 3, 3)
    same(ember.linalg.trace(ember.asarray(ints)), np.linalg.trace(ints))
    same(ember.linalg.tensordot(ember.asarray(A), ember.asarray(A), axes=([1, 2], [1, 2])),
         np.linalg.tensordot(A, A, axes=([1, 2], [1, 2])), 1e-10)
    same(ember.linalg.matmul(ember.asarray(A), ember.asarray(A.transpose(0, 2, 1))),
         np.linalg.matmul(A, A.transpose(0, 2, 1)), 1e-10)


@pytest.mark.parametrize("call", [
    lambda xp: xp.linalg.outer(xp.ones((2, 2)), xp.ones(3)),
    lambda xp: xp.linalg.cross(xp.ones(2), xp.ones(2)),
])
def test_bad_inputs_raise_numpys_errors(call):
    with pytest.raises(ValueError) as want:
        call(np)
    with pytest.raises(ValueError, match=str(want.value).replace("(", r"\(").replace(")", r"\)")):
        call(ember)
