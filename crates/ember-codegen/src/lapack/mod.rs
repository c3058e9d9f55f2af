//! Kernels of ember's own LAPACK (`ember_array::lapack::portable`): LU, Cholesky and
//! triangular solves; Householder QR; Jacobi eigh and SVD.

pub mod cholesky;
mod element;
pub mod householder;
pub mod jacobi;
pub mod lu;
pub mod triangular;
