//! A NumPy ufunc called on arrays in a kernel with its output passed positionally
//! (`np.sin(x, out)`, `np.add(x, y, out)`): Numba's rule for ufuncs in kernels. The thread that
//! calls it runs the whole loop over `out`'s elements, inputs broadcast to `out`'s shape (NumPy's
//! rule: trailing axes line up, an axis of length 1 repeats); the call's value is `out`.

use ember_codegen::ufuncs::Ufunc;

use crate::ast::{Expr, Span};
use crate::error::{at, R};
use crate::ir::{ExprKind as K, Place, Stmt};
use crate::types::{Space, Ty};
use crate::typing::{FnTyper, Val};

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
        let dims: Vec<Val> = (0..n).map(|k| self.dim(&out, &oa, k)).collect();
        self.nest_loops(&dims, |s, index| {
            let mut elements = Vec::with_capacity(inputs.len());
            for (v, a) in &inputs {
                let Some(a) = a else {
                    elements.push(v.clone());
                    continue;
                };
                // An axis of length 1 repeats along the output's axis it lines up with.
                let at: Vec<_> = (0..a.ndim)
                    .map(|j| s.repeating_index(v, a, j, &index[n - a.ndim + j]).expr())
                    .collect();
                let place = Place {
                    array: v.boxed(),
                    ty: a.clone(),
                    indices: at,
                };
                elements.push(Val::new(Ty::Scalar(a.dtype), K::Element(place)));
            }
            let value = s.ufunc_values(u, name, &elements, span)?;
            let value = s.cast_to(&value, oa.dtype);
            s.push(Stmt::Store {
                place: Place {
                    array: out.boxed(),
                    ty: oa.clone(),
                    indices: index.iter().map(Val::expr).collect(),
                },
                value: value.expr(),
            });
            Ok(())
        })?;
        Ok(out)
    }
}
