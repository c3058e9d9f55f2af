"""CUDA's math library and intrinsics: the single- and double-precision functions with their
special values (zeros, infinities, NaN, denormals, huge arguments), the correctly rounded and
directed-rounding intrinsics, the fast `__expf`-style intrinsics within their documented error
bounds, the integer intrinsics, the rounding and bit-cast conversions, and the `min`/`max`/`abs`
overloads. Math functions are compared within the maximum ulp errors of the CUDA C Programming
Guide's Mathematical Functions appendix, against float64 (or exact rational) references."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .case import Case, blocks, ints

M = 512  # elements of a math case: random values, then the special ones
R = 256  # elements of a case whose reference is exact rational arithmetic
ULP32 = 2.0**-23  # one ulp of a float in [1, 2), relative
ULP64 = 2.0**-52
INF, NAN = math.inf, math.nan
FLT_MAX = float(np.finfo(np.float32).max)
FLT_MIN = float(np.finfo(np.float32).tiny)

PRELUDE = r"""
#define IDX (blockIdx.x * blockDim.x + threadIdx.x)
#define SQRT_HALF_F 0.707106781186547524f
"""

CASES = [
    Case("trig_f32", r"""
extern "C" __global__ void trig_f32(const float* x, float* out, int n) {
    int i = IDX;
    if (i >= n) return;
    float v = x[i], s, c;
    sincosf(v, &s, &c);
    float* o = out + 7 * i;
    o[0] = sinf(v);
    o[1] = cosf(v);
    o[2] = tanf(v);
    o[3] = s;
    o[4] = c;
    o[5] = sinpif(v);
    o[6] = cospif(v);
}""", lambda r: [_mix(r, -10, 10, [0, -0.0, 1e-30, 1e-40, 0.5, np.float32(np.pi), 100, 1000.5, 12345.678,
                                   -31415.9, 1e6, 3e7, INF, -INF, NAN]), np.zeros(7 * M, np.float32), np.int32(M)],
         lambda x, out, n: {1: _trig(x)}, grid=(blocks(M, 128),),
         rtol=5 * ULP32, atol=3e-45),  # tanf: 4 ulp; 2 ulp of a denormal result (sinpif(1e-40))

    Case("inverse_trig_f32", r"""
extern "C" __global__ void inverse_trig_f32(const float* u, const float* w, const float* y, const float* x,
                                            float* out, int n) {
    int i = IDX;
    if (i >= n) return;
    out[4 * i + 0] = asinf(u[i]);
    out[4 * i + 1] = acosf(u[i]);
    out[4 * i + 2] = atanf(w[i]);
    out[4 * i + 3] = atan2f(y[i], x[i]);
}""", lambda r: [_mix(r, -1, 1, [0, -0.0, 1, -1, 0.5, -0.5, 1.0000001, -2, NAN, 1e-20, 0.99999994, -0.99999994,
                                  1e-40, INF, -INF]),
                 _mix(r, -100, 100, [0, -0.0, INF, -INF, NAN, 1e20, -1e20, 1, -1, 1e-20, 1e-40, 100, 0.5, 3, 1e10]),
                 _mix(r, -5, 5, [y for y, _ in ATAN2_PAIRS]), _mix(r, -5, 5, [x for _, x in ATAN2_PAIRS]),
                 np.zeros(4 * M, np.float32), np.int32(M)],
         lambda u, w, y, x, out, n: {4: _inverse_trig(u, w, y, x)}, grid=(blocks(M, 128),),
         rtol=4 * ULP32, atol=3e-45),  # atan2f: 3 ulp; 2 ulp of a denormal result (asinf(1e-40))

    Case("hyperbolic_f32", r"""
extern "C" __global__ void hyperbolic_f32(const float* x, const float* a, const float* t, float* out, int n) {
    int i = IDX;
    if (i >= n) return;
    float* o = out + 6 * i;
    o[0] = sinhf(x[i]);
    o[1] = coshf(x[i]);
    o[2] = tanhf(x[i]);
    o[3] = asinhf(x[i]);
    o[4] = acoshf(a[i]);
    o[5] = atanhf(t[i]);
}""", lambda r: [_mix(r, -9, 9, [0, -0.0, 1e-5, -3e-4, 88, -88, 100, INF, -INF, NAN, 0.5, -20]),
                 _mix(r, 1, 50, [1, 1.0000001, 1e30, INF, 0.5, NAN, 2, 10, 1.5, 100, 1e10, 3]),
                 _mix(r, -0.99, 0.99, [0, -0.0, 1, -1, 0.9999999, -0.9999999, 1.5, NAN, 1e-5, 0.5, -0.5, 1e-30]),
                 np.zeros(6 * M, np.float32), np.int32(M)],
         lambda x, a, t, out, n: {3: _on64(lambda x, a, t: [np.sinh(x), np.cosh(x), np.tanh(x), np.arcsinh(x),
                                                            np.arccosh(a), np.arctanh(t)], x, a, t)},
         grid=(blocks(M, 128),), rtol=5 * ULP32),  # acoshf: 4 ulp

    Case("exp_family_f32", r"""
extern "C" __global__ void exp_family_f32(const float* x, float* out, int n) {
    int i = IDX;
    if (i < n) {
        out[4 * i + 0] = expf(x[i]);
        out[4 * i + 1] = exp2f(x[i]);
        out[4 * i + 2] = exp10f(x[i]);
        out[4 * i + 3] = expm1f(x[i]);
    }
}""", lambda r: [_mix(r, -20, 20, [0, -0.0, 1e-5, -3e-4, 1e-30, 88, -80, 89, 128, INF, -INF, NAN, 1, 10, -1]),
                 np.zeros(4 * M, np.float32), np.int32(M)],
         lambda x, out, n: {1: _on64(lambda x: [np.exp(x), np.exp2(x), 10.0**x, np.expm1(x)], x)},
         grid=(blocks(M, 128),), rtol=3 * ULP32),  # 2 ulp

    Case("log_family_f32", r"""
extern "C" __global__ void log_family_f32(const float* x, const float* y, float* out, int n) {
    int i = IDX;
    if (i >= n) return;
    out[4 * i + 0] = logf(x[i]);
    out[4 * i + 1] = log2f(x[i]);
    out[4 * i + 2] = log10f(x[i]);
    out[4 * i + 3] = log1pf(y[i]);
}""", lambda r: [_mix(r, -30, 30, [1, 0, -0.0, -1, INF, NAN, 1e-40, 8, 0.001, 1.0000001, 0.99999994, 1024], log=True),
                 _mix(r, -0.99, 10, [0, -0.0, 1e-6, -1, -2, INF, NAN, 1e-30, -0.5, 1e30, 3e-8, -0.99999994]),
                 np.zeros(4 * M, np.float32), np.int32(M)],
         lambda x, y, out, n: {2: _on64(lambda x, y: [np.log(x), np.log2(x), np.log10(x), np.log1p(y)], x, y)},
         grid=(blocks(M, 128),), rtol=3 * ULP32),  # log10f: 2 ulp

    Case("pow_f32", r"""
extern "C" __global__ void pow_f32(const float* x, const float* y, float* out, int n) {
    int i = IDX;
    if (i < n) out[i] = powf(x[i], y[i]);
}""", lambda r: [_mix(r, 0.05, 10, [x for x, _ in POW_PAIRS]), _mix(r, -6, 6, [y for _, y in POW_PAIRS]),
                 np.zeros(M, np.float32), np.int32(M)],
         lambda x, y, out, n: {2: _on64(lambda x, y: [np.power(x, y)], x, y)}, grid=(blocks(M, 128),),
         rtol=9 * ULP32),

    Case("roots_f32", r"""
