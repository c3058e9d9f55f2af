//! Python's `cmath` in kernels, as Numba types it: the argument made complex (complex64 from
//! float32 or complex64, complex128 from any other number), then NumPy's ufunc of the same
//! meaning (`cmath.acos` is `np.arccos` of a complex number: the same branch cuts) with
//! CPython's values at the special inputs where NumPy's differ ([`crate::pymath`]);
//! `phase`, `polar`, `rect` and `log(z, base)` as CPython defines them.

use ember_codegen::ufuncs::ufunc;
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, Expr, Span};
use crate::error::{at, R};
use crate::helpers::Helper;
use crate::ir::ExprKind as K;
use crate::pymath;
use crate::types::{part_dtype, Ty};
use crate::typing::{FnTyper, Val};

use super::display;

/// NumPy's ufunc for a `cmath` function of one complex argument.
fn numpy_name(m: &str) -> Option<&'static str> {
    Some(match m {
        "acos" => "arccos",
        "asin" => "arcsin",
        "atan" => "arctan",
        "acosh" => "arccosh",
        "asinh" => "arcsinh",
        "atanh" => "arctanh",
        "cos" => "cos",
        "sin" => "sin",
        "tan" => "tan",
        "cosh" => "cosh",
        "sinh" => "sinh",
        "tanh" => "tanh",
        "exp" => "exp",
        "log" => "log",
        "log10" => "log10",
        "sqrt" => "sqrt",
        "isnan" => "isnan",
        "isinf" => "isinf",
        "isfinite" => "isfinite",
        _ => return None,
    })
}

/// The complex type `cmath` computes a number of dtype `d` in.
fn complex_of(d: DType) -> DType {
    if matches!(d, DType::F32 | DType::F16 | DType::C64) {
        DType::C64
    } else {
        DType::C128
    }
}

impl FnTyper<'_, '_> {
    pub(super) fn cmath(&mut self, m: &str, name: &str, args: &[Expr], span: Span) -> R<Val> {
        match m {
            "phase" | "polar" => {
                let [v] = self.exactly::<1>(name, args, span)?;
                let z = self.complex_arg(&v, name, span)?;
                let r = Ty::Scalar(part_dtype(z.ty.scalar().unwrap_or(DType::C128)));
                let part = |imag| {
                    Val::new(
                        r.clone(),
                        K::Part {
                            value: z.boxed(),
                            imag,
                        },
                    )
                };
                let phase = Val::new(
                    r.clone(),
                    K::Math("atan2", vec![part(true).expr(), part(false).expr()]),
                );
                if m == "phase" {
                    return Ok(phase);
                }
                let abs = Val::new(r.clone(), K::Abs(z.boxed())).nonneg(true);
                return Ok(self.make_tuple(vec![abs, phase]));
            }
            "rect" => {
                let [a, b] = self.exactly::<2>(name, args, span)?;
                let (da, db) = (
                    self.scalar_arg(&a, name, span)?,
                    self.scalar_arg(&b, name, span)?,
                );
                if da.kind() == Kind::Complex || db.kind() == Kind::Complex {
                    return at(
                        span,
                        "cmath.rect() takes real numbers (a modulus and an angle)",
                    );
                }
                let d = if complex_of(da) == DType::C64 && complex_of(db) == DType::C64 {
                    DType::F32
                } else {
                    DType::F64
                };
                let (r, phi) = (self.cast_to(&a, d), self.cast_to(&b, d));
                self.c.uses.helpers.insert(Helper::PyMath("rect", d));
                let c = complex_of(d);
                self.c.uses.dtypes.insert(c);
                return Ok(Val::new(
                    Ty::Scalar(c),
                    K::PyMath("rect", vec![r.expr(), phi.expr()]),
                ));
            }
            "log" if args.len() == 2 => {
                // CPython: log(z) / log(base), each part by the one-argument function.
                let lz = self.cmath("log", name, &args[..1], span)?;
                let lb = self.cmath("log", name, &args[1..], span)?;
                return self.binop(BinOp::Div, lz, lb, span);
            }
            _ => {}
        }
        let Some(u) = numpy_name(m).and_then(|n| ufunc(n).ok()) else {
            return at(
                span,
                format!("{}() is not supported in kernels", display(name)),
            );
        };
        let [v] = self.exactly::<1>(name, args, span)?;
        let z = self.complex_arg(&v, name, span)?;
        let Some(fixed) = pymath::fixed_cmath(m) else {
            return self.ufunc_values(u, name, &[z], span);
        };
        let z = self.temp(&z)?;
        let w = self.ufunc_values(u, name, std::slice::from_ref(&z), span)?;
        let c = z.ty.scalar().unwrap_or(DType::C128);
        self.c.uses.helpers.insert(Helper::PyMath(fixed, c));
        Ok(Val::new(
            w.ty.clone(),
            K::PyMath(fixed, vec![z.expr(), w.expr()]),
        ))
    }

    /// A `cmath` argument as the complex number it computes with.
    fn complex_arg(&mut self, v: &Val, name: &str, span: Span) -> R<Val> {
        let d = self.scalar_arg(v, name, span)?;
        Ok(self.cast_to(v, complex_of(d)))
    }
}
