//! Stockham passes of a large radix `R`, each radix-`R` DFT done in local (shared) memory: the
//! kernel that keeps an FFT to few passes over global memory on GPUs.
//!
//! The data are `batch` blocks of `n * inner` complex values, the transform running along the
//! middle axis (`inner` = 1: rows; `inner` > 1: columns, e.g. fft2's first axis, read in place
//! with no transpose). A length `n = R1 R2 ... Rk` is `k` launches; the pass of radix `R` after
//! `p = R1 ... R(s-1)` (span `n / R`) takes, for each *lane* `(i, s)` (`i < span`,
//! `s < inner`), the `R` inputs `i + j span` (times `inner`, plus `s`), turns input `j` by
//! `exp(-2 pi i j (i mod p) / (p R))`, takes their `R`-point DFT in local memory (itself
//! Stockham passes of radices 16, 8, 7, 5, 4, 3, 2 between barriers) and writes output `t` to
//! `(i - i mod p) R + i mod p + t p`: the last pass leaves natural order. One launch for a
//! row that fits local memory (the row kernel); two or three for 2^24 (a four-step FFT whose
//! middle twiddles are fused into the later passes' loads).
//!
//! A group takes `lanes` adjacent lanes (adjacent columns, or adjacent rows when
//! `span inner` is 1), so its global reads and writes are runs of `lanes` (or `R`) values.
//! `R`, `lanes` and the group's threads are compiled in; every size is a runtime argument,
//! so one kernel serves every pass, axis and batch of its radix.
//!
//! Twiddles: the local passes read `exp(-2 pi i m / R)` from a table of `R` values; the fused
//! twiddle `exp(-2 pi i m / n)` (`m = j (i mod p) n / (p R) < n`) is the product of two table
//! values, `lo[m mod 2^bits] hi[m >> bits]` (about `2 sqrt(n)` values, computed on the host
//! in double precision: accurate where a single-precision `sincos` of a large angle is not).
//!
//! Two forms of the kernel (`EMBER_FFT_TILES`'s fourth field): the *direct* form (default) does
//! the first local radix step in registers straight from global memory and the last one
//! straight to global memory, so a tile of `R = 16 x 16` goes through local memory once (one
//! barrier), and reads two table values a thread for the fused twiddle (their powers for the
//! rest); the *staged* form loads the tile into local memory (two table reads a value), runs
//! every local step from and to local memory, and stores from it. Through NVIDIA's OpenCL the
//! staged form ran at about 1.1 TB/s a pass on an H100 (2^24: 3 passes, ~250 us each), well
//! under the memory's speed: compiled through NVRTC for sm_90 its 256 x 16 and 4,096-point
//! kernels take 255 registers and spill 150-180 bytes a thread (its loads hold 32 values a
//! thread), so two groups of 128 threads an SM, and about 180 instructions a value (2^24's
//! 2^24 values a pass: ~110 us of issue alone on 132 SMs); the direct form takes 96-128
//! registers in 256-thread groups, no spills, and 64 instructions a value (256 x 16 lanes;
//! 90 for a 4,096-point row).
//!
//! Parameters: input, output, the radix's table, the length's two-level table (OpenCL: each
//! buffer then its byte offset), then `span`, `inner`, `p`, `lanes` (how many lanes in all:
//! `batch span inner`) and `bits` (int64).

use std::fmt::Write;

use super::direct::register_radices;
use super::{dft, factor, literal, open_kernel};
use crate::dialect::Dialect;

/// One large-radix pass's kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileKernel {
    /// The radix `R` (its primes 2, 3, 5 and 7).
    pub radix: usize,
    /// Adjacent lanes (transforms) a group takes: a power of two.
    pub lanes: usize,
    /// Threads a group.
    pub threads: usize,
    /// complex128 (else complex64).
    pub double: bool,
    pub inverse: bool,
    /// The first and last local radix steps in registers, straight from and to global memory
    /// ([`TileKernel::source`]'s "direct" form); else every step through local memory.
    pub direct: bool,
    /// Registers a thread at most (0: the compiler's choice): CUDA's launch bounds, NVIDIA's
    /// OpenCL's `-cl-nv-maxrregcount` (the plan's compile options).
    pub regs: usize,
}

