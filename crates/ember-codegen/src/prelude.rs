//! The hand-written device code every generated kernel starts with.

use ember_core::DType;

use crate::dialect::Dialect;

const CUDA_COMPLEX: &str = r#"// Trivially constructible (so they may live in __shared__), convertible from a real number.
struct __align__(8) ember_c64 { float x, y; ember_c64() = default; __device__ ember_c64(double re, double im = 0) : x((float)re), y((float)im) {} };
struct __align__(16) ember_c128 { double x, y; ember_c128() = default; __device__ ember_c128(double re, double im = 0) : x(re), y(im) {} };
static __device__ __forceinline__ ember_c64 ember_make_complex64(float re, float im) { ember_c64 z; z.x = re; z.y = im; return z; }
static __device__ __forceinline__ ember_c128 ember_make_complex128(double re, double im) { ember_c128 z; z.x = re; z.y = im; return z; }
// Complex arithmetic for snippets written against CuPy's thrust::complex.
#define EMBER_COMPLEX_OPS(C, R) \
static __device__ __forceinline__ C operator+(C a, C b) { C z; z.x = a.x + b.x; z.y = a.y + b.y; return z; } \
static __device__ __forceinline__ C operator-(C a, C b) { C z; z.x = a.x - b.x; z.y = a.y - b.y; return z; } \
static __device__ __forceinline__ C operator*(C a, C b) { C z; z.x = a.x * b.x - a.y * b.y; z.y = a.x * b.y + a.y * b.x; return z; } \
static __device__ __forceinline__ C operator/(C a, C b) { /* Smith's, as NumPy divides */ \
  R abr = fabs(b.x), abi = fabs(b.y), rat, scl; C z; \
  if (abr >= abi) { \
    if (abr == 0 && abi == 0) { z.x = a.x / abr; z.y = a.y / abi; return z; } \
    rat = b.y / b.x; scl = (R)1 / (b.x + b.y * rat); z.x = (a.x + a.y * rat) * scl; z.y = (a.y - a.x * rat) * scl; return z; } \
  rat = b.x / b.y; scl = (R)1 / (b.y + b.x * rat); z.x = (a.x * rat + a.y) * scl; z.y = (a.y * rat - a.x) * scl; return z; } \
static __device__ __forceinline__ C operator*(C a, R s) { C z; z.x = a.x * s; z.y = a.y * s; return z; } \
static __device__ __forceinline__ bool operator==(C a, C b) { return a.x == b.x && a.y == b.y; }
EMBER_COMPLEX_OPS(ember_c64, float)
EMBER_COMPLEX_OPS(ember_c128, double)
"#;

const CUDA_HALF: &str = r#"static __device__ __forceinline__ float ember_h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
static __device__ __forceinline__ unsigned short ember_f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
"#;

const OPENCL_BASE: &str = r#"#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// CUDA's function qualifiers mean nothing here: preambles written for CUDA compile as they are.
#define __device__
#define __host__
#define __forceinline__ inline
"#;

const OPENCL_COMPLEX: &str = r#"typedef float2 ember_c64;
typedef double2 ember_c128;
static inline ember_c64 ember_make_complex64(float re, float im) { return (float2)(re, im); }
static inline ember_c128 ember_make_complex128(double re, double im) { return (double2)(re, im); }
"#;

/// The prelude for `dialect` with everything in it.
pub fn prelude(dialect: Dialect) -> String {
    prelude_for(dialect, DType::ALL.iter().copied())
}

/// The prelude a kernel over `dtypes` needs: the complex and float16 helpers only when one of
/// them appears (less source is a faster compile).
pub fn prelude_for(dialect: Dialect, dtypes: impl IntoIterator<Item = DType>) -> String {
    let (mut complex, mut half) = (false, false);
    for d in dtypes {
        complex |= matches!(d, DType::C64 | DType::C128);
        half |= d == DType::F16;
    }
    let mut s = String::from(match dialect {
        Dialect::Cuda => "// ember prelude (CUDA)\n",
        Dialect::OpenCl => "// ember prelude (OpenCL)\n",
    });
    // Each piece is guarded, so a kernel may include preludes twice (a `@vectorize` body
    // brings its own into an elementwise kernel).
    let mut piece = |guard: &str, text: &str| {
        s.push_str(&format!("#ifndef {guard}\n#define {guard}\n{text}#endif\n"));
    };
    match dialect {
        Dialect::Cuda => {
            if complex {
                piece("EMBER_PRELUDE_COMPLEX", CUDA_COMPLEX);
            }
            if half {
                piece("EMBER_PRELUDE_HALF", CUDA_HALF);
            }
        }
        Dialect::OpenCl => {
            piece("EMBER_PRELUDE_BASE", OPENCL_BASE);
            if complex {
                piece("EMBER_PRELUDE_COMPLEX", OPENCL_COMPLEX);
            }
        }
    }
    s
}
