"""Creation functions give what NumPy gives, for every dtype."""

import ember
import numpy as np
import pytest
from ember import testing


@testing.for_all_dtypes()
def test_zeros_ones_full_empty(dtype):
    testing.assert_array_equal(ember.zeros((2, 3), dtype), np.zeros((2, 3), dtype))
    testing.assert_array_equal(ember.ones(5, dtype), np.ones(5, dtype))
    dtype = np.dtype(dtype)
    value = {"b": True, "i": -7, "u": 200, "f": 2.5, "c": 1.5 - 2j}[dtype.kind]
    if dtype.kind == "u" and dtype.itemsize == 1:
        value = 200
    got = ember.full((4, 1), value, dtype=dtype)
    assert got.dtype == dtype and got.shape == (4, 1)
    testing.assert_array_equal(got, np.full((4, 1), value, dtype=dtype))
    e = ember.empty((3, 0, 2), dtype)
    assert e.shape == (3, 0, 2) and e.size == 0 and e.get().shape == (3, 0, 2)


def test_full_infers_dtype_like_numpy():
    for value in (3, 2.5, True, 1 + 2j, np.float32(1.5), np.int16(-3)):
        assert ember.full(2, value).dtype == np.full(2, value).dtype


def test_like_functions(rng):
    host = rng.standard_normal((3, 4)).astype(np.float32)
    a = ember.asarray(host)
    assert ember.zeros_like(a).dtype == np.float32 and ember.zeros_like(a).shape == (3, 4)
    np.testing.assert_array_equal(ember.ones_like(a, dtype=np.int16).get(), np.ones((3, 4), np.int16))
    np.testing.assert_array_equal(ember.full_like(a, 7).get(), np.full_like(host, 7))
    assert ember.empty_like(a, shape=(5,)).shape == (5,)


@pytest.mark.parametrize(
    "args, kwargs",
    [((10,), {}), ((2, 11, 3), {}), ((1.5, 4.0, 0.25), {}), ((10, 0, -3), {}), ((5,), {"dtype": "float16"}),
     ((-3, 3), {"dtype": "int8"}), ((0, 1, 0.1), {"dtype": "float32"}), ((4,), {"dtype": "complex64"}),
     ((3, 3), {}), ((0.5, 3), {"dtype": "uint16"}), ((0, 7, None), {})],
)
@testing.numpy_ember_allclose(rtol=1e-6)
def test_arange_matches_numpy(xp, args, kwargs):
    return xp.arange(*args, **kwargs)


def test_arange_step_zero():
    with pytest.raises(ZeroDivisionError):
        ember.arange(0, 10, 0)


@pytest.mark.parametrize(
    "args, kwargs",
    [((0, 1, 5), {}), ((-3.5, 7.25, 11), {"endpoint": False}), ((0, 10, 4), {"dtype": int}), ((2, 2, 1), {}),
     ((1, 0, 0), {}), ((0, 1, 7), {"dtype": "float32"}), ((1 + 1j, -1 - 2j, 6), {}), ((-5, 5, 9), {"dtype": "int8"})],
)
def test_linspace_matches_numpy(args, kwargs):
    got = ember.linspace(*args, **kwargs)
    want = np.linspace(*args, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.get(), want, rtol=1e-6, atol=1e-12)
    if want.size and kwargs.get("endpoint", True) and want.dtype.kind == "f":
        assert got.get()[-1] == want[-1], "the endpoint must be exact"


def test_linspace_retstep_and_errors():
    a, step = ember.linspace(0, 1, 5, retstep=True)
    assert step == np.linspace(0, 1, 5, retstep=True)[1]
    with pytest.raises(ValueError, match="must be non-negative"):
        ember.linspace(0, 1, -1)


def test_array_from_lists_and_scalars():
    np.testing.assert_array_equal(ember.array([[1, 2], [3, 4]]).get(), np.array([[1, 2], [3, 4]]))
    assert ember.array([[1, 2], [3, 4]]).dtype == np.int64
    s = ember.array(2.5)
    assert s.shape == () and s.dtype == np.float64 and float(s) == 2.5
    assert ember.array([1, 2], ndmin=3).shape == (1, 1, 2)
    assert ember.array([True, False]).dtype == np.bool_


def test_asarray_returns_same_array():
    a = ember.arange(4)
    assert ember.asarray(a) is a
    assert ember.asarray(a, dtype=np.float32).dtype == np.float32


def test_repr_like_cupy(rng):
    host = rng.standard_normal(4).astype(np.float32)
    assert repr(ember.asarray(host)) == repr(host)
    assert str(ember.asarray(host)) == str(host)


def test_full_with_an_array_value_broadcasts_it_on_the_device(rng):
    row = rng.standard_normal(3)
    total = ember.arange(5).sum()  # a 0-d ember array: its dtype, no read-back
    got = ember.full(2, total)
    assert got.dtype == np.int64 and np.array_equal(got.get(), np.full(2, 10))
    np.testing.assert_array_equal(ember.full((2, 3), ember.asarray(row)).get(), np.full((2, 3), row))
    np.testing.assert_array_equal(ember.full((2, 3), row, dtype=np.float32).get(),
                                  np.full((2, 3), row, dtype=np.float32))
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(4,\) into shape \(2,\s?3\)"):
        ember.full((2, 3), ember.arange(4))


def test_linspace_of_one_sample_is_its_start_like_numpy():
    for endpoint in (True, False):
        got, step = ember.linspace(790.5, 1.0, num=1, endpoint=endpoint, retstep=True)
        want, want_step = np.linspace(790.5, 1.0, num=1, endpoint=endpoint, retstep=True)
        np.testing.assert_array_equal(got.get(), want)
        assert np.isnan(step) == np.isnan(want_step)


@pytest.mark.parametrize("make", [
    lambda xp: xp.empty((3, 4), order="F"),
    lambda xp: xp.zeros((2, 3, 4), xp.int8, order="F"),
    lambda xp: xp.full((3, 4), 7.5, order="F"),
    lambda xp: xp.zeros_like(xp.ones((3, 4), order="F")),
    lambda xp: xp.ones_like(xp.ones((3, 4)), order="F"),
    lambda xp: xp.empty_like(xp.ones((3, 4), order="F"), order="C"),
    lambda xp: xp.array(np.arange(12.0).reshape(3, 4), order="F"),
    lambda xp: xp.array(np.asfortranarray(np.arange(12.0).reshape(3, 4))),
    lambda xp: xp.asarray(xp.arange(12.0).reshape(3, 4), order="F"),
    lambda xp: xp.ndarray((3, 4), order="F"),
])
def test_fortran_order_lays_arrays_out_as_numpy_does(make):
    want, got = make(np), make(ember)
    assert (got.shape, got.strides, got.flags.c_contiguous, got.flags.f_contiguous) == (
        want.shape, want.strides, want.flags.c_contiguous, want.flags.f_contiguous)
    assert got.base is None and got.flags.owndata


def test_fortran_ordered_values_and_a_bad_order():
    a = ember.array(np.arange(12.0).reshape(3, 4), order="F")
    np.testing.assert_array_equal(a.get(), np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(ember.full((2, 3), -1.5, order="F").get(), np.full((2, 3), -1.5))
    with pytest.raises(ValueError, match=r"order must be one of 'C', 'F', 'A', or 'K' \(got 'X'\)"):
        ember.zeros(3, order="X")
