//! LU with partial pivoting and its solve (LAPACK's `xGETRF`, `xGETRS`) by ember's kernels
//! (`ember_codegen::lapack`), and the blocked machinery Cholesky shares.
//!
//! Matrices of order up to [`Shape::small`] are factored whole in local memory, one group a
//! matrix, any batch in one launch. Larger ones are factored blocked, right-looking, `nb`
//! columns a step (all matrices of the batch at once): the panel (`xGETRF2`'s recursion down to
//! leaves of a few columns, each factored by one group a matrix — in registers where they hold
//! the panel, which then also apply their interchanges to the block's other columns — the
//! halves joined by row interchanges, a triangular solve and a matrix product), the panel's
//! interchanges applied to the other columns, a triangular solve for the block row of U, and
//! the trailing update
//! `A22 -= A21 A12` in place by `linalg::matmul_into` (cuBLAS on CUDA, ember's tiled kernel
//! elsewhere).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Instant;

use ember_codegen::lapack::lu::{FactorProgram, Kernel};
use ember_codegen::lapack::triangular::{
    Shape, SOLVE_CONJ, SOLVE_LOWER, SOLVE_PIVOTS, SOLVE_UNIT, SOLVE_UPPER,
};
use ember_core::{DType, Error, Result, Scalar};
use ember_kernel::{compile_generated, dialect, KernelMemo, Rounding};
use ember_runtime::{current_stream, Device, Function, KernelArg};

use crate::array::Array;
use crate::creation::fill;
use crate::lapack::dims;
use crate::linalg::{matmul_into, Update};

/// How a device factors: the kernels' [`Shape`] and the blocked algorithms' block sizes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plan {
    pub shape: Shape,
    /// Columns of a step of the blocked LU and of the blocked solves (at most `shape.solve`).
    pub nb: usize,
    /// Columns of a leaf of the panel's recursion.
    pub leaf: usize,
    /// Columns of a step of the blocked Cholesky (at most `shape.solve`).
    pub chol_nb: usize,
    /// Order of the diagonal blocks factored in local memory (at most `shape.small`).
    pub chol_leaf: usize,
}

impl Plan {
    /// GPUs: blocks of 128 (the trailing product dominates; the temporary it goes through
    /// costs memory traffic in proportion to `n^3 / nb`), LU panel leaves of the register
    /// leaf's 8 columns (on an H200 through OpenCL, getrf 4096 float64 took 63 ms with leaves
    /// of 8 in global memory, 78 with 16, 123 with 32; 44 with the register leaf), Cholesky
    /// diagonal blocks of 128 factored by steps of `shape.small`. CPU devices: small blocks,
    /// so that matrices past 32 take the blocked paths (and tests cover them cheaply).
    pub fn for_device(device: &Device, dtype: DType) -> Plan {
        let info = device.info();
        let gpu = super::gpu_shapes(device);
        let mut shape = Shape::for_device(dtype, gpu, info.max_shared_per_block);
        let knob = blocks_knob();
        let (nb, leaf, chol_nb, chol_leaf) = if gpu {
            (shape.solve, shape.leaf_cols, shape.solve, shape.small)
        } else {
            (32, shape.leaf_cols, 32, 16)
        };
        let defaults = [
            nb,
            leaf,
            chol_nb,
            chol_leaf,
            shape.wide,
            shape.leaf_cols,
            shape.leaf_rows,
        ];
        let [nb, leaf, chol_nb, chol_leaf, wide, leaf_cols, leaf_rows] = match knob {
            Some(v) => std::array::from_fn(|i| v.get(i).copied().unwrap_or(defaults[i])),
            None => defaults,
        };
        shape.wide = wide.next_power_of_two();
        (shape.leaf_cols, shape.leaf_rows) = (leaf_cols, leaf_rows);
        Plan {
            shape,
            nb,
            leaf,
            chol_nb,
            chol_leaf,
        }
    }
}

/// `EMBER_LAPACK_BLOCKS="nb,leaf,chol_nb,chol_leaf,wide[,leaf_cols,leaf_rows]"`, a
/// measuring knob: the blocked algorithms' sizes on every device, each clamped to what the
/// kernels take, the threads of a group of the wide kernels (a power of two), and the shape
/// of the register-resident LU leaf.
fn blocks_knob() -> Option<Vec<usize>> {
    let text = std::env::var("EMBER_LAPACK_BLOCKS").ok()?;
    let v: Vec<usize> = text
        .split(',')
        .filter_map(|t| t.trim().parse().ok())
        .map(|b: usize| b.max(1))
        .collect();
    (v.len() == 5 || v.len() == 7).then_some(v)
}

