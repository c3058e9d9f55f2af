//! One function at a time: its parameters with their address spaces, its statements, its
//! variables' scopes. `__shared__` arrays move to the kernel's outermost block (where OpenCL C
//! wants `__local` variables) and `extern __shared__` arrays become views of a last `__local`
//! parameter, the launch's dynamic shared memory.
//!
//! A body is walked twice: the first walk learns the memory of pointers declared without a
//! value (`float* p; ... p = x + i;`), the second emits them with it.

use std::collections::{HashMap, HashSet};

use crate::ast::{
    FnKind, Function, Pointee, Scalar, Space, Stmt, StmtKind as S, Storage, Type, VarDecl,
};
use crate::error::{Result, TranslateError};

use super::names;
use super::subst::resolve;
use super::Program;

/// The name of a kernel's dynamic shared memory parameter.
pub(crate) const DYNAMIC_SHARED: &str = "ember_dynamic_shared";

/// A function's OpenCL text.
pub(crate) struct Emitted {
    pub prototype: String,
    pub body: String,
    pub dynamic_shared: bool,
    /// For a child grid's thread function: the launcher's prototype and text.
    pub launcher: Option<(String, String)>,
}

/// The indices a child grid's thread function takes, in order (CUDA's names, `.x .y .z`).
pub(crate) const CHILD_INDICES: [&str; 4] = ["blockIdx", "threadIdx", "blockDim", "gridDim"];

/// A variable in scope.
#[derive(Clone, Debug)]
pub(crate) struct Var {
    pub ty: Type,
    pub code: String,
    /// Where the variable itself lives.
    pub space: Space,
    /// Declared as a reference (its code is a pointer).
    pub is_ref: bool,
    /// Which declaration (for the spaces learnt by the first walk).
    pub id: u32,
}

/// The state of emitting one function.
pub(crate) struct FnCx<'a, 'u> {
    pub prog: &'a mut Program<'u>,
    scopes: Vec<Vec<(String, Var)>>,
    pub subst: HashMap<String, Type>,
    kernel: bool,
    /// The CUDA name of the function being emitted.
    function: String,
    /// A child grid's thread: indices are parameters, and nothing may wait on other threads.
    pub child: bool,
    hoisted: Vec<String>,
    hoisted_names: HashSet<String>,
    pub dynamic_shared: bool,
    /// Spaces of pointer variables learnt from assignments, by declaration.
    pub hints: HashMap<u32, Space>,
    /// The first walk: learn spaces, emit nothing that lasts.
    pub learning: bool,
    next_id: u32,
    out: String,
    depth: usize,
    pub ret: Type,
    last_line: u32,
}

/// Emits instance `name` of `f`.
pub(crate) fn emit(
    prog: &mut Program<'_>,
    f: &Function,
    instance: &super::Instance,
    name: &str,
) -> Result<Emitted> {
    let (spaces, targs) = (&instance.spaces, &instance.targs);
    let subst: HashMap<String, Type> = f
        .template
        .iter()
        .cloned()
        .zip(targs.iter().cloned())
        .collect();
    let body = f.body.as_ref().ok_or_else(|| {
        TranslateError::new(
            f.line,
            format!("function {} is declared but never defined", f.name),
        )
    })?;
    let mut hints = HashMap::new();
    let mut result = None;
    for learning in [true, false] {
        let mut cx = FnCx::new(
            prog,
            subst.clone(),
            f.kind == FnKind::Kernel && !instance.child,
        );
        cx.child = instance.child;
        cx.function = f.name.clone();
        cx.learning = learning;
        cx.hints = hints.clone();
        cx.ret = resolve(&f.ret, &subst);
        if let Type::Pointer(r) = &mut cx.ret {
            r.space = super::calls::returned_space(f, spaces, f.line)?;
        }
        let (mut params, prologue) = cx.params(f, spaces)?;
        cx.reached_shared(f, &mut params)?;
        cx.depth = 1;
        for s in body {
            cx.statement(s)?;
        }
        cx.scopes.pop();
        if learning {
            hints = cx.hints;
            continue;
        }
        let ret = cx.prog.declare(&cx.ret, "");
        if cx.dynamic_shared {
            // As 16-byte vectors: NVIDIA aligns a local argument to its type (a byte pointer faults
            // when read as floats), and CUDA aligns dynamic shared memory to 16 bytes.
            params.push(format!("__local uint4* {DYNAMIC_SHARED}"));
        }
        let launcher = instance.child.then(|| launcher(name, &params));
        if instance.child {
            let indices = CHILD_INDICES
                .iter()
                .flat_map(|i| ["x", "y", "z"].map(|d| format!("uint ember_{i}_{d}")));
            params = indices.chain(params).collect();
        }
        let qualifier = if cx.kernel { "__kernel " } else { "" };
        let prototype = format!("{qualifier}{ret} {name}({})", params.join(", "));
        let mut text = format!("{prototype} {{\n");
        for h in &cx.hoisted {
            text.push_str(&format!("    {h}\n"));
        }
        text.push_str(&prologue);
        text.push_str(&cx.out);
        text.push_str("}\n");
        result = Some(Emitted {
            prototype,
            body: text,
            dynamic_shared: cx.dynamic_shared,
            launcher,
        });
    }
    result.ok_or_else(|| TranslateError::new(f.line, "internal: no second walk"))
}

