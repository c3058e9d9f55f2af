//! The ufuncs that step between neighbouring floating-point values: `nextafter` and
//! `spacing`. float32 and float64 use C's `nextafter`; float16 and bfloat16 are computed in
//! float (where both are exact) by the neighbours of the narrow type, NumPy's half loops.

use ember_core::dtype::Kind;
use ember_core::{DType, Result};

use super::expr::Expr;
use super::registry::Call;
use crate::types::value_type;

/// Significand digits, smallest normal exponent and largest finite value of a narrow type.
fn narrow_format(d: DType) -> Option<(i32, i32, f64)> {
    match d {
        DType::F16 => Some((11, -14, 65504.0)),
        DType::BF16 => Some((8, -126, 3.3895313892515355e38)),
        _ => None,
    }
}

/// `ember_nextafter_<t>(x, y)`: the value of `d` next to `x` towards `y`, as a float.
fn narrow_helper(d: DType, c: &Call) -> String {
    let (digits, emin, max) = narrow_format(d).expect("a narrow float type");
    let inf = c.dialect.table().infinity;
    let name = d.name();
    // NumPy's half spacing steps towards +inf whatever the sign (npy_half_spacing);
    // ml_dtypes' bfloat16 steps away from zero, as float32 and float64 do.
    let toward = if d == DType::F16 {
        inf.to_string()
    } else {
        format!("copysign({inf}, x)")
    };
    // frexp gives |x| = m 2^e with m in [0.5, 1): x's binade is 2^(e-1), clamped to the
    // subnormal range; one step is 2^(binade - digits + 1), half that stepping down out of a
    // power of two.
    format!(
        "static __device__ inline float ember_nextafter_{name}(float x, float y) {{\n\
           if (isnan(x) || isnan(y)) return x + y;\n\
           if (x == y) return y;\n\
           if (isinf(x)) return copysign((float){max:?}, x);\n\
           if (x == 0) return copysign(ldexp(1.0f, {emin} - {digits} + 1), y);\n\
           int e; frexp(x, &e);\n\
           int b = e - 1 < {emin} ? {emin} : e - 1;\n\
           float step = ldexp(1.0f, b - {digits} + 1);\n\
           int away = (y > x) == (x > 0);\n\
           if (!away && fabs(x) == ldexp(1.0f, b) && b > {emin}) step *= 0.5f;\n\
           return away ? x + copysign(step, x) : x - copysign(step, x); }}\n\
         static __device__ inline float ember_spacing_{name}(float x) {{\n\
           if (isinf(x) || isnan(x)) return x - x;\n\
           float n = ember_nextafter_{name}(x, {toward});\n\
           return fabs(n) > (float){max:?} ? copysign({inf}, x) : n - x; }}\n"
    )
}

/// `nextafter(x1, x2)`: the next representable value after `x1` towards `x2`.
pub fn nextafter(c: &Call) -> Result<Expr> {
    let d = c.dtype();
    if d.kind() != Kind::Float {
        return c.unsupported();
    }
    let (a, b) = (&c.args[0], &c.args[1]);
    Ok(match narrow_format(d) {
        None => Expr {
            code: format!("nextafter({a}, {b})"),
            helpers: String::new(),
        },
        Some(_) => Expr {
            code: format!("ember_nextafter_{}({a}, {b})", d.name()),
            helpers: narrow_helper(d, c),
        },
    })
}

/// `spacing(x)`: the distance from `x` to the next value away from zero (NumPy's
/// `nextafter(x, copysign(inf, x)) - x`; NaN for infinities; the smallest
/// positive value for either zero), towards +inf for float16 as NumPy's half loop does.
pub fn spacing(c: &Call) -> Result<Expr> {
    let d = c.dtype();
    if d.kind() != Kind::Float {
        return c.unsupported();
    }
    let a = &c.args[0];
    Ok(match narrow_format(d) {
        None => {
            let r = value_type(d, c.dialect);
            let inf = c.dialect.table().infinity;
            Expr {
                code: format!(
                    "((isinf({a}) || isnan({a})) ? {a} - {a} : ({a} == 0 ? nextafter(({r})0, ({r}){inf}) : nextafter({a}, copysign(({r}){inf}, {a})) - {a}))"
                ),
                helpers: String::new(),
            }
        }
        Some(_) => Expr {
            code: format!("ember_spacing_{}({a})", d.name()),
            helpers: narrow_helper(d, c),
        },
    })
}
