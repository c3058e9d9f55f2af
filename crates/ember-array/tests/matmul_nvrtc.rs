//! The CUDA C of ember's tiled matrix product compiles through NVRTC for every dtype and tile
//! (no GPU needed). CI installs pip's NVRTC and sets EMBER_REQUIRE_NVRTC=1.

mod common;

use common::nvrtc_here;

use ember_codegen::matmul::{MatmulKernel, Tile};
use ember_codegen::Dialect;
use ember_core::DType;

fn compile(k: &MatmulKernel) {
    common::compile_cuda(&k.source(Dialect::Cuda), &k.name());
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
