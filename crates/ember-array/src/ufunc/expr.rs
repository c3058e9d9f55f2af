//! Each ufunc's C expression over values already converted to its loop's types, and the
//! small device functions some of them call (NumPy's semantics where C's differ: floor
//! division and modulo signs, division by zero on integers, NaN-propagating maximum, shifts
//! past the width, complex arithmetic).

use ember_codegen::types::{complex_product, value_type};
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

/// Below this magnitude `log1p(x)` rounds to `x` in `d`'s real type (2^-30 for float32 and
/// float16, which compute in float32; 2^-60 for float64): PoCL's `log1p` is off there, down to
/// 0 for subnormals, so ember returns `x` itself, as NumPy's libm does.
fn log1p_exact_below(d: DType) -> f64 {
    if matches!(d, DType::C128 | DType::F64) {
        2f64.powi(-60)
    } else {
        2f64.powi(-30)
    }
}

fn suffix(d: DType) -> &'static str {
    if d == DType::C128 || d == DType::F64 {
        "128"
    } else {
        "64"
    }
}

/// A complex helper's C text with its names filled in: `@C@` the complex type, `@R@` its real
/// type, `@S@` the suffix of the helper names, `@MK@` the constructor, `@INF@` and `@NAN@`
/// (as `@R@` values), `@PI2@`, `@PI4@`, `@LN2@` and `@LN10@`, `@TINY@` (below it a square
/// may be subnormal) and `@L1P@` (see [`log1p_exact_below`]). Each helper starts a line with
/// `static __device__` and no other line does (fused kernels define each helper once).
fn complex_text(template: &str, d: DType, dialect: Dialect) -> String {
    let (c, r, s) = if d == DType::C128 {
        ("ember_c128", "double", "128")
    } else {
        ("ember_c64", "float", "64")
    };
    // Below this a square may be subnormal (arcsin, arccos and arctan take another path).
    let tiny = if d == DType::C128 { 1e-150 } else { 1e-18 };
    let nan = match dialect {
        Dialect::Cuda => "__int_as_float(0x7fffffff)",
        Dialect::OpenCl => "NAN",
    };
    template
        .replace("@CMUL@", &complex_product("a", "b", "@MK@"))
        .replace("@MK@", &format!("ember_make_complex{s}"))
        .replace("@INF@", &format!("(({r}){})", dialect.table().infinity))
        .replace("@NAN@", &format!("(({r}){nan})"))
        .replace(
            "@PI2@",
            &format!("(({r}){:?})", std::f64::consts::FRAC_PI_2),
        )
        .replace(
            "@PI4@",
            &format!("(({r}){:?})", std::f64::consts::FRAC_PI_4),
        )
        .replace("@LN2@", &format!("(({r}){:?})", std::f64::consts::LN_2))
        .replace("@LN10@", &format!("(({r}){:?})", std::f64::consts::LN_10))
        .replace("@TINY@", &format!("(({r}){tiny:?})"))
        .replace("@L1P@", &format!("(({r}){:?})", log1p_exact_below(d)))
        .replace("@C@", c)
        .replace("@R@", r)
        .replace("@S@", s)
}

/// Complex arithmetic as NumPy does it: its product (`@CMUL@`, see [`complex_product`]),
/// Smith's quotient (NumPy's divide loop: a zero divisor divides each part by zero), its
/// reciprocal and sign loops.
const COMPLEX_ARITHMETIC: &str = r#"static __device__ inline @C@ ember_cmul@S@(@C@ a, @C@ b) { return @CMUL@; }
static __device__ inline @C@ ember_cdiv@S@(@C@ a, @C@ b) {
  @R@ abr = fabs(b.x), abi = fabs(b.y);
  if (abr >= abi) {
    if (abr == 0 && abi == 0) return @MK@(a.x / abr, a.y / abi);
    @R@ rat = b.y / b.x, scl = (@R@)1 / (b.x + b.y * rat);
    return @MK@((a.x + a.y * rat) * scl, (a.y - a.x * rat) * scl);
  }
  @R@ rat = b.x / b.y, scl = (@R@)1 / (b.y + b.x * rat);
  return @MK@((a.x * rat + a.y) * scl, (a.y * rat - a.x) * scl); }
static __device__ inline @R@ ember_cabs@S@(@C@ a) { return hypot(a.x, a.y); }
static __device__ inline @C@ ember_crecip@S@(@C@ z) {
  if (fabs(z.y) <= fabs(z.x)) { @R@ q = z.y / z.x, d = z.x + z.y * q; return @MK@((@R@)1 / d, -q / d); }
  @R@ q = z.x / z.y, d = z.x * q + z.y; return @MK@(q / d, (@R@)-1 / d); }
