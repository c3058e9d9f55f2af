"""Layouts chosen by alignment and shape, checked against NumPy on both sides of each choice:
strided loops that take groups of 4 along a contiguous innermost axis (vector loads) or not,
and scans of long lines in tiles (striped by warps on CUDA, with vector loads and stores
where every line is 16-byte aligned, element by element where not)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from ember.testing import random_array


def test_broadcast_ops_with_and_without_grouped_innermost_axes(rng):
    # Innermost extent 8 (grouped) and 6 (not); a view one element in (misaligned); float16
    # (no vector loads).
    for dtype in ("float32", "int64", "float16"):
        for inner in (8, 6):
            a = random_array(rng, (5, 1, inner), dtype)
            b = random_array(rng, (1, 4, inner), dtype)
            np.testing.assert_array_equal((ember.asarray(a) + ember.asarray(b)).get(), a + b)
            wide = random_array(rng, (5, 4, inner + 1), dtype)
            view = wide[:, :, 1:]
            got = ember.asarray(wide)[:, :, 1:] * ember.asarray(b)
            np.testing.assert_array_equal(got.get(), view * b)


def test_tiles_and_broadcast_copies_group_or_not(rng):
    a = random_array(rng, (3, 8), "float32")
    d = ember.asarray(a)
    for reps in (4, (2, 3), (2, 1, 2)):
        np.testing.assert_array_equal(ember.tile(d, reps).get(), np.tile(a, reps))
    odd = random_array(rng, (3, 7), "int32")
    np.testing.assert_array_equal(ember.tile(ember.asarray(odd), (2, 2)).get(), np.tile(odd, (2, 2)))
    # A widening copy of a broadcast view: element by element.
    wide = ember.broadcast_to(d, (2, 3, 8)).astype(np.float64)
    np.testing.assert_array_equal(wide.get(), np.broadcast_to(a, (2, 3, 8)).astype(np.float64))


def test_elementwise_kernels_may_read_their_outputs_in_grouped_loops(rng):
    accumulate = ember.ElementwiseKernel("T x", "T y", "y += x", "accumulate_into")
    x = random_array(rng, (1, 16), "float32")
    y0 = random_array(rng, (6, 16), "float32")
    y = ember.asarray(y0)
    accumulate(ember.asarray(x), y)
    np.testing.assert_array_equal(y.get(), y0 + x)


@pytest.mark.parametrize(
    "dtype, shape, axis",
    [
        ("int64", (3, 40001), 1),  # several tiles a line, lines side by side
        ("int32", (40001,), 0),  # int64 output lines not 16-byte multiples
        ("bool", (2, 3, 20000), -1),
        ("float64", (70001,), None),
    ],
)
def test_long_scans_match_numpy_exactly_where_it_is_exact(rng, dtype, shape, axis):
    if dtype == "float64":
        # Integers in float64: every partial sum exact, so any order of adding agrees.
        x = rng.integers(-50, 50, shape).astype(np.float64)
    else:
        x = random_array(rng, shape, dtype)
    d = ember.asarray(x)
    np.testing.assert_array_equal(ember.cumsum(d, axis=axis).get(), np.cumsum(x, axis=axis))
    if dtype == "int64":
        # A view one element in: its lines start off 16-byte alignment.
        np.testing.assert_array_equal(ember.cumsum(d[:, 1:], axis=1).get(), np.cumsum(x[:, 1:], axis=1))
        signs = np.where(x % 7 == 0, -1, 1).astype(np.int64)
        np.testing.assert_array_equal(ember.cumprod(ember.asarray(signs), axis=1).get(), np.cumprod(signs, axis=1))


def test_complex_products_scan_across_tiles(rng):
    # Unit-modulus factors: the running product stays on the circle, so rounding errors
    # stay near the float64 epsilon times the count.
    theta = rng.uniform(-np.pi, np.pi, 50000)
    z = np.exp(1j * theta)
    got = ember.cumprod(ember.asarray(z)).get()
    np.testing.assert_allclose(got, np.cumprod(z), rtol=0, atol=1e-9)
