//! Operators on `datetime64`/`timedelta64` values, by Numba's typing (`typing/npdatetime.py`)
//! and lowering (`np/npdatetime.py`): units convert to the finer one, NaT propagates through
//! arithmetic and compares unequal; what Numba has no signature for is a typing error (Python's
//! `JitError`, Numba's `TypingError`).

use ember_core::datetime::{DateKind, Unit};
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, CmpOp, Span, UnaryOp};
use crate::datetime::{best_unit, can_cast_timedelta, combine_units, needs};
use crate::error::{at, Fail, R};
use crate::helpers::Helper;
use crate::ir::{Const, DateOp, Expr, ExprKind as K};
use crate::types::{Ty, BOOL, FLOAT64, INT64};
use crate::typing::{FnTyper, Val};

use DateKind::{Datetime, Timedelta};

/// A value's datetime kind and unit, if it is a datetime-like scalar.
fn date_val(v: &Val) -> Option<(DateKind, Unit)> {
    v.ty.scalar().and_then(DType::datetime)
}

/// The scalar type of a datetime-like dtype.
fn date_ty(kind: DateKind, unit: Unit, span: Span) -> R<Ty> {
    DType::datetime_of(kind, unit)
        .map(Ty::Scalar)
        .map_err(|e| Fail::At(span, e.to_string()))
}

/// Two operands and the factors that scale them to a common unit: `(a, fa, b, fb)`.
fn scaled_pair(a: (Expr, i64), b: (Expr, i64)) -> Vec<Expr> {
    let factor = |x: i64| Val::constant(INT64, Const::Int(x)).expr();
    vec![a.0, factor(a.1), b.0, factor(b.1)]
}

impl FnTyper<'_, '_> {
    /// A datetime operation's value, its helpers declared.
    fn date_call(&mut self, op: DateOp, ty: Ty, args: Vec<Expr>) -> Val {
        for n in needs(op) {
            self.c.uses.helpers.insert(Helper::Datetime(n));
        }
        self.c.uses.helpers.insert(Helper::Datetime(op));
        Val::new(ty, K::Datetime(op, args))
    }

    /// A datetime of unit `from` as a count of unit `to` and the factor still to multiply it
    /// by (Numba's `convert_datetime_for_arith`: years and months go through the calendar).
    fn datetime_in(&mut self, v: &Val, from: Unit, to: Unit, span: Span) -> R<(Expr, i64)> {
        let (mut x, mut from) = (v.clone(), from);
        if to >= Unit::WEEKS && to != Unit::GENERIC && from <= Unit::MONTHS {
            let weeks = to == Unit::WEEKS;
            let op = DateOp::Calendar {
                months: from == Unit::MONTHS,
                weeks,
            };
            x = self.date_call(op, INT64, vec![x.expr()]);
            from = if weeks { Unit::WEEKS } else { Unit::DAYS };
        }
        let f = from.factor_to(to).ok_or_else(|| {
            Fail::At(
                span,
                format!(
                    "cannot convert datetime64[{}] to datetime64[{}]",
                    from.name(),
                    to.name()
                ),
            )
        })?;
        Ok((x.expr(), f))
    }

    /// The factor from a timedelta of unit `from` to unit `to`.
    fn timedelta_factor(from: Unit, to: Unit, span: Span) -> R<i64> {
        from.factor_to(to).ok_or_else(|| {
            Fail::At(
                span,
                format!(
                    "cannot convert timedelta64[{}] to timedelta64[{}]",
                    from.name(),
                    to.name()
                ),
            )
        })
    }

    /// The finer of two timedelta units either converts to, or the error.
    fn timedelta_units(a: Unit, b: Unit, what: &str, span: Span) -> R<Unit> {
        if can_cast_timedelta(a, b) {
            Ok(b)
        } else if can_cast_timedelta(b, a) {
            Ok(a)
        } else {
            at(
                span,
                format!(
                    "{what} timedelta64[{}] and timedelta64[{}]: the units do not convert into each other (years and months convert to no finer unit)",
                    a.name(),
                    b.name()
                ),
            )
        }
    }

