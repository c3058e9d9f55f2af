//! Memory: element addresses (C-contiguous arrays by element, others by byte strides), loads
//! and stores per memory space and dtype, array views, dynamic shared memory.

use ember_codegen::types::{load_narrow, storage_type, store_narrow};
use ember_core::DType;

use ember_codegen::checked::RECORD;

use super::function::FnWriter;
use crate::compiler::{Access, Raised, Site};
use crate::ir::{Expr, ExprKind, Place, ViewAxis};
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

    /// A pointer expression to the element at `place`, used for `access`. In checked mode
    /// each index is checked; a failed access of global memory is redirected to the fault
    /// record's scratch area (the array may be empty), one of a fixed-size array to its
    /// element 0.
    pub(crate) fn pointer(&mut self, place: &Place, access: Access) -> String {
        let a = &place.ty;
        let fixed = a.fixed.is_some();
        let checked = self.e.checked.is_some();
        let flag = (checked && a.space == Space::Global).then(|| self.new_flag());
        let mut terms = Vec::new();
        for (k, i) in place.indices.iter().enumerate() {
            let ic = if checked {
                self.checked_index(place, k, i, access, flag)
            } else {
                self.expr(i)
            };
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
        let q = self.e.qualifier(a.space);
        let elem = storage_type(a.dtype, self.e.dialect);
        let p = if a.layout == Layout::C || fixed {
            format!("({base}.data + {off})")
        } else {
            format!("(({q}{elem}*)(({q}char*){base}.data + {off}))")
        };
        match flag {
            Some(k) => format!("(({q}{elem}*)ember_pick(({q}char*){p}, &ember_bad{k}, {RECORD}))"),
            None => p,
        }
    }

    /// A new flag for one checked access of global memory.
    fn new_flag(&mut self) -> usize {
        self.flags += 1;
        self.flags - 1
    }

    /// Index `k` of `place`, checked against its dimension: a new site. Python's negative
    /// indices are wrapped by the check, which reports the index as written.
    fn checked_index(
        &mut self,
        place: &Place,
        k: usize,
        index: &Expr,
        access: Access,
        flag: Option<usize>,
    ) -> String {
        let site = self.site(&place.array, k, place.indices.len(), access);
        let n = self.dim(&place.array, k);
        let (raw, wrap) = match &index.kind {
            ExprKind::Wrap { index, .. } => (self.expr(index), "w"),
            _ => (self.expr(index), ""),
        };
        match flag {
            Some(f) => format!("ember_chkg{wrap}({raw}, {n}, {site}u, {RECORD}, &ember_bad{f})"),
            None => format!("ember_chk{wrap}({raw}, {n}, {site}u, {RECORD})"),
        }
    }

    /// Registers a checked index of `array` along `axis`; returns its number.
    fn site(&mut self, array: &Expr, axis: usize, ndim: usize, access: Access) -> usize {
        let Some(sites) = &self.e.checked else {
            return 0;
        };
        let name = match &array.kind {
            ExprKind::Local(id) => format!("array '{}'", self.f.locals[id.0].name),
            ExprKind::FixedArray(_) => match array_ty(array).map(|t| t.space) {
                Some(Space::Shared) => "a shared array".to_string(),
                _ => "a local array".to_string(),
            },
            ExprKind::ConstArray(_) => "a constant array".to_string(),
            _ => "a view of an array".to_string(),
        };
        let mut sites = sites.borrow_mut();
        sites.push(Site {
            function: self.f.name.clone(),
            file: self.f.file.clone(),
            line: self.lineno,
            array: name,
            axis,
            ndim,
            access,
            raised: None,
        });
        sites.len() - 1
    }

    /// Registers a place that raises (checked mode); its site number, or `None` when the
    /// kernel is not checked.
    pub(crate) fn raise_site(&mut self, raised: Raised) -> Option<usize> {
        let sites = self.e.checked.as_ref()?;
        let mut sites = sites.borrow_mut();
        sites.push(Site {
            function: self.f.name.clone(),
            file: self.f.file.clone(),
            line: self.lineno,
            array: String::new(),
            axis: 0,
            ndim: 0,
            access: Access::Read,
            raised: Some(raised),
        });
        Some(sites.len() - 1)
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
        let mut failed = None;
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
                ViewAxis::Index(i) if self.e.checked.is_some() => {
                    // A failed index empties the view: every access of it fails its check.
                    let f = *failed.get_or_insert_with(|| self.new_flag());
                    let site = self.site(base, k, axes.len(), Access::Read);
                    let ic = self.expr(i);
                    offset.push(format!(
                        "ember_chkgw({ic}, {n}, {site}u, {RECORD}, &ember_bad{f}) * {s}"
                    ));
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
        if let Some(f) = failed {
            let empty: String = (0..dims.len())
                .map(|k| format!(" {name}.d.shape[{k}] = 0;"))
                .collect();
            lines.push(format!("if (ember_bad{f}) {{ ember_bad{f} = 0;{empty} }}"));
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

    /// The lines setting view `name`, `base`'s memory as elements of `ty`'s dtype: its shape
    /// and byte strides, the data pointer `skip` bytes on; with `rescale`, the last axis counted
    /// in the new elements (its stride theirs: NumPy's `view` needs that axis contiguous).
    pub(crate) fn reinterpret(
        &mut self,
        name: String,
        ty: &Ty,
        base: &Expr,
        skip: usize,
        rescale: bool,
    ) -> Vec<String> {
        let st = self.c_type(ty);
        let Some(a) = array_ty(base).cloned() else {
            return Vec::new();
        };
        let Ty::Array(view) = ty else {
            return Vec::new();
        };
        let q = self.e.qualifier(a.space);
        let elem = storage_type(view.dtype, self.e.dialect);
        let mut lines = vec![
            format!("{st} {name};"),
            format!(
                "{name}.data = ({q}{elem}*)(({q}char*){}.data + {skip});",
                self.expr(base)
            ),
        ];
        for k in 0..a.ndim {
            let (mut n, mut s) = (self.dim(base, k), self.stride(base, k));
            if rescale && k + 1 == a.ndim {
                let (old, new) = (a.dtype.itemsize(), view.dtype.itemsize());
                n = format!("(({n}) * {old} / {new})");
                s = new.to_string();
            }
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
