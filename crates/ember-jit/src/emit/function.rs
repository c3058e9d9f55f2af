//! Functions and statements: the head and parameters of a C function (a kernel's arrays
//! unpacked from their buffers), its variables, then its body, one statement per line.

use std::fmt::Write;

use super::{c_ident, Emitter};
use crate::compiler::{Access, Raised};
use crate::ir::{Expr, IrFunction, Role, Step, Stmt, Temp};
use crate::types::{ArrayTy, Space, Ty};

/// Writes one function's C.
pub(crate) struct FnWriter<'e, 'a> {
    pub(crate) e: &'e Emitter<'a>,
    pub(crate) f: &'e IrFunction,
    out: String,
    depth: usize,
    /// Inside [`Stmt::Update`]: the pointer to the element being updated, its type.
    pub(crate) current: Option<(String, ember_core::DType, Space, bool)>,
    /// The Python line being written (checked mode's sites name it).
    pub(crate) lineno: u32,
    /// Checked mode: the flags `ember_bad{k}` the function declares, one per access of
    /// global memory (set when an index fails, so that the access is redirected).
    pub(crate) flags: usize,
}

/// The C name of Python variable `name`.
pub(crate) fn var_name(name: &str) -> String {
    format!("v_{}", c_ident(name))
}

/// The C name of a temporary.
/// The scalars of tuple type `t`, depth first, with their field paths (`.f1.f0`).
fn tuple_paths<'t>(t: &'t Ty, path: String, out: &mut Vec<(String, &'t Ty)>) {
    match t {
        Ty::Tuple(items) => {
            for (k, item) in items.iter().enumerate() {
                tuple_paths(item, format!("{path}.f{k}"), out);
            }
        }
        other => out.push((path, other)),
    }
}

pub(crate) fn temp_name(t: Temp) -> String {
    format!("{}{}", t.role.prefix(), t.n)
}

impl Emitter<'_> {
    /// The parameters of a kernel's array argument `pn` (its data, OpenCL's offset, its shape
    /// and strides) and the prologue lines making the array value `target` of them.
    fn array_param(
        &self,
        a: &ArrayTy,
        pn: &str,
        target: &str,
        read_only: bool,
        params: &mut Vec<String>,
        prologue: &mut String,
    ) {
        let t = self.dialect.table();
        let elem = self.elem_type(a.dtype);
        let q = self.qualifier(Space::Global);
        params.push(format!("{q}{elem}* {pn}"));
        if t.buffer_offsets {
            params.push(format!("{} {pn}_o", t.int64));
            let _ = writeln!(
                prologue,
                "  {target}.data = ({q}{elem}*)((({}char*){pn}) + {pn}_o);",
                t.global
            );
        } else {
            // A coarsened launch checked that every array is 16-byte aligned: neighbours'
            // elements may then move as vectors.
            let data = match self.ir.coarse {
                Some(plan) if plan.aligned => {
                    format!("({elem}*)__builtin_assume_aligned({pn}, 16)")
                }
                _ => format!("({elem}*){pn}"),
            };
            if read_only {
                // Read-only: loads may use the non-coherent cache.
                params.pop();
                params.push(format!("const {elem}* __restrict__ {pn}"));
            }
            let _ = writeln!(prologue, "  {target}.data = {data};");
        }
        if a.ndim > 0 {
            params.push(format!("ember_dims{} {pn}_d", a.ndim));
            let _ = writeln!(prologue, "  {target}.d = {pn}_d;");
        }
    }

    /// The whole C function.
    pub(crate) fn function(&self, f: &IrFunction) -> String {
        let mut w = FnWriter {
            e: self,
            f,
            out: String::new(),
            depth: 1,
            current: None,
            lineno: 0,
            flags: 0,
        };
        w.block(&f.body);
        let body = w.out;
        let kernel = f.role == Role::Kernel;
        let dialect = self.dialect;
        let t = dialect.table();
        let mut params = Vec::new();
        let mut prologue = String::new();
        for p in &f.params {
            let local = &f.locals[p.local.0];
            let pn = format!("p_{}", c_ident(&local.name));
            let vn = var_name(&local.name);
            // The parameter has the argument's type; the variable may be wider (C converts).
            match (&p.ty, kernel) {
                (Ty::Array(a), true) => {
                    self.array_param(a, &pn, &vn, p.read_only, &mut params, &mut prologue);
                }
                (Ty::Record(_), true) => {
                    // A device copy of the record (as Numba passes one): its bytes' address.
                    let q = self.qualifier(Space::Global);
                    params.push(format!("{q}unsigned char* {pn}"));
                    if t.buffer_offsets {
                        params.push(format!("{} {pn}_o", t.int64));
                        let _ = writeln!(prologue, "  {vn} = {pn} + {pn}_o;");
                    } else {
                        let _ = writeln!(prologue, "  {vn} = {pn};");
                    }
                }
                (Ty::Tuple(_), true) => {
                    // Passed item by item (ParamSlot::Item, ItemArray): no struct layout to
                    // agree on.
                    let mut leaves = Vec::new();
                    tuple_paths(&p.ty, String::new(), &mut leaves);
                    for (k, (path, t)) in leaves.into_iter().enumerate() {
                        let (item, target) = (format!("{pn}_{k}"), format!("{vn}{path}"));
                        match t {
                            Ty::Array(a) => self.array_param(
                                a,
                                &item,
                                &target,
                                false,
                                &mut params,
                                &mut prologue,
                            ),
                            t => {
                                params.push(format!("{} {item}", self.c_type(t)));
                                let _ = writeln!(prologue, "  {target} = {item};");
                            }
                        }
                    }
                }
                (ty, _) => {
                    params.push(format!("{} {pn}", self.c_type(ty)));
                    let _ = writeln!(prologue, "  {vn} = {pn};");
                }
            }
        }
        if !kernel {
            let (extra, names) = self.hoisted_params(f);
            params.extend(extra);
            prologue.push_str(&names);
        }
        if kernel && self.dynamic_shared_param() {
            params.push(t.dynamic_shared_parameter());
            params.push(format!("{} ember_dynamic_shared_bytes", t.int64));
        }
        if self.checked.is_some() {
            match kernel {
                true => params.extend(ember_codegen::checked::record_kernel_params(dialect)),
                false => params.push(ember_codegen::checked::record_param(dialect)),
            }
        }
        let mut decls = String::new();
        for k in 0..w.flags {
            let _ = writeln!(decls, "  int ember_bad{k} = 0;");
        }
        for v in &f.locals {
            let init = if matches!(v.ty, Ty::Scalar(_)) {
                " = 0"
            } else {
                ""
            };
            let _ = writeln!(
                decls,
                "  {} {}{init};",
                self.c_type(&v.ty),
                var_name(&v.name)
            );
        }
        let mut arrays = String::new();
        if kernel {
            arrays.push_str(&self.hoisted_decls(f));
        }
        for a in &f.arrays {
            if self.is_hoisted(f, a) {
                continue;
            }
            arrays.push_str(&self.storage_decl(a, &temp_name(a.storage)));
        }
        let head = if kernel {
            t.kernel_prefix.to_string()
        } else {
            format!("{} {}", t.device_fn, self.c_type(&f.ret))
        };
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        format!(
            "{head} {}({params}) {{\n{arrays}{decls}{prologue}{body}}}\n",
            self.function_name(f)
        )
    }
}