extern "C" __global__ void roots_f32(const float* x, const float* c, const float* a, const float* b, float* out,
                                     int n) {
    int i = IDX;
    if (i >= n) return;
    out[4 * i + 0] = rsqrtf(x[i]);
    out[4 * i + 1] = cbrtf(c[i]);
    out[4 * i + 2] = rcbrtf(x[i]);
    out[4 * i + 3] = hypotf(a[i], b[i]);
}""", lambda r: [_mix(r, -20, 20, [0, -0.0, INF, NAN, -1, 1, 4, 0.25, 1e30, 1e-30, 2, 3.4e38], log=True),
                 _mix(r, -1000, 1000, [-27, -0.0, 0, INF, -INF, NAN, 1e-30, 8, -1e30, 1e-40, 0.001, -64]),
                 _mix(r, -100, 100, [a for a, _ in HYPOT_PAIRS]), _mix(r, -100, 100, [b for _, b in HYPOT_PAIRS]),
                 np.zeros(4 * M, np.float32), np.int32(M)],
         lambda x, c, a, b, out, n: {4: _on64(lambda x, c, a, b: [1 / np.sqrt(x), np.cbrt(c), 1 / np.cbrt(x),
                                                                  np.hypot(a, b)], x, c, a, b)},
         grid=(blocks(M, 128),), rtol=4 * ULP32),  # hypotf: 3 ulp

    Case("correctly_rounded_f32", r"""
extern "C" __global__ void correctly_rounded_f32(const float* x, const float* y, const float* a, const float* b,
                                                 const float* c, float* out, int n) {
    int i = IDX;
    if (i >= n) return;
    float* o = out + 10 * i;
    o[0] = x[i] / y[i];
    o[1] = 1.0f / y[i];
    o[2] = sqrtf(fabsf(x[i]));
    o[3] = __fdiv_rn(x[i], y[i]);
    o[4] = __frcp_rn(y[i]);
    o[5] = __fsqrt_rn(fabsf(x[i]));
    o[6] = fmaf(a[i], b[i], c[i]);
    o[7] = __fmaf_rn(a[i], b[i], c[i]);
    o[8] = __fadd_rn(__fmul_rn(a[i], b[i]), c[i]);  // two roundings: never contracted into an fma
    o[9] = __fsub_rn(c[i], __fmul_rn(a[i], b[i]));
}""", lambda r: [_mix(r, -15, 15, [0, -0.0, INF, 1e-40, 4, 2, 1e38, -1, 3, 1.5e-45], total=R, log=True, signed=True),
                 _mix(r, -15, 15, [3, 7, 0, -0.0, INF, 1e-40, 1e-38, 3, 1e-30, NAN], total=R, log=True, signed=True),
                 *_fma_inputs(r, R), np.zeros(10 * R, np.float32), np.int32(R)],
         lambda x, y, a, b, c, out, n: {5: _correctly_rounded(x, y, a, b, c)}, grid=(blocks(R, 128),)),

    Case("directed_rounding_f32", r"""
extern "C" __global__ void directed_rounding_f32(const float* x, const float* y, float* out, int n) {
    int i = IDX;
    if (i >= n) return;
    float a = x[i], b = y[i];
    float* o = out + 12 * i;
    o[0] = __fadd_rz(a, b);
    o[1] = __fadd_rd(a, b);
    o[2] = __fadd_ru(a, b);
    o[3] = __fmul_rz(a, b);
    o[4] = __fmul_rd(a, b);
    o[5] = __fmul_ru(a, b);
    o[6] = __fdiv_rz(a, b);
    o[7] = __fdiv_rd(a, b);
    o[8] = __fdiv_ru(a, b);
    o[9] = __fsqrt_rz(fabsf(a));
    o[10] = __fsqrt_rd(fabsf(a));
    o[11] = __fsqrt_ru(fabsf(a));
}""", lambda r: [_mix(r, -6, 6, [1, 2, 4, -1e-40], total=R, log=True, signed=True),
                 _mix(r, -6, 6, [3, -3, 2**-24, 7], total=R, log=True, signed=True),
                 np.zeros(12 * R, np.float32), np.int32(R)],
         lambda x, y, out, n: {2: _directed(x, y)}, grid=(blocks(R, 128),)),

    Case("erf_gamma_f32", r"""
extern "C" __global__ void erf_gamma_f32(const float* x, const float* g, float* out, int n) {
    int i = IDX;
    if (i >= n) return;
    out[4 * i + 0] = erff(x[i]);
    out[4 * i + 1] = erfcf(x[i]);
    out[4 * i + 2] = lgammaf(g[i]);
    out[4 * i + 3] = tgammaf(g[i]);
}""", lambda r: [_mix(r, -4, 4, [0, -0.0, INF, -INF, NAN, 1e-30, 0.5, -0.5, 3.9, 9, -9, 1e-3]),
                 _mix(r, 0.1, 20, [1, 2, 0.5, INF, 0, -0.5, NAN, 100, 1e30, 3, 10, 35]),
                 np.zeros(4 * M, np.float32), np.int32(M)],
         lambda x, g, out, n: {2: _erf_gamma(x, g)}, grid=(blocks(M, 128),),
         rtol=7 * ULP32),  # lgammaf: 6 ulp (outside -10.001 ... -2.264), tgammaf: 5, erfcf: 4

    Case("rounding_f32", r"""
extern "C" __global__ void rounding_f32(const float* x, float* out, int n) {
    int i = IDX;
    if (i >= n) return;
    float v = x[i];
    float* o = out + 6 * i;
    o[0] = floorf(v);
    o[1] = ceilf(v);
    o[2] = roundf(v);
    o[3] = truncf(v);
    o[4] = rintf(v);
    o[5] = nearbyintf(v);
}""", lambda r: [_mix(r, -100, 100, [k + 0.5 for k in range(-6, 6)] + [
                     0.49999997, -0.49999997, 0.50000006, 8388607.5, -8388607.5, 8388609.0, 1e20, -0.0, 0, INF, -INF,
                     NAN, 1e-40, -1e-40]), np.zeros(6 * M, np.float32), np.int32(M)],
         lambda x, out, n: {1: _rounding(x)}, grid=(blocks(M, 128),)),

    Case("fmod_frexp_f32", r"""
extern "C" __global__ void fmod_frexp_f32(const float* x, const float* y, const int* k, float* out, int* ints,
                                          int n) {
    int i = IDX;
    if (i >= n) return;
    float whole;
    int e;
    float* o = out + 8 * i;
    o[0] = fmodf(x[i], y[i]);
    o[1] = remainderf(x[i], y[i]);
    o[2] = modff(x[i], &whole);
    o[3] = whole;
    o[4] = frexpf(x[i], &e);
    o[5] = ldexpf(x[i], k[i]);
    o[6] = scalbnf(x[i], k[i]);
    o[7] = logbf(x[i]);
    ints[2 * i + 0] = e;
    ints[2 * i + 1] = ilogbf(x[i]);
}""", lambda r: [_mix(r, -1000, 1000, [x for x, _, _ in FMOD_TRIPLES]),
                 _mix(r, -10, 10, [y for _, y, _ in FMOD_TRIPLES]),
                 np.concatenate([ints(r, M - len(FMOD_TRIPLES), low=-20, high=20),
                                 np.array([k for _, _, k in FMOD_TRIPLES], np.int32)]),
                 np.zeros(8 * M, np.float32), np.zeros(2 * M, np.int32), np.int32(M)],
         lambda x, y, k, out, e, n: _fmod_frexp(x, y, k), grid=(blocks(M, 128),)),

    Case("minmax_sign_f32", r"""
extern "C" __global__ void minmax_sign_f32(const float* x, const float* y, float* out, int n) {
    int i = IDX;
    if (i >= n) return;
    float* o = out + 6 * i;
    o[0] = fminf(x[i], y[i]);
    o[1] = fmaxf(x[i], y[i]);
    o[2] = fdimf(x[i], y[i]);
    o[3] = fabsf(x[i]);
    o[4] = copysignf(x[i], y[i]);
    o[5] = __saturatef(x[i]);
}""", lambda r: [_mix(r, -2, 2, [x for x, _ in MINMAX_PAIRS]), _mix(r, -2, 2, [y for _, y in MINMAX_PAIRS]),
                 np.zeros(6 * M, np.float32), np.int32(M)],
         lambda x, y, out, n: {2: _minmax_sign(x, y)}, grid=(blocks(M, 128),)),

    Case("classify_and_bits", r"""
