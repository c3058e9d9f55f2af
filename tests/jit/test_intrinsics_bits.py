"""Numba's scalar device functions in ``@cuda.jit`` kernels: ``cuda.popc``, ``cuda.clz``,
``cuda.ffs``, ``cuda.brev``, ``int.bit_count()``, ``cuda.fma``, ``cuda.cbrt``, ``cuda.selp``,
``cuda.nanosleep``, ``cuda.fp16.*`` and ``cuda.atomic.inc/dec``, with numba-cuda's result types
(``cudadecl.py``), checked against Python's integers, exact rationals and NumPy on seeded random
inputs of every integer width (run on this machine's device; the CUDA C of the same kernels
compiles through NVRTC)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from ember import cuda
from ember._jit import kernel_source
from ember.errors import JitError
from jit_harness import result_type

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@cuda.jit
def bit_ops(x, popc, clz, ffs, brev, count):
    i = cuda.grid(1)
    if i < x.size:
        popc[i] = cuda.popc(x[i])
        clz[i] = cuda.clz(x[i])
        ffs[i] = cuda.ffs(x[i])
        brev[i] = cuda.brev(x[i])
        count[i] = x[i].bit_count()


def random_ints(rng, dt, n=200):
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    # Edges, and values with few bits set (random ones have about half).
    x[:4] = [0, info.max, info.min, 1]
    bits = 8 * np.dtype(dt).itemsize
    x[4 : 4 + bits] = [(1 << k) if k < bits - 1 or info.min == 0 else info.min for k in range(bits)]
    return x


def reference(x, bits):
    """popc, clz, ffs (of the two's complement bits) and brev (of the 32- or 64-bit word
    the value converts to, as C converts) from Python's integers."""
    mask = (1 << bits) - 1
    word = 64 if bits == 64 else 32
    u = [int(v) & mask for v in x]
    w = [int(v) & ((1 << word) - 1) for v in x]
    return (
        [bin(v).count("1") for v in u],
        [bits - v.bit_length() for v in u],
        [(v & -v).bit_length() for v in u],
        [int(format(v, f"0{word}b")[::-1], 2) for v in w],
    )


