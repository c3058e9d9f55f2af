//! The contract of [`super`] on every device by ember's own kernels: blocked LU and Cholesky
//! with triangular solves, small inverses by Gauss-Jordan, Householder QR, Jacobi eigh and SVD. General eigenproblems
//! (`geev`) have no kernel here: `ember.linalg` takes them to NumPy's LAPACK on the host.

use ember_core::{Error, Result};

use super::Eig;
use crate::array::Array;

mod cholesky;
mod eigh;
mod inverse;
mod lu;
mod qr;
mod svd;

pub use cholesky::potrf;
pub use eigh::syevd;
pub use inverse::{inverse, LARGEST as INVERSE_LARGEST};
pub use lu::{getrf, getrs};
pub use qr::{geqrf, orgqr};
pub use svd::gesvd;

/// Whether ember's kernels take their GPU shapes (wide groups, large blocks) on `device`:
/// on GPUs, and on CPU devices too when `EMBER_LAPACK_GPU_SHAPES` is set, so that the
/// GPU code paths can be tested on PoCL.
pub(crate) fn gpu_shapes(device: &ember_runtime::Device) -> bool {
    !device.info().is_cpu || std::env::var_os("EMBER_LAPACK_GPU_SHAPES").is_some()
}

/// `xGEEV` has no kernel of ember's (Hessenberg reduction and shifted QR are sequential at
/// heart); the Python layer computes such problems on the host when it gets this error.
pub fn geev(_a: &Array, _vectors: bool) -> Result<Eig> {
    Err(Error::BackendUnavailable {
        backend: "ember's LAPACK kernels".into(),
        reason: "general eigenproblems (xGEEV) have no ember kernel; ember.linalg.eig computes them with NumPy's LAPACK on the host".into(),
    })
}
