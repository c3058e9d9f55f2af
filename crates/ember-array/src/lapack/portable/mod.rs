//! The contract of [`super`] on every device by ember's own kernels (being written).

use ember_core::{Error, Result};

use super::Eig;
use crate::array::Array;

mod eigh;
mod qr;
mod svd;

pub use eigh::syevd;
pub use qr::{geqrf, orgqr};
pub use svd::gesvd;

fn pending() -> Error {
    Error::BackendUnavailable {
        backend: "ember linalg kernels".into(),
        reason: "ember's own factorization kernels are not built yet".into(),
    }
}

pub fn getrf(_a: &Array) -> Result<(Array, Array)> {
    Err(pending())
}
pub fn getrs(_lu: &Array, _pivots: &Array, _b: &Array) -> Result<()> {
    Err(pending())
}
pub fn potrf(_a: &Array, _lower: bool) -> Result<Array> {
    Err(pending())
}
pub fn geev(_a: &Array, _vectors: bool) -> Result<Eig> {
    Err(pending())
}
