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

fn plain(dtype: DType, tile: Tile) -> MatmulKernel {
    MatmulKernel {
        dtype,
        out_dtype: dtype,
        conj_a: false,
        tile,
        subtract: false,
        wide_offsets: false,
        prefetch: !tile_is_cpu(tile),
    }
}

fn tile_is_cpu(tile: Tile) -> bool {
    [Tile::SQUARE, Tile::SQUARE_SMALL].contains(&tile)
}

#[test]
fn matmul_kernels_compile_for_every_dtype_on_cpus_and_gpus() {
    if !nvrtc_here() {
        return;
    }
    for &dtype in DType::ALL {
        for gpu in [false, true] {
            compile(&plain(dtype, Tile::for_shape(4096, 4096, dtype, gpu, None)));
        }
    }
}

#[test]
fn matmul_kernel_variants_compile() {
    if !nvrtc_here() {
        return;
    }
    for tile in [Tile::TALL, Tile::WIDE, Tile::GPU_TALL, Tile::GPU_WIDE] {
        compile(&plain(DType::F32, tile));
    }
    // The trailing updates: conjugated, subtracting, with 64-bit offsets.
    for dtype in [DType::F32, DType::F64, DType::C64, DType::C128] {
        let mut k = plain(dtype, Tile::for_shape(4096, 4096, dtype, true, None));
        k.conj_a = dtype.is_complex();
        k.subtract = true;
        k.wide_offsets = dtype == DType::F64 || dtype == DType::C128;
        compile(&k);
    }
    let mut k = plain(DType::F16, Tile::SQUARE);
    k.out_dtype = DType::F32;
    compile(&k);
}
