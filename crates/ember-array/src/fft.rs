//! Batched complex FFTs of rows: cuFFT on CUDA devices (when it is found), else ember's
//! Stockham passes ([`ember_codegen::fft`]) on every device, for every length whose primes are
//! 2, 3, 5 and 7 (the Python layer takes other lengths through Bluestein's algorithm, on top
//! of these).

use std::sync::{Arc, Mutex};

use ember_codegen::fft::{factor, table_starts, twiddles, PassKernel, RowKernel};
use ember_core::{DType, Error, Result};
use ember_kernel::{launch_shape, KernelMemo};
use ember_runtime::cuda::fft as cufft;
use ember_runtime::{current_stream, BackendKind, Device, KernelArg};

use crate::array::Array;

static PASSES: KernelMemo<PassKernel> = KernelMemo::new();
static ROWS: KernelMemo<RowKernel> = KernelMemo::new();

/// The twiddle tables of every pass of a length, on a device (uploaded once; the last
/// [`KEPT`] lengths are kept), with where each pass's table starts.
type Tables = Arc<(Array, Vec<usize>)>;

const KEPT: usize = 64;

static CACHE: Mutex<Vec<(usize, usize, DType, Tables)>> = Mutex::new(Vec::new());

/// Drops every kept twiddle table and cuFFT plan (their memory goes back).
pub fn forget() {
    CACHE.lock().unwrap_or_else(|e| e.into_inner()).clear();
    cufft::forget_plans();
}

fn tables(device: &'static Device, n: usize, radices: &[usize], dtype: DType) -> Result<Tables> {
    let key = (device as *const Device as usize, n, dtype);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((.., t)) = cache.iter().find(|(d, m, t, _)| (*d, *m, *t) == key) {
        return Ok(t.clone());
    }
    let (mut values, mut p) = (Vec::new(), 1);
    for &r in radices {
        values.extend(twiddles(p, r));
        p *= r;
    }
    let starts = table_starts(radices);
    let bytes: Vec<u8> = if dtype == DType::C128 {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    } else {
        values
            .iter()
            .flat_map(|v| (*v as f32).to_le_bytes())
            .collect()
    };
    let table = Array::empty(device, &[(values.len() / 2).max(1)], dtype)?;
    if !bytes.is_empty() {
        table.set_from_host(&bytes)?;
    }
    let entry: Tables = Arc::new((table, starts));
    if cache.len() == KEPT {
        cache.remove(0);
    }
    cache.push((key.0, n, dtype, entry.clone()));
    Ok(entry)
}

/// The radices of a length the passes take, or `None`.
pub fn radices(n: usize) -> Option<Vec<usize>> {
    factor(n)
}

/// Which engine transforms on `device`: `"cufft"` (any length) or `"passes"`.
pub fn engine(device: &'static Device) -> &'static str {
    if device.kind() == BackendKind::Cuda && cufft::available() {
        "cufft"
    } else {
        "passes"
    }
}

/// How ember's passes run a length that fits [`RowKernel`]: a block a row in shared memory
/// (GPUs: one launch), or one launch a pass (CPU devices, where PoCL's barriers cost more than
/// the passes' memory traffic: 256 rows of 4,096 took 34 ms against 22).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    /// Shared memory on GPUs, passes on CPU devices.
    Auto,
    /// Shared memory wherever the length fits.
    Shared,
}

/// The DFT of each row of `a` (C-contiguous complex64/complex128; rows of the last axis),
/// unnormalized in both directions (`inverse`: the conjugate exponent), by the device's
/// [`engine`] (`passes`: ember's passes whatever the device).
pub fn c2c(a: &Array, inverse: bool, passes: bool, rows_in: Rows) -> Result<Array> {
    let dtype = a.dtype();
    if !matches!(dtype, DType::C64 | DType::C128) || !a.is_c_contiguous() || a.ndim() == 0 {
        return Err(Error::Value(format!(
            "fft passes take C-contiguous complex64/complex128 rows, got {dtype} of shape {:?}",
            a.shape()
        )));
    }
    let n = a.shape()[a.ndim() - 1];
    let device = a.device();
    if n == 0 || a.size() == 0 {
        return a.copy();
    }
    let rows = a.size() / n;
    if !passes && engine(device) == "cufft" && cufft::fits(n, rows) {
        let out = Array::empty(device, a.shape(), dtype)?;
        cufft::c2c(device, dtype, a.address(), out.address(), n, rows, inverse)?;
        return Ok(out);
    }
    let radices = factor(n).ok_or_else(|| {
        Error::Value(format!(
            "length {n} has a prime factor above 7: use Bluestein's algorithm"
        ))
    })?;
    let table = tables(device, n, &radices, dtype)?;
    let item = dtype.itemsize();
    let double = dtype == DType::C128;
    let row = RowKernel { n, double, inverse };
    let shared = rows_in == Rows::Shared || !device.info().is_cpu;
    if shared && RowKernel::fits(n, double) && row.threads() <= device.info().max_threads_per_block
    {
        // A row in shared memory, every pass in one launch.
        let out = Array::empty(device, a.shape(), dtype)?;
        let function = ROWS.generated(device, &row)?;
        let rows64 = (rows as i64).to_le_bytes();
        let args = [
            a.kernel_arg(),
            out.kernel_arg(),
            table.0.kernel_arg(),
            KernelArg::Bytes(&rows64),
        ];
        let blocks = rows.min(65_535) as u32;
        let block = [row.threads() as u32, 1, 1];
        device.launch(
            &function,
            [blocks, 1, 1],
            block,
            0,
            current_stream(device),
            &args,
        )?;
        return Ok(out);
    }
    let scratch = [
        Array::empty(device, a.shape(), dtype)?,
        Array::empty(device, a.shape(), dtype)?,
    ];
    let (n64, rows64) = ((n as i64).to_le_bytes(), (rows as i64).to_le_bytes());
    let mut source = a.clone();
    let mut p = 1;
    for (s, &r) in radices.iter().enumerate() {
        let spec = PassKernel {
            radix: r,
            double: dtype == DType::C128,
            inverse,
        };
        let function = PASSES.generated(device, &spec)?;
        let target = &scratch[s % 2];
        let tw = table.0.buffer().arg(table.0.offset() + table.1[s] * item);
        let p64 = (p as i64).to_le_bytes();
        let args = [
            source.kernel_arg(),
            target.kernel_arg(),
            tw,
            KernelArg::Bytes(&n64),
            KernelArg::Bytes(&p64),
            KernelArg::Bytes(&rows64),
        ];
        let (grid, block) = launch_shape(device, rows * n / r);
        device.launch(&function, grid, block, 0, current_stream(device), &args)?;
        source = target.clone();
        p *= r;
    }
    if radices.is_empty() {
        return a.copy();
    }
    Ok(source)
}