/// How the tile passes split a transform (measured on GPUs; the defaults suit NVIDIA's
/// OpenCL on the H200 and `EMBER_FFT_TILES` sweeps them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Local memory a group's values take at most (bytes).
    pub local_bytes: usize,
    /// Adjacent lanes a pass over strided data takes at least (runs of global memory this
    /// long: 8 complex64 values are 64 bytes, two 32-byte sectors).
    pub min_lanes: usize,
    /// Threads a group at most. 128 measured best through NVIDIA's OpenCL on an H200 with
    /// no register bound (device time against cuFFT's: fft 2^24 1.07x, rows of 4,096 0.82x,
    /// fft2 4,096² 0.77x, rfft 2^26 0.71x; 256 threads with the bound of 128 gave 1.10x,
    /// 0.70x, 0.74x and 0.70x); the staged form too (on an H100: fft2 of 4,096² complex64
    /// 624 us against 686 at 256).
    pub max_threads: usize,
    /// The kernels' form: [`TileKernel::direct`] (1) or every step through local memory (0).
    pub direct: bool,
    /// Values a group takes where lanes are many (at least 16 lanes where they fit).
    pub values: usize,
    /// Registers a thread at most for each 16 complex64 values it holds (scaled to what a
    /// kernel's threads hold: 8 values, half), 0 for the compiler's choice. 128: two groups of
    /// 256 threads an SM on NVIDIA GPUs where ptxas (through NVRTC, sm_90) left alone gives a
    /// 4,096-point row or 512 x 8 lanes 156 registers and one group; 64 x 32 lanes (8 values
    /// a thread) fit 64 without spilling, 256 x 16 lanes 96. Groups of 128 threads (the
    /// default) leave the registers to the compiler (0).
    pub regs: usize,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            local_bytes: 32 * 1024,
            min_lanes: 8,
            max_threads: 128,
            direct: true,
            values: 2048,
            regs: 0,
        }
    }
}

impl Tuning {
    /// `"local_bytes,min_lanes,max_threads,direct,values,regs"` (any prefix of them; the rest
    /// default).
    pub fn parse(text: &str) -> Option<Tuning> {
        let mut t = Tuning::default();
        for (k, part) in text.split(',').enumerate() {
            let v: usize = part.trim().parse().ok()?;
            match k {
                0 if v > 0 => t.local_bytes = v,
                1 if v > 0 => t.min_lanes = v.next_power_of_two(),
                2 if v > 0 => t.max_threads = v,
                3 if v < 2 => t.direct = v == 1,
                4 if v > 0 => t.values = v,
                5 => t.regs = v,
                _ => return None,
            }
        }
        Some(t)
    }
}

/// The passes of transforms of `n` along an axis of `inner` adjacent values, as
/// (radix, lanes) from the first pass to the last; `None` when another prime divides `n` or
/// no split fits `tuning.local_bytes` (`item`: bytes of a complex value).
pub fn tile_passes(
    n: usize,
    inner: usize,
    item: usize,
    tuning: &Tuning,
) -> Option<Vec<(usize, usize)>> {
    let radices = factor(n).filter(|_| n >= 2)?;
    let fits = |r: usize, lanes: usize| r * lanes * item <= tuning.local_bytes;
    // Groups of about `tuning.values` values (fewer for long radices): short transforms take
    // many lanes a group, so that a group has threads enough.
    let widen = |r: usize, mut lanes: usize| {
        while fits(r, 2 * lanes) && (lanes < 16 || r * lanes < tuning.values) && lanes < 256 {
            lanes *= 2;
        }
        lanes
    };
    if inner == 1 && fits(n, 1) {
        // Whole rows a group (a run of R values is coalesced already).
        return Some(vec![(n, widen(n, 1))]);
    }
    let largest = tuning.local_bytes / (item * tuning.min_lanes);
    let mut primes: Vec<usize> = Vec::new();
    for r in radices {
        for q in [2, 3, 5, 7] {
            let mut r = r;
            while r.is_multiple_of(q) {
                primes.push(q);
                r /= q;
            }
        }
    }
    primes.sort_unstable_by(|a, b| b.cmp(a));
    for levels in 1..=primes.len() {
        // Largest prime first onto the smallest product: balanced radices.
        let mut products = vec![1usize; levels];
        for &q in &primes {
            let k = (0..levels).min_by_key(|&k| products[k]).unwrap_or(0);
            products[k] *= q;
        }
        if products.iter().all(|&r| r <= largest) {
            products.retain(|&r| r > 1);
            products.sort_unstable_by(|a, b| b.cmp(a));
            let passes = products
                .into_iter()
                .map(|r| (r, widen(r, tuning.min_lanes)))
                .collect();
            return Some(passes);
        }
    }
    None
}

