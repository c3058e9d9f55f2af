"""NumPy parity of sorting and what is built on it: ``sort``/``argsort`` (stable, NumPy's
order of NaN, -0.0 and complex values), ``searchsorted``, ``isin``, ``unique`` and the set
functions, on views of every dtype (the parity sweep of ``parity_cases``) and fixed-seed
cases with duplicates and special values."""

from __future__ import annotations

import ember as cp
import numpy as np
import pytest
from ember.testing import DTYPE_NAMES, parity
from ember.testing.strategies import SHAPES, operands, run_sweep
from hypothesis import strategies as st

RNG_SEED = 20261126


def _axis(data, ndim):
    choices = st.integers(-ndim, ndim - 1) if ndim else st.just(-1)
    return data.draw(st.one_of(st.none(), choices), label="axis")


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_sort_and_stable_argsort_match_numpy_on_views(dtype):
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        axis = _axis(data, len(shape)) if shape else None
        parity(lambda xp, x: xp.sort(x, axis=axis), [n], [e], tally, rtol=0)
        parity(lambda xp, x: xp.argsort(x, axis=axis, kind="stable"), [n], [e], tally, rtol=0)

    run_sweep(body, f"sort-{dtype}", examples=5)


def _with_duplicates(dtype, size, rng):
    d = np.dtype(dtype)
    if d.kind == "b":
        return rng.random(size) < 0.5
    if d.kind in "iu":
        return rng.integers(0, 6, size).astype(d)
    values = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 3.0], dtype=np.float64)
    if d.kind == "c":
        parts = rng.choice(values, (2, size))
        out = np.empty(size, dtype=d)
        out.real, out.imag = parts  # not parts[0] + 1j * parts[1]: inf * 1j makes NaN
        return out
    return rng.choice(values, size).astype(d)


@pytest.mark.parametrize("dtype", ["float64", "float16", "complex64", "int16", "uint64", "bool"])
def test_searchsorted_isin_and_unique_match_numpy_with_duplicates_and_specials(dtype):
    rng = np.random.default_rng(RNG_SEED)
    h = _with_duplicates(dtype, 300, rng)
    if np.dtype(dtype).kind == "c":
        # NumPy builds complex NaN from the parts; keep every NaN-part class present.
        h[:4] = np.array([complex(1, np.nan), complex(np.nan, 2), complex(np.nan, np.nan), complex(-0.0, 0)])
    a = cp.asarray(h)
    ordered = np.sort(h)
    probes = _with_duplicates(dtype, 40, rng).reshape(5, 8)
    for side in ("left", "right"):
        got = cp.searchsorted(cp.asarray(ordered), cp.asarray(probes), side=side)
        np.testing.assert_array_equal(got.get(), np.searchsorted(ordered, probes, side=side))
    sorter = np.argsort(h, kind="stable")
    np.testing.assert_array_equal(cp.searchsorted(a, cp.asarray(probes), sorter=cp.asarray(sorter)).get(),
                                  np.searchsorted(h, probes, sorter=sorter))
    for invert in (False, True):
        np.testing.assert_array_equal(cp.isin(cp.asarray(probes), a[::7], invert=invert).get(),
                                      np.isin(probes, h[::7], invert=invert))
    for equal_nan in (True, False):
        got = cp.unique(a, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan)
        want = np.unique(h, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
            np.testing.assert_array_equal(g.get(), w)


def test_unique_along_an_axis_and_the_array_api_forms_match_numpy():
    rng = np.random.default_rng(RNG_SEED)
    h = rng.integers(0, 3, (12, 3, 2)).astype(np.int32)
    for axis in (0, 1, -1):
        got = cp.unique(cp.asarray(h), axis=axis, return_index=True, return_inverse=True, return_counts=True)
        want = np.unique(h, axis=axis, return_index=True, return_inverse=True, return_counts=True)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g.get(), w)
    x = np.array([[3.0, np.nan], [1.0, 3.0]])
    for name in ("unique_all", "unique_counts", "unique_inverse"):
        got, want = getattr(cp, name)(cp.asarray(x)), getattr(np, name)(x)
        assert type(got).__name__ == type(want).__name__
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g.get(), w)
    np.testing.assert_array_equal(cp.unique_values(cp.asarray(x)).get(), np.unique_values(x))
    assert cp.unique(cp.zeros((0, 3))).shape == (0,)


