"""quantile, percentile, their NaN-ignoring forms and nanmedian against NumPy: every method,
bit for bit (same dtype, same values, NaN where NumPy has NaN), NumPy's warnings and errors."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

METHODS = [
    "inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
    "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint", "nearest",
]


def same(got, want):
    want = np.asarray(want)
    assert isinstance(got, ember.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    np.testing.assert_array_equal(got.get(), want)


def both(fn, *args, **kwargs):
    """NumPy's answer and ember's to ``fn`` (a function name) of host ``args`` (arrays go to
    the device for ember), warnings silenced (they are tested apart)."""
    dev = [ember.asarray(a) if isinstance(a, np.ndarray) and a.ndim else a for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return getattr(np, fn)(*args, **kwargs), getattr(ember, fn)(*dev, **kwargs)


@pytest.mark.parametrize("method", METHODS)
def test_every_method_matches_numpy_bit_for_bit(rng, method):
    a = (rng.standard_normal((6, 11)) * 10).astype(np.float32)
    a[2, 5] = np.nan
    ints = rng.integers(-100, 100, (6, 11)).astype(np.int16)
    for q in (0.3, [0.0, 0.25, 0.5, 0.77, 1.0], np.float32(0.4)):
        for x, axis in ((a, 1), (a, None), (ints, 0), (ints, (0, 1))):
            for fn in ("quantile", "nanquantile"):
                want, got = both(fn, x, q, axis=axis, method=method)
                same(got, want)
    want, got = both("percentile", a, [10, 90], axis=0, method=method, keepdims=True)
    same(got, want)


@st.composite
def samples(draw):
    dtype = draw(st.sampled_from(["float64", "float32", "int32"]))
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=ndim, max_size=ndim)))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    # Few distinct values: duplicates are common.
    base = rng.integers(-4, 5, shape).astype(dtype) * (1.5 if dtype != "int32" else 1)
    if dtype != "int32" and draw(st.booleans()):
        base.flat[rng.integers(0, base.size, 2)] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    step = draw(st.sampled_from([1, -1, 2]))
    axis = draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)))
    q = draw(st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=3)))
    return base, step, axis, q, draw(st.sampled_from(["linear", "hazen", "nearest", "midpoint"]))


@settings(max_examples=25, deadline=None)
@given(samples())
def test_views_axes_duplicates_and_infinities(case):
    base, step, axis, q, method = case
    view = base[..., ::step]
    d = ember.asarray(base)[..., ::step]
    for fn in ("quantile", "nanquantile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = getattr(np, fn)(view, q, axis=axis, method=method)
            got = getattr(ember, fn)(d, q, axis=axis, method=method)
        same(got, want)


def test_weights_choose_by_cumulative_weight(rng):
    a = (rng.standard_normal((5, 8)) * 5).round(2)
    w = rng.integers(0, 4, (5, 8)).astype(np.float64)
    w[:, 0] = 0  # leading zero weights
    w[w.sum(axis=1) == 0, 3] = 1
    for axis, q in ((1, 0.0), (1, [0.2, 0.5, 1.0]), (None, 0.6)):
        want, got = both("quantile", a, q, axis=axis, method="inverted_cdf", weights=w)
        same(got, want)
    want, got = both("percentile", a, [30, 70], axis=1, method="inverted_cdf", weights=w[0])
    same(got, want)
    an = a.copy()
    an[2, [1, 4]] = np.nan
    want, got = both("nanquantile", an, [0.3, 0.8], axis=1, method="inverted_cdf", weights=w)
    same(got, want)


def test_nan_forms_ignore_nan_and_warn_on_all_nan_slices(rng):
    a = rng.standard_normal((4, 7))
    a[1] = np.nan
    a[3, [0, 5]] = np.nan
    d = ember.asarray(a)
    for fn, args in (("nanquantile", ([0.2, 0.6],)), ("nanpercentile", (40,)), ("nanmedian", ())):
        with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
            got = getattr(ember, fn)(d, *args, axis=1, keepdims=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = getattr(np, fn)(a, *args, axis=1, keepdims=True)
        same(got, want)
    for axis in (None, 0, (0, 1)):
        want, got = both("nanmedian", a[[0, 2, 3]], axis=axis)
        same(got, want)


def test_out_and_integer_results(rng):
    a = rng.standard_normal((3, 10))
    out = ember.empty((2, 10))
    assert ember.percentile(ember.asarray(a), [10, 90], axis=0, out=out) is out
    np.testing.assert_array_equal(out.get(), np.percentile(a, [10, 90], axis=0))
    ints = np.arange(12, dtype=np.int8).reshape(3, 4)
    want, got = both("quantile", ints, 0.5, axis=1, method="lower")
    same(got, want)  # int8 kept: no interpolation


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda m, a: m.quantile(a, 1.5), ValueError, "Quantiles must be in the range"),
        (lambda m, a: m.percentile(a, -1), ValueError, "Percentiles must be in the range"),
        (lambda m, a: m.quantile(a, 0.5, method="foo"), ValueError, "'foo' is not a valid method"),
        (lambda m, a: m.quantile(a.astype(complex), 0.5), TypeError, "a must be an array of real numbers"),
        (lambda m, a: m.quantile(a, 0.5, weights=a), ValueError, "Only method 'inverted_cdf' supports weights"),
        (lambda m, a: m.quantile(a, 0.5, method="inverted_cdf", weights=-a * a), ValueError, "non-negative"),
        (lambda m, a: m.quantile(a, [[[0.5]]]), ValueError, "q must be a scalar or 1d"),
        (lambda m, a: m.quantile(a, 0.5, axis=2), np.exceptions.AxisError, "axis 2 is out of bounds"),
        (lambda m, a: m.quantile(a[:0], 0.5, axis=0), IndexError, "out of bounds"),
    ],
)
def test_errors_are_numpys(rng, call, error, message):
    a = rng.standard_normal((3, 4))
    with pytest.raises(error, match=message):
        call(np, a)
    with pytest.raises(error, match=message):
        call(ember, ember.asarray(a))
