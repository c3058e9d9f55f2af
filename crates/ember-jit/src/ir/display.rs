//! A readable form of the IR, close to the Python it came from, for tests and debugging:
//! every variable and temporary with its type, casts spelled as conversions (`float64(i)`),
//! so each of Numba's promotions shows.

use std::fmt::{self, Display, Formatter, Write};

use super::*;
use crate::ast::BoolOp;

impl Display for IrProgram {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.functions.iter().map(|g| g.name.as_str()).collect();
        for (i, func) in self.functions.iter().enumerate() {
            writeln!(f, "# function {i}")?;
            func.write(f, &names)?;
        }
        if let Some(k) = &self.kernel {
            k.write(f, &names)?;
        }
        Ok(())
    }
}

impl Display for IrFunction {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.write(f, &[])
    }
}

impl IrFunction {
    /// Writes the function; calls name their callee from `names` (by specialisation).
    fn write(&self, f: &mut Formatter<'_>, names: &[&str]) -> fmt::Result {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| {
                let l = &self.locals[p.local.0];
                if l.ty == p.ty {
                    format!("{}: {}", l.name, p.ty)
                } else {
                    format!("{}: {} (as {})", l.name, p.ty, l.ty)
                }
            })
            .collect();
        match self.role {
            Role::Kernel => writeln!(f, "kernel {}({}):", self.name, params.join(", "))?,
            Role::Device { .. } => writeln!(
                f,
                "def {}({}) -> {}:",
                self.name,
                params.join(", "),
                self.ret
            )?,
        }
        for l in &self.locals[self.params.len()..] {
            let sign = if l.nonneg { " (>= 0)" } else { "" };
            writeln!(f, "  var {}: {}{sign}", l.name, l.ty)?;
        }
        for a in &self.arrays {
            let space = if a.shared { "shared" } else { "local" };
            writeln!(
                f,
                "  {space} {}: {}[{}]",
                temp(a.storage),
                a.dtype.name(),
                a.count
            )?;
        }
        let mut out = String::new();
        let p = Printer { f: self, names };
        p.block(&mut out, &self.body, 1);
        f.write_str(&out)
    }
}

fn temp(t: Temp) -> String {
    format!("{}{}", t.role.prefix(), t.n)
}

struct Printer<'a> {
    f: &'a IrFunction,
    names: &'a [&'a str],
}

