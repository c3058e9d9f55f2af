//! Questions asked of a kernel's tree: which intrinsics are pure or allowed once coarsened,
//! and walks over every expression.

use crate::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::intrinsics::{intrinsic, Coarsening};

/// A name, or a tuple of names (nested): a target with no element store in it.
pub(super) fn names_only(target: &Expr) -> bool {
    match &target.kind {
        ExprKind::Name { .. } => true,
        ExprKind::Tuple { elts } => elts.iter().all(names_only),
        _ => false,
    }
}

pub(super) fn intrinsic_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Intrinsic { name } => Some(name),
        _ => None,
    }
}

pub(super) fn called(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Call { func, .. } => intrinsic_name(func),
        _ => None,
    }
}

/// `cuda.grid(n)` / `cuda.gridsize(n)`'s `n` (3 when it is not a literal: treated as varying).
pub(super) fn grid_rank(args: &[Expr]) -> usize {
    match args.first().map(|a| &a.kind) {
        Some(ExprKind::Int { v }) => v.parse().unwrap_or(3),
        _ => 3,
    }
}

/// Pure functions of their arguments: math, NumPy scalar functions, builtins, dtype casts.
pub(super) fn pure_namespace(name: &str) -> bool {
    ["math.", "np.", "builtin.", "dtype."]
        .iter()
        .any(|p| name.starts_with(p))
}

/// Whether a coarsened kernel may call `name` (a row of the intrinsic registry, or a pure
/// function).
pub(super) fn allowed_in_kernel(name: &str) -> bool {
    pure_namespace(name) || intrinsic(name).is_some_and(|i| i.coarsening != Coarsening::Never)
}

/// What a device function may use: it runs once per copy, so nothing that reads the thread's
/// place or waits for the block.
pub(super) fn allowed_in_device_function(name: &str) -> bool {
    pure_namespace(name) || intrinsic(name).is_some_and(|i| i.coarsening == Coarsening::Anywhere)
}

/// Every expression in `e`, `e` first.
pub(super) fn each_expr<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Attribute { value, .. } => each_expr(value, f),
        ExprKind::Subscript { value, index } => {
            each_expr(value, f);
            each_expr(index, f);
        }
        ExprKind::Slice { lower, upper, step } => {
            for x in [lower, upper, step].into_iter().flatten() {
                each_expr(x, f);
            }
        }
        ExprKind::BinOp { left, right, .. } => {
            each_expr(left, f);
            each_expr(right, f);
        }
        ExprKind::UnaryOp { operand, .. } => each_expr(operand, f),
        ExprKind::BoolOp { values, .. } | ExprKind::Tuple { elts: values } => {
            for v in values {
                each_expr(v, f);
            }
        }
        ExprKind::Compare {
            left, comparators, ..
        } => {
            each_expr(left, f);
            for c in comparators {
                each_expr(c, f);
            }
        }
        ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            each_expr(func, f);
            for a in args {
                each_expr(a, f);
            }
            for k in keywords {
                each_expr(&k.value, f);
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            each_expr(test, f);
            each_expr(body, f);
            each_expr(orelse, f);
        }
        ExprKind::Starred { value } => each_expr(value, f),
        _ => {}
    }
}

/// Every expression in the statements, nested ones included.
pub(super) fn each_stmt_expr<'e>(body: &'e [Stmt], f: &mut dyn FnMut(&'e Expr)) {
    for s in body {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    each_expr(t, f);
                }
                each_expr(value, f);
            }
            StmtKind::AugAssign { target, value, .. } => {
                each_expr(target, f);
                each_expr(value, f);
            }
            StmtKind::Expr { value } => each_expr(value, f),
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                each_expr(test, f);
                each_stmt_expr(body, f);
                each_stmt_expr(orelse, f);
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                each_expr(target, f);
                each_expr(iter, f);
                each_stmt_expr(body, f);
                each_stmt_expr(orelse, f);
            }
            StmtKind::Return { value: Some(v) } => each_expr(v, f),
            _ => {}
        }
    }
}

/// Whether evaluating `e` twice is the same as once: no calls but pure intrinsics.
pub(super) fn side_effect_free(e: &Expr) -> bool {
    let mut pure = true;
    each_expr(e, &mut |x| {
        if let ExprKind::Call { func, .. } = &x.kind {
            if !intrinsic_name(func).is_some_and(pure_namespace) {
                pure = false;
            }
        }
    });
    pure
}

/// Statements with no control flow and no barrier.
pub(super) fn straight_line(body: &[Stmt]) -> bool {
    body.iter().all(|s| match &s.kind {
        StmtKind::Assign { .. } | StmtKind::AugAssign { .. } | StmtKind::Pass => true,
        StmtKind::Expr { value } => called(value) != Some("cuda.syncthreads"),
        _ => false,
    })
}