def test_set_functions_match_numpy():
    rng = np.random.default_rng(RNG_SEED)
    a, b = rng.integers(0, 12, 30), rng.integers(5, 20, (4, 5))
    for name in ("union1d", "setdiff1d", "setxor1d", "intersect1d"):
        np.testing.assert_array_equal(getattr(cp, name)(cp.asarray(a), cp.asarray(b)).get(), getattr(np, name)(a, b))
    got = cp.intersect1d(cp.asarray(a), cp.asarray(b), return_indices=True)
    for g, w in zip(got, np.intersect1d(a, b, return_indices=True), strict=True):
        np.testing.assert_array_equal(g.get(), w)
    ua, ub = np.unique(a), np.unique(b)
    for name in ("setdiff1d", "setxor1d", "intersect1d"):
        np.testing.assert_array_equal(getattr(cp, name)(cp.asarray(ua), cp.asarray(ub), assume_unique=True).get(),
                                      getattr(np, name)(ua, ub, assume_unique=True))


def test_in_place_sort_and_methods():
    h = np.random.default_rng(RNG_SEED).standard_normal((4, 5))
    a = cp.asarray(h)
    a.T.sort(axis=0)  # through a view: sorts a's rows
    np.testing.assert_array_equal(a.get(), np.sort(h, axis=1))
    np.testing.assert_array_equal(a.argsort(axis=0).get(), np.argsort(np.sort(h, axis=1), axis=0, kind="stable"))
    s = np.sort(h.ravel())
    np.testing.assert_array_equal(cp.asarray(s).searchsorted(cp.asarray([0.0, 1.0]), side="right").get(),
                                  s.searchsorted([0.0, 1.0], side="right"))
    assert int(cp.searchsorted(cp.asarray(s), 0.0)) == int(np.searchsorted(s, 0.0))


@pytest.mark.parametrize("call,exc,message", [
    (lambda xp: xp.sort(xp.zeros(3), kind="bogo"), ValueError, "sort kind must be one of"),
    (lambda xp: xp.sort(xp.zeros(3), order="f"), ValueError, "Cannot specify order when the array has no fields."),
    (lambda xp: xp.sort(xp.zeros((2, 2)), axis=2), np.exceptions.AxisError, "axis 2 is out of bounds"),
    (lambda xp: xp.searchsorted(xp.zeros(3), 1.0, side="middle"), ValueError, "side"),
    (lambda xp: xp.searchsorted(xp.zeros((2, 2)), 1.0), ValueError, "object too deep for desired array"),
    (lambda xp: xp.isin(xp.zeros(3), xp.zeros(2), kind="hash"), ValueError, "Invalid kind: 'hash'"),
])
def test_sorting_errors_have_numpys_class_and_message(call, exc, message):
    with pytest.raises(exc, match=message):
        call(np)
    with pytest.raises(exc, match=message):
        call(cp)


def test_descending_sorts_keep_equal_values_in_order_as_the_array_api_says():
    rng = np.random.default_rng(RNG_SEED)
    h = rng.integers(0, 5, (3, 40)).astype(np.float32)
    got = cp.argsort(cp.asarray(h), descending=True).get()
    for row, order in zip(h, got, strict=True):
        # Python's sort with reverse=True is stable: the independent reference.
        assert list(order) == sorted(range(len(row)), key=lambda k: row[k], reverse=True)
    np.testing.assert_array_equal(cp.sort(cp.asarray(h), axis=0, descending=True).get(), np.sort(h, axis=0)[::-1])
    np.testing.assert_array_equal(cp.sort(cp.asarray([1.0, np.nan, 3.0]), descending=True).get(), [np.nan, 3.0, 1.0])