extern "C" __global__ void classify_and_bits(const float* x, const double* d, int* flags, int* bits,
                                             unsigned int* ubits, float* back, int n) {
    int i = IDX;
    if (i >= n) return;
    float v = x[i];
    double w = d[i];
    int* f = flags + 8 * i;
    f[0] = isnan(v) ? 1 : 0;
    f[1] = isinf(v) ? 1 : 0;
    f[2] = isfinite(v) ? 1 : 0;
    f[3] = signbit(v) ? 1 : 0;
    f[4] = isnan(w) ? 1 : 0;
    f[5] = isinf(w) ? 1 : 0;
    f[6] = isfinite(w) ? 1 : 0;
    f[7] = signbit(w) ? 1 : 0;
    bits[i] = __float_as_int(v);
    ubits[i] = __float_as_uint(v);
    back[2 * i + 0] = __int_as_float(__float_as_int(v) ^ (int)0x80000000);  // the sign bit flipped
    back[2 * i + 1] = __uint_as_float(__float_as_uint(v) + 1u);            // one ulp away from zero
}""", lambda r: _classify_inputs(r), lambda x, d, f, b, u, back, n: _classify(x, d), grid=(blocks(M, 128),)),

    Case("fast_intrinsics_f32", r"""
extern "C" __global__ void fast_intrinsics_f32(const float* e, const float* h, const float* p, const float* t,
                                               const float* q, const float* d, float* out, int n) {
    int i = IDX;
    if (i >= n) return;
    float* o = out + 9 * i;
    o[0] = __expf(e[i]);
    o[1] = __exp10f(h[i]);
    o[2] = __logf(p[i]);
    o[3] = __log2f(p[i]);
    o[4] = __log10f(p[i]);
    o[5] = __sinf(t[i]);
    o[6] = __cosf(t[i]);
    o[7] = __powf(p[i], q[i]);
    o[8] = __fdividef(e[i], d[i]);
}""", lambda r: [_mix(r, -5, 5), _mix(r, -2, 2), _mix(r, -0.30103, 0.30103, log=True), _mix(r, -np.pi, np.pi),
                 _mix(r, -2, 2), _mix(r, -0.30103, 3, log=True, signed=True), np.zeros(9 * M, np.float32), np.int32(M)],
         lambda e, h, p, t, q, d, out, n: {6: _on64(lambda e, h, p, t, q, d: [
             np.exp(e), 10.0**h, np.log(p), np.log2(p), np.log10(p), np.sin(t), np.cos(t), p**q, e / d],
             e, h, p, t, q, d)},
         # __expf: 2 + floor(1.173|x|) ulp (7 on [-5, 5]), __exp10f: 2 + floor(2.97|x|) (7 on [-2, 2]),
         # __logf: 2^-21.41 absolute on [0.5, 2], __sinf/__cosf: 2^-21.41/2^-21.19 absolute on [-pi, pi],
         # __fdividef: 2 ulp, __powf: exp2f(y * __log2f(x))
         grid=(blocks(M, 128),), rtol=8 * ULP32, atol=5e-7),

    Case("double_elementary", r"""
extern "C" __global__ void double_elementary(const double* x, const double* p, const double* l, const double* b,
                                             const double* e, double* out, int n) {
    int i = IDX;
    if (i >= n) return;
    double s, c;
    sincos(x[i], &s, &c);
    double* o = out + 16 * i;
    o[0] = sin(x[i]);
    o[1] = cos(x[i]);
    o[2] = tan(x[i]);
    o[3] = s;
    o[4] = c;
    o[5] = exp(x[i]);
    o[6] = exp2(x[i]);
    o[7] = exp10(x[i]);
    o[8] = expm1(x[i]);
    o[9] = log(p[i]);
    o[10] = log2(p[i]);
    o[11] = log10(p[i]);
    o[12] = log1p(l[i]);
    o[13] = pow(b[i], e[i]);
    o[14] = sqrt(p[i]);
    o[15] = rsqrt(p[i]);
}""", lambda r: [_mix(r, -20, 20, [0, INF, -INF, NAN, 1e-300, 700, 710, 1e10], dtype=np.float64),
                 _mix(r, -300, 300, [1, 0, -1, INF, NAN, 5e-324, 2, 1024], dtype=np.float64, log=True),
                 _mix(r, -0.99, 10, [0, 1e-10, -1, -2, INF, 1e300, -0.5, NAN], dtype=np.float64),
                 _mix(r, 0.1, 10, [b for b, _ in DPOW_PAIRS], dtype=np.float64),
                 _mix(r, -20, 20, [e for _, e in DPOW_PAIRS], dtype=np.float64),
                 np.zeros(16 * M), np.int32(M)],
         lambda x, p, lp, b, e, out, n: {5: _on64(lambda x, p, lp, b, e: [
             np.sin(x), np.cos(x), np.tan(x), np.sin(x), np.cos(x), np.exp(x), np.exp2(x), 10.0**x, np.expm1(x),
             np.log(p), np.log2(p), np.log10(p), np.log1p(lp), np.power(b, e), np.sqrt(p), 1 / np.sqrt(p)],
             x, p, lp, b, e, dtype=np.float64)},
         grid=(blocks(M, 128),), rtol=4 * ULP64),  # sin, cos, tan, pow: 2 ulp; the others 1

    Case("double_special", r"""
extern "C" __global__ void double_special(const double* x, const double* y, const double* u, const double* g,
                                          double* out, int n) {
    int i = IDX;
    if (i >= n) return;
    double* o = out + 14 * i;
    o[0] = erf(x[i]);
    o[1] = erfc(x[i]);
    o[2] = lgamma(g[i]);
    o[3] = tgamma(g[i]);
    o[4] = asin(u[i]);
    o[5] = acos(u[i]);
    o[6] = atan(x[i]);
    o[7] = atan2(y[i], x[i]);
    o[8] = sinh(x[i]);
    o[9] = cosh(x[i]);
    o[10] = tanh(x[i]);
    o[11] = asinh(x[i]);
    o[12] = cbrt(x[i]);
    o[13] = hypot(x[i], y[i]);
}""", lambda r: [_mix(r, -5, 5, [0, INF, -INF, NAN, 1e-300, -27], dtype=np.float64),
                 _mix(r, -5, 5, [-1, 1, -INF, 2, 3, 1e300], dtype=np.float64),
                 _mix(r, -1, 1, [1, -1, 0, 0.5, 1e-300, 1.5], dtype=np.float64),
                 _mix(r, 0.1, 30, [1, 2, 0.5, INF, 100, 171], dtype=np.float64),
                 np.zeros(14 * M), np.int32(M)],
         lambda x, y, u, g, out, n: {4: _double_special(x, y, u, g)}, grid=(blocks(M, 128),),
         rtol=2e-14, atol=1e-300),  # against Python's math module (lgamma, gamma: its own, ~10 ulp)

    Case("double_exact", r"""
extern "C" __global__ void double_exact(const double* a, const double* b, const double* c, const int* k,
                                        double* out, int* exps, int n) {
    int i = IDX;
    if (i >= n) return;
    double whole;
    int e;
    double* o = out + 19 * i;
    o[0] = a[i] / b[i];
    o[1] = sqrt(fabs(a[i]));
    o[2] = fma(a[i], b[i], c[i]);
    o[3] = __dadd_rn(__dmul_rn(a[i], b[i]), c[i]);
    o[4] = floor(a[i]);
    o[5] = ceil(a[i]);
    o[6] = round(a[i]);
    o[7] = trunc(a[i]);
    o[8] = rint(a[i]);
    o[9] = fmod(a[i], b[i]);
    o[10] = remainder(a[i], b[i]);
    o[11] = fmin(a[i], b[i]);
    o[12] = fmax(a[i], b[i]);
    o[13] = fdim(a[i], b[i]);
    o[14] = copysign(a[i], b[i]);
    o[15] = ldexp(a[i], k[i]);
    o[16] = frexp(a[i], &e);
    o[17] = modf(a[i], &whole);
    o[18] = whole;
    exps[2 * i + 0] = e;
    exps[2 * i + 1] = ilogb(a[i]);
}""", lambda r: _double_exact_inputs(r), lambda a, b, c, k, out, exps, n: _double_exact(a, b, c, k),
         grid=(blocks(R, 128),)),

    Case("bit_count_intrinsics", r"""
