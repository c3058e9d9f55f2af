"""Python's ``math``/``cmath`` in kernels where Python's answer is not C's or NumPy's, as Numba
gives Python's: ``cmath`` at special inputs (infinite and NaN parts), ``phase``/``polar``/
``rect``/``log(z, base)``, complex division and powers (CPython's), ``math.frexp``/``ldexp``/
``modf``. Every value is checked against the same call run by Python on the host; one kernel
per group keeps PoCL's builds few."""

from __future__ import annotations

import cmath
import math

import ember
import numpy as np
import pytest
from ember import cuda

_SPECIAL = [-math.inf, -1.5, -0.0, 0.0, 0.5, math.inf, math.nan]
_Z = np.array([complex(a, b) for a in _SPECIAL for b in _SPECIAL])


def _same(got: float, want: float) -> bool:
    """Equal as Python's tests compare: NaN equals NaN, zeros by sign, else within 4 ulps."""
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or want == 0:
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return abs(got - want) <= 4 * math.ulp(want)


def _python(f, *args):
    try:
        return f(*args)
    except (ValueError, OverflowError, ZeroDivisionError):
        return None  # Python raises where a kernel returns a value: not compared


@cuda.jit
def special_values(out, z):
    i = cuda.grid(1)
    if i < z.size:
        out[i, 0] = cmath.acos(z[i])
        out[i, 1] = cmath.acosh(z[i])
        out[i, 2] = cmath.asin(z[i])
        out[i, 3] = cmath.sin(z[i])
        out[i, 4] = cmath.tan(z[i])
        out[i, 5] = cmath.tanh(z[i])
        out[i, 6] = cmath.exp(z[i])
        out[i, 7] = cmath.sqrt(z[i])


def test_cmath_gives_pythons_special_values():
    out = ember.zeros((_Z.size, 8), np.complex128)
    special_values[1, 64](out, ember.asarray(_Z))
    got = out.get()
    names = ("acos", "acosh", "asin", "sin", "tan", "tanh", "exp", "sqrt")
    for i, z in enumerate(_Z):
        for k, name in enumerate(names):
            want = _python(getattr(cmath, name), complex(z))
            if want is None:
                continue
            g = got[i, k]
            assert _same(g.real, want.real) and _same(g.imag, want.imag), (name, z, g, want)


@cuda.jit
def complex_helpers(out, z, w):
    i = cuda.grid(1)
    if i < z.size:
        out[i, 0] = cmath.phase(z[i])
        r, phi = cmath.polar(z[i])
        out[i, 1] = r
        out[i, 2] = phi
        out[i, 3] = cmath.rect(z[i].real, z[i].imag)
        out[i, 4] = z[i] / w[i]
        out[i, 5] = cmath.log(z[i], w[i])
        out[i, 6] = z[i] ** w[i]
        p = z[i]
        p **= 3
        out[i, 7] = p
        out[i, 8] = pow(z[i], -2)


def test_phase_polar_rect_division_and_log_base_are_pythons(rng):
    z = np.concatenate([rng.standard_normal(40) * 3 + 1j * rng.standard_normal(40) * 3, _Z])
    w = np.concatenate([rng.standard_normal(40) * 2 + 1j * rng.standard_normal(40), _Z[::-1]])
    out = ember.zeros((z.size, 9), np.complex128)
    complex_helpers[1, 128](out, ember.asarray(z), ember.asarray(w))
    got = out.get()
    for i, (a, b) in enumerate(zip(z, w, strict=True)):
        a, b = complex(a), complex(b)
        wants = [
            _python(cmath.phase, a),
            _python(lambda x: cmath.polar(x)[0], a),
            _python(lambda x: cmath.polar(x)[1], a),
            _python(cmath.rect, a.real, a.imag),
            _python(lambda x, y: x / y, a, b) if i < 40 else None,
            _python(cmath.log, a, b) if i < 40 else None,
            _python(lambda x, y: x**y, a, b) if i < 40 else None,
            _python(lambda x: x**3, a),  # by squaring, as CPython: exact products
            _python(lambda x: x**-2, a) if i < 40 else None,
        ]
        for k, want in enumerate(wants):
            if want is None:
                continue
            want, g = complex(want), complex(got[i, k])
            if k >= 4 and cmath.isfinite(want):
                # Quotients (contracted into multiply-adds, as Numba compiles kernels),
                # logarithms and powers: within a few ulps of the modulus.
                # A general power goes through exp and log of its polar form: its angle's
                # rounding scales with the angle (tens of radians here).
                ulps = 64 if k == 6 else 8
                assert abs(g - want) <= ulps * np.finfo(float).eps * abs(want), (a, b, g, want)
            else:
                assert _same(g.real, want.real) and _same(g.imag, want.imag), (k, a, b, g, want)


@cuda.jit
def float_parts(m, e, frac, whole, scaled, x, k):
    i = cuda.grid(1)
    if i < x.size:
        m[i], e[i] = math.frexp(x[i])
        frac[i], whole[i] = math.modf(x[i])
        scaled[i] = math.ldexp(x[i], k[i])


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_frexp_modf_ldexp_are_pythons(rng, dt):
    x = np.concatenate([rng.standard_normal(50) * 1e3, [0.0, -0.0, math.inf, -math.inf, math.nan, -2.0, 5e-320]])
    x = x.astype(dt)
    k = rng.integers(-60, 60, x.size)
    outs = [ember.zeros(x.size, dt), ember.zeros(x.size, np.int32), ember.zeros(x.size, dt),
            ember.zeros(x.size, dt), ember.zeros(x.size, dt)]
    float_parts[1, 64](*outs, ember.asarray(x), ember.asarray(k))
    m, e, frac, whole, scaled = (o.get() for o in outs)
    for i, v in enumerate(x.tolist()):
        wm, we = math.frexp(v)
        wf, ww = math.modf(v)
        assert _same(float(m[i]), float(dt(wm))) and (e[i] == we or not math.isfinite(v)), (v, m[i], e[i])
        assert _same(float(frac[i]), float(dt(wf))) and _same(float(whole[i]), float(dt(ww))), v
        want = _python(math.ldexp, v, int(k[i]))
        if want is not None and math.isfinite(float(dt(want))):
            assert _same(float(scaled[i]), float(dt(want))), (v, k[i])


def test_the_cuda_c_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip
    from ember._jit import kernel_source

    nvrtc_or_skip()
    cases = [
        (special_values, ["complex128[:, ::1]", "complex128[::1]"]),
        (special_values, ["complex64[:, ::1]", "complex64[::1]"]),
        (complex_helpers, ["complex128[:, ::1]", "complex128[::1]", "complex128[::1]"]),
        (complex_helpers, ["complex64[:, ::1]", "complex64[::1]", "complex64[::1]"]),
        (float_parts, ["float32[::1]", "int32[::1]", "float32[::1]", "float32[::1]", "float32[::1]",
                       "float32[::1]", "int64[::1]"]),
        (float_parts, ["float64[::1]", "int32[::1]", "float64[::1]", "float64[::1]", "float64[::1]",
                       "float64[::1]", "int64[::1]"]),
    ]
    for kernel, types_ in cases:
        src = kernel_source(kernel, types_, "cuda")
        name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF", (kernel, types_)
