//! How a reduction runs: which elements each output takes (axes grouped and collapsed), how
//! threads map onto them (by layout), how the work splits over the device, and the launches.

use ember_codegen::reduce::{
    vector_loadable, Combine, Layout, Map, Post, ReduceKernel, BLOCK, COLUMN_LANES, CPU_COLUMNS,
    VECTOR,
};
use ember_codegen::scan::ScanKernel;
use ember_core::shape::collapse_axes;
use ember_core::{DType, Result};
use ember_runtime::{current_stream, Device, Function, KernelArg};

use crate::array::Array;
use ember_kernel::{compile_generated, dialect, launch_generated, KernelMemo, Rounding};

/// Which elements feed which output: output `i` starts at byte `offset + kept(i)` of the
/// input's buffer, its elements lie `reduced(j)` further. Axes are collapsed where they can
/// be, so `kept` and `reduced` have at least one (extent, byte stride) each.
#[derive(Clone, Debug)]
pub(crate) struct Geometry {
    pub offset: usize,
    pub kept: Vec<(usize, isize)>,
    pub reduced: Vec<(usize, isize)>,
}

impl Geometry {
    /// Outputs.
    pub fn m(&self) -> usize {
        self.kept.iter().map(|a| a.0).product()
    }

    /// Elements per output.
    pub fn n(&self) -> usize {
        self.reduced.iter().map(|a| a.0).product()
    }

    /// The geometry of reducing `axes` (sorted, distinct) of `a`. When `reorder`, the reduced
    /// axes may be walked in any order and direction (everything but arg reductions): they are
    /// turned to positive strides and sorted outermost first, so that more of them collapse.
    pub fn of(a: &Array, axes: &[usize], reorder: bool) -> Geometry {
        let (shape, strides) = (a.shape(), a.strides());
        let mut offset = a.offset() as isize;
        let kept: Vec<(usize, isize)> = (0..shape.len())
            .filter(|d| !axes.contains(d))
            .map(|d| (shape[d], strides[d]))
            .collect();
        let mut reduced: Vec<(usize, isize)> =
            axes.iter().map(|&d| (shape[d], strides[d])).collect();
        if reorder && reduced.iter().all(|r| r.0 > 0) {
            for r in reduced.iter_mut() {
                if r.1 < 0 {
                    offset += (r.0 as isize - 1) * r.1;
                    r.1 = -r.1;
                }
            }
            reduced.sort_by_key(|r| std::cmp::Reverse(r.1));
        }
        Geometry {
            offset: offset as usize,
            kept: collapse(&kept),
            reduced: collapse(&reduced),
        }
    }
}

/// Axes a kernel unravels an index over when they do not collapse into one: fewer are padded
/// with leading axes of extent 1, so that one kernel serves 2-d and 3-d cases alike.
pub(crate) const GENERAL_NDIM: usize = 3;

/// Merges adjacent axes (`collapse_axes`); no axes become one of extent 1, and 2 to
/// [`GENERAL_NDIM`] axes are padded to that many.
pub(crate) fn collapse(axes: &[(usize, isize)]) -> Vec<(usize, isize)> {
    let shape: Vec<usize> = axes.iter().map(|a| a.0).collect();
    let strides: Vec<isize> = axes.iter().map(|a| a.1).collect();
    let (shape, strides) = collapse_axes(&shape, &[strides]);
    let mut out: Vec<(usize, isize)> = shape.into_iter().zip(strides[0].iter().copied()).collect();
    match out.len() {
        0 => vec![(1, 0)],
        1 => out,
        k => {
            let pad = GENERAL_NDIM.saturating_sub(k);
            out.splice(0..0, std::iter::repeat_n((1, 0), pad));
            out
        }
    }
}

/// The smallest stride magnitude among axes longer than 1 (`isize::MAX` when none).
pub(crate) fn inner_stride(axes: &[(usize, isize)]) -> isize {
    axes.iter()
        .filter(|a| a.0 > 1)
        .map(|a| a.1.abs())
        .min()
        .unwrap_or(isize::MAX)
}

