//! The CUDA C of ember's reductions and scans compiles through NVRTC (no GPU needed). CI
//! installs pip's NVRTC and sets EMBER_REQUIRE_NVRTC=1.

mod common;

use common::{compile_cuda as compile, nvrtc_here};

use ember_codegen::reduce::{vector_loadable, Combine, Layout, Map, Post, ReduceKernel};
use ember_codegen::scan::ScanKernel;
use ember_codegen::Dialect;
use ember_core::DType;

fn kernel(combine: Combine, input: DType, acc: DType, output: DType) -> ReduceKernel {
    ReduceKernel {
        combine,
        input,
        acc,
        output,
        map: Map::Value,
        post: Post::Keep,
        partial: false,
        layout: Layout::Rows,
        vector: false,
        out_ndim: 1,
        red_ndim: 1,
        cpu: false,
    }
}

#[test]
fn reductions_compile_for_every_combine_and_layout() {
    if !nvrtc_here() {
        return;
    }
    let cases = [
        (Combine::Add, DType::F32, DType::F32, DType::F32),
        (Combine::Add, DType::I8, DType::I64, DType::I64),
        (Combine::Add, DType::F16, DType::F32, DType::F16),
        (Combine::Add, DType::C64, DType::C64, DType::C64),
        (Combine::Add, DType::Bool, DType::Bool, DType::Bool),
        (Combine::Multiply, DType::U16, DType::U16, DType::U16),
        (Combine::Multiply, DType::C128, DType::C128, DType::C128),
        (Combine::Max, DType::F64, DType::F64, DType::F64),
        (Combine::Min, DType::C64, DType::C64, DType::C64),
        (Combine::Min, DType::U64, DType::U64, DType::U64),
        (Combine::ArgMax, DType::F32, DType::F32, DType::I64),
        (Combine::ArgMin, DType::C128, DType::C128, DType::I64),
        (Combine::Or, DType::C64, DType::Bool, DType::Bool),
        (Combine::And, DType::I32, DType::Bool, DType::Bool),
    ];
    for (combine, input, acc, output) in cases {
        for layout in [Layout::Rows, Layout::Columns] {
            for vector in [false, true] {
                if vector && !vector_loadable(input) {
                    continue;
                }
                let mut k = kernel(combine, input, acc, output);
                k.layout = layout;
                k.vector = vector;
                compile(&k.source(Dialect::Cuda), &k.name());
            }
        }
        // Split: partials, then the pass that finishes them; strided axes.
        let mut k = kernel(combine, input, acc, output);
        k.partial = true;
        k.out_ndim = 2;
        k.red_ndim = 3;
        compile(&k.source(Dialect::Cuda), &k.name());
        let mut k = kernel(combine, acc, acc, output);
        k.map = Map::Partial;
        k.layout = Layout::Columns;
        compile(&k.source(Dialect::Cuda), &k.name());
    }
}

#[test]
fn means_and_variances_compile() {
    if !nvrtc_here() {
        return;
    }
    let cases = [
        (DType::F32, DType::F32, DType::F32, DType::F32),
        (DType::I16, DType::F64, DType::F64, DType::F64),
        (DType::F16, DType::F32, DType::F32, DType::F16),
        (DType::C64, DType::C64, DType::F32, DType::F32),
    ];
    for (input, mean, acc, output) in cases {
        for (layout, vector) in [
            (Layout::Rows, false),
            (Layout::Rows, true),
            (Layout::Columns, true),
        ] {
            if vector && !vector_loadable(input) {
                continue;
            }
            let mut k = kernel(Combine::Add, input, acc, output);
            k.map = Map::CenteredSquare { mean };
            k.post = Post::DivideSqrt;
            k.layout = layout;
            k.vector = vector;
            compile(&k.source(Dialect::Cuda), &k.name());
        }
        let mut k = kernel(Combine::Add, input, mean, mean);
        k.post = Post::Divide;
        compile(&k.source(Dialect::Cuda), &k.name());
    }
}