impl Printer<'_> {
    fn block(&self, out: &mut String, body: &[Stmt], depth: usize) {
        if body.is_empty() {
            self.line(out, depth, "pass");
        }
        for s in body {
            self.stmt(out, s, depth);
        }
    }

    fn line(&self, out: &mut String, depth: usize, text: &str) {
        let _ = writeln!(out, "{}{text}", "  ".repeat(depth));
    }

    fn stmt(&self, out: &mut String, s: &Stmt, d: usize) {
        match s {
            Stmt::Line(n) => self.line(out, d, &format!("# line {n}")),
            Stmt::Assign { local, value } => {
                let text = format!("{} = {}", self.f.locals[local.0].name, self.expr(value));
                self.line(out, d, &text)
            }
            Stmt::Let {
                temp: t,
                value,
                constant,
            } => {
                let kw = if *constant { "const" } else { "let" };
                let text = format!("{kw} {}: {} = {}", temp(*t), value.ty, self.expr(value));
                self.line(out, d, &text)
            }
            Stmt::Declare { temp: t, ty } => self.line(out, d, &format!("let {}: {ty}", temp(*t))),
            Stmt::Set { temp: t, value } => {
                self.line(out, d, &format!("{} = {}", temp(*t), self.expr(value)))
            }
            Stmt::Store { place, value } => {
                let text = format!("{} = {}", self.place(place), self.expr(value));
                self.line(out, d, &text)
            }
            Stmt::Update {
                pointer,
                place,
                value,
            } => {
                let text = format!(
                    "{} = &{}; *{} = {}",
                    temp(*pointer),
                    self.place(place),
                    temp(*pointer),
                    self.expr(value)
                );
                self.line(out, d, &text)
            }
            Stmt::Eval(e) => self.line(out, d, &self.expr(e)),
            Stmt::If {
                cond,
                negate,
                then,
                orelse,
            } => {
                let not = if *negate { "not " } else { "" };
                self.line(out, d, &format!("if {not}{}:", self.expr(cond)));
                self.block(out, then, d + 1);
                if !orelse.is_empty() {
                    self.line(out, d, "else:");
                    self.block(out, orelse, d + 1);
                }
            }
            Stmt::While { setup, cond, body } => {
                if setup.is_empty() {
                    self.line(out, d, &format!("while {}:", self.expr(cond)));
                } else {
                    self.line(out, d, "while True:");
                    self.block(out, setup, d + 1);
                    self.line(out, d + 1, &format!("if not {}: break", self.expr(cond)));
                }
                self.block(out, body, d + 1);
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
                let step = match step {
                    Step::One => String::new(),
                    Step::Const(k) => format!(", {k}"),
                    Step::Var(s) => format!(", {}", temp(*s)),
                };
                let text = format!(
                    "for {}: {} in range({}, {}{step}):",
                    temp(*index),
                    ty.name(),
                    self.expr(start),
                    self.expr(stop)
                );
                self.line(out, d, &text);
                self.block(out, body, d + 1);
            }
            Stmt::Block(body) => {
                self.line(out, d, "block:");
                self.block(out, body, d + 1);
            }
            Stmt::LoopFlag(t) => self.line(out, d, &format!("{} = False", temp(*t))),
            Stmt::Unbroken { flag, body } => {
                self.line(out, d, &format!("if not {}:", temp(*flag)));
                self.block(out, body, d + 1);
            }
            Stmt::Break { flag } => match flag {
                Some(t) => self.line(out, d, &format!("{} = True; break", temp(*t))),
                None => self.line(out, d, "break"),
            },
            Stmt::Continue => self.line(out, d, "continue"),
            Stmt::Return(None) => self.line(out, d, "return"),
            Stmt::Raise(n) => self.line(out, d, &format!("raise exception #{n}")),
            Stmt::Require { cond, failure, .. } => self.line(
                out,
                d,
                &format!("require {} else {failure:?}", self.expr(cond)),
            ),
            Stmt::Return(Some(v)) => self.line(out, d, &format!("return {}", self.expr(v))),
            Stmt::View {
                temp: t,
                ty,
                base,
                axes,
            } => {
                let axes: Vec<String> = axes
                    .iter()
                    .map(|a| match a {
                        ViewAxis::Whole => ":".into(),
                        ViewAxis::Index(i) => self.expr(i),
                        ViewAxis::Slice { lo, hi, step } => format!(
                            "{}:{}:{step}",
                            lo.as_ref().map(|x| self.expr(x)).unwrap_or_default(),
                            hi.as_ref().map(|x| self.expr(x)).unwrap_or_default()
                        ),
                    })
                    .collect();
                let text = format!(
                    "let {}: {ty} = {}[{}]",
                    temp(*t),
                    self.expr(base),
                    axes.join(", ")
                );
                self.line(out, d, &text)
            }
            Stmt::Transpose { temp: t, ty, base } => {
                let text = format!("let {}: {ty} = {}.T", temp(*t), self.expr(base));
                self.line(out, d, &text)
            }
            Stmt::FieldView {
                temp: t,
                ty,
                base,
                offset,
                ..
            } => {
                let text = format!("let {}: {ty} = {}@{offset}", temp(*t), self.expr(base));
                self.line(out, d, &text)
            }
            Stmt::Reinterpret {
                temp: t, ty, base, ..
            } => {
                let text = format!("let {}: {ty} = view of {}", temp(*t), self.expr(base));
                self.line(out, d, &text)
            }
            Stmt::DynamicShared { temp: t, ty, dtype } => {
                let text = format!(
                    "let {}: {ty} = cuda.shared.array(0, {})",
                    temp(*t),
                    dtype.name()
                );
                self.line(out, d, &text)
            }
        }
    }

    fn place(&self, p: &Place) -> String {
        let idx: Vec<String> = p.indices.iter().map(|i| self.expr(i)).collect();
        format!("{}[{}]", self.expr(&p.array), idx.join(", "))
    }

    fn list(&self, items: &[Expr]) -> String {
        items
            .iter()
            .map(|x| self.expr(x))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn expr(&self, e: &Expr) -> String {
        let d = e.dtype().map(|d| d.name()).unwrap_or("?");
        match &e.kind {
            ExprKind::Const(c) => match c {
                Const::Int(v) => v.to_string(),
                Const::Count(n) => n.to_string(),
                Const::Typed(v) => format!("{d}({v})"),
                Const::Zero => format!("{d}(0)"),
                Const::Float(x) if d == "float64" => format!("{x:?}"),
                Const::Float(x) => format!("{d}({x:?})"),
                Const::Bool(b) => if *b { "True" } else { "False" }.into(),
                Const::Complex(re, im) => format!("{d}({re:?}, {im:?})"),
            },
            ExprKind::Local(id) => self.f.locals[id.0].name.clone(),
            ExprKind::Temp(t) => temp(*t),
            ExprKind::Cast(x) => format!("{d}({})", self.expr(x)),
            ExprKind::Unary(UnaryOp::Neg, x) => format!("(-{})", self.expr(x)),
            ExprKind::Unary(UnaryOp::Invert, x) => format!("(~{})", self.expr(x)),
            ExprKind::Not(x) => format!("(not {})", self.expr(x)),
            ExprKind::Bool(x) => format!("bool({})", self.expr(x)),
            ExprKind::Binary(op, l, r) => {
                format!("({} {} {})", self.expr(l), op.symbol(), self.expr(r))
            }
            ExprKind::RoundNarrow(x) => format!("{d}({})", self.expr(x)),
            ExprKind::Compare(op, l, r) => {
                format!("({} {} {})", self.expr(l), op.symbol(), self.expr(r))
            }
            ExprKind::Logic(op, items) => {
                let sep = if *op == BoolOp::And { " and " } else { " or " };
                let parts: Vec<String> = items.iter().map(|x| self.expr(x)).collect();
                format!("({})", parts.join(sep))
            }
            ExprKind::All { items, negated } => {
                let not = if *negated { "not " } else { "" };
                format!("{not}all({})", self.list(items))
            }
            ExprKind::Any { items, negated } => {
                let not = if *negated { "not " } else { "" };
                format!("{not}any({})", self.list(items))
            }
            ExprKind::Select(c, a, b) => format!(
                "({} if {} else {})",
                self.expr(a),
                self.expr(c),
                self.expr(b)
            ),
            ExprKind::Element(p) => self.place(p),
            ExprKind::RecordAt(p) => format!("&{}", self.place(p)),
            ExprKind::Field { record, offset } => format!("{}@{offset}", self.expr(record)),
            ExprKind::Current => "*current".into(),
            ExprKind::Dim(a, k) => format!("{}.shape[{k}]", self.expr(a)),
            ExprKind::Stride(a, k) => format!("{}.strides[{k}]", self.expr(a)),
            ExprKind::Size(a) => format!("{}.size", self.expr(a)),
            ExprKind::FixedArray(t) => temp(*t),
            ExprKind::ConstArray(id) => format!("const_array{id}"),
            ExprKind::Captured(address) => format!("device_array@{address:#x}"),
            ExprKind::Address(a) => format!("{}.ctypes.data", self.expr(a)),
            ExprKind::None => "None".into(),
            ExprKind::Some(x) => format!("some({})", self.expr(x)),
            ExprKind::IsNone(x) => format!("({} is None)", self.expr(x)),
            ExprKind::Unwrap(x) => format!("unwrap({})", self.expr(x)),
            ExprKind::MakeTuple(items) => format!("({})", self.list(items)),
            ExprKind::Item(t, k) => format!("{}[{k}]", self.expr(t)),
            ExprKind::ItemAt(t, i) => format!("{}[{}]", self.expr(t), self.expr(i)),
            ExprKind::Wrap { index, len } => {
                format!("wrap({}, {})", self.expr(index), self.expr(len))
            }
            ExprKind::Part { value, imag } => {
                format!(
                    "{}.{}",
                    self.expr(value),
                    if *imag { "imag" } else { "real" }
                )
            }
            ExprKind::Complex(re, im) => match im {
                Some(im) => format!("{d}({}, {})", self.expr(re), self.expr(im)),
                None => format!("{d}({})", self.expr(re)),
            },
            ExprKind::Conj(x) => format!("{}.conjugate()", self.expr(x)),
            ExprKind::Call(i, args) => match self.names.get(*i) {
                Some(name) => format!("{name}#{i}({})", self.list(args)),
                None => format!("call#{i}({})", self.list(args)),
            },
            ExprKind::Math(name, args) => format!("math.{name}({})", self.list(args)),
            ExprKind::PyMath(name, args) => format!("python.{name}({})", self.list(args)),
            ExprKind::Datetime(op, args) => {
                format!("{}({})", crate::datetime::op_name(*op), self.list(args))
            }
            ExprKind::External(name, args) => format!("extern.{name}({})", self.list(args)),
            ExprKind::Intrinsic { name, args } => format!("{name}({})", self.list(args)),
            ExprKind::FloatTest(name, x) => format!("math.{name}({})", self.expr(x)),
            ExprKind::Extremum { max, rule, args } => {
                let which = if *max { "max" } else { "min" };
                let name = match rule {
                    NanRule::Python => which.to_string(),
                    NanRule::Propagate => format!("np.{which}imum"),
                    NanRule::Ignore => format!("np.f{which}"),
                };
                format!("{name}({})", self.list(&args[..]))
            }
            ExprKind::Abs(x) => format!("abs({})", self.expr(x)),
            ExprKind::Round(x) => format!("round({})", self.expr(x)),
            ExprKind::RoundDigits(x, n) => format!("round({}, {})", self.expr(x), self.expr(n)),
            ExprKind::Ufunc { name, args, .. } => format!("np.{name}({})", self.list(args)),
            ExprKind::Geometry(g) => geometry(*g),
            ExprKind::Sync(s) => match s {
                Sync::Threads => "cuda.syncthreads()".into(),
                Sync::Warp(None) => "cuda.syncwarp()".into(),
                Sync::Warp(Some(m)) => format!("cuda.syncwarp({})", self.expr(m)),
                Sync::Fence(0) => "cuda.threadfence()".into(),
                Sync::Fence(1) => "cuda.threadfence_block()".into(),
                Sync::Fence(_) => "cuda.threadfence_system()".into(),
                Sync::Grid => "cuda.cg.this_grid().sync()".into(),
            },
            ExprKind::Atomic { op, place, value } => format!(
                "cuda.atomic.{}({}, {})",
                format!("{op:?}").to_lowercase(),
                self.place(place),
                self.expr(value)
            ),
            ExprKind::Cas { place, old, new } => format!(
                "cuda.atomic.cas({}, {}, {})",
                self.place(place),
                self.expr(old),
                self.expr(new)
            ),
            ExprKind::Random(draw, place) => {
                format!("cuda.random.{draw}({})", self.place(place))
            }
            ExprKind::Alloc { shape, fill } => {
                let dims: Vec<String> = shape.iter().map(|x| self.expr(x)).collect();
                let fill = fill.as_ref().map_or("empty".into(), |f| self.expr(f));
                format!("alloc[{}]({}; {fill})", e.ty, dims.join(", "))
            }
            ExprKind::Print { format, args } => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a.expr())).collect();
                format!(
                    "printf({format:?}{}{})",
                    if args.is_empty() { "" } else { ", " },
                    args.join(", ")
                )
            }
        }
    }
}

