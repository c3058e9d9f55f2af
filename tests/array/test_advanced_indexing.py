"""Advanced indexing (integer arrays, boolean masks, both sides of `=`), nonzero/take/where,
and eye/identity/tri/triu/tril, compared with NumPy on random inputs."""

from __future__ import annotations

import ember as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

IDX = np.array([4, 0, -1, 2])
IDX2 = np.array([[1], [3]])


def dev(index):
    return tuple(cp.asarray(x) if isinstance(x, np.ndarray) else x for x in index)


@pytest.mark.parametrize("index", [
    (IDX,), (slice(None), IDX), (IDX2, slice(1, 5), IDX), (0, slice(None), IDX), (Ellipsis, IDX), (IDX2, IDX),
    (slice(None, None, -1), IDX2, slice(None, None, 2)), (IDX, None, slice(2)), ([1, 3], [0, 5]),
], ids=lambda x: str(x)[:40])
def test_integer_array_indexing(rng, index):
    a = rng.standard_normal((5, 6, 7))
    want = a[index]
    got = cp.asarray(a)[dev(index)]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)


def test_indexing_a_non_contiguous_view(rng):
    a = rng.standard_normal((6, 8)).astype(np.float32)
    d = cp.asarray(a).T
    np.testing.assert_array_equal(d[cp.asarray(np.array([7, 1, 1]))].get(), a.T[[7, 1, 1]])


def test_boolean_masks(rng):
    a = rng.standard_normal((5, 6, 7))
    d = cp.asarray(a)
    np.testing.assert_array_equal(d[d > 0.5].get(), a[a > 0.5])
    m2 = a[:, :, 0] > 0
    np.testing.assert_array_equal(d[cp.asarray(m2)].get(), a[m2])
    np.testing.assert_array_equal(d[:, cp.asarray(a[0, :, 0] > 0)].get(), a[:, a[0, :, 0] > 0])
    empty = d[d > 100]
    assert empty.shape == (0,)


def test_assignment_through_masks_and_indices(rng):
    a = rng.standard_normal((5, 6))
    d = cp.asarray(a)
    a[a < 0] = 0
    d[d < 0] = 0
    np.testing.assert_array_equal(d.get(), a)
    a[[4, 0], 1] = 7.5
    d[cp.asarray(np.array([4, 0])), 1] = 7.5
    np.testing.assert_array_equal(d.get(), a)
    values = rng.standard_normal((2, 6))
    a[[1, 3]] = values
    d[[1, 3]] = cp.asarray(values)
    np.testing.assert_array_equal(d.get(), a)


def test_out_of_range_indices_raise_index_error():
    d = cp.asarray(np.arange(5.0))
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 5"):
        d[cp.asarray(np.array([1, 10]))]
    with pytest.raises(IndexError, match="index -6 is out of bounds for axis 0 with size 5"):
        d[[-6]]
    with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
        d[cp.asarray(np.array([0.5]))]
    with pytest.raises(IndexError, match="boolean index did not match"):
        d[cp.asarray(np.array([True, False]))]


def test_index_arrays_of_every_integer_dtype_and_many_axes_gather_as_numpy(rng):
    a = np.arange(5.0)
    d = cp.asarray(a)
    # NumPy reads indices as intp: uint64's top values wrap to negative ones.
    for index in (np.array([2**64 - 1, 1], np.uint64), np.array([3, -5], np.int8), np.array([4, 0], np.uint16)):
        np.testing.assert_array_equal(d[cp.asarray(index)].get(), a[index])
    with pytest.raises(IndexError, match="index -9223372036854775808 is out of bounds for axis 0 with size 5"):
        d[cp.asarray(np.array([1, 2**63], np.uint64))]
    # More index arrays than the gather takes directly (the rest are summed first).
    b = rng.standard_normal((3, 4, 5, 6, 7))
    index = [rng.integers(-s, s, (2, 3)) for s in b.shape]
    np.testing.assert_array_equal(cp.asarray(b)[dev(tuple(index))].get(), b[tuple(index)])
    index[4][1, 1] = 7
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 4 with size 7"):
        cp.asarray(b)[dev(tuple(index))]
    index[4][1, 1] = 0
    index[1][0, 2] = -5  # the first bad value in the first bad array, as NumPy reports it
    index[1][1, 0] = 9
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        cp.asarray(b)[dev(tuple(index))]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        b[tuple(index)]


