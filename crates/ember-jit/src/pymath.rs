//! Python's `math` and `cmath` where their results are not C's or NumPy's: the device
//! functions behind [`crate::ir::ExprKind::PyMath`], one per function and argument dtype
//! (`ember_py_<name>_<dtype>`).
//!
//! `cmath` in kernels computes with NumPy's complex functions (the prelude's, exactly NumPy's
//! results), then takes CPython's value at the few special inputs where the two differ (the
//! sign of an infinity C99 leaves open, a NaN where NumPy gives a number), as Numba's `cmath`
//! gives CPython's. Complex division, `frexp`, `modf`, `ldexp` and `rect` are CPython's
//! functions outright.

use ember_codegen::types::value_type;
use ember_codegen::Dialect;
use ember_core::DType;

/// A rule: when (C condition), the real and imaginary parts.
type Rule = (&'static str, &'static str, &'static str);

/// CPython's special values where NumPy's differ: per `cmath` function, its helper's name and
/// rules (condition on the argument `z`, real part, imaginary part) in C over `z`, NumPy's
/// result `w`, `I` (infinity) and `N` (NaN). Found by comparing the two over every pair of ±inf, ±finite, ±0 and NaN parts
/// (tests/jit/test_jit_pymath.py checks them against Python).
const SPECIAL: &[(&str, &str, &[Rule])] = &[
    ("acos", "cacos", &[("isinf(z.x) && isnan(z.y)", "N", "I")]),
    ("acosh", "cacosh", &[("z.x == 0 && isnan(z.y)", "N", "N")]),
    ("asin", "casin", &[("isinf(z.x) && isnan(z.y)", "N", "-I")]),
    (
        "atan",
        "catan",
        &[("isinf(z.x) && isnan(z.y)", "w.x", "-0.0")],
    ),
    ("cos", "ccos", &[("z.x == 0 && isnan(z.y)", "N", "0")]),
    ("cosh", "ccosh", &[("isnan(z.x) && z.y == 0", "N", "0")]),
    (
        "exp",
        "cexp",
        &[("isinf(z.x) && z.x < 0 && isinf(z.y)", "0", "0")],
    ),
    (
        "sin",
        "csin",
        &[
            ("isnan(z.x) && isinf(z.y)", "N", "-I"),
            ("isnan(z.x) && z.y == 0", "N", "-0.0"),
        ],
    ),
    ("sinh", "csinh", &[("z.x == 0 && isnan(z.y)", "0", "N")]),
    (
        "tan",
        "ctan",
        &[
            ("isinf(z.x) && isinf(z.y)", "0", "w.y"),
            ("isnan(z.x) && z.y == 0", "N", "N"),
        ],
    ),
    (
        "tanh",
        "ctanh",
        &[
            ("isinf(z.x) && isinf(z.y)", "w.x", "0"),
            ("z.x == 0 && isnan(z.y)", "N", "N"),
        ],
    ),
];

/// The helper that gives `cmath.<name>` CPython's special values (`ember_py_c<name>(z, w)`),
/// if NumPy's ever differ.
pub fn fixed_cmath(name: &str) -> Option<&'static str> {
    SPECIAL
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, helper, _)| *helper)
}

/// The C name of function `name` of an argument of dtype `d`.
pub fn c_name(name: &str, d: DType) -> String {
    format!("ember_py_{name}_{}", d.name())
}