extern "C" __global__ void bit_count_intrinsics(const unsigned int* u, const unsigned long long* w, int* counts,
                                                unsigned int* rev, unsigned long long* rev64, int n) {
    int i = IDX;
    if (i >= n) return;
    int* c = counts + 6 * i;
    c[0] = __popc(u[i]);
    c[1] = __clz((int)u[i]);
    c[2] = __ffs((int)u[i]);
    c[3] = __popcll(w[i]);
    c[4] = __clzll((long long)w[i]);
    c[5] = __ffsll((long long)w[i]);
    rev[i] = __brev(u[i]);
    rev64[i] = __brevll(w[i]);
}""", lambda r: [_bit_words(r, 32, np.uint32), _bit_words(r, 64, np.uint64), np.zeros(6 * M, np.int32),
                 np.zeros(M, np.uint32), np.zeros(M, np.uint64), np.int32(M)],
         lambda u, w, c, rev, rev64, n: _bit_counts(u, w), grid=(blocks(M, 128),)),

    Case("mul_hi_intrinsics", r"""
extern "C" __global__ void mul_hi_intrinsics(const int* a, const int* b, const unsigned int* ua,
                                             const unsigned int* ub, const long long* la, const long long* lb,
                                             int* out, unsigned int* uout, long long* lout,
                                             unsigned long long* ulout, int n) {
    int i = IDX;
    if (i >= n) return;
    out[4 * i + 0] = __mulhi(a[i], b[i]);
    out[4 * i + 1] = __mul24(a[i] >> 8, b[i] >> 8);  // 24-bit signed operands
    out[4 * i + 2] = __hadd(a[i], b[i]);
    out[4 * i + 3] = __rhadd(a[i], b[i]);
    uout[4 * i + 0] = __umulhi(ua[i], ub[i]);
    uout[4 * i + 1] = __umul24(ua[i] >> 8, ub[i] >> 8);
    uout[4 * i + 2] = __uhadd(ua[i], ub[i]);
    uout[4 * i + 3] = __urhadd(ua[i], ub[i]);
    lout[i] = __mul64hi(la[i], lb[i]);
    ulout[i] = __umul64hi((unsigned long long)la[i], (unsigned long long)lb[i]);
}""", lambda r: _mul_hi_inputs(r), lambda *a: _mul_hi(*a[:6]), grid=(blocks(M, 128),)),

    Case("umul24_high_bits", r"""
extern "C" __global__ void umul24_high_bits(const unsigned int* x, const unsigned int* y, unsigned int* out, int n) {
    int i = IDX;
    if (i < n) out[i] = __umul24(x[i], y[i]);  // the high 8 bits of x and y are ignored
}""", lambda r: [r.integers(0, 2**32, M, dtype=np.uint32), r.integers(0, 2**32, M, dtype=np.uint32),
                 np.zeros(M, np.uint32), np.int32(M)],
         lambda x, y, out, n: {2: ((x.astype(np.uint64) & 0xFFFFFF) * (y.astype(np.uint64) & 0xFFFFFF)
                                   & 0xFFFFFFFF).astype(np.uint32)}, grid=(blocks(M, 128),)),

    Case("byte_perm_funnel_sad", r"""
extern "C" __global__ void byte_perm_funnel_sad(const unsigned int* x, const unsigned int* y, const unsigned int* s,
                                               const int* a, const int* b, unsigned int* out, int n) {
    int i = IDX;
    if (i >= n) return;
    unsigned int shift = s[i] & 63;  // only the low 5 bits count, or the amount is clamped to 32
    unsigned int* o = out + 7 * i;
    o[0] = __byte_perm(x[i], y[i], s[i]);
    o[1] = __funnelshift_l(x[i], y[i], shift);
    o[2] = __funnelshift_lc(x[i], y[i], shift);
    o[3] = __funnelshift_r(x[i], y[i], shift);
    o[4] = __funnelshift_rc(x[i], y[i], shift);
    o[5] = __sad(a[i], b[i], s[i] & 0xffff);
    o[6] = __usad(x[i], y[i], s[i]);
}""", lambda r: [r.integers(0, 2**32, M, dtype=np.uint32), r.integers(0, 2**32, M, dtype=np.uint32),
                 r.integers(0, 2**32, M, dtype=np.uint32), ints(r, M, low=-10**9, high=10**9),
                 ints(r, M, low=-10**9, high=10**9), np.zeros(7 * M, np.uint32), np.int32(M)],
         lambda x, y, s, a, b, out, n: {5: _byte_perm_funnel_sad(x, y, s, a, b)}, grid=(blocks(M, 128),)),

    Case("rounding_conversions", r"""
extern "C" __global__ void rounding_conversions(const float* x, const int* k, const long long* big, const double* d,
                                                int* iout, unsigned int* uout, long long* lout, float* fout,
                                                double* dout, int n) {
    int i = IDX;
    if (i >= n) return;
    iout[4 * i + 0] = __float2int_rn(x[i]);
    iout[4 * i + 1] = __float2int_rz(x[i]);
    iout[4 * i + 2] = __float2int_rd(x[i]);
    iout[4 * i + 3] = __float2int_ru(x[i]);
    uout[2 * i + 0] = __float2uint_rn(fabsf(x[i]));
    uout[2 * i + 1] = __float2uint_rd(fabsf(x[i]));
    lout[2 * i + 0] = __float2ll_rn(x[i]);
    lout[2 * i + 1] = __float2ll_ru(x[i]);
    float* f = fout + 11 * i;
    f[0] = __int2float_rn(k[i]);
    f[1] = __int2float_rz(k[i]);
    f[2] = __int2float_rd(k[i]);
    f[3] = __int2float_ru(k[i]);
    f[4] = __uint2float_rn((unsigned int)k[i]);
    f[5] = __ll2float_rn(big[i]);
    f[6] = __ll2float_rz(big[i]);
    f[7] = __double2float_rn(d[i]);
    f[8] = __double2float_rz(d[i]);
    f[9] = __double2float_rd(d[i]);
    f[10] = __double2float_ru(d[i]);
    dout[2 * i + 0] = __ll2double_rn(big[i]);
    dout[2 * i + 1] = __ll2double_rz(big[i]);
}""", lambda r: _conversion_inputs(r), lambda x, k, big, d, *out: _conversions(x, k, big, d),
         grid=(blocks(R, 128),)),

    Case("float2int_saturation", r"""
extern "C" __global__ void float2int_saturation(const float* x, const float* xl, const double* d, int* iout,
                                                unsigned int* uout, long long* lout, int n) {
    int i = IDX;
    if (i >= n) return;
    iout[2 * i + 0] = __float2int_rn(x[i]);
    iout[2 * i + 1] = __double2int_rz(d[i]);
    uout[i] = __float2uint_rn(x[i]);
    lout[i] = __float2ll_rz(xl[i]);
}""", lambda r: [np.array(SATURATE_FLOATS, np.float32), np.array(SATURATE_FLOATS, np.float32)[SATURATE_NO_NAN],
                 np.array(SATURATE_DOUBLES), np.zeros(32, np.int32), np.zeros(16, np.uint32),
                 np.zeros(16, np.int64), np.int32(16)],
         lambda x, xl, d, i, u, ll, n: _saturation(x, xl, d), block=(32,)),

    Case("double_bits", r"""
