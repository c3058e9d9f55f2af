//! ember's arrays: an n-dimensional view (shape, byte strides, offset, dtype) over a shared
//! device buffer, and the operations on them, done on the device by generated kernels.
//! Knows nothing of Python.

pub mod array;
pub mod compact;
pub mod creation;
pub mod dlpack;
pub mod fft;
pub mod index;
pub mod lapack;
pub mod launch;
pub mod linalg;
mod opaque;
pub mod random;
pub mod reduction;
pub mod result_type;
pub mod sampler;
pub mod select;
pub mod shape;
pub mod sort;
pub mod svd;
pub mod transpose;
pub mod ufunc;
pub mod user_kernel;
pub mod xoroshiro;

pub use array::Array;
