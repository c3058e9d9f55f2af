//! Calls: device functions, Python builtins, dtype casts and the `cuda` intrinsics, each
//! dispatched by name; [`math`] types `math` and NumPy scalar functions, [`geometry`] the
//! thread geometry (`cuda.grid`, coarsened indices), [`memory`] shared/local arrays and
//! atomics, [`random`] the xoroshiro128+ draws, [`bits`] Numba's scalar device functions
//! (bit operations, `fma`, `selp`...), [`warp`] warp-level intrinsics and block votes,
//! [`half`] `cuda.fp16`, [`hints`] cache-hinted loads and stores, [`cmath`] Python's `cmath`,
//! [`print`] `print()`.

mod alloc;
mod bits;
mod cmath;
mod eye;
mod from_items;
mod geometry;
mod half;
mod hints;
mod host_arrays;
mod instance;
mod math;
mod memory;
mod print;
mod random;
mod ranges;
mod ufunc_out;
mod warp;

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, Expr, ExprKind, Keyword, Span};
use crate::error::{at, Fail, R};
use crate::helpers::Helper;
use crate::ir::{Const, ExprKind as K, Geometry, Sync};
use crate::types::{dtype_named, Ty, BOOL, INT32, INT64};
use crate::typing::expr::int_literal;
use crate::typing::{FnTyper, Val};

impl FnTyper<'_, '_> {
    /// An intrinsic used as a value (not called).
    pub(crate) fn intrinsic_value(&mut self, name: &str, span: Span) -> R<Val> {
        if let Some((group, axis)) = name
            .strip_prefix("cuda.")
            .and_then(|n| n.split_once('.'))
            .filter(|(g, _)| matches!(*g, "threadIdx" | "blockIdx" | "blockDim" | "gridDim"))
        {
            let k = match axis {
                "x" => 0,
                "y" => 1,
                "z" => 2,
                _ => {
                    return at(
                        span,
                        format!("cuda.{group} has no attribute '{axis}' (it has x, y, z)"),
                    )
                }
            };
            let g = match group {
                "threadIdx" => Geometry::ThreadIdx(k),
                "blockIdx" => Geometry::BlockIdx(k),
                "blockDim" => Geometry::BlockDim(k),
                _ => Geometry::GridDim(k),
            };
            return Ok(Val::new(INT32, K::Geometry(g)).nonneg(true));
        }
        if let Some(rest) = name.strip_prefix("ember.coarse.") {
            let g = self.coarse_geometry(rest, span)?;
            return Ok(Val::new(INT32, K::Geometry(g)).nonneg(true));
        }
        match name {
            "cuda.warpsize" => Ok(Val::constant(INT32, Const::Count(32)).nonneg(true)),
            "cuda.laneid" => {
                self.c.uses.helpers.insert(Helper::LaneId);
                Ok(Val::new(INT32, K::Geometry(Geometry::LaneId)).nonneg(true))
            }
            "cuda.threadIdx" | "cuda.blockIdx" | "cuda.blockDim" | "cuda.gridDim" => at(
                span,
                format!("{name} is used here as a whole, which only print() takes: read {name}.x, .y or .z"),
            ),
            _ if name.starts_with("dtype.") => at(
                span,
                format!("{} is a type: call it to convert a value", &name[6..]),
            ),
            _ => at(span, format!("{} must be called", display(name))),
        }
    }

