//! Arrays as values: attributes (`shape`, `size`, `T`, ...), views (slices, transposes)
//! and the fixed-shape arrays of shared, local and constant memory.

use ember_codegen::types::value_type;
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{Expr, ExprKind, Span};
use crate::error::{at, Fail, R};
use crate::function::{FnCompiler, Val};
use crate::helpers::Helper;
use crate::types::{dtype_named, ArrayTy, Layout, Space, Ty, INT64};

use super::int_literal;

impl FnCompiler<'_, '_> {
    pub(super) fn attribute(&mut self, v: Val, attr: &str, span: Span) -> R<Val> {
        match (&v.ty, attr) {
            (Ty::Array(a), "shape") | (Ty::Array(a), "strides") => {
                let a = a.clone();
                let items: Vec<Val> = (0..a.ndim)
                    .map(|k| {
                        let code = if attr == "shape" {
                            self.dim(&v, &a, k)
                        } else {
                            self.stride(&v, &a, k)
                        };
                        Val::new(INT64, code).nonneg(attr == "shape")
                    })
                    .collect();
                Ok(self.make_tuple(items))
            }
            (Ty::Array(a), "size") => {
                let a = a.clone();
                let dims: Vec<String> = (0..a.ndim).map(|k| self.dim(&v, &a, k)).collect();
                let code = if dims.is_empty() {
                    self.int64_literal(1)
                } else {
                    format!("({})", dims.join(" * "))
                };
                Ok(Val::new(INT64, code).nonneg(true))
            }
            (Ty::Array(a), "T") => {
                let a = a.clone();
                self.transposed(&v, &a, span)
            }
            (Ty::Array(a), "ndim") => {
                Ok(Val::new(INT64, self.int64_literal(a.ndim as i64)).nonneg(true))
            }
            (Ty::Array(a), "itemsize") => {
                Ok(Val::new(INT64, self.int64_literal(a.dtype.itemsize() as i64)).nonneg(true))
            }
            (Ty::Scalar(d), "real") | (Ty::Scalar(d), "imag") if d.kind() == Kind::Complex => {
                let part = if *d == DType::C64 {
                    DType::F32
                } else {
                    DType::F64
                };
                let field = if attr == "real" { "x" } else { "y" };
                Ok(Val::new(Ty::Scalar(part), format!("({}).{field}", v.code)))
            }
            (Ty::Scalar(d), "real") => {
                Ok(Val::new(Ty::Scalar(*d), v.code.clone()).nonneg(v.nonneg))
            }
            (Ty::Scalar(d), "imag") => Ok(Val::new(
                Ty::Scalar(*d),
                format!("(({})0)", value_type(*d, self.c.dialect)),
            )
            .nonneg(true)),
            (t, _) => at(span, format!("{t} has no attribute '{attr}' in kernels")),
        }
    }

    /// Dimension `k` of array value `v`.
    pub(crate) fn dim(&self, v: &Val, a: &ArrayTy, k: usize) -> String {
        match &a.fixed {
            Some(shape) => self.int64_literal(shape[k]),
            None => format!("{}.d.shape[{k}]", v.code),
        }
    }

    /// Byte stride `k` of array value `v`.
    pub(super) fn stride(&self, v: &Val, a: &ArrayTy, k: usize) -> String {
        match &a.fixed {
            Some(shape) => {
                let inner: i64 = shape[k + 1..].iter().product();
                self.int64_literal(inner * a.dtype.itemsize() as i64)
            }
            None => format!("{}.d.strides[{k}]", v.code),
        }
    }

