//! Stable sorting of the rows of a C-contiguous `(m, n)` array on the device: the permutation
//! that sorts each row, as flat indices (see `ember_codegen::sort` for the radix passes). Sorted
//! values, `argsort`'s indices and the searches are made from it by the callers.

pub mod block_rows;
pub mod onesweep;

use ember_codegen::sort::{
    count_name, count_source, key_bits, key_digits, keys_name, keys_source, scatter_name,
    scatter_source, Digits, Payload, BLOCK, CPU_TILE, ROUNDS,
};
use ember_core::dtype::Kind;
use ember_core::{DType, Error, Result};
use ember_runtime::{current_stream, KernelArg};

use crate::array::Array;
use crate::reduction::cumsum;
use ember_kernel::{compile_generated, dialect, KernelMemo, Rounding};

#[derive(Clone, PartialEq, Eq, Hash)]
enum Kernel {
    /// The keys of a dtype, and the flat indices if asked.
    Keys(DType, bool),
    /// Digits, whether tuned for a CPU device.
    Count(Digits, bool),
    /// Digits, a carried second key, the payload, whether tuned for a CPU device.
    Scatter(Digits, Option<Digits>, Payload, bool),
}

static KERNELS: KernelMemo<Kernel> = KernelMemo::new();

fn compiled(device: &'static ember_runtime::Device, k: Kernel) -> Result<ember_runtime::Function> {
    KERNELS.get_or_compile(device, &k, || {
        let d = dialect(device);
        let (source, name) = match k {
            Kernel::Keys(dtype, index) => (keys_source(d, dtype, index), keys_name(dtype, index)),
            Kernel::Count(digits, cpu) => (count_source(d, digits, cpu), count_name(digits, cpu)),
            Kernel::Scatter(digits, carry, payload, cpu) => (
                scatter_source(d, digits, carry, payload, cpu),
                scatter_name(digits, carry, payload, cpu),
            ),
        };
        compile_generated(device, &source, &name, &[], Rounding::Separate)
    })
}

/// The arrays one radix pass reads and writes. A pass moves the flat indices `idx` (and the
/// keys, unless its digits come from the index, and a carried second key) to `spare`.
struct Pass<'a> {
    digits: Digits,
    /// What travels with the keys (the arrays given to `run` hold it).
    payload: Payload,
    key: Option<(&'a Array, &'a Array)>,
    carry: Option<(&'a Array, &'a Array)>,
    lookup: Option<&'a Array>,
}

/// The sizes every pass of one sort shares, and its tiles' digit counts.
struct Plan {
    device: &'static ember_runtime::Device,
    /// A CPU device: a work-item a tile of `CPU_TILE` (else work-groups of `BLOCK`).
    cpu: bool,
    tiles: usize,
    counts: Array,
    total: [u8; 8],
    row_length: [u8; 8],
}

impl Plan {
    /// The passes over `total` elements in rows of `row_length`.
    fn new(
        device: &'static ember_runtime::Device,
        total: usize,
        row_length: usize,
    ) -> Result<Plan> {
        let cpu = device.info().is_cpu;
        let tiles = total.div_ceil(if cpu { CPU_TILE } else { BLOCK * ROUNDS });
        Ok(Plan {
            device,
            cpu,
            tiles,
            counts: Array::empty(device, &[256 * tiles], DType::I64)?,
            total: (total as i64).to_le_bytes(),
            row_length: (row_length as i64).to_le_bytes(),
        })
    }

    /// The keys of `a` written into `outputs` (the key words, the complex class words and,
    /// for `Kernel::Keys(_, true)`, the flat indices), a thread an element.
    fn write_keys(&self, a: &Array, index: bool, outputs: &[&Array]) -> Result<()> {
        let function = compiled(self.device, Kernel::Keys(a.dtype(), index))?;
        let mut args: Vec<KernelArg<'_>> = vec![a.kernel_arg()];
        args.extend(outputs.iter().map(|o| o.kernel_arg()));
        args.push(KernelArg::Bytes(&self.total));
        let threads = 256u32;
        let total = i64::from_le_bytes(self.total) as usize;
        let arrays = outputs.iter().map(|&o| o as &dyn ember_kernel::Operand);
        ember_kernel::note_bytes(std::iter::once(a as &dyn ember_kernel::Operand).chain(arrays));
        self.device.launch(
            &function,
            [total.div_ceil(threads as usize) as u32, 1, 1],
            [threads, 1, 1],
            0,
            current_stream(self.device),
            &args,
        )
    }