    /// `l op r` where a side is a datetime64/timedelta64 scalar; `None` when neither is.
    pub(super) fn date_binop(&mut self, op: BinOp, l: &Val, r: &Val, span: Span) -> Option<R<Val>> {
        let (a, b) = (l.ty.scalar()?, r.ty.scalar()?);
        if a.datetime().is_none() && b.datetime().is_none() {
            return None;
        }
        Some(self.date_binop_typed(op, l, r, span))
    }

    fn date_binop_typed(&mut self, op: BinOp, l: &Val, r: &Val, span: Span) -> R<Val> {
        let refuse = || {
            at(
                span,
                format!(
                    "operator {} is not defined for {} and {} (Numba has no such signature)",
                    op.symbol(),
                    l.ty,
                    r.ty
                ),
            )
        };
        match (op, date_val(l), date_val(r)) {
            (BinOp::Add | BinOp::Sub, Some((Timedelta, ua)), Some((Timedelta, ub))) => {
                let unit = Self::timedelta_units(ua, ub, op_verb(op), span)?;
                let fa = Self::timedelta_factor(ua, unit, span)?;
                let fb = Self::timedelta_factor(ub, unit, span)?;
                let args = scaled_pair((l.expr(), fa), (r.expr(), fb));
                let ty = date_ty(Timedelta, unit, span)?;
                Ok(self.date_call(
                    DateOp::Combine {
                        sub: op == BinOp::Sub,
                    },
                    ty,
                    args,
                ))
            }
            (BinOp::Add, Some((Timedelta, _)), Some((Datetime, _))) => {
                self.datetime_shift(r, l, false, span)
            }
            (BinOp::Add | BinOp::Sub, Some((Datetime, _)), Some((Timedelta, _))) => {
                self.datetime_shift(l, r, op == BinOp::Sub, span)
            }
            (BinOp::Add, Some((Datetime, _)), Some((Datetime, _))) => at(
                span,
                format!(
                    "operator + is not defined for {} and {}: datetimes cannot be added (Numba has no such signature); add a timedelta64 to a datetime64",
                    l.ty, r.ty
                ),
            ),
            (BinOp::Sub, Some((Datetime, ua)), Some((Datetime, ub))) => {
                let unit = best_unit(ua, ub);
                let x = self.datetime_in(l, ua, unit, span)?;
                let y = self.datetime_in(r, ub, unit, span)?;
                let args = scaled_pair(x, y);
                let ty = date_ty(Timedelta, unit, span)?;
                Ok(self.date_call(DateOp::Combine { sub: true }, ty, args))
            }
            (BinOp::Mult, Some((Timedelta, _)), None) => self.timedelta_times(l, r, span),
            (BinOp::Mult, None, Some((Timedelta, _))) => self.timedelta_times(r, l, span),
            (BinOp::Div, Some((Timedelta, ua)), Some((Timedelta, ub))) => {
                let unit = Self::timedelta_units(ua, ub, "cannot divide", span)?;
                let fa = Self::timedelta_factor(ua, unit, span)?;
                let fb = Self::timedelta_factor(ub, unit, span)?;
                let args = scaled_pair((l.expr(), fa), (r.expr(), fb));
                Ok(self.date_call(DateOp::Ratio, FLOAT64, args))
            }
            (BinOp::Div | BinOp::FloorDiv, Some((Timedelta, _)), None) => {
                let n = self.date_number(r, span)?;
                let d = n.ty.scalar().unwrap_or(DType::I64);
                Ok(self.date_call(DateOp::Divide(d), l.ty.clone(), vec![l.expr(), n.expr()]))
            }
            _ => refuse(),
        }
    }

