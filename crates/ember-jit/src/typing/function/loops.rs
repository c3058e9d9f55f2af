//! Loops: `while` and `for` over `range(...)` (any step sign), a 1-D array or a tuple of one
//! type, with `else` clauses run when no `break` left the loop.

use ember_core::DType;

use super::{FnTyper, Loop, Val};
use crate::ast::{Expr, ExprKind, Span, Stmt};
use crate::error::{at, R};
use crate::ir::{self, ExprKind as K, Step, Temp, TempRole};
use crate::types::Ty;

impl FnTyper<'_, '_> {
    pub(super) fn loop_flag(&mut self, orelse: &[Stmt]) -> Option<Temp> {
        if orelse.is_empty() {
            return None;
        }
        let flag = self.fresh(TempRole::Broke);
        self.push(ir::Stmt::LoopFlag(flag));
        Some(flag)
    }

    pub(super) fn loop_body(&mut self, body: &[Stmt], broke: Option<Temp>) -> R<Vec<ir::Stmt>> {
        self.loops.push(Loop { broke });
        let r = self.nested(body);
        self.loops.pop();
        r
    }

    pub(super) fn loop_else(&mut self, broke: Option<Temp>, orelse: &[Stmt]) -> R<()> {
        if let Some(flag) = broke {
            let body = self.nested(orelse)?;
            self.push(ir::Stmt::Unbroken { flag, body });
        }
        Ok(())
    }

    /// The loop `for target in iter`: over `range(...)` (any step sign), a 1-D array, or a
    /// tuple of one type.
    pub(super) fn for_loop(
        &mut self,
        target: &Expr,
        iter: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
        span: Span,
    ) -> R<()> {
        let range_args = match &iter.kind {
            ExprKind::Call { func, args, .. } => match &func.kind {
                ExprKind::Intrinsic { name } if name == "builtin.range" => Some((args, false)),
                ExprKind::Intrinsic { name } if name == "builtin.prange" => Some((args, true)),
                _ => None,
            },
            _ => None,
        };
        let walk = super::nd_iter::positions(iter).filter(|_| self.c.host);
        let broke = self.loop_flag(orelse);
        self.open_block();
        let r = match (range_args, walk) {
            (Some((args, parallel)), _) => {
                self.range_loop(target, args, body, broke, parallel, span)
            }
            (None, Some(walk)) => self.positions_loop(target, walk, body, broke, span),
            _ if super::iter::iter_builtin(iter).is_some() => {
                self.iter_loop(target, iter, None, body, broke)
            }
            _ => self.sequence_loop(target, iter, body, broke),
        };
        let block = self.close_block();
        r?;
        self.push(ir::Stmt::Block(block));
        self.loop_else(broke, orelse)
    }

    fn range_loop(
        &mut self,
        target: &Expr,
        args: &[Expr],
        body: &[Stmt],
        broke: Option<Temp>,
        parallel: bool,
        span: Span,
    ) -> R<()> {
        if args.is_empty() || args.len() > 3 {
            return at(
                span,
                format!("range expected 1 to 3 arguments, got {}", args.len()),
            );
        }
        let mut vals = Vec::new();
        for a in args {
            let v = self.expr(a)?;
            if !v.ty.is_integral() {
                return at(a.span, format!("range() takes integers, got {}", v.ty));
            }
            vals.push(v);
        }
        let d = range_type(vals.iter().filter_map(|v| v.ty.scalar()));
        let ty = Ty::Scalar(d);
        let literal_step = args.get(2).and_then(crate::typing::expr::int_literal);
        if literal_step == Some(0) {
            return at(args[2].span, "range() arg 3 must not be zero");
        }
        let (start, stop, step) = match vals.len() {
            1 => (
                Val::constant(ty.clone(), ir::Const::Count(0)).nonneg(true),
                vals[0].clone(),
                None,
            ),
            2 => (vals[0].clone(), vals[1].clone(), None),
            _ => (vals[0].clone(), vals[1].clone(), Some(vals[2].clone())),
        };
        self.c.register(&ty);
        let (i, n, s) = (
            self.fresh(TempRole::Index),
            self.fresh(TempRole::Stop),
            self.fresh(TempRole::Step),
        );
        let start_c = self.convert(&start, &ty, span)?;
        let stop_c = self.convert(&stop, &ty, span)?;
        self.push(ir::Stmt::Let {
            temp: n,
            value: stop_c.expr(),
            constant: true,
        });
        let step_ir = match (&step, literal_step) {
            (None, _) => Step::One,
            (Some(_), Some(k)) => Step::Const(k),
            (Some(sv), None) => {
                let sc = self.convert(sv, &ty, span)?;
                self.push(ir::Stmt::Let {
                    temp: s,
                    value: sc.expr(),
                    constant: true,
                });
                if self.c.host {
                    // Python's ValueError for a zero step known only when the function runs.
                    let zero = Val::constant(ty.clone(), ir::Const::Zero);
                    let step = Val::new(ty.clone(), K::Temp(s));
                    let nonzero = Val::new(
                        crate::types::BOOL,
                        K::Compare(crate::ast::CmpOp::NotEq, step.boxed(), zero.boxed()),
                    );
                    self.require(nonzero, ir::Failure::RangeStepZero, &[]);
                }
                Step::Var(s)
            }
        };
        let forward = step.is_none() || literal_step.is_some_and(|k| k > 0);
        let index = Val::new(ty.clone(), K::Temp(i)).nonneg(start.nonneg && forward);
        self.open_block();
        let r = self.assign(target, index);
        let mut block = self.close_block();
        r?;
        block.extend(self.loop_body(body, broke)?);
        self.push(ir::Stmt::For {
            index: i,
            ty: d,
            start: start_c.expr(),
            stop: Val::new(ty, K::Temp(n)).expr(),
            step: step_ir,
            body: block,
            parallel,
        });
        Ok(())
    }

