//! Calls: device functions, Python builtins, `math`, NumPy scalar functions, dtype casts,
//! and the `cuda` intrinsics (thread indices, barriers, shared/local/constant arrays,
//! atomics, random numbers).

use ember_codegen::types::value_type;
use ember_codegen::Dialect;
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, Expr, ExprKind, Keyword, Span};
use crate::coarsen::Mapping;
use crate::compiler::fixed_array;
use crate::error::{at, Fail, R};
use crate::expr::{const_ints, int_literal};
use crate::function::{FnCompiler, Val};
use crate::helpers::{atomic_name, cas_name, AtomicOp, Helper};
use crate::types::{dtype_named, promote, ArrayTy, Layout, Space, Ty, BOOL, FLOAT64, INT32, INT64};

/// How a `math` function types its arguments.
#[derive(Clone, Copy, PartialEq)]
enum MathKind {
    /// float32 -> float32 (float16 -> float16), anything else -> float64.
    Unary,
    /// Both arguments to one float type.
    Binary,
    /// float -> bool.
    Test,
}

/// `math` (and the NumPy scalar functions spelled like them): Python name -> (C name, kind).
fn math_function(name: &str) -> Option<(&'static str, MathKind)> {
    use MathKind::*;
    Some(match name {
        "sqrt" => ("sqrt", Unary),
        "exp" => ("exp", Unary),
        "exp2" => ("exp2", Unary),
        "expm1" => ("expm1", Unary),
        "log" => ("log", Unary),
        "log2" => ("log2", Unary),
        "log10" => ("log10", Unary),
        "log1p" => ("log1p", Unary),
        "sin" => ("sin", Unary),
        "cos" => ("cos", Unary),
        "tan" => ("tan", Unary),
        "asin" | "arcsin" => ("asin", Unary),
        "acos" | "arccos" => ("acos", Unary),
        "atan" | "arctan" => ("atan", Unary),
        "sinh" => ("sinh", Unary),
        "cosh" => ("cosh", Unary),
        "tanh" => ("tanh", Unary),
        "asinh" | "arcsinh" => ("asinh", Unary),
        "acosh" | "arccosh" => ("acosh", Unary),
        "atanh" | "arctanh" => ("atanh", Unary),
        "erf" => ("erf", Unary),
        "erfc" => ("erfc", Unary),
        "gamma" => ("tgamma", Unary),
        "lgamma" => ("lgamma", Unary),
        "floor" => ("floor", Unary),
        "ceil" => ("ceil", Unary),
        "trunc" => ("trunc", Unary),
        "fabs" => ("fabs", Unary),
        "cbrt" => ("cbrt", Unary),
        "rint" => ("rint", Unary),
        "atan2" | "arctan2" => ("atan2", Binary),
        "hypot" => ("hypot", Binary),
        "copysign" => ("copysign", Binary),
        "fmod" => ("fmod", Binary),
        "remainder" => ("remainder", Binary),
        "nextafter" => ("nextafter", Binary),
        "pow" | "power" => ("pow", Binary),
        "isnan" => ("isnan", Test),
        "isinf" => ("isinf", Test),
        "isfinite" => ("isfinite", Test),
        _ => return None,
    })
}

