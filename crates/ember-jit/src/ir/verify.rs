//! The IR's invariants, checked: what a back end may rely on without re-deriving Numba's
//! rules. C forgives a missing conversion; a native back end does not, so typing must have
//! put every cast in the IR. Tests run this over every fixture.

use super::*;
use crate::types::Ty;

/// Checks `p`; the first broken invariant, named with its function, on failure.
pub fn verify(p: &IrProgram) -> Result<(), String> {
    for f in p.functions.iter().chain(p.kernel.iter()) {
        for param in &f.params {
            let local = &f.locals[param.local.0];
            if crate::types::unify(&param.ty, &local.ty).as_ref() != Some(&local.ty) {
                return Err(format!(
                    "in {}: parameter {} of {} cannot become {}",
                    f.name, local.name, param.ty, local.ty
                ));
            }
        }
        Verifier {
            p,
            f,
            temps: Vec::new(),
        }
        .block(&f.body)
        .map_err(|e| format!("in {}: {e}\n{f}", f.name))?;
    }
    Ok(())
}

struct Verifier<'a> {
    p: &'a IrProgram,
    f: &'a IrFunction,
    /// Temporaries in scope, innermost block last.
    temps: Vec<Temp>,
}

/// Whether a value of `from` may be stored where `to` is expected without a conversion: the
/// same type, or arrays that differ only by layout (one struct).
fn fits(from: &Ty, to: &Ty) -> bool {
    match (from, to) {
        (Ty::Array(a), Ty::Array(b)) => {
            a.dtype == b.dtype && a.ndim == b.ndim && a.space == b.space
        }
        (Ty::Tuple(a), Ty::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| fits(x, y))
        }
        _ => from == to,
    }
}

fn same(what: &str, a: &Ty, b: &Ty) -> Result<(), String> {
    if fits(a, b) {
        Ok(())
    } else {
        Err(format!("{what}: {a} where {b} is expected"))
    }
}

