"""Structured arrays as NumPy has them: fields are views, casts and assignments go field by
field, ``==`` compares all fields; each result checked against NumPy doing the same."""

from __future__ import annotations

import operator

import ember
import numpy as np
import pytest

POINT = np.dtype([("x", "f8"), ("n", "i4"), ("flag", "?")], align=True)


def points(rng, n=7):
    h = np.zeros(n, POINT)
    h["x"] = rng.standard_normal(n)
    h["n"] = rng.integers(-100, 100, n)
    h["flag"] = rng.random(n) < 0.5
    return h


def test_a_field_is_a_view_of_the_same_memory(rng):
    h = points(rng)
    a = ember.asarray(h)
    x = a["x"]
    assert x.dtype == np.float64 and x.strides == h["x"].strides and x.base is a
    assert not x.flags.c_contiguous
    np.testing.assert_array_equal(x.get(), h["x"])
    np.testing.assert_array_equal(a[2:5]["n"].get(), h[2:5]["n"])
    np.testing.assert_array_equal(a["n"][::-2].get(), h["n"][::-2])
    a["n"] += 1000  # written through the view
    h["n"] += 1000
    np.testing.assert_array_equal(a.get()["n"], h["n"])
    np.testing.assert_array_equal(a.get()["x"], h["x"])


def test_field_assignment_and_computation(rng):
    h = points(rng)
    a = ember.asarray(h)
    a["x"] = a["x"] * 2 + a["n"]
    h["x"] = h["x"] * 2 + h["n"]
    a["flag"] = True
    h["flag"] = True
    got = a.get()
    for name in POINT.names:
        np.testing.assert_array_equal(got[name], h[name])
    np.testing.assert_allclose(float(a["x"].sum()), h["x"].sum(), rtol=1e-12)


def test_nested_fields_and_sub_arrays():
    dt = np.dtype([("a", "i4,i4"), ("m", "f4", (2, 3))])
    h = np.zeros(4, dt)
    h["a"]["f1"] = np.arange(4)
    h["m"] = np.arange(24, dtype="f4").reshape(4, 2, 3)
    a = ember.asarray(h)
    a["a"]["f0"] += a["a"]["f1"]
    h["a"]["f0"] += h["a"]["f1"]
    np.testing.assert_array_equal(a["a"]["f0"].get(), h["a"]["f0"])
    m = a["m"]
    assert m.shape == (4, 2, 3) and m.strides == h["m"].strides
    np.testing.assert_array_equal(m.get(), h["m"])


def test_several_fields_are_a_view_with_their_offsets(rng):
    h = points(rng)
    a = ember.asarray(h)
    v, w = a[["flag", "x"]], h[["flag", "x"]]
    assert v.dtype == w.dtype and v.itemsize == POINT.itemsize
    got = v.get()
    for name in ("flag", "x"):
        np.testing.assert_array_equal(got[name], w[name])
    b, g = ember.asarray(h), h.copy()
    b[["x", "n"]] = b[["n", "x"]].copy()  # by position, cast per field
    g[["x", "n"]] = g[["n", "x"]].copy()
    got = b.get()
    for name in POINT.names:
        np.testing.assert_array_equal(got[name], g[name])


@pytest.mark.parametrize("to", ["f4,i2", "i2,f8", np.dtype("f4,i2", align=True), "f4,(2,)i2"])
def test_casts_between_structured_dtypes_go_field_by_field(to):
    h = np.array([(1, 2.5), (3, -4.25), (-7, 1e3)], dtype="i8,f8")
    got = ember.asarray(h).astype(to).get()
    want = h.astype(to)  # packed fields off their alignment go through aligned copies
    assert got.dtype == want.dtype
    for name in want.dtype.names:
        np.testing.assert_array_equal(got[name], want[name])


@pytest.mark.parametrize("op", [operator.eq, operator.ne])
def test_comparisons_as_numpy(op):
    a = np.array([(1, 2.0)], dtype="i8,f8")
    b = np.array([(1, 2.0), (1, 3.0), (3, 2.0), (np.nan, 2)], dtype="f8,i8")
    np.testing.assert_array_equal(op(ember.asarray(a), ember.asarray(b)).get(), op(a, b))
    v = np.array([b"87654321", b"12345678"], dtype="V8")
    u = np.array([b"87654321", b"1234567_"], dtype="V8")
    np.testing.assert_array_equal(op(ember.asarray(v), ember.asarray(u)).get(), op(v, u))


def test_comparing_fields_of_other_names_raises_numpys_type_error():
    a = ember.asarray(np.zeros(2, "i8,f8"))[["f1", "f0"]]
    b = ember.asarray(np.zeros(2, "f8,i8"))
    with pytest.raises(TypeError):
        a == b  # noqa: B015
    with pytest.raises(TypeError):
        np.zeros(2, "i8,f8")[["f1", "f0"]] == np.zeros(2, "f8,i8")  # noqa: B015


def test_scalars_fill_every_field():
    dt = np.dtype("i4,i4,i8")
    a = ember.empty(5, dtype=dt)
    a[...] = 7.0
    np.testing.assert_array_equal(a.get(), np.full(5, 7.0, dtype=dt))
    s = np.void((1, -2, 3), dtype=dt)
    a[1:3] = s
    want = np.full(5, 7.0, dtype=dt)
    want[1:3] = s
    np.testing.assert_array_equal(a.get(), want)


def test_field_errors():
    a = ember.asarray(np.zeros(4, dtype="?,f8"))  # NumPy packs f1 at byte 1
    with pytest.raises(ValueError, match="not sufficiently aligned for GPU kernels"):
        a["f1"]
    assert a[:0]["f1"].shape == (0,)  # nothing to load: allowed
    with pytest.raises(ValueError, match="no field of name z"):
        ember.asarray(np.zeros(2, "i4,i4"))["z"]
    with pytest.raises(KeyError):
        ember.asarray(np.zeros(2, "i4,i4"))[["f0", "z"]]
    with pytest.raises(IndexError, match="only integers, slices"):
        ember.zeros(3)["x"]


@pytest.mark.parametrize("dt,itemsize", [
    ("?,c8", 16), ("c8,?", 16), ("?,(3,)c8", 32), (np.dtype([("a", "c8,?"), ("b", "?")]), 24), ("?,(4,)V3", 13),
])
def test_make_aligned_dtype_puts_each_field_at_its_gpu_alignment(dt, itemsize):
    aligned = ember.make_aligned_dtype(dt)
    assert aligned.itemsize == itemsize
    for name in aligned.names:
        field, offset = aligned.fields[name][:2]
        base = field.subdtype[0] if field.subdtype else field
        assert offset % (1 if base.kind == "V" and base.names is None else min(base.itemsize, 8)) == 0
    with pytest.raises(ValueError, match="only supports structured dtypes"):
        ember.make_aligned_dtype("c16")