@pytest.mark.parametrize("dt", INTS, ids=lambda d: np.dtype(d).name)
def test_bit_operations_count_in_the_argument_width(rng, dt):
    x = random_ints(rng, dt)
    n, bits = x.size, 8 * np.dtype(dt).itemsize
    brev_t = np.uint64 if bits == 64 else np.uint32
    outs = [ember.zeros(n, dt), ember.zeros(n, dt), ember.zeros(n, np.uint32), ember.zeros(n, brev_t),
            ember.zeros(n, dt)]
    bit_ops[(n + 63) // 64, 64](ember.asarray(x), *outs)
    popc, clz, ffs, brev = reference(x, bits)
    got = [o.get() for o in outs]
    np.testing.assert_array_equal(got[0], np.array(popc, dtype=dt))
    np.testing.assert_array_equal(got[1], np.array(clz, dtype=dt))
    np.testing.assert_array_equal(got[2], np.array(ffs, dtype=np.uint32))
    np.testing.assert_array_equal(got[3], np.array(brev, dtype=brev_t))
    np.testing.assert_array_equal(got[4], np.array(popc, dtype=dt))


def test_numba_examples():
    """numba-cuda's test_intrinsics values."""

    @cuda.jit
    def one(out32, out64, a, b):
        out32[0] = cuda.brev(np.uint32(0x000030F0))
        out64[0] = cuda.brev(np.uint64(0x000030F0000030F0))
        out32[1] = cuda.clz(np.int32(0x00100000))
        out32[2] = cuda.clz(np.int32(0))
        out32[3] = cuda.clz(np.int64(0x10000))
        out32[4] = cuda.ffs(np.int32(0x00100000))
        out32[5] = cuda.ffs(np.uint32(0x80000000))
        out32[6] = cuda.ffs(np.int64(0x100000000))
        out32[7] = cuda.ffs(np.int32(0))
        out32[8] = cuda.popc(np.uint64(0xFFFFFFFFFFFFFFFF))
        out64[1] = cuda.popc(a)
        out64[2] = b.bit_count()

    out32, out64 = ember.zeros(9, np.uint32), ember.zeros(3, np.uint64)
    one[1, 1](out32, out64, np.uint16(0xFFFF), np.uint8(0xFF))
    np.testing.assert_array_equal(out32.get(), [0x0F0C0000, 11, 32, 47, 21, 32, 33, 0, 64])
    np.testing.assert_array_equal(out64.get(), [0x0F0C00000F0C0000, 16, 8])


def popc(x):
    return cuda.popc(x)


def clz(x):
    return cuda.clz(x)


def ffs(x):
    return cuda.ffs(x)


def brev(x):
    return cuda.brev(x)


def bit_count(x):
    return x.bit_count()


def fma(a, b, c):
    return cuda.fma(a, b, c)


def cbrt(a):
    return cuda.cbrt(a)


def selp(c, a, b):
    return cuda.selp(c, a, b)


@pytest.mark.parametrize("t", [np.dtype(d).name for d in INTS])
def test_result_types_are_numbas(t):
    assert result_type(popc, t) == t
    assert result_type(clz, t) == t
    assert result_type(bit_count, t) == t
    assert result_type(ffs, t) == "uint32"
    assert result_type(brev, t) == ("uint64" if t.endswith("64") else "uint32")


def test_float_result_types_are_numbas():
    assert result_type(fma, "float32", "float32", "float32") == "float32"
    assert result_type(fma, "float32", "float64", "float32") == "float64"
    assert result_type(fma, "float16", "float32", "float32") == "float32"
    assert result_type(fma, "int32", "float32", "float32") == "float64"
    assert result_type(cbrt, "float32") == "float32"
    assert result_type(cbrt, "float16") == "float32"
    assert result_type(cbrt, "int64") == "float64"
    assert result_type(selp, "bool", "int64", "int64") == "int64"
    assert result_type(selp, "bool", "uint16", "uint16") == "uint16"
    assert result_type(selp, "int64", "float32", "float32") == "float32"


@pytest.mark.parametrize(
    "fn, types, message",
    [
        (popc, ["float64"], r"cuda\.popc\(\) takes an integer \(int8, .* uint64\), got float64"),
        (clz, ["bool"], r"cuda\.clz\(\) takes an integer .* got bool"),
        (ffs, ["complex128"], r"cuda\.ffs\(\) takes an integer"),
        (brev, ["float32"], r"cuda\.brev\(\) takes an integer"),
        (bit_count, ["float64"], r"int\.bit_count\(\) takes an integer"),
        (fma, ["complex64", "float32", "float32"], r"cuda\.fma\(\) takes float32 or float64 numbers"),
        (cbrt, ["complex128"], r"cuda\.cbrt\(\) takes float32 or float64"),
        (selp, ["bool", "int8", "int8"], r"cuda\.selp\(\) selects between .* int16, .* got int8 and int8"),
        (selp, ["bool", "bool", "bool"], r"cuda\.selp\(\) selects between"),
    ],
)
def test_wrong_argument_types_name_the_intrinsic_and_the_allowed_types(fn, types, message):
    with pytest.raises(JitError, match=message):
        result_type(fn, *types)


@cuda.jit
def fused(a, b, c, out, roots):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.fma(a[i], b[i], c[i])
        roots[i] = cuda.cbrt(a[i])


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_fma_rounds_once_and_cbrt_is_the_real_cube_root(rng, dt):
    n = 1000
    a, b = rng.standard_normal(n).astype(dt), rng.standard_normal(n).astype(dt)
    # c cancels most of a * b: a separately rounded product would lose the low bits fma keeps.
    c = (-(a.astype(np.float64) * b.astype(np.float64))).astype(dt) + rng.standard_normal(n).astype(dt) * dt(1e-3)
    out, roots = ember.zeros(n, dt), ember.zeros(n, dt)
    fused[(n + 127) // 128, 128](*(ember.asarray(v) for v in (a, b, c)), out, roots)
    # Rounded once: each result is a nearest float of its type to the exact a * b + c.
    from fractions import Fraction

    got = out.get()
    inf = dt(np.inf)
    for x, y, z, r in zip(a, b, c, got, strict=True):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        err = abs(Fraction(float(r)) - exact)
        for other in (np.nextafter(r, inf), np.nextafter(r, -inf)):
            assert err <= abs(Fraction(float(other)) - exact), (x, y, z, r)
    eps = np.finfo(dt).eps
    np.testing.assert_allclose(roots.get(), np.cbrt(a), rtol=2 * eps, atol=0)


@cuda.jit
def selects(c, a, out, out2):
    i = cuda.grid(1)
    if i < out.size:
        inner = cuda.selp(c[i] % 2 == 0, a[i], 13)
        out[i] = cuda.selp(a[i] > 4, inner, 3)
        out2[i] = cuda.selp(c[i], np.float32(1.5), np.float32(-2.5))


def test_selp_picks_as_the_branches_would(rng):
    n = 300
    c = rng.integers(-5, 5, n)
    a = rng.integers(-10, 10, n)
    out, out2 = ember.zeros(n, np.int64), ember.zeros(n, np.float32)
    selects[(n + 63) // 64, 64](ember.asarray(c), ember.asarray(a), out, out2)
    np.testing.assert_array_equal(out.get(), np.where(a > 4, np.where(c % 2 == 0, a, 13), 3))
    np.testing.assert_array_equal(out2.get(), np.where(c != 0, 1.5, -2.5).astype(np.float32))


@cuda.jit
def sleepy(out):
    i = cuda.grid(1)
    cuda.nanosleep(np.uint32(100))
    if i < out.size:
        out[i] = i


def test_nanosleep_is_a_hint_that_returns():
    out = ember.zeros(64, np.int64)
    sleepy[1, 64](out)
    np.testing.assert_array_equal(out.get(), np.arange(64))


def test_the_cuda_c_of_these_kernels_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    cases = [(bit_ops, [f"{t}[::1]"] + [f"{t}[::1]"] * 2 + ["uint32[::1]", f"uint{w}[::1]", f"{t}[::1]"])
             for t, w in [("int8", 32), ("int16", 32), ("int32", 32), ("int64", 64), ("uint8", 32),
                          ("uint16", 32), ("uint32", 32), ("uint64", 64)]]
    cases += [(fused, ["float32[::1]"] * 5), (fused, ["float64[::1]"] * 5),
              (half_ops, ["float16[::1]"] * 3 + ["float16[:, ::1]", "bool[:, ::1]"]),
              (selects, ["int64[::1]", "int64[::1]", "int64[::1]", "float32[::1]"]), (sleepy, ["int64[::1]"]),
              (inc_dec, ["uint32[::1]"] * 4 + ["int64"]), (inc_dec, ["uint64[::1]"] * 4 + ["int64"])]
    for kernel, types in cases:
        src = kernel_source(kernel, types, "cuda")
        name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF", (kernel, types)


# ---- cuda.fp16 --------------------------------------------------------------------------------


@cuda.jit
def half_ops(a, b, c, out, cmp):
    i = cuda.grid(1)
    if i < a.size:
        x, y, z = a[i], b[i], c[i]
        out[0, i] = cuda.fp16.hadd(x, y)
        out[1, i] = cuda.fp16.hsub(x, y)
        out[2, i] = cuda.fp16.hmul(x, y)
        out[3, i] = cuda.fp16.hdiv(x, y)
        out[4, i] = cuda.fp16.hneg(x)
        out[5, i] = cuda.fp16.habs(x)
        out[6, i] = cuda.fp16.hmax(x, y)
        out[7, i] = cuda.fp16.hmin(x, y)
        out[8, i] = cuda.fp16.hsqrt(cuda.fp16.habs(x))
        out[9, i] = cuda.fp16.hrcp(y)
        out[10, i] = cuda.fp16.hfma(x, y, z)
        out[11, i] = cuda.fp16.hsin(x)
        out[12, i] = cuda.fp16.hexp(z)
        out[13, i] = cuda.fp16.hexp10(z)
        out[14, i] = cuda.fp16.hlog2(cuda.fp16.habs(y))
        out[15, i] = cuda.fp16.hrsqrt(cuda.fp16.habs(y))
        out[16, i] = cuda.fp16.hrint(x)
        out[17, i] = cuda.fp16.hfloor(x)
        cmp[0, i] = cuda.fp16.heq(x, y)
        cmp[1, i] = cuda.fp16.hne(x, y)
        cmp[2, i] = cuda.fp16.hlt(x, y)
        cmp[3, i] = cuda.fp16.hle(x, y)
        cmp[4, i] = cuda.fp16.hgt(x, y)
        cmp[5, i] = cuda.fp16.hge(x, y)


def test_fp16_functions_round_like_float16_arithmetic(rng):
    n = 500
    a = (rng.standard_normal(n) * 30).astype(np.float16)
    b = (rng.standard_normal(n) * 30).astype(np.float16)
    b[:50] = a[:50]  # equal operands for the comparisons
    c = rng.uniform(-2, 2, n).astype(np.float16)
    out, cmp = ember.zeros((18, n), np.float16), ember.zeros((6, n), np.bool_)
    half_ops[(n + 127) // 128, 128](*(ember.asarray(v) for v in (a, b, c)), out, cmp)
    got = out.get()
    # Exact: one rounding of the float32 result, as NumPy's float16 arithmetic does.
    exact = [a + b, a - b, a * b, a / b, -a, np.abs(a), np.fmax(a, b), np.fmin(a, b), np.sqrt(np.abs(a)),
             np.float16(1) / b]
    for k, want in enumerate(exact):
        np.testing.assert_array_equal(got[k], want, err_msg=str(k))
    f64 = [v.astype(np.float64) for v in (a, b, c)]
    approx = [f64[0] * f64[1] + f64[2], np.sin(f64[0]), np.exp(f64[2]), 10 ** f64[2], np.log2(np.abs(f64[1])),
              np.abs(f64[1]) ** -0.5, np.rint(f64[0]), np.floor(f64[0])]
    for k, want in enumerate(approx, start=len(exact)):
        # float16's half-ulp, plus float32's error under the rounding
        np.testing.assert_allclose(got[k].astype(np.float64), want.astype(np.float16), rtol=1e-3, err_msg=str(k))
    np.testing.assert_array_equal(cmp.get(), [a == b, a != b, a < b, a <= b, a > b, a >= b])


def hadd(a, b):
    return cuda.fp16.hadd(a, b)


def hlt(a, b):
    return cuda.fp16.hlt(a, b)


def test_fp16_types():
    assert result_type(hadd, "float16", "float16") == "float16"
    assert result_type(hlt, "float16", "float16") == "bool"
    with pytest.raises(JitError, match=r"cuda\.fp16\.hadd\(\) takes float16 numbers, got complex64"):
        result_type(hadd, "complex64", "float16")


# ---- cuda.atomic.inc / cuda.atomic.dec ---------------------------------------------------------


@cuda.jit
def inc_dec(a, b, old_a, old_b, limit):
    i = cuda.grid(1)
    if i < old_a.size:
        old_a[i] = cuda.atomic.inc(a, i % 4, limit)
        old_b[i] = cuda.atomic.dec(b, i % 4, limit)


@pytest.mark.parametrize("dt", [np.uint32, np.uint64])
def test_atomic_inc_and_dec_wrap_as_numbas(dt):
    n, limit, starts = 1000, 7, [0, 3, 7, 100]
    a, b = ember.asarray(np.array(starts, dt)), ember.asarray(np.array(starts, dt))
    old_a, old_b = ember.zeros(n, dt), ember.zeros(n, dt)
    inc_dec[(n + 63) // 64, 64](a, b, old_a, old_b, limit)

    def inc(o):
        return 0 if o >= limit else o + 1

    def dec(o):
        return limit if o == 0 or o > limit else o - 1

    for k, s in enumerate(starts):
        # Under contention the old values come in any order, but they are the values the element
        # steps through, each once.
        for step, array, olds in ((inc, a, old_a), (dec, b, old_b)):
            seen, x = [], s
            for _ in range(n // 4):
                seen.append(x)
                x = step(x)
            assert sorted(olds.get()[k::4].tolist()) == sorted(seen)
            assert int(array.get()[k]) == x


def test_atomic_inc_takes_unsigned_arrays_only():
    with pytest.raises(JitError, match=r"cuda\.atomic\.inc\(\) does not support arrays of int32 \(it takes uint32 "
                                       r"and uint64\)"):
        kernel_source(inc_dec, ["int32[::1]", "uint32[::1]", "int32[::1]", "uint32[::1]", "int64"], "opencl")


# ---- cache-hinted loads and stores --------------------------------------------------------------


@cuda.jit
def hinted(x, y, out, out2):
    i = cuda.grid(1)
    if i < x.size:
        v = cuda.ldca(x, i) + cuda.ldcg(x, i) - cuda.ldcs(x, i) + cuda.ldlu(x, i) - cuda.ldcv(x, i)
        cuda.stcg(out, i, v)
        cuda.stcs(out2, (0, i), cuda.ldcg(y, (1, i)))
        cuda.stwb(out2, (1, i), cuda.ldcs(y, (0, i)))
        cuda.stwt(out2, (2, i), v)


HINT_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
              "float64"]


@pytest.mark.parametrize("t", HINT_TYPES)
def test_cache_hinted_loads_and_stores_read_and_write_elements(rng, t):
    n = 100
    x = rng.integers(0, 20, n).astype(t)
    y = rng.integers(0, 20, (2, n)).astype(t)
    out, out2 = ember.zeros(n, t), ember.zeros((3, n), t)
    hinted[2, 64](ember.asarray(x), ember.asarray(y), out, out2)
    np.testing.assert_array_equal(out.get(), x)
    np.testing.assert_array_equal(out2.get(), np.stack([y[1], y[0], x]))


def test_cache_hints_are_their_ptx_instructions_on_cuda_and_refuse_other_dtypes():
    from conftest import nvrtc_or_skip

    with pytest.raises(JitError, match=r"ldca requires array of integer or float type, got bool"):
        kernel_source(hinted, ["bool[::1]", "bool[:, ::1]", "bool[::1]", "bool[:, ::1]"], "opencl")
    nvrtc_or_skip()
    for t in HINT_TYPES:
        types = [f"{t}[::1]", f"{t}[:, ::1]", f"{t}[::1]", f"{t}[:, ::1]"]
        bits = 8 * np.dtype(t).itemsize
        ptx, _ = cuda.compile_ptx(hinted, "void(" + ", ".join(types) + ")")
        for op in ("ld.global.ca", "ld.global.cg", "ld.global.cs", "ld.global.lu", "ld.global.cv",
                   "st.global.cg", "st.global.cs", "st.global.wb", "st.global.wt"):
            assert f"{op}.b{bits} " in ptx, (t, op)
        # ptxas (NVRTC's cubin) takes the inline PTX: operand widths and constraints agree.
        src = kernel_source(hinted, types, "cuda")
        name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF", t


def float_index(x, y):
    cuda.ldcs(x, 1.0)


def two_indices_of_1d(x, y):
    cuda.ldcs(x, (1, 2))


def scalar_index_of_2d(x, y):
    cuda.ldcs(y, 1)


def one_index_of_2d(x, y):
    cuda.stcs(y, (1,), 0)


@pytest.mark.parametrize("f, message", [(float_index, "float64 is not a valid index"),
                                        (two_indices_of_1d, "Expected 1 indices, got 2"),
                                        (scalar_index_of_2d, "Expected 2 indices, got a scalar"),
                                        (one_index_of_2d, "Expected 2 indices, got 1")])
def test_cache_hint_indices_are_checked_with_numbas_words(f, message):
    with pytest.raises(JitError, match=message):
        kernel_source(cuda.jit(f), ["float32[::1]", "float32[:, ::1]"], "opencl")