/// The C definition of function `name` for arguments of dtype `d` (complex for the `c*`
/// functions, the real type for the others).
pub fn source(name: &str, d: DType, dialect: Dialect) -> String {
    let table = dialect.table();
    let dev = table.device_fn;
    let (inf, nan) = (table.infinity, table.nan);
    let f = c_name(name, d);
    let t = value_type(d, dialect);
    let (s, r) = match d {
        DType::C64 | DType::F32 => ("64", "float"),
        _ => ("128", "double"),
    };
    let mk = format!("ember_make_complex{s}");
    let suffix = if r == "float" {
        table.float32_math_suffix
    } else {
        ""
    };
    // A product never fused into the sum after it (CPython computes each in turn: a fused
    // `a.y - a.x * ratio` leaves its rounding error where CPython's x / x gives 0).
    let mul = |a: &str, b: &str| match dialect {
        Dialect::Cuda if r == "float" => format!("__fmul_rn({a}, {b})"),
        Dialect::Cuda => format!("__dmul_rn({a}, {b})"),
        Dialect::OpenCl => format!("({a} * {b})"),
    };
    let unfused = |function: String| match dialect {
        Dialect::Cuda => function,
        Dialect::OpenCl => {
            format!("#pragma OPENCL FP_CONTRACT OFF\n{function}#pragma OPENCL FP_CONTRACT ON\n")
        }
    };
    match name {
        // a / b: CPython's quotient (Numba's): scaled by b's larger part, divided by the
        // denominator (NumPy multiplies by its reciprocal); NumPy's where b is 0.
        "cdiv" => unfused(format!(
            "{dev} {t} {f}({t} a, {t} b) {{
  {r} abr = fabs(b.x), abi = fabs(b.y);
  if (abr >= abi) {{
    if (abr == 0) return ember_cdiv{s}(a, b);
    {r} ratio = b.y / b.x, denom = b.x + {byr};
    return {mk}((a.x + {ayr}) / denom, (a.y - {axr}) / denom);
  }}
  if (abi >= abr) {{
    {r} ratio = b.x / b.y, denom = {bxr} + b.y;
    return {mk}(({axr} + a.y) / denom, ({ayr} - a.x) / denom);
  }}
  return {mk}(({r}){nan}, ({r}){nan});
}}
",
            byr = mul("b.y", "ratio"),
            bxr = mul("b.x", "ratio"),
            ayr = mul("a.y", "ratio"),
            axr = mul("a.x", "ratio"),
        )),
        _ if SPECIAL.iter().any(|(_, h, _)| *h == name) => {
            // CPython's value where it differs from NumPy's, else NumPy's result `w`.
            let (_, _, rules) = SPECIAL.iter().find(|(_, h, _)| *h == name).unwrap();
            let part = |v: &str| match v {
                "I" => format!("({r}){inf}"),
                "-I" => format!("-({r}){inf}"),
                "N" => format!("({r}){nan}"),
                v => format!("({r})({v})"),
            };
            let mut body = String::new();
            for (cond, re, im) in rules.iter() {
                body.push_str(&format!("  if ({cond}) return {mk}({}, {});\n", part(re), part(im)));
            }
            format!("{dev} {t} {f}({t} z, {t} w) {{\n{body}  return w;\n}}\n")
        }
        // a ** b: CPython's complex power (Numba's): by squaring for an integral exponent up to
        // 100 in size, else through the polar form; 0 ** b is 0, or NaN where CPython raises.
        "cpow" => unfused(format!(
            "{dev} {t} {f}({t} a, {t} b) {{
  if (b.y == 0 && b.x == floor{suffix}(b.x) && fabs{suffix}(b.x) <= 100) {{
    int n = (int)b.x, m = n < 0 ? -n : n;
    {t} r = {mk}(1, 0), p = a;
    while (m) {{
      if (m & 1) r = {mk}({rxpx} - {rypy}, {rxpy} + {rypx});
      m >>= 1;
      p = {mk}({pxpx} - {pypy}, {pxpy} + {pypx});
    }}
    return n < 0 ? {cdiv}({mk}(1, 0), r) : r;
  }}
  if (a.x == 0 && a.y == 0) return (b.y != 0 || b.x < 0) ? {mk}(({r}){nan}, ({r}){nan}) : {mk}(0, 0);
  {r} vabs = hypot{suffix}(a.x, a.y), len = pow{suffix}(vabs, b.x), at = atan2{suffix}(a.y, a.x), phase = at * b.x;
  if (b.y != 0) {{ len /= exp{suffix}(at * b.y); phase += {ylog}; }}
  return {mk}(len * cos{suffix}(phase), len * sin{suffix}(phase));
}}
",
            cdiv = c_name("cdiv", d),
            rxpx = mul("r.x", "p.x"),
            rypy = mul("r.y", "p.y"),
            rxpy = mul("r.x", "p.y"),
            rypx = mul("r.y", "p.x"),
            pxpx = mul("p.x", "p.x"),
            pypy = mul("p.y", "p.y"),
            pxpy = mul("p.x", "p.y"),
            pypx = mul("p.y", "p.x"),
            ylog = mul("b.y", &format!("log{suffix}(vabs)")),
        )),
        // cmath.rect(r, phi): CPython's, special values included (r·(cos phi, sin phi)).
        "rect" => {
            let c = if d == DType::F32 { "ember_c64" } else { "ember_c128" };
            let (cos, sin, cps) = (format!("cos{suffix}"), format!("sin{suffix}"), format!("copysign{suffix}"));
            format!(
                "{dev} {c} {f}({r} m, {r} phi) {{
  if (!isfinite(m) || !isfinite(phi)) {{
    {r} i = ({r}){inf}, n = ({r}){nan};
    if (isinf(m) && isfinite(phi) && phi != 0) {{
      {r} re = {cps}(i, {cos}(phi)), im = {cps}(i, {sin}(phi));
      return m > 0 ? {mk}(re, im) : {mk}(-re, -im);
    }}
    if (isinf(m)) return isfinite(phi) ? {mk}(m, m > 0 ? phi : -phi) : {mk}(i, n);
    if (isnan(m)) return {mk}(n, phi == 0 ? ({r})0 : n);
    if (m == 0) return {mk}(({r})0, ({r})0);
    return {mk}(n, n);
  }}
  if (phi == 0) return {mk}(m, m * phi);
  return {mk}(m * {cos}(phi), m * {sin}(phi));
}}
"
            )
        }
        // math.frexp(x): (m, e) with 0.5 <= |m| < 1; x itself and 0 for 0, infinities, NaN.
        "frexp_m" => format!(
            "{dev} {t} {f}({t} x) {{ int e; return (x == 0 || !isfinite(x)) ? x : frexp{suffix}(x, &e); }}\n"
        ),
        "frexp_e" => format!(
            "{dev} int {f}({t} x) {{ int e = 0; if (x != 0 && isfinite(x)) (void)frexp{suffix}(x, &e); return e; }}\n"
        ),
        // math.modf(x): (fraction, integer part), both with x's sign; (±0, ±inf) for ±inf.
        "modf_f" => format!(
            "{dev} {t} {f}({t} x) {{ return copysign{suffix}(isinf(x) ? ({t})0 : x - trunc{suffix}(x), x); }}\n"
        ),
        // math.ldexp(x, e): the exponent clamped to int's range (beyond it the result is
        // already 0 or infinite).
        "ldexp" => {
            let l = table.int64;
            format!(
                "{dev} {t} {f}({t} x, {l} e) {{ return ldexp{suffix}(x, (int)(e > 100000 ? 100000 : (e < -100000 ? -100000 : e))); }}\n"
            )
        }
        "modf_i" => format!("{dev} {t} {f}({t} x) {{ return trunc{suffix}(x); }}\n"),
        _ => unreachable!("no Python math function {name}"),
    }
}
