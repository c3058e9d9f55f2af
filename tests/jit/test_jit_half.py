"""float16 in kernels on CUDA as the hardware's f16 instructions (sm_53+): `+ - *` as
`add.rn.f16`... (each rounded, never contracted: NumPy's results), `cuda.fp16.hadd/hsub/hmul` as
CUDA's `add.f16`..., `hfma` as `fma.rn.f16`, negation and `abs` as `neg.f16`/`abs.f16`, and
conversions by `cvt` (`cvt.f32.f16`, `cvt.f64.f16`, `cvt.rn.f16.f64`, `cvt.rn.f16.s8`, ...,
`cvt.rni.s8.f16`: Numba's float16 to integer, to nearest and saturating). The PTX checks need
NVRTC only; the value checks run on every device (the `gpu` ones where only CUDA's path is
exact: correctly rounded fma and float64 -> float16)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import nvrtc_or_skip
from ember import cuda
from ember._jit import kernel_source

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@cuda.jit
def half_ops(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        x, y, z = a[i], b[i], c[i]
        out[0, i] = x + y
        out[1, i] = x - y
        out[2, i] = x * y
        out[3, i] = -x
        out[4, i] = abs(y)
        out[5, i] = cuda.fp16.hadd(x, y)
        out[6, i] = cuda.fp16.hsub(x, y)
        out[7, i] = cuda.fp16.hmul(x, y)
        out[8, i] = cuda.fp16.hfma(x, y, z)
        out[9, i] = cuda.fp16.hneg(y)
        out[10, i] = cuda.fp16.habs(x)


@cuda.jit
def half_casts(h, d, n, from_d, from_n, to_d, to_n, same):
    i = cuda.grid(1)
    if i < h.size:
        from_d[i] = np.float16(d[i])
        from_n[i] = np.float16(n[i])
        to_d[i] = np.float64(h[i])
        to_n[i] = h[i]
        # Compared as float64 (Numba): a float16 holds the rounded integer.
        same[i] = np.float16(n[i]) == n[i]


def ptx_and_cubin(kernel, types):
    """The kernel's PTX (Numba's default compute capability) and whether ptxas (NVRTC's cubin
    for sm_90) takes its inline PTX."""
    ptx, _ = cuda.compile_ptx(kernel, "void(" + ", ".join(types) + ")")
    src = kernel_source(kernel, types, "cuda")
    name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
    assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF"
    return ptx


def test_float16_arithmetic_is_f16_instructions_on_cuda():
    nvrtc_or_skip()
    ptx = ptx_and_cubin(half_ops, ["float16[::1]"] * 3 + ["float16[:, ::1]"])
    for ins in ("add.rn.f16", "sub.rn.f16", "mul.rn.f16", "add.f16", "sub.f16", "mul.f16", "fma.rn.f16",
                "neg.f16", "abs.f16"):
        assert f"{ins} " in ptx, ins
    # Numba's default target (sm_75) has them; no float32 arithmetic is left.
    assert "add.f32" not in ptx and "mul.f32" not in ptx and "add.rn.f32" not in ptx


@cuda.jit
def half_chain(r, a, b, c):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = a[i] * b[i] + c[i]


def test_float16_expressions_stay_in_16_bits_from_load_to_store():
    nvrtc_or_skip()
    ptx = ptx_and_cubin(half_chain, ["float16[::1]"] * 4)
    assert "mul.rn.f16 " in ptx and "add.rn.f16 " in ptx
    assert "cvt.f32.f16" not in ptx and "cvt.rn.f16.f32" not in ptx


@pytest.mark.parametrize("t", INTS)
def test_float16_conversions_are_cvt_instructions_on_cuda(t):
    nvrtc_or_skip()
    s, bits = ("u" if t.startswith("u") else "s"), 8 * np.dtype(t).itemsize
    ptx = ptx_and_cubin(half_casts, ["float16[::1]", "float64[::1]", f"{t}[::1]", "float16[::1]", "float16[::1]",
                                     "float64[::1]", f"{t}[::1]", "bool[::1]"])
    for ins in ("cvt.rn.f16.f64", f"cvt.rn.f16.{s}{bits}", "cvt.f64.f16", f"cvt.rni.{s}{bits}.f16"):
        assert f"{ins} " in ptx, ins


def to_int16(x):
    return np.int16(x)


def to_float32(x):
    return np.float32(x) / np.float32(2)


def as_float(x):
    return float(x)


def test_device_functions_take_and_return_float16_as_16_bits():
    nvrtc_or_skip()
    ptx, resty = cuda.compile_ptx(to_int16, "(float16,)", device=True)
    assert "cvt.rni.s16.f16" in ptx and resty == ember.types.int16
    ptx, _ = cuda.compile_ptx(to_float32, "(float16,)", device=True)
    assert "cvt.f32.f16" in ptx
    # float() of a float16 is a float16 (Numba): stored through the result pointer as 16 bits.
    ptx, resty = cuda.compile_ptx(as_float, "(float16,)", device=True)
    assert resty == ember.types.float16 and "ld.param.u16" in ptx and "st.u16" in ptx
    ptx, _ = cuda.compile_ptx(as_float, "(float16,)", device=True, abi="c")
    assert "ld.param.u16" in ptx and "cvt.u32.u16" in ptx


def numba_half_to_int(h, t):
    """Numba's float16 -> integer (`cvt.rni`): nearest, ties to even, saturated; NaN is 0."""
    info = np.iinfo(t)
    near = [0 if np.isnan(v) else min(max(int(v) if np.isfinite(v) else int(np.sign(v)) << 64, info.min), info.max)
            for v in np.rint(h.astype(np.float64))]
    return np.array(near, dtype=t)


