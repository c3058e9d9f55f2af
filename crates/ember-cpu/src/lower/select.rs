//! If-conversion: an `if` whose branches only assign a few cheap values to variables becomes
//! both values computed and one `select` per variable, with no branch. A data-dependent
//! branch the processor mispredicts costs more than the arithmetic (the Monte-Carlo loop of
//! benchmarks/cpu_jit.py ran 2.5 times slower with the branch).

use cranelift_codegen::ir::InstBuilder;
use ember_jit::ast::BinOp;
use ember_jit::ir::{Expr, ExprKind as K, LocalId, Stmt};

use super::Lowering;

/// The most assignments a converted `if` may hold, and the most operations per value.
const MOST_ASSIGNMENTS: usize = 4;
const MOST_NODES: usize = 12;

/// The assignments of a branch, if the whole branch is assignments of speculable values to
/// variables that no later value of the branch reads.
fn assignments(body: &[Stmt]) -> Option<Vec<(LocalId, &Expr)>> {
    let mut out: Vec<(LocalId, &Expr)> = Vec::new();
    for s in body {
        match s {
            Stmt::Line(_) => {}
            Stmt::Assign { local, value } => {
                let nodes = value.descendants();
                if nodes.len() > MOST_NODES || !nodes.iter().all(|e| speculable(e)) {
                    return None;
                }
                let reads_earlier = nodes
                    .iter()
                    .any(|e| matches!(e.kind, K::Local(id) if out.iter().any(|(l, _)| *l == id)));
                if reads_earlier || out.iter().any(|(l, _)| l == local) {
                    return None;
                }
                out.push((*local, value));
            }
            _ => return None,
        }
    }
    (out.len() <= MOST_ASSIGNMENTS).then_some(out)
}

/// Whether computing `e` when its branch is not taken is harmless: no memory, no call, no
/// raise, nothing slow.
fn speculable(e: &Expr) -> bool {
    match &e.kind {
        K::Const(_)
        | K::Local(_)
        | K::Temp(_)
        | K::Cast(_)
        | K::Unary(..)
        | K::Not(_)
        | K::Bool(_) => !e.dtype().is_some_and(|d| d.is_complex()),
        K::Binary(op, ..) => {
            !matches!(
                op,
                BinOp::Div | BinOp::FloorDiv | BinOp::Mod | BinOp::Pow | BinOp::MatMult
            ) && !e.dtype().is_some_and(|d| d.is_complex())
        }
        K::Compare(..) | K::Extremum { .. } | K::FloatTest(..) => true,
        _ => false,
    }
}

impl Lowering<'_, '_> {
    /// Lowers `if cond: then else: orelse` without a branch when it can; says whether it did.
    pub(crate) fn if_converted(
        &mut self,
        cond: &Expr,
        negate: bool,
        then: &[Stmt],
        orelse: &[Stmt],
    ) -> Result<bool, String> {
        let (Some(a), Some(b)) = (assignments(then), assignments(orelse)) else {
            return Ok(false);
        };
        if a.is_empty() && b.is_empty() {
            return Ok(false);
        }
        let c = self.truth(cond)?;
        let mut chosen = Vec::new();
        for (local, _) in a.iter().chain(&b) {
            if chosen.iter().any(|(l, _)| l == local) {
                continue;
            }
            let current = self.locals[local.0].clone().get(&mut self.b)?;
            let in_then = a.iter().find(|(l, _)| l == local).map(|(_, v)| *v);
            let in_else = b.iter().find(|(l, _)| l == local).map(|(_, v)| *v);
            let t = match in_then {
                Some(v) => self.expr(v)?,
                None => current.clone(),
            };
            let e = match in_else {
                Some(v) => self.expr(v)?,
                None => current,
            };
            let (t, e) = (t.number()?, e.number()?);
            let v = if negate {
                self.b.ins().select(c, e, t)
            } else {
                self.b.ins().select(c, t, e)
            };
            chosen.push((*local, v));
        }
        for (local, v) in chosen {
            self.locals[local.0]
                .clone()
                .set(&mut self.b, &crate::values::Val::Number(v))?;
        }
        Ok(true)
    }
}
