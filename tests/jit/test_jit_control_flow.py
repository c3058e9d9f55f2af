"""The language of ``@cuda.jit`` kernels: comparisons and booleans, loops and branches, the
unified types of variables, tuples, augmented assignment and device functions, each compared
with the same Python on the host (see ``jit_kernels``)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from jit_harness import TPB, N, blocks, host, result_type, rows2, run
from jit_kernels import (
    CONTROL_FLOW,
    LOGIC,
    TUPLES,
    augmented,
    augmented_kernel,
    clamp,
    control_flow,
    device_calls,
    logic,
    positive_or_half,
    scaled_polar,
    tuples,
)

# ---- comparisons, booleans, control flow ----


def test_comparisons_chains_and_booleans_match_python(rng):
    a = rng.integers(-4, 5, N).astype(np.int64)
    b = (rng.integers(-8, 9, N) / 2).astype(np.float64)
    b[::13] = np.nan
    b[1::17] = np.inf
    b[2::19] = -np.inf
    got = run(LOGIC, 24, np.bool_, a, b)
    np.testing.assert_array_equal(got, host(logic, list(a), list(b), dtype=np.bool_))


def test_loops_branches_break_continue_and_else_clauses(rng):
    n = rng.integers(0, 20, N).astype(np.int64)
    m = rng.integers(-10, 10, N).astype(np.int64)
    m[::5] = n[::5]
    m[1::7] = 0
    got = run(CONTROL_FLOW, 5, np.int64, n, m)
    np.testing.assert_array_equal(got, host(control_flow, n.tolist(), m.tolist(), dtype=np.int64))


def unified(x, flag):
    v = x
    if flag:
        v = x / 4  # so v is float64 on every path
    w = 0
    for i in range(3):
        w = w + 0.5 * i  # int64 at first, float64 once the loop body is typed
    u = x and 2.5  # Python's `and` gives an operand: x when x is falsy
    z = (x > 3) or 1.5
    return v, w, u, z, (x if x > 0 else 0.5)


UNIFIED = rows2(unified)


def test_variables_take_the_unified_type_of_their_assignments(rng):
    x = rng.integers(-6, 7, N).astype(np.int64)
    x[:2] = [0, 5]
    flag = rng.integers(0, 2, N).astype(np.bool_)
    got = run(UNIFIED, 5, np.float64, x, flag)
    np.testing.assert_array_equal(got, host(unified, x.tolist(), flag.tolist(), dtype=np.float64))
    assert result_type(unified, "int64", "bool") == "(float64, float64, float64, float64, float64)"


# ---- tuples ----


def test_tuples_pack_unpack_index_slice_and_compare(rng):
    a = rng.integers(-9, 10, N).astype(np.int64)
    b = rng.integers(1, 6, N).astype(np.int64) * rng.choice([-1, 1], N)
    b[::4] = np.where(a[::4] == 0, 2, a[::4])
    got = run(TUPLES, 24, np.int64, a, b)
    np.testing.assert_array_equal(got, host(tuples, a.tolist(), b.tolist(), dtype=np.int64))


def test_augmented_assignment_on_variables_and_elements(rng):
    a = rng.integers(-1000, 1000, N).astype(np.int64)
    f = rng.standard_normal((N, 4))
    da, df = ember.asarray(a), ember.asarray(f)
    augmented_kernel[blocks(N), TPB](da, df)
    for i in range(N):
        augmented(a, f, i)
    np.testing.assert_array_equal(da.get(), a)
    np.testing.assert_array_equal(df.get(), f)


# ---- device functions ----


def test_device_functions_return_values_and_tuples_and_take_keywords(rng):
    x, y = rng.standard_normal(N) * 4, rng.standard_normal(N) * 4
    out = ember.zeros((N, 7))
    device_calls[blocks(N), TPB](ember.asarray(x), ember.asarray(y), out)
    r = np.minimum(np.maximum(np.hypot(x, y) * 2.0, 0.0), 10.0)
    t = np.arctan2(y, x)
    i = np.arange(N)
    want = np.stack([r, t, np.clip(y, -1, 1), np.clip(i, 2, 5), r + t, np.where(x > 0, x, 0.5),
                     np.where(i - 3 > 0, i - 3, 0.5)], axis=1)
    np.testing.assert_allclose(out.get(), want, rtol=1e-14)
    assert result_type(positive_or_half, "int64") == "float64"
    assert result_type(scaled_polar, "float32", "float32", "float64") == "(float64, float32)"
    with pytest.raises(TypeError, match="device function"):
        clamp(1, 2, 3)