    fn sequence_loop(
        &mut self,
        target: &Expr,
        iter: &Expr,
        body: &[Stmt],
        broke: Option<Temp>,
    ) -> R<()> {
        let seq = self.expr(iter)?;
        let seq = self.temp(&seq)?;
        let i = self.fresh(TempRole::Index);
        self.c.register(&crate::types::INT64);
        let index = Val::new(crate::types::INT64, K::Temp(i)).nonneg(true);
        let (len, item) = match &seq.ty {
            Ty::Array(a) if a.ndim > 1 => {
                return self.iter_loop(target, iter, Some(seq), body, broke)
            }
            Ty::Array(a) if a.ndim == 1 => {
                let a = a.clone();
                let len = self.dim(&seq, &a, 0);
                let item = self.element(&seq, &a, &[index], iter.span)?;
                (len, item)
            }
            Ty::Tuple(items) if !items.is_empty() && items.iter().all(|t| *t == items[0]) => {
                let n = items.len();
                self.tuple_getter(&seq.ty);
                (
                    Val::constant(crate::types::INT64, ir::Const::Count(n as u64)),
                    Val::new(items[0].clone(), K::ItemAt(seq.boxed(), index.boxed())),
                )
            }
            Ty::Tuple(_) => {
                return at(
                    iter.span,
                    "a loop over a tuple needs all its items of one type",
                )
            }
            t => {
                return at(
                    iter.span,
                    format!(
                    "for loops in kernels iterate over range(...), a 1-D array or a tuple, not {t}"
                ),
                )
            }
        };
        self.open_block();
        let r = self.assign(target, item);
        let mut block = self.close_block();
        r?;
        block.extend(self.loop_body(body, broke)?);
        self.push(ir::Stmt::For {
            index: i,
            ty: DType::I64,
            start: Val::constant(crate::types::INT64, ir::Const::Count(0)).expr(),
            stop: len.expr(),
            step: Step::One,
            body: block,
            parallel: false,
        });
        Ok(())
    }
}

/// Numba's `range` loop variable: int32 when every argument fits int32 and is signed,
/// uint64 when one is unsigned (and none is int64), else int64.
pub(super) fn range_type(args: impl Iterator<Item = DType>) -> DType {
    use ember_core::dtype::Kind;
    let (mut small, mut unsigned, mut wide_signed) = (true, false, false);
    for d in args {
        match d.kind() {
            Kind::UInt => unsigned = true,
            Kind::Int if d.itemsize() == 8 => {
                wide_signed = true;
                small = false
            }
            _ => {}
        }
        if d.kind() == Kind::UInt {
            small = false;
        }
    }
    if unsigned && !wide_signed {
        DType::U64
    } else if small {
        DType::I32
    } else {
        DType::I64
    }
}
