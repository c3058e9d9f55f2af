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


def test_numpy_support_maps_dtypes_and_types_both_ways():
    from ember.cuda.np import numpy_support

    for name in ("bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64", "complex128"):
        t = numpy_support.from_dtype(np.dtype(name))
        assert t == np.dtype(name).type and numpy_support.as_dtype(t) == np.dtype(name)
    assert str(numpy_support.from_dtype(np.float32)[::1]) == "float32[::1]"
    assert numpy_support.as_dtype(types.intp) == np.int64
    structured = np.dtype([("x", np.float64), ("y", np.int64)])
    rec = numpy_support.from_dtype(structured)
    assert isinstance(rec, types.Record) and numpy_support.as_dtype(rec) == structured
    with pytest.raises(TypeError, match="has no NumPy dtype"):
        numpy_support.as_dtype(float32[:])


def test_ufunc_builders_take_type_objects(rng):
    @cuda.guvectorize([(float32[:], float32[:])], "(x)->(x)", target="cuda")
    def doubled(a, out):
        for i in range(a.shape[0]):
            out[i] = a[i] * float32(2)

    @cuda.vectorize([f4(f4, f4), float64(float64, float64)])
    def hypot2(x, y):
        return x * x + y * y

    a = rng.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_array_equal(doubled(ember.asarray(a)).get(), a * np.float32(2))
    b = rng.standard_normal(7)
    np.testing.assert_allclose(hypot2(ember.asarray(b), ember.asarray(b)).get(), 2 * b * b, rtol=1e-15)
    assert types.complex64.underlying_float is float32 and types.complex128.underlying_float is float64
    assert int32.signed and not types.uint16.signed


def test_a_kernel_called_from_a_kernel_runs_as_a_device_function(rng):
    @cuda.jit
    def set_first(a, v):
        a[0] = v

    @cuda.jit(void(int32[::1]))
    def caller(a):
        set_first(a, int32(-7))

    x = rng.integers(0, 9, 4).astype(np.int32)
    d = ember.asarray(x)
    caller[1, 1](d)
    np.testing.assert_array_equal(d.get(), np.concatenate([[-7], x[1:]]))
    set_first[1, 1](d, np.int32(5))  # and it is still a kernel
    assert d.get()[0] == 5


_CMATH = ("sqrt", "exp", "log", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan",
          "asinh", "acosh", "atanh")


def test_cmath_in_kernels_matches_python(rng):
    import cmath

    @cuda.jit
    def kernel(out, z):  # one kernel for all (PoCL builds each kernel in about a second)
        i = cuda.grid(1)
        if i < z.size:
            v = z[i]
            out[i, 0], out[i, 1], out[i, 2], out[i, 3] = cmath.sqrt(v), cmath.exp(v), cmath.log(v), cmath.log10(v)
            out[i, 4], out[i, 5], out[i, 6] = cmath.sin(v), cmath.cos(v), cmath.tan(v)
            out[i, 7], out[i, 8], out[i, 9] = cmath.sinh(v), cmath.cosh(v), cmath.tanh(v)
            out[i, 10], out[i, 11], out[i, 12] = cmath.asin(v), cmath.acos(v), cmath.atan(v)
            out[i, 13], out[i, 14], out[i, 15] = cmath.asinh(v), cmath.acosh(v), cmath.atanh(v)

    @cuda.jit
    def real_argument(out, x):  # made complex first, as in Numba: sqrt(-2.0) is 1.414j
        i = cuda.grid(1)
        if i < x.size:
            out[i] = cmath.sqrt(x[i])

    z = rng.standard_normal(24) * 2 + 1j * rng.standard_normal(24) * 2
    out = ember.zeros((24, len(_CMATH)), dtype=np.complex128)
    kernel[1, 32](out, ember.asarray(z))
    want = np.array([[getattr(cmath, name)(a) for name in _CMATH] for a in z])
    np.testing.assert_allclose(out.get(), want, rtol=1e-13, atol=1e-13)
    x = rng.standard_normal(24) * 2
    roots = ember.zeros(24, dtype=np.complex128)
    real_argument[1, 32](roots, ember.asarray(x))
    np.testing.assert_allclose(roots.get(), [cmath.sqrt(v) for v in x], rtol=1e-15, atol=1e-15)


