//! The CUDA C of ember's FFT passes compiles through NVRTC (no GPU needed): every radix,
//! precision and direction.

mod common;

use common::{compile_cuda as compile, nvrtc_here};

use ember_codegen::fft::{tile_passes, PassKernel, TileKernel, Tuning, RADICES};
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
fn tile_kernels_compile() {
    if !nvrtc_here() {
        return;
    }
    let t = Tuning::default();
    // Rows, long rows, columns, odd radices, both precisions.
    for (n, inner, double) in [
        (2, 1, false),
        (64, 1, false),
        (4096, 1, false),
        (2048, 1, true),
        (2187, 1, false),
        (2401, 1, true),
        (1 << 24, 1, false),
        (4096, 4096, false),
        (1000, 7, true),
    ] {
        let item = if double { 16 } else { 8 };
        for (radix, lanes) in tile_passes(n, inner, item, &t).unwrap() {
            for (inverse, direct) in [(false, true), (true, true), (false, false), (true, false)] {
                let tuning = Tuning { direct, ..t };
                let spec = TileKernel::new(radix, lanes, double, inverse, &tuning);
                compile(&spec.source(Dialect::Cuda), &spec.name());
            }
        }
    }
}
