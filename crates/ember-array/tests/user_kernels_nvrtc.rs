//! The CUDA C that ElementwiseKernel and ReductionKernel generate compiles through NVRTC
//! (no GPU needed). CI installs pip's NVRTC and sets EMBER_REQUIRE_NVRTC=1.

mod common;

use common::{compile_cuda as compile, nvrtc_here};

use ember_codegen::{Dialect, Param, Role, Snippets, UserMap, UserReduce};
use ember_core::DType;

fn param(name: &str, dtype: DType, role: Role) -> Param {
    Param {
        name: name.into(),
        dtype,
        role,
    }
}

fn snippets(name: &str, t: DType, params: Vec<Param>) -> Snippets {
    Snippets {
        name: name.into(),
        typedefs: vec![("T".into(), t)],
        params,
        preamble: String::new(),
    }
}

#[test]
fn elementwise_kernels_compile_for_every_dtype_and_layout() {
    if !nvrtc_here() {
        return;
    }
    for &dtype in DType::ALL.iter() {
        let layouts = [
            (0, false, false),
            (0, true, false),
            (3, false, false),
            (3, false, true),
        ];
        for (ndim, vector, checked) in layouts {
            if vector && !ember_codegen::user_kernel::vector_loadable(dtype) {
                continue;
            }
            let k = UserMap {
                common: snippets(
                    "ew",
                    dtype,
                    vec![
                        param("x", dtype, Role::Input),
                        param("s", dtype, Role::Scalar),
                        param("r", DType::I32, Role::Raw { writable: false }),
                        param("y", dtype, Role::Output),
                    ],
                ),
                operation: "y = x; (void)s; (void)r[i % r.size()]; (void)_ind.size()".into(),
                loop_prep: String::new(),
                after_loop: String::new(),
                ndim,
                vector,
                checked,
                cover: ember_codegen::Cover::GridStride,
            };
            compile(
                &k.source(Dialect::Cuda),
                &format!("ew_{}_{ndim}_{vector}_{checked}", dtype.name()),
            );
        }
    }
}

#[test]
fn reduction_kernels_compile() {
    if !nvrtc_here() {
        return;
    }
    for (dtype, reduce_type) in [
        (DType::F32, "float"),
        (DType::F64, "double"),
        (DType::I64, "long long"),
        (DType::F16, "float"),
        (DType::C64, "T"),
    ] {
        let k = UserReduce {
            common: snippets(
                "red",
                dtype,
                vec![
                    param("x", dtype, Role::Input),
                    param("w", dtype, Role::Scalar),
                    param("y", dtype, Role::Output),
                ],
            ),
            map_expr: "x * w".into(),
            reduce_expr: "a + b".into(),
            post_map_expr: "y = a".into(),
            identity: "0".into(),
            reduce_type: reduce_type.into(),
            out_ndim: 1,
            reduce_ndim: 2,
            block: 256,
        };
        compile(&k.source(Dialect::Cuda), &format!("red_{}", dtype.name()));
    }
}
