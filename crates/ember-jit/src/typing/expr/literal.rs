//! Literals: Python's numbers as constants of their Numba type, and the constant integers
//! shapes are made of.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, Expr, ExprKind, Span, UnaryOp};
use crate::error::{Fail, R};
use crate::ir::Const;
use crate::types::{dtype_named, Ty};
use crate::typing::{FnTyper, Val};

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
/// Whether `e` is Python's `None`, literal or a global's value (the front gives it as an
/// unsupported value whose description starts with "None").
pub fn is_none(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Unsupported { what } if what == "None" || what.starts_with("None ("))
}

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

impl FnTyper<'_, '_> {
    /// A literal of `dtype` with value `text` (as Python wrote it).
    pub(super) fn typed_literal(&self, dtype: DType, text: &str, span: Span) -> R<Val> {
        let bad = || Fail::At(span, format!("'{text}' is not a {} value", dtype.name()));
        let c = match dtype.kind() {
            Kind::Float => Const::Float(parse_float(text).ok_or_else(bad)?),
            Kind::Bool => Const::Bool(matches!(text, "True" | "true" | "1")),
            Kind::Complex => {
                let (re, im) = text.split_once(',').ok_or_else(bad)?;
                Const::Complex(
                    parse_float(re).ok_or_else(bad)?,
                    parse_float(im).ok_or_else(bad)?,
                )
            }
            Kind::Int | Kind::UInt => Const::Typed(text.parse().map_err(|_| bad())?),
            // A datetime64/timedelta64: the count of its unit.
            Kind::Opaque if dtype.datetime().is_some() => {
                Const::Typed(text.parse().map_err(|_| bad())?)
            }
            Kind::Opaque => return Err(bad()),
        };
        let nonneg = !text.starts_with('-');
        Ok(Val::constant(Ty::Scalar(dtype), c).nonneg(nonneg))
    }
}

/// Python's float text (`1.5`, `inf`, `-inf`, `nan`, `1e-07`) as an f64.
pub(crate) fn parse_float(text: &str) -> Option<f64> {
    match text.trim() {
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "-nan" => Some(f64::NAN),
        t => t.parse().ok(),
    }
}