    /// `func(args, keywords)`.
    pub(crate) fn call(
        &mut self,
        func: &Expr,
        args: &[Expr],
        keywords: &[Keyword],
        span: Span,
    ) -> R<Val> {
        if args
            .iter()
            .any(|a| matches!(a.kind, ExprKind::Starred { .. }))
        {
            let args = self.unstarred(args)?;
            return self.call(func, &args, keywords, span);
        }
        match &func.kind {
            ExprKind::Func { id } => self.call_device(*id, args, keywords, span),
            ExprKind::Extern { id } if keywords.is_empty() => self.call_extern(*id, args, span),
            ExprKind::Intrinsic { name } => self.call_intrinsic(name, args, keywords, span),
            ExprKind::Attribute { value, attr } => {
                let v = self.expr(value)?;
                match (&v.ty, attr.as_str()) {
                    (Ty::Scalar(d), "conjugate") if d.kind() == Kind::Complex && args.is_empty() => {
                        Ok(Val::new(v.ty.clone(), K::Conj(v.boxed())))
                    }
                    (Ty::Scalar(_), "conjugate") if args.is_empty() => Ok(v),
                    (Ty::Scalar(_), "bit_count") if args.is_empty() => self.bit_count(v, span),
                    (Ty::Group, "sync") if args.is_empty() => Ok(Val::new(Ty::None, K::Sync(Sync::Grid))),
                    (Ty::Array(_), m) if self.c.host => {
                        if let Some(v) = self.host_array_method(&v, m, args, keywords, span) {
                            return v;
                        }
                        at(span, format!("{} has no method '{m}' in @njit functions", v.ty))
                    }
                    (Ty::Array(a), "copy") if args.is_empty() => {
                        let a = a.clone();
                        self.copied_array(&v, &a, span)
                    }
                    (Ty::Array(a), "view") if args.len() == 1 && a.fixed.is_none() => {
                        // NumPy's view: the same memory as another dtype.
                        let a = a.clone();
                        let to = match &args[0].kind {
                            ExprKind::Intrinsic { name } => {
                                name.strip_prefix("dtype.").and_then(crate::types::dtype_named)
                            }
                            _ => None,
                        };
                        let Some(to) = to else {
                            return at(span, "array.view() takes a dtype such as np.int32 in kernels");
                        };
                        let rescale = to.itemsize() != a.dtype.itemsize();
                        if rescale && a.ndim == 0 {
                            return at(span, "a 0-d array can only be viewed as a dtype of the same size");
                        }
                        self.reinterpreted(&v, &a, to, 0, rescale)
                    }
                    (t, m) => at(span, format!("{t} has no method '{m}' in kernels")),
                }
            }
            ExprKind::Name { id } => at(
                span,
                format!("'{id}' is a local variable, not a function: kernels call device functions (@cuda.jit(device=True)), math functions and cuda intrinsics"),
            ),
            ExprKind::Unsupported { what } => {
                at(span, format!("{what} is not supported in {}", self.c.realm()))
            }
            _ => at(span, "this cannot be called in a kernel"),
        }
    }