    /// `dt + td` or `dt - td`: a datetime in the finer unit (Numba's
    /// `combine_datetime_timedelta_units`).
    fn datetime_shift(&mut self, dt: &Val, td: &Val, sub: bool, span: Span) -> R<Val> {
        let (Some((_, ud)), Some((_, ut))) = (date_val(dt), date_val(td)) else {
            return at(span, "a datetime shifts by a timedelta");
        };
        let unit = combine_units(ud, ut).ok_or_else(|| {
            Fail::At(
                span,
                format!(
                    "cannot combine datetime64[{}] and timedelta64[{}]: a timedelta in years or months does not convert to a finer unit",
                    ud.name(),
                    ut.name()
                ),
            )
        })?;
        let x = self.datetime_in(dt, ud, unit, span)?;
        let ft = Self::timedelta_factor(ut, unit, span)?;
        let args = scaled_pair(x, (td.expr(), ft));
        let ty = date_ty(Datetime, unit, span)?;
        Ok(self.date_call(DateOp::Combine { sub }, ty, args))
    }

    /// The number a timedelta is multiplied or divided by: an integer as int64, a float as
    /// itself (float16 as float32), as Numba's `TimedeltaMixOp` takes them.
    fn date_number(&mut self, n: &Val, span: Span) -> R<Val> {
        match n.ty.scalar().map(|d| (d, d.kind())) {
            Some((_, Kind::Int | Kind::UInt)) => Ok(self.cast_to(n, DType::I64)),
            Some((d, Kind::Float)) => Ok(self.cast_to(n, d.compute())),
            _ => at(
                span,
                format!(
                    "a timedelta64 is multiplied or divided by an integer or a float, not {}",
                    n.ty
                ),
            ),
        }
    }

    fn timedelta_times(&mut self, td: &Val, n: &Val, span: Span) -> R<Val> {
        let n = self.date_number(n, span)?;
        let d = n.ty.scalar().unwrap_or(DType::I64);
        Ok(self.date_call(DateOp::Scale(d), td.ty.clone(), vec![td.expr(), n.expr()]))
    }

    /// `l op r` comparing datetime-like scalars; `None` when neither side is one.
    pub(super) fn date_compare(
        &mut self,
        op: CmpOp,
        l: &Val,
        r: &Val,
        span: Span,
    ) -> Option<R<Val>> {
        let (a, b) = (l.ty.scalar()?, r.ty.scalar()?);
        if a.datetime().is_none() && b.datetime().is_none() {
            return None;
        }
        Some(self.date_compare_typed(op, l, r, span))
    }

    fn date_compare_typed(&mut self, op: CmpOp, l: &Val, r: &Val, span: Span) -> R<Val> {
        let args = match (date_val(l), date_val(r)) {
            (Some((Datetime, ua)), Some((Datetime, ub))) => {
                // Every datetime unit compares with every other (through the calendar).
                let unit = best_unit(ua, ub);
                let x = self.datetime_in(l, ua, unit, span)?;
                let y = self.datetime_in(r, ub, unit, span)?;
                scaled_pair(x, y)
            }
            (Some((Timedelta, ua)), Some((Timedelta, ub))) => {
                let unit = Self::timedelta_units(ua, ub, "cannot compare", span)?;
                let fa = Self::timedelta_factor(ua, unit, span)?;
                let fb = Self::timedelta_factor(ub, unit, span)?;
                scaled_pair((l.expr(), fa), (r.expr(), fb))
            }
            _ => {
                return at(
                    span,
                    format!(
                        "cannot compare {} and {} with {} (Numba compares a datetime64 with a datetime64, a timedelta64 with a timedelta64)",
                        l.ty,
                        r.ty,
                        op.symbol()
                    ),
                )
            }
        };
        Ok(self.date_call(DateOp::Compare(op), BOOL, args))
    }

