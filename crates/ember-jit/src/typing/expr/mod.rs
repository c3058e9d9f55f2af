//! Expressions: typing by Numba's rules into IR expressions. This module dispatches on the
//! node and converts values; [`arith`] types operators, [`compare`] compares two values,
//! [`lazy`] writes what Python evaluates once or conditionally (`and`/`or`, chained
//! comparisons, `x if c else y`), [`index`] array elements, [`array`] array attributes and
//! views, [`literal`] constants.

mod arith;
mod array;
mod compare;
mod datetime;
mod index;
mod lazy;
mod literal;
mod record;

use ember_core::DType;

use crate::ast::{Expr, ExprKind, Span};
use crate::error::{at, Fail, R};
use crate::ir::{AggregateFn, Const, ExprKind as K};
use crate::types::{scalar_dtype_named, Ty, BOOL, FLOAT64, INT64};
use crate::typing::{FnTyper, Val};

pub(crate) use index::is_mask;
use literal::parse_float;
pub use literal::{const_ints, int_literal, is_none};
pub(crate) use record::FieldKey;

impl FnTyper<'_, '_> {
    /// Types and writes `e`; an optional value (a variable that may hold `None`) is the value
    /// it holds, checked when it runs (Numba's "expected float64, got None").
    pub(crate) fn expr(&mut self, e: &Expr) -> R<Val> {
        let v = self.expr_raw(e)?;
        Ok(unwrapped(v))
    }

    /// Types and writes `e`, an optional value left as it is: for the places that take `None`
    /// (an assignment, a `return`, `x is None`, an argument of a compiled function).
    pub(crate) fn expr_raw(&mut self, e: &Expr) -> R<Val> {
        let span = e.span;
        if let Some(v) = self.fused_array_expression(e) {
            return v;
        }
        match &e.kind {
            ExprKind::Int { v } => {
                let value: i128 = v
                    .parse()
                    .map_err(|_| Fail::At(span, format!("'{v}' is not an integer")))?;
                if let Ok(x) = i64::try_from(value) {
                    Ok(Val::constant(INT64, Const::Int(x)).nonneg(x >= 0))
                } else if u64::try_from(value).is_ok() {
                    self.typed_literal(DType::U64, v, span)
                } else {
                    at(
                        span,
                        format!("integer {v} is too large for a kernel (at most 64 bits)"),
                    )
                }
            }
            ExprKind::Float { v } => {
                let x = parse_float(v)
                    .ok_or_else(|| Fail::At(span, format!("'{v}' is not a float")))?;
                Ok(Val::constant(FLOAT64, Const::Float(x)).nonneg(x >= 0.0))
            }
            ExprKind::Bool { v } => Ok(Val::constant(BOOL, Const::Bool(*v)).nonneg(true)),
            ExprKind::Complex { re, im } => {
                self.c.uses.dtypes.insert(DType::C128);
                self.typed_literal(DType::C128, &format!("{re},{im}"), span)
            }
            ExprKind::Typed { dtype, v } => {
                let d = scalar_dtype_named(dtype).ok_or_else(|| {
                    Fail::At(
                        span,
                        format!("constant of dtype {dtype} is not supported in kernels"),
                    )
                })?;
                self.c.uses.dtypes.insert(d);
                self.typed_literal(d, v, span)
            }
            ExprKind::Name { id } => self.load_var(id, span),
            ExprKind::Intrinsic { name } => self.intrinsic_value(name, span),
            ExprKind::Func { id } => at(
                span,
                format!(
                    "device function '{}' must be called here, not used as a value",
                    self.c.program.functions[*id].name
                ),
            ),
            ExprKind::Extern { id } => at(
                span,
                format!(
                    "CUDA C device function '{}' must be called here, not used as a value",
                    self.c.program.externs[*id].name
                ),
            ),
            ExprKind::Array { id } => self.const_array(*id, span),
            ExprKind::DeviceArray { ptr, dtype, shape } => {
                self.captured_array(ptr, dtype, shape, span)
            }
            ExprKind::Attribute { value, attr } => {
                // `a.ctypes.data`: the address of the array's first element (Numba's uintp).
                if let ExprKind::Attribute { value: base, attr: outer } = &value.kind {
                    if outer == "ctypes" && attr == "data" {
                        let arr = self.expr(base)?;
                        if let Ty::Array(_) = arr.ty {
                            return Ok(Val::new(Ty::Scalar(DType::U64), K::Address(arr.boxed())));
                        }
                    }
                }
                let v = self.expr(value)?;
                self.attribute(v, attr, span)
            }
            ExprKind::Subscript { value, index } => {
                // `a.shape[k]` reads the dimension without building the tuple.
                if let (ExprKind::Attribute { value: base, attr }, Some(k)) =
                    (&value.kind, int_literal(index))
                {
                    if attr == "shape" {
                        let arr = self.expr(base)?;
                        if let Ty::Array(a) = &arr.ty {
                            let a = a.clone();
                            let n = a.ndim as i64;
                            let k2 = if k < 0 { k + n } else { k };
                            if !(0..n).contains(&k2) {
                                return at(span, format!("tuple index {k} is out of range for the shape of a {n}-d array"));
                            }
                            return Ok(self.dim(&arr, &a, k2 as usize));
                        }
                    }
                }
                let v = self.expr(value)?;
                self.subscript(v, index, span)
            }
            ExprKind::Slice { .. } => at(span, "a slice is only allowed inside [...]"),
            ExprKind::BinOp { op, left, right } => {
                let (l, r) = (self.expr(left)?, self.expr(right)?);
                self.binop(*op, l, r, span)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.expr(operand)?;
                self.unary(*op, v, span)
            }
            ExprKind::BoolOp { op, values } => self.boolop(*op, values, span),
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => self.compare(left, ops, comparators, span),
            ExprKind::Call {
                func,
                args,
                keywords,
            } => self.call(func, args, keywords, span),
            ExprKind::IfExp { test, body, orelse } => self.conditional(test, body, orelse, span),
            ExprKind::Tuple { elts } => {
                let mut vals = Vec::new();
                for x in elts {
                    // A host function's tuple may hold None or an optional value.
                    vals.push(if self.c.host {
                        self.expr_raw(x)?
                    } else {
                        self.expr(x)?
                    });
                }
                Ok(self.make_tuple(vals))
            }
            ExprKind::Bound { slot } => Ok(self.bound[*slot].clone()),
            ExprKind::Starred { .. } => at(
                span,
                "a starred expression (*t) is only allowed among a call's arguments",
            ),
            ExprKind::Unsupported { .. } if self.c.host && is_none(e) => {
                Ok(Val::new(Ty::None, K::None))
            }
            ExprKind::Unsupported { what } => {
                at(span, format!("{what} is not supported in kernels"))
            }
            ExprKind::Str { v } => at(
                span,
                format!(
                    "the string {v:?} is not supported in kernels except as an argument of print() or a record's field name (r['x'])"
                ),
            ),
        }
    }

