//! `isinstance(x, cls)`: known while compiling from `x`'s type, as Numba decides it, so the
//! branch it guards is left untyped when false (`if isinstance(x, np.ndarray): ...`).

use ember_core::dtype::Kind;

use crate::ast::{Expr, ExprKind, Span};
use crate::error::{at, R};
use crate::ir::{Const, Stmt};
use crate::types::{Ty, BOOL};
use crate::typing::{FnTyper, Val};

/// Whether a value of type `ty` is an instance of the class named `class` (an intrinsic's
/// name), or `None` for a class this cannot decide.
fn instance_of(ty: &Ty, class: &str) -> Option<bool> {
    let kind = ty.scalar().map(|d| d.kind());
    Some(match class {
        // Python's bool is an int.
        "builtin.int" => matches!(kind, Some(Kind::Int | Kind::UInt | Kind::Bool)),
        "builtin.float" => kind == Some(Kind::Float),
        "builtin.complex" => kind == Some(Kind::Complex),
        "builtin.bool" => kind == Some(Kind::Bool),
        "builtin.tuple" => matches!(ty, Ty::Tuple(_)),
        "np.ndarray" => matches!(ty, Ty::Array(_)),
        _ => match class.strip_prefix("dtype.") {
            Some(d) => ty.scalar().is_some() && ty.scalar() == crate::types::dtype_named(d),
            None => return None,
        },
    })
}

impl FnTyper<'_, '_> {
    pub(super) fn isinstance(&mut self, args: &[Expr], span: Span) -> R<Val> {
        let [x, cls] = args else {
            return at(
                span,
                format!("isinstance expected 2 arguments, got {}", args.len()),
            );
        };
        let v = self.expr_raw(x)?;
        if matches!(v.ty, Ty::Optional(_)) {
            return at(
                x.span,
                format!("isinstance() of {} (a value or None) is not decided while compiling; test `x is None` first", v.ty),
            );
        }
        if !v.is_simple() {
            self.push(Stmt::Eval(v.expr()));
        }
        let classes: Vec<&Expr> = match &cls.kind {
            ExprKind::Tuple { elts } => elts.iter().collect(),
            _ => vec![cls],
        };
        let mut any = false;
        for c in classes {
            let decided = match &c.kind {
                ExprKind::Intrinsic { name } => instance_of(&v.ty, name),
                _ => None,
            };
            let Some(hit) = decided else {
                return at(
                    c.span,
                    "isinstance() in compiled code takes int, float, complex, bool, tuple, np.ndarray, a NumPy number type, or a tuple of them",
                );
            };
            any |= hit;
        }
        Ok(Val::constant(BOOL, Const::Bool(any)).nonneg(true))
    }
}
