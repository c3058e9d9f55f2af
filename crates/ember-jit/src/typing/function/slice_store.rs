//! `a[region] = value` where the subscript names more than one element: slices
//! (`a[1:n] = 0`, `a[i, :] = b[j]`) or fewer indices than dimensions (`a[i] = row`, `aa[:] = 0`
//! on a 2-d local array). Every element of the region is stored, as NumPy does: a scalar is
//! broadcast, an array value is broadcast along its leading axes and along axes of length 1.
//! The elements are stored in order by the thread that runs the statement.

use ember_core::DType;

use crate::ast::{Expr, ExprKind, Span};
use crate::error::{at, R};
use crate::ir;
use crate::types::{ArrayTy, Ty};
use crate::typing::{FnTyper, Val};

/// What one axis of the region is: `Some(index)` fixed, `None` a loop over the axis.
type Axis = Option<Val>;

impl FnTyper<'_, '_> {
    /// True when `index` names a region of a `ndim`-d array rather than one element.
    pub(crate) fn names_region(&mut self, index: &Expr, ndim: usize) -> R<bool> {
        let items: Vec<&Expr> = match &index.kind {
            ExprKind::Tuple { elts } => elts.iter().collect(),
            _ => vec![index],
        };
        if items
            .iter()
            .any(|e| matches!(e.kind, ExprKind::Slice { .. }))
        {
            return Ok(true);
        }
        if items.len() >= ndim {
            return Ok(false);
        }
        // A name may hold a tuple of indices (`i = cuda.grid(2)`, then `a[i] = v`): one element.
        if let ExprKind::Name { .. } = index.kind {
            return Ok(!matches!(self.expr(index)?.ty, Ty::Tuple(_)));
        }
        Ok(true)
    }

    /// `arr[index] = v` over the region `index` names.
    pub(crate) fn store_region(
        &mut self,
        arr: &Val,
        a: &ArrayTy,
        index: &Expr,
        v: Val,
        span: Span,
    ) -> R<()> {
        if crate::types::record_of(a.dtype).is_some() {
            return at(
                span,
                "assigning to a slice of an array of records is not supported in kernels; assign each element",
            );
        }
        let items: Vec<&Expr> = match &index.kind {
            ExprKind::Tuple { elts } => elts.iter().collect(),
            _ => vec![index],
        };
        // The region as (array, its type, what each axis is).
        let (base, ty, axes) = if a.fixed.is_some() {
            // Shared, local and constant arrays have no views: loop over their whole axes.
            let mut axes = Vec::new();
            for k in 0..a.ndim {
                match items.get(k).map(|e| &e.kind) {
                    None => axes.push(None),
                    Some(ExprKind::Slice {
                        lower: None,
                        upper: None,
                        step: None,
                    }) => axes.push(None),
                    Some(ExprKind::Slice { .. }) => {
                        return at(
                            span,
                            "a slice of a shared, local or constant array must be the whole axis (`:`) in a kernel",
                        )
                    }
                    Some(_) => {
                        let i = self.expr(items[k])?;
                        axes.push(Some(self.temp(&i)?));
                    }
                }
            }
            (arr.clone(), a.clone(), axes)
        } else {
            let view = self.view(arr, a, &items, span)?;
            let Ty::Array(vt) = view.ty.clone() else {
                unreachable!("a view is an array")
            };
            let axes = (0..vt.ndim).map(|_| None).collect();
            (view, vt, axes)
        };
        let loops = axes.iter().filter(|x| x.is_none()).count();
        let mut source = self.region_source(v, a.dtype, loops, span)?;
        if let (true, Ty::Array(src)) = (self.c.host, source.ty.clone()) {
            // `a[1:] = a[:-1]`: read before written, as NumPy does.
            source = self.unaliased(&source, &src, &base, &ty, span)?;
        }
        let mut bounds = Vec::new();
        for (k, axis) in axes.iter().enumerate() {
            if axis.is_none() {
                bounds.push(self.dim(&base, &ty, k));
            }
        }
        self.nest_loops(&bounds, |s, counters| {
            s.region_element(&base, &ty, &axes, counters, &source, span)
        })
    }

    /// The value stored: a scalar converted once, or an array of at most `loops` dimensions.
    fn region_source(&mut self, v: Val, dtype: DType, loops: usize, span: Span) -> R<Val> {
        match &v.ty {
            Ty::Scalar(_) => {
                let c = self.convert(&v, &Ty::Scalar(dtype), span)?;
                self.temp(&c)
            }
            Ty::Array(src) if src.ndim <= loops => {
                if crate::types::record_of(src.dtype).is_some() {
                    return at(
                        span,
                        "cannot store an array of records into a slice of numbers",
                    );
                }
                self.temp(&v)
            }
            Ty::Array(src) => at(
                span,
                format!(
                    "could not broadcast an array of {} dimensions into a region of {loops}",
                    src.ndim
                ),
            ),
            t => at(
                span,
                format!("cannot store a value of type {t} into a slice of an array"),
            ),
        }
    }

    /// One store of the loop body: region element (counters) = source element.
    fn region_element(
        &mut self,
        base: &Val,
        ty: &ArrayTy,
        axes: &[Axis],
        counters: &[Val],
        source: &Val,
        span: Span,
    ) -> R<()> {
        let mut loop_k = 0;
        let mut idx = Vec::new();
        for axis in axes {
            match axis {
                Some(i) => idx.push(i.clone()),
                None => {
                    idx.push(counters[loop_k].clone());
                    loop_k += 1;
                }
            }
        }
        let value = match &source.ty {
            Ty::Array(src) => {
                // The source's axes align with the region's last ones; an axis of length 1
                // repeats (j % 1 == 0), any other must match the region's.
                let src = src.clone();
                let skip = counters.len() - src.ndim;
                let mut sidx = Vec::new();
                for j in 0..src.ndim {
                    let n = self.dim(source, &src, j);
                    let c = counters[skip + j].clone();
                    let wrapped = self.binop(crate::ast::BinOp::Mod, c, n, span)?;
                    sidx.push(wrapped.nonneg(true));
                }
                let e = self.element(source, &src, &sidx, span)?;
                self.convert(&e, &Ty::Scalar(ty.dtype), span)?
            }
            _ => source.clone(),
        };
        let place = self.place_at(base, ty, &idx, span)?;
        self.c.uses.dtypes.insert(ty.dtype);
        self.push(ir::Stmt::Store {
            place,
            value: value.expr(),
        });
        Ok(())
    }
}
