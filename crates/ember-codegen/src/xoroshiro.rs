//! Numba's `numba.cuda.random` draws inside kernels: the xoroshiro128+ generator (Blackman
//! and Vigna, the 2016 version with rotations 55, 14 and 36) with Numba's conversions to
//! floats, bit for bit.
//!
//! A state is two consecutive uint64 words `s[0], s[1]` in global memory (one row of the
//! `(n, 2)` uint64 array that `ember.cuda.random.create_xoroshiro128p_states` makes; the host
//! side is `ember_array::xoroshiro`). Each function advances the state it is given:
//!
//! * `next`: returns `s0 + s1`, then `s1 ^= s0; s0 = rotl(s0, 55) ^ s1 ^ (s1 << 14);
//!   s1 = rotl(s1, 36)`;
//! * uniform float64: `(x >> 11) * 2^-53` for the next `x`, in `[0, 1)`;
//! * uniform float32: that float64 rounded to float32 (so it can be exactly 1.0, as in
//!   Numba). Rounding the 53-bit integer to float32 and then scaling by 2^-53 is the same
//!   value without double arithmetic, which is how it is computed here;
//! * normal float32: `sqrt(-2 log u1) * cos(2 pi u2)` in float32 arithmetic, `u1` and `u2`
//!   the next two uniform float32 (the second Box-Muller value is discarded, as Numba does);
//! * normal float64: Numba draws float32 uniforms here too and takes the float32 `log`; the
//!   rest is float64: `sqrt(-2.0 * (double)logf(u1)) * cos(2 pi * (double)u2)`.
//!
//! Uniforms are bit-identical to Numba on every backend. Normals go through the backend's
//! `log`/`sqrt`/`cos`: on CUDA without fast math those are the functions Numba calls
//! (libdevice's), elsewhere they may differ from Numba in the last bits.

use std::fmt::Write;

use ember_core::DType;

use crate::dialect::Dialect;
use crate::types::storage_type;

/// One device function of the prelude.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XoroshiroFunction {
    /// Numba's name, in `numba.cuda.random`.
    pub numba_name: &'static str,
    /// The C function's name; its one parameter is a pointer to the state's two words.
    pub c_name: &'static str,
    /// The result's dtype.
    pub result: DType,
}

/// The functions [`xoroshiro_prelude`] defines.
pub const XOROSHIRO_FUNCTIONS: [XoroshiroFunction; 5] = [
    XoroshiroFunction {
        numba_name: "xoroshiro128p_next",
        c_name: "ember_xoroshiro128p_next",
        result: DType::U64,
    },
    XoroshiroFunction {
        numba_name: "xoroshiro128p_uniform_float32",
        c_name: "ember_xoroshiro128p_uniform_float32",
        result: DType::F32,
    },
    XoroshiroFunction {
        numba_name: "xoroshiro128p_uniform_float64",
        c_name: "ember_xoroshiro128p_uniform_float64",
        result: DType::F64,
    },
    XoroshiroFunction {
        numba_name: "xoroshiro128p_normal_float32",
        c_name: "ember_xoroshiro128p_normal_float32",
        result: DType::F32,
    },
    XoroshiroFunction {
        numba_name: "xoroshiro128p_normal_float64",
        c_name: "ember_xoroshiro128p_normal_float64",
        result: DType::F64,
    },
];

/// 2^-53, exactly.
const TWO_POW_MINUS_53: &str = "1.1102230246251565404236316680908203125e-16";
/// float32(2 pi) and float64(2 pi), exactly (Numba's `TWO_PI_FLOAT32` and `TWO_PI_FLOAT64`).
const TWO_PI_F32: &str = "6.283185482025146484375f";
const TWO_PI_F64: &str = "6.28318530717958623199592693708837032318115234375";

/// The C type of the state pointer: `unsigned long long*` (CUDA), `__global ulong*` (OpenCL).
pub fn state_pointer_type(dialect: Dialect) -> String {
    format!(
        "{}{}*",
        dialect.table().global,
        storage_type(DType::U64, dialect)
    )
}

