//! Literals: Python's numbers written as C constants of their Numba type, and the constant
//! integers shapes are made of.

use ember_codegen::types::value_type;
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, Expr, ExprKind, Span, UnaryOp};
use crate::error::{Fail, R};
use crate::function::{FnCompiler, Val};
use crate::types::{dtype_named, Ty};

/// The value of an integer literal (or a negated one), if `e` is one.
pub fn int_literal(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int { v } => v.parse().ok(),
        ExprKind::UnaryOp {
            op: UnaryOp::USub,
            operand,
        } => int_literal(operand).map(|v| -v),
        _ => None,
    }
}

/// The value of a constant integer expression (literals, tuples of them, and arithmetic on
/// them), for shapes of shared and local arrays.
pub fn const_ints(e: &Expr) -> Option<Vec<i64>> {
    match &e.kind {
        ExprKind::Tuple { elts } => elts.iter().map(const_int).collect::<Option<Vec<_>>>(),
        _ => const_int(e).map(|v| vec![v]),
    }
}

fn const_int(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int { v } => v.parse().ok(),
        ExprKind::Typed { dtype, v }
            if dtype_named(dtype).is_some_and(|d| d.kind() != Kind::Float) =>
        {
            v.parse().ok()
        }
        ExprKind::UnaryOp {
            op: UnaryOp::USub,
            operand,
        } => const_int(operand).map(|v| -v),
        ExprKind::BinOp { op, left, right } => {
            let (a, b) = (const_int(left)?, const_int(right)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mult => a.checked_mul(b),
                BinOp::FloorDiv if b != 0 => Some(
                    a.div_euclid(b)
                        - if (a.rem_euclid(b) != 0) && b < 0 {
                            1
                        } else {
                            0
                        },
                ),
                BinOp::LShift if (0..63).contains(&b) => a.checked_shl(b as u32),
                _ => None,
            }
        }
        _ => None,
    }
}

impl FnCompiler<'_, '_> {
    pub(super) fn int64_literal(&self, v: i64) -> String {
        let suffix = self.c.dialect.table().int64_suffix;
        if v == i64::MIN {
            format!("(-9223372036854775807{suffix} - 1)")
        } else {
            format!("{v}{suffix}")
        }
    }

    pub(crate) fn float_literal(&self, x: f64, d: DType) -> String {
        let f32 = d.compute() == DType::F32;
        if x.is_nan() {
            return if f32 { "(0.0f/0.0f)" } else { "(0.0/0.0)" }.into();
        }
        if x.is_infinite() {
            let inf = if f32 { "(1.0f/0.0f)" } else { "(1.0/0.0)" };
            return if x > 0.0 {
                inf.into()
            } else {
                format!("(-{inf})")
            };
        }
        let text = if f32 {
            format!("{:?}f", x as f32)
        } else {
            format!("{x:?}")
        };
        if x < 0.0 {
            format!("({text})")
        } else {
            text
        }
    }

    /// A literal of `dtype` with value `text` (as Python wrote it).
    pub(super) fn typed_literal(&self, dtype: DType, text: &str, span: Span) -> R<Val> {
        let bad = || Fail::At(span, format!("'{text}' is not a {} value", dtype.name()));
        let code = match dtype.kind() {
            Kind::Float => {
                let x: f64 = parse_float(text).ok_or_else(bad)?;
                self.float_literal(x, dtype)
            }
            Kind::Bool => {
                let b = matches!(text, "True" | "true" | "1");
                format!("((unsigned char){})", b as u8)
            }
            Kind::Complex => {
                let (re, im) = text.split_once(',').ok_or_else(bad)?;
                let part = if dtype == DType::C64 {
                    DType::F32
                } else {
                    DType::F64
                };
                format!(
                    "ember_make_{}({}, {})",
                    dtype.name(),
                    self.float_literal(parse_float(re).ok_or_else(bad)?, part),
                    self.float_literal(parse_float(im).ok_or_else(bad)?, part)
                )
            }
            Kind::Int | Kind::UInt => {
                let v: i128 = text.parse().map_err(|_| bad())?;
                let t = value_type(dtype, self.c.dialect);
                if dtype == DType::U64 {
                    format!("(({t}){v}u)")
                } else if v < 0 {
                    format!("(({t})({}))", self.int64_literal(v as i64))
                } else {
                    format!("(({t}){v})")
                }
            }
        };
        let nonneg = !text.starts_with('-');
        Ok(Val::new(Ty::Scalar(dtype), code).nonneg(nonneg))
    }
}

/// Python's float text (`1.5`, `inf`, `-inf`, `nan`, `1e-07`) as an f64.
pub(super) fn parse_float(text: &str) -> Option<f64> {
    match text.trim() {
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "-nan" => Some(f64::NAN),
        t => t.parse().ok(),
    }
}