/// Work-items in a group of the CPU form of [`Layout::Columns`] (PoCL runs a group's items
/// one after another: any small count does).
const CPU_COLUMN_GROUP: usize = 4;

/// Threads in a block of `kernel`'s launch.
pub(crate) fn block_of(kernel: &ReduceKernel) -> usize {
    match (kernel.cpu, kernel.layout) {
        (true, Layout::Columns) => CPU_COLUMN_GROUP,
        _ => BLOCK,
    }
}

/// Sizing of the CPU form of [`Layout::Columns`]: a work-item per [`CPU_COLUMNS`] outputs,
/// and splits of the reduced range until there are a few work-items per core and none walks
/// more than 512 elements (measured on 2 cores for a 4,096 x 4,096 float32 sum over axis 0:
/// 3.9 ms unsplit, 2.8 ms in 8 splits; NumPy 3.5 ms). Below [`CPU_SPLIT_ELEMENTS`] one pass
/// does it all: a second launch costs more than the splits save.
fn size_columns_cpu(device: &Device, m: usize, n: usize, split: bool) -> Sizing {
    let items = m.div_ceil(CPU_COLUMNS).max(1);
    let (mut splits, mut chunk) = (1, n.max(1));
    if split && m * n >= CPU_SPLIT_ELEMENTS {
        let wanted = (16 * device.info().multiprocessors.max(1))
            .div_ceil(items)
            .max(n.div_ceil(512))
            .min(n / 64);
        (splits, chunk) = chunked(n, wanted);
    }
    Sizing {
        tpr: 1,
        splits,
        chunk,
        groups: items.div_ceil(CPU_COLUMN_GROUP),
    }
}

/// Elements from which a CPU column reduction splits: a second pass costs a launch and a wait
/// on PoCL, some 40 µs, about what 2 cores stream of 2^20 float32 elements (mean over axis 0
/// of 1,024 x 1,024 float32: 0.12 ms in one pass, 0.10 ms split plus the second launch).
const CPU_SPLIT_ELEMENTS: usize = 1 << 21;

/// Threads the device keeps busy at once, and the most blocks worth launching.
pub(crate) fn capacity(device: &Device) -> (usize, usize) {
    let info = device.info();
    let units = info.multiprocessors.max(1);
    let lanes = if info.is_cpu {
        units * 4 * BLOCK
    } else {
        units * 2048
    };
    (lanes, (4 * lanes / BLOCK).max(1))
}

/// Thread capacities' worth of work a split reduction launches on a GPU.
const SPLIT_WAVES: usize = 16;

/// Whether kernels for `device` are tuned for a CPU ([`ReduceKernel::cpu`]).
pub(crate) fn for_cpu(device: &Device) -> bool {
    device.info().is_cpu
}

/// How a kernel is launched: threads per output (rows), splits of the reduced range and the
/// elements each takes, and blocks along the outputs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sizing {
    pub tpr: usize,
    pub splits: usize,
    pub chunk: usize,
    pub groups: usize,
}

fn floor_pow2(x: usize) -> usize {
    if x <= 1 {
        1
    } else {
        1 << (usize::BITS - 1 - x.leading_zeros())
    }
}

/// Elements a chunk of a split is a multiple of: 1 KiB of float32, so that each chunk of a
/// contiguous row starts on a cache-line boundary (misaligned starts cost every warp's loads
/// an extra line).
const CHUNK_QUANTUM: usize = 64 * VECTOR;

/// Splits `n` elements into at most `splits` chunks (multiples of [`CHUNK_QUANTUM`]).
fn chunked(n: usize, splits: usize) -> (usize, usize) {
    let splits = splits.clamp(1, 65_535);
    let chunk = n
        .div_ceil(splits)
        .next_multiple_of(CHUNK_QUANTUM)
        .max(CHUNK_QUANTUM);
    (n.div_ceil(chunk).max(1), chunk)
}

