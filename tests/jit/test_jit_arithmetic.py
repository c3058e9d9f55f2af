"""The language of ``@cuda.jit`` kernels: scalar arithmetic (integers widened to 64 bits,
Python's division and signs, float32 kept only with small integers, float16 rounded after every
operation), the math module and the builtins and casts, each compared with the same Python
on the host (see ``jit_kernels``)."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest
from ember import cuda
from ember._jit import kernel_source
from ember.errors import JitError
from jit_harness import TPB, N, blocks, floats, host, ints, rows2, run
from jit_kernels import (
    BUILTINS,
    COMPLEX,
    FLOAT_OPS,
    INT_OPS,
    MATH_FLOATS,
    UNARY_OPS,
    builtins,
    complex_ops,
    float_ops,
    half_arithmetic,
    int_ops,
    math_floats,
    unary_ops,
)

# ---- scalar arithmetic ----


@pytest.mark.parametrize(
    "ta, tb, bound",
    [
        ("int32", "int32", None),  # extremes: the sums and products only fit in int64
        ("int8", "uint16", None),
        ("int64", "int64", 3_000_000_000),  # beyond int32; products still fit int64
        ("uint32", "uint64", None),  # wraps modulo 2**64, as uint64 does
    ],
)
def test_integer_arithmetic_widens_to_64_bits_with_python_division(rng, ta, tb, bound):
    a = ints(rng, ta, lo=None if bound is None else -bound, hi=bound)
    b = ints(rng, tb, lo=None if bound is None else -bound, hi=bound)
    b[5::7] = 0  # int // 0 and int % 0 are 0
    if np.dtype(ta).kind == "i":
        a[6::13] = -7  # small negative dividends, where floor and truncation differ
    if np.dtype(tb).kind == "i":
        b[4::11] = -3
    wide = np.int64 if "i" in (np.dtype(ta).kind, np.dtype(tb).kind) else np.uint64
    got = run(INT_OPS, 10, wide, a, b)
    want = host(int_ops, list(a.astype(wide)), list(b.astype(wide)), dtype=wide)
    np.testing.assert_array_equal(got, want)
    assert (got[b == 0, 3:5] == 0).all()


@pytest.mark.parametrize("ta, tb", [("int8", "int16"), ("int32", "int64"), ("uint8", "uint32")])
def test_negation_and_inversion_happen_at_the_operands_width(rng, ta, tb):
    # -uint8(1) is 255 and ~uint32(0) is 2**32 - 1 (then widened), as NumPy and Numba compute them.
    a, b = ints(rng, ta), ints(rng, tb)
    a[3], b[3] = 0, 0
    wide = np.int64 if np.dtype(ta).kind == "i" else np.uint64
    got = run(UNARY_OPS, 6, wide, a, b)
    want = host(unary_ops, list(a), list(b), dtype=wide)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_arithmetic_follows_python_signs_and_ieee_at_zero(rng, dtype):
    a, b = floats(rng, dtype), floats(rng, dtype)
    a[:12] = [-7.5, 7.5, -7.5, 1.0, -1.0, 0.0, 3.0, -3.0, np.nan, 2.0, -0.0, 0.0]
    b[:12] = [2.0, -2.0, -2.0, 0.0, 0.0, 0.0, np.inf, np.inf, 1.0, np.nan, 1.0, -2.0]
    got = run(FLOAT_OPS, 14, dtype, a, b)
    want = host(float_ops, list(a), list(b), dtype=dtype)
    rtol = 2e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
    np.testing.assert_array_equal(np.signbit(got[10:12, :6]), np.signbit(want[10:12, :6]))  # -0.0 // 1, 0.0 % -2
    assert np.isnan(got[3, 5]) and np.isposinf(got[3, 3]) and np.isnan(got[5, 3])  # 1 % 0, 1 / 0, 0 / 0
    assert got[7, 5] == np.inf  # -3 % inf is inf in Python


@cuda.jit
def float32_promotions(x, k, m, out):
    """A docstring is allowed."""
    i = cuda.grid(1)
    if i >= x.size:
        return
    v = x[i]
    out[i, 0] = v * 2  # float64: an int64 literal
    out[i, 1] = v ** 2  # float32: a power with an integer exponent
    out[i, 2] = v * k[i]  # float32: int16 fits float32
    out[i, 3] = v + m[i]  # float64: int32 does not
    out[i, 4] = m[i] / (k[i] - k[i])  # int / int is float64 division: inf, -inf or nan at 0


def test_float32_stays_float32_only_with_small_integers_and_int_division_is_float64():
    x = np.array([3e38, 1e20, 0.1, -2.5e-3, 7.0], dtype=np.float32)
    k = np.array([3, -7, 11, 300, -1], dtype=np.int16)
    m = np.array([1, 16777217, 0, -5, 2**30], dtype=np.int32)
    out = ember.zeros((5, 5), dtype=np.float64)
    float32_promotions[1, 8](ember.asarray(x), ember.asarray(k), ember.asarray(m), out)
    got = out.get()
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got[:, 0], x64 * 2)
        np.testing.assert_array_equal(got[:, 1], (x * x).astype(np.float64))
        np.testing.assert_array_equal(got[:, 2], (x * k.astype(np.float32)).astype(np.float64))
        np.testing.assert_array_equal(got[:, 3], x64 + m)
        np.testing.assert_array_equal(got[:, 4], m / np.zeros(5))
    assert np.isfinite(got[0, 0]) and np.isinf(got[1, 1])


@cuda.jit
def int_powers(base, exp, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = base[i] ** exp[i]


def test_integer_powers_with_negative_exponents_follow_numba():
    # NumPy refuses these; Numba truncates 1 / b**n, and gives 0x8000... for 0 (no ZeroDivisionError on GPUs).
    base, exp = np.meshgrid(np.arange(-3, 4), np.arange(-3, 4), indexing="ij")
    base, exp = base.ravel().astype(np.int64), exp.ravel().astype(np.int64)
    out = ember.zeros(base.size, dtype=np.int64)
    int_powers[1, TPB](ember.asarray(base), ember.asarray(exp), out)
    want = [b**e if e >= 0 else 1 if b == 1 else (-1) ** e if b == -1 else -(2**63) if b == 0 else 0
            for b, e in zip(base.tolist(), exp.tolist(), strict=True)]
    np.testing.assert_array_equal(out.get(), want)


def test_float16_arithmetic_rounds_after_every_operation_as_numpy_does():
    rng = np.random.default_rng(16)
    a = rng.uniform(0.5, 30, 4096).astype(np.float16)
    b = rng.uniform(0.5, 30, 4096).astype(np.float16)
    out = ember.zeros(4096, dtype=np.float16)
    half_arithmetic[16, 256](ember.asarray(a), ember.asarray(b), out)
    want = np.sqrt(a * b + a) - b / a  # NumPy rounds each float16 operation to float16
    np.testing.assert_array_equal(out.get(), want)
    # Computing the whole expression in float32 and rounding once differs somewhere: the check
    # above can tell the two apart.
    once = (np.sqrt(a.astype(np.float32) * b + a) - b.astype(np.float32) / a).astype(np.float16)
    assert (once != want).any()


# ---- math ----


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_math_functions_of_floats_keep_the_float_type(rng, dtype):
    x = rng.uniform(-3, 3, N).astype(dtype)
    y = rng.uniform(1, 4, N).astype(dtype)
    z = rng.uniform(-0.99, 0.99, N).astype(dtype)
    x[:4] = [-2.5, 2.5, 0.5, -0.5]  # rint's halves go to even
    got = run(MATH_FLOATS, 41, dtype, x, y, z)
    want = host(math_floats, x.tolist(), y.tolist(), z.tolist(), dtype=np.float64)  # exact values, in float64
    tol = dict(rtol=4e-6, atol=2e-6) if dtype == "float32" else dict(rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(got, want, **tol)


def math_ints(n, m):
    # n in [-5, 5], m in [1, 6]: integers are computed as float64
    return (
        math.sqrt(m), math.exp(n), math.sin(n), math.cos(m), math.floor(n), math.ceil(m), math.trunc(n),
        math.fabs(n), math.atan2(n, m), math.hypot(n, m), math.pow(m, n), math.log(m), math.log(m, 2),
        math.copysign(m, n), math.gamma(m), math.erf(n), math.radians(n), n / m,
    )


MATH_INTS = rows2(math_ints)


def test_math_functions_of_integers_compute_in_float64(rng):
    n = rng.integers(-5, 6, N).astype(np.int64)
    m = rng.integers(1, 7, N).astype(np.int32)
    got = run(MATH_INTS, 18, np.float64, n, m)
    want = host(math_ints, n.tolist(), m.tolist(), dtype=np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


# ---- builtins and casts ----


def test_abs_min_max_round_int_float_bool_and_dtype_casts(rng):
    x = rng.uniform(-100, 100, N)
    x[:8] = [2.5, -2.5, 0.5, -0.5, 1.5, 0.0, 0.25, 34.95]
    m = ints(rng, "int8")
    m[3] = 0
    first, second = ember.zeros((N, 11)), ember.zeros((N, 13), dtype=np.int64)
    BUILTINS[blocks(N), TPB](ember.asarray(x), ember.asarray(m), first, second)
    with np.errstate(all="ignore"):
        rows = [builtins(a, b) for a, b in zip(x, m, strict=True)]
    np.testing.assert_array_equal(first.get(), np.array([r[0] for r in rows], dtype=np.float64))
    np.testing.assert_array_equal(second.get(), np.array([r[1] for r in rows], dtype=np.int64))


def test_complex_arithmetic_and_parts(rng):
    z = rng.standard_normal(N) * 3 + 1j * rng.standard_normal(N) * 3
    w = rng.standard_normal(N) * 3 + 1j * rng.standard_normal(N) * 3
    w[::7] = z[::7]
    first, second = ember.zeros((N, 12), dtype=np.complex128), ember.zeros((N, 6))
    COMPLEX[blocks(N), TPB](ember.asarray(z), ember.asarray(w), first, second)
    rows = [complex_ops(a, b) for a, b in zip(z, w, strict=True)]
    np.testing.assert_allclose(first.get(), np.array([r[0] for r in rows]), rtol=1e-14)
    np.testing.assert_allclose(second.get(), np.array([r[1] for r in rows]), rtol=1e-14)


# ---- ufuncs on arrays, the output passed positionally (Numba's rule in kernels) ----


def ufuncs_into(x, row, out1, out2, out3):
    if cuda.grid(1) == 0:
        np.sin(x, out1)  # elementwise over the whole array, in this thread
        np.add(x, row, out2)  # a row broadcast over the rows of x
        r = np.maximum(row, np.float32(0.25), out3)  # a number broadcast; gives out3
        r[0, 0] += 100


def test_ufuncs_write_their_positional_output_with_broadcasting():
    rng = np.random.default_rng(31)
    x = rng.standard_normal((5, 7)).astype(np.float32)
    row = rng.standard_normal(7).astype(np.float32)
    out1, out2 = ember.zeros((5, 7), np.float32), ember.zeros((5, 7), np.float64)
    out3 = ember.zeros((3, 7), np.float32)
    cuda.jit(ufuncs_into)[1, 32](ember.asarray(x), ember.asarray(row), out1, out2, out3)
    np.testing.assert_allclose(out1.get(), np.sin(x), rtol=2e-7)
    np.testing.assert_array_equal(out2.get(), (x + row).astype(np.float64))
    want = np.broadcast_to(np.maximum(row, np.float32(0.25)), (3, 7)).copy()
    want[0, 0] += 100
    np.testing.assert_array_equal(out3.get(), want)


def test_ufunc_outputs_that_cannot_be_written_say_why():
    def into_number(x, y):
        np.sin(x, y[0])

    def too_many_axes(x, y):
        np.sin(x, y[0])

    with pytest.raises(JitError, match=r"np.sin\(\) with 2 arguments writes into its last one, an array; got float32"):
        kernel_source(into_number, ["float32[::1]", "float32[::1]"], "opencl")
    with pytest.raises(JitError, match="an input of 2 dimensions does not broadcast to an output of 1"):
        kernel_source(too_many_axes, ["float32[:, ::1]", "float32[:, ::1]"], "opencl")
