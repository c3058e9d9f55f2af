//! Short ways to type fixture functions into the IR and look inside it.

use ember_core::DType;
use ember_jit::ir::{expressions, statements, Expr, ExprKind, IrFunction, IrProgram, Stmt};
use ember_jit::{type_device, type_kernel, Ty};

use super::{program, tys};

/// Device function `name` typed alone for `args`.
pub fn dev(name: &str, args: &[&str]) -> IrProgram {
    type_device(&program(name), &tys(args))
        .unwrap_or_else(|e| panic!("device function {name}({args:?}) failed: {e}"))
}

/// Kernel `name` typed for `args`.
pub fn ker(name: &str, args: &[&str]) -> IrProgram {
    type_kernel(&program(name), &tys(args))
        .unwrap_or_else(|e| panic!("kernel {name}({args:?}) failed: {e}"))
}

/// The entry point: the kernel, or the device function typed last.
pub fn entry(p: &IrProgram) -> &IrFunction {
    p.kernel
        .as_ref()
        .or(p.functions.last())
        .expect("a function")
}

/// The value of the first `return` with one.
pub fn returned(f: &IrFunction) -> &Expr {
    statements(&f.body)
        .into_iter()
        .find_map(|s| match s {
            Stmt::Return(Some(v)) => Some(v),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no return in\n{f}"))
}

/// What device function `name` returns for `args`.
pub fn ret(name: &str, args: &[&str]) -> Expr {
    returned(entry(&dev(name, args))).clone()
}

pub fn scalar(d: DType) -> Ty {
    Ty::Scalar(d)
}

/// The dtype of a scalar expression.
pub fn dtype(e: &Expr) -> DType {
    e.dtype().unwrap_or_else(|| panic!("{e:?} is not a scalar"))
}

/// The operand of a cast (panics on anything else).
pub fn cast_from(e: &Expr) -> DType {
    match &e.kind {
        ExprKind::Cast(x) => dtype(x),
        other => panic!("expected a cast, got {other:?}"),
    }
}

/// Every expression of `f` satisfying `pred`.
pub fn find(f: &IrFunction, pred: impl Fn(&Expr) -> bool) -> Vec<&Expr> {
    expressions(&f.body)
        .into_iter()
        .filter(|e| pred(e))
        .collect()
}

/// The top-level statements of `f` other than line markers.
pub fn top(f: &IrFunction) -> Vec<&Stmt> {
    f.body
        .iter()
        .filter(|s| !matches!(s, Stmt::Line(_)))
        .collect()
}
