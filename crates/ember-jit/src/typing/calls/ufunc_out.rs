//! A NumPy ufunc called on arrays in a kernel with its output passed positionally
//! (`np.sin(x, out)`, `np.add(x, y, out)`): Numba's rule for ufuncs in kernels. The thread that
//! calls it runs the whole loop over `out`'s elements, inputs broadcast to `out`'s shape (NumPy's
//! rule: trailing axes line up, an axis of length 1 repeats); the call's value is `out`.

use ember_codegen::ufuncs::Ufunc;

use crate::ast::{CmpOp, Expr, Span};
use crate::error::{at, R};
use crate::ir::{Const, ExprKind as K, Place, Step, Stmt, TempRole};
use crate::types::{Space, Ty, BOOL, INT64};
use crate::typing::{FnTyper, Val};
use ember_core::DType;

use super::display;

impl FnTyper<'_, '_> {
    pub(super) fn ufunc_into(
        &mut self,
        u: &'static Ufunc,
        name: &str,
        args: &[Expr],
        span: Span,
    ) -> R<Val> {
        let vals = self.values(args)?;
        let (out, ins) = vals.split_last().expect("called with nin + 1 arguments");
        let Ty::Array(oa) = out.ty.clone() else {
            return at(
                span,
                format!(
                    "{}() with {} arguments writes into its last one, an array; got {}",
                    display(name),
                    args.len(),
                    out.ty
                ),
            );
        };
        if oa.space == Space::Const {
            return at(span, "constant arrays are read-only");
        }
        let n = oa.ndim;
        let out = self.temp(out)?;
        let mut inputs = Vec::with_capacity(ins.len());
        for v in ins {
            match &v.ty {
                Ty::Array(a) if a.ndim <= n => inputs.push((self.temp(v)?, Some(a.clone()))),
                Ty::Array(a) => {
                    return at(
                        span,
                        format!(
                        "{}(): an input of {} dimensions does not broadcast to an output of {n}",
                        display(name),
                        a.ndim
                    ),
                    )
                }
                Ty::Scalar(_) => inputs.push((self.temp(v)?, None)),
                t => {
                    return at(
                        span,
                        format!("{}() takes arrays and numbers, got {t}", display(name)),
                    )
                }
            }
        }
        let indices: Vec<_> = (0..n).map(|_| self.fresh(TempRole::Index)).collect();
        let index = |k: usize| Val::new(INT64, K::Temp(indices[k])).nonneg(true);
        let mut elements = Vec::with_capacity(inputs.len());
        for (v, a) in &inputs {
            let Some(a) = a else {
                elements.push(v.clone());
                continue;
            };
            // An axis of length 1 repeats along the output's axis it lines up with.
            let at: Vec<_> = (0..a.ndim)
                .map(|j| {
                    let one = Val::new(
                        BOOL,
                        K::Compare(
                            CmpOp::Eq,
                            self.dim(v, a, j).boxed(),
                            Val::constant(INT64, Const::Int(1)).boxed(),
                        ),
                    );
                    Val::new(
                        INT64,
                        K::Select(
                            one.boxed(),
                            Val::constant(INT64, Const::Count(0)).boxed(),
                            index(n - a.ndim + j).boxed(),
                        ),
                    )
                    .expr()
                })
                .collect();
            let place = Place {
                array: v.boxed(),
                ty: a.clone(),
                indices: at,
            };
            elements.push(Val::new(Ty::Scalar(a.dtype), K::Element(place)));
        }
        let value = self.ufunc_values(u, name, &elements, span)?;
        let value = self.cast_to(&value, oa.dtype);
        let mut body = vec![Stmt::Store {
            place: Place {
                array: out.boxed(),
                ty: oa.clone(),
                indices: (0..n).map(|k| index(k).expr()).collect(),
            },
            value: value.expr(),
        }];
        for k in (0..n).rev() {
            body = vec![Stmt::For {
                index: indices[k],
                ty: DType::I64,
                start: Val::constant(INT64, Const::Count(0)).expr(),
                stop: self.dim(&out, &oa, k).expr(),
                step: Step::One,
                body,
                parallel: false,
            }];
        }
        for s in body {
            self.push(s);
        }
        Ok(out)
    }
}
