//! Operands Python evaluates once, or only under a condition: `and`/`or`, chained
//! comparisons and conditional expressions.
//!
//! An operand may need statements ahead of the one that uses it (a temporary, a view). Left
//! there, they would run even where Python does not evaluate the operand (a guarded
//! `i < n and abs(z[i]) > 1` would read `z[i]` out of bounds). So each operand's statements
//! are taken back and, when any would run out of turn or an operand would be evaluated
//! twice, the expression becomes statements in Python's order of evaluation.

use crate::ast::{BoolOp, CmpOp, Expr, Span};
use crate::error::{Fail, R};
use crate::ir::{ExprKind as K, Stmt, TempRole};
use crate::types::{unify, Ty, BOOL};
use crate::typing::{FnTyper, Val};

/// An operand's value, and the statements its evaluation needs ahead of it.
struct Operand {
    val: Val,
    setup: Vec<Stmt>,
}

impl FnTyper<'_, '_> {
    fn operand(&mut self, e: &Expr) -> R<Operand> {
        let mark = self.stmts_mark();
        let val = self.expr(e)?;
        Ok(Operand {
            val,
            setup: self.take_stmts(mark),
        })
    }

    /// An operand that may be None or optional (a branch of `x if c else y`: Python's value
    /// may be None).
    fn operand_raw(&mut self, e: &Expr) -> R<Operand> {
        let mark = self.stmts_mark();
        let val = self.expr_raw(e)?;
        Ok(Operand {
            val,
            setup: self.take_stmts(mark),
        })
    }

    /// Closes the `if` blocks a short-circuit opened (`open`: each test, innermost last).
    fn close_ifs(&mut self, open: Vec<(Val, bool)>) {
        for (cond, negate) in open.into_iter().rev() {
            let then = self.close_block();
            self.push(Stmt::If {
                cond: cond.expr(),
                negate,
                then,
                orelse: Vec::new(),
            });
        }
    }

    /// `a and b and ...` / `a or b or ...`: Python's value is the operand that decides.
    pub(super) fn boolop(&mut self, op: BoolOp, values: &[Expr], span: Span) -> R<Val> {
        let mut operands = Vec::new();
        for (k, v) in values.iter().enumerate() {
            let o = self.operand(v)?;
            // An operand known while compiling (`limit is not None` of an argument passed
            // None) decides there or drops out; what it leaves unevaluated is not typed.
            if let (K::Const(c), true) = (&o.val.kind, o.setup.is_empty()) {
                let decides = c.truth() == (op == BoolOp::Or);
                if decides || k + 1 == values.len() {
                    operands.push(o);
                    break;
                }
                continue;
            }
            operands.push(o);
        }
        if operands.len() == 1 {
            let o = operands.pop().expect("one operand");
            self.put_stmts(o.setup);
            return Ok(o.val);
        }
        let mut ty = operands[0].val.ty.clone();
        for o in &operands[1..] {
            ty = unify(&ty, &o.val.ty).ok_or_else(|| {
                Fail::At(
                    span,
                    format!(
                        "'{}' mixes {} and {}, which do not unify",
                        if op == BoolOp::And { "and" } else { "or" },
                        ty,
                        o.val.ty
                    ),
                )
            })?;
        }
        let n = operands.len();
        let deferred = operands[1..].iter().any(|o| !o.setup.is_empty());
        // A deciding operand that is not bool is both tested and returned.
        let repeated = ty != BOOL && operands[..n - 1].iter().any(|o| !o.val.is_simple());
        if !deferred && !repeated {
            let setup = std::mem::take(&mut operands[0].setup);
            self.put_stmts(setup);
            let vals: Vec<Val> = operands.into_iter().map(|o| o.val).collect();
            return self.boolop_inline(op, &vals, &ty, span);
        }
        self.c.register(&ty);
        let result = self.fresh(TempRole::Logic);
        self.push(Stmt::Declare {
            temp: result,
            ty: ty.clone(),
        });
        let mut open = Vec::new();
        for (k, o) in operands.into_iter().enumerate() {
            self.put_stmts(o.setup);
            if k + 1 == n {
                let value = self.convert(&o.val, &ty, span)?;
                self.push(Stmt::Set {
                    temp: result,
                    value: value.expr(),
                });
                break;
            }
            let v = self.temp(&o.val)?;
            let value = self.convert(&v, &ty, span)?;
            self.push(Stmt::Set {
                temp: result,
                value: value.expr(),
            });
            self.truth_of(&v, span)?;
            open.push((v, op == BoolOp::Or));
            self.open_block();
        }
        self.close_ifs(open);
        Ok(Val::new(ty.clone(), K::Temp(result)).nonneg(ty == BOOL))
    }

    /// `and`/`or` as one expression: each operand evaluated at most once, in order.
    fn boolop_inline(&mut self, op: BoolOp, vals: &[Val], ty: &Ty, span: Span) -> R<Val> {
        if *ty == BOOL {
            let items = vals.iter().map(Val::expr).collect();
            return Ok(Val::new(BOOL, K::Logic(op, items)).nonneg(true));
        }
        // Python returns the deciding operand: fold from the right.
        let mut value = self.convert(vals.last().unwrap_or(&vals[0]), ty, span)?;
        for v in vals[..vals.len() - 1].iter().rev() {
            self.truth_of(v, span)?;
            let c = self.convert(v, ty, span)?;
            let (then, other) = if op == BoolOp::And {
                (value, c)
            } else {
                (c, value)
            };
            value = Val::new(
                ty.clone(),
                K::Select(v.boxed(), then.boxed(), other.boxed()),
            );
        }
        Ok(value.nonneg(false))
    }

