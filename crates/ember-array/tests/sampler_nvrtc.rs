//! The CUDA C of ember's sampler kernels compiles through NVRTC (no GPU needed): each law's
//! kernel, as GPUs run them (the kernel of every law is for CPU devices, and PoCL compiles it
//! in the Python tests).

mod common;

use common::{compile_cuda as compile, nvrtc_here};

use ember_codegen::sampler::laws::LAWS;
use ember_codegen::sampler::SamplerKernel;
use ember_codegen::Dialect;
use ember_core::DType;

#[test]
fn every_law_compiles_alone_and_together() {
    if !nvrtc_here() {
        return;
    }
    for (k, law) in LAWS.iter().enumerate() {
        let dtype = if law.integer { DType::I64 } else { DType::F32 };
        let alone = SamplerKernel {
            law: Some(k),
            dtype,
        };
        compile(&alone.source(Dialect::Cuda), &alone.name());
    }
}
