//! FFT passes: the Stockham autosort formulation of a mixed-radix FFT, one kernel a radix
//! (2, 3, 4, 5, 7, 8), direction and precision. A transform of length `n = R1 R2 ... Rk` is
//! `k` passes over batched rows; pass `s` (radix `R`, `p = R1 ... R(s-1)`) takes, for each
//! `i < n / R`, the `R` inputs `i + j n / R`, turns input `j` by the twiddle
//! `exp(-2 pi i j (i mod p) / (p R))` (its conjugate for the inverse), takes their `R`-point
//! DFT and writes output `t` to `(i - i mod p) R + i mod p + t p`. The output of the last pass
//! is in natural order (no bit reversal).
//!
//! Data are complex numbers as pairs of reals (complex64: float, complex128: double). The
//! twiddles of a pass come as a table of `p (R - 1)` complex numbers (`k (R - 1) + j - 1`
//! for `k < p`, `1 <= j < R`), computed on the host in double precision.
//!
//! Rows of `n` or, with `inner` > 1, columns: `rows` blocks of `n x inner` values transformed
//! along `n` (input `i + j n / R` is at `(i + j n / R) inner + s` for column `s`).
//!
//! Parameters: input, output, twiddles (OpenCL: each buffer then its byte offset), then `n`,
//! `p`, `rows` and `inner` (int64).

use std::f64::consts::PI;
use std::fmt::Write;

use crate::dialect::Dialect;

mod direct;
mod tile;
pub use tile::{roots, split_bits, split_table, tile_passes, TileKernel, Tuning};

/// The radices, in the order a length is factored (larger first: fewer passes).
pub const RADICES: [usize; 6] = [8, 7, 5, 4, 3, 2];

/// One pass's kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PassKernel {
    pub radix: usize,
    /// complex128 (else complex64).
    pub double: bool,
    pub inverse: bool,
}

/// `n` as radices of [`RADICES`], or `None` when another prime divides it.
pub fn factor(mut n: usize) -> Option<Vec<usize>> {
    let mut radices = Vec::new();
    while n > 1 {
        let r = RADICES.iter().copied().find(|r| n.is_multiple_of(*r))?;
        radices.push(r);
        n /= r;
    }
    Some(radices)
}

/// The twiddle table of a pass (radix `r` after sub-transforms of length `p`), forward
/// direction, as interleaved (re, im) pairs.
pub fn twiddles(p: usize, r: usize) -> Vec<f64> {
    let mut t = Vec::with_capacity(2 * p * (r - 1));
    for k in 0..p {
        for j in 1..r {
            // The angle's numerator reduced first, so large tables stay exact.
            let turn = ((j * k) % (p * r)) as f64 / (p * r) as f64;
            let (s, c) = (-2.0 * PI * turn).sin_cos();
            t.push(c);
            t.push(s);
        }
    }
    t
}

impl PassKernel {
    pub fn name(&self) -> String {
        format!(
            "ember_fft_r{}_{}_{}",
            self.radix,
            if self.double { "c128" } else { "c64" },
            if self.inverse { "inv" } else { "fwd" }
        )
    }

