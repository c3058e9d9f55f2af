//! `cuda.random`: xoroshiro128+ draws from a states array.

use ember_core::DType;

use crate::ast::{Expr, Span};
use crate::error::{at, R};
use crate::ir::{Const, ExprKind as K};
use crate::types::{Space, Ty, INT64};
use crate::typing::{FnTyper, Val};

impl FnTyper<'_, '_> {
    pub(super) fn random(&mut self, f: &str, args: &[Expr], span: Span) -> R<Val> {
        let full = format!("cuda.random.{f}");
        let (draw, ret) = match f {
            "xoroshiro128p_uniform_float32" => ("xoroshiro128p_uniform_float32", DType::F32),
            "xoroshiro128p_normal_float32" => ("xoroshiro128p_normal_float32", DType::F32),
            "xoroshiro128p_uniform_float64" => ("xoroshiro128p_uniform_float64", DType::F64),
            "xoroshiro128p_normal_float64" => ("xoroshiro128p_normal_float64", DType::F64),
            "xoroshiro128p_next" => ("xoroshiro128p_next", DType::U64),
            _ => return at(span, format!("{full} is not supported in kernels")),
        };
        let [states, index] = self.exactly::<2>(&full, args, span)?;
        let a = match &states.ty {
            Ty::Array(a) if a.dtype == DType::U64 && a.ndim == 2 && a.space == Space::Global => a.clone(),
            t => {
                return at(
                    span,
                    format!("{full}() takes the states array from cuda.random.create_xoroshiro128p_states, got {t}"),
                )
            }
        };
        if !index.ty.is_integral() {
            return at(
                span,
                format!(
                    "{full}(): the state index must be an integer, got {}",
                    index.ty
                ),
            );
        }
        let zero = Val::constant(INT64, Const::Count(0)).nonneg(true);
        let place = self.place_at(&states, &a, &[index, zero], span)?;
        self.c.uses.xoroshiro = true;
        self.c.uses.dtypes.insert(ret);
        Ok(Val::new(Ty::Scalar(ret), K::Random(draw, place)))
    }
}
