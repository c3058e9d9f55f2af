//! Records (Numba's `Record`): elements of arrays of a structured dtype, referred to where
//! they live. A field is a fixed-shape array over the field's bytes (0-d for a scalar field,
//! whose element is its value), so reads, stores and `+=` of fields are those of array
//! elements; whole records and nested arrays are copied element by element.

use ember_core::{DType, Field};

use crate::ast::{Expr, ExprKind, Span};
use crate::error::{at, R};
use crate::helpers::Helper;
use crate::ir::{self, Const, ExprKind as K, Place, Step, TempRole};
use crate::types::{record_of, ArrayTy, Layout, RecordTy, Ty, INT64};
use crate::typing::{FnTyper, Val};

use super::int_literal;

/// How a field is named: `r.x` and `r['x']`, or `r[0]` (by position, as Numba allows).
pub(crate) enum FieldKey<'k> {
    Name(&'k str),
    Index(i64),
}

/// The largest power of two, up to `base`, dividing `offset`: the alignment of an address
/// `offset` bytes past one aligned to `base`.
fn aligned_at(base: usize, offset: usize) -> usize {
    let mut a = base.max(1);
    while a > 1 && !offset.is_multiple_of(a) {
        a /= 2;
    }
    a
}

impl FnTyper<'_, '_> {
    /// The record at `place`, an element of an array of a structured dtype.
    pub(crate) fn record_at(&mut self, place: Place) -> Val {
        let ty = Ty::Record(RecordTy::element(place.ty.dtype, place.ty.space));
        self.c.register(&ty);
        Val::new(ty, K::RecordAt(place))
    }

