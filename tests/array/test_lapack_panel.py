"""ember's LU panels as GPUs factor them (EMBER_LAPACK_GPU_SHAPES=1 on PoCL): blocks of 128
columns, each split once into blocks of 64 factored left-looking by the register-held leaf
(Kernel::LuLeaf: 512 threads of 8 rows, 8/4/4/2 columns a launch for float32 / float64 /
complex64 / complex128), against SciPy's LAPACK (lu_factor: same pivots, same info).

Tolerances as in test_lapack_lu.py: reconstructions to ``30 * n * eps * max|A|``.
"""

import numpy as np
import pytest
import scipy.linalg as sla
from ember import _ember
from ember._ndarray import _wrap
from test_lapack_lu import DTYPES, eps, random, reconstruct_lu, to_device, to_host

pytestmark = pytest.mark.usefixtures("ember_lapack_kernels")


@pytest.fixture(autouse=True)
def gpu_shapes(monkeypatch):
    monkeypatch.setenv("EMBER_LAPACK_GPU_SHAPES", "1")


def getrf(a):
    x = to_device(a)
    piv, info = _ember.lapack_getrf(x._a)
    return to_host(x), _wrap(piv).get(), _wrap(info).get()


@pytest.mark.parametrize("dtype", DTYPES)
def test_gpu_panels_match_lu_factor(dtype):
    rng = np.random.default_rng(11)
    # 65: one block (whole in local memory past 64); 200: a panel split at 64 then a partial
    # one; 300: three panels, the last of 44 columns (leaves of fewer columns than the shape).
    for n, batch in [(65, 2), (200, 1), (300, 1)]:
        a = random(rng, (batch, n, n), dtype)
        lu, piv, info = getrf(a)
        assert (info == 0).all()
        for k in range(batch):
            ref_lu, ref_piv = sla.lu_factor(a[k])
            np.testing.assert_array_equal(piv[k], ref_piv + 1, err_msg=f"n={n}")
            err = np.abs(reconstruct_lu(lu[k].astype(np.complex128), piv[k] - 1) - a[k]).max()
            assert err <= 30 * n * eps(dtype) * np.abs(a[k]).max(), (n, err)
            np.testing.assert_allclose(lu[k], ref_lu, rtol=0, atol=1e4 * n * eps(dtype) * np.abs(a).max())


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_gpu_panels_record_the_first_zero_pivot(dtype):
    rng = np.random.default_rng(12)
    # Zero columns inside a leaf, at a leaf's first column, past the first block of 64, in
    # the second panel; and equal rows (exact elimination to zero in a later column).
    for n, zero in [(150, 3), (150, 64), (150, 100), (150, 149)]:
        a = random(rng, (2, n, n), dtype)
        a[0, :, zero] = 0
        lu, piv, info = getrf(a)
        for k in range(2):
            ref_lu, ref_piv, ref_info = sla.get_lapack_funcs(("getrf",), (a[k],))[0](a[k])
            assert info[k] == ref_info, (n, zero, k, info[k], ref_info)
            np.testing.assert_array_equal(piv[k], ref_piv + 1)
            err = np.abs(reconstruct_lu(lu[k].astype(np.complex128), piv[k] - 1) - a[k]).max()
            assert err <= 30 * n * eps(dtype) * np.abs(a[k]).max()
        assert info[0] == zero + 1 and info[1] == 0
    a = random(rng, (1, 100, 100), dtype)
    a[0, 70] = a[0, 20]  # rank 99: U's last pivot is 0 (or rounding-small; LAPACK's info decides)
    _, piv, info = getrf(a)
    _, ref_piv, ref_info = sla.get_lapack_funcs(("getrf",), (a[0],))[0](a[0])
    assert info[0] == ref_info
    np.testing.assert_array_equal(piv[0], ref_piv + 1)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_gpu_panels_solve(dtype):
    rng = np.random.default_rng(13)
    n, nrhs = 260, 9
    a = random(rng, (1, n, n), dtype) + n**0.5 * np.eye(n, dtype=dtype)
    b = random(rng, (1, n, nrhs), dtype)
    x = to_device(a)
    piv, info = _ember.lapack_getrf(x._a)
    xb = to_device(b)
    _ember.lapack_getrs(x._a, piv, xb._a)
    ref = np.linalg.solve(a.astype(np.complex128), b.astype(np.complex128))
    got = to_host(xb)
    np.testing.assert_allclose(got, ref, rtol=0, atol=200 * n * eps(dtype) * np.abs(ref).max())