/// The bits of the low half of the two-level table of `exp(-2 pi i m / n)`, `m < n`.
pub fn split_bits(n: usize) -> u32 {
    let bits = usize::BITS - n.saturating_sub(1).leading_zeros();
    bits.div_ceil(2)
}

/// `exp(-2 pi i m / n)` for `m < n`, interleaved (re, im): the table of a radix-`n` pass's
/// local passes.
pub fn roots(n: usize) -> Vec<f64> {
    (0..n).flat_map(|m| root(m, n)).collect()
}

/// `exp(-2 pi i m / n)` as (re, im), the angle's numerator reduced first so that large
/// lengths stay exact.
fn root(m: usize, n: usize) -> [f64; 2] {
    let turn = (m % n) as f64 / n as f64;
    let (s, c) = (-2.0 * std::f64::consts::PI * turn).sin_cos();
    [c, s]
}

/// The two-level table of length `n` (forward direction, interleaved (re, im)): `exp(-2 pi i
/// m / n)` for `m < 2^bits`, then for `m = h 2^bits`, `h <= n >> bits`.
pub fn split_table(n: usize) -> Vec<f64> {
    let bits = split_bits(n);
    let low = 1usize << bits;
    let ms = (0..low).chain((0..=(n >> bits)).map(|h| h << bits));
    ms.flat_map(|m| root(m, n)).collect()
}

impl TileKernel {
    /// A pass of radix `radix` over `lanes` lanes a group in `tuning`'s form, with its
    /// threads: a thread a butterfly of the local pass of the largest radix (staged form: of
    /// the first), at most `tuning.max_threads`.
    pub fn new(
        radix: usize,
        lanes: usize,
        double: bool,
        inverse: bool,
        tuning: &Tuning,
    ) -> TileKernel {
        let widest = if tuning.direct {
            register_radices(radix).into_iter().max()
        } else {
            local_radices(radix).first().copied()
        };
        let threads = (lanes * radix / widest.unwrap_or(2)).clamp(1, tuning.max_threads.max(1));
        // The most values a thread holds in a local pass (a complex128 one counts twice).
        let radices = if tuning.direct {
            register_radices(radix)
        } else {
            local_radices(radix)
        };
        let held = radices
            .iter()
            .map(|r| (radix / r * lanes).div_ceil(threads) * r)
            .max()
            .unwrap_or(1)
            * if double { 2 } else { 1 };
        let regs = (tuning.regs * held / 16).div_ceil(8) * 8;
        TileKernel {
            radix,
            lanes,
            threads,
            double,
            inverse,
            direct: tuning.direct,
            // The staged form keeps the compiler's choice (its loads hold 32 values a thread).
            regs: if regs > 255 || !tuning.direct {
                0
            } else {
                regs
            },
        }
    }

    /// CUDA's launch bounds for [`TileKernel::regs`] (groups an SM of 65,536 registers).
    pub(super) fn attribute(&self, dialect: Dialect) -> String {
        match (&dialect.table().warp, self.regs) {
            (Some(warp), regs) if regs > 0 => {
                let blocks = (65536 / (self.threads * regs)).max(1);
                format!(
                    " {}",
                    warp.launch_bounds
                        .replace("{threads}", &self.threads.to_string())
                        .replace("{blocks}", &blocks.to_string())
                )
            }
            _ => String::new(),
        }
    }