def test_set_function_and_unique_edges_follow_numpys_algorithms():
    x, y = np.array([3, 4, 9, 1, 5, 4]), np.array([8, 7, 3, 9, 0])
    # assume_unique with a repeat: NumPy keeps values found exactly once in both together.
    np.testing.assert_array_equal(cp.setxor1d(cp.asarray(x), cp.asarray(y), assume_unique=True).get(),
                                  np.setxor1d(x, y, assume_unique=True))
    a, b = np.array([0], dtype=np.int64), np.array([], dtype=np.float64)
    got, want = cp.intersect1d(cp.asarray(a), cp.asarray(b)), np.intersect1d(a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    for g, w in zip(cp.intersect1d(cp.asarray(a), cp.asarray(b), return_indices=True),
                    np.intersect1d(a, b, return_indices=True), strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
    nan_rows = np.array([[2, np.nan, 2], [np.nan, 1, np.nan], [np.nan, 1, np.nan]])
    for axis in (None, 0, 1):
        for equal_nan in (True, False):
            np.testing.assert_array_equal(cp.unique(cp.asarray(nan_rows), axis=axis, equal_nan=equal_nan).get(),
                                          np.unique(nan_rows, axis=axis, equal_nan=equal_nan))
    assert cp.unique(cp.empty((0,), np.int32), axis=0).shape == np.unique(np.empty((0,), np.int32), axis=0).shape
    for where in (3.2, 0, 1 + 1j, False):
        dst, host = cp.zeros((3, 2)), np.zeros((3, 2))
        cp.copyto(dst, cp.ones((3, 2)), where=where)
        np.copyto(host, np.ones((3, 2)), where=where)
        np.testing.assert_array_equal(dst.get(), host)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "bool", "complex64", "float16"])
def test_median_matches_numpy_on_views_with_nan(dtype):
    def body(data, tally):
        shape = data.draw(SHAPES.filter(lambda s: 0 not in s and len(s) > 0), label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1),
                                   st.just(tuple(range(len(shape))))), label="axis")
        keepdims = data.draw(st.booleans(), label="keepdims")
        tol = 1e-3 if dtype == "float16" else 1e-6 if dtype in ("float32", "complex64") else 1e-12
        parity(lambda xp, x: xp.median(x, axis=axis, keepdims=keepdims), [n], [e], tally, rtol=tol)

    run_sweep(body, f"median-{dtype}", examples=5)


def test_median_of_empty_slices_warns_as_numpy():
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = cp.median(cp.zeros((2, 0)), axis=1)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"), np.errstate(invalid="ignore"):
        want = np.median(np.zeros((2, 0)), axis=1)
    np.testing.assert_array_equal(got.get(), want)
    out = cp.empty(3)
    assert cp.median(cp.arange(12.0).reshape(3, 4), axis=1, out=out) is out
    np.testing.assert_array_equal(out.get(), np.median(np.arange(12.0).reshape(3, 4), axis=1))


def test_partition_places_each_kth_as_numpy_does():
    rng = np.random.default_rng(RNG_SEED)
    a = rng.standard_normal((5, 11))
    a[2, [1, 7]] = np.nan
    a[3] = 1.0  # all equal
    d = cp.asarray(a)
    for kth, axis in ((3, 1), ([0, 4, 10], -1), (-2, 1), (2, 0), (7, None)):
        got = cp.partition(d, kth, axis=axis).get()
        want = np.partition(a, kth, axis=axis)
        ax = -1 if axis is None else axis
        for k in np.atleast_1d(kth):
            np.testing.assert_array_equal(np.take(got, k, axis=ax), np.take(want, k, axis=ax))
        # And the partition property, checked through argpartition's indices.
        idx = cp.argpartition(d, kth, axis=axis).get()
        flat = a.ravel() if axis is None else a
        np.testing.assert_array_equal(np.take_along_axis(flat, idx, axis=ax), got)
    m = cp.asarray(a.copy())
    m.partition(4)
    np.testing.assert_array_equal(m.get()[:, 4], np.partition(a, 4)[:, 4])
    with pytest.raises(ValueError, match=r"kth\(=11\) out of bounds \(11\)"):
        cp.partition(d, 11)
    with pytest.raises(TypeError, match="Partition index must be integer"):
        cp.partition(d, 1.5)


def test_lexsort_sorts_by_the_last_key_first():
    rng = np.random.default_rng(RNG_SEED)
    keys = [rng.integers(0, 3, 40), rng.standard_normal(40).round(0), rng.integers(0, 2, 40)]
    np.testing.assert_array_equal(cp.lexsort([cp.asarray(k) for k in keys]).get(), np.lexsort(keys))
    table = np.array([rng.integers(0, 4, (3, 6)), rng.integers(0, 4, (3, 6))])
    np.testing.assert_array_equal(cp.lexsort(cp.asarray(table), axis=0).get(), np.lexsort(table, axis=0))
    with pytest.raises(TypeError, match="need sequence of keys with len > 0"):
        cp.lexsort([])
    with pytest.raises(ValueError, match="all keys need to be the same shape"):
        cp.lexsort([cp.arange(3), cp.arange(4)])