/// The launcher of a child grid: every thread of every block, one after another, in the
/// launching thread (a grid that never waits on its other threads may run so).
fn launcher(thread: &str, params: &[String]) -> (String, String) {
    let names: Vec<&str> = params
        .iter()
        .map(|p| p.rsplit([' ', '*']).next().unwrap_or(""))
        .collect();
    let mut all = vec!["uint gx, uint gy, uint gz, uint bx, uint by, uint bz".to_string()];
    all.extend(params.iter().cloned());
    let prototype = format!("void {thread}_grid({})", all.join(", "));
    let body = format!(
        "{prototype} {{\n    for (uint kz = 0; kz < gz; kz++) for (uint ky = 0; ky < gy; ky++) for (uint kx = 0; kx < gx; kx++)\n        for (uint tz = 0; tz < bz; tz++) for (uint ty = 0; ty < by; ty++) for (uint tx = 0; tx < bx; tx++)\n            {thread}(kx, ky, kz, tx, ty, tz, bx, by, bz, gx, gy, gz{}{});\n}}\n",
        if names.is_empty() { "" } else { ", " },
        names.join(", ")
    );
    (prototype, body)
}

impl<'a, 'u> FnCx<'a, 'u> {
    fn new(prog: &'a mut Program<'u>, subst: HashMap<String, Type>, kernel: bool) -> Self {
        FnCx {
            prog,
            scopes: vec![Vec::new()],
            subst,
            kernel,
            function: String::new(),
            child: false,
            hoisted: Vec::new(),
            hoisted_names: HashSet::new(),
            dynamic_shared: false,
            hints: HashMap::new(),
            learning: false,
            next_id: 0,
            out: String::new(),
            depth: 0,
            ret: Type::Void,
            last_line: 0,
        }
    }

    /// A context for the initialisers of file-scope constants.
    pub(crate) fn constant_context(prog: &'a mut Program<'u>) -> Self {
        FnCx::new(prog, HashMap::new(), false)
    }

