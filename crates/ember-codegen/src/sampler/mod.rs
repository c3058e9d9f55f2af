//! Sampler kernels: every distribution of `ember.random` beyond the bandwidth-bound uniform,
//! normal and integer fills of [`crate::philox`]. An element (or a row, for multinomial and
//! dirichlet) draws from its own Philox stream ([`library`] says how), so rejection methods
//! take as many draws as they need and the values do not depend on the launch.
//!
//! Elements draw in groups of [`GROUP`] (spaced [`LANES`] apart): one stream for each group,
//! used in element order.
//!
//! A kernel is either one law's (GPUs: each compiled alone, registers sized for it) or every
//! law's behind a `switch` on a law number (CPU devices, where each compile costs a second).
//!
//! Parameters of a generated kernel, in order:
//! 1. the output buffer (OpenCL: buffer then byte offset);
//! 2. `key` (the seed) and `stream` (the draw number), uint64; the shared kernel then takes
//!    `law`, an int;
//! 3. three parameter slots, each `v` (the value's 64 bits), a pointer to 8-byte elements
//!    (OpenCL: and its byte offset) and `step`: the slot's value is `v` when `step < 0`, else
//!    element `i * step` of the pointer (float64 or int64 bits, as the law reads it);
//! 4. the vector parameter of row laws: a float64 pointer (OpenCL: and offset), its step a
//!    row, and the row width (1 for element laws);
//! 5. `n`, the number of items (elements or rows).

pub mod laws;
pub mod library;
pub mod ziggurat;

use std::fmt::Write;

use ember_core::DType;

use crate::dialect::Dialect;
use crate::philox::philox_prelude;
use crate::prelude::prelude_for;
use crate::types::{storage_type, store, value_type};
use laws::{Law, Param, Shape, LAWS};

/// Parameter slots a kernel has.
pub const SLOTS: usize = 3;

/// Elements that draw from one stream, in order: a stream's words are used up and a
/// Box-Muller pair's second normal is not thrown away. Stream `g` serves elements
/// `(g / LANES) * LANES * GROUP + g % LANES + LANES * e` for `e < GROUP`: a warp's streams
/// cover a tile of `LANES * GROUP` elements and each step stores consecutive ones. Both are
/// part of what the numbers are, like the counter layout: changing them changes every law's
/// values.
pub const GROUP: usize = 4;
/// Streams a tile of [`GROUP`] × `LANES` elements has.
pub const LANES: usize = 32;

/// A sampler kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerKernel {
    /// The law's number in [`LAWS`], or `None` for the kernel of every law.
    pub law: Option<usize>,
    /// The output's dtype: float16/32/64 or an integer dtype.
    pub dtype: DType,
}

impl SamplerKernel {
    /// Whether a sampler can write `dtype`.
    pub fn writes(dtype: DType) -> bool {
        matches!(dtype, DType::F16 | DType::F32 | DType::F64)
            || (dtype.is_integer() && dtype != DType::Bool)
    }

    /// The kernel's name.
    pub fn name(&self) -> String {
        let law = self.law.map_or("all", |k| LAWS[k].name);
        format!("ember_sample_{law}_{}", self.dtype.name())
    }

    /// The declarations of a law's parameters `a`, `b`, `c` from the slots' bits.
    fn parameters(law: &Law) -> String {
        let mut s = String::new();
        for (slot, (param, name)) in law.params.iter().zip(["a", "b", "c"]).enumerate() {
            let _ = match param {
                Param::Real => {
                    writeln!(s, "      const double {name} = ember_bits_double(r{slot});")
                }
                Param::Int => writeln!(s, "      const ember_i64 {name} = (ember_i64)r{slot};"),
            };
        }
        s
    }

    /// The kernel's source in `dialect`, prelude included.
    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let (g, i64t) = (t.global, t.int64);
        let st = storage_type(self.dtype, dialect);
        let vt = value_type(self.dtype, dialect);
        let mut s = prelude_for(dialect, [DType::F64, self.dtype]);
        s.push_str(&philox_prelude(dialect, true));
        s.push_str(&library::library(dialect));

        let mut params = vec![format!("{g}{st}* out_p")];
        let mut offsets = vec![t.offset_pointer("out_p", st, false, "out_o")];
        if t.buffer_offsets {
            params.push(format!("{i64t} out_o"));
        }
        params.push("ember_u64 key".into());
        params.push("ember_u64 stream".into());
        if self.law.is_none() {
            params.push("int law".into());
        }
        for k in 0..SLOTS {
            params.push(format!("ember_u64 v{k}"));
            params.push(format!("{g}const ember_u64* p{k}"));
            offsets.push(t.offset_pointer(&format!("p{k}"), "ember_u64", true, &format!("p{k}_o")));
            if t.buffer_offsets {
                params.push(format!("{i64t} p{k}_o"));
            }
            params.push(format!("{i64t} q{k}"));
        }
        params.push(format!("{g}const double* vec_p"));
        offsets.push(t.offset_pointer("vec_p", "double", true, "vec_o"));
        if t.buffer_offsets {
            params.push(format!("{i64t} vec_o"));
        }
        params.push(format!("{i64t} row_step"));
        params.push(format!("{i64t} width"));
        params.push(format!("{i64t} n"));

