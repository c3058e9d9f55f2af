//! Transposed copies of stacks of matrices by tiles in local memory
//! (`ember_codegen::transpose`): what `copy_into` takes for a transposed view (`a.T.copy()`,
//! column-major LAPACK results made C-ordered), and the triangle of a column-major factor.

pub use ember_codegen::transpose::Keep;
use ember_codegen::transpose::TransposeKernel;
use ember_core::{Error, Result};
use ember_kernel::{launch_shape, KernelMemo};
use ember_runtime::{current_stream, KernelArg};

use crate::array::Array;

/// `y[b][r][c] = x[b][c][r]` (`keep`: that triangle of each result, zeros elsewhere) for `x`
/// a C-contiguous `(batch, cols, rows)` stack and `y` a C-contiguous `(batch, rows, cols)`
/// one of the same dtype on the same device.
pub fn transpose_into(x: &Array, y: &Array, keep: Keep) -> Result<()> {
    let (&[batch, cols, rows], &[yb, yr, yc]) = (x.shape(), y.shape()) else {
        return Err(Error::Value(
            "a transposed copy takes two stacks of matrices of 3 axes".into(),
        ));
    };
    if (yb, yr, yc) != (batch, rows, cols)
        || x.dtype() != y.dtype()
        || !x.is_c_contiguous()
        || !y.is_c_contiguous()
        || !std::ptr::eq(x.device(), y.device())
    {
        return Err(Error::Value(format!(
            "a transposed copy of a C-contiguous {:?} stack needs a C-contiguous {:?} one of its dtype on its device, got {:?}",
            x.shape(),
            [batch, rows, cols],
            y.shape()
        )));
    }
    let unit = x.dtype().itemsize();
    if !matches!(unit, 1 | 2 | 4 | 8 | 16) {
        return Err(Error::Type(format!(
            "transposed copies move elements of 1, 2, 4, 8 or 16 bytes, not {}",
            x.dtype()
        )));
    }
    if x.size() == 0 {
        return Ok(());
    }
    let device = x.device();
    static MEMO: KernelMemo<TransposeKernel> = KernelMemo::new();
    let function = MEMO.generated(device, &TransposeKernel { unit, keep })?;
    let (tiles_r, tiles_c) = (TransposeKernel::tiles(rows), TransposeKernel::tiles(cols));
    let scalars: Vec<[u8; 8]> = [rows, cols, batch, tiles_r, tiles_c]
        .iter()
        .map(|&v| (v as i64).to_le_bytes())
        .collect();
    let mut args = vec![x.kernel_arg(), y.kernel_arg()];
    args.extend(scalars.iter().map(|b| KernelArg::Bytes(b)));
    // The launch layer's grid for one thread a tile element (blocks loop over the tiles
    // beyond it); the block is the kernel's own shape.
    let (grid, _) = launch_shape(device, batch * tiles_r * tiles_c * TransposeKernel::THREADS);
    ember_kernel::note_bytes([
        x as &dyn ember_kernel::Operand,
        y as &dyn ember_kernel::Operand,
    ]);
    device.launch(
        &function,
        grid,
        [TransposeKernel::THREADS as u32, 1, 1],
        0,
        current_stream(device),
        &args,
    )
}

/// The transposed copy of a C-contiguous `(batch, cols, rows)` stack (a stack of
/// column-major matrices: the result is their C-ordered form), keeping `keep`.
pub fn transposed(x: &Array, keep: Keep) -> Result<Array> {
    let &[batch, cols, rows] = x.shape() else {
        return Err(Error::Value(format!(
            "a transposed copy takes a stack of matrices of 3 axes, got shape {:?}",
            x.shape()
        )));
    };
    let y = Array::empty(x.device(), &[batch, rows, cols], x.dtype())?;
    transpose_into(x, &y, keep)?;
    Ok(y)
}

/// `(batch, rows, cols)` when `a` (`(..., rows, cols)`) is the transposed view of a
/// C-contiguous stack (`swapaxes(-1, -2)` of one, `a.T` of a matrix) of matrices at least
/// 2 x 2 whose elements a transposed copy moves.
pub(crate) fn transposed_stack(a: &Array) -> Option<(usize, usize, usize)> {
    let (shape, strides) = (a.shape(), a.strides());
    let n = shape.len();
    let unit = a.dtype().itemsize();
    if n < 2 || a.dtype().is_opaque() || !matches!(unit, 1 | 2 | 4 | 8 | 16) {
        return None;
    }
    let (rows, cols) = (shape[n - 2], shape[n - 1]);
    let item = unit as isize;
    if rows < 2 || cols < 2 || strides[n - 2] != item || strides[n - 1] != rows as isize * item {
        return None;
    }
    let mut step = (rows * cols) as isize * item;
    let mut batch = 1;
    for axis in (0..n - 2).rev() {
        if shape[axis] != 1 && strides[axis] != step {
            return None;
        }
        step *= shape[axis] as isize;
        batch *= shape[axis];
    }
    Some((batch, rows, cols))
}