def test_nonzero_take_where(rng):
    a = (rng.standard_normal((4, 5)) > 0.3).astype(np.int32) * rng.integers(1, 9, (4, 5)).astype(np.int32)
    d = cp.asarray(a)
    for got, want in zip(cp.nonzero(d), np.nonzero(a), strict=True):
        np.testing.assert_array_equal(got.get(), want)
    for got, want in zip(cp.where(d > 2), np.where(a > 2), strict=True):
        np.testing.assert_array_equal(got.get(), want)
    np.testing.assert_array_equal(cp.take(d, cp.asarray(np.array([19, 0, 3]))).get(), np.take(a, [19, 0, 3]))
    np.testing.assert_array_equal(d.take(cp.asarray(np.array([4, 1])), axis=1).get(), a.take([4, 1], axis=1))


@settings(max_examples=20, deadline=None)
@given(rows=st.integers(1, 6), cols=st.integers(1, 6), picks=st.lists(st.integers(-6, 5), min_size=0, max_size=7),
       seed=st.integers(0, 2**16))
def test_random_row_picks(rows, cols, picks, seed):
    a = np.random.default_rng(seed).standard_normal((rows, cols)).astype(np.float32)
    picks = [p for p in picks if -rows <= p < rows]
    idx = np.array(picks, dtype=np.int64)
    np.testing.assert_array_equal(cp.asarray(a)[cp.asarray(idx)].get(), a[idx])


@pytest.mark.parametrize("name,args", [
    ("eye", (3,)), ("eye", (3, 5, 1)), ("eye", (4, 3, -2)), ("identity", (4,)), ("tri", (3, 4, -1)), ("tri", (2,)),
])
def test_matrix_creation(name, args):
    got, want = getattr(cp, name)(*args), getattr(np, name)(*args)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)


def test_triu_tril(rng):
    m = rng.standard_normal((3, 4, 5))
    for k in (-1, 0, 2):
        np.testing.assert_array_equal(cp.triu(cp.asarray(m), k).get(), np.triu(m, k))
        np.testing.assert_array_equal(cp.tril(cp.asarray(m), k).get(), np.tril(m, k))


# --- the CuPy snippets of the seed programs ------------------------------------------------------
def test_seed_snippets(rng):
    z = cp.asarray(np.arange(9.0).reshape(3, 3))
    np.testing.assert_array_equal(z[cp.triu(cp.ones((3, 3), dtype=cp.bool_))].get(), [0, 1, 2, 4, 5, 8])
    x = cp.arange(6).reshape(2, 3).astype(cp.float32)
    np.testing.assert_allclose(cp.sqrt(x).get(), np.sqrt(np.arange(6).reshape(2, 3).astype(np.float32)))
    matrix_h = rng.standard_normal((4, 3))
    matrix = cp.asarray(matrix_h)
    np.testing.assert_allclose(matrix.mean(axis=0).get(), matrix_h.mean(axis=0))
    mask = matrix > 0
    np.testing.assert_array_equal(matrix[mask].get(), matrix_h[matrix_h > 0])
    matrix[matrix < 0] = 0
    matrix_h[matrix_h < 0] = 0
    np.testing.assert_array_equal(matrix.get(), matrix_h)
    a2, b1 = cp.ones((3, 4)), cp.arange(4)
    np.testing.assert_array_equal((a2 + b1).get(), np.ones((3, 4)) + np.arange(4))
    a3 = cp.asarray(rng.standard_normal((2, 1, 4)))
    b3 = cp.asarray(rng.standard_normal((3, 1)))
    np.testing.assert_allclose((a3 * b3).get(), a3.get() * b3.get())
    rows = cp.asarray(np.array([0, 2]))
    np.testing.assert_array_equal(z[rows, 1].get(), [1.0, 7.0])
    total = cp.asarray(np.arange(10.0)).sum()
    assert float(total) == 45.0
    r = cp.random.rand(1000)
    assert 0.4 < float(r.mean()) < 0.6
    pool = cp.get_default_memory_pool()
    assert pool.used_bytes() > 0


