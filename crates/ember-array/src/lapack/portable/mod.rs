//! The contract of [`super`] on every device by ember's own kernels (being written).

use ember_core::{Error, Result};

use super::Eig;
use crate::array::Array;

mod cholesky;
mod eigh;
mod lu;
mod qr;
mod svd;

pub use cholesky::potrf;
pub use eigh::syevd;
pub use lu::{getrf, getrs};
pub use qr::{geqrf, orgqr};
pub use svd::gesvd;

/// Whether ember's kernels take their GPU shapes (wide groups, large blocks) on `device`:
/// on GPUs, and on CPU devices too when `EMBER_LAPACK_GPU_SHAPES` is set, so that the
/// GPU code paths can be tested on PoCL.
pub(crate) fn gpu_shapes(device: &ember_runtime::Device) -> bool {
    !device.info().is_cpu || std::env::var_os("EMBER_LAPACK_GPU_SHAPES").is_some()
}

fn pending() -> Error {
    Error::BackendUnavailable {
        backend: "ember linalg kernels".into(),
        reason: "ember's own factorization kernels are not built yet".into(),
    }
}

pub fn geev(_a: &Array, _vectors: bool) -> Result<Eig> {
    Err(pending())
}
