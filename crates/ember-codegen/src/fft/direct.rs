//! The direct form of the tile kernels ([`TileKernel::direct`]): the first local radix step
//! in registers straight from global memory, the last one straight to global memory, local
//! memory only for the exchanges between them (one for a tile of 256 = 16 x 16).

use std::fmt::Write;

use super::tile::{pad, padded_size, TileKernel};
use super::{dft, factor, literal};
use crate::dialect::Dialect;

impl TileKernel {
    /// The direct form: a thread takes a butterfly of the first local pass straight from
    /// global memory (its loads turned by the fused twiddle, computed from three table roots
    /// and their powers instead of two table reads a value), the middle passes go through
    /// local memory, and the last pass's butterflies store straight to global memory. A tile
    /// of two local passes (256 = 16 x 16) is one exchange through local memory and one
    /// barrier. Threads map onto butterflies lane-minor where adjacent lanes are adjacent in
    /// memory (runs of `lanes` values), else element-minor (runs along a lane), chosen at run
    /// time for the loads and for the stores. Lane arithmetic is 32-bit (the plan keeps the
    /// lanes below 2^31).
    pub(super) fn source_direct(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let (g, sh, bar) = (t.global, t.shared, t.barrier);
        let real = if self.double { "double" } else { "float" };
        let v2 = format!("{real}2");
        let lit = literal(self.double);
        let (r_all, c, threads) = (self.radix, self.lanes, self.threads);
        let radices = register_radices(r_all);
        let last = radices.len() - 1;
        let mut s = self.opening(dialect);
        let conj = if self.inverse { "-" } else { "" };
        // Every index is below the transform's size, which the plan keeps below 2^31: 32-bit
        // arithmetic (a 64-bit division is a long emulated sequence on GPUs, and 64-bit
        // offsets cost registers, so occupancy).
        let _ = writeln!(
            s,
            "  const unsigned int bits32 = (unsigned int)bits, mask = (1u << bits32) - 1u;"
        );
        let _ = writeln!(s, "  {g}const {v2}* hi = lo + (1u << bits32);");
        if last > 0 {
            let _ = writeln!(s, "  {sh} {v2} buf[{}];", padded_size(r_all * c));
            let _ = writeln!(s, "  {sh} unsigned int lout[{c}];");
        }
        let _ = writeln!(s, "  const int lid = {};", t.local_id);
        let _ = writeln!(
            s,
            "  const unsigned int inner32 = (unsigned int)inner, p32 = (unsigned int)p, span_in = (unsigned int)span * inner32, block = span_in * {r_all}u, p_out = p32 * inner32, turn_step = (unsigned int)span / p32, lanes32 = (unsigned int)lanes;"
        );
        let _ = writeln!(
            s,
            "  const int lane_major_in = span_in >= {c}, lane_major_out = p_out >= {c};"
        );
        let _ = writeln!(
            s,
            "  for (unsigned int first = (unsigned int){} * {c}u; first < lanes32; first += (unsigned int){} * {c}u) {{",
            t.group_id[0], t.num_groups[0]
        );
        let mut pp = 1;
        for (pass, &r) in radices.iter().enumerate() {
            let sp = r_all / r;
            let flies = sp * c;
            let steps = flies.div_ceil(threads);
            let stride = r_all / (pp * r);
            let _ = writeln!(s, "    {{ // local pass {pass}: radix {r}, p = {pp}");
            // Butterfly (q, lane) of this pass for each step's thread.
            for st in 0..steps {
                let bound = if (st + 1) * threads > flies {
                    format!("v{st} < {flies} && ")
                } else {
                    String::new()
                };
                let mapping = if pass == 0 {
                    Some("lane_major_in")
                } else if pass == last {
                    Some("lane_major_out")
                } else {
                    None
                };
                let _ = writeln!(s, "      const int v{st} = lid + {};", st * threads);
                match mapping {
                    Some(major) => {
                        let _ = writeln!(
                            s,
                            "      const int c{st} = {major} ? v{st} % {c} : v{st} / {sp}, q{st} = {major} ? v{st} / {c} : v{st} % {sp};"
                        );
                    }
                    None => {
                        let _ = writeln!(
                            s,
                            "      const int c{st} = v{st} % {c}, q{st} = v{st} / {c};"
                        );
                    }
                }
                let _ = writeln!(
                    s,
                    "      const int ok{st} = {bound}first + c{st} < lanes32;"
                );
                let vals: Vec<String> = (0..r)
                    .map(|j| format!("a{st}_{j} = 0, b{st}_{j} = 0"))
                    .collect();
                let _ = writeln!(s, "      {real} {};", vals.join(", "));
                if pass == 0 {
                    self.direct_loads(&mut s, dialect, st, r, sp, last == 0);
                } else {
                    let _ = writeln!(s, "      if (ok{st}) {{");
                    let _ = writeln!(s, "        const int k{st} = q{st} % {pp};");
                    // w = exp(-2 pi i k / (pp r)) and, where r > 4, w^4 from the table; the
                    // other powers their products (split_powers).
                    let _ = writeln!(
                        s,
                        "        const {v2} w{st} = tw[k{st} * {stride}]; const {real} gr{st}_1 = w{st}.x, gi{st}_1 = {conj}w{st}.y;"
                    );
                    if r > 4 {
                        let _ = writeln!(
                            s,
                            "        const {v2} x{st} = tw[k{st} * {}]; const {real} hr{st}_1 = x{st}.x, hi{st}_1 = {conj}x{st}.y;",
                            4 * stride
                        );
                    }
                    let w = split_powers(&mut s, real, &format!("{st}_"), r);
                    for (j, (wr, wi)) in w.iter().enumerate() {
                        let _ = writeln!(
                            s,
                            "        {{ const {v2} u = buf[{}]; a{st}_{j} = u.x; b{st}_{j} = u.y; }}",
                            pad(&format!("(q{st} + {}) * {c} + c{st}", j * sp))
                        );
                        if j > 0 {
                            let _ = writeln!(
                                s,
                                "        {{ const {real} e = a{st}_{j} * {wr} - b{st}_{j} * {wi}; b{st}_{j} = a{st}_{j} * {wi} + b{st}_{j} * {wr}; a{st}_{j} = e; }}"
                            );
                        }
                    }
                    s.push_str("      }\n");
                }
            }
            if pass > 0 && pass < last {
                // Everyone's reads done before the pass writes over them.
                let _ = writeln!(s, "      {bar};");
            }
            for st in 0..steps {
                let _ = writeln!(s, "      if (ok{st}) {{");
                let (code, outs) = dft(
                    r,
                    self.inverse,
                    &format!("a{st}_"),
                    &format!("b{st}_"),
                    real,
                    &lit,
                );
                s.push_str(&code);
                if pass == last {
                    // Output o of butterfly q is value q + o pp of the lane (q < pp).
                    let _ = writeln!(
                        s,
                        "        {g}{v2}* ys = y + ({} + q{st} * p_out); const unsigned int o_step = {pp}u * p_out;",
                        if last == 0 { format!("bo{st}") } else { format!("lout[c{st}]") }
                    );
                    for (o, (re, im)) in outs.iter().enumerate() {
                        let _ = writeln!(
                            s,
                            "        {{ {v2} u; u.x = {re}; u.y = {im}; ys[{o} * o_step] = u; }}"
                        );
                    }
                } else {
                    let _ = writeln!(
                        s,
                        "        const int base = (q{st} - q{st} % {pp}) * {r} + q{st} % {pp};"
                    );
                    for (o, (re, im)) in outs.iter().enumerate() {
                        let _ = writeln!(
                            s,
                            "        {{ {v2} u; u.x = {re}; u.y = {im}; buf[{}] = u; }}",
                            pad(&format!("(base + {}) * {c} + c{st}", o * pp))
                        );
                    }
                }
                s.push_str("      }\n");
            }
            if pass < last {
                let _ = writeln!(s, "      {bar};");
            }
            s.push_str("    }\n");
            pp *= r;
        }
        if last > 0 {
            // The next tile's first pass writes over what this one's last pass reads.
            let _ = writeln!(s, "    {bar};");
        }
        s.push_str("  }\n}\n");
        s
    }

