//! LAPACK's factorizations as ember's own kernels.

mod element;
pub mod householder;
pub mod jacobi;
