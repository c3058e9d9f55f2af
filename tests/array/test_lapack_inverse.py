"""ember's small-matrix inverse (Gauss-Jordan with partial pivoting, many matrices a launch):
against NumPy's LAPACK, its pivoting and singular cases against LAPACK's getrf, and on the
GPU layout (many matrices a group) on the CPU device too."""

import ember
import numpy as np
import pytest
import scipy.linalg.lapack as lapack
from ember import _ember
from ember._ndarray import _wrap

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
EPS = {np.float32: 1.2e-7, np.complex64: 1.2e-7, np.float64: 2.2e-16, np.complex128: 2.2e-16}


def random(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def invert(a):
    x, info = _ember.lapack_inverse(ember.asarray(a)._a)
    return _wrap(x).get(), _wrap(info).get()


def check_backward_error(a, x, dtype):
    """|A X - I| within a modest multiple of n eps |A| |X| for each matrix."""
    n = a.shape[-1]
    a64, x64 = a.astype(np.complex128), x.astype(np.complex128)
    residual = np.abs(a64 @ x64 - np.eye(n)).max(axis=(-2, -1))
    bound = 40 * n * EPS[dtype] * np.abs(a64).max(axis=(-2, -1)) * np.abs(x64).max(axis=(-2, -1))
    assert (residual <= bound).all(), (residual / bound).max()


@pytest.fixture(params=["narrow", "wide"])
def layout(request, monkeypatch):
    """The CPU device's layout (few threads a matrix) and the GPU one (groups of 256 threads,
    several matrices each), both on whatever device runs the tests."""
    if request.param == "wide":
        monkeypatch.setenv("EMBER_LAPACK_GPU_SHAPES", "1")
    return request.param


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 7, 8, 19, 32])
def test_inverses_match_numpy(layout, dtype, n):
    rng = np.random.default_rng(100 + n)
    a = random(rng, (37, n, n), dtype)  # 37: the last group of the GPU layout is partial
    x, info = invert(a)
    assert x.dtype == dtype and x.shape == a.shape and not info.any()
    check_backward_error(a, x, dtype)
    ref = np.linalg.inv(a.astype(np.complex128))
    cond = np.linalg.cond(a.astype(np.complex128)).max()
    np.testing.assert_allclose(x, ref, rtol=0, atol=50 * n * EPS[dtype] * cond * np.abs(ref).max())


def test_pivoting_gives_exact_inverses_of_permutations(layout):
    rng = np.random.default_rng(7)
    perms = np.stack([np.eye(9)[rng.permutation(9)] for _ in range(20)])
    x, info = invert(perms)
    assert not info.any()
    np.testing.assert_array_equal(x, perms.transpose(0, 2, 1))  # exact: only 0s and 1s move
    # A zero leading entry needs a row interchange at once.
    x, _ = invert(np.array([[[0.0, 2.0], [4.0, 0.0]]]))
    np.testing.assert_array_equal(x[0], [[0.0, 0.25], [0.5, 0.0]])


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_info_is_getrfs_for_singular_matrices(layout, dtype):
    rng = np.random.default_rng(11)
    a = random(rng, (6, 5, 5), dtype)
    a[1, :, 2] = 0  # a zero column: its pivot is exactly zero whatever the rounding
    a[4] = 0  # the zero matrix: first pivot is zero
    a[5, 3] = 0  # a zero row: the last pivot is zero
    _, info = invert(a)
    getrf = lapack.get_lapack_funcs("getrf", dtype=dtype)
    want = [getrf(m)[2] for m in a]
    np.testing.assert_array_equal(info, want)
    assert info[0] == 0 and info[1] == 3 and info[4] == 1 and info[5] > 0


def test_linalg_inv_raises_for_a_singular_matrix_in_a_stack_and_goes_on():
    a = np.stack([np.eye(3), np.ones((3, 3)), 2 * np.eye(3)])
    with pytest.raises(ember.linalg.LinAlgError, match="^Singular matrix$"):
        ember.linalg.inv(ember.asarray(a))
    got = ember.linalg.inv(ember.asarray(a[[0, 2]]))
    np.testing.assert_array_equal(got.get(), np.linalg.inv(a[[0, 2]]))


def test_bad_stacks_raise_clear_errors():
    with pytest.raises(ValueError, match="order at most 32, got 33 x 33"):
        _ember.lapack_inverse(ember.zeros((1, 33, 33))._a)
    with pytest.raises(ValueError, match="square matrices"):
        _ember.lapack_inverse(ember.zeros((1, 3, 4))._a)
    with pytest.raises(TypeError, match="not int64"):
        _ember.lapack_inverse(ember.zeros((1, 3, 3), dtype=np.int64)._a)
    with pytest.raises(ValueError, match="axes"):
        _ember.lapack_inverse(ember.zeros((3, 3))._a)
    x, info = invert(np.zeros((0, 4, 4)))
    assert x.shape == (0, 4, 4) and info.shape == (0,)
