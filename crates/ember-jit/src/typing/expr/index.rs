//! Subscripts: array elements (one int64 index per dimension, negative indices wrapped) and
//! tuple items.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{CmpOp, Expr, ExprKind, Span};
use crate::error::{at, R};
use crate::helpers::Helper;
use crate::ir::{self, Const, ExprKind as K, Place};
use crate::types::{ArrayTy, Ty, BOOL, INT64};
use crate::typing::{FnTyper, Val};

use super::int_literal;

impl FnTyper<'_, '_> {
    pub(super) fn subscript(&mut self, v: Val, index: &Expr, span: Span) -> R<Val> {
        match v.ty.clone() {
            Ty::Array(a) if matches!(index.kind, ExprKind::Str { .. }) => {
                let Some(key) = self.field_key(index) else {
                    return at(span, "a string index needs an array of records");
                };
                if crate::types::record_of(a.dtype).is_none() {
                    return at(
                        span,
                        format!(
                            "only arrays of records are indexed by field name, not {}",
                            v.ty
                        ),
                    );
                }
                self.array_field(&v, &a, key, span)
            }
            Ty::Array(a) => {
                let evaluated;
                let index = match self.array_index(index)? {
                    Some(i) if is_mask(&i) => return self.masked_select(&v, &a, &i, span),
                    Some(i) => {
                        evaluated = self.standing_for(vec![i], std::slice::from_ref(index));
                        &evaluated[0]
                    }
                    None => index,
                };
                if let (true, ExprKind::Name { .. } | ExprKind::Bound { .. }) =
                    (a.ndim > 1, &index.kind)
                {
                    // A tuple variable (`i = cuda.grid(2)`, then `a[i]`): its items index.
                    if let Some(idx) = self.tuple_indices(index, a.ndim)? {
                        return self.element(&v, &a, &idx, span);
                    }
                }
                let items = match &index.kind {
                    ExprKind::Tuple { elts } => elts.iter().collect::<Vec<_>>(),
                    _ => vec![index],
                };
                if items
                    .iter()
                    .any(|e| matches!(e.kind, ExprKind::Slice { .. }))
                    || items.len() < a.ndim
                {
                    return self.view(&v, &a, &items, span);
                }
                let mut idx = Vec::new();
                for e in &items {
                    idx.push(self.expr(e)?);
                }
                self.element(&v, &a, &idx, span)
            }
            Ty::Tuple(items) => {
                if let Some(k) = int_literal(index) {
                    let n = items.len() as i64;
                    let k2 = if k < 0 { k + n } else { k };
                    if !(0..n).contains(&k2) {
                        return at(
                            span,
                            format!("tuple index {k} is out of range for a tuple of {n}"),
                        );
                    }
                    return Ok(Val::new(
                        items[k2 as usize].clone(),
                        K::Item(v.boxed(), k2 as usize),
                    ));
                }
                if let ExprKind::Slice { lower, upper, step } = &index.kind {
                    let n = items.len() as i64;
                    let get = |e: &Option<Box<Expr>>| e.as_deref().map(int_literal);
                    let (lo, hi, st) = (get(lower), get(upper), get(step));
                    if [lo, hi, st].iter().any(|x| matches!(x, Some(None))) {
                        return at(span, "a tuple slice in a kernel needs constant bounds");
                    }
                    let st = st.flatten().unwrap_or(1);
                    if st != 1 {
                        return at(span, "a tuple slice in a kernel takes step 1");
                    }
                    let clamp = |x: i64| if x < 0 { (x + n).max(0) } else { x.min(n) };
                    let (lo, hi) = (
                        clamp(lo.flatten().unwrap_or(0)),
                        clamp(hi.flatten().unwrap_or(n)),
                    );
                    let t = self.temp(&v)?;
                    let vals = (lo..hi.max(lo))
                        .map(|k| {
                            Val::new(items[k as usize].clone(), K::Item(t.boxed(), k as usize))
                        })
                        .collect();
                    return Ok(self.make_tuple(vals));
                }
                let i = self.expr(index)?;
                if !i.ty.is_integral() {
                    return at(
                        span,
                        format!("tuple indices must be integers, not {}", i.ty),
                    );
                }
                if items.is_empty() || !items.iter().all(|t| *t == items[0]) {
                    return at(
                        span,
                        "a tuple with items of different types needs a constant index",
                    );
                }
                self.tuple_getter(&v.ty);
                let n = items.len() as i64;
                let ic = self.cast_to(&i, DType::I64);
                if self.c.host {
                    // Python's IndexError for an index outside the tuple (kernels wrap it).
                    let ic = self.temp(&ic)?;
                    let inside = |op, bound: i64| {
                        let bound = Val::constant(INT64, Const::Int(bound));
                        Val::new(BOOL, K::Compare(op, ic.boxed(), bound.boxed())).expr()
                    };
                    let cond = Val::new(
                        BOOL,
                        K::All {
                            items: vec![inside(CmpOp::GtE, -n), inside(CmpOp::Lt, n)],
                            negated: false,
                        },
                    );
                    self.require(cond, ir::Failure::TupleIndex, &[]);
                }
                self.c.uses.helpers.insert(Helper::Wrap);
                let wrapped = K::Wrap {
                    index: ic.boxed(),
                    len: Val::constant(INT64, Const::Int(n)).boxed(),
                };
                Ok(Val::new(
                    items[0].clone(),
                    K::ItemAt(v.boxed(), Val::new(INT64, wrapped).boxed()),
                ))
            }
            Ty::Record(_) => match self.field_key(index) {
                Some(key) => self.record_field(&v, key, span),
                None => at(
                    span,
                    "a record is indexed by a constant field name or position (r['x'], r[0])",
                ),
            },
            t => at(span, format!("a value of type {t} cannot be indexed")),
        }
    }

