//! Cholesky factorization (LAPACK's `xPOTRF`) by ember's kernels: matrices of order up to
//! [`Shape::small`](ember_codegen::lapack::triangular::Shape) whole in local memory, one
//! launch for the batch; larger ones blocked, right-looking: the diagonal block factored in
//! local memory, the panel by a triangular solve, the trailing Hermitian update in place by
//! `linalg::matmul_into` in a few column slabs, each slab computing its own triangle's rows
//! only (a quarter more work than the triangle, against twice as much for the full square)
//! and storing only the triangle's elements.

use ember_core::{DType, Error, Result, Scalar};

use super::lu::{swapped, Block, Engine, CONJ_LOWER};
use crate::array::Array;
use crate::creation::fill;
use crate::lapack::dims;
use crate::linalg::{matmul_into, Triangle, Update};

/// Column slabs of a trailing update of order `m` (blocks of `nb`): one where the square is
/// small, up to four.
fn slabs(m: usize, nb: usize) -> usize {
    (m / (4 * nb)).clamp(1, 4)
}

/// See [`crate::lapack::potrf`].
pub fn potrf(a: &Array, lower: bool) -> Result<Array> {
    let (batch, cols, n) = dims(a, "potrf")?;
    if cols != n {
        return Err(Error::Value(format!(
            "potrf factors square matrices, got {n} x {cols}"
        )));
    }
    let device = a.device();
    let info = Array::empty(device, &[batch], DType::I32)?;
    if batch == 0 {
        return Ok(info);
    }
    fill(&info, Scalar::Int(0))?;
    if n == 0 {
        return Ok(info);
    }
    let engine = Engine::new(device, a.dtype(), batch)?;
    if n <= engine.plan.shape.small {
        engine.cholesky_block(a, &info, 0, n, lower)?;
        return Ok(info);
    }
    blocked(&engine, a, &info, lower, (0, n), engine.plan.chol_nb)?;
    engine.report(&format!("potrf {batch} x {n}^2"));
    Ok(info)
}

/// Blocked Cholesky of the diagonal block of rows and columns `k0..k1` of each matrix, `nb`
/// columns a step: diagonal blocks of up to `plan.chol_leaf` in local memory, larger ones
/// blocked again (GPUs take steps of 128, so that the products are deep, and leaves of 64).
fn blocked(
    engine: &Engine,
    a: &Array,
    info: &Array,
    lower: bool,
    (k0, k1): (usize, usize),
    nb: usize,
) -> Result<()> {
    let n = a.shape()[2];
    let at = |r0, c0| Block { array: a, r0, c0 };
    let leaf = engine.plan.chol_leaf;
    for k in (k0..k1).step_by(nb) {
        let kb = nb.min(k1 - k);
        let next = k + kb;
        if kb <= leaf {
            engine.cholesky_block(a, info, k, kb, lower)?;
        } else {
            engine.timed("diagonal (whole)", || {
                blocked(engine, a, info, lower, (k, next), leaf)
            })?;
        }
        let m = k1 - next;
        if m == 0 {
            break;
        }
        if lower {
            // A21 L11^H = A21: each row x of A21 solves conj(L11) x^T = a^T.
            engine.solve(
                at(k, k),
                (1, n),
                at(next, k),
                (n, 1),
                m,
                kb,
                info,
                CONJ_LOWER,
            )?;
        } else {
            // U11^H U12 = A12: each column of A12, with the triangle read transposed.
            engine.solve(
                at(k, k),
                (n, 1),
                at(k, next),
                (1, n),
                m,
                kb,
                info,
                CONJ_LOWER,
            )?;
        }
        engine.timed("Update", || trailing_update(a, (k, next, k1), lower))?;
    }
    Ok(())
}

/// `A22 -= A21 A21^H` (lower) or `A22 -= U12^H U12` (upper) on the triangle of the trailing
/// matrix (rows and columns `next..n`), the panel in columns (rows, for upper) `k..next`.
fn trailing_update(a: &Array, (k, next, n): (usize, usize, usize), lower: bool) -> Result<()> {
    let (m, kb) = (n - next, next - k);
    let parts = slabs(m, kb);
    let at = |r0, c0| Block { array: a, r0, c0 };
    for p in 0..parts {
        let (j0, j1) = (next + m * p / parts, next + m * (p + 1) / parts);
        if lower {
            // Columns j0..j1, rows j0..n, through the C-ordered views (the transposes):
            // C^T[j][i] -= sum_r conj(A21[j, r]) A21[i, r], kept where i >= j.
            let update = Update {
                conj_a: true,
                subtract: true,
                triangle: Triangle::Upper(0),
            };
            matmul_into(
                &swapped(&at(j0, k).transposed_view(j1 - j0, kb)?)?,
                &at(j0, k).transposed_view(n - j0, kb)?,
                &at(j0, j0).transposed_view(n - j0, j1 - j0)?,
                update,
            )?;
        } else {
            // Columns j0..j1, rows next..j1, as they are: C[i][j] -= sum_r conj(U12[r, i])
            // U12[r, j], kept where next + i <= j0 + j.
            let update = Update {
                conj_a: true,
                subtract: true,
                triangle: Triangle::Upper(next as isize - j0 as isize),
            };
            matmul_into(
                &at(k, next).transposed_view(kb, j1 - next)?,
                &swapped(&at(k, j0).transposed_view(kb, j1 - j0)?)?,
                &swapped(&at(next, j0).transposed_view(j1 - next, j1 - j0)?)?,
                update,
            )?;
        }
    }
    Ok(())
}
