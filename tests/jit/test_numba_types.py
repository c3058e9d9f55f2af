"""Numba's type objects (ember.types): NumPy's scalar types that also index into array types and
call into signatures, as ``from numba import float32, void`` code writes them, and @cuda.jit
taking them in place of signature strings."""

from __future__ import annotations

import copy
import pickle

import ember
import numpy as np
import pytest
from ember import cuda, types
from ember.cuda import f4, float32, float64, int32, int64, uint8, void


def test_scalar_types_are_numpys_for_numpy_code():
    assert ember.float32 is cuda.float32 is types.float32 is types.f4
    assert np.zeros(3, dtype=float32).dtype == np.float32
    assert ember.zeros(3, dtype=int64).dtype == np.int64
    assert np.result_type(float32, int32) == np.float64
    assert float32(1.5) == np.float32(1.5) and type(float32(1.5)) is np.float32
    assert float32() == 0.0  # NumPy's zero: no argument is not Numba's empty signature
    assert np.dtype("float32") == float32 and float32 == np.dtype("float32")
    assert {np.float64: "f8"}[float64] == "f8"
    assert np.issubdtype(float32, np.floating) and not np.issubdtype(int32, np.floating)
    assert repr(float32) == repr(np.float32)
    assert pickle.loads(pickle.dumps(float32)) is float32 and copy.deepcopy(int32) is int32
    assert pickle.loads(pickle.dumps(np.float32(2.5))) == 2.5


def test_array_and_signature_types_are_written_as_numba_writes_them():
    assert str(float32[:]) == "float32[:]"
    assert str(float32[:, ::1]) == "float32[:, ::1]"
    assert str(int32[::1, :, :]) == "int32[::1, :, :]"
    assert float32[:, ::1] == types.Array(float32, 2, "C") and float32[:].layout == "A"
    assert int32[::1, :].layout == "F" and int32[::1].layout == "C"
    assert str(void(float32[:], int32)) == "void(float32[:], int32)"
    assert str(f4(f4, f4)) == "float32(float32, float32)"
    assert str(void()) == "void()"
    sig = void(float32[:, ::1], uint8)
    assert sig.return_type is types.none and sig.args == (float32[:, ::1], uint8)
    assert types.Tuple([int32, int32]) == types.UniTuple(int32, 2)
    assert str(types.Tuple([int32, float64])) == "Tuple(int32, float64)"
    assert isinstance(float32, types.Float) and isinstance(int32, types.Integer)
    assert isinstance(uint8, types.Number) and not isinstance(float32, types.Integer)
    assert isinstance(float32[:], types.Type) and isinstance(void, types.Type)
    assert float32.name == "float32" and int64.bitwidth == 64
    assert types.byte is types.uint8  # Numba's byte is unsigned


@pytest.mark.parametrize("bad, message", [
    (lambda: float32[1], "each dimension of an array type is ':'"),
    (lambda: float32[:, ::1, :], "only the first or the last dimension"),
    (lambda: float32[::2], "each dimension"),
    (lambda: void[:], "void is a return type"),
    (lambda: float32[:](3), "is a type"),
    (lambda: types.Array(float32, 0), "at least one dimension"),
    (lambda: types.Array(float32, 1, "K"), "layout must be"),
])
def test_malformed_types_are_refused_with_the_rule(bad, message):
    with pytest.raises((TypeError, ValueError), match=message):
        bad()


def test_jit_takes_signature_objects_tuples_and_lists(rng):
    a = rng.standard_normal(64).astype(np.float32)

    def body(out, x, s):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * s  # one rounding (a sum of products may contract into an FMA, as in Numba)

    eager = cuda.jit(void(float32[:], float32[::1], float32))(body)
    by_tuple = cuda.jit((float32[:], float32[:], float32))(body)
    listed = cuda.jit([void(float32[:], float32[:], float32), "void(float64[:], float64[:], float64)"])(body)
    for kernel in (eager, by_tuple, listed):
        out = ember.zeros(64, dtype=np.float32)
        kernel[2, 32](out, ember.asarray(a), np.float32(3.0))
        np.testing.assert_array_equal(out.get(), a * np.float32(3.0))
    assert len(listed.inspect_c()) == 2
    # An eager kernel refuses other argument types, as Numba's does.
    with pytest.raises(TypeError):
        eager[2, 32](ember.zeros(64, dtype=np.float64), ember.asarray(a.astype(np.float64)), 3.0)


def test_fortran_order_signatures_read_by_strides(rng):
    a = np.asfortranarray(rng.standard_normal((5, 7)))

    @cuda.jit(void(float64[::1, :], float64[:, :]))
    def twice(out, x):
        i, j = cuda.grid(2)
        if i < x.shape[0] and j < x.shape[1]:
            out[i, j] = 2.0 * x[i, j]

    out = ember.zeros((5, 7))
    twice[(1, 1), (8, 8)](out, ember.asarray(a))
    np.testing.assert_array_equal(out.get(), 2.0 * a)


def test_kernels_use_the_types_as_casts_and_dtypes(rng):
    x = rng.integers(-1000, 1000, 50).astype(np.int64)

    @cuda.jit(f4(f4, f4), device=True)
    def halfsum(p, q):
        return (p + q) / f4(2)

    @cuda.jit
    def kernel(out, x):
        i = cuda.grid(1)
        if i < x.size:
            tmp = cuda.local.array(2, dtype=float32)
            tmp[0] = float32(x[i])
            tmp[1] = float32(1)
            out[i] = halfsum(tmp[0], tmp[1])

    out = ember.zeros(50, dtype=np.float32)
    kernel[2, 32](out, ember.asarray(x))
    np.testing.assert_array_equal(out.get(), (x.astype(np.float32) + np.float32(1)) / np.float32(2))


def test_a_tuple_argument_type_compiles():
    # Tuples are passed by value (tests/jit/test_jit_arguments.py has the rest).
    @cuda.jit(void(float32[:], types.UniTuple(int32, 2)))
    def kernel(out, t):
        out[0] = t[0] + t[1]

    out = ember.zeros(1, np.float32)
    kernel[1, 1](out, (2, 5))
    assert out.get()[0] == 7


def test_round_to_digits_is_numbas_double_round(rng):
    """round(x, ndigits) as Numba computes it (CPython's fallback double_round): exact against
    Python's round for ordinary values, the value itself where scaling overflows."""

    @cuda.jit(void(float64[:], float64[:], int32))
    def round_all(out, x, nd):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = round(x[i], nd)

    @cuda.jit(void(float32[:], float32, int32))
    def round_one(out, c, nd):
        out[0] = round(c, nd)

    x = np.concatenate([rng.random(64), rng.standard_normal(64) * 1e4, [2.5, -0.5, 1.25, np.inf, -np.inf]])
    out = ember.zeros(x.size)
    for nd in range(-5, 6):
        round_all[5, 32](out, ember.asarray(x), nd)
        np.testing.assert_array_equal(out.get(), [round(float(v), nd) for v in x])
    round_all[5, 32](out, ember.asarray(np.full(x.size, np.finfo(np.float64).max)), 5)
    assert (out.get() == np.finfo(np.float64).max).all()  # y overflows: x itself
    one = ember.zeros(1, dtype=np.float32)
    round_one[1, 1](one, np.finfo(np.float32).max, 300)
    assert one.get()[0] == np.finfo(np.float32).max
    round_one[1, 1](one, np.nan, 2)
    assert np.isnan(one.get()[0])