@pytest.mark.parametrize("t", ["int8", "uint8", "int32", "uint64"])
def test_float16_to_integers_round_to_nearest_and_saturate_as_numba(rng, t):
    n = 512
    h = (rng.standard_normal(n) * 200).astype(np.float16)
    h[:8] = [0.5, 1.5, 2.5, -0.5, -2.5, np.inf, -np.inf, np.nan]  # ties to even; saturation; NaN
    d = rng.standard_normal(n)
    ints = rng.integers(0, min(np.iinfo(t).max, 5000), n).astype(t)
    outs = [ember.zeros(n, np.float16), ember.zeros(n, np.float16), ember.zeros(n, np.float64), ember.zeros(n, t),
            ember.zeros(n, np.bool_)]
    half_casts[2, 256](ember.asarray(h), ember.asarray(d), ember.asarray(ints), *outs)
    np.testing.assert_array_equal(outs[3].get(), numba_half_to_int(h, np.dtype(t)))
    np.testing.assert_array_equal(outs[1].get(), ints.astype(np.float16))
    np.testing.assert_array_equal(outs[2].get(), h.astype(np.float64))
    np.testing.assert_array_equal(outs[4].get(), ints.astype(np.float16).astype(np.float64) == ints)


@pytest.mark.gpu
def test_float16_conversion_from_float64_rounds_once_on_cuda(rng):
    n = 4096
    h = rng.standard_normal(n).astype(np.float16)
    # float64 values just off the halfway points between float16 neighbours, where rounding
    # through float32 first goes wrong.
    up = np.nextafter(h, np.float16(np.inf)).astype(np.float64)
    d = (h.astype(np.float64) + up) / 2 + np.where(rng.random(n) < 0.5, 1, -1) * 2.0**-40
    ints = np.zeros(n, np.int64)
    outs = [ember.zeros(n, np.float16), ember.zeros(n, np.float16), ember.zeros(n, np.float64),
            ember.zeros(n, np.int64), ember.zeros(n, np.bool_)]
    half_casts[16, 256](ember.asarray(h), ember.asarray(d), ember.asarray(ints), *outs)
    np.testing.assert_array_equal(outs[0].get(), d.astype(np.float16))


@pytest.mark.gpu
def test_float16_operations_are_numpys_on_cuda_and_fma_rounds_once(rng):
    n = 4096
    sign = np.where(rng.random((3, n)) < 0.5, -1, 1)
    a, b, c = (rng.uniform(0.5, 30, (3, n)) * sign).astype(np.float16)
    out = ember.zeros((11, n), np.float16)
    half_ops[16, 256](ember.asarray(a), ember.asarray(b), ember.asarray(c), out)
    got = out.get()
    # a * b is exact in float64 and, with these magnitudes, so is a * b + c: one rounding.
    fma = (a.astype(np.float64) * b + c).astype(np.float16)
    want = [a + b, a - b, a * b, -a, abs(b), a + b, a - b, a * b, fma, -b, abs(a)]
    for k, w in enumerate(want):
        np.testing.assert_array_equal(got[k], w, err_msg=str(k))
