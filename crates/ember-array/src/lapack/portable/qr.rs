//! `geqrf` and `orgqr` by ember's Householder kernel (`ember_codegen::lapack::householder`).

use ember_codegen::lapack::householder::{
    HouseholderKernel, APPLY, FINISH, FORM_Q, INIT, REFLECT, SIGNS,
};
use ember_core::{DType, Error, Result};
use ember_kernel::KernelMemo;
use ember_runtime::{current_stream, Device, KernelArg};

use crate::array::Array;
use crate::lapack::dims;

/// Matrices with at most this many reflectors are factored whole by one block each, in one
/// launch; larger ones (unless there are enough of them to fill the device) take two launches
/// a column, the updates spread over many blocks.
const WHOLE_UP_TO: usize = 128;
/// With this many matrices or more, one block a matrix fills the device whatever their size.
const WHOLE_FROM_BATCH: usize = 64;

static MEMO: KernelMemo<HouseholderKernel> = KernelMemo::new();

fn spec(device: &Device, dtype: DType) -> HouseholderKernel {
    // CPUs run a block's threads as a loop: one thread, so no barriers (which cost PoCL
    // seconds of build time), a matrix or a column a core.
    let (block, teams) = if !super::gpu_shapes(device) {
        (1, 1)
    } else {
        (256, 8)
    };
    HouseholderKernel {
        dtype,
        block,
        teams,
    }
}

/// Matrices of `a`'s buffer, `stride` elements apart (from `a`'s first element), each `rows`
/// rows, column-major: what the kernel works on (a C-contiguous stack, or the first columns
/// of each matrix of a wider one).
pub(crate) struct Stack<'a> {
    pub a: &'a Array,
    pub batch: usize,
    pub stride: usize,
    pub rows: usize,
}

struct Launch<'a> {
    device: &'static Device,
    function: ember_runtime::Function,
    spec: HouseholderKernel,
    stack: &'a Stack<'a>,
    tau: &'a Array,
    k: usize,
    n: usize,
}

impl Launch<'_> {
    fn run(&self, blocks: usize, j0: usize, count: usize, op: i64) -> Result<()> {
        let s = self.stack;
        let words = [
            s.stride as i64,
            s.rows as i64,
            self.n as i64,
            self.k as i64,
            j0 as i64,
            count as i64,
            op,
        ]
        .map(i64::to_le_bytes);
        let mut args = vec![s.a.kernel_arg(), self.tau.kernel_arg()];
        args.extend(words.iter().map(|w| KernelArg::Bytes(w)));
        let grid = [s.batch as u32, blocks.clamp(1, 65_535) as u32, 1];
        self.device.launch(
            &self.function,
            grid,
            [self.spec.block as u32, 1, 1],
            0,
            current_stream(self.device),
            &args,
        )
    }

    /// Blocks that update columns `from..n` a `teams` at a time.
    fn blocks(&self, from: usize) -> usize {
        self.n.saturating_sub(from).div_ceil(self.spec.teams)
    }

    fn whole(&self) -> bool {
        self.k <= WHOLE_UP_TO || self.stack.batch >= WHOLE_FROM_BATCH
    }
}

fn launcher<'a>(stack: &'a Stack<'a>, tau: &'a Array, k: usize, n: usize) -> Result<Launch<'a>> {
    let device = stack.a.device();
    let spec = spec(device, stack.a.dtype());
    if stack.batch > i32::MAX as usize {
        return Err(Error::Value(format!(
            "{} matrices at once: at most 2^31 - 1",
            stack.batch
        )));
    }
    Ok(Launch {
        device,
        function: MEMO.generated(device, &spec)?,
        spec,
        stack,
        tau,
        k,
        n,
    })
}

/// Factors the `cols` columns of each matrix of `stack` in place; `tau` (`(batch, k)`,
/// `k = min(rows, cols)`) receives the reflectors' factors.
pub(crate) fn factor(stack: &Stack, cols: usize, tau: &Array) -> Result<()> {
    let k = stack.rows.min(cols);
    if stack.batch == 0 || k == 0 {
        return Ok(());
    }
    let l = launcher(stack, tau, k, cols)?;
    if l.whole() {
        return l.run(1, 0, k, REFLECT | APPLY);
    }
    for j in 0..k {
        l.run(1, j, 1, REFLECT)?;
        if j + 1 < cols {
            l.run(l.blocks(j + 1), j, 1, APPLY)?;
        }
    }
    Ok(())
}

/// Overwrites the first `qcols` columns of each matrix of `stack` (reflectors in the first
/// `k`, `k <= qcols <= rows`) by Q's; with `signs`, Q's column `j < k` is multiplied by the
/// sign of `R[j, j]`, still on the diagonal.
pub(crate) fn form_q(
    stack: &Stack,
    qcols: usize,
    tau: &Array,
    k: usize,
    signs: bool,
) -> Result<()> {
    if stack.batch == 0 || qcols == 0 {
        return Ok(());
    }
    let l = launcher(stack, tau, k, qcols)?;
    let finish = FORM_Q | FINISH | if signs { SIGNS } else { 0 };
    if l.whole() {
        let op = FORM_Q | INIT | APPLY | finish;
        return l.run(1, k.wrapping_sub(1), k, op);
    }
    if k < qcols {
        l.run(l.blocks(k), 0, 0, FORM_Q | INIT)?;
    }
    for j in (0..k).rev() {
        if j + 1 < qcols {
            l.run(l.blocks(j + 1), j, 1, FORM_Q | APPLY)?;
        }
        l.run(1, j, 1, finish)?;
    }
    Ok(())
}

pub fn geqrf(a: &Array) -> Result<Array> {
    let (batch, cols, rows) = dims(a, "geqrf")?;
    let k = rows.min(cols);
    let tau = Array::empty(a.device(), &[batch, k], a.dtype())?;
    let stack = Stack {
        a,
        batch,
        stride: rows * cols,
        rows,
    };
    factor(&stack, cols, &tau)?;
    Ok(tau)
}

pub fn orgqr(q: &Array, tau: &Array) -> Result<()> {
    let (batch, qcols, rows) = dims(q, "orgqr")?;
    let &[tb, k] = tau.shape() else {
        return Err(Error::Value(format!(
            "orgqr takes tau of shape (batch, k), got {} axes",
            tau.ndim()
        )));
    };
    if tb != batch || tau.dtype() != q.dtype() || !tau.is_c_contiguous() {
        return Err(Error::Value(format!(
            "orgqr: tau must be a C-contiguous ({batch}, k) array of {}, got {:?} {}",
            q.dtype().name(),
            tau.shape(),
            tau.dtype().name()
        )));
    }
    if k > qcols || qcols > rows {
        return Err(Error::Value(format!(
            "orgqr forms k <= qcols <= rows columns of Q: got k = {k}, qcols = {qcols}, rows = {rows}"
        )));
    }
    let stack = Stack {
        a: q,
        batch,
        stride: rows * qcols,
        rows,
    };
    form_q(&stack, qcols, tau, k, false)
}
