//! FFT plans: a [`Plan`] is made once for a transform's shape, type and batch and run on any
//! arrays of that shape. On CUDA devices (when cuFFT is found) it is a cuFFT plan of any
//! rank 1 to 3, complex or real; everywhere else, and when asked for, ember's Stockham passes
//! ([`ember_codegen::fft`]) of one length whose primes are 2, 3, 5 and 7 (the Python layer
//! builds real, multi-dimensional and other-length transforms on top of these).
//!
//! A plan owns what it needs on the device: cuFFT's handle and work area, or the passes'
//! twiddle table and work area. Dropping it gives them back; the Python layer's plan cache
//! (CuPy's `PlanCache`) decides how many are kept.

use std::sync::OnceLock;

use ember_codegen::fft::{
    factor, roots, split_bits, split_table, table_starts, tile_passes, twiddles, PassKernel,
    TileKernel, Tuning,
};
use ember_core::{DType, Error, Result};
use ember_kernel::{compile_generated, dialect, launch_shape, KernelMemo, Rounding};
use ember_runtime::cuda::fft as cufft;
pub use ember_runtime::cuda::fft::{Kind, Layout};
use ember_runtime::{current_stream, BackendKind, Device, Function, KernelArg};

use crate::array::Array;

static PASSES: KernelMemo<PassKernel> = KernelMemo::new();
static TILES: KernelMemo<TileKernel> = KernelMemo::new();

/// The tile passes' tuning, a measuring knob:
/// `EMBER_FFT_TILES="local_bytes,min_lanes,max_threads,direct,values,regs"` ([`Tuning`]; read
/// once; setting it also makes CPU devices take the tile passes, as tests and sweeps do).
fn tuning() -> Result<(Tuning, bool)> {
    static TUNING: OnceLock<Option<std::result::Result<Tuning, String>>> = OnceLock::new();
    let found = TUNING.get_or_init(|| {
        let text = std::env::var("EMBER_FFT_TILES").ok()?;
        Some(Tuning::parse(&text).ok_or(text))
    });
    match found {
        None => Ok((Tuning::default(), false)),
        Some(Ok(t)) => Ok((*t, true)),
        Some(Err(text)) => Err(Error::Value(format!(
            "EMBER_FFT_TILES is \"local_bytes,min_lanes,max_threads,direct,values,regs\" (positive integers, direct 0 or 1, regs 0 for any), not {text:?}"
        ))),
    }
}

/// Rounds a thread count down to a power of two.
fn floor_pow2(v: usize) -> usize {
    if v == 0 {
        0
    } else {
        1 << (usize::BITS - 1 - v.leading_zeros())
    }
}

/// The tile passes of transforms of `n` along an axis of `inner` values (forward),
/// or `None` where they do not fit the device. Their registers can allow
/// fewer threads than asked (NVIDIA's OpenCL: 256 for a 4,096-point row): the kernel is then
/// made again with fewer.
fn tile_kernels(
    device: &'static Device,
    n: usize,
    inner: usize,
    double: bool,
    tuning: &Tuning,
) -> Result<Option<Vec<TileKernel>>> {
    let item = if double { 16 } else { 8 };
    let info = device.info();
    let Some(passes) = tile_passes(n, inner, item, tuning) else {
        return Ok(None);
    };
    let mut kernels = Vec::new();
    for (radix, lanes) in passes {
        let most = Tuning {
            max_threads: tuning.max_threads.min(info.max_threads_per_block.max(1)),
            ..*tuning
        };
        let mut k = TileKernel::new(radix, lanes, double, false, &most);
        if info.max_shared_per_block != 0 && k.local_bytes() > info.max_shared_per_block {
            return Ok(None);
        }
        // The forward kernel stands for both directions (the inverse differs in signs only).
        let limit = tile_function(device, &k)?.max_threads();
        if limit != 0 && k.threads > limit {
            let fewer = Tuning {
                max_threads: floor_pow2(limit),
                ..most
            };
            k = TileKernel::new(radix, lanes, double, false, &fewer);
        }
        kernels.push(k);
    }
    Ok(Some(kernels))
}

