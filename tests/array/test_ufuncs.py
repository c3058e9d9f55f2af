"""Universal functions and operators, compared with NumPy (dtype and values) on random inputs.

On PoCL each new (ufunc, dtypes, layout) compiles a kernel in about a second, so every ufunc is
checked once on its main dtype and the dtype matrix is covered on a few of them.
"""

from __future__ import annotations

import ember as cp
import numpy as np
import pytest
from ember.testing import ALL_DTYPES, random_array
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

FLOAT_UNARY = ["sqrt", "square", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan",
               "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "floor", "ceil", "trunc", "rint", "negative",
               "positive", "absolute", "sign", "isnan", "isinf", "isfinite", "logical_not", "reciprocal"]
FLOAT_BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power", "maximum",
                "minimum", "fmax", "fmin", "arctan2", "fmod", "equal", "not_equal", "less", "less_equal",
                "greater", "greater_equal", "logical_and", "logical_or", "logical_xor"]
INT_BINARY = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "floor_divide", "remainder",
              "power", "fmod"]


def check(name, *host, rtol=1e-6, **kwargs):
    """Runs ufunc `name` in NumPy and ember on `host` arrays/scalars; same dtype and values."""
    with np.errstate(all="ignore"):
        want = getattr(np, name)(*host, **kwargs)
    args = [cp.asarray(h) if isinstance(h, np.ndarray) else h for h in host]
    got = getattr(cp, name)(*args, **kwargs)
    assert isinstance(got, cp.ndarray)
    assert got.dtype == want.dtype, f"{name}: {got.dtype} != {want.dtype}"
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=0, equal_nan=True, err_msg=name)


def special_floats(rng, n, dtype):
    x = (rng.standard_normal(n) * 3).astype(dtype)
    x[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0]
    return x


@pytest.mark.parametrize("name", FLOAT_UNARY)
def test_float_unary(rng, name):
    x = special_floats(rng, 257, np.float32)
    if name in ("arcsin", "arccos"):
        x = np.clip(x, -1, 1)
    check(name, x, rtol=2e-6)


@pytest.mark.parametrize("name", FLOAT_BINARY)
def test_float_binary_with_broadcasting(rng, name):
    x = special_floats(rng, 6 * 7, np.float64).reshape(6, 7)
    y = special_floats(rng, 7, np.float64)[::-1].copy()
    if name == "power":
        x = np.abs(x)
    check(name, x, y, rtol=1e-12)


@pytest.mark.parametrize("name", INT_BINARY)
def test_integer_binary_semantics(rng, name):
    x = rng.integers(-1000, 1000, 300).astype(np.int32)
    y = rng.integers(-40, 40, 300).astype(np.int32)
    if name in ("left_shift", "right_shift"):
        y = rng.integers(0, 40, 300).astype(np.int32)  # past the width: 0 or the sign, as NumPy
    if name == "power":
        x, y = rng.integers(-9, 9, 300).astype(np.int32), rng.integers(0, 9, 300).astype(np.int32)
    check(name, x, y)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_add_multiply_compare_every_dtype(rng, dtype):
    x, y = random_array(rng, 64, dtype), random_array(rng, 64, dtype)
    if dtype == np.bool_:
        check("add", x, y)
        check("multiply", x, y)
    else:
        check("add", x, y, rtol=1e-3 if dtype == np.float16 else 1e-6)
        check("multiply", x, y, rtol=1e-3 if dtype == np.float16 else 1e-6)
    check("less", x, y)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "float16", "complex64"])
def test_mixed_dtypes_follow_numpy_promotion(rng, dtype):
    x = random_array(rng, 50, dtype)
    y = random_array(rng, 50, "int16")
    check("add", x, y, rtol=1e-3)
    if dtype != "complex64":
        check("sqrt", np.abs(x).astype(dtype), rtol=1e-3)  # int8 -> float16 as in NumPy