    /// The kernel's source in `dialect`.
    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let (g, i64t) = (t.global, t.int64);
        let real = if self.double { "double" } else { "float" };
        let lit = literal(self.double);
        let r = self.radix;
        let scalars = [
            format!("{i64t} n"),
            format!("{i64t} p"),
            format!("{i64t} rows"),
            format!("{i64t} inner"),
        ];
        let buffers = [("in_p", true), ("out_p", false), ("tw_p", true)];
        let mut s = open_kernel(dialect, self.double, &self.name(), "", &buffers, &scalars);
        // Lanes (i, s) of a block of n x inner values: i < n / R, s < inner (columns when
        // inner > 1, read in place).
        let _ = writeln!(
            s,
            "  const {i64t} span = n / {r}, lanes = span * inner, step = p * inner;"
        );
        let _ = writeln!(
            s,
            "  for ({i64t} id = {}; id < rows * lanes; id += {}) {{",
            t.global_id, t.global_size
        );
        let _ = writeln!(
            s,
            "    const {i64t} row = id / lanes, l = id - row * lanes, i = inner == 1 ? l : l / inner, k = i % p;"
        );
        let _ = writeln!(
            s,
            "    {g}const {real}* x = in_p + 2 * (row * n * inner + l);"
        );
        let _ = writeln!(
            s,
            "    {g}{real}* y = out_p + 2 * (row * n * inner + ((i - k) * {r} + k) * inner + l - i * inner);"
        );
        let _ = writeln!(s, "    {g}const {real}* w = tw_p + 2 * k * {};", r - 1);
        let sign = if self.inverse { "-" } else { "" };
        for j in 0..r {
            let _ = writeln!(
                s,
                "    {real} a{j} = x[2 * {j} * lanes], b{j} = x[2 * {j} * lanes + 1];"
            );
            if j > 0 {
                // (a + ib)(c + id), the twiddle conjugated for the inverse.
                let _ = writeln!(
                    s,
                    "    {{ const {real} c = w[{}], d = {sign}w[{}]; const {real} t = a{j} * c - b{j} * d; b{j} = a{j} * d + b{j} * c; a{j} = t; }}",
                    2 * (j - 1),
                    2 * (j - 1) + 1
                );
            }
        }
        let (code, outs) = dft(r, self.inverse, "a", "b", real, &lit);
        s.push_str(&code);
        for (out, (re, im)) in outs.iter().enumerate() {
            let _ = writeln!(
                s,
                "    y[2 * {out} * step] = {re}; y[2 * {out} * step + 1] = {im};"
            );
        }
        s.push_str("  }\n}\n");
        s
    }
}

/// A real number as a C literal of the precision's type.
fn literal(double: bool) -> impl Fn(f64) -> String {
    move |x| {
        if double {
            format!("{x:.17e}")
        } else {
            format!("{:.9e}f", x as f32)
        }
    }
}

/// A transform kernel's opening: the fp64 pragma where the dialect needs one, the signature
/// (`attribute` before the name, `buffers` of the precision's reals, (name, read-only), then
/// `scalars`) and the OpenCL buffers' offsets applied (`{name}_o`).
fn open_kernel(
    dialect: Dialect,
    double: bool,
    name: &str,
    attribute: &str,
    buffers: &[(&str, bool)],
    scalars: &[String],
) -> String {
    let t = dialect.table();
    let (g, i64t) = (t.global, t.int64);
    let real = if double { "double" } else { "float" };
    let mut s = String::new();
    if double {
        if let Some(pragma) = t.fp64_pragma {
            s.push_str(pragma);
            s.push('\n');
        }
    }
    let mut params = Vec::new();
    for &(var, read_only) in buffers {
        let c = if read_only { "const " } else { "" };
        params.push(format!("{g}{c}{real}* {var}"));
        if t.buffer_offsets {
            params.push(format!("{i64t} {var}_o"));
        }
    }
    params.extend(scalars.iter().cloned());
    let _ = writeln!(
        s,
        "{}{attribute} {name}({}) {{",
        t.kernel_prefix,
        params.join(", ")
    );
    for &(var, read_only) in buffers {
        if let Some(line) = t.offset_pointer(var, real, read_only, &format!("{var}_o")) {
            s.push_str(&line);
        }
    }
    s
}

/// The `R`-point DFT of inputs `{a}{j} + i {b}{j}`: output `t` is the sum over `j` of input
/// `j` times `exp(-+2 pi i j t / R)`. Returns the statements that compute it (temporaries of
/// type `real`, named after `a`) and each output as (real, imaginary) C expressions.
/// Composite radices nest smaller DFTs with constant twiddles between them (Cooley-Tukey in
/// registers: 60 flops for radix 8 where the direct sums take about 200); primes are direct.
fn dft(
    r: usize,
    inverse: bool,
    a: &str,
    b: &str,
    real: &str,
    lit: &dyn Fn(f64) -> String,
) -> (String, Vec<(String, String)>) {
    let inputs: Vec<(String, String)> = (0..r)
        .map(|j| (format!("{a}{j}"), format!("{b}{j}")))
        .collect();
    let mut code = String::new();
    let mut fresh = 0;
    let outs = nested_dft(&inputs, inverse, &mut code, &mut fresh, a, real, lit);
    (code, outs)
}