def test_sort_complex_and_topk():
    rng = np.random.default_rng(RNG_SEED)
    for dtype in (np.int16, np.float32, np.complex64):
        x = (rng.standard_normal(9) * 5).astype(dtype)
        got = cp.sort_complex(cp.asarray(x))
        want = np.sort_complex(x)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)
    a = rng.integers(0, 5, (4, 10)).astype(np.float64)
    a[1, 2] = np.nan
    values, index = cp.topk(cp.asarray(a), 3, axis=1)
    # Largest first, NaN as the largest, equal values in their order (a stable descending sort).
    order = np.argsort(-np.where(np.isnan(a), np.inf, a), axis=1, kind="stable")[:, :3]
    np.testing.assert_array_equal(index.get(), order)
    np.testing.assert_array_equal(values.get(), np.take_along_axis(a, order, axis=1))
    values, index = cp.topk(cp.asarray(a), 2, axis=0, largest=False)
    order = np.argsort(a, axis=0, kind="stable")[:2]
    np.testing.assert_array_equal(index.get(), order)
    with pytest.raises(ValueError, match="out of range"):
        cp.topk(cp.asarray(a), 11, axis=1)


@pytest.mark.parametrize(
    "dtype, n", [("float32", 37), ("int64", 1000), ("float64", 2048), ("uint8", 16), ("float32", 5000), ("int16", 300)]
)
def test_batches_of_short_rows_sort_a_block_a_row(dtype, n):
    # 64 rows or more of up to 8,192 elements: a block a row (CUDA's radix passes in shared
    # memory, or the bitonic sort; stable either way).
    rng = np.random.default_rng(RNG_SEED)
    x = (rng.standard_normal((70, n)) * 4).astype(dtype)
    if dtype.startswith("float"):
        x[3, [1, 5]] = np.nan
        x[4, :4] = [-0.0, 0.0, -0.0, 0.0]
    d = cp.asarray(x)
    got = cp.sort(d, axis=1).get()
    order = np.argsort(x, axis=1, kind="stable")
    np.testing.assert_array_equal(got, np.sort(x, axis=1))
    # Equal values keep their order: -0.0 and 0.0 come out as they went in.
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.take_along_axis(x, order, 1)))
    np.testing.assert_array_equal(cp.argsort(d, axis=1).get(), order)
    # Along the first axis of the transposed view: rows made contiguous first.
    np.testing.assert_array_equal(cp.argsort(d.T, axis=0).get(), np.argsort(x.T, axis=0, kind="stable"))


@pytest.mark.parametrize("dtype, n", [("float64", 1), ("float64", 2047), ("float64", 2049), ("float64", 9000),
                                      ("float32", 4097), ("float32", 20000)])
