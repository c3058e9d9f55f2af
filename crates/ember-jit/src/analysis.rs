//! Facts about a function read off its tree before typing.

use crate::ast::{Expr, ExprKind, Function, Stmt, StmtKind};
use crate::types::Ty;

/// For each parameter: whether it is an array the function only reads element by element
/// (never stored into, never passed on, viewed or rebound). Such arrays are declared
/// `const __restrict__` in CUDA, which lets loads go through the read-only cache.
pub fn read_only_arrays(f: &Function, args: &[Ty]) -> Vec<bool> {
    f.params
        .iter()
        .zip(args)
        .map(|(p, t)| match t {
            Ty::Array(a) => {
                let mut ok = true;
                for s in &f.body {
                    stmt(s, p, a.ndim, &mut ok);
                }
                ok
            }
            _ => false,
        })
        .collect()
}

fn stmt(s: &Stmt, p: &str, ndim: usize, ok: &mut bool) {
    match &s.kind {
        StmtKind::Assign { targets, value } => {
            for t in targets {
                target(t, p, ndim, ok);
            }
            expr(value, p, ndim, ok);
        }
        StmtKind::AugAssign {
            target: t, value, ..
        } => {
            target(t, p, ndim, ok);
            expr(value, p, ndim, ok);
        }
        StmtKind::Expr { value } => expr(value, p, ndim, ok),
        StmtKind::Return { value: Some(v) } => expr(v, p, ndim, ok),
        StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
            expr(test, p, ndim, ok);
            for s in body.iter().chain(orelse) {
                stmt(s, p, ndim, ok);
            }
        }
        StmtKind::For {
            target: t,
            iter,
            body,
            orelse,
        } => {
            target(t, p, ndim, ok);
            expr(iter, p, ndim, ok);
            for s in body.iter().chain(orelse) {
                stmt(s, p, ndim, ok);
            }
        }
        _ => {}
    }
}

/// An assignment target: writing `p[...]` or rebinding `p` disqualifies it.
fn target(t: &Expr, p: &str, ndim: usize, ok: &mut bool) {
    match &t.kind {
        ExprKind::Name { id } if id == p => *ok = false,
        ExprKind::Subscript { value, index } => {
            if matches!(&value.kind, ExprKind::Name { id } if id == p) {
                *ok = false;
            } else {
                target(value, p, ndim, ok);
            }
            expr(index, p, ndim, ok);
        }
        ExprKind::Tuple { elts } => {
            for e in elts {
                target(e, p, ndim, ok);
            }
        }
        _ => expr(t, p, ndim, ok),
    }
}

fn is_p(e: &Expr, p: &str) -> bool {
    matches!(&e.kind, ExprKind::Name { id } if id == p)
}

/// A use in an expression: only full element reads and `.shape`-like attributes are reads.
fn expr(e: &Expr, p: &str, ndim: usize, ok: &mut bool) {
    if !*ok {
        return;
    }
    match &e.kind {
        ExprKind::Name { id } if id == p => *ok = false,
        ExprKind::Subscript { value, index } if is_p(value, p) => {
            let items: Vec<&Expr> = match &index.kind {
                ExprKind::Tuple { elts } => elts.iter().collect(),
                _ => vec![index],
            };
            if items.len() != ndim
                || items
                    .iter()
                    .any(|i| matches!(i.kind, ExprKind::Slice { .. }))
            {
                *ok = false;
            }
            for i in items {
                expr(i, p, ndim, ok);
            }
        }
        ExprKind::Attribute { value, .. } if is_p(value, p) => {}
        ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            // len(p) reads the shape; any other call may write through p.
            let is_len =
                matches!(&func.kind, ExprKind::Intrinsic { name } if name == "builtin.len");
            for a in args {
                if !(is_len && is_p(a, p)) {
                    expr(a, p, ndim, ok);
                }
            }
            for k in keywords {
                expr(&k.value, p, ndim, ok);
            }
            expr(func, p, ndim, ok);
        }
        ExprKind::Attribute { value, .. } => expr(value, p, ndim, ok),
        ExprKind::Subscript { value, index } => {
            expr(value, p, ndim, ok);
            expr(index, p, ndim, ok);
        }
        ExprKind::Slice { lower, upper, step } => {
            for x in [lower, upper, step].into_iter().flatten() {
                expr(x, p, ndim, ok);
            }
        }
        ExprKind::BinOp { left, right, .. } => {
            expr(left, p, ndim, ok);
            expr(right, p, ndim, ok);
        }
        ExprKind::UnaryOp { operand, .. } => expr(operand, p, ndim, ok),
        ExprKind::BoolOp { values, .. } => {
            for v in values {
                expr(v, p, ndim, ok);
            }
        }
        ExprKind::Compare {
            left, comparators, ..
        } => {
            expr(left, p, ndim, ok);
            for c in comparators {
                expr(c, p, ndim, ok);
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            expr(test, p, ndim, ok);
            expr(body, p, ndim, ok);
            expr(orelse, p, ndim, ok);
        }
        ExprKind::Tuple { elts } => {
            for x in elts {
                expr(x, p, ndim, ok);
            }
        }
        ExprKind::Starred { value } => expr(value, p, ndim, ok),
        _ => {}
    }
}
