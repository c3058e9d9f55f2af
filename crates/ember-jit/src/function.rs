//! One Python function compiled to one C function: variables typed by repeated passes over
//! the body until no type widens (Numba's unification), then one pass that writes C.

use std::fmt::Write;

use ember_codegen::types::storage_type;
use ember_core::{DType, Error};

use crate::ast::{Expr, ExprKind, Function, Span, Stmt, StmtKind};
use crate::compiler::{c_ident, Compiler};
use crate::error::{at, locate, snippet, Fail, R};
use crate::helpers::Helper;
use crate::types::{unify, Space, Ty};

/// What the function becomes.
pub enum Role {
    /// A kernel entry point with this C name.
    Kernel(String),
    /// A device function with this C name.
    Device(String),
}

/// A typed C expression.
#[derive(Clone, Debug)]
pub struct Val {
    pub ty: Ty,
    pub code: String,
    /// Known to be >= 0 (an index that needs no wrap-around).
    pub nonneg: bool,
    /// For a tuple built here: which items are known to be >= 0 (kept through unpacking).
    pub items_nonneg: Vec<bool>,
}

impl Val {
    pub fn new(ty: Ty, code: impl Into<String>) -> Val {
        Val {
            ty,
            code: code.into(),
            nonneg: false,
            items_nonneg: Vec::new(),
        }
    }

    pub fn nonneg(mut self, yes: bool) -> Val {
        self.nonneg = yes;
        self
    }
}

/// A local variable: its unified type, and whether every value assigned to it is >= 0.
struct Var {
    name: String,
    ty: Ty,
    nonneg: bool,
}

/// An enclosing loop: the flag its `break` sets when it has an `else` clause.
struct Loop {
    broke: Option<String>,
}

pub struct FnCompiler<'c, 'p> {
    pub(crate) c: &'c mut Compiler<'p>,
    pub(crate) f: &'p Function,
    kernel: bool,
    /// Array parameters only read element by element (`const __restrict__` in CUDA).
    read_only: Vec<bool>,
    vars: Vec<Var>,
    ret: Option<Ty>,
    /// The final pass, which writes C (earlier passes only type).
    pub(crate) emit: bool,
    changed: bool,
    out: String,
    depth: usize,
    tmp: usize,
    loops: Vec<Loop>,
    /// Shared and local array declarations, placed at the top of the function.
    pub(crate) arrays: String,
    pub(crate) calls: Vec<usize>,
    last_line: u32,
}