static __device__ inline @C@ ember_csign@S@(@C@ z) {
  @R@ m = hypot(z.x, z.y);
  if (isinf(m)) {
    if (isinf(z.x) && isinf(z.y)) return @MK@(@NAN@, @NAN@);
    if (isinf(z.x)) return @MK@(copysign((@R@)1, z.x), 0);
    return @MK@(0, copysign((@R@)1, z.y));
  }
  if (m == 0) return @MK@(0, 0);
  return @MK@(z.x / m, z.y / m); }
"#;

/// Complex elementary functions, from their real and imaginary parts; zeros, infinities and
/// NaN as C99 Annex G (and so NumPy) has them, in branches finite values skip.
///
/// Finite values, to a few ulps everywhere: `tan` by Kahan's formula (tan x, sinh y and cosh y
/// combined without cancellation, so accurate at its poles); `arcsin` and `arccos` by Hull,
/// Fairgrieve and Tang's algorithm (the first quadrant from |z + 1| and |z - 1|, then the
/// symmetries), with log(2|z|) and the argument past |z| = 1e8; `arctan` from
/// log1p(4|y| / (x^2 + (1 - |y|)^2)), the difference of logarithms right at +-i, and 1/z's
/// first term past |z| = 1e8.
const COMPLEX_MATH: &str = r#"static __device__ inline @R@ ember_log1p@S@(@R@ v) { return fabs(v) < @L1P@ ? v : log1p(v); }
static __device__ inline @C@ ember_cmul_annexg@S@(@C@ a, @C@ b) {
  @R@ ac = a.x * b.x, bd = a.y * b.y, ad = a.x * b.y, bc = a.y * b.x;
  @R@ x = ac - bd, y = ad + bc;
  if (isnan(x) && isnan(y)) {
    @R@ p = a.x, q = a.y, u = b.x, v = b.y; int redo = 0;
    if (isinf(p) || isinf(q)) {
      p = copysign(isinf(p) ? (@R@)1 : (@R@)0, p); q = copysign(isinf(q) ? (@R@)1 : (@R@)0, q);
      if (isnan(u)) u = copysign((@R@)0, u);
      if (isnan(v)) v = copysign((@R@)0, v);
      redo = 1;
    }
    if (isinf(u) || isinf(v)) {
      u = copysign(isinf(u) ? (@R@)1 : (@R@)0, u); v = copysign(isinf(v) ? (@R@)1 : (@R@)0, v);
      if (isnan(p)) p = copysign((@R@)0, p);
      if (isnan(q)) q = copysign((@R@)0, q);
      redo = 1;
    }
    if (!redo && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
      if (isnan(p)) p = copysign((@R@)0, p);
      if (isnan(q)) q = copysign((@R@)0, q);
      if (isnan(u)) u = copysign((@R@)0, u);
      if (isnan(v)) v = copysign((@R@)0, v);
      redo = 1;
    }
    if (redo) { x = @INF@ * (p * u - q * v); y = @INF@ * (p * v + q * u); }
  }
  return @MK@(x, y); }
static __device__ inline @C@ ember_cexp@S@(@C@ z) {
  if (z.y == 0) return @MK@(exp(z.x), z.y);
  if (isinf(z.x) && !isfinite(z.y)) return z.x > 0 ? @MK@(z.x, z.y - z.y) : @MK@(0, 0);
  @R@ e = exp(z.x); return @MK@(e * cos(z.y), e * sin(z.y)); }
static __device__ inline @C@ ember_clog@S@(@C@ z) { return @MK@(log(hypot(z.x, z.y)), atan2(z.y, z.x)); }
static __device__ inline @C@ ember_clog2@S@(@C@ z) { @C@ l = ember_clog@S@(z); return @MK@(l.x / @LN2@, l.y / @LN2@); }
static __device__ inline @C@ ember_clog10@S@(@C@ z) { @C@ l = ember_clog@S@(z); return @MK@(l.x / @LN10@, l.y / @LN10@); }
static __device__ inline @C@ ember_csqrt@S@(@C@ z) {
  if (isinf(z.y)) return @MK@(fabs(z.y), z.y);
  if (isinf(z.x)) return z.x > 0 ? @MK@(z.x, copysign(z.y - z.y, z.y)) : @MK@(fabs(z.y - z.y), copysign(z.x, z.y));
  @R@ m = hypot(z.x, z.y); if (m == 0) return @MK@(0, z.y);
  @R@ t = sqrt((m + fabs(z.x)) / 2);
  if (z.x >= 0) return @MK@(t, z.y / (2 * t));
  return @MK@(fabs(z.y) / (2 * t), copysign(t, z.y)); }
