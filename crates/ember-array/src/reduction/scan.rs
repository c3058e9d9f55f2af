//! `cumsum` and `cumprod`: scans along one axis (of the flattened array when no axis is
//! given).
//!
//! A line along the contiguous axis is cut into tiles, a block scanning each and looking back
//! at the totals its predecessors published (the input is read once); lines across it are
//! scanned by one thread each, neighbours side by side. Long lines across it are split: a
//! reduction first writes each split's total, then every split scans from the totals before
//! it.

use ember_codegen::reduce::{Combine, Layout, Map, Post, ReduceKernel, BLOCK, COLUMN_LANES};
use ember_codegen::scan::{ScanKernel, SCAN_ITEMS, STRIPED_BLOCK};
use ember_codegen::user_kernel::vector_loadable;
use ember_core::{DType, Error, Result, Scalar};
use ember_kernel::dialect;

use super::plan::{capacity, collapse, for_cpu, inner_stride, launch_scan, Geometry, Pass, Sizing};
use super::{deliver, reduced_axes, result_types, target, Reduction};
use crate::array::Array;
use crate::creation::fill;

/// NumPy's `cumsum(a, axis=axis, dtype=dtype, out=out)`.
pub fn cumsum(
    a: &Array,
    axis: Option<isize>,
    dtype: Option<DType>,
    out: Option<&Array>,
) -> Result<Array> {
    cumulate(Reduction::Sum, a, axis, dtype, out)
}

/// The running sums (`op` is `Sum`: NumPy's `cumsum`) or products (`Prod`: `cumprod`) along
/// `axis` (of the flattened array when `None`), in the dtypes NumPy's `sum`/`prod` use.
pub fn cumulate(
    op: Reduction,
    a: &Array,
    axis: Option<isize>,
    dtype: Option<DType>,
    out: Option<&Array>,
) -> Result<Array> {
    let combine = match op {
        Reduction::Sum => Combine::Add,
        Reduction::Prod => Combine::Multiply,
        other => {
            return Err(Error::Value(format!(
                "no running {other:?}: the scans are of sums and products"
            )))
        }
    };
    let types = result_types(op, a.dtype(), dtype, out.map(Array::dtype))?;
    // No axis, or a 0-d array: the flattened array (C order).
    let flat = axis.is_none() || a.ndim() == 0;
    if let (true, Some(k)) = (a.ndim() == 0, axis) {
        reduced_axes(Some(&[k]), 0)?;
    }
    let (src, axis) = if flat {
        let c = if a.is_c_contiguous() {
            a.clone()
        } else {
            a.copy()?
        };
        let size = c.size();
        let v = c.view(
            &[size],
            &[c.dtype().itemsize() as isize],
            c.offset(),
            c.dtype(),
        )?;
        (v, 0)
    } else {
        let k = reduced_axes(Some(&[axis.unwrap_or(0)]), a.ndim())?;
        (a.clone(), k.first().copied().unwrap_or(0))
    };
    let shape = src.shape().to_vec();
    if let Some(o) = out {
        if o.shape() != shape.as_slice() {
            return Err(Error::Value(
                "provided out is the wrong size for the accumulation.".into(),
            ));
        }
    }
    let result = target(&src, out, &shape, types.output)?;
    let n = shape[axis];
    let stride = src.strides()[axis];
    let kept: Vec<(usize, isize)> = (0..shape.len())
        .filter(|&d| d != axis)
        .map(|d| (shape[d], src.strides()[d]))
        .collect();
    let kept = collapse(&kept);
    let m: usize = kept.iter().map(|k| k.0).product();
    if m == 0 || n == 0 {
        return deliver(result, out);
    }
    let inner: usize = shape[axis + 1..].iter().product();
    let layout = if m == 1 || stride.abs() <= inner_stride(&kept) {
        Layout::Rows
    } else {
        Layout::Columns
    };
    let device = src.device();
    let kernel = ScanKernel {
        combine,
        input: src.dtype(),
        acc: types.acc,
        output: types.output,
        layout,
        split: false,
        out_ndim: kept.len(),
        cpu: for_cpu(device),
        items: SCAN_ITEMS,
        striped: false,
        vector_in: false,
        vector_out: false,
    };
    let (lanes, max_groups) = capacity(device);
    let launch = |kernel: &ScanKernel, third: usize, sizing: Sizing, status: &[&Array]| {
        launch_scan(
            kernel,
            &src,
            src.offset(),
            &kept,
            stride,
            n,
            third,
            inner,
            sizing,
            status,
            &result,
        )
    };
    if layout == Layout::Rows {
        let kernel = rows_kernel(kernel, &src, &kept, stride, n, inner, &result);
        let tile = kernel.threads() * kernel.items;
        let per_line = n.div_ceil(tile);
        let tiles = m * per_line;
        // Tiles of one line publish their totals for the next: a ticket counter and each
        // tile's status, all zero.
        let words = if per_line > 1 {
            1 + tiles * 2 * kernel.words()
        } else {
            1
        };
        let status = Array::empty(device, &[words], DType::U64)?;
        if per_line > 1 {
            fill(&status, Scalar::UInt(0))?;
        }
        // A striped scan takes a tile a block, in block order; the others loop over tiles.
        let groups = if kernel.striped {
            tiles
        } else {
            tiles.clamp(1, max_groups)
        };
        let sizing = Sizing {
            tpr: kernel.threads(),
            splits: 1,
            chunk: tile,
            groups,
        };
        launch(&kernel, per_line, sizing, &[&status])?;
        return deliver(result, out);
    }
    let wanted = (lanes / m).min(n / 64);
    let splits = wanted.clamp(1, 65_535);
    let chunk = n.div_ceil(splits).next_multiple_of(4);
    let splits = n.div_ceil(chunk);
    let sizing = Sizing {
        tpr: BLOCK,
        splits,
        chunk,
        groups: m.div_ceil(BLOCK).clamp(1, max_groups),
    };
    if splits > 1 {
        let partials = split_totals(combine, &src, &kept, stride, n, types.acc, sizing)?;
        let kernel = ScanKernel {
            split: true,
            ..kernel
        };
        launch(&kernel, chunk, sizing, &[&partials])?;
    } else {
        launch(&kernel, chunk, sizing, &[])?;
    }
    deliver(result, out)
}

