//! One Python function typed into one [`IrFunction`]: variables typed by repeated passes
//! over the body until no type widens (Numba's unification), then one pass whose IR is kept.

use ember_core::Error;

use crate::ast::{Expr, ExprKind, Function, Span, Stmt, StmtKind};
use crate::compiler::Compiler;
use crate::error::{at, locate, snippet, Fail, R};
use crate::ir::{self, ExprKind as K, FixedArrayDecl, IrFunction, LocalId, Temp, TempRole};
use crate::types::{unify, Ty};
use crate::typing::expr::FieldKey;

mod iter;
mod loops;
mod nd_iter;
mod slice_store;

use crate::ir::Role;

/// A typed value while typing: an IR expression, and for a tuple built here which items are
/// known to be >= 0 (kept through unpacking).
#[derive(Clone, Debug)]
pub struct Val {
    pub ty: Ty,
    pub kind: K,
    /// Known to be >= 0 (an index that needs no wrap-around).
    pub nonneg: bool,
    pub items_nonneg: Vec<bool>,
}

impl Val {
    pub fn new(ty: Ty, kind: K) -> Val {
        Val {
            ty,
            kind,
            nonneg: false,
            items_nonneg: Vec::new(),
        }
    }

    pub fn nonneg(mut self, yes: bool) -> Val {
        self.nonneg = yes;
        self
    }

    /// The IR expression.
    pub fn expr(&self) -> ir::Expr {
        ir::Expr {
            ty: self.ty.clone(),
            nonneg: self.nonneg,
            kind: self.kind.clone(),
        }
    }

    /// A boxed IR expression (an operand).
    pub fn boxed(&self) -> Box<ir::Expr> {
        Box::new(self.expr())
    }

    /// Reading it again costs nothing and does nothing.
    pub fn is_simple(&self) -> bool {
        self.expr().is_simple()
    }

    /// A constant.
    pub fn constant(ty: Ty, c: ir::Const) -> Val {
        Val::new(ty, K::Const(c))
    }
}

/// A local variable: its unified type, and whether every value assigned to it is >= 0.
struct Var {
    name: String,
    ty: Ty,
    nonneg: bool,
}

/// An enclosing loop: the flag its `break` sets when it has an `else` clause.
pub(super) struct Loop {
    pub(super) broke: Option<Temp>,
}

pub struct FnTyper<'c, 'p> {
    pub(crate) c: &'c mut Compiler<'p>,
    pub(crate) f: &'p Function,
    kernel: bool,
    /// Array parameters only read element by element.
    read_only: Vec<bool>,
    vars: Vec<Var>,
    ret: Option<Ty>,
    /// The return type a device function's signature declares: every return converts to it.
    declared_ret: Option<Ty>,
    /// The final pass, whose IR is kept (earlier passes only type).
    pub(crate) final_pass: bool,
    changed: bool,
    /// The statements being built: the innermost block last.
    blocks: Vec<Vec<ir::Stmt>>,
    tmp: usize,
    loops: Vec<Loop>,
    /// Shared and local array declarations, placed at the top of the function.
    pub(crate) arrays: Vec<FixedArrayDecl>,
    pub(crate) calls: Vec<usize>,
    /// Values `ExprKind::Bound` names (a starred call's items).
    pub(crate) bound: Vec<Val>,
    last_line: u32,
    /// The statement just typed was an `if` known while compiling whose branch taken
    /// returns or raises: the rest of its block is dead.
    returned: bool,
}

