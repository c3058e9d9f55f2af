//! The C columns of each dtype: how an element is stored in each dialect, and for the narrow
//! floats (stored in fewer bits than they compute in, `DType::compute`) how stored bits become
//! a value and back, how a value rounds to the dtype, and the device code that needs. Every
//! emitter (ufuncs, fusion, reductions, ElementwiseKernel, `@jit`) reads these rows: a new
//! dtype is a row here and one in ember-core's dtype table.
//!
//! Templates: `{p}` a pointer to the element, `{q}` its OpenCL address space (`__global `,
//! `__local `; empty in CUDA), `{v}` a value or a float variable.

use ember_core::DType;

use crate::dialect::Dialect;

/// One dtype's C facts, per dialect as `(CUDA, OpenCL)`.
pub struct Columns {
    pub dtype: DType,
    /// How an element sits in memory.
    pub storage: (&'static str, &'static str),
    /// For a narrow float: its conversions.
    pub narrow: Option<Narrow>,
    /// For a 4- or 8-byte real or integer type: the vector type four consecutive elements
    /// load through (see [`crate::dialect::VectorLoad`]).
    pub vector: Option<(&'static str, &'static str)>,
}

/// A guarded piece of the prelude: (guard, text).
pub type Piece = (&'static str, &'static str);

/// A float stored narrow and computed in `float`.
pub struct Narrow {
    /// The stored element at `{p}` as a float value.
    pub load: (&'static str, &'static str),
    /// The statement storing float value `{v}` at `{p}`, rounded to nearest even.
    pub store: (&'static str, &'static str),
    /// Statements rounding float variable `{v}` to the dtype in place.
    pub round: (&'static str, &'static str),
    /// The device function rounding a float to the dtype (a float16 value lives in a float
    /// between operations and is rounded after each, as float16 hardware rounds).
    pub round_fn: &'static str,
    /// Device functions the conversions call, per dialect.
    pub prelude: (Option<Piece>, Option<Piece>),
}

/// float16 on CUDA: conversions by the hardware's `cvt` (PTX, as cuda_fp16.hpp does: NVRTC may
/// lack that header), and float16 arithmetic (`ember_hadd_rn_b`... on 16-bit values) by the
/// f16 instructions where the target has them (sm_53+; elsewhere in float, rounded after each
/// operation). `*_rn` operations are never contracted into an fma (PTX may fuse a `mul.f16`
/// into an `add.f16`; `.rn` forbids it), so results match NumPy's, which rounds each
/// operation; the plain forms are CUDA's `__hadd`/`__hsub`/`__hmul`. Integers convert by
/// `cvt.rn.f16.s8`... to float16 and `cvt.rni.s8.f16`... (nearest, saturating) back, NaN to 0
/// (tested first: an H200 gives 2^63 for NaN to uint64).
const HALF_CUDA: &str = r#"static __device__ __forceinline__ float ember_h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
static __device__ __forceinline__ unsigned short ember_f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
static __device__ __forceinline__ double ember_h_d(float f) { double d; asm("cvt.f64.f16 %0, %1;" : "=d"(d) : "h"(ember_f2h(f))); return d; }
static __device__ __forceinline__ unsigned short ember_d_h(double d) { unsigned short h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); return h; }
#define EMBER_HALF_INT(n, t, c) \
static __device__ __forceinline__ unsigned short ember_##n##_h(t x) { unsigned short h; asm("cvt.rn.f16." #n " %0, %1;" : "=h"(h) : c(x)); return h; } \
static __device__ __forceinline__ t ember_h_##n(float f) { t x; if (f != f) return 0; asm("cvt.rni." #n ".f16 %0, %1;" : "=" c(x) : "h"(ember_f2h(f))); return x; }
EMBER_HALF_INT(s8, short, "h")
EMBER_HALF_INT(s16, short, "h")
EMBER_HALF_INT(s32, int, "r")
EMBER_HALF_INT(s64, long long, "l")
EMBER_HALF_INT(u8, unsigned short, "h")
EMBER_HALF_INT(u16, unsigned short, "h")
EMBER_HALF_INT(u32, unsigned int, "r")
EMBER_HALF_INT(u64, unsigned long long, "l")
#undef EMBER_HALF_INT
#if __CUDA_ARCH__ >= 530
#define EMBER_HALF_OP2(n, op, c) static __device__ __forceinline__ unsigned short ember_##n##_b(unsigned short a, unsigned short b) { unsigned short r; asm(op " %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); return r; }
#define EMBER_HALF_OP1(n, op, c) static __device__ __forceinline__ unsigned short ember_##n##_b(unsigned short a) { unsigned short r; asm(op " %0, %1;" : "=h"(r) : "h"(a)); return r; }
static __device__ __forceinline__ unsigned short ember_hfma_b(unsigned short a, unsigned short b, unsigned short c) { unsigned short r; asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c)); return r; }
#else
#define EMBER_HALF_OP2(n, op, c) static __device__ __forceinline__ unsigned short ember_##n##_b(unsigned short a, unsigned short b) { float x = ember_h2f(a) c ember_h2f(b); return ember_f2h(x); }
#define EMBER_HALF_OP1(n, op, c) static __device__ __forceinline__ unsigned short ember_##n##_b(unsigned short a) { return ember_f2h(c(ember_h2f(a))); }
static __device__ __forceinline__ unsigned short ember_hfma_b(unsigned short a, unsigned short b, unsigned short c) { return ember_d_h(fma((double)ember_h2f(a), (double)ember_h2f(b), (double)ember_h2f(c))); }
#endif
EMBER_HALF_OP2(hadd, "add.f16", +)
EMBER_HALF_OP2(hsub, "sub.f16", -)
EMBER_HALF_OP2(hmul, "mul.f16", *)
EMBER_HALF_OP2(hadd_rn, "add.rn.f16", +)
EMBER_HALF_OP2(hsub_rn, "sub.rn.f16", -)
EMBER_HALF_OP2(hmul_rn, "mul.rn.f16", *)
EMBER_HALF_OP1(hneg, "neg.f16", -)
EMBER_HALF_OP1(habs, "abs.f16", fabsf)
#undef EMBER_HALF_OP2
#undef EMBER_HALF_OP1
"#;

