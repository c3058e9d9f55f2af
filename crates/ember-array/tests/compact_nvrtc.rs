//! The CUDA C of the stream-compaction kernels (`a[mask]`, `nonzero`) compiles through NVRTC.

mod common;

use ember_codegen::compact::{compact_source, count_source};
use ember_codegen::Dialect;
use ember_core::DType;
use ember_runtime::cuda::nvrtc;

#[test]
fn compaction_kernels_compile() {
    if !common::nvrtc_here() {
        return;
    }
    let mut sources = vec![
        ("ember_mask_count", count_source(Dialect::Cuda)),
        ("ember_compact_indices", compact_source(Dialect::Cuda, None)),
    ];
    for &d in DType::ALL {
        sources.push(("ember_compact", compact_source(Dialect::Cuda, Some(d))));
    }
    for (name, src) in sources {
        if let Err(e) = nvrtc::compile_cubin(&src, name, "sm_90", &["-minimal".into()]) {
            panic!("{name} did not compile: {e}\n{src}");
        }
    }
}