/// The device functions of [`XOROSHIRO_FUNCTIONS`] in `dialect`. The OpenCL float64 ones are
/// inside `#if defined(cl_khr_fp64)`, so the float32 ones also build where there is no
/// double precision.
pub fn xoroshiro_prelude(dialect: Dialect) -> String {
    let f = dialect.table().device_fn;
    let u64t = storage_type(DType::U64, dialect);
    let st = state_pointer_type(dialect);
    // The float32 math functions (CUDA spells them with an `f`, OpenCL overloads one name).
    let sf = dialect.table().float32_math_suffix;
    let (logf, sqrtf, cosf) = (format!("log{sf}"), format!("sqrt{sf}"), format!("cos{sf}"));
    let mut s = String::from("// xoroshiro128+ as Numba's numba.cuda.random draws it\n");
    let _ = writeln!(
        s,
        "{f} {u64t} ember_xoroshiro128p_next({st} s) {{
  const {u64t} s0 = s[0];
  {u64t} s1 = s[1];
  const {u64t} result = s0 + s1;
  s1 ^= s0;
  s[0] = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14);
  s[1] = (s1 << 36) | (s1 >> 28);
  return result;
}}
{f} float ember_xoroshiro128p_uniform_float32({st} s) {{
  return (float)(ember_xoroshiro128p_next(s) >> 11) * {TWO_POW_MINUS_53}f;
}}
{f} float ember_xoroshiro128p_normal_float32({st} s) {{
  const float u1 = ember_xoroshiro128p_uniform_float32(s);
  const float u2 = ember_xoroshiro128p_uniform_float32(s);
  return {sqrtf}(-2.0f * {logf}(u1)) * {cosf}({TWO_PI_F32} * u2);
}}"
    );
    let fp64_pragma = dialect.table().fp64_pragma;
    if let Some(pragma) = fp64_pragma {
        s.push_str("#if defined(cl_khr_fp64)\n");
        s.push_str(pragma);
    }
    let _ = writeln!(
        s,
        "{f} double ember_xoroshiro128p_uniform_float64({st} s) {{
  return (double)(ember_xoroshiro128p_next(s) >> 11) * {TWO_POW_MINUS_53};
}}
{f} double ember_xoroshiro128p_normal_float64({st} s) {{
  const float u1 = ember_xoroshiro128p_uniform_float32(s);
  const float u2 = ember_xoroshiro128p_uniform_float32(s);
  return sqrt(-2.0 * (double){logf}(u1)) * cos({TWO_PI_F64} * (double)u2);
}}"
    );
    if fp64_pragma.is_some() {
        s.push_str("#endif\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_function_is_defined_in_both_dialects() {
        for dialect in [Dialect::Cuda, Dialect::OpenCl] {
            let src = xoroshiro_prelude(dialect);
            let st = state_pointer_type(dialect);
            for func in XOROSHIRO_FUNCTIONS {
                let result = match func.result {
                    DType::U64 => storage_type(DType::U64, dialect),
                    DType::F32 => "float",
                    _ => "double",
                };
                let head = format!(
                    "{} {result} {}({st} s) {{",
                    dialect.table().device_fn,
                    func.c_name
                );
                assert!(src.contains(&head), "{head}\n{src}");
                assert_eq!(format!("ember_{}", func.numba_name), func.c_name);
            }
        }
    }

    #[test]
    fn state_pointers() {
        assert_eq!(state_pointer_type(Dialect::Cuda), "unsigned long long*");
        assert_eq!(state_pointer_type(Dialect::OpenCl), "__global ulong*");
    }

    #[test]
    fn constants_are_exact() {
        assert_eq!(TWO_POW_MINUS_53.parse::<f64>().unwrap(), 2f64.powi(-53));
        let two_pi_f32 = TWO_PI_F32.trim_end_matches('f').parse::<f64>().unwrap();
        assert_eq!(two_pi_f32, f64::from(std::f32::consts::TAU));
        assert_eq!(TWO_PI_F64.parse::<f64>().unwrap(), std::f64::consts::TAU);
    }
}