static __device__ inline @C@ ember_csinh@S@(@C@ z) {
  if (z.y == 0) return @MK@(sinh(z.x), z.y);
  if (!isfinite(z.y) && (z.x == 0 || isinf(z.x))) return @MK@(z.x == 0 ? z.x : fabs(z.x), z.y - z.y);
  return @MK@(sinh(z.x) * cos(z.y), cosh(z.x) * sin(z.y)); }
static __device__ inline @C@ ember_ccosh@S@(@C@ z) {
  if (z.y == 0) return @MK@(cosh(z.x), copysign((@R@)0, z.x) * z.y);
  if (!isfinite(z.y) && z.x == 0) return @MK@(z.y - z.y, 0);
  if (!isfinite(z.y) && isinf(z.x)) return @MK@(fabs(z.x), z.y - z.y);
  return @MK@(cosh(z.x) * cos(z.y), sinh(z.x) * sin(z.y)); }
static __device__ inline @C@ ember_csin@S@(@C@ z) {
  if (isinf(z.y) && !isfinite(z.x)) return @MK@(z.x - z.x, fabs(z.y));
  @C@ w = ember_csinh@S@(@MK@(-z.y, z.x)); return @MK@(w.y, -w.x); }
static __device__ inline @C@ ember_ccos@S@(@C@ z) { return ember_ccosh@S@(@MK@(-z.y, z.x)); }
static __device__ inline @C@ ember_ctanh@S@(@C@ z) {
  if (!isfinite(z.y)) {
    if (isinf(z.x)) return @MK@(copysign((@R@)1, z.x), copysign((@R@)0, z.y));
    if (z.x == 0) return @MK@(z.x, z.y - z.y);
    return @MK@(z.y - z.y, z.y - z.y);
  }
  if (fabs(z.x) > 20) return @MK@(copysign((@R@)1, z.x), 4 * sin(z.y) * cos(z.y) * exp(-2 * fabs(z.x)));
  if (z.y == 0) return @MK@(tanh(z.x), z.y);
  return ember_cdiv@S@(ember_csinh@S@(z), ember_ccosh@S@(z)); }
static __device__ inline @C@ ember_cpow@S@(@C@ a, @C@ b) {
  if (b.x == 0 && b.y == 0) return @MK@(1, 0);
  if (a.x == 0 && a.y == 0) return b.x > 0 ? @MK@(0, 0) : @MK@(@NAN@, @NAN@);
  if (b.y == 0 && b.x > -100 && b.x < 100 && b.x == (@R@)(int)b.x) {
    int n = (int)b.x;
    if (n == 1) return a;
    if (n == 2) return ember_cmul@S@(a, a);
    if (n == 3) return ember_cmul@S@(a, ember_cmul@S@(a, a));
    int m = n < 0 ? -n : n; @C@ r = @MK@(1, 0), p = a;
    while (1) { if (m & 1) r = ember_cmul@S@(r, p); m >>= 1; if (m == 0) break; p = ember_cmul@S@(p, p); }
    return n < 0 ? ember_cdiv@S@(@MK@(1, 0), r) : r;
  }
  return ember_cexp@S@(ember_cmul_annexg@S@(b, ember_clog@S@(a))); }
static __device__ inline @C@ ember_cexp2@S@(@C@ z) { return ember_cexp@S@(@MK@(z.x * @LN2@, z.y * @LN2@)); }
static __device__ inline @C@ ember_clog1p@S@(@C@ z) {
  if (!(fabs(z.x) + fabs(z.y) < 10000)) return @MK@(log(hypot(z.x + 1, z.y)), atan2(z.y, z.x + 1));
  return @MK@((@R@)0.5 * ember_log1p@S@(z.x * (2 + z.x) + z.y * z.y), atan2(z.y, 1 + z.x)); }
