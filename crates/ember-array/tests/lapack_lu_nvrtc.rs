//! The CUDA C of ember's LU and Cholesky kernels compiles through NVRTC (no GPU needed), for
//! every dtype and the shapes devices get.

mod common;

use common::{compile_cuda, nvrtc_here};

use ember_codegen::lapack::lu::{FactorProgram, Kernel};
use ember_codegen::lapack::triangular::Shape;
use ember_codegen::Dialect;

#[test]
fn every_factorization_kernel_compiles() {
    if !nvrtc_here() {
        return;
    }
    for dtype in FactorProgram::DTYPES {
        for gpu in [true, false] {
            let program = FactorProgram {
                shape: Shape::for_device(dtype, gpu, 48 * 1024),
            };
            // One compile checks every kernel of the program (NVRTC builds the whole source).
            let source = program.source(Dialect::Cuda);
            for kernel in Kernel::ALL {
                assert!(source.contains(&program.name(kernel)));
            }
            compile_cuda(&source, &program.name(Kernel::LuSmall));
        }
    }
}