def test_cmath_keeps_complex64_and_refuses_what_it_lacks():
    import cmath

    @cuda.jit
    def single(out, z):
        out[0] = cmath.exp(z[0])

    z = np.array([0.5 + 0.25j], dtype=np.complex64)
    out = ember.zeros(1, dtype=np.complex64)
    single[1, 1](out, ember.asarray(z))
    np.testing.assert_allclose(out.get(), np.exp(z), rtol=1e-6)
    assert "complex64" in next(iter(single.inspect_c()))

    @cuda.jit
    def close(out, z):
        out[0] = cmath.isclose(z[0], z[0])

    with pytest.raises(ember.JitError, match=r"cmath.isclose\(\) is not supported in kernels"):
        close[1, 1](ember.zeros(1), ember.asarray(z))


def test_gufunc_calls_and_refusals_as_numba_words_them(rng):
    @cuda.guvectorize([void(float32[:], float32[:], float32[:])], "(x),(x)->(x)", target="cuda")
    def add(a, b, out):
        for i in range(a.shape[0]):
            out[i] = a[i] + b[i]

    a = rng.standard_normal((4, 3)).astype(np.float32)
    stream = cuda.stream()
    out = ember.zeros((4, 3), dtype=np.float32)
    add(ember.asarray(a), ember.asarray(a), out=out, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(out.get(), a + a)
    with pytest.raises(TypeError, match=r"This gufunc accepts 2 positional arguments \(when providing input only\) "
                                        r"or 3 positional arguments \(when providing input and output\). Got 1 "
                                        r"positional argument."):
        add(ember.asarray(a))
    with pytest.raises(ValueError, match="cannot specify argument 'out' as both positional and keyword"):
        add(ember.asarray(a), ember.asarray(a), out, out=out)
    with pytest.raises(TypeError, match="The following target options are not supported: 'ever2', 'what1'"):
        cuda.guvectorize([void(float32[:], float32[:])], "(x)->(x)", target="cuda", what1=True, ever2=False)
    @cuda.jit
    def calls_a_gufunc(x, out):
        add(x, x, out)

    with pytest.raises(ember.JitError, match="Untyped global name 'add': a gufunc"):
        calls_a_gufunc[1, 1](ember.asarray(a), out)
    with pytest.raises(TypeError, match="^nopython flag must be True$"):
        cuda.guvectorize([void(float32[:], float32[:])], "(x)->(x)", nopython=False)
    with pytest.raises(TypeError, match="cannot return values: signature int32\\(int32\\[:\\], int32\\[:\\]\\) "
                                        "specifies int32 return type"):
        cuda.guvectorize([int32(int32[:], int32[:])], "(m)->(m)")(lambda x, y: None)


def test_typeof_gives_the_types_kernels_see():
    assert types.typeof(np.zeros((3, 4), np.float32)) == float32[:, ::1]
    assert types.typeof(np.zeros((3, 4)).T) == types.Array(float64, 2, "F")
    assert types.typeof(np.zeros((3, 4))[:, ::2]) == types.Array(float64, 2, "A")
    assert types.typeof(ember.zeros((3, 4), np.int32).T) == types.Array(int32, 2, "F")
    assert types.typeof(ember.zeros(5)) == float64[::1]
    ro = np.zeros(3)
    ro.flags.writeable = False
    assert types.typeof(ro).readonly and not types.typeof(np.zeros(3)).readonly
    assert types.typeof((1, 2.0)) == types.Tuple([int64, float64])
    assert types.typeof((1, 2)) == types.UniTuple(int64, 2)
    assert types.typeof(True) is types.boolean and types.typeof(1.5) is float64
    assert types.typeof(np.int8(3)) is types.int8 and types.typeof(1j) is types.complex128
    with pytest.raises(ValueError, match="cannot determine the Numba type of str"):
        types.typeof("text")


def test_signature_text_of_a_function_without_arguments():
    # Evaluated as Python, "int32()" would be NumPy's zero; Numba reads a signature.
    sig = types.parse_signature("int32()")
    assert (sig.return_type, sig.args) == (int32, ())
    assert str(types.parse_signature(" float64[:] ( ) ")) == "float64[:]()"
    with pytest.raises(TypeError, match="Return type must be provided"):
        types.parse_signature("(int32, int32)")
