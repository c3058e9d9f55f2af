//! Inverses of batches of small matrices (order up to [`LARGEST`]) in one launch, on every
//! device (`ember_codegen::lapack::inverse`).

use ember_codegen::lapack::inverse::InverseKernel;
pub use ember_codegen::lapack::inverse::LARGEST;
use ember_core::{DType, Error, Result, Scalar};
use ember_kernel::{dialect, KernelMemo};
use ember_runtime::{current_stream, KernelArg};

use crate::array::Array;
use crate::creation::fill;
use crate::lapack::dims;

/// See [`crate::lapack::inverse`].
pub fn inverse(a: &Array) -> Result<(Array, Array)> {
    let (batch, cols, n) = dims(a, "inverse")?;
    if cols != n || n > LARGEST {
        return Err(Error::Value(format!(
            "the small-matrix inverse takes square matrices of order at most {LARGEST}, got {n} x {cols}"
        )));
    }
    let (device, dtype) = (a.device(), a.dtype());
    let x = Array::empty(device, &[batch, n, n], dtype)?;
    let info = Array::empty(device, &[batch], DType::I32)?;
    if batch == 0 || n == 0 {
        fill(&info, Scalar::Int(0))?;
        return Ok((x, info));
    }
    // GPUs: wide groups of several matrices; CPU devices: a few threads a matrix.
    let threads = if super::gpu_shapes(device) { 256 } else { 16 };
    let kernel = InverseKernel { dtype, threads };
    // Up to CUDA's 48 KiB without opting in, less the static pivot array.
    let budget = device.info().max_shared_per_block.clamp(2048, 48 * 1024) - 1024;
    let (lanes, per) = kernel.layout(n, budget);
    static MEMO: KernelMemo<InverseKernel> = KernelMemo::new();
    let function = MEMO.generated(device, &kernel)?;
    let scalars: Vec<[u8; 8]> = [n, batch, lanes, per]
        .iter()
        .map(|&v| (v as i64).to_le_bytes())
        .collect();
    let mut args: Vec<KernelArg<'_>> = [a, &x, &info].iter().map(|v| v.kernel_arg()).collect();
    args.extend(scalars.iter().map(|b| KernelArg::Bytes(b)));
    let mut shared = InverseKernel::local_elements(n, per) * dtype.itemsize();
    if dialect(device).table().dynamic_shared_param {
        args.push(KernelArg::Local(shared));
        shared = 0;
    }
    let groups = u32::try_from(batch.div_ceil(per)).map_err(|_| {
        Error::Value(format!(
            "{batch} matrices are more than one launch can invert"
        ))
    })?;
    device.launch(
        &function,
        [groups, 1, 1],
        [threads as u32, 1, 1],
        shared as u32,
        current_stream(device),
        &args,
    )?;
    Ok((x, info))
}
