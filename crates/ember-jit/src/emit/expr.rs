//! Expressions as C: operators by type (integers wrap through their unsigned twin, complex
//! numbers through the prelude), calls of math functions by the dialect's names, thread
//! geometry from the dialect's table.

use ember_codegen::types::{cast, round_call, value_type};
use ember_codegen::Dialect;
use ember_core::dtype::Kind;
use ember_core::DType;

use super::function::{temp_name, var_name, FnWriter};
use crate::ast::BoolOp;
use crate::coarsen::Mapping;
use crate::compiler::Access;
use crate::helpers::{atomic_name, cas_name};
use crate::ir::{BinOp, CmpOp, Expr, ExprKind as K, Geometry, NanRule, PrintArg, Sync, UnaryOp};
use crate::types::{Space, Ty};

fn integral(d: DType) -> bool {
    matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool)
}

impl FnWriter<'_, '_> {
    /// The C function for math function `name` on `t` (CUDA names float32 versions with an
    /// `f`; OpenCL overloads).
    fn math_name(&self, name: &str, t: DType) -> String {
        if t.compute() == DType::F32 {
            format!("{name}{}", self.e.dialect.table().float32_math_suffix)
        } else {
            name.to_string()
        }
    }

    fn exprs(&mut self, items: &[Expr], sep: &str) -> String {
        let codes: Vec<String> = items.iter().map(|x| self.expr(x)).collect();
        codes.join(sep)
    }

