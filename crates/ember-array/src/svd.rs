//! Singular values on the device by one-sided Jacobi sweeps (see `ember_codegen::svd`). The
//! caller lays the matrices out column after column; after the sweeps their column norms are
//! the singular values. Whether a sweep rotated anything is read on the host (one int), to
//! know when to stop.

use ember_codegen::svd::{step_name, step_source};
use ember_core::{DType, Error, Result, Scalar};
use ember_runtime::{current_stream, Device, Function, KernelArg};

use crate::array::Array;
use crate::creation::fill;
use crate::reduction::{self, Reduction};
use ember_kernel::{compile_generated, dialect, KernelMemo, Rounding};

/// Sweeps before giving up: Jacobi converges quadratically, a few sweeps suffice in practice
/// (LAPACK's `xGESVJ` allows 30).
pub const MAX_SWEEPS: usize = 40;

fn block(device: &Device) -> usize {
    // CPUs run a block's threads as a loop: few of them, few barriers.
    if device.info().is_cpu {
        16
    } else {
        128
    }
}

fn kernel(device: &'static Device, dtype: DType) -> Result<Function> {
    static MEMO: KernelMemo<(DType, usize)> = KernelMemo::new();
    let b = block(device);
    MEMO.get_or_compile(device, &(dtype, b), || {
        let d = dialect(device);
        compile_generated(
            device,
            &step_source(dtype, b, d),
            &step_name(dtype),
            &[],
            Rounding::Contracted,
        )
    })
}

/// Rotates the columns of each matrix of `w` (float32 or float64, C-contiguous, shape
/// `(matrices, columns, rows)`: each matrix stored column after column) until they are
/// orthogonal. Returns whether that happened within [`MAX_SWEEPS`] sweeps.
pub fn orthogonalize_columns(w: &Array) -> Result<bool> {
    let dtype = w.dtype();
    if !matches!(dtype, DType::F32 | DType::F64) {
        return Err(Error::Type(format!(
            "singular values are computed in float32 or float64, not {}",
            dtype.name()
        )));
    }
    let &[matrices, n, m] = w.shape() else {
        return Err(Error::Value(format!(
            "orthogonalize_columns takes a (matrices, columns, rows) array, got {} axes",
            w.ndim()
        )));
    };
    if !w.is_c_contiguous() {
        return Err(Error::Value(
            "orthogonalize_columns needs a C-contiguous array".into(),
        ));
    }
    if matrices == 0 || n < 2 || m == 0 {
        return Ok(true);
    }
    let pairs = n.div_ceil(2);
    if pairs > 65_535 || matrices > i32::MAX as usize {
        return Err(Error::Value(format!(
            "singular values of {matrices} matrices of {n} columns: at most 131,070 columns and 2^31 - 1 matrices"
        )));
    }
    let device = w.device();
    let function = kernel(device, dtype)?;
    let rotated = Array::empty(device, &[matrices], DType::I32)?;
    let even = n + (n & 1);
    let (m64, n64) = ((m as i64).to_le_bytes(), (n as i64).to_le_bytes());
    let grid = [matrices as u32, (even / 2) as u32, 1];
    let threads = [block(device) as u32, 1, 1];
    for _ in 0..MAX_SWEEPS {
        fill(&rotated, Scalar::Int(0))?;
        for step in 0..even - 1 {
            let step64 = (step as i64).to_le_bytes();
            let args = [
                w.kernel_arg(),
                rotated.kernel_arg(),
                KernelArg::Bytes(&m64),
                KernelArg::Bytes(&n64),
                KernelArg::Bytes(&step64),
            ];
            device.launch(&function, grid, threads, 0, current_stream(device), &args)?;
        }
        let any = reduction::reduce(&rotated, Reduction::Max, None, None, None, false)?;
        let mut flag = [0u8; 4];
        any.to_host(&mut flag)?;
        if i32::from_le_bytes(flag) == 0 {
            return Ok(true);
        }
    }
    Ok(false)
}