def test_searchsorted_across_the_shared_samples(dtype, n):
    # The search's first halvings read 16 KiB of evenly spaced elements held in shared memory
    # (2,048 of 8 bytes, 4,096 of 4): lengths either side of that, duplicates across sample
    # boundaries, NaN last.
    rng = np.random.default_rng(RNG_SEED)
    a = np.sort(rng.integers(0, n // 3 + 2, n).astype(dtype))
    a[-min(2, n):] = np.nan
    v = rng.integers(-2, n // 3 + 4, 700).astype(dtype)
    v[:3] = [np.nan, -np.inf, np.inf]
    for side in ("left", "right"):
        got = cp.searchsorted(cp.asarray(a), cp.asarray(v), side=side)
        np.testing.assert_array_equal(got.get(), np.searchsorted(a, v, side=side))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint64"])
def test_one_row_sorts_carry_the_values_themselves(dtype):
    # A single row of a 4- or 8-byte real dtype is sorted with its values' bits as the payload:
    # equal keys keep their order and their bits (-0.0 beside 0.0, NaN payloads).
    rng = np.random.default_rng(RNG_SEED)
    x = (rng.standard_normal(9000) * 50).astype(dtype)
    if dtype.startswith("float"):
        x[100:120] = -0.0
        x[120:130] = 0.0
        quiet = np.array([0x7FC00001 if dtype == "float32" else 0x7FF8000000000001], x.view(f"u{x.itemsize}").dtype)
        x[[5, 6000]] = quiet.view(dtype)[0]
        x[7] = np.nan
    got = cp.sort(cp.asarray(x)).get()
    order = np.argsort(x, kind="stable")
    np.testing.assert_array_equal(got.view(f"u{x.itemsize}"), x[order].view(f"u{x.itemsize}"))
    np.testing.assert_array_equal(cp.sort(cp.asarray(x[None, :]), axis=1).get()[0], np.sort(x))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int16", "uint32", "int64", "bool"])
def test_one_row_sorts_across_tiles_skip_no_order(dtype):
    # One-row sorts of several tiles (CUDA's single-pass sort takes 4,608 keys a tile): keys
    # that decode back to their values, passes skipped where every key has the same digit
    # (few distinct values, one value), and argsort's stable order.
    rng = np.random.default_rng(RNG_SEED + 1)
    d = np.dtype(dtype)
    for n in (4607, 4608, 4609, 3 * 4608 + 17):
        if d.kind == "b":
            cases = [rng.random(n) < 0.5]
        elif d.kind == "f":
            cases = [(rng.standard_normal(n) * 1e3).astype(d), rng.integers(0, 5, n).astype(d)]
        else:
            info = np.iinfo(d)
            cases = [rng.integers(info.min, info.max, n, dtype=d, endpoint=True), rng.integers(0, 9, n).astype(d)]
        cases.append(np.full(n, cases[0][0]))
        for x in cases:
            a = cp.asarray(x)
            np.testing.assert_array_equal(cp.sort(a).get(), np.sort(x))
            np.testing.assert_array_equal(cp.argsort(a, kind="stable").get(), np.argsort(x, kind="stable"))


def test_the_bitonic_row_sort_of_opencl_gpus_orders_as_numpy():
    # The bitonic block-a-row sort serves OpenCL GPUs only; called directly, it is checked on
    # any device (NaN last, ties by index).
    from ember import _row_sort

    rng = np.random.default_rng(RNG_SEED + 2)
    x = (rng.standard_normal((3, 300)) * 3).astype(np.float32).round()
    x[1, [4, 9]] = np.nan
    d = cp.asarray(x)
    np.testing.assert_array_equal(_row_sort.sort_rows(d, True).get(), np.sort(x, axis=1))
    np.testing.assert_array_equal(_row_sort.sort_rows(d, False).get(), np.argsort(x, axis=1, kind="stable"))


def test_large_sorts_skip_passes_of_one_digit():
    # From 2^16 elements a pass whose digit is the same for every key is skipped (on every
    # device): the answer stays a new array, stable, with the values' own bits.
    n = 70_000
    rng = np.random.default_rng(RNG_SEED + 3)
    zeros = np.where(rng.random(n) < 0.5, -0.0, 0.0)
    for x in (np.full(n, 3.5, np.float32), rng.integers(0, 7, n), zeros, rng.integers(0, 300, n).astype(np.uint16)):
        a = cp.asarray(x)
        got = cp.sort(a)
        np.testing.assert_array_equal(got.get().view(np.uint8), np.sort(x, kind="stable").view(np.uint8))
        np.testing.assert_array_equal(cp.argsort(a).get(), np.argsort(x, kind="stable"))
        got[0] = 1
        assert a.get()[0] == x[0]


@pytest.mark.parametrize("dtype, n", [("bool", 50), ("float16", 9), ("int8", 1), ("uint64", 700)])
def test_row_batches_of_every_length_and_narrow_dtypes(dtype, n):
    # Batches of rows (a work-item a row on a CPU device, a block a row on CUDA), down to
    # rows of one element, for the narrow and the widest keys.
    rng = np.random.default_rng(RNG_SEED + 4)
    d = np.dtype(dtype)
    x = rng.random((40, n)) < 0.5 if d.kind == "b" else (rng.standard_normal((40, n)) * 9).astype(d)
    a = cp.asarray(x)
    np.testing.assert_array_equal(cp.sort(a, axis=1).get(), np.sort(x, axis=1))
    np.testing.assert_array_equal(cp.argsort(a, axis=1).get(), np.argsort(x, axis=1, kind="stable"))
    np.testing.assert_array_equal(cp.argsort(a.T, axis=0).get(), np.argsort(x.T, axis=0, kind="stable"))
