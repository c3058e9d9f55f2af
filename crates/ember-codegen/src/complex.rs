//! Complex numbers on the device, written once for every generated kernel: NumPy's product
//! and Smith's quotient (in the prelude, so ufuncs, fusion, ElementwiseKernel snippets and
//! `@jit` kernels divide alike on both dialects), and the elementary functions ufuncs call.
//!
//! The templates name the complex type `@C@`, its real type `@R@` and the helpers' suffix
//! `@S@` (`64`, `128`); [`complex_text`] fills them in for one dtype and dialect.

use ember_core::DType;

use crate::dialect::Dialect;
use crate::types::complex_product;

/// Below this magnitude `log1p(x)` rounds to `x` in `d`'s real type (2^-30 for float32 and
/// float16, which compute in float32; 2^-60 for float64): PoCL's `log1p` is off there, down to
/// 0 for subnormals, so ember returns `x` itself, as NumPy's libm does.
pub fn log1p_exact_below(d: DType) -> f64 {
    if matches!(d, DType::C128 | DType::F64) {
        2f64.powi(-60)
    } else {
        2f64.powi(-30)
    }
}

/// A complex helper's C text with its names filled in: `@C@` the complex type, `@R@` its real
/// type, `@S@` the suffix of the helper names, `@MK@` the constructor, `@INF@` and `@NAN@`
/// (as `@R@` values), `@PI2@`, `@PI4@`, `@LN2@` and `@LN10@`, `@TINY@` (below it a square
/// may be subnormal), `@L1P@` (see [`log1p_exact_below`]), and the real type's `@EPS@`,
/// `@MINN@` (smallest normal), `@HALFMAX@` and `@MANT@` (mantissa digits). Each helper starts a line with
/// `static __device__` and no other line does (fused kernels define each helper once).
fn complex_text(template: &str, d: DType, dialect: Dialect) -> String {
    let (c, r, s) = if d == DType::C128 {
        ("ember_c128", "double", "128")
    } else {
        ("ember_c64", "float", "64")
    };
    // Below this a square may be subnormal (arcsin, arccos and arctan take another path).
    let tiny = if d == DType::C128 { 1e-150 } else { 1e-18 };
    // The real type's epsilon, smallest normal, half its largest value, mantissa digits.
    let (eps, min, half_max, mant) = if d == DType::C128 {
        (
            f64::EPSILON,
            f64::MIN_POSITIVE,
            f64::MAX / 2.0,
            f64::MANTISSA_DIGITS,
        )
    } else {
        (
            f64::from(f32::EPSILON),
            f64::from(f32::MIN_POSITIVE),
            f64::from(f32::MAX / 2.0),
            f32::MANTISSA_DIGITS,
        )
    };
    let nan = dialect.table().nan;
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
        .replace("@EPS@", &format!("(({r}){eps:?})"))
        .replace("@MINN@", &format!("(({r}){min:?})"))
        .replace("@HALFMAX@", &format!("(({r}){half_max:?})"))
        .replace("@MANT@", &mant.to_string())
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
static __device__ inline @R@ ember_hypot@S@(@R@ x, @R@ y) {
  @R@ h = hypot(x, y);
  if (!isinf(h) || isinf(x) || isinf(y)) return h;
  /* CUDA's hypot overflows for (DBL_MAX, 1): the larger part times the root of 1 + r^2. */
  @R@ m = fmax(fabs(x), fabs(y)), r = fmin(fabs(x), fabs(y)) / m;
  return m * sqrt(1 + r * r); }
static __device__ inline @R@ ember_cabs@S@(@C@ a) { return ember_hypot@S@(a.x, a.y); }
static __device__ inline @C@ ember_crecip@S@(@C@ z) {
  if (fabs(z.y) <= fabs(z.x)) { @R@ q = z.y / z.x, d = z.x + z.y * q; return @MK@((@R@)1 / d, -q / d); }
  @R@ q = z.x / z.y, d = z.x * q + z.y; return @MK@(q / d, (@R@)-1 / d); }
static __device__ inline @C@ ember_csign@S@(@C@ z) {
  @R@ m = ember_hypot@S@(z.x, z.y);
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
static __device__ inline @R@ ember_x2y2m1@S@(@R@ x, @R@ y) {
  /* x^2 + y^2 - 1 with the squares' rounding errors (fma) and the sums' (two-sum) kept. */
  @R@ x2 = x * x, ex = fma(x, x, -x2), y2 = y * y, ey = fma(y, y, -y2);
  @R@ s1 = x2 - 1, b1 = s1 - x2, e1 = (x2 - (s1 - b1)) + (-1 - b1);
  @R@ s2 = s1 + y2, b2 = s2 - s1, e2 = (s1 - (s2 - b2)) + (y2 - b2);
  return s2 + (e1 + e2 + ex + ey); }
static __device__ inline @C@ ember_clog@S@(@C@ z) {
  /* glibc's clog (NumPy's on Linux): near the unit circle log1p(|z|^2 - 1) / 2, computed
     without the cancellation log(hypot) suffers; the ends of the range scaled. */
  @R@ x = fabs(z.x), y = fabs(z.y), re;
  if (!isfinite(x) || !isfinite(y) || (x == 0 && y == 0))
    return @MK@(log(hypot(z.x, z.y)), atan2(z.y, z.x));
  if (x < y) { @R@ t = x; x = y; y = t; }
  int scale = 0;
  if (x > @HALFMAX@) { scale = -1; x = ldexp(x, -1); y = y >= 2 * @MINN@ ? ldexp(y, -1) : 0; }
  else if (x < @MINN@ && y < @MINN@) { scale = @MANT@; x = ldexp(x, @MANT@); y = ldexp(y, @MANT@); }
  if (x == 1 && scale == 0) re = log1p(y * y) / 2;
  else if (x > 1 && x < 2 && y < 1 && scale == 0) {
    @R@ d = (x - 1) * (x + 1);
    if (y >= @EPS@) d += y * y;
    re = log1p(d) / 2;
  } else if (x < 1 && x >= (@R@)0.5 && y < @EPS@ / 2 && scale == 0) re = log1p((x - 1) * (x + 1)) / 2;
  else if (x < 1 && x >= (@R@)0.5 && scale == 0 && x * x + y * y >= (@R@)0.5) re = log1p(ember_x2y2m1@S@(x, y)) / 2;
  else re = log(hypot(x, y)) - scale * @LN2@;
  return @MK@(re, atan2(z.y, z.x)); }
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
  if (isnan(z.x)) return @MK@(z.x, z.x);
  // glibc's ctanh (NumPy's on Linux): sinh·cosh and sin·cos over sinh² + cos², accurate where
  // sinh/cosh as one complex quotient loses the small part.
  @R@ sx = sinh(z.x), cx = cosh(z.x), sy = sin(z.y), cy = cos(z.y);
  @R@ eps = sizeof(@R@) == 4 ? (@R@)1.1920929e-7 : (@R@)2.220446049250313e-16;
  @R@ den = fabs(sx) > fabs(cy) * eps ? sx * sx + cy * cy : cy * cy;
  return @MK@(sx * cx / den, sy * cy / den); }
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
static __device__ inline @C@ ember_carcsinh@S@(@C@ z) { @C@ w = ember_carcsin@S@(@MK@(-z.y, z.x)); return @MK@(w.y, -w.x); }
static __device__ inline @C@ ember_carctanh@S@(@C@ z) { @C@ w = ember_carctan@S@(@MK@(-z.y, z.x)); return @MK@(w.y, -w.x); }
static __device__ inline @C@ ember_carccosh@S@(@C@ z) {
  @C@ w = ember_carccos@S@(z);
  if (isnan(w.x) && isnan(w.y)) return @MK@(w.y, w.x);
  if (isnan(w.x)) return @MK@(fabs(w.y), w.x);
  if (isnan(w.y)) return @MK@(w.y, z.x == 0 ? @PI2@ : w.y);  /* C99: cacosh(0 + iNaN) = NaN + i pi/2 */
  return @MK@(fabs(w.y), copysign(w.x, z.y)); }
static __device__ inline @C@ ember_crint@S@(@C@ z) { return @MK@(rint(z.x), rint(z.y)); }
"#;

/// NumPy's complex product, Smith's quotient, reciprocal, absolute value and sign for `d`
/// (part of the prelude wherever a kernel has a complex value).
pub fn complex_arithmetic(d: DType, dialect: Dialect) -> String {
    complex_text(COMPLEX_ARITHMETIC, d, dialect)
}

/// Complex elementary functions for `d` (they call [`complex_arithmetic`]'s helpers).
pub fn complex_math(d: DType, dialect: Dialect) -> String {
    complex_text(COMPLEX_MATH, d, dialect)
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMPLEX: [DType; 2] = [DType::C64, DType::C128];
    const DIALECTS: [Dialect; 2] = [Dialect::Cuda, Dialect::OpenCl];

    /// Everything complex a kernel may have, in the order it has it.
    fn complex_math_helpers(d: DType, dialect: Dialect) -> String {
        complex_arithmetic(d, dialect) + &complex_math(d, dialect)
    }

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
}
