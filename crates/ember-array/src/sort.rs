//! Stable sorting of the rows of a C-contiguous `(m, n)` array on the device: the permutation
//! that sorts each row, as flat indices (see `ember_codegen::sort` for the radix passes). Sorted
//! values, `argsort`'s indices and the searches are made from it by the callers.

use ember_codegen::sort::{
    count_name, count_source, key_bits, key_digits, keys_source, scatter_name, scatter_source,
    Digits, BLOCK, ROUNDS,
};
use ember_core::{DType, Error, Result};
use ember_runtime::{current_stream, KernelArg};

use crate::array::Array;
use crate::reduction::cumsum;
use ember_kernel::{compile_generated, dialect, KernelMemo, Rounding};

#[derive(Clone, PartialEq, Eq, Hash)]
enum Kernel {
    Keys(DType),
    Count(Digits),
    Scatter(Digits, Option<Digits>),
}

static KERNELS: KernelMemo<Kernel> = KernelMemo::new();

fn compiled(device: &'static ember_runtime::Device, k: Kernel) -> Result<ember_runtime::Function> {
    KERNELS.get_or_compile(device, &k, || {
        let d = dialect(device);
        let (source, name) = match k {
            Kernel::Keys(dtype) => (
                keys_source(d, dtype),
                format!("ember_sort_keys_{}", dtype.name()),
            ),
            Kernel::Count(digits) => (count_source(d, digits), count_name(digits)),
            Kernel::Scatter(digits, carry) => (
                scatter_source(d, digits, carry),
                scatter_name(digits, carry),
            ),
        };
        compile_generated(device, &source, &name, &[], Rounding::Separate)
    })
}

