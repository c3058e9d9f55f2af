//! Kernels of ember's own LAPACK (`ember_array::lapack::portable`).

pub mod cholesky;
pub mod lu;
pub mod triangular;
