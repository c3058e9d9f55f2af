//! The CUDA C of fused expressions (automatic fusion and `ember.fuse`) compiles through NVRTC
//! for every family of dtypes and both layouts (no GPU needed; CI sets EMBER_REQUIRE_NVRTC=1).

mod common;

use common::{compile_cuda as compile, nvrtc_here};

use ember_array::ufunc::fused::{fused_map, FusedParam, Ref, Step};
use ember_codegen::Dialect;
use ember_core::DType;

fn call(name: &str, args: &[Ref]) -> Step {
    Step::Ufunc {
        name: name.into(),
        args: args.to_vec(),
    }
}

#[test]
fn fused_expressions_compile() {
    if !nvrtc_here() {
        return;
    }
    // (x * y + s) / (y - x), then sqrt(|.|) where the type is real: products, a weak scalar,
    // division and helpers in one body.
    for t in [
        DType::F16,
        DType::F32,
        DType::F64,
        DType::I8,
        DType::U64,
        DType::C64,
        DType::C128,
    ] {
        let array = FusedParam {
            dtype: t,
            weak: false,
        };
        let scalar = FusedParam {
            dtype: DType::F64,
            weak: true,
        };
        let params = [(array, true), (array, true), (scalar, false)];
        let mut steps = vec![
            call("multiply", &[Ref::Param(0), Ref::Param(1)]),
            call("add", &[Ref::Step(0), Ref::Param(2)]),
            call("subtract", &[Ref::Param(1), Ref::Param(0)]),
            call("true_divide", &[Ref::Step(1), Ref::Step(2)]),
        ];
        if !t.is_complex() {
            steps.push(call("absolute", &[Ref::Step(3)]));
            steps.push(call("sqrt", &[Ref::Step(4)]));
        }
        let out = match t {
            DType::I8 | DType::U64 => DType::F64,
            other => other,
        };
        for (ndim, vector) in [(0, false), (0, true), (2, false)] {
            let spec = fused_map(&params, &steps, out, ndim, vector, Dialect::Cuda).unwrap();
            compile(&spec.source(Dialect::Cuda), &spec.common.name);
        }
    }
}
