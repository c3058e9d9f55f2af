//! The CUDA C of the one-sided Jacobi step (singular values for `linalg.norm`) compiles
//! through NVRTC for both float types.

mod common;

use ember_codegen::svd::{step_name, step_source};
use ember_codegen::Dialect;
use ember_core::DType;
use ember_runtime::cuda::nvrtc;

#[test]
fn jacobi_step_compiles() {
    if !common::nvrtc_here() {
        return;
    }
    for dtype in [DType::F32, DType::F64] {
        let src = step_source(dtype, 128, Dialect::Cuda);
        if let Err(e) = nvrtc::compile_cubin(&src, &step_name(dtype), "sm_90", &["-minimal".into()])
        {
            panic!("{} did not compile: {e}\n{src}", step_name(dtype));
        }
    }
}