/// A tile kernel compiled: products and sums contracted into multiply-adds (as cuFFT's are:
/// about a third fewer instructions in the butterflies than rounding each on its own), and on
/// NVIDIA's OpenCL its register bound as a build option (CUDA's is in the source); a driver
/// that refuses the option builds it without.
fn tile_function(device: &'static Device, spec: &TileKernel) -> Result<Function> {
    TILES.get_or_compile(device, spec, || {
        let source = spec.source(dialect(device));
        let name = spec.name();
        let info = device.info();
        let nvidia_cl = device.kind() == BackendKind::OpenCl && info.compiler.contains("NVIDIA");
        if nvidia_cl && spec.regs > 0 {
            // The extension's text spells it both ways over the years.
            for bound in [
                vec!["-cl-nv-maxrregcount".to_string(), spec.regs.to_string()],
                vec![format!("-cl-nv-maxrregcount={}", spec.regs)],
            ] {
                if let Ok(f) =
                    compile_generated(device, &source, &name, &bound, Rounding::Contracted)
                {
                    return Ok(f);
                }
            }
        }
        compile_generated(device, &source, &name, &[], Rounding::Contracted)
    })
}

/// The values of `values` (interleaved re, im, in double precision) as the precision's bytes.
fn table_bytes(values: &[f64], double: bool) -> Vec<u8> {
    if double {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    } else {
        values
            .iter()
            .flat_map(|v| (*v as f32).to_le_bytes())
            .collect()
    }
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

/// cuFFT's version where it is found (`cufftGetVersion`), else `None`.
pub fn cufft_version() -> Option<i32> {
    cufft::version()
}

/// How ember's passes run: the tile passes ([`TileKernel`]: a large radix a launch, each in
/// shared memory; GPUs), or one launch a radix of at most 8 (CPU devices, where PoCL's
/// barriers cost more than the passes' memory traffic: 256 rows of 4,096 took 34 ms against
/// 22; fft2 of 1024^2 by tiles 37 ms against 24 by transposes and radix passes). Both read
/// columns (`inner` > 1) in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    /// Tile passes on GPUs (and where `EMBER_FFT_TILES` is set), radix passes on CPU devices.
    Auto,
    /// Tile passes wherever the length factors.
    Shared,
}

/// The tile passes of a plan: their kernels (forward; the inverse is the same spec with
/// `inverse`), and one table on the device: the length's two-level table, then each pass's
/// table of its radix's roots.
struct Tiles {
    kernels: Vec<TileKernel>,
    table: Array,
    /// Where each pass's table starts (complex entries).
    starts: Vec<usize>,
    bits: u32,
}

enum Body {
    Cufft {
        plan: cufft::Plan,
        _work: Option<Array>,
    },
    Passes {
        n: usize,
        /// Values after each transform's (the axis's stride, in values).
        inner: usize,
        radices: Vec<usize>,
        table: Array,
        starts: Vec<usize>,
        tiles: Option<Box<Tiles>>,
        work: Option<Array>,
    },
}

/// A transform made ready for one shape: see the module's documentation.
pub struct Plan {
    device: &'static Device,
    layout: Layout,
    kind: Kind,
    /// The complex dtype of the transform (complex64 or complex128).
    dtype: DType,
    body: Body,
}

fn complex(double: bool) -> DType {
    if double {
        DType::C128
    } else {
        DType::C64
    }
}

fn real(double: bool) -> DType {
    if double {
        DType::F64
    } else {
        DType::F32
    }
}

impl Plan {
    /// A cuFFT plan of `kind` for `layout` (double precision when `double`), with its work
    /// area from ember's pool.
    pub fn cufft(
        device: &'static Device,
        layout: Layout,
        kind: Kind,
        double: bool,
    ) -> Result<Plan> {
        let plan = cufft::Plan::new(device, &layout, kind, double)?;
        let work = match plan.work_size() {
            0 => None,
            bytes => {
                let area = Array::empty(device, &[bytes], DType::U8)?;
                plan.set_work_area(area.address())?;
                Some(area)
            }
        };
        Ok(Plan {
            device,
            layout,
            kind,
            dtype: complex(double),
            body: Body::Cufft { plan, _work: work },
        })
    }