static __device__ inline @C@ ember_cexpm1@S@(@C@ z) { @R@ h = sin(z.y / 2); return @MK@(expm1(z.x) * cos(z.y) - 2 * h * h, exp(z.x) * sin(z.y)); }
static __device__ inline @C@ ember_ctan@S@(@C@ z) {
  if (!isfinite(z.x) || !isfinite(z.y)) { @C@ w = ember_ctanh@S@(@MK@(-z.y, z.x)); return @MK@(w.y, -w.x); }
  if (fabs(z.y) > 20) return @MK@(4 * sin(z.x) * cos(z.x) * exp(-2 * fabs(z.y)), copysign((@R@)1, z.y));
  @R@ t = tan(z.x), b = 1 + t * t, s = sinh(z.y), d = 1 + b * s * s;
  return @MK@(t / d, b * cosh(z.y) * s / d); }
static __device__ inline @C@ ember_casin_special@S@(@C@ z) {
  if (isnan(z.x) || isnan(z.y)) {
    if (isinf(z.x)) return @MK@(z.y, fabs(z.x));
    if (isinf(z.y) || z.x == 0) return z;
    return @MK@(z.x + z.y, z.x + z.y);
  }
  return @MK@(copysign(isinf(z.y) ? (isinf(z.x) ? @PI4@ : 0) : @PI2@, z.x), copysign(@INF@, z.y)); }
static __device__ inline @C@ ember_casin_core@S@(@R@ x, @R@ y, int acos_part) {
  if (x > (@R@)1e8 || y > (@R@)1e8) {
    @R@ l = log(hypot((@R@)0.5 * x, (@R@)0.5 * y)) + 2 * @LN2@;
    return @MK@(acos_part ? atan2(y, x) : atan2(x, y), l);
  }
  @R@ r = hypot(x + 1, y), s = hypot(x - 1, y), a = (@R@)0.5 * (r + s), b = x / a, y2 = y * y, re, im;
  if (b <= (@R@)0.6417) {
    re = acos_part ? acos(b) : asin(b);
  } else {
    @R@ t = x <= 1 ? sqrt((@R@)0.5 * (a + x) * (y2 / (r + (x + 1)) + (s + (1 - x))))
                   : y * sqrt((@R@)0.5 * ((a + x) / (r + (x + 1)) + (a + x) / (s + (x - 1))));
    re = acos_part ? atan(t / x) : atan(x / t);
  }
  if (a > (@R@)1.5) {
    im = log(a + sqrt((a - 1) * (a + 1)));
  } else if (x < 1 && y < @TINY@) {
    im = y / sqrt((1 - x) * (1 + x));
  } else {
    @R@ w = y2 / (r + (x + 1)) + (x < 1 ? y2 / (s + (1 - x)) : s + (x - 1));
    im = ember_log1p@S@((@R@)0.5 * w + sqrt(w * (a + 1) * (@R@)0.5));
  }
  return @MK@(re, im); }
static __device__ inline @C@ ember_carcsin@S@(@C@ z) {
  if (!isfinite(z.x) || !isfinite(z.y)) return ember_casin_special@S@(z);
  @C@ w = ember_casin_core@S@(fabs(z.x), fabs(z.y), 0); return @MK@(copysign(w.x, z.x), copysign(w.y, z.y)); }
static __device__ inline @C@ ember_carccos@S@(@C@ z) {
  if (!isfinite(z.x) || !isfinite(z.y)) { @C@ w = ember_casin_special@S@(z); return @MK@(@PI2@ - w.x, -w.y); }
  @C@ w = ember_casin_core@S@(fabs(z.x), fabs(z.y), 1); return @MK@(z.x < 0 ? 2 * @PI2@ - w.x : w.x, copysign(w.y, -z.y)); }
static __device__ inline @C@ ember_catanh_special@S@(@C@ z) {
  if (isnan(z.x) || isnan(z.y)) {
    if (isinf(z.x)) return @MK@(copysign((@R@)0, z.x), z.y);
    if (isinf(z.y)) return @MK@(copysign((@R@)0, z.x), copysign(@PI2@, z.y));
    if (z.x == 0) return z;
    return @MK@(z.x + z.y, z.x + z.y);
  }
  return @MK@(copysign((@R@)0, z.x), copysign(@PI2@, z.y)); }
static __device__ inline @C@ ember_carctan@S@(@C@ z) {
  if (!isfinite(z.x) || !isfinite(z.y)) { @C@ w = ember_catanh_special@S@(@MK@(-z.y, z.x)); return @MK@(w.y, -w.x); }
  @R@ x = z.x, y = z.y;
  if (fabs(x) > (@R@)1e8 || fabs(y) > (@R@)1e8) {
    @R@ h = hypot((@R@)0.5 * x, (@R@)0.5 * y);
    return @MK@(copysign(@PI2@, x) - (@R@)0.25 * (x / h) / h, (@R@)0.25 * (y / h) / h);
  }
  @R@ ay = fabs(y), d = x * x + (1 - ay) * (1 - ay);
  @R@ im = d < @TINY@ ? (@R@)0.5 * (log(hypot(x, 1 + ay)) - log(hypot(x, 1 - ay))) : ember_log1p@S@(4 * ay / d) / 4;
  return @MK@(atan2(2 * x, (1 - y) * (1 + y) - x * x) / 2, copysign(im, y)); }
