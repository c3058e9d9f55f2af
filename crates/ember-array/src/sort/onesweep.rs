//! The onesweep radix sort of one row on CUDA (see `ember_codegen::sort::onesweep`): one
//! histogram of every pass's digits, then a kernel a pass. A pass whose digit is the same for
//! every key moves nothing and is left out.

use ember_codegen::sort::onesweep::{
    always_decodes, fits, histogram_name, histogram_source, pass_name, pass_source, passes,
    stage_bytes, Carry, Stage, Tuning, HISTOGRAM_BLOCKS, HISTOGRAM_THREADS, TUNING,
};
use ember_core::{DType, Result, Scalar};
use ember_kernel::{compile_generated, dialect, KernelMemo, Rounding};
use ember_runtime::{current_stream, Device, FunctionAttribute, KernelArg};

use crate::array::Array;
use crate::creation::{arange, fill};

#[derive(Clone, PartialEq, Eq, Hash)]
enum Kernel {
    Histogram(DType),
    Pass(DType, Carry, Stage, Tuning),
}

static KERNELS: KernelMemo<Kernel> = KernelMemo::new();

fn compiled(device: &'static Device, k: Kernel) -> Result<ember_runtime::Function> {
    KERNELS.get_or_compile(device, &k, || {
        let d = dialect(device);
        let (source, name) = match k {
            Kernel::Histogram(dtype) => (histogram_source(d, dtype), histogram_name(dtype)),
            Kernel::Pass(dtype, carry, stage, tuning) => (
                pass_source(d, dtype, carry, stage, tuning),
                pass_name(dtype, carry, stage, tuning),
            ),
        };
        let function = compile_generated(device, &source, &name, &[], Rounding::Separate)?;
        if let Kernel::Pass(dtype, carry, _, tuning) = k {
            // The staged tile may pass the 48 KiB a block gets without asking.
            device.backend().set_function_attribute(
                function.handle(),
                FunctionAttribute::MaxDynamicSharedSizeBytes,
                stage_bytes(dtype, carry, tuning) as i64,
            )?;
        }
        Ok(function)
    })
}

/// Whether a row of `total` elements of `dtype` on `device` is sorted here.
pub fn planned(device: &'static Device, dtype: DType, total: usize) -> bool {
    dialect(device).table().warp.is_some() && fits(dtype, total) && total > 0
}

/// The C-contiguous `a` (one row, `planned`) sorted: its values, or (`index`) the int64
/// permutation that sorts it; stable.
pub fn sort(a: &Array, index: bool) -> Result<Array> {
    let (device, dtype, total) = (a.device(), a.dtype(), a.size());
    let stream = current_stream(device);
    let p = passes(dtype);
    // Every pass's digit counts, and the flag of keys that do not decode to their values.
    let counts = Array::empty(device, &[p * 256 + 1], DType::U64)?;
    fill(&counts, Scalar::UInt(0))?;
    let total_bytes = (total as i64).to_le_bytes();
    let blocks = total.div_ceil(HISTOGRAM_THREADS).min(HISTOGRAM_BLOCKS);
    device.launch(
        &compiled(device, Kernel::Histogram(dtype))?,
        [blocks as u32, 1, 1],
        [HISTOGRAM_THREADS as u32, 1, 1],
        0,
        stream,
        &[
            a.kernel_arg(),
            counts.kernel_arg(),
            KernelArg::Bytes(&total_bytes),
        ],
    )?;
    let mut host = vec![0u8; counts.nbytes()];
    counts.to_host(&mut host)?;
    let count = |e: usize| u64::from_le_bytes(host[8 * e..8 * e + 8].try_into().unwrap());
    let odd = !always_decodes(dtype) && count(p * 256) != 0;
    let carry = match (index, odd) {
        (true, _) => Carry::Index,
        (false, true) => Carry::Bits,
        (false, false) => Carry::Nothing,
    };
    // A pass whose digit is one value for every key keeps the order it is given.
    let live: Vec<usize> = (0..p)
        .filter(|&q| (0..256).all(|d| count(q * 256 + d) != total as u64))
        .collect();
    let out_dtype = if index { DType::I64 } else { dtype };
    if live.is_empty() {
        return if index {
            arange(device, Scalar::Int(0), Scalar::Int(1), total, DType::I64)
        } else {
            a.view(&[total], &[dtype.itemsize() as isize], a.offset(), dtype)?
                .copy()
        };
    }
    let out = Array::empty(device, &[total], out_dtype)?;
    let tuning = TUNING;
    let tiles = total.div_ceil(tuning.tile());
    let look = Array::empty(device, &[tiles * 256 + 1], DType::U32)?;
    // Between passes keys (and carried words) alternate between two buffers.
    let between = (live.len() - 1).min(2);
    let key_dtype =
        if ember_codegen::sort::key_digits(dtype).0 == ember_codegen::sort::Digits::Key64 {
            DType::U64
        } else {
            DType::U32
        };
    let carry_dtype = if carry == Carry::Bits && dtype.itemsize() == 8 {
        DType::U64
    } else {
        DType::U32
    };
    let buffers = |dtype: DType, used: bool| -> Result<Vec<Array>> {
        (0..if used { between } else { 0 })
            .map(|_| Array::empty(device, &[total], dtype))
            .collect()
    };
    let keys = buffers(key_dtype, true)?;
    let carried = buffers(carry_dtype, carry != Carry::Nothing)?;
    for (n, &q) in live.iter().enumerate() {
        let stage = Stage {
            first: n == 0,
            last: n + 1 == live.len(),
        };
        fill(&look, Scalar::UInt(0))?;
        let function = compiled(device, Kernel::Pass(dtype, carry, stage, tuning))?;
        // Unused pointers are given some array of the launch (never read or written).
        let from = |bufs: &[Array]| {
            if stage.first {
                a.kernel_arg()
            } else {
                bufs[(n - 1) % 2].kernel_arg()
            }
        };
        let to = |bufs: &[Array]| {
            if stage.last {
                out.kernel_arg()
            } else {
                bufs[n % 2].kernel_arg()
            }
        };
        let pass_counts = counts.view(&[256], &[8], counts.offset() + q * 256 * 8, DType::U64)?;
        let shift = (8 * q as i64).to_le_bytes();
        let args = [
            from(&keys),
            to(&keys),
            out.kernel_arg(),
            if carried.is_empty() {
                a.kernel_arg()
            } else {
                from(&carried)
            },
            if carried.is_empty() {
                out.kernel_arg()
            } else {
                to(&carried)
            },
            pass_counts.kernel_arg(),
            look.kernel_arg(),
            KernelArg::Bytes(&total_bytes),
            KernelArg::Bytes(&shift),
        ];
        device.launch(
            &function,
            [tiles as u32, 1, 1],
            [tuning.threads as u32, 1, 1],
            stage_bytes(dtype, carry, tuning) as u32,
            stream,
            &args,
        )?;
    }
    Ok(out)
}