/// `EMBER_LAPACK_TRACE`, a measuring knob: each launch of a blocked factorization is timed
/// with the stream synchronized around it, and a summary by kernel goes to stderr at the end.
struct Trace {
    phases: RefCell<BTreeMap<String, (u32, f64)>>,
    start: Instant,
}

/// A column-major block of every matrix of a stack: rows `r0..`, columns `c0..` of the
/// matrices of `array` (`(batch, cols, ld)`).
#[derive(Clone, Copy)]
pub(super) struct Block<'a> {
    pub array: &'a Array,
    pub r0: usize,
    pub c0: usize,
}

impl Block<'_> {
    fn ld(&self) -> usize {
        self.array.shape()[2]
    }

    fn matrix_stride(&self) -> usize {
        self.array.shape()[1] * self.array.shape()[2]
    }

    /// Offset of the block's first element in its matrix, in elements.
    fn offset(&self) -> usize {
        self.c0 * self.ld() + self.r0
    }

    /// The block of `rows x cols` as a C-ordered `(batch, cols, rows)` view: its transpose.
    pub fn transposed_view(&self, rows: usize, cols: usize) -> Result<Array> {
        let a = self.array;
        let item = a.dtype().itemsize();
        a.view(
            &[a.shape()[0], cols, rows],
            &[
                (self.matrix_stride() * item) as isize,
                (self.ld() * item) as isize,
                item as isize,
            ],
            a.offset() + self.offset() * item,
            a.dtype(),
        )
    }
}

/// `x` with its last two axes swapped (a view).
pub(super) fn swapped(x: &Array) -> Result<Array> {
    let (s, st) = (x.shape(), x.strides());
    x.view(
        &[s[0], s[2], s[1]],
        &[st[0], st[2], st[1]],
        x.offset(),
        x.dtype(),
    )
}

/// The factorization kernels of one dtype on one device, and the launches of the blocked
/// algorithms.
pub(super) struct Engine {
    device: &'static Device,
    program: FactorProgram,
    pub plan: Plan,
    batch: usize,
    trace: Option<Trace>,
}

impl Engine {
    /// The engine for a stack of `batch` matrices of `dtype` on `device`.
    pub fn new(device: &'static Device, dtype: DType, batch: usize) -> Result<Engine> {
        if batch > i32::MAX as usize {
            return Err(Error::Value(format!(
                "ember's factorizations take at most 2^31 - 1 matrices at once, got {batch}"
            )));
        }
        let plan = Plan::for_device(device, dtype);
        Ok(Engine {
            device,
            program: FactorProgram { shape: plan.shape },
            plan,
            batch,
            trace: std::env::var_os("EMBER_LAPACK_TRACE").map(|_| Trace {
                phases: RefCell::default(),
                start: Instant::now(),
            }),
        })
    }

    /// `work`, timed under `name` when tracing.
    pub fn timed<T>(&self, name: &str, work: impl FnOnce() -> Result<T>) -> Result<T> {
        let Some(trace) = &self.trace else {
            return work();
        };
        let stream = current_stream(self.device);
        self.device.synchronize_stream(stream)?;
        let t = Instant::now();
        let out = work()?;
        self.device.synchronize_stream(stream)?;
        let mut phases = trace.phases.borrow_mut();
        let entry = phases.entry(name.to_string()).or_default();
        entry.0 += 1;
        entry.1 += t.elapsed().as_secs_f64();
        Ok(out)
    }

    /// The trace's summary of `what` to stderr, when tracing.
    pub fn report(&self, what: &str) {
        if let Some(trace) = &self.trace {
            let total = trace.start.elapsed().as_secs_f64() * 1e3;
            let parts: Vec<String> = trace
                .phases
                .borrow()
                .iter()
                .map(|(k, (n, t))| format!("{k} {n}x {:.2} ms", t * 1e3))
                .collect();
            eprintln!(
                "ember lapack trace: {what} {total:.2} ms: {}",
                parts.join(", ")
            );
        }
    }

