//! The device library every sampler kernel includes: a Philox stream per element and NumPy's
//! algorithms for the distributions (`numpy/random/src/distributions/distributions.c`), in
//! double precision, written once for both dialects (the dialect table gives type names, the
//! function qualifier and the bit casts).
//!
//! Stream `g` (a group of elements, `super::GROUP`, or row `g`): Philox4x32-10 with counter
//! `(draw, g mod 2^32, g / 2^32, stream mod 2^32)` and key `(seed mod 2^32, (seed / 2^32) ^
//! (stream / 2^32))`, `draw` counting the evaluations the stream has made. Each evaluation
//! gives two 64-bit words. So an element's value depends only on (seed, stream, its index and
//! the parameters of the elements before it in its group), whatever the launch shape, device
//! or backend, and rejection loops may draw as often as they need.

use std::fmt::Write;

use ember_core::DType;

use crate::dialect::Dialect;
use crate::philox::sincospi;

/// The library's source in `dialect` (after the Philox prelude, which it calls).
pub fn library(dialect: Dialect) -> String {
    let mut s =
        String::from("// ember's samplers: NumPy's algorithms on a Philox stream per element\n");
    s.push_str(&stream(dialect));
    s.push_str(&super::ziggurat::exponential_source(
        dialect,
        super::ziggurat::LAYERS,
    ));
    s.push_str(
        &BODY
            .replace("EMBER_FN", dialect.table().device_fn)
            .replace("EMBER_SINCOSPI", &sincospi(dialect, DType::F64, "h")),
    );
    s
}

/// The stream alone (`ember_rng`, `ember_next64`, `ember_uniform`, `ember_bits_double`): what
/// the exponential fill kernel needs for its slow path too.
pub fn stream(dialect: Dialect) -> String {
    let t = dialect.table();
    let mut s = String::new();
    let _ = writeln!(s, "typedef {} ember_i64;", t.int64);
    // The table's conversion may open a parenthesis for its argument.
    let from_bits = t.atomics.float_bits[1].1;
    let call = if from_bits.matches('(').count() > from_bits.matches(')').count() {
        format!("{from_bits}x)")
    } else {
        format!("{from_bits}(x)")
    };
    let _ = writeln!(
        s,
        "{} double ember_bits_double(ember_u64 x) {{ return {call}; }}",
        t.device_fn
    );
    s.push_str(&STREAM.replace("EMBER_FN", t.device_fn));
    s
}

/// The stream of an element: `ember_rng` and its draws.
const STREAM: &str = r#"typedef struct {
  ember_u32 draw, e0, e1, st, k0, k1;
  int left, cached;
  ember_u64 spare;
  double normal;
} ember_rng;

EMBER_FN void ember_rng_init(ember_rng* s, ember_i64 i, ember_u64 key, ember_u64 stream) {
  s->draw = 0u; s->e0 = (ember_u32)i; s->e1 = (ember_u32)((ember_u64)i >> 32);
  s->st = (ember_u32)stream; s->k0 = (ember_u32)key;
  s->k1 = (ember_u32)(key >> 32) ^ (ember_u32)(stream >> 32);
  s->left = 0; s->cached = 0; s->spare = 0; s->normal = 0.0;
}

EMBER_FN ember_u64 ember_next64(ember_rng* s) {
  if (s->left) { s->left = 0; return s->spare; }
  const ember_u32x4 r = ember_philox4x32_10(s->draw, s->e0, s->e1, s->st, s->k0, s->k1);
  s->draw += 1u;
  s->spare = ((ember_u64)r.z << 32) | r.w;
  s->left = 1;
  return ((ember_u64)r.x << 32) | r.y;
}

// Uniform in [0, 1): 53 bits.
EMBER_FN double ember_uniform(ember_rng* s) {
  return (double)(ember_next64(s) >> 11) * 1.1102230246251565404e-16;
}

"#;

/// The samplers; `EMBER_FN` is the dialect's device-function qualifier.
const BODY: &str = r#"// Uniform integer in [0, max] (multiply-shift: relative bias below (max + 1) / 2^64).
EMBER_FN ember_u64 ember_interval(ember_rng* s, ember_u64 max) {
  const ember_u64 x = ember_next64(s);
  return max == ~(ember_u64)0 ? x : ember_mulhi64(x, max + 1);
}

