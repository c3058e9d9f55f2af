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
pub mod lapack;
pub mod matmul;
pub mod philox;
pub mod prelude;
pub mod reduce;
pub mod sampler;
pub mod scan;
pub mod sort;
pub mod transpose;
pub mod types;
pub mod ufuncs;
pub mod user_kernel;
pub mod xoroshiro;

pub use dialect::Dialect;

/// A kernel ember generates whole from a spec: its name and its source in a dialect (the
/// runtime memoises and compiles it by the spec: `ember_kernel::KernelMemo::generated`).
pub trait Generated {
    fn name(&self) -> String;
    fn source(&self, dialect: Dialect) -> String;
}

/// [`Generated`] for specs whose inherent `name` and `source` say it.
macro_rules! generated {
    ($($spec:ty),* $(,)?) => {
        $(impl Generated for $spec {
            fn name(&self) -> String {
                <$spec>::name(self)
            }
            fn source(&self, dialect: Dialect) -> String {
                <$spec>::source(self, dialect)
            }
        })*
    };
}

generated!(
    fft::PassKernel,
    fft::TileKernel,
    philox::RandomKernel,
    sampler::SamplerKernel,
    lapack::householder::HouseholderKernel,
    lapack::inverse::InverseKernel,
    transpose::TransposeKernel,
    lapack::jacobi::JacobiKernel,
);
pub use elementwise::{MapKernel, Operand};
pub use user_kernel::{Cover, Param, Role, Snippets, UserMap, UserReduce};
