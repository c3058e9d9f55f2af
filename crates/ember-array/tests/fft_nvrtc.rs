//! The CUDA C of ember's FFT passes compiles through NVRTC (no GPU needed): every radix,
//! precision and direction.

mod common;

use common::{compile_cuda as compile, nvrtc_here};

use ember_codegen::fft::{PassKernel, RowKernel, RADICES};
use ember_codegen::Dialect;

#[test]
fn every_pass_compiles() {
    if !nvrtc_here() {
        return;
    }
    for radix in RADICES {
        for double in [false, true] {
            for inverse in [false, true] {
                let spec = PassKernel {
                    radix,
                    double,
                    inverse,
                };
                compile(&spec.source(Dialect::Cuda), &spec.name());
            }
        }
    }
}

#[test]
fn row_kernels_compile() {
    if !nvrtc_here() {
        return;
    }
    for (n, double) in [
        (2, false),
        (64, false),
        (4096, false),
        (2048, true),
        (2187, false),
        (2401, true),
    ] {
        for inverse in [false, true] {
            let spec = RowKernel { n, double, inverse };
            compile(&spec.source(Dialect::Cuda), &spec.name());
        }
    }
}