/// Sizing of [`Layout::Rows`]: enough threads per output to fill the device (at least a
/// 128-byte segment per load step, no more than the elements), then splits when the outputs
/// are too few.
pub(crate) fn size_rows(device: &Device, m: usize, n: usize, vector: bool, split: bool) -> Sizing {
    let (lanes, max_groups) = capacity(device);
    let v = if vector { VECTOR } else { 1 };
    let useful = n.div_ceil(v).next_power_of_two().clamp(1, BLOCK);
    let least = (if vector { 8 } else { 32 }).min(useful);
    let tpr = floor_pow2(lanes / m.max(1)).clamp(least, useful);
    let (mut splits, mut chunk) = (1, n.max(1));
    // Splitting costs a second pass: only worth it while less than half the device works.
    if split && 2 * m * tpr <= lanes {
        // A GPU holds fewer of these blocks at once than its thread capacity (registers
        // limit them): several waves keep the idle tail of the last one short (measured on
        // an H100 for a float32 sum of 2^28: 2,740 GB/s at one wave's worth of splits,
        // 2,910-2,980 at two to eight, 3,005-3,025 at twelve to thirty-two).
        let waves = if for_cpu(device) { 1 } else { SPLIT_WAVES };
        let wanted = (waves * lanes).div_ceil(m * tpr).min(n / (tpr * v * 32));
        (splits, chunk) = chunked(n, wanted);
    }
    let groups = m.div_ceil(BLOCK / tpr).clamp(1, max_groups);
    Sizing {
        tpr,
        splits,
        chunk,
        groups,
    }
}

/// Sizing of [`Layout::Columns`]: blocks along the outputs, then splits of the elements when
/// those blocks are too few to fill the device.
pub(crate) fn size_columns(
    device: &Device,
    m: usize,
    n: usize,
    vector: bool,
    split: bool,
) -> Sizing {
    if for_cpu(device) {
        return size_columns_cpu(device, m, n, split);
    }
    let (lanes, max_groups) = capacity(device);
    let v = if vector { VECTOR } else { 1 };
    let blocks = m.div_ceil(BLOCK / COLUMN_LANES * v).max(1);
    let (mut splits, mut chunk) = (1, n.max(1));
    if split && 2 * blocks * BLOCK <= lanes {
        let wanted = lanes.div_ceil(blocks * BLOCK).min(n / (COLUMN_LANES * 16));
        (splits, chunk) = chunked(n, wanted);
    }
    Sizing {
        tpr: 1,
        splits,
        chunk,
        groups: blocks.min(max_groups),
    }
}

/// What a reduction kernel is compiled for.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Spec {
    Reduce(ReduceKernel),
    Scan(ScanKernel),
}

fn compiled(device: &'static Device, spec: Spec) -> Result<Function> {
    static MEMO: KernelMemo<Spec> = KernelMemo::new();
    MEMO.get_or_compile(device, &spec, || {
        let d = dialect(device);
        let (source, name) = match &spec {
            Spec::Reduce(k) => (k.source(d), k.name()),
            Spec::Scan(k) => (k.source(d), k.name()),
        };
        compile_generated(device, &source, &name, &[], Rounding::Separate)
    })
}

/// A buffer argument at a byte offset.
fn buffer_arg(a: &Array, offset: usize) -> KernelArg<'static> {
    a.buffer().arg(offset)
}

fn int_bytes(v: usize) -> [u8; 8] {
    (v as i64).to_le_bytes()
}

/// One pass of a reduction: what it computes and from which input.
pub(crate) struct Pass<'a> {
    pub combine: Combine,
    pub input: &'a Array,
    pub geometry: &'a Geometry,
    pub acc: DType,
    pub map: Map,
    pub post: Post,
    /// The divisor of [`Post::Divide`].
    pub divisor: f64,
    /// Per-output means (for [`Map::CenteredSquare`]).
    pub mean: Option<&'a Array>,
}

