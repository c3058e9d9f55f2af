//! `for` loops over `np.ndindex(*shape)` (and `ember.pndindex`, run in order here) and
//! `np.ndenumerate(a)`: one int64 loop over every position in C order, the index tuple of the
//! position kept in temporaries and stepped at the top of each iteration (so `continue` steps
//! it too), with no division per element.

use ember_core::DType;

use super::{FnTyper, Val};
use crate::ast::{BinOp, CmpOp, Expr, Span, Stmt};
use crate::error::{at, R};
use crate::ir::{self, Const, ExprKind as K, Step, Temp, TempRole};
use crate::types::{Ty, BOOL, INT64};

/// The intrinsic a `for` loop's iterable calls, if it walks every position of a shape.
pub(super) fn positions(iter: &Expr) -> Option<(&str, &[Expr])> {
    let crate::ast::ExprKind::Call { func, args, .. } = &iter.kind else {
        return None;
    };
    match &func.kind {
        crate::ast::ExprKind::Intrinsic { name }
            if name == "np.ndindex" || name == "np.ndenumerate" =>
        {
            Some((name.as_str(), args))
        }
        _ => None,
    }
}

fn int64(kind: K) -> Val {
    Val::new(INT64, kind)
}

fn zero() -> Val {
    Val::constant(INT64, Const::Int(0))
}

impl FnTyper<'_, '_> {
    pub(super) fn positions_loop(
        &mut self,
        target: &Expr,
        (name, args): (&str, &[Expr]),
        body: &[Stmt],
        broke: Option<Temp>,
        span: Span,
    ) -> R<()> {
        let enumerate = name == "np.ndenumerate";
        let (array, dims) = if enumerate {
            let [a] = args else {
                return at(span, "np.ndenumerate() takes one array");
            };
            let v = self.expr(a)?;
            let Ty::Array(at_) = v.ty.clone() else {
                return at(
                    a.span,
                    format!("np.ndenumerate() takes an array, got {}", v.ty),
                );
            };
            let v = self.temp(&v)?;
            let dims = (0..at_.ndim).map(|k| self.dim(&v, &at_, k)).collect();
            (Some((v, at_)), dims)
        } else {
            (None, self.shape_arguments(args, span)?)
        };
        let mut dims_held = Vec::new();
        for d in &dims {
            dims_held.push(self.temp(d)?);
        }
        // How many positions: the product of the extents (1 for no axes).
        let mut total = Val::constant(INT64, Const::Int(1));
        for d in &dims_held {
            total = int64(K::Binary(BinOp::Mult, total.boxed(), d.boxed()));
        }
        let n = self.fresh(TempRole::Stop);
        self.push(ir::Stmt::Let {
            temp: n,
            value: total.expr(),
            constant: true,
        });
        // The position the next iteration takes.
        let next: Vec<Temp> = dims_held.iter().map(|_| self.counter_at_zero()).collect();
        let i = self.fresh(TempRole::Index);
        self.open_block();
        let mut here = Vec::new();
        for t in &next {
            // A copy: `next` moves on below.
            let now = self.fresh(TempRole::Value);
            self.push(ir::Stmt::Let {
                temp: now,
                value: int64(K::Temp(*t)).expr(),
                constant: true,
            });
            here.push(int64(K::Temp(now)).nonneg(true));
        }
        self.step_position(&next, &dims_held);
        let index = self.make_tuple(here.clone());
        let value = match &array {
            Some((v, a)) => {
                let x = self.element(v, a, &here, span)?;
                self.make_tuple(vec![index, x])
            }
            None => index,
        };
        let bound = self.assign(target, value);
        let mut block = self.close_block();
        bound?;
        block.extend(self.loop_body(body, broke)?);
        self.push(ir::Stmt::For {
            index: i,
            ty: DType::I64,
            start: zero().expr(),
            stop: int64(K::Temp(n)).nonneg(true).expr(),
            step: Step::One,
            body: block,
            parallel: false,
        });
        Ok(())
    }

    /// `np.ndindex(3, 4)` or `np.ndindex((3, 4))`: the extents, int64.
    fn shape_arguments(&mut self, args: &[Expr], span: Span) -> R<Vec<Val>> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        if let [v] = &vals[..] {
            if let Ty::Tuple(items) = v.ty.clone() {
                let t = self.temp(v)?;
                vals = items
                    .into_iter()
                    .enumerate()
                    .map(|(k, ty)| Val::new(ty, K::Item(t.boxed(), k)))
                    .collect();
            }
        }
        let mut dims = Vec::new();
        for v in vals {
            if !v.ty.is_integral() {
                return at(span, format!("np.ndindex() takes integers, got {}", v.ty));
            }
            dims.push(self.cast_to(&v, DType::I64));
        }
        Ok(dims)
    }

    /// `next` one position on in C order: the last axis counts up, and an axis that reaches
    /// its extent goes back to 0 and carries into the one before it.
    fn step_position(&mut self, next: &[Temp], dims: &[Val]) {
        let Some((&last, rest)) = next.split_last() else {
            return;
        };
        let one = Val::constant(INT64, Const::Int(1));
        let now = int64(K::Temp(last));
        self.push(ir::Stmt::Set {
            temp: last,
            value: int64(K::Binary(BinOp::Add, now.boxed(), one.boxed())).expr(),
        });
        if rest.is_empty() {
            return;
        }
        let full = Val::new(
            BOOL,
            K::Compare(CmpOp::Eq, now.boxed(), dims[next.len() - 1].boxed()),
        );
        self.open_block();
        self.push(ir::Stmt::Set {
            temp: last,
            value: zero().expr(),
        });
        self.step_position(rest, &dims[..rest.len()]);
        let then = self.close_block();
        self.push(ir::Stmt::If {
            cond: full.expr(),
            negate: false,
            then,
            orelse: Vec::new(),
        });
    }
}
