//! NumPy's reductions that skip NaNs, of a whole array in host functions: `np.nansum`,
//! `nanprod`, `nanmin`, `nanmax`, `nanmean`, `nanvar`, `nanstd`, `nanargmin`, `nanargmax`.
//! On integers and bools (which hold no NaN) each is its plain reduction.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, Span};
use crate::error::{at, R};
use crate::ir::{Const, ExprKind as K, Failure, NanRule};
use crate::types::{ArrayTy, Ty, BOOL};
use crate::typing::{FnTyper, Val};

use super::reduce::{float64, mean_dtype, F64_PAIR};

/// The reductions that skip NaNs, by their `np.` name.
pub(crate) fn is_nan_reduction(name: &str) -> bool {
    matches!(
        name,
        "nansum"
            | "nanprod"
            | "nanmin"
            | "nanmax"
            | "nanmean"
            | "nanvar"
            | "nanstd"
            | "nanargmin"
            | "nanargmax"
    )
}

fn is_nan(x: &Val) -> Val {
    Val::new(BOOL, K::FloatTest("isnan", x.boxed()))
}

impl FnTyper<'_, '_> {
    /// `np.nan<m>(a)` of a whole array (`m` the plain reduction's name).
    pub(crate) fn nan_reduce(&mut self, m: &str, v: Val, span: Span) -> R<Val> {
        let Ty::Array(a) = v.ty.clone() else {
            return at(span, format!("np.nan{m}() takes an array, got {}", v.ty));
        };
        let d = a.dtype;
        match d.kind() {
            Kind::Float => {}
            Kind::Complex => {
                return at(
                    span,
                    format!("np.nan{m}() of a complex array is not supported in @njit functions"),
                )
            }
            // No NaN to skip.
            _ => return self.reduce(m, v, span),
        }
        let v = self.temp(&v)?;
        match m {
            "sum" | "prod" => {
                let (op, unit) = if m == "sum" {
                    (BinOp::Add, 0.0)
                } else {
                    (BinOp::Mult, 1.0)
                };
                let start = Val::constant(Ty::Scalar(d), Const::Float(unit));
                self.fold(&v, &a, d, start.clone(), span, |s, acc, x| {
                    let x = s.temp(&x)?;
                    let kept = Val::new(
                        Ty::Scalar(d),
                        K::Select(is_nan(&x).boxed(), start.boxed(), x.boxed()),
                    );
                    Ok(Val::new(
                        Ty::Scalar(d),
                        K::Binary(op, acc.boxed(), kept.boxed()),
                    ))
                })
            }
            "min" | "max" => {
                let max = m == "max";
                // np.fmin/np.fmax: a NaN gives way to a number (all NaN: NaN).
                let empty = Failure::EmptyNanExtremum { max };
                self.extremum(&v, &a, max, NanRule::Ignore, empty, span)
            }
            "mean" | "var" | "std" => {
                let (sum, count) = self.sum_and_count(&v, &a, None, span)?;
                let mean = self.temp(&divide(sum, count.clone()))?;
                if m == "mean" {
                    return Ok(self.cast_to(&mean, mean_dtype(d)));
                }
                // Two passes, as NumPy: the mean, then the mean squared deviation (ddof 0).
                let (squares, _) = self.sum_and_count(&v, &a, Some(&mean), span)?;
                let var = divide(squares, count);
                let r = if m == "std" {
                    float64(K::Math("sqrt", vec![var.expr()]))
                } else {
                    var
                };
                Ok(self.cast_to(&r, mean_dtype(d)))
            }
            "argmin" | "argmax" => self.arg_extremum(&v, &a, m == "argmax", true, span),
            _ => at(span, format!("np.nan{m}() is not a NumPy function")),
        }
    }

    /// The float64 sum of the elements that are not NaN (or of their squared deviations
    /// from `mean`) and how many there are.
    fn sum_and_count(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        mean: Option<&Val>,
        span: Span,
    ) -> R<(Val, Val)> {
        let count = self.declare(Ty::Scalar(DType::F64));
        self.set(
            count,
            &Val::constant(Ty::Scalar(DType::F64), Const::Float(0.0)),
        );
        let zero = Val::constant(Ty::Scalar(DType::F64), Const::Float(0.0));
        let total = self.fold(v, a, DType::F64, zero.clone(), span, |s, acc, x| {
            let x = s.cast_to(&x, DType::F64);
            let x = s.temp(&x)?;
            let missing = s.temp(&is_nan(&x))?;
            let term = match mean {
                Some(mean) => {
                    let dev = float64(K::Binary(BinOp::Sub, x.boxed(), mean.boxed()));
                    let dev = s.temp(&dev)?;
                    float64(K::Binary(BinOp::Mult, dev.boxed(), dev.boxed()))
                }
                None => x,
            };
            let one = Val::constant(Ty::Scalar(DType::F64), Const::Float(1.0));
            let now = Val::new(Ty::Scalar(DType::F64), K::Temp(count));
            let counted = float64(K::Select(missing.boxed(), zero.boxed(), one.boxed()));
            s.set(
                count,
                &float64(K::Binary(BinOp::Add, now.boxed(), counted.boxed())),
            );
            let kept = float64(K::Select(missing.boxed(), zero.boxed(), term.boxed()));
            Ok(float64(K::Binary(BinOp::Add, acc.boxed(), kept.boxed())))
        })?;
        Ok((total, Val::new(Ty::Scalar(DType::F64), K::Temp(count))))
    }
}

/// `total / count` with NumPy's division (no elements: NaN).
fn divide(total: Val, count: Val) -> Val {
    float64(K::Ufunc {
        name: "divide",
        ins: F64_PAIR,
        args: vec![total.expr(), count.expr()],
    })
}