impl Verifier<'_> {
    fn block(&mut self, body: &[Stmt]) -> Result<(), String> {
        let depth = self.temps.len();
        for s in body {
            self.stmt(s)?;
        }
        self.temps.truncate(depth);
        Ok(())
    }

    fn define(&mut self, t: Temp) {
        self.temps.push(t);
    }

    fn local(&self, id: LocalId) -> Result<&Local, String> {
        self.f
            .locals
            .get(id.0)
            .ok_or_else(|| format!("local {} does not exist", id.0))
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), String> {
        if let Stmt::While { setup, cond, body } = s {
            // The setup's temporaries serve the test and the body.
            let depth = self.temps.len();
            for st in setup {
                self.stmt(st)?;
            }
            self.expr(cond)?;
            self.block(body)?;
            self.temps.truncate(depth);
            return Ok(());
        }
        for e in s.exprs() {
            self.expr(e)?;
        }
        match s {
            Stmt::Assign { local, value } => {
                let l = self.local(*local)?;
                same(&format!("assignment to {}", l.name), &value.ty, &l.ty)?;
            }
            Stmt::Let { temp, .. }
            | Stmt::Declare { temp, .. }
            | Stmt::View { temp, .. }
            | Stmt::Transpose { temp, .. }
            | Stmt::FieldView { temp, .. }
            | Stmt::Reinterpret { temp, .. }
            | Stmt::DynamicShared { temp, .. }
            | Stmt::LoopFlag(temp) => self.define(*temp),
            Stmt::Set { temp, .. } => self.read(*temp)?,
            Stmt::Store { place, value } => {
                same("stored value", &value.ty, &Ty::Scalar(place.ty.dtype))?;
            }
            Stmt::Update {
                pointer,
                place,
                value,
            } => {
                same("updated value", &value.ty, &Ty::Scalar(place.ty.dtype))?;
                self.define(*pointer);
            }
            Stmt::Return(v) => {
                let ty = v.as_ref().map_or(Ty::None, |v| v.ty.clone());
                same("returned value", &ty, &self.f.ret)?;
            }
            Stmt::For {
                index,
                ty,
                start,
                stop,
                step,
                body,
                ..
            } => {
                same("loop start", &start.ty, &Ty::Scalar(*ty))?;
                same("loop stop", &stop.ty, &Ty::Scalar(*ty))?;
                if let Step::Var(s) = step {
                    self.read(*s)?;
                }
                self.temps.push(*index);
                self.block(body)?;
                self.temps.pop();
                return Ok(());
            }
            Stmt::Break { flag: Some(t) } | Stmt::Unbroken { flag: t, .. } => self.read(*t)?,
            _ => {}
        }
        for b in s.blocks() {
            self.block(b)?;
        }
        Ok(())
    }

    fn read(&self, t: Temp) -> Result<(), String> {
        if self.temps.contains(&t) || self.f.arrays.iter().any(|a| a.storage == t) {
            Ok(())
        } else {
            Err(format!(
                "{}{} is read outside its scope",
                t.role.prefix(),
                t.n
            ))
        }
    }

    fn expr(&self, e: &Expr) -> Result<(), String> {
        for c in e.children() {
            self.expr(c)?;
        }
        let scalar = |x: &Expr| {
            x.dtype()
                .ok_or_else(|| format!("{:?} needs a number, got {}", e.kind, x.ty))
        };
        match &e.kind {
            ExprKind::Local(id) => {
                self.local(*id)?;
            }
            ExprKind::Temp(t) | ExprKind::FixedArray(t) => self.read(*t)?,
            ExprKind::Cast(x) => {
                scalar(x)?;
                scalar(e)?;
            }
            ExprKind::Binary(op, l, r) => {
                same(&format!("left of {}", op.symbol()), &l.ty, &e.ty)?;
                let exponent = *op == BinOp::Pow && r.dtype() == Some(ember_core::DType::I64);
                if !exponent {
                    same(&format!("right of {}", op.symbol()), &r.ty, &e.ty)?;
                }
            }
            ExprKind::Compare(op, l, r) => {
                same(&format!("right of {}", op.symbol()), &r.ty, &l.ty)?;
                same("comparison", &e.ty, &crate::types::BOOL)?;
            }
            ExprKind::Select(_, a, b) => {
                same("then-value", &a.ty, &e.ty)?;
                same("else-value", &b.ty, &e.ty)?;
            }
            ExprKind::Element(p) | ExprKind::RecordAt(p) | ExprKind::Random(_, p) => {
                self.place(p)?
            }
            ExprKind::Atomic { place, value, .. } => {
                self.place(place)?;
                same("atomic operand", &value.ty, &e.ty)?;
            }
            ExprKind::Cas { place, old, new } => {
                self.place(place)?;
                same("compared value", &old.ty, &e.ty)?;
                same("swapped value", &new.ty, &e.ty)?;
            }
            ExprKind::MakeTuple(items) => {
                let tys: Vec<Ty> = items.iter().map(|x| x.ty.clone()).collect();
                same("tuple", &Ty::Tuple(tys), &e.ty)?;
            }
            ExprKind::Item(t, k) => match &t.ty {
                Ty::Tuple(items) if *k < items.len() => same("tuple item", &items[*k], &e.ty)?,
                other => return Err(format!("item {k} of {other}")),
            },
            ExprKind::Call(i, args) => {
                let callee = self
                    .p
                    .functions
                    .get(*i)
                    .ok_or_else(|| format!("call of missing specialisation {i}"))?;
                if !self.f.calls.contains(i) {
                    return Err(format!("call of {} not listed in calls", callee.name));
                }
                for (a, p) in args.iter().zip(&callee.params) {
                    same("argument", &a.ty, &p.ty)?;
                }
                same("call result", &e.ty, &callee.ret)?;
            }
            ExprKind::Math(_, args) => {
                for a in args {
                    same("math argument", &a.ty, &e.ty)?;
                }
            }
            ExprKind::Extremum { args, .. } => {
                for a in args.iter() {
                    same("min/max argument", &a.ty, &e.ty)?;
                }
            }
            ExprKind::Ufunc { ins, args, .. } => {
                for (a, t) in args.iter().zip(ins.iter()) {
                    same("ufunc argument", &a.ty, &Ty::Scalar(*t))?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn place(&self, p: &Place) -> Result<(), String> {
        same("indexed array", &p.array.ty, &Ty::Array(p.ty.clone()))?;
        if p.indices.len() != p.ty.ndim {
            return Err(format!(
                "{} indices into a {}-d array",
                p.indices.len(),
                p.ty.ndim
            ));
        }
        for i in &p.indices {
            same("index", &i.ty, &crate::types::INT64)?;
        }
        Ok(())
    }
}
