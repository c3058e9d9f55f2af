//! The contract of [`super`] on every device by ember's own kernels (being written).

use ember_core::{Error, Result};

use super::{Eig, Svd};
use crate::array::Array;

mod cholesky;
mod lu;

fn pending() -> Error {
    Error::BackendUnavailable {
        backend: "ember linalg kernels".into(),
        reason: "ember's own factorization kernels are not built yet".into(),
    }
}

pub use cholesky::potrf;
pub use lu::{getrf, getrs};
pub fn geqrf(_a: &Array) -> Result<Array> {
    Err(pending())
}
pub fn orgqr(_q: &Array, _tau: &Array) -> Result<()> {
    Err(pending())
}
pub fn syevd(_a: &Array, _lower: bool, _vectors: bool) -> Result<(Array, Array)> {
    Err(pending())
}
pub fn gesvd(_a: &Array, _full: bool, _vectors: bool) -> Result<Svd> {
    Err(pending())
}
pub fn geev(_a: &Array, _vectors: bool) -> Result<Eig> {
    Err(pending())
}
