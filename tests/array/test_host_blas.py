"""Matrix products on a CPU device through the host's BLAS (``ember._host_blas``): products large
enough to take that path, against NumPy, in every form ``matmul`` takes."""

import ember
import numpy as np
import pytest
from ember.testing import random_array

cpu_device = pytest.mark.skipif(
    ember.backend() != "opencl" or not ember.Device(0).attributes["host_unified"],
    reason="the host's BLAS serves CPU devices only",
)

TOL = {np.float32: 2e-5, np.float64: 1e-12, np.complex64: 2e-5, np.complex128: 1e-12}


def _close(got, want, dtype):
    assert got.dtype == want.dtype and got.shape == want.shape
    scale = np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL[dtype] * 64 * scale)


@cpu_device
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128], ids=str)
@pytest.mark.parametrize("shapes", [((96, 80), (80, 70)), ((3, 1, 64, 72), (5, 72, 64)), ((100,), (3, 100, 90)),
                                    ((2, 90, 100), (100,))], ids=str)
def test_products_match_numpy(rng, dtype, shapes):
    a, b = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    _close((ember.asarray(a) @ ember.asarray(b)).get(), a @ b, dtype)


@cpu_device
def test_views_mixed_dtypes_and_conjugated_products(rng):
    a, b = random_array(rng, (120, 90), np.float64), random_array(rng, (120, 100), np.float64)
    ea, eb = ember.asarray(a), ember.asarray(b)
    _close((ea.T @ eb).get(), a.T @ b, np.float64)  # a transposed view
    i8 = rng.integers(-5, 5, (90, 120)).astype(np.int8)
    got = ember.asarray(i8) @ ember.asarray(b.astype(np.float32))  # int8 @ float32 -> float32
    _close(got.get(), i8 @ b.astype(np.float32), np.float32)
    c = random_array(rng, (300_000,), np.complex128)
    d = random_array(rng, (300_000,), np.complex128)
    got = ember.vdot(ember.asarray(c), ember.asarray(d))
    np.testing.assert_allclose(complex(got.get()), np.vdot(c, d), rtol=1e-10)  # conjugated on the host


@cpu_device
def test_out_and_in_place_products(rng):
    a, b = random_array(rng, (128, 128), np.float32), random_array(rng, (128, 128), np.float32)
    ea, eb = ember.asarray(a), ember.asarray(b)
    out = ember.empty((128, 128), dtype=np.float32)
    assert ember.matmul(ea, eb, out=out) is out
    _close(out.get(), a @ b, np.float32)
    ea @= eb  # the output is an input: NumPy's matmul reads a copy
    _close(ea.get(), a @ b, np.float32)
    ember.add(ea, 1, out=ea)  # later kernels see the host's result
    _close(ea.get(), a @ b + 1, np.float32)


@cpu_device
def test_a_product_waits_for_the_work_that_writes_its_operands(rng):
    a = ember.arange(256 * 256, dtype=np.float64).reshape(256, 256)
    b = ember.sin(a) * ember.cos(a) + ember.exp(-a / 1e4)  # still running when the product starts
    h = np.arange(256 * 256, dtype=np.float64).reshape(256, 256)
    hb = np.sin(h) * np.cos(h) + np.exp(-h / 1e4)
    _close((b @ b).get(), hb @ hb, np.float64)


@cpu_device
def test_mismatched_shapes_raise_numpys_error():
    with pytest.raises(ValueError, match="matmul"):
        ember.ones((200, 300)) @ ember.ones((200, 300))
