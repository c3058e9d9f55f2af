//! ember's own kernels round each operation as NumPy does: on CUDA the options of generated
//! array kernels turn NVRTC's multiply-add contraction off, which the PTX shows, while code
//! compiled as the user wrote it keeps it. Every `arange`/`linspace` kernel compiles (no GPU
//! needed; CI sets EMBER_REQUIRE_NVRTC=1).

mod common;

use common::nvrtc_here;

use ember_array::creation::{arange_kernel, linspace_kernel, Linspace};
use ember_codegen::Dialect;
use ember_core::{DType, Scalar};
use ember_kernel::{generated_program, Rounding};
use ember_runtime::cuda::nvrtc;

/// The PTX NVRTC makes of generated `source` compiled as ember compiles it with `rounding`.
fn ptx(source: &str, name: &str, rounding: Rounding) -> String {
    let (source, options) = generated_program(Dialect::Cuda, source, &[], rounding, true);
    nvrtc::compile_ptx(&source, name, "compute_90", &options)
        .unwrap_or_else(|e| panic!("{name} did not compile: {e}\n{source}"))
}

fn linspace(compute: DType, divisor: bool, endpoint: bool) -> Linspace {
    let (start, stop) = if compute.is_complex() {
        (Scalar::Complex(-5.0, 1.0), Scalar::Complex(5.0, -2.0))
    } else {
        (Scalar::Float(-5.0), Scalar::Float(5.0))
    };
    Linspace {
        start,
        stop,
        scale: Scalar::Float(0.1),
        divisor: divisor.then_some(Scalar::Float(100.0)),
        num: 101,
        endpoint,
        compute,
    }
}

#[test]
fn linspace_rounds_its_product_before_the_sum() {
    if !nvrtc_here() {
        return;
    }
    let (kernel, _) = linspace_kernel(
        &linspace(DType::F64, false, true),
        DType::F64,
        Dialect::Cuda,
    )
    .unwrap();
    let source = kernel.source(Dialect::Cuda, 0);
    let separate = ptx(&source, &kernel.name, Rounding::Separate);
    assert!(
        separate.contains("mul.rn.f64") && !separate.contains("fma.rn.f64"),
        "{separate}"
    );
    // Without the switch NVRTC contracts i * step + start: why it is needed.
    let contracted = ptx(&source, &kernel.name, Rounding::Contracted);
    assert!(contracted.contains("fma.rn.f64"), "{contracted}");
}

#[test]
fn complex_products_keep_numpys_explicit_fma() {
    if !nvrtc_here() {
        return;
    }
    let (kernel, _) = linspace_kernel(
        &linspace(DType::C128, false, false),
        DType::C128,
        Dialect::Cuda,
    )
    .unwrap();
    let separate = ptx(
        &kernel.source(Dialect::Cuda, 0),
        &kernel.name,
        Rounding::Separate,
    );
    assert!(separate.contains("fma.rn.f64"), "{separate}");
}

#[test]
fn every_progression_kernel_compiles() {
    if !nvrtc_here() {
        return;
    }
    let outputs = [
        DType::F16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
        DType::I8,
        DType::U16,
        DType::I64,
        DType::Bool,
    ];
    for compute in [DType::F16, DType::F32, DType::F64, DType::C64, DType::C128] {
        for out in outputs {
            if compute.is_complex() && out.is_integer() {
                continue;
            }
            for (divisor, endpoint) in [(false, false), (false, true), (true, true)] {
                let spec = linspace(compute, divisor, endpoint);
                let (kernel, _) = linspace_kernel(&spec, out, Dialect::Cuda).unwrap();
                ptx(
                    &kernel.source(Dialect::Cuda, 0),
                    &kernel.name,
                    Rounding::Separate,
                );
            }
        }
    }
    for out in outputs {
        let (kernel, _) =
            arange_kernel(Scalar::Float(0.5), Scalar::Float(0.75), out, Dialect::Cuda);
        ptx(
            &kernel.source(Dialect::Cuda, 0),
            &kernel.name,
            Rounding::Separate,
        );
    }
}