impl<'c, 'p> FnTyper<'c, 'p> {
    /// Types function `id` of the program for `args` into its IR.
    pub fn compile(
        c: &'c mut Compiler<'p>,
        id: usize,
        args: &[Ty],
        role: Role,
    ) -> ember_core::Result<IrFunction> {
        let f = &c.program.functions[id];
        let kernel = role == Role::Kernel;
        let what = if kernel { "kernel" } else { c.function_word() };
        if args.len() != f.params.len() {
            return Err(locate(
                f,
                what,
                f.span,
                &format!(
                    "{}() takes {} argument(s) ({}) but {} were given",
                    f.name,
                    f.params.len(),
                    f.params.join(", "),
                    args.len()
                ),
            ));
        }
        // A declared signature's return type: returns convert to it.
        let declared = c
            .in_progress
            .last()
            .filter(|_| !kernel)
            .and_then(|p| p.ret.clone());
        let mut fc = FnTyper {
            read_only: crate::analysis::read_only_arrays(f, args),
            c,
            f,
            kernel,
            vars: f
                .params
                .iter()
                .zip(args)
                .map(|(p, t)| Var {
                    name: p.clone(),
                    ty: t.clone(),
                    nonneg: false,
                })
                .collect(),
            ret: declared.clone(),
            declared_ret: declared,
            final_pass: false,
            changed: false,
            blocks: vec![Vec::new()],
            tmp: 0,
            loops: Vec::new(),
            arrays: Vec::new(),
            calls: Vec::new(),
            bound: Vec::new(),
            last_line: 0,
            returned: false,
        };
        let fail = |e: Fail| match e {
            Fail::At(span, m) | Fail::Pending(span, m) => locate(f, what, span, &m),
            Fail::Located(e) => e,
        };
        // Types only widen, so this settles; the bound guards against a bug, not a program.
        let mut settled = false;
        for _ in 0..64 {
            fc.changed = false;
            fc.blocks = vec![Vec::new()];
            fc.block(&f.body).map_err(fail)?;
            fc.end_returns_none().map_err(fail)?;
            if !fc.changed {
                settled = true;
                break;
            }
        }
        if !settled {
            return Err(Error::Jit(format!(
                "{}:{}: the types of {}'s variables did not settle; please report this",
                f.file, f.span.line, f.name
            )));
        }
        fc.final_pass = true;
        fc.blocks = vec![Vec::new()];
        fc.block(&f.body).map_err(fail)?;
        let ret = fc.ret.clone().unwrap_or(Ty::None);
        let optional = matches!(ret, Ty::Optional(_));
        if !kernel && ret != Ty::None && !optional && falls_through(&f.body) {
            // Python returns None there, which no compiled function can represent.
            return Err(locate(
                f,
                what,
                f.span,
                &format!(
                    "{}() returns {ret} on some paths but can reach its end without a return (where Python returns None, which kernels cannot represent); end every path with a return",
                    f.name
                ),
            ));
        }
        if kernel && ret != Ty::None {
            return Err(locate(
                f,
                what,
                f.span,
                "a kernel cannot return a value; write results into an array argument",
            ));
        }
        Ok(fc.finish(role, args, ret))
    }

    /// A host function that returns a value but can also reach its end returns None there
    /// (as Python does): its result is optional. A declared result type must say so.
    fn end_returns_none(&mut self) -> R<()> {
        let value = matches!(&self.ret, Some(t) if *t != Ty::None);
        let declared_plain = matches!(&self.declared_ret, Some(t) if !matches!(t, Ty::Optional(_)));
        if self.c.host && !self.kernel && value && !declared_plain && falls_through(&self.f.body) {
            self.merge_return(&Ty::None, self.f.span)?;
        }
        Ok(())
    }

    /// The function's IR, once the body is typed. The types of its parameters and
    /// variables are registered in the order a C function declares them.
    fn finish(&mut self, role: Role, args: &[Ty], ret: Ty) -> IrFunction {
        for t in args {
            if !(self.kernel && matches!(t, Ty::Array(_))) {
                self.c.register(t);
            }
        }
        for v in &self.vars {
            self.c.register(&v.ty);
        }
        if !self.kernel {
            self.c.register(&ret);
        }
        let body = self.blocks.pop().unwrap_or_default();
        IrFunction {
            name: self.f.name.clone(),
            file: self.f.file.clone(),
            role,
            params: args
                .iter()
                .enumerate()
                .map(|(k, ty)| ir::Param {
                    local: LocalId(k),
                    ty: ty.clone(),
                    read_only: self.read_only.get(k) == Some(&true),
                })
                .collect(),
            locals: self
                .vars
                .iter()
                .map(|v| ir::Local {
                    name: v.name.clone(),
                    ty: v.ty.clone(),
                    nonneg: v.nonneg,
                })
                .collect(),
            ret,
            arrays: std::mem::take(&mut self.arrays),
            body,
            calls: std::mem::take(&mut self.calls),
        }
    }

    pub(crate) fn is_kernel(&self) -> bool {
        self.kernel
    }

