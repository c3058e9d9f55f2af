//! The headers translated CUDA C may include: CUDA's own (their device parts, written here in
//! the CUDA C the translator reads) and the C headers kernels include for types.

/// The text of a header ember supplies, by the name `#include` gives.
pub fn header(name: &str) -> Option<&'static str> {
    Some(match name {
        // Everything these declare for device code is built into the translator.
        "cuda_runtime.h"
        | "cuda.h"
        | "cuda_runtime_api.h"
        | "device_launch_parameters.h"
        | "stdint.h"
        | "cstdint"
        | "stddef.h"
        | "cstddef"
        | "math.h"
        | "cmath"
        | "float.h"
        | "cfloat"
        | "limits.h"
        | "climits"
        | "math_constants.h"
        | "vector_types.h"
        | "stdio.h"
        | "cstdio" => "",
        "cuComplex.h" => CU_COMPLEX,
        "cuda_fp16.h" | "cuda_fp16.hpp" => CUDA_FP16,
        _ => return None,
    })
}

/// The headers NVRTC gets too (pip's NVRTC has no toolkit headers): cuComplex.h's device
/// functions, and empty stdio headers (device `printf` is built in; kernels include them).
pub fn device_headers() -> &'static [(&'static str, &'static str)] {
    &[("cuComplex.h", CU_COMPLEX), ("cstdio", ""), ("stdio.h", "")]
}

/// The names [`header`] answers, for error messages.
pub const SUPPLIED: &str = "cuda_runtime.h, cuda.h, cuComplex.h, cuda_fp16.h, math_constants.h, vector_types.h, stdint.h/cstdint, stddef.h, math.h/cmath, float.h, limits.h, stdio.h";

/// cuComplex.h's device functions: complex numbers as `float2`/`double2`, with CUDA's
/// scaled division and `hypot` for the absolute value.
const CU_COMPLEX: &str = r#"
#pragma once
typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;
static __device__ float cuCrealf(cuFloatComplex x) { return x.x; }
static __device__ float cuCimagf(cuFloatComplex x) { return x.y; }
static __device__ cuFloatComplex make_cuFloatComplex(float r, float i) { return make_float2(r, i); }
static __device__ cuFloatComplex make_cuComplex(float r, float i) { return make_float2(r, i); }
static __device__ cuFloatComplex cuConjf(cuFloatComplex x) { return make_float2(x.x, -x.y); }
static __device__ cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y) { return make_float2(x.x + y.x, x.y + y.y); }
static __device__ cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y) { return make_float2(x.x - y.x, x.y - y.y); }
static __device__ cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y) {
    return make_float2(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
static __device__ cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y) {
    float s = fabsf(y.x) + fabsf(y.y);
    float oos = 1.0f / s;
    float ars = x.x * oos, ais = x.y * oos, brs = y.x * oos, bis = y.y * oos;
    s = brs * brs + bis * bis;
    oos = 1.0f / s;
    return make_float2((ars * brs + ais * bis) * oos, (ais * brs - ars * bis) * oos);
}
static __device__ float cuCabsf(cuFloatComplex x) { return hypotf(x.x, x.y); }
static __device__ cuFloatComplex cuCfmaf(cuFloatComplex x, cuFloatComplex y, cuFloatComplex d) {
    float r = (x.x * y.x) + d.x;
    float i = (x.x * y.y) + d.y;
    r = -(x.y * y.y) + r;
    i = (x.y * y.x) + i;
    return make_float2(r, i);
}
static __device__ double cuCreal(cuDoubleComplex x) { return x.x; }
static __device__ double cuCimag(cuDoubleComplex x) { return x.y; }
static __device__ cuDoubleComplex make_cuDoubleComplex(double r, double i) { return make_double2(r, i); }
static __device__ cuDoubleComplex cuConj(cuDoubleComplex x) { return make_double2(x.x, -x.y); }
static __device__ cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y) { return make_double2(x.x + y.x, x.y + y.y); }
static __device__ cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y) { return make_double2(x.x - y.x, x.y - y.y); }
static __device__ cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y) {
    return make_double2(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
static __device__ cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y) {
    double s = fabs(y.x) + fabs(y.y);
    double oos = 1.0 / s;
    double ars = x.x * oos, ais = x.y * oos, brs = y.x * oos, bis = y.y * oos;
    s = brs * brs + bis * bis;
    oos = 1.0 / s;
    return make_double2((ars * brs + ais * bis) * oos, (ais * brs - ars * bis) * oos);
}
static __device__ double cuCabs(cuDoubleComplex x) { return hypot(x.x, x.y); }
static __device__ cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d) {
    double r = (x.x * y.x) + d.x;
    double i = (x.x * y.y) + d.y;
    r = -(x.y * y.y) + r;
    i = (x.y * y.x) + i;
    return make_double2(r, i);
}
static __device__ cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) { return make_double2((double)c.x, (double)c.y); }
static __device__ cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) { return make_float2((float)c.x, (float)c.y); }
"#;