/// bfloat16 is float32's top half: a load shifts its bits up; a store rounds to nearest even
/// (a NaN stays a quiet NaN).
const BFLOAT16_CUDA: &str = r#"static __device__ __forceinline__ float ember_bf2f(unsigned short h) { return __uint_as_float(((unsigned int)h) << 16); }
static __device__ __forceinline__ unsigned short ember_f2bf(float f) { unsigned int u = __float_as_uint(f); if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u); u += 0x7fffu + ((u >> 16) & 1u); return (unsigned short)(u >> 16); }
"#;
const BFLOAT16_OPENCL: &str = r#"static inline float ember_bf2f(ushort h) { return as_float(((uint)h) << 16); }
static inline ushort ember_f2bf(float f) { uint u = as_uint(f); if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u); u += 0x7fffu + ((u >> 16) & 1u); return (ushort)(u >> 16); }
"#;

/// In `DType::ALL` order.
const COLUMNS: &[Columns] = &[
    plain(DType::Bool, "unsigned char", "unsigned char"),
    plain(DType::I8, "signed char", "signed char"),
    plain(DType::I16, "short", "short"),
    vectored(DType::I32, "int", "int", ("int4", "int4")),
    vectored(DType::I64, "long long", "long", ("longlong2", "long4")),
    plain(DType::U8, "unsigned char", "unsigned char"),
    plain(DType::U16, "unsigned short", "unsigned short"),
    vectored(DType::U32, "unsigned int", "unsigned int", ("uint4", "uint4")),
    vectored(DType::U64, "unsigned long long", "ulong", ("ulonglong2", "ulong4")),
    Columns {
        dtype: DType::F16,
        storage: ("unsigned short", "unsigned short"),
        narrow: Some(Narrow {
            load: ("ember_h2f(*({p}))", "vload_half(0, ({q}const half*)({p}))"),
            store: (
                "*({p}) = ember_f2h({v});",
                "vstore_half_rte({v}, 0, ({q}half*)({p}));",
            ),
            round: (
                r#"{ unsigned short _h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(_h) : "f"({v})); asm("cvt.f32.f16 %0, %1;" : "=f"({v}) : "h"(_h)); }"#,
                "{ ushort _h; vstore_half_rte({v}, 0, (half*)&_h); {v} = vload_half(0, (const half*)&_h); }",
            ),
            round_fn: "ember_round_half",
            prelude: (Some(("EMBER_PRELUDE_HALF", HALF_CUDA)), None),
        }),
        vector: None,
    },
    Columns {
        dtype: DType::BF16,
        storage: ("unsigned short", "unsigned short"),
        narrow: Some(Narrow {
            load: ("ember_bf2f(*({p}))", "ember_bf2f(*({p}))"),
            store: ("*({p}) = ember_f2bf({v});", "*({p}) = ember_f2bf({v});"),
            round: (
                "{v} = ember_bf2f(ember_f2bf({v}));",
                "{v} = ember_bf2f(ember_f2bf({v}));",
            ),
            round_fn: "ember_round_bfloat16",
            prelude: (
                Some(("EMBER_PRELUDE_BFLOAT16", BFLOAT16_CUDA)),
                Some(("EMBER_PRELUDE_BFLOAT16", BFLOAT16_OPENCL)),
            ),
        }),
        vector: None,
    },
    vectored(DType::F32, "float", "float", ("float4", "float4")),
    vectored(DType::F64, "double", "double", ("double2", "double4")),
    plain(DType::C64, "ember_c64", "ember_c64"),
    plain(DType::C128, "ember_c128", "ember_c128"),
];

