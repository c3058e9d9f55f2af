//! `np.array(obj, dtype)` and `np.asarray(obj, dtype)` in host functions: a new array of a
//! tuple's (or list display's) numbers, nested for more dimensions, with NumPy's dtype for
//! them; of an array, a copy (`np.array`) or the array itself (`np.asarray`, when the dtype
//! is already its own).

use ember_core::DType;

use crate::ast::{Expr, Keyword, Span};
use crate::error::{at, R};
use crate::ir::{self, Const, ExprKind as K, Place};
use crate::types::{promote, Ty, INT64};
use crate::typing::{FnTyper, Val};

/// The shape of a value of type `ty` read as NumPy reads nested sequences, and the dtypes of
/// its numbers; `Err` names what does not make an array.
fn items_shape(
    ty: &Ty,
    shape: &mut Vec<usize>,
    depth: usize,
    dtypes: &mut Vec<DType>,
) -> Result<(), String> {
    match ty {
        Ty::Scalar(d) => {
            if depth != shape.len() {
                return Err(inhomogeneous(depth));
            }
            dtypes.push(*d);
            Ok(())
        }
        Ty::Tuple(items) => {
            match shape.get(depth) {
                None if depth == shape.len() && dtypes.is_empty() => shape.push(items.len()),
                Some(&n) if n == items.len() => {}
                _ => return Err(inhomogeneous(depth)),
            }
            items
                .iter()
                .try_for_each(|t| items_shape(t, shape, depth + 1, dtypes))
        }
        t => Err(format!("np.array() of {t} is not compiled for the CPU: give numbers, tuples or lists of them, or an array")),
    }
}

fn inhomogeneous(depth: usize) -> String {
    format!("setting an array element with a sequence. The requested array has an inhomogeneous shape after {depth} dimensions")
}

impl FnTyper<'_, '_> {
    pub(super) fn array_of_items(
        &mut self,
        f: &str,
        args: &[Expr],
        keywords: &[Keyword],
        span: Span,
    ) -> R<Val> {
        let mut dtype = None;
        for kw in keywords {
            match kw.name.as_str() {
                "dtype" if args.len() < 2 => dtype = Some(self.dtype_of(&kw.value)?),
                other => {
                    return at(
                        kw.value.span,
                        format!("{f}() takes obj and dtype here, not '{other}'"),
                    )
                }
            }
        }
        match args {
            [_] => {}
            [_, d] => dtype = Some(self.dtype_of(d)?),
            _ => return at(span, format!("{f}() takes an object and a dtype")),
        }
        let v = self.expr(&args[0])?;
        if let Ty::Array(a) = &v.ty {
            let d = dtype.unwrap_or(a.dtype);
            if f == "asarray" && d == a.dtype {
                return Ok(v);
            }
            return self.array_cast(v, d, span);
        }
        let (mut shape, mut dtypes) = (Vec::new(), Vec::new());
        items_shape(&v.ty, &mut shape, 0, &mut dtypes)
            .map_err(|m| crate::error::Fail::At(args[0].span, m))?;
        let d = match dtype {
            Some(d) => d,
            // An empty sequence is float64, as in NumPy.
            None => dtypes.iter().copied().reduce(promote).unwrap_or(DType::F64),
        };
        let dims: Vec<Val> = shape
            .iter()
            .map(|&n| Val::constant(INT64, Const::Int(n as i64)))
            .collect();
        let (out, out_ty) = self.made_array(d, &dims, None)?;
        let items = self.temp(&v)?;
        let mut index = Vec::new();
        self.store_items(&out, &out_ty, &items, &mut index, span)?;
        Ok(out)
    }

    /// Stores the numbers of `v` (nested tuples) at their places in `out`.
    fn store_items(
        &mut self,
        out: &Val,
        out_ty: &crate::types::ArrayTy,
        v: &Val,
        index: &mut Vec<i64>,
        span: Span,
    ) -> R<()> {
        match v.ty.clone() {
            Ty::Tuple(items) => {
                for (k, t) in items.into_iter().enumerate() {
                    index.push(k as i64);
                    let item = Val::new(t, K::Item(v.boxed(), k));
                    self.store_items(out, out_ty, &item, index, span)?;
                    index.pop();
                }
                Ok(())
            }
            _ => {
                let value = self.convert(v, &Ty::Scalar(out_ty.dtype), span)?;
                self.push(ir::Stmt::Store {
                    place: Place {
                        array: out.boxed(),
                        ty: out_ty.clone(),
                        indices: index
                            .iter()
                            .map(|&k| Val::constant(INT64, Const::Int(k)).expr())
                            .collect(),
                    },
                    value: value.expr(),
                });
                Ok(())
            }
        }
    }
}