    fn kernel(&self, kernel: Kernel) -> Result<Function> {
        static MEMO: KernelMemo<(FactorProgram, Kernel)> = KernelMemo::new();
        let program = self.program;
        MEMO.get_or_compile(self.device, &(program, kernel), || {
            // One source holds every kernel: the first compile serves the others.
            compile_generated(
                self.device,
                &program.source(dialect(self.device)),
                &program.name(kernel),
                &[],
                Rounding::Contracted,
            )
        })
    }

    /// Launches `kernel` on `groups` groups along the second axis for each matrix, with
    /// `arrays` then int64 `scalars` as arguments and `local` elements of dynamic local memory.
    fn launch(
        &self,
        kernel: Kernel,
        groups: usize,
        arrays: &[&Array],
        scalars: &[i64],
        local: usize,
    ) -> Result<()> {
        let function = self.kernel(kernel)?;
        let bytes: Vec<[u8; 8]> = scalars.iter().map(|v| v.to_le_bytes()).collect();
        let mut args: Vec<KernelArg<'_>> = arrays.iter().map(|a| a.kernel_arg()).collect();
        args.extend(bytes.iter().map(|b| KernelArg::Bytes(b)));
        let mut shared = local * self.program.shape.dtype.itemsize();
        if shared > 0 && dialect(self.device).table().dynamic_shared_param {
            args.push(KernelArg::Local(shared));
            shared = 0;
        }
        let grid = [self.batch as u32, groups.clamp(1, 65_535) as u32, 1];
        let block = [self.program.threads(kernel) as u32, 1, 1];
        let stream = current_stream(self.device);
        self.timed(&format!("{kernel:?}"), || {
            self.device
                .launch(&function, grid, block, shared as u32, stream, &args)
        })
    }

    /// LU of each whole matrix (order `n <= shape.small`) in one launch.
    pub fn lu_small(&self, a: &Array, pivots: &Array, info: &Array, n: usize) -> Result<()> {
        self.launch(Kernel::LuSmall, 1, &[a, pivots, info], &[n as i64], n * n)
    }

    /// Cholesky of the `n x n` diagonal block at `(k, k)` of each matrix of `a` (`n <=
    /// shape.small`), lower or upper; a failure at its column `j` sets `info` to `k + j + 1`.
    pub fn cholesky_block(
        &self,
        a: &Array,
        info: &Array,
        k: usize,
        n: usize,
        lower: bool,
    ) -> Result<()> {
        let block = Block {
            array: a,
            r0: k,
            c0: k,
        };
        let scalars = [
            block.matrix_stride() as i64,
            block.offset() as i64,
            block.ld() as i64,
            n as i64,
            k as i64,
            i64::from(lower),
        ];
        self.launch(Kernel::CholeskySmall, 1, &[a, info], &scalars, n * n)
    }

    /// Row interchanges `k1..k2` of `pivots` applied to columns `lo..hi` of each matrix of `a`
    /// but `skip` (within `lo..hi`).
    fn swap(
        &self,
        a: &Array,
        pivots: &Array,
        (lo, hi): (usize, usize),
        skip: (usize, usize),
        (k1, k2): (usize, usize),
    ) -> Result<()> {
        let count = (hi - lo) - (skip.1 - skip.0);
        if count == 0 || k1 == k2 {
            return Ok(());
        }
        let (ld, cols) = (a.shape()[2], a.shape()[1]);
        let groups = count.div_ceil(self.plan.shape.wide);
        let scalars = [
            ld,
            ld * cols,
            pivots.shape()[1],
            lo,
            hi,
            skip.0,
            skip.1,
            k1,
            k2,
        ]
        .map(|v| v as i64);
        self.launch(Kernel::Swap, groups, &[a, pivots], &scalars, 0)
    }

