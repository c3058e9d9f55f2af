//! Operands Python evaluates once, or only under a condition: `and`/`or`, chained
//! comparisons and conditional expressions.
//!
//! An operand's C text may need lines written ahead of the statement (a temporary, a view).
//! Left there, they would run even where Python does not evaluate the operand (a guarded
//! `i < n and abs(z[i]) > 1` would read `z[i]` out of bounds). So each operand's lines are
//! taken back and, when any would run out of turn or an operand would be evaluated twice,
//! the expression is written as statements in Python's order of evaluation.

use crate::ast::{BoolOp, CmpOp, Expr, Span};
use crate::error::{Fail, R};
use crate::function::{is_simple, FnCompiler, Val};
use crate::types::{unify, Ty, BOOL};

/// An operand's value, and the lines its evaluation needs written ahead of it.
struct Operand {
    val: Val,
    setup: String,
}

impl FnCompiler<'_, '_> {
    fn operand(&mut self, e: &Expr) -> R<Operand> {
        let mark = self.lines_mark();
        let val = self.expr(e)?;
        Ok(Operand {
            val,
            setup: self.take_lines(mark),
        })
    }

    /// `a and b and ...` / `a or b or ...`: Python's value is the operand that decides.
    pub(super) fn boolop(&mut self, op: BoolOp, values: &[Expr], span: Span) -> R<Val> {
        let mut operands = Vec::new();
        for v in values {
            operands.push(self.operand(v)?);
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
        let repeated = ty != BOOL && operands[..n - 1].iter().any(|o| !is_simple(&o.val.code));
        if !deferred && !repeated {
            self.put_lines(&operands[0].setup, 0);
            let vals: Vec<Val> = operands.into_iter().map(|o| o.val).collect();
            return self.boolop_inline(op, &vals, &ty, span);
        }
        let ct = self.c.c_type(&ty);
        let result = self.fresh("b");
        self.line(&format!("{ct} {result};"));
        let mut opened = 0;
        for (k, o) in operands.iter().enumerate() {
            self.put_lines(&o.setup, opened);
            if k + 1 == n {
                let code = self.convert(&o.val, &ty, span)?;
                self.line(&format!("{result} = {code};"));
                break;
            }
            let v = self.temp(&o.val)?;
            let code = self.convert(&v, &ty, span)?;
            self.line(&format!("{result} = {code};"));
            let truth = self.truth_of(&v, span)?;
            let go_on = match op {
                BoolOp::And => truth,
                BoolOp::Or => format!("!({truth})"),
            };
            self.line(&format!("if ({go_on}) {{"));
            self.depth_in();
            opened += 1;
        }
        for _ in 0..opened {
            self.depth_out();
            self.line("}");
        }
        Ok(Val::new(ty.clone(), result).nonneg(ty == BOOL))
    }

    /// `and`/`or` as one C expression: each operand evaluated at most once, in order.
    fn boolop_inline(&mut self, op: BoolOp, vals: &[Val], ty: &Ty, span: Span) -> R<Val> {
        if *ty == BOOL {
            let sym = if op == BoolOp::And { " && " } else { " || " };
            let parts: Vec<String> = vals.iter().map(|v| v.code.clone()).collect();
            return Ok(
                Val::new(BOOL, format!("((unsigned char)({}))", parts.join(sym))).nonneg(true),
            );
        }
        // Python returns the deciding operand: fold from the right.
        let mut code = self.convert(vals.last().unwrap_or(&vals[0]), ty, span)?;
        for v in vals[..vals.len() - 1].iter().rev() {
            let t = self.truth_of(v, span)?;
            let c = self.convert(v, ty, span)?;
            code = if op == BoolOp::And {
                format!("({t} ? {code} : {c})")
            } else {
                format!("({t} ? {c} : {code})")
            };
        }
        Ok(Val::new(ty.clone(), code))
    }

    /// `a < b < c`: `b` evaluated once, `c` only when `a < b` holds.
    pub(super) fn compare(
        &mut self,
        left: &Expr,
        ops: &[CmpOp],
        comparators: &[Expr],
        span: Span,
    ) -> R<Val> {
        let first = self.operand(left)?;
        let mut rest = Vec::new();
        for c in comparators {
            rest.push(self.operand(c)?);
        }
        let n = rest.len();
        let deferred = rest[1..].iter().any(|o| !o.setup.is_empty());
        let repeated = rest[..n - 1].iter().any(|o| !is_simple(&o.val.code));
        if !deferred && !repeated {
            self.put_lines(&first.setup, 0);
            self.put_lines(&rest[0].setup, 0);
            let mut parts = Vec::new();
            let mut l = first.val;
            for (op, r) in ops.iter().zip(rest) {
                parts.push(self.compare_two(*op, &l, &r.val, span)?);
                l = r.val;
            }
            let code = if parts.len() == 1 {
                parts.pop().unwrap_or_default()
            } else {
                format!("((unsigned char)({}))", parts.join(" && "))
            };
            return Ok(Val::new(BOOL, code).nonneg(true));
        }
        let ct = self.c.c_type(&BOOL);
        let result = self.fresh("c");
        self.line(&format!("{ct} {result};"));
        self.put_lines(&first.setup, 0);
        let mut l = self.temp(&first.val)?;
        let mut opened = 0;
        for (k, (op, r)) in ops.iter().zip(&rest).enumerate() {
            self.put_lines(&r.setup, opened);
            let r = if k + 1 < n {
                self.temp(&r.val)?
            } else {
                r.val.clone()
            };
            let test = self.compare_two(*op, &l, &r, span)?;
            self.line(&format!("{result} = {test};"));
            if k + 1 < n {
                self.line(&format!("if ({result}) {{"));
                self.depth_in();
                opened += 1;
            }
            l = r;
        }
        for _ in 0..opened {
            self.depth_out();
            self.line("}");
        }
        Ok(Val::new(BOOL, result).nonneg(true))
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
        let (mut b, mut o) = (self.operand(body)?, self.operand(orelse)?);
        let ty = unify(&b.val.ty, &o.val.ty).ok_or_else(|| {
            Fail::At(
                span,
                format!(
                    "the two branches give {} and {}, which do not unify",
                    b.val.ty, o.val.ty
                ),
            )
        })?;
        let mut codes = Vec::new();
        for branch in [&mut b, &mut o] {
            let mark = self.lines_mark();
            codes.push(self.convert(&branch.val, &ty, span)?);
            branch.setup.push_str(&self.take_lines(mark));
        }
        let nonneg = b.val.nonneg && o.val.nonneg;
        let (bc, oc) = (&codes[0], &codes[1]);
        if b.setup.is_empty() && o.setup.is_empty() {
            return Ok(Val::new(ty, format!("({t} ? {bc} : {oc})")).nonneg(nonneg));
        }
        let ct = self.c.c_type(&ty);
        let result = self.fresh("e");
        self.line(&format!("{ct} {result};"));
        self.line(&format!("if ({t}) {{"));
        self.put_lines(&b.setup, 1);
        self.line(&format!("  {result} = {bc};"));
        self.line("} else {");
        self.put_lines(&o.setup, 1);
        self.line(&format!("  {result} = {oc};"));
        self.line("}");
        Ok(Val::new(ty, result).nonneg(nonneg))
    }
}