static __device__ inline @C@ ember_crint@S@(@C@ z) { return @MK@(rint(z.x), rint(z.y)); }
"#;

fn complex_helpers(d: DType, dialect: Dialect) -> String {
    complex_text(COMPLEX_ARITHMETIC, d, dialect)
}

/// Complex elementary functions (and the arithmetic they use).
fn complex_math_helpers(d: DType, dialect: Dialect) -> String {
    complex_helpers(d, dialect) + &complex_text(COMPLEX_MATH, d, dialect)
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
/// The comparison that gives the same answer with its operands swapped (`less` for
/// `greater`); other names are themselves.
pub(crate) fn mirrored(name: &str) -> &str {
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
        "sign" if complex => with(format!("ember_csign{s}({a})"), ch()),
        "sign" if float => plain(format!("({a} > 0 ? 1 : ({a} < 0 ? -1 : {a}))")),
        "sign" if is_signed(t) => plain(format!("(({a} > 0) - ({a} < 0))")),
        "sign" => plain(format!("({a} > 0)")),
        "square" if complex => with(format!("ember_cmul{s}({a}, {a})"), ch()),
        "square" => plain(format!("({a} * {a})")),
        "reciprocal" if complex => with(format!("ember_crecip{s}({a})"), ch()),
        "reciprocal" if float => plain(format!("(1 / {a})")),
        "reciprocal" => plain(format!("({a} == 0 ? 0 : 1 / {a})")),
        // PoCL's float tanh(+-inf) is +-0.99999994, and its log1p is off for tiny values.
        "tanh" if float && dialect == Dialect::OpenCl => {
            let vt = value_type(t, dialect);
            plain(format!("(isinf({a}) ? copysign(({vt})1, {a}) : tanh({a}))"))
        }
        "log1p" if float && dialect == Dialect::OpenCl => {
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
        _ => unsupported(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMPLEX: [DType; 2] = [DType::C64, DType::C128];
    const DIALECTS: [Dialect; 2] = [Dialect::Cuda, Dialect::OpenCl];

    /// The names of the helpers `text` defines, in order.
    fn defined(text: &str) -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("static __device__"))
            .map(|l| {
                let head = l.split('(').next().unwrap();
                head.rsplit(' ').next().unwrap().to_string()
            })
            .collect()
    }

    #[test]
    fn complex_helpers_are_filled_in_and_each_defined_once() {
        for d in COMPLEX {
            for dialect in DIALECTS {
                let text = complex_math_helpers(d, dialect);
                assert!(!text.contains('@'), "{text}");
                let names = defined(&text);
                for n in &names {
                    assert_eq!(names.iter().filter(|m| *m == n).count(), 1, "{n}");
                }
                // The arithmetic comes first and is the same text on its own (fused kernels
                // keep one copy of each helper).
                assert!(text.starts_with(&complex_helpers(d, dialect)));
            }
        }
    }

    #[test]
    fn complex_helpers_call_only_helpers_defined_before_them() {
        for d in COMPLEX {
            let text = complex_math_helpers(d, Dialect::Cuda);
            let names = defined(&text);
            let mut seen: Vec<&str> = Vec::new();
            for chunk in text.split("static __device__").skip(1) {
                let own = &names[seen.len()];
                for n in &names {
                    if n != own && chunk.contains(&format!("{n}(")) {
                        assert!(
                            seen.contains(&n.as_str()),
                            "{own} calls {n} before it is defined"
                        );
                    }
                }
                seen.push(own);
            }
        }
    }

    #[test]
    fn special_values_use_each_dialects_infinity_and_nan() {
        let cuda = complex_math_helpers(DType::C128, Dialect::Cuda);
        assert!(cuda.contains("((double)__int_as_float(0x7f800000))"));
        assert!(cuda.contains("((double)__int_as_float(0x7fffffff))"));
        let cl = complex_math_helpers(DType::C64, Dialect::OpenCl);
        assert!(cl.contains("((float)INFINITY)") && cl.contains("((float)NAN)"));
        assert!(!cl.contains("double"), "{cl}");
    }

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