    /// In a host function, a single index that may be an array (a mask), evaluated: `None`
    /// for what cannot be one (a tuple, a slice, a constant, a variable holding no array).
    /// An array of integers (NumPy's fancy indexing) is refused here.
    pub(crate) fn array_index(&mut self, index: &Expr) -> R<Option<Val>> {
        if !self.c.host {
            return Ok(None);
        }
        match &index.kind {
            ExprKind::Tuple { .. }
            | ExprKind::Slice { .. }
            | ExprKind::Str { .. }
            | ExprKind::Int { .. }
            | ExprKind::Bound { .. } => return Ok(None),
            ExprKind::Name { id } if !self.holds_array(id) => return Ok(None),
            _ => {}
        }
        let i = self.expr(index)?;
        match &i.ty {
            Ty::Array(ia) if ia.ndim > 0 && ia.dtype != DType::Bool => at(
                index.span,
                format!("indexing by an array of integers (NumPy's fancy indexing, here {}) is not compiled for the CPU yet; index element by element in a loop", i.ty),
            ),
            _ => Ok(Some(i)),
        }
    }

    /// An index as a scalar: a 0-d array of integers indexes as its element, as in NumPy
    /// (`a[np.array(1)]` is `a[1]`).
    pub(super) fn index_value(&mut self, i: Val, span: Span) -> R<Val> {
        match &i.ty {
            Ty::Array(ia) if ia.ndim == 0 && Ty::Scalar(ia.dtype).is_integral() => {
                let ia = ia.clone();
                self.element(&i, &ia, &[], span)
            }
            _ => Ok(i),
        }
    }