def test_float16_arrays_gather_and_scatter_through_integer_indices():
    h = (np.arange(12, dtype=np.float16).reshape(3, 4) - 5) * np.float16(0.375)
    x = cp.asarray(h)
    i = np.array([2, 0, 2])
    np.testing.assert_array_equal(x[cp.asarray(i)].get(), h[i])
    np.testing.assert_array_equal(cp.take(x, cp.asarray(i), axis=1).get(), np.take(h, i, axis=1))
    x[cp.asarray(i[:2]), 1:3] = cp.asarray(np.array([7.5, -1], np.float16))
    h[i[:2], 1:3] = np.array([7.5, -1], np.float16)
    np.testing.assert_array_equal(x.get(), h)


def test_index_arrays_that_do_not_broadcast_are_an_index_error_like_numpy():
    x = cp.zeros((4, 5))
    with pytest.raises(IndexError, match=r"could not be broadcast together with shapes \(2,\) \(3,\)"):
        x[cp.asarray(np.array([0, 1])), cp.asarray(np.array([0, 1, 2]))]


@pytest.mark.parametrize("index", [True, False, (0, True), (True, [0, 1]), (False, [1]), (slice(None), True, [2, 0]),
                                   (None, True, Ellipsis, 1), (np.array(True), 1), (True, True)])
def test_a_scalar_boolean_index_adds_an_axis_of_one_or_none_like_numpy(index):
    h = np.arange(24, dtype=np.int32).reshape(2, 3, 4) * 3 - 20
    x = cp.asarray(h)
    want = h[index]
    got = x[index].get()
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    h[index] = -7
    x[index] = -7
    np.testing.assert_array_equal(x.get(), h)


def test_a_scalar_boolean_index_gives_a_copy_and_counts_no_axis():
    x = cp.asarray(np.arange(6.0).reshape(2, 3))
    r = x[True]
    r[0, 0, 0] = 99.0
    assert float(x[0, 0]) == 0.0
    with pytest.raises(IndexError, match="too many indices for array: array is 2-dimensional, but 3 were indexed"):
        x[True, 0, 0, 0]


class _Holder:
    """A wrapper that hands over its device array by CuPy's ``__cupy_get_ndarray__``."""

    def __init__(self, a):
        self.a = a

    def __cupy_get_ndarray__(self):
        return self.a


def test_wrapped_and_listed_device_indices_gather_as_numpy():
    h = np.arange(10.0) * 3
    d = cp.asarray(h)
    order = np.array([9, 2, -1, 4])
    np.testing.assert_array_equal(d[_Holder(cp.asarray(order))].get(), h[order])
    np.testing.assert_array_equal(d[_Holder(cp.asarray(order)),].get(), h[order,])
    # A list holding arrays is one array index (NumPy: the list as an array).
    np.testing.assert_array_equal(d[[_Holder(cp.asarray(order))]].get(), h[[order]])
    np.testing.assert_array_equal(d[[cp.asarray(order), cp.asarray(order)]].get(), h[[order, order]])
    with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
        d[[cp.asarray(np.array([0.5]))]]


@pytest.mark.parametrize("mask_shape,lead", [((0,), 0), ((2, 0), 0), ((0, 0, 4), 0), ((0, 4), 1)])
def test_masks_with_no_elements_select_nothing_from_axes_of_any_length(rng, mask_shape, lead):
    h = rng.standard_normal((2, 3, 4))
    index = (slice(None),) * lead + (np.zeros(mask_shape, bool),)
    got = cp.asarray(h)[dev(index)]
    assert got.shape == h[index].shape
    a, w = cp.asarray(h), h.copy()
    a[dev(index)] = 7.0
    w[index] = 7.0
    np.testing.assert_array_equal(a.get(), w)
