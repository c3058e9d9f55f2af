"""bincount, digitize, histogram (every bin rule), histogram_bin_edges, histogram2d and
histogramdd against NumPy: counts exactly, edges bit for bit, weighted sums to rounding;
NumPy's errors."""

from __future__ import annotations

import ember
import numpy as np
import pytest


def test_bincount_counts_in_shared_memory_and_beyond(rng):
    small = rng.integers(0, 50, 20000)
    got = ember.bincount(ember.asarray(small))
    assert got.dtype == np.intp
    np.testing.assert_array_equal(got.get(), np.bincount(small))
    # More bins than a block's shared histogram holds: global atomics.
    wide = rng.integers(0, 9000, 3000).astype(np.int32)
    np.testing.assert_array_equal(ember.bincount(ember.asarray(wide), minlength=9500).get(),
                                  np.bincount(wide, minlength=9500))
    w = rng.random(20000)
    np.testing.assert_allclose(ember.bincount(ember.asarray(small), weights=ember.asarray(w)).get(),
                               np.bincount(small, weights=w), rtol=1e-12)
    b = rng.random(100) < 0.3
    np.testing.assert_array_equal(ember.bincount(ember.asarray(b)).get(), np.bincount(b))
    empty = ember.bincount(ember.asarray(np.zeros(0, np.int64)), minlength=3)
    np.testing.assert_array_equal(empty.get(), np.bincount(np.zeros(0, np.int64), minlength=3))


@pytest.mark.parametrize(
    "x, kwargs, error, message",
    [
        (np.array([1, -1]), {}, ValueError, "must have no negative elements"),
        (np.array([[1, 2]]), {}, ValueError, "object too deep"),
        (np.array([1.5, 2.0]), {}, TypeError, "Cannot cast array data"),
        (np.array([1, 2]), {"minlength": -1}, ValueError, "'minlength' must not be negative"),
        (np.array([1, 2]), {"weights": np.ones(3)}, ValueError, "don't have the same length"),
    ],
)
def test_bincount_errors_are_numpys(x, kwargs, error, message):
    with pytest.raises(error, match=message):
        np.bincount(x, **kwargs)
    dev = {k: ember.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    with pytest.raises(error, match=message):
        ember.bincount(ember.asarray(x), **dev)


def test_digitize_either_direction_either_side(rng):
    x = rng.standard_normal(500)
    x[:3] = [-1.0, 0.0, np.nan]
    d = ember.asarray(x)
    for bins in ([-1.0, 0.0, 1.0], [1.0, 0.0, -1.0], [0.0, 0.0, 2.0]):
        for right in (False, True):
            np.testing.assert_array_equal(ember.digitize(d, bins, right=right).get(), np.digitize(x, bins, right=right))
    with pytest.raises(ValueError, match="monotonically increasing or decreasing"):
        ember.digitize(d, [0.0, 2.0, 1.0])


@pytest.mark.parametrize("bins", [10, 7, "auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"])
def test_histogram_bins_and_edges_are_numpys(rng, bins):
    a = rng.standard_normal(3000).astype(np.float32)
    counts, edges = ember.histogram(ember.asarray(a), bins=bins)
    want_counts, want_edges = np.histogram(a, bins=bins)
    assert counts.dtype == want_counts.dtype and edges.dtype == want_edges.dtype
    np.testing.assert_array_equal(counts.get(), want_counts)
    np.testing.assert_array_equal(edges.get(), want_edges)
    np.testing.assert_array_equal(ember.histogram_bin_edges(ember.asarray(a), bins=bins).get(),
                                  np.histogram_bin_edges(a, bins=bins))


def test_histogram_ranges_edges_weights_density_and_integers(rng):
    a = rng.standard_normal(4000)
    a[:2] = [np.inf, 1.5]  # outside the range below; on an edge
    d = ember.asarray(a)
    for kwargs in ({"bins": 20, "range": (-1, 1.5)}, {"bins": [-3, -1, 0, 0.5, 1.5, 4]},
                   {"bins": 12, "range": (-2, 2), "density": True}):
        got, edges = ember.histogram(d, **kwargs)
        want, want_edges = np.histogram(a, **kwargs)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)
        np.testing.assert_array_equal(edges.get(), want_edges)
    w = rng.random(4000).astype(np.float32)
    got, _ = ember.histogram(d, bins=9, range=(-2, 2), weights=ember.asarray(w))
    want, _ = np.histogram(a, bins=9, range=(-2, 2), weights=w)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.get(), want, rtol=1e-5)
    i16 = rng.integers(-30000, 30000, 2000).astype(np.int16)
    got, edges = ember.histogram(ember.asarray(i16), bins=13)
    want, want_edges = np.histogram(i16, bins=13)
    np.testing.assert_array_equal(got.get(), want)
    np.testing.assert_array_equal(edges.get(), want_edges)


def test_histogram_errors_are_numpys(rng):
    d = ember.asarray(rng.standard_normal(10))
    for kwargs, error, message in (
        ({"bins": 0}, ValueError, "`bins` must be positive"),
        ({"bins": [1, 0, 2]}, ValueError, "`bins` must increase monotonically"),
        ({"bins": "nope"}, ValueError, "'nope' is not a valid estimator"),
        ({"bins": 5, "range": (2, 1)}, ValueError, "max must be larger than min"),
        ({"bins": "auto", "weights": np.ones(10)}, TypeError, "not supported for weighted data"),
    ):
        with pytest.raises(error, match=message):
            np.histogram(d.get(), **kwargs)
        dev = {k: ember.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        with pytest.raises(error, match=message):
            ember.histogram(d, **dev)
    inf = ember.asarray(np.array([1.0, np.inf]))
    with pytest.raises(ValueError, match="autodetected range of"):
        ember.histogram(inf)


def test_histogram2d_and_dd(rng):
    x, y = rng.standard_normal(3000), rng.standard_normal(3000)
    x[0], y[0] = 4.0, 4.0
    got, xe, ye = ember.histogram2d(ember.asarray(x), ember.asarray(y), bins=(5, [-2, 0, 1, 4.0]))
    want, wxe, wye = np.histogram2d(x, y, bins=(5, [-2, 0, 1, 4.0]))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)
    np.testing.assert_array_equal(xe.get(), wxe)
    np.testing.assert_array_equal(ye.get(), wye)
    s = rng.standard_normal((2000, 3))
    got, edges = ember.histogramdd(ember.asarray(s), bins=(3, 4, 5), density=True)
    want, want_edges = np.histogramdd(s, bins=(3, 4, 5), density=True)
    np.testing.assert_allclose(got.get(), want, rtol=1e-12)
    for e, w in zip(edges, want_edges, strict=True):
        np.testing.assert_array_equal(e.get(), w)
