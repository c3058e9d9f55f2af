//! The CUDA C of ember's Householder QR and Jacobi (eigh, SVD, singular values) kernels
//! compiles through NVRTC (no GPU needed), for every dtype and the block shapes GPUs take.

mod common;

use common::{compile_cuda as compile, nvrtc_here};

use ember_codegen::lapack::householder::HouseholderKernel;
use ember_codegen::lapack::jacobi::{JacobiKernel, Part};
use ember_codegen::Dialect;
use ember_core::DType;

const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C64, DType::C128];

#[test]
fn householder_kernels_compile() {
    if !nvrtc_here() {
        return;
    }
    for dtype in DTYPES {
        for (block, teams) in [(256, 8), (16, 4)] {
            let spec = HouseholderKernel {
                dtype,
                block,
                teams,
            };
            compile(&spec.source(Dialect::Cuda), &spec.name());
        }
    }
}

#[test]
fn jacobi_kernels_compile() {
    if !nvrtc_here() {
        return;
    }
    for dtype in DTYPES {
        for part in [Part::Rotate, Part::Prepare, Part::Finish, Part::BlockRotate] {
            let spec = JacobiKernel {
                dtype,
                block: 128,
                part,
            };
            compile(&spec.source(Dialect::Cuda), &spec.name());
        }
    }
}
