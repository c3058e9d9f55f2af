//! Random numbers inside kernels: the Philox4x32-10 counter-based generator (Salmon, Moraes,
//! Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011 — the generator of
//! Random123, cuRAND's `PHILOX4_32_10` and `numpy.random.Philox`).
//!
//! Philox is a keyed bijection of a 128-bit counter: each thread evaluates it on its own
//! counter, so a launch keeps no state and the numbers do not depend on the launch shape, the
//! device or the backend. ember's counter for the `b`-th block of an output is
//! `(b mod 2^32, b / 2^32, offset mod 2^32, offset / 2^32)` and the key is the 64-bit seed
//! `(seed mod 2^32, seed / 2^32)`; the offset is the generator's call number, so every call has
//! its own 2^64 blocks. One evaluation gives four 32-bit words, turned into the values of one
//! block of [`RandomKernel::per_block`] consecutive elements:
//!
//! * uniform float32: element `j` of the block is `(w[j] >> 8) * 2^-24` (24 bits: exactly the
//!   float32 values `k / 2^24` in `[0, 1)`), 4 per block;
//! * uniform float64: element `j` is `(((w[2j] << 32) | w[2j+1]) >> 11) * 2^-53` (53 bits),
//!   2 per block;
//! * normal: Box-Muller on a pair of uniforms, `u1` in `(0, 1]` (the uniform above plus one
//!   step) and `u2` in `[0, 1)`: `r = sqrt(-2 log u1)`, elements `r cos(2 pi u2)` and
//!   `r sin(2 pi u2)` (float64: `cospi(2 u2)` and `sinpi(2 u2)`; float32: the angle
//!   `pi (2 u2 - 1)`, the same law, through the hardware's fast `__sincosf` on CUDA, whose
//!   absolute error is below 2^-21.4, as cuRAND's normals). float32 pairs words `(w0, w1)`
//!   and `(w2, w3)`, 4 per block; float64 pairs the two 53-bit uniforms, 2 per block. The tails stop at `|z| <= 5.8` (float32) and `8.6`
//!   (float64). Uniforms and integers are bit-identical on every backend; normals go through
//!   each backend's `log`/`sin`/`cos` and may differ in the last bits;
//! * integers in `[low, low + diff]`: `x = (w[2j] << 32) | w[2j+1]` scaled by the high half of
//!   the 128-bit product `x * (diff + 1)` (Lemire's multiply-shift without the rejection step:
//!   every value has probability `floor` or `ceil` of `2^64 / (diff + 1)` over `2^64`, a relative
//!   bias below `(diff + 1) / 2^64`, i.e. below 2^-32 for any 32-bit range), 2 per block.
//!
//! Affine parameters are applied with one `fma`, so `uniform(0, 1)` and `normal(0, 1)` are the
//! raw values exactly, and the rounding is the same on every backend.
//!
//! Parameters of a generated kernel, in order — the launcher passes arguments the same way:
//! 1. the output buffer (OpenCL: buffer then byte offset, as `KernelArg::Buffer` passes them);
//! 2. `key` (the seed) and `stream` (the offset), both uint64;
//! 3. `a` and `b`: for floats, of the output's value type, each element is `fma(b, x, a)`; for
//!    integers, uint64 `low` (two's complement bits) and `diff = high - 1 - low`;
//! 4. `n`, the element count (int64).

use std::fmt::Write;

use ember_core::DType;

use crate::dialect::Dialect;
use crate::prelude::prelude_for;
use crate::types::{storage_type, store, value_type};

/// The round multipliers.
pub const M0: u32 = 0xD251_1F53;
pub const M1: u32 = 0xCD9E_8D57;
/// The Weyl sequence increments of the key between rounds.
pub const W0: u32 = 0x9E37_79B9;
pub const W1: u32 = 0xBB67_AE85;
/// Rounds of Philox4x32-10.
pub const ROUNDS: usize = 10;

/// Philox4x32-10 on the host: the same bijection the device code computes (its tests check
/// the generated code against this and against Random123's known-answer vectors).
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter;
    let [mut k0, mut k1] = key;
    for _ in 0..ROUNDS {
        let p0 = u64::from(M0) * u64::from(c0);
        let p1 = u64::from(M1) * u64::from(c2);
        let n0 = (p1 >> 32) as u32 ^ c1 ^ k0;
        let n2 = (p0 >> 32) as u32 ^ c3 ^ k1;
        (c0, c1, c2, c3) = (n0, p1 as u32, n2, p0 as u32);
        k0 = k0.wrapping_add(W0);
        k1 = k1.wrapping_add(W1);
    }
    [c0, c1, c2, c3]
}

