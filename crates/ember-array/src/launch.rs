//! Running a [`MapKernel`] (casts, copies, creation kernels, `where`) over arrays: laid out
//! as the ufuncs' and ElementwiseKernel's loops are ([`map_plan`]), compiled once per device
//! and layout.

use ember_codegen::MapKernel;
use ember_core::Result;
use ember_kernel::{compile_generated, dialect, KernelMemo, Rounding, ScalarBytes};
use ember_runtime::{Device, Function};

use crate::array::Array;
use crate::user_kernel::map_plan::{self, plan_roles, Binding, Body, MapPlan};

/// The compiled function for `spec` on `device`, laid out as `plan` says.
pub fn function(device: &'static Device, spec: &MapKernel, plan: &MapPlan) -> Result<Function> {
    let (ndim, vector, checked) = (plan.loop_shape.len(), plan.vector, plan.checked);
    // One memo per layout, so that a lookup borrows the spec (no clone per launch). Loops
    // have at most NumPy's 64 axes once collapsed.
    const LAYOUTS: usize = 4 * 65;
    static MEMOS: [KernelMemo<MapKernel>; LAYOUTS] = [const { KernelMemo::new() }; LAYOUTS];
    let slot = 4 * ndim + 2 * checked as usize + vector as usize;
    let memo = MEMOS.get(slot).ok_or_else(|| {
        ember_core::Error::Value(format!(
            "an array of {ndim} dimensions is beyond NumPy's 64"
        ))
    })?;
    memo.get_or_compile(device, spec, || {
        let d = dialect(device);
        compile_generated(
            device,
            &spec
                .user_map(d, ndim, vector, checked, plan.cover)
                .source(d),
            &spec.name,
            &[],
            Rounding::Separate,
        )
    })
}

/// Runs `spec` over `operands` (inputs then outputs, broadcast to `shape`), with `scalars`
/// (bytes in each scalar's parameter type).
pub fn run_map(
    spec: &MapKernel,
    operands: &[&Array],
    scalars: &[Vec<u8>],
    shape: &[usize],
) -> Result<()> {
    let n: usize = shape.iter().product();
    let Some(first) = operands.first() else {
        return Ok(());
    };
    if n == 0 {
        return Ok(());
    }
    let device = first.device();
    let mut bindings: Vec<Binding> = operands.iter().map(|a| Binding::Array(a)).collect();
    bindings.extend(
        scalars
            .iter()
            .map(|s| Binding::Scalar(ScalarBytes::from_slice(s))),
    );
    let mut plan = plan_roles(shape, &spec.roles(), &bindings);
    // These kernels write as much as they read or more (casts that widen, fills): the
    // unrolled flat loop keeps every store coalesced, where vector loads leave each thread's
    // stores four elements apart (an H200: float32 -> float64 at 1.9 TB/s against 3.5).
    // Strided groups stay where nothing widens (a broadcast copy: `tile`).
    let widens = operands
        .iter()
        .any(|a| a.dtype().itemsize() != first.dtype().itemsize());
    if plan.loop_shape.is_empty() || widens {
        plan.ungroup();
    }
    let function = function(device, spec, &plan)?;
    let operand = |k: usize| {
        let (ins, outs) = (&spec.inputs, &spec.outputs);
        let name = ins
            .iter()
            .chain(outs)
            .nth(k)
            .map_or("?", |o| o.name.as_str());
        format!("operand '{name}'")
    };
    map_plan::launch(
        device,
        &function,
        n,
        &bindings,
        &plan,
        Body::Generated,
        &operand,
    )
}