    /// The index terms of element `idx` of `v`: int64, wrapped where they may be negative.
    fn index_terms(&mut self, v: &Val, a: &ArrayTy, idx: &[Val], span: Span) -> R<Vec<Val>> {
        let mut terms = Vec::new();
        for (k, i) in idx.iter().enumerate() {
            let i = &self.index_value(i.clone(), span)?;
            if !i.ty.is_integral() {
                return at(
                    span,
                    format!("array indices must be integers, got {}", i.ty),
                );
            }
            let n = self.dim(v, a, k);
            let mut ic = self.cast_to(i, DType::I64);
            let unsigned =
                i.ty.scalar()
                    .is_some_and(|d| matches!(d.kind(), Kind::UInt | Kind::Bool));
            if !i.nonneg && !unsigned {
                self.c.uses.helpers.insert(Helper::Wrap);
                ic = Val::new(
                    INT64,
                    K::Wrap {
                        index: ic.boxed(),
                        len: n.boxed(),
                    },
                );
            }
            terms.push(ic);
        }
        Ok(terms)
    }

    /// The place of element `index` of array `v`.
    pub(crate) fn element_place(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        index: &Expr,
        span: Span,
    ) -> R<Place> {
        if a.ndim != 1 && !matches!(index.kind, ExprKind::Tuple { .. } | ExprKind::Slice { .. }) {
            // A tuple value (`i = (x, y)`, then `a[i]`): its items are the indices.
            if let Some(idx) = self.tuple_indices(index, a.ndim)? {
                return self.place_at(v, a, &idx, span);
            }
        }
        let items = match &index.kind {
            ExprKind::Tuple { elts } => elts.iter().collect::<Vec<_>>(),
            _ => vec![index],
        };
        if items.len() != a.ndim
            || items
                .iter()
                .any(|e| matches!(e.kind, ExprKind::Slice { .. }))
        {
            return at(
                span,
                format!(
                    "an element of a {}-d array needs {} integer indices",
                    a.ndim, a.ndim
                ),
            );
        }
        let mut idx = Vec::new();
        for e in items {
            idx.push(self.expr(e)?);
        }
        self.place_at(v, a, &idx, span)
    }

    pub(crate) fn place_at(&mut self, v: &Val, a: &ArrayTy, idx: &[Val], span: Span) -> R<Place> {
        let terms = self.index_terms(v, a, idx, span)?;
        Ok(Place {
            array: v.boxed(),
            ty: a.clone(),
            indices: terms.iter().map(Val::expr).collect(),
        })
    }

    /// The items of `index` when it is a tuple value of `ndim` items (`i = cuda.grid(2)`, then
    /// `a[i]`): each an index.
    fn tuple_indices(&mut self, index: &Expr, ndim: usize) -> R<Option<Vec<Val>>> {
        let t = self.expr(index)?;
        let Ty::Tuple(tys) = &t.ty else {
            return Ok(None);
        };
        if tys.len() != ndim {
            return Ok(None);
        }
        let tys = tys.clone();
        let t = self.temp(&t)?;
        Ok(Some(
            tys.into_iter()
                .enumerate()
                .map(|(k, ty)| Val::new(ty, K::Item(t.boxed(), k)))
                .collect(),
        ))
    }

    /// Element `idx` of array `v`, as a value.
    pub(crate) fn element(&mut self, v: &Val, a: &ArrayTy, idx: &[Val], span: Span) -> R<Val> {
        if idx.len() != a.ndim {
            return at(
                span,
                format!(
                    "a {}-d array needs {} indices, got {}",
                    a.ndim,
                    a.ndim,
                    idx.len()
                ),
            );
        }
        let p = self.place_at(v, a, idx, span)?;
        if crate::types::record_of(a.dtype).is_some() {
            return Ok(self.record_at(p));
        }
        self.c.uses.dtypes.insert(a.dtype);
        Ok(Val::new(Ty::Scalar(a.dtype), K::Element(p)))
    }
}

/// Whether an evaluated index is a boolean mask (an array of bools with dimensions).
pub(crate) fn is_mask(i: &Val) -> bool {
    matches!(&i.ty, Ty::Array(ia) if ia.ndim > 0 && ia.dtype == DType::Bool)
}