    /// Solves with the `s x s` triangle at `t` (element `(i, j)` at `t.offset() + i * tr + j *
    /// tc`), as `mode` says, for `count` vectors of `b` starting at block `b` (element `i` of
    /// vector `v` at `v * bv + i * be`). `pivots` are read with [`SOLVE_PIVOTS`] only.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &self,
        t: Block<'_>,
        (tr, tc): (usize, usize),
        b: Block<'_>,
        (be, bv): (usize, usize),
        count: usize,
        s: usize,
        pivots: &Array,
        mode: i64,
    ) -> Result<()> {
        if count == 0 || s == 0 {
            return Ok(());
        }
        debug_assert!(s <= self.plan.shape.solve);
        let groups = count.div_ceil(self.plan.shape.solve_vectors());
        let scalars = [
            t.matrix_stride(),
            t.offset(),
            tr,
            tc,
            b.matrix_stride(),
            b.offset(),
            be,
            bv,
            pivots.shape().get(1).copied().unwrap_or(0),
            s,
            count,
        ]
        .map(|v| v as i64);
        let mut all = scalars.to_vec();
        all.push(mode);
        let local = self.plan.shape.solve_local(s);
        self.launch(
            Kernel::Solve,
            groups,
            &[t.array, b.array, pivots],
            &all,
            local,
        )
    }

    /// `C -= A B` for column-major blocks `C` (`m x n`), `A` (`m x k`), `B` (`k x n`) of each
    /// matrix, in place: `(A B)^T = B^T A^T` over the C-ordered views (which are the
    /// transposes), so that the product's stores run down C's columns.
    pub fn update(
        &self,
        c: Block<'_>,
        a: Block<'_>,
        b: Block<'_>,
        (m, n, k): (usize, usize, usize),
    ) -> Result<()> {
        if m == 0 || n == 0 || k == 0 {
            return Ok(());
        }
        let subtract = Update {
            subtract: true,
            ..Update::default()
        };
        self.timed("Update", || {
            matmul_into(
                &b.transposed_view(k, n)?,
                &a.transposed_view(m, k)?,
                &c.transposed_view(m, n)?,
                subtract,
            )
        })
    }

    /// LU of columns `c0..c1` of each matrix (rows `c0..n`), within the block `p0..p1` being
    /// factored: LAPACK's `xGETRF2` recursion, halves down to leaves of `plan.leaf` columns.
    /// Where the registers hold the panel, each leaf applies its interchanges to the block's
    /// other columns itself; else the recursion applies them within `c0..c1`.
    fn panel(
        &self,
        a: &Array,
        pivots: &Array,
        info: &Array,
        (c0, c1): (usize, usize),
        (p0, p1): (usize, usize),
    ) -> Result<()> {
        let n = a.shape()[2];
        let w = c1 - c0;
        let in_registers = self.leaf_in_registers(n - p0);
        if w <= self.plan.leaf {
            if in_registers {
                let scalars = [n, c0, w, p0, p1].map(|v| v as i64);
                return self.launch(Kernel::LuLeaf, 1, &[a, pivots, info], &scalars, 0);
            }
            let scalars = [n as i64, c0 as i64, w as i64];
            return self.launch(Kernel::LuPanel, 1, &[a, pivots, info], &scalars, 0);
        }
        let mid = c0 + w / 2;
        self.panel(a, pivots, info, (c0, mid), (p0, p1))?;
        if !in_registers {
            self.swap(a, pivots, (mid, c1), (c1, c1), (c0, mid))?;
        }
        let at = |r0, c0| Block { array: a, r0, c0 };
        self.solve(
            at(c0, c0),
            (1, n),
            at(c0, mid),
            (1, n),
            c1 - mid,
            mid - c0,
            pivots,
            SOLVE_LOWER | SOLVE_UNIT,
        )?;
        self.update(
            at(mid, mid),
            at(mid, c0),
            at(c0, mid),
            (n - mid, c1 - mid, mid - c0),
        )?;
        self.panel(a, pivots, info, (mid, c1), (p0, p1))?;
        if !in_registers {
            self.swap(a, pivots, (c0, mid), (mid, mid), (mid, c1))?;
        }
        Ok(())
    }

    /// Whether a panel of `rows` rows is factored by the register-resident leaf.
    fn leaf_in_registers(&self, rows: usize) -> bool {
        self.plan.leaf <= self.plan.shape.leaf_cols && rows <= self.plan.shape.leaf_reach()
    }

    /// Blocked right-looking LU of each `n x n` matrix of `a`.
    fn lu_blocked(&self, a: &Array, pivots: &Array, info: &Array) -> Result<()> {
        let n = a.shape()[2];
        let at = |r0, c0| Block { array: a, r0, c0 };
        for k in (0..n).step_by(self.plan.nb) {
            let kb = self.plan.nb.min(n - k);
            let next = k + kb;
            self.timed("panel (whole)", || {
                self.panel(a, pivots, info, (k, next), (k, next))
            })?;
            self.swap(a, pivots, (0, n), (k, next), (k, next))?;
            if next < n {
                self.solve(
                    at(k, k),
                    (1, n),
                    at(k, next),
                    (1, n),
                    n - next,
                    kb,
                    pivots,
                    SOLVE_LOWER | SOLVE_UNIT,
                )?;
                self.update(
                    at(next, next),
                    at(next, k),
                    at(k, next),
                    (n - next, n - next, kb),
                )?;
            }
        }
        Ok(())
    }
}