extern "C" __global__ void double_bits(const double* d, const long long* bits, long long* lout, int* halves,
                                       double* dout, int n) {
    int i = IDX;
    if (i >= n) return;
    lout[i] = __double_as_longlong(d[i]);
    halves[2 * i + 0] = __double2hiint(d[i]);
    halves[2 * i + 1] = __double2loint(d[i]);
    dout[2 * i + 0] = __longlong_as_double(bits[i]);
    dout[2 * i + 1] = __hiloint2double(__double2loint(d[i]), __double2hiint(d[i]));  // the halves swapped
}""", lambda r: [_mix(r, -1e6, 1e6, [0, -0.0, INF, -INF, NAN, 5e-324, -1.5, 1e308], dtype=np.float64),
                 r.integers(-2**63, 2**63 - 1, M, dtype=np.int64), np.zeros(M, np.int64), np.zeros(2 * M, np.int32),
                 np.zeros(2 * M), np.int32(M)],
         lambda d, bits, raw, halves, dout, n: _double_bits(d, bits), grid=(blocks(M, 128),)),

    Case("minmax_abs_overloads", r"""
extern "C" __global__ void minmax_abs_overloads(const int* a, const int* b, const unsigned int* ua,
                                                const unsigned int* ub, const long long* la, const long long* lb,
                                                const float* fa, const float* fb, const double* da,
                                                const double* db, int* iout, unsigned int* uout, long long* lout,
                                                float* fout, double* dout, int n) {
    int i = IDX;
    if (i >= n) return;
    iout[3 * i + 0] = min(a[i], b[i]);
    iout[3 * i + 1] = max(a[i], b[i]);
    iout[3 * i + 2] = abs(a[i]);
    uout[4 * i + 0] = min(ua[i], ub[i]);
    uout[4 * i + 1] = max(ua[i], ub[i]);
    uout[4 * i + 2] = min(a[i], ub[i]);  // int and unsigned: compared as unsigned
    uout[4 * i + 3] = max(ua[i], b[i]);
    lout[4 * i + 0] = min(la[i], lb[i]);
    lout[4 * i + 1] = max(la[i], lb[i]);
    lout[4 * i + 2] = llabs(la[i]);
    lout[4 * i + 3] = abs(lb[i]);
    fout[3 * i + 0] = min(fa[i], fb[i]);
    fout[3 * i + 1] = max(fa[i], fb[i]);
    fout[3 * i + 2] = fabsf(fa[i]);
    dout[3 * i + 0] = min(da[i], db[i]);
    dout[3 * i + 1] = max(da[i], db[i]);
    dout[3 * i + 2] = max(fa[i], db[i]);  // float and double: a double
}""", lambda r: _overload_inputs(r), lambda *a: _overloads(*a[:10]), grid=(blocks(M, 128),)),

    Case("black_scholes", r"""
__device__ inline float bs_normal_cdf(float d) {
    return 0.5f * erfcf(-d * SQRT_HALF_F);
}

extern "C" __global__ void black_scholes(float* call, float* put, const float* price, const float* strike,
                                         const float* years, float riskfree, float volatility, int n) {
    for (int i = IDX; i < n; i += blockDim.x * gridDim.x) {
        float s = price[i], x = strike[i], t = years[i];
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / x) + (riskfree + 0.5f * volatility * volatility) * t) / (volatility * sqrt_t);
        float d2 = d1 - volatility * sqrt_t;
        float discounted = x * expf(-riskfree * t);
        call[i] = s * bs_normal_cdf(d1) - discounted * bs_normal_cdf(d2);
        put[i] = discounted * bs_normal_cdf(-d2) - s * bs_normal_cdf(-d1);
    }
}""", lambda r: [np.zeros(2000, np.float32), np.zeros(2000, np.float32), _mix(r, 5, 30, total=2000),
                 _mix(r, 1, 100, total=2000), _mix(r, 0.25, 10, total=2000), np.float32(0.02), np.float32(0.30),
                 np.int32(2000)],
         lambda call, put, s, x, t, rf, v, n: _black_scholes(s, x, t, float(rf), float(v)), grid=(4,),
         rtol=1e-5, atol=5e-4),

    Case("activations_f32", r"""
extern "C" __global__ void activations_f32(const float* x, float* out, int n) {
    int i = IDX;
    if (i >= n) return;
    float v = x[i];
    float* o = out + 5 * i;
    o[0] = 1.0f / (1.0f + expf(-v));                                                   // sigmoid
    o[1] = v > 20.0f ? v : log1pf(expf(v));                                             // softplus
    o[2] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));     // gelu, tanh form
    o[3] = 0.5f * v * (1.0f + erff(v * SQRT_HALF_F));                                   // gelu
    o[4] = v / (1.0f + __expf(-v));                                                     // silu
}""", lambda r: [_mix(r, -8, 8, [0, -0.0, 25, -25, 1e-6]), np.zeros(5 * M, np.float32), np.int32(M)],
         lambda x, out, n: {1: _activations(x)}, grid=(blocks(M, 128),), rtol=1e-5, atol=1e-6),

    Case("log_softmax_rows_f64", r"""
extern "C" __global__ void log_softmax_rows_f64(const double* x, double* lse, double* out, int rows, int cols) {
    int r = IDX;
    if (r >= rows) return;
    const double* row = x + (long long)r * cols;
    double m = row[0];
    for (int j = 1; j < cols; ++j) m = fmax(m, row[j]);
    double s = 0.0;
    for (int j = 0; j < cols; ++j) s += exp(row[j] - m);
    double total = m + log(s);
    lse[r] = total;
    for (int j = 0; j < cols; ++j) out[(long long)r * cols + j] = row[j] - total;
}""", lambda r: [r.normal(0, 30, (100, 37)), np.zeros(100), np.zeros((100, 37)), np.int32(100), np.int32(37)],
         lambda x, lse, out, rows, cols: _log_softmax(x), rtol=1e-13, atol=1e-12),
]

ATAN2_PAIRS = [(0, 1), (-0.0, 1), (0, -1), (-0.0, -1), (1, 0), (-1, 0), (0, 0), (-0.0, -0.0), (INF, INF),
               (-INF, -INF), (1, INF), (1, -INF), (INF, 1), (NAN, 1), (1e-30, 1e30)]
POW_PAIRS = [(0.5, 0), (NAN, 0), (1, NAN), (-1, INF), (-1, -INF), (-2, 3), (-2, 0.5), (0, -1), (-0.0, -3), (-0.0, 3),
             (2, INF), (0.5, INF), (2, -INF), (INF, -1), (-INF, 3), (4, 0.5), (10, 10), (-1.5, -2)]
HYPOT_PAIRS = [(3, 4), (INF, NAN), (NAN, INF), (1e30, 1e30), (1e-30, 1e-30), (0, -0.0), (-5, 0), (NAN, 1), (-INF, 1),
               (3e38, 3e38), (1e-20, 1e-20), (-6, -8)]
# x (finite, not zero), y, k: fmodf and remainderf of x by y, ldexpf and scalbnf of x by 2^k
FMOD_TRIPLES = [(1e-40, 0.7, 10), (-1e-40, 0.3, 0), (3e38, 0.7, 1), (-1.5, 0, -150), (1, INF, -149), (0.75, -INF, -149),
                (-1e-30, 1e-31, 0), (FLT_MIN, 3e-39, -1), (7.5, 2.5, 100), (-7.5, 5, -130), (5.5, -2, 3)]
MINMAX_PAIRS = [(NAN, 1), (1, NAN), (NAN, NAN), (-INF, 3), (INF, -INF), (-0.0, 0), (5, 5), (INF, INF), (-3, -0.0),
                (0.5, -INF), (2, NAN), (-1e-40, 1e-40), (1.5, -2.5), (-0.25, 0.75)]
DPOW_PAIRS = [(2, 0.5), (-2, 3), (-2, 0.5), (0, -1), (1, NAN), (NAN, 0), (10, 300), (10, 400)]
SATURATE_FLOATS = [3e9, -3e9, INF, -INF, NAN, 2147483520.0, -2147483648.0, 5e9, -5, 1e19, -1e19, 4294967040.0,
                   0.4, -0.6, 1e30, -1e30]
SATURATE_DOUBLES = [1e10, -1e10, INF, -INF, 4e9, 2147483647.9, -2147483648.9, 3e9, -3e9, 0.5, 1e300, -1e300,
                    2147483648.0, -2147483649.0, -0.99, 123.75]
# Out of range, a conversion to an integer clamps (PTX's cvt). NaN becomes 0 from a float to a 32-bit integer,
# but GPUs give other values (INT_MIN, LLONG_MIN) from a double or to 64 bits: those conversions take no NaN.
SATURATE_NO_NAN = [0, 1, 2, 3, 0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]  # SATURATE_FLOATS but its NaN


def _mix(r, low, high, specials=(), total=M, dtype=np.float32, log=False, signed=False):
    """total values: random ones in [low, high) (10^low to 10^high with log), then the special ones."""
    k = total - len(specials)
    v = 10.0 ** r.uniform(low, high, k) if log else r.uniform(low, high, k)
    if signed:
        v = v * r.choice([-1.0, 1.0], k)
    return np.concatenate([v, np.asarray(specials, np.float64)]).astype(dtype)


def _on64(f, *xs, dtype=np.float32):
    """f's list of columns, computed in float64 from the arguments, interleaved as the kernels write them."""
    with np.errstate(all="ignore"):
        cols = f(*[x.astype(np.float64) for x in xs])
        return np.stack([np.asarray(c, np.float64) for c in cols], axis=1).astype(dtype).ravel()