/// [`dft`] of named inputs, its temporaries `{tag}t{k}r`/`{tag}t{k}i` declared in `code`.
fn nested_dft(
    inputs: &[(String, String)],
    inverse: bool,
    code: &mut String,
    fresh: &mut usize,
    tag: &str,
    real: &str,
    lit: &dyn Fn(f64) -> String,
) -> Vec<(String, String)> {
    let r = inputs.len();
    // r = r1 r2 with r1 the smaller factor: 4 = 2 x 2, 8 = 2 x 4, 16 = 4 x 4.
    let r1 = match r {
        4 | 8 => 2,
        16 => 4,
        _ => return direct_dft(inputs, inverse, lit),
    };
    let r2 = r / r1;
    let temp = |code: &mut String, fresh: &mut usize, re: &str, im: &str| {
        let name = format!("{tag}t{fresh}");
        *fresh += 1;
        let _ = writeln!(code, "        const {real} {name}r = {re}, {name}i = {im};");
        (format!("{name}r"), format!("{name}i"))
    };
    // X[k1 + r1 k2] = sum_n2 W_r2^(n2 k2) W_r^(n2 k1) sum_n1 x[r2 n1 + n2] W_r1^(n1 k1)
    let mut columns = Vec::new();
    for n2 in 0..r2 {
        let part: Vec<(String, String)> = (0..r1).map(|n1| inputs[r2 * n1 + n2].clone()).collect();
        let inner = nested_dft(&part, inverse, code, fresh, tag, real, lit);
        let turned: Vec<(String, String)> = inner
            .iter()
            .enumerate()
            .map(|(k1, (re, im))| {
                let (x, y) = temp(code, fresh, re, im);
                if n2 * k1 == 0 {
                    return (x, y);
                }
                let turn = (n2 * k1) as f64 / r as f64;
                let (sn, cs) = (2.0 * PI * turn).sin_cos();
                let sn = if inverse { sn } else { -sn };
                let (cs, sn) = (clean(cs), clean(sn));
                let (mut tr, mut ti) = (Vec::new(), Vec::new());
                term(&mut tr, &x, cs);
                term(&mut tr, &y, -sn);
                term(&mut ti, &x, sn);
                term(&mut ti, &y, cs);
                temp(code, fresh, &sum(&tr, lit), &sum(&ti, lit))
            })
            .collect();
        columns.push(turned);
    }
    let mut outs = vec![(String::new(), String::new()); r];
    for k1 in 0..r1 {
        let part: Vec<(String, String)> = (0..r2).map(|n2| columns[n2][k1].clone()).collect();
        for (k2, out) in nested_dft(&part, inverse, code, fresh, tag, real, lit)
            .into_iter()
            .enumerate()
        {
            outs[k1 + r1 * k2] = out;
        }
    }
    outs
}

/// The DFT of named inputs as direct sums (primes, and the radix-2 butterflies).
fn direct_dft(
    inputs: &[(String, String)],
    inverse: bool,
    lit: &dyn Fn(f64) -> String,
) -> Vec<(String, String)> {
    let r = inputs.len();
    (0..r)
        .map(|out| {
            let (mut re, mut im) = (Vec::new(), Vec::new());
            for (j, (a, b)) in inputs.iter().enumerate() {
                let turn = ((j * out) % r) as f64 / r as f64;
                let (sn, cs) = (2.0 * PI * turn).sin_cos();
                let sn = if inverse { sn } else { -sn };
                let (cs, sn) = (clean(cs), clean(sn));
                // (a + ib)(cs + i sn) = (a cs - b sn) + i(a sn + b cs)
                term(&mut re, a, cs);
                term(&mut re, b, -sn);
                term(&mut im, a, sn);
                term(&mut im, b, cs);
            }
            (sum(&re, lit), sum(&im, lit))
        })
        .collect()
}