/// The kernel scanning lines along the contiguous axis: striped where the dialect has warp
/// operations (a GPU's CUDA), with vector loads and stores where the lines allow; elsewhere
/// a thread's consecutive items. Tiles hold 128 bytes of accumulators a thread striped, 64
/// otherwise (each measured best on an H100); CPUs, and short lines, take shorter tiles.
fn rows_kernel(
    kernel: ScanKernel,
    src: &Array,
    kept: &[(usize, isize)],
    stride: isize,
    n: usize,
    inner: usize,
    result: &Array,
) -> ScanKernel {
    let acc = kernel.acc.itemsize();
    let striped = !kernel.cpu && dialect(src.device()).table().warp.is_some();
    let (threads, mut items) = match (kernel.cpu, striped) {
        (true, _) => (BLOCK, 4),
        (false, true) => (STRIPED_BLOCK, (128 / acc).clamp(4, 32)),
        (false, false) => (BLOCK, (64 / acc).clamp(4, SCAN_ITEMS)),
    };
    while items > 4 && n <= threads * items / 2 {
        items /= 2;
    }
    if !striped {
        return ScanKernel { items, ..kernel };
    }
    // Every line's start 16-byte aligned, its elements contiguous.
    let lines_aligned = |a: &Array, line_strides: &[isize]| {
        vector_loadable(a.dtype()) && a.is_aligned(16) && line_strides.iter().all(|s| s % 16 == 0)
    };
    let in_strides: Vec<isize> = kept.iter().filter(|k| k.0 > 1).map(|k| k.1).collect();
    let vector_in = stride == src.dtype().itemsize() as isize && lines_aligned(src, &in_strides);
    let lines = kept.iter().map(|k| k.0).product::<usize>();
    let out_lines: Vec<isize> = match lines {
        1 => vec![],
        _ => vec![(n * result.dtype().itemsize()) as isize],
    };
    let vector_out = inner == 1 && lines_aligned(result, &out_lines);
    ScanKernel {
        items,
        striped,
        vector_in,
        vector_out,
        ..kernel
    }
}

/// The total (by `combine`) of each split of each line scanned across the contiguous axis,
/// at `split * m + line`.
#[allow(clippy::too_many_arguments)]
fn split_totals(
    combine: Combine,
    src: &Array,
    kept: &[(usize, isize)],
    stride: isize,
    n: usize,
    acc: DType,
    scan: Sizing,
) -> Result<Array> {
    let m: usize = kept.iter().map(|k| k.0).product();
    let totals = Array::empty(src.device(), &[scan.splits * m], acc)?;
    let geometry = Geometry {
        offset: src.offset(),
        kept: kept.to_vec(),
        reduced: vec![(n, stride)],
    };
    let pass = Pass {
        combine,
        input: src,
        geometry: &geometry,
        acc,
        map: Map::Value,
        post: Post::Keep,
        divisor: 1.0,
        mean: None,
    };
    let kernel = ReduceKernel {
        combine,
        input: src.dtype(),
        acc,
        output: acc,
        map: Map::Value,
        post: Post::Keep,
        partial: true,
        layout: Layout::Columns,
        vector: false,
        out_ndim: kept.len(),
        red_ndim: 1,
        cpu: for_cpu(src.device()),
    };
    // Same splits and chunks as the scan; one block per 32 lines.
    let groups = m.div_ceil(BLOCK / COLUMN_LANES);
    let sizing = Sizing {
        tpr: BLOCK,
        groups: groups.clamp(1, scan.groups.max(capacity(src.device()).1)),
        ..scan
    };
    pass.launch(&kernel, sizing, [&totals, &totals], None)?;
    Ok(totals)
}
