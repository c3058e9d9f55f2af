//! What a function reaches that OpenCL C must pass to it: `__shared__` arrays declared in
//! device functions (OpenCL C allows `__local` variables only at a kernel's outermost scope, so
//! each is allocated there — once per kernel that reaches the function, as CUDA allocates it
//! once per block — and handed down every call on the way as a hidden `__local` pointer
//! parameter named after its function and variable), and `__constant__` variables the host
//! fills (buffers of the module, passed to each kernel that reads them and down its calls).

use std::collections::{BTreeSet, HashMap};

use crate::ast::{Expr, ExprKind as K, FnKind, Function, Stmt, StmtKind as S, Storage, Type};

/// A device function's `__shared__` array: the function declaring it, its name, its type.
#[derive(Clone, Debug)]
pub(crate) struct SharedArray {
    pub owner: String,
    pub var: String,
    pub ty: Type,
    pub line: u32,
}

/// One array whatever line first named it (the counter of votes is named by each voter).
impl PartialEq for SharedArray {
    fn eq(&self, other: &Self) -> bool {
        (&self.owner, &self.var) == (&other.owner, &other.var)
    }
}

/// CUDA's counting barriers: OpenCL C counts in a `__local int` the kernel allocates (as for a
/// device function's `__shared__` variable), named by [`SharedArray::vote`].
pub(crate) const VOTES: [&str; 3] = [
    "__syncthreads_count",
    "__syncthreads_and",
    "__syncthreads_or",
];

impl SharedArray {
    /// The counter of the counting barriers ([`VOTES`]): `ember_shared_ember_vote`.
    pub fn vote(line: u32) -> SharedArray {
        SharedArray {
            owner: "ember".into(),
            var: "vote".into(),
            ty: Type::Scalar(crate::ast::Scalar::Int),
            line,
        }
    }

    /// The name of the kernel's allocation and of the parameters that pass it down.
    pub fn param(&self) -> String {
        format!("ember_shared_{}_{}", self.owner, self.var)
    }
}

/// What a function reaches: device functions' `__shared__` arrays, and the host-filled
/// `__constant__` variables it or its callees read, each in a fixed order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Reached {
    pub shared: Vec<SharedArray>,
    pub constants: Vec<String>,
}

/// For each function name: what it reaches (its own when it is a device function, and what
/// everything it calls reaches). `constants` are the names of the host-filled variables.
pub(crate) fn reached(functions: &[&Function], constants: &[String]) -> HashMap<String, Reached> {
    let mut shared: HashMap<String, Vec<SharedArray>> = HashMap::new();
    let mut used: HashMap<String, Vec<String>> = HashMap::new();
    let mut calls: HashMap<String, BTreeSet<String>> = HashMap::new();
    for f in functions {
        let Some(body) = &f.body else { continue };
        let mut found = Vec::new();
        let mut names = BTreeSet::new();
        for s in body {
            walk_stmt(s, &mut found, &mut names);
        }
        if f.kind != FnKind::Kernel {
            let arrays = found.into_iter().map(|(var, ty, line)| SharedArray {
                owner: f.name.clone(),
                var,
                ty,
                line,
            });
            shared.entry(f.name.clone()).or_default().extend(arrays);
        }
        if VOTES.iter().any(|v| names.contains(*v)) {
            let line = body.first().map_or(0, |s| s.line);
            shared
                .entry(f.name.clone())
                .or_default()
                .push(SharedArray::vote(line));
        }
        let read = constants.iter().filter(|c| names.contains(*c)).cloned();
        used.entry(f.name.clone()).or_default().extend(read);
        calls.entry(f.name.clone()).or_default().extend(names);
    }
    let shared = through_calls(shared, &calls);
    let used = through_calls(used, &calls);
    let names: BTreeSet<&String> = shared.keys().chain(used.keys()).collect();
    names
        .into_iter()
        .map(|n| {
            let reached = Reached {
                shared: shared.get(n).cloned().unwrap_or_default(),
                // In the module's order, so every kernel lists them alike.
                constants: constants
                    .iter()
                    .filter(|c| used.get(n).is_some_and(|u| u.contains(*c)))
                    .cloned()
                    .collect(),
            };
            (n.clone(), reached)
        })
        .collect()
}

/// What each function reaches, given what it has itself: its own and its callees', through
/// the call graph until nothing changes (the sets only grow, so recursion ends).
fn through_calls<T: Clone + PartialEq>(
    mut reach: HashMap<String, Vec<T>>,
    calls: &HashMap<String, BTreeSet<String>>,
) -> HashMap<String, Vec<T>> {
    loop {
        let mut changed = false;
        for (caller, callees) in calls {
            let add: Vec<T> = callees
                .iter()
                .filter_map(|c| reach.get(c))
                .flatten()
                .cloned()
                .collect();
            let entry = reach.entry(caller.clone()).or_default();
            for a in add {
                if !entry.contains(&a) {
                    entry.push(a);
                    changed = true;
                }
            }
        }
        if !changed {
            return reach;
        }
    }
}

fn walk_stmt(s: &Stmt, found: &mut Vec<(String, Type, u32)>, called: &mut BTreeSet<String>) {
    match &s.kind {
        S::Decl(decls) => {
            for d in decls {
                if d.storage == Storage::Shared {
                    found.push((d.name.clone(), d.ty.clone(), d.line));
                }
                if let Some(e) = &d.init {
                    walk_expr(e, called);
                }
            }
        }
        S::Expr(e) | S::Case(e) | S::Return(Some(e)) => walk_expr(e, called),
        S::Block(body) => body.iter().for_each(|s| walk_stmt(s, found, called)),
        S::If(c, a, b) | S::IfConstexpr(c, a, b) => {
            walk_expr(c, called);
            walk_stmt(a, found, called);
            if let Some(b) = b {
                walk_stmt(b, found, called);
            }
        }
        S::While(c, b) | S::Switch(c, b) => {
            walk_expr(c, called);
            walk_stmt(b, found, called);
        }
        S::DoWhile(b, c) => {
            walk_stmt(b, found, called);
            walk_expr(c, called);
        }
        S::For {
            init,
            cond,
            step,
            body,
        } => {
            if let Some(i) = init {
                walk_stmt(i, found, called);
            }
            for e in [cond, step].into_iter().flatten() {
                walk_expr(e, called);
            }
            walk_stmt(body, found, called);
        }
        _ => {}
    }
}

/// Collects the names an expression uses (variables and called functions alike).
fn walk_expr(e: &Expr, called: &mut BTreeSet<String>) {
    match &e.kind {
        K::Ident(n) => {
            called.insert(n.clone());
        }
        K::Call(callee, _, args) => {
            if let K::Ident(n) = &callee.kind {
                called.insert(n.clone());
            }
            for a in args {
                walk_expr(a, called);
            }
        }
        K::Unary(_, x)
        | K::Postfix(_, x)
        | K::Cast(_, x)
        | K::SizeofExpr(x)
        | K::Member(x, _, _) => walk_expr(x, called),
        K::Binary(_, a, b) | K::Assign(_, a, b) | K::Index(a, b) | K::Comma(a, b) => {
            walk_expr(a, called);
            walk_expr(b, called);
        }
        K::Cond(c, a, b) => {
            for x in [c, a, b] {
                walk_expr(x, called);
            }
        }
        K::Init(items) => {
            for x in items {
                walk_expr(x, called);
            }
        }
        K::Launch { config, args, .. } => {
            for x in config.iter().chain(args) {
                walk_expr(x, called);
            }
        }
        _ => {}
    }
}
