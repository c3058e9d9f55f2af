//! One-sided Jacobi on the device (see `ember_codegen::lapack::jacobi`): the sweeps that
//! orthogonalize the columns of a stack of column-major matrices (singular values for
//! `linalg.norm`, and LAPACK's `gesvd` and `syevd` in [`crate::lapack::portable`]), and the
//! layouts before and after them. Whether a sweep rotated anything is read on the host (one
//! int a matrix), to know when to stop.

use ember_codegen::lapack::jacobi::{JacobiKernel, Part, BLOCK_COLUMNS};
use ember_core::{DType, Error, Result};
use ember_kernel::KernelMemo;
use ember_runtime::{current_stream, Device, Function, KernelArg};

use crate::array::Array;

/// Sweeps before giving up: Jacobi converges quadratically, a few sweeps suffice in practice
/// (LAPACK's `xGESVJ` allows 30).
pub const MAX_SWEEPS: usize = 40;

static MEMO: KernelMemo<JacobiKernel> = KernelMemo::new();

fn block(device: &Device) -> usize {
    // CPUs run a block's threads as a loop: one thread, so no barriers (faster PoCL
    // builds), a pair of columns a core.
    if !crate::lapack::portable::gpu_shapes(device) {
        1
    } else {
        128
    }
}

/// Matrices in a buffer: `batch` of them, `stride` elements apart from `a`'s first element,
/// each `rows x cols`, column-major.
#[derive(Clone, Copy)]
pub(crate) struct Matrices<'a> {
    pub a: &'a Array,
    pub batch: usize,
    pub stride: usize,
    pub rows: usize,
    pub cols: usize,
}

