//! `np.eye(N, M=None, k=0, dtype=float)` and `np.identity(n, dtype=float)` in host functions:
//! zeros with ones on the k-th diagonal.

use ember_core::DType;

use crate::ast::{BinOp, Expr, Keyword, Span};
use crate::error::{at, Fail, R};
use crate::ir::{self, Const, ExprKind as K, NanRule, Place};
use crate::types::{Ty, INT64};
use crate::typing::{FnTyper, Val};

fn int64(kind: K) -> Val {
    Val::new(INT64, kind)
}

fn extremum(max: bool, a: &Val, b: &Val) -> Val {
    int64(K::Extremum {
        max,
        rule: NanRule::Python,
        args: Box::new([a.expr(), b.expr()]),
    })
}

fn add(a: &Val, b: &Val) -> Val {
    int64(K::Binary(BinOp::Add, a.boxed(), b.boxed()))
}

fn sub(a: &Val, b: &Val) -> Val {
    int64(K::Binary(BinOp::Sub, a.boxed(), b.boxed()))
}

impl FnTyper<'_, '_> {
    pub(super) fn eye(
        &mut self,
        f: &str,
        args: &[Expr],
        keywords: &[Keyword],
        span: Span,
    ) -> R<Val> {
        let names: &[&str] = if f == "eye" {
            &["N", "M", "k", "dtype"]
        } else {
            &["n", "dtype"]
        };
        let given = super::alloc::bind(&format!("np.{f}"), names, &[], args, keywords, span)?;
        let dtype = match given[names.len() - 1] {
            Some(e) => self.dtype_of(e)?,
            None => DType::F64,
        };
        let int = |s: &mut Self, e: Option<&Expr>, default: Option<Val>| -> R<Val> {
            match e.filter(|e| !crate::typing::expr::is_none(e)) {
                Some(e) => {
                    let v = s.expr(e)?;
                    if !v.ty.is_integral() {
                        return at(e.span, format!("np.{f}() takes integers, got {}", v.ty));
                    }
                    let v = s.cast_to(&v, DType::I64);
                    s.temp(&v)
                }
                None => default
                    .ok_or_else(|| Fail::At(span, format!("np.{f}() needs the number of rows"))),
            }
        };
        let rows = int(self, given[0], None)?;
        let (cols, k) = if f == "eye" {
            let cols = int(self, given[1], Some(rows.clone()))?;
            let k = int(self, given[2], Some(Val::constant(INT64, Const::Int(0))))?;
            (cols, k)
        } else {
            (rows.clone(), Val::constant(INT64, Const::Int(0)))
        };
        let zero = Val::constant(INT64, Const::Int(0));
        // Negative extents: the allocation raises NumPy's ValueError.
        let zeros = Val::constant(Ty::Scalar(dtype), Const::Zero);
        let (out, ty) = self.made_array(dtype, &[rows.clone(), cols.clone()], Some(zeros))?;
        // The diagonal starts at row max(-k, 0), column max(k, 0), and runs while both fit.
        let (row0, col0) = (
            self.temp(&extremum(true, &sub(&zero, &k), &zero))?,
            self.temp(&extremum(true, &k, &zero))?,
        );
        let count = extremum(
            true,
            &extremum(false, &sub(&rows, &row0), &sub(&cols, &col0)),
            &zero,
        );
        let one = self.cast_to(&Val::constant(INT64, Const::Int(1)), dtype);
        self.nest_loops(&[count], |s, i| {
            s.push(ir::Stmt::Store {
                place: Place {
                    array: out.boxed(),
                    ty: ty.clone(),
                    indices: vec![add(&i[0], &row0).expr(), add(&i[0], &col0).expr()],
                },
                value: one.expr(),
            });
            Ok(())
        })?;
        Ok(out)
    }
}
