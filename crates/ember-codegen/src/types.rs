//! C types of ember's dtypes, and conversions between them.
//!
//! Every dtype has a *storage* type (how an element sits in memory) and a *value* type (what
//! arithmetic uses): they differ for the narrow floats (float16: stored as 16 bits, computed as
//! `float`) and bool (stored as a byte, 0 or 1). The facts are the rows of `dtypes.rs`.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::dialect::Dialect;
use crate::dtypes::{columns, fill, narrow, pick};

/// How an element is stored.
pub fn storage_type(dtype: DType, dialect: Dialect) -> &'static str {
    pick(columns(dtype).storage, dialect)
}

/// What arithmetic on an element uses (and the type of scalar kernel parameters): a narrow
/// float's compute type, else its storage.
pub fn value_type(dtype: DType, dialect: Dialect) -> &'static str {
    storage_type(dtype.compute(), dialect)
}

/// The dtype whose bytes a scalar parameter of `dtype` is passed as.
pub fn param_dtype(dtype: DType) -> DType {
    dtype.compute()
}

/// The address space of the global pointers generated kernels take.
fn global(dialect: Dialect) -> &'static str {
    pick(("", "__global "), dialect)
}

/// Reads the element at pointer expression `ptr` (global memory) as a value.
pub fn load(dtype: DType, dialect: Dialect, ptr: &str) -> String {
    if let Some(code) = load_narrow(dtype, dialect, ptr, global(dialect)) {
        return code;
    }
    match dtype {
        DType::Bool => format!("(unsigned char)(*({ptr}) != 0)"),
        _ => format!("*({ptr})"),
    }
}

/// Statement writing `value` to the element at pointer expression `ptr` (global memory).
pub fn store(dtype: DType, dialect: Dialect, ptr: &str, value: &str) -> String {
    store_narrow(dtype, dialect, ptr, global(dialect), value)
        .unwrap_or_else(|| format!("*({ptr}) = {value};"))
}

/// A narrow float's element at `ptr` in address space `space` as a float; `None` for others.
pub fn load_narrow(dtype: DType, dialect: Dialect, ptr: &str, space: &str) -> Option<String> {
    narrow(dtype).map(|n| fill(pick(n.load, dialect), ptr, space, ""))
}

/// The statement storing float `value` as a narrow float at `ptr` in `space`; `None` for others.
pub fn store_narrow(
    dtype: DType,
    dialect: Dialect,
    ptr: &str,
    space: &str,
    value: &str,
) -> Option<String> {
    narrow(dtype).map(|n| fill(pick(n.store, dialect), ptr, space, value))
}

/// The device function rounding a float to narrow float `dtype` (its `round_fn`), declared
/// with `qualifier`; empty for other dtypes.
pub fn round_function(dtype: DType, dialect: Dialect, qualifier: &str) -> String {
    match narrow(dtype) {
        Some(n) => format!(
            "{qualifier} float {}(float x) {{ {} return x; }}\n",
            n.round_fn,
            round_in_place(dtype, dialect, "x")
        ),
        None => String::new(),
    }
}

/// The call rounding float expression `value` to narrow float `dtype` ([`round_function`]);
/// `value` itself for other dtypes.
pub fn round_call(dtype: DType, value: &str) -> String {
    match narrow(dtype) {
        Some(n) => format!("{}({value})", n.round_fn),
        None => value.to_string(),
    }
}

/// Statements rounding float variable `var` to narrow float `dtype` in place (for code that
/// cannot define functions); empty for other dtypes.
pub fn round_in_place(dtype: DType, dialect: Dialect, var: &str) -> String {
    narrow(dtype).map_or(String::new(), |n| fill(pick(n.round, dialect), "", "", var))
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