/// See [`crate::lapack::getrf`].
pub fn getrf(a: &Array) -> Result<(Array, Array)> {
    let (batch, cols, n) = dims(a, "getrf")?;
    if cols != n {
        return Err(Error::Value(format!(
            "getrf factors square matrices, got {n} x {cols}"
        )));
    }
    let device = a.device();
    let pivots = Array::empty(device, &[batch, n], DType::I32)?;
    let info = Array::empty(device, &[batch], DType::I32)?;
    if batch == 0 {
        return Ok((pivots, info));
    }
    fill(&info, Scalar::Int(0))?;
    if n == 0 {
        return Ok((pivots, info));
    }
    let engine = Engine::new(device, a.dtype(), batch)?;
    if n <= engine.plan.shape.small {
        engine.lu_small(a, &pivots, &info, n)?;
    } else {
        engine.lu_blocked(a, &pivots, &info)?;
        engine.report(&format!("getrf {batch} x {n}^2"));
    }
    Ok((pivots, info))
}

/// See [`crate::lapack::getrs`].
pub fn getrs(lu: &Array, pivots: &Array, b: &Array) -> Result<()> {
    let (batch, cols, n) = dims(lu, "getrs")?;
    let (b_batch, nrhs, b_rows) = dims(b, "getrs")?;
    if cols != n || b_batch != batch || b_rows != n || b.dtype() != lu.dtype() {
        return Err(Error::Value(format!(
            "getrs takes square factors and right-hand sides of their order and dtype: got {batch} of {n} x {cols} ({}) and {b_batch} of {b_rows} x {nrhs} ({})",
            lu.dtype(),
            b.dtype()
        )));
    }
    if pivots.shape() != [batch, n] || pivots.dtype() != DType::I32 || !pivots.is_c_contiguous() {
        return Err(Error::Value(format!(
            "getrs takes the pivots getrf gave: int32 of shape ({batch}, {n}), got {} of shape {:?}",
            pivots.dtype(),
            pivots.shape()
        )));
    }
    let device = lu.device();
    if !std::ptr::eq(b.device(), device) || !std::ptr::eq(pivots.device(), device) {
        return Err(Error::Value(
            "getrs: the factors, pivots and right-hand sides are on different devices".into(),
        ));
    }
    if batch == 0 || n == 0 || nrhs == 0 {
        return Ok(());
    }
    let engine = Engine::new(device, lu.dtype(), batch)?;
    let t = |r0, c0| Block { array: lu, r0, c0 };
    let x = |r0| Block {
        array: b,
        r0,
        c0: 0,
    };
    if n <= engine.plan.shape.solve {
        // Interchanges, L and U in one launch.
        let mode = SOLVE_PIVOTS | SOLVE_LOWER | SOLVE_UNIT | SOLVE_UPPER;
        return engine.solve(t(0, 0), (1, n), x(0), (1, n), nrhs, n, pivots, mode);
    }
    engine.swap(b, pivots, (0, nrhs), (nrhs, nrhs), (0, n))?;
    let nb = engine.plan.nb;
    let starts: Vec<usize> = (0..n).step_by(nb).collect();
    for &k in &starts {
        let kb = nb.min(n - k);
        let mode = SOLVE_LOWER | SOLVE_UNIT;
        engine.solve(t(k, k), (1, n), x(k), (1, n), nrhs, kb, pivots, mode)?;
        let next = k + kb;
        engine.update(x(next), t(next, k), x(k), (n - next, nrhs, kb))?;
    }
    for &k in starts.iter().rev() {
        let kb = nb.min(n - k);
        engine.solve(t(k, k), (1, n), x(k), (1, n), nrhs, kb, pivots, SOLVE_UPPER)?;
        engine.update(x(0), t(0, k), x(k), (k, nrhs, kb))?;
    }
    Ok(())
}

/// Solve mode of a conjugated lower triangle (Cholesky's panels).
pub(super) const CONJ_LOWER: i64 = SOLVE_LOWER | SOLVE_CONJ;
