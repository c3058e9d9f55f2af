//! The hand-written device code every generated kernel starts with.

use crate::dialect::Dialect;

const CUDA: &str = r#"// ember prelude (CUDA)
typedef struct __align__(8) { float x, y; } ember_c64;
typedef struct __align__(16) { double x, y; } ember_c128;
static __device__ __forceinline__ ember_c64 ember_make_complex64(float re, float im) { ember_c64 z; z.x = re; z.y = im; return z; }
static __device__ __forceinline__ ember_c128 ember_make_complex128(double re, double im) { ember_c128 z; z.x = re; z.y = im; return z; }
static __device__ __forceinline__ float ember_h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
static __device__ __forceinline__ unsigned short ember_f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
"#;

const OPENCL: &str = r#"// ember prelude (OpenCL)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef float2 ember_c64;
typedef double2 ember_c128;
static inline ember_c64 ember_make_complex64(float re, float im) { return (float2)(re, im); }
static inline ember_c128 ember_make_complex128(double re, double im) { return (double2)(re, im); }
"#;

/// The prelude for `dialect`.
pub fn prelude(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Cuda => CUDA,
        Dialect::OpenCl => OPENCL,
    }
}
