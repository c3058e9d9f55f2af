"""The language of ``@cuda.jit`` kernels, construct by construct.

Each kernel runs on the current device (PoCL's CPU device in CI) and is compared with the
same Python function run on the host on NumPy scalars or arrays, with random inputs from a
fixed seed. Numba's typing rules (numba-cuda 0.30) are checked twice: by the type the
compiler gives a function's result, and by values that only come out right in that type
(``int32 + int32`` does not wrap because it is int64; ``float32 * 2`` does not overflow
because it is float64).
"""

from __future__ import annotations

import math
import warnings

import ember
import numpy as np
import pytest
from ember import cuda
from ember._jit import dispatcher as jit_dispatcher
from ember._jit import kernel_source
from ember._jit.front import program_json
from ember.errors import JitError, PerformanceWarning
from numpy import float32, float64, int32, int64, uint64

TPB = 64
N = 300  # rows of the elementwise tests: several blocks and a partial last one


def blocks(n: int, tpb: int = TPB) -> int:
    return (n + tpb - 1) // tpb


def result_type(fn, *types: str) -> str:
    """The type the compiler gives ``fn(*args)`` for argument ``types`` (no device needed)."""
    return ember._ember.jit_device_source(program_json(fn), list(types), "opencl")[2]


# ---- kernels that apply a device function row by row ----