def test_complex_arithmetic(rng):
    x, y = random_array(rng, 100, np.complex128), random_array(rng, 100, np.complex128)
    for name in ("add", "subtract", "multiply", "true_divide", "absolute", "negative", "equal", "square"):
        check(name, x, y, rtol=1e-12) if getattr(np, name).nin == 2 else check(name, x, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_functions(rng, dtype):
    x = (rng.standard_normal(64) + 1j * rng.standard_normal(64)).astype(dtype)
    rtol = 1e-5 if dtype == "complex64" else 1e-12
    for name in ("exp", "log", "log2", "log10", "sqrt", "sin", "cos", "sinh", "cosh", "tanh"):
        check(name, x, rtol=rtol)
    check("power", x, x[::-1].copy(), rtol=rtol * 10)
    # Also points on and near the branch cuts, and tiny and large magnitudes.
    edges = np.array([2, -2, complex(2, -0.0), 0.5, 2j, -2j, 0.5j, 1e-6 + 2e-7j, 3 + 0.1j, 1 + 9j], dtype)
    x = np.concatenate([x, edges])
    for name in ("exp2", "expm1", "tan", "arcsin", "arccos", "arctan", "rint", "conjugate"):
        check(name, x, rtol=rtol * 10)
    check("log1p", x[np.abs(x) > 0.1], rtol=rtol * 10)  # NumPy's is log(1 + x): inexact near 0
    y = x[::-1].copy()
    y[::4] = complex(np.nan, 1)
    for name in ("fmax", "fmin", "maximum", "minimum"):
        check(name, x, y, rtol=0)



@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_arcsin_arccos_arctan_and_tan_are_accurate_far_out_and_near_poles(rng, dtype):
    """Each part to a few ulps of NumPy's for |z| from 1e-3 to 1e6, near the branch points +-1 of
    arcsin and arccos, the poles +-i of arctan and the poles (k + 1/2) pi of tan (subnormal parts
    to the smallest normal number)."""
    n = 400
    z = 10.0 ** rng.uniform(-3, 6, n) * np.exp(1j * rng.uniform(-np.pi, np.pi, n))
    near = 10.0 ** rng.uniform(-7, -1, n) * np.exp(1j * rng.uniform(-np.pi, np.pi, n))
    branch = np.concatenate([1 + near[::2], -1 + near[1::2], z.real[:50], 1j * z.imag[:50]])
    poles = (rng.integers(-4, 4, n) + 0.5) * np.pi + near
    rtol = 1e-5 if dtype == "complex64" else 1e-12
    atol = np.finfo(dtype).tiny
    for name, x in [("arcsin", branch), ("arccos", branch), ("arctan", 1j * np.sign(z.imag) + near),
                    ("tan", poles)]:
        x = np.concatenate([z, x]).astype(dtype)
        with np.errstate(all="ignore"):
            want = getattr(np, name)(x)
        got = getattr(cp, name)(cp.asarray(x)).get()
        for part in ("real", "imag"):
            np.testing.assert_allclose(getattr(got, part), getattr(want, part), rtol=rtol, atol=atol,
                                       err_msg=f"{name} {part}")

def test_real_imag_and_conj_views(rng):
    z = random_array(rng, (6, 5), np.complex64)
    d = cp.asarray(z)
    re, im = d.real, d[:, ::-2].imag
    assert re.dtype == im.dtype == np.float32
    np.testing.assert_array_equal(re.get(), z.real)
    np.testing.assert_array_equal(im.get(), z[:, ::-2].imag)
    re[0] = 7  # the parts are views of the complex array, as in NumPy
    d.imag = d.real * 2
    z.real[0] = 7
    z.imag = z.real * 2
    np.testing.assert_array_equal(d.get(), z)
    np.testing.assert_array_equal(d.conj().get(), z.conj())
    np.testing.assert_array_equal(cp.conj(d).get(), np.conj(z))
    np.testing.assert_array_equal(cp.real(d).get(), np.real(z))
    x = cp.asarray(np.arange(4.0))
    assert x.real is x and x.conj() is x  # real arrays: themselves (CuPy)
    np.testing.assert_array_equal(cp.imag(x).get(), np.zeros(4))
    with pytest.raises(TypeError, match="no imaginary part"):
        x.imag = 1
    for value in (2, 2.5, 3 - 4j, [1 + 2j, 3]):  # Python values: device arrays, as CuPy gives
        for part in ("real", "imag"):
            got = getattr(cp, part)(value)
            assert isinstance(got, cp.ndarray)
            np.testing.assert_array_equal(got.get(), getattr(np, part)(np.asarray(value)))


def test_python_scalars_are_weak(rng):
    x8 = rng.integers(-100, 100, 20).astype(np.int8)
    f32 = rng.standard_normal(20).astype(np.float32)
    check("add", x8, 3)
    check("multiply", f32, 2.5)
    check("add", x8, 1.5)
    check("true_divide", x8, 2)
    check("add", f32, 1j)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        cp.asarray(x8) + 300


def test_operators_match_numpy(rng):
    a, b = rng.standard_normal((5, 4)), rng.standard_normal(4)
    da, db = cp.asarray(a), cp.asarray(b)
    with np.errstate(all="ignore"):
        pairs = [
            (da + db, a + b), (da - 1, a - 1), (2 * da, 2 * a), (da / db, a / b), (1 / da, 1 / a),
            (da // db, a // b), (da % 1.5, a % 1.5), (da ** 2, a ** 2), (-da, -a), (abs(da), abs(a)),
            (da > db, a > b), (da == da, a == a), (da != 0.5, a != 0.5),
        ]
    for got, want in pairs:
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.get(), want, rtol=1e-12)
    i = cp.asarray(np.arange(10, dtype=np.int64))
    np.testing.assert_array_equal((~i & 6 | 1 ^ i << 2 >> 1).get(), ~np.arange(10) & 6 | 1 ^ np.arange(10) << 2 >> 1)


def test_native_operators_keep_python_rules_for_other_operands(rng):
    """The operators are native methods in front of the Python ones: arrays and scalars take
    the native path, everything else reaches the Python rules (conversion, NotImplemented)."""
    import types

    assert isinstance(cp.ndarray.__add__, types.MethodDescriptorType)
    a = rng.standard_normal(6)
    d = cp.asarray(a)
    with np.errstate(all="ignore"):
        pairs = [
            (d + [1, 2, 3, 4, 5, 6], a + [1, 2, 3, 4, 5, 6]),  # a list: converted by the Python path
            ([1, 2, 3, 4, 5, 6] - d, [1, 2, 3, 4, 5, 6] - a),
            (d * np.float32(2), a * np.float32(2)), (np.float64(3) - d, np.float64(3) - a),
            (True + d, True + a), (d ** 2j, a ** 2j), (d.__add__(d), a + a), (d.__rsub__(1.5), 1.5 - a),
        ]
    for got, want in pairs:
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.get(), want, rtol=1e-12)
    # == and != with any other object compare elementwise as NumPy's do: never equal.
    for got, want in ((d == None, a == None), (d != object(), a != object()), (d == "x", a == "x")):  # noqa: E711
        assert got.dtype == want.dtype and np.array_equal(got.get(), want)
    # Other unknown operand types give NotImplemented, so Python's own rules answer.
    assert d.__add__("x") is NotImplemented
    with pytest.raises(TypeError, match="unsupported operand type\\(s\\) for \\+: 'ndarray' and 'str'"):
        d + "x"
    with pytest.raises(TypeError, match="unsupported operand type\\(s\\) for -: 'dict' and 'ndarray'"):
        {} - d
    with pytest.raises(ValueError, match="could not be broadcast together with shapes \\(6,\\) \\(4,\\)"):
        d + cp.ones(4)
    with pytest.raises(TypeError, match="expected 1 argument"):
        cp.ndarray.__add__(d)
    with pytest.raises(TypeError, match="unsupported operand type\\(s\\) for \\*\\* or pow\\(\\)"):
        pow(d, 2, 5)
    with pytest.raises(TypeError, match="descriptor '__add__'"):
        cp.ndarray.__add__(1, d)
    e = d.copy()
    same = e
    e -= np.float64(1)
    e **= 2
    e += [1, 2, 3, 4, 5, 6]  # converted, as NumPy does
    assert e is same
    np.testing.assert_allclose(e.get(), (a - 1) ** 2 + [1, 2, 3, 4, 5, 6], rtol=1e-12)
    np.testing.assert_allclose((-d).get(), -a)
    assert abs(cp.asarray(np.array([-3], np.int8))).get()[0] == 3


