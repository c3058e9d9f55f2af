"""``@ember.jit`` / ``@ember.njit``: Python functions compiled to machine code for the CPU give
what the same functions give run by Python (on NumPy scalars and arrays, so integers wrap as
NumPy's fixed-width types), raise Python's exceptions, and say which line they cannot compile."""

import ctypes
import ctypes.util
import math
import os
import signal
import threading

import ember
import numpy as np
import pytest
from ember import njit
from ember.extending import register_jitable

RNG = np.random.default_rng(20261128)


# ---- the seed programs ----

def square(x):
    return x * x


def square_annotated(x: float) -> float:
    return x * x


@pytest.mark.parametrize("value", [3, -7, 2.5, np.float32(1.5), True])
def test_square_matches_python_for_each_argument_type(value):
    got = njit(square)(value)
    want = square(value)
    assert got == want and type(got) is type(want.item() if isinstance(want, np.generic) else want)


def test_narrow_integers_compute_in_int64_as_numba_types_them():
    # Numba's rule (not NumPy's): int32 * int32 is an int64.
    assert njit(square)(np.int32(-46341)) == 46341 * 46341


def test_square_with_a_signature_converts_its_argument():
    f = njit("float64(float64)")(square)
    assert f(3) == 9.0 and isinstance(f(3), float)
    assert f.signatures == ["(float64)"]
    with pytest.raises(TypeError, match="No matching definition for argument type"):
        f(np.ones(2))


def test_annotations_are_ordinary_python():
    assert njit(square_annotated)(1.25) == 1.5625


def test_signature_forms_give_the_same_function():
    from ember.types import float32, int64
    forms = ["int64(int64)", int64(int64), ["int64(int64)", "float32(float32)"], (int64,)]
    for form in forms:
        f = njit(form)(square)
        assert f(12) == 144
    f = njit([int64(int64), float32(float32)])(square)
    assert f(np.float32(0.5)) == 0.25 and f(-5) == 25


# ---- loops, reductions, stencils ----

