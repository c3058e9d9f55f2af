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
        _ => return None,
    })
}

/// The headers NVRTC gets too (pip's NVRTC has no toolkit headers): cuComplex.h's device
/// functions, and empty stdio headers (device `printf` is built in; kernels include them).
pub fn device_headers() -> &'static [(&'static str, &'static str)] {
    &[("cuComplex.h", CU_COMPLEX), ("cstdio", ""), ("stdio.h", "")]
}

/// The names [`header`] answers, for error messages.
pub const SUPPLIED: &str = "cuda_runtime.h, cuda.h, cuComplex.h, math_constants.h, vector_types.h, stdint.h/cstdint, stddef.h, math.h/cmath, float.h, limits.h, stdio.h";

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