    /// `e` as a C expression.
    pub(crate) fn expr(&mut self, e: &Expr) -> String {
        let d = e.dtype().unwrap_or(DType::I64);
        let dialect = self.e.dialect;
        match &e.kind {
            K::Const(c) => self.e.constant(c, d),
            // Host functions only (typing refuses them in kernels): see `Ty::Optional`.
            K::None | K::Some(_) | K::IsNone(_) | K::Unwrap(_) => {
                "ember_optional_values_are_host_only".into()
            }
            K::Local(id) => var_name(&self.f.locals[id.0].name),
            K::Temp(t) => temp_name(*t),
            K::Cast(x) => {
                let from = x.dtype().unwrap_or(d);
                let code = self.expr(x);
                match super::half::half_cast(&code, from, d, dialect) {
                    Some(c) => c,
                    // A narrow float holds values of its own (float16 and bfloat16 in a float).
                    None if d.is_narrow() => round_call(d, &cast(&code, from, d, dialect)),
                    None => cast(&code, from, d, dialect),
                }
            }
            K::Unary(UnaryOp::Invert, x) => {
                let t = value_type(x.dtype().unwrap_or(d), dialect);
                format!("(({t})~{})", self.expr(x))
            }
            K::Unary(UnaryOp::Neg, _) if d == DType::F16 && dialect == Dialect::Cuda => {
                format!("ember_h2f({})", self.half_bits(e))
            }
            K::Unary(UnaryOp::Neg, x) => self.negation(x, d),
            K::Not(x) => format!("((unsigned char)!{})", self.truth(x)),
            K::Bool(x) => format!("((unsigned char){})", self.truth(x)),
            K::Binary(op, l, r) => self.binary(*op, l, r, d),
            K::RoundNarrow(x) => match self.half_operation(x, d) {
                Some(bits) => format!("ember_h2f({bits})"),
                None => round_call(d, &self.expr(x)),
            },
            K::Compare(op, l, r) => {
                let t = l.dtype().unwrap_or(d);
                let (x, y) = (self.expr(l), self.expr(r));
                if t.kind() == Kind::Complex {
                    let eq = format!("(({x}).x == ({y}).x && ({x}).y == ({y}).y)");
                    return if *op == CmpOp::Eq {
                        eq
                    } else {
                        format!("(!{eq})")
                    };
                }
                format!("({x} {} {y})", op.symbol())
            }
            K::Logic(op, items) => {
                let sym = if *op == BoolOp::And { " && " } else { " || " };
                format!("((unsigned char)({}))", self.exprs(items, sym))
            }
            K::All { items, negated } => {
                let all = if items.is_empty() {
                    "1".to_string()
                } else {
                    self.exprs(items, " && ")
                };
                if *negated {
                    format!("(!({all}))")
                } else {
                    format!("({all})")
                }
            }
            K::Any { items, negated } => {
                let any = if items.is_empty() {
                    "0".to_string()
                } else {
                    self.exprs(items, " || ")
                };
                if *negated {
                    format!("((unsigned char)!({any}))")
                } else {
                    format!("((unsigned char)({any}))")
                }
            }
            K::Select(c, a, b) => {
                let t = self.truth(c);
                format!("({t} ? {} : {})", self.expr(a), self.expr(b))
            }
            K::Element(place) => {
                let p = self.pointer(place, Access::Read);
                self.load_elem(place.ty.dtype, place.ty.space, &p, place.ty.unaligned)
            }
            K::Current => match self.current.clone() {
                Some((p, d, space, unaligned)) => self.load_elem(d, space, &p, unaligned),
                None => String::new(),
            },
            K::RecordAt(place) => {
                let p = self.pointer(place, Access::Update);
                let q = self.e.qualifier(place.ty.space);
                format!("(({q}unsigned char*){p})")
            }
            K::Field { record, offset } => {
                let r = self.expr(record);
                match &e.ty {
                    Ty::Array(a) => {
                        let st = self.e.c_type(&e.ty);
                        let q = self.e.qualifier(a.space);
                        let elem = self.e.elem_type(a.dtype);
                        format!("{st}_at(({q}{elem}*)({r} + {offset}))")
                    }
                    _ => format!("({r} + {offset})"),
                }
            }
            K::Dim(a, k) => self.dim(a, *k),
            K::Stride(a, k) => self.stride(a, *k),
            K::Size(a) => {
                let ndim = match &a.ty {
                    Ty::Array(t) => t.ndim,
                    _ => 0,
                };
                let dims: Vec<String> = (0..ndim).map(|k| self.dim(a, k)).collect();
                format!("({})", dims.join(" * "))
            }
            K::FixedArray(storage) => {
                format!("{}_at({})", self.c_type(&e.ty), temp_name(*storage))
            }
            K::ConstArray(id) => format!("{}_at(ember_const{id})", self.c_type(&e.ty)),
            K::Address(array) => format!("(({}){}.data)", self.c_type(&e.ty), self.expr(array)),
            K::Captured(address) => {
                let dtype = match &e.ty {
                    Ty::Array(a) => a.dtype,
                    _ => d,
                };
                let elem = self.e.elem_type(dtype);
                format!("{}_at(({elem}*){address}ULL)", self.c_type(&e.ty))
            }
            K::MakeTuple(items) => {
                let args = self.exprs(items, ", ");
                format!("{}_make({args})", self.c_type(&e.ty))
            }
            K::Item(t, k) => format!("{}.f{k}", self.expr(t)),
            K::ItemAt(t, i) => {
                let st = self.c_type(&t.ty);
                format!("{st}_get({}, {})", self.expr(t), self.expr(i))
            }
            K::Wrap { index, len } => {
                format!("ember_wrap({}, {})", self.expr(index), self.expr(len))
            }
            K::Part { value, imag } => {
                let field = if *imag { "y" } else { "x" };
                format!("({}).{field}", self.expr(value))
            }
            K::Complex(re, im) => {
                let re = self.expr(re);
                let im = match im {
                    Some(im) => self.expr(im),
                    None => "0".into(),
                };
                format!("ember_make_{}({re}, {im})", d.name())
            }
            K::Conj(x) => {
                let c = self.expr(x);
                format!("ember_make_{}(({c}).x, -({c}).y)", d.name())
            }
            K::Call(i, args) => {
                let name = self.e.function_name(&self.e.ir.functions[*i]);
                let mut args = self.exprs(args, ", ");
                for extra in self.e.hoisted_args(*i) {
                    let sep = if args.is_empty() { "" } else { ", " };
                    args = format!("{args}{sep}{extra}");
                }
                if self.e.checked.is_some() {
                    let sep = if args.is_empty() { "" } else { ", " };
                    args = format!("{args}{sep}{}", ember_codegen::checked::RECORD);
                }
                format!("{name}({args})")
            }
            // `cuda.fp16.hadd/hsub/hmul` outside CUDA: the operator (rounded around it).
            K::Math(f @ ("hadd" | "hsub" | "hmul"), args) => {
                let sym = match *f {
                    "hadd" => "+",
                    "hsub" => "-",
                    _ => "*",
                };
                format!("({})", self.exprs(args, &format!(" {sym} ")))
            }
            K::Math(f, args) => {
                let f = self.math_name(f, d);
                format!("{f}({})", self.exprs(args, ", "))
            }
            K::FloatTest(f, x) => format!("((unsigned char)({f}({}) != 0))", self.expr(x)),
            K::Extremum { max, rule, args } => {
                let (x, y) = (self.expr(&args[0]), self.expr(&args[1]));
                let which = if *max { "max" } else { "min" };
                match rule {
                    NanRule::Python => format!("ember_{which}_{}({x}, {y})", d.name()),
                    NanRule::Ignore => {
                        format!("{}({x}, {y})", self.math_name(&format!("f{which}"), d))
                    }
                    NanRule::Propagate => {
                        let f = self.math_name(&format!("f{which}"), d);
                        format!(
                            "(({x}) != ({x}) || ({y}) != ({y}) ? ({x}) + ({y}) : {f}({x}, {y}))"
                        )
                    }
                }
            }
            K::Abs(_) if d == DType::F16 && dialect == Dialect::Cuda => {
                format!("ember_h2f({})", self.half_bits(e))
            }
            K::Abs(x) => {
                let t = x.dtype().unwrap_or(d);
                let c = self.expr(x);
                match t.kind() {
                    Kind::Complex => {
                        let f = self.math_name("hypot", d);
                        format!("{f}({c}.x, {c}.y)")
                    }
                    Kind::Float => format!("{}({c})", self.math_name("fabs", t)),
                    _ => format!("ember_abs_{}({c})", t.name()),
                }
            }
            K::Round(x) => {
                let f = self.math_name("rint", x.dtype().unwrap_or(d));
                let i64t = value_type(DType::I64, dialect);
                format!("(({i64t})({f}({})))", self.expr(x))
            }
            K::External(name, args) => {
                format!(
                    "{}({})",
                    crate::externs::wrapper_name(name),
                    self.exprs(args, ", ")
                )
            }
            K::PyMath(name, args) => {
                let first = args.first().and_then(Expr::dtype).unwrap_or(d);
                format!(
                    "{}({})",
                    crate::pymath::c_name(name, first),
                    self.exprs(args, ", ")
                )
            }
            K::Datetime(op, args) => {
                format!(
                    "{}({})",
                    crate::datetime::op_name(*op),
                    self.exprs(args, ", ")
                )
            }
            K::RoundDigits(x, nd) => {
                let t = value_type(d, dialect);
                format!(
                    "(({t})ember_round_digits((double)({}), {}))",
                    self.expr(x),
                    self.expr(nd)
                )
            }
            K::Ufunc { name, ins, args } => {
                let codes: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                ember_codegen::ufuncs::ufunc(name)
                    .and_then(|u| u.expression(ins, d, &codes, dialect))
                    .map(|x| x.code)
                    .unwrap_or_default()
            }
            K::Intrinsic { name, args } => self.intrinsic(name, args, d),
            K::Geometry(g) => self.geometry(*g),
            K::Sync(s) => self.sync(s),
            K::Atomic { op, place, value } => {
                let p = self.pointer(place, Access::Update);
                let v = self.expr(value);
                let space = atomic_space(place.ty.space);
                format!("{}({p}, {v})", atomic_name(*op, place.ty.dtype, space))
            }
            K::Cas { place, old, new } => {
                let p = self.pointer(place, Access::Update);
                let (o, v) = (self.expr(old), self.expr(new));
                let space = atomic_space(place.ty.space);
                format!("{}({p}, {o}, {v})", cas_name(place.ty.dtype, space))
            }
            K::Random(draw, place) => {
                format!("ember_{draw}({})", self.pointer(place, Access::Update))
            }
            // Typing allows allocation in host functions only, which C back ends never see.
            K::Alloc { .. } => String::new(),
            K::Print { format, args } => {
                let mut call = format!("printf({}", c_string(format));
                for a in args {
                    let x = self.expr(a.expr());
                    match a {
                        PrintArg::Value(_) => call.push_str(&format!(", {x}")),
                        PrintArg::Truth(_) => {
                            call.push_str(&format!(", ({x}) ? \"True\" : \"False\""))
                        }
                    }
                }
                call.push(')');
                call
            }
        }
    }