impl FnCompiler<'_, '_> {
    /// An intrinsic used as a value (not called).
    pub(crate) fn intrinsic_value(&mut self, name: &str, span: Span) -> R<Val> {
        let cuda = self.c.dialect == Dialect::Cuda;
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
            let code = if cuda {
                format!("(int){group}.{axis}")
            } else {
                let f = match group {
                    "threadIdx" => "get_local_id",
                    "blockIdx" => "get_group_id",
                    "blockDim" => "get_local_size",
                    _ => "get_num_groups",
                };
                format!("(int){f}({k})")
            };
            return Ok(Val::new(INT32, code).nonneg(true));
        }
        if let Some(rest) = name.strip_prefix("ember.coarse.") {
            return Ok(Val::new(INT32, self.coarse_geometry(rest, span)?).nonneg(true));
        }
        match name {
            "cuda.warpsize" => Ok(Val::new(INT32, "32").nonneg(true)),
            "cuda.laneid" => {
                self.c.helpers.insert(Helper::LaneId);
                Ok(Val::new(INT32, "ember_laneid()").nonneg(true))
            }
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
        match &func.kind {
            ExprKind::Func { id } => self.call_device(*id, args, keywords, span),
            ExprKind::Intrinsic { name } => self.call_intrinsic(name, args, keywords, span),
            ExprKind::Attribute { value, attr } => {
                let v = self.expr(value)?;
                match (&v.ty, attr.as_str()) {
                    (Ty::Scalar(d), "conjugate") if d.kind() == Kind::Complex && args.is_empty() => {
                        Ok(Val::new(v.ty.clone(), format!("ember_make_{}(({}).x, -({}).y)", d.name(), v.code, v.code)))
                    }
                    (Ty::Scalar(_), "conjugate") if args.is_empty() => Ok(v),
                    (t, m) => at(span, format!("{t} has no method '{m}' in kernels")),
                }
            }
            ExprKind::Name { id } => at(
                span,
                format!("'{id}' is a local variable, not a function: kernels call device functions (@cuda.jit(device=True)), math functions and cuda intrinsics"),
            ),
            ExprKind::Unsupported { what } => {
                at(span, format!("{what} is not supported in kernels"))
            }
            _ => at(span, "this cannot be called in a kernel"),
        }
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
        let (index, ret) = self.c.specialise(id, &tys)?;
        if self.emit && !self.calls.contains(&index) {
            self.calls.push(index);
        }
        let name = self.c.specs[index].name.clone();
        let codes: Vec<String> = vals.into_iter().map(|v| v.code).collect();
        Ok(Val::new(ret, format!("{name}({})", codes.join(", "))))
    }

