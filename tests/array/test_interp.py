"""``interp`` against NumPy, bit for bit: random points with duplicates, infinite and NaN
values, both ends, complex values, periods, one-point tables; errors with NumPy's messages."""

from __future__ import annotations

import ember
import numpy as np
import pytest


def table(rng, n=24):
    xp = np.sort(rng.standard_normal(n))
    xp[5] = xp[6]  # a repeated point
    fp = rng.standard_normal(n)
    fp[3], fp[10], fp[11] = np.inf, -np.inf, -np.inf  # NaN slopes: NumPy's fallbacks
    return xp, fp


def queries(rng, xp):
    return np.concatenate([rng.standard_normal(300) * 1.5, xp, [np.nan, np.inf, -np.inf, xp[0] - 1, xp[-1] + 1]])


def same_bits(got, want):
    got = got.get()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # NaN equal to NaN; every other value exactly


@pytest.mark.parametrize("kwargs", [{}, {"left": -7.0, "right": 9.5}, {"left": np.nan}])
def test_real_tables_match_numpy_exactly(rng, kwargs):
    xp, fp = table(rng)
    x = queries(rng, xp)
    same_bits(ember.interp(ember.asarray(x), ember.asarray(xp), ember.asarray(fp), **kwargs),
              np.interp(x, xp, fp, **kwargs))


def test_complex_values_match_numpy_exactly(rng):
    xp, _ = table(rng)
    fp = rng.standard_normal(xp.size) + 1j * rng.standard_normal(xp.size)
    fp[4] = complex(np.inf, 1.0)
    x = queries(rng, xp)
    same_bits(ember.interp(ember.asarray(x), ember.asarray(xp), ember.asarray(fp), left=2j),
              np.interp(x, xp, fp, left=2j))


def test_periodic_tables_match_numpy_exactly(rng):
    xp, fp = rng.uniform(-400, 400, 15), rng.standard_normal(15)
    x = rng.uniform(-720, 720, 200)
    same_bits(ember.interp(ember.asarray(x), ember.asarray(xp), ember.asarray(fp), period=-360),
              np.interp(x, xp, fp, period=-360))


@pytest.mark.parametrize("x", [0.5, 1.0, 1.5, np.nan])
def test_one_point_and_scalar_queries(x):
    same_bits(ember.interp(x, [1.0], [5.0], left=-1, right=2), np.asarray(np.interp(x, [1.0], [5.0], left=-1, right=2)))
    same_bits(ember.interp(x, [0, 1, 2], np.array([3, 2, 0], np.int32)),
              np.asarray(np.interp(x, [0, 1, 2], np.array([3, 2, 0], np.int32))))


@pytest.mark.parametrize("args,message", [
    (([1.0], [], [2.0]), "array of sample points is empty"),
    (([1.0], [1.0, 2.0], [2.0]), "fp and xp are not of the same length."),
    (([1.0], [[1.0, 2.0]], [[2.0, 3.0]]), "object too deep for desired array"),
])
def test_errors_have_numpys_class_and_message(args, message):
    with pytest.raises(ValueError, match=message):
        np.interp(*args)
    with pytest.raises(ValueError, match=message):
        ember.interp(*args)
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        ember.interp([1.0], [1.0, 2.0], [1.0, 2.0], period=0)