def rows2(fn):
    """A kernel storing the tuple ``fn(a[i], b[i])`` (items of one type) as row i of ``out``."""
    dev = cuda.jit(device=True)(fn)

    @cuda.jit
    def rows(a, b, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            r = dev(a[i], b[i])
            for j in range(len(r)):
                out[i, j] = r[j]

    return rows


def rows3(fn):
    """As ``rows2``, for ``fn(a[i], b[i], c[i])``."""
    dev = cuda.jit(device=True)(fn)

    @cuda.jit
    def rows(a, b, c, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            r = dev(a[i], b[i], c[i])
            for j in range(len(r)):
                out[i, j] = r[j]

    return rows


def each_row(fn):
    """A kernel storing the tuple ``fn(a, i)`` (``a`` a whole array) as row i of ``out``."""
    dev = cuda.jit(device=True)(fn)

    @cuda.jit
    def rows(a, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            r = dev(a, i)
            for j in range(len(r)):
                out[i, j] = r[j]

    return rows


def run(kernel, width, dtype, *inputs):
    """Launches a row kernel over ``inputs`` (host arrays); row i of the result is row i of ``out``."""
    n = len(inputs[0])
    out = ember.zeros((n, width), dtype=dtype)
    kernel[blocks(n), TPB](*[ember.asarray(x) for x in inputs], out)
    return out.get()


def host(fn, *inputs, dtype):
    """``fn`` applied on the host to the rows of ``inputs`` (lists of NumPy scalars or Python values)."""
    with np.errstate(all="ignore"):
        return np.array([fn(*args) for args in zip(*inputs, strict=True)], dtype=dtype)


def ints(rng, dtype, n=N, lo=None, hi=None):
    """Random integers of ``dtype`` over its whole range (or [lo, hi]), with its extremes first."""
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    x = rng.integers(lo, hi, n, dtype=dtype, endpoint=True)
    x[:3] = [hi, lo, hi // 2 + 1]
    return x


# ---- Numba's result types ----


def add(a, b):
    return a + b


def true_div(a, b):
    return a / b


def floor_div(a, b):
    return a // b


def power(a, b):
    return a ** b


def bit_and(a, b):
    return a & b


def shift_left(a, b):
    return a << b


def shift_right(a, b):
    return a >> b


def invert(a):
    return ~a


def negate(a):
    return -a


def less(a, b):
    return a < b


def times_two(a):
    return a * 2


def squared(a):
    return a ** 2


def int_then_float(x, flag):
    v = x
    if flag:
        v = x * 0.5
    return v


def one_then(x, flag):
    v = 1
    if flag:
        v = x
    return v


def first_index(n):
    for i in range(n):
        return i
    return n


def math_sqrt(x):
    return math.sqrt(x)


def math_floor(x):
    return math.floor(x)


def math_atan2(y, x):
    return math.atan2(y, x)


def math_isnan(x):
    return math.isnan(x)


def builtin_abs(x):
    return abs(x)


def builtin_round(x):
    return round(x)


def builtin_round_to(x, n):
    return round(x, n)


def builtin_int(x):
    return int(x)


def builtin_float(x):
    return float(x)


def cast_float32(x):
    return float32(x)


def cast_int32(x):
    return np.int32(x)


def thread_x():
    return cuda.threadIdx.x


def grid_1():
    return cuda.grid(1)


def grid_2():
    return cuda.grid(2)


def warp_size():
    return cuda.warpsize


HALF = np.float32(0.5)


def global_half():
    return HALF


TYPING = [
    (add, ["int32", "int32"], "int64"),
    (add, ["int8", "uint8"], "int64"),
    (add, ["uint32", "uint32"], "uint64"),
    (add, ["uint64", "int64"], "int64"),
    (add, ["bool", "bool"], "int64"),
    (add, ["float32", "int8"], "float32"),
    (add, ["float32", "int16"], "float32"),
    (add, ["float32", "uint8"], "float32"),
    (add, ["float32", "bool"], "float32"),
    (add, ["float32", "int32"], "float64"),
    (add, ["float32", "int64"], "float64"),
    (add, ["float32", "uint16"], "float64"),
    (add, ["float32", "uint32"], "float64"),
    (add, ["float32", "uint64"], "float64"),
    (add, ["float32", "float64"], "float64"),
    (add, ["complex64", "float32"], "complex64"),
    (add, ["complex64", "int64"], "complex128"),
    (times_two, ["float32"], "float64"),
    (times_two, ["int8"], "int64"),
    (squared, ["float32"], "float32"),
    (power, ["float32", "int32"], "float32"),
    (power, ["int32", "int32"], "int64"),
    (power, ["float32", "float64"], "float64"),
    (true_div, ["int32", "int32"], "float64"),
    (true_div, ["uint8", "uint8"], "float64"),
    (true_div, ["float32", "float32"], "float32"),
    (floor_div, ["int16", "int16"], "int64"),
    (floor_div, ["float32", "float32"], "float32"),
    (bit_and, ["bool", "bool"], "bool"),
    (bit_and, ["bool", "int32"], "int64"),
    (bit_and, ["uint8", "uint16"], "uint64"),
    (shift_left, ["int8", "int64"], "int64"),
    (shift_right, ["uint32", "int64"], "uint64"),
    (invert, ["bool"], "bool"),
    (invert, ["int16"], "int64"),
    (invert, ["uint8"], "uint64"),
    (negate, ["bool"], "int64"),
    (negate, ["int8"], "int64"),
    (negate, ["float32"], "float32"),
    (less, ["int32", "float32"], "bool"),
    (int_then_float, ["int64", "bool"], "float64"),
    (int_then_float, ["int32", "bool"], "float64"),
    (one_then, ["uint64", "bool"], "float64"),
    (one_then, ["int32", "bool"], "int64"),
    (first_index, ["int16"], "int32"),
    (first_index, ["int32"], "int32"),
    (first_index, ["int64"], "int64"),
    (first_index, ["uint32"], "uint64"),
    (math_sqrt, ["float32"], "float32"),
    (math_sqrt, ["float64"], "float64"),
    (math_sqrt, ["int32"], "float64"),
    (math_sqrt, ["int64"], "float64"),
    (math_floor, ["float32"], "float32"),
    (math_floor, ["int64"], "float64"),
    (math_atan2, ["float32", "float32"], "float32"),
    (math_atan2, ["float32", "float64"], "float64"),
    (math_isnan, ["float32"], "bool"),
    (math_isnan, ["int64"], "bool"),
    (builtin_abs, ["int8"], "int8"),
    (builtin_abs, ["uint16"], "uint16"),
    (builtin_abs, ["float32"], "float32"),
    (builtin_abs, ["complex64"], "float32"),
    (builtin_round, ["float32"], "int64"),
    (builtin_round, ["float64"], "int64"),
    (builtin_round_to, ["float32", "int64"], "float32"),
    (builtin_round_to, ["float64", "int64"], "float64"),
    (builtin_int, ["float32"], "int64"),
    (builtin_float, ["int32"], "float64"),
    (cast_float32, ["int64"], "float32"),
    (cast_int32, ["float64"], "int32"),
    (thread_x, [], "int32"),
    (grid_1, [], "int64"),
    (grid_2, [], "(int64, int64)"),
    (warp_size, [], "int32"),
    (global_half, [], "float32"),
]


@pytest.mark.parametrize("fn, types, want", TYPING, ids=[f"{f.__name__}({','.join(t)})" for f, t, _ in TYPING])
def test_results_have_numbas_types(fn, types, want):
    assert result_type(fn, *types) == want


# ---- scalar arithmetic ----


def int_ops(a, b):
    s = b & 15  # int64 (an int64 literal makes even uint64 signed); shifts keep the left type
    return a + b, a - b, a * b, a // b, a % b, a & b, a | b, a ^ b, a << s, a >> s


INT_OPS = rows2(int_ops)


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


def unary_ops(a, b):
    return -a, ~a, +a, -b, ~b, +b


UNARY_OPS = rows2(unary_ops)


@pytest.mark.parametrize("ta, tb", [("int8", "int16"), ("int32", "int64"), ("uint8", "uint32")])
def test_negation_and_inversion_happen_at_the_operands_width(rng, ta, tb):
    # -uint8(1) is 255 and ~uint32(0) is 2**32 - 1 (then widened), as NumPy and Numba compute them.
    a, b = ints(rng, ta), ints(rng, tb)
    a[3], b[3] = 0, 0
    wide = np.int64 if np.dtype(ta).kind == "i" else np.uint64
    got = run(UNARY_OPS, 6, wide, a, b)
    want = host(unary_ops, list(a), list(b), dtype=wide)
    np.testing.assert_array_equal(got, want)


def float_ops(a, b):
    return a + b, a - b, a * b, a / b, a // b, a % b, -a, +a, a ** 2, abs(a) ** b, a ** -1, a ** 3, max(a, b), min(a, b)


FLOAT_OPS = rows2(float_ops)


def floats(rng, dtype, n=N):
    x = (rng.standard_normal(n) * 10).astype(dtype)
    x[::9] = np.round(x[::9])  # exact multiples, where // and % have boundaries
    return x


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


# ---- comparisons, booleans, control flow ----


def logic(a, b):
    p, q = a > 0, b > 0
    return (
        a < b, a <= b, a == b, a != b, a > b, a >= b, 0 < a < b, a < b <= 2 * a, a == b != 0,
        not a, not b, p and q, p or q, not (a < b), p ^ q, p & q, p | q, ~p,
        math.isnan(b), math.isinf(b), math.isfinite(b), math.isnan(a), bool(b), bool(a),
    )


LOGIC = rows2(logic)


def test_comparisons_chains_and_booleans_match_python(rng):
    a = rng.integers(-4, 5, N).astype(np.int64)
    b = (rng.integers(-8, 9, N) / 2).astype(np.float64)
    b[::13] = np.nan
    b[1::17] = np.inf
    b[2::19] = -np.inf
    got = run(LOGIC, 24, np.bool_, a, b)
    np.testing.assert_array_equal(got, host(logic, list(a), list(b), dtype=np.bool_))


def control_flow(n, m):
    s = 0
    for i in range(n):
        s += i
    for i in range(m, n):
        s += 2 * i
    for i in range(n, m, -2):
        s += 3 * i
    for i in range(m, n, 3):
        s -= i
    step = m if m != 0 else 1
    for i in range(n, -n, step):  # a step only known at run time, of either sign
        s += i * i
    k = 0
    while k < n:
        k += 1
        if k % 3 == 0:
            continue
        if k > 11:
            break
        s += 5 * k
    else:
        s += 1000
    for j in range(n):
        if j == m:
            break
    else:
        s += 100000
    for v in (n, m, 7):
        s += v
    for i in range(3, n + 5):
        i *= 2  # rebinding the loop variable does not change the iteration
        s += i
    s += i  # the loop variable keeps its last value
    primes: int = 0
    for p in range(2, n):
        for q in range(2, p):
            if p % q == 0:
                break
        else:
            primes += 1
    x = y = primes * 2
    s += x + y
    if n > 15:
        c = 1
    elif n > 10:
        c = 2
    elif n == m:
        c = 3
    else:
        c = 4
    t = 7 if m < 0 else (8 if m == 0 else 9)
    while True:
        t += 10
        if t > 30:
            break
    return s, c, t, k, primes


CONTROL_FLOW = rows2(control_flow)


def test_loops_branches_break_continue_and_else_clauses(rng):
    n = rng.integers(0, 20, N).astype(np.int64)
    m = rng.integers(-10, 10, N).astype(np.int64)
    m[::5] = n[::5]
    m[1::7] = 0
    got = run(CONTROL_FLOW, 5, np.int64, n, m)
    np.testing.assert_array_equal(got, host(control_flow, n.tolist(), m.tolist(), dtype=np.int64))


def unified(x, flag):
    v = x
    if flag:
        v = x / 4  # so v is float64 on every path
    w = 0
    for i in range(3):
        w = w + 0.5 * i  # int64 at first, float64 once the loop body is typed
    u = x and 2.5  # Python's `and` gives an operand: x when x is falsy
    z = (x > 3) or 1.5
    return v, w, u, z, (x if x > 0 else 0.5)


UNIFIED = rows2(unified)


def test_variables_take_the_unified_type_of_their_assignments(rng):
    x = rng.integers(-6, 7, N).astype(np.int64)
    x[:2] = [0, 5]
    flag = rng.integers(0, 2, N).astype(np.bool_)
    got = run(UNIFIED, 5, np.float64, x, flag)
    np.testing.assert_array_equal(got, host(unified, x.tolist(), flag.tolist(), dtype=np.float64))
    assert result_type(unified, "int64", "bool") == "(float64, float64, float64, float64, float64)"


# ---- tuples ----


def tuples(a, b):
    t = (a, b, a + b)
    x, y, z = t
    x, y = y, x
    u = t + (7,)
    s = u[1:3]
    m = t[abs(a) % 3]  # an index known only at run time (items of one type)
    nested = ((a, b), (1, 2))
    q, r = divmod(a, b)
    total = 0
    for v in u:
        total += v
    found = 1 if b in (1, 2, 3) else 0
    missing = 1 if a not in t else 0
    same = 1 if (a, b) == (b, a) else 0
    return (
        x, y, z, u[3], s[0], s[1], m, t[-1], nested[0][1], nested[1][0], q, r, total, found, missing, same,
        len(u), min(t), max(a, b, 3), (a > 0) + (b > 0), -(a > b), (a > 0) * 7, a ** (abs(b) % 4), b ** 3,
    )


TUPLES = rows2(tuples)


def test_tuples_pack_unpack_index_slice_and_compare(rng):
    a = rng.integers(-9, 10, N).astype(np.int64)
    b = rng.integers(1, 6, N).astype(np.int64) * rng.choice([-1, 1], N)
    b[::4] = np.where(a[::4] == 0, 2, a[::4])
    got = run(TUPLES, 24, np.int64, a, b)
    np.testing.assert_array_equal(got, host(tuples, a.tolist(), b.tolist(), dtype=np.int64))


def augmented(a, f, i):
    a[i] += 7
    a[i] -= i
    a[i] *= 3
    a[i] //= -2
    a[i] %= 1000
    a[i] **= 2
    a[i] <<= 2
    a[i] >>= 1
    a[i] &= 0xFFFF
    a[i] |= 1
    a[i] ^= 0x55
    a[i] += 2.75  # the float64 sum is truncated back to int64
    f[i, 0] /= 4
    f[i, 1] -= a[i]
    f[-1 - i, 2] *= -1.5
    n = 5
    n += i
    n /= 2  # n becomes float64
    f[i, 3] = n


AUGMENTED = cuda.jit(device=True)(augmented)


@cuda.jit
def augmented_kernel(a, f):
    i = cuda.grid(1)
    if i < a.size:
        AUGMENTED(a, f, i)


def test_augmented_assignment_on_variables_and_elements(rng):
    a = rng.integers(-1000, 1000, N).astype(np.int64)
    f = rng.standard_normal((N, 4))
    da, df = ember.asarray(a), ember.asarray(f)
    augmented_kernel[blocks(N), TPB](da, df)
    for i in range(N):
        augmented(a, f, i)
    np.testing.assert_array_equal(da.get(), a)
    np.testing.assert_array_equal(df.get(), f)


# ---- arrays ----


def each_2d(fn):
    """A kernel storing ``fn(a, i, j)`` in ``out[i, j]`` over a 2-D grid."""
    dev = cuda.jit(device=True)(fn)

    @cuda.jit
    def cells(a, out):
        i, j = cuda.grid(2)
        if i < out.shape[0] and j < out.shape[1]:
            out[i, j] = dev(a, i, j)

    return cells


def mirrored(a, i, j):
    n, m = a.shape
    return a[-1 - i, j - m] * a.ndim + a[i, -1] - a.size + 10 * a[i - n, -j - 1]


MIRRORED = each_2d(mirrored)


def host_cells(fn, a, shape):
    return np.array([[fn(a, i, j) for j in range(shape[1])] for i in range(shape[0])])


def test_2d_indexing_with_negative_indices_shape_size_ndim(rng):
    x = rng.standard_normal((13, 21))
    out = ember.zeros(x.shape)
    MIRRORED[(2, 3), (8, 8)](ember.asarray(x), out)
    # The device may fuse a * b + c into one rounding (as CUDA and OpenCL compilers do by default).
    np.testing.assert_allclose(out.get(), host_cells(mirrored, x, x.shape), rtol=1e-15)


def test_2d_views_transposed_and_negative_strides_in_and_out(rng):
    base = rng.standard_normal((26, 30))
    view = base.T[::-1, ::2]  # negative and doubled strides, not contiguous
    out = ember.zeros((view.shape[1], view.shape[0])).T  # written through a transpose
    MIRRORED[(4, 2), (8, 8)](ember.asarray(base).T[::-1, ::2], out)
    assert not out.flags.c_contiguous
    np.testing.assert_allclose(out.get(), host_cells(mirrored, view, view.shape), rtol=1e-15)


def cube(a, i, j, k):
    return a[i, j, k] + 2 * a[-1 - i, j, -k - 1] + a.shape[2] * a[i, -j - 1, k] - a.strides[0]


def test_3d_indexing_of_a_permuted_reversed_view(rng):
    dev = cuda.jit(device=True)(cube)

    @cuda.jit
    def cells3(a, out):
        i, j, k = cuda.grid(3)
        if i < out.shape[0] and j < out.shape[1] and k < out.shape[2]:
            out[i, j, k] = dev(a, i, j, k)

    base = rng.integers(-1000, 1000, (4, 5, 6)).astype(np.int64)
    view = base.transpose(2, 0, 1)[:, ::-1]
    dview = ember.asarray(base).transpose(2, 0, 1)[:, ::-1]
    assert dview.strides == view.strides
    out = ember.zeros(view.shape, dtype=np.int64)
    cells3[(2, 2, 2), (4, 4, 4)](dview, out)
    want = np.array([[[cube(view, i, j, k) for k in range(5)] for j in range(4)] for i in range(6)])
    np.testing.assert_array_equal(out.get(), want)


def slices(a, i):
    row = a[i]
    head = row[1:5]
    rev = row[::-1]
    every = row[::2]
    back = row[5:1:-2]
    col = a[:, 2]
    s = 0
    for v in head:
        s += v
    return (
        len(head), rev[0], rev[-1], every[1], every.size, back[0], back[1], back.size, col[i], col.shape[0],
        row[-3:][0], a[i, 1:4][1], row.ndim, a[1:, ::2].shape[1], a[::-1][0][i % 5], row[-100:3].size,
        row[3:100].size, row[2:2].size, row[::-3][1], a[-2:, -3:][1, 0], s, len(a),
    )


SLICES = each_row(slices)


@pytest.mark.parametrize("layout", ["contiguous", "reversed columns"])
def test_slicing_inside_kernels_gives_views(rng, layout):
    base = rng.integers(-50, 50, (40, 12)).astype(np.int64)
    a, d = (base, ember.asarray(base)) if layout == "contiguous" else (base[:, ::-1], ember.asarray(base)[:, ::-1])
    out = ember.zeros((40, 22), dtype=np.int64)
    SLICES[1, TPB](d, out)
    np.testing.assert_array_equal(out.get(), host(slices, [a] * 40, list(range(40)), dtype=np.int64))


def transposes(a, i):
    t = a.T
    j = i % t.shape[0]
    return (t[j, i], t.shape[0], t.shape[1], t.strides[0], t[::-1][0, i], a[i].T[1], t.T[i, j], t[1:, i][0], t.ndim)


TRANSPOSES = each_row(transposes)


@pytest.mark.parametrize("layout", ["contiguous", "reversed columns"])
def test_transpose_inside_kernels_is_a_view_like_numpys(rng, layout):
    base = rng.integers(-50, 50, (40, 12)).astype(np.int64)
    a, d = (base, ember.asarray(base)) if layout == "contiguous" else (base[:, ::-1], ember.asarray(base)[:, ::-1])
    out = ember.zeros((40, 9), dtype=np.int64)
    TRANSPOSES[1, TPB](d, out)
    np.testing.assert_array_equal(out.get(), host(transposes, [a] * 40, list(range(40)), dtype=np.int64))


# ---- math ----


def math_floats(x, y, z):
    # x in (-3, 3), y in (1, 4), z in (-1, 1): each function inside its domain
    return (
        math.sqrt(y), math.exp(x), math.expm1(x), math.log(y), math.log2(y), math.log10(y), math.log1p(y),
        math.sin(x), math.cos(x), math.tan(x), math.asin(z), math.acos(z), math.atan(x),
        math.sinh(x), math.cosh(x), math.tanh(x), math.asinh(x), math.acosh(y), math.atanh(z),
        math.erf(x), math.erfc(x), math.gamma(y), math.lgamma(y), math.floor(x), math.ceil(x), math.trunc(x),
        math.fabs(x), math.atan2(x, y), math.hypot(x, y), math.copysign(y, x), math.fmod(x, z), math.pow(y, x),
        math.degrees(x), math.radians(x), np.sqrt(y), np.exp2(x), np.cbrt(x), np.rint(x), np.maximum(x, z),
        np.fmin(x, z), np.arctan2(z, y),
    )


MATH_FLOATS = rows3(math_floats)


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


def two_groups(fn):
    """A kernel storing ``fn(a[i], b[i])``, a pair of tuples (each of one type), as rows of two arrays."""
    dev = cuda.jit(device=True)(fn)

    @cuda.jit
    def rows(a, b, first, second):
        i = cuda.grid(1)
        if i < first.shape[0]:
            r, s = dev(a[i], b[i])
            for j in range(len(r)):
                first[i, j] = r[j]
            for j in range(len(s)):
                second[i, j] = s[j]

    return rows


def builtins(x, m):
    floats = (
        abs(x), min(x, m), max(x, 0.5, m), min((x, 2.0, -1.5)), round(x, 1), round(x, 2), round(x, -1),
        float(m), float(x), float32(x) * 1.0, float64(m) / 3,
    )
    # `+ 0` makes one int64 tuple; the values still show the type: abs(int8(-128)) is -128.
    ints = (
        round(x), int(x), abs(m) + 0, min(m, 3) + 0, max(m, -2, 1) + 0, bool(x) + 0, bool(m) + 0, np.int32(x) + 0,
        np.uint8(m) + 0, int32(m) * 1, int(m) + 0, abs(-5), int64(x * 4),
    )
    return floats, ints


BUILTINS = two_groups(builtins)


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


def complex_ops(z, w):
    cs = (
        z + w, z - w, z * w, z / w, -z, z.conjugate(), complex(z.real, w.imag), z * 2, z + 1.5, 2j * z,
        1j if z == w else 0j, complex(abs(z)),
    )
    fs = (z.real, z.imag, abs(z), (z * w).imag, w.conjugate().imag, abs(-z))
    return cs, fs


COMPLEX = two_groups(complex_ops)


def test_complex_arithmetic_and_parts(rng):
    z = rng.standard_normal(N) * 3 + 1j * rng.standard_normal(N) * 3
    w = rng.standard_normal(N) * 3 + 1j * rng.standard_normal(N) * 3
    w[::7] = z[::7]
    first, second = ember.zeros((N, 12), dtype=np.complex128), ember.zeros((N, 6))
    COMPLEX[blocks(N), TPB](ember.asarray(z), ember.asarray(w), first, second)
    rows = [complex_ops(a, b) for a, b in zip(z, w, strict=True)]
    np.testing.assert_allclose(first.get(), np.array([r[0] for r in rows]), rtol=1e-14)
    np.testing.assert_allclose(second.get(), np.array([r[1] for r in rows]), rtol=1e-14)


# ---- module-level constants ----

SCALE = 3
OFFSET = -1.25
SIZES = (4, 8, 16)
MIXED = (2, 0.25)
FLAG = True
WEIGHTS = np.array([0.5, -1.0, 2.0, 4.5, -3.25], dtype=np.float32)
TABLE = np.arange(12, dtype=np.int64).reshape(3, 4) * 7 - 20


def with_constants(v, i):
    w = WEIGHTS[i % WEIGHTS.size]
    return v * SCALE + OFFSET + w + SIZES[-1] * MIXED[1] + MIXED[0] + (HALF if FLAG else 0.0) + len(SIZES)


def test_module_constants_tuples_and_global_arrays(rng):
    dev = cuda.jit(device=True)(with_constants)

    @cuda.jit
    def use_constants(x, out):
        i = cuda.grid(1)
        if i < x.size:
            t = cuda.const.array_like(TABLE)
            out[i, 0] = dev(x[i], i)
            out[i, 1] = t[i % 3, -1 - i % 4]
            out[i, 2] = TABLE[-1, i % 4] + TABLE.shape[1] + t.size

    x = rng.standard_normal(N)
    out = ember.zeros((N, 3))
    use_constants[blocks(N), TPB](ember.asarray(x), out)
    i = np.arange(N)
    want = np.stack([
        [with_constants(v, k) for k, v in enumerate(x)],
        TABLE[i % 3, -1 - i % 4],
        TABLE[-1, i % 4] + TABLE.shape[1] + TABLE.size,
    ], axis=1)
    np.testing.assert_allclose(out.get(), want, rtol=1e-15)  # a * b + c may be fused on the device


# ---- device functions ----


@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit(device=True)
def polar(x, y):
    return math.hypot(x, y), math.atan2(y, x)


@cuda.jit(device=True)
def scaled_polar(x, y, scale):
    r, t = polar(x, y)
    return clamp(r * scale, 0.0, 10.0), t


@cuda.jit(device=True)
def put(out, i, j, v):
    out[i, j] = v


@cuda.jit(device=True)
def positive_or_half(x):
    if x > 0:
        return x
    return 0.5


@cuda.jit(device=True)
def my_index():
    return cuda.grid(1)


@cuda.jit
def device_calls(x, y, out):
    i = my_index()
    if i >= x.size:
        return
    out[i, 0], out[i, 1] = scaled_polar(y=y[i], x=x[i], scale=2.0)
    r, t = out[i, 0], out[i, 1]
    out[i, 2] = clamp(y[i], -1, 1)
    out[i, 3] = clamp(i, 2, 5)
    put(out, i, 4, r + t)
    out[i, 5] = positive_or_half(x[i])
    out[i, 6] = positive_or_half(i - 3)


def test_device_functions_return_values_and_tuples_and_take_keywords(rng):
    x, y = rng.standard_normal(N) * 4, rng.standard_normal(N) * 4
    out = ember.zeros((N, 7))
    device_calls[blocks(N), TPB](ember.asarray(x), ember.asarray(y), out)
    r = np.minimum(np.maximum(np.hypot(x, y) * 2.0, 0.0), 10.0)
    t = np.arctan2(y, x)
    i = np.arange(N)
    want = np.stack([r, t, np.clip(y, -1, 1), np.clip(i, 2, 5), r + t, np.where(x > 0, x, 0.5),
                     np.where(i - 3 > 0, i - 3, 0.5)], axis=1)
    np.testing.assert_allclose(out.get(), want, rtol=1e-14)
    assert result_type(positive_or_half, "int64") == "float64"
    assert result_type(scaled_polar, "float32", "float32", "float64") == "(float64, float32)"
    with pytest.raises(TypeError, match="device function"):
        clamp(1, 2, 3)


# ---- the thread grid ----


@cuda.jit
def thread_ids(small, big):
    x, y, z = cuda.grid(3)
    w, h, d = cuda.gridsize(3)
    row = x + w * (y + h * z)
    ids = (
        cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z, cuda.blockIdx.x, cuda.blockIdx.y, cuda.blockIdx.z,
        cuda.blockDim.x, cuda.blockDim.y, cuda.blockDim.z, cuda.gridDim.x, cuda.gridDim.y, cuda.gridDim.z,
        cuda.laneid, cuda.warpsize,
    )
    for k in range(len(ids)):
        small[row, k] = ids[k]
    g2 = cuda.grid(2)
    s2 = cuda.gridsize(2)
    pos = (x, y, z, w, h, d, cuda.grid(1), cuda.gridsize(1), g2[0], g2[1], s2[0], s2[1])
    for k in range(len(pos)):
        big[row, k] = pos[k]


def test_thread_and_block_indices_in_three_dimensions():
    grid, block = (2, 3, 2), (4, 2, 3)
    n = math.prod(grid) * math.prod(block)
    small, big = ember.zeros((n, 14), dtype=np.int32), ember.zeros((n, 12), dtype=np.int64)
    thread_ids[grid, block](small, big)
    small, big = small.get(), big.get()
    w, h, d = (g * b for g, b in zip(grid, block, strict=True))
    want_small, want_big = np.zeros((n, 12), np.int64), np.zeros((n, 12), np.int64)
    for bz, by, bx, tz, ty, tx in np.ndindex(*grid[::-1], *block[::-1]):
        x, y, z = bx * block[0] + tx, by * block[1] + ty, bz * block[2] + tz
        row = x + w * (y + h * z)
        want_small[row] = [tx, ty, tz, bx, by, bz, *block, *grid]
        want_big[row] = [x, y, z, w, h, d, x, w, x, y, w, h]
    np.testing.assert_array_equal(small[:, :12], want_small)
    np.testing.assert_array_equal(big, want_big)
    lane, warp = small[:, 12], small[:, 13]
    assert (warp == 32).all() and ((lane >= 0) & (lane < warp)).all()
    linear = want_small[:, 0] + block[0] * (want_small[:, 1] + block[1] * want_small[:, 2])
    np.testing.assert_array_equal(lane, linear % 32)  # lanes count threads in x-fastest order


# ---- shared, local and dynamic shared memory; barriers ----


TILE = (8, 8)


@cuda.jit(device=True)
def block_reduce(sh, t):
    """Sums ``sh`` into ``sh[0]``: a device function with barriers, on a shared array."""
    s = TPB // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2


@cuda.jit
def block_sums(x, sums, transposed):
    sh = cuda.shared.array(TPB, float32)
    tile = cuda.shared.array(TILE, int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i] if i < x.size else 0
    tile[t // 8, t % 8] = t * (cuda.blockIdx.x + 1)
    cuda.syncthreads()
    block_reduce(sh, t)
    if t == 0:
        sums[cuda.blockIdx.x] = sh[0]
    transposed[cuda.blockIdx.x, t] = tile[t % 8, t // 8]


def test_static_shared_arrays_and_syncthreads_reduce_a_block(rng):
    x = rng.integers(-1000, 1000, N).astype(np.float32)  # integers: every order of summing is exact
    nb = blocks(N)
    sums, transposed = ember.zeros(nb, dtype=np.float32), ember.zeros((nb, TPB), dtype=np.int32)
    t = np.arange(TPB)
    want = np.stack([((t % 8) * 8 + t // 8) * (b + 1) for b in range(nb)])
    for sharedmem in (0, 256):  # dynamic shared memory the kernel does not use is allowed
        block_sums[nb, TPB, 0, sharedmem](ember.asarray(x), sums, transposed)
        np.testing.assert_array_equal(sums.get(), np.add.reduceat(x, np.arange(0, N, TPB)))
        np.testing.assert_array_equal(transposed.get(), want)


@cuda.jit
def reverse_blocks(x, out, size):
    buf = cuda.shared.array(0, float64)
    alias = cuda.shared.array(0, float64)  # every dynamic shared array starts at the same byte
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = cuda.blockDim.x
    buf[t] = x[i]
    cuda.syncthreads()
    out[i] = alias[n - 1 - t]
    if i == 0:
        size[0] = buf.size
        size[1] = alias.shape[0]


def test_dynamic_shared_memory_has_the_launch_size(rng):
    x = rng.standard_normal(4 * TPB)
    out, size = ember.zeros(4 * TPB), ember.zeros(2, dtype=np.int64)
    stream = cuda.stream()
    reverse_blocks[4, TPB, stream, TPB * 8 * 2](ember.asarray(x), out, size)
    stream.synchronize()
    np.testing.assert_array_equal(out.get(), x.reshape(4, TPB)[:, ::-1].ravel())
    np.testing.assert_array_equal(size.get(), [2 * TPB, 2 * TPB])


@cuda.jit(device=True)
def insertion_sort(w):
    for k in range(1, len(w)):
        v = w[k]
        j = k - 1
        while j >= 0 and w[j] > v:
            w[j + 1] = w[j]
            j -= 1
        w[j + 1] = v


@cuda.jit
def window_sort(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        w = cuda.local.array(8, int64)
        m = cuda.local.array((2, 4), float64)
        for k in range(8):
            w[k] = x[(i + k) % x.size]
        insertion_sort(w)
        for k in range(8):
            m[k // 4, k % 4] = w[k] * 0.5
        for k in range(8):
            out[i, k] = m[k % 2, k // 2]


def test_local_arrays_are_per_thread_scratch(rng):
    x = rng.integers(-100, 100, N).astype(np.int64)
    out = ember.zeros((N, 8))
    window_sort[blocks(N), TPB](ember.asarray(x), out)
    windows = np.sort(np.stack([np.roll(x, -i)[:8] for i in range(N)]), axis=1) * 0.5
    np.testing.assert_array_equal(out.get(), windows.reshape(N, 2, 4).transpose(0, 2, 1).reshape(N, 8))


@cuda.jit
def warp_exchange(x, out):
    sh = cuda.shared.array(32, int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i]
    cuda.syncwarp()
    cuda.threadfence_block()
    v = sh[31 - t]
    cuda.syncwarp(0xFFFFFFFF)
    sh[t] = v * 2
    cuda.threadfence()
    cuda.threadfence_system()
    cuda.syncwarp()
    out[i] = sh[(t + 1) % 32]


def test_syncwarp_and_threadfences_order_a_warps_memory(rng):
    # A block of one warp: on OpenCL, syncwarp is a barrier of the whole work-group.
    x = rng.integers(-10**12, 10**12, 4 * 32)
    out = ember.zeros(4 * 32, dtype=np.int64)
    warp_exchange[4, 32](ember.asarray(x), out)
    want = (x.reshape(4, 32)[:, ::-1] * 2)[:, (np.arange(32) + 1) % 32].ravel()
    np.testing.assert_array_equal(out.get(), want)


# ---- atomics ----


@cuda.jit
def int_atomics(v, w, acc, olds, flag, hist):
    i = cuda.grid(1)
    if i < v.size:
        olds[i, 0] = cuda.atomic.add(acc, 0, v[i])
        olds[i, 1] = cuda.atomic.sub(acc, 1, v[i])
        olds[i, 2] = cuda.atomic.exch(acc, 2, v[i])
        olds[i, 3] = cuda.atomic.add(acc, 3, 1)
        olds[i, 4] = cuda.atomic.compare_and_swap(flag, 0, i + 1)
        cuda.atomic.max(acc, 4, w[i])
        cuda.atomic.min(acc, 5, w[i])
        cuda.atomic.nanmax(acc, 6, w[i])
        cuda.atomic.nanmin(acc, 7, w[i])
        cuda.atomic.and_(acc, 8, w[i])
        cuda.atomic.or_(acc, 9, w[i])
        cuda.atomic.xor(acc, 10, w[i])
        old = acc[11]
        while True:  # an add written as a compare-and-swap loop
            seen = cuda.atomic.cas(acc, 11, old, old + v[i])
            if seen == old:
                break
            old = seen
        cuda.atomic.add(hist, (v[i] % 2, v[i] % 3), 1)


def check_chain(olds, values, start, step):
    """The old values an atomic add (step 1) or sub (step -1) returned are a chain from ``start``."""
    order = np.argsort(olds)[::step]
    steps = np.concatenate([[0], np.cumsum(values[order].astype(np.float64))[:-1]])  # exact: small integers
    np.testing.assert_array_equal(olds[order].astype(np.float64), float(start) + step * steps)


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
def test_integer_atomics_under_contention(rng, dtype):
    n = 1000
    v = rng.integers(1, 1000, n).astype(dtype)
    w = ints(rng, dtype, n)
    info = np.iinfo(dtype)
    start = np.array([5, n * 1000, 17, 0, info.min, info.max, info.min, info.max, info.max if info.min == 0 else -1,
                      0, 0x5A5A, 3], dtype=dtype)
    acc = ember.asarray(start)
    olds, flag = ember.zeros((n, 5), dtype=dtype), ember.zeros(1, dtype=dtype)
    hist = ember.zeros((2, 3), dtype=dtype)
    int_atomics[blocks(n, 128), 128](ember.asarray(v), ember.asarray(w), acc, olds, flag, hist)
    acc, olds, f = acc.get(), olds.get(), int(flag.get()[0])
    assert acc[0] == start[0] + v.sum(dtype=dtype) and acc[1] == start[1] - v.sum(dtype=dtype)
    check_chain(olds[:, 0], v, start[0], 1)
    check_chain(olds[:, 1], v, start[1], -1)
    assert sorted([*olds[:, 2], acc[2]]) == sorted([start[2], *v])  # exch: every value seen once
    np.testing.assert_array_equal(np.sort(olds[:, 3]), np.arange(n))
    assert acc[3] == n
    assert 1 <= f <= n and olds[f - 1, 4] == 0 and (np.delete(olds[:, 4], f - 1) == f).all()
    assert acc[4] == w.max() and acc[5] == w.min() and acc[6] == w.max() and acc[7] == w.min()
    assert acc[8] == np.bitwise_and.reduce(w) & start[8]
    assert acc[9] == np.bitwise_or.reduce(w)
    assert acc[10] == np.bitwise_xor.reduce(w) ^ start[10]
    assert acc[11] == start[11] + v.sum(dtype=dtype)
    want_hist = np.zeros((2, 3), dtype)
    np.add.at(want_hist, (v % 2, v % 3), 1)
    np.testing.assert_array_equal(hist.get(), want_hist)


@cuda.jit
def float_atomics(v, w, acc, olds, nans):
    i = cuda.grid(1)
    if i < v.size:
        olds[i, 0] = cuda.atomic.add(acc, 0, v[i])
        olds[i, 1] = cuda.atomic.sub(acc, 1, v[i])
        olds[i, 2] = cuda.atomic.max(acc, 2, w[i])
        olds[i, 3] = cuda.atomic.min(acc, 3, w[i])
        cuda.atomic.nanmax(acc, 4, w[i])
        cuda.atomic.nanmin(acc, 5, w[i])
    if i == 0:
        nans[8] = cuda.atomic.max(nans, 0, 5.0)
        cuda.atomic.max(nans, 1, math.nan)
        cuda.atomic.min(nans, 2, 5.0)
        cuda.atomic.min(nans, 3, math.nan)
        nans[9] = cuda.atomic.nanmax(nans, 4, 5.0)
        cuda.atomic.nanmax(nans, 5, math.nan)
        cuda.atomic.nanmin(nans, 6, 5.0)
        cuda.atomic.nanmin(nans, 7, math.nan)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_atomics_under_contention_and_with_nans(rng, dtype):
    n = 1000
    v = rng.integers(1, 1000, n).astype(dtype)  # integers: every order of summing is exact
    w = (rng.standard_normal(n) * 100).astype(dtype)
    w[::97] = np.nan  # ignored by max, min, nanmax and nanmin alike
    init = np.array([0.5, 1e6, -np.inf, np.inf, -np.inf, np.inf], dtype=dtype)
    acc = ember.asarray(init)
    olds = ember.zeros((n, 4), dtype=dtype)
    nans = ember.asarray(np.array([np.nan, 1] * 4 + [0, 0], dtype=dtype))
    float_atomics[blocks(n, 128), 128](ember.asarray(v), ember.asarray(w), acc, olds, nans)
    acc, olds = acc.get(), olds.get()
    assert acc[0] == init[0] + v.sum() and acc[1] == init[1] - v.sum()
    check_chain(olds[:, 0], v, init[0], 1)
    check_chain(olds[:, 1], v, init[1], -1)
    assert acc[2] == np.nanmax(w) and acc[3] == np.nanmin(w) and acc[4] == np.nanmax(w) and acc[5] == np.nanmin(w)
    assert np.isin(olds[:, 2], [init[2], *w]).all() and (olds[:, 2] <= acc[2]).all()
    assert np.isin(olds[:, 3], [init[3], *w]).all() and (olds[:, 3] >= acc[3]).all()
    # max/min leave memory alone when either side is NaN; nanmax/nanmin replace a NaN in memory.
    np.testing.assert_array_equal(nans.get(), np.array([np.nan, 1, np.nan, 1, 5, 1, 5, 1, np.nan, np.nan], dtype))


@cuda.jit
def shared_atomics(x, hist, stats, biggest, winners):
    h = cuda.shared.array(16, int32)
    s = cuda.shared.array(2, float64)
    m = cuda.shared.array(1, uint64)
    first = cuda.shared.array(1, int64)
    t = cuda.threadIdx.x
    if t < 16:
        h[t] = 0
    if t == 0:
        s[0] = 0.0
        s[1] = -1.0
        m[0] = 0
        first[0] = -1
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(h, x[i] % 16, 1)
        cuda.atomic.add(s, 0, x[i] * 0.5)
        cuda.atomic.max(s, 1, x[i] * 0.25)
        cuda.atomic.max(m, 0, x[i])
        cuda.atomic.cas(first, 0, -1, i)
    cuda.syncthreads()
    if t < 16:
        cuda.atomic.add(hist, t, h[t])
    if t == 0:
        cuda.atomic.add(stats, 0, s[0])
        cuda.atomic.max(stats, 1, s[1])
        cuda.atomic.max(biggest, 0, m[0])
        winners[cuda.blockIdx.x] = first[0]


def test_atomics_on_shared_memory(rng):
    x = rng.integers(0, 10**6, N).astype(np.int64)
    nb = blocks(N)
    hist, stats = ember.zeros(16, dtype=np.int32), ember.zeros(2)
    biggest, winners = ember.zeros(1, dtype=np.uint64), ember.zeros(nb, dtype=np.int64)
    shared_atomics[nb, TPB](ember.asarray(x), hist, stats, biggest, winners)
    np.testing.assert_array_equal(hist.get(), np.bincount(x % 16, minlength=16))
    np.testing.assert_array_equal(stats.get(), [x.sum() * 0.5, x.max() * 0.25])
    assert biggest.get()[0] == x.max()
    won = winners.get()
    assert ((won >= np.arange(nb) * TPB) & (won < np.minimum(np.arange(1, nb + 1) * TPB, N))).all()


def test_atomics_numba_does_not_define_are_refused():
    @cuda.jit
    def bad_and(a):
        cuda.atomic.and_(a, 0, 1)

    @cuda.jit
    def bad_exch(a):
        cuda.atomic.exch(a, 0, 1.5)

    with pytest.raises(JitError, match=r"and_\(\) does not support arrays of float32"):
        kernel_source(bad_and, ["float32[::1]"], "opencl")
    with pytest.raises(JitError, match=r"exch\(\) does not support arrays of float64"):
        kernel_source(bad_exch, ["float64[::1]"], "opencl")
    with pytest.raises(JitError, match=r"add\(\) does not support arrays of int8"):
        kernel_source(float_atomics, ["int8[::1]", "int8[::1]", "int8[::1]", "int8[:, ::1]", "int8[::1]"], "cuda")


# ---- arguments from the host ----


def test_numpy_arrays_are_copied_in_and_back_with_one_warning(rng, monkeypatch):
    monkeypatch.setattr(jit_dispatcher, "_warned_host_arrays", False)
    a, b = floats(rng, "float64"), floats(rng, "float64")
    a_before = a.copy()
    out = np.zeros((N, 14))
    with pytest.warns(PerformanceWarning, match="copied to the device and back"):
        FLOAT_OPS[blocks(N), TPB](a, b, out)
    np.testing.assert_allclose(out, host(float_ops, list(a), list(b), dtype=np.float64), rtol=1e-14)
    np.testing.assert_array_equal(a, a_before)
    b.flags.writeable = False  # read-only inputs are accepted and not written back
    out2 = np.zeros((N, 14))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FLOAT_OPS[blocks(N), TPB](a, b, out2)
    np.testing.assert_array_equal(out2, out)


@cuda.jit
def scalar_args(out, i, f, b, i8, u16, f32, big, c):
    out[0] = i * 3
    out[1] = f / 4
    out[2] = 1.5 if b else -1.5
    out[3] = i8 + i8  # int64: no int8 wrap-around
    out[4] = u16 + 1  # 65536: widened
    out[5] = f32 * 1.0  # float32's nearest value to 0.1
    out[6] = big >> 60  # uint64 (big % 1000 would be int64: an int64 literal makes it signed)
    out[7] = c.imag


def test_python_and_numpy_scalars_keep_their_types():
    out = ember.zeros(8)
    args = (2**40, 0.1, True, np.int8(-100), np.uint16(65535), np.float32(0.1), 2**63 + 5, 1 + 2j)
    scalar_args[1, 1](out, *args)
    np.testing.assert_array_equal(
        out.get(), [3 * 2**40, 0.025, 1.5, -200, 65536, float(np.float32(0.1)), 8, 2.0])
    scalar_args[1, 1](out, np.int64(-7), np.float64(2.0), np.bool_(False), np.int8(3), np.uint16(1), np.float32(2),
                      2**64 - 1, 3j)
    np.testing.assert_array_equal(out.get(), [-21, 0.5, -1.5, 6, 2, 2.0, 15, 3.0])
    assert list(scalar_args.inspect_c()) == [
        "(array(float64, 1d, C), int64, float64, bool, int8, uint16, float32, uint64, complex128)"]


def test_explicit_signature_converts_scalars_and_rejects_other_arrays(rng):
    @cuda.jit("void(float32[:], int32)")
    def add_half(a, n):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += n * 0.5

    assert list(add_half.inspect_c()) == ["(array(float32, 1d, A), int32)"]  # compiled when decorated
    x = rng.standard_normal(100).astype(np.float32)
    d = ember.asarray(x)
    add_half[blocks(100), TPB](d, 3)
    add_half[blocks(100), TPB](d[::-1][::2], np.int16(-4))  # a strided, reversed view; int16 converts
    want = x + np.float32(1.5)
    want[::-1][::2] -= np.float32(2.0)
    np.testing.assert_array_equal(d.get(), want)
    with pytest.raises(TypeError, match="no signature"):
        add_half[1, 1](ember.zeros(4), 1)
    with pytest.raises(TypeError, match="no signature"):
        add_half[1, 1](ember.zeros((2, 2), dtype=np.float32), 1)
    assert len(add_half.inspect_c()) == 1


def test_several_signatures_pick_the_first_that_fits(rng):
    @cuda.jit(["void(int32[::1], int32)", "void(float64[:], float64)"])
    def scale(a, k):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] *= k

    assert sorted(scale.inspect_c()) == ["(array(float64, 1d, A), float64)", "(array(int32, 1d, C), int32)"]
    ints_ = ember.arange(10, dtype=np.int32)
    scale[1, 16](ints_, 3)
    np.testing.assert_array_equal(ints_.get(), np.arange(10) * 3)
    with pytest.raises(TypeError, match="no signature"):
        scale[1, 16](ints_[::2], 3)  # int32[::1] needs a contiguous array
    x = rng.standard_normal(10)
    d = ember.asarray(x)
    scale[1, 16](d[::3], 2)  # a Python int converts to float64 for the second signature
    x[::3] *= 2
    np.testing.assert_array_equal(d.get(), x)


# ---- the same kernels as CUDA C ----


def test_generated_cuda_c_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    kernels = [
        (INT_OPS, ["int32[::1]", "int32[::1]", "int64[:, ::1]"]),
        (INT_OPS, ["uint32[::1]", "uint64[::1]", "uint64[:, ::1]"]),
        (UNARY_OPS, ["uint8[::1]", "uint32[::1]", "uint64[:, ::1]"]),
        (FLOAT_OPS, ["float32[::1]", "float32[::1]", "float32[:, ::1]"]),
        (LOGIC, ["int64[::1]", "float64[::1]", "bool[:, ::1]"]),
        (CONTROL_FLOW, ["int64[::1]", "int64[::1]", "int64[:, ::1]"]),
        (TUPLES, ["int64[::1]", "int64[::1]", "int64[:, ::1]"]),
        (MIRRORED, ["float64[:, :]", "float64[:, :]"]),
        (SLICES, ["int64[:, :]", "int64[:, ::1]"]),
        (TRANSPOSES, ["int64[:, :]", "int64[:, ::1]"]),
        (MATH_FLOATS, ["float32[::1]"] * 3 + ["float32[:, ::1]"]),
        (MATH_FLOATS, ["float64[::1]"] * 3 + ["float64[:, ::1]"]),
        (BUILTINS, ["float64[::1]", "int8[::1]", "float64[:, ::1]", "int64[:, ::1]"]),
        (COMPLEX, ["complex128[::1]", "complex128[::1]", "complex128[:, ::1]", "float64[:, ::1]"]),
        (device_calls, ["float64[::1]", "float64[::1]", "float64[:, ::1]"]),
        (thread_ids, ["int32[:, ::1]", "int64[:, ::1]"]),
        (block_sums, ["float32[::1]", "float32[::1]", "int32[:, ::1]"]),
        (reverse_blocks, ["float64[::1]", "float64[::1]", "int64[::1]"]),
        (window_sort, ["int64[::1]", "float64[:, ::1]"]),
        (augmented_kernel, ["int64[::1]", "float64[:, ::1]"]),
        (warp_exchange, ["int64[::1]", "int64[::1]"]),
        (float_atomics, ["float32[::1]"] * 3 + ["float32[:, ::1]", "float32[::1]"]),
        (float_atomics, ["float64[::1]"] * 3 + ["float64[:, ::1]", "float64[::1]"]),
        (shared_atomics, ["int64[::1]", "int32[::1]", "float64[::1]", "uint64[::1]", "int64[::1]"]),
        (scalar_args, ["float64[::1]", "int64", "float64", "bool", "int8", "uint16", "float32", "uint64",
                       "complex128"]),
        (half_arithmetic, ["float16[::1]"] * 3),
    ]
    for t in ("int32", "uint32", "int64", "uint64"):
        kernels.append((int_atomics, [f"{t}[::1]", f"{t}[::1]", f"{t}[::1]", f"{t}[:, ::1]", f"{t}[::1]",
                                      f"{t}[:, ::1]"]))
    for kernel, types in kernels:
        src = kernel_source(kernel, types, "cuda")
        name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF", (kernel.__name__, types)


@cuda.jit
def half_arithmetic(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = math.sqrt(a[i] * b[i] + a[i]) - b[i] / a[i]


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


def test_a_repeated_launch_configuration_is_read_once_and_kernels_are_still_collected():
    import gc
    import weakref

    @cuda.jit
    def fill_index(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = i

    a = ember.zeros(40, dtype=np.int64)
    n = 2
    first = fill_index[n, 32]
    assert fill_index[n, 32] is first            # an equal configuration: the same launcher
    assert fill_index[(n - 1) * 2, 32] is first
    assert fill_index[3, 32] is not first         # another configuration
    fill_index[n, 32](a)
    np.testing.assert_array_equal(a.get(), np.arange(40))
    ref = weakref.ref(fill_index)
    del fill_index, first
    gc.collect()
    assert ref() is None