def test_repeated_calls_keep_apart_dtypes_alignment_and_shapes(rng):
    """Calls of one form are remembered per thread (loop and kernel): calls that differ only in
    dtypes, in the alignment of contiguous views or in shape must still get their own."""
    a = rng.standard_normal(1030)
    b = rng.standard_normal(1030).astype(np.float32)
    cases = [
        lambda x, y: x[:-2] * y[:-2],  # aligned: vector loads
        lambda x, y: x[1:-1] * y[1:-1],  # 4 bytes off
        lambda x, y: y[1:-1] * y[1:-1],  # float32 only
        lambda x, y: x[:6].reshape(2, 3) * x[6:12].reshape(2, 3),
    ]
    for _ in range(2):
        for f in cases:  # the same code on both libraries
            got, want = f(cp.asarray(a), cp.asarray(b)), f(a, b)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got.get(), want)


def test_in_place_operators_and_out(rng):
    a = rng.standard_normal(100)
    d = cp.asarray(a)
    ptr = d.data.ptr
    d += 1
    d *= 2
    assert d.data.ptr == ptr
    np.testing.assert_allclose(d.get(), (a + 1) * 2)
    out = cp.empty(100)
    r = cp.multiply(d, 3, out=out)
    assert r is out
    np.testing.assert_allclose(out.get(), (a + 1) * 6)
    i = cp.asarray(np.arange(4, dtype=np.int32))
    cannot = "Cannot cast ufunc 'divide' output from dtype\\('float64'\\) to dtype\\('int32'\\)"
    with pytest.raises(TypeError, match=cannot):
        i /= 2


