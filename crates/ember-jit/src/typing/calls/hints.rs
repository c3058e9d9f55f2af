//! Numba's cache-hinted loads and stores (`cuda.ldca/ldcg/ldcs/ldlu/ldcv(array, i)`,
//! `cuda.stcg/stcs/stwb/stwt(array, i, value)`, numba-cuda's `cache_hints.py`): an element
//! read or written like `array[i]`. A hint changes only how the element is cached, so a load
//! is CUDA's hinted load where it has one (global integers and floats but float16) and a plain
//! read elsewhere; a store is a plain store.

use ember_core::dtype::Kind;

use crate::ast::{Expr, Span};
use crate::error::{at, R};
use crate::ir::{self, ExprKind as K};
use crate::types::{Space, Ty};
use crate::typing::{FnTyper, Val};

use super::bits::row;

/// Whether `name` is a hinted load or store.
pub(super) fn is_hint(name: &str) -> bool {
    matches!(
        name,
        "cuda.ldca"
            | "cuda.ldcg"
            | "cuda.ldcs"
            | "cuda.ldlu"
            | "cuda.ldcv"
            | "cuda.stcg"
            | "cuda.stcs"
            | "cuda.stwb"
            | "cuda.stwt"
    )
}

impl FnTyper<'_, '_> {
    pub(super) fn cache_hint(&mut self, name: &str, args: &[Expr], span: Span) -> R<Val> {
        let store = name.starts_with("cuda.st");
        let n = if store { 3 } else { 2 };
        if args.len() != n {
            return at(
                span,
                format!("{name}() takes {n} arguments, {} given", args.len()),
            );
        }
        let arr = self.expr(&args[0])?;
        let Ty::Array(a) = arr.ty.clone() else {
            return at(
                args[0].span,
                format!("{name}() operates on arrays, got {}", arr.ty),
            );
        };
        if !matches!(a.dtype.kind(), Kind::Int | Kind::UInt | Kind::Float) {
            return at(
                span,
                format!(
                    "{name}() requires an array of integer or float type, got {}",
                    a.dtype.name()
                ),
            );
        }
        if store && a.space == Space::Const {
            return at(span, "constant arrays are read-only");
        }
        let place = self.element_place(&arr, &a, &args[1], span)?;
        if !store {
            let elem = ir::Expr::new(Ty::Scalar(a.dtype), K::Element(place));
            return Ok(Val::new(
                Ty::Scalar(a.dtype),
                K::Intrinsic {
                    name: row(name),
                    args: vec![elem],
                },
            ));
        }
        let v = self.expr(&args[2])?;
        if v.ty.scalar().is_none() {
            return at(span, format!("{name}() stores a number, got {}", v.ty));
        }
        let value = self.convert(&v, &Ty::Scalar(a.dtype), span)?;
        self.push(ir::Stmt::Store {
            place,
            value: value.expr(),
        });
        // The store is the statement above; the call's value is nothing.
        Ok(Val::new(
            Ty::None,
            K::Intrinsic {
                name: row(name),
                args: Vec::new(),
            },
        ))
    }
}