def loop_sum(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


def stencil(a, out):
    for i in range(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) - a[i, j]


def first_negative(a):
    for i in range(len(a)):
        if a[i] < 0:
            return i
    return -1


def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def minmax(a):
    lo, hi = a[0], a[0]
    for x in a:
        lo = min(lo, x)
        hi = max(hi, x)
    return lo, hi


def test_a_loop_sum_adds_in_order_like_python():
    a = RNG.random(1001)
    assert njit(loop_sum)(a) == loop_sum(a)
    # Numba types `s` as float64 (0.0 is a float64): the sum is in float64, element by element.
    a32 = RNG.random(77).astype(np.float32)
    assert njit(loop_sum)(a32) == loop_sum(a32.astype(np.float64))


def test_a_two_dimensional_stencil_matches_python():
    a = RNG.standard_normal((33, 47))
    got, want = np.zeros_like(a), np.zeros_like(a)
    njit(stencil)(a, got)
    stencil(a, want)
    np.testing.assert_array_equal(got, want)


def test_strided_and_transposed_arrays_are_read_through_their_strides():
    a = RNG.standard_normal((40, 30))
    f = njit(loop_sum)
    assert f(a[::3, 2]) == loop_sum(a[::3, 2])
    assert f(a.T[5]) == loop_sum(a.T[5])
    assert f(a[::-1, 0]) == loop_sum(a[::-1, 0])


def test_early_returns_and_while_loops():
    a = RNG.standard_normal(50)
    f = njit(first_negative)
    assert f(a) == first_negative(a)
    assert f(np.abs(a)) == -1
    g = njit(collatz_steps)
    assert [g(n) for n in (1, 7, 27, 97)] == [collatz_steps(n) for n in (1, 7, 27, 97)]


def test_tuples_in_and_out():
    a = RNG.integers(-1000, 1000, 200)
    assert njit(minmax)(a) == minmax(a)

    @njit
    def swap(p):
        x, y = p
        return y, x
    assert swap((1, 2.5)) == (2.5, 1)


# ---- integers: Numba's types, wrapping as NumPy's fixed-width types ----

def arith(a, b):
    return a + b, a - b, a * b, a // b, a % b, -a, abs(a), a ** 3


I64 = np.iinfo(np.int64)


@pytest.mark.parametrize("x, y", [(I64.max, 3), (I64.min, 7), (I64.max - 1, I64.max), (5, 2), (I64.min, -1),
                                  (-7, 2), (7, -2), (2**62, 2**62)])
def test_int64_arithmetic_wraps_as_numpy_does(x, y):
    with np.errstate(all="ignore"):
        want = tuple(int(v) for v in arith(np.int64(x), np.int64(y)))
    assert njit(arith)(x, y) == want


def test_uint64_arithmetic_wraps_as_numpy_does():
    f = njit(lambda a, b: (a + b, a - b, a * b, a // b, a % b))
    u = np.uint64
    for x, y in [(2**64 - 1, 3), (3, 2**64 - 1), (2**63, 2)]:
        with np.errstate(all="ignore"):
            want = (u(x) + u(y), u(x) - u(y), u(x) * u(y), u(x) // u(y), u(x) % u(y))
        assert f(u(x), u(y)) == tuple(int(v) for v in want)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32])
def test_narrow_integers_are_computed_in_64_bits(dtype):
    # Numba's integer typing: operands narrower than 64 bits compute in 64 bits; a negation
    # wraps at the operand's own width (an unsigned one stays unsigned).
    info = np.iinfo(dtype)
    top = int(info.max)
    negated = -top if info.min < 0 else (-top) % (1 << info.bits)
    got = njit(lambda a, b: (a + b, a * b, a // b, -a))(dtype(top), dtype(3))
    assert got == (top + 3, top * 3, top // 3, negated)


def test_python_ints_are_int64_and_wrap():
    @njit
    def grow(x):
        for _ in range(3):
            x = x * x
        return x
    with np.errstate(over="ignore"):
        want = int(np.int64(3_000_000) ** 8)
    assert grow(3_000_000) == want


def lcg_steps(state, n):
    # Three congruential steps per iteration (the compiler folds the constants of the second and
    # third into one multiply and add from the state before them), each draw used.
    total = 0
    for _ in range(n):
        state = state * 6364136223846793005 + 1442695040888963407
        total += state >> 33
        state = 1442695040888963407 + state * 6364136223846793005
        total ^= state
        state = 3 * state - 5
        total += state & 255
    return state, total


def test_chained_multiply_adds_wrap_as_int64():
    def wrap(v):
        return (v + 2**63) % 2**64 - 2**63
    for seed, n in [(12345, 1000), (-(2**63), 17), (2**63 - 1, 5)]:
        state, total = seed, 0
        for _ in range(n):
            state = wrap(state * 6364136223846793005 + 1442695040888963407)
            total = wrap(total + (state >> 33))
            state = wrap(1442695040888963407 + state * 6364136223846793005)
            total ^= state
            state = wrap(3 * state - 5)
            total = wrap(total + (state & 255))
        assert njit(lcg_steps)(seed, n) == (state, total)


def test_floats_follow_python_floor_division_and_modulo():
    f = njit(lambda a, b: (a // b, a % b))
    for a, b in [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-0.0, 5.0), (1e308, 1e-308), (5.0, math.inf)]:
        assert f(a, b) == (np.float64(a) // np.float64(b), np.float64(a) % np.float64(b)), (a, b)


# ---- math ----

LIBM = ctypes.CDLL(ctypes.util.find_library("m"))


@pytest.mark.parametrize("name", ["sqrt", "exp", "log", "sin", "cos", "tan", "atan", "sinh", "tanh", "erf",
                                  "gamma", "lgamma", "floor", "ceil", "trunc", "fabs", "expm1", "log1p", "cbrt"])
def test_math_functions_give_the_c_librarys_values(name):
    # As Numba's code, compiled code calls C's math library (Python's math module has its own
    # gamma, lgamma and erf, a few ulps away).
    c = getattr(LIBM, {"gamma": "tgamma"}.get(name, name))
    c.restype, c.argtypes = ctypes.c_double, [ctypes.c_double]
    f = njit(eval(f"lambda x: math.{name}(x)", {"math": math}))  # noqa: S307
    for x in (0.5, 1.75, 3.0, 10.25):
        assert f(x) == c(x), (name, x)


def test_float32_math_stays_float32():
    f = njit(lambda x: math.sqrt(x) + x)
    x = np.float32(2.0)
    assert f(x) == np.float32(np.sqrt(x) + x)


# ---- calls, recursion, exceptions ----

@njit
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@njit
def hypot2(x, y):
    return x * x + y * y


def test_compiled_functions_call_each_other_and_recurse():
    assert fib(22) == 17711

    @njit
    def norm(a):
        s = 0.0
        for i in range(0, len(a) - 1, 2):
            s += hypot2(a[i], a[i + 1])
        return math.sqrt(s)
    a = RNG.random(64)
    assert norm(a) == pytest.approx(np.sqrt(np.sum(a * a)), rel=1e-14)


def test_zero_divisors_raise_zero_division_error_as_numba_does():
    cases = [(lambda a, b: a // b, 1, 0, "integer division by zero"),
             (lambda a, b: a % b, 1, 0, "integer modulo by zero"),
             (lambda a, b: a / b, 1.0, 0.0, "division by zero"),
             (lambda a, b: a / b, 1, 0, "division by zero"),
             (lambda a, b: a // b, 1.0, 0.0, "modulo by zero"),
             (lambda a, b: a ** b, 0, -1, "0 cannot be raised to a negative power")]
    for fn, a, b, message in cases:
        with pytest.raises(ZeroDivisionError, match=message):
            njit(fn)(a, b)


class Bad(Exception):
    pass


@njit
def checked_sqrt(x):
    if x < 0:
        raise ValueError("x must be >= 0")
    if x > 1e300:
        raise Bad("too big", 3)
    return math.sqrt(x)


def test_raise_statements_raise_their_exception_and_the_process_goes_on():
    with pytest.raises(ValueError, match="x must be >= 0"):
        checked_sqrt(-1.0)
    with pytest.raises(Bad) as info:
        checked_sqrt(1e301)
    assert info.value.args == ("too big", 3)
    assert checked_sqrt(2.25) == 1.5


def test_a_raise_inside_a_called_function_reaches_the_caller():
    @njit
    def outer(x):
        return checked_sqrt(x) + 1.0
    with pytest.raises(ValueError, match="x must be >= 0"):
        outer(-4.0)
    assert outer(4.0) == 3.0


# ---- arrays written, read-only arrays ----

def test_writes_reach_the_callers_array_and_read_only_arrays_are_refused():
    @njit
    def fill(a, v):
        for i in range(a.size):
            a[i] = v * i
    a = np.zeros(10, dtype=np.int32)
    fill(a, 3)
    np.testing.assert_array_equal(a, np.arange(10, dtype=np.int32) * 3)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        fill(a, 1)
    assert njit(loop_sum)(a) == loop_sum(a)  # reading it is fine


def test_bool_and_complex_arrays():
    @njit
    def count_true(m):
        n = 0
        for x in m:
            if x:
                n += 1
        return n
    m = RNG.random(100) > 0.3
    assert count_true(m) == int(m.sum())

    @njit
    def csum(z):
        s = 0j
        for i in range(z.size):
            s += z[i] * z[i]
        return s
    z = RNG.standard_normal(20) + 1j * RNG.standard_normal(20)
    assert csum(z) == pytest.approx(complex(np.sum(z * z)), rel=1e-14)


# ---- arrays made inside, arrays returned ----

def cumulative(a):
    out = np.empty(a.shape[0])
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i]
        out[i] = acc
    return out


def test_arrays_made_inside_come_back_as_numpy_arrays():
    a = RNG.random(257)
    got = njit(cumulative)(a)
    np.testing.assert_array_equal(got, cumulative(a))
    assert isinstance(got, np.ndarray) and got.flags.c_contiguous and got.flags.writeable
    got[0] = -1.0  # the caller owns it


@pytest.mark.parametrize("maker", [
    "np.zeros((n, 3), dtype=np.int32)", "np.ones(n)", "np.full((2, n), 7.5)", "np.full(n, 3)",
    "np.empty((n, 2), np.float32).shape", "np.zeros_like(a)", "np.ones_like(a, dtype=np.uint8)",
    "np.full_like(a, -2)", "np.empty_like(a).shape",
])
def test_numpy_makers_give_numpy_results(maker):
    fn = eval(f"lambda n, a: {maker}", {"np": np})  # noqa: S307
    a = RNG.random((4, 5))
    got, want = njit(fn)(4, a), fn(4, a)
    if isinstance(want, tuple):
        assert got == want
    else:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_returned_views_share_the_arguments_memory():
    @njit
    def tail(a):
        return a[1:], a.T
    a = RNG.random((3, 4))
    t, tr = tail(a)
    assert np.shares_memory(t, a) and np.shares_memory(tr, a)
    np.testing.assert_array_equal(tr, a.T)
    t[0, 0] = 42.0
    assert a[1, 0] == 42.0
    a.flags.writeable = False
    assert not tail(a)[0].flags.writeable


def test_negative_dimensions_raise_numpys_error():
    f = njit(lambda n: np.zeros(n))
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        f(-3)
    assert f(0).shape == (0,)


def test_kernels_cannot_allocate():
    @ember.cuda.jit
    def kernel(out):
        t = np.zeros(3)
        out[0] = t[0]
    with pytest.raises(ember.JitError, match="kernels cannot allocate"):
        kernel[1, 1](ember.zeros(1))


# ---- errors ----

def test_what_cannot_be_compiled_is_a_jit_error_naming_the_file_and_line():
    def uses_a_list(n):
        xs = [1, 2, n]
        return xs
    with pytest.raises(ember.JitError) as info:
        njit(uses_a_list)(3)
    first = str(info.value).splitlines()[0]
    line = uses_a_list.__code__.co_firstlineno + 1
    assert first.startswith(f"{__file__}:{line}: in ")


def test_arguments_it_cannot_take_are_type_errors():
    f = njit(square)
    with pytest.raises(TypeError, match="NumPy arrays"):
        f("text")
    with pytest.raises(TypeError, match="x.get()"):
        f(ember.ones(3))
    with pytest.raises(TypeError, match="takes 1 positional argument"):
        f(1, 2)
    assert f(4) == 16  # and it still works


def test_options_numba_users_pass():
    for opts in ({"cache": True}, {"nogil": True}, {"fastmath": True}, {"error_model": "python"},
                 {"boundscheck": False}, {"inline": "never"}):
        assert ember.jit(nopython=True, **opts)(square)(3) == 9
    with pytest.raises(ValueError, match="nopython mode only"):
        ember.jit(forceobj=True)(square)
    with pytest.raises(KeyError, match="Unrecognized options"):
        ember.jit(no_such_option=True)(square)


# ---- prange and parallel=True ----

def prange_reductions(a):
    total, product, top, low, hits, bits = 0.0, 1.0, a[0], a[0], 0, 0
    for i in ember.prange(a.shape[0]):
        x = a[i]
        total += x
        product *= 1.0 + x * 1e-7
        top = max(top, x)
        low = min(low, x)
        if x > 0.5:
            hits += 1
        bits |= 1 << (i % 7)
    return total, product, top, low, hits, bits


def test_prange_reductions_match_the_serial_loop():
    a = RNG.random(100_003)
    serial = njit(prange_reductions)(a)
    parallel = njit(parallel=True)(prange_reductions)(a)
    assert parallel[2:] == serial[2:]  # max, min, counts and bits: exact in any order
    assert parallel[0] == pytest.approx(serial[0], rel=1e-12)
    assert parallel[1] == pytest.approx(serial[1], rel=1e-12)
    assert serial == prange_reductions(a)  # run by Python, prange is range


def test_prange_bodies_write_arrays_and_keep_their_temporaries_private():
    @njit(parallel=True)
    def rows(a, out):
        for i in ember.prange(a.shape[0]):
            acc = 0.0
            for j in range(a.shape[1]):
                acc += a[i, j] * a[i, j]
            out[i] = math.sqrt(acc)
    a = RNG.standard_normal((513, 37))
    out = np.empty(513)
    rows(a, out)
    np.testing.assert_allclose(out, np.sqrt((a * a).sum(axis=1)), rtol=1e-14)


def test_a_raise_in_a_prange_body_reaches_the_caller():
    @njit(parallel=True)
    def guarded(a):
        s = 0
        for i in ember.prange(len(a)):
            if a[i] < 0:
                raise ValueError("negative element")
            s += a[i]
        return s
    a = RNG.integers(0, 100, 10_000)
    assert guarded(a) == int(a.sum())
    a[7_777] = -1
    with pytest.raises(ValueError, match="negative element"):
        guarded(a)


def test_prange_with_a_break_runs_serially_with_python_semantics():
    def first_big(a):
        k = -1
        for i in ember.prange(len(a)):
            if a[i] > 0.9:
                k = i
                break
        return k
    a = RNG.random(1000)
    assert njit(parallel=True)(first_big)(a) == first_big(a)


def test_prange_of_an_empty_range_leaves_the_reductions_alone():
    @njit(parallel=True)
    def add_up(n):
        s = 5
        for i in ember.prange(n):
            s += i
        return s
    assert add_up(0) == 5 and add_up(-3) == 5 and add_up(1000) == 5 + 999 * 1000 // 2


# ---- constant exponents and small helpers (computed in place of a call) ----

def by_squaring(x, n):
    """Numba's float ** int: products by squaring, the reciprocal for a negative exponent."""
    r, base, left = 1.0, x, abs(n)
    while left:
        if left & 1:
            r *= base
        base *= base
        left >>= 1
    if n >= 0:
        return r
    return math.copysign(math.inf, r) if r == 0 else 1.0 / r  # IEEE's 1 / 0 (Python would raise)


@pytest.mark.parametrize("x", [2.25, -0.0, 0.0, -3.5, float("inf"), float("-inf"), float("nan"), 1e-300, 1.1])
def test_constant_exponents_give_c_pow_and_numbas_integer_powers(x):
    got = njit(lambda x: (x ** 0.5, x ** 2.0, x ** 1.0, x ** 3, x ** -2, x ** 0, x ** 17))(x)
    want = (math.pow(x, 0.5) if not (x < 0 and math.isfinite(x)) else math.nan, math.pow(x, 2.0), x,
            *(by_squaring(x, n) for n in (3, -2, 0, 17)))
    for g, w in zip(got, want, strict=True):
        same = (math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))
        assert same, (x, got, want)


def half(x, y):
    return x / y


def test_small_helpers_called_from_compiled_functions_still_raise():
    half_jit = njit(half)

    @njit
    def outer_jit(a, b):
        return half_jit(a, b) + 1.0
    assert outer_jit(3.0, 2.0) == 2.5
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        outer_jit(1.0, 0.0)
    assert outer_jit(1.0, 4.0) == 1.25


def test_boundscheck_raises_index_error_naming_the_index_and_the_process_goes_on():
    def read(a, i, j):
        return a[i, j]
    checked, plain = njit(boundscheck=True)(read), njit(read)
    a = RNG.standard_normal((3, 4))
    assert checked(a, 2, -1) == a[2, -1] == plain(a, 2, -1)
    with pytest.raises(IndexError, match="index 3 is out of bounds for an axis of size 3"):
        checked(a, 3, 0)
    with pytest.raises(IndexError, match="index -5 is out of bounds for an axis of size 4"):
        checked(a, 0, -5)
    assert checked(a, 1, 1) == a[1, 1]

    @njit(boundscheck=True, parallel=True)
    def gather(a, idx, out):
        for k in ember.prange(idx.shape[0]):
            out[k] = a[idx[k]]
    out = np.empty(3)
    gather(np.arange(5.0), np.array([4, 0, 2]), out)
    assert out.tolist() == [4.0, 0.0, 2.0]
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        gather(np.arange(5.0), np.array([1, 7, 2]), out)


# ---- element-wise loops run on vector lanes: the same results as the scalar loop ----

def lanes_saxpy(alpha, x, y, out):
    for i in range(x.shape[0]):
        out[i] = alpha * x[i] + y[i]


def lanes_stencil(a, out):
    for i in range(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) - a[i, j]
    return j if a.shape[1] > 2 else -1


def lanes_math(x, out):
    for i in range(x.shape[0]):
        t = x[i] * x[i] - 0.5
        out[i] = abs(t) * t + math.sqrt(abs(x[i])) / 3.0 + t * t * t - np.floor(x[i]) + (-t) ** 2.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 33])
def test_vector_loops_give_the_scalar_loops_bits(dtype, n):
    x, y = RNG.standard_normal(n).astype(dtype), RNG.standard_normal(n).astype(dtype)
    x[: n // 3] = [-0.0, np.inf, -np.inf, np.nan, 0.0][: n // 3] if n // 3 <= 5 else x[: n // 3]
    # (math.sqrt of a float32 is float64 in Python but float32 in Numba's typing: float64 only.)
    cases = [(lanes_saxpy, (dtype(1.5), x, y))] + ([(lanes_math, (x,))] if dtype == np.float64 else [])
    for f, args in cases:
        want, got = np.zeros(n, dtype), np.zeros(n, dtype)
        with np.errstate(all="ignore"):
            f(*args, want)
        njit(f)(*args, got)
        np.testing.assert_array_equal(got, want)
    a = RNG.standard_normal((4, n + 2)).astype(dtype)
    want, got = np.zeros_like(a), np.zeros_like(a)
    assert njit(lanes_stencil)(a, got) == lanes_stencil(a, want)
    np.testing.assert_array_equal(got, want)


def test_vector_loops_over_overlapping_memory_keep_the_scalar_order():
    def shift_add(x, out):
        for i in range(x.shape[0]):
            out[i] = x[i] + 1.0
    base = np.arange(12.0)
    want = base.copy()
    shift_add(want[:-1], want[1:])   # each element reads the one just written
    got = base.copy()
    njit(shift_add)(got[:-1], got[1:])
    np.testing.assert_array_equal(got, want)
    same = base.copy()
    njit(shift_add)(same, same)       # in place, element by element
    np.testing.assert_array_equal(same, base + 1.0)


@pytest.mark.parametrize("n", [1, 7, 1000, 1003])
def test_prange_bodies_on_vector_lanes_match_numpy(n):
    @njit(parallel=True)
    def par_saxpy(alpha, x, y, out):
        for i in ember.prange(x.shape[0]):
            out[i] = alpha * x[i] + y[i]
    x, y, out = RNG.standard_normal(n), RNG.standard_normal(n), np.zeros(n)
    par_saxpy(1.25, x, y, out)
    np.testing.assert_array_equal(out, 1.25 * x + y)


# ---- short loop bodies run several iterations per trip: the same values, in the same order ----

def running_sum(a, lo, hi):
    s = 0.0
    k = 0
    for i in range(lo, hi):
        s += a[i]
        k = i
    return s, k


def carried_through_memory(a):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] * 0.5 + a[i]


def first_above(a, t):
    for i in range(a.shape[0]):
        if a[i] > t:
            return i
    return -1


def reciprocals(a, out):
    for i in range(a.shape[0]):
        out[i] = 1.0 / a[i]


def integer_walk(lo, hi):
    s = 0
    for i in range(lo, hi):
        s += i * 3037000493
    return s


@pytest.mark.parametrize("n", [0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 64, 1001])
def test_unrolled_loops_keep_the_order_and_the_bits(n):
    a = RNG.standard_normal(n + 1)
    for lo, hi in [(0, n), (1, n + 1), (n // 2, n)]:
        assert njit(running_sum)(a, lo, hi) == running_sum(a, lo, hi)
    want, got = a.copy(), a.copy()
    carried_through_memory(want)
    njit(carried_through_memory)(got)
    np.testing.assert_array_equal(got, want)
    for t in [-np.inf, 0.0, 1.0, 2.5, np.inf]:
        assert njit(first_above)(a, t) == first_above(a, t)
    for lo, hi in [(-5, n), (n, -3), (-(2**62), -(2**62) + n)]:
        assert njit(integer_walk)(lo, hi) == (integer_walk(lo, hi) + 2**63) % 2**64 - 2**63


def test_an_error_in_an_unrolled_trip_leaves_the_elements_before_it_written():
    a = RNG.uniform(1.0, 2.0, 21)
    a[13] = 0.0
    out = np.zeros(21)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        njit(reciprocals)(a, out)
    np.testing.assert_array_equal(out[:13], 1.0 / a[:13])
    assert not out[13:].any()


def test_a_range_longer_than_int64_counts_runs_the_plain_loop():
    @njit
    def stop_early(lo, hi):
        for i in range(lo, hi):
            if i > lo + 20:
                return i
        return 0
    lo = -(2**63) + 3
    assert stop_early(lo, 2**63 - 1) == lo + 21


def shifted_masks(z):
    return ((z >> 30) & 17179869183, (z >> 11) & 9007199254740991, (z >> 3) & 255,
            (z >> 60) & 0xFF, (z >> 1) & -1, (z >> 62) & 7)


def small_masks(a, out):
    for i in range(a.shape[0]):
        out[i] = (a[i] >> 2) & 0x3F


def test_a_masked_arithmetic_shift_is_the_logical_shift_python_computes():
    zs = [0, 1, -1, 2**63 - 1, -(2**63), 12345678901234567, -98765432109876543]
    zs += [int(z) for z in RNG.integers(-(2**63), 2**63 - 1, 20, dtype=np.int64)]
    for z in zs:
        assert njit(shifted_masks)(z) == shifted_masks(z), z
    a = np.arange(-128, 128, dtype=np.int8)
    got = np.zeros_like(a)
    njit(small_masks)(a, got)
    np.testing.assert_array_equal(got, (a >> 2) & 0x3F)


def test_a_parallel_function_called_in_a_prange_loop_runs_its_own_loop_on_the_pool():
    @njit(parallel=True)
    def row_total(a, k):
        s = 0.0
        for i in ember.prange(a.shape[1]):
            s += a[k, i]
        return s

    @njit(parallel=True)
    def row_totals(a):
        out = np.zeros(a.shape[0])
        for k in ember.prange(a.shape[0]):
            out[k] = row_total(a, k)
        return out

    a = RNG.standard_normal((37, 1001))
    for _ in range(5):  # every thread busy in the outer loop waits for the inner ones
        np.testing.assert_allclose(row_totals(a), a.sum(axis=1), rtol=1e-12, atol=1e-12)


def prange_total(a):
    s = 0.0
    for i in ember.prange(a.shape[0]):
        s += a[i]
    return s


def test_set_num_threads_is_numbas_per_thread_count_with_its_errors():
    total = njit(parallel=True)(prange_total)

    a = RNG.standard_normal(10_001)
    most = ember.get_num_threads()
    assert most >= 1
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1
        assert total(a) == total.py_func(a)  # one chunk: the loop's order, Python's bits
    finally:
        ember.set_num_threads(most)
    np.testing.assert_allclose(total(a), a.sum(), rtol=1e-12)
    with pytest.raises(ValueError, match=f"The number of threads must be between 1 and {most}"):
        ember.set_num_threads(most + 1)
    with pytest.raises(ValueError, match="between 1 and"):
        ember.set_num_threads(0)
    with pytest.raises(ValueError, match="not -3"):
        ember.set_num_threads(-3)
    with pytest.raises(TypeError, match="must be an integer, not float"):
        ember.set_num_threads(2.0)


def test_parallel_functions_called_from_many_python_threads_at_once():
    @njit(parallel=True, nogil=True)
    def scaled_sum(a, k):
        s = 0.0
        for i in ember.prange(a.shape[0]):
            s += a[i] * k
        return s

    a = RNG.standard_normal(50_000)
    scaled_sum(a, 1.0)
    results = {}

    def run(k):
        results[k] = [scaled_sum(a, float(k)) for _ in range(20)]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for k in range(1, 5):
        np.testing.assert_allclose(results[k], [a.sum() * k] * 20, rtol=1e-10)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX's")
def test_a_forked_child_runs_parallel_functions_on_a_pool_of_its_own():
    total = njit(parallel=True)(prange_total)

    a = RNG.standard_normal(100_000)
    want = total(a)  # the parent's pool exists now
    child = os.fork()
    if child == 0:  # the parent's pool threads do not exist here
        signal.alarm(120)  # a child waiting for them would hang: it dies instead
        os._exit(0 if total(a) == want and total(a[::2]) == total(a[::2].copy()) else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@register_jitable
def clamp_jitable(x, lo, hi):
    return lo if x < lo else (hi if x > hi else x)


@register_jitable(inline="always")
def scaled_jitable(x, k):
    return clamp_jitable(x * k, -1.0, 1.0)


def plain_helper(x):
    return x + 1


def test_register_jitable_functions_stay_python_and_compile_where_called():
    assert clamp_jitable(5, 0, 3) == 3  # still the Python function
    assert scaled_jitable.__name__ == "scaled_jitable"

    @njit
    def clamped(a, k):
        out = np.empty_like(a)
        for i in range(a.shape[0]):
            out[i] = scaled_jitable(a[i], k)
        return out, clamp_jitable(7, 0, 5)

    a = RNG.standard_normal(50)
    got, small = clamped(a, 0.75)
    np.testing.assert_array_equal(got, np.clip(a * 0.75, -1.0, 1.0))
    assert small == 5

    @ember.cuda.jit
    def clamp_kernel(a, out):
        i = ember.cuda.grid(1)
        if i < a.size:
            out[i] = scaled_jitable(a[i], 0.75)

    out = ember.cuda.device_array(50)
    clamp_kernel[1, 64](ember.cuda.to_device(a), out)
    np.testing.assert_array_equal(out.copy_to_host(), np.clip(a * 0.75, -1.0, 1.0))


def test_a_plain_python_function_called_from_njit_says_how_to_compile_it():
    @njit
    def calls_plain(x):
        return plain_helper(x)

    with pytest.raises(ember.errors.JitError, match=r"plain Python function 'plain_helper' \(decorate it with @njit "
                       r"\(or ember.extending.register_jitable\).*is not supported in functions compiled for the CPU"):
        calls_plain(1)
    with pytest.raises(TypeError, match="register_jitable takes a function, or keyword options then a function"):
        register_jitable(3)
    with pytest.raises(TypeError, match="register_jitable takes a Python function, not int"):
        register_jitable(inline="always")(3)


def dot_loop(a, b):
    s = 0.0
    p = 1.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
        p *= 1.0 + a[i] * 1e-3
    return s, p


@pytest.mark.parametrize("n", [0, 1, 5, 1001])
def test_fastmath_reassociates_float_reductions_and_stays_close(n):
    a, b = RNG.standard_normal(n), RNG.standard_normal(n)
    exact = njit(dot_loop)(a, b)
    assert exact == dot_loop(a, b)  # in order without fastmath: Python's bits
    fast = njit(fastmath=True)(dot_loop)(a, b)
    np.testing.assert_allclose(fast, exact, rtol=1e-12, atol=1e-12)


# ---- print ----

def printing(n, x, flag, c):
    print("start", n, x, flag, (n, x), c)
    for i in range(n):
        print(i, i * x)
    print()
    print(1e16, 1e-05, -0.0, math.inf, math.nan, np.uint64(2**64 - 1), np.int8(-5))
    return n


def test_print_writes_what_python_writes(capsys):
    njit(printing)(3, 0.1, True, complex(1.5, -2.0))
    got = capsys.readouterr().out
    printing(3, 0.1, True, complex(1.5, -2.0))
    assert got == capsys.readouterr().out


def test_print_in_a_parallel_function_and_past_32_items(capsys):
    @njit(parallel=True)
    def total(n):
        s = 0
        for i in ember.prange(n):
            s += i
        print("sum", s)
        return s

    many = njit(lambda x: print(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
                                24, 25, 26, 27, 28, 29, 30, 31, 32, 33, x))
    total(100)
    many(2.5)
    assert capsys.readouterr().out == "sum 4950\n" + " ".join(map(str, range(1, 34))) + " 2.5\n"


# ---- found by Numba's own tests (tools/numba_cpu_suite) ----

def test_a_tuple_index_outside_the_tuple_raises_index_error():
    f = njit(lambda t, i: t[i])
    assert [f((4, 3, 6), i) for i in (-3, -1, 0, 2)] == [4, 6, 4, 6]
    for i in (3, -4, 100):
        with pytest.raises(IndexError, match="^tuple index out of range$"):
            f((4, 3, 6), i)
    with pytest.raises(IndexError, match="tuple index out of range"):
        njit(lambda a, i: a.shape[i])(np.empty((2, 3)), 2)
    assert f((4, 3, 6), 1) == 3  # and it still works


def test_the_least_int64_literal_keeps_its_sign():
    def least():
        return -9223372036854775808, max(9223372036854775807, -9223372036854775808) + min(
            9223372036854775807, -9223372036854775808)
    assert njit(least)() == least()


def test_a_zero_range_step_raises_value_error():
    @njit
    def count(x, y, step):
        n = 0
        for _ in range(x, y, step):
            n += 1
        return n
    assert count(0, 10, 3) == len(range(0, 10, 3)) and count(10, 0, -4) == len(range(10, 0, -4))
    with pytest.raises(ValueError, match=r"^range\(\) arg 3 must not be zero$"):
        count(1, 0, 0)


@pytest.mark.parametrize("make", ["np.ones(n, np.intp)", "np.full(n, 1.5)", "np.zeros((n, 4))", "np.empty(n)"])
def test_an_array_past_the_address_space_is_numpys_value_error(make):
    f = njit(eval(f"lambda n: {make}"))
    with pytest.raises(ValueError, match=r"^array is too big; `arr.size \* arr.dtype.itemsize` is larger"):
        f(1 << 62)
    assert f(3).shape[0] == 3


def test_math_rounding_functions_return_ints_as_python():
    def rounded(x):
        return math.ceil(x), math.floor(x), math.trunc(x)
    for x in (1.9, -2.5, 0.0, 7, np.float32(-3.25), 2.0**60):
        got, want = njit(rounded)(x), rounded(float(x) if isinstance(x, np.float32) else x)
        assert got == want and all(type(g) is int for g in got), (x, got, want)


def test_error_model_numpy_divides_by_zero_as_numpy():
    f = njit(error_model="numpy")(lambda a, b: (a / b, a // b, a % b))
    with np.errstate(all="ignore"):
        for a, b in [(1.0, 0.0), (-1.0, 0.0), (5, 0), (0.0, 0.0), (7, -2), (-7.5, 2.0), (-(2**63), -1)]:
            x, y = np.int64(a) if isinstance(a, int) else np.float64(a), np.asarray(b)[()]
            want = (x / y, x // y, x % y)
            np.testing.assert_equal(f(a, b), want)
    with pytest.raises(ZeroDivisionError):
        njit(lambda a, b: a / b)(1.0, 0.0)  # Numba's default: Python's error
    with pytest.raises(ValueError, match="error_model must be 'python' or 'numpy'"):
        njit(error_model="c")(lambda a: a)


def test_keywords_and_defaults_bind_as_python_binds_them():
    def affine(a, scale=2.0, shift=0):
        return a * scale + shift
    f = njit(affine)
    for args, kwargs in [((1.5,), {}), ((1.5, 3.0), {}), ((1.5,), {"shift": 5}), ((), {"a": 2.0, "shift": 1}),
                         ((np.arange(3.0),), {"scale": -1.0})]:
        np.testing.assert_array_equal(f(*args, **kwargs), affine(*args, **kwargs))
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'bogus'"):
        f(1.0, bogus=3)
    with pytest.raises(TypeError, match="missing a required argument: 'a'"):
        f()
    with pytest.raises(TypeError, match=r"^affine\(\) takes 3 positional arguments but 4 were given$"):
        f(1.0, 2.0, 3, 4)


def test_a_function_with_a_signature_calls_itself_while_its_decorator_runs():
    # The signature compiles it before the name `fib` is bound: the name is the function itself.
    namespace = {"ember": ember}
    exec("@ember.njit('int64(int64)')\ndef fib(n):\n    if n < 2:\n        return n\n"
         "    return fib(n - 1) + fib(n - 2)\n", namespace)
    assert [namespace["fib"](n) for n in range(12)] == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89]


def test_an_array_from_a_tuple_argument_is_returned_as_a_view_of_it():
    t = (np.arange(3.0), np.arange(4.0))
    first = njit(lambda t: t[0])(t)
    first[1] = 7.0  # the same memory: the argument sees it, as Numba's returned view does
    assert t[0].tolist() == [0.0, 7.0, 2.0]
    inner = njit(lambda t: t[1][1][::2])((1.0, (np.zeros(2), np.arange(5))))
    assert inner.tolist() == [0, 2, 4]


def test_bool_of_a_tuple_and_extremes_of_complex_arrays():
    assert njit(lambda t: (bool(t), bool(())))((1, 2.5)) == (True, False)
    for f in (lambda a: a.max(), lambda a: np.argmin(a), lambda a: a.min(axis=1)):
        with pytest.raises(ember.JitError, match=r"of a complex array is not supported yet \(NumPy orders complex"):
            njit(f)(np.ones((2, 2), complex))