const fn plain(dtype: DType, cuda: &'static str, opencl: &'static str) -> Columns {
    Columns {
        dtype,
        storage: (cuda, opencl),
        narrow: None,
        vector: None,
    }
}

const fn vectored(
    dtype: DType,
    cuda: &'static str,
    opencl: &'static str,
    vector: (&'static str, &'static str),
) -> Columns {
    Columns {
        dtype,
        storage: (cuda, opencl),
        narrow: None,
        vector: Some(vector),
    }
}

/// An opaque dtype's row: a type no compiler knows, so a kernel over one fails to compile
/// instead of computing on its bytes. The array layer refuses opaque dtypes before that
/// (`DType::numeric`) and copies their bytes through numeric views; this is the backstop.
/// `datetime64`/`timedelta64` are int64 counts (what `@cuda.jit` kernels compute with).
const OPAQUE: Columns = plain(
    DType::U8,
    "ember_opaque_dtype_is_not_computed_on",
    "ember_opaque_dtype_is_not_computed_on",
);

/// The columns of `dtype`.
pub fn columns(dtype: DType) -> &'static Columns {
    match dtype.numeric_index() {
        Some(row) => &COLUMNS[row],
        None if dtype.datetime().is_some() => columns(DType::I64),
        None => &OPAQUE,
    }
}

/// The narrow-float columns of `dtype`, if it is one.
pub fn narrow(dtype: DType) -> Option<&'static Narrow> {
    columns(dtype).narrow.as_ref()
}

/// The entry of `pair` for `dialect`.
pub fn pick<T: Copy>(pair: (T, T), dialect: Dialect) -> T {
    match dialect {
        Dialect::Cuda => pair.0,
        Dialect::OpenCl => pair.1,
    }
}

/// `template` with its pointer, address space and value filled in.
pub fn fill(template: &str, p: &str, q: &str, v: &str) -> String {
    template
        .replace("{p}", p)
        .replace("{q}", q)
        .replace("{v}", v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_dtype_order_and_narrow_floats_compute_in_float32() {
        for (k, &d) in DType::ALL.iter().enumerate() {
            assert_eq!(COLUMNS[k].dtype, d);
            assert_eq!(
                COLUMNS[k].narrow.is_some(),
                d.compute() != d,
                "{d}: conversions exactly for the dtypes stored narrow"
            );
        }
    }

    #[test]
    fn templates_fill_every_placeholder() {
        for c in COLUMNS {
            if let Some(n) = &c.narrow {
                for t in [
                    n.load.0, n.load.1, n.store.0, n.store.1, n.round.0, n.round.1,
                ] {
                    let filled = fill(t, "p", "__global ", "v");
                    assert!(
                        !["{p}", "{q}", "{v}"].iter().any(|h| filled.contains(h)),
                        "{t}"
                    );
                }
            }
        }
    }
}