/// cuda_fp16.h as the translator reads it: the half intrinsics written with the translation's
/// half semantics (`a + b` of two halves is rounded to half: see `lower/half.rs`), so each is
/// one line of CUDA C. Not given to NVRTC, which needs NVIDIA's.
const CUDA_FP16: &str = r#"
#pragma once
static __device__ __half __float2half(float f) { return (__half)f; }
static __device__ __half __float2half_rn(float f) { return (__half)f; }
static __device__ __half __double2half(double d) { return __ember_double2half(d); }
static __device__ float __half2float(__half h) { return (float)h; }
static __device__ __half __int2half_rn(int i) { return (__half)(float)i; }
static __device__ __half __uint2half_rn(unsigned int i) { return (__half)(float)i; }
static __device__ __half __short2half_rn(short i) { return (__half)(float)i; }
static __device__ __half __ushort2half_rn(unsigned short i) { return (__half)(float)i; }
static __device__ int __half2int_rz(__half h) { return isnan((float)h) ? 0 : (int)(float)h; }
static __device__ int __half2int_rn(__half h) { return isnan((float)h) ? 0 : (int)rintf(h); }
static __device__ int __half2int_rd(__half h) { return isnan((float)h) ? 0 : (int)floorf(h); }
static __device__ int __half2int_ru(__half h) { return isnan((float)h) ? 0 : (int)ceilf(h); }
static __device__ unsigned int __half2uint_rz(__half h) { return h > (__half)0.0f ? (unsigned int)(float)h : 0u; }
static __device__ short __half2short_rz(__half h) { return isnan((float)h) ? 0 : (short)(float)h; }
static __device__ __half __hadd(__half a, __half b) { return a + b; }
static __device__ __half __hsub(__half a, __half b) { return a - b; }
static __device__ __half __hmul(__half a, __half b) { return a * b; }
static __device__ __half __hdiv(__half a, __half b) { return a / b; }
static __device__ __half __hfma(__half a, __half b, __half c) { return (__half)fmaf(a, b, c); }
static __device__ __half __hadd_sat(__half a, __half b) { __half r = a + b; return (__half)__saturatef(r); }
static __device__ __half __hsub_sat(__half a, __half b) { __half r = a - b; return (__half)__saturatef(r); }
static __device__ __half __hmul_sat(__half a, __half b) { __half r = a * b; return (__half)__saturatef(r); }
static __device__ __half __hfma_sat(__half a, __half b, __half c) { return (__half)__saturatef(__hfma(a, b, c)); }
static __device__ __half __hneg(__half a) { return -a; }
static __device__ __half __habs(__half a) { return (__half)fabsf(a); }
static __device__ __half __hmax(__half a, __half b) { return (__half)fmaxf(a, b); }
static __device__ __half __hmin(__half a, __half b) { return (__half)fminf(a, b); }
static __device__ bool __heq(__half a, __half b) { return a == b; }
static __device__ bool __hne(__half a, __half b) { return a != b; }
static __device__ bool __hlt(__half a, __half b) { return a < b; }
static __device__ bool __hle(__half a, __half b) { return a <= b; }
static __device__ bool __hgt(__half a, __half b) { return a > b; }
static __device__ bool __hge(__half a, __half b) { return a >= b; }
static __device__ bool __hisnan(__half a) { return isnan((float)a); }
static __device__ int __hisinf(__half a) { return isinf((float)a) ? (a > (__half)0.0f ? 1 : -1) : 0; }
static __device__ __half hsqrt(__half a) { return (__half)sqrtf(a); }
static __device__ __half hrsqrt(__half a) { return (__half)rsqrtf(a); }
static __device__ __half hrcp(__half a) { return (__half)(1.0f / (float)a); }
static __device__ __half hexp(__half a) { return (__half)expf(a); }
static __device__ __half hexp2(__half a) { return (__half)exp2f(a); }
static __device__ __half hexp10(__half a) { return (__half)exp10f(a); }
static __device__ __half hlog(__half a) { return (__half)logf(a); }
static __device__ __half hlog2(__half a) { return (__half)log2f(a); }
static __device__ __half hlog10(__half a) { return (__half)log10f(a); }
static __device__ __half hsin(__half a) { return (__half)sinf(a); }
static __device__ __half hcos(__half a) { return (__half)cosf(a); }
static __device__ __half htanh(__half a) { return (__half)tanhf(a); }
static __device__ __half hfloor(__half a) { return (__half)floorf(a); }
static __device__ __half hceil(__half a) { return (__half)ceilf(a); }
static __device__ __half htrunc(__half a) { return (__half)truncf(a); }
static __device__ __half hrint(__half a) { return (__half)rintf(a); }
static __device__ __half2 __float2half2_rn(float f) { return make_half2(f, f); }
static __device__ __half2 __floats2half2_rn(float a, float b) { return make_half2(a, b); }
static __device__ __half2 __float22half2_rn(float2 f) { return make_half2(f.x, f.y); }
static __device__ float2 __half22float2(__half2 h) { return make_float2(h.x, h.y); }
static __device__ __half2 __half2half2(__half h) { return make_half2(h, h); }
static __device__ __half2 __halves2half2(__half a, __half b) { return make_half2(a, b); }
static __device__ __half2 __lows2half2(__half2 a, __half2 b) { return make_half2(a.x, b.x); }
static __device__ __half2 __highs2half2(__half2 a, __half2 b) { return make_half2(a.y, b.y); }
static __device__ __half2 __lowhigh2highlow(__half2 a) { return make_half2(a.y, a.x); }
static __device__ __half __low2half(__half2 h) { return h.x; }
static __device__ __half __high2half(__half2 h) { return h.y; }
static __device__ float __low2float(__half2 h) { return (float)h.x; }
static __device__ float __high2float(__half2 h) { return (float)h.y; }
static __device__ __half2 __hadd2(__half2 a, __half2 b) { return a + b; }
static __device__ __half2 __hsub2(__half2 a, __half2 b) { return a - b; }
static __device__ __half2 __hmul2(__half2 a, __half2 b) { return a * b; }
static __device__ __half2 __h2div(__half2 a, __half2 b) { return a / b; }
static __device__ __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return make_half2(fmaf(a.x, b.x, c.x), fmaf(a.y, b.y, c.y)); }
static __device__ __half2 __hneg2(__half2 a) { return -a; }
static __device__ __half2 __habs2(__half2 a) { return make_half2(fabsf(a.x), fabsf(a.y)); }
static __device__ __half2 __hmax2(__half2 a, __half2 b) { return make_half2(fmaxf(a.x, b.x), fmaxf(a.y, b.y)); }
static __device__ __half2 __hmin2(__half2 a, __half2 b) { return make_half2(fminf(a.x, b.x), fminf(a.y, b.y)); }
static __device__ __half2 h2sqrt(__half2 a) { return make_half2(sqrtf(a.x), sqrtf(a.y)); }
static __device__ __half2 h2exp(__half2 a) { return make_half2(expf(a.x), expf(a.y)); }
"#;