    /// A tuple value from its items.
    pub(crate) fn make_tuple(&mut self, vals: Vec<Val>) -> Val {
        let ty = Ty::Tuple(vals.iter().map(|v| v.ty.clone()).collect());
        let items_nonneg: Vec<bool> = vals.iter().map(|v| v.nonneg).collect();
        self.c.register(&ty);
        for v in &vals {
            self.c.register(&v.ty);
        }
        self.c.aggregate_fn(AggregateFn::MakeTuple(ty.clone()));
        let mut v = Val::new(ty, K::MakeTuple(vals.iter().map(Val::expr).collect()));
        v.items_nonneg = items_nonneg;
        v
    }

    /// `v` converted to `ty` (scalars cast as Numba casts; tuples item by item; `None` or a
    /// value to an optional one).
    pub(crate) fn convert(&mut self, v: &Val, ty: &Ty, span: Span) -> R<Val> {
        if v.ty == *ty {
            return Ok(v.clone());
        }
        if let Ty::Optional(inner) = ty {
            if !self.c.host {
                return at(
                    span,
                    format!("a value that is None on some paths and {inner} on others is compiled for the CPU only (@njit); kernels keep one type"),
                );
            }
            self.c.register(ty);
            return Ok(match &v.ty {
                Ty::None => Val::new(ty.clone(), K::None),
                Ty::Optional(_) => {
                    let v = &self.temp(v)?;
                    let value = self.convert(&unwrapped(v.clone()), inner, span)?;
                    let held = Val::new(ty.clone(), K::Some(value.boxed()));
                    let none = Val::new(ty.clone(), K::None);
                    let is_none = Val::new(BOOL, K::IsNone(v.boxed()));
                    Val::new(
                        ty.clone(),
                        K::Select(is_none.boxed(), none.boxed(), held.boxed()),
                    )
                }
                _ => {
                    let value = self.convert(v, inner, span)?;
                    Val::new(ty.clone(), K::Some(value.boxed()))
                }
            });
        }
        match (&v.ty, ty) {
            (Ty::Scalar(from), Ty::Scalar(to))
                if from.datetime().is_some() || to.datetime().is_some() =>
            {
                // Numba converts no datetime64/timedelta64 implicitly (not even between
                // units): the value must have the type the place holds.
                at(
                    span,
                    format!(
                        "cannot convert {from} to {to}: Numba converts datetime64 and timedelta64 values to no other type or unit implicitly (compute a value of type {to})"
                    ),
                )
            }
            (Ty::Scalar(_), Ty::Scalar(to)) => Ok(self.cast_to(v, *to)),
            (Ty::Tuple(a), Ty::Tuple(b)) if a.len() == b.len() => {
                let t = self.temp(v)?;
                let mut items = Vec::new();
                for (i, (x, y)) in a.clone().iter().zip(b.clone()).enumerate() {
                    let item = Val::new(x.clone(), K::Item(t.boxed(), i));
                    items.push(self.convert(&item, &y, span)?);
                }
                Ok(self.make_tuple(items))
            }
            (Ty::Array(a), Ty::Array(b))
                if a.dtype == b.dtype && a.ndim == b.ndim && a.space == b.space =>
            {
                // Only the layout differs: the value is the same.
                Ok(v.clone())
            }
            (from, to) => at(span, format!("cannot convert {from} to {to}")),
        }
    }

    fn scalar_of(&self, v: &Val, span: Span, what: &str) -> R<DType> {
        v.ty.scalar()
            .ok_or_else(|| Fail::At(span, format!("{what} needs numbers, got {}", v.ty)))
    }

    /// `v` as a value of dtype `t` (a scalar cast; to a narrow float, rounded to it).
    pub(crate) fn cast_to(&mut self, v: &Val, t: DType) -> Val {
        self.c.uses.dtypes.insert(t);
        if t.is_narrow() {
            self.c.uses.helpers.insert(crate::helpers::Helper::Round(t));
        }
        match v.ty.scalar() {
            Some(from) if from != t => Val::new(Ty::Scalar(t), K::Cast(v.boxed())),
            _ => v.clone(),
        }
    }
}

/// The value an optional holds (checked when it runs); any other value as it is.
pub(crate) fn unwrapped(v: Val) -> Val {
    match &v.ty {
        Ty::Optional(inner) => Val::new((**inner).clone(), K::Unwrap(v.boxed())),
        _ => v,
    }
}
