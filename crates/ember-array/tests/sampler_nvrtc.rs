//! The CUDA C of ember's sampler kernels (every distribution of `ember.random`) compiles
//! through NVRTC (no GPU needed): the kernel of every law (which holds each law's code as
//! its one-law kernel does) for several output types, and one law's alone.

mod common;

use common::{compile_cuda as compile, nvrtc_here};

use ember_codegen::sampler::laws::law;
use ember_codegen::sampler::SamplerKernel;
use ember_codegen::Dialect;
use ember_core::DType;

#[test]
fn every_law_compiles_alone_and_together() {
    if !nvrtc_here() {
        return;
    }
    let (poisson, _) = law("poisson").expect("poisson is a law");
    let alone = SamplerKernel {
        law: Some(poisson),
        dtype: DType::I64,
    };
    compile(&alone.source(Dialect::Cuda), &alone.name());
    for dtype in [DType::F32, DType::F64, DType::I64, DType::U64, DType::I8] {
        let spec = SamplerKernel { law: None, dtype };
        compile(&spec.source(Dialect::Cuda), &spec.name());
    }
}