    /// One stable pass over the digit `shift` bits up: count each tile's digits, scan the
    /// counts, move each element to its place (from `idx` to `idx_out`). False where the
    /// pass moved nothing: every element has the same digit (then nothing is written).
    fn run(&self, pass: &Pass, shift: usize, idx: &Array, idx_out: &Array) -> Result<bool> {
        let device = self.device;
        let stream = current_stream(device);
        let shift = (shift as i64).to_le_bytes();
        let grid = [self.tiles as u32, 1, 1];
        let block = [if self.cpu { 1 } else { BLOCK as u32 }, 1, 1];
        let sizes = [
            KernelArg::Bytes(&self.total),
            KernelArg::Bytes(&shift),
            KernelArg::Bytes(&self.row_length),
        ];
        // The digits' source: the key, or the flat index (and the looked-up word).
        let mut source: Vec<KernelArg<'_>> = match pass.key {
            Some((key, _)) => vec![key.kernel_arg()],
            None => vec![idx.kernel_arg()],
        };
        source.extend(pass.lookup.map(Array::kernel_arg));
        let count = compiled(device, Kernel::Count(pass.digits, self.cpu))?;
        let mut args = source.clone();
        args.push(self.counts.kernel_arg());
        args.extend(sizes.iter().cloned());
        device.launch(&count, grid, block, 0, stream, &args)?;
        let inclusive = cumsum(&self.counts, None, None, None)?;
        if self.one_digit(&inclusive)? {
            return Ok(false);
        }
        let carried = pass.carry.map(|_| pass.digits);
        let scatter = compiled(
            device,
            Kernel::Scatter(pass.digits, carried, pass.payload, self.cpu),
        )?;
        let mut args: Vec<KernelArg<'_>> = Vec::new();
        if let Some((key, _)) = pass.key {
            args.push(key.kernel_arg());
        }
        args.push(idx.kernel_arg());
        args.extend(pass.lookup.map(Array::kernel_arg));
        args.extend(pass.carry.map(|(c, _)| c.kernel_arg()));
        if let Some((_, key_out)) = pass.key {
            args.push(key_out.kernel_arg());
        }
        args.push(idx_out.kernel_arg());
        args.extend(pass.carry.map(|(_, c)| c.kernel_arg()));
        args.extend([self.counts.kernel_arg(), inclusive.kernel_arg()]);
        args.extend(sizes.iter().cloned());
        device.launch(&scatter, grid, block, 0, stream, &args)?;
        Ok(true)
    }

    /// Whether every element has the same digit (a digit's count is the total), read from
    /// the scanned counts: each digit's last tile's inclusive count. Only for large sorts:
    /// the read waits for the device.
    fn one_digit(&self, inclusive: &Array) -> Result<bool> {
        let total = i64::from_le_bytes(self.total);
        if total < 1 << 16 {
            return Ok(false);
        }
        let ends = inclusive.view(
            &[256],
            &[8 * self.tiles as isize],
            inclusive.offset() + 8 * (self.tiles - 1),
            DType::I64,
        )?;
        let mut host = vec![0u8; 256 * 8];
        ends.to_host(&mut host)?;
        let mut before = 0;
        for end in host.chunks_exact(8) {
            let end = i64::from_le_bytes(end.try_into().unwrap());
            if end - before == total {
                return Ok(true);
            }
            before = end;
        }
        Ok(false)
    }
}