    /// `-x` as `t`: integers negated at the operand's width by unsigned arithmetic (wraps by
    /// definition), then truncated.
    fn negation(&mut self, x: &Expr, t: DType) -> String {
        let dialect = self.e.dialect;
        let d = x.dtype().unwrap_or(t);
        let code = self.expr(x);
        // A bool widened to int64 is 0 or 1: its negation cannot wrap.
        let from_bool = matches!(&x.kind, K::Cast(b) if b.dtype() == Some(DType::Bool));
        match d.kind() {
            _ if from_bool => format!("(-{code})"),
            Kind::Int | Kind::UInt => {
                let u64t = value_type(DType::U64, dialect);
                let i64t = value_type(DType::I64, dialect);
                let negated = format!("(({u64t})0 - ({u64t})({i64t})({code}))");
                let bits = 8 * d.itemsize();
                if d.kind() == Kind::Int && bits < 64 {
                    // Signed: truncated and sign-extended by arithmetic, not by a cast:
                    // NVRTC 13 folds `(long long)(short)(0ULL - x)` into `-x` and gives
                    // 32768 for -int16(-32768) (hand-written CUDA C too).
                    let sign = 1u64 << (bits - 1);
                    let mask = (1u64 << bits) - 1;
                    return format!(
                        "(({i64t})(({negated} & ({u64t}){mask}UL) ^ ({u64t}){sign}UL) - ({i64t}){sign}L)"
                    );
                }
                format!("(({}){negated})", value_type(d, dialect))
            }
            // CUDA's complex structs have no unary minus.
            Kind::Complex => format!("ember_make_{}(-({code}).x, -({code}).y)", d.name()),
            _ => format!("(-{code})"),
        }
    }

    fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, t: DType) -> String {
        let (x, y) = (self.expr(l), self.expr(r));
        let sym = op.symbol();
        let bits = t.itemsize() * 8;
        let complex = t.kind() == Kind::Complex;
        match op {
            BinOp::Div if complex => format!("ember_cdiv{bits}({x}, {y})"),
            BinOp::Mult if complex => format!("ember_cmul{bits}({x}, {y})"),
            BinOp::Add | BinOp::Sub | BinOp::Mult if t.kind() == Kind::Int => {
                // Numba's integers wrap; C's signed overflow is undefined, and compilers use
                // that (`a + a == 0` only for `a == 0`): compute in the unsigned type.
                let st = value_type(t, self.e.dialect);
                let u = value_type(t.unsigned_twin(), self.e.dialect);
                format!("(({st})(({u}){x} {sym} ({u}){y}))")
            }
            BinOp::FloorDiv => format!("ember_floordiv_{}({x}, {y})", t.name()),
            BinOp::Mod => format!("ember_mod_{}({x}, {y})", t.name()),
            BinOp::Pow if integral(t) || r.dtype().is_some_and(integral) => {
                format!("ember_ipow_{}({x}, {y})", t.name())
            }
            BinOp::Pow => format!("{}({x}, {y})", self.math_name("pow", t)),
            _ => format!("({x} {sym} {y})"),
        }
    }

    fn geometry(&self, g: Geometry) -> String {
        let t = self.e.dialect.table();
        let int = |what: &str, k: usize| format!("(int){}", t.axis(what, k));
        let long = |what: &str, k: usize| format!("({}){}", t.int64, t.axis(what, k));
        match g {
            Geometry::ThreadIdx(k) => int(t.thread_idx, k),
            Geometry::BlockIdx(k) => int(t.block_idx, k),
            Geometry::BlockDim(k) => int(t.block_dim, k),
            Geometry::GridDim(k) => int(t.grid_dim, k),
            Geometry::Grid(k) => format!("({})", long(t.global_index, k)),
            Geometry::GridSize(k) => format!("({})", long(t.global_extent, k)),
            Geometry::LaneId => "ember_laneid()".into(),
            Geometry::CoarseThreadIdx(copy) => {
                let Some(plan) = self.e.ir.coarse else {
                    return String::new();
                };
                let (tid, bdim) = (int(t.thread_idx, plan.axis), int(t.block_dim, plan.axis));
                match plan.mapping {
                    Mapping::Strided => format!("({tid} + {copy} * {bdim})"),
                    Mapping::Adjacent => format!("({tid} * {} + {copy})", plan.factor),
                }
            }
            Geometry::CoarseBlockDim => {
                let Some(plan) = self.e.ir.coarse else {
                    return String::new();
                };
                format!("({} * {})", int(t.block_dim, plan.axis), plan.factor)
            }
            Geometry::CoarseGrid { copy, axis } => {
                let Some(plan) = self.e.ir.coarse else {
                    return String::new();
                };
                let f = plan.factor;
                let [block, tid, bdim, groups] =
                    [t.block_idx, t.thread_idx, t.block_dim, t.grid_dim]
                        .map(|what| long(what, axis));
                match (copy, plan.mapping) {
                    (None, _) => format!("({groups} * {bdim} * {f})"),
                    // Written as (hardware index) * factor + k, so the C compiler sees
                    // neighbours.
                    (Some(k), Mapping::Adjacent) => {
                        format!("(({block} * {bdim} + {tid}) * {f} + {k})")
                    }
                    (Some(k), Mapping::Strided) => {
                        format!("({block} * {bdim} * {f} + {tid} + {k} * {bdim})")
                    }
                }
            }
        }
    }

    fn sync(&mut self, s: &Sync) -> String {
        let t = self.e.dialect.table();
        match s {
            Sync::Threads => t.barrier.to_string(),
            Sync::Warp(mask) => match t.warp_barrier {
                Some(warp) => {
                    let mask = match mask {
                        Some(m) => format!("(unsigned int)({})", self.expr(m)),
                        None => "0xffffffffu".into(),
                    };
                    warp.replace("{mask}", &mask)
                }
                // Without warps (OpenCL 1.2) the whole work-group waits.
                None => t.barrier.to_string(),
            },
            Sync::Fence(level) => t.fences[*level].to_string(),
            Sync::Grid => "ember_grid_sync()".to_string(),
        }
    }
}

/// Atomics on shared memory use the block-scope forms; everything else global ones.
fn atomic_space(space: Space) -> Space {
    if space == Space::Shared {
        Space::Shared
    } else {
        Space::Global
    }
}

/// `text` as a C string literal.
fn c_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // No trigraphs ("??=") in OpenCL C's C99 preprocessor.
            '?' => out.push_str("\\?"),
            c if (c as u32) < 0x20 || (c as u32) == 0x7f => {
                out.push_str(&format!("\\{:03o}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