/// The device prelude: `ember_philox4x32_10` (one evaluation, rounds unrolled) and, when
/// `integers`, `ember_mulhi64`. Written once for both dialects: the two differ here only by
/// type names and the helper qualifier, which come from the dialect table.
pub fn philox_prelude(dialect: Dialect, integers: bool) -> String {
    let t = dialect.table();
    let u32t = storage_type(DType::U32, dialect);
    let u64t = storage_type(DType::U64, dialect);
    let f = t.device_fn;
    let mut s = String::from("// Philox4x32-10 (Salmon et al., SC 2011)\n");
    let _ = writeln!(s, "typedef {u32t} ember_u32;");
    let _ = writeln!(s, "typedef {u64t} ember_u64;");
    s.push_str("typedef struct { ember_u32 x, y, z, w; } ember_u32x4;\n");
    let _ = writeln!(
        s,
        "{f} ember_u32x4 ember_philox4x32_10(ember_u32 c0, ember_u32 c1, ember_u32 c2, ember_u32 c3, ember_u32 k0, ember_u32 k1) {{"
    );
    for round in 0..ROUNDS {
        if round > 0 {
            let _ = writeln!(s, "  k0 += 0x{W0:08X}u; k1 += 0x{W1:08X}u;");
        }
        let _ = writeln!(
            s,
            "  {{ const ember_u64 p0 = (ember_u64)0x{M0:08X}u * c0, p1 = (ember_u64)0x{M1:08X}u * c2;"
        );
        s.push_str("    c0 = (ember_u32)(p1 >> 32) ^ c1 ^ k0; c1 = (ember_u32)p1;\n");
        s.push_str("    c2 = (ember_u32)(p0 >> 32) ^ c3 ^ k1; c3 = (ember_u32)p0; }\n");
    }
    s.push_str("  ember_u32x4 r; r.x = c0; r.y = c1; r.z = c2; r.w = c3; return r;\n}\n");
    if integers {
        // The high 64 bits of a 64 x 64-bit product, from 32-bit halves (the same code on
        // every backend; integers are not the bandwidth-bound path).
        let _ = writeln!(
            s,
            "{f} ember_u64 ember_mulhi64(ember_u64 a, ember_u64 b) {{"
        );
        s.push_str("  const ember_u64 m = 0xFFFFFFFFu;\n");
        s.push_str("  const ember_u64 p0 = (a & m) * (b & m), p1 = (a & m) * (b >> 32);\n");
        s.push_str("  const ember_u64 p2 = (a >> 32) * (b & m), p3 = (a >> 32) * (b >> 32);\n");
        s.push_str("  const ember_u64 mid = (p0 >> 32) + (p1 & m) + (p2 & m);\n");
        s.push_str("  return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);\n}\n");
    }
    s
}

/// The statement setting `sn` and `cs` to sin(pi x) and cos(pi x) (`x` float32 in [-1, 1) or
/// float64): one call on CUDA, and no reduction of the argument by pi on either backend (the
/// Box-Muller angle `2 pi u` is `pi` times `2u`, or `2u - 1` for float32).
pub fn sincospi(dialect: Dialect, dtype: DType, x: &str) -> String {
    match (dialect, dtype) {
        // The hardware's approximation, as cuRAND's Box-Muller takes it: absolute error below
        // 2^-21.4 for angles in [-pi, pi] (float32 normals: a few ulps).
        (Dialect::Cuda, DType::F32) => format!("__sincosf(3.14159265358979f * ({x}), &sn, &cs);"),
        (Dialect::Cuda, _) => format!("sincospi({x}, &sn, &cs);"),
        (Dialect::OpenCl, _) => format!("sn = sinpi({x}); cs = cospi({x});"),
    }
}

/// What a kernel draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// `fma(b, u, a)`, `u` uniform in `[0, 1)`; float32 or float64.
    Uniform,
    /// `fma(b, z, a)`, `z` standard normal (Box-Muller); float32 or float64.
    Normal,
    /// `fma(b, e, a)`, `e` standard exponential: float32 `-log(1 - u)` (inversion of the
    /// uniform above), float64 by the ziggurat of [`crate::sampler::ziggurat`] on each 64-bit
    /// word (`FILL_LAYERS` layers), further draws (about 0.6% of values) from a stream of the
    /// block's own.
    Exponential,
    /// `low + k`, `k` uniform in `[0, diff]`; any integer dtype or bool.
    Integers,
}