    /// A plan of ember's passes: `batch` contiguous rows of `n` complex values (complex128 when
    /// `double`); `n`'s primes must be 2, 3, 5 and 7.
    pub fn passes(
        device: &'static Device,
        n: usize,
        batch: usize,
        double: bool,
        rows: Rows,
    ) -> Result<Plan> {
        Plan::strided(device, n, batch, 1, double, rows)
    }

    /// A plan of ember's passes over `batch` C-contiguous blocks of `n x inner` complex values,
    /// transforming along the axis of `n` (`inner` = 1: rows; else columns, read where they
    /// are, with no transpose).
    pub fn strided(
        device: &'static Device,
        n: usize,
        batch: usize,
        inner: usize,
        double: bool,
        rows: Rows,
    ) -> Result<Plan> {
        let radices = factor(n).filter(|_| n > 0 && inner > 0).ok_or_else(|| {
            Error::Value(format!(
                "ember's passes take lengths whose primes are 2, 3, 5 and 7, not {n}: use Bluestein's algorithm"
            ))
        })?;
        let dtype = complex(double);
        let (tuning, forced) = tuning()?;
        // The tiles' lane arithmetic is 32-bit: larger transforms take the radix passes.
        let want_tiles = (rows == Rows::Shared || forced || !device.info().is_cpu)
            && batch.saturating_mul(n).saturating_mul(inner) <= i32::MAX as usize;
        let kernels = if want_tiles && batch > 0 {
            tile_kernels(device, n, inner, double, &tuning)?
        } else {
            None
        };
        let tiles = match kernels {
            Some(kernels) => {
                let mut values = split_table(n);
                let mut starts = Vec::new();
                for k in &kernels {
                    starts.push(values.len() / 2);
                    values.extend(roots(k.radix));
                }
                let table = Array::empty(device, &[values.len() / 2], dtype)?;
                table.set_from_host(&table_bytes(&values, double))?;
                Some(Box::new(Tiles {
                    kernels,
                    table,
                    starts,
                    bits: split_bits(n),
                }))
            }
            None => None,
        };
        let (mut values, mut p) = (Vec::new(), 1);
        if tiles.is_none() {
            for &r in &radices {
                values.extend(twiddles(p, r));
                p *= r;
            }
        }
        let table = Array::empty(device, &[(values.len() / 2).max(1)], dtype)?;
        if !values.is_empty() {
            table.set_from_host(&table_bytes(&values, double))?;
        }
        let launches = tiles.as_ref().map_or(radices.len(), |t| t.kernels.len());
        // Passes go back and forth between the output and one work area of the data's size.
        let work = if launches >= 2 && batch > 0 {
            Some(Array::empty(device, &[batch, n * inner], dtype)?)
        } else {
            None
        };
        let layout = Layout {
            dims: vec![n],
            batch,
            inembed: vec![n],
            istride: inner,
            idist: n * inner,
            onembed: vec![n],
            ostride: inner,
            odist: n * inner,
        };
        Ok(Plan {
            device,
            layout,
            kind: Kind::C2C,
            dtype,
            body: Body::Passes {
                n,
                inner,
                starts: table_starts(&radices),
                radices,
                table,
                tiles,
                work,
            },
        })
    }