    /// Unary `-`, `+` of a timedelta; `None` when `v` is not datetime-like.
    pub(super) fn date_unary(&mut self, op: UnaryOp, v: &Val, span: Span) -> Option<R<Val>> {
        let (kind, _) = date_val(v)?;
        Some(match (op, kind) {
            (UnaryOp::USub, Timedelta) => {
                Ok(self.date_call(DateOp::Neg, v.ty.clone(), vec![v.expr()]))
            }
            (UnaryOp::UAdd, Timedelta) => Ok(v.clone()),
            _ => at(
                span,
                format!(
                    "unary {} is not defined for {} (Numba has no such signature)",
                    match op {
                        UnaryOp::USub => "-",
                        UnaryOp::UAdd => "+",
                        UnaryOp::Invert => "~",
                        UnaryOp::Not => "not",
                    },
                    v.ty
                ),
            ),
        })
    }

    /// `abs(td)`.
    pub(crate) fn date_abs(&mut self, v: &Val, span: Span) -> R<Val> {
        match date_val(v) {
            Some((Timedelta, _)) => Ok(self.date_call(DateOp::Abs, v.ty.clone(), vec![v.expr()])),
            _ => at(span, format!("abs() of {} is not defined", v.ty)),
        }
    }

    /// `int(x)` / `np.int64(x)` of a datetime-like value: its count (Numba's rule: any
    /// timedelta; a datetime only in nanoseconds, for `int()`).
    pub(crate) fn date_to_int(&mut self, v: &Val, span: Span) -> R<Val> {
        match date_val(v) {
            Some((Datetime, u)) if Some(u) != Unit::named("ns") => at(
                span,
                format!("Only datetime64[ns] can be converted, but got {}", v.ty),
            ),
            _ => Ok(Val::new(INT64, K::Cast(v.boxed()))),
        }
    }
}

impl FnTyper<'_, '_> {
    /// `np.int64(x)` (a dtype called) of a datetime-like value: its count, in a 64-bit
    /// integer only (Numba's rule).
    pub(crate) fn date_cast(&mut self, v: &Val, to: DType, span: Span) -> R<Val> {
        if !matches!(to, DType::I64 | DType::U64) {
            return at(
                span,
                format!(
                    "Cannot cast {} to {} as {} is not a 64-bit integer",
                    v.ty,
                    to.name(),
                    to.name()
                ),
            );
        }
        Ok(Val::new(Ty::Scalar(to), K::Cast(v.boxed())))
    }

    /// Python's `max`/`min` of datetime-like values of one type (Numba unifies no others):
    /// the first unless a later one beats it by the datetime comparison (a NaT never does).
    pub(crate) fn date_min_max(&mut self, max: bool, vals: &[Val], span: Span) -> R<Val> {
        let ty = vals[0].ty.clone();
        if let Some(v) = vals.iter().find(|v| v.ty != ty) {
            return at(
                span,
                format!(
                    "{}() of {ty} and {}: Numba unifies no two datetime-like types of different units, nor one with a number",
                    if max { "max" } else { "min" },
                    v.ty
                ),
            );
        }
        let op = if max { CmpOp::Gt } else { CmpOp::Lt };
        let mut acc = self.temp(&vals[0])?;
        for v in &vals[1..] {
            let c = self.temp(v)?;
            let beats = self.date_compare_typed(op, &c, &acc, span)?;
            let pick = Val::new(ty.clone(), K::Select(beats.boxed(), c.boxed(), acc.boxed()));
            acc = self.temp(&pick)?;
        }
        Ok(acc)
    }

    /// `np.isnat(x)` of a datetime-like value.
    pub(crate) fn isnat(&mut self, v: &Val, span: Span) -> R<Val> {
        if date_val(v).is_none() {
            return at(
                span,
                format!("np.isnat() takes a datetime64 or timedelta64, not {}", v.ty),
            );
        }
        let count = Val::new(INT64, K::Cast(v.boxed()));
        let nat = Val::constant(INT64, Const::Int(ember_core::datetime::NAT));
        Ok(Val::new(
            BOOL,
            K::Compare(CmpOp::Eq, count.boxed(), nat.boxed()),
        ))
    }
}

/// How an error names a failed `op` of two timedeltas.
fn op_verb(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "cannot add",
        _ => "cannot subtract",
    }
}
