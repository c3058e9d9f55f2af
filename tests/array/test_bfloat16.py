"""bfloat16 (ml_dtypes' dtype, the one NumPy code and JAX use): stored as float32's top half,
computed in float32 and rounded to nearest even after each operation, like float16. The
reference is NumPy with ml_dtypes, which computes each operation in float32 and rounds."""

from __future__ import annotations

import ember
import ml_dtypes
import numpy as np
import pytest
from ember import cuda

BF16 = np.dtype(ml_dtypes.bfloat16)
ULP = 2.0**-7  # bfloat16 keeps 8 significant bits


def values(rng, n=500) -> np.ndarray:
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 3e38]
    return x.astype(BF16)


def same(got: np.ndarray, want: np.ndarray, ulps: float = 0) -> None:
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    g, w = got.astype(np.float64), want.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    ok = ~np.isnan(w)
    if ulps == 0:
        np.testing.assert_array_equal(g[ok], w[ok])
    else:
        np.testing.assert_allclose(g[ok], w[ok], rtol=ulps * ULP, atol=0)


def test_arrays_hold_bfloat16_and_round_trip_through_the_host(rng):
    x = values(rng)
    a = ember.asarray(x)
    assert a.dtype == BF16 and a.dtype.name == "bfloat16" and a.itemsize == 2
    same(a.get(), x)
    same(ember.zeros(4, dtype="bfloat16").get(), np.zeros(4, BF16))
    same(ember.full(3, 1e-3, dtype=ember.bfloat16).get(), np.full(3, 1e-3, BF16))
    same(a.astype(np.float32).get(), x.astype(np.float32))
    same(ember.asarray(x.astype(np.float32)).astype("bfloat16").get(), x)  # float32 -> bfloat16 rounds


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "minimum"])
def test_arithmetic_rounds_as_numpy_with_ml_dtypes(name, rng):
    x, y = values(rng), values(rng)[::-1].copy()
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x, y)
    same(getattr(ember, name)(ember.asarray(x), ember.asarray(y)).get(), want)


@pytest.mark.parametrize("name", ["sqrt", "exp", "log", "sin", "tanh", "negative", "absolute", "floor"])
def test_functions_round_as_numpy_with_ml_dtypes(name, rng):
    x = values(rng)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x)
    # float32's transcendental functions differ by an ulp between libraries: one bfloat16 ulp.
    exact = name in ("sqrt", "negative", "absolute", "floor")
    same(getattr(ember, name)(ember.asarray(x)).get(), want, ulps=0 if exact else 1)


def test_comparisons_and_classification():
    x = np.array([1, -1, np.nan, np.inf, 0], BF16)
    a = ember.asarray(x)
    np.testing.assert_array_equal((a < 0.5).get(), x < 0.5)
    np.testing.assert_array_equal(ember.isnan(a).get(), np.isnan(x))
    np.testing.assert_array_equal(ember.isfinite(a).get(), np.isfinite(x))


def test_promotion_follows_numpys_float16_rules():
    a = ember.asarray(np.ones(3, BF16))
    assert (a + ember.ones(3, np.float32)).dtype == np.float32
    assert (a + ember.ones(3, np.int8)).dtype == BF16
    assert (a + ember.ones(3, np.int32)).dtype == np.float64  # as float16 + int32
    assert (a + ember.ones(3, np.float16)).dtype == np.float32  # as JAX and PyTorch
    assert (a + 1.5).dtype == BF16  # a Python float is weak (NEP 50), as for float16
    assert (a * 2).dtype == BF16


def test_reductions_accumulate_in_float32(rng):
    x = rng.uniform(-1, 1, 4096).astype(BF16)
    a = ember.asarray(x)
    exact = x.astype(np.float64)
    s = a.sum()
    assert s.dtype == BF16
    np.testing.assert_allclose(float(s.get()), exact.sum(), rtol=ULP, atol=ULP)
    np.testing.assert_allclose(float(a.mean().get()), exact.mean(), rtol=ULP, atol=ULP / 64)
    assert float(a.max().get()) == exact.max() and float(a.min().get()) == exact.min()


def test_elementwise_kernel_snippets_compute_in_float_and_store_rounded(rng):
    x, y = values(rng), values(rng)
    k = ember.ElementwiseKernel("T x, T y", "T z", "z = x * y + 1", "ember_test_bf16_fma")
    got = k(ember.asarray(x), ember.asarray(y)).get()
    with np.errstate(all="ignore"):
        # Computed in float32 (contracted or not: both round to the same bfloat16 but for ties).
        want = (x.astype(np.float32) * y.astype(np.float32) + 1).astype(BF16)
    same(got, want, ulps=1)


@cuda.jit
def scale_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * 2 + b[i]


def test_jit_kernels_take_bfloat16_arrays_and_round_each_operation(rng):
    x, y = values(rng), values(rng)
    out = ember.empty(x.size, "bfloat16")
    scale_add[(x.size + 63) // 64, 64](ember.asarray(x), ember.asarray(y), out)
    with np.errstate(all="ignore"):
        want = x * BF16.type(2) + y  # each operation rounded to bfloat16, as ml_dtypes does
    same(out.get(), want)
