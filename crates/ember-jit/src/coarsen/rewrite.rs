//! Writes the coarsened kernel body: the uniform part once, varying statements once per
//! logical thread, with names and thread geometry as each copy sees them.

use crate::ast::{BoolOp, Expr, ExprKind, Span, Stmt, StmtKind};

use super::plan::{Mapping, Plan};
use super::uniformity::Uniformity;
use super::walk::{called, grid_rank, intrinsic_name, names_only, side_effect_free, straight_line};
use super::AXES;

pub(super) fn copy_name(name: &str, k: u32) -> String {
    format!("{name}${k}")
}

pub(super) fn name_at(span: Span, id: &str) -> Expr {
    Expr {
        span,
        kind: ExprKind::Name { id: id.to_string() },
    }
}

pub(super) fn stmt_at(span: Span, kind: StmtKind) -> Stmt {
    Stmt { span, kind }
}

/// Writes the coarsened kernel body.
pub(super) struct Rewriter<'u> {
    pub(super) u: &'u Uniformity,
    pub(super) plan: Plan,
    pub(super) temps: usize,
}

impl Rewriter<'_> {
    pub(super) fn block(&mut self, body: &[Stmt]) -> Vec<Stmt> {
        body.iter().flat_map(|s| self.uniform(s)).collect()
    }

    fn copies(&self, s: &Stmt) -> Vec<Stmt> {
        (0..self.plan.factor).map(|k| self.in_copy(s, k)).collect()
    }

    /// A statement of the kernel's uniform part.
    fn uniform(&mut self, s: &Stmt) -> Vec<Stmt> {
        let u = self.u;
        let kind = match &s.kind {
            StmtKind::Assign { targets, value }
                if !u.varying(value)
                    && targets.iter().all(|t| names_only(t) && !u.target_varies(t)) =>
            {
                StmtKind::Assign {
                    targets: targets.iter().map(|t| self.expr(t, None)).collect(),
                    value: self.expr(value, None),
                }
            }
            // `n += 1` on a uniform counter runs once, not once per copy.
            StmtKind::AugAssign { target, op, value }
                if matches!(target.kind, ExprKind::Name { .. })
                    && !u.target_varies(target)
                    && !u.varying(value) =>
            {
                StmtKind::AugAssign {
                    target: self.expr(target, None),
                    op: *op,
                    value: self.expr(value, None),
                }
            }
            StmtKind::Expr { value } if called(value) == Some("cuda.syncthreads") => s.kind.clone(),
            StmtKind::If { test, body, orelse } if !u.varying(test) => StmtKind::If {
                test: self.expr(test, None),
                body: self.block(body),
                orelse: self.block(orelse),
            },
            StmtKind::If { test, body, orelse } => return self.varying_if(s, test, body, orelse),
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } if u.uniform_loop(s) => StmtKind::For {
                target: self.expr(target, None),
                iter: self.expr(iter, None),
                body: self.block(body),
                orelse: self.block(orelse),
            },
            StmtKind::While { test, body, orelse } if u.uniform_loop(s) => StmtKind::While {
                test: self.expr(test, None),
                body: self.block(body),
                orelse: self.block(orelse),
            },
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Pass
            | StmtKind::Raise { .. }
            | StmtKind::Unsupported { .. } => s.kind.clone(),
            StmtKind::Return { value } => StmtKind::Return {
                value: value.as_ref().map(|v| self.expr(v, None)),
            },
            _ => return self.copies(s),
        };
        vec![stmt_at(s.span, kind)]
    }

    /// `if` on a varying test: once per copy; for neighbouring elements, a guarded
    /// straight-line body first tries all copies at once, loads before stores, so that the C
    /// compiler can merge the copies' accesses into vectors.
    fn varying_if(&mut self, s: &Stmt, test: &Expr, body: &[Stmt], orelse: &[Stmt]) -> Vec<Stmt> {
        let each = self.copies(s);
        if self.plan.mapping != Mapping::Adjacent
            || !orelse.is_empty()
            || !straight_line(body)
            || !side_effect_free(test)
        {
            return each;
        }
        let all = Expr {
            span: test.span,
            kind: ExprKind::BoolOp {
                op: BoolOp::And,
                values: (0..self.plan.factor)
                    .map(|k| self.copy_expr(test, k))
                    .collect(),
            },
        };
        let mut together = Vec::new();
        for st in body {
            match &st.kind {
                StmtKind::Assign { targets, value }
                    if targets.len() == 1
                        && matches!(targets[0].kind, ExprKind::Subscript { .. }) =>
                {
                    self.temps += 1;
                    let temp = format!("ember$t{}", self.temps);
                    for k in 0..self.plan.factor {
                        together.push(stmt_at(
                            st.span,
                            StmtKind::Assign {
                                targets: vec![name_at(st.span, &copy_name(&temp, k))],
                                value: self.copy_expr(value, k),
                            },
                        ));
                    }
                    for k in 0..self.plan.factor {
                        together.push(stmt_at(
                            st.span,
                            StmtKind::Assign {
                                targets: vec![self.copy_expr(&targets[0], k)],
                                value: name_at(st.span, &copy_name(&temp, k)),
                            },
                        ));
                    }
                }
                StmtKind::Pass => {}
                _ => together.extend(self.copies(st)),
            }
        }
        vec![stmt_at(
            s.span,
            StmtKind::If {
                test: all,
                body: together,
                orelse: each,
            },
        )]
    }

    /// Statement `s` as copy `k` runs it.
    fn in_copy(&self, s: &Stmt, k: u32) -> Stmt {
        let e = |x: &Expr| self.copy_expr(x, k);
        let b = |body: &[Stmt]| -> Vec<Stmt> { body.iter().map(|x| self.in_copy(x, k)).collect() };
        let kind = match &s.kind {
            StmtKind::Assign { targets, value } => StmtKind::Assign {
                targets: targets.iter().map(e).collect(),
                value: e(value),
            },
            StmtKind::AugAssign { target, op, value } => StmtKind::AugAssign {
                target: e(target),
                op: *op,
                value: e(value),
            },
            StmtKind::Expr { value } => StmtKind::Expr { value: e(value) },
            StmtKind::If { test, body, orelse } => StmtKind::If {
                test: e(test),
                body: b(body),
                orelse: b(orelse),
            },
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => StmtKind::For {
                target: e(target),
                iter: e(iter),
                body: b(body),
                orelse: b(orelse),
            },
            StmtKind::While { test, body, orelse } => StmtKind::While {
                test: e(test),
                body: b(body),
                orelse: b(orelse),
            },
            StmtKind::Return { value } => StmtKind::Return {
                value: value.as_ref().map(e),
            },
            other => other.clone(),
        };
        stmt_at(s.span, kind)
    }

    fn copy_expr(&self, x: &Expr, k: u32) -> Expr {
        self.expr(x, Some(k))
    }

    /// `x` with varying names and thread geometry as copy `k` sees them (`None`: the uniform
    /// part, where only the block's size changes).
    fn expr(&self, x: &Expr, k: Option<u32>) -> Expr {
        let axis = AXES[self.plan.axis];
        let sub = |e: &Expr| self.expr(e, k);
        let boxed = |e: &Expr| Box::new(self.expr(e, k));
        let kind = match &x.kind {
            ExprKind::Name { id } => match k {
                Some(k) if self.u.varying.contains(id) => ExprKind::Name {
                    id: copy_name(id, k),
                },
                _ => x.kind.clone(),
            },
            ExprKind::Intrinsic { name } if *name == format!("cuda.threadIdx.{axis}") => {
                match k {
                    Some(k) => ExprKind::Intrinsic {
                        name: format!("ember.coarse.threadIdx.{k}"),
                    },
                    // The analysis keeps the thread index out of the uniform part.
                    None => ExprKind::Unsupported {
                        what:
                            "ember: the thread index outside a coarsened copy (please report this)"
                                .into(),
                    },
                }
            }
            ExprKind::Intrinsic { name } if *name == format!("cuda.blockDim.{axis}") => {
                ExprKind::Intrinsic {
                    name: "ember.coarse.blockDim".into(),
                }
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                let func = match intrinsic_name(func) {
                    Some("cuda.grid") if grid_rank(args) > self.plan.axis => match k {
                        Some(k) => Expr {
                            span: func.span,
                            kind: ExprKind::Intrinsic {
                                name: format!("ember.coarse.grid.{k}"),
                            },
                        },
                        None => Expr {
                            span: func.span,
                            kind: ExprKind::Unsupported {
                                what: "ember: the grid index outside a coarsened copy (please report this)".into(),
                            },
                        },
                    },
                    Some("cuda.gridsize") if grid_rank(args) > self.plan.axis => Expr {
                        span: func.span,
                        kind: ExprKind::Intrinsic {
                            name: "ember.coarse.gridsize".into(),
                        },
                    },
                    _ => sub(func),
                };
                ExprKind::Call {
                    func: Box::new(func),
                    args: args.iter().map(sub).collect(),
                    keywords: keywords
                        .iter()
                        .map(|kw| crate::ast::Keyword {
                            name: kw.name.clone(),
                            value: sub(&kw.value),
                        })
                        .collect(),
                }
            }
            ExprKind::Attribute { value, attr } => ExprKind::Attribute {
                value: boxed(value),
                attr: attr.clone(),
            },
            ExprKind::Subscript { value, index } => ExprKind::Subscript {
                value: boxed(value),
                index: boxed(index),
            },
            ExprKind::Slice { lower, upper, step } => ExprKind::Slice {
                lower: lower.as_deref().map(boxed),
                upper: upper.as_deref().map(boxed),
                step: step.as_deref().map(boxed),
            },
            ExprKind::BinOp { op, left, right } => ExprKind::BinOp {
                op: *op,
                left: boxed(left),
                right: boxed(right),
            },
            ExprKind::UnaryOp { op, operand } => ExprKind::UnaryOp {
                op: *op,
                operand: boxed(operand),
            },
            ExprKind::BoolOp { op, values } => ExprKind::BoolOp {
                op: *op,
                values: values.iter().map(sub).collect(),
            },
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => ExprKind::Compare {
                left: boxed(left),
                ops: ops.clone(),
                comparators: comparators.iter().map(sub).collect(),
            },
            ExprKind::IfExp { test, body, orelse } => ExprKind::IfExp {
                test: boxed(test),
                body: boxed(body),
                orelse: boxed(orelse),
            },
            ExprKind::Tuple { elts } => ExprKind::Tuple {
                elts: elts.iter().map(sub).collect(),
            },
            ExprKind::Starred { value } => ExprKind::Starred {
                value: boxed(value),
            },
            other => other.clone(),
        };
        Expr { span: x.span, kind }
    }
}
