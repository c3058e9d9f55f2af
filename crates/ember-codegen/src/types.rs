//! C types of ember's dtypes, and conversions between them.
//!
//! Every dtype has a *storage* type (how an element sits in memory) and a *value* type (what
//! arithmetic uses): they differ for float16 (stored as 16 bits, computed as `float`) and bool
//! (stored as a byte, 0 or 1).

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::dialect::Dialect;

/// How an element is stored.
pub fn storage_type(dtype: DType, dialect: Dialect) -> &'static str {
    match (dtype, dialect) {
        (DType::Bool, _) | (DType::U8, _) => "unsigned char",
        (DType::I8, _) => "signed char",
        (DType::I16, _) => "short",
        (DType::U16, _) | (DType::F16, _) => "unsigned short",
        (DType::I32, _) => "int",
        (DType::U32, _) => "unsigned int",
        (DType::I64, Dialect::Cuda) => "long long",
        (DType::I64, Dialect::OpenCl) => "long",
        (DType::U64, Dialect::Cuda) => "unsigned long long",
        (DType::U64, Dialect::OpenCl) => "ulong",
        (DType::F32, _) => "float",
        (DType::F64, _) => "double",
        (DType::C64, _) => "ember_c64",
        (DType::C128, _) => "ember_c128",
    }
}

/// What arithmetic on an element uses (and the type of scalar kernel parameters).
pub fn value_type(dtype: DType, dialect: Dialect) -> &'static str {
    match dtype {
        DType::F16 => "float",
        _ => storage_type(dtype, dialect),
    }
}

/// The dtype whose bytes a scalar parameter of `dtype` is passed as.
pub fn param_dtype(dtype: DType) -> DType {
    match dtype {
        DType::F16 => DType::F32,
        d => d,
    }
}

/// Reads the element at pointer expression `ptr` as a value.
pub fn load(dtype: DType, dialect: Dialect, ptr: &str) -> String {
    match (dtype, dialect) {
        (DType::F16, Dialect::Cuda) => format!("ember_h2f(*({ptr}))"),
        (DType::F16, Dialect::OpenCl) => format!("vload_half(0, (__global const half*)({ptr}))"),
        (DType::Bool, _) => format!("(unsigned char)(*({ptr}) != 0)"),
        _ => format!("*({ptr})"),
    }
}

/// Statement writing `value` to the element at pointer expression `ptr`.
pub fn store(dtype: DType, dialect: Dialect, ptr: &str, value: &str) -> String {
    match (dtype, dialect) {
        (DType::F16, Dialect::Cuda) => format!("*({ptr}) = ember_f2h({value});"),
        (DType::F16, Dialect::OpenCl) => {
            format!("vstore_half_rte({value}, 0, (__global half*)({ptr}));")
        }
        _ => format!("*({ptr}) = {value};"),
    }
}

/// The device function `ember_round_half(float x)`, declared with `qualifier`: `x` rounded to
/// the nearest float16 (ties to even), as a store rounds it. float16 values live in float, so
/// code that keeps one between operations rounds it after each, as float16 hardware does.
pub fn round_half_function(dialect: Dialect, qualifier: &str) -> String {
    format!(
        "{qualifier} float ember_round_half(float x) {{ {} return x; }}\n",
        round_half_in_place(dialect, "x")
    )
}

/// A statement rounding float variable `var` to the nearest float16 (ties to even) in place,
/// as [`round_half_function`] does (for code that cannot define functions).
pub fn round_half_in_place(dialect: Dialect, var: &str) -> String {
    match dialect {
        Dialect::Cuda => format!("{{ unsigned short _h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(_h) : \"f\"({var})); asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"({var}) : \"h\"(_h)); }}"),
        Dialect::OpenCl => format!("{{ ushort _h; vstore_half_rte({var}, 0, (half*)&_h); {var} = vload_half(0, (const half*)&_h); }}"),
    }
}

/// Converts a value expression of `from` to a value of `to`, as NumPy's `astype` does
/// (complex to real keeps the real part; anything to bool tests for non-zero).
pub fn cast(expr: &str, from: DType, to: DType, dialect: Dialect) -> String {
    if from == to {
        return expr.to_string();
    }
    let target = value_type(to, dialect);
    match (from.kind(), to.kind()) {
        (Kind::Complex, Kind::Complex) => {
            let part = value_type(component(to), dialect);
            format!(
                "ember_make_{}(({part})({expr}).x, ({part})({expr}).y)",
                to.name()
            )
        }
        (Kind::Complex, Kind::Bool) => {
            format!("(unsigned char)(({expr}).x != 0 || ({expr}).y != 0)")
        }
        (Kind::Complex, _) => cast(&format!("({expr}).x"), component(from), to, dialect),
        (_, Kind::Complex) => {
            let part = value_type(component(to), dialect);
            format!("ember_make_{}(({part})({expr}), ({part})0)", to.name())
        }
        (_, Kind::Bool) => format!("(unsigned char)(({expr}) != 0)"),
        // C leaves float -> small unsigned undefined for negatives; NumPy wraps through int64.
        (Kind::Float, Kind::UInt) if to != DType::U64 => {
            format!("({target})({})({expr})", dialect.table().int64)
        }
        _ => format!("({target})({expr})"),
    }
}

/// NumPy's complex product from the parts of `a` (`ar`, `ai`) and `b` (`br`, `bi`), plain
/// names (each is read twice): `[fma(ar, br, -(ai * bi)), fma(ar, bi, ai * br)]`, as NumPy's
/// SIMD loops compute it on CPUs with FMA (x86-64 with AVX2 or AVX-512: checked against
/// NumPy 2.4 for contiguous, strided and scalar operands, float32 and float64).
pub fn complex_product_parts(ar: &str, ai: &str, br: &str, bi: &str) -> [String; 2] {
    [
        format!("fma({ar}, {br}, -({ai} * {bi}))"),
        format!("fma({ar}, {bi}, {ai} * {br})"),
    ]
}

/// [`complex_product_parts`] of complex values `a` and `b`, made with the constructor `make`.
pub fn complex_product(a: &str, b: &str, make: &str) -> String {
    let [re, im] = complex_product_parts(
        &format!("{a}.x"),
        &format!("{a}.y"),
        &format!("{b}.x"),
        &format!("{b}.y"),
    );
    format!("{make}({re}, {im})")
}

/// The real dtype of a complex dtype's parts.
pub fn component(dtype: DType) -> DType {
    match dtype {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        d => d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float16_is_stored_as_bits_and_computed_as_float() {
        assert_eq!(storage_type(DType::F16, Dialect::Cuda), "unsigned short");
        assert_eq!(value_type(DType::F16, Dialect::OpenCl), "float");
        assert!(load(DType::F16, Dialect::OpenCl, "p").contains("vload_half"));
        assert!(store(DType::F16, Dialect::Cuda, "p", "v").contains("ember_f2h"));
    }

    #[test]
    fn casts_follow_numpy() {
        assert_eq!(
            cast("x", DType::C64, DType::F64, Dialect::Cuda),
            "(double)((x).x)"
        );
        assert_eq!(
            cast("x", DType::F32, DType::Bool, Dialect::Cuda),
            "(unsigned char)((x) != 0)"
        );
        assert_eq!(
            cast("x", DType::F64, DType::U8, Dialect::OpenCl),
            "(unsigned char)(long)(x)"
        );
        assert!(
            cast("x", DType::I32, DType::C128, Dialect::Cuda).starts_with("ember_make_complex128")
        );
    }
}