    /// The first local pass's loads of step `st` (radix `r`, `sp` butterflies a lane): the
    /// lane's addresses (kept in `lout` for the last pass, or in registers when `alone`),
    /// then `r` values turned by the fused twiddle `exp(-2 pi i m / n)`, `m = e k span / p`
    /// for value `e = q + j sp` of the lane: `W^(q turn) (W^(sp turn))^j`.
    fn direct_loads(
        &self,
        s: &mut String,
        dialect: Dialect,
        st: usize,
        r: usize,
        sp: usize,
        alone: bool,
    ) {
        let t = dialect.table();
        let g = t.global;
        let real = if self.double { "double" } else { "float" };
        let v2 = format!("{real}2");
        let conj = if self.inverse { "-" } else { "" };
        let r_all = self.radix;
        let _ = writeln!(s, "      unsigned int bo{st} = 0;");
        let _ = writeln!(s, "      if (ok{st}) {{");
        let _ = writeln!(
            s,
            "        const unsigned int lane = first + c{st}, b = lane / span_in, l = lane - b * span_in, i = inner32 == 1 ? l : l / inner32, k = i % p32;"
        );
        let _ = writeln!(
            s,
            "        bo{st} = b * block + ((i - k) * {r_all}u + k) * inner32 + (l - i * inner32);"
        );
        if !alone {
            let _ = writeln!(s, "        if (q{st} == 0) lout[c{st}] = bo{st};");
        }
        let _ = writeln!(
            s,
            "        {g}const {v2}* xs = x + (b * block + l + q{st} * span_in); const unsigned int j_step = {sp}u * span_in;"
        );
        for j in 0..r {
            let _ = writeln!(
                s,
                "        {{ const {v2} u = xs[{j} * j_step]; a{st}_{j} = u.x; b{st}_{j} = u.y; }}"
            );
        }
        let _ = writeln!(s, "        const unsigned int turn = k * turn_step;");
        let _ = writeln!(s, "        if (turn > 0) {{");
        // W^m = lo[m mod 2^bits] hi[m >> bits]: f, g and, where r > 4, h = g^4 (split_powers).
        let mut roots = vec![
            ("f", format!("q{st} * turn")),
            ("g", format!("{sp} * turn")),
        ];
        if r > 4 {
            roots.push(("h", format!("{} * turn", 4 * sp)));
        }
        for (name, m) in &roots {
            let (re, im) = if *name == "f" {
                ("fr".to_string(), "fi".to_string())
            } else {
                (format!("{name}r_1"), format!("{name}i_1"))
            };
            let _ = writeln!(
                s,
                "          const unsigned int m{name} = {m}; const {v2} {name}l = lo[m{name} & mask], {name}h = hi[m{name} >> bits32];"
            );
            let _ = writeln!(
                s,
                "          const {real} {re} = {name}l.x * {name}h.x - {name}l.y * {name}h.y, {im} = {conj}({name}l.x * {name}h.y + {name}l.y * {name}h.x);"
            );
        }
        // f g^b for b < 4 once, then w_j = h^(j / 4) (f g^(j mod 4)): one complex product a value.
        let split = r > 4;
        powers(s, real, "gr_", "gi_", r.min(4));
        if split {
            powers(s, real, "hr_", "hi_", (r - 1) / 4 + 1);
        }
        for b in 1..r.min(4) {
            let _ = writeln!(
                s,
                "          const {real} fr{b} = fr * gr_{b} - fi * gi_{b}, fi{b} = fr * gi_{b} + fi * gr_{b};"
            );
        }
        for j in 0..r {
            let (a, b) = if split { (j / 4, j % 4) } else { (0, j) };
            let (fr, fi) = if b == 0 {
                ("fr".to_string(), "fi".to_string())
            } else {
                (format!("fr{b}"), format!("fi{b}"))
            };
            let (wr, wi) = if a == 0 {
                (fr, fi)
            } else {
                let _ = writeln!(
                    s,
                    "          const {real} wr{j} = hr_{a} * {fr} - hi_{a} * {fi}, wi{j} = hr_{a} * {fi} + hi_{a} * {fr};"
                );
                (format!("wr{j}"), format!("wi{j}"))
            };
            let _ = writeln!(
                s,
                "          {{ const {real} e = a{st}_{j} * {wr} - b{st}_{j} * {wi}; b{st}_{j} = a{st}_{j} * {wi} + b{st}_{j} * {wr}; a{st}_{j} = e; }}"
            );
        }
        s.push_str("        }\n      }\n");
    }
}