    pub fn name(&self) -> String {
        format!(
            "ember_fft_tile{}{}x{}t{}r{}_{}_{}",
            if self.direct { "d" } else { "" },
            self.radix,
            self.lanes,
            self.threads,
            self.regs,
            if self.double { "c128" } else { "c64" },
            if self.inverse { "inv" } else { "fwd" }
        )
    }

    /// Local memory a group takes (bytes).
    pub fn local_bytes(&self) -> usize {
        padded_size(self.radix * self.lanes) * if self.double { 16 } else { 8 } + self.lanes * 24
    }

    /// Both forms' opening: the signature (input, output, twiddle table and the roots' table,
    /// then `span inner p lanes bits`) and the buffers as complex values `x`, `y`, `tw`, `lo`.
    pub(super) fn opening(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let (g, i64t) = (t.global, t.int64);
        let v2 = if self.double { "double2" } else { "float2" };
        let scalars: Vec<String> = ["span", "inner", "p", "lanes", "bits"]
            .iter()
            .map(|v| format!("{i64t} {v}"))
            .collect();
        let buffers = [
            ("in_p", true),
            ("out_p", false),
            ("tw_p", true),
            ("wn_p", true),
        ];
        let attribute = self.attribute(dialect);
        let mut s = open_kernel(
            dialect,
            self.double,
            &self.name(),
            &attribute,
            &buffers,
            &scalars,
        );
        let _ = writeln!(s, "  {g}const {v2}* x = ({g}const {v2}*)in_p;");
        let _ = writeln!(s, "  {g}{v2}* y = ({g}{v2}*)out_p;");
        let _ = writeln!(s, "  {g}const {v2}* tw = ({g}const {v2}*)tw_p;");
        let _ = writeln!(s, "  {g}const {v2}* lo = ({g}const {v2}*)wn_p;");
        s
    }

    /// The kernel's source in `dialect`.
    pub fn source(&self, dialect: Dialect) -> String {
        if self.direct {
            self.source_direct(dialect)
        } else {
            self.source_staged(dialect)
        }
    }