impl<'c, 'p> FnCompiler<'c, 'p> {
    /// Compiles function `id` of the program for `args`: its C text, return type, and the
    /// device-function specialisations it calls.
    pub fn compile(
        c: &'c mut Compiler<'p>,
        id: usize,
        args: &[Ty],
        role: Role,
    ) -> ember_core::Result<(String, Ty, Vec<usize>)> {
        let f = &c.program.functions[id];
        let (kernel, name) = match role {
            Role::Kernel(n) => (true, n),
            Role::Device(n) => (false, n),
        };
        let what = if kernel { "kernel" } else { "device function" };
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
        let mut fc = FnCompiler {
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
            ret: None,
            emit: false,
            changed: false,
            out: String::new(),
            depth: 1,
            tmp: 0,
            loops: Vec::new(),
            arrays: String::new(),
            calls: Vec::new(),
            last_line: 0,
        };
        let fail = |e: Fail| match e {
            Fail::At(span, m) | Fail::Pending(span, m) => locate(f, what, span, &m),
            Fail::Located(e) => e,
        };
        // Types only widen, so this settles; the bound guards against a bug, not a program.
        let mut settled = false;
        for _ in 0..64 {
            fc.changed = false;
            fc.block(&f.body).map_err(fail)?;
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
        fc.emit = true;
        fc.block(&f.body).map_err(fail)?;
        let ret = fc.ret.clone().unwrap_or(Ty::None);
        if !kernel && ret != Ty::None && falls_through(&f.body) {
            // Python returns None there; C would return garbage.
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
        let text = fc.finish(&name, args, &ret);
        Ok((text, ret, fc.calls))
    }

    /// The whole C function, once the body is written.
    fn finish(&mut self, name: &str, args: &[Ty], ret: &Ty) -> String {
        let dialect = self.c.dialect;
        let mut params = Vec::new();
        let mut prologue = String::new();
        for (k, (p, t)) in self.f.params.iter().zip(args).enumerate() {
            let pn = format!("p_{}", c_ident(p));
            let vn = var_name(p);
            match (t, self.kernel) {
                (Ty::Array(a), true) => {
                    let elem = storage_type(a.dtype, dialect);
                    let q = self.c.qualifier(Space::Global);
                    params.push(format!("{q}{elem}* {pn}"));
                    let t = dialect.table();
                    if t.buffer_offsets {
                        params.push(format!("{} {pn}_o", t.int64));
                        let _ = writeln!(
                            prologue,
                            "  {vn}.data = ({q}{elem}*)((({}char*){pn}) + {pn}_o);",
                            t.global
                        );
                    } else {
                        // A coarsened launch checked that every array is 16-byte aligned:
                        // neighbours' elements may then move as vectors.
                        let data = match self.c.coarse {
                            Some(plan) if plan.aligned => {
                                format!("({elem}*)__builtin_assume_aligned({pn}, 16)")
                            }
                            _ => format!("({elem}*){pn}"),
                        };
                        if self.read_only.get(k) == Some(&true) {
                            // Read-only: loads may use the non-coherent cache.
                            params.pop();
                            params.push(format!("const {elem}* __restrict__ {pn}"));
                        }
                        let _ = writeln!(prologue, "  {vn}.data = {data};");
                    }
                    if a.ndim > 0 {
                        params.push(format!("ember_dims{} {pn}_d", a.ndim));
                        let _ = writeln!(prologue, "  {vn}.d = {pn}_d;");
                    }
                }
                _ => {
                    let ct = self.c.c_type(t);
                    params.push(format!("{ct} {pn}"));
                    let _ = writeln!(prologue, "  {vn} = {pn};");
                }
            }
        }
        let t = dialect.table();
        if self.kernel && t.dynamic_shared_param && self.c.helpers.contains(&Helper::DynamicShared)
        {
            // 16-byte aligned, as CUDA's declaration is: NVIDIA's OpenCL places a `uchar*`
            // argument at any byte, and wider stores through it fault.
            params.push(format!("{}ulong2* ember_dynamic_shared", t.shared_pointer));
            params.push(format!("{} ember_dynamic_shared_bytes", t.int64));
        }
        let mut decls = String::new();
        let vars: Vec<(String, Ty)> = self
            .vars
            .iter()
            .map(|v| (v.name.clone(), v.ty.clone()))
            .collect();
        for (n, t) in &vars {
            let ct = self.c.c_type(t);
            let init = if matches!(t, Ty::Scalar(_)) {
                " = 0"
            } else {
                ""
            };
            let _ = writeln!(decls, "  {ct} {}{init};", var_name(n));
        }
        let head = if self.kernel {
            dialect.table().kernel_prefix.to_string()
        } else {
            format!("{} {}", dialect.table().device_fn, self.c.c_type(ret))
        };
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        format!(
            "{head} {name}({params}) {{\n{}{decls}{prologue}{}}}\n",
            self.arrays, self.out
        )
    }

    pub(crate) fn is_kernel(&self) -> bool {
        self.kernel
    }

    // ---- variables ----

    fn var(&self, name: &str) -> Option<&Var> {
        self.vars.iter().find(|v| v.name == name)
    }

    /// Reads local variable `name`.
    pub(crate) fn load_var(&self, name: &str, span: Span) -> R<Val> {
        match self.var(name) {
            Some(v) => Ok(Val::new(v.ty.clone(), var_name(name)).nonneg(v.nonneg)),
            None => Err(Fail::Pending(
                span,
                format!("variable '{name}' is used before it is assigned a value"),
            )),
        }
    }

    /// Records that `name` is assigned `val`, widening its type; returns the C assignment.
    fn assign_var(&mut self, name: &str, val: &Val, span: Span) -> R<String> {
        let vn = var_name(name);
        match self.vars.iter().position(|v| v.name == name) {
            None => {
                if matches!(val.ty, Ty::None) {
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
                Ok(format!("{vn} = {};", val.code))
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
                let code = self.convert(val, &new, span)?;
                Ok(format!("{vn} = {code};"))
            }
        }
    }

    // ---- statements ----

    fn block(&mut self, body: &[Stmt]) -> R<()> {
        for s in body {
            match self.stmt(s) {
                Err(Fail::Pending(..)) if !self.emit => {}
                other => other?,
            }
        }
        Ok(())
    }

    pub(crate) fn line(&mut self, text: &str) {
        if self.emit {
            for _ in 0..self.depth {
                self.out.push_str("  ");
            }
            self.out.push_str(text);
            self.out.push('\n');
        }
    }

    /// Where the output ends now: `take_lines(mark)` takes back what is written after it.
    pub(crate) fn lines_mark(&self) -> usize {
        self.out.len()
    }

    /// The lines written since `mark`, taken out of the output (to be put where Python
    /// evaluates what they compute, with `put_lines`).
    pub(crate) fn take_lines(&mut self, mark: usize) -> String {
        self.out.split_off(mark)
    }

    /// Writes lines taken by `take_lines` back, `deeper` blocks further in than they were.
    pub(crate) fn put_lines(&mut self, lines: &str, deeper: usize) {
        if self.emit {
            for l in lines.lines() {
                self.out.push_str(&"  ".repeat(deeper));
                self.out.push_str(l);
                self.out.push('\n');
            }
        }
    }

    /// Lines written from now on go one block further in.
    pub(crate) fn depth_in(&mut self) {
        self.depth += 1;
    }

    /// Back out of the block `depth_in` entered.
    pub(crate) fn depth_out(&mut self) {
        self.depth -= 1;
    }

    pub(crate) fn fresh(&mut self, prefix: &str) -> String {
        self.tmp += 1;
        format!("{prefix}{}", self.tmp)
    }

    fn mark_line(&mut self, span: Span) {
        if self.emit && span.line != self.last_line && span.line > 0 {
            self.last_line = span.line;
            let file = self.f.file.replace('\\', "\\\\").replace('"', "\\\"");
            let _ = writeln!(self.out, "#line {} \"{file}\"", span.line);
        }
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        self.mark_line(s.span);
        match &s.kind {
            StmtKind::Pass => Ok(()),
            StmtKind::Expr { value } => {
                let v = self.expr(value)?;
                if !v.code.is_empty() {
                    self.line(&format!("(void)({});", v.code));
                }
                Ok(())
            }
            StmtKind::Assign { targets, value } => {
                let v = self.expr(value)?;
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
                let t = self.truth(test)?;
                self.line(&format!("if ({}) {{", t));
                self.nested(body)?;
                if !orelse.is_empty() {
                    self.line("} else {");
                    self.nested(orelse)?;
                }
                self.line("}");
                Ok(())
            }
            StmtKind::While { test, body, orelse } => {
                let broke = self.loop_flag(orelse);
                // Python evaluates the test before every iteration: what it needs written
                // ahead of it (temporaries, views) goes inside the loop, not before it.
                let mark = self.lines_mark();
                let t = self.truth(test)?;
                let setup = self.take_lines(mark);
                if setup.is_empty() {
                    self.line(&format!("while ({t}) {{"));
                } else {
                    self.line("while (1) {");
                    self.put_lines(&setup, 1);
                    self.depth += 1;
                    self.line(&format!("if (!({t})) break;"));
                    self.depth -= 1;
                }
                self.loop_body(body, broke.clone())?;
                self.line("}");
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
                Some(Loop { broke: Some(flag) }) => {
                    let flag = flag.clone();
                    self.line(&format!("{flag} = 1;"));
                    self.line("break;");
                    Ok(())
                }
                Some(_) => {
                    self.line("break;");
                    Ok(())
                }
            },
            StmtKind::Continue => {
                if self.loops.is_empty() {
                    return at(s.span, "'continue' outside a loop");
                }
                self.line("continue;");
                Ok(())
            }
            StmtKind::Return { value } => self.ret(value.as_ref(), s.span),
            StmtKind::Unsupported { what } => {
                at(s.span, format!("{what} is not supported in kernels"))
            }
        }
    }

    fn nested(&mut self, body: &[Stmt]) -> R<()> {
        self.depth += 1;
        let r = self.block(body);
        self.depth -= 1;
        r
    }

    fn loop_flag(&mut self, orelse: &[Stmt]) -> Option<String> {
        if orelse.is_empty() {
            return None;
        }
        let flag = self.fresh("broke");
        self.line(&format!("int {flag} = 0;"));
        Some(flag)
    }

    fn loop_body(&mut self, body: &[Stmt], broke: Option<String>) -> R<()> {
        self.loops.push(Loop { broke });
        let r = self.nested(body);
        self.loops.pop();
        r
    }

    fn loop_else(&mut self, broke: Option<String>, orelse: &[Stmt]) -> R<()> {
        if let Some(flag) = broke {
            self.line(&format!("if (!{flag}) {{"));
            self.nested(orelse)?;
            self.line("}");
        }
        Ok(())
    }

    fn ret(&mut self, value: Option<&Expr>, span: Span) -> R<()> {
        let v = match value {
            None => None,
            Some(e) => {
                let v = self.expr(e)?;
                if v.ty == Ty::None {
                    None
                } else {
                    Some(v)
                }
            }
        };
        let ty = v.as_ref().map(|v| v.ty.clone()).unwrap_or(Ty::None);
        let merged = match &self.ret {
            None => ty.clone(),
            Some(old) if *old == ty => ty.clone(),
            Some(Ty::None) | Some(_) if ty == Ty::None => {
                return at(span, "this function returns a value on some paths and nothing on others; return a value on every path")
            }
            Some(Ty::None) => {
                return at(span, "this function returns a value on some paths and nothing on others; return a value on every path")
            }
            Some(old) => unify(old, &ty).ok_or_else(|| {
                Fail::At(span, format!("the function returns both {old} and {ty}; return one type"))
            })?,
        };
        if self.ret.as_ref() != Some(&merged) {
            self.ret = Some(merged.clone());
            self.changed = true;
        }
        match v {
            None => self.line("return;"),
            Some(v) => {
                let code = self.convert(&v, &merged, span)?;
                self.line(&format!("return {code};"));
            }
        }
        Ok(())
    }

    /// Evaluates `v` once into a temporary (for tuple unpacking and chained assignment).
    pub(crate) fn temp(&mut self, v: &Val) -> R<Val> {
        if is_simple(&v.code) {
            return Ok(v.clone());
        }
        let name = self.fresh("t");
        let ct = self.c.c_type(&v.ty);
        self.line(&format!("{ct} {name} = {};", v.code));
        let mut t = Val::new(v.ty.clone(), name).nonneg(v.nonneg);
        t.items_nonneg = v.items_nonneg.clone();
        Ok(t)
    }

    /// `target = v`.
    fn assign(&mut self, target: &Expr, v: Val) -> R<()> {
        match &target.kind {
            ExprKind::Name { id } => {
                let code = self.assign_var(id, &v, target.span)?;
                self.line(&code);
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
                    self.assign(e, Val::new(ty, format!("{}.f{i}", t.code)).nonneg(nonneg))?;
                }
                Ok(())
            }
            ExprKind::Attribute { attr, .. } => at(
                target.span,
                format!("cannot assign to attribute '{attr}' in a kernel"),
            ),
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
                let v = self.binop(op, cur, rhs, span)?;
                let code = self.assign_var(id, &v, target.span)?;
                self.line(&code);
                Ok(())
            }
            ExprKind::Subscript { value: base, index } => {
                let arr = self.expr(base)?;
                let Ty::Array(a) = &arr.ty else {
                    return at(
                        target.span,
                        format!("cannot assign into a value of type {}", arr.ty),
                    );
                };
                let a = a.clone();
                let ptr = self.element_pointer(&arr, &a, index, target.span)?;
                let p = self.fresh("p");
                let q = self.c.qualifier(a.space);
                let elem = storage_type(a.dtype, self.c.dialect);
                self.line(&format!("{{ {q}{elem}* {p} = {ptr};"));
                let cur = Val::new(Ty::Scalar(a.dtype), self.load_elem(a.dtype, a.space, &p));
                let v = self.binop(op, cur, rhs, span)?;
                let v = self.convert(&v, &Ty::Scalar(a.dtype), span)?;
                let st = self.store_elem(a.dtype, a.space, &p, &v);
                self.line(&format!("  {st} }}"));
                Ok(())
            }
            _ => at(target.span, "cannot assign to this expression"),
        }
    }

    /// `base[index] = v`.
    fn store(&mut self, base: &Expr, index: &Expr, v: Val, span: Span) -> R<()> {
        let arr = self.expr(base)?;
        let a = match &arr.ty {
            Ty::Array(a) => a.clone(),
            Ty::Tuple(_) => return at(span, "tuples cannot be changed; build a new tuple"),
            t => return at(span, format!("cannot assign into a value of type {t}")),
        };
        if a.space == Space::Const {
            return at(span, "constant arrays are read-only");
        }
        let ptr = self.element_pointer(&arr, &a, index, span)?;
        let code = match &v.ty {
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
        let st = self.store_elem(a.dtype, a.space, &format!("({ptr})"), &code);
        self.line(&st);
        Ok(())
    }

    /// The loop `for target in iter`: over `range(...)` (any step sign), a 1-D array, or a
    /// tuple of one type.
    fn for_loop(
        &mut self,
        target: &Expr,
        iter: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
        span: Span,
    ) -> R<()> {
        let range_args = match &iter.kind {
            ExprKind::Call { func, args, .. } if matches!(&func.kind, ExprKind::Intrinsic { name } if name == "builtin.range") => {
                Some(args)
            }
            _ => None,
        };
        let broke = self.loop_flag(orelse);
        self.line("{");
        self.depth += 1;
        match range_args {
            Some(args) => self.range_loop(target, args, body, broke.clone(), span)?,
            None => self.sequence_loop(target, iter, body, broke.clone())?,
        }
        self.depth -= 1;
        self.line("}");
        self.loop_else(broke, orelse)
    }

    fn range_loop(
        &mut self,
        target: &Expr,
        args: &[Expr],
        body: &[Stmt],
        broke: Option<String>,
        span: Span,
    ) -> R<()> {
        if args.is_empty() || args.len() > 3 {
            return at(
                span,
                format!("range expected 1 to 3 arguments, got {}", args.len()),
            );
        }
        let mut vals = Vec::new();
        for a in args {
            let v = self.expr(a)?;
            if !v.ty.is_integral() {
                return at(a.span, format!("range() takes integers, got {}", v.ty));
            }
            vals.push(v);
        }
        let ty = Ty::Scalar(range_type(vals.iter().filter_map(|v| v.ty.scalar())));
        let literal_step = args.get(2).and_then(crate::expr::int_literal);
        if literal_step == Some(0) {
            return at(args[2].span, "range() arg 3 must not be zero");
        }
        let (start, stop, step) = match vals.len() {
            1 => (
                Val::new(ty.clone(), "0").nonneg(true),
                vals[0].clone(),
                None,
            ),
            2 => (vals[0].clone(), vals[1].clone(), None),
            _ => (vals[0].clone(), vals[1].clone(), Some(vals[2].clone())),
        };
        let ct = self.c.c_type(&ty);
        let (i, n, s) = (self.fresh("i"), self.fresh("n"), self.fresh("s"));
        let start_c = self.convert(&start, &ty, span)?;
        let stop_c = self.convert(&stop, &ty, span)?;
        self.line(&format!("const {ct} {n} = {stop_c};"));
        let (cond, incr) = match (&step, literal_step) {
            (None, _) => (format!("{i} < {n}"), format!("++{i}")),
            (Some(_), Some(k)) if k > 0 => (format!("{i} < {n}"), format!("{i} += {k}")),
            (Some(_), Some(k)) => (format!("{i} > {n}"), format!("{i} -= {}", -(k as i128))),
            (Some(sv), None) => {
                let sc = self.convert(sv, &ty, span)?;
                self.line(&format!("const {ct} {s} = {sc};"));
                (
                    format!("({s} > 0 ? {i} < {n} : ({s} < 0 && {i} > {n}))"),
                    format!("{i} += {s}"),
                )
            }
        };
        let forward = step.is_none() || literal_step.is_some_and(|k| k > 0);
        let index = Val::new(ty.clone(), i.clone()).nonneg(start.nonneg && forward);
        self.line(&format!("for ({ct} {i} = {start_c}; {cond}; {incr}) {{"));
        self.depth += 1;
        self.assign(target, index)?;
        self.depth -= 1;
        self.loop_body(body, broke)?;
        self.line("}");
        Ok(())
    }

    fn sequence_loop(
        &mut self,
        target: &Expr,
        iter: &Expr,
        body: &[Stmt],
        broke: Option<String>,
    ) -> R<()> {
        let seq = self.expr(iter)?;
        let seq = self.temp(&seq)?;
        let i = self.fresh("i");
        let i64t = self.c.c_type(&crate::types::INT64);
        let (len, item) = match &seq.ty {
            Ty::Array(a) if a.ndim == 1 => {
                let a = a.clone();
                let idx = Val::new(crate::types::INT64, i.clone()).nonneg(true);
                let len = self.dim(&seq, &a, 0);
                let item = self.element(&seq, &a, &[idx], iter.span)?;
                (len, item)
            }
            Ty::Tuple(items) if !items.is_empty() && items.iter().all(|t| *t == items[0]) => {
                let n = items.len();
                let get = self.tuple_getter(&seq.ty);
                (
                    n.to_string(),
                    Val::new(items[0].clone(), format!("{get}({}, {i})", seq.code)),
                )
            }
            Ty::Tuple(_) => {
                return at(
                    iter.span,
                    "a loop over a tuple needs all its items of one type",
                )
            }
            t => {
                return at(
                    iter.span,
                    format!(
                    "for loops in kernels iterate over range(...), a 1-D array or a tuple, not {t}"
                ),
                )
            }
        };
        self.line(&format!("for ({i64t} {i} = 0; {i} < {len}; ++{i}) {{"));
        self.depth += 1;
        self.assign(target, item)?;
        self.depth -= 1;
        self.loop_body(body, broke)?;
        self.line("}");
        Ok(())
    }

    /// The C name of the helper reading item `i` of a tuple of one type.
    pub(crate) fn tuple_getter(&mut self, ty: &Ty) -> String {
        let Ty::Tuple(items) = ty else {
            return String::new();
        };
        let st = self.c.c_type(ty);
        let et = self.c.c_type(&items[0]);
        let name = format!("{st}_get");
        let dev = self.c.dialect.table().device_fn;
        let mut body = String::new();
        for k in 0..items.len() {
            let _ = write!(body, "if (i == {k}) return t.f{k}; ");
        }
        let i64t = self.c.c_type(&crate::types::INT64);
        self.c.extra(format!(
            "{dev} {et} {name}({st} t, {i64t} i) {{ {body}return t.f0; }}\n"
        ));
        name
    }

    /// Truth value of a condition, as a C expression.
    pub(crate) fn truth(&mut self, e: &Expr) -> R<String> {
        let v = self.expr(e)?;
        self.truth_of(&v, e.span)
    }

    pub(crate) fn truth_of(&mut self, v: &Val, span: Span) -> R<String> {
        Ok(match &v.ty {
            Ty::Scalar(DType::Bool) => v.code.clone(),
            Ty::Scalar(d) if d.kind() == ember_core::dtype::Kind::Complex => {
                format!("(({0}).x != 0 || ({0}).y != 0)", v.code)
            }
            Ty::Scalar(_) => format!("({} != 0)", v.code),
            Ty::Tuple(items) => if items.is_empty() { "0" } else { "1" }.into(),
            t => {
                return at(
                    span,
                    format!(
                        "the truth value of {t} is ambiguous in a kernel{}",
                        snippet(self.f, span)
                            .map(|s| format!(" ('{s}')"))
                            .unwrap_or_default()
                    ),
                )
            }
        })
    }
}

/// Whether running `body` can reach its end rather than always returning.
fn falls_through(body: &[Stmt]) -> bool {
    body.iter().all(|s| match &s.kind {
        StmtKind::Return { .. } => false,
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

/// The C name of Python variable `name`.
pub(crate) fn var_name(name: &str) -> String {
    format!("v_{}", c_ident(name))
}

/// Whether `code` is a plain name or number: evaluating it again costs nothing and does nothing.
pub(crate) fn is_simple(code: &str) -> bool {
    code.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Numba's `range` loop variable: int32 when every argument fits int32 and is signed,
/// uint64 when one is unsigned (and none is int64), else int64.
fn range_type(args: impl Iterator<Item = DType>) -> DType {
    use ember_core::dtype::Kind;
    let (mut small, mut unsigned, mut wide_signed) = (true, false, false);
    for d in args {
        match d.kind() {
            Kind::UInt => unsigned = true,
            Kind::Int if d.itemsize() == 8 => {
                wide_signed = true;
                small = false
            }
            _ => {}
        }
        if d.kind() == Kind::UInt {
            small = false;
        }
    }
    if unsigned && !wide_signed {
        DType::U64
    } else if small {
        DType::I32
    } else {
        DType::I64
    }
}