/// The powers `g^j`, `j < r`, of `(gr{tag}1, gi{tag}1)` as (re, im) expressions (`j = 0`: empty),
/// given also `h = g^4` as `(hr{tag}1, hi{tag}1)` where `r > 4`: `g^j = h^(j / 4) g^(j mod 4)`,
/// so that no power multiplies a table value's rounding by more than 3 (`g^15` as a product of
/// lower powers of `g` alone carries 15 times `g`'s error). Declares the temporaries.
fn split_powers(s: &mut String, real: &str, tag: &str, r: usize) -> Vec<(String, String)> {
    let split = r > 4;
    let (gr, gi, hr, hi) = (
        format!("gr{tag}"),
        format!("gi{tag}"),
        format!("hr{tag}"),
        format!("hi{tag}"),
    );
    powers(s, real, &gr, &gi, if split { 4 } else { r });
    if split {
        powers(s, real, &hr, &hi, (r - 1) / 4 + 1);
    }
    (0..r)
        .map(|j| {
            let (a, b) = if split { (j / 4, j % 4) } else { (0, j) };
            match (a, b) {
                (0, 0) => (String::new(), String::new()),
                (0, b) => (format!("{gr}{b}"), format!("{gi}{b}")),
                (a, 0) => (format!("{hr}{a}"), format!("{hi}{a}")),
                (a, b) => {
                    let _ = writeln!(
                        s,
                        "        const {real} pr{tag}{j} = {hr}{a} * {gr}{b} - {hi}{a} * {gi}{b}, pi{tag}{j} = {hr}{a} * {gi}{b} + {hi}{a} * {gr}{b};"
                    );
                    (format!("pr{tag}{j}"), format!("pi{tag}{j}"))
                }
            }
        })
        .collect()
}

