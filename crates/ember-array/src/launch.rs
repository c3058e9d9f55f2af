//! Running a [`MapKernel`] (casts, copies, creation kernels) over arrays: its compiled
//! function, memoised per device, launched with a grid-stride loop.

use ember_codegen::MapKernel;
use ember_core::Result;
use ember_kernel::{compile_generated, dialect, launch_shape, KernelMemo, Rounding};
use ember_runtime::{current_stream, Device, Function, KernelArg};

use crate::array::Array;

/// The compiled function for `spec` on `device`.
pub fn function(device: &'static Device, spec: &MapKernel) -> Result<Function> {
    static MEMO: KernelMemo<MapKernel> = KernelMemo::new();
    MEMO.get_or_compile(device, spec, || {
        compile_generated(
            device,
            &spec.source(dialect(device)),
            &spec.name,
            &[],
            Rounding::Separate,
        )
    })
}

/// Runs `spec` over `operands` (inputs then outputs, all of one shape), with `scalars` (bytes
/// in each scalar's parameter type).
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
    let function = function(device, spec)?;
    let n64 = (n as i64).to_le_bytes();
    let mut extents: Vec<[u8; 8]> = Vec::new();
    let mut strides: Vec<[u8; 8]> = Vec::new();
    let strided = spec.ndim > 0 && spec.inputs.iter().chain(&spec.outputs).any(|o| o.strided);
    if strided {
        extents.extend(shape.iter().map(|&d| (d as i64).to_le_bytes()));
        for (op, arr) in spec.inputs.iter().chain(&spec.outputs).zip(operands) {
            if op.strided {
                strides.extend(arr.strides().iter().map(|&s| (s as i64).to_le_bytes()));
            }
        }
    }
    let mut args: Vec<KernelArg<'_>> =
        Vec::with_capacity(operands.len() + scalars.len() + 1 + extents.len() + strides.len());
    args.extend(operands.iter().map(|a| a.kernel_arg()));
    args.extend(scalars.iter().map(|s| KernelArg::Bytes(s)));
    args.push(KernelArg::Bytes(&n64));
    args.extend(extents.iter().map(|b| KernelArg::Bytes(b)));
    args.extend(strides.iter().map(|b| KernelArg::Bytes(b)));
    let (grid, block) = launch_shape(device, n);
    device.launch(&function, grid, block, 0, current_stream(device), &args)
}
