//! Rows sorted a block a row on CUDA (see `ember_codegen::sort::block_rows`), or a work-item
//! a row on a CPU device (`ember_codegen::sort::cpu_rows`).

use ember_codegen::sort::block_rows::{name, shape, source, stage_bytes};
use ember_codegen::sort::cpu_rows;
use ember_core::{DType, Result};
use ember_kernel::{compile_generated, dialect, KernelMemo, Rounding};
use ember_runtime::{current_stream, Device, FunctionAttribute, KernelArg};

use crate::array::Array;

/// Fewer rows than this leave most of the GPU idle: the whole-array sort takes them.
pub const MIN_ROWS: usize = 64;

/// Rows a CPU device sorts a work-item a row (fewer leave cores idle), and their least
/// length: a row's passes cost 256 counters each, and 2^20 float32 in rows of 16 sorted in
/// 40 ms this way against 36 ms by whole-array passes (rows of 64: 17 against 34).
pub const CPU_MIN_ROWS: usize = 8;
pub const CPU_MIN_LENGTH: usize = 32;

#[derive(Clone, PartialEq, Eq, Hash)]
struct Kernel {
    dtype: DType,
    values: bool,
    threads: usize,
    items: usize,
}

static CPU_KERNELS: KernelMemo<(DType, bool)> = KernelMemo::new();

/// The rows sorted a work-item a row (a CPU device; rows of fewer than 2^32 elements).
fn sort_on_cpu(a: &Array, rows: usize, n: usize, values: bool) -> Result<Array> {
    let (device, dtype) = (a.device(), a.dtype());
    let function = CPU_KERNELS.get_or_compile(device, &(dtype, values), || {
        let d = dialect(device);
        compile_generated(
            device,
            &cpu_rows::source(d, dtype, values),
            &cpu_rows::name(dtype, values),
            &[],
            Rounding::Separate,
        )
    })?;
    let total = rows * n;
    let out = Array::empty(device, &[rows, n], if values { dtype } else { DType::I64 })?;
    let key = cpu_rows::key_dtype(dtype);
    let scratch = [key, key, DType::U32, DType::U32]
        .into_iter()
        .map(|d| Array::empty(device, &[total], d))
        .collect::<Result<Vec<_>>>()?;
    let n_bytes = (n as i64).to_le_bytes();
    let mut args: Vec<KernelArg<'_>> = vec![a.kernel_arg(), out.kernel_arg()];
    args.extend(scratch.iter().map(|s| s.kernel_arg()));
    args.push(KernelArg::Bytes(&n_bytes));
    device.launch(
        &function,
        [rows as u32, 1, 1],
        [1, 1, 1],
        0,
        current_stream(device),
        &args,
    )?;
    Ok(out)
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
    let cpu = device.info().is_cpu
        && rows >= CPU_MIN_ROWS
        && n >= CPU_MIN_LENGTH
        && n < u32::MAX as usize
        && !a.dtype().is_complex()
        && a.dtype().numeric("sorting").is_ok();
    let block = (dialect(device).table().warp.is_some() && rows >= MIN_ROWS)
        .then(|| shape(a.dtype(), n))
        .flatten();
    if !cpu && block.is_none() {
        return Ok(None);
    }
    let a = if a.is_c_contiguous() {
        a.clone()
    } else {
        a.copy()?
    };
    let Some((threads, items)) = block else {
        return sort_on_cpu(&a, rows, n, values).map(Some);
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
