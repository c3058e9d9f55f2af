"""Opaque dtypes (datetime64, timedelta64, structured, void): ember arrays hold them as CuPy's
do, to move, view and copy, and every computation refuses them with a TypeError that says
how to compute on the bytes. Each result is checked against NumPy doing the same."""

from __future__ import annotations

import ember
import numpy as np
import pytest

DTYPES = [
    np.dtype("M8[ns]"),
    np.dtype("m8[s]"),
    np.dtype("i4,f8"),  # 12 bytes: moved as 4-byte words
    np.dtype([("a", "i1"), ("b", "f8")], align=True),  # 16 bytes, with padding
    np.dtype("i2,u1"),  # 3 bytes: moved byte by byte
    np.dtype("V10"),
]


def host_values(dtype: np.dtype, shape, rng) -> np.ndarray:
    """Random bytes of ``dtype`` (every byte non-trivial, padding included)."""
    n = int(np.prod(shape)) * dtype.itemsize
    return rng.integers(0, 256, n, dtype=np.uint8).view(dtype).reshape(shape)


def same(got: ember.ndarray, want: np.ndarray):
    host = got.get()
    assert host.dtype == want.dtype and host.shape == want.shape
    # Compared as bytes (NaT and NaN by their bits); a structured dtype field by field, as
    # NumPy's copies leave padding unset.
    for name in want.dtype.names or [None]:
        g, w = (host, want) if name is None else (host[name], want[name])
        assert np.ascontiguousarray(g).tobytes() == np.ascontiguousarray(w).tobytes(), name


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_trip_and_layout_ops_match_numpy(dtype, rng):
    h = host_values(dtype, (5, 6), rng)
    a = ember.asarray(h)
    assert a.dtype == dtype and a.itemsize == dtype.itemsize and a.nbytes == h.nbytes
    same(a, h)
    same(a.T, h.T)
    same(a[::-2, 1::3], h[::-2, 1::3])
    same(a[::-2, 1::3].copy(), h[::-2, 1::3])  # a strided copy, by words
    same(a.T.copy(order="C"), h.T.copy(order="C"))
    same(a.reshape(3, 10), h.reshape(3, 10))
    same(a[2], h[2])
    same(ember.concatenate([a, a[:2]]), np.concatenate([h, h[:2]]))
    same(ember.stack([a, a]), np.stack([h, h]))
    same(ember.flip(a, 1).copy(), np.flip(h, 1))
    same(ember.broadcast_to(a[:1], (4, 6)).copy(), np.broadcast_to(h[:1], (4, 6)))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_creation_as_numpy(dtype, rng):
    same(ember.zeros((3, 2), dtype=dtype), np.zeros((3, 2), dtype=dtype))
    h = host_values(dtype, (2, 3), rng)
    same(ember.zeros_like(ember.asarray(h)), np.zeros_like(h))
    assert ember.empty(4, dtype=dtype).dtype == dtype
    same(ember.array(h, order="F"), np.array(h, order="F"))


def test_full_and_ones_like_take_numpys_values():
    same(ember.full(3, np.datetime64("2026-11-26T12:00"), dtype="M8[s]"),
         np.full(3, np.datetime64("2026-11-26T12:00"), dtype="M8[s]"))
    h = np.arange(4).astype("m8[ms]")
    same(ember.ones_like(ember.asarray(h)), np.ones_like(h))
    s = np.array([(1, 2.5)], dtype="i4,f8")
    same(ember.full(2, s[0]), np.full(2, s[0]))


@pytest.mark.parametrize("dtype", [np.dtype("M8[us]"), np.dtype("i4,f8,i4"), np.dtype("V2")], ids=str)
def test_indexing_moves_elements(dtype, rng):
    h = host_values(dtype, (7, 3), rng)
    a = ember.asarray(h)
    idx = np.array([6, 0, 3, 3, -1])
    same(a[idx], h[idx])
    same(a[ember.asarray(idx), 1], h[idx, 1])
    mask = rng.random((7, 3)) < 0.5
    same(a[ember.asarray(mask)], h[mask])
    b, g = a.copy(), h.copy()
    b[[1, 4]] = a[[0, 2]]
    g[[1, 4]] = h[[0, 2]]
    same(b, g)
    b[2:4] = a[:2]
    g[2:4] = h[:2]
    same(b, g)


def test_views_to_numeric_and_back():
    h = (np.arange(10) * 86_400).astype("M8[s]")
    a = ember.asarray(h)
    v = a.view("i8")
    assert v.dtype == np.int64
    np.testing.assert_array_equal(v.get(), h.view("i8"))
    same((v + 3600).view("M8[s]"), (h.view("i8") + 3600).view("M8[s]"))
    s = np.array([(1, 2), (3, 4)], dtype="i4,i4")
    np.testing.assert_array_equal(ember.asarray(s).view("i4").get(), s.view("i4"))
    same(ember.asarray(s.view("i4")).view(s.dtype), s)


