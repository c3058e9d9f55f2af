//! Each ufunc's C expression over values already converted to its loop's types, and the
//! small device functions some of them call (NumPy's semantics where C's differ: floor
//! division and modulo signs, division by zero on integers, NaN-propagating maximum, shifts
//! past the width, complex arithmetic).

use crate::complex::{complex_math, log1p_exact_below};
use crate::types::value_type;
use crate::Dialect;
use ember_core::dtype::Kind;
use ember_core::{DType, Error, Result};

/// An expression and the helper functions it needs.
pub struct Expr {
    pub code: String,
    pub helpers: String,
}

fn plain(code: String) -> Result<Expr> {
    Ok(Expr {
        code,
        helpers: String::new(),
    })
}

fn with(code: String, helpers: String) -> Result<Expr> {
    Ok(Expr { code, helpers })
}

fn suffix(d: DType) -> &'static str {
    if d == DType::C128 || d == DType::F64 {
        "128"
    } else {
        "64"
    }
}

fn float_helpers(d: DType, dialect: Dialect) -> String {
    let r = value_type(d, dialect);
    let s = if d == DType::F64 { "d" } else { "f" };
    // NumPy's npy_divmod: the quotient rounded down, the remainder with the divisor's sign.
    format!(
        "static __device__ inline {r} ember_fmod_floor_{s}({r} a, {r} b) {{\n\
           if (b == 0) return fmod(a, b);\n\
           {r} m = fmod(a, b);\n\
           if (m != 0) {{ if ((b < 0) != (m < 0)) m += b; }} else {{ m = copysign(({r})0, b); }}\n\
           return m; }}\n\
         static __device__ inline {r} ember_floordiv_{s}({r} a, {r} b) {{\n\
           if (b == 0) return a / b;\n\
           {r} m = fmod(a, b); {r} q = (a - m) / b;\n\
           if (m != 0 && ((b < 0) != (m < 0))) q -= 1;\n\
           if (q != 0) {{ {r} f = floor(q); if (q - f > ({r})0.5) f += 1; return f; }}\n\
           return copysign(({r})0, a / b); }}\n"
    )
}

/// NumPy's integer power (a negative exponent of 0 gives 0 on the device; NumPy raises on the
/// host), written by the one integer-power emitter.
fn int_pow_helper(d: DType, dialect: Dialect) -> String {
    let name = format!("ember_npow_{}", d.name());
    crate::arith::int_power(d, dialect, "static __device__ inline", &name, "0")
}

/// `ember_gcd_<t>`/`ember_lcm_<t>` for integer type `d`: Euclid's algorithm on the
/// magnitudes in the unsigned twin (so the most negative value has one), the result as `d`'s
/// bits, as NumPy's wrapping arithmetic gives them.
fn gcd_lcm_helpers(d: DType, dialect: Dialect) -> String {
    let (vt, ut) = (
        value_type(d, dialect),
        value_type(d.unsigned_twin(), dialect),
    );
    let dev = dialect.table().device_fn;
    let n = d.name();
    let magnitude = |v: &str| match is_signed(d) {
        true => format!("({v} < 0 ? ({ut})0 - ({ut}){v} : ({ut}){v})"),
        false => format!("({ut}){v}"),
    };
    let (ma, mb) = (magnitude("a"), magnitude("b"));
    format!(
        "#ifndef EMBER_GCD_{n}\n#define EMBER_GCD_{n}\n\
{dev} {ut} ember_gcdu_{n}({ut} a, {ut} b) {{ while (b != 0) {{ {ut} t = a % b; a = b; b = t; }} return a; }}\n\
{dev} {vt} ember_gcd_{n}({vt} a, {vt} b) {{ return ({vt})ember_gcdu_{n}({ma}, {mb}); }}\n\
{dev} {vt} ember_lcm_{n}({vt} a, {vt} b) {{ {ut} ua = {ma}, ub = {mb}; {ut} g = ember_gcdu_{n}(ua, ub); return g == 0 ? ({vt})0 : ({vt})(ua / g * ub); }}\n\
#endif\n"
    )
}

fn is_signed(d: DType) -> bool {
    d.kind() == Kind::Int
}

/// The comparison that gives the same answer with its operands swapped (`less` for
/// `greater`); other names are themselves.
pub fn mirrored(name: &str) -> &str {
    match name {
        "less" => "greater",
        "greater" => "less",
        "less_equal" => "greater_equal",
        "greater_equal" => "less_equal",
        other => other,
    }
}

