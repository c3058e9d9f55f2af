//! LAPACK's factorizations of batches of matrices, the engine of `ember.linalg`: cuSOLVER on
//! CUDA devices (when it is found, [`cusolver`]), ember's own kernels on every device
//! ([`portable`]: blocked LU and Cholesky, Householder QR, Jacobi eigh and SVD).
//!
//! Every function takes and returns matrices as LAPACK does, column after column: an `Array`
//! of shape `(batch, cols, rows)`, C-contiguous, holds `batch` matrices of `rows x cols`, each
//! stored column-major with leading dimension `rows`. (The Python layer passes `swapaxes(a,
//! -1, -2)` of a C-ordered stack.) Dtypes: float32, float64, complex64, complex128. `info`
//! arrays are int32 of shape `(batch,)` with LAPACK's meaning; the functions themselves never
//! read them on the host (no synchronization): the Python layer decides what to raise.

use std::sync::atomic::{AtomicBool, Ordering};

use ember_core::{DType, Error, Result};
use ember_runtime::{BackendKind, Device};

use crate::array::Array;

pub mod cusolver;
pub mod portable;

/// The factors of [`svd`].
pub struct Svd {
    /// Singular values, real, `(batch, k)`, descending (`k = min(rows, cols)`).
    pub s: Array,
    /// Left singular vectors, `(batch, ucols, rows)`: `ucols = rows` when `full`, else `k`.
    pub u: Option<Array>,
    /// Right singular vectors transposed (conjugated), `(batch, cols, vrows)`: `vrows = cols`
    /// when `full`, else `k`.
    pub vt: Option<Array>,
    /// 0, or the number of superdiagonals that did not converge (LAPACK's `xGESVD`).
    pub info: Array,
}

/// The eigen-decomposition of [`eig`]: complex eigenvalues `(batch, n)` and, when asked,
/// right eigenvectors `(batch, n, n)` (complex, columns of unit 2-norm), and `info`.
pub struct Eig {
    pub w: Array,
    pub v: Option<Array>,
    pub info: Array,
}

static PORTABLE: AtomicBool = AtomicBool::new(false);

/// Takes ember's own kernels on every device, CUDA included (measuring them against
/// cuSOLVER, and testing them on NVIDIA), or goes back to cuSOLVER where it is found.
pub fn use_portable(on: bool) {
    PORTABLE.store(on, Ordering::Relaxed);
}

/// Gives back what the engines keep between calls (cuSOLVER's handles and their work areas,
/// which live in ember's pool).
pub fn forget() {
    cusolver::forget();
}