    /// The parameter list, and the statements that must open the body.
    fn params(&mut self, f: &Function, spaces: &[Space]) -> Result<(Vec<String>, String)> {
        let mut spaces = spaces.iter();
        let mut out = Vec::new();
        let mut prologue = String::new();
        for (i, p) in f.params.iter().enumerate() {
            let mut ty = resolve(&p.ty, &self.subst);
            let code = if p.name.is_empty() {
                format!("ember_unnamed_{i}")
            } else {
                names::user(&p.name)
            };
            if let Type::Pointer(pt) | Type::Ref(pt) = &mut ty {
                pt.space = spaces.next().copied().unwrap_or(Space::Private);
                // A pointer to a pointer: the memory of each level, as the caller's had.
                let mut inner = &mut pt.ty;
                while let Type::Pointer(q) = inner {
                    q.space = spaces.next().copied().unwrap_or(Space::Private);
                    inner = &mut q.ty;
                }
                if self.kernel && matches!(pt.ty, Type::Pointer(_)) {
                    return Err(TranslateError::new(
                        p.line,
                        format!("kernel parameter {} is a pointer to a pointer; OpenCL kernels take buffers of data only", p.name),
                    ));
                }
            }
            if self.kernel && matches!(ty, Type::Ref(_)) {
                return Err(TranslateError::new(
                    p.line,
                    format!("kernel parameter {} is a reference", p.name),
                ));
            }
            self.prog.note_type(&ty);
            let is_ref = matches!(ty, Type::Ref(_));
            let declared = match &ty {
                Type::Ref(pt) => Type::Pointer(pt.clone()),
                // A half by value arrives as its bits (OpenCL has no half arithmetic here).
                Type::Scalar(Scalar::Half) | Type::Vector(Scalar::Half, 2) if self.kernel => {
                    let raw = format!("ember_raw_{code}");
                    // Named types, so that the launcher knows a float16 goes there.
                    let (bits, load) = if matches!(ty, Type::Vector(..)) {
                        self.prog
                            .helper("ember_half2", || "typedef uint ember_half2;\n".into());
                        ("ember_half2", "vload_half2")
                    } else {
                        self.prog
                            .helper("ember_half", || "typedef ushort ember_half;\n".into());
                        ("ember_half", "vload_half")
                    };
                    let value = self.prog.declare(&ty, &code);
                    prologue.push_str(&format!("    {value} = {load}(0, (const half*)&{raw});\n"));
                    out.push(format!("{bits} {raw}"));
                    self.bind(&p.name, ty.clone(), code, Space::Private, false);
                    continue;
                }
                // OpenCL kernels take no bool: the byte CUDA passes arrives as a uchar.
                Type::Scalar(Scalar::Bool) if self.kernel => {
                    let raw = format!("ember_raw_{code}");
                    prologue.push_str(&format!("    bool {code} = {raw};\n"));
                    out.push(format!("uchar {raw}"));
                    self.bind(&p.name, ty.clone(), code, Space::Private, false);
                    continue;
                }
                other => other.clone(),
            };
            out.push(self.prog.declare(&declared, &code));
            self.bind(&p.name, ty, code, Space::Private, is_ref);
        }
        Ok((out, prologue))
    }

    /// The device functions' `__shared__` arrays this function reaches: allocated here in a
    /// kernel, taken as hidden parameters by a device function.
    fn reached_shared(&mut self, f: &Function, params: &mut Vec<String>) -> Result<()> {
        let reached = self.prog.reached.get(&f.name).cloned().unwrap_or_default();
        let arrays = reached.shared;
        if let (true, Some(a)) = (self.child, arrays.first()) {
            return Err(child_waits(
                a.line,
                &format!("__shared__ {} (in {})", a.var, a.owner),
            ));
        }
        for a in arrays {
            if contains_param(&a.ty) {
                return Err(TranslateError::new(
                    a.line,
                    format!("__shared__ {} of template function {} has a template's type; declare it in the kernel and pass a pointer", a.var, a.owner),
                ));
            }
            self.prog.note_type(&a.ty);
            if self.kernel {
                if !self.learning {
                    // A single value as an array of one, so that it passes down as a pointer.
                    let ty = match &a.ty {
                        Type::Array(..) => a.ty.clone(),
                        one => Type::Array(Box::new(one.clone()), Some(1)),
                    };
                    let text = format!("__local {};", self.prog.declare(&ty, &a.param()));
                    self.hoisted.push(text);
                }
            } else {
                params.push(self.prog.declare(&shared_pointer(&a.ty), &a.param()));
            }
        }
        for name in reached.constants {
            let Some(var) = self.prog.variable(&name) else {
                continue;
            };
            let (ty, space) = (var.ty.clone(), var.space);
            let code = names::user(&name);
            let (param, is_ref) = match &ty {
                Type::Array(..) => (pointer_to(&ty, space), false),
                other => (
                    Type::pointer(other.clone(), space == Space::Constant, space),
                    true,
                ),
            };
            params.push(self.prog.declare(&param, &code));
            let bound = match (&param, is_ref) {
                (Type::Pointer(p), true) => Type::Ref(p.clone()),
                _ => param.clone(),
            };
            self.bind(&name, bound, code, Space::Private, is_ref);
        }
        Ok(())
    }