def _sinpi(v):
    r = np.fmod(v, 2.0)  # exact
    out = np.sin(np.pi * r)
    out[r == np.round(r)] = 0.0
    return out


def _trig(x):
    return _on64(lambda v: [np.sin(v), np.cos(v), np.tan(v), np.sin(v), np.cos(v), _sinpi(v), _sinpi(v + 0.5)], x)


def _inverse_trig(u, w, y, x):
    return _on64(lambda u, w, y, x: [np.arcsin(u), np.arccos(u), np.arctan(w), np.arctan2(y, x)], u, w, y, x)


def _math(f, x):
    """A math-module function element-wise (its domain errors as NaN)."""
    def one(v):
        try:
            return f(v)
        except ValueError:
            return NAN
    return np.array([one(v) for v in x.astype(np.float64).tolist()])


# zeta(2) ... zeta(10), for lgamma's Taylor series about 1
_ZETA = [1.6449340668482264, 1.2020569031595942, 1.0823232337111382, 1.0369277551433699, 1.0173430619844491,
         1.0083492773819228, 1.0040773561979443, 1.0020083928260822, 1.0009945751278181]


def _lgamma1p(z):
    """lgamma(1 + z) for |z| <= 1/4: -euler z + sum zeta(k) (-z)^k / k (math.lgamma loses digits about 1 and 2)."""
    total = -0.5772156649015329 * z
    for k in range(2, 40):
        zeta = _ZETA[k - 2] if k <= 10 else sum(n ** -k for n in range(1, 30))
        total += zeta * (-z) ** k / k
    return total


def _lgamma(v):
    if v <= 0 and v == math.floor(v):
        return INF  # the poles
    if abs(v - 1) <= 0.25:
        return _lgamma1p(v - 1)
    if abs(v - 2) <= 0.25:
        return _lgamma1p(v - 2) + math.log1p(v - 2)
    return math.lgamma(v)


def _tgamma(v):
    if v == 0:
        return math.copysign(INF, v)
    try:
        return math.gamma(v)
    except OverflowError:
        return INF


def _erf_gamma(x, g):
    cols = [_math(math.erf, x), _math(math.erfc, x), _math(_lgamma, g), _math(_tgamma, g)]
    with np.errstate(over="ignore"):
        return np.stack(cols, axis=1).astype(np.float32).ravel()


def _rounding(x):
    v = x.astype(np.float64)
    with np.errstate(all="ignore"):
        away = np.sign(v) * np.floor(np.abs(v) + 0.5)  # exact in float64 for float32 values
        away[np.isinf(v)] = v[np.isinf(v)]
        cols = [np.floor(v), np.ceil(v), away, np.trunc(v), np.rint(v), np.rint(v)]
    return np.stack(cols, axis=1).astype(np.float32).ravel()


def _remainder(x, y):
    out = []
    for a, b in zip(x.tolist(), y.tolist(), strict=True):
        try:
            out.append(math.remainder(a, b))
        except ValueError:
            out.append(NAN)
    return np.array(out)


def _fmod_frexp(x, y, k):
    v, w = x.astype(np.float64), y.astype(np.float64)
    mant, e = np.frexp(v)  # exact, denormals too
    frac, whole = np.modf(v)
    scaled = np.ldexp(v, k)  # exact in float64, then rounded once to float32
    with np.errstate(all="ignore"):
        cols = [np.fmod(v, w), _remainder(v, w), frac, whole, mant, scaled, scaled, (e - 1).astype(np.float64)]
        out = np.stack(cols, axis=1).astype(np.float32).ravel()
    return {3: out, 4: np.stack([e, e - 1], axis=1).astype(np.int32).ravel()}


def _minmax_sign(x, y):
    with np.errstate(all="ignore"):
        fdim = np.where(np.isnan(x) | np.isnan(y), np.float32(NAN), np.where(x > y, x - y, np.float32(0)))
        saturated = np.where(np.isnan(x), np.float32(0), np.clip(x, 0, 1))
        cols = [np.fmin(x, y), np.fmax(x, y), fdim, np.abs(x), np.copysign(x, y), saturated]
    return np.stack(cols, axis=1).astype(np.float32).ravel()


def _classify_inputs(r):
    special = np.array([0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                        0x7F800001, 0x0001158E, 0x8001158E, 0x7F7FFFFF, 0x00800000, 0x00000001], np.uint32)
    x = np.concatenate([r.uniform(-1e3, 1e3, M - len(special)).astype(np.float32), special.view(np.float32)])
    dspecial = np.array([0, 0x8000000000000000, 0x3FF0000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
                         0x7FF8000000000000, 0xFFF8000000000000, 0x0000000000000001, 0x8000000000000001,
                         0x7FEFFFFFFFFFFFFF, 0x0010000000000000, 0x000FFFFFFFFFFFFF, 0x3810000000000000,
                         0xC7EFFFFFE0000000], np.uint64)
    d = np.concatenate([r.uniform(-1e300, 1e300, M - len(dspecial)), dspecial.view(np.float64)])
    return [x, d, np.zeros(8 * M, np.int32), np.zeros(M, np.int32), np.zeros(M, np.uint32),
            np.zeros(2 * M, np.float32), np.int32(M)]


def _classify(x, d):
    flags = np.stack([np.isnan(x), np.isinf(x), np.isfinite(x), np.signbit(x),
                      np.isnan(d), np.isinf(d), np.isfinite(d), np.signbit(d)], axis=1).astype(np.int32).ravel()
    u = x.view(np.uint32)
    back = np.stack([(u ^ np.uint32(0x80000000)).view(np.float32), (u + np.uint32(1)).view(np.float32)], axis=1)
    return {2: flags, 3: x.view(np.int32), 4: u, 5: back.ravel()}


