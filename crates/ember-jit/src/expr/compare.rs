//! Comparisons (chained, tuples, `in`) and the boolean operators `and`/`or`.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BoolOp, CmpOp, Expr, Span};
use crate::error::{at, Fail, R};
use crate::function::{FnCompiler, Val};
use crate::types::{arith, unify, Ty, BOOL};

impl FnCompiler<'_, '_> {
    pub(super) fn boolop(&mut self, op: BoolOp, values: &[Expr], span: Span) -> R<Val> {
        let mut vals = Vec::new();
        for v in values {
            vals.push(self.expr(v)?);
        }
        let mut ty = vals[0].ty.clone();
        for v in &vals[1..] {
            ty = unify(&ty, &v.ty).ok_or_else(|| {
                Fail::At(
                    span,
                    format!(
                        "'{}' mixes {} and {}, which do not unify",
                        if op == BoolOp::And { "and" } else { "or" },
                        ty,
                        v.ty
                    ),
                )
            })?;
        }
        if ty == BOOL {
            let sym = if op == BoolOp::And { " && " } else { " || " };
            let parts: Vec<String> = vals.iter().map(|v| v.code.clone()).collect();
            return Ok(
                Val::new(BOOL, format!("((unsigned char)({}))", parts.join(sym))).nonneg(true),
            );
        }
        // Python returns the deciding operand: fold from the right.
        let mut code = self.convert(vals.last().unwrap_or(&vals[0]), &ty, span)?;
        for v in vals[..vals.len() - 1].iter().rev() {
            let t = self.truth_of(v, span)?;
            let c = self.convert(v, &ty, span)?;
            code = if op == BoolOp::And {
                format!("({t} ? {code} : {c})")
            } else {
                format!("({t} ? {c} : {code})")
            };
        }
        Ok(Val::new(ty, code))
    }

    pub(super) fn compare(
        &mut self,
        left: &Expr,
        ops: &[CmpOp],
        comparators: &[Expr],
        span: Span,
    ) -> R<Val> {
        let mut parts = Vec::new();
        let mut l = self.expr(left)?;
        for (op, right) in ops.iter().zip(comparators) {
            let r = self.expr(right)?;
            parts.push(self.compare_two(*op, &l, &r, span)?);
            l = r;
        }
        let code = if parts.len() == 1 {
            parts.pop().unwrap_or_default()
        } else {
            format!("((unsigned char)({}))", parts.join(" && "))
        };
        Ok(Val::new(BOOL, code).nonneg(true))
    }

    fn compare_two(&mut self, op: CmpOp, l: &Val, r: &Val, span: Span) -> R<String> {
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
                let item = Val::new(ty, format!("{}.f{i}", t.code));
                tests.push(self.compare_two(CmpOp::Eq, l, &item, span)?);
            }
            let any = if tests.is_empty() {
                "0".to_string()
            } else {
                tests.join(" || ")
            };
            return Ok(if op == CmpOp::In {
                format!("((unsigned char)({any}))")
            } else {
                format!("((unsigned char)!({any}))")
            });
        }
        if matches!(op, CmpOp::Is | CmpOp::IsNot) {
            return at(
                span,
                "'is' comparisons are not supported in kernels; use ==",
            );
        }
        let (a, b) = match (l.ty.scalar(), r.ty.scalar()) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                if let (Ty::Tuple(x), Ty::Tuple(y)) = (&l.ty, &r.ty) {
                    if matches!(op, CmpOp::Eq | CmpOp::NotEq) {
                        if x.len() != y.len() {
                            return Ok(if op == CmpOp::Eq { "0" } else { "1" }.into());
                        }
                        let (x, y) = (x.clone(), y.clone());
                        let (lt, rt) = (self.temp(l)?, self.temp(r)?);
                        let mut tests = Vec::new();
                        for i in 0..x.len() {
                            let li = Val::new(x[i].clone(), format!("{}.f{i}", lt.code));
                            let ri = Val::new(y[i].clone(), format!("{}.f{i}", rt.code));
                            tests.push(self.compare_two(CmpOp::Eq, &li, &ri, span)?);
                        }
                        let all = if tests.is_empty() {
                            "1".to_string()
                        } else {
                            tests.join(" && ")
                        };
                        return Ok(if op == CmpOp::Eq {
                            format!("({all})")
                        } else {
                            format!("(!({all}))")
                        });
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
        if t.kind() == Kind::Complex {
            if !matches!(op, CmpOp::Eq | CmpOp::NotEq) {
                return at(
                    span,
                    format!("complex numbers cannot be ordered with {}", op.symbol()),
                );
            }
            let (x, y) = (self.cast_to(l, t), self.cast_to(r, t));
            let eq = format!("(({x}).x == ({y}).x && ({x}).y == ({y}).y)");
            return Ok(if op == CmpOp::Eq {
                eq
            } else {
                format!("(!{eq})")
            });
        }
        let (x, y) = (self.cast_to(l, t), self.cast_to(r, t));
        Ok(format!("({x} {} {y})", op.symbol()))
    }
}