impl Distribution {
    fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::Normal => "normal",
            Distribution::Exponential => "exponential",
            Distribution::Integers => "integers",
        }
    }
}

/// A kernel that fills a C-contiguous array with random values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RandomKernel {
    pub distribution: Distribution,
    /// The output's dtype.
    pub dtype: DType,
    /// Whole blocks are written with one 16-byte vector store (float32 and float64 only; the
    /// output must be 16-byte aligned).
    pub vector: bool,
}

impl RandomKernel {
    /// The kernel's name.
    pub fn name(&self) -> String {
        format!(
            "ember_random_{}_{}{}",
            self.distribution.name(),
            self.dtype.name(),
            if self.vector { "_v" } else { "" }
        )
    }

    /// Consecutive elements one Philox evaluation gives.
    pub fn per_block(&self) -> usize {
        match (self.distribution, self.dtype) {
            (
                Distribution::Uniform | Distribution::Normal | Distribution::Exponential,
                DType::F32,
            ) => 4,
            _ => 2,
        }
    }

    /// Whether [`RandomKernel::vector`] can apply to this dtype.
    pub fn vectorizable(dtype: DType) -> bool {
        matches!(dtype, DType::F32 | DType::F64)
    }

    /// Statements setting `v0 .. v{per_block - 1}` from the Philox words `r`.
    fn values(&self, dialect: Dialect) -> String {
        let vt = value_type(self.dtype, dialect);
        let k = self.per_block();
        let mut s = String::new();
        let declare = (0..k)
            .map(|j| format!("v{j}"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(s, "    {vt} {declare};");
        match (self.distribution, self.dtype) {
            (Distribution::Uniform, DType::F32) => {
                for (j, w) in ["x", "y", "z", "w"].iter().enumerate() {
                    let _ = writeln!(
                        s,
                        "    v{j} = fma(b, (float)(r.{w} >> 8) * 5.9604644775390625e-8f, a);"
                    );
                }
            }
            (Distribution::Uniform, _) => {
                for (j, (hi, lo)) in [("x", "y"), ("z", "w")].iter().enumerate() {
                    let _ = writeln!(
                        s,
                        "    v{j} = fma(b, (double)((((ember_u64)r.{hi} << 32) | r.{lo}) >> 11) * 1.1102230246251565404e-16, a);"
                    );
                }
            }
            (Distribution::Exponential, DType::F32) => {
                for (j, w) in ["x", "y", "z", "w"].iter().enumerate() {
                    let _ = writeln!(
                        s,
                        "    v{j} = fma(b, -log(1.0f - (float)(r.{w} >> 8) * 5.9604644775390625e-8f), a);"
                    );
                }
            }
            (Distribution::Exponential, _) => {
                // The ziggurat; a block with a value off its fast path finishes there.
                s.push_str("    { const ember_u64 w0 = ((ember_u64)r.x << 32) | r.y, w1 = ((ember_u64)r.z << 32) | r.w;\n");
                for line in crate::sampler::ziggurat::fill_pair().lines() {
                    let _ = writeln!(s, "      {line}");
                }
                s.push_str("      v0 = fma(b, e0, a); v1 = fma(b, e1, a); }\n");
            }
            (Distribution::Normal, DType::F32) => {
                for (pair, (w1, w2)) in [("x", "y"), ("z", "w")].iter().enumerate() {
                    let _ = writeln!(
                        s,
                        "    {{ const float u1 = ((float)(r.{w1} >> 8) + 1.0f) * 5.9604644775390625e-8f;"
                    );
                    let _ = writeln!(
                        s,
                        "      const float h = (float)(r.{w2} >> 8) * 1.1920928955078125e-7f - 1.0f;"
                    );
                    let _ = writeln!(
                        s,
                        "      float sn, cs; {}",
                        sincospi(dialect, DType::F32, "h")
                    );
                    // CUDA: the hardware's log too, as cuRAND (relative error about 2^-21).
                    let log = if dialect == Dialect::Cuda {
                        "__logf"
                    } else {
                        "log"
                    };
                    let _ = writeln!(s, "      const float rad = sqrt(-2.0f * {log}(u1));");
                    let _ = writeln!(
                        s,
                        "      v{} = fma(b, rad * cs, a); v{} = fma(b, rad * sn, a); }}",
                        2 * pair,
                        2 * pair + 1
                    );
                }
            }
            (Distribution::Normal, _) => {
                s.push_str("    { const double u1 = ((double)((((ember_u64)r.x << 32) | r.y) >> 11) + 1.0) * 1.1102230246251565404e-16;\n");
                s.push_str("      const double h = 2.0 * ((double)((((ember_u64)r.z << 32) | r.w) >> 11) * 1.1102230246251565404e-16);\n");
                let _ = writeln!(
                    s,
                    "      double sn, cs; {}",
                    sincospi(dialect, DType::F64, "h")
                );
                s.push_str("      const double rad = sqrt(-2.0 * log(u1));\n");
                s.push_str("      v0 = fma(b, rad * cs, a); v1 = fma(b, rad * sn, a); }\n");
            }
            (Distribution::Integers, _) => {
                for (j, (hi, lo)) in [("x", "y"), ("z", "w")].iter().enumerate() {
                    let _ = writeln!(
                        s,
                        "    {{ const ember_u64 x = ((ember_u64)r.{hi} << 32) | r.{lo};"
                    );
                    let _ = writeln!(
                        s,
                        "      v{j} = ({vt})(a + (b == ~(ember_u64)0 ? x : ember_mulhi64(x, b + 1))); }}"
                    );
                }
            }
        }
        s
    }

    /// The kernel's source in `dialect`, prelude included.
    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let i64t = t.int64;
        let g = t.global;
        let st = storage_type(self.dtype, dialect);
        let integers = self.distribution == Distribution::Integers;
        let scalar_type = if integers {
            "ember_u64"
        } else {
            value_type(self.dtype, dialect)
        };
        let k = self.per_block();
        let name = self.name();

        let mut s = prelude_for(dialect, [self.dtype]);
        s.push_str(&philox_prelude(dialect, integers));
        if self.distribution == Distribution::Exponential && self.dtype == DType::F64 {
            s.push_str(&crate::sampler::ziggurat::fill_source(dialect));
        }
        let mut params = vec![format!("{g}{st}* out_p")];
        if t.buffer_offsets {
            params.push(format!("{i64t} out_o"));
        }
        params.push("ember_u64 key".into());
        params.push("ember_u64 stream".into());
        params.push(format!("{scalar_type} a"));
        params.push(format!("{scalar_type} b"));
        params.push(format!("{i64t} n"));
        let _ = writeln!(s, "{} {name}({}) {{", t.kernel_prefix, params.join(", "));
        s.push_str(
            &t.offset_pointer("out_p", st, false, "out_o")
                .unwrap_or_default(),
        );
        s.push_str("  const ember_u32 k0 = (ember_u32)key, k1 = (ember_u32)(key >> 32);\n");
        s.push_str("  const ember_u32 s0 = (ember_u32)stream, s1 = (ember_u32)(stream >> 32);\n");
        let _ = writeln!(s, "  const {i64t} blocks = (n + {}) / {k};", k - 1);
        let _ = writeln!(
            s,
            "  for ({i64t} blk = {}; blk < blocks; blk += {}) {{",
            t.global_id, t.global_size
        );
        s.push_str("    const ember_u32x4 r = ember_philox4x32_10((ember_u32)blk, (ember_u32)(blk >> 32), s0, s1, k0, k1);\n");
        s.push_str(&self.values(dialect));
        let _ = writeln!(s, "    const {i64t} first = blk * {k};");
        let _ = writeln!(s, "    if (first + {k} <= n) {{");
        if self.vector && Self::vectorizable(self.dtype) {
            let vt = format!("{}{k}", value_type(self.dtype, dialect));
            let _ = write!(s, "      {vt} q;");
            for (j, lane) in ["x", "y", "z", "w"][..k].iter().enumerate() {
                let _ = write!(s, " q.{lane} = v{j};");
            }
            let _ = writeln!(s, "\n      (({g}{vt}*)out_p)[blk] = q;");
        } else {
            for j in 0..k {
                let ptr = format!("out_p + first + {j}");
                let _ = writeln!(
                    s,
                    "      {}",
                    store(self.dtype, dialect, &ptr, &format!("v{j}"))
                );
            }
        }
        s.push_str("    } else {\n");
        for j in 0..k {
            let ptr = format!("out_p + first + {j}");
            let _ = writeln!(
                s,
                "      if (first + {j} < n) {}",
                store(self.dtype, dialect, &ptr, &format!("v{j}"))
            );
        }
        s.push_str("    }\n  }\n}\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_philox_matches_random123_known_answers() {
        // Random123's kat_vectors for philox4x32_10.
        assert_eq!(
            philox4x32_10([0; 4], [0; 2]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
                [0xa409_3822, 0x299f_31d0]
            ),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    fn kernel(distribution: Distribution, dtype: DType, vector: bool) -> RandomKernel {
        RandomKernel {
            distribution,
            dtype,
            vector,
        }
    }

    #[test]
    fn prelude_has_ten_rounds_and_nine_key_bumps() {
        let p = philox_prelude(Dialect::Cuda, false);
        assert_eq!(p.matches("0xD2511F53u * c0").count(), ROUNDS);
        assert_eq!(p.matches("k0 += 0x9E3779B9u").count(), ROUNDS - 1);
        assert!(p.contains("typedef unsigned long long ember_u64;"), "{p}");
        assert!(!p.contains("ember_mulhi64"));
        let cl = philox_prelude(Dialect::OpenCl, true);
        assert!(
            cl.contains("typedef ulong ember_u64;")
                && cl.contains("static inline ember_u64 ember_mulhi64")
        );
    }

    #[test]
    fn float32_uniform_writes_four_values_with_one_vector_store() {
        let k = kernel(Distribution::Uniform, DType::F32, true);
        assert_eq!(k.per_block(), 4);
        let cuda = k.source(Dialect::Cuda);
        assert!(cuda.contains("extern \"C\" __global__ void ember_random_uniform_float32_v(float* out_p, ember_u64 key, ember_u64 stream, float a, float b, long long n)"), "{cuda}");
        assert!(cuda.contains("((float4*)out_p)[blk] = q;"), "{cuda}");
        assert!(cuda.contains("(float)(r.w >> 8) * 5.9604644775390625e-8f"));
        let cl = k.source(Dialect::OpenCl);
        assert!(cl.contains("((__global float4*)out_p)[blk] = q;"), "{cl}");
        assert!(cl.contains("out_p = (__global float*)(((__global char*)out_p) + out_o);"));
        // No 64-bit division in the loop: the one division is by a constant, before it.
        let body = cuda.split("for (long long blk").nth(1).unwrap_or_default();
        assert!(!body.contains(" / "), "{body}");
    }

    #[test]
    fn unaligned_and_non_float_outputs_store_element_by_element() {
        let k = kernel(Distribution::Uniform, DType::F64, false);
        assert_eq!(k.per_block(), 2);
        let src = k.source(Dialect::OpenCl);
        assert!(!src.contains("double2"), "{src}");
        assert!(src.contains("*(out_p + first + 1) = v1;"), "{src}");
        let ints = kernel(Distribution::Integers, DType::I8, true).source(Dialect::Cuda);
        assert!(
            ints.contains(
                "v0 = (signed char)(a + (b == ~(ember_u64)0 ? x : ember_mulhi64(x, b + 1)));"
            ),
            "{ints}"
        );
        assert!(!ints.contains("char2"), "{ints}");
    }

    #[test]
    fn normals_use_box_muller_on_pairs() {
        let f32s = kernel(Distribution::Normal, DType::F32, true).source(Dialect::OpenCl);
        assert_eq!(f32s.matches("sqrt(-2.0f * log(u1))").count(), 2);
        let cuda32 = kernel(Distribution::Normal, DType::F32, true).source(Dialect::Cuda);
        assert_eq!(cuda32.matches("sqrt(-2.0f * __logf(u1))").count(), 2);
        assert_eq!(f32s.matches("sn = sinpi(h); cs = cospi(h);").count(), 2);
        let f64s = kernel(Distribution::Normal, DType::F64, true).source(Dialect::Cuda);
        assert!(f64s.contains("((double2*)out_p)[blk] = q;"), "{f64s}");
        assert_eq!(f64s.matches("sqrt(-2.0 * log(u1))").count(), 1);
    }

    #[test]
    fn host_mulhi64_formula_is_the_128_bit_high_half() {
        // The device formula, transcribed, against u128.
        let mulhi = |a: u64, b: u64| {
            let m = 0xFFFF_FFFFu64;
            let (p0, p1) = ((a & m) * (b & m), (a & m) * (b >> 32));
            let (p2, p3) = ((a >> 32) * (b & m), (a >> 32) * (b >> 32));
            let mid = (p0 >> 32) + (p1 & m) + (p2 & m);
            p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32)
        };
        for (a, b) in [
            (u64::MAX, u64::MAX),
            (u64::MAX, 1),
            (0x1234_5678_9abc_def0, 0x0fed_cba9_8765_4321),
            (1 << 63, 3),
        ] {
            assert_eq!(mulhi(a, b), ((a as u128 * b as u128) >> 64) as u64);
        }
    }
}