        let put = store(
            self.dtype,
            dialect,
            "out_p + i * width + (j)",
            &format!("({vt})(x)"),
        );
        let _ = writeln!(s, "#define EMBER_PUT(j, x) {{ {put} }}");
        s.push_str("#define EMBER_GET(j) ((double)out_p[i * width + (j)])\n");
        let _ = writeln!(
            s,
            "{} {}({}) {{",
            t.kernel_prefix,
            self.name(),
            params.join(", ")
        );
        for line in offsets.into_iter().flatten() {
            s.push_str(&line);
        }
        // Stream g serves GROUP items LANES apart (rows: one each, row g), so a warp's stores
        // of one step are consecutive.
        let group = match self.law {
            Some(k) if LAWS[k].shape == Shape::Row => "1".to_string(),
            Some(_) => GROUP.to_string(),
            None => {
                let rows: Vec<String> = LAWS
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.shape == Shape::Row)
                    .map(|(k, _)| format!("law == {k}"))
                    .collect();
                format!("({}) ? 1 : {GROUP}", rows.join(" || "))
            }
        };
        // The laws' prologues (the kernel of every law: each different one once).
        let mut prologues: Vec<&str> = Vec::new();
        for law in self.law.map_or(LAWS, |k| &LAWS[k..=k]) {
            if !law.prologue.is_empty() && !prologues.contains(&law.prologue) {
                prologues.push(law.prologue);
            }
        }
        for line in prologues.iter().flat_map(|p| p.lines()) {
            let _ = writeln!(s, "  {line}");
        }
        let _ = writeln!(s, "  const {i64t} per = {group};");
        let _ = writeln!(s, "  const {i64t} lanes = per == 1 ? 1 : {LANES};");
        let _ = writeln!(
            s,
            "  for ({i64t} g = {}; (g / lanes) * lanes * per + g % lanes < n; g += {}) {{",
            t.global_id, t.global_size
        );
        s.push_str("    ember_rng state;\n    ember_rng_init(&state, g, key, stream);\n    ember_rng* s = &state;\n");
        let _ = writeln!(
            s,
            "    const {i64t} first = (g / lanes) * lanes * per + g % lanes;"
        );
        let _ = writeln!(
            s,
            "    for ({i64t} i = first; i < n && i < first + per * lanes; i += lanes) {{"
        );
        for k in 0..SLOTS {
            let _ = writeln!(
                s,
                "    const ember_u64 r{k} = q{k} < 0 ? v{k} : p{k}[i * q{k}];"
            );
        }
        let _ = writeln!(s, "    {g}const double* vec = vec_p + i * row_step;");
        match self.law {
            Some(k) => Self::case(&mut s, &LAWS[k]),
            None => {
                s.push_str("    switch (law) {\n");
                for (k, law) in LAWS.iter().enumerate() {
                    let _ = writeln!(s, "    case {k}:");
                    Self::case(&mut s, law);
                    s.push_str("    break;\n");
                }
                s.push_str("    }\n");
            }
        }
        s.push_str("    }\n  }\n}\n#undef EMBER_PUT\n#undef EMBER_GET\n");
        s
    }

    /// One law's block: its parameters, then its statements.
    fn case(s: &mut String, law: &Law) {
        s.push_str("    {\n");
        s.push_str(&Self::parameters(law));
        for line in law.body.lines() {
            let _ = writeln!(s, "      {line}");
        }
        s.push_str("    }\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_law_kernels_hold_their_law_alone() {
        let (k, _) = laws::law("poisson").expect("poisson is a law");
        let src = SamplerKernel {
            law: Some(k),
            dtype: DType::I64,
        }
        .source(Dialect::Cuda);
        assert!(
            src.contains("ember_sample_poisson_int64(long long* out_p, ember_u64 key"),
            "{src}"
        );
        assert!(
            src.contains("const double a = ember_bits_double(r0);"),
            "{src}"
        );
        assert!(src.contains("EMBER_PUT(0, ember_poisson_draw(s, &poisson_c));"));
        // Its setup is kept before the loop and redone only when lam changes.
        let (before, _) = src.split_once("for (long long g").expect("the loop");
        assert!(before.contains("double poisson_key = -1.0;"), "{src}");
        assert!(!src.contains("switch (law)"));
        assert!(!src.contains("ember_hypergeometric(s, a, b, c)"));
    }

    #[test]
    fn the_shared_kernel_switches_over_every_law() {
        let src = SamplerKernel {
            law: None,
            dtype: DType::F64,
        }
        .source(Dialect::OpenCl);
        assert!(src.contains("switch (law)"));
        assert_eq!(src.matches("    case ").count(), LAWS.len());
        assert!(
            src.contains("p0 = (__global const ember_u64*)(((__global const char*)p0) + p0_o);"),
            "{src}"
        );
        assert!(src.contains("return as_double(x); }"), "{src}");
    }

    #[test]
    fn law_names_are_unique_and_rows_take_a_vector() {
        for (k, law) in LAWS.iter().enumerate() {
            assert_eq!(laws::law(law.name).map(|(j, _)| j), Some(k), "{}", law.name);
            assert!(law.params.len() <= SLOTS);
            assert_eq!(
                law.body.contains("vec["),
                law.shape == laws::Shape::Row,
                "{}",
                law.name
            );
        }
    }
}