    /// `a < b < c`: `b` evaluated once, `c` only when `a < b` holds.
    pub(super) fn compare(
        &mut self,
        left: &Expr,
        ops: &[CmpOp],
        comparators: &[Expr],
        span: Span,
    ) -> R<Val> {
        if let ([op @ (CmpOp::Is | CmpOp::IsNot)], [right]) = (ops, comparators) {
            return self.none_test(left, right, *op == CmpOp::IsNot, span);
        }
        let first = self.operand(left)?;
        let mut rest = Vec::new();
        for c in comparators {
            rest.push(self.operand(c)?);
        }
        let n = rest.len();
        let deferred = rest[1..].iter().any(|o| !o.setup.is_empty());
        let repeated = rest[..n - 1].iter().any(|o| !o.val.is_simple());
        if !deferred && !repeated {
            self.put_stmts(first.setup);
            let setup = std::mem::take(&mut rest[0].setup);
            self.put_stmts(setup);
            let mut parts = Vec::new();
            let mut l = first.val;
            for (op, r) in ops.iter().zip(rest) {
                parts.push(self.compare_two(*op, &l, &r.val, span)?);
                l = r.val;
            }
            if parts.len() == 1 {
                // One comparison is its own value (an array of bools, of arrays).
                let p = parts.pop().expect("one part");
                let scalar = p.ty == BOOL;
                return Ok(p.nonneg(scalar));
            }
            let value = { K::Logic(BoolOp::And, parts.iter().map(Val::expr).collect()) };
            return Ok(Val::new(BOOL, value).nonneg(true));
        }
        self.c.register(&BOOL);
        let result = self.fresh(TempRole::Chain);
        self.push(Stmt::Declare {
            temp: result,
            ty: BOOL,
        });
        self.put_stmts(first.setup);
        let mut l = self.temp(&first.val)?;
        let mut open = Vec::new();
        for (k, (op, r)) in ops.iter().zip(rest).enumerate() {
            self.put_stmts(r.setup);
            let r = if k + 1 < n {
                self.temp(&r.val)?
            } else {
                r.val.clone()
            };
            let test = self.compare_two(*op, &l, &r, span)?;
            self.push(Stmt::Set {
                temp: result,
                value: test.expr(),
            });
            if k + 1 < n {
                open.push((Val::new(BOOL, K::Temp(result)), false));
                self.open_block();
            }
            l = r;
        }
        self.close_ifs(open);
        Ok(Val::new(BOOL, K::Temp(result)).nonneg(true))
    }

    /// `body if test else orelse`: only the branch taken is evaluated.
    pub(super) fn conditional(
        &mut self,
        test: &Expr,
        body: &Expr,
        orelse: &Expr,
        span: Span,
    ) -> R<Val> {
        let t = self.truth(test)?;
        if let K::Const(c) = &t.kind {
            // Known while compiling (`x if x is not None else 0.0` of an argument passed
            // None): only the branch taken is typed, as an `if` statement's.
            let taken = if c.truth() { body } else { orelse };
            return if self.c.host {
                self.expr_raw(taken)
            } else {
                self.expr(taken)
            };
        }
        let (mut b, mut o) = if self.c.host {
            (self.operand_raw(body)?, self.operand_raw(orelse)?)
        } else {
            (self.operand(body)?, self.operand(orelse)?)
        };
        let ty = unify(&b.val.ty, &o.val.ty).ok_or_else(|| {
            Fail::At(
                span,
                format!(
                    "the two branches give {} and {}, which do not unify",
                    b.val.ty, o.val.ty
                ),
            )
        })?;
        let mut values = Vec::new();
        for branch in [&mut b, &mut o] {
            let mark = self.stmts_mark();
            values.push(self.convert(&branch.val, &ty, span)?);
            branch.setup.extend(self.take_stmts(mark));
        }
        let nonneg = b.val.nonneg && o.val.nonneg;
        let (bv, ov) = (values[0].clone(), values[1].clone());
        if b.setup.is_empty() && o.setup.is_empty() {
            return Ok(Val::new(ty, K::Select(t.boxed(), bv.boxed(), ov.boxed())).nonneg(nonneg));
        }
        self.c.register(&ty);
        let result = self.fresh(TempRole::Choice);
        self.push(Stmt::Declare {
            temp: result,
            ty: ty.clone(),
        });
        let mut then = b.setup;
        then.push(Stmt::Set {
            temp: result,
            value: bv.expr(),
        });
        let mut other = o.setup;
        other.push(Stmt::Set {
            temp: result,
            value: ov.expr(),
        });
        self.push(Stmt::If {
            cond: t.expr(),
            negate: false,
            then,
            orelse: other,
        });
        Ok(Val::new(ty, K::Temp(result)).nonneg(nonneg))
    }
}
