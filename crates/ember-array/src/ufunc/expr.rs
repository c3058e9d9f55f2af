//! Each ufunc's C expression over values already converted to its loop's types, and the
//! small device functions some of them call (NumPy's semantics where C's differ: floor
//! division and modulo signs, division by zero on integers, NaN-propagating maximum, shifts
//! past the width, complex arithmetic).

use ember_codegen::types::value_type;
use ember_codegen::Dialect;
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

fn complex_helpers(d: DType, dialect: Dialect) -> String {
    let (c, r, s) = if d == DType::C128 {
        ("ember_c128", "double", "128")
    } else {
        ("ember_c64", "float", "64")
    };
    let make = format!("ember_make_complex{s}");
    let _ = dialect;
    format!(
        "static __device__ inline {c} ember_cmul{s}({c} a, {c} b) {{ return {make}(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }}\n\
         static __device__ inline {c} ember_cdiv{s}({c} a, {c} b) {{ {r} d = b.x * b.x + b.y * b.y; return {make}((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d); }}\n\
         static __device__ inline {r} ember_cabs{s}({c} a) {{ return hypot(a.x, a.y); }}\n"
    )
}

/// Complex elementary functions, from their real and imaginary parts.
fn complex_math_helpers(d: DType, dialect: Dialect) -> String {
    let (c, r, s) = if d == DType::C128 {
        ("ember_c128", "double", "128")
    } else {
        ("ember_c64", "float", "64")
    };
    let make = format!("ember_make_complex{s}");
    format!(
        "{base}\
         static __device__ inline {c} ember_cexp{s}({c} z) {{ {r} e = exp(z.x); return {make}(e * cos(z.y), e * sin(z.y)); }}\n\
         static __device__ inline {c} ember_clog{s}({c} z) {{ return {make}(log(hypot(z.x, z.y)), atan2(z.y, z.x)); }}\n\
         static __device__ inline {c} ember_clog2{s}({c} z) {{ {c} l = ember_clog{s}(z); return {make}(l.x / ({r}){ln2:?}, l.y / ({r}){ln2:?}); }}\n\
         static __device__ inline {c} ember_clog10{s}({c} z) {{ {c} l = ember_clog{s}(z); return {make}(l.x / ({r}){ln10:?}, l.y / ({r}){ln10:?}); }}\n\
         static __device__ inline {c} ember_csqrt{s}({c} z) {{\n\
           {r} m = hypot(z.x, z.y); if (m == 0) return {make}(0, z.y);\n\
           {r} t = sqrt((m + fabs(z.x)) / 2);\n\
           if (z.x >= 0) return {make}(t, z.y / (2 * t));\n\
           return {make}(fabs(z.y) / (2 * t), copysign(t, z.y)); }}\n\
         static __device__ inline {c} ember_csin{s}({c} z) {{ return {make}(sin(z.x) * cosh(z.y), cos(z.x) * sinh(z.y)); }}\n\
         static __device__ inline {c} ember_ccos{s}({c} z) {{ return {make}(cos(z.x) * cosh(z.y), -sin(z.x) * sinh(z.y)); }}\n\
         static __device__ inline {c} ember_csinh{s}({c} z) {{ return {make}(sinh(z.x) * cos(z.y), cosh(z.x) * sin(z.y)); }}\n\
         static __device__ inline {c} ember_ccosh{s}({c} z) {{ return {make}(cosh(z.x) * cos(z.y), sinh(z.x) * sin(z.y)); }}\n\
         static __device__ inline {c} ember_ctanh{s}({c} z) {{ return ember_cdiv{s}(ember_csinh{s}(z), ember_ccosh{s}(z)); }}\n\
         static __device__ inline {c} ember_cpow{s}({c} a, {c} b) {{ if (a.x == 0 && a.y == 0) return {make}((b.x == 0 && b.y == 0) ? 1 : 0, 0); return ember_cexp{s}(ember_cmul{s}(b, ember_clog{s}(a))); }}\n\
         static __device__ inline {c} ember_cexp2{s}({c} z) {{ return ember_cexp{s}({make}(z.x * ({r}){ln2:?}, z.y * ({r}){ln2:?})); }}\n\
         static __device__ inline {c} ember_clog1p{s}({c} z) {{ return {make}(({r})0.5 * log1p(z.x * (2 + z.x) + z.y * z.y), atan2(z.y, 1 + z.x)); }}\n\
         static __device__ inline {c} ember_cexpm1{s}({c} z) {{ {r} h = sin(z.y / 2); return {make}(expm1(z.x) * cos(z.y) - 2 * h * h, exp(z.x) * sin(z.y)); }}\n\
         static __device__ inline {c} ember_ctan{s}({c} z) {{\n\
           if (fabs(z.y) > 20) return {make}(copysign(({r})0, sin(2 * z.x)), copysign(({r})1, z.y));\n\
           {r} d = cos(2 * z.x) + cosh(2 * z.y); return {make}(sin(2 * z.x) / d, sinh(2 * z.y) / d); }}\n\
         static __device__ inline {c} ember_csqrt1mz2{s}({c} z) {{ return ember_csqrt{s}({make}(1 - (z.x - z.y) * (z.x + z.y), -2 * z.x * z.y)); }}\n\
         static __device__ inline {c} ember_carcsin{s}({c} z) {{\n\
           if (fabs(z.x) + fabs(z.y) < ({r})1e-3) {{ {c} z2 = ember_cmul{s}(z, z); {c} z3 = ember_cmul{s}(z2, z); {c} z5 = ember_cmul{s}(z3, z2); return {make}(z.x + z3.x / 6 + 3 * z5.x / 40, z.y + z3.y / 6 + 3 * z5.y / 40); }}\n\
           {c} w = ember_csqrt1mz2{s}(z); {c} l = ember_clog{s}({make}(w.x - z.y, w.y + z.x)); return {make}(l.y, -l.x); }}\n\
         static __device__ inline {c} ember_carccos{s}({c} z) {{ {c} w = ember_csqrt1mz2{s}(z); {c} l = ember_clog{s}({make}(z.x - w.y, z.y + w.x)); return {make}(l.y, -l.x); }}\n\
         static __device__ inline {c} ember_carctan{s}({c} z) {{ {r} d = z.x * z.x + (1 - z.y) * (1 - z.y); return {make}(atan2(2 * z.x, (1 - z.y) * (1 + z.y) - z.x * z.x) / 2, log1p(4 * z.y / d) / 4); }}\n\
         static __device__ inline {c} ember_crint{s}({c} z) {{ return {make}(rint(z.x), rint(z.y)); }}\n",
        base = complex_helpers(d, dialect),
        ln2 = std::f64::consts::LN_2,
        ln10 = std::f64::consts::LN_10,
    )
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

fn int_pow_helper(d: DType, dialect: Dialect) -> String {
    let t = value_type(d, dialect);
    let n = d.name();
    // Exponentiation by squaring; a negative exponent gives 0 (NumPy raises on the host).
    format!(
        "static __device__ inline {t} ember_ipow_{n}({t} a, {t} b) {{\n\
           {t} r = 1; if (b < 0) return ({t})(a == 1 ? 1 : (a == ({t})-1 ? ((b & 1) ? -1 : 1) : 0));\n\
           while (b) {{ if (b & 1) r *= a; a *= a; b >>= 1; }} return r; }}\n"
    )
}

fn is_signed(d: DType) -> bool {
    d.kind() == Kind::Int
}

/// The expression of ufunc `name` over `args` (values of the loop's input types `ins`),
/// producing a value of its first output type `out`.
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
    let ch = || complex_helpers(t, dialect);
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
        "multiply" if complex => with(format!("ember_cmul{s}({a}, {b})"), ch()),
        "multiply" => plain(format!("({a} * {b})")),
        "divide" | "true_divide" if complex => with(format!("ember_cdiv{s}({a}, {b})"), ch()),
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
        "power" if float => plain(format!("pow({a}, {b})")),
        "power" if matches!(kind, Kind::Int | Kind::UInt) => {
            with(format!("ember_ipow_{}({a}, {b})", t.name()), int_pow_helper(t, dialect))
        }
        "negative" if complex => plain(format!("ember_make_complex{s}(-{a}.x, -{a}.y)")),
        "negative" => plain(format!("(-{a})")),
        "positive" => plain(a),
        "absolute" if complex => with(format!("ember_cabs{s}({a})"), ch()),
        "absolute" if float => plain(format!("fabs({a})")),
        "absolute" if is_signed(t) => plain(format!("({a} < 0 ? -{a} : {a})")),
        "absolute" => plain(a),
        "sign" if complex => with(
            format!("({a}.x == 0 && {a}.y == 0 ? {a} : ember_make_complex{s}({a}.x / ember_cabs{s}({a}), {a}.y / ember_cabs{s}({a})))"),
            ch(),
        ),
        "sign" if float => plain(format!("({a} > 0 ? 1 : ({a} < 0 ? -1 : {a}))")),
        "sign" if is_signed(t) => plain(format!("(({a} > 0) - ({a} < 0))")),
        "sign" => plain(format!("({a} > 0)")),
        "square" if complex => with(format!("ember_cmul{s}({a}, {a})"), ch()),
        "square" => plain(format!("({a} * {a})")),
        "reciprocal" if complex => with(format!("ember_cdiv{s}(ember_make_complex{s}(1, 0), {a})"), ch()),
        "reciprocal" if float => plain(format!("(1 / {a})")),
        "reciprocal" => plain(format!("({a} == 0 ? 0 : 1 / {a})")),
        "sqrt" | "exp" | "exp2" | "log" | "log2" | "log10" | "log1p" | "expm1" | "sin" | "cos" | "tan"
        | "sinh" | "cosh" | "tanh" | "floor" | "ceil" | "trunc" | "rint"
            if float =>
        {
            plain(format!("{name}({a})"))
        }
        "arcsin" | "arccos" | "arctan" if float => plain(format!("a{}({a})", &name[3..])),
        "exp" | "log" | "sqrt" | "sin" | "cos" | "sinh" | "cosh" | "tanh" if complex => {
            with(format!("ember_c{name}{s}({a})"), complex_math_helpers(t, dialect))
        }
        "log2" | "log10" | "exp2" | "log1p" | "expm1" | "tan" | "arcsin" | "arccos" | "arctan"
        | "rint"
            if complex =>
        {
            with(format!("ember_c{name}{s}({a})"), complex_math_helpers(t, dialect))
        }
        "power" if complex => with(format!("ember_cpow{s}({a}, {b})"), complex_math_helpers(t, dialect)),
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
            let (op, eq) = match name {
                "less" => ("<", false),
                "less_equal" => ("<", true),
                "greater" => (">", false),
                _ => (">", true),
            };
            let tie = if eq { format!("{a}.y {op}= {b}.y") } else { format!("{a}.y {op} {b}.y") };
            plain(format!("({a}.x {op} {b}.x || ({a}.x == {b}.x && {tie}))"))
        }
        "equal" => plain(format!("({a} == {b})")),
        "not_equal" => plain(format!("({a} != {b})")),
        "less" => plain(format!("({a} < {b})")),
        "less_equal" => plain(format!("({a} <= {b})")),
        "greater" => plain(format!("({a} > {b})")),
        "greater_equal" => plain(format!("({a} >= {b})")),
        _ => unsupported(),
    }
}
