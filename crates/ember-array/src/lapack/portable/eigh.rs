//! `syevd` by one-sided Jacobi on the shifted matrix `A + sigma I` (why that, and not the
//! two-sided method: `ember_codegen::lapack::jacobi`). Only the columns of a pair move in a
//! step, so a step is one launch over every matrix of the batch, and no rotations need to be
//! accumulated: the eigenvectors are the rotated columns, normalised.

use ember_codegen::lapack::jacobi::{Part, EIGH, HERMITIAN, SHIFT, VECTORS};
use ember_core::{DType, Error, Result};

use crate::array::Array;
use crate::lapack::dims;
use crate::svd::{launch, sweep, Matrices};

pub fn syevd(a: &Array, lower: bool, vectors: bool) -> Result<(Array, Array)> {
    let (batch, n, rows) = dims(a, "syevd")?;
    if n != rows {
        return Err(Error::Value(format!(
            "syevd takes square matrices, got {rows} x {n}"
        )));
    }
    let device = a.device();
    let dtype = a.dtype();
    let w = Array::empty(device, &[batch, n], real_of(dtype))?;
    let work = Array::empty(device, &[batch, n, n], dtype)?;
    let aux = Array::empty(device, &[batch, n + 1], DType::F64)?;
    let norm2 = Array::empty(device, &[batch, n], DType::F64)?;
    let nn = (n * n) as i64;
    let (b, n64) = (batch, n as i64);
    launch(
        Part::Prepare,
        dtype,
        (b, n),
        &[&work, a, &aux],
        &[nn, nn, n64, n64, HERMITIAN, lower as i64],
    )?;
    launch(
        Part::Prepare,
        dtype,
        (b, 1),
        &[&work, a, &aux],
        &[nn, nn, n64, n64, SHIFT, 0],
    )?;
    let info = sweep(Matrices::stack(&work), None, &norm2, true)?;
    let op = EIGH | if vectors { VECTORS } else { 0 };
    launch(
        Part::Finish,
        dtype,
        (b, n),
        &[&work, &work, &norm2, &aux, &w, a, a],
        &[nn, n64, n64, 0, 0, nn, 0, op],
    )?;
    Ok((w, info))
}

/// The real dtype of `dtype`'s values (eigenvalues, singular values).
pub(super) fn real_of(dtype: DType) -> DType {
    match dtype {
        DType::C64 | DType::F32 => DType::F32,
        _ => DType::F64,
    }
}