/// `{re}k`, `{im}k` for `2 <= k < r`: the powers of `({re}1, {im}1)`, each a product of two
/// lower powers (at most log2(r) roundings deep).
fn powers(s: &mut String, real: &str, re: &str, im: &str, r: usize) {
    for j in 2..r {
        let (a, b) = (j / 2, j - j / 2);
        let _ = writeln!(
            s,
            "        const {real} {re}{j} = {re}{a} * {re}{b} - {im}{a} * {im}{b}, {im}{j} = {re}{a} * {im}{b} + {im}{a} * {re}{b};"
        );
    }
}

/// The radices of a direct tile's local passes: its power of two in as few radices of at
/// most 16 as there can be, balanced (256 = 16 x 16, 512 = 8 x 8 x 8, 2048 = 16 x 16 x 8),
/// then [`factor`]'s odd radices.
pub fn register_radices(mut r: usize) -> Vec<usize> {
    let mut twos: usize = 0;
    while r > 1 && r.is_multiple_of(2) {
        twos += 1;
        r /= 2;
    }
    let count = twos.div_ceil(4);
    let mut radices: Vec<usize> = (0..count)
        .map(|k| 1 << (twos / count + usize::from(k < twos % count)))
        .collect();
    radices.extend(factor(r).unwrap_or_default());
    radices
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fft::Tuning;

    #[test]
    fn a_direct_tile_exchanges_through_local_memory_between_its_register_passes() {
        assert_eq!(register_radices(256), vec![16, 16]);
        assert_eq!(register_radices(512), vec![8, 8, 8]);
        assert_eq!(register_radices(2048), vec![16, 16, 8]);
        assert_eq!(register_radices(64), vec![8, 8]);
        assert_eq!(register_radices(1000), vec![8, 5, 5, 5]);
        assert_eq!(register_radices(343), vec![7, 7, 7]);
        assert_eq!(register_radices(2), vec![2]);
        // 256 x 16 lanes: a thread a butterfly of 16, one exchange (two barriers: after the
        // first pass's writes, and before the next tile's). Groups of up to 256 threads with a
        // register bound of 128 for 16 values.
        let t = Tuning::parse("32768,8,256,1,2048,128").unwrap();
        let k = TileKernel::new(256, 16, false, false, &t);
        assert_eq!(k.threads, 256);
        let src = k.source(Dialect::OpenCl);
        assert_eq!(
            src.matches("barrier(CLK_LOCAL_MEM_FENCE)").count(),
            2,
            "{src}"
        );
        assert!(
            src.contains("xs[15 * j_step]") && src.contains("ys[15 * o_step]"),
            "{src}"
        );
        // A radix of 16 or less: registers only.
        let small = TileKernel::new(8, 256, false, true, &t).source(Dialect::Cuda);
        assert!(small.contains("__launch_bounds__(256, 4)"), "{small}");
        // 16 values a thread: 128 registers, two groups an SM.
        let cuda = TileKernel::new(256, 16, false, false, &t).source(Dialect::Cuda);
        assert!(cuda.contains("__launch_bounds__(256, 2)"), "{cuda}");
        assert!(
            !small.contains("__shared__") && !small.contains("__syncthreads"),
            "{small}"
        );
    }
}