fn geometry(g: Geometry) -> String {
    let axis = |k: usize| ["x", "y", "z"].get(k).copied().unwrap_or("?");
    match g {
        Geometry::ThreadIdx(k) => format!("cuda.threadIdx.{}", axis(k)),
        Geometry::BlockIdx(k) => format!("cuda.blockIdx.{}", axis(k)),
        Geometry::BlockDim(k) => format!("cuda.blockDim.{}", axis(k)),
        Geometry::GridDim(k) => format!("cuda.gridDim.{}", axis(k)),
        Geometry::Grid(k) => format!("cuda.grid.{}", axis(k)),
        Geometry::GridSize(k) => format!("cuda.gridsize.{}", axis(k)),
        Geometry::LaneId => "cuda.laneid".into(),
        Geometry::CoarseThreadIdx(c) => format!("ember.coarse.threadIdx.{c}"),
        Geometry::CoarseBlockDim => "ember.coarse.blockDim".into(),
        Geometry::CoarseGrid {
            copy: Some(c),
            axis: k,
        } => {
            format!("ember.coarse.grid.{c}.{}", axis(k))
        }
        Geometry::CoarseGrid {
            copy: None,
            axis: k,
        } => {
            format!("ember.coarse.gridsize.{}", axis(k))
        }
    }
}
