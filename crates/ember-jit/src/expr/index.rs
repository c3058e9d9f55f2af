//! Subscripts: array elements (offsets, negative indices wrapped, loads and stores per
//! memory space) and tuple items.

use ember_codegen::types::{load_narrow, store_narrow};
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{Expr, ExprKind, Span};
use crate::error::{at, R};
use crate::function::{FnCompiler, Val};
use crate::helpers::Helper;
use crate::types::{ArrayTy, Layout, Space, Ty};

use super::int_literal;

impl FnCompiler<'_, '_> {
    pub(super) fn subscript(&mut self, v: Val, index: &Expr, span: Span) -> R<Val> {
        match v.ty.clone() {
            Ty::Array(a) => {
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
                        format!("{}.f{k2}", v.code),
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
                        .map(|k| Val::new(items[k as usize].clone(), format!("{}.f{k}", t.code)))
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
                let get = self.tuple_getter(&v.ty);
                let n = items.len() as i64;
                let ic = self.cast_to(&i, DType::I64);
                self.c.helpers.insert(Helper::Wrap);
                Ok(Val::new(
                    items[0].clone(),
                    format!(
                        "{get}({}, ember_wrap({ic}, {}))",
                        v.code,
                        self.int64_literal(n)
                    ),
                ))
            }
            t => at(span, format!("a value of type {t} cannot be indexed")),
        }
    }

    /// The byte (A layout) or element (C layout) offset of element `idx` of `v`.
    fn offset(&mut self, v: &Val, a: &ArrayTy, idx: &[Val], span: Span) -> R<String> {
        let mut terms = Vec::new();
        for (k, i) in idx.iter().enumerate() {
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
                self.c.helpers.insert(Helper::Wrap);
                ic = format!("ember_wrap({ic}, {n})");
            }
            if a.fixed.is_some() {
                // Shared, local and constant arrays are small: 32-bit offsets are cheaper.
                ic = format!("(int)({ic})");
            }
            terms.push(ic);
        }
        if a.layout == Layout::C || a.fixed.is_some() {
            // Horner form over the dimensions: ((i0 * n1 + i1) * n2 + i2)...
            let mut code = String::new();
            for (k, t) in terms.iter().enumerate() {
                if k == 0 {
                    code = t.clone();
                } else {
                    let n = match &a.fixed {
                        Some(shape) => shape[k].to_string(),
                        None => self.dim(v, a, k),
                    };
                    code = format!("({code}) * {n} + {t}");
                }
            }
            Ok(if code.is_empty() { "0".into() } else { code })
        } else {
            let parts: Vec<String> = terms
                .iter()
                .enumerate()
                .map(|(k, t)| format!("{t} * {}", self.stride(v, a, k)))
                .collect();
            Ok(if parts.is_empty() {
                "0".into()
            } else {
                parts.join(" + ")
            })
        }
    }

    /// A pointer expression to element `index` of array `v`.
    pub(crate) fn element_pointer(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        index: &Expr,
        span: Span,
    ) -> R<String> {
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
        self.pointer_at(v, a, &idx, span)
    }

    pub(crate) fn pointer_at(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        idx: &[Val],
        span: Span,
    ) -> R<String> {
        let off = self.offset(v, a, idx, span)?;
        Ok(if a.layout == Layout::C || a.fixed.is_some() {
            format!("({}.data + {off})", v.code)
        } else {
            let q = self.c.qualifier(a.space);
            let elem = ember_codegen::types::storage_type(a.dtype, self.c.dialect);
            format!("(({q}{elem}*)(({q}char*){}.data + {off}))", v.code)
        })
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
        let p = self.pointer_at(v, a, idx, span)?;
        self.c.dtypes.insert(a.dtype);
        let code = self.load_elem(a.dtype, a.space, &p);
        Ok(Val::new(Ty::Scalar(a.dtype), code))
    }

    /// Reads the element at pointer `p` in `space`.
    pub(crate) fn load_elem(&mut self, d: DType, space: Space, p: &str) -> String {
        let q = self.c.qualifier(space);
        if let Some(code) = load_narrow(d, self.c.dialect, p, q) {
            return code;
        }
        match d {
            DType::Bool => format!("((unsigned char)(*{p} != 0))"),
            _ => format!("(*{p})"),
        }
    }

    /// The statement writing value `code` to the element at pointer `p` in `space`.
    pub(crate) fn store_elem(&mut self, d: DType, space: Space, p: &str, code: &str) -> String {
        let q = self.c.qualifier(space);
        store_narrow(d, self.c.dialect, p, q, code).unwrap_or_else(|| format!("*{p} = {code};"))
    }
}