impl Pass<'_> {
    fn kernel(&self, output: DType, layout: Layout, vector: bool, partial: bool) -> ReduceKernel {
        ReduceKernel {
            combine: self.combine,
            input: self.input.dtype(),
            acc: self.acc,
            output,
            map: self.map,
            post: self.post,
            partial,
            layout,
            vector,
            out_ndim: self.geometry.kept.len(),
            red_ndim: self.geometry.reduced.len(),
            cpu: for_cpu(self.input.device()),
        }
    }

    /// The layout and whether vector loads apply.
    fn layout(&self) -> (Layout, bool) {
        let g = self.geometry;
        let dtype = self.input.dtype();
        let itemsize = dtype.itemsize() as isize;
        let rows = g.m() == 1 || inner_stride(&g.reduced) <= inner_stride(&g.kept);
        // CUDA's vector loads need 16-byte alignment; OpenCL's vload4 does not.
        let device = self.input.device();
        let address = self.input.buffer().layout_address() + g.offset as u64;
        let aligned = |x: isize| !dialect(device).vector_load_aligned(dtype) || x % 16 == 0;
        let loadable =
            vector_loadable(dtype) && self.map != Map::Partial && aligned(address as isize);
        if rows {
            let vector = loadable
                && g.reduced.len() == 1
                && g.reduced[0].1 == itemsize
                && g.kept.iter().all(|k| k.0 == 1 || aligned(k.1));
            (Layout::Rows, vector)
        } else {
            let vector = loadable
                && g.kept.len() == 1
                && g.kept[0].1 == itemsize
                && g.reduced.len() == 1
                && aligned(g.reduced[0].1);
            (Layout::Columns, vector)
        }
    }

    /// Runs the pass, writing output `i` (of dtype `out.dtype()`, or int64 indices for arg
    /// reductions) at element `i` of the C-contiguous `out`.
    pub fn run(&self, out: &Array) -> Result<()> {
        let g = self.geometry;
        let (m, n) = (g.m(), g.n());
        if m == 0 {
            return Ok(());
        }
        let device = self.input.device();
        let (layout, vector) = self.layout();
        let sizing = match layout {
            Layout::Rows => size_rows(device, m, n, vector, true),
            Layout::Columns => size_columns(device, m, n, vector, true),
        };
        if sizing.splits == 1 {
            let k = self.kernel(out.dtype(), layout, vector, false);
            return self.launch(&k, sizing, [out, out], None);
        }
        // Two passes: partial results per split, then a pass that combines them.
        let s = sizing.splits;
        let values = Array::empty(device, &[s * m], self.acc)?;
        let indices = if self.combine.is_arg() {
            Some(Array::empty(device, &[s * m], DType::I64)?)
        } else {
            None
        };
        let k = self.kernel(self.acc, layout, vector, true);
        self.launch(
            &k,
            sizing,
            [&values, indices.as_ref().unwrap_or(&values)],
            None,
        )?;
        let acc_size = self.acc.itemsize() as isize;
        let partials = Geometry {
            offset: values.offset(),
            kept: vec![(m, acc_size)],
            reduced: vec![(s, m as isize * acc_size)],
        };
        let finish = Pass {
            combine: self.combine,
            input: &values,
            geometry: &partials,
            acc: self.acc,
            map: Map::Partial,
            post: self.post,
            divisor: self.divisor,
            mean: None,
        };
        // One output: its partials are a fresh contiguous row, read with vector loads (all of
        // a thread's loads in flight at once keep this pass short) unless indices come along.
        let vector = m == 1 && !self.combine.is_arg() && vector_loadable(self.acc);
        let (layout, sizing) = if m == 1 {
            (Layout::Rows, size_rows(device, 1, s, vector, false))
        } else {
            (Layout::Columns, size_columns(device, m, s, false, false))
        };
        let k = finish.kernel(out.dtype(), layout, vector, false);
        finish.launch(&k, sizing, [out, out], indices.as_ref())
    }

    /// Launches `kernel`; `outs` are the value and index outputs (the index output is read
    /// only by arg reductions writing partials); `indices` are partial indices to read.
    pub(crate) fn launch(
        &self,
        kernel: &ReduceKernel,
        sizing: Sizing,
        outs: [&Array; 2],
        indices: Option<&Array>,
    ) -> Result<()> {
        let device = self.input.device();
        let function = compiled(device, Spec::Reduce(kernel.clone()))?;
        let g = self.geometry;
        let mut args: Vec<KernelArg<'_>> = vec![buffer_arg(self.input, g.offset)];
        if let (true, Map::Partial, Some(i)) = (kernel.combine.is_arg(), kernel.map, indices) {
            args.push(i.kernel_arg());
        }
        if let (Map::CenteredSquare { .. }, Some(mu)) = (kernel.map, self.mean) {
            args.push(mu.kernel_arg());
        }
        args.push(outs[0].kernel_arg());
        if kernel.combine.is_arg() && kernel.partial {
            args.push(outs[1].kernel_arg());
        }
        let ints = [
            int_bytes(g.m()),
            int_bytes(g.n()),
            int_bytes(sizing.chunk),
            int_bytes(sizing.tpr),
        ];
        let divisor = self.divisor.to_le_bytes();
        let mut axes: Vec<[u8; 8]> = Vec::new();
        for group in [&g.kept, &g.reduced] {
            axes.extend(group.iter().map(|a| int_bytes(a.0)));
            axes.extend(group.iter().map(|a| (a.1 as i64).to_le_bytes()));
        }
        args.extend(ints.iter().map(|b| KernelArg::Bytes(b)));
        args.push(KernelArg::Bytes(&divisor));
        args.extend(axes.iter().map(|b| KernelArg::Bytes(b)));
        let grid = [sizing.groups as u32, sizing.splits as u32, 1];
        let block = [block_of(kernel) as u32, 1, 1];
        let arrays = [
            Some(self.input),
            indices,
            self.mean,
            Some(outs[0]),
            Some(outs[1]),
        ];
        launch_generated(
            device,
            &function,
            grid,
            block,
            arrays.into_iter().flatten(),
            &args,
        )
    }
}

