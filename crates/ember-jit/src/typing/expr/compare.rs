//! Comparing two values: numbers by Numba's rules, tuples item by item, `in` a tuple.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{CmpOp, Expr, Span};
use crate::error::{at, R};
use crate::ir::{Const, ExprKind as K};
use crate::types::{arith, Ty, BOOL};
use crate::typing::arrays::elementwise::compare_ufunc;
use crate::typing::expr::is_none;
use crate::typing::{FnTyper, Val};

impl FnTyper<'_, '_> {
    /// `x is None` / `x is not None` (either side): known while compiling, so the branch it
    /// decides is left untyped as Numba prunes it, unless `x` is optional (None on some paths).
    pub(crate) fn none_test(
        &mut self,
        left: &Expr,
        right: &Expr,
        negated: bool,
        span: Span,
    ) -> R<Val> {
        let known = |holds_none: bool| Val::constant(BOOL, Const::Bool(holds_none != negated));
        let other = match (is_none(left), is_none(right)) {
            (true, true) => return Ok(known(true)),
            (true, false) => right,
            (false, true) => left,
            (false, false) => {
                return at(
                    span,
                    "'is' compares with None only in compiled code; compare values with ==",
                )
            }
        };
        let v = self.expr_raw(other)?;
        Ok(match &v.ty {
            Ty::None => known(true),
            Ty::Optional(_) => {
                let test = Val::new(BOOL, K::IsNone(v.boxed()));
                if negated {
                    Val::new(BOOL, K::Not(test.boxed()))
                } else {
                    test
                }
            }
            _ => {
                if !v.is_simple() {
                    self.push(crate::ir::Stmt::Eval(v.expr()));
                }
                known(false)
            }
        }
        .nonneg(true))
    }

    pub(crate) fn compare_two(&mut self, op: CmpOp, l: &Val, r: &Val, span: Span) -> R<Val> {
        if matches!(op, CmpOp::In | CmpOp::NotIn) {
            let Ty::Tuple(items) = &r.ty else {
                return at(
                    span,
                    format!("'in' in a kernel tests membership in a tuple, not {}", r.ty),
                );
            };
            let items = items.clone();
            let t = self.temp(r)?;
            let mut tests = Vec::new();
            for (i, ty) in items.into_iter().enumerate() {
                let item = Val::new(ty, K::Item(t.boxed(), i));
                tests.push(self.compare_two(CmpOp::Eq, l, &item, span)?.expr());
            }
            return Ok(Val::new(
                BOOL,
                K::Any {
                    items: tests,
                    negated: op == CmpOp::NotIn,
                },
            ));
        }
        if matches!(op, CmpOp::Is | CmpOp::IsNot) {
            return at(
                span,
                "'is' compares with None only in compiled code; compare values with ==",
            );
        }
        if let Some(v) = self.date_compare(op, l, r, span) {
            return v;
        }
        if let Some(u) = compare_ufunc(op).filter(|_| self.whole_array(&[l, r])) {
            return self.array_ufunc(u, vec![l.clone(), r.clone()], span);
        }
        let (a, b) = match (l.ty.scalar(), r.ty.scalar()) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                if let (Ty::Tuple(x), Ty::Tuple(y)) = (&l.ty, &r.ty) {
                    if matches!(op, CmpOp::Eq | CmpOp::NotEq) {
                        if x.len() != y.len() {
                            let differ = op != CmpOp::Eq;
                            return Ok(Val::constant(BOOL, Const::Count(differ as u64)));
                        }
                        let (x, y) = (x.clone(), y.clone());
                        let (lt, rt) = (self.temp(l)?, self.temp(r)?);
                        let mut tests = Vec::new();
                        for i in 0..x.len() {
                            let li = Val::new(x[i].clone(), K::Item(lt.boxed(), i));
                            let ri = Val::new(y[i].clone(), K::Item(rt.boxed(), i));
                            tests.push(self.compare_two(CmpOp::Eq, &li, &ri, span)?.expr());
                        }
                        return Ok(Val::new(
                            BOOL,
                            K::All {
                                items: tests,
                                negated: op == CmpOp::NotEq,
                            },
                        ));
                    }
                }
                return at(
                    span,
                    format!("cannot compare {} and {} with {}", l.ty, r.ty, op.symbol()),
                );
            }
        };
        let integral = |d: DType| matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool);
        // Numba compares int64 with uint64, and int32 with float32, as float64.
        let t = if integral(a)
            && integral(b)
            && (a.kind() == Kind::UInt) != (b.kind() == Kind::UInt)
            && (a.itemsize() == 8 || b.itemsize() == 8)
        {
            DType::F64
        } else {
            arith(a, b)
        };
        if t.kind() == Kind::Complex && !matches!(op, CmpOp::Eq | CmpOp::NotEq) {
            return at(
                span,
                format!("complex numbers cannot be ordered with {}", op.symbol()),
            );
        }
        let (x, y) = (self.cast_to(l, t), self.cast_to(r, t));
        Ok(Val::new(BOOL, K::Compare(op, x.boxed(), y.boxed())))
    }
}
