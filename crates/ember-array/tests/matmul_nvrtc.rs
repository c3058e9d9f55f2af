//! The CUDA C of ember's tiled matrix product compiles through NVRTC for every dtype and tile
//! (no GPU needed). CI installs pip's NVRTC and sets EMBER_REQUIRE_NVRTC=1.

use ember_codegen::matmul::{MatmulKernel, Tile};
use ember_codegen::Dialect;
use ember_core::DType;
use ember_runtime::cuda::nvrtc;

fn nvrtc_here() -> bool {
    if nvrtc::ensure().is_ok() {
        return true;
    }
    assert_ne!(
        std::env::var("EMBER_REQUIRE_NVRTC").as_deref(),
        Ok("1"),
        "NVRTC is required here but was not found"
    );
    eprintln!("NVRTC not found; skipping");
    false
}

fn compile(k: &MatmulKernel) {
    let source = k.source(Dialect::Cuda);
    let name = k.name();
    // As the runtime compiles generated code: NVRTC's minimal mode first.
    if nvrtc::compile_cubin(&source, &name, "sm_90", &["-minimal".to_string()]).is_ok() {
        return;
    }
    if let Err(e) = nvrtc::compile_cubin(&source, &name, "sm_90", &[]) {
        panic!("{name} did not compile: {e}\n{source}");
    }
}

#[test]
fn matmul_kernels_compile_for_every_dtype() {
    if !nvrtc_here() {
        return;
    }
    for &dtype in DType::ALL {
        let tile = if dtype.is_complex() {
            Tile::SQUARE_SMALL
        } else {
            Tile::SQUARE
        };
        compile(&MatmulKernel {
            dtype,
            out_dtype: dtype,
            conj_a: false,
            tile,
        });
    }
}

#[test]
fn matmul_kernel_variants_compile() {
    if !nvrtc_here() {
        return;
    }
    for tile in [Tile::TALL, Tile::WIDE] {
        compile(&MatmulKernel {
            dtype: DType::F32,
            out_dtype: DType::F32,
            conj_a: false,
            tile,
        });
    }
    for dtype in [DType::C64, DType::C128] {
        compile(&MatmulKernel {
            dtype,
            out_dtype: dtype,
            conj_a: true,
            tile: Tile::SQUARE_SMALL,
        });
    }
    compile(&MatmulKernel {
        dtype: DType::F16,
        out_dtype: DType::F32,
        conj_a: false,
        tile: Tile::SQUARE,
    });
}
