//! Every ufunc loop's generated CUDA C compiles through NVRTC (contiguous layout, arrays of
//! the loop's own dtypes), plus a strided and a scalar-operand variant of each ufunc.

mod common;

use ember_array::ufunc::{kernel_spec, resolve};
use ember_codegen::Dialect;
use ember_runtime::cuda::nvrtc;

#[test]
fn every_ufunc_loop_compiles() {
    if !common::nvrtc_here() {
        return;
    }
    let mut failures = Vec::new();
    for u in resolve::all() {
        let name = u.name;
        for (index, (ins, outs)) in u.loops.iter().enumerate() {
            let inputs: Vec<_> = ins.iter().map(|&d| Some(d)).collect();
            let outputs: Vec<_> = outs.iter().map(|&d| Some(d)).collect();
            let mut variants = vec![(inputs.clone(), 0)];
            if index == 0 {
                variants.push((inputs.clone(), 2));
                let mut with_scalar = inputs.clone();
                with_scalar[0] = None;
                variants.push((with_scalar, 0));
            }
            for (inputs, ndim) in variants {
                // Loops ember does not support yet (some complex functions) refuse at run time
                // with a TypeError; everything it generates must compile.
                let Ok(spec) = kernel_spec(u, index, &inputs, &outputs, ndim, false, Dialect::Cuda)
                else {
                    continue;
                };
                let source = spec.source(Dialect::Cuda);
                if let Err(e) =
                    nvrtc::compile_cubin(&source, &spec.common.name, "sm_90", &["-minimal".into()])
                {
                    failures.push(format!("{name} {ins:?}->{outs:?} ndim {ndim}: {e}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} kernels failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