    /// Puts a name in the innermost scope.
    pub(crate) fn bind(
        &mut self,
        name: &str,
        ty: Type,
        code: String,
        space: Space,
        is_ref: bool,
    ) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        let var = Var {
            ty,
            code,
            space,
            is_ref,
            id,
        };
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_string(), var));
        }
        id
    }

    /// The variable a name denotes here (innermost scope first).
    pub(crate) fn lookup(&self, name: &str) -> Option<&Var> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// Sets the space of a pointer variable declared without one.
    pub(crate) fn learn_space(&mut self, name: &str, space: Space) {
        let Some(var) = self
            .scopes
            .iter_mut()
            .rev()
            .flat_map(|s| s.iter_mut().rev())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
        else {
            return;
        };
        if let Type::Pointer(p) = &mut var.ty {
            if p.space == Space::Unknown && space != Space::Unknown {
                p.space = space;
                self.hints.insert(var.id, space);
            }
        }
    }

    fn line_mark(&mut self, line: u32) {
        if line > 0 && line != self.last_line && !self.learning {
            self.out.push_str(&format!("#line {line}\n"));
            self.last_line = line;
        }
    }

    fn push_line(&mut self, text: &str) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
        self.last_line += 1;
    }

    fn statement(&mut self, s: &Stmt) -> Result<()> {
        if !matches!(s.kind, S::Block(_) | S::Pragma(_)) {
            self.line_mark(s.line);
        }
        match &s.kind {
            S::Decl(decls) => {
                for d in decls {
                    if let Some(text) = self.declaration(d)? {
                        self.push_line(&text);
                    }
                }
            }
            S::Expr(e) => {
                let v = self.expr(e)?;
                self.push_line(&format!("{};", v.code));
            }
            S::Block(body) => {
                self.push_line("{");
                self.nested(body)?;
                self.push_line("}");
            }
            S::If(c, then, other) => {
                let c = self.condition(c)?;
                self.push_line(&format!("if ({c})"));
                self.sub_statement(then)?;
                if let Some(o) = other {
                    self.push_line("else");
                    self.sub_statement(o)?;
                }
            }
            S::IfConstexpr(c, then, other) => {
                let taken = super::subst::value_of(c, &self.subst).ok_or_else(|| {
                    TranslateError::new(
                        s.line,
                        "the condition of 'if constexpr' is translated where it is a constant of the template's values (N > 0, Flag)",
                    )
                })?;
                let branch = if taken != 0 {
                    Some(then)
                } else {
                    other.as_ref()
                };
                if let Some(b) = branch {
                    self.push_line("{");
                    self.depth += 1;
                    self.statement(b)?;
                    self.depth -= 1;
                    self.push_line("}");
                }
            }
            S::While(c, body) => {
                let c = self.condition(c)?;
                self.push_line(&format!("while ({c})"));
                self.sub_statement(body)?;
            }
            S::DoWhile(body, c) => {
                self.push_line("do");
                self.sub_statement(body)?;
                let c = self.condition(c)?;
                self.push_line(&format!("while ({c});"));
            }
            S::For {
                init,
                cond,
                step,
                body,
            } => self.for_loop(init.as_deref(), cond.as_ref(), step.as_ref(), body)?,
            S::Switch(c, body) => {
                let c = self.expr(c)?.code;
                self.push_line(&format!("switch ({c})"));
                self.sub_statement(body)?;
            }
            S::Case(e) => {
                let c = self.expr(e)?.code;
                self.push_line(&format!("case {c}:"));
            }
            S::Default => self.push_line("default:"),
            S::Break => self.push_line("break;"),
            S::Continue => self.push_line("continue;"),
            S::Return(None) => self.push_line("return;"),
            S::Return(Some(e)) => {
                let ret = self.ret.clone();
                let v = self.converted(e, &ret)?;
                self.push_line(&format!("return {v};"));
            }
            S::Goto(l) => self.push_line(&format!("goto {l};")),
            S::Label(l) => self.push_line(&format!("{l}: ;")),
            S::Pragma(p) => {
                self.out.push_str(&format!("#pragma {p}\n"));
                self.last_line += 1;
            }
            S::Empty => self.push_line(";"),
        }
        Ok(())
    }

    /// A statement in a scope of its own, always in braces (so a declaration stays valid).
    fn sub_statement(&mut self, s: &Stmt) -> Result<()> {
        let body = match &s.kind {
            S::Block(body) => body.as_slice(),
            _ => std::slice::from_ref(s),
        };
        self.push_line("{");
        self.nested(body)?;
        self.push_line("}");
        Ok(())
    }

    fn nested(&mut self, body: &[Stmt]) -> Result<()> {
        self.scopes.push(Vec::new());
        self.depth += 1;
        for s in body {
            self.statement(s)?;
        }
        self.depth -= 1;
        self.scopes.pop();
        Ok(())
    }

    fn for_loop(
        &mut self,
        init: Option<&Stmt>,
        cond: Option<&crate::ast::Expr>,
        step: Option<&crate::ast::Expr>,
        body: &Stmt,
    ) -> Result<()> {
        self.scopes.push(Vec::new());
        let init_text = match init.map(|s| &s.kind) {
            None => String::new(),
            Some(S::Expr(e)) => self.expr(e)?.code,
            Some(S::Decl(decls)) if decls.len() == 1 => self
                .declaration(&decls[0])?
                .unwrap_or_default()
                .trim_end_matches(';')
                .to_string(),
            Some(S::Decl(decls)) => {
                // Several declarators of differing types: declare them before the loop.
                self.push_line("{");
                self.depth += 1;
                for d in decls {
                    if let Some(text) = self.declaration(d)? {
                        self.push_line(&text);
                    }
                }
                String::new()
            }
            Some(_) => String::new(),
        };
        let wrapped = matches!(init.map(|s| &s.kind), Some(S::Decl(d)) if d.len() > 1);
        let cond = match cond {
            Some(c) => self.condition(c)?,
            None => String::new(),
        };
        let step = match step {
            Some(e) => self.expr(e)?.code,
            None => String::new(),
        };
        self.push_line(&format!("for ({init_text}; {cond}; {step})"));
        self.sub_statement(body)?;
        if wrapped {
            self.depth -= 1;
            self.push_line("}");
        }
        self.scopes.pop();
        Ok(())
    }

    /// A condition: any scalar or pointer (a pointer is compared with 0 as C does).
    fn condition(&mut self, e: &crate::ast::Expr) -> Result<String> {
        Ok(self.expr(e)?.code)
    }

    /// One declared variable: its OpenCL declaration (`None` when it moved elsewhere).
    fn declaration(&mut self, d: &VarDecl) -> Result<Option<String>> {
        let mut ty = resolve(&d.ty, &self.subst);
        if matches!(ty, Type::SizedBy(..)) {
            return Err(TranslateError::new(
                d.line,
                format!(
                    "the size of array {} is not known from the template's arguments",
                    d.name
                ),
            ));
        }
        let code = names::user(&d.name);
        match d.storage {
            Storage::Shared => return self.shared(d, ty).map(|_| None),
            Storage::DynamicShared => return self.dynamic(d, ty).map(Some),
            Storage::Constant | Storage::Device => {
                return Err(TranslateError::new(
                    d.line,
                    format!("{} is declared __constant__ or __device__ inside a function; declare it at file scope", d.name),
                ))
            }
            Storage::Static if !(d.konst && d.init.is_some()) => {
                return Err(TranslateError::new(
                    d.line,
                    format!("static local variable {}: OpenCL C has none; make it a constant or pass it in", d.name),
                ))
            }
            Storage::Static | Storage::Auto => {}
        }
        let init = match &d.init {
            None => None,
            Some(e) => Some(self.local_initializer(e, &mut ty, d)?),
        };
        if let Type::Pointer(p) = &mut ty {
            if p.space == Space::Unknown {
                let id = self.next_id;
                if let Some(s) = self.hints.get(&id) {
                    p.space = *s;
                }
            }
        }
        self.prog.note_type(&ty);
        let is_ref = matches!(ty, Type::Ref(_));
        let declared = match &ty {
            Type::Ref(p) => Type::Pointer(p.clone()),
            t => t.clone(),
        };
        let konst = if d.konst && !matches!(declared, Type::Pointer(_)) {
            "const "
        } else {
            ""
        };
        let text = format!("{konst}{}", self.prog.declare(&declared, &code));
        self.bind(&d.name, ty, code, Space::Private, is_ref);
        Ok(Some(match init {
            Some(i) => format!("{text} = {i};"),
            None => format!("{text};"),
        }))
    }

    /// The initialiser of a local: fills in `auto` and the space of a pointer from its value.
    fn local_initializer(
        &mut self,
        e: &crate::ast::Expr,
        ty: &mut Type,
        d: &VarDecl,
    ) -> Result<String> {
        if matches!(ty, Type::Param(n) if n == "auto") {
            let v = self.expr(e)?;
            *ty = super::expr::decayed(&v);
            return Ok(v.code);
        }
        if let Type::Ref(p) = ty {
            let v = self.expr(e)?;
            p.space = v.space;
            return Ok(format!("&({})", v.code));
        }
        if let Type::Pointer(p) = ty {
            if !matches!(e.kind, crate::ast::ExprKind::Init(_)) {
                let v = self.expr(e)?;
                let vt = super::expr::decayed(&v);
                match vt {
                    Type::Pointer(q)
                        if p.space != Space::Unknown
                            && q.space != Space::Unknown
                            && q.space != p.space =>
                    {
                        return Err(TranslateError::new(
                            d.line,
                            format!("pointer {} mixes memories", d.name),
                        ))
                    }
                    Type::Pointer(q) => {
                        if p.space == Space::Unknown {
                            p.space = q.space;
                        }
                        fill_spaces(&mut p.ty, &q.ty);
                    }
                    _ => {}
                }
                return Ok(v.code);
            }
        }
        let t = ty.clone();
        self.initializer(e, &t)
    }

    /// A `__shared__` array: declared at the top of the kernel (OpenCL's rule for `__local`).
    fn shared(&mut self, d: &VarDecl, ty: Type) -> Result<()> {
        if self.child {
            return Err(child_waits(d.line, &format!("__shared__ {}", d.name)));
        }
        if !self.kernel {
            // The kernel allocates it; it arrives as a hidden parameter (see `shared`).
            let param = super::shared::SharedArray {
                owner: self.function.clone(),
                var: d.name.clone(),
                ty: ty.clone(),
                line: d.line,
            }
            .param();
            let single = !matches!(ty, Type::Array(..));
            self.bind(&d.name, shared_pointer(&ty), param, Space::Private, single);
            return Ok(());
        }
        let mut code = names::user(&d.name);
        while !self.hoisted_names.insert(code.clone()) {
            code.push('_');
        }
        self.prog.note_type(&ty);
        if !self.learning {
            let text = format!("__local {};", self.prog.declare(&ty, &code));
            self.hoisted.push(text);
        }
        self.bind(&d.name, ty, code, Space::Local, false);
        Ok(())
    }

    /// `extern __shared__ T name[]`: a view of the kernel's dynamic shared memory parameter.
    fn dynamic(&mut self, d: &VarDecl, ty: Type) -> Result<String> {
        if self.child {
            return Err(child_waits(
                d.line,
                &format!("extern __shared__ {}", d.name),
            ));
        }
        if !self.kernel {
            return Err(TranslateError::new(
                d.line,
                format!("extern __shared__ {} is declared in a device function; declare it in the kernel and pass a pointer", d.name),
            ));
        }
        let element = match ty {
            Type::Array(e, _) => *e,
            other => other,
        };
        if super::half::lanes(&element).is_some() {
            return Err(TranslateError::new(
                d.line,
                format!("extern __shared__ {} of halves: shared memory holds a half in a float here (OpenCL C has no half arithmetic on this device); declare it float and convert", d.name),
            ));
        }
        self.dynamic_shared = true;
        let code = names::user(&d.name);
        let pointer = Type::Pointer(Box::new(Pointee {
            volatile: false,
            ty: element,
            konst: false,
            space: Space::Local,
        }));
        self.prog.note_type(&pointer);
        let declared = self.prog.declare(&pointer, &code);
        let cast = self.prog.declare(&pointer, "");
        self.bind(&d.name, pointer, code, Space::Private, false);
        Ok(format!("{declared} = ({cast}){DYNAMIC_SHARED};"))
    }

    /// An initialiser for a variable of type `ty` (braced lists for arrays and structs).
    pub(crate) fn initializer(&mut self, e: &crate::ast::Expr, ty: &Type) -> Result<String> {
        let crate::ast::ExprKind::Init(items) = &e.kind else {
            return self.converted(e, ty);
        };
        if let Type::Vector(s, n) = ty {
            // dim3's missing sizes are 1; other vectors' missing lanes 0.
            let fill = if *s == Scalar::UInt && *n == 3 {
                "1"
            } else {
                "0"
            };
            let mut parts = items
                .iter()
                .map(|i| {
                    self.expr(i)
                        .map(|v| format!("({})({})", s.opencl(), v.code))
                })
                .collect::<Result<Vec<_>>>()?;
            parts.resize(*n as usize, fill.to_string());
            let name = super::layout::vector_name(*s, *n);
            return Ok(if super::layout::vector_is_struct(*n) {
                format!("make_{name}({})", parts.join(", "))
            } else {
                format!("(({name})({}))", parts.join(", "))
            });
        }
        let mut parts = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let element = match ty {
                Type::Array(el, _) => (**el).clone(),
                Type::Struct(n) => self
                    .prog
                    .structs
                    .get(n)
                    .and_then(|s| s.fields.get(i))
                    .map(|(_, t)| t.clone())
                    .unwrap_or(Type::Void),
                Type::Vector(s, _) => Type::Scalar(*s),
                other => other.clone(),
            };
            parts.push(self.initializer(item, &element)?);
        }
        Ok(format!("{{{}}}", parts.join(", ")))
    }
}