    /// The key `r[index]` names, when `index` is a constant field name or position.
    pub(crate) fn field_key<'e>(&self, index: &'e Expr) -> Option<FieldKey<'e>> {
        match &index.kind {
            ExprKind::Str { v } => Some(FieldKey::Name(v)),
            _ => int_literal(index).map(FieldKey::Index),
        }
    }

    /// The field `r.attr` names, or Numba's error for an unknown attribute.
    pub(crate) fn attribute_key<'k>(&self, v: &Val, attr: &'k str, span: Span) -> R<FieldKey<'k>> {
        match &v.ty {
            Ty::Record(r) if r.layout().is_some_and(|l| l.field(attr).is_some()) => {
                Ok(FieldKey::Name(attr))
            }
            t => at(span, format!("Unknown attribute '{attr}' of type {t}")),
        }
    }

    /// The field `key` of record type `r`, or Numba's error.
    fn field_of(&self, r: &RecordTy, key: &FieldKey<'_>, span: Span) -> R<&'static Field> {
        let Some(layout) = r.layout() else {
            return at(span, format!("{} has no fields", Ty::Record(*r)));
        };
        let names = || {
            let n: Vec<String> = layout
                .fields
                .iter()
                .map(|f| format!("'{}'", f.name))
                .collect();
            if n.len() == 1 {
                format!("({},)", n[0])
            } else {
                format!("({})", n.join(", "))
            }
        };
        match key {
            FieldKey::Name(name) => layout.field(name).ok_or_else(|| {
                crate::error::Fail::At(
                    span,
                    format!(
                        "Field '{name}' was not found in record with fields {}",
                        names()
                    ),
                )
            }),
            FieldKey::Index(k) => usize::try_from(*k)
                .ok()
                .and_then(|k| layout.fields.get(k))
                .ok_or_else(|| {
                    crate::error::Fail::At(span, format!("Requested index {k} is out of range"))
                }),
        }
    }

    /// `r.x` read as Numba reads it: a scalar field's value, a nested record, or a nested
    /// array (a fixed-shape array over the record's memory).
    pub(crate) fn record_field(&mut self, v: &Val, key: FieldKey<'_>, span: Span) -> R<Val> {
        let view = self.field_view(v, &key, span)?;
        match &view.ty {
            Ty::Array(a) if a.ndim == 0 => {
                let a = a.clone();
                self.c.uses.dtypes.insert(a.dtype);
                let place = Place {
                    array: view.boxed(),
                    ty: a.clone(),
                    indices: Vec::new(),
                };
                if record_of(a.dtype).is_some() {
                    return Ok(self.record_at(place));
                }
                Ok(Val::new(Ty::Scalar(a.dtype), K::Element(place)))
            }
            _ => Ok(view),
        }
    }

    /// Field `key` of record `v`: a nested record, or an array over its bytes (0-d for a
    /// scalar field).
    fn field_view(&mut self, v: &Val, key: &FieldKey<'_>, span: Span) -> R<Val> {
        let Ty::Record(r) = v.ty else {
            return at(span, format!("{} has no fields", v.ty));
        };
        let field = self.field_of(&r, key, span)?;
        let align = aligned_at(r.align, field.offset);
        let kind = K::Field {
            record: v.boxed(),
            offset: field.offset,
        };
        if field.shape.is_empty() && record_of(field.dtype).is_some() {
            let ty = Ty::Record(RecordTy {
                dtype: field.dtype,
                space: r.space,
                align,
            });
            self.c.register(&ty);
            return Ok(Val::new(ty, kind));
        }
        // Every C type of a value is aligned to its size (complex64 too: ember_c64 is 8).
        let unaligned = record_of(field.dtype).is_none() && align < field.dtype.itemsize();
        if unaligned {
            if matches!(field.dtype, DType::F16 | DType::BF16) {
                return at(
                    span,
                    format!(
                        "field '{}' ({}) is not aligned in its record (offset {}): narrow floats must be aligned to 2 bytes",
                        field.name, field.dtype, field.offset
                    ),
                );
            }
            self.c
                .uses
                .helpers
                .insert(Helper::Unaligned(field.dtype, r.space));
        }
        let ty = Ty::Array(ArrayTy {
            dtype: field.dtype,
            ndim: field.shape.len(),
            layout: Layout::C,
            space: r.space,
            fixed: Some(field.shape.iter().map(|&n| n as i64).collect()),
            unaligned,
        });
        self.fixed_array_type(&ty);
        Ok(Val::new(ty, kind))
    }

    /// `a.x` (and `a['x']`) of an array of records: the field of every record, a strided view
    /// (Numba's), with a nested array's axes after the array's.
    pub(crate) fn array_field(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        key: FieldKey<'_>,
        span: Span,
    ) -> R<Val> {
        let r = RecordTy::element(a.dtype, a.space);
        let field = self.field_of(&r, &key, span)?;
        if record_of(field.dtype).is_some() {
            return at(
                span,
                format!("field '{}' of an array of records is itself records: index the array first (a[i].{})", field.name, field.name),
            );
        }
        let unaligned = aligned_at(r.align, field.offset) < field.dtype.itemsize();
        if unaligned {
            self.c
                .uses
                .helpers
                .insert(Helper::Unaligned(field.dtype, a.space));
        }
        let nested: Vec<i64> = field.shape.iter().map(|&n| n as i64).collect();
        let ty = Ty::Array(ArrayTy {
            dtype: field.dtype,
            ndim: a.ndim + nested.len(),
            layout: Layout::A,
            space: a.space,
            fixed: None,
            unaligned,
        });
        self.c.register(&ty);
        let base = self.temp(v)?;
        let temp = self.fresh(TempRole::View);
        self.push(ir::Stmt::FieldView {
            temp,
            ty: ty.clone(),
            base: base.expr(),
            offset: field.offset,
            nested,
        });
        Ok(Val::new(ty, K::Temp(temp)))
    }

    /// The place of a scalar field of record `v` (for a store or an update).
    pub(crate) fn field_place(&mut self, v: &Val, key: FieldKey<'_>, span: Span) -> R<Place> {
        let view = self.field_view(v, &key, span)?;
        match &view.ty {
            Ty::Array(a) if a.ndim == 0 && record_of(a.dtype).is_none() => Ok(Place {
                array: view.boxed(),
                ty: a.clone(),
                indices: Vec::new(),
            }),
            t => at(
                span,
                format!("this field is {t}, not a number: assign to its elements"),
            ),
        }
    }

    /// `r.x = value` (and `r['x'] = value`): a scalar field converted and stored, a nested
    /// array filled from an array of its shape (or a scalar), a nested record copied.
    pub(crate) fn store_field(
        &mut self,
        v: &Val,
        key: FieldKey<'_>,
        value: Val,
        span: Span,
    ) -> R<()> {
        if let Ty::Record(r) = v.ty {
            if r.space == crate::types::Space::Const {
                return at(span, "constant arrays are read-only");
            }
        }
        let view = self.field_view(v, &key, span)?;
        match view.ty.clone() {
            Ty::Record(_) => self.copy_record(&view, value, span),
            Ty::Array(a) if a.ndim == 0 => {
                let place = Place {
                    array: view.boxed(),
                    ty: a.clone(),
                    indices: Vec::new(),
                };
                self.store_scalar(place, &value, span)
            }
            Ty::Array(a) => self.fill_array(&view, &a, value, span),
            t => at(span, format!("cannot assign to a field of type {t}")),
        }
    }

    /// `place = value`, converted to the element's dtype.
    fn store_scalar(&mut self, place: Place, value: &Val, span: Span) -> R<()> {
        let Ty::Scalar(_) = value.ty else {
            return at(
                span,
                format!(
                    "cannot store a value of type {} into a field of dtype {}",
                    value.ty, place.ty.dtype
                ),
            );
        };
        let value = self.convert(value, &Ty::Scalar(place.ty.dtype), span)?;
        self.push(ir::Stmt::Store {
            place,
            value: value.expr(),
        });
        Ok(())
    }

    /// Record `dst` gets the bytes of record `src` (of the same dtype).
    pub(crate) fn copy_record(&mut self, dst: &Val, src: Val, span: Span) -> R<()> {
        let (Ty::Record(d), Ty::Record(s)) = (dst.ty.clone(), src.ty.clone()) else {
            return at(
                span,
                format!("cannot assign a value of type {} to a record", src.ty),
            );
        };
        if d.dtype != s.dtype {
            return at(
                span,
                format!(
                    "cannot assign a record of dtype {} to a record of dtype {}",
                    s.dtype, d.dtype
                ),
            );
        }
        let n = record_of(d.dtype).map_or(0, |r| r.itemsize);
        let (dst, src) = (self.temp(dst)?, self.temp(&src)?);
        let bytes = |this: &mut Self, r: &Val, space| {
            let ty = Ty::Array(ArrayTy {
                dtype: DType::U8,
                ndim: 1,
                layout: Layout::C,
                space,
                fixed: Some(vec![n as i64]),
                unaligned: false,
            });
            this.fixed_array_type(&ty);
            Val::new(
                ty,
                K::Field {
                    record: r.boxed(),
                    offset: 0,
                },
            )
        };
        let (to, from) = (bytes(self, &dst, d.space), bytes(self, &src, s.space));
        self.copy_loop(&to, &from, &[n as i64], span)
    }

    /// Nested array `view` (of type `a`) filled from `value`: an array of its shape, element
    /// by element, or one number.
    fn fill_array(&mut self, view: &Val, a: &ArrayTy, value: Val, span: Span) -> R<()> {
        let shape = a.fixed.clone().unwrap_or_default();
        match &value.ty {
            Ty::Array(src) if src.ndim == a.ndim => {
                let src = self.temp(&value)?;
                self.copy_loop(view, &src, &shape, span)
            }
            Ty::Scalar(_) => {
                let value = self.temp(&value)?;
                self.loops(&shape, &mut |this: &mut Self, idx: &[Val]| {
                    let place = this.place_at(view, a, idx, span)?;
                    this.store_scalar(place, &value, span)
                })
            }
            t => at(
                span,
                format!(
                    "cannot assign a value of type {t} to a nested array of shape {shape:?}: assign an array of that shape"
                ),
            ),
        }
    }

    /// `dst[idx] = src[idx]` for every index of `shape`.
    fn copy_loop(&mut self, dst: &Val, src: &Val, shape: &[i64], span: Span) -> R<()> {
        let (Ty::Array(da), Ty::Array(sa)) = (dst.ty.clone(), src.ty.clone()) else {
            return at(span, "cannot copy a value that is not an array");
        };
        self.loops(shape, &mut |this: &mut Self, idx: &[Val]| {
            let value = this.element(src, &sa, idx, span)?;
            let place = this.place_at(dst, &da, idx, span)?;
            this.store_scalar(place, &value, span)
        })
    }

    /// Nested counted loops over `shape`, running `body` with the indices innermost.
    fn loops(&mut self, shape: &[i64], body: &mut dyn FnMut(&mut Self, &[Val]) -> R<()>) -> R<()> {
        let mut idx = Vec::new();
        self.loop_level(shape, &mut idx, body)
    }

    fn loop_level(
        &mut self,
        shape: &[i64],
        idx: &mut Vec<Val>,
        body: &mut dyn FnMut(&mut Self, &[Val]) -> R<()>,
    ) -> R<()> {
        let Some((&n, rest)) = shape.split_first() else {
            return body(self, idx);
        };
        let i = self.fresh(TempRole::Index);
        idx.push(Val::new(INT64, K::Temp(i)).nonneg(true));
        self.open_block();
        let r = self.loop_level(rest, idx, body);
        let block = self.close_block();
        idx.pop();
        r?;
        self.push(ir::Stmt::For {
            index: i,
            ty: DType::I64,
            start: Val::constant(INT64, Const::Int(0)).expr(),
            stop: Val::constant(INT64, Const::Int(n)).nonneg(true).expr(),
            step: Step::One,
            body: block,
            parallel: false,
        });
        Ok(())
    }
}
