//! NumPy's array makers in host functions (`@njit`): `np.empty`, `np.zeros`, `np.ones`,
//! `np.full` and their `_like` forms, typed as Numba types them (a C-contiguous array; the
//! dtype given, else float64, else the fill value's or the model array's); `np.arange` and
//! `np.linspace` are in [`super::ranges`], `np.array`/`np.asarray` in [`super::from_items`], `np.eye`/`np.identity` in
//! [`super::eye`].

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{Expr, ExprKind, Keyword, Span};
use crate::error::{at, Fail, R};
use crate::ir::{Const, ExprKind as K};
use crate::types::{ArrayTy, Layout, Ty, INT64};
use crate::typing::{FnTyper, Val};

/// The array makers, by the name their intrinsic has.
pub(super) fn is_allocation(name: &str) -> bool {
    matches!(
        name,
        "np.empty"
            | "np.zeros"
            | "np.ones"
            | "np.full"
            | "np.empty_like"
            | "np.zeros_like"
            | "np.ones_like"
            | "np.full_like"
            | "np.arange"
            | "np.linspace"
            | "np.array"
            | "np.asarray"
            | "np.eye"
            | "np.identity"
    )
}

/// The error for what names no dtype.
fn not_a_dtype(e: &Expr) -> Fail {
    Fail::At(
        e.span,
        "the dtype must be a NumPy type such as np.float32 or numba.int64 (or its name, 'float32')"
            .into(),
    )
}

impl FnTyper<'_, '_> {
    /// The dtype a `dtype=` argument names: a type object (`np.float32`, `numba.int64`, a
    /// NumPy scalar type from the globals), Python's `float`/`int`/`bool`/`complex` (float64,
    /// int64, bool, complex128, as NumPy reads them), a dtype string NumPy takes (`'float32'`,
    /// `'f4'`, `'<f8'`, `'?'`), or an array's (or NumPy number's) `.dtype`.
    pub(crate) fn dtype_of(&mut self, e: &Expr) -> R<DType> {
        if let ExprKind::Attribute { value, attr } = &e.kind {
            if attr == "dtype" {
                return match self.expr(value)?.ty {
                    Ty::Array(a) => Ok(a.dtype),
                    Ty::Scalar(d) => Ok(d),
                    _ => Err(not_a_dtype(e)),
                };
            }
        }
        named_dtype(e).ok_or_else(|| not_a_dtype(e))
    }
}

fn named_dtype(e: &Expr) -> Option<DType> {
    match &e.kind {
        ExprKind::Intrinsic { name } => match name.as_str() {
            "builtin.float" => Some(DType::F64),
            "builtin.int" => Some(DType::I64),
            "builtin.bool" => Some(DType::Bool),
            "builtin.complex" => Some(DType::C128),
            _ => crate::types::element_dtype_named(name.strip_prefix("dtype.")?),
        },
        ExprKind::Typed { v, .. } | ExprKind::Unsupported { what: v } => {
            crate::types::dtype_named(v)
        }
        ExprKind::Str { v } => {
            // NumPy's byte-order mark: only the machine's own order (little-endian) is an
            // array ember keeps.
            let name = v.strip_prefix(['<', '=', '|']).unwrap_or(v);
            match name {
                "float" => Some(DType::F64),
                "int" => Some(DType::I64),
                "complex" => Some(DType::C128),
                _ if name.len() == 1 => char_code(name),
                _ => crate::types::element_dtype_named(name),
            }
        }
        _ => None,
    }
}

/// The arguments of a call of `f` by parameter (`names`), as Python binds them: positional
/// ones in order, then keywords; a keyword in `ignored` is taken and left out (NumPy's
/// `order=`, which C-contiguous results need not read).
pub(super) fn bind<'e>(
    f: &str,
    names: &[&str],
    ignored: &[&str],
    args: &'e [Expr],
    keywords: &'e [Keyword],
    span: Span,
) -> R<Vec<Option<&'e Expr>>> {
    let mut given: Vec<Option<&Expr>> = vec![None; names.len()];
    if args.len() > names.len() {
        return at(
            span,
            format!("{f}() takes at most {} arguments", names.len()),
        );
    }
    for (k, a) in args.iter().enumerate() {
        given[k] = Some(a);
    }
    for kw in keywords {
        match names.iter().position(|n| *n == kw.name) {
            Some(k) if given[k].is_none() => given[k] = Some(&kw.value),
            Some(_) => {
                return at(
                    kw.value.span,
                    format!("{f}() got multiple values for '{}'", kw.name),
                )
            }
            None if ignored.contains(&kw.name.as_str()) => {}
            None => {
                return at(
                    kw.value.span,
                    format!("{f}() got an unexpected keyword argument '{}'", kw.name),
                )
            }
        }
    }
    Ok(given)
}

