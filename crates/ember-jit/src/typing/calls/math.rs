//! `math` and the NumPy scalar functions (typed as Numba types them), `min`/`max` and `round`.

use ember_codegen::ufuncs::{find_loop, ufunc, OperandType, Ufunc};
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::BinOp;
use crate::ast::{Expr, Span};
use crate::error::{at, Fail, R};
use crate::helpers::Helper;
use crate::ir::{Const, ExprKind as K, NanRule};
use crate::types::{promote, Ty, BOOL, INT64};
use crate::typing::{FnTyper, Val};

use super::display;

/// The registry's ufunc called `name`, when kernels may call it.
fn jit_ufunc(name: &str) -> Option<&'static Ufunc> {
    ufunc(name).ok().filter(|u| u.row.jit)
}

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

/// `math` (and the NumPy scalar functions spelled like them): Python name -> (libm name, kind).
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
impl FnTyper<'_, '_> {
    pub(super) fn math(&mut self, m: &str, name: &str, args: &[Expr], span: Span) -> R<Val> {
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
                let f = Val::constant(Ty::Scalar(d), Const::Float(factor));
                return Ok(Val::new(
                    Ty::Scalar(d),
                    K::Binary(BinOp::Mult, x.boxed(), f.boxed()),
                ));
            }
            "log" if args.len() == 2 => {
                let [v, b] = self.exactly::<2>(name, args, span)?;
                let d = arith_float(
                    self.float_type(&v, name, span)?,
                    self.float_type(&b, name, span)?,
                );
                let (x, y) = (self.cast_to(&v, d), self.cast_to(&b, d));
                let ty = Ty::Scalar(d);
                let (lx, ly) = (
                    Val::new(ty.clone(), K::Math("log", vec![x.expr()])),
                    Val::new(ty.clone(), K::Math("log", vec![y.expr()])),
                );
                return Ok(Val::new(ty, K::Binary(BinOp::Div, lx.boxed(), ly.boxed())));
            }
            "frexp" | "modf" if name.starts_with("math.") => {
                // Python's pair: (mantissa, int32 exponent) / (fraction, integer part).
                let [v] = self.exactly::<1>(name, args, span)?;
                let d = self.float_type(&v, name, span)?;
                let x = self.cast_to(&v, d);
                let x = self.temp(&x)?;
                let (first, second, second_ty) = if m == "frexp" {
                    ("frexp_m", "frexp_e", DType::I32)
                } else {
                    ("modf_f", "modf_i", d)
                };
                let mut items = Vec::new();
                for (f, t) in [(first, d), (second, second_ty)] {
                    self.c.uses.helpers.insert(Helper::PyMath(f, d));
                    items.push(Val::new(Ty::Scalar(t), K::PyMath(f, vec![x.expr()])));
                }
                return Ok(self.make_tuple(items));
            }
            "ldexp" if name.starts_with("math.") => {
                let [v, e] = self.exactly::<2>(name, args, span)?;
                let d = self.float_type(&v, name, span)?;
                if !e.ty.is_integral() {
                    return at(
                        span,
                        format!("math.ldexp() needs an integer exponent, got {}", e.ty),
                    );
                }
                let (x, e) = (self.cast_to(&v, d), self.cast_to(&e, DType::I64));
                self.c.uses.helpers.insert(Helper::PyMath("ldexp", d));
                return Ok(Val::new(
                    Ty::Scalar(d),
                    K::PyMath("ldexp", vec![x.expr(), e.expr()]),
                ));
            }
            "abs" | "absolute" => return self.call_intrinsic("builtin.abs", args, &[], span),
            "minimum" | "maximum" | "fmin" | "fmax" => {
                let [a, b] = self.exactly::<2>(name, args, span)?;
                let d = promote(
                    self.scalar_arg(&a, name, span)?,
                    self.scalar_arg(&b, name, span)?,
                );
                let (x, y) = (self.cast_to(&a, d), self.cast_to(&b, d));
                let max = m.ends_with("max") || m == "maximum";
                let rule = if d.kind() != Kind::Float {
                    self.c
                        .uses
                        .helpers
                        .insert(if max { Helper::Max(d) } else { Helper::Min(d) });
                    NanRule::Python
                } else if m.starts_with('f') {
                    NanRule::Ignore
                } else {
                    NanRule::Propagate
                };
                return Ok(Val::new(
                    Ty::Scalar(d),
                    K::Extremum {
                        max,
                        rule,
                        args: Box::new([x.expr(), y.expr()]),
                    },
                ));
            }
            _ => {}
        }
        if name == "np.isnat" {
            let [v] = self.exactly::<1>(name, args, span)?;
            return self.isnat(&v, span);
        }
        let Some((c_name, kind)) = math_function(m) else {
            if let Some(u) = name.strip_prefix("np.").and_then(jit_ufunc) {
                return self.ufunc_call(u, name, args, span);
            }
            return at(
                span,
                format!("{} is not supported in {}", display(name), self.c.realm()),
            );
        };
        match kind {
            MathKind::Unary => {
                let [v] = self.exactly::<1>(name, args, span)?;
                if self.c.host && matches!(name, "math.ceil" | "math.floor" | "math.trunc") {
                    // Python's (and Numba's CPU) rounding functions return an int.
                    if v.ty.is_integral() {
                        return Ok(self.cast_to(&v, DType::I64));
                    }
                    let d = self.float_type(&v, name, span)?;
                    let x = self.cast_to(&v, d);
                    let rounded = Val::new(Ty::Scalar(d), K::Math(c_name, vec![x.expr()]));
                    return Ok(self.cast_to(&rounded, DType::I64));
                }
                let d = self.float_type(&v, name, span)?;
                let x = self.cast_to(&v, d);
                let nonneg = matches!(c_name, "sqrt" | "exp" | "exp2" | "fabs");
                Ok(Val::new(Ty::Scalar(d), K::Math(c_name, vec![x.expr()])).nonneg(nonneg))
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
                Ok(Val::new(
                    Ty::Scalar(d),
                    K::Math(c_name, vec![x.expr(), y.expr()]),
                ))
            }
            MathKind::Test => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let d = self.scalar_arg(&v, name, span)?;
                if d.kind() != Kind::Float {
                    let truth = c_name == "isfinite";
                    return Ok(Val::constant(BOOL, Const::Bool(truth)).nonneg(true));
                }
                Ok(Val::new(BOOL, K::FloatTest(c_name, v.boxed())).nonneg(true))
            }
        }
    }

    /// A ufunc of the registry on scalars (`np.logaddexp2(x, y)`): typed by NumPy's loops and
    /// written by the ufunc's own body, as array operations write it.
    fn ufunc_call(&mut self, u: &'static Ufunc, name: &str, args: &[Expr], span: Span) -> R<Val> {
        let vals = self.values(args)?;
        self.ufunc_values(u, name, &vals, span)
    }

    /// The ufunc `u` on typed values (by NumPy's loop for their dtypes).
    pub(super) fn ufunc_values(
        &mut self,
        u: &'static Ufunc,
        name: &str,
        vals: &[Val],
        span: Span,
    ) -> R<Val> {
        if vals.len() != u.nin || u.nout != 1 {
            return at(
                span,
                format!(
                    "{}() takes {} argument(s) in kernels, {} given",
                    display(name),
                    u.nin,
                    vals.len()
                ),
            );
        }
        let mut ops = Vec::with_capacity(vals.len());
        for v in vals {
            ops.push(OperandType::Strong(self.scalar_arg(v, name, span)?));
        }
        let (ins, outs) = find_loop(u, &ops, None).map_err(|e| Fail::At(span, e.to_string()))?;
        let args: Vec<_> = vals
            .iter()
            .zip(*ins)
            .map(|(v, &t)| self.cast_to(v, t).expr())
            .collect();
        self.c.uses.dtypes.extend(ins.iter().chain(*outs).copied());
        // A loop the registry cannot write is the user's error, reported here at the call.
        let probe: Vec<String> = (0..args.len()).map(|k| format!("a{k}")).collect();
        u.expression(ins, outs[0], &probe, self.c.dialect)
            .map_err(|e| Fail::At(span, e.to_string()))?;
        Ok(Val::new(
            Ty::Scalar(outs[0]),
            K::Ufunc {
                name: u.row.name,
                ins,
                args,
            },
        ))
    }

    /// The float type a math function computes `v` in: float32 (and float16) keep their type,
    /// everything else is float64.
    fn float_type(&self, v: &Val, name: &str, span: Span) -> R<DType> {
        let d = self.scalar_arg(v, name, span)?;
        Ok(match d {
            _ if d.compute() == DType::F32 => d,
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

    pub(super) fn min_max(&mut self, max: bool, args: &[Expr], span: Span) -> R<Val> {
        let mut vals = self.values(args)?;
        if vals.len() == 1 {
            if let Ty::Tuple(items) = vals[0].ty.clone() {
                let t = self.temp(&vals[0])?;
                vals = items
                    .into_iter()
                    .enumerate()
                    .map(|(i, ty)| Val::new(ty, K::Item(t.boxed(), i)))
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
        if vals
            .iter()
            .any(|v| v.ty.scalar().and_then(DType::datetime).is_some())
        {
            return self.date_min_max(max, &vals, span);
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
            .uses
            .helpers
            .insert(if max { Helper::Max(d) } else { Helper::Min(d) });
        let nonneg = if max {
            vals.iter().any(|v| v.nonneg)
        } else {
            vals.iter().all(|v| v.nonneg)
        };
        let mut acc = self.cast_to(&vals[0], d);
        for v in &vals[1..] {
            let c = self.cast_to(v, d);
            acc = Val::new(
                Ty::Scalar(d),
                K::Extremum {
                    max,
                    rule: NanRule::Python,
                    args: Box::new([acc.expr(), c.expr()]),
                },
            );
        }
        Ok(acc.nonneg(nonneg))
    }

    /// The `operator` module's arithmetic functions (`operator.truediv(a, b)` is `a / b`).
    pub(super) fn operator(&mut self, f: &str, args: &[Expr], span: Span) -> R<Val> {
        let op = match f {
            "add" => BinOp::Add,
            "sub" => BinOp::Sub,
            "mul" => BinOp::Mult,
            "truediv" => BinOp::Div,
            "floordiv" => BinOp::FloorDiv,
            "mod" => BinOp::Mod,
            "pow" => BinOp::Pow,
            "lshift" => BinOp::LShift,
            "rshift" => BinOp::RShift,
            "and_" => BinOp::BitAnd,
            "or_" => BinOp::BitOr,
            "xor" => BinOp::BitXor,
            "abs" => return self.call_intrinsic("builtin.abs", args, &[], span),
            _ => {
                return at(
                    span,
                    format!(
                        "operator.{f}() is not supported in kernels; write the operator itself"
                    ),
                )
            }
        };
        let [a, b] = self.exactly::<2>(&format!("operator.{f}"), args, span)?;
        self.binop(op, a, b, span)
    }

    /// Python's `round`: half to even; an integer without digits, else the same float type.
    pub(super) fn round(&mut self, args: &[Expr], ndigits: Option<&Expr>, span: Span) -> R<Val> {
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
                    return Ok(self.cast_to(&v, DType::I64).nonneg(v.nonneg));
                }
                Ok(Val::new(INT64, K::Round(v.boxed())))
            }
            Some(n) => {
                let t = if d == DType::F32 {
                    DType::F32
                } else {
                    DType::F64
                };
                let x = self.cast_to(&v, t);
                let nd = self.cast_to(&n, DType::I64);
                self.c.uses.helpers.insert(Helper::RoundDigits);
                Ok(Val::new(
                    Ty::Scalar(t),
                    K::RoundDigits(x.boxed(), nd.boxed()),
                ))
            }
        }
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
