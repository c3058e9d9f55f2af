//! Integer device functions written once for every emitter: power by squaring, in the unsigned
//! type so that overflow wraps (as NumPy and Numba wrap) instead of being C's undefined signed
//! overflow.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::dialect::Dialect;
use crate::types::value_type;

/// The device function `name(b, e)`: `b ** e` for integers of `d`, declared with `qualifier`.
/// A negative exponent gives `1 / b**|e|` truncated (1, -1 or 0); for `b == 0`, `zero_to_negative`
/// (NumPy raises on the host and ufuncs give 0; Numba's GPU error model gives the minimum int64).
pub fn int_power(
    d: DType,
    dialect: Dialect,
    qualifier: &str,
    name: &str,
    zero_to_negative: &str,
) -> String {
    let t = value_type(d, dialect);
    let negative = if d.kind() == Kind::Int {
        format!("  if (e < 0) return b == 1 ? 1 : (b == -1 ? ((e & 1) ? -1 : 1) : (b == 0 ? {zero_to_negative} : 0));\n")
    } else {
        String::new()
    };
    let u = value_type(d.unsigned_twin(), dialect);
    format!(
        "{qualifier} {t} {name}({t} b, {t} e) {{\n{negative}  {u} r = 1, x = ({u})b;\n  while (e) {{ if (e & 1) r *= x; x *= x; e >>= 1; }}\n  return ({t})r;\n}}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_multiplies_in_the_unsigned_type_and_answers_negative_exponents() {
        let f = int_power(DType::I8, Dialect::OpenCl, "static inline", "p", "0");
        assert!(
            f.contains("uchar r = 1, x = (uchar)b;")
                || f.contains("unsigned char r = 1, x = (unsigned char)b;"),
            "{f}"
        );
        assert!(f.contains("(b == 0 ? 0 : 0)"), "{f}");
        let u = int_power(DType::U32, Dialect::Cuda, "__device__", "p", "0");
        assert!(!u.contains("e < 0"), "{u}");
    }
}
