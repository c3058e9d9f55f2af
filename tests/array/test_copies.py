"""Data survives every trip: host to device and back, device copies, casts, strided views."""

import ember
import numpy as np
import pytest
from ember.testing import ALL_DTYPES, random_array


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trip_every_dtype(rng, dtype):
    host = random_array(rng, (7, 33), dtype)
    d = ember.asarray(host)
    assert d.dtype == dtype and d.shape == host.shape and d.strides == host.strides
    back = d.get()
    np.testing.assert_array_equal(back, host)
    assert back.tobytes() == host.tobytes(), "bytes changed (NaN payloads, signed zeros)"


@pytest.mark.parametrize("dtype", [np.int16, np.float64, np.complex64], ids=str)
def test_non_contiguous_numpy_input(rng, dtype):
    base = random_array(rng, (12, 10), dtype)
    for view in (base[::2, 1::3], base.T, base[::-1, ::-2], np.asfortranarray(base)):
        d = ember.asarray(view)
        # order='K', as CuPy and NumPy: a Fortran-ordered source stays Fortran-ordered.
        fortran = view.flags.f_contiguous and not view.flags.c_contiguous
        assert (d.flags.c_contiguous, d.flags.f_contiguous) == (not fortran, fortran)
        np.testing.assert_array_equal(d.get(), view)


def test_set_and_get_into_existing(rng):
    host = random_array(rng, (64, 3), np.float32)
    d = ember.empty((64, 3), np.float32)
    d.set(host)
    out = np.empty((64, 3), np.float32)
    assert d.get(out=out) is out
    np.testing.assert_array_equal(out, host)
    d.set(host.astype(np.float64))  # converted to the array's dtype
    np.testing.assert_array_equal(d.get(), host)
    with pytest.raises(ValueError, match="shape mismatch"):
        d.set(np.zeros((3, 64), np.float32))


def test_device_copy_is_independent(rng):
    host = random_array(rng, (100,), np.int32)
    a = ember.asarray(host)
    b = a.copy()
    a.fill(5)
    np.testing.assert_array_equal(b.get(), host)
    np.testing.assert_array_equal(a.get(), np.full(100, 5, np.int32))


def test_transposed_views_copy_and_get(rng):
    host = random_array(rng, (5, 6, 7), np.float32)
    a = ember.asarray(host)
    t = a.transpose(2, 0, 1)
    assert not t.flags.c_contiguous and t.strides == host.transpose(2, 0, 1).strides
    np.testing.assert_array_equal(t.get(), host.transpose(2, 0, 1))
    c = t.copy()
    assert c.flags.c_contiguous
    np.testing.assert_array_equal(c.get(), host.transpose(2, 0, 1))
    np.testing.assert_array_equal(a.T.get(), host.T)


def test_set_into_strided_view(rng):
    a = ember.zeros((4, 5), np.float64)
    t = a.T
    values = random_array(rng, (5, 4), np.float64)
    t.set(values)
    np.testing.assert_array_equal(a.get(), values.T)


# Casts: each (from, to) pair is its own kernel, so sample pairs that cover every kind.
CASTS = [
    ("float64", "float16"), ("float16", "float32"), ("float32", "int8"), ("float64", "uint8"),
    ("int64", "float32"), ("int8", "uint64"), ("uint32", "int16"), ("bool", "float64"),
    ("float32", "bool"), ("complex128", "float32"), ("float64", "complex64"),
    ("complex64", "complex128"), ("int32", "bool"), ("uint16", "complex128"), ("complex64", "bool"),
]


@pytest.mark.parametrize("src, dst", CASTS)
def test_astype_matches_numpy(rng, src, dst):
    host = random_array(rng, (3, 41), src)
    if np.dtype(src).kind == "f" and np.dtype(dst).kind in "iu":
        info = np.iinfo(dst)
        host = np.clip(host, info.min, info.max)  # out-of-range float->int is undefined in NumPy too
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings(record=True) as numpy_warned:
            warnings.simplefilter("always")
            want = host.astype(dst)
    with warnings.catch_warnings(record=True) as ember_warned:
        warnings.simplefilter("always")
        got = ember.asarray(host).astype(dst)
    # The same ComplexWarning (complex into real) as NumPy, and no other.
    assert [type(w.message) for w in ember_warned] == [type(w.message) for w in numpy_warned]
    assert got.dtype == np.dtype(dst)
    np.testing.assert_array_equal(got.get(), want)


def test_astype_of_strided_view(rng):
    host = random_array(rng, (6, 8), np.int16)
    got = ember.asarray(host).T.astype(np.float32)
    np.testing.assert_array_equal(got.get(), host.T.astype(np.float32))
    # NumPy's order='K' keeps the layout: Fortran's here, a permutation for a swapped 3-d view.
    assert got.strides == host.T.astype(np.float32).strides
    base = random_array(rng, (2, 3, 4), np.int16)
    for order in ("K", "A", "C", "F"):
        want = base.transpose(1, 0, 2).astype(np.float64, order=order)
        got = ember.asarray(base).transpose(1, 0, 2).astype(np.float64, order=order)
        assert got.strides == want.strides, order
        np.testing.assert_array_equal(got.get(), want)


def test_view_reinterprets_bytes(rng):
    host = random_array(rng, (10,), np.float32)
    v = ember.asarray(host).view(np.int32)
    np.testing.assert_array_equal(v.get(), host.view(np.int32))
    halves = ember.asarray(host).view(np.int16)  # a smaller dtype: a longer last axis
    np.testing.assert_array_equal(halves.get(), host.view(np.int16))
    with pytest.raises(ValueError, match="last axis must be contiguous"):
        ember.asarray(host)[::2].view(np.int16)


def test_scalars_and_size_one_arrays():
    a = ember.full((), 3.5)
    assert float(a) == 3.5 and a.item() == 3.5 and a.ndim == 0
    assert int(ember.full((1, 1), 7, np.int64)) == 7
    with pytest.raises(ValueError, match="ambiguous"):
        bool(ember.zeros(3))
