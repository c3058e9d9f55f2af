//! Memory: element addresses (C-contiguous arrays by element, others by byte strides), loads
//! and stores per memory space and dtype, array views, dynamic shared memory.

use ember_codegen::types::{load_narrow, storage_type, store_narrow};
use ember_core::DType;

use super::function::FnWriter;
use crate::ir::{Expr, Place, ViewAxis};
use crate::types::{ArrayTy, Layout, Space, Ty};

fn array_ty(e: &Expr) -> Option<&ArrayTy> {
    match &e.ty {
        Ty::Array(a) => Some(a),
        _ => None,
    }
}

impl FnWriter<'_, '_> {
    /// Dimension `k` of array `a`.
    pub(crate) fn dim(&mut self, a: &Expr, k: usize) -> String {
        match array_ty(a).and_then(|t| t.fixed.as_ref()) {
            Some(shape) => self.e.int64_literal(shape[k]),
            None => format!("{}.d.shape[{k}]", self.expr(a)),
        }
    }

    /// Byte stride `k` of array `a`.
    pub(crate) fn stride(&mut self, a: &Expr, k: usize) -> String {
        match array_ty(a).and_then(|t| t.fixed.as_ref()) {
            Some(shape) => {
                let inner: i64 = shape[k + 1..].iter().product();
                let itemsize = array_ty(a).map_or(1, |t| t.dtype.itemsize()) as i64;
                self.e.int64_literal(inner * itemsize)
            }
            None => format!("{}.d.strides[{k}]", self.expr(a)),
        }
    }

    /// A pointer expression to the element at `place`.
    pub(crate) fn pointer(&mut self, place: &Place) -> String {
        let a = &place.ty;
        let fixed = a.fixed.is_some();
        let mut terms = Vec::new();
        for i in &place.indices {
            let ic = self.expr(i);
            // Shared, local and constant arrays are small: 32-bit offsets are cheaper.
            terms.push(if fixed { format!("(int)({ic})") } else { ic });
        }
        let off = if a.layout == Layout::C || fixed {
            // Horner form over the dimensions: ((i0 * n1 + i1) * n2 + i2)...
            let mut code = String::new();
            for (k, t) in terms.iter().enumerate() {
                if k == 0 {
                    code = t.clone();
                } else {
                    let n = match &a.fixed {
                        Some(shape) => shape[k].to_string(),
                        None => self.dim(&place.array, k),
                    };
                    code = format!("({code}) * {n} + {t}");
                }
            }
            if code.is_empty() {
                "0".into()
            } else {
                code
            }
        } else {
            let mut parts = Vec::new();
            for (k, t) in terms.iter().enumerate() {
                parts.push(format!("{t} * {}", self.stride(&place.array, k)));
            }
            if parts.is_empty() {
                "0".into()
            } else {
                parts.join(" + ")
            }
        };
        let base = self.expr(&place.array);
        if a.layout == Layout::C || fixed {
            format!("({base}.data + {off})")
        } else {
            let q = self.e.qualifier(a.space);
            let elem = storage_type(a.dtype, self.e.dialect);
            format!("(({q}{elem}*)(({q}char*){base}.data + {off}))")
        }
    }

    /// Reads the element at pointer `p` in `space`.
    pub(crate) fn load_elem(&self, d: DType, space: Space, p: &str) -> String {
        let q = self.e.qualifier(space);
        if let Some(code) = load_narrow(d, self.e.dialect, p, q) {
            return code;
        }
        match d {
            DType::Bool => format!("((unsigned char)(*{p} != 0))"),
            _ => format!("(*{p})"),
        }
    }

    /// The statement writing value `code` to the element of `place` at pointer `p`.
    pub(crate) fn store_elem(&self, place: &Place, p: &str, code: &str) -> String {
        let (d, space) = (place.ty.dtype, place.ty.space);
        let q = self.e.qualifier(space);
        store_narrow(d, self.e.dialect, p, q, code).unwrap_or_else(|| format!("*{p} = {code};"))
    }

    /// The lines setting view `name` of `base`.
    pub(crate) fn view(
        &mut self,
        name: String,
        ty: &Ty,
        base: &Expr,
        axes: &[ViewAxis],
    ) -> Vec<String> {
        let st = self.c_type(ty);
        let Some(a) = array_ty(base).cloned() else {
            return Vec::new();
        };
        let mut offset = Vec::new();
        let mut dims = Vec::new();
        for (k, axis) in axes.iter().enumerate() {
            let n = self.dim(base, k);
            let s = self.stride(base, k);
            match axis {
                ViewAxis::Whole => dims.push((n, s)),
                ViewAxis::Slice { lo, hi, step } => {
                    let st = *step;
                    let lo = lo.as_ref().map(|x| self.expr(x));
                    let hi = hi.as_ref().map(|x| self.expr(x));
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
                ViewAxis::Index(i) => {
                    let ic = self.expr(i);
                    offset.push(format!("ember_wrap({ic}, {n}) * {s}"));
                }
            }
        }
        let q = self.e.qualifier(a.space);
        let elem = storage_type(a.dtype, self.e.dialect);
        let off = if offset.is_empty() {
            "0".to_string()
        } else {
            offset.join(" + ")
        };
        let mut lines = vec![
            format!("{st} {name};"),
            format!(
                "{name}.data = ({q}{elem}*)(({q}char*){}.data + {off});",
                self.expr(base)
            ),
        ];
        for (k, (n, s)) in dims.iter().enumerate() {
            lines.push(format!(
                "{name}.d.shape[{k}] = {n}; {name}.d.strides[{k}] = {s};"
            ));
        }
        lines
    }

    /// The lines setting view `name`, `base` with its axes reversed.
    pub(crate) fn transpose(&mut self, name: String, ty: &Ty, base: &Expr) -> Vec<String> {
        let st = self.c_type(ty);
        let ndim = array_ty(base).map_or(0, |a| a.ndim);
        let mut lines = vec![
            format!("{st} {name};"),
            format!("{name}.data = {}.data;", self.expr(base)),
        ];
        for k in 0..ndim {
            let from = ndim - 1 - k;
            let (n, s) = (self.dim(base, from), self.stride(base, from));
            lines.push(format!(
                "{name}.d.shape[{k}] = {n}; {name}.d.strides[{k}] = {s};"
            ));
        }
        lines
    }

    /// The line setting `name` to the launch's dynamic shared memory, as elements of `d`.
    pub(crate) fn dynamic_shared(&mut self, name: String, ty: &Ty, d: DType) -> String {
        let t = self.e.dialect.table();
        let st = self.c_type(ty);
        let q = self.e.qualifier(Space::Shared);
        let elem = storage_type(d, self.e.dialect);
        let (data, bytes) = if t.dynamic_shared_param {
            ("ember_dynamic_shared", "ember_dynamic_shared_bytes")
        } else {
            ("ember_dynamic_shared", "ember_dynamic_shared_size()")
        };
        format!(
            "{st} {name}; {name}.data = ({q}{elem}*){data}; {name}.d.shape[0] = {bytes} / {n}; {name}.d.strides[0] = {n};",
            n = d.itemsize()
        )
    }
}