    /// `v[items]` with slices or fewer indices than dimensions: a view.
    pub(super) fn view(&mut self, v: &Val, a: &ArrayTy, items: &[&Expr], span: Span) -> R<Val> {
        if items.len() > a.ndim {
            return at(span, format!("too many indices for a {}-d array", a.ndim));
        }
        if a.fixed.is_some() {
            return at(
                span,
                "slicing shared, local or constant arrays is not supported; index their elements",
            );
        }
        let base = self.temp(v)?;
        let mut offset = Vec::new();
        let mut dims = Vec::new();
        for k in 0..a.ndim {
            let n = self.dim(&base, a, k);
            let s = self.stride(&base, a, k);
            match items.get(k).map(|e| &e.kind) {
                None => dims.push((n, s)),
                Some(ExprKind::Slice { lower, upper, step }) => {
                    let step_v = match step {
                        None => None,
                        Some(e) => Some(int_literal(e).ok_or_else(|| {
                            Fail::At(
                                e.span,
                                "the step of a slice in a kernel must be a constant".into(),
                            )
                        })?),
                    };
                    let st = step_v.unwrap_or(1);
                    if st == 0 {
                        return at(span, "slice step cannot be zero");
                    }
                    let lo = match lower {
                        Some(e) => Some(self.expr(e)?),
                        None => None,
                    };
                    let hi = match upper {
                        Some(e) => Some(self.expr(e)?),
                        None => None,
                    };
                    let lo = lo.map(|x| self.cast_to(&x, DType::I64));
                    let hi = hi.map(|x| self.cast_to(&x, DType::I64));
                    self.c.helpers.insert(Helper::Wrap);
                    // Python's slice bounds, clamped to [0, n] (or [-1, n-1] going backwards).
                    let (start, stop) = if st > 0 {
                        (
                            lo.map(|x| format!("ember_clamp(ember_wrap({x}, {n}), 0, {n})"))
                                .unwrap_or_else(|| "0".into()),
                            hi.map(|x| format!("ember_clamp(ember_wrap({x}, {n}), 0, {n})"))
                                .unwrap_or_else(|| n.clone()),
                        )
                    } else {
                        (
                            lo.map(|x| format!("ember_clamp(ember_wrap({x}, {n}), -1, {n} - 1)"))
                                .unwrap_or_else(|| format!("({n} - 1)")),
                            hi.map(|x| format!("ember_clamp(ember_wrap({x}, {n}), -1, {n} - 1)"))
                                .unwrap_or_else(|| "-1".into()),
                        )
                    };
                    self.c.helpers.insert(Helper::Clamp);
                    let len = if st > 0 {
                        format!(
                            "(({stop}) > ({start}) ? (({stop}) - ({start}) + {} ) / {st} : 0)",
                            st - 1
                        )
                    } else {
                        format!(
                            "(({start}) > ({stop}) ? (({start}) - ({stop}) + {} ) / {} : 0)",
                            -st - 1,
                            -st
                        )
                    };
                    offset.push(format!("({start}) * {s}"));
                    dims.push((len, format!("{s} * {st}")));
                }
                Some(_) => {
                    let i = self.expr(items[k])?;
                    if !i.ty.is_integral() {
                        return at(
                            items[k].span,
                            format!("array indices must be integers or slices, got {}", i.ty),
                        );
                    }
                    let ic = self.cast_to(&i, DType::I64);
                    self.c.helpers.insert(Helper::Wrap);
                    offset.push(format!("ember_wrap({ic}, {n}) * {s}"));
                }
            }
        }
        let ty = ArrayTy {
            dtype: a.dtype,
            ndim: dims.len(),
            layout: Layout::A,
            space: a.space,
            fixed: None,
        };
        let tyv = Ty::Array(ty.clone());
        let st = self.c.c_type(&tyv);
        let q = self.c.qualifier(a.space);
        let elem = ember_codegen::types::storage_type(a.dtype, self.c.dialect);
        let name = self.fresh("view");
        self.line(&format!("{st} {name};"));
        let off = if offset.is_empty() {
            "0".to_string()
        } else {
            offset.join(" + ")
        };
        self.line(&format!(
            "{name}.data = ({q}{elem}*)(({q}char*){}.data + {off});",
            base.code
        ));
        for (k, (n, s)) in dims.iter().enumerate() {
            self.line(&format!(
                "{name}.d.shape[{k}] = {n}; {name}.d.strides[{k}] = {s};"
            ));
        }
        Ok(Val::new(tyv, name))
    }

    /// `v.T`: a view with the axes reversed (a 0-d or 1-d array is itself).
    fn transposed(&mut self, v: &Val, a: &ArrayTy, span: Span) -> R<Val> {
        if a.ndim < 2 {
            return Ok(v.clone());
        }
        if a.fixed.is_some() {
            return at(
                span,
                "transposing shared, local or constant arrays is not supported; index them the other way round",
            );
        }
        let base = self.temp(v)?;
        let ty = ArrayTy {
            layout: Layout::A,
            ..a.clone()
        };
        let tyv = Ty::Array(ty);
        let st = self.c.c_type(&tyv);
        let name = self.fresh("view");
        self.line(&format!("{st} {name};"));
        self.line(&format!("{name}.data = {}.data;", base.code));
        for k in 0..a.ndim {
            let from = a.ndim - 1 - k;
            let (n, s) = (self.dim(&base, a, from), self.stride(&base, a, from));
            self.line(&format!(
                "{name}.d.shape[{k}] = {n}; {name}.d.strides[{k}] = {s};"
            ));
        }
        Ok(Val::new(tyv, name))
    }

    pub(super) fn const_array(&mut self, id: usize, span: Span) -> R<Val> {
        let array = self
            .c
            .program
            .arrays
            .get(id)
            .ok_or_else(|| Fail::At(span, "unknown constant array".into()))?;
        let dtype = dtype_named(&array.dtype).ok_or_else(|| {
            Fail::At(
                span,
                format!("constant arrays of dtype {} are not supported", array.dtype),
            )
        })?;
        let shape: Vec<i64> = array.shape.iter().map(|&n| n as i64).collect();
        let name = format!("ember_const{id}");
        self.c.constants.insert(id, name.clone());
        self.c.dtypes.insert(dtype);
        let ty = crate::compiler::fixed_array(dtype, shape, Space::Const);
        let code = self.fixed_array_value(&ty, &name);
        Ok(Val::new(ty, code))
    }

    /// The value of a fixed-shape array whose elements start at C pointer `data`.
    pub(crate) fn fixed_array_value(&mut self, ty: &Ty, data: &str) -> String {
        let Ty::Array(a) = ty else {
            return String::new();
        };
        let st = self.c.c_type(ty);
        let maker = format!("{st}_at");
        let dev = self.c.dialect.table().device_fn;
        let q = self.c.qualifier(a.space);
        let elem = ember_codegen::types::storage_type(a.dtype, self.c.dialect);
        self.c.extra(format!(
            "{dev} {st} {maker}({q}{elem}* p) {{ {st} a; a.data = p; return a; }}\n"
        ));
        format!("{maker}({data})")
    }
}
