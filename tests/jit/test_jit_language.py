"""Python's loop builtins in ``@cuda.jit`` kernels and device functions, as Numba has them:
``enumerate(x[, start])`` and ``zip(a, b, ...)`` over 1-d arrays, the rows of n-d arrays,
``range(...)`` and tuples of one type, nested freely; ``zip`` stops at the shortest; the
``operator`` module's arithmetic functions. Each
kernel runs on this machine's device against the same function run by Python on NumPy
arrays (seeded random inputs), and its CUDA C compiles through NVRTC."""
# ruff: noqa: B905 (kernels are written as for Numba, whose zip() takes no strict=)

from __future__ import annotations

import cmath
import math
import operator

import ember
import numpy as np
import pytest
from ember import cuda
from ember._jit import front, kernel_source
from ember.errors import JitError


def run_both(kernel, *args):
    """Runs ``kernel`` on one thread and its Python function on copies of ``args``; returns
    (device results, host results) for the array arguments."""
    dev = [ember.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel[1, 1](*dev)
    host = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kernel.py_func(*host)
    pairs = [(d.get(), h) for d, h in zip(dev, host, strict=True) if isinstance(h, np.ndarray)]
    return pairs


def check(kernel, *args):
    for got, want in run_both(kernel, *args):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


# ---- enumerate --------------------------------------------------------------------------------


@cuda.jit
def enum_array(a, out):
    for i, v in enumerate(a):
        out[i] = v * i
    for i, v in enumerate(a, 3):
        out[a.size + i - 3] = v + i


@cuda.jit
def enum_start(a, start, out):
    k = 0
    for i, v in enumerate(a, start=start):
        out[k] = i * 2 + v
        k += 1


@cuda.jit
def enum_whole(a, out):
    # The target not unpacked: a (count, item) tuple.
    for pair in enumerate(a, -2):
        out[pair[0] + 2] = pair[1] - pair[0]


@pytest.mark.parametrize("dt", [np.float64, np.int64, np.float32, np.int32])
def test_enumerate_over_arrays(rng, dt):
    for n in (0, 1, 17):
        a = (rng.standard_normal(n) * 100).astype(dt)
        check(enum_array, a, np.zeros(2 * n, dt))
        check(enum_start, a, np.int64(-7), np.zeros(n, dt))
        check(enum_start, a, np.int32(1 << 20), np.zeros(n, dt))
        check(enum_whole, a, np.zeros(n, dt))


# ---- zip --------------------------------------------------------------------------------------


@cuda.jit
def zip_arrays(a, b, c, out):
    k = 0
    for x, y, z in zip(a, b, c):
        out[k] = x * y - z
        k += 1
    out[out.size - 1] = k


def test_zip_stops_at_the_shortest(rng):
    for na, nb, nc in [(5, 9, 7), (9, 5, 7), (9, 7, 5), (0, 3, 3), (4, 4, 4)]:
        a, b, c = rng.standard_normal(na), rng.standard_normal(nb), rng.standard_normal(nc)
        check(zip_arrays, a, b, c, np.zeros(10))


@cuda.jit
def zip_ranges(a, out, n, s):
    k = 0
    for i, x in zip(range(n, -3, s), a):
        out[k] = i + x
        k += 1
    for j, (i, x) in enumerate(zip(range(2, 50, 3), a)):
        out[k] = j * 1000 + i * x
        k += 1
    for i, x in zip(range(n), a):
        out[k] = i - x
        k += 1
    for i, x in zip(range(n, 0, -2), a):
        out[k] = i * x
        k += 1
    for i, j in zip(range(n - 1, n + 5), range(10, -10, s)):
        out[k] = i * 100 + j
        k += 1
    out[out.size - 1] = k


def test_zip_over_ranges_of_any_step(rng):
    a = rng.integers(-50, 50, 12).astype(np.int64)
    for n in (-5, 0, 1, 6, 11, 30):
        for s in (-3, -1, 1, 2, 5):
            check(zip_ranges, a, np.zeros(80, np.int64), np.int64(n), np.int64(s))
    # int32 arguments: the range's own type (int32), as in Numba.
    check(zip_ranges, a, np.zeros(80, np.int64), np.int32(7), np.int32(-2))


@cuda.jit
def zip_tuples(a, out):
    t = (3, 5, 7, 11)
    k = 0
    for p, (q, x) in zip(t, enumerate(a)):
        out[k] = p * q + x
        k += 1
    for pair in zip(t, a):
        out[k] = pair[0] - pair[1]
        k += 1
    for q, p in enumerate((2.5, 0.5, -1.0)):
        out[k] = q * p
        k += 1
    out[out.size - 1] = k


def test_zip_and_enumerate_over_tuples(rng):
    for n in (0, 2, 4, 9):
        check(zip_tuples, rng.standard_normal(n), np.zeros(16))


@cuda.jit
def rows(m, weights, out):
    for i, row in enumerate(m):
        s = 0.0
        for w, v in zip(weights, row):
            s += w * v
        out[i] = s
    for row in m:
        row[0] = -row[0]


@cuda.jit
def loop_else(a, b, limit, out):
    found = -1
    for i, (x, y) in enumerate(zip(a, b)):
        if x + y > limit:
            found = i
            break
    else:
        found = -2
    out[0] = found


def test_rows_of_2d_arrays_and_loop_else(rng):
    m = rng.standard_normal((5, 7))
    for w in (rng.standard_normal(7), rng.standard_normal(3), rng.standard_normal(9)):
        check(rows, m, w, np.zeros(5))
    check(rows, np.asfortranarray(m), rng.standard_normal(7), np.zeros(5))
    a, b = rng.standard_normal(20), rng.standard_normal(15)
    for limit in (-10.0, 0.5, 1.5, 10.0):
        check(loop_else, a, b, limit, np.zeros(1, np.int64))


@cuda.jit(device=True)
def dot(a, b):
    s = 0.0
    for x, y in zip(a, b):
        s += x * y
    return s


@cuda.jit
def dots(m, v, out):
    for i, row in enumerate(m):
        out[i] = dot(row, v)


def test_device_functions_loop_over_zip(rng):
    m, v = rng.standard_normal((6, 4)), rng.standard_normal(4)
    out = ember.zeros(6)
    dots[1, 1](ember.asarray(m), ember.asarray(v), out)
    np.testing.assert_allclose(out.get(), m @ v, rtol=1e-12)


def test_kernels_without_source_compile_enumerate_and_zip(rng, monkeypatch):
    """The bytecode front reads the same loops (a kernel from ``exec`` has no source)."""
    monkeypatch.setattr(front, "SOURCE_FIRST", False)
    a = rng.integers(-50, 50, 12).astype(np.int64)
    check(cuda.jit(zip_ranges.py_func), a, np.zeros(80, np.int64), np.int64(9), np.int64(-2))
    check(cuda.jit(zip_tuples.py_func), rng.standard_normal(3), np.zeros(16))
    check(cuda.jit(enum_array.py_func), rng.standard_normal(5), np.zeros(10))


# ---- errors -----------------------------------------------------------------------------------


@cuda.jit
def bad_start(a, out):
    for i, v in enumerate(a, 1.5):
        out[i] = v


@cuda.jit
def bad_zip(a, out):
    for x, y in zip(a, 3.0):
        out[0] = x + y


@cuda.jit
def empty_zip(out):
    for _x in zip():
        out[0] = 1


@cuda.jit
def mixed_tuple(out):
    for i, x in enumerate((1, 2.5)):
        out[i] = x


def test_errors_name_the_loop():
    with pytest.raises(JitError, match="Only integers supported as start value in enumerate"):
        kernel_source(bad_start, ["float64[::1]"] * 2, "opencl")
    with pytest.raises(JitError, match=r"zip\(\) in kernels take range\(...\), arrays and tuples, not float64"):
        kernel_source(bad_zip, ["float64[::1]"] * 2, "opencl")
    with pytest.raises(JitError, match=r"zip\(\) needs at least one iterable"):
        kernel_source(empty_zip, ["float64[::1]"], "opencl")
    with pytest.raises(JitError, match="a loop over a tuple needs all its items of one type"):
        kernel_source(mixed_tuple, ["float64[::1]"], "opencl")


def test_the_cuda_c_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    cases = [(enum_array, ["float32[::1]"] * 2), (enum_start, ["int64[::1]", "int32", "int64[::1]"]),
             (enum_whole, ["float64[::1]"] * 2), (zip_arrays, ["float64[::1]"] * 4),
             (zip_ranges, ["int64[::1]", "int64[::1]", "int64", "int64"]),
             (zip_ranges, ["int64[::1]", "int64[::1]", "int32", "int32"]),
             (zip_tuples, ["float64[::1]"] * 2), (rows, ["float64[:, :]", "float64[::1]", "float64[::1]"]),
             (loop_else, ["float64[::1]", "float64[::1]", "float64", "int64[::1]"]),
             (dots, ["float64[:, ::1]", "float64[::1]", "float64[::1]"])]
    for kernel, types in cases:
        src = kernel_source(kernel, types, "cuda")
        name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF", (kernel, types)


# ---- recursion --------------------------------------------------------------------------------


@cuda.jit("i8(i8)", device=True)
def fib1(n):
    if n < 2:
        return n
    return fib1(n - 1) + fib1(n - 2)


@cuda.jit(device=True)
def fib3(n):
    if n < 2:
        return n
    return fib3(n - 1) + fib3(n - 2)


@cuda.jit("int64(int64)", device=True)
def is_even(n):
    if n == 0:
        return 1
    return is_odd(n - 1)


@cuda.jit("int64(int64)", device=True)
def is_odd(n):
    if n == 0:
        return 0
    return is_even(n - 1)


@cuda.jit(device=True)
def gcd(a, b):
    # The recursive call comes before the return that gives the type.
    if b != 0:
        return gcd(b, a % b)
    return a


@cuda.jit
def recursions(x, out):
    for i, v in enumerate(x):
        out[0, i] = fib1(v)
        out[1, i] = fib3(v)
        out[2, i] = is_even(v)
        out[3, i] = gcd(v * 6, v + 4)


@cuda.jit(device=True)
def runaway(x):
    return runaway(x)


@cuda.jit
def runs_away(out):
    out[0] = runaway(1)


@cuda.jit(device=True)
def growing(n):
    if n <= 0:
        return (n,)
    return (n, growing(n - 1))


@cuda.jit
def grows(out):
    out[0] = growing(3)[0]


def test_recursion_compiles_for_cuda_and_its_errors():
    from conftest import nvrtc_or_skip

    # OpenCL C forbids recursion: a compile-time error says so.
    with pytest.raises(JitError, match="recursion .call chain: fib1 -> fib1. needs the CUDA backend"):
        kernel_source(recursions, ["int64[::1]", "int64[:, ::1]"], "opencl")
    # Typing errors come first, the same on both back ends (Numba's wording).
    for dialect in ("cuda", "opencl"):
        with pytest.raises(JitError, match="cannot type infer runaway recursion"):
            kernel_source(runs_away, ["int64[::1]"], dialect)
        with pytest.raises(JitError, match="Return type of recursive function does not converge"):
            kernel_source(grows, ["int64[::1]"], dialect)
    src = kernel_source(recursions, ["int64[::1]", "int64[:, ::1]"], "cuda")
    assert src.count("ember_fn") > 4
    nvrtc_or_skip()
    name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
    assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF"


@cuda.jit("float32(int64)", device=True)
def half_of(n):
    return n / 2


@cuda.jit
def declared(x, out):
    # int32 arguments convert to the declared int64; the float64 quotient to float32.
    out[0] = fib1(x[0])
    out[1] = half_of(x[1])


@cuda.jit("int32(int64)", device=True)
def too_wide(n):
    return n, n


@cuda.jit
def calls_too_wide(out):
    out[0] = too_wide(3)


def test_declared_device_signatures_fix_the_types():
    src = kernel_source(declared, ["int32[::1]", "float64[::1]"], "cuda")
    assert "long long ember_fn0_fib1(long long p_n)" in src, src
    assert "float ember_fn1_half_of(long long p_n)" in src, src
    with pytest.raises(JitError, match=r"cannot convert \(int64, int64\) to int32"):
        kernel_source(calls_too_wide, ["float64[::1]"], "cuda")


@pytest.mark.gpu
def test_recursion_runs_on_cuda():
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    x = np.arange(0, 15, dtype=np.int64)
    want = np.array([[fib(int(v)) for v in x], [fib(int(v)) for v in x], [1 - v % 2 for v in x],
                     [np.gcd(6 * v, v + 4) for v in x]])
    out = ember.zeros((4, x.size), np.int64)
    recursions[1, 1](ember.asarray(x), out)
    np.testing.assert_array_equal(out.get(), want)


def test_recursion_on_opencl_devices_is_a_launch_error():
    from conftest import on_cuda

    if on_cuda():
        pytest.skip("the CUDA backend runs recursion")
    with pytest.raises(JitError, match="needs the CUDA backend: OpenCL C forbids recursive functions"):
        recursions[1, 1](ember.arange(3), ember.zeros((4, 3), np.int64))


@cuda.jit
def operator_functions(out, a, b):
    for k in range(a.size):
        out[0, k] = operator.add(a[k], b[k])
        out[1, k] = operator.sub(a[k], b[k])
        out[2, k] = operator.mul(a[k], b[k])
        out[3, k] = operator.truediv(a[k], b[k])
        out[4, k] = operator.floordiv(a[k], b[k])
        out[5, k] = operator.mod(a[k], b[k])
        out[6, k] = operator.abs(a[k])


def test_operator_module_functions_are_their_operators():
    rng = np.random.default_rng(20261127)
    a, b = rng.standard_normal(16) * 10, rng.standard_normal(16) * 3
    check(operator_functions, np.zeros((7, 16)), a, b)
    with pytest.raises(JitError, match=r"operator.matmul\(\) is not supported in kernels"):
        def bad(x):
            x[0] = operator.matmul(x[0], x[1])
        cuda.jit(bad)[1, 1](ember.zeros(2))


# ---- starred arguments: f(*t), f(a, *t) ----


@cuda.jit(device=True)
def twice_and_thrice(x):
    return x * 2, x * 3


def starred_calls(z, out, got):
    out[0] = complex(*cmath.polar(z[0]))
    t = (z[0].real, 3.0)
    got[0] = max(1.0, *t)
    got[1] = math.hypot(*twice_and_thrice(z[0].imag))
    got[2] = math.atan2(*t)


def test_starred_arguments_are_the_tuples_items_as_python_passes_them():
    z = np.array([complex(-1.25, 0.5)])
    out, got = ember.zeros(1, np.complex128), ember.zeros(3)
    cuda.jit(starred_calls)[1, 1](ember.asarray(z), out, got)
    assert out.get()[0] == complex(*cmath.polar(z[0]))
    t = (z[0].real, 3.0)
    assert got.get()[0] == max(1.0, *t)
    # hypot and atan2 are not exactly rounded: CUDA's libm may differ from glibc's by an ulp.
    np.testing.assert_allclose(got.get()[1:], [math.hypot(1.0, 1.5), math.atan2(*t)], rtol=4.5e-16)


def test_starred_arguments_that_are_not_tuples_or_go_to_device_functions_say_so():
    def of_an_array(a, out):
        out[0] = max(*a)

    def to_a_device_function(a, out):
        t = (a[0], a[1])
        out[0] = twice_and_thrice(*t)[0]

    def in_a_tuple(a, out):
        pair = (a[0], a[1])
        t = (*pair, 1.0)
        out[0] = t[0]

    with pytest.raises(JitError, match=r"\*array\(float64, 1d, C\) in a call: kernels unpack tuples only"):
        kernel_source(of_an_array, ["float64[::1]", "float64[::1]"], "opencl")
    with pytest.raises(JitError, match=r"\*args in a call of a device function \(pass the items\)"):
        kernel_source(to_a_device_function, ["float64[::1]", "float64[::1]"], "opencl")
    with pytest.raises(JitError, match="only allowed among a call's arguments"):
        kernel_source(in_a_tuple, ["float64[::1]", "float64[::1]"], "opencl")
