//! One C-style emitter; CUDA C and OpenCL C differ only by the [`Dialect`] table.
//!
//! Generated code is plain statements that call into a hand-written prelude (`prelude.rs`),
//! so the semantics of casts, float16 and complex numbers live in one tested place.

pub mod arith;
pub mod checked;
pub mod compact;
pub mod complex;
pub mod dialect;
pub mod dtypes;
pub mod elementwise;
pub mod fft;
pub mod matmul;
pub mod philox;
pub mod prelude;
pub mod reduce;
pub mod sampler;
pub mod scan;
pub mod sort;
pub mod svd;
pub mod types;
pub mod ufuncs;
pub mod user_kernel;
pub mod xoroshiro;

pub use dialect::Dialect;
pub use elementwise::{MapKernel, Operand};
pub use user_kernel::{Param, Role, Snippets, UserMap, UserReduce};