impl<'a> Matrices<'a> {
    /// A C-contiguous `(batch, cols, rows)` stack.
    pub fn stack(a: &'a Array) -> Matrices<'a> {
        let s = a.shape();
        let (batch, cols, rows) = (s[0], s[1], s[2]);
        Matrices {
            a,
            batch,
            stride: rows * cols,
            rows,
            cols,
        }
    }
}

/// Launches `part`'s kernel for `dtype` over (`batch`, `blocks`) with `arrays` then the int64
/// `words`.
pub(crate) fn launch(
    part: Part,
    dtype: DType,
    grid: (usize, usize),
    arrays: &[&Array],
    words: &[i64],
) -> Result<()> {
    let device = arrays[0].device();
    // Layouts loop over the columns past the grid's limit; the sweeps' pairs cannot.
    let grid = match part {
        Part::Prepare | Part::Finish => (grid.0, grid.1.min(65_535)),
        _ => grid,
    };
    if grid.0 > i32::MAX as usize || grid.1 > 65_535 {
        return Err(Error::Value(format!(
            "Jacobi on {} matrices of {} columns: at most 2^31 - 1 matrices and 131,070 columns",
            grid.0,
            grid.1 * if part == Part::Rotate { 2 } else { 1 },
        )));
    }
    if grid.0 == 0 || grid.1 == 0 {
        return Ok(());
    }
    let threads = if part == Part::BlockRotate {
        4 * BLOCK_COLUMNS * BLOCK_COLUMNS
    } else {
        block(device)
    };
    let spec = JacobiKernel {
        dtype,
        block: threads,
        part,
    };
    let function: Function = MEMO.generated(device, &spec)?;
    let words: Vec<[u8; 8]> = words.iter().map(|w| w.to_le_bytes()).collect();
    let mut args: Vec<KernelArg> = arrays.iter().map(|a| a.kernel_arg()).collect();
    args.extend(words.iter().map(|w| KernelArg::Bytes(w)));
    device.launch(
        &function,
        [grid.0 as u32, grid.1 as u32, 1],
        [spec.block as u32, 1, 1],
        0,
        current_stream(device),
        &args,
    )
}

/// Rotates the columns of each matrix of `w` until they are orthogonal, applying the same
/// rotations to the columns of `v`'s matrices (when given); `norm2` (float64, `(batch, cols)`)
/// receives the columns' squared norms. `conditioned`: `w` is known well-conditioned, so
/// large matrices may take the block method (its Gram matrices square the condition number).
/// Returns one int32 a matrix: 0 where the sweeps converged within [`MAX_SWEEPS`], 1 where
/// not (LAPACK's `info`).
pub(crate) fn sweep(
    w: Matrices,
    v: Option<Matrices>,
    norm2: &Array,
    conditioned: bool,
) -> Result<Array> {
    let device = w.a.device();
    let rotated = Array::empty(device, &[w.batch], DType::I32)?;
    let zeros = vec![0u8; 4 * w.batch];
    rotated.set_from_host(&zeros)?;
    if w.batch == 0 || w.cols == 0 {
        return Ok(rotated);
    }
    let even = w.cols + (w.cols & 1);
    let (vm, va, vstride) = match v {
        Some(v) => (v.rows, v.a, v.stride),
        None => (0, w.a, 0),
    };
    let mut flags = vec![0u8; 4 * w.batch];
    // A step of the block method costs about what a step over pairs of columns does, and a
    // sweep has `BLOCK_COLUMNS` times fewer. CPUs keep one thread a pair (no barriers).
    if conditioned
        && v.is_none()
        && crate::lapack::portable::gpu_shapes(device)
        && w.cols >= 4 * BLOCK_COLUMNS
    {
        let blocks = w.cols.div_ceil(BLOCK_COLUMNS);
        let even = blocks + (blocks & 1);
        for _ in 0..MAX_SWEEPS {
            rotated.set_from_host(&zeros)?;
            for step in 0..even - 1 {
                let words = [w.stride as i64, w.rows as i64, w.cols as i64, step as i64];
                launch(
                    Part::BlockRotate,
                    w.a.dtype(),
                    (w.batch, even / 2),
                    &[w.a, norm2, &rotated],
                    &words,
                )?;
            }
            rotated.to_host(&mut flags)?;
            if flags.iter().all(|&b| b == 0) {
                break;
            }
        }
        return Ok(rotated);
    }
    for _ in 0..MAX_SWEEPS {
        rotated.set_from_host(&zeros)?;
        for step in 0..(even - 1).max(1) {
            let words = [
                w.stride as i64,
                w.rows as i64,
                w.cols as i64,
                vstride as i64,
                vm as i64,
                step as i64,
            ];
            launch(
                Part::Rotate,
                w.a.dtype(),
                (w.batch, even / 2),
                &[w.a, va, norm2, &rotated],
                &words,
            )?;
        }
        rotated.to_host(&mut flags)?;
        if flags.iter().all(|&b| b == 0) {
            break;
        }
    }
    Ok(rotated)
}

/// Rotates the columns of each matrix of `w` (float32, float64, complex64 or complex128,
/// C-contiguous, shape `(matrices, columns, rows)`: each matrix stored column after column)
/// until they are orthogonal. Returns whether that happened within [`MAX_SWEEPS`] sweeps.
pub fn orthogonalize_columns(w: &Array) -> Result<bool> {
    if !matches!(
        w.dtype(),
        DType::F32 | DType::F64 | DType::C64 | DType::C128
    ) {
        return Err(Error::Type(format!(
            "singular values are computed in float32, float64, complex64 or complex128, not {}",
            w.dtype().name()
        )));
    }
    if w.ndim() != 3 {
        return Err(Error::Value(format!(
            "orthogonalize_columns takes a (matrices, columns, rows) array, got {} axes",
            w.ndim()
        )));
    }
    if !w.is_c_contiguous() {
        return Err(Error::Value(
            "orthogonalize_columns needs a C-contiguous array".into(),
        ));
    }
    let m = Matrices::stack(w);
    if m.batch == 0 || m.cols < 2 || m.rows == 0 {
        return Ok(true);
    }
    let norm2 = Array::empty(w.device(), &[m.batch, m.cols], DType::F64)?;
    let info = sweep(m, None, &norm2, false)?;
    let mut flags = vec![0u8; 4 * m.batch];
    info.to_host(&mut flags)?;
    Ok(flags.iter().all(|&b| b == 0))
}