def _fma_inputs(r, n):
    a = r.uniform(-4, 4, n).astype(np.float32)
    b = r.uniform(-4, 4, n).astype(np.float32)
    c = r.uniform(-4, 4, n).astype(np.float32)
    c[: n // 3] = -(a[: n // 3] * b[: n // 3])  # the rounded product cancelled: an fma keeps its rounding error
    c[n // 3: n // 2] = -(a[n // 3: n // 2] * b[n // 3: n // 2]) * np.float32(1 + 2**-20)
    return [a, b, c]


def _round(q, mode="rn", p=24, emin=-126, emax=127):
    """The rational q rounded to the binary format of p-bit significands (float by default), as a float64."""
    if q == 0:
        return 0.0
    sign, a = (-1, -q) if q < 0 else (1, q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    quantum = Fraction(2) ** (max(e, emin) - p + 1)
    m = a / quantum
    whole = m.numerator // m.denominator
    rest = m - whole
    if rest and (mode == "ru" and sign > 0 or mode == "rd" and sign < 0
                 or mode == "rn" and (rest > Fraction(1, 2) or rest == Fraction(1, 2) and whole % 2)):
        whole += 1
    v = whole * quantum
    if v >= Fraction(2) ** (emax + 1):
        away = mode == "rn" or mode == "ru" and sign > 0 or mode == "rd" and sign < 0
        return sign * (INF if away else float((2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax))
    return sign * float(v)


def _round64(q, mode):
    return _round(q, mode, p=53, emin=-1022, emax=1023)


def _sqrt_q(q, k=400):
    """sqrt(q), exact when it is rational, else a rational strictly between it and any float or midpoint."""
    scaled = q.numerator * 4**k
    root = math.isqrt(scaled // q.denominator)
    if root * root * q.denominator == scaled:
        return Fraction(root, 2**k)
    return Fraction(2 * root + 1, 2 ** (k + 1))


def _correctly_rounded(x, y, a, b, c):
    with np.errstate(all="ignore"):
        q, rcp, root = x / y, np.float32(1) / y, np.sqrt(np.abs(x))
        fma = np.array([_round(Fraction(float(i)) * Fraction(float(j)) + Fraction(float(k)))
                        for i, j, k in zip(a, b, c, strict=True)], np.float32)
        cols = [q, rcp, root, q, rcp, root, fma, fma, a * b + c, c - a * b]  # NumPy neither contracts nor fuses
    return np.stack(cols, axis=1).astype(np.float32).ravel()


def _directed(x, y):
    rows = []
    for a, b in zip(x.tolist(), y.tolist(), strict=True):
        qa, qb = Fraction(a), Fraction(b)
        row = []
        for q in (qa + qb, qa * qb, qa / qb):
            row += [_round(q, "rz"), _round(q, "rd"), _round(q, "ru")]
        root = _sqrt_q(abs(qa))
        rows.append(row + [_round(root, "rz"), _round(root, "rd"), _round(root, "ru")])
    return np.array(rows, np.float32).ravel()


def _double_special(x, y, u, g):
    with np.errstate(all="ignore"):
        cols = [_math(math.erf, x), _math(math.erfc, x), _math(_lgamma, g), _math(_tgamma, g), np.arcsin(u),
                np.arccos(u), np.arctan(x), np.arctan2(y, x), np.sinh(x), np.cosh(x), np.tanh(x), np.arcsinh(x),
                np.cbrt(x), np.hypot(x, y)]
    return np.stack(cols, axis=1).ravel()


def _double_exact_inputs(r):
    a = _mix(r, -100, 100, [2.5, -2.5, 0.5, -0.5, 4503599627370495.5, 1e300, 5e-324, -0.49999999999999994, 1e-310,
                            7.0, -7.5, 3.0], total=R, dtype=np.float64)
    b = _mix(r, -10, 10, [0, INF, 3, 0.1, -INF, 1e-300, 2, 1e300, 3, 2.5, 5, NAN], total=R, dtype=np.float64)
    c = r.uniform(-100, 100, R)
    c[: R // 3] = -(a[: R // 3] * b[: R // 3])
    k = np.concatenate([ints(r, R - 12, low=-60, high=60), np.array([10, -1100, 0, 2000, 3, -5, 1, 0, 60, 1, 0, 1],
                                                                    np.int32)])
    return [a, b, c, k, np.zeros(19 * R), np.zeros(2 * R, np.int32), np.int32(R)]


def _double_exact(a, b, c, k):
    with np.errstate(all="ignore"):
        t = np.trunc(a)
        away = np.where(np.abs(a - t) >= 0.5, t + np.sign(a), t)  # round: halves away from zero
        # fma exactly; with an infinite or NaN operand, what a * b + c gives
        fma = [_round64(Fraction(i) * Fraction(j) + Fraction(s), "rn") if math.isfinite(i * j + s) else i * j + s
               for i, j, s in zip(a.tolist(), b.tolist(), c.tolist(), strict=True)]
        fdim = np.where(np.isnan(a) | np.isnan(b), NAN, np.where(a > b, a - b, 0.0))
        mant, e = np.frexp(a)
        frac, whole = np.modf(a)
        cols = [a / b, np.sqrt(np.abs(a)), fma, a * b + c, np.floor(a), np.ceil(a), away, np.trunc(a), np.rint(a),
                np.fmod(a, b), _remainder(a, b), np.fmin(a, b), np.fmax(a, b), fdim, np.copysign(a, b),
                np.ldexp(a, k), mant, frac, whole]
    return {4: np.stack(cols, axis=1).ravel(), 5: np.stack([e, e - 1], axis=1).astype(np.int32).ravel()}


def _bit_words(r, bits, dtype):
    top = 2**bits
    words = r.integers(0, top, M, dtype=dtype) >> r.integers(0, bits, M).astype(dtype)  # every leading-zero count
    words[:6] = [0, 1, top - 1, top // 2, top // 2 - 1, 1 << (bits // 2)]
    return words


def _bit_counts(u, w):
    def count(x, bits):
        return [bin(x).count("1"), bits - x.bit_length(), (x & -x).bit_length()]

    rows = [count(a, 32) + count(b, 64) for a, b in zip(u.tolist(), w.tolist(), strict=True)]
    rev = [int(f"{a:032b}"[::-1], 2) for a in u.tolist()]
    rev64 = [int(f"{b:064b}"[::-1], 2) for b in w.tolist()]
    return {2: np.array(rows, np.int32).ravel(), 3: np.array(rev, np.uint32), 4: np.array(rev64, np.uint64)}


def _mul_hi_inputs(r):
    a, b = ints(r, M, low=-2**31, high=2**31), ints(r, M, low=-2**31, high=2**31)
    a[:4], b[:4] = [-2**31, 2**31 - 1, -2**31, 2**31 - 1], [-2**31, 2**31 - 1, 2**31 - 1, -1]
    ua, ub = r.integers(0, 2**32, M, dtype=np.uint32), r.integers(0, 2**32, M, dtype=np.uint32)
    ua[:2], ub[:2] = 2**32 - 1, 2**32 - 1
    la, lb = r.integers(-2**63, 2**63 - 1, M, dtype=np.int64), r.integers(-2**63, 2**63 - 1, M, dtype=np.int64)
    la[:2], lb[:2] = [-2**63, 2**63 - 1], [-2**63, -1]
    return [a, b, ua, ub, la, lb, np.zeros(4 * M, np.int32), np.zeros(4 * M, np.uint32), np.zeros(M, np.int64),
            np.zeros(M, np.uint64), np.int32(M)]


def _wrap(v, bits, signed):
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def _mul_hi(a, b, ua, ub, la, lb):
    out, uout, lout, ulout = [], [], [], []
    for x, y in zip(a.tolist(), b.tolist(), strict=True):
        out += [(x * y) >> 32, _wrap((x >> 8) * (y >> 8), 32, True), (x + y) >> 1, (x + y + 1) >> 1]
    for x, y in zip(ua.tolist(), ub.tolist(), strict=True):
        uout += [(x * y) >> 32, ((x >> 8) * (y >> 8)) & 0xFFFFFFFF, (x + y) >> 1, (x + y + 1) >> 1]
    for x, y in zip(la.tolist(), lb.tolist(), strict=True):
        lout.append((x * y) >> 64)
        ulout.append(((x % 2**64) * (y % 2**64)) >> 64)
    return {6: np.array(out, np.int32), 7: np.array(uout, np.uint32), 8: np.array(lout, np.int64),
            9: np.array(ulout, np.uint64)}


def _byte_perm_funnel_sad(x, y, s, a, b):
    rows = []
    for xi, yi, si, ai, bi in zip(x.tolist(), y.tolist(), s.tolist(), a.tolist(), b.tolist(), strict=True):
        pool = (yi << 32) | xi  # bytes 0-3 from x, 4-7 from y
        perm = sum(((pool >> (8 * ((si >> (4 * k)) & 7))) & 0xFF) << (8 * k) for k in range(4))
        shift, wide = si & 63, (yi << 32) | xi
        rows.append([perm, ((wide << (shift & 31)) >> 32) & 0xFFFFFFFF, ((wide << min(shift, 32)) >> 32) & 0xFFFFFFFF,
                     (wide >> (shift & 31)) & 0xFFFFFFFF, (wide >> min(shift, 32)) & 0xFFFFFFFF,
                     (abs(ai - bi) + (si & 0xFFFF)) & 0xFFFFFFFF, (abs(xi - yi) + si) & 0xFFFFFFFF])
    return np.array(rows, np.uint32).ravel()


def _conversion_inputs(r):
    x = _mix(r, -1000, 1000, [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0, -0.0, 1e-40, 1000.5, -999.5, 0.49999997], total=R)
    k = np.concatenate([ints(r, R - 12, low=-2**31, high=2**31),
                        np.array([16777217, -16777217, 2**31 - 1, -2**31, 33554435, 0, 1, -1, 16777219, 1 << 30,
                                  123456789, -987654321], np.int32)])
    big = r.integers(-2**62, 2**62, R, dtype=np.int64) >> r.integers(0, 62, R)
    big[:6] = [2**53 + 1, -(2**53 + 1), 2**63 - 1, -2**63, 0, 2**60 + 2**36 + 1]
    d = _mix(r, -30, 30, [1e-50, -1e-50, 3.5e38, -3.5e38, 1.0000000000000002, 0.1, 0, 3.4028235677973366e38, 1e-45,
                          -2.5e-45], total=R, dtype=np.float64, log=True, signed=True)
    return [x, k, big, d, np.zeros(4 * R, np.int32), np.zeros(2 * R, np.uint32), np.zeros(2 * R, np.int64),
            np.zeros(11 * R, np.float32), np.zeros(2 * R), np.int32(R)]


def _conversions(x, k, big, d):
    v = x.astype(np.float64)
    iout = np.stack([np.rint(v), np.trunc(v), np.floor(v), np.ceil(v)], axis=1).astype(np.int32).ravel()
    uout = np.stack([np.rint(np.abs(v)), np.floor(np.abs(v))], axis=1).astype(np.uint32).ravel()
    lout = np.stack([np.rint(v), np.ceil(v)], axis=1).astype(np.int64).ravel()
    fout = []
    for ki, bi, di in zip(k.tolist(), big.tolist(), d.tolist(), strict=True):
        qk, qb, qd = Fraction(ki), Fraction(bi), Fraction(di)
        fout += [_round(qk, m) for m in ("rn", "rz", "rd", "ru")] + [_round(Fraction(ki % 2**32))]
        fout += [_round(qb), _round(qb, "rz")] + [_round(qd, m) for m in ("rn", "rz", "rd", "ru")]
    dout = [_round64(Fraction(bi), m) for bi in big.tolist() for m in ("rn", "rz")]
    return {4: iout, 5: uout, 6: lout, 7: np.array(fout, np.float32), 8: np.array(dout)}


def _to_int(v, mode, lo, hi):
    """CUDA's float-to-integer conversion: rounded, clamped to the type's range, NaN to 0."""
    if math.isnan(v):
        return 0
    if math.isinf(v):
        return hi if v > 0 else lo
    n = {"rn": round, "rz": math.trunc}[mode](v)  # round() rounds halves to even
    return min(max(n, lo), hi)


def _saturation(x, xl, d):
    i32, u32, i64 = (-2**31, 2**31 - 1), (0, 2**32 - 1), (-2**63, 2**63 - 1)
    iout = [[_to_int(a, "rn", *i32), _to_int(b, "rz", *i32)] for a, b in zip(x.tolist(), d.tolist(), strict=True)]
    return {3: np.array(iout, np.int32).ravel(), 4: np.array([_to_int(a, "rn", *u32) for a in x.tolist()], np.uint32),
            5: np.array([_to_int(a, "rz", *i64) for a in xl.tolist()], np.int64)}


def _double_bits(d, bits):
    raw = d.view(np.int64)
    hi = (raw >> 32).astype(np.int32)
    lo = (raw & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    swapped = ((lo.astype(np.int64) << 32) | (hi.astype(np.int64) & 0xFFFFFFFF)).view(np.float64)
    return {2: raw, 3: np.stack([hi, lo], axis=1).ravel(),
            4: np.stack([bits.view(np.float64), swapped], axis=1).ravel()}


def _overload_inputs(r):
    a, b = ints(r, M, low=-2**31 + 1, high=2**31), ints(r, M, low=-2**31 + 1, high=2**31)
    ua, ub = r.integers(0, 2**32, M, dtype=np.uint32), r.integers(0, 2**32, M, dtype=np.uint32)
    la = r.integers(-2**63 + 1, 2**63 - 1, M, dtype=np.int64)
    lb = r.integers(-2**63 + 1, 2**63 - 1, M, dtype=np.int64)
    fa = _mix(r, -10, 10, [NAN, 1, -0.0, INF])
    fb = _mix(r, -10, 10, [1, NAN, 0, -INF])
    da = _mix(r, -10, 10, [NAN, 2, -INF, 1e300], dtype=np.float64)
    db = _mix(r, -10, 10, [3, NAN, 5, NAN], dtype=np.float64)
    return [a, b, ua, ub, la, lb, fa, fb, da, db, np.zeros(3 * M, np.int32), np.zeros(4 * M, np.uint32),
            np.zeros(4 * M, np.int64), np.zeros(3 * M, np.float32), np.zeros(3 * M), np.int32(M)]


def _overloads(a, b, ua, ub, la, lb, fa, fb, da, db):
    au, bu = a.view(np.uint32), b.view(np.uint32)
    return {10: np.stack([np.minimum(a, b), np.maximum(a, b), np.abs(a)], axis=1).ravel(),
            11: np.stack([np.minimum(ua, ub), np.maximum(ua, ub), np.minimum(au, ub), np.maximum(ua, bu)],
                         axis=1).ravel(),
            12: np.stack([np.minimum(la, lb), np.maximum(la, lb), np.abs(la), np.abs(lb)], axis=1).ravel(),
            13: np.stack([np.fmin(fa, fb), np.fmax(fa, fb), np.abs(fa)], axis=1).ravel(),
            14: np.stack([np.fmin(da, db), np.fmax(da, db), np.fmax(fa.astype(np.float64), db)], axis=1).ravel()}


def _normal_cdf(d):
    return 0.5 * _math(math.erfc, -d / math.sqrt(2))


def _black_scholes(s, x, t, rf, v):
    s, x, t = s.astype(np.float64), x.astype(np.float64), t.astype(np.float64)
    d1 = (np.log(s / x) + (rf + 0.5 * v * v) * t) / (v * np.sqrt(t))
    d2 = d1 - v * np.sqrt(t)
    discounted = x * np.exp(-rf * t)
    return {0: s * _normal_cdf(d1) - discounted * _normal_cdf(d2),
            1: discounted * _normal_cdf(-d2) - s * _normal_cdf(-d1)}


def _activations(x):
    v = x.astype(np.float64)
    erf = _math(math.erf, v / math.sqrt(2))
    with np.errstate(all="ignore"):
        cols = [1 / (1 + np.exp(-v)), np.where(v > 20, v, np.log1p(np.exp(v))),
                0.5 * v * (1 + np.tanh(0.7978845608 * (v + 0.044715 * v**3))), 0.5 * v * (1 + erf),
                v / (1 + np.exp(-v))]
    return np.stack(cols, axis=1).ravel()


def _log_softmax(x):
    m = x.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=1, keepdims=True))
    return {1: lse.ravel(), 2: x - lse}