    /// `f(a, *t)`: the arguments with each starred tuple's items in its place (the tuple
    /// evaluated once).
    fn unstarred(&mut self, args: &[Expr]) -> R<Vec<Expr>> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            let ExprKind::Starred { value } = &a.kind else {
                out.push(a.clone());
                continue;
            };
            let v = self.expr(value)?;
            let Ty::Tuple(items) = v.ty.clone() else {
                return at(
                    a.span,
                    format!("*{} in a call: kernels unpack tuples only", v.ty),
                );
            };
            let t = self.temp(&v)?;
            for (i, ty) in items.into_iter().enumerate() {
                self.bound.push(Val::new(ty, K::Item(t.boxed(), i)));
                out.push(Expr {
                    kind: ExprKind::Bound {
                        slot: self.bound.len() - 1,
                    },
                    span: a.span,
                });
            }
        }
        Ok(out)
    }

    fn values(&mut self, args: &[Expr]) -> R<Vec<Val>> {
        args.iter().map(|a| self.expr(a)).collect()
    }

    fn call_device(
        &mut self,
        id: usize,
        args: &[Expr],
        keywords: &[Keyword],
        span: Span,
    ) -> R<Val> {
        let callee = &self.c.program.functions[id];
        let params = callee.params.clone();
        let callee_name = callee.name.clone();
        let mut slots: Vec<Option<&Expr>> = vec![None; params.len()];
        if args.len() > params.len() {
            return at(
                span,
                format!(
                    "{callee_name}() takes {} argument(s) but {} were given",
                    params.len(),
                    args.len()
                ),
            );
        }
        for (i, a) in args.iter().enumerate() {
            slots[i] = Some(a);
        }
        for k in keywords {
            let Some(i) = params.iter().position(|p| *p == k.name) else {
                return at(
                    span,
                    format!(
                        "{callee_name}() got an unexpected keyword argument '{}'",
                        k.name
                    ),
                );
            };
            if slots[i].is_some() {
                return at(
                    span,
                    format!(
                        "{callee_name}() got multiple values for argument '{}'",
                        k.name
                    ),
                );
            }
            slots[i] = Some(&k.value);
        }
        let mut vals = Vec::new();
        for (i, s) in slots.iter().enumerate() {
            match s {
                // A host function's argument may be None or optional, as its value.
                Some(e) if self.c.host => vals.push(self.expr_raw(e)?),
                Some(e) => vals.push(self.expr(e)?),
                None => {
                    return at(
                        span,
                        format!("{callee_name}() is missing argument '{}'", params[i]),
                    )
                }
            }
        }
        let tys: Vec<Ty> = vals.iter().map(|v| v.ty.clone()).collect();
        let (index, ret) = self.c.specialise(id, &tys).map_err(|e| e.at_call(span))?;
        if self.final_pass && !self.calls.contains(&index) {
            self.calls.push(index);
        }
        let args = vals.iter().map(Val::expr).collect();
        Ok(Val::new(ret, K::Call(index, args)))
    }

    fn call_intrinsic(
        &mut self,
        name: &str,
        args: &[Expr],
        keywords: &[Keyword],
        span: Span,
    ) -> R<Val> {
        if alloc::is_allocation(name) {
            return self.allocate(name, args, keywords, span);
        }
        if self.c.host {
            if let Some(v) = self.host_array_function(name, args, keywords, span) {
                return v;
            }
        } else if let Some(f) = name
            .strip_prefix("np.")
            .filter(|f| crate::typing::arrays::reduce::is_reduction(f))
        {
            return at(
                span,
                format!("np.{f}() is not supported in kernels: reduce with a loop (and atomics), or call ember.{f} on the host"),
            );
        }
        self.call_scalar_intrinsic(name, args, keywords, span)
    }

    /// The intrinsics of numbers, tuples and kernels (all but the array makers and whole-array
    /// functions).
    fn call_scalar_intrinsic(
        &mut self,
        name: &str,
        args: &[Expr],
        keywords: &[Keyword],
        span: Span,
    ) -> R<Val> {
        let kw = |k: &str| keywords.iter().find(|x| x.name == k).map(|x| &x.value);
        if !keywords.is_empty()
            && !matches!(
                name,
                "cuda.shared.array" | "cuda.local.array" | "builtin.round"
            )
        {
            return at(
                span,
                format!("{} takes no keyword arguments in kernels", display(name)),
            );
        }
        if let Some(d) = name.strip_prefix("dtype.") {
            let d = dtype_named(d)
                .ok_or_else(|| Fail::At(span, format!("dtype {d} is not supported in kernels")))?;
            let [v] = self.exactly::<1>(name, args, span)?;
            self.scalar_arg(&v, name, span)?;
            if v.ty.scalar().and_then(DType::datetime).is_some() {
                return self.date_cast(&v, d, span);
            }
            return Ok(self
                .cast_to(&v, d)
                .nonneg(v.nonneg && d.kind() != Kind::Float));
        }
        if let Some(m) = name.strip_prefix("cmath.") {
            return self.cmath(m, name, args, span);
        }
        if let Some(u) = name
            .strip_prefix("np.")
            .and_then(|m| ember_codegen::ufuncs::ufunc(m).ok())
            .filter(|u| u.nout == 1 && args.len() == u.nin + 1)
        {
            return self.ufunc_into(u, name, args, span);
        }
        if let Some(m) = name
            .strip_prefix("math.")
            .or_else(|| name.strip_prefix("np."))
        {
            let v = self.math(m, name, args, span)?;
            return Ok(self.round_narrow(v));
        }
        if let Some(v) = self.scalar_intrinsic(name, args, span) {
            return v;
        }
        if let Some(v) = self.warp_intrinsic(name, args, span) {
            return v;
        }
        match name {
            "builtin.range" | "builtin.prange" => {
                at(span, "range() can only be used in a for loop in kernels")
            }
            "builtin.isinstance" => self.isinstance(args, span),
            "builtin.len" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                match &v.ty {
                    Ty::Array(a) if a.ndim > 0 => {
                        let a = a.clone();
                        Ok(self.dim(&v, &a, 0))
                    }
                    Ty::Tuple(items) => {
                        Ok(Val::constant(INT64, Const::Count(items.len() as u64)).nonneg(true))
                    }
                    t => at(span, format!("len() of {t} is not defined")),
                }
            }
            "builtin.abs" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let d = self.scalar_arg(&v, name, span)?;
                Ok(match d.kind() {
                    Kind::Bool => self.cast_to(&v, DType::I8).nonneg(true),
                    Kind::Int => {
                        self.c.uses.helpers.insert(Helper::Abs(d));
                        Val::new(v.ty.clone(), K::Abs(v.boxed())).nonneg(true)
                    }
                    Kind::UInt => v.nonneg(true),
                    Kind::Float => Val::new(v.ty.clone(), K::Abs(v.boxed())).nonneg(true),
                    Kind::Complex => {
                        let part = if d == DType::C64 {
                            DType::F32
                        } else {
                            DType::F64
                        };
                        // Both parts are read: evaluated once.
                        let t = self.temp(&v)?;
                        Val::new(Ty::Scalar(part), K::Abs(t.boxed())).nonneg(true)
                    }
                    Kind::Opaque => return self.date_abs(&v, span),
                })
            }
            "builtin.min" | "builtin.max" => self.min_max(name == "builtin.max", args, span),
            "builtin.round" => self.round(args, kw("ndigits"), span),
            "builtin.int" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let d = self.scalar_arg(&v, name, span)?;
                match d.kind() {
                    Kind::Int | Kind::UInt => Ok(v),
                    Kind::Opaque => self.date_to_int(&v, span),
                    Kind::Complex => at(span, "int() of a complex number is not defined"),
                    _ => Ok(self.cast_to(&v, DType::I64).nonneg(v.nonneg)),
                }
            }
            "builtin.float" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let d = self.scalar_arg(&v, name, span)?;
                match d.kind() {
                    Kind::Float => Ok(v),
                    Kind::Complex => at(span, "float() of a complex number is not defined"),
                    Kind::Opaque => at(span, format!("float() of {} is not defined", v.ty)),
                    _ => Ok(self.cast_to(&v, DType::F64).nonneg(v.nonneg)),
                }
            }
            "builtin.bool" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                self.truth_of(&v, span)?;
                if let Ty::Tuple(items) = &v.ty {
                    // A tuple is true when it has items (its length is its type's).
                    let full = !items.is_empty();
                    self.temp(&v)?;
                    return Ok(Val::constant(BOOL, Const::Bool(full)).nonneg(true));
                }
                Ok(Val::new(BOOL, K::Bool(v.boxed())).nonneg(true))
            }
            "builtin.complex" => {
                let vals = self.values(args)?;
                if vals.is_empty() || vals.len() > 2 {
                    return at(span, "complex() takes 1 or 2 arguments in kernels");
                }
                let mut kinds = Vec::new();
                for v in &vals {
                    kinds.push(self.scalar_arg(v, name, span)?.kind());
                }
                match (vals.len(), kinds.contains(&Kind::Complex)) {
                    (1, true) => return Ok(vals[0].clone()),
                    (_, true) => {
                        return at(
                            span,
                            "complex() of complex parts is not supported in kernels; write re + im * 1j",
                        )
                    }
                    _ => {}
                }
                let all_f32 = vals.iter().all(|v| v.ty.scalar() == Some(DType::F32));
                let (c, part) = if all_f32 {
                    (DType::C64, DType::F32)
                } else {
                    (DType::C128, DType::F64)
                };
                self.c.uses.dtypes.insert(c);
                let re = self.cast_to(&vals[0], part);
                let im = vals.get(1).map(|v| self.cast_to(v, part).boxed());
                Ok(Val::new(Ty::Scalar(c), K::Complex(re.boxed(), im)))
            }
            "builtin.pow" => {
                let [a, b] = self.exactly::<2>(name, args, span)?;
                self.binop(BinOp::Pow, a, b, span)
            }
            "builtin.print" => self.print(args),
            _ if name.starts_with("operator.") => self.operator(&name[9..], args, span),
            "builtin.divmod" => {
                let [a, b] = self.exactly::<2>(name, args, span)?;
                let (a, b) = (self.temp(&a)?, self.temp(&b)?);
                let q = self.binop(BinOp::FloorDiv, a.clone(), b.clone(), span)?;
                let r = self.binop(BinOp::Mod, a, b, span)?;
                Ok(self.make_tuple(vec![q, r]))
            }
            // `ember.coarse.grid.<k>` / `ember.coarse.gridsize`: the same in a coarsened kernel.
            _ if matches!(name, "cuda.grid" | "cuda.gridsize")
                || name.starts_with("ember.coarse.grid") =>
            {
                let copy = name
                    .strip_prefix("ember.coarse.grid.")
                    .and_then(|k| k.parse().ok());
                let n = args
                    .first()
                    .and_then(int_literal)
                    .filter(|n| (1..=3).contains(n) && args.len() == 1)
                    .ok_or_else(|| {
                        Fail::At(
                            span,
                            format!(
                                "{}() takes one constant argument, 1, 2 or 3 (RequireLiteralValue: the number of dimensions must be a literal)",
                                display(name)
                            ),
                        )
                    })?;
                let items: Vec<Val> = (0..n as usize)
                    .map(|k| {
                        let g = if name.starts_with("ember.coarse.") {
                            self.coarse_grid_axis(copy, k)
                        } else if name == "cuda.grid" {
                            Geometry::Grid(k)
                        } else {
                            Geometry::GridSize(k)
                        };
                        Val::new(INT64, K::Geometry(g)).nonneg(true)
                    })
                    .collect();
                Ok(if n == 1 {
                    items
                        .into_iter()
                        .next()
                        .unwrap_or_else(|| Val::constant(INT64, Const::Count(0)))
                } else {
                    self.make_tuple(items)
                })
            }
            "cuda.syncthreads"
            | "cuda.syncwarp"
            | "cuda.threadfence"
            | "cuda.threadfence_block"
            | "cuda.threadfence_system" => {
                let sync = match name {
                    "cuda.syncthreads" => Sync::Threads,
                    "cuda.syncwarp" => Sync::Warp(match args.first() {
                        Some(m) => Some(self.expr(m)?.boxed()),
                        None => None,
                    }),
                    "cuda.threadfence" => Sync::Fence(0),
                    "cuda.threadfence_block" => Sync::Fence(1),
                    _ => Sync::Fence(2),
                };
                if name != "cuda.syncwarp" && !args.is_empty() {
                    return at(span, format!("{}() takes no arguments", display(name)));
                }
                Ok(Val::new(Ty::None, K::Sync(sync)))
            }
            "cuda.shared.array" | "cuda.local.array" => {
                let shape = args
                    .first()
                    .or_else(|| kw("shape"))
                    .ok_or_else(|| Fail::At(span, format!("{}() needs a shape", display(name))))?;
                let dtype = args
                    .get(1)
                    .or_else(|| kw("dtype"))
                    .ok_or_else(|| Fail::At(span, format!("{}() needs a dtype", display(name))))?;
                self.new_array(
                    name == "cuda.shared.array",
                    shape,
                    dtype,
                    kw("alignment"),
                    span,
                )
            }
            "cuda.cg.this_grid" => {
                if !args.is_empty() {
                    return at(span, "cuda.cg.this_grid() takes no arguments");
                }
                if self.c.dialect != ember_codegen::Dialect::Cuda {
                    return at(span, "cuda.cg.this_grid() needs CUDA's cooperative launch: OpenCL has no grid-wide barrier (split the kernel in two launches)");
                }
                self.c.uses.helpers.insert(Helper::GridSync);
                Ok(Val::constant(Ty::Group, Const::Count(0)))
            }
            "cuda.const.array_like" => match args {
                [Expr {
                    kind: ExprKind::Array { id },
                    span: s,
                }] => self.expr(&Expr {
                    kind: ExprKind::Array { id: *id },
                    span: *s,
                }),
                _ => at(
                    span,
                    "cuda.const.array_like() takes one NumPy array from the module's globals",
                ),
            },
            _ if name.starts_with("cuda.atomic.") => self.atomic(&name[12..], args, span),
            _ if name.starts_with("cuda.random.") => self.random(&name[12..], args, span),
            _ if name.starts_with("cuda.fp16.") => self.fp16(&name[10..], args, span),
            _ if hints::is_hint(name) => self.cache_hint(name, args, span),
            _ => at(
                span,
                format!("{} is not supported in {}", display(name), self.c.realm()),
            ),
        }
    }

    fn exactly<const N: usize>(&mut self, name: &str, args: &[Expr], span: Span) -> R<[Val; N]> {
        if args.len() != N {
            return at(
                span,
                format!(
                    "{}() takes {N} argument(s), {} given",
                    display(name),
                    args.len()
                ),
            );
        }
        let vals = self.values(args)?;
        vals.try_into()
            .map_err(|_| Fail::At(span, "argument count mismatch".to_string()))
    }

    fn scalar_arg(&self, v: &Val, name: &str, span: Span) -> R<DType> {
        v.ty.scalar().ok_or_else(|| {
            Fail::At(
                span,
                format!("{}() takes numbers, got {}", display(name), v.ty),
            )
        })
    }
}