impl FnWriter<'_, '_> {
    fn line(&mut self, text: &str) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn nested(&mut self, body: &[Stmt]) {
        self.depth += 1;
        self.block(body);
        self.depth -= 1;
    }

    fn block(&mut self, body: &[Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    /// The C type of `ty`.
    pub(crate) fn c_type(&self, ty: &Ty) -> String {
        self.e.c_type(ty)
    }

    /// The statement that raises `raised`: checked mode records it for the launch; then the
    /// thread's kernel ends, or a device function gives zero (its caller goes on: the
    /// exception is already recorded).
    fn raising(&mut self, raised: Raised) -> String {
        let record = match self.raise_site(raised) {
            Some(site) => format!(
                "ember_fault({}, {site}u, 0, 0); ",
                ember_codegen::checked::RECORD
            ),
            None => String::new(),
        };
        match &self.f.ret {
            Ty::None => format!("{{ {record}return; }}"),
            t => {
                let t = self.c_type(t);
                format!("{{ {record}{t} ember_zero = {{0}}; return ember_zero; }}")
            }
        }
    }

    /// Checked mode runs Numba's debug error model: a division by zero raises
    /// ZeroDivisionError, a tuple index out of range IndexError, before the statement runs
    /// (the divisor or index, free of calls and side effects, is tested first). Those under
    /// `x if c else y`, `and`/`or` may not run: left.
    fn zero_division_guards(&mut self, s: &Stmt) {
        if self.e.checked.is_none()
            || !matches!(
                s,
                Stmt::Assign { .. }
                    | Stmt::Let { .. }
                    | Stmt::Set { .. }
                    | Stmt::Store { .. }
                    | Stmt::Update { .. }
                    | Stmt::Eval(_)
                    | Stmt::Return(Some(_))
            )
        {
            return;
        }
        let mut guards = Vec::new();
        for e in s.exprs() {
            always_guarded(e, self.e.program.fastmath, &mut guards);
        }
        for g in guards {
            let (test, raised) = match g {
                Guard::Divisor(d) => (
                    format!("({}) == 0", self.expr(d)),
                    Raised::Builtin("ZeroDivisionError", "division by zero"),
                ),
                Guard::TupleIndex(i, n) => {
                    let i = self.expr(i);
                    (
                        format!("({i}) < -{n} || ({i}) >= {n}"),
                        Raised::Builtin("IndexError", "tuple index out of range"),
                    )
                }
            };
            let raised = self.raising(raised);
            self.line(&format!("if ({test}) {raised}"));
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        self.zero_division_guards(s);
        match s {
            Stmt::Line(n) => {
                self.lineno = *n;
                let file = self.f.file.replace('\\', "\\\\").replace('"', "\\\"");
                let _ = writeln!(self.out, "#line {n} \"{file}\"");
            }
            Stmt::Assign { local, value } => {
                let vn = var_name(&self.f.locals[local.0].name);
                let code = self.expr(value);
                self.line(&format!("{vn} = {code};"));
            }
            Stmt::Let {
                temp,
                value,
                constant,
            } => {
                let ct = self.c_type(&value.ty);
                let code = self.expr(value);
                let c = if *constant { "const " } else { "" };
                self.line(&format!("{c}{ct} {} = {code};", temp_name(*temp)));
            }
            Stmt::Declare { temp, ty } => {
                let ct = self.c_type(ty);
                self.line(&format!("{ct} {};", temp_name(*temp)));
            }
            Stmt::Set { temp, value } => {
                let code = self.expr(value);
                self.line(&format!("{} = {code};", temp_name(*temp)));
            }
            Stmt::Store { place, value } => {
                let ptr = self.pointer(place, Access::Write);
                let hinted = self.hinted_store(place, &ptr, value);
                let st = match hinted.or_else(|| self.half_store(place, &ptr, value)) {
                    Some(st) => st,
                    None => {
                        let code = self.expr(value);
                        self.store_elem(place, &format!("({ptr})"), &code)
                    }
                };
                self.line(&st);
            }
            Stmt::Update {
                pointer,
                place,
                value,
            } => {
                let ptr = self.pointer(place, Access::Write);
                let p = temp_name(*pointer);
                let q = self.e.qualifier(place.ty.space);
                let elem = self.e.elem_type(place.ty.dtype);
                self.line(&format!("{{ {q}{elem}* {p} = {ptr};"));
                let outer = self.current.replace((
                    p.clone(),
                    place.ty.dtype,
                    place.ty.space,
                    place.ty.unaligned,
                ));
                let code = self.expr(value);
                self.current = outer;
                let st = self.store_elem(place, &p, &code);
                self.line(&format!("  {st} }}"));
            }
            Stmt::Eval(e) => {
                let code = self.expr(e);
                if !code.is_empty() {
                    self.line(&format!("(void)({code});"));
                }
            }
            Stmt::If {
                cond,
                negate,
                then,
                orelse,
            } => {
                let t = self.truth(cond);
                if *negate {
                    self.line(&format!("if (!({t})) {{"));
                } else {
                    self.line(&format!("if ({t}) {{"));
                }
                self.nested(then);
                if !orelse.is_empty() {
                    self.line("} else {");
                    self.nested(orelse);
                }
                self.line("}");
            }
            Stmt::While { setup, cond, body } => {
                let t = self.truth(cond);
                if setup.is_empty() {
                    self.line(&format!("while ({t}) {{"));
                } else {
                    self.line("while (1) {");
                    self.nested(setup);
                    self.depth += 1;
                    self.line(&format!("if (!({t})) break;"));
                    self.depth -= 1;
                }
                self.nested(body);
                self.line("}");
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
                let ct = self.c_type(&Ty::Scalar(*ty));
                let i = temp_name(*index);
                let (start, n) = (self.expr(start), self.expr(stop));
                let (cond, incr) = match step {
                    Step::One => (format!("{i} < {n}"), format!("++{i}")),
                    Step::Const(k) if *k > 0 => (format!("{i} < {n}"), format!("{i} += {k}")),
                    Step::Const(k) => (format!("{i} > {n}"), format!("{i} -= {}", -(*k as i128))),
                    Step::Var(s) => {
                        let s = temp_name(*s);
                        (
                            format!("({s} > 0 ? {i} < {n} : ({s} < 0 && {i} > {n}))"),
                            format!("{i} += {s}"),
                        )
                    }
                };
                self.line(&format!("for ({ct} {i} = {start}; {cond}; {incr}) {{"));
                self.nested(body);
                self.line("}");
            }
            Stmt::Block(body) => {
                self.line("{");
                self.nested(body);
                self.line("}");
            }
            Stmt::LoopFlag(flag) => self.line(&format!("int {} = 0;", temp_name(*flag))),
            Stmt::Unbroken { flag, body } => {
                self.line(&format!("if (!{}) {{", temp_name(*flag)));
                self.nested(body);
                self.line("}");
            }
            Stmt::Break { flag } => {
                if let Some(flag) = flag {
                    self.line(&format!("{} = 1;", temp_name(*flag)));
                }
                self.line("break;");
            }
            Stmt::Continue => self.line("continue;"),
            Stmt::Return(None) => self.line("return;"),
            Stmt::Raise(exception) => {
                let raised = self.raising(Raised::Statement(*exception));
                self.line(&raised);
            }
            // Typing makes these only for host functions, which this back end never sees.
            Stmt::Require { .. } => {
                unreachable!("a host function's check reached the kernel back end")
            }
            Stmt::Return(Some(v)) => {
                let code = self.expr(v);
                self.line(&format!("return {code};"));
            }
            Stmt::View {
                temp,
                ty,
                base,
                axes,
            } => {
                let lines = self.view(temp_name(*temp), ty, base, axes);
                for l in lines {
                    self.line(&l);
                }
            }
            Stmt::FieldView {
                temp,
                ty,
                base,
                offset,
                nested,
            } => {
                let lines = self.field_view(temp_name(*temp), ty, base, *offset, nested);
                for l in lines {
                    self.line(&l);
                }
            }
            Stmt::Transpose { temp, ty, base } => {
                let lines = self.transpose(temp_name(*temp), ty, base);
                for l in lines {
                    self.line(&l);
                }
            }
            Stmt::Reinterpret {
                temp,
                ty,
                base,
                skip,
                rescale,
            } => {
                let lines = self.reinterpret(temp_name(*temp), ty, base, *skip, *rescale);
                for l in lines {
                    self.line(&l);
                }
            }
            Stmt::DynamicShared { temp, ty, dtype } => {
                let l = self.dynamic_shared(temp_name(*temp), ty, *dtype);
                self.line(&l);
            }
        }
    }

    /// The truth value of `v` as a C condition.
    pub(crate) fn truth(&mut self, v: &Expr) -> String {
        match &v.ty {
            Ty::Tuple(items) => if items.is_empty() { "0" } else { "1" }.into(),
            Ty::Scalar(ember_core::DType::Bool) => self.expr(v),
            Ty::Scalar(d) if d.kind() == ember_core::dtype::Kind::Complex => {
                format!("(({0}).x != 0 || ({0}).y != 0)", self.expr(v))
            }
            _ => format!("({} != 0)", self.expr(v)),
        }
    }
}

/// A test checked mode makes before a statement.
enum Guard<'a> {
    /// A divisor that must not be 0.
    Divisor(&'a Expr),
    /// A run-time index (before Python's wrap) of a tuple of that many items.
    TupleIndex(&'a Expr, usize),
}

/// The divisors of `/`, `//` and `%` and the run-time tuple indices that evaluating `e`
/// always computes, free of side effects (re-evaluating them for a test changes nothing);
/// float divisors not under `fastmath` (Numba's fast-math division raises nothing).
fn always_guarded<'a>(e: &'a Expr, fastmath: bool, out: &mut Vec<Guard<'a>>) {
    use crate::ir::{BinOp, ExprKind as K};
    match &e.kind {
        K::Binary(BinOp::Div | BinOp::FloorDiv | BinOp::Mod, l, r) => {
            always_guarded(l, fastmath, out);
            always_guarded(r, fastmath, out);
            let kind = r.ty.scalar().map(|d| d.kind());
            let complex = kind == Some(ember_core::dtype::Kind::Complex);
            let float = kind == Some(ember_core::dtype::Kind::Float);
            if pure(r) && !complex && !(float && fastmath) {
                out.push(Guard::Divisor(r));
            }
        }
        K::ItemAt(t, i) => {
            always_guarded(t, fastmath, out);
            always_guarded(i, fastmath, out);
            let raw = match &i.kind {
                K::Wrap { index, .. } => index,
                _ => i,
            };
            if let (Ty::Tuple(items), true) = (&t.ty, pure(raw)) {
                out.push(Guard::TupleIndex(raw, items.len()));
            }
        }
        // Only the condition of a choice, the first operand of and/or, always runs.
        K::Select(c, _, _) => always_guarded(c, fastmath, out),
        K::Logic(_, items) => {
            if let Some(first) = items.first() {
                always_guarded(first, fastmath, out);
            }
        }
        _ => {
            for c in e.children() {
                always_guarded(c, fastmath, out);
            }
        }
    }
}

/// Whether evaluating `e` again has no effect and gives the same value.
fn pure(e: &Expr) -> bool {
    use crate::ir::ExprKind as K;
    !matches!(
        e.kind,
        K::Call(..)
            | K::Atomic { .. }
            | K::Cas { .. }
            | K::Random(..)
            | K::Intrinsic { .. }
            | K::External(..)
            | K::Sync(_)
    ) && e.children().into_iter().all(pure)
}