/// Where each pass's twiddles start in a length's table (complex entries): the host uploads
/// the tables of all passes one after another.
pub fn table_starts(radices: &[usize]) -> Vec<usize> {
    let (mut starts, mut at, mut p) = (Vec::new(), 0, 1);
    for &r in radices {
        starts.push(at);
        at += p * (r - 1);
        p *= r;
    }
    starts
}

/// `x` with the rounding noise of exact values (0, ±1, ±1/2) removed.
fn clean(x: f64) -> f64 {
    for exact in [0.0, 1.0, -1.0, 0.5, -0.5] {
        if (x - exact).abs() < 1e-15 {
            return exact;
        }
    }
    x
}

/// Adds `coefficient * var` to a sum's terms (skipping zeros).
fn term(terms: &mut Vec<(String, f64)>, var: &str, coefficient: f64) {
    if coefficient != 0.0 {
        terms.push((var.to_string(), coefficient));
    }
}

/// The C expression of a sum of `coefficient * var` terms.
fn sum(terms: &[(String, f64)], lit: &dyn Fn(f64) -> String) -> String {
    if terms.is_empty() {
        return lit(0.0);
    }
    let mut e = String::new();
    for (k, (var, c)) in terms.iter().enumerate() {
        let (negative, magnitude) = (*c < 0.0, c.abs());
        let product = if magnitude == 1.0 {
            var.clone()
        } else {
            format!("{} * {var}", lit(magnitude))
        };
        match (k, negative) {
            (0, false) => e.push_str(&product),
            (0, true) => {
                let _ = write!(e, "-{product}");
            }
            (_, false) => {
                let _ = write!(e, " + {product}");
            }
            (_, true) => {
                let _ = write!(e, " - {product}");
            }
        }
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_factor_into_the_radices() {
        assert_eq!(factor(1), Some(vec![]));
        assert_eq!(factor(4096), Some(vec![8, 8, 8, 8]));
        assert_eq!(factor(1000), Some(vec![8, 5, 5, 5]));
        assert_eq!(factor(2 * 3 * 7 * 7), Some(vec![7, 7, 3, 2]));
        assert_eq!(factor(11), None);
        assert_eq!(factor(2 * 13), None);
    }

    #[test]
    fn twiddles_are_the_roots_of_unity() {
        let t = twiddles(2, 4);
        // k = 1, j = 1, 2, 3: exp(-2 pi i j / 8)
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!((t[6] - h).abs() < 3e-16 && (t[7] + h).abs() < 3e-16);
        assert!(t[8].abs() < 1e-16 && (t[9] + 1.0).abs() < 1e-16);
        assert_eq!(&t[..6], &[1.0, -0.0, 1.0, -0.0, 1.0, -0.0]);
    }

    #[test]
    fn table_starts_follow_the_passes() {
        assert_eq!(table_starts(&[8, 8]), vec![0, 7]);
    }

    #[test]
    fn a_radix_2_pass_is_a_butterfly() {
        let k = PassKernel {
            radix: 2,
            double: false,
            inverse: false,
        };
        let src = k.source(Dialect::Cuda);
        assert!(
            src.contains("y[2 * 0 * step] = a0 + a1; y[2 * 0 * step + 1] = b0 + b1;"),
            "{src}"
        );
        assert!(
            src.contains("y[2 * 1 * step] = a0 - a1; y[2 * 1 * step + 1] = b0 - b1;"),
            "{src}"
        );
        let inv = PassKernel {
            radix: 4,
            double: true,
            inverse: true,
        }
        .source(Dialect::OpenCl);
        assert!(inv.contains("d = -w[1]"), "{inv}");
        assert!(
            inv.contains("#pragma OPENCL EXTENSION cl_khr_fp64"),
            "{inv}"
        );
    }
}
