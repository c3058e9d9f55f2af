//! Rows sorted a block a row on CUDA (see `ember_codegen::sort::block_rows`).

use ember_codegen::sort::block_rows::{name, shape, source, stage_bytes};
use ember_core::{DType, Result};
use ember_kernel::{compile_generated, dialect, KernelMemo, Rounding};
use ember_runtime::{current_stream, Device, FunctionAttribute, KernelArg};

use crate::array::Array;

/// Fewer rows than this leave most of the GPU idle: the whole-array sort takes them.
pub const MIN_ROWS: usize = 64;

#[derive(Clone, PartialEq, Eq, Hash)]
struct Kernel {
    dtype: DType,
    values: bool,
    threads: usize,
    items: usize,
}

static KERNELS: KernelMemo<Kernel> = KernelMemo::new();

fn compiled(device: &'static Device, k: &Kernel) -> Result<ember_runtime::Function> {
    KERNELS.get_or_compile(device, k, || {
        let d = dialect(device);
        let function = compile_generated(
            device,
            &source(d, k.dtype, k.values, k.threads, k.items),
            &name(k.dtype, k.values, k.threads, k.items),
            &[],
            Rounding::Separate,
        )?;
        // The staged row may pass the 48 KiB a block gets without asking.
        device.backend().set_function_attribute(
            function.handle(),
            FunctionAttribute::MaxDynamicSharedSizeBytes,
            stage_bytes(k.dtype, k.threads, k.items) as i64,
        )?;
        Ok(function)
    })
}

/// The `rows` rows of `a` (in C order, the last axis the row) sorted (`values`), or each
/// row's int64 sorting positions, as a `(rows, n)` array; `None` where this sort is not
/// planned (not CUDA, too few rows, rows too long, complex dtypes).
pub fn sort(a: &Array, rows: usize, values: bool) -> Result<Option<Array>> {
    let device = a.device();
    let n = a.size().checked_div(rows).unwrap_or(0);
    let planned = dialect(device).table().warp.is_some() && rows >= MIN_ROWS;
    let Some((threads, items)) = shape(a.dtype(), n).filter(|_| planned) else {
        return Ok(None);
    };
    let copied;
    let a = if a.is_c_contiguous() {
        a
    } else {
        copied = a.copy()?;
        &copied
    };
    let k = Kernel {
        dtype: a.dtype(),
        values,
        threads,
        items,
    };
    let out = Array::empty(
        device,
        &[rows, n],
        if values { a.dtype() } else { DType::I64 },
    )?;
    let n_bytes = (n as i64).to_le_bytes();
    device.launch(
        &compiled(device, &k)?,
        [rows as u32, 1, 1],
        [threads as u32, 1, 1],
        stage_bytes(k.dtype, threads, items) as u32,
        current_stream(device),
        &[a.kernel_arg(), out.kernel_arg(), KernelArg::Bytes(&n_bytes)],
    )?;
    Ok(Some(out))
}
