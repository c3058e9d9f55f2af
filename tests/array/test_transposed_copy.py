"""Copies of transposed views (tiles through local memory) against NumPy, every element size,
and the triangle of a column-major stack (how a Cholesky factor becomes C-ordered)."""

import ember
import numpy as np
import pytest
from ember import _ember
from ember._ndarray import _wrap

DTYPES = [np.bool_, np.int8, np.float16, np.int32, np.float32, np.float64, np.complex64, np.complex128]


def sample(shape, dtype, seed=5):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 100
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 2), (33, 65), (3, 40, 31), (1, 5, 7), (2, 3, 9, 4)])
def test_copies_of_transposed_views_match_numpy(dtype, shape):
    host = sample(shape, dtype)
    x = ember.asarray(host)
    for got, want in [
        (ember.swapaxes(x, -1, -2).copy(), np.swapaxes(host, -1, -2).copy()),
        (ember.ascontiguousarray(x.T) if x.ndim == 2 else x.mT.copy(), host.T if host.ndim == 2 else host.mT),
    ]:
        assert got.flags.c_contiguous and got.shape == want.shape
        np.testing.assert_array_equal(got.get(), want)


def test_transposed_views_that_are_not_whole_stacks_still_copy_right():
    host = sample((6, 40, 30), np.float64)
    x = ember.asarray(host)
    for view, want in [(x[1:4].mT, host[1:4].mT), (x[:, 2:].mT, host[:, 2:].mT), (x[::2].mT, host[::2].mT)]:
        np.testing.assert_array_equal(view.copy().get(), want)
    into = ember.zeros((30, 40))
    into[...] = x[2].T
    np.testing.assert_array_equal(into.get(), host[2].T)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
@pytest.mark.parametrize("lower", [True, False])
def test_triangle_of_column_major_stacks(dtype, lower):
    columns = sample((3, 37, 37), dtype)  # (batch, cols, rows): each matrix column-major
    got = _wrap(_ember.lapack_triangle(ember.asarray(columns)._a, lower)).get()
    matrices = np.swapaxes(columns, -1, -2)
    np.testing.assert_array_equal(got, np.tril(matrices) if lower else np.triu(matrices))
    # NaN in the dropped triangle is dropped, not multiplied by zero.
    columns[:, 0, 5] = np.nan  # matrix element (5, 0): below the diagonal
    got = _wrap(_ember.lapack_triangle(ember.asarray(columns)._a, False)).get()
    assert not np.isnan(got).any()


def test_triangle_refuses_a_stack_it_cannot_take():
    with pytest.raises(ValueError, match="3 axes"):
        _ember.lapack_triangle(ember.zeros((4, 4))._a, True)
