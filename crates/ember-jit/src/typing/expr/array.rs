//! Arrays as values: attributes (`shape`, `size`, `T`, ...), views (slices, transposes)
//! and the fixed-shape arrays of shared, local and constant memory.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{Expr, ExprKind, Span};
use crate::error::{at, Fail, R};
use crate::helpers::Helper;
use crate::ir::{AggregateFn, Const, ExprKind as K, Stmt, Temp, TempRole, ViewAxis};
use crate::types::{part_dtype, ArrayTy, Layout, Space, Ty, INT64};
use crate::typing::{FnTyper, Val};

use super::int_literal;

impl FnTyper<'_, '_> {
    pub(super) fn attribute(&mut self, v: Val, attr: &str, span: Span) -> R<Val> {
        if let Ty::Record(_) = &v.ty {
            let key = self.attribute_key(&v, attr, span)?;
            return self.record_field(&v, key, span);
        }
        if let Ty::Array(a) = &v.ty {
            let has = crate::types::record_of(a.dtype).is_some_and(|r| r.field(attr).is_some());
            if has {
                let a = a.clone();
                return self.array_field(&v, &a, super::record::FieldKey::Name(attr), span);
            }
        }
        match (&v.ty, attr) {
            (Ty::Array(a), "shape") | (Ty::Array(a), "strides") => {
                let a = a.clone();
                let items: Vec<Val> = (0..a.ndim)
                    .map(|k| {
                        if attr == "shape" {
                            self.dim(&v, &a, k)
                        } else {
                            self.stride(&v, &a, k)
                        }
                    })
                    .collect();
                Ok(self.make_tuple(items))
            }
            (Ty::Array(a), "size") => {
                let size = if a.ndim == 0 {
                    K::Const(Const::Int(1))
                } else {
                    K::Size(v.boxed())
                };
                Ok(Val::new(INT64, size).nonneg(true))
            }
            (Ty::Array(a), "T") => {
                let a = a.clone();
                self.transposed(&v, &a, span)
            }
            (Ty::Array(a), "ndim") => {
                Ok(Val::constant(INT64, Const::Int(a.ndim as i64)).nonneg(true))
            }
            (Ty::Array(a), "itemsize") => {
                Ok(Val::constant(INT64, Const::Int(a.dtype.itemsize() as i64)).nonneg(true))
            }
            (Ty::Array(a), "real") | (Ty::Array(a), "imag")
                if a.dtype.kind() == Kind::Complex && a.fixed.is_none() =>
            {
                let a = a.clone();
                let real = part_dtype(a.dtype);
                let skip = if attr == "imag" { real.itemsize() } else { 0 };
                self.reinterpreted(&v, &a, real, skip, false)
            }
            (Ty::Array(a), "real") if a.fixed.is_none() => Ok(v),
            (Ty::Scalar(d), "real") | (Ty::Scalar(d), "imag") if d.kind() == Kind::Complex => {
                let part = part_dtype(*d);
                let imag = attr == "imag";
                Ok(Val::new(
                    Ty::Scalar(part),
                    K::Part {
                        value: v.boxed(),
                        imag,
                    },
                ))
            }
            (Ty::Scalar(d), "real") => {
                Ok(Val::new(Ty::Scalar(*d), v.kind.clone()).nonneg(v.nonneg))
            }
            (Ty::Scalar(d), "imag") => Ok(Val::constant(Ty::Scalar(*d), Const::Zero).nonneg(true)),
            (t, _) => at(span, format!("{t} has no attribute '{attr}' in kernels")),
        }
    }

    /// Dimension `k` of array value `v` (a constant for fixed shapes).
    pub(crate) fn dim(&self, v: &Val, a: &ArrayTy, k: usize) -> Val {
        let kind = match &a.fixed {
            Some(shape) => K::Const(Const::Int(shape[k])),
            None => K::Dim(v.boxed(), k),
        };
        Val::new(INT64, kind).nonneg(true)
    }

    /// Byte stride `k` of array value `v`.
    pub(crate) fn stride(&self, v: &Val, a: &ArrayTy, k: usize) -> Val {
        let kind = match &a.fixed {
            Some(shape) => {
                let inner: i64 = shape[k + 1..].iter().product();
                K::Const(Const::Int(inner * a.dtype.itemsize() as i64))
            }
            None => K::Stride(v.boxed(), k),
        };
        Val::new(INT64, kind)
    }