/// int64 against uint64 (either way round): NumPy 2's loops compare the values exactly.
fn mixed_sign_64(a: DType, b: DType) -> bool {
    matches!((a, b), (DType::I64, DType::U64) | (DType::U64, DType::I64))
}

/// Comparison `name` of an int64 and a uint64 by value: a negative signed value is below every
/// unsigned one, else both compare as uint64 (C would turn the signed one unsigned first).
fn mixed_sign_comparison(name: &str, t: DType, a: &str, b: &str, dialect: Dialect) -> String {
    let u = value_type(DType::U64, dialect);
    // As `signed OP unsigned`: flip the operator when the signed value comes second.
    let (s, x, op) = if t == DType::I64 {
        (a, b, name)
    } else {
        (b, a, mirrored(name))
    };
    let symbol = match op {
        "equal" => "==",
        "not_equal" => "!=",
        "less" => "<",
        "less_equal" => "<=",
        "greater" => ">",
        _ => ">=",
    };
    // Where the signed value is negative, the answer is known: true for !=, <, <=.
    let when_negative = matches!(op, "not_equal" | "less" | "less_equal");
    format!(
        "(({s}) < 0 ? {} : (({u})({s}) {symbol} ({x})))",
        if when_negative { 1 } else { 0 }
    )
}

