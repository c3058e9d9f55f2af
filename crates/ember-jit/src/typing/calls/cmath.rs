//! Python's `cmath` in kernels, as Numba types it: the argument made complex (complex64 from
//! float32 or complex64, complex128 from any other number), then NumPy's ufunc of the same
//! meaning (`cmath.acos` is `np.arccos` of a complex number: the same branch cuts).

use ember_codegen::ufuncs::ufunc;
use ember_core::DType;

use crate::ast::{Expr, Span};
use crate::error::{at, R};
use crate::typing::{FnTyper, Val};

use super::display;

/// NumPy's ufunc for a `cmath` function of one complex argument.
fn numpy_name(m: &str) -> Option<&'static str> {
    Some(match m {
        "acos" => "arccos",
        "asin" => "arcsin",
        "atan" => "arctan",
        "acosh" => "arccosh",
        "asinh" => "arcsinh",
        "atanh" => "arctanh",
        "cos" => "cos",
        "sin" => "sin",
        "tan" => "tan",
        "cosh" => "cosh",
        "sinh" => "sinh",
        "tanh" => "tanh",
        "exp" => "exp",
        "log" => "log",
        "log10" => "log10",
        "sqrt" => "sqrt",
        "isnan" => "isnan",
        "isinf" => "isinf",
        "isfinite" => "isfinite",
        _ => return None,
    })
}

impl FnTyper<'_, '_> {
    pub(super) fn cmath(&mut self, m: &str, name: &str, args: &[Expr], span: Span) -> R<Val> {
        let Some(u) = numpy_name(m).and_then(|n| ufunc(n).ok()) else {
            return at(
                span,
                format!("{}() is not supported in kernels", display(name)),
            );
        };
        let [v] = self.exactly::<1>(name, args, span)?;
        let d = self.scalar_arg(&v, name, span)?;
        let complex = if matches!(d, DType::F32 | DType::F16 | DType::C64) {
            DType::C64
        } else {
            DType::C128
        };
        let z = self.cast_to(&v, complex);
        self.ufunc_values(u, name, &[z], span)
    }
}