/// The permutation sorting each row of `a` (C-contiguous, `rows` rows): flat indices into
/// `a`, row by row, equal values in their original order.
pub fn sort_rows(a: &Array, rows: usize) -> Result<Array> {
    if !a.is_c_contiguous() {
        return Err(Error::Value("sort_rows needs a C-contiguous array".into()));
    }
    let device = a.device();
    let total = a.size();
    let n = total.checked_div(rows).unwrap_or(0);
    let idx = Array::empty(device, &[total], DType::I64)?;
    if total == 0 {
        return Ok(idx);
    }
    let dtype = a.dtype();
    let (digits, count) = key_digits(dtype);
    let key_dtype = if digits == Digits::Key64 {
        DType::U64
    } else {
        DType::U32
    };
    let mut keys: Vec<Array> = (0..count)
        .map(|_| Array::empty(device, &[total], key_dtype))
        .collect::<Result<_>>()?;
    // A complex value's class (which parts are NaN) is sorted on after both parts.
    let class = if count == 2 {
        Some(Array::empty(device, &[total], DType::U32)?)
    } else {
        None
    };
    let stream = current_stream(device);
    let total64 = (total as i64).to_le_bytes();
    let threads = 256u32;
    let keys_kernel = compiled(device, Kernel::Keys(dtype))?;
    let mut args: Vec<KernelArg<'_>> = vec![a.kernel_arg()];
    args.extend(keys.iter().map(|k| k.kernel_arg()));
    args.extend(class.iter().map(|c| c.kernel_arg()));
    args.extend([idx.kernel_arg(), KernelArg::Bytes(&total64)]);
    device.launch(
        &keys_kernel,
        [total.div_ceil(threads as usize) as u32, 1, 1],
        [threads, 1, 1],
        0,
        stream,
        &args,
    )?;

    let tiles = total.div_ceil(BLOCK * ROUNDS);
    let counts = Array::empty(device, &[256 * tiles], DType::I64)?;
    let mut idx = idx;
    let mut spare_idx = Array::empty(device, &[total], DType::I64)?;
    let mut spare_keys: Vec<Array> = (0..count)
        .map(|_| Array::empty(device, &[total], key_dtype))
        .collect::<Result<_>>()?;
    let n64 = (n as i64).to_le_bytes();
    // The imaginary parts' passes first, carrying the real parts; then the real parts'.
    let key_passes = key_bits(dtype) / 8;
    for word in 0..count {
        let carry = (word + 1 < count).then_some(digits);
        for pass in 0..key_passes {
            let shift = ((8 * pass) as i64).to_le_bytes();
            let count_kernel = compiled(device, Kernel::Count(digits))?;
            let grid = [tiles as u32, 1, 1];
            let block = [BLOCK as u32, 1, 1];
            device.launch(
                &count_kernel,
                grid,
                block,
                0,
                stream,
                &[
                    keys[word].kernel_arg(),
                    counts.kernel_arg(),
                    KernelArg::Bytes(&total64),
                    KernelArg::Bytes(&shift),
                    KernelArg::Bytes(&n64),
                ],
            )?;
            let inclusive = cumsum(&counts, None, None, None)?;
            let scatter = compiled(device, Kernel::Scatter(digits, carry))?;
            let mut args: Vec<KernelArg<'_>> = vec![keys[word].kernel_arg(), idx.kernel_arg()];
            if carry.is_some() {
                args.push(keys[word + 1].kernel_arg());
            }
            args.push(spare_keys[word].kernel_arg());
            args.push(spare_idx.kernel_arg());
            if carry.is_some() {
                args.push(spare_keys[word + 1].kernel_arg());
            }
            args.extend([
                counts.kernel_arg(),
                inclusive.kernel_arg(),
                KernelArg::Bytes(&total64),
                KernelArg::Bytes(&shift),
                KernelArg::Bytes(&n64),
            ]);
            device.launch(&scatter, grid, block, 0, stream, &args)?;
            std::mem::swap(&mut keys[word], &mut spare_keys[word]);
            if carry.is_some() {
                std::mem::swap(&mut keys[word + 1], &mut spare_keys[word + 1]);
            }
            std::mem::swap(&mut idx, &mut spare_idx);
        }
    }
    if let Some(class) = &class {
        let shift = 0i64.to_le_bytes();
        let grid = [tiles as u32, 1, 1];
        let block = [BLOCK as u32, 1, 1];
        let count_kernel = compiled(device, Kernel::Count(Digits::Lookup))?;
        device.launch(
            &count_kernel,
            grid,
            block,
            0,
            stream,
            &[
                idx.kernel_arg(),
                class.kernel_arg(),
                counts.kernel_arg(),
                KernelArg::Bytes(&total64),
                KernelArg::Bytes(&shift),
                KernelArg::Bytes(&n64),
            ],
        )?;
        let inclusive = cumsum(&counts, None, None, None)?;
        let scatter = compiled(device, Kernel::Scatter(Digits::Lookup, None))?;
        device.launch(
            &scatter,
            grid,
            block,
            0,
            stream,
            &[
                idx.kernel_arg(),
                class.kernel_arg(),
                spare_idx.kernel_arg(),
                counts.kernel_arg(),
                inclusive.kernel_arg(),
                KernelArg::Bytes(&total64),
                KernelArg::Bytes(&shift),
                KernelArg::Bytes(&n64),
            ],
        )?;
        std::mem::swap(&mut idx, &mut spare_idx);
    }
    // Then the rows: stable passes over the row number keep each row's order.
    let row_bits = usize::BITS as usize - (rows.max(1) - 1).leading_zeros() as usize;
    for pass in 0..row_bits.div_ceil(8) {
        let shift = ((8 * pass) as i64).to_le_bytes();
        let grid = [tiles as u32, 1, 1];
        let block = [BLOCK as u32, 1, 1];
        let count_kernel = compiled(device, Kernel::Count(Digits::Row))?;
        device.launch(
            &count_kernel,
            grid,
            block,
            0,
            stream,
            &[
                idx.kernel_arg(),
                counts.kernel_arg(),
                KernelArg::Bytes(&total64),
                KernelArg::Bytes(&shift),
                KernelArg::Bytes(&n64),
            ],
        )?;
        let inclusive = cumsum(&counts, None, None, None)?;
        let scatter = compiled(device, Kernel::Scatter(Digits::Row, None))?;
        device.launch(
            &scatter,
            grid,
            block,
            0,
            stream,
            &[
                idx.kernel_arg(),
                spare_idx.kernel_arg(),
                counts.kernel_arg(),
                inclusive.kernel_arg(),
                KernelArg::Bytes(&total64),
                KernelArg::Bytes(&shift),
                KernelArg::Bytes(&n64),
            ],
        )?;
        std::mem::swap(&mut idx, &mut spare_idx);
    }
    Ok(idx)
}