    /// The staged form: the lanes' values loaded into local memory (turned by the fused
    /// twiddle), every local pass from and to local memory, then stored.
    fn source_staged(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let (g, i64t, sh, bar) = (t.global, t.int64, t.shared, t.barrier);
        let real = if self.double { "double" } else { "float" };
        let v2 = format!("{real}2");
        let lit = literal(self.double);
        let (r_all, c, threads) = (self.radix, self.lanes, self.threads);
        let size = r_all * c;
        let mut s = self.opening(dialect);
        let conj = if self.inverse { "-" } else { "" };
        let _ = writeln!(s, "  {g}const {v2}* hi = lo + ((({i64t})1) << bits);");
        let _ = writeln!(s, "  const {i64t} mask = ((({i64t})1) << bits) - 1;");
        let _ = writeln!(s, "  {sh} {v2} buf[{}];", padded_size(size));
        let _ = writeln!(s, "  {sh} {i64t} lin[{c}], lout[{c}], lturn[{c}];");
        let _ = writeln!(s, "  const int lid = {};", t.local_id);
        let _ = writeln!(
            s,
            "  const {i64t} span_in = span * inner, block = span_in * {r_all}, p_out = p * inner;"
        );
        // Lanes of a group adjacent in memory: a thread a lane (coalesced runs of lanes);
        // else (rows) a thread a value of a lane (runs of R).
        let _ = writeln!(
            s,
            "  const int lane_major_in = span_in >= {c}, lane_major_out = p_out >= {c};"
        );
        let _ = writeln!(
            s,
            "  for ({i64t} first = {} * {c}; first < lanes; first += {} * {c}) {{",
            t.group_id[0], t.num_groups[0]
        );
        let _ = writeln!(s, "    for (int q = lid; q < {c}; q += {threads}) {{");
        let _ = writeln!(s, "      const {i64t} lane = first + q;");
        let _ = writeln!(s, "      if (lane < lanes) {{");
        let _ = writeln!(
            s,
            "        const {i64t} b = lane / span_in, l = lane - b * span_in, i = l / inner, k = i % p;"
        );
        let _ = writeln!(s, "        lin[q] = b * block + l;");
        let _ = writeln!(
            s,
            "        lout[q] = b * block + ((i - k) * {r_all} + k) * inner + (l - i * inner);"
        );
        let _ = writeln!(s, "        lturn[q] = k * (span / p);");
        let _ = writeln!(s, "      }} else {{ lin[q] = -1; }}");
        let _ = writeln!(s, "    }}");
        let _ = writeln!(s, "    {bar};");
        // Loads, turned by the fused twiddle (p > 1): every load of a thread issued before
        // the first is used (unrolled), so that they are in flight together.
        let io_steps = size.div_ceil(threads);
        let unrolled = io_steps <= 32;
        let steps: Vec<String> = if unrolled {
            (0..io_steps)
                .map(|st| format!("{}", st * threads))
                .collect()
        } else {
            vec!["0".to_string()]
        };
        if !unrolled {
            let _ = writeln!(s, "    for (int f0 = 0; f0 < {size}; f0 += {threads}) {{");
        }
        let base = if unrolled { "" } else { "f0 + " };
        for (st, offset) in steps.iter().enumerate() {
            let _ = writeln!(
                s,
                "    const int lf{st} = {base}lid + {offset}, lc{st} = lane_major_in ? lf{st} % {c} : lf{st} / {r_all}, lj{st} = lane_major_in ? lf{st} / {c} : lf{st} % {r_all};"
            );
            let _ = writeln!(
                s,
                "    const {i64t} lat{st} = lf{st} < {size} ? lin[lc{st}] : -1;"
            );
            let _ = writeln!(s, "    {v2} lv{st}; lv{st}.x = 0; lv{st}.y = 0;");
            let _ = writeln!(
                s,
                "    if (lat{st} >= 0) lv{st} = x[lat{st} + lj{st} * span_in];"
            );
        }
        for st in 0..steps.len() {
            let _ = writeln!(s, "    if (lat{st} >= 0 && p > 1 && lj{st} > 0) {{");
            let _ = writeln!(
                s,
                "      const {i64t} m = lj{st} * lturn[lc{st}]; const {v2} a = lo[m & mask], e = hi[m >> bits];"
            );
            let _ = writeln!(
                s,
                "      const {real} wr = a.x * e.x - a.y * e.y, wi = {conj}(a.x * e.y + a.y * e.x);"
            );
            let _ = writeln!(
                s,
                "      const {real} re = lv{st}.x * wr - lv{st}.y * wi; lv{st}.y = lv{st}.x * wi + lv{st}.y * wr; lv{st}.x = re;"
            );
            let _ = writeln!(s, "    }}");
            let _ = writeln!(
                s,
                "    if (lf{st} < {size}) buf[{}] = lv{st};",
                pad(&format!("lj{st} * {c} + lc{st}"))
            );
        }
        if !unrolled {
            s.push_str("    }\n");
        }
        let _ = writeln!(s, "    {bar};");
        // The R-point DFTs: local Stockham passes, value e of lane c at buf[e * lanes + c].
        let radices = local_radices(r_all);
        let mut pp = 1;
        for (pass, &r) in radices.iter().enumerate() {
            let sp = r_all / r;
            let flies = sp * c;
            let steps = flies.div_ceil(threads);
            let stride = r_all / (pp * r);
            let _ = writeln!(s, "    {{ // local pass {pass}: radix {r}, p = {pp}");
            for st in 0..steps {
                let vals: Vec<String> = (0..r)
                    .map(|j| format!("a{st}_{j} = 0, b{st}_{j} = 0"))
                    .collect();
                let _ = writeln!(s, "      {real} {};", vals.join(", "));
                let _ = writeln!(
                    s,
                    "      const int v{st} = lid + {}, c{st} = v{st} % {c}, q{st} = v{st} / {c}, k{st} = q{st} % {pp};",
                    st * threads
                );
                let guard = if (st + 1) * threads > flies {
                    format!("v{st} < {flies}")
                } else {
                    "1".to_string()
                };
                let _ = writeln!(s, "      if ({guard}) {{");
                if pp > 1 {
                    // One table read a butterfly; its powers by products of lower powers (at
                    // most log2(r) roundings deep).
                    let _ = writeln!(
                        s,
                        "        const {v2} w{st} = tw[k{st} * {stride}]; const {real} wr{st}_1 = w{st}.x, wi{st}_1 = {conj}w{st}.y;"
                    );
                    for j in 2..r {
                        let (a, b) = (j / 2, j - j / 2);
                        let _ = writeln!(
                            s,
                            "        const {real} wr{st}_{j} = wr{st}_{a} * wr{st}_{b} - wi{st}_{a} * wi{st}_{b}, wi{st}_{j} = wr{st}_{a} * wi{st}_{b} + wi{st}_{a} * wr{st}_{b};"
                        );
                    }
                }
                for j in 0..r {
                    let _ = writeln!(
                        s,
                        "        {{ const {v2} u = buf[{}]; a{st}_{j} = u.x; b{st}_{j} = u.y; }}",
                        pad(&format!("(q{st} + {}) * {c} + c{st}", j * sp))
                    );
                    if j > 0 && pp > 1 {
                        let _ = writeln!(
                            s,
                            "        {{ const {real} e = a{st}_{j} * wr{st}_{j} - b{st}_{j} * wi{st}_{j}; b{st}_{j} = a{st}_{j} * wi{st}_{j} + b{st}_{j} * wr{st}_{j}; a{st}_{j} = e; }}"
                        );
                    }
                }
                s.push_str("      }\n");
            }
            let _ = writeln!(s, "      {bar};");
            for st in 0..steps {
                let guard = if (st + 1) * threads > flies {
                    format!("v{st} < {flies}")
                } else {
                    "1".to_string()
                };
                let _ = writeln!(s, "      if ({guard}) {{");
                let _ = writeln!(s, "        const int base = (q{st} - k{st}) * {r} + k{st};");
                let (code, outs) = dft(
                    r,
                    self.inverse,
                    &format!("a{st}_"),
                    &format!("b{st}_"),
                    real,
                    &lit,
                );
                s.push_str(&code);
                for (o, (re, im)) in outs.iter().enumerate() {
                    let _ = writeln!(
                        s,
                        "        {{ {v2} u; u.x = {re}; u.y = {im}; buf[{}] = u; }}",
                        pad(&format!("(base + {}) * {c} + c{st}", o * pp))
                    );
                }
                s.push_str("      }\n");
            }
            let _ = writeln!(s, "      {bar};\n    }}");
            pp *= r;
        }
        let _ = writeln!(s, "    for (int f = lid; f < {size}; f += {threads}) {{");
        let _ = writeln!(
            s,
            "      const int c = lane_major_out ? f % {c} : f / {r_all}, o = lane_major_out ? f / {c} : f % {r_all};"
        );
        let _ = writeln!(s, "      const {i64t} at = lin[c] >= 0 ? lout[c] : -1;");
        let _ = writeln!(
            s,
            "      if (at >= 0) y[at + o * p_out] = buf[{}];",
            pad(&format!("o * {c} + c"))
        );
        let _ = writeln!(s, "    }}");
        let _ = writeln!(s, "    {bar};");
        s.push_str("  }\n}\n");
        s
    }
}