/// NumPy's one-letter type codes (`np.dtype('?')` is bool).
fn char_code(c: &str) -> Option<DType> {
    Some(match c {
        "?" => DType::Bool,
        "b" => DType::I8,
        "B" => DType::U8,
        "h" => DType::I16,
        "H" => DType::U16,
        "i" => DType::I32,
        "I" => DType::U32,
        "l" | "q" | "p" => DType::I64,
        "L" | "Q" | "P" => DType::U64,
        "e" => DType::F16,
        "f" => DType::F32,
        "d" => DType::F64,
        "F" => DType::C64,
        "D" => DType::C128,
        _ => return None,
    })
}

impl FnTyper<'_, '_> {
    pub(super) fn allocate(
        &mut self,
        name: &str,
        args: &[Expr],
        keywords: &[Keyword],
        span: Span,
    ) -> R<Val> {
        let f = name.trim_start_matches("np.");
        if !self.c.host {
            return at(
                span,
                format!("{f}() makes a new array: kernels cannot allocate (use cuda.local.array or cuda.shared.array, or pass the array in)"),
            );
        }
        match f {
            "arange" => return self.arange(args, keywords, span),
            "linspace" => return self.linspace(args, keywords, span),
            "array" | "asarray" => return self.array_of_items(f, args, keywords, span),
            "eye" | "identity" => return self.eye(f, args, keywords, span),
            _ => {}
        }
        let like = f.ends_with("_like");
        let full = f.starts_with("full");
        // Positional: the shape (or the model array), the fill value for `full`, the dtype.
        let names: &[&str] = match (like, full) {
            (false, false) => &["shape", "dtype"],
            (false, true) => &["shape", "fill_value", "dtype"],
            (true, false) => &["a", "dtype"],
            (true, true) => &["a", "fill_value", "dtype"],
        };
        let given = bind(f, names, &["order"], args, keywords, span)?;
        let first =
            given[0].ok_or_else(|| Fail::At(span, format!("{f}() needs its first argument")))?;
        let fill = if full {
            let e = given[1].ok_or_else(|| Fail::At(span, format!("{f}() needs fill_value")))?;
            Some(self.expr(e)?)
        } else {
            None
        };
        let declared = given[names.len() - 1]
            .map(|e| self.dtype_of(e))
            .transpose()?;
        let (shape, model_dtype) = if like {
            let a = self.expr(first)?;
            match a.ty.clone() {
                Ty::Array(at_) => {
                    let a = self.temp(&a)?;
                    let dims: Vec<Val> = (0..at_.ndim).map(|k| self.dim(&a, &at_, k)).collect();
                    (dims, Some(at_.dtype))
                }
                // A number is a 0-d array of its dtype, as NumPy reads it.
                Ty::Scalar(d) => (Vec::new(), Some(d)),
                t => return at(first.span, format!("{f}() takes an array, got {t}")),
            }
        } else {
            (self.shape_of(first, f)?, None)
        };
        let d = declared
            .or(model_dtype)
            .or_else(|| fill.as_ref().and_then(|v| v.ty.scalar()))
            .unwrap_or(DType::F64);
        if matches!(d.kind(), Kind::Opaque) {
            return at(
                span,
                format!("{f}() of dtype {} is not supported", d.name()),
            );
        }
        let fill = match (f.trim_end_matches("_like"), fill) {
            ("zeros", _) => Some(Val::constant(Ty::Scalar(d), Const::Zero)),
            ("ones", _) => Some(self.cast_to(&Val::constant(INT64, Const::Int(1)), d)),
            (_, Some(v)) => {
                if v.ty.scalar().is_none() {
                    return at(span, format!("{f}() fills with a number, got {}", v.ty));
                }
                Some(self.cast_to(&v, d))
            }
            _ => None,
        };
        let ty = Ty::Array(ArrayTy::global(d, shape.len(), Layout::C));
        self.c.register(&ty);
        let v = Val::new(
            ty,
            K::Alloc {
                shape: shape.iter().map(Val::expr).collect(),
                fill: fill.map(|v| v.boxed()),
            },
        );
        // Made once, however often the expression is read.
        self.temp(&v)
    }

    /// The extents of a `shape` argument: an integer or a tuple of integers, as int64s.
    fn shape_of(&mut self, e: &Expr, f: &str) -> R<Vec<Val>> {
        let v = self.expr(e)?;
        match &v.ty {
            Ty::Scalar(d) if d.is_integer() => Ok(vec![self.cast_to(&v, DType::I64)]),
            Ty::Tuple(items)
                if items
                    .iter()
                    .all(|t| t.scalar().is_some_and(|d| d.is_integer())) =>
            {
                let items = items.clone();
                let t = self.temp(&v)?;
                Ok(items
                    .iter()
                    .enumerate()
                    .map(|(k, it)| {
                        let item = Val::new(it.clone(), K::Item(t.boxed(), k));
                        self.cast_to(&item, DType::I64)
                    })
                    .collect())
            }
            other => at(
                e.span,
                format!("{f}() takes a shape: an integer or a tuple of integers, got {other}"),
            ),
        }
    }
}