VIEWS = [((3,), "i8", "i4"), ((2, 4), "i2", "i8"), ((5,), "i4,f8", "i4"), ((4, 6), "M8[s]", "u1"),
         ((2, 0), "i8", "i4"), ((3,), "V12", "V8"), ((3,), "i1", "i2"), ((), "i8", "i4")]


@pytest.mark.parametrize("shape,src,dst", VIEWS)
def test_views_to_other_sizes_follow_numpy(shape, src, dst):
    h = np.zeros(shape, src)
    a = ember.asarray(h)
    for x, y in [(h, a), (h[::2], a[::2])] if h.ndim else [(h, a)]:
        try:
            want = x.view(dst)
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e)[:40]):
                y.view(dst)
            continue
        got = y.view(dst)
        assert (got.shape, got.strides, got.dtype) == (want.shape, want.strides, want.dtype)


def test_repr_shows_numpys_values():
    h = np.array(["2026-11-26", "NaT"], dtype="M8[D]")
    assert repr(ember.asarray(h)) == repr(h)


OPAQUE_REFUSED = [
    ("sum", lambda a: a.sum()),
    ("max", lambda a: ember.max(a)),
    ("sum", lambda a: ember.cumsum(a)),  # a running sum
    ("argmax", lambda a: a.argmax()),
    ("sorting", lambda a: ember.sort(a)),
    ("filling with a number", lambda a: a._a.fill(0)),  # the native layer's own check
    ("where", lambda a: ember.where(a.view("i8") > 0, a, a)),
    ("matmul", lambda a: ember.matmul(a, a)),
]


@pytest.mark.parametrize("what,call", OPAQUE_REFUSED, ids=[w for w, _ in OPAQUE_REFUSED])
def test_computations_refuse_with_the_way_out(what, call):
    a = ember.asarray(np.arange(6).astype("M8[s]"))
    with pytest.raises(TypeError, match=rf"{what} is not supported for dtype datetime64\[s\].*a\.view\('int64'\)"):
        call(a)
    # The process keeps working, and the array is untouched.
    np.testing.assert_array_equal(a.get(), np.arange(6).astype("M8[s]"))


def test_fill_converts_as_numpy():
    h = np.arange(4).astype("M8[h]")
    a = ember.asarray(h)
    a.fill(7)
    h.fill(7)
    same(a, h)
    a.fill(np.datetime64("2026-11-26T13", "h"))
    h.fill(np.datetime64("2026-11-26T13", "h"))
    same(a, h)


def test_ufuncs_and_conversions_refuse_as_numpy_words():
    a = ember.asarray(np.arange(3).astype("m8[s]"))
    loop = r"ufunc 'add' did not contain a loop with signature matching types \(timedelta64\[s\], Python int\)"
    with pytest.raises(TypeError, match=loop):
        a + 1
    with pytest.raises(TypeError, match=r"ufunc 'sin' did not contain a loop"):
        ember.sin(a)
    with pytest.raises(TypeError, match=r"cannot convert between timedelta64\[s\] and float64"):
        a.astype("f8")
    with pytest.raises(BufferError, match="DLPack has no dtype timedelta64"):
        a.__dlpack__()


def test_odd_sized_advanced_indexing_says_what_is_missing():
    a = ember.asarray(np.zeros(4, dtype="i2,u1"))
    dtype = r"\[\('f0', '<i2'\), \('f1', 'u1'\)\]"
    refusal = rf"advanced indexing is not supported for dtype {dtype}.*each element's 3 bytes"
    with pytest.raises(TypeError, match=refusal):
        a[[0, 1]]


def test_unholdable_dtypes_raise_numpys_and_cupys_classes():
    with pytest.raises(ValueError, match="Unsupported dtype"):
        ember.empty(3, dtype="3i")  # a sub-array dtype
    with pytest.raises(ValueError, match="Unsupported dtype"):
        ember.empty(3, dtype="V")
    with pytest.raises(ValueError, match="Unsupported dtype object"):
        ember.empty(3, dtype=object)
    with pytest.raises(ValueError, match="holds Python objects"):
        ember.empty(3, dtype="i4,O")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.dtype("<M8[ns]"), np.dtype("<m8[us]"), np.dtype("i4,f8")], ids=str)
def test_cuda_array_interface_carries_opaque_dtypes(dtype, rng):
    h = host_values(dtype, (4, 3), rng)
    a = ember.asarray(h)
    cai = a.__cuda_array_interface__
    assert cai["typestr"] == dtype.str and cai["descr"] == dtype.descr

    class Holder:
        __cuda_array_interface__ = cai

    b = ember.asarray(Holder())
    assert b.dtype == dtype and b.data.ptr == a.data.ptr  # a view, not a copy
    same(b, h)