/// Which engine factors on `device`: `"cusolver"` or `"ember"`.
pub fn engine(device: &'static Device) -> &'static str {
    if device.kind() == BackendKind::Cuda
        && !PORTABLE.load(Ordering::Relaxed)
        && cusolver::available()
    {
        "cusolver"
    } else {
        "ember"
    }
}

fn vendor(a: &Array) -> bool {
    engine(a.device()) == "cusolver"
}

/// `(batch, cols, rows)` of a stack of column-major matrices, checked.
pub(crate) fn dims(a: &Array, what: &str) -> Result<(usize, usize, usize)> {
    let &[batch, cols, rows] = a.shape() else {
        return Err(Error::Value(format!(
            "{what} takes a (batch, cols, rows) stack of column-major matrices, got {} axes",
            a.ndim()
        )));
    };
    if !a.is_c_contiguous() {
        return Err(Error::Value(format!("{what} needs a C-contiguous stack")));
    }
    if !matches!(
        a.dtype(),
        DType::F32 | DType::F64 | DType::C64 | DType::C128
    ) {
        return Err(Error::Type(format!(
            "{what} factors float32, float64, complex64 or complex128 matrices, not {}",
            a.dtype().name()
        )));
    }
    Ok((batch, cols, rows))
}

/// LU with partial pivoting of each square matrix of `a` (`(batch, n, n)`), in place: the
/// unit lower triangle L below the diagonal, U on and above it. Returns the pivots (int32
/// `(batch, n)`, LAPACK's 1-based row interchanges) and `info` (`i > 0`: `U[i-1, i-1]` is
/// exactly zero).
pub fn getrf(a: &Array) -> Result<(Array, Array)> {
    if vendor(a) {
        cusolver::getrf(a)
    } else {
        portable::getrf(a)
    }
}

/// The largest order [`inverse`] takes.
pub const INVERSE_LARGEST: usize = portable::INVERSE_LARGEST;

/// The inverse of each square matrix of `a` (`(batch, n, n)`, `n <= INVERSE_LARGEST`, in
/// either order: the inverse of the transpose is the transpose of the inverse), by
/// Gauss-Jordan elimination with partial pivoting, all of them in one launch (ember's
/// kernel on every engine: for small matrices it outruns a factorization and a solve).
/// Returns the inverses (a new stack) and `info` (`getrf`'s meaning: `i > 0`, the `i`-th
/// pivot is exactly zero and the matrix is singular).
pub fn inverse(a: &Array) -> Result<(Array, Array)> {
    portable::inverse(a)
}

/// Solves `A X = B` for each matrix, given [`getrf`]'s factors `lu` and `pivots`; `b`
/// (`(batch, nrhs, n)`) is overwritten by `X`.
pub fn getrs(lu: &Array, pivots: &Array, b: &Array) -> Result<()> {
    if vendor(lu) {
        cusolver::getrs(lu, pivots, b)
    } else {
        portable::getrs(lu, pivots, b)
    }
}

/// Cholesky factor of each Hermitian positive-definite matrix of `a` (`(batch, n, n)`), in
/// place, reading and writing only the `lower` (else upper) triangle (column-major sense: the
/// lower triangle holds `L` with `A = L L^H`, the upper `U` with `A = U^H U`); the other
/// triangle is left as it was. Returns `info` (`i > 0`: the leading minor of order `i` is not
/// positive definite).
pub fn potrf(a: &Array, lower: bool) -> Result<Array> {
    if vendor(a) {
        cusolver::potrf(a, lower)
    } else {
        portable::potrf(a, lower)
    }
}

/// Householder QR of each `rows x cols` matrix of `a` (`(batch, cols, rows)`), in place as
/// LAPACK's `xGEQRF` leaves it: R on and above the diagonal, the reflectors' vectors below
/// it. Returns `tau`, `(batch, min(rows, cols))`, `a`'s dtype.
pub fn geqrf(a: &Array) -> Result<Array> {
    if vendor(a) {
        cusolver::geqrf(a)
    } else {
        portable::geqrf(a)
    }
}

/// Forms the first `qcols` columns of Q from [`geqrf`]'s reflectors (LAPACK's `xORGQR` /
/// `xUNGQR`): `q` (`(batch, qcols, rows)`, `k <= qcols <= rows` where `k` is `tau`'s length)
/// holds the reflectors in its first `k` columns and is overwritten by Q's columns.
pub fn orgqr(q: &Array, tau: &Array) -> Result<()> {
    if vendor(q) {
        cusolver::orgqr(q, tau)
    } else {
        portable::orgqr(q, tau)
    }
}

/// Eigenvalues (ascending, real, `(batch, n)`) of each Hermitian matrix of `a` (`(batch, n,
/// n)`), of which only the `lower` (else upper) triangle is read; with `vectors`, `a` is
/// overwritten by the orthonormal eigenvectors (column `j` for eigenvalue `j`). Returns
/// `(w, info)`.
pub fn syevd(a: &Array, lower: bool, vectors: bool) -> Result<(Array, Array)> {
    if vendor(a) {
        cusolver::syevd(a, lower, vectors)
    } else {
        portable::syevd(a, lower, vectors)
    }
}

/// Singular value decomposition of each `rows x cols` matrix of `a` (`(batch, cols, rows)`,
/// destroyed), `A = U diag(s) V^H` (see [`Svd`]).
pub fn gesvd(a: &Array, full: bool, vectors: bool) -> Result<Svd> {
    if vendor(a) {
        cusolver::gesvd(a, full, vectors)
    } else {
        portable::gesvd(a, full, vectors)
    }
}

/// Eigenvalues and right eigenvectors of each general square matrix of `a` (`(batch, n, n)`,
/// destroyed), LAPACK's `xGEEV`.
pub fn geev(a: &Array, vectors: bool) -> Result<Eig> {
    if vendor(a) {
        cusolver::geev(a, vectors)
    } else {
        portable::geev(a, vectors)
    }
}
