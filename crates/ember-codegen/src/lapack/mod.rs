//! Kernels of ember's own LAPACK (`ember_array::lapack::portable`): LU, Cholesky and
//! triangular solves; inverses of small matrices; Householder QR; Jacobi eigh and SVD.

pub mod cholesky;
mod element;
pub mod householder;
pub mod inverse;
pub mod jacobi;
pub mod lu;
pub mod triangular;