    /// `v[items]` with slices or fewer indices than dimensions: a view.
    pub(crate) fn view(&mut self, v: &Val, a: &ArrayTy, items: &[&Expr], span: Span) -> R<Val> {
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
        let mut axes = Vec::new();
        let mut ndim = 0;
        for k in 0..a.ndim {
            match items.get(k).map(|e| &e.kind) {
                None => {
                    ndim += 1;
                    axes.push(ViewAxis::Whole);
                }
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
                    let lo = lo.map(|x| self.cast_to(&x, DType::I64).expr());
                    let hi = hi.map(|x| self.cast_to(&x, DType::I64).expr());
                    self.c.uses.helpers.insert(Helper::Wrap);
                    self.c.uses.helpers.insert(Helper::Clamp);
                    ndim += 1;
                    axes.push(ViewAxis::Slice { lo, hi, step: st });
                }
                Some(_) => {
                    let i = self.expr(items[k])?;
                    let i = self.index_value(i, items[k].span)?;
                    if !i.ty.is_integral() {
                        return at(
                            items[k].span,
                            format!("array indices must be integers or slices, got {}", i.ty),
                        );
                    }
                    let ic = self.cast_to(&i, DType::I64);
                    self.c.uses.helpers.insert(Helper::Wrap);
                    axes.push(ViewAxis::Index(ic.expr()));
                }
            }
        }
        let ty = ArrayTy {
            dtype: a.dtype,
            ndim,
            layout: Layout::A,
            space: a.space,
            fixed: None,
            unaligned: a.unaligned,
        };
        let tyv = Ty::Array(ty);
        self.c.register(&tyv);
        let name = self.fresh(TempRole::View);
        self.push(Stmt::View {
            temp: name,
            ty: tyv.clone(),
            base: base.expr(),
            axes,
        });
        Ok(Val::new(tyv, K::Temp(name)))
    }

    /// `v.T`: a view with the axes reversed (a 0-d or 1-d array is itself).
    /// A view of `v`'s memory as elements of `dtype` (see [`Stmt::Reinterpret`]).
    pub(crate) fn reinterpreted(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        dtype: DType,
        skip: usize,
        rescale: bool,
    ) -> R<Val> {
        let base = self.temp(v)?;
        let ty = Ty::Array(ArrayTy {
            dtype,
            layout: Layout::A,
            ..a.clone()
        });
        self.c.register(&ty);
        let name = self.fresh(TempRole::View);
        self.push(Stmt::Reinterpret {
            temp: name,
            ty: ty.clone(),
            base: base.expr(),
            skip,
            rescale,
        });
        Ok(Val::new(ty, K::Temp(name)))
    }

    pub(crate) fn transposed(&mut self, v: &Val, a: &ArrayTy, span: Span) -> R<Val> {
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
        self.c.register(&tyv);
        let name = self.fresh(TempRole::View);
        self.push(Stmt::Transpose {
            temp: name,
            ty: tyv.clone(),
            base: base.expr(),
        });
        Ok(Val::new(tyv, K::Temp(name)))
    }

    pub(super) fn const_array(&mut self, id: usize, span: Span) -> R<Val> {
        let array = self
            .c
            .program
            .arrays
            .get(id)
            .ok_or_else(|| Fail::At(span, "unknown constant array".into()))?;
        let dtype = crate::types::element_dtype_named(&array.dtype).ok_or_else(|| {
            Fail::At(
                span,
                format!("constant arrays of dtype {} are not supported", array.dtype),
            )
        })?;
        let shape: Vec<i64> = array.shape.iter().map(|&n| n as i64).collect();
        self.c.uses.constants.insert(id);
        self.c.uses.dtypes.insert(dtype);
        let ty = crate::compiler::fixed_array(dtype, shape, Space::Const);
        self.fixed_array_type(&ty);
        Ok(Val::new(ty, K::ConstArray(id)))
    }

    /// A device array captured from the globals: a fixed-shape global array at its address,
    /// which CUDA kernels take as a constant (Numba's capture); OpenCL kernels reach memory
    /// only through their arguments.
    pub(super) fn captured_array(
        &mut self,
        ptr: &str,
        dtype: &str,
        shape: &[i64],
        span: Span,
    ) -> R<Val> {
        if self.c.dialect != ember_codegen::Dialect::Cuda {
            return at(
                span,
                "a global device array is captured by its address, which only CUDA kernels can use; pass it as an argument",
            );
        }
        let address: u64 = ptr
            .parse()
            .map_err(|_| Fail::At(span, format!("bad device address {ptr}")))?;
        let d = crate::types::element_dtype_named(dtype).ok_or_else(|| {
            Fail::At(
                span,
                format!("captured device arrays of dtype {dtype} are not supported"),
            )
        })?;
        self.c.uses.dtypes.insert(d);
        let ty = crate::compiler::fixed_array(d, shape.to_vec(), Space::Global);
        self.fixed_array_type(&ty);
        Ok(Val::new(ty, K::Captured(address)))
    }

    /// `v.copy()` of a constant-shape array (constant, local or shared): a new local array of
    /// its shape and dtype, filled element by element (Numba's copy allocates; kernels here
    /// allocate only local arrays of shapes known while compiling).
    pub(crate) fn copied_array(&mut self, v: &Val, a: &ArrayTy, span: Span) -> R<Val> {
        let Some(shape) = a.fixed.clone() else {
            return at(
                span,
                format!("{}.copy() needs memory a kernel cannot allocate: copy a constant-shape array, or into a cuda.local.array", v.ty),
            );
        };
        if crate::types::record_of(a.dtype).is_some() {
            return at(
                span,
                "copy() of an array of records is not supported in kernels",
            );
        }
        let src = self.temp(v)?;
        let count: i64 = shape.iter().product::<i64>().max(1);
        let storage = self.fresh(TempRole::LocalArray);
        if self.final_pass {
            self.arrays.push(crate::ir::FixedArrayDecl {
                storage,
                dtype: a.dtype,
                count,
                shared: false,
                align: None,
            });
        }
        let ty = crate::compiler::fixed_array(a.dtype, shape.clone(), Space::Local);
        let dst = self.fixed_array_value(&ty, storage);
        let Ty::Array(dst_ty) = ty.clone() else {
            unreachable!("fixed_array makes an array type")
        };
        self.c.uses.dtypes.insert(a.dtype);
        // for i0 in range(n0): for i1 ...: dst[i0, i1, ...] = src[i0, i1, ...]
        let indices: Vec<Temp> = shape.iter().map(|_| self.fresh(TempRole::Index)).collect();
        let index_vals: Vec<crate::ir::Expr> = indices
            .iter()
            .map(|&t| Val::new(INT64, K::Temp(t)).nonneg(true).expr())
            .collect();
        let place = |array: &Val, ty: &ArrayTy| crate::ir::Place {
            array: array.boxed(),
            ty: ty.clone(),
            indices: index_vals.clone(),
        };
        let mut body = vec![Stmt::Store {
            place: place(&dst, &dst_ty),
            value: Val::new(Ty::Scalar(a.dtype), K::Element(place(&src, a))).expr(),
        }];
        for (k, &n) in shape.iter().enumerate().rev() {
            body = vec![Stmt::For {
                index: indices[k],
                ty: DType::I64,
                start: Val::constant(INT64, Const::Count(0)).expr(),
                stop: Val::constant(INT64, Const::Int(n)).expr(),
                step: crate::ir::Step::One,
                body,
                parallel: false,
            }];
        }
        for s in body {
            self.push(s);
        }
        Ok(dst)
    }

    /// Records that a fixed-shape array of type `ty` is made over its storage.
    pub(crate) fn fixed_array_type(&mut self, ty: &Ty) {
        self.c.register(ty);
        self.c.aggregate_fn(AggregateFn::FixedArray(ty.clone()));
    }

    /// A fixed-shape array over shared or local storage `storage`.
    pub(crate) fn fixed_array_value(&mut self, ty: &Ty, storage: Temp) -> Val {
        self.fixed_array_type(ty);
        Val::new(ty.clone(), K::FixedArray(storage))
    }
}