/// The error for a kernel launched by a kernel that shares memory or waits on its threads.
pub(crate) fn child_waits(line: u32, what: &str) -> TranslateError {
    TranslateError::new(
        line,
        format!(
            "this kernel is launched by a kernel and uses {what}: on OpenCL ember runs a child grid as loops inside the launching thread, where threads cannot share memory or wait on each other (launch it from the host instead)"
        ),
    )
}

/// Fills the memories a pointer type leaves unknown, level by level, from a value's type.
pub(crate) fn fill_spaces(t: &mut Type, from: &Type) {
    if let (Type::Pointer(p), Type::Pointer(q)) = (t, from) {
        if p.space == Space::Unknown {
            p.space = q.space;
        }
        fill_spaces(&mut p.ty, &q.ty);
    }
}

/// A `__shared__` array as the pointer that passes it (to its element, or to its rows).
fn shared_pointer(ty: &Type) -> Type {
    pointer_to(ty, Space::Local)
}

/// An array (or a single value) in `space` as the pointer that passes it: to its element, or
/// to its rows.
fn pointer_to(ty: &Type, space: Space) -> Type {
    let element = match ty {
        Type::Array(e, _) => (**e).clone(),
        other => other.clone(),
    };
    Type::Pointer(Box::new(Pointee {
        volatile: false,
        ty: element,
        konst: space == Space::Constant,
        space,
    }))
}

/// Whether a type still names a template parameter.
fn contains_param(ty: &Type) -> bool {
    match ty {
        Type::Param(_) | Type::SizedBy(..) | Type::ValueExpr(_) => true,
        Type::Array(e, _) => contains_param(e),
        Type::Pointer(p) | Type::Ref(p) => contains_param(&p.ty),
        _ => false,
    }
}