// Box-Muller on two uniforms; the second normal of the pair is kept for the next call.
EMBER_FN double ember_std_normal(ember_rng* s) {
  if (s->cached) { s->cached = 0; return s->normal; }
  const double u1 = ((double)(ember_next64(s) >> 11) + 1.0) * 1.1102230246251565404e-16;
  const double h = 2.0 * ember_uniform(s);
  double sn, cs;
  EMBER_SINCOSPI
  const double r = sqrt(-2.0 * log(u1));
  s->normal = r * sn;
  s->cached = 1;
  return r * cs;
}

// The ziggurat (see ziggurat.rs): a multiply for most draws, the slow path out of line.
EMBER_FN double ember_std_exponential(ember_rng* s) {
  const ember_u64 w = ember_next64(s);
  const double x = ember_zig_exp_fast(w);
  return x >= 0.0 ? x : ember_zig_exp_slow(s, w);
}

// Marsaglia and Tsang's method; shapes below 1 by NumPy's rejection from the exponential.
// What depends on the shape alone is set up once (a kernel keeps it while the shape stays).
typedef struct { double shape, b, c; } ember_gamma_c;

EMBER_FN ember_gamma_c ember_gamma_setup(double shape) {
  ember_gamma_c g;
  g.shape = shape;
  g.b = shape - 1.0 / 3.0;
  g.c = 1.0 / sqrt(9.0 * g.b);
  return g;
}

