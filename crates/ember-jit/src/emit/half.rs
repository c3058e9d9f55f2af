//! float16 on CUDA as the hardware's f16 instructions (ember-codegen's float16 prelude:
//! `ember_hadd_rn_b`... on 16-bit values, `cvt` conversions). A float16 value lives in a float
//! between statements; within an expression, operations pass their 16 bits from one
//! instruction to the next (a load's bits, an operation's result) without converting through
//! float, and a store writes them as they are.

use ember_codegen::types::value_type;
use ember_codegen::Dialect;
use ember_core::dtype::Kind;
use ember_core::DType;

use super::function::FnWriter;
use crate::compiler::Access;
use crate::ir::{BinOp, Expr, ExprKind as K, Place, UnaryOp};

/// The prelude's tag of an integer dtype's conversions (`s8`, `u64`).
fn int_tag(d: DType) -> String {
    let sign = if d.kind() == Kind::Int { "s" } else { "u" };
    format!("{sign}{}", 8 * d.itemsize())
}

/// A conversion to or from float16 where it differs from ember-codegen's `cast`: on CUDA by
/// the hardware's `cvt` from and to integers and float64 (correctly rounded; float32 values
/// convert by rounding); float16 to an integer as Numba converts it (`cvt.rni`: to nearest,
/// ties to even, saturating, NaN to 0), on every device.
pub(crate) fn half_cast(code: &str, from: DType, to: DType, dialect: Dialect) -> Option<String> {
    let cuda = dialect == Dialect::Cuda;
    match (from, to.kind()) {
        (DType::F16, Kind::Int | Kind::UInt) if cuda => {
            let t = value_type(to, dialect);
            Some(format!("(({t})ember_h_{}({code}))", int_tag(to)))
        }
        (DType::F16, Kind::Int | Kind::UInt) => {
            let t = match to {
                DType::I8 => "char",
                DType::U8 => "uchar",
                DType::I16 => "short",
                DType::U16 => "ushort",
                DType::I32 => "int",
                DType::U32 => "uint",
                DType::I64 => "long",
                _ => "ulong",
            };
            // NaN is 0 by OpenCL's rule, but NVIDIA's OpenCL gives 2^63 to 64-bit integers.
            Some(match to.itemsize() {
                8 => format!("(isnan({code}) ? ({t})0 : convert_{t}_sat_rte({code}))"),
                _ => format!("convert_{t}_sat_rte({code})"),
            })
        }
        (DType::F16, _) if to == DType::F64 && cuda => Some(format!("ember_h_d({code})")),
        _ => to_half_bits(code, from, dialect, to).map(|b| format!("ember_h2f({b})")),
    }
}

/// The 16 bits of `code` (of `from`) converted to float16 on CUDA, where `to` is float16.
fn to_half_bits(code: &str, from: DType, dialect: Dialect, to: DType) -> Option<String> {
    if to != DType::F16 || from == DType::F16 || dialect != Dialect::Cuda {
        return None;
    }
    match from.kind() {
        Kind::Int | Kind::UInt => Some(format!("ember_{}_h({code})", int_tag(from))),
        _ if from == DType::F64 => Some(format!("ember_d_h({code})")),
        Kind::Float => Some(format!("ember_f2h({code})")),
        _ => None,
    }
}

impl FnWriter<'_, '_> {
    /// The 16 bits of float16 operation `x` (typing rounds it to float16) by CUDA's f16
    /// instruction: `+ - *` never contracted (NumPy rounds each operation), `cuda.fp16.hadd/
    /// hsub/hmul` as CUDA's `__hadd`..., fma rounded once; conversions by `cvt`. `None` for
    /// other operations and dialects.
    pub(crate) fn half_operation(&mut self, x: &Expr, d: DType) -> Option<String> {
        if d != DType::F16 || self.e.dialect != Dialect::Cuda {
            return None;
        }
        let half = |e: &Expr| e.dtype() == Some(DType::F16);
        let (f, args): (&str, Vec<&Expr>) = match &x.kind {
            K::Binary(op, l, r) if half(l) && half(r) => match op {
                BinOp::Add => ("hadd_rn", vec![l, r]),
                BinOp::Sub => ("hsub_rn", vec![l, r]),
                BinOp::Mult => ("hmul_rn", vec![l, r]),
                _ => return None,
            },
            K::Math(f @ ("hadd" | "hsub" | "hmul"), args) => (f, args.iter().collect()),
            K::Math("fma", args) if args.iter().all(half) => ("hfma", args.iter().collect()),
            K::Cast(y) => {
                let code = self.expr(y);
                return to_half_bits(&code, y.dtype()?, self.e.dialect, d);
            }
            _ => return None,
        };
        let bits: Vec<String> = args.into_iter().map(|a| self.half_bits(a)).collect();
        Some(format!("ember_{f}_b({})", bits.join(", ")))
    }

    /// The 16 bits of float16 value `e` on CUDA: an f16 instruction's result, an element's
    /// bits as stored, else the float value converted (exactly: it holds a float16 value).
    pub(crate) fn half_bits(&mut self, e: &Expr) -> String {
        match &e.kind {
            K::RoundNarrow(x) => {
                if let Some(bits) = self.half_operation(x, DType::F16) {
                    return bits;
                }
            }
            K::Unary(UnaryOp::Neg, x) => return format!("ember_hneg_b({})", self.half_bits(x)),
            K::Abs(x) => return format!("ember_habs_b({})", self.half_bits(x)),
            K::Element(place) if !place.ty.unaligned => {
                let p = self.pointer(place, Access::Read);
                return format!("(*{p})");
            }
            K::Intrinsic { name, args } => {
                if let Some(bits) = self.hinted_load_bits(name, args) {
                    return bits;
                }
            }
            _ => {}
        }
        format!("ember_f2h({})", self.expr(e))
    }

    /// The statement storing float16 `value` at `ptr` (the element of `place`) as its bits, on
    /// CUDA; `None` elsewhere.
    pub(crate) fn half_store(&mut self, place: &Place, ptr: &str, value: &Expr) -> Option<String> {
        if place.ty.dtype != DType::F16 || place.ty.unaligned || self.e.dialect != Dialect::Cuda {
            return None;
        }
        Some(format!("*({ptr}) = {};", self.half_bits(value)))
    }
}