/// Launches scan `kernel` over lines of `input` (`kept` lines of `n` elements `stride` bytes
/// apart, starting at byte `offset`), writing C-contiguous `out`. `status` are the buffers
/// between input and output (the tiles' status of rows, the partials of split columns);
/// `third` is the tiles per line (rows) or the chunk of a split (columns).
#[allow(clippy::too_many_arguments)]
pub(crate) fn launch_scan(
    kernel: &ScanKernel,
    input: &Array,
    offset: usize,
    kept: &[(usize, isize)],
    stride: isize,
    n: usize,
    third: usize,
    inner: usize,
    sizing: Sizing,
    status: &[&Array],
    out: &Array,
) -> Result<()> {
    let device = input.device();
    let function = compiled(device, Spec::Scan(kernel.clone()))?;
    let m: usize = kept.iter().map(|a| a.0).product();
    let mut args: Vec<KernelArg<'_>> = vec![buffer_arg(input, offset)];
    args.extend(status.iter().map(|a| a.kernel_arg()));
    args.push(out.kernel_arg());
    let mut ints = vec![
        int_bytes(m),
        int_bytes(n),
        int_bytes(third),
        int_bytes(inner),
    ];
    ints.extend(kept.iter().map(|a| int_bytes(a.0)));
    ints.extend(kept.iter().map(|a| (a.1 as i64).to_le_bytes()));
    ints.push((stride as i64).to_le_bytes());
    args.extend(ints.iter().map(|b| KernelArg::Bytes(b)));
    let grid = [sizing.groups as u32, sizing.splits as u32, 1];
    let block = [kernel.threads() as u32, 1, 1];
    ember_kernel::note_bytes([
        input as &dyn ember_kernel::Operand,
        out as &dyn ember_kernel::Operand,
    ]);
    device.launch(&function, grid, block, 0, current_stream(device), &args)
}