EMBER_FN double ember_gamma_draw(ember_rng* s, const ember_gamma_c* g) {
  const double shape = g->shape;
  if (shape == 1.0) return ember_std_exponential(s);
  if (shape == 0.0) return 0.0;
  if (shape < 1.0) {
    for (;;) {
      const double u = ember_uniform(s);
      const double v = ember_std_exponential(s);
      if (u <= 1.0 - shape) {
        const double x = pow(u, 1.0 / shape);
        if (x <= v) return x;
      } else {
        const double y = -log((1.0 - u) / shape);
        const double x = pow(1.0 - shape + shape * y, 1.0 / shape);
        if (x <= v + y) return x;
      }
    }
  }
  const double b = g->b, c = g->c;
  for (;;) {
    double x, v;
    do {
      x = ember_std_normal(s);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = ember_uniform(s);
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return b * v;
    if (log(u) < 0.5 * x * x + b * (1.0 - v + log(v))) return b * v;
  }
}

EMBER_FN double ember_std_gamma(ember_rng* s, double shape) {
  const ember_gamma_c g = ember_gamma_setup(shape);
  return ember_gamma_draw(s, &g);
}

EMBER_FN double ember_beta(ember_rng* s, double a, double b) {
  if (a <= 1.0 && b <= 1.0) {
    // Johnk's algorithm, with logarithms where both powers underflow.
    for (;;) {
      const double u = ember_uniform(s);
      const double v = ember_uniform(s);
      const double x = pow(u, 1.0 / a);
      const double y = pow(v, 1.0 / b);
      const double xy = x + y;
      if (xy <= 1.0 && u + v > 0.0) {
        if (xy > 0.0) return x / xy;
        double lx = log(u) / a, ly = log(v) / b;
        const double lm = lx > ly ? lx : ly;
        lx -= lm;
        ly -= lm;
        return exp(lx - log(exp(lx) + exp(ly)));
      }
    }
  }
  const double ga = ember_std_gamma(s, a);
  const double gb = ember_std_gamma(s, b);
  return ga / (ga + gb);
}

// Poisson: inversion of one uniform below 10 (a search of the CDF from the mode, up or down:
// about sqrt(lam) steps), Hormann's PTRS above; what depends on lam alone is set up once.
typedef struct {
  double lam, inv_lam, mode, pmode, cdfmode, slam, loglam, b, a, invalpha, vr;
} ember_poisson_c;

EMBER_FN ember_poisson_c ember_poisson_setup(double lam) {
  ember_poisson_c c;
  c.lam = lam;
  c.inv_lam = 1.0 / lam;
  // P(X = mode) and P(X <= mode), summed from 0 (lam < 10: at most 9 steps).
  c.mode = lam < 10.0 ? floor(lam) : 0.0;
  double p = exp(-lam), cdf = p;
  for (double x = 1.0; x <= c.mode; x += 1.0) {
    p *= lam / x;
    cdf += p;
  }
  c.pmode = p;
  c.cdfmode = cdf;
  c.slam = sqrt(lam);
  c.loglam = log(lam);
  c.b = 0.931 + 2.53 * c.slam;
  c.a = -0.059 + 0.02483 * c.b;
  c.invalpha = 1.1239 + 1.1328 / (c.b - 3.4);
  c.vr = 0.9277 - 3.6224 / (c.b - 2.0);
  return c;
}

EMBER_FN ember_i64 ember_poisson_draw(ember_rng* s, const ember_poisson_c* c) {
  const double lam = c->lam;
  if (lam >= 10.0) {
    const double a = c->a, b = c->b;
    for (;;) {
      const double u = ember_uniform(s) - 0.5;
      const double v = ember_uniform(s);
      const double us = 0.5 - fabs(u);
      const double k = floor((2.0 * a / us + b) * u + lam + 0.43);
      if (us >= 0.07 && v <= c->vr) return (ember_i64)k;
      if (k < 0.0 || (us < 0.013 && v > us)) continue;
      if (log(v) + log(c->invalpha) - log(a / (us * us) + b) <= -lam + k * c->loglam - lgamma(k + 1.0))
        return (ember_i64)k;
    }
  }
  if (lam == 0.0) return 0;
  // The smallest x with u <= P(X <= x).
  const double u = ember_uniform(s);
  double x = c->mode, p = c->pmode, cdf = c->cdfmode;
  if (u <= cdf) {
    while (x > 0.0 && u <= cdf - p) {
      cdf -= p;
      p *= x * c->inv_lam;
      x -= 1.0;
    }
    return (ember_i64)x;
  }
  while (u > cdf && p > 0.0) {
    x += 1.0;
    p *= lam / x;
    cdf += p;
  }
  return (ember_i64)x;
}

EMBER_FN ember_i64 ember_poisson(ember_rng* s, double lam) {
  const ember_poisson_c c = ember_poisson_setup(lam);
  return ember_poisson_draw(s, &c);
}

// log(k!) less Stirling's approximation of it.
EMBER_FN double ember_stirling_tail(double k) {
  return lgamma(k + 1.0) - ((k + 0.5) * log(k + 1.0) - (k + 1.0) + 0.91893853320467274178);
}

// Binomial of p <= 1/2: counting geometric gaps while n p < 10, Hormann's BTRS above.
EMBER_FN ember_i64 ember_binomial_low(ember_rng* s, ember_i64 n, double p) {
  if (n == 0 || p == 0.0) return 0;
  const double dn = (double)n;
  if (dn * p < 10.0) {
    const double logq = log1p(-p);
    ember_i64 count = 0;
    double sum = 0.0;
    for (;;) {
      const double gap = ceil(log(1.0 - ember_uniform(s)) / logq);
      sum += gap < 1.0 ? 1.0 : gap;
      if (sum > dn) return count;
      count += 1;
    }
  }
  const double spq = sqrt(dn * p * (1.0 - p));
  const double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = dn * p + 0.5, vr = 0.92 - 4.2 / b, r = p / (1.0 - p);
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double m = floor((dn + 1.0) * p);
  for (;;) {
    const double u = ember_uniform(s) - 0.5;
    double v = ember_uniform(s);
    const double us = 0.5 - fabs(u);
    const double k = floor((2.0 * a / us + b) * u + c);
    if (k < 0.0 || k > dn) continue;
    if (us >= 0.07 && v <= vr) return (ember_i64)k;
    v = log(v * alpha / (a / (us * us) + b));
    const double bound = (m + 0.5) * log((m + 1.0) / (r * (dn - m + 1.0)))
        + (dn + 1.0) * log((dn - m + 1.0) / (dn - k + 1.0))
        + (k + 0.5) * log(r * (dn - k + 1.0) / (k + 1.0))
        + ember_stirling_tail(m) + ember_stirling_tail(dn - m)
        - ember_stirling_tail(k) - ember_stirling_tail(dn - k);
    if (v <= bound) return (ember_i64)k;
  }
}

EMBER_FN ember_i64 ember_binomial(ember_rng* s, ember_i64 n, double p) {
  return p > 0.5 ? n - ember_binomial_low(s, n, 1.0 - p) : ember_binomial_low(s, n, p);
}

EMBER_FN double ember_chisquare(ember_rng* s, double df) {
  return 2.0 * ember_std_gamma(s, df / 2.0);
}

EMBER_FN double ember_noncentral_chisquare(ember_rng* s, double df, double nonc) {
  if (nonc != nonc) return nonc;
  if (nonc == 0.0) return ember_chisquare(s, df);
  if (1.0 < df) {
    const double chi2 = ember_chisquare(s, df - 1.0);
    const double n = ember_std_normal(s) + sqrt(nonc);
    return chi2 + n * n;
  }
  const ember_i64 i = ember_poisson(s, nonc / 2.0);
  return ember_chisquare(s, df + 2.0 * (double)i);
}

EMBER_FN double ember_f(ember_rng* s, double dfnum, double dfden) {
  const double num = ember_chisquare(s, dfnum) * dfden;
  return num / (ember_chisquare(s, dfden) * dfnum);
}

EMBER_FN double ember_noncentral_f(ember_rng* s, double dfnum, double dfden, double nonc) {
  const double t = ember_noncentral_chisquare(s, dfnum, nonc) * dfden;
  return t / (ember_chisquare(s, dfden) * dfnum);
}

EMBER_FN double ember_standard_t(ember_rng* s, double df) {
  const double num = ember_std_normal(s);
  const double denom = ember_std_gamma(s, df / 2.0);
  return sqrt(df / 2.0) * num / sqrt(denom);
}

EMBER_FN double ember_cauchy(ember_rng* s) {
  const double num = ember_std_normal(s);
  return num / ember_std_normal(s);
}

EMBER_FN ember_i64 ember_negative_binomial(ember_rng* s, double n, double p) {
  return ember_poisson(s, ember_std_gamma(s, n) * ((1.0 - p) / p));
}

// Geometric (trials to the first success): a search for p >= 1/3, inversion below.
EMBER_FN ember_i64 ember_geometric(ember_rng* s, double p) {
  if (p >= 0.333333333333333333333333) {
    const double u = ember_uniform(s), q = 1.0 - p;
    ember_i64 x = 1;
    double sum = p, prod = p;
    while (u > sum) {
      prod *= q;
      sum += prod;
      x += 1;
    }
    return x;
  }
  const double z = ceil(-ember_std_exponential(s) / log1p(-p));
  return z >= 9.223372036854776e18 ? (ember_i64)0x7FFFFFFFFFFFFFFF : (ember_i64)z;
}

EMBER_FN double ember_logfactorial(double k) { return lgamma(k + 1.0); }

// Hypergeometric: draws one by one for small samples, Stadlober's HRUA otherwise.
EMBER_FN ember_i64 ember_hypergeometric(ember_rng* s, ember_i64 good, ember_i64 bad, ember_i64 sample) {
  const ember_i64 total = good + bad;
  if (sample < 10 || sample > total - 10) {
    const ember_i64 taken = sample > total / 2 ? total - sample : sample;
    ember_i64 left = total, left_good = good, k = taken;
    while (k > 0 && left_good > 0 && left > left_good) {
      left -= 1;
      if ((ember_i64)ember_interval(s, (ember_u64)left) < left_good) left_good -= 1;
      k -= 1;
    }
    if (left == left_good) left_good -= k;
    return sample > total / 2 ? left_good : good - left_good;
  }
  const ember_i64 n = sample < total - sample ? sample : total - sample;
  const ember_i64 lo = good < bad ? good : bad, hi = good < bad ? bad : good;
  const double p = (double)lo / (double)total, q = (double)hi / (double)total;
  const double mu = (double)n * p, a = mu + 0.5;
  const double var = (double)(total - n) * (double)n * p * q / (double)(total - 1);
  const double c = sqrt(var + 0.5);
  const double h = 1.7155277699214135 * c + 0.8989161620588988;
  const double m = floor((double)(n + 1) * (double)(lo + 1) / (double)(total + 2));
  const double g = ember_logfactorial(m) + ember_logfactorial((double)lo - m)
      + ember_logfactorial((double)n - m) + ember_logfactorial((double)(hi - n) + m);
  const double cap = (double)(n < lo ? n : lo) + 1.0;
  const double b = cap < floor(a + 16.0 * c) ? cap : floor(a + 16.0 * c);
  double k;
  for (;;) {
    const double u = ember_uniform(s);
    const double v = ember_uniform(s);
    const double x = a + h * (v - 0.5) / u;
    if (x < 0.0 || x >= b) continue;
    k = floor(x);
    const double gp = ember_logfactorial(k) + ember_logfactorial((double)lo - k)
        + ember_logfactorial((double)n - k) + ember_logfactorial((double)(hi - n) + k);
    const double t = g - gp;
    if (u * (4.0 - u) - 3.0 <= t) break;
    if (u * (u - t) >= 1.0) continue;
    if (2.0 * log(u) <= t) break;
  }
  ember_i64 result = (ember_i64)k;
  if (good > bad) result = n - result;
  if (n < sample) result = good - result;
  return result;
}

EMBER_FN ember_i64 ember_logseries(ember_rng* s, double p) {
  const double r = log1p(-p);
  for (;;) {
    const double v = ember_uniform(s);
    if (v >= p) return 1;
    const double u = ember_uniform(s);
    const double q = -expm1(r * u);
    if (v <= q * q) {
      const double x = floor(1.0 + log(v) / log(q));
      if (x < 1.0 || v == 0.0) continue;
      return (ember_i64)x;
    }
    return v >= q ? 1 : 2;
  }
}

EMBER_FN ember_i64 ember_zipf(ember_rng* s, double a) {
  const double am1 = a - 1.0, b = pow(2.0, am1);
  for (;;) {
    const double u = 1.0 - ember_uniform(s);
    const double v = ember_uniform(s);
    const double x = floor(pow(u, -1.0 / am1));
    if (x > 9.223372036854775807e18 || x < 1.0) continue;
    const double t = pow(1.0 + 1.0 / x, am1);
    if (v * x * (t - 1.0) / (b - 1.0) <= t / b) return (ember_i64)x;
  }
}

// von Mises: Best and Fisher's rejection; a normal for very large kappa.
EMBER_FN double ember_vonmises(ember_rng* s, double mu, double kappa) {
  const double pi = 3.14159265358979323846;
  if (kappa != kappa) return kappa;
  if (kappa < 1e-8) return pi * (2.0 * ember_uniform(s) - 1.0);
  double sr;
  if (kappa < 1e-5) {
    sr = 1.0 / kappa + kappa;
  } else if (kappa <= 1e6) {
    const double r = 1.0 + sqrt(1.0 + 4.0 * kappa * kappa);
    const double rho = (r - sqrt(2.0 * r)) / (2.0 * kappa);
    sr = (1.0 + rho * rho) / (2.0 * rho);
  } else {
    double x = mu + sqrt(1.0 / kappa) * ember_std_normal(s);
    if (x < -pi) x += 2.0 * pi;
    if (x > pi) x -= 2.0 * pi;
    return x;
  }
  double w;
  for (;;) {
    const double u = ember_uniform(s);
    const double z = cos(pi * u);
    w = (1.0 + sr * z) / (sr + z);
    const double y = kappa * (sr - w);
    const double v = ember_uniform(s);
    if (y * (2.0 - y) - v >= 0.0 || log(y / v) + 1.0 - y >= 0.0) break;
  }
  const double u = ember_uniform(s);
  double x = acos(w);
  if (u < 0.5) x = -x;
  x += mu;
  const int negative = x < 0.0;
  double mod = fmod(fabs(x) + pi, 2.0 * pi) - pi;
  return negative ? -mod : mod;
}

EMBER_FN double ember_wald(ember_rng* s, double mean, double scale) {
  const double mu_2l = mean / (2.0 * scale);
  double y = ember_std_normal(s);
  y = mean * y * y;
  const double x = mean + mu_2l * (y - sqrt(4.0 * scale * y + y * y));
  const double u = ember_uniform(s);
  return u <= mean / (mean + x) ? x : mean * mean / x;
}

EMBER_FN double ember_laplace(ember_rng* s, double loc, double scale) {
  for (;;) {
    const double u = ember_uniform(s);
    if (u >= 0.5) return loc - scale * log(2.0 - u - u);
    if (u > 0.0) return loc + scale * log(u + u);
  }
}

EMBER_FN double ember_logistic(ember_rng* s, double loc, double scale) {
  for (;;) {
    const double u = ember_uniform(s);
    if (u > 0.0) return loc + scale * log(u / (1.0 - u));
  }
}

EMBER_FN double ember_gumbel(ember_rng* s, double loc, double scale) {
  for (;;) {
    const double u = 1.0 - ember_uniform(s);
    if (u < 1.0) return loc - scale * log(-log(u));
  }
}

EMBER_FN double ember_triangular(ember_rng* s, double left, double mode, double right) {
  const double base = right - left, leftbase = mode - left;
  const double ratio = leftbase / base;
  const double u = ember_uniform(s);
  if (u <= ratio) return left + sqrt(u * leftbase * base);
  return right - sqrt((1.0 - u) * (right - mode) * base);
}
"#;