def test_strided_views_and_overlap(rng):
    a = rng.standard_normal((6, 8))
    d = cp.asarray(a)
    np.testing.assert_allclose(cp.sin(d.T).get(), np.sin(a.T))
    np.testing.assert_allclose((d.T + d.T).get(), a.T + a.T)


@settings(max_examples=25, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=5),
    data=st.data(),
)
def test_broadcasting_any_shapes(shapes, data):
    s1, s2 = shapes.input_shapes
    x = data.draw(hnp.arrays(np.float32, s1, elements=st.floats(-1e3, 1e3, width=32)))
    y = data.draw(hnp.arrays(np.float32, s2, elements=st.floats(-1e3, 1e3, width=32)))
    got = cp.asarray(x) * cp.asarray(y) + 1.0
    want = x * y + np.float32(1.0)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got.get(), want, rtol=1e-6)


def test_where_and_clip(rng):
    a = rng.standard_normal((4, 5)).astype(np.float32)
    d = cp.asarray(a)
    got = cp.where(d > 0, d, 0)
    np.testing.assert_array_equal(got.get(), np.where(a > 0, a, 0))
    assert got.dtype == np.where(a > 0, a, 0).dtype
    np.testing.assert_array_equal(cp.clip(d, -0.5, 0.5).get(), np.clip(a, -0.5, 0.5))


