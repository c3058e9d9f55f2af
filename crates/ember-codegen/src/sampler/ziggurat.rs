//! The standard exponential by Marsaglia and Tsang's ziggurat ("The Ziggurat Method for
//! Generating Random Variables", J. Stat. Softw. 5(8), 2000), the method of NumPy's
//! `Generator.standard_exponential`: one 64-bit word gives a layer (its low bits) and a 52-bit
//! uniform (its high bits); inside the layer's core the value is the uniform times the layer's
//! width, which is the whole work for about 97.8% of draws (256 layers). The rest take the slow
//! path: the base layer's tail beyond `r` (`r` plus a new exponential, by inversion), or a
//! wedge, accepted against `exp(-x)` with a second uniform, or a new word.
//!
//! The tables are computed here from the layers' recurrence, for both dialects alike, and
//! emitted as constant arrays: no `log` on the fast path, where inversion (`-log(1 - u)`) spends
//! most of its time in double precision.
//!
//! Layers `1 .. n-1` have right edges `x_1 < ... < x_{n-1} = r` and equal areas
//! `v = x_i (f(x_{i-1}) - f(x_i))`, `f(x) = exp(-x)`, `x_0 = 0` the top; the base layer (0) is
//! the strip under `f(r)` of width `v / f(r)` together with the tail beyond `r`, so
//! `v = (r + 1) f(r)`. Given `n`, `r` is the root that makes the recurrence end at `x_0 = 0`.

use std::fmt::Write;

use crate::dialect::Dialect;

/// Layers of the samplers' ziggurat: NumPy's count (its tables are the tests' reference).
pub const LAYERS: usize = 256;

/// Layers of the fill kernel's ziggurat. A warp there makes 64 draws at once and waits for
/// its slowest thread, so it pays for the slow path whenever any of them takes it: 76% of
/// warps with 256 layers (2.2% of draws each), 34% with 1024 (0.64%). 1024 layers are 24 KB
/// of tables, within OpenCL's smallest `__constant` space (64 KB).
pub const FILL_LAYERS: usize = 1024;

/// A ziggurat for the standard exponential.
#[derive(Clone, Debug, PartialEq)]
pub struct Ziggurat {
    /// The base layer's right edge, where the tail starts.
    pub r: f64,
    /// The area of each layer.
    pub v: f64,
    /// Right edges `x_0 = 0, x_1, ..., x_{n-1} = r`.
    pub x: Vec<f64>,
}

/// `v / x_1 + f(x_1) - 1` for the layers below an edge `r` (zero when the top layer ends at
/// `x_0 = 0`), or 1 when the recurrence passes the top before layer 1 (`r` too small).
fn overshoot(r: f64, layers: usize) -> f64 {
    let v = (r + 1.0) * (-r).exp();
    let mut x = r;
    for _ in 2..layers {
        let y = v / x + (-x).exp();
        if y >= 1.0 {
            return 1.0;
        }
        x = -y.ln();
    }
    v / x + (-x).exp() - 1.0
}

impl Ziggurat {
    /// The exponential's ziggurat of `layers` layers (at least 3): `r` by bisection, then the
    /// edges by the recurrence `x_{i-1} = -log(v / x_i + f(x_i))`.
    pub fn exponential(layers: usize) -> Ziggurat {
        assert!(
            layers >= 3,
            "a ziggurat needs a base, a top and a middle layer"
        );
        // The overshoot falls as r grows (thinner layers reach less high).
        let (mut lo, mut hi) = (0.5_f64, 50.0_f64);
        loop {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if overshoot(mid, layers) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let r = 0.5 * (lo + hi);
        let v = (r + 1.0) * (-r).exp();
        let mut x = vec![0.0; layers];
        x[layers - 1] = r;
        for i in (2..layers).rev() {
            x[i - 1] = -(v / x[i] + (-x[i]).exp()).ln();
        }
        Ziggurat { r, v, x }
    }

    /// The layers.
    pub fn layers(&self) -> usize {
        self.x.len()
    }

    /// Layer `i`'s width: `v / f(r)` for the base, `x_i` above.
    pub fn width(&self, i: usize) -> f64 {
        if i == 0 {
            self.v * self.r.exp()
        } else {
            self.x[i]
        }
    }

    /// The fraction of layer `i`'s width under the curve at every height of the layer: `x`
    /// below it is accepted at once (base: `r / width`, above: `x_{i-1} / x_i`).
    pub fn core(&self, i: usize) -> f64 {
        if i == 0 {
            self.r / self.width(0)
        } else {
            self.x[i - 1] / self.x[i]
        }
    }

    /// `f(x_i)`: the bottom of layer `i` (the top of layer `i + 1`); 1 for `i = 0`.
    pub fn density(&self, i: usize) -> f64 {
        (-self.x[i]).exp()
    }

    /// The probability that a draw leaves the fast path (the base's tail and the wedges).
    pub fn slow_fraction(&self) -> f64 {
        1.0 - (0..self.layers()).map(|i| self.core(i)).sum::<f64>() / self.layers() as f64
    }
}

/// A double constant in C (shortest round-trip digits; an exponent makes it a double).
fn c_double(x: f64) -> String {
    format!("{x:e}")
}

/// A constant array: `__device__ const` on CUDA (global memory through the read-only cache:
/// `__constant__` would serialize a warp's 32 different layers), the dialect's program-scope
/// constant on OpenCL (the only space a program-scope array may have there).
fn table(dialect: Dialect, name: &str, values: impl Iterator<Item = f64>) -> String {
    let space = match dialect {
        Dialect::Cuda => "__device__ const ",
        Dialect::OpenCl => dialect.table().constant,
    };
    let values: Vec<String> = values.map(c_double).collect();
    let mut s = format!("{space}double {name}[{}] = {{\n", values.len());
    for line in values.chunks(4) {
        let _ = writeln!(s, "  {},", line.join(", "));
    }
    s.push_str("};\n");
    s
}

/// Qualifier of a function that stays out of line (the slow path: its registers and code stay
/// off the fast path; on a GPU a slow thread holds its warp anyway).
fn out_of_line(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Cuda => "static __device__ __noinline__",
        Dialect::OpenCl => "static",
    }
}