/// The radices of a tile's local passes: 16 (a 4 x 4 DFT in registers: fewer barriers and
/// local-memory round trips than radix 8) while it divides, then [`factor`]'s.
pub fn local_radices(mut r: usize) -> Vec<usize> {
    let mut radices = Vec::new();
    while r > 16 && r.is_multiple_of(16) || r == 16 {
        radices.push(16);
        r /= 16;
    }
    radices.extend(factor(r).unwrap_or_default());
    radices
}

/// A local-memory index with one empty slot after every 16 values: the strided writes of a
/// radix-`r` pass (`r lanes` apart) then spread over the banks instead of hitting two.
pub(super) fn pad(index: &str) -> String {
    format!("(({index}) + (({index}) >> 4))")
}

/// The local array's length for `values` values, padded.
pub(super) fn padded_size(values: usize) -> usize {
    values + values / 16 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_that_fit_take_one_pass_and_long_ones_few() {
        let t = Tuning::default();
        assert_eq!(tile_passes(4096, 1, 8, &t), Some(vec![(4096, 1)]));
        assert_eq!(tile_passes(64, 1, 8, &t), Some(vec![(64, 32)]));
        assert_eq!(tile_passes(8, 1, 8, &t), Some(vec![(8, 256)]));
        // 2^24 complex64: radices of at most 32 KiB / (8 B x 8 lanes) = 512.
        assert_eq!(tile_passes(1 << 24, 1, 8, &t), Some(vec![(256, 16); 3]));
        assert_eq!(
            tile_passes(1 << 25, 1, 8, &t),
            Some(vec![(512, 8), (256, 16), (256, 16)])
        );
        assert_eq!(
            tile_passes(1 << 24, 1, 8, &Tuning::parse("32768,1,128,0").unwrap()),
            Some(vec![(4096, 1), (4096, 1)])
        );
        // Columns of 4096: two passes of 64 over 16 adjacent columns.
        assert_eq!(
            tile_passes(4096, 4096, 8, &t),
            Some(vec![(64, 32), (64, 32)])
        );
        assert_eq!(tile_passes(11, 1, 8, &t), None);
        assert_eq!(tile_passes(1, 1, 8, &t), None);
        assert_eq!(Tuning::parse("x"), None);
        assert_eq!(Tuning::parse("1,1,1,2"), None);
        assert!(!Tuning::parse("1,1,1,0").unwrap().direct);
        let t = Tuning::parse("32768,8,256,1,4096,0").unwrap();
        assert_eq!((t.values, t.regs), (4096, 0));
        assert_eq!(Tuning::parse("32768,8,256,1,4096,0,1"), None);
    }

    #[test]
    fn the_split_table_holds_every_root() {
        for n in [2, 3, 1000, 4096, 1 << 24] {
            let (bits, table) = (split_bits(n), split_table(n));
            let low = 1usize << bits;
            assert!(table.len() / 2 > low + (n >> bits));
            for m in [0, 1, n / 3, n - 1] {
                let (a, e) = (2 * (m & (low - 1)), 2 * (low + (m >> bits)));
                let (re, im) = (
                    table[a] * table[e] - table[a + 1] * table[e + 1],
                    table[a] * table[e + 1] + table[a + 1] * table[e],
                );
                let angle = -2.0 * std::f64::consts::PI * m as f64 / n as f64;
                assert!((re - angle.cos()).abs() < 1e-14 && (im - angle.sin()).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn a_tile_kernel_keeps_its_lanes_in_local_memory() {
        assert_eq!(local_radices(4096), vec![16, 16, 16]);
        assert_eq!(local_radices(64), vec![16, 4]);
        assert_eq!(local_radices(1000), vec![8, 5, 5, 5]);
        let staged = Tuning::parse("32768,8,256,0,2048,0").unwrap();
        let k = TileKernel::new(64, 16, false, false, &staged);
        assert_eq!(k.threads, 64);
        let src = k.source(Dialect::OpenCl);
        assert!(src.contains("__local float2 buf[1089];"), "{src}");
        // Two barriers a local pass (radix 16, 4), and two around the loads, one after the stores.
        assert_eq!(
            src.matches("barrier(CLK_LOCAL_MEM_FENCE)").count(),
            2 * 2 + 3,
            "{src}"
        );
        let cuda = TileKernel::new(4096, 1, true, true, &staged).source(Dialect::Cuda);
        assert!(cuda.contains("__shared__ double2 buf[4353];"), "{cuda}");
    }
}