def test_errors_like_numpy():
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with shapes \(2, 3\) \(4,\)"):
        cp.ones((2, 3)) + cp.ones(4)
    with pytest.raises(TypeError, match="numpy boolean subtract"):
        cp.asarray(np.array([True])) - cp.asarray(np.array([False]))
    with pytest.raises(TypeError, match="ufunc 'sign' did not contain a loop"):
        cp.sign(cp.asarray(np.array([True])))
    with pytest.raises(TypeError, match="numpy.ndarray.*ember.asarray"):
        cp.add(cp.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        cp.asarray(np.arange(3)) ** -1
    with pytest.raises(ValueError, match="non-broadcastable output operand with shape \\(3,\\)"):
        cp.add(cp.ones((2, 3)), 1, out=cp.empty(3))


def test_lists_are_converted(rng):
    np.testing.assert_array_equal((cp.ones(3) + [1, 2, 3]).get(), np.ones(3) + [1, 2, 3])
    assert isinstance(cp.add, cp.ufunc) and cp.add.nin == 2 and cp.mod is cp.remainder


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
def test_division_of_the_most_negative_integer_by_minus_one_wraps_like_numpy(dtype):
    low = np.iinfo(dtype).min
    a = np.array([low, low, 7, -7, low + 1], dtype)
    b = np.array([-1, 1, -1, 2, -1], dtype)
    for name in ("floor_divide", "remainder", "fmod"):
        with np.errstate(all="ignore"):
            want = getattr(np, name)(a, b)
        got = getattr(cp, name)(cp.asarray(a), cp.asarray(b)).get()
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_a_wider_out_sees_the_loop_types_wrapped_result():
    x8 = np.array([-128, 5, 127], np.int8)
    x16 = np.array([300, -200, 32767], np.int16)
    out = cp.zeros(3, np.int64)
    cp.negative(cp.asarray(x8), out=out)
    np.testing.assert_array_equal(out.get(), np.negative(x8, out=np.zeros(3, np.int64)))
    cp.multiply(cp.asarray(x16), cp.asarray(x16), out=out)
    np.testing.assert_array_equal(out.get(), np.multiply(x16, x16, out=np.zeros(3, np.int64)))


def test_python_floats_are_rounded_to_float16_first():
    h = np.array([1.5, -2.0, 0.0], np.float16)
    with np.errstate(all="ignore"):
        want = h * 1e5  # 1e5 becomes float16 inf first
    np.testing.assert_array_equal((cp.asarray(h) * 1e5).get(), want)
    np.testing.assert_array_equal((cp.asarray(h) + 0.1).get(), h + 0.1)


def test_comparisons_with_python_ints_out_of_range_answer_exactly_like_numpy():
    x8 = np.array([-128, -1, 0, 5, 127], dtype=np.int8)
    u64 = np.array([0, 1, 2**64 - 1], dtype=np.uint64)
    for name in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal"):
        for arr, value in ((x8, 1000), (x8, -129), (u64, -1), (u64, 2**64), (x8, -(2**70))):
            for args in ((arr, value), (value, arr)):
                want = getattr(np, name)(*args)
                got = getattr(cp, name)(*(cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args))
                assert got.dtype == np.bool_
                np.testing.assert_array_equal(got.get(), want, err_msg=f"{name}{args}")


def test_python_ints_beyond_64_bits_convert_in_float_loops_and_raise_in_integer_ones():
    f = np.array([1.5, -2.0, 3.0], dtype=np.float64)
    np.testing.assert_array_equal((cp.asarray(f) + 2**70).get(), f + 2**70)
    np.testing.assert_array_equal((cp.asarray(f) < 2**200).get(), f < 2**200)
    i = np.array([1, -2], dtype=np.int16)
    np.testing.assert_allclose(cp.true_divide(cp.asarray(i), 2**64).get(), np.true_divide(i, 2**64))
    with pytest.raises(OverflowError, match="Python int too large to convert to C long"):
        cp.asarray(i) + 2**64


def test_int64_and_uint64_compare_by_value_like_numpy():
    a = np.array([-1, 0, 5, 2**63 - 1, -(2**63)], np.int64)
    b = np.array([5, 0, 5, 2**64 - 1, 0], np.uint64)
    for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        for x, y in ((a, b), (b, a), (a.astype(np.int8, casting="unsafe"), b)):
            got = getattr(cp, name)(cp.asarray(x), cp.asarray(y))
            np.testing.assert_array_equal(got.get(), getattr(np, name)(x, y), err_msg=f"{name} {x.dtype} {y.dtype}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_scalar_powers_of_one_half_and_two_are_numpys_sqrt_and_square(dtype):
    # NumPy's float32/float64 power loops take sqrt and square for a scalar exponent of 0.5
    # and 2: -0.0 ** 0.5 is -0.0 and -inf ** 0.5 is NaN there, where C's pow gives +0.0 and inf.
    a = np.array([-np.inf, -0.0, 0.0, 2.0, np.nan, 3.0, 1e30, -8.0, np.inf, 1e-30], dtype=dtype)
    e = cp.asarray(a)
    with np.errstate(invalid="ignore"):
        for got, want in [(e ** 0.5, a ** 0.5), (cp.power(e, 0.5), np.power(a, 0.5)), (e ** 2, a ** 2),
                          (e ** 2.0, a ** 2.0), (cp.power(e, 2), np.power(a, 2))]:
            host = got.get()
            assert host.dtype == want.dtype
            np.testing.assert_array_equal(host, want)
            finite = ~np.isnan(want)
            np.testing.assert_array_equal(np.signbit(host[finite]), np.signbit(want[finite]))
        # An array of exponents takes pow, in NumPy and here: -inf ** 0.5 is inf.
        halves = np.full(a.shape, 0.5, dtype=dtype)
        np.testing.assert_array_equal(cp.power(e, cp.asarray(halves)).get()[:2], np.power(a, halves)[:2])