/// The permutation sorting each row of `a` (C-contiguous, `rows` rows): flat indices into
/// `a`, row by row, equal values in their original order.
pub fn sort_rows(a: &Array, rows: usize) -> Result<Array> {
    a.dtype().numeric("sorting")?;
    if !a.is_c_contiguous() {
        return Err(Error::Value("sort_rows needs a C-contiguous array".into()));
    }
    let device = a.device();
    let total = a.size();
    if rows == 1 && onesweep::planned(device, a.dtype(), total) {
        return onesweep::sort(a, true);
    }
    let n = total.checked_div(rows).unwrap_or(0);
    let mut idx = Array::empty(device, &[total], DType::I64)?;
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
    let new_keys = || -> Result<Vec<Array>> {
        (0..count)
            .map(|_| Array::empty(device, &[total], key_dtype))
            .collect()
    };
    let (mut keys, mut spare_keys) = (new_keys()?, new_keys()?);
    // A complex value's class (which parts are NaN) is sorted on after both parts.
    let class = if count == 2 {
        Some(Array::empty(device, &[total], DType::U32)?)
    } else {
        None
    };
    let plan = Plan::new(device, total, n)?;
    let mut outputs: Vec<&Array> = keys.iter().collect();
    outputs.extend(class.iter());
    outputs.push(&idx);
    plan.write_keys(a, true, &outputs)?;
    let mut spare_idx = Array::empty(device, &[total], DType::I64)?;
    // The imaginary parts' passes first, carrying the real parts; then the real parts'.
    for word in 0..count {
        for pass in 0..key_bits(dtype) / 8 {
            let carrying = word + 1 < count;
            let step = Pass {
                digits,
                payload: Payload::Index,
                key: Some((&keys[word], &spare_keys[word])),
                carry: carrying.then(|| (&keys[word + 1], &spare_keys[word + 1])),
                lookup: None,
            };
            if !plan.run(&step, 8 * pass, &idx, &spare_idx)? {
                continue;
            }
            std::mem::swap(&mut keys[word], &mut spare_keys[word]);
            if carrying {
                std::mem::swap(&mut keys[word + 1], &mut spare_keys[word + 1]);
            }
            std::mem::swap(&mut idx, &mut spare_idx);
        }
    }
    if let Some(class) = &class {
        let step = Pass {
            digits: Digits::Lookup,
            payload: Payload::Index,
            key: None,
            carry: None,
            lookup: Some(class),
        };
        if plan.run(&step, 0, &idx, &spare_idx)? {
            std::mem::swap(&mut idx, &mut spare_idx);
        }
    }
    // Then the rows: stable passes over the row number keep each row's order.
    let row_bits = usize::BITS as usize - (rows.max(1) - 1).leading_zeros() as usize;
    for pass in 0..row_bits.div_ceil(8) {
        let step = Pass {
            digits: Digits::Row,
            payload: Payload::Index,
            key: None,
            carry: None,
            lookup: None,
        };
        if plan.run(&step, 8 * pass, &idx, &spare_idx)? {
            std::mem::swap(&mut idx, &mut spare_idx);
        }
    }
    Ok(idx)
}

/// The elements of the C-contiguous `a` sorted as one row, flat (NumPy's order, stable),
/// with no permutation to apply after: on CUDA by the onesweep sort (every real dtype), else
/// for real dtypes of 4 or 8 bytes with each key carrying its value's bits. `None` for any
/// other dtype (sort by `sort_rows`).
pub fn sort_values(a: &Array) -> Result<Option<Array>> {
    let dtype = a.dtype();
    if a.is_c_contiguous() && onesweep::planned(a.device(), dtype, a.size()) {
        return onesweep::sort(a, false).map(Some);
    }
    let (digits, count) = key_digits(dtype);
    let payload = match dtype.itemsize() {
        4 => Payload::Bits32,
        8 => Payload::Bits64,
        _ => return Ok(None),
    };
    if count != 1 || !matches!(dtype.kind(), Kind::Int | Kind::UInt | Kind::Float) {
        return Ok(None);
    }
    if !a.is_c_contiguous() {
        return Err(Error::Value(
            "sort_values needs a C-contiguous array".into(),
        ));
    }
    let device = a.device();
    let total = a.size();
    let bits = if payload == Payload::Bits32 {
        DType::U32
    } else {
        DType::U64
    };
    if total == 0 {
        return Ok(Some(a.copy()?));
    }
    let key_dtype = if digits == Digits::Key64 {
        DType::U64
    } else {
        DType::U32
    };
    let (mut key, mut spare_key) = (
        Array::empty(device, &[total], key_dtype)?,
        Array::empty(device, &[total], key_dtype)?,
    );
    let plan = Plan::new(device, total, total)?;
    plan.write_keys(a, false, &[&key])?;
    // The values' bits: read in place by the first pass, then moved between two buffers.
    let mut values = a.view(&[total], &[dtype.itemsize() as isize], a.offset(), bits)?;
    let mut spare = Array::empty(device, &[total], bits)?;
    let mut moved = false;
    for pass in 0..key_bits(dtype) / 8 {
        let step = Pass {
            digits,
            payload,
            key: Some((&key, &spare_key)),
            carry: None,
            lookup: None,
        };
        if !plan.run(&step, 8 * pass, &values, &spare)? {
            continue;
        }
        std::mem::swap(&mut key, &mut spare_key);
        std::mem::swap(&mut values, &mut spare);
        if !moved {
            // The input is only read: the next pass writes a buffer of its own.
            moved = true;
            spare = Array::empty(device, &[total], bits)?;
        }
    }
    if !moved {
        // Every pass found one digit: the input is in order already (the answer is a copy).
        values = values.copy()?;
    }
    let size = dtype.itemsize() as isize;
    Ok(Some(values.view(
        &[total],
        &[size],
        values.offset(),
        dtype,
    )?))
}