    fn call_intrinsic(
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
            let code = self.scalar_arg(&v, name, span)?;
            let _ = code;
            return Ok(Val::new(Ty::Scalar(d), self.cast_to(&v, d))
                .nonneg(v.nonneg && d.kind() != Kind::Float));
        }
        if let Some(m) = name
            .strip_prefix("math.")
            .or_else(|| name.strip_prefix("np."))
        {
            let v = self.math(m, name, args, span)?;
            return Ok(self.round_half(v));
        }
        match name {
            "builtin.range" => at(span, "range() can only be used in a for loop in kernels"),
            "builtin.len" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                match &v.ty {
                    Ty::Array(a) if a.ndim > 0 => {
                        let a = a.clone();
                        Ok(Val::new(INT64, self.dim(&v, &a, 0)).nonneg(true))
                    }
                    Ty::Tuple(items) => Ok(Val::new(INT64, items.len().to_string()).nonneg(true)),
                    t => at(span, format!("len() of {t} is not defined")),
                }
            }
            "builtin.abs" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let d = self.scalar_arg(&v, name, span)?;
                Ok(match d.kind() {
                    Kind::Bool => {
                        Val::new(Ty::Scalar(DType::I8), self.cast_to(&v, DType::I8)).nonneg(true)
                    }
                    Kind::Int => {
                        self.c.helpers.insert(Helper::Abs(d));
                        Val::new(v.ty.clone(), format!("ember_abs_{}({})", d.name(), v.code))
                            .nonneg(true)
                    }
                    Kind::UInt => v.nonneg(true),
                    Kind::Float => Val::new(
                        v.ty.clone(),
                        format!("{}({})", self.math_name("fabs", d), v.code),
                    )
                    .nonneg(true),
                    Kind::Complex => {
                        let part = if d == DType::C64 {
                            DType::F32
                        } else {
                            DType::F64
                        };
                        let t = self.temp(&v)?;
                        Val::new(
                            Ty::Scalar(part),
                            format!(
                                "{}({}.x, {}.y)",
                                self.math_name("hypot", part),
                                t.code,
                                t.code
                            ),
                        )
                        .nonneg(true)
                    }
                })
            }
            "builtin.min" | "builtin.max" => self.min_max(name == "builtin.max", args, span),
            "builtin.round" => self.round(args, kw("ndigits"), span),
            "builtin.int" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let d = self.scalar_arg(&v, name, span)?;
                match d.kind() {
                    Kind::Int | Kind::UInt => Ok(v),
                    Kind::Complex => at(span, "int() of a complex number is not defined"),
                    _ => Ok(Val::new(INT64, self.cast_to(&v, DType::I64)).nonneg(v.nonneg)),
                }
            }
            "builtin.float" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let d = self.scalar_arg(&v, name, span)?;
                match d.kind() {
                    Kind::Float => Ok(v),
                    Kind::Complex => at(span, "float() of a complex number is not defined"),
                    _ => Ok(Val::new(FLOAT64, self.cast_to(&v, DType::F64)).nonneg(v.nonneg)),
                }
            }
            "builtin.bool" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let t = self.truth_of(&v, span)?;
                Ok(Val::new(BOOL, format!("((unsigned char){t})")).nonneg(true))
            }
            "builtin.complex" => {
                let vals = self.values(args)?;
                if vals.is_empty() || vals.len() > 2 {
                    return at(span, "complex() takes 1 or 2 arguments in kernels");
                }
                let all_f32 = vals.iter().all(|v| v.ty.scalar() == Some(DType::F32));
                let (c, part) = if all_f32 {
                    (DType::C64, DType::F32)
                } else {
                    (DType::C128, DType::F64)
                };
                self.c.dtypes.insert(c);
                let re = self.cast_to(&vals[0], part);
                let im = match vals.get(1) {
                    Some(v) => self.cast_to(v, part),
                    None => "0".into(),
                };
                Ok(Val::new(
                    Ty::Scalar(c),
                    format!("ember_make_{}({re}, {im})", c.name()),
                ))
            }
            "builtin.pow" => {
                let [a, b] = self.exactly::<2>(name, args, span)?;
                self.binop(BinOp::Pow, a, b, span)
            }
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
                            format!("{}() takes one constant argument, 1, 2 or 3", display(name)),
                        )
                    })?;
                let items: Vec<Val> = (0..n as usize)
                    .map(|k| {
                        let code = if name.starts_with("ember.coarse.") {
                            self.coarse_grid_axis(copy, k)
                        } else {
                            self.grid_axis(name == "cuda.grid", k)
                        };
                        Val::new(INT64, code).nonneg(true)
                    })
                    .collect();
                Ok(if n == 1 {
                    items
                        .into_iter()
                        .next()
                        .unwrap_or_else(|| Val::new(INT64, "0"))
                } else {
                    self.make_tuple(items)
                })
            }
            "cuda.syncthreads"
            | "cuda.syncwarp"
            | "cuda.threadfence"
            | "cuda.threadfence_block"
            | "cuda.threadfence_system" => {
                let cuda = self.c.dialect == Dialect::Cuda;
                let code = match name {
                    "cuda.syncthreads" => self.c.dialect.table().barrier.to_string(),
                    "cuda.syncwarp" if cuda => match args.first() {
                        Some(m) => {
                            let m = self.expr(m)?;
                            format!("__syncwarp((unsigned int)({}))", m.code)
                        }
                        None => "__syncwarp(0xffffffffu)".into(),
                    },
                    // OpenCL 1.2 has no warps: the whole work-group waits.
                    "cuda.syncwarp" => "barrier(CLK_LOCAL_MEM_FENCE)".into(),
                    "cuda.threadfence" if cuda => "__threadfence()".into(),
                    "cuda.threadfence_block" if cuda => "__threadfence_block()".into(),
                    "cuda.threadfence_system" if cuda => "__threadfence_system()".into(),
                    "cuda.threadfence_block" => {
                        "mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)".into()
                    }
                    _ => "mem_fence(CLK_GLOBAL_MEM_FENCE)".into(),
                };
                if name != "cuda.syncwarp" && !args.is_empty() {
                    return at(span, format!("{}() takes no arguments", display(name)));
                }
                Ok(Val::new(Ty::None, code))
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
                self.new_array(name == "cuda.shared.array", shape, dtype, span)
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
            _ => at(
                span,
                format!("{} is not supported in kernels", display(name)),
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

    fn grid_axis(&self, grid: bool, k: usize) -> String {
        let axis = ["x", "y", "z"][k];
        match (self.c.dialect, grid) {
            (Dialect::Cuda, true) => {
                format!("((long long)blockIdx.{axis} * blockDim.{axis} + threadIdx.{axis})")
            }
            (Dialect::Cuda, false) => format!("((long long)gridDim.{axis} * blockDim.{axis})"),
            (Dialect::OpenCl, true) => format!("((long)get_global_id({k}))"),
            (Dialect::OpenCl, false) => format!("((long)get_global_size({k}))"),
        }
    }

    /// A coarsened kernel's logical thread index (`threadIdx.<k>`: copy k's) or block size
    /// along the coarsened axis, as C of type int.
    fn coarse_geometry(&self, what: &str, span: Span) -> R<String> {
        let Some(plan) = self.c.coarse else {
            return at(
                span,
                format!("ember.coarse.{what} outside a coarsened kernel"),
            );
        };
        let k = plan.axis;
        let (tid, bdim) = match self.c.dialect {
            Dialect::Cuda => (
                format!("(int)threadIdx.{}", ["x", "y", "z"][k]),
                format!("(int)blockDim.{}", ["x", "y", "z"][k]),
            ),
            Dialect::OpenCl => (
                format!("(int)get_local_id({k})"),
                format!("(int)get_local_size({k})"),
            ),
        };
        let f = plan.factor;
        if what == "blockDim" {
            return Ok(format!("({bdim} * {f})"));
        }
        let copy: u32 = what
            .strip_prefix("threadIdx.")
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| Fail::At(span, format!("unknown ember.coarse.{what}")))?;
        Ok(match plan.mapping {
            Mapping::Strided => format!("({tid} + {copy} * {bdim})"),
            Mapping::Adjacent => format!("({tid} * {f} + {copy})"),
        })
    }

    /// `cuda.grid` (copy `Some(k)`) or `cuda.gridsize` (`None`) along `axis` in a coarsened
    /// kernel: the logical block is `factor` times the hardware one along the coarsened axis.
    fn coarse_grid_axis(&self, copy: Option<u32>, axis: usize) -> String {
        let Some(plan) = self.c.coarse.filter(|p| p.axis == axis) else {
            return self.grid_axis(copy.is_some(), axis);
        };
        let a = ["x", "y", "z"][axis];
        let f = plan.factor;
        let (block, tid, bdim, groups) = match self.c.dialect {
            Dialect::Cuda => (
                format!("(long long)blockIdx.{a}"),
                format!("(long long)threadIdx.{a}"),
                format!("(long long)blockDim.{a}"),
                format!("(long long)gridDim.{a}"),
            ),
            Dialect::OpenCl => (
                format!("(long)get_group_id({axis})"),
                format!("(long)get_local_id({axis})"),
                format!("(long)get_local_size({axis})"),
                format!("(long)get_num_groups({axis})"),
            ),
        };
        match (copy, plan.mapping) {
            (None, _) => format!("({groups} * {bdim} * {f})"),
            // Written as (hardware index) * factor + k, so the C compiler sees neighbours.
            (Some(k), Mapping::Adjacent) => format!("(({block} * {bdim} + {tid}) * {f} + {k})"),
            (Some(k), Mapping::Strided) => {
                format!("({block} * {bdim} * {f} + {tid} + {k} * {bdim})")
            }
        }
    }

    fn math(&mut self, m: &str, name: &str, args: &[Expr], span: Span) -> R<Val> {
        match m {
            "degrees" | "radians" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let d = self.float_type(&v, name, span)?;
                let factor = if m == "degrees" {
                    180.0 / std::f64::consts::PI
                } else {
                    std::f64::consts::PI / 180.0
                };
                let x = self.cast_to(&v, d);
                return Ok(Val::new(
                    Ty::Scalar(d),
                    format!("({x} * {})", self.float_literal(factor, d)),
                ));
            }
            "log" if args.len() == 2 => {
                let [v, b] = self.exactly::<2>(name, args, span)?;
                let d = arith_float(
                    self.float_type(&v, name, span)?,
                    self.float_type(&b, name, span)?,
                );
                let f = self.math_name("log", d);
                let (x, y) = (self.cast_to(&v, d), self.cast_to(&b, d));
                return Ok(Val::new(Ty::Scalar(d), format!("({f}({x}) / {f}({y}))")));
            }
            "abs" | "absolute" => return self.call_intrinsic("builtin.abs", args, &[], span),
            "minimum" | "maximum" | "fmin" | "fmax" => {
                let [a, b] = self.exactly::<2>(name, args, span)?;
                let d = promote(
                    self.scalar_arg(&a, name, span)?,
                    self.scalar_arg(&b, name, span)?,
                );
                let (x, y) = (self.cast_to(&a, d), self.cast_to(&b, d));
                if d.kind() == Kind::Float {
                    let f = self.math_name(
                        if m.ends_with("max") || m == "maximum" {
                            "fmax"
                        } else {
                            "fmin"
                        },
                        d,
                    );
                    // np.maximum/minimum propagate NaN; fmax/fmin ignore it.
                    let code = if m.starts_with('f') {
                        format!("{f}({x}, {y})")
                    } else {
                        format!(
                            "(({x}) != ({x}) || ({y}) != ({y}) ? ({x}) + ({y}) : {f}({x}, {y}))"
                        )
                    };
                    return Ok(Val::new(Ty::Scalar(d), code));
                }
                let h = if m.ends_with("max") || m == "maximum" {
                    Helper::Max(d)
                } else {
                    Helper::Min(d)
                };
                let which = if matches!(h, Helper::Max(_)) {
                    "max"
                } else {
                    "min"
                };
                self.c.helpers.insert(h);
                return Ok(Val::new(
                    Ty::Scalar(d),
                    format!("ember_{which}_{}({x}, {y})", d.name()),
                ));
            }
            _ => {}
        }
        let Some((c_name, kind)) = math_function(m) else {
            return at(
                span,
                format!("{} is not supported in kernels", display(name)),
            );
        };
        match kind {
            MathKind::Unary => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let d = self.float_type(&v, name, span)?;
                let x = self.cast_to(&v, d);
                let f = self.math_name(c_name, d);
                let nonneg = matches!(c_name, "sqrt" | "exp" | "exp2" | "fabs");
                Ok(Val::new(Ty::Scalar(d), format!("{f}({x})")).nonneg(nonneg))
            }
            MathKind::Binary => {
                let [a, b] = self.exactly::<2>(name, args, span)?;
                let da = self.float_type(&a, name, span)?;
                // math.pow(float32, int32) stays float32 (Numba).
                let d = if c_name == "pow"
                    && b.ty.is_integral()
                    && matches!(a.ty.scalar(), Some(DType::F32 | DType::F64))
                {
                    da
                } else {
                    arith_float(da, self.float_type(&b, name, span)?)
                };
                let (x, y) = (self.cast_to(&a, d), self.cast_to(&b, d));
                let f = self.math_name(c_name, d);
                Ok(Val::new(Ty::Scalar(d), format!("{f}({x}, {y})")))
            }
            MathKind::Test => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let d = self.scalar_arg(&v, name, span)?;
                if d.kind() != Kind::Float {
                    let truth = c_name == "isfinite";
                    return Ok(
                        Val::new(BOOL, format!("((unsigned char){})", truth as u8)).nonneg(true)
                    );
                }
                Ok(Val::new(
                    BOOL,
                    format!("((unsigned char)({c_name}({}) != 0))", v.code),
                )
                .nonneg(true))
            }
        }
    }

    /// The float type a math function computes `v` in: float32 (and float16) keep their type,
    /// everything else is float64.
    fn float_type(&self, v: &Val, name: &str, span: Span) -> R<DType> {
        let d = self.scalar_arg(v, name, span)?;
        Ok(match d {
            DType::F32 | DType::F16 => d,
            _ if d.kind() == Kind::Complex => {
                return at(
                    span,
                    format!(
                        "{}() of a complex number is not supported in kernels",
                        display(name)
                    ),
                )
            }
            _ => DType::F64,
        })
    }

    fn min_max(&mut self, max: bool, args: &[Expr], span: Span) -> R<Val> {
        let mut vals = self.values(args)?;
        if vals.len() == 1 {
            if let Ty::Tuple(items) = vals[0].ty.clone() {
                let t = self.temp(&vals[0])?;
                vals = items
                    .into_iter()
                    .enumerate()
                    .map(|(i, ty)| Val::new(ty, format!("{}.f{i}", t.code)))
                    .collect();
            }
        }
        let which = if max { "max" } else { "min" };
        if vals.len() < 2 {
            return at(
                span,
                format!("{which}() needs at least two numbers (or one tuple) in kernels"),
            );
        }
        let mut d = self.scalar_arg(&vals[0], which, span)?;
        for v in &vals[1..] {
            let e = self.scalar_arg(v, which, span)?;
            if (d == DType::Bool) != (e == DType::Bool) {
                return at(
                    span,
                    format!("{which}() cannot mix booleans and numbers in kernels"),
                );
            }
            d = promote(d, e);
        }
        if d.kind() == Kind::Complex {
            return at(span, format!("{which}() of complex numbers is not defined"));
        }
        self.c
            .helpers
            .insert(if max { Helper::Max(d) } else { Helper::Min(d) });
        let nonneg = if max {
            vals.iter().any(|v| v.nonneg)
        } else {
            vals.iter().all(|v| v.nonneg)
        };
        let mut code = self.cast_to(&vals[0], d);
        for v in &vals[1..] {
            let c = self.cast_to(v, d);
            code = format!("ember_{which}_{}({code}, {c})", d.name());
        }
        Ok(Val::new(Ty::Scalar(d), code).nonneg(nonneg))
    }

    /// Python's `round`: half to even; an integer without digits, else the same float type.
    fn round(&mut self, args: &[Expr], ndigits: Option<&Expr>, span: Span) -> R<Val> {
        let digits = match (args.get(1), ndigits) {
            (Some(e), None) | (None, Some(e)) => Some(self.expr(e)?),
            (None, None) => None,
            _ => return at(span, "round() got ndigits twice"),
        };
        let Some(x) = args.first() else {
            return at(span, "round() needs a number");
        };
        let v = self.expr(x)?;
        let d = self.scalar_arg(&v, "round", span)?;
        match digits {
            None => {
                if d.kind() != Kind::Float {
                    return Ok(Val::new(INT64, self.cast_to(&v, DType::I64)).nonneg(v.nonneg));
                }
                let f = self.math_name("rint", d);
                Ok(Val::new(
                    INT64,
                    format!(
                        "(({})({f}({})))",
                        value_type(DType::I64, self.c.dialect),
                        v.code
                    ),
                ))
            }
            Some(n) => {
                let t = if d == DType::F32 {
                    DType::F32
                } else {
                    DType::F64
                };
                let x = self.cast_to(&v, t);
                let nd = self.cast_to(&n, t);
                let (rint, pow) = (self.math_name("rint", t), self.math_name("pow", t));
                let ten = self.float_literal(10.0, t);
                Ok(Val::new(
                    Ty::Scalar(t),
                    format!("({rint}({x} * {pow}({ten}, {nd})) / {pow}({ten}, {nd}))"),
                ))
            }
        }
    }

    /// `cuda.shared.array` / `cuda.local.array`: declared once at the top of the function.
    fn new_array(&mut self, shared: bool, shape: &Expr, dtype: &Expr, span: Span) -> R<Val> {
        let d = match &dtype.kind {
            ExprKind::Intrinsic { name } if name.starts_with("dtype.") => dtype_named(&name[6..]),
            ExprKind::Typed { v, .. } | ExprKind::Unsupported { what: v } => dtype_named(v),
            _ => None,
        }
        .ok_or_else(|| {
            Fail::At(
                dtype.span,
                "the dtype must be a NumPy type such as numba.float32 or np.int32".into(),
            )
        })?;
        let dims = const_ints(shape).ok_or_else(|| {
            Fail::At(shape.span, "the shape must be a constant integer or tuple of them (a literal or a global constant)".into())
        })?;
        if dims.iter().any(|&n| n < 0) {
            return at(shape.span, "array dimensions cannot be negative");
        }
        self.c.dtypes.insert(d);
        let cuda = self.c.dialect == Dialect::Cuda;
        let elem = ember_codegen::types::storage_type(d, self.c.dialect);
        if shared && dims.iter().product::<i64>() == 0 {
            // Dynamic shared memory: its size is the launch's `sharedmem`.
            if !cuda && !self.is_kernel() {
                return at(span, "dynamic shared memory is only available in the kernel itself on OpenCL; pass the array to device functions");
            }
            self.c.helpers.insert(Helper::DynamicShared);
            let ty = Ty::Array(ArrayTy {
                dtype: d,
                ndim: 1,
                layout: Layout::C,
                space: Space::Shared,
                fixed: None,
            });
            let st = self.c.c_type(&ty);
            let q = self.c.qualifier(Space::Shared);
            let (data, bytes) = if cuda {
                ("ember_dynamic_shared", "ember_dynamic_shared_size()")
            } else {
                ("ember_dynamic_shared", "ember_dynamic_shared_bytes")
            };
            let name = self.fresh("dyn");
            self.line(&format!("{st} {name}; {name}.data = ({q}{elem}*){data}; {name}.d.shape[0] = {bytes} / {n}; {name}.d.strides[0] = {n};", n = d.itemsize()));
            return Ok(Val::new(ty, name));
        }
        if shared && !cuda && !self.is_kernel() {
            return at(span, "OpenCL allows shared (local) arrays only in the kernel itself: create it there and pass it to the device function");
        }
        let count: i64 = dims.iter().product::<i64>().max(1);
        let name = self.fresh(if shared { "sh" } else { "lo" });
        // 16-byte alignment lets the C compiler merge neighbouring element reads into vector
        // loads (a tiled matmul reads a shared row four floats at a time).
        let (qual, align) = match (shared, cuda) {
            (true, true) => ("__shared__ __align__(16) ", ""),
            (true, false) => ("__local ", " __attribute__((aligned(16)))"),
            (false, true) => ("__align__(16) ", ""),
            (false, false) => ("", " __attribute__((aligned(16)))"),
        };
        if self.emit {
            self.arrays
                .push_str(&format!("  {qual}{elem} {name}[{count}]{align};\n"));
        }
        let ty = fixed_array(d, dims, if shared { Space::Shared } else { Space::Local });
        let code = self.fixed_array_value(&ty, &name);
        Ok(Val::new(ty, code))
    }

    fn atomic(&mut self, op: &str, args: &[Expr], span: Span) -> R<Val> {
        let full = format!("cuda.atomic.{op}");
        let (cas, nargs) = match op {
            "cas" => (true, 4),
            "compare_and_swap" => (true, 3),
            _ => (false, 3),
        };
        if args.len() != nargs {
            return at(
                span,
                format!("{full}() takes {nargs} arguments, {} given", args.len()),
            );
        }
        let arr = self.expr(&args[0])?;
        let Ty::Array(a) = arr.ty.clone() else {
            return at(
                args[0].span,
                format!("{full}() works on an array element, got {}", arr.ty),
            );
        };
        if matches!(a.space, Space::Const | Space::Local) {
            return at(
                args[0].span,
                format!("{full}() needs a global or shared array"),
            );
        }
        let d = a.dtype;
        let ints = matches!(d, DType::I32 | DType::U32 | DType::I64 | DType::U64);
        let floats = matches!(d, DType::F32 | DType::F64);
        let arithmetic = matches!(op, "add" | "sub" | "max" | "min" | "nanmax" | "nanmin");
        if !(ints || (floats && arithmetic)) {
            return at(
                span,
                format!(
                    "{full}() does not support arrays of {} (it takes {})",
                    d.name(),
                    if arithmetic {
                        "int32, uint32, int64, uint64, float32 and float64"
                    } else {
                        "int32, uint32, int64 and uint64"
                    }
                ),
            );
        }
        let ptr = if op == "compare_and_swap" {
            if a.ndim != 1 {
                return at(span, "cuda.atomic.compare_and_swap() takes a 1-d array");
            }
            let zero = Val::new(INT64, "0").nonneg(true);
            self.pointer_at(&arr, &a, &[zero], span)?
        } else {
            self.element_pointer(&arr, &a, &args[1], span)?
        };
        let space = if a.space == Space::Shared {
            Space::Shared
        } else {
            Space::Global
        };
        if cas {
            let first = if op == "cas" { 2 } else { 1 };
            let old = self.expr(&args[first])?;
            let val = self.expr(&args[first + 1])?;
            let (o, v) = (self.cast_to(&old, d), self.cast_to(&val, d));
            self.c.helpers.insert(Helper::Cas(d, space));
            return Ok(Val::new(
                Ty::Scalar(d),
                format!("{}({ptr}, {o}, {v})", cas_name(d, space)),
            ));
        }
        let aop = AtomicOp::named(op)
            .ok_or_else(|| Fail::At(span, format!("cuda.atomic has no operation '{op}'")))?;
        let val = self.expr(&args[2])?;
        let v = self.cast_to(&val, d);
        self.c.helpers.insert(Helper::Atomic(aop, d, space));
        Ok(Val::new(
            Ty::Scalar(d),
            format!("{}({ptr}, {v})", atomic_name(aop, d, space)),
        ))
    }

    fn random(&mut self, f: &str, args: &[Expr], span: Span) -> R<Val> {
        let full = format!("cuda.random.{f}");
        let ret = match f {
            "xoroshiro128p_uniform_float32" | "xoroshiro128p_normal_float32" => DType::F32,
            "xoroshiro128p_uniform_float64" | "xoroshiro128p_normal_float64" => DType::F64,
            "xoroshiro128p_next" => DType::U64,
            _ => return at(span, format!("{full} is not supported in kernels")),
        };
        let [states, index] = self.exactly::<2>(&full, args, span)?;
        let a = match &states.ty {
            Ty::Array(a) if a.dtype == DType::U64 && a.ndim == 2 && a.space == Space::Global => a.clone(),
            t => {
                return at(
                    span,
                    format!("{full}() takes the states array from cuda.random.create_xoroshiro128p_states, got {t}"),
                )
            }
        };
        if !index.ty.is_integral() {
            return at(
                span,
                format!(
                    "{full}(): the state index must be an integer, got {}",
                    index.ty
                ),
            );
        }
        let zero = Val::new(INT64, "0").nonneg(true);
        let ptr = self.pointer_at(&states, &a, &[index, zero], span)?;
        self.c.xoroshiro = true;
        self.c.dtypes.insert(ret);
        Ok(Val::new(Ty::Scalar(ret), format!("ember_{f}({ptr})")))
    }
}

/// The float type of a two-argument math function.
fn arith_float(a: DType, b: DType) -> DType {
    if a == b {
        a
    } else {
        DType::F64
    }
}

/// An intrinsic's name as the user wrote it.
fn display(name: &str) -> String {
    name.strip_prefix("builtin.")
        .or_else(|| name.strip_prefix("dtype."))
        .unwrap_or(name)
        .to_string()
}