#[test]
fn scans_compile() {
    if !nvrtc_here() {
        return;
    }
    for (input, acc, output) in [
        (DType::F32, DType::F32, DType::F32),
        (DType::U8, DType::U64, DType::U64),
        (DType::F16, DType::F32, DType::F16),
        (DType::C128, DType::C128, DType::C128),
    ] {
        for layout in [Layout::Rows, Layout::Columns] {
            for (split, out_ndim) in [(false, 1), (true, 2)] {
                let k = ScanKernel {
                    combine: Combine::Add,
                    input,
                    acc,
                    output,
                    layout,
                    split,
                    out_ndim,
                    cpu: false,
                    items: 8,
                    striped: false,
                    vector_in: false,
                    vector_out: false,
                };
                compile(&k.source(Dialect::Cuda), &k.name());
            }
        }
    }
}

#[test]
fn striped_scans_compile() {
    if !nvrtc_here() {
        return;
    }
    for (combine, input, acc, output, items) in [
        (Combine::Add, DType::F32, DType::F32, DType::F32, 32),
        (Combine::Add, DType::I32, DType::I64, DType::I64, 16),
        (Combine::Multiply, DType::F64, DType::F64, DType::F64, 16),
        (Combine::Add, DType::Bool, DType::I64, DType::I64, 16),
        (Combine::Multiply, DType::C128, DType::C128, DType::C128, 8),
        (Combine::Add, DType::F16, DType::F32, DType::F16, 4),
    ] {
        for (vector_in, vector_out) in [(false, false), (true, false), (false, true), (true, true)]
        {
            if (vector_in && !vector_loadable(input)) || (vector_out && !vector_loadable(output)) {
                continue;
            }
            let k = ScanKernel {
                combine,
                input,
                acc,
                output,
                layout: Layout::Rows,
                split: false,
                out_ndim: 2,
                cpu: false,
                items,
                striped: true,
                vector_in,
                vector_out,
            };
            compile(&k.source(Dialect::Cuda), &k.name());
        }
    }
}

#[test]
fn radix_sort_passes_compile() {
    use ember_codegen::sort::{
        count_name, count_source, keys_name, keys_source, scatter_name, scatter_source, Digits,
        Payload,
    };
    if !nvrtc_here() {
        return;
    }
    for dtype in [DType::F32, DType::I16, DType::C128, DType::Bool] {
        for index in [true, false] {
            compile(
                &keys_source(Dialect::Cuda, dtype, index),
                &keys_name(dtype, index),
            );
        }
    }
    for digits in [Digits::Key32, Digits::Key64, Digits::Row, Digits::Lookup] {
        compile(
            &count_source(Dialect::Cuda, digits, false),
            &count_name(digits, false),
        );
        for carry in [None, Some(Digits::Key64)] {
            compile(
                &scatter_source(Dialect::Cuda, digits, carry, Payload::Index, false),
                &scatter_name(digits, carry, Payload::Index, false),
            );
        }
    }
    for (digits, payload) in [
        (Digits::Key32, Payload::Bits32),
        (Digits::Key64, Payload::Bits64),
    ] {
        compile(
            &scatter_source(Dialect::Cuda, digits, None, payload, false),
            &scatter_name(digits, None, payload, false),
        );
    }
}

#[test]
fn onesweep_passes_compile() {
    use ember_codegen::sort::onesweep::{
        histogram_name, histogram_source, pass_name, pass_source, Carry, Stage, TUNING,
    };
    if !nvrtc_here() {
        return;
    }
    for dtype in [DType::F32, DType::F64, DType::I8, DType::U64, DType::Bool] {
        compile(
            &histogram_source(Dialect::Cuda, dtype),
            &histogram_name(dtype),
        );
        for carry in [Carry::Nothing, Carry::Bits, Carry::Index] {
            for (first, last) in [(true, false), (false, false), (false, true), (true, true)] {
                let stage = Stage { first, last };
                compile(
                    &pass_source(Dialect::Cuda, dtype, carry, stage, TUNING),
                    &pass_name(dtype, carry, stage, TUNING),
                );
            }
        }
    }
}

#[test]
fn block_row_sorts_compile() {
    use ember_codegen::sort::block_rows::{name, shape, source};
    if !nvrtc_here() {
        return;
    }
    for (dtype, n) in [
        (DType::F32, 1024),
        (DType::F32, 8192),
        (DType::F64, 4096),
        (DType::I8, 16),
        (DType::Bool, 300),
        (DType::F16, 700),
    ] {
        let (threads, items) = shape(dtype, n).unwrap();
        for values in [true, false] {
            compile(
                &source(Dialect::Cuda, dtype, values, threads, items),
                &name(dtype, values, threads, items),
            );
        }
    }
}