/// The tables, `ember_zig_exp_fast(w)` (the value of word `w`, or -1 off the fast path) and
/// `ember_zig_exp_slow(s, w)` (the value of word `w` whatever its path, further draws from
/// stream `s`), for a ziggurat of `layers` layers (a power of two up to 2^12: the layer's bits
/// stay below the uniform's 52). Needs [`super::library::stream`] before it.
pub fn exponential_source(dialect: Dialect, layers: usize) -> String {
    assert!(layers.is_power_of_two() && layers <= 1 << 12);
    let z = Ziggurat::exponential(layers);
    let n = z.layers();
    let mut s = format!(
        "// Exponential ziggurat ({n} layers, r = {})\n",
        c_double(z.r)
    );
    // Core fraction and width side by side: the fast path reads both from one line.
    s.push_str(&table(
        dialect,
        "ember_zig_exp_kw",
        (0..n).flat_map(|i| [z.core(i), z.width(i)]),
    ));
    s.push_str(&table(
        dialect,
        "ember_zig_exp_f",
        (0..n).map(|i| z.density(i)),
    ));
    let f = dialect.table().device_fn;
    let unit = "ember_bits_double(((ember_u64)0x3FF00000u << 32) | (w >> 12)) - 1.0";
    let mask = n - 1;
    let _ = writeln!(
        s,
        "// Layer from the low bits, a uniform from the top 52: the value inside the layer's core, else -1.
{f} double ember_zig_exp_fast(ember_u64 w) {{
  const int i = (int)(w & {mask}u);
  const double u = {unit};
  return u < ember_zig_exp_kw[2 * i] ? u * ember_zig_exp_kw[2 * i + 1] : -1.0;
}}
{slow} double ember_zig_exp_slow(ember_rng* s, ember_u64 w) {{
  for (;;) {{
    const int i = (int)(w & {mask}u);
    const double u = {unit};
    const double x = u * ember_zig_exp_kw[2 * i + 1];
    if (u < ember_zig_exp_kw[2 * i]) return x;
    // Beyond r: r plus an exponential (the law forgets r).
    if (i == 0) return {r} - log(1.0 - ember_uniform(s));
    // A wedge: a height uniform between the layer's bottom and top, under the curve or not.
    const double lo = ember_zig_exp_f[i];
    if (lo + (ember_zig_exp_f[i - 1] - lo) * ember_uniform(s) < exp(-x)) return x;
    w = ember_next64(s);
  }}
}}",
        slow = out_of_line(dialect),
        r = c_double(z.r),
    );
    s
}

/// What the exponential fill kernel adds to the Philox prelude: the stream of
/// [`super::library`] and the ziggurat.
pub fn fill_source(dialect: Dialect) -> String {
    let mut s = super::library::stream(dialect);
    s.push_str(&exponential_source(dialect, FILL_LAYERS));
    s
}

/// Statements of the fill kernel that set `e0` and `e1` (doubles) to the exponentials of words
/// `w0` and `w1` of block `blk`. A value off the fast path draws further from the sampler's
/// stream `blk + 2^63` (the sampler's streams stay below 2^62), so it is the same wherever and
/// however the block is drawn; the stream exists only on that branch.
pub fn fill_pair() -> &'static str {
    "double e0 = ember_zig_exp_fast(w0), e1 = ember_zig_exp_fast(w1);