/// An intrinsic's name as the user wrote it.
fn display(name: &str) -> String {
    name.strip_prefix("builtin.")
        .or_else(|| name.strip_prefix("dtype."))
        .unwrap_or(name)
        .to_string()
}

impl FnTyper<'_, '_> {
    /// A call of a CUDA C device function (`cuda.declare_device`): the arguments converted to
    /// its declared types; its sources and wrapper join the kernel's source.
    fn call_extern(&mut self, id: usize, args: &[Expr], span: Span) -> R<Val> {
        let e = self.c.program.externs[id].clone();
        if self.c.dialect != ember_codegen::Dialect::Cuda {
            return at(
                span,
                format!(
                    "{}() is CUDA C (cuda.declare_device): it compiles on the CUDA backend only; this device is an OpenCL device",
                    e.name
                ),
            );
        }
        let dtype = |n: &str| {
            crate::types::dtype_named(n).ok_or_else(|| {
                Fail::At(
                    span,
                    format!(
                        "{}() is declared with type {n}, which kernels cannot pass",
                        e.name
                    ),
                )
            })
        };
        let params = e.args.iter().map(|a| dtype(a)).collect::<R<Vec<DType>>>()?;
        let ret = e.ret.as_deref().map(dtype).transpose()?;
        if args.len() != params.len() {
            return at(
                span,
                format!(
                    "{}() takes {} argument(s), {} given",
                    e.name,
                    params.len(),
                    args.len()
                ),
            );
        }
        let mut exprs = Vec::new();
        for (a, &p) in args.iter().zip(&params) {
            let v = self.expr(a)?;
            self.scalar_arg(&v, &e.name, span)?;
            exprs.push(self.cast_to(&v, p).expr());
        }
        for s in &e.sources {
            self.c.uses.helpers.insert(Helper::Text(s.clone()));
        }
        let wrapper = crate::externs::wrapper(&e, &params, ret);
        self.c.uses.helpers.insert(Helper::Text(wrapper));
        let ty = ret.map_or(Ty::None, Ty::Scalar);
        Ok(Val::new(ty, K::External(e.name.clone(), exprs)))
    }
}
