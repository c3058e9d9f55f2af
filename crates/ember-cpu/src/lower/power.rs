//! Powers of floats with a constant exponent, computed without a call. An integer exponent is
//! taken by squaring, the same products ember's runtime takes (so the same result). `** 2.0`
//! is a product and `** 0.5` a square root: with Python's semantics as C's `pow` gives them
//! (LLVM, and so Numba, does the same); with NumPy's (`numpy`) as its fast paths for a scalar
//! exponent give them (`a ** 0.5` is `np.sqrt(a)`, `a ** -1.0` is `1 / a`).

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use ember_core::DType;

use super::Lowering;
use crate::values::number_type;

/// A constant exponent.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Exponent {
    Int(i64),
    Float(f64),
}

/// The largest integer exponent unrolled.
const MOST_PRODUCTS: u64 = 64;

impl Lowering<'_, '_> {
    /// `x ** e` of float dtype `d` without a call, when `e` is one of the exponents above.
    pub(crate) fn constant_power(
        &mut self,
        d: DType,
        x: Value,
        e: Exponent,
        numpy: bool,
    ) -> Option<Value> {
        // A vector of lanes (the vector loops) or one number.
        let t = self.b.func.dfg.value_type(x);
        let lane = number_type(d);
        let float = |s: &mut Self, v: f64| {
            let c = if lane == types::F32 {
                s.b.ins().f32const(v as f32)
            } else {
                s.b.ins().f64const(v)
            };
            if t.is_vector() {
                s.b.ins().splat(t, c)
            } else {
                c
            }
        };
        Some(match e {
            Exponent::Int(n) if n.unsigned_abs() <= MOST_PRODUCTS => {
                let (mut base, mut left, mut r) = (x, n.unsigned_abs(), None);
                while left != 0 {
                    if left & 1 != 0 {
                        r = Some(match r {
                            None => base,
                            Some(r) => self.b.ins().fmul(r, base),
                        });
                    }
                    left >>= 1;
                    if left != 0 {
                        base = self.b.ins().fmul(base, base);
                    }
                }
                let r = r.unwrap_or_else(|| float(self, 1.0));
                if n < 0 {
                    let one = float(self, 1.0);
                    self.b.ins().fdiv(one, r)
                } else {
                    r
                }
            }
            Exponent::Float(1.0) => x,
            Exponent::Float(2.0) => self.b.ins().fmul(x, x),
            Exponent::Float(-1.0) if numpy => {
                let one = float(self, 1.0);
                self.b.ins().fdiv(one, x)
            }
            Exponent::Float(0.5) if numpy => self.b.ins().sqrt(x),
            Exponent::Float(0.5) => {
                // C's pow: +0 for -0, +inf for -inf, where sqrt gives -0 and NaN.
                let root = self.b.ins().sqrt(x);
                let root = self.b.ins().fabs(root);
                let minus_inf = float(self, f64::NEG_INFINITY);
                let at = self.b.ins().fcmp(FloatCC::Equal, x, minus_inf);
                let inf = float(self, f64::INFINITY);
                if t.is_vector() {
                    // The lanes' mask, as the floats' type (bits unchanged).
                    let mut flags = cranelift_codegen::ir::MemFlagsData::new();
                    flags.set_endianness(cranelift_codegen::ir::Endianness::Little);
                    let at = self.b.ins().bitcast(t, flags, at);
                    self.b.ins().bitselect(at, inf, root)
                } else {
                    self.b.ins().select(at, inf, root)
                }
            }
            _ => return None,
        })
    }
}
