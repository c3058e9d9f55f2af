//! The hand-written device code every generated kernel starts with.

use ember_core::DType;

use crate::complex::complex_arithmetic;
use crate::dialect::Dialect;
use crate::dtypes::pick;

pub(crate) const CUDA_COMPLEX_TYPES: &str = r#"// Trivially constructible (so they may live in __shared__), convertible from a real number;
// constexpr, so __constant__ arrays of them are initialized statically.
struct __align__(8) ember_c64 { float x, y; ember_c64() = default; __device__ constexpr ember_c64(double re, double im = 0) : x((float)re), y((float)im) {} };
struct __align__(16) ember_c128 { double x, y; ember_c128() = default; __device__ constexpr ember_c128(double re, double im = 0) : x(re), y(im) {} };
static __device__ __forceinline__ ember_c64 ember_make_complex64(float re, float im) { ember_c64 z; z.x = re; z.y = im; return z; }
static __device__ __forceinline__ ember_c128 ember_make_complex128(double re, double im) { ember_c128 z; z.x = re; z.y = im; return z; }
"#;

/// C++ operators for snippets written against CuPy's `thrust::complex`, defined by the
/// prelude's helpers (one product and one quotient for every frontend).
pub(crate) const CUDA_COMPLEX_OPERATORS: &str = r#"#define EMBER_COMPLEX_OPS(C, R, S) \
static __device__ __forceinline__ C operator+(C a, C b) { C z; z.x = a.x + b.x; z.y = a.y + b.y; return z; } \
static __device__ __forceinline__ C operator-(C a, C b) { C z; z.x = a.x - b.x; z.y = a.y - b.y; return z; } \
static __device__ __forceinline__ C operator*(C a, C b) { return ember_cmul##S(a, b); } \
static __device__ __forceinline__ C operator/(C a, C b) { return ember_cdiv##S(a, b); } \
static __device__ __forceinline__ C operator*(C a, R s) { C z; z.x = a.x * s; z.y = a.y * s; return z; } \
static __device__ __forceinline__ bool operator==(C a, C b) { return a.x == b.x && a.y == b.y; }
EMBER_COMPLEX_OPS(ember_c64, float, 64)
EMBER_COMPLEX_OPS(ember_c128, double, 128)
"#;

pub(crate) const OPENCL_BASE: &str = r#"#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// CUDA's function qualifiers mean nothing here: preambles written for CUDA compile as they are.
#define __device__
#define __host__
#define __forceinline__ inline
"#;

pub(crate) const OPENCL_COMPLEX_TYPES: &str = r#"typedef float2 ember_c64;
typedef double2 ember_c128;
static inline ember_c64 ember_make_complex64(float re, float im) { return (float2)(re, im); }
static inline ember_c128 ember_make_complex128(double re, double im) { return (double2)(re, im); }
"#;

/// The prelude for `dialect` with everything in it.
pub fn prelude(dialect: Dialect) -> String {
    prelude_for(dialect, DType::ALL.iter().copied())
}

/// The prelude a kernel over `dtypes` needs: the complex and narrow-float helpers only when one
/// of them appears (less source is a faster compile).
pub fn prelude_for(dialect: Dialect, dtypes: impl IntoIterator<Item = DType>) -> String {
    let mut complex = false;
    // The device code narrow floats' conversions call, once each.
    let mut narrow: Vec<(&str, &str)> = Vec::new();
    for d in dtypes {
        complex |= d.is_complex();
        if let Some(p) = crate::dtypes::narrow(d).and_then(|n| pick(n.prelude, dialect)) {
            if !narrow.contains(&p) {
                narrow.push(p);
            }
        }
    }
    let t = dialect.table();
    let mut s = format!("// ember prelude ({})\n", t.name);
    // Each piece is guarded, so a kernel may include preludes twice (a `@vectorize` body
    // brings its own into an elementwise kernel).
    let mut piece = |guard: &str, text: &str| s.push_str(&guarded(guard, text));
    if let Some(base) = t.prelude_base {
        piece("EMBER_PRELUDE_BASE", base);
    }
    if complex {
        piece("EMBER_PRELUDE_COMPLEX", &complex_piece(dialect));
    }
    for (guard, text) in narrow {
        piece(guard, text);
    }
    s
}

/// The complex types, their constructors and arithmetic (and, in CUDA, C++ operators over
/// them): what any kernel with a complex value needs.
fn complex_piece(dialect: Dialect) -> String {
    let mut s = String::from(dialect.table().complex_types);
    for d in [DType::C64, DType::C128] {
        s.push_str(&complex_arithmetic(d, dialect));
    }
    if let Some(operators) = dialect.table().complex_operators {
        s.push_str(operators);
    }
    s
}

/// The prelude's complex piece, guarded so it may appear more than once in a kernel: for
/// code with complex intermediate values in a kernel whose operands are all real.
pub fn complex_prelude(dialect: Dialect) -> String {
    let mut s = String::new();
    if let Some(base) = dialect.table().prelude_base {
        s.push_str(&guarded("EMBER_PRELUDE_BASE", base));
    }
    s + &guarded("EMBER_PRELUDE_COMPLEX", &complex_piece(dialect))
}

pub(crate) fn guarded(guard: &str, text: &str) -> String {
    format!("#ifndef {guard}\n#define {guard}\n{text}#endif\n")
}
