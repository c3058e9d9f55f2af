//! Numba's cache-hinted loads and stores (`cuda.ldca/ldcg/ldcs/ldlu/ldcv(array, i)`,
//! `cuda.stcg/stcs/stwb/stwt(array, i, value)`, numba-cuda's `cache_hints.py`): an element
//! read or written like `array[i]` (`i` an integer, or a tuple of one per dimension). On CUDA a
//! global element is loaded or stored by the hinted PTX instruction (`ld.global.cs.b32`...);
//! elsewhere, and for other memory, by a plain access: a hint changes only how the element is
//! cached. A store's value is wrapped in the hint's intrinsic, which the emitter reads.

use ember_core::dtype::Kind;

use crate::ast::{Expr, Span};
use crate::error::{at, R};
use crate::helpers::Helper;
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
        // Numba's name of the instruction in its messages (`ldcs`).
        let op = row(name).trim_start_matches("cuda.");
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
                format!("{op} operates on arrays or pointers. Got type {}", arr.ty),
            );
        };
        if !matches!(a.dtype.kind(), Kind::Int | Kind::UInt | Kind::Float) {
            return at(
                span,
                format!(
                    "{op} requires array of integer or float type, got {}",
                    a.dtype.name()
                ),
            );
        }
        if store && a.space == Space::Const {
            return at(span, "constant arrays are read-only");
        }
        let idx = self.hint_indices(&args[1], a.ndim)?;
        if a.space == Space::Global {
            let bits = 8 * a.dtype.itemsize();
            self.c.uses.helpers.insert(Helper::CacheHint(op, bits));
        }
        let place = self.place_at(&arr, &a, &idx, span)?;
        let elem = Ty::Scalar(a.dtype);
        if !store {
            let e = ir::Expr::new(elem.clone(), K::Element(place));
            return Ok(Val::new(
                elem,
                K::Intrinsic {
                    name: row(name),
                    args: vec![e],
                },
            ));
        }
        let v = self.expr(&args[2])?;
        if v.ty.scalar().is_none() {
            return at(span, format!("{op} stores a number, got {}", v.ty));
        }
        let value = self.convert(&v, &elem, span)?;
        self.push(ir::Stmt::Store {
            place,
            value: ir::Expr::new(
                elem,
                K::Intrinsic {
                    name: row(name),
                    args: vec![value.expr()],
                },
            ),
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

    /// The indices of a hinted access to an `ndim`-d array, checked as Numba checks them: an
    /// integer for a 1-d array, else a tuple of `ndim` integers.
    fn hint_indices(&mut self, index: &Expr, ndim: usize) -> R<Vec<Val>> {
        let i = self.expr(index)?;
        let integer = |t: &Ty| matches!(t.scalar().map(|d| d.kind()), Some(Kind::Int | Kind::UInt));
        match i.ty.clone() {
            Ty::Tuple(tys) => {
                if tys.len() != ndim {
                    return at(
                        index.span,
                        format!("Expected {ndim} indices, got {}", tys.len()),
                    );
                }
                if let Some(bad) = tys.iter().find(|t| !integer(t)) {
                    return at(index.span, format!("{bad} is not a valid index"));
                }
                let t = self.temp(&i)?;
                Ok(tys
                    .into_iter()
                    .enumerate()
                    .map(|(k, ty)| Val::new(ty, K::Item(t.boxed(), k)))
                    .collect())
            }
            t if integer(&t) => {
                if ndim != 1 {
                    return at(index.span, format!("Expected {ndim} indices, got a scalar"));
                }
                Ok(vec![i])
            }
            t => at(index.span, format!("{t} is not a valid index")),
        }
    }
}