    /// The device the plan runs on.
    pub fn device(&self) -> &'static Device {
        self.device
    }

    /// `"cufft"` or `"passes"`.
    pub fn engine(&self) -> &'static str {
        match self.body {
            Body::Cufft { .. } => "cufft",
            Body::Passes { .. } => "passes",
        }
    }

    /// The layout the plan was made for.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// What the plan transforms.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The device memory the plan holds for its work (bytes), and where it is (0 for none).
    pub fn work_area(&self) -> (usize, u64) {
        let area = match &self.body {
            Body::Cufft { _work, .. } => _work.as_ref(),
            Body::Passes { work, .. } => work.as_ref(),
        };
        area.map_or((0, 0), |a| (a.nbytes(), a.address()))
    }

    /// The dtypes the plan reads and writes.
    fn dtypes(&self) -> (DType, DType) {
        let double = self.dtype == DType::C128;
        match self.kind {
            Kind::C2C => (self.dtype, self.dtype),
            Kind::R2C => (real(double), self.dtype),
            Kind::C2R => (self.dtype, real(double)),
        }
    }

    /// Elements of the input and of the output one run reads and writes (the extent of the
    /// advanced layout over the whole batch).
    fn extents(&self) -> (usize, usize) {
        let l = &self.layout;
        if let Body::Passes { n, inner, .. } = &self.body {
            return (l.batch * n * inner, l.batch * n * inner);
        }
        let last = l.dims.len() - 1;
        let (mut ins, mut outs) = (l.dims.clone(), l.dims.clone());
        match self.kind {
            Kind::C2C => {}
            Kind::R2C => outs[last] = l.dims[last] / 2 + 1,
            Kind::C2R => ins[last] = l.dims[last] / 2 + 1,
        }
        let extent = |embed: &[usize], logical: &[usize], stride: usize, dist: usize| {
            if l.batch == 0 {
                return 0;
            }
            if embed.is_empty() {
                return l.batch * logical.iter().product::<usize>();
            }
            // The last element of one transform, plus the batches before it.
            let mut at = 0;
            for (k, &len) in logical.iter().enumerate() {
                let below: usize = embed[k + 1..].iter().product();
                at += (len - 1) * below;
            }
            (l.batch - 1) * dist + at * stride + 1
        };
        (
            extent(&l.inembed, &ins, l.istride, l.idist),
            extent(&l.onembed, &outs, l.ostride, l.odist),
        )
    }

    /// Runs the plan: `input` to `output` (C-contiguous arrays on the plan's device holding at
    /// least what the layout reads and writes; `inverse`: the conjugate exponent, for C2C),
    /// unnormalized.
    pub fn execute(&self, input: &Array, output: &Array, inverse: bool) -> Result<()> {
        let (din, dout) = self.dtypes();
        let (nin, nout) = self.extents();
        for (what, a, dtype, need) in [("input", input, din, nin), ("output", output, dout, nout)] {
            if a.dtype() != dtype || !a.is_c_contiguous() || a.size() < need {
                return Err(Error::Value(format!(
                    "this FFT plan's {what} is a C-contiguous {dtype} array of at least {need} elements, not a {}{} array of shape {:?}",
                    if a.is_c_contiguous() { "" } else { "non-contiguous " },
                    a.dtype(),
                    a.shape()
                )));
            }
            if !std::ptr::eq(a.device(), self.device) {
                return Err(Error::Value(format!(
                    "this FFT plan runs on {}, and the {what} is on {}",
                    self.device.info().name,
                    a.device().info().name
                )));
            }
        }
        if self.layout.batch == 0 {
            return Ok(());
        }
        match &self.body {
            Body::Cufft { plan, .. } => {
                plan.execute(self.device, input.address(), output.address(), inverse)
            }
            Body::Passes {
                n,
                inner,
                radices,
                table,
                starts,
                tiles,
                work,
            } => {
                // The passes read their input while they write: an overlapping output reads a
                // copy.
                let copy;
                let input = if input.address() == output.address() {
                    copy = input.copy()?;
                    &copy
                } else {
                    input
                };
                match tiles {
                    Some(tiles) => self.run_tiles(input, output, inverse, *n, *inner, tiles, work),
                    None => self.run_passes(
                        input, output, inverse, *n, *inner, radices, table, starts, work,
                    ),
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn run_tiles(
        &self,
        input: &Array,
        output: &Array,
        inverse: bool,
        n: usize,
        inner: usize,
        tiles: &Tiles,
        work: &Option<Array>,
    ) -> Result<()> {
        let device = self.device;
        let batch = self.layout.batch;
        let item = self.dtype.itemsize();
        let table = &tiles.table;
        let whole = table.kernel_arg();
        let bits = (tiles.bits as i64).to_le_bytes();
        let inner64 = (inner as i64).to_le_bytes();
        let mut p = 1;
        for (s, k) in tiles.kernels.iter().enumerate() {
            let spec = TileKernel { inverse, ..*k };
            let function = tile_function(device, &spec)?;
            let (source, target) = ping_pong(s, tiles.kernels.len(), input, output, work)?;
            let span = n / k.radix;
            let lanes = batch * span * inner;
            let (span64, p64, lanes64) = (
                (span as i64).to_le_bytes(),
                (p as i64).to_le_bytes(),
                (lanes as i64).to_le_bytes(),
            );
            let args = [
                source.kernel_arg(),
                target.kernel_arg(),
                table.buffer().arg(table.offset() + tiles.starts[s] * item),
                whole,
                KernelArg::Bytes(&span64),
                KernelArg::Bytes(&inner64),
                KernelArg::Bytes(&p64),
                KernelArg::Bytes(&lanes64),
                KernelArg::Bytes(&bits),
            ];
            let groups = lanes.div_ceil(k.lanes).clamp(1, 1 << 30) as u32;
            let block = [k.threads as u32, 1, 1];
            ember_kernel::note_bytes([
                source as &dyn ember_kernel::Operand,
                target as &dyn ember_kernel::Operand,
            ]);
            device.launch(
                &function,
                [groups, 1, 1],
                block,
                0,
                current_stream(device),
                &args,
            )?;
            p *= k.radix;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn run_passes(
        &self,
        input: &Array,
        output: &Array,
        inverse: bool,
        n: usize,
        inner: usize,
        radices: &[usize],
        table: &Array,
        starts: &[usize],
        work: &Option<Array>,
    ) -> Result<()> {
        let device = self.device;
        let rows = self.layout.batch;
        let double = self.dtype == DType::C128;
        let rows64 = (rows as i64).to_le_bytes();
        if radices.is_empty() {
            // Length 1: the transform is the identity.
            return input.copy_into(output);
        }
        // Passes alternate between the output and the work area, so that the last lands in
        // the output.
        let item = self.dtype.itemsize();
        let n64 = (n as i64).to_le_bytes();
        let inner64 = (inner as i64).to_le_bytes();
        let mut p = 1;
        for (s, &r) in radices.iter().enumerate() {
            let spec = PassKernel {
                radix: r,
                double,
                inverse,
            };
            let function = PASSES.generated(device, &spec)?;
            let (source, target) = ping_pong(s, radices.len(), input, output, work)?;
            let tw = table.buffer().arg(table.offset() + starts[s] * item);
            let p64 = (p as i64).to_le_bytes();
            let args = [
                source.kernel_arg(),
                target.kernel_arg(),
                tw,
                KernelArg::Bytes(&n64),
                KernelArg::Bytes(&p64),
                KernelArg::Bytes(&rows64),
                KernelArg::Bytes(&inner64),
            ];
            let (grid, block) = launch_shape(device, rows * n * inner / r);
            ember_kernel::note_bytes([
                source as &dyn ember_kernel::Operand,
                target as &dyn ember_kernel::Operand,
            ]);
            device.launch(&function, grid, block, 0, current_stream(device), &args)?;
            p *= r;
        }
        Ok(())
    }
}

/// Pass `s` of `count`'s source and target: the passes alternate between the output and the
/// work area, so that the last lands in the output.
fn ping_pong<'a>(
    s: usize,
    count: usize,
    input: &'a Array,
    output: &'a Array,
    work: &'a Option<Array>,
) -> Result<(&'a Array, &'a Array)> {
    // The passes after this one: an even number of them means this one writes the output.
    let to_output = (count - 1 - s).is_multiple_of(2);
    match (s, work) {
        (0, _) if count == 1 => Ok((input, output)),
        (0, Some(w)) => Ok((input, if to_output { output } else { w })),
        (_, Some(w)) if to_output => Ok((w, output)),
        (_, Some(w)) => Ok((output, w)),
        (_, None) => Err(Error::Value(
            "an FFT plan of several passes has no work area".into(),
        )),
    }
}

/// The DFT of each row of `a` (C-contiguous complex64/complex128; rows of the last axis),
/// unnormalized in both directions (`inverse`: the conjugate exponent), by the device's
/// [`engine`] (`passes`: ember's passes whatever the device), through a plan made for it.
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
    let double = dtype == DType::C128;
    let plan = if !passes && engine(device) == "cufft" {
        let layout = Layout {
            dims: vec![n],
            batch: rows,
            ..Layout::default()
        };
        Plan::cufft(device, layout, Kind::C2C, double)?
    } else {
        Plan::passes(device, n, rows, double, rows_in)?
    };
    let out = Array::empty(device, a.shape(), dtype)?;
    plan.execute(a, &out, inverse)?;
    Ok(out)
}