    // ---- variables ----

    fn var_index(&self, name: &str) -> Option<usize> {
        self.vars.iter().position(|v| v.name == name)
    }

    /// Whether local variable `name` holds an array (so far).
    pub(crate) fn holds_array(&self, name: &str) -> bool {
        self.var_index(name)
            .is_some_and(|i| matches!(self.vars[i].ty, Ty::Array(_)))
    }

    /// Reads local variable `name`.
    pub(crate) fn load_var(&self, name: &str, span: Span) -> R<Val> {
        match self.var_index(name) {
            Some(i) => {
                let v = &self.vars[i];
                Ok(Val::new(v.ty.clone(), K::Local(LocalId(i))).nonneg(v.nonneg))
            }
            None => Err(Fail::Pending(
                span,
                format!("variable '{name}' is used before it is assigned a value"),
            )),
        }
    }

    /// Records that `name` is assigned `val`, widening its type; returns the assignment.
    fn assign_var(&mut self, name: &str, val: &Val, span: Span) -> R<ir::Stmt> {
        match self.var_index(name) {
            None => {
                if matches!(val.ty, Ty::None) && !self.c.host {
                    return at(
                        span,
                        format!(
                            "cannot assign the result of a call that returns nothing to '{name}'"
                        ),
                    );
                }
                self.vars.push(Var {
                    name: name.to_string(),
                    ty: val.ty.clone(),
                    nonneg: val.nonneg,
                });
                self.changed = true;
                Ok(ir::Stmt::Assign {
                    local: LocalId(self.vars.len() - 1),
                    value: val.expr(),
                })
            }
            Some(i) => {
                let old = self.vars[i].ty.clone();
                let Some(new) = unify(&old, &val.ty) else {
                    return at(
                        span,
                        format!(
                            "cannot unify {old} and {} for '{name}': a variable keeps one type (assign the {} to a new variable)",
                            val.ty, val.ty
                        ),
                    );
                };
                if new != old {
                    self.vars[i].ty = new.clone();
                    self.changed = true;
                }
                if self.vars[i].nonneg && !val.nonneg {
                    self.vars[i].nonneg = false;
                    self.changed = true;
                }
                let value = self.convert(val, &new, span)?;
                Ok(ir::Stmt::Assign {
                    local: LocalId(i),
                    value: value.expr(),
                })
            }
        }
    }

    // ---- statements ----

    fn block(&mut self, body: &[Stmt]) -> R<()> {
        for s in body {
            match self.stmt(s) {
                Err(Fail::Pending(..)) if !self.final_pass => {}
                other => other?,
            }
            if std::mem::take(&mut self.returned) {
                // What follows is never reached, so it is not typed (as Numba prunes it):
                // `if scale is None: return a` then `return a * scale`, scale passed None.
                break;
            }
        }
        Ok(())
    }

    /// Appends a statement to the innermost block. Typing passes build no statements: only
    /// the final pass's IR is kept, and an operand's statements decide how a short-circuit
    /// is written only there (so temporaries are numbered as the final pass needs them).
    pub(crate) fn push(&mut self, s: ir::Stmt) {
        if !self.final_pass {
            return;
        }
        if let Some(b) = self.blocks.last_mut() {
            b.push(s);
        }
    }

    /// Where the innermost block ends now: `take_stmts(mark)` takes back what is added after.
    pub(crate) fn stmts_mark(&self) -> usize {
        self.blocks.last().map_or(0, Vec::len)
    }

    /// The statements added since `mark`, taken out of the block (to be put where Python
    /// evaluates what they compute).
    pub(crate) fn take_stmts(&mut self, mark: usize) -> Vec<ir::Stmt> {
        match self.blocks.last_mut() {
            Some(b) => b.split_off(mark),
            None => Vec::new(),
        }
    }

    /// Appends statements taken by `take_stmts`.
    pub(crate) fn put_stmts(&mut self, stmts: Vec<ir::Stmt>) {
        if !self.final_pass {
            return;
        }
        if let Some(b) = self.blocks.last_mut() {
            b.extend(stmts);
        }
    }

    /// Statements added from now on go into a new block, until `close_block`.
    pub(crate) fn open_block(&mut self) {
        self.blocks.push(Vec::new());
    }

