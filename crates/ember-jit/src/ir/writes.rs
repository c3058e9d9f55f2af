//! Which array parameters a function may write through: element stores and updates, atomics
//! and random draws, through the parameter itself, through variables, views and transposes
//! made from it, and in the device functions it is passed to. A write through any alias
//! counts (launches refuse read-only host memory for such parameters before running).

use std::collections::{HashMap, HashSet};

use super::*;

/// A variable that may hold an array.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Var {
    Local(usize),
    Temp(Temp),
}

impl IrProgram {
    /// For each parameter of the kernel: whether the kernel may write its elements.
    pub fn kernel_writes(&self) -> Vec<bool> {
        let mut done: Vec<Option<Vec<bool>>> = vec![None; self.functions.len()];
        // Callees come before their callers.
        for i in 0..self.functions.len() {
            done[i] = Some(writes(&self.functions[i], &done));
        }
        match &self.kernel {
            Some(k) => writes(k, &done),
            None => Vec::new(),
        }
    }

    /// For each parameter of function `k`: whether it may write its elements.
    pub fn function_writes(&self, k: usize) -> Vec<bool> {
        let mut done: Vec<Option<Vec<bool>>> = vec![None; self.functions.len()];
        for i in 0..self.functions.len() {
            done[i] = Some(writes(&self.functions[i], &done));
        }
        done.get_mut(k).and_then(Option::take).unwrap_or_default()
    }
}

/// `f`'s written parameters, given those of the functions it calls (`callees`).
fn writes(f: &IrFunction, callees: &[Option<Vec<bool>>]) -> Vec<bool> {
    // Which parameters each variable may alias, grown until nothing changes (a loop may
    // assign a variable before the statement that reads it).
    let mut aliases: HashMap<Var, HashSet<usize>> = HashMap::new();
    for (k, p) in f.params.iter().enumerate() {
        aliases.entry(Var::Local(p.local.0)).or_default().insert(k);
    }
    let body = statements(&f.body);
    loop {
        let mut grew = false;
        for s in &body {
            let (var, from) = match s {
                Stmt::Assign { local, value } => (Var::Local(local.0), value),
                Stmt::Let { temp, value, .. } | Stmt::Set { temp, value } => {
                    (Var::Temp(*temp), value)
                }
                Stmt::View { temp, base, .. }
                | Stmt::Transpose { temp, base, .. }
                | Stmt::FieldView { temp, base, .. }
                | Stmt::Reinterpret { temp, base, .. } => (Var::Temp(*temp), base),
                _ => continue,
            };
            let roots = roots(from, &aliases);
            let entry = aliases.entry(var).or_default();
            for r in roots {
                grew |= entry.insert(r);
            }
        }
        if !grew {
            break;
        }
    }
    let mut written = vec![false; f.params.len()];
    let mut mark = |e: &Expr| {
        for k in roots(e, &aliases) {
            written[k] = true;
        }
    };
    for s in &body {
        if let Stmt::Store { place, .. } | Stmt::Update { place, .. } = s {
            mark(&place.array);
        }
        for e in s.exprs().into_iter().flat_map(|e| e.descendants()) {
            match &e.kind {
                ExprKind::Atomic { place, .. }
                | ExprKind::Cas { place, .. }
                | ExprKind::Random(_, place) => mark(&place.array),
                ExprKind::Call(i, args) => {
                    let callee = callees.get(*i).and_then(Option::as_ref);
                    for (j, a) in args.iter().enumerate() {
                        // A callee not yet known (never: callees come first) counts as writing.
                        if callee.is_none_or(|w| w.get(j) == Some(&true)) {
                            mark(a);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    written
}

/// The parameters an array expression may alias.
fn roots(e: &Expr, aliases: &HashMap<Var, HashSet<usize>>) -> HashSet<usize> {
    let var = match &e.kind {
        ExprKind::Local(l) => Var::Local(l.0),
        ExprKind::Temp(t) => Var::Temp(*t),
        // A conditional choice of arrays, a tuple's item: whatever their operands alias.
        _ => {
            return e
                .children()
                .into_iter()
                .filter(|c| !matches!(c.ty, Ty::Scalar(_)))
                .flat_map(|c| roots(c, aliases))
                .collect()
        }
    };
    aliases.get(&var).cloned().unwrap_or_default()
}