if (e0 < 0.0 || e1 < 0.0) {
  ember_rng s;
  ember_rng_init(&s, (ember_i64)((ember_u64)blk | ((ember_u64)1 << 63)), key, stream);
  // One pass (one call site) for the block's first slow value, a second where both are.
  const int first = e0 < 0.0;
  const double e = ember_zig_exp_slow(&s, first ? w0 : w1);
  if (first) e0 = e; else e1 = e;
  if (e1 < 0.0) e1 = ember_zig_exp_slow(&s, w1);
}"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A few of NumPy's values (`numpy/random/src/distributions/ziggurat_constants.h`,
    /// `ke_double`, `we_double`, `fe_double`: the same ziggurat with 53-bit integers, so
    /// `ke = core * 2^53` and `we = width / 2^53`), as an independent check of the recurrence.
    const NUMPY_KE: [(usize, u64); 4] = [
        (0, 0x001C_5214_2724_97C6),
        (2, 0x0013_7D5B_D79C_317E),
        (3, 0x0018_6EF5_8E3F_3C10),
        (255, 0x001C_DB4D_D9E4_E8C0),
    ];
    const NUMPY_WE: [(usize, f64); 4] = [
        (0, 9.655_740_063_209_183e-16),
        (1, 7.089_014_243_955_414e-18),
        (2, 1.163_941_249_669_122_4e-17),
        (255, 8.545_517_038_584_027e-16),
    ];
    const NUMPY_FE: [(usize, f64); 3] = [
        (0, 1.0),
        (1, 9.381_436_808_621_747e-1),
        (2, 9.004_699_299_257_465e-1),
    ];

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(f64::MIN_POSITIVE)
    }

    #[test]
    #[allow(clippy::excessive_precision)] // the paper's digits
    fn the_256_layer_tables_are_marsaglia_and_tsangs_and_numpys() {
        let z = Ziggurat::exponential(256);
        // The paper's r and v.
        assert!(close(z.r, 7.697_117_470_131_049_72, 1e-14), "{}", z.r);
        assert!(close(z.v, 0.003_949_659_822_581_557_2, 1e-13), "{}", z.v);
        let two53 = 2f64.powi(53);
        for (i, ke) in NUMPY_KE {
            assert!(close(z.core(i) * two53, ke as f64, 1e-12), "ke[{i}]");
        }
        for (i, we) in NUMPY_WE {
            assert!(close(z.width(i) / two53, we, 1e-12), "we[{i}]");
        }
        for (i, fe) in NUMPY_FE {
            assert!(close(z.density(i), fe, 1e-13), "fe[{i}]");
        }
        // The top layer has no core; the fast path takes about 97.8% of draws.
        assert_eq!(z.core(1), 0.0);
        assert!(
            (z.slow_fraction() - 0.0222).abs() < 5e-4,
            "{}",
            z.slow_fraction()
        );
        let fill = Ziggurat::exponential(FILL_LAYERS);
        assert!(fill.slow_fraction() < 0.007, "{}", fill.slow_fraction());
    }

    #[test]
    fn every_layer_has_the_same_area_and_the_whole_is_one() {
        for layers in [64, 256, 1024] {
            let z = Ziggurat::exponential(layers);
            assert!(close(z.width(0) * z.density(layers - 1), z.v, 1e-14));
            for i in 1..layers {
                let top = if i == 1 { 1.0 } else { z.density(i - 1) };
                let area = z.x[i] * (top - z.density(i));
                assert!(close(area, z.v, 1e-9), "{layers} layers: layer {i} {area}");
                assert!(z.x[i] > z.x[i - 1] && z.core(i) < 1.0);
            }
            // The layers cover the density with an excess of one part in a few hundred.
            let excess = z.v * layers as f64 - 1.0;
            assert!(excess > 0.0 && excess < 4.0 / layers as f64, "{excess}");
        }
    }

    #[test]
    fn tables_are_the_same_numbers_in_both_dialects() {
        let cuda = exponential_source(Dialect::Cuda, LAYERS);
        let opencl = exponential_source(Dialect::OpenCl, LAYERS);
        assert!(cuda.contains("__device__ const double ember_zig_exp_kw[512] = {"));
        assert!(opencl.contains("__constant double ember_zig_exp_kw[512] = {"));
        assert!(cuda.contains("static __device__ __noinline__ double ember_zig_exp_slow("));
        let numbers = |s: &str| -> Vec<String> {
            s.split("= {")
                .skip(1)
                .map(|t| t.split_once("};").expect("a table's end").0.to_string())
                .collect()
        };
        assert_eq!(numbers(&cuda).len(), 2);
        assert_eq!(numbers(&cuda), numbers(&opencl));
        // Every constant reads back as the double it was made from.
        let z = Ziggurat::exponential(LAYERS);
        let first = cuda.split_once("= {\n  ").expect("a table").1;
        let parsed: f64 = first.split(',').next().unwrap().trim().parse().unwrap();
        assert_eq!(parsed, z.core(0));
    }
}