    /// The block `open_block` began.
    pub(crate) fn close_block(&mut self) -> Vec<ir::Stmt> {
        self.blocks.pop().unwrap_or_default()
    }

    /// A new temporary of `role`.
    pub(crate) fn fresh(&mut self, role: TempRole) -> Temp {
        self.tmp += 1;
        Temp { role, n: self.tmp }
    }

    fn mark_line(&mut self, span: Span) {
        if self.final_pass && span.line != self.last_line && span.line > 0 {
            self.last_line = span.line;
            self.push(ir::Stmt::Line(span.line));
        }
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        self.mark_line(s.span);
        match &s.kind {
            StmtKind::Pass => Ok(()),
            StmtKind::Expr { value } => {
                let v = self.expr(value)?;
                self.push(ir::Stmt::Eval(v.expr()));
                Ok(())
            }
            StmtKind::Assign { targets, value } => {
                // A variable may take `None` (an optional value); an unpacking may not.
                let names = targets
                    .iter()
                    .all(|t| matches!(t.kind, crate::ast::ExprKind::Name { .. }));
                let v = if names {
                    self.expr_raw(value)?
                } else {
                    self.expr(value)?
                };
                if targets.len() == 1 {
                    return self.assign(&targets[0], v);
                }
                let t = self.temp(&v)?;
                for target in targets {
                    self.assign(target, t.clone())?;
                }
                Ok(())
            }
            StmtKind::AugAssign { target, op, value } => {
                self.aug_assign(target, *op, value, s.span)
            }
            StmtKind::If { test, body, orelse } => {
                let cond = self.truth(test)?;
                // A condition known while compiling (a literal, a constant argument) leaves the
                // other branch untyped, as Numba's dead-branch pruning does: code there may not
                // type (`if neg_idx:` with `neg_idx=False` passed by the caller).
                let known = match &cond.kind {
                    K::Const(c) => Some(c.truth()),
                    _ => None,
                };
                let ends = match known {
                    Some(true) => !falls_through(body),
                    Some(false) => !falls_through(orelse),
                    None => false,
                };
                let then = match known {
                    Some(false) => Vec::new(),
                    _ => self.nested(body)?,
                };
                let orelse = match known {
                    Some(true) => Vec::new(),
                    _ if orelse.is_empty() => Vec::new(),
                    _ => self.nested(orelse)?,
                };
                self.push(ir::Stmt::If {
                    cond: cond.expr(),
                    negate: false,
                    then,
                    orelse,
                });
                self.returned = ends;
                Ok(())
            }
            StmtKind::While { test, body, orelse } => {
                let broke = self.loop_flag(orelse);
                // Python evaluates the test before every iteration: what it needs computed
                // ahead of it (temporaries, views) goes inside the loop, not before it.
                let mark = self.stmts_mark();
                let cond = self.truth(test)?;
                let setup = self.take_stmts(mark);
                let body = self.loop_body(body, broke)?;
                self.push(ir::Stmt::While {
                    setup,
                    cond: cond.expr(),
                    body,
                });
                self.loop_else(broke, orelse)
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => self.for_loop(target, iter, body, orelse, s.span),
            StmtKind::Break => match self.loops.last() {
                None => at(s.span, "'break' outside a loop"),
                Some(l) => {
                    let flag = l.broke;
                    self.push(ir::Stmt::Break { flag });
                    Ok(())
                }
            },
            StmtKind::Continue => {
                if self.loops.is_empty() {
                    return at(s.span, "'continue' outside a loop");
                }
                self.push(ir::Stmt::Continue);
                Ok(())
            }
            StmtKind::Return { value } => self.ret(value.as_ref(), s.span),
            StmtKind::Raise { exception } => {
                self.push(ir::Stmt::Raise(*exception));
                Ok(())
            }
            StmtKind::Unsupported { what } => {
                at(s.span, format!("{what} is not supported in kernels"))
            }
        }
    }

    fn nested(&mut self, body: &[Stmt]) -> R<Vec<ir::Stmt>> {
        self.open_block();
        let r = self.block(body);
        let b = self.close_block();
        r.map(|_| b)
    }

    /// The error for a function returning a value on some paths and none on others.
    fn mixed_returns(&self) -> String {
        let recursive = !self.kernel && self.c.in_progress.last().is_some_and(|p| p.slot.is_some());
        let what = if recursive {
            "Return type of recursive function does not converge: "
        } else {
            ""
        };
        format!("{what}this function returns a value on some paths and nothing on others; return a value on every path")
    }

    fn ret(&mut self, value: Option<&Expr>, span: Span) -> R<()> {
        let v = match value {
            None => None,
            Some(e) => {
                let v = self.expr_raw(e)?;
                if v.ty == Ty::None {
                    // `return f()` of a function returning None still calls it.
                    if !matches!(v.kind, ir::ExprKind::Const(_) | ir::ExprKind::None) {
                        self.push(ir::Stmt::Eval(v.expr()));
                    }
                    None
                } else {
                    Some(v)
                }
            }
        };
        let ty = v.as_ref().map(|v| v.ty.clone()).unwrap_or(Ty::None);
        let merged = self.merge_return(&ty, span)?;
        match v {
            None if merged == Ty::None => self.push(ir::Stmt::Return(None)),
            None => {
                let none = Val::new(Ty::None, ir::ExprKind::None);
                let value = self.convert(&none, &merged, span)?;
                self.push(ir::Stmt::Return(Some(value.expr())));
            }
            Some(v) => {
                let value = self.convert(&v, &merged, span)?;
                self.push(ir::Stmt::Return(Some(value.expr())));
            }
        }
        Ok(())
    }

    /// The function's result type once it also returns `ty` (recorded; a declared signature's
    /// stands). A host function returning a value on some paths and None on others returns an
    /// optional value, as Numba's.
    fn merge_return(&mut self, ty: &Ty, span: Span) -> R<Ty> {
        let none_and_value = |a: &Ty, b: &Ty| (*a == Ty::None) != (*b == Ty::None);
        let merged = match &self.ret {
            Some(d) if self.declared_ret.is_some() => {
                if none_and_value(d, ty) && !matches!(d, Ty::Optional(_)) {
                    return at(span, self.mixed_returns());
                }
                d.clone()
            }
            None => ty.clone(),
            Some(old) if old == ty => ty.clone(),
            Some(old) if none_and_value(old, ty) && !self.c.host => {
                return at(span, self.mixed_returns())
            }
            Some(old) => unify(old, ty).ok_or_else(|| {
                let recursive =
                    !self.kernel && self.c.in_progress.last().is_some_and(|p| p.slot.is_some());
                let what = if recursive {
                    "Return type of recursive function does not converge: it returns"
                } else {
                    "the function returns"
                };
                Fail::At(span, format!("{what} both {old} and {ty}; return one type"))
            })?,
        };
        if self.ret.as_ref() != Some(&merged) {
            self.ret = Some(merged.clone());
            self.changed = true;
        }
        if !self.kernel {
            // Recursive calls of this function return what it returns so far.
            self.c.returns(&merged).map_err(|m| Fail::At(span, m))?;
        }
        Ok(merged)
    }

    /// Evaluates `v` once into a temporary (for tuple unpacking and chained assignment).
    pub(crate) fn temp(&mut self, v: &Val) -> R<Val> {
        if v.is_simple() {
            return Ok(v.clone());
        }
        let name = self.fresh(TempRole::Value);
        self.c.register(&v.ty);
        self.push(ir::Stmt::Let {
            temp: name,
            value: v.expr(),
            constant: false,
        });
        let mut t = Val::new(v.ty.clone(), K::Temp(name)).nonneg(v.nonneg);
        t.items_nonneg = v.items_nonneg.clone();
        Ok(t)
    }

    /// `target = v`.
    fn assign(&mut self, target: &Expr, v: Val) -> R<()> {
        match &target.kind {
            ExprKind::Name { id } => {
                let s = self.assign_var(id, &v, target.span)?;
                self.push(s);
                Ok(())
            }
            ExprKind::Subscript { value, index } => self.store(value, index, v, target.span),
            ExprKind::Tuple { elts } => {
                // `a, *b = ...`: name the starred target, not a count mismatch.
                if let Some(e) = elts
                    .iter()
                    .find(|e| matches!(e.kind, ExprKind::Unsupported { .. }))
                {
                    return self.expr(e).map(|_| ());
                }
                let Ty::Tuple(items) = &v.ty else {
                    return at(
                        target.span,
                        format!(
                            "cannot unpack a value of type {} (only tuples unpack)",
                            v.ty
                        ),
                    );
                };
                if items.len() != elts.len() {
                    return at(
                        target.span,
                        format!(
                            "cannot unpack a tuple of {} values into {} targets",
                            items.len(),
                            elts.len()
                        ),
                    );
                }
                let items = items.clone();
                let known = v.items_nonneg.clone();
                let t = self.temp(&v)?;
                for (i, (e, ty)) in elts.iter().zip(items).enumerate() {
                    let nonneg = known.get(i).copied().unwrap_or(false);
                    self.assign(e, Val::new(ty, K::Item(t.boxed(), i)).nonneg(nonneg))?;
                }
                Ok(())
            }
            ExprKind::Attribute { value, attr } => {
                let base = self.expr(value)?;
                if let Ty::Record(_) = base.ty {
                    let key = self.attribute_key(&base, attr, target.span)?;
                    return self.store_field(&base, key, v, target.span);
                }
                at(
                    target.span,
                    format!("cannot assign to attribute '{attr}' in a kernel"),
                )
            }
            _ => at(target.span, "cannot assign to this expression"),
        }
    }

    fn aug_assign(
        &mut self,
        target: &Expr,
        op: crate::ast::BinOp,
        value: &Expr,
        span: Span,
    ) -> R<()> {
        let rhs = self.expr(value)?;
        match &target.kind {
            ExprKind::Name { id } => {
                let cur = self.load_var(id, target.span)?;
                if self.c.host && matches!(cur.ty, Ty::Array(_)) {
                    // In place, as NumPy's `a += b`.
                    let u = crate::typing::arrays::elementwise::binop_ufunc(op);
                    return self.array_ufunc_into(u, cur.clone(), vec![cur, rhs], span);
                }
                let v = self.binop(op, cur, rhs, span)?;
                let s = self.assign_var(id, &v, target.span)?;
                self.push(s);
                Ok(())
            }
            ExprKind::Attribute { value: base, attr } => {
                let rec = self.expr(base)?;
                let key = self.attribute_key(&rec, attr, target.span)?;
                let place = self.field_place(&rec, key, target.span)?;
                self.update(place, op, rhs, span)
            }
            ExprKind::Subscript { value: base, index } => {
                let arr = self.expr(base)?;
                if let Ty::Record(_) = arr.ty {
                    let key = self.record_key(index, target.span)?;
                    let place = self.field_place(&arr, key, target.span)?;
                    return self.update(place, op, rhs, span);
                }
                let Ty::Array(a) = &arr.ty else {
                    return at(
                        target.span,
                        format!("cannot assign into a value of type {}", arr.ty),
                    );
                };
                let a = a.clone();
                if self.c.host && self.names_region(index, a.ndim)? {
                    // `a[1:] += b`: the region in place.
                    let items: Vec<&Expr> = match &index.kind {
                        ExprKind::Tuple { elts } => elts.iter().collect(),
                        _ => vec![index],
                    };
                    let view = self.view(&arr, &a, &items, target.span)?;
                    let u = crate::typing::arrays::elementwise::binop_ufunc(op);
                    return self.array_ufunc_into(u, view.clone(), vec![view, rhs], span);
                }
                let place = self.element_place(&arr, &a, index, target.span)?;
                self.update(place, op, rhs, span)
            }
            _ => at(target.span, "cannot assign to this expression"),
        }
    }

    /// `place op= rhs`: the element's address computed once.
    fn update(&mut self, place: ir::Place, op: crate::ast::BinOp, rhs: Val, span: Span) -> R<()> {
        let d = place.ty.dtype;
        if crate::types::record_of(d).is_some() {
            return at(
                span,
                format!(
                    "operator {op:?} is not defined on records (dtype {d}): update their fields"
                ),
            );
        }
        let pointer = self.fresh(TempRole::Pointer);
        let cur = Val::new(Ty::Scalar(d), K::Current);
        let v = self.binop(op, cur, rhs, span)?;
        let v = self.convert(&v, &Ty::Scalar(d), span)?;
        self.push(ir::Stmt::Update {
            pointer,
            place,
            value: v.expr(),
        });
        Ok(())
    }

    /// The field `index` names in `r[index]`, or the error saying how fields are named.
    fn record_key<'e>(&self, index: &'e Expr, span: Span) -> R<FieldKey<'e>> {
        self.field_key(index).ok_or_else(|| {
            crate::error::Fail::At(
                span,
                "a record is indexed by a constant field name or position (r['x'], r[0])".into(),
            )
        })
    }

    /// `base[index] = v`.
    fn store(&mut self, base: &Expr, index: &Expr, v: Val, span: Span) -> R<()> {
        let arr = self.expr(base)?;
        if let Ty::Record(_) = arr.ty {
            let key = self.record_key(index, span)?;
            return self.store_field(&arr, key, v, span);
        }
        let a = match &arr.ty {
            Ty::Array(a) => a.clone(),
            Ty::Tuple(_) => return at(span, "tuples cannot be changed; build a new tuple"),
            t => return at(span, format!("cannot assign into a value of type {t}")),
        };
        if a.space == crate::types::Space::Const {
            return at(span, "constant arrays are read-only");
        }
        let evaluated;
        let index = match self.array_index(index)? {
            Some(i) if crate::typing::expr::is_mask(&i) => {
                return self.masked_store(&arr, &a, &i, v, span)
            }
            Some(i) => {
                evaluated = self.standing_for(vec![i], std::slice::from_ref(index));
                &evaluated[0]
            }
            None => index,
        };
        if self.names_region(index, a.ndim)? {
            return self.store_region(&arr, &a, index, v, span);
        }
        let place = self.element_place(&arr, &a, index, span)?;
        if crate::types::record_of(a.dtype).is_some() {
            // `a[i] = r`: the record's bytes copied.
            let dst = self.record_at(place);
            return self.copy_record(&dst, v, span);
        }
        let value = match &v.ty {
            Ty::Scalar(_) => self.convert(&v, &Ty::Scalar(a.dtype), span)?,
            t => {
                return at(
                    span,
                    format!(
                        "cannot store a value of type {t} into an element of {}",
                        arr.ty
                    ),
                )
            }
        };
        self.push(ir::Stmt::Store {
            place,
            value: value.expr(),
        });
        Ok(())
    }

    /// Records that items of tuple type `ty` are read by a run-time index.
    pub(crate) fn tuple_getter(&mut self, ty: &Ty) {
        let Ty::Tuple(items) = ty else {
            return;
        };
        self.c.register(ty);
        self.c.register(&items[0]);
        self.c.register(&crate::types::INT64);
        self.c.aggregate_fn(ir::AggregateFn::TupleItem(ty.clone()));
    }

    /// The truth value of a condition (checked to have one).
    pub(crate) fn truth(&mut self, e: &Expr) -> R<Val> {
        let v = self.expr(e)?;
        self.truth_of(&v, e.span)?;
        Ok(v)
    }

    /// Checks that `v` has a truth value in a kernel.
    pub(crate) fn truth_of(&mut self, v: &Val, span: Span) -> R<()> {
        match &v.ty {
            Ty::Scalar(_) | Ty::Tuple(_) => Ok(()),
            t => at(
                span,
                format!(
                    "the truth value of {t} is ambiguous in a kernel{}",
                    snippet(self.f, span)
                        .map(|s| format!(" ('{s}')"))
                        .unwrap_or_default()
                ),
            ),
        }
    }
}

/// Whether running `body` can reach its end rather than always returning.
fn falls_through(body: &[Stmt]) -> bool {
    body.iter().all(|s| match &s.kind {
        StmtKind::Return { .. } | StmtKind::Raise { .. } => false,
        StmtKind::If { body, orelse, .. } => falls_through(body) || falls_through(orelse),
        StmtKind::While { test, body, orelse } => {
            let forever = matches!(&test.kind, ExprKind::Bool { v: true })
                || matches!(&test.kind, ExprKind::Int { v } if v != "0");
            breaks(body) || (!forever && falls_through(orelse))
        }
        StmtKind::For { body, orelse, .. } => breaks(body) || falls_through(orelse),
        _ => true,
    })
}

/// Whether `body` has a `break` of its own loop (not of a loop nested in it).
fn breaks(body: &[Stmt]) -> bool {
    body.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::If { body, orelse, .. } => breaks(body) || breaks(orelse),
        _ => false,
    })
}