/// The expression of ufunc `name` over `args` (values of the loop's input types `ins`),
/// producing a value of its first output type `out`: the bodies of the registry's first rows,
/// NumPy's semantics where C's differ.
pub fn expression(
    name: &str,
    ins: &[DType],
    out: DType,
    args: &[String],
    dialect: Dialect,
) -> Result<Expr> {
    let t = ins.first().copied().unwrap_or(out);
    let a = args.first().cloned().unwrap_or_default();
    let b = args.get(1).cloned().unwrap_or_default();
    let kind = t.kind();
    let complex = kind == Kind::Complex;
    let float = kind == Kind::Float;
    let bits = 8 * t.itemsize();
    let unsupported = || {
        Err(Error::Type(format!(
            "ufunc '{name}' is not supported for {} by ember yet",
            t.name()
        )))
    };
    let s = suffix(t);
    match name {
        "add" if t == DType::Bool => plain(format!("({a} || {b})")),
        "add" | "subtract" if complex => {
            let op = if name == "add" { "+" } else { "-" };
            plain(format!("ember_make_complex{s}({a}.x {op} {b}.x, {a}.y {op} {b}.y)"))
        }
        "add" => plain(format!("({a} + {b})")),
        "subtract" => plain(format!("({a} - {b})")),
        "multiply" if t == DType::Bool => plain(format!("({a} && {b})")),
        "multiply" if complex => plain(format!("ember_cmul{s}({a}, {b})")),
        "multiply" => plain(format!("({a} * {b})")),
        "divide" | "true_divide" if complex => plain(format!("ember_cdiv{s}({a}, {b})")),
        "divide" | "true_divide" => plain(format!("({a} / {b})")),
        "floor_divide" if float => {
            let f = if t == DType::F64 { "d" } else { "f" };
            with(format!("ember_floordiv_{f}({a}, {b})"), float_helpers(t, dialect))
        }
        // x / -1 and x % -1 are undefined in C for the most negative x: NumPy wraps the
        // quotient (negation in unsigned arithmetic) and the remainder is 0.
        "floor_divide" if is_signed(t) => {
            let vt = value_type(t, dialect);
            let ut = value_type(t.unsigned_twin(), dialect);
            plain(format!(
                "({b} == 0 ? 0 : ({b} == -1 ? ({vt})(({ut})0 - ({ut}){a}) : ({a} / {b} - ((({a} % {b}) != 0) && (({a} < 0) != ({b} < 0))))))"
            ))
        }
        "floor_divide" if !complex => plain(format!("({b} == 0 ? 0 : {a} / {b})")),
        "remainder" if float => {
            let f = if t == DType::F64 { "d" } else { "f" };
            with(format!("ember_fmod_floor_{f}({a}, {b})"), float_helpers(t, dialect))
        }
        "remainder" if is_signed(t) => plain(format!(
            "({b} == 0 || {b} == -1 ? 0 : ((({a} % {b}) != 0 && (({a} % {b} < 0) != ({b} < 0))) ? {a} % {b} + {b} : {a} % {b}))"
        )),
        "remainder" if !complex => plain(format!("({b} == 0 ? 0 : {a} % {b})")),
        "fmod" if float => plain(format!("fmod({a}, {b})")),
        "fmod" if is_signed(t) => plain(format!("({b} == 0 || {b} == -1 ? 0 : {a} % {b})")),
        "fmod" if !complex => plain(format!("({b} == 0 ? 0 : {a} % {b})")),
        // A float32 power in double precision, rounded once: device powf may be several ulps
        // off (OpenCL allows 16), NumPy's (glibc's) is within one and exact for x**2.
        "power" if t == DType::F32 => plain(format!("((float)pow((double)({a}), (double)({b})))")),
        "power" if float => plain(format!("pow({a}, {b})")),
        "power" if matches!(kind, Kind::Int | Kind::UInt) => {
            with(format!("ember_npow_{}({a}, {b})", t.name()), int_pow_helper(t, dialect))
        }
        "negative" if complex => plain(format!("ember_make_complex{s}(-{a}.x, -{a}.y)")),
        "negative" => plain(format!("(-{a})")),
        "positive" => plain(a),
        "absolute" if complex => plain(format!("ember_cabs{s}({a})")),
        "absolute" if float => plain(format!("fabs({a})")),
        "absolute" if is_signed(t) => plain(format!("({a} < 0 ? -{a} : {a})")),
        "absolute" => plain(a),
        "sign" if complex => plain(format!("ember_csign{s}({a})")),
        // NumPy: +0.0 for either zero, NaN stays NaN.
        "sign" if float => plain(format!("({a} > 0 ? 1 : ({a} < 0 ? -1 : ({a} == 0 ? 0 : {a})))")),
        "sign" if is_signed(t) => plain(format!("(({a} > 0) - ({a} < 0))")),
        "sign" => plain(format!("({a} > 0)")),
        "square" if complex => plain(format!("ember_cmul{s}({a}, {a})")),
        "square" => plain(format!("({a} * {a})")),
        "reciprocal" if complex => plain(format!("ember_crecip{s}({a})")),
        "reciprocal" if float => plain(format!("(1 / {a})")),
        "reciprocal" => plain(format!("({a} == 0 ? 0 : 1 / {a})")),
        // PoCL's float tanh(+-inf) is +-0.99999994, and its log1p is off for tiny values.
        "tanh" if float && dialect.table().guard_tanh_log1p => {
            let vt = value_type(t, dialect);
            plain(format!("(isinf({a}) ? copysign(({vt})1, {a}) : tanh({a}))"))
        }
        "log1p" if float && dialect.table().guard_tanh_log1p => {
            let vt = value_type(t, dialect);
            let tiny = log1p_exact_below(t);
            plain(format!("(fabs({a}) < (({vt}){tiny:?}) ? {a} : log1p({a}))"))
        }
        "sqrt" | "exp" | "exp2" | "log" | "log2" | "log10" | "log1p" | "expm1" | "sin" | "cos" | "tan"
        | "sinh" | "cosh" | "tanh" | "floor" | "ceil" | "trunc" | "rint"
            if float =>
        {
            plain(format!("{name}({a})"))
        }
        "arcsin" | "arccos" | "arctan" | "arcsinh" | "arccosh" | "arctanh" if float => {
            plain(format!("a{}({a})", &name[3..]))
        }
        "arcsinh" | "arccosh" | "arctanh" if complex => {
            with(format!("ember_c{name}{s}({a})"), complex_math(t, dialect))
        }
        "exp" | "log" | "sqrt" | "sin" | "cos" | "sinh" | "cosh" | "tanh" if complex => {
            with(format!("ember_c{name}{s}({a})"), complex_math(t, dialect))
        }
        "log2" | "log10" | "exp2" | "log1p" | "expm1" | "tan" | "arcsin" | "arccos" | "arctan"
        | "rint"
            if complex =>
        {
            with(format!("ember_c{name}{s}({a})"), complex_math(t, dialect))
        }
        "power" if complex => with(format!("ember_cpow{s}({a}, {b})"), complex_math(t, dialect)),
        "arctan2" if float => plain(format!("atan2({a}, {b})")),
        "floor" | "ceil" | "trunc" | "rint" if !complex => plain(a),
        "maximum" | "minimum" if complex => {
            let op = if name == "maximum" { ">" } else { "<" };
            plain(format!("(({a}.x != {a}.x || {a}.y != {a}.y) ? {a} : (({b}.x != {b}.x || {b}.y != {b}.y) ? {b} : (({a}.x {op} {b}.x || ({a}.x == {b}.x && {a}.y {op}= {b}.y)) ? {a} : {b})))"))
        }
        "maximum" | "minimum" => {
            let op = if name == "maximum" { ">=" } else { "<=" };
            if float {
                plain(format!("(({a} != {a}) ? {a} : (({b} != {b}) ? {b} : ({a} {op} {b} ? {a} : {b})))"))
            } else {
                plain(format!("({a} {op} {b} ? {a} : {b})"))
            }
        }
        // NumPy's fmax/fmin on complex: a NaN operand gives way to the other, then the
        // lexicographic order of (real, imaginary).
        "fmax" | "fmin" if complex => {
            let op = if name == "fmax" { ">" } else { "<" };
            plain(format!("(({b}.x != {b}.x || {b}.y != {b}.y) ? {a} : (({a}.x != {a}.x || {a}.y != {a}.y) ? {b} : (({a}.x {op} {b}.x || ({a}.x == {b}.x && {a}.y {op}= {b}.y)) ? {a} : {b})))"))
        }
        "conjugate" if complex => plain(format!("ember_make_complex{s}({a}.x, -{a}.y)")),
        "conjugate" => plain(a),
        "fmax" | "fmin" if float => plain(format!("{name}({a}, {b})")),
        "fmax" | "fmin" if !complex => {
            let op = if name == "fmax" { ">=" } else { "<=" };
            plain(format!("({a} {op} {b} ? {a} : {b})"))
        }
        "isnan" if complex => plain(format!("(isnan({a}.x) || isnan({a}.y))")),
        "isinf" if complex => plain(format!("(isinf({a}.x) || isinf({a}.y))")),
        "isfinite" if complex => plain(format!("(isfinite({a}.x) && isfinite({a}.y))")),
        "isnan" | "isinf" if float => plain(format!("({name}({a}) != 0)")),
        "isfinite" if float => plain(format!("(isfinite({a}) != 0)")),
        "isnan" | "isinf" => plain("0".into()),
        "isfinite" => plain("1".into()),
        "logical_and" | "logical_or" | "logical_xor" | "logical_not" => {
            let truth = |v: &str| {
                if complex {
                    format!("({v}.x != 0 || {v}.y != 0)")
                } else {
                    format!("({v} != 0)")
                }
            };
            plain(match name {
                "logical_and" => format!("({} && {})", truth(&a), truth(&b)),
                "logical_or" => format!("({} || {})", truth(&a), truth(&b)),
                "logical_xor" => format!("({} != {})", truth(&a), truth(&b)),
                _ => format!("(!{})", truth(&a)),
            })
        }
        "bitwise_and" => plain(format!("({a} & {b})")),
        "bitwise_or" => plain(format!("({a} | {b})")),
        "bitwise_xor" => plain(format!("({a} ^ {b})")),
        "invert" if t == DType::Bool => plain(format!("(!{a})")),
        "invert" => plain(format!("(~{a})")),
        // Shifts past the width: 0 (or the sign, shifting a negative right), as NumPy does.
        "left_shift" => plain(format!("(({b}) < 0 || ({b}) >= {bits} ? 0 : {a} << {b})")),
        "right_shift" if is_signed(t) => {
            plain(format!("(({b}) < 0 || ({b}) >= {bits} ? ({a} < 0 ? -1 : 0) : {a} >> {b})"))
        }
        "right_shift" => plain(format!("(({b}) < 0 || ({b}) >= {bits} ? 0 : {a} >> {b})")),
        "equal" | "not_equal" if complex => {
            let e = format!("({a}.x == {b}.x && {a}.y == {b}.y)");
            plain(if name == "equal" { e } else { format!("(!{e})") })
        }
        "less" | "less_equal" | "greater" | "greater_equal" if complex => {
            // NumPy's order: by the real parts where neither imaginary part is NaN, else by
            // the imaginary parts of equal real parts.
            let (strict, op) = match name {
                "less" => ("<", "<"),
                "less_equal" => ("<", "<="),
                "greater" => (">", ">"),
                _ => (">", ">="),
            };
            plain(format!(
                "(({a}.x {strict} {b}.x && !isnan({a}.y) && !isnan({b}.y)) || ({a}.x == {b}.x && {a}.y {op} {b}.y))"
            ))
        }
        "equal" | "not_equal" | "less" | "less_equal" | "greater" | "greater_equal"
            if ins.get(1).is_some_and(|&u| mixed_sign_64(t, u)) =>
        {
            plain(mixed_sign_comparison(name, t, &a, &b, dialect))
        }
        "equal" => plain(format!("({a} == {b})")),
        "not_equal" => plain(format!("({a} != {b})")),
        "less" => plain(format!("({a} < {b})")),
        "less_equal" => plain(format!("({a} <= {b})")),
        "greater" => plain(format!("({a} > {b})")),
        "greater_equal" => plain(format!("({a} >= {b})")),
        "cbrt" | "fabs" if float => plain(format!("{name}({a})")),
        // NumPy's constants, folded in the loop's type (float for float16 and float32).
        "deg2rad" | "radians" | "rad2deg" | "degrees" if float => {
            let (x, y) = match name {
                "deg2rad" | "radians" => ("3.14159265358979323846", "180.0"),
                _ => ("180.0", "3.14159265358979323846"),
            };
            plain(match t {
                DType::F64 => format!("({a} * ({x} / {y}))"),
                _ => format!("({a} * ((float){x}f / (float){y}f))"),
            })
        }
        "signbit" if float => plain(format!("(signbit({a}) != 0)")),
        "copysign" if float => plain(format!("copysign({a}, {b})")),
        // NumPy: NaN stays NaN, 0 gives the second operand, then the step.
        "heaviside" if float => {
            let vt = value_type(t, dialect);
            plain(format!(
                "(isnan({a}) ? {a} : ({a} == 0 ? {b} : ({a} < 0 ? ({vt})0 : ({vt})1)))"
            ))
        }
        "float_power" if float => plain(format!("pow({a}, {b})")),
        "float_power" if complex => {
            with(format!("ember_cpow{s}({a}, {b})"), complex_math(t, dialect))
        }
        "hypot" if float => plain(format!("hypot({a}, {b})")),
        // NumPy's int64 exponents: beyond any float's range the result is 0 or inf anyway.
        "ldexp" if float && ins.get(1) == Some(&DType::I64) => plain(format!(
            "ldexp({a}, (int)({b} > 100000 ? 100000 : ({b} < -100000 ? -100000 : {b})))"
        )),
        "ldexp" if float => plain(format!("ldexp({a}, {b})")),
        // The 1-bits of the magnitude (NumPy counts |x| of signed values).
        "bitwise_count" if matches!(kind, Kind::Int | Kind::UInt) => {
            let ut = value_type(DType::U64, dialect);
            let magnitude = if is_signed(t) {
                format!("({a} < 0 ? ({ut})0 - ({ut}){a} : ({ut}){a})")
            } else {
                format!("({ut}){a}")
            };
            plain(match dialect {
                Dialect::Cuda => format!("__popcll({magnitude})"),
                Dialect::OpenCl => format!("popcount({magnitude})"),
            })
        }
        "gcd" | "lcm" if matches!(kind, Kind::Int | Kind::UInt) => {
            with(format!("ember_{name}_{}({a}, {b})", t.name()), gcd_lcm_helpers(t, dialect))
        }
        _ => unsupported(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pocl_tanh_and_log1p_are_exact_at_infinity_and_tiny_values() {
        let args = ["a".to_string()];
        let code = |name: &str, d: DType, dialect: Dialect| {
            expression(name, &[d], d, &args, dialect).unwrap().code
        };
        assert_eq!(code("tanh", DType::F32, Dialect::Cuda), "tanh(a)");
        assert_eq!(code("log1p", DType::F64, Dialect::Cuda), "log1p(a)");
        assert_eq!(
            code("tanh", DType::F16, Dialect::OpenCl),
            "(isinf(a) ? copysign((float)1, a) : tanh(a))"
        );
        assert_eq!(
            code("log1p", DType::F64, Dialect::OpenCl),
            "(fabs(a) < ((double)8.673617379884035e-19) ? a : log1p(a))"
        );
        assert!(
            code("log1p", DType::F32, Dialect::OpenCl).contains("((float)9.313225746154785e-10)")
        );
    }

    #[test]
    fn complex_ordering_is_false_where_an_imaginary_part_is_nan() {
        let args = ["a".to_string(), "b".to_string()];
        let e = expression(
            "less_equal",
            &[DType::C128; 2],
            DType::Bool,
            &args,
            Dialect::Cuda,
        )
        .unwrap();
        assert_eq!(
            e.code,
            "((a.x < b.x && !isnan(a.y) && !isnan(b.y)) || (a.x == b.x && a.y <= b.y))"
        );
    }
}
