//! Bindings of the matrix products (`ember_array::linalg`).

use ember_array::transpose::{self, Keep};
use ember_array::{lapack, linalg};
use ember_core::DType;
use pyo3::prelude::*;

use crate::array::NativeArray;
use crate::errors::IntoPyResult;

/// NumPy's `matmul(a, b, out=out)` computed in `dtype_name`, conjugating `a` when `conj_a`.
#[pyfunction]
#[pyo3(signature = (a, b, dtype_name, out=None, conj_a=false))]
fn matmul(
    py: Python<'_>,
    a: &NativeArray,
    b: &NativeArray,
    dtype_name: &str,
    out: Option<&NativeArray>,
    conj_a: bool,
) -> PyResult<NativeArray> {
    let dtype = DType::from_name(dtype_name).py()?;
    py.detach(|| linalg::matmul(&a.0, &b.0, dtype, out.map(|o| &o.0), conj_a))
        .py()
        .map(NativeArray)
}

/// Which implementation computes products of `dtype_name` on device `ordinal`: "cublas" or
/// "tiled".
#[pyfunction]
fn matmul_engine(py: Python<'_>, ordinal: usize, dtype_name: &str) -> PyResult<&'static str> {
    let dtype = DType::from_name(dtype_name).py()?;
    let device = ember_runtime::device(ordinal).py()?;
    Ok(py.detach(|| linalg::engine(device, dtype)))
}

/// Rotates the columns of each matrix of `w` ((matrices, columns, rows), float32/float64,
/// C-contiguous, no NaN) in place until they are orthogonal (one-sided Jacobi). Returns
/// whether that converged.
#[pyfunction]
fn orthogonalize_columns(py: Python<'_>, w: &NativeArray) -> PyResult<bool> {
    py.detach(|| ember_array::svd::orthogonalize_columns(&w.0))
        .py()
}

/// LAPACK's factorizations (`ember_array::lapack`) of `(batch, cols, rows)` stacks of
/// column-major matrices; see that module for each one's contract.
#[pyfunction]
fn lapack_getrf(py: Python<'_>, a: &NativeArray) -> PyResult<(NativeArray, NativeArray)> {
    let (pivots, info) = py.detach(|| lapack::getrf(&a.0)).py()?;
    Ok((NativeArray(pivots), NativeArray(info)))
}

/// The inverses of a stack of small matrices and `info` (see `lapack::inverse`).
#[pyfunction]
fn lapack_inverse(py: Python<'_>, a: &NativeArray) -> PyResult<(NativeArray, NativeArray)> {
    let (x, info) = py.detach(|| lapack::inverse(&a.0)).py()?;
    Ok((NativeArray(x), NativeArray(info)))
}

/// The C-ordered `(batch, rows, cols)` form of a column-major `(batch, cols, rows)` stack,
/// keeping its lower (else upper) triangle: a Cholesky factor as NumPy returns it.
#[pyfunction]
fn lapack_triangle(py: Python<'_>, a: &NativeArray, lower: bool) -> PyResult<NativeArray> {
    let keep = if lower { Keep::Lower } else { Keep::Upper };
    py.detach(|| transpose::transposed(&a.0, keep))
        .py()
        .map(NativeArray)
}

#[pyfunction]
fn lapack_getrs(
    py: Python<'_>,
    lu: &NativeArray,
    pivots: &NativeArray,
    b: &NativeArray,
) -> PyResult<()> {
    py.detach(|| lapack::getrs(&lu.0, &pivots.0, &b.0)).py()
}

#[pyfunction]
fn lapack_potrf(py: Python<'_>, a: &NativeArray, lower: bool) -> PyResult<NativeArray> {
    py.detach(|| lapack::potrf(&a.0, lower))
        .py()
        .map(NativeArray)
}

#[pyfunction]
fn lapack_geqrf(py: Python<'_>, a: &NativeArray) -> PyResult<NativeArray> {
    py.detach(|| lapack::geqrf(&a.0)).py().map(NativeArray)
}

#[pyfunction]
fn lapack_orgqr(py: Python<'_>, q: &NativeArray, tau: &NativeArray) -> PyResult<()> {
    py.detach(|| lapack::orgqr(&q.0, &tau.0)).py()
}

#[pyfunction]
fn lapack_syevd(
    py: Python<'_>,
    a: &NativeArray,
    lower: bool,
    vectors: bool,
) -> PyResult<(NativeArray, NativeArray)> {
    let (w, info) = py.detach(|| lapack::syevd(&a.0, lower, vectors)).py()?;
    Ok((NativeArray(w), NativeArray(info)))
}

type Factors = (
    NativeArray,
    Option<NativeArray>,
    Option<NativeArray>,
    NativeArray,
);

/// `(s, u, vt, info)`.
#[pyfunction]
fn lapack_gesvd(py: Python<'_>, a: &NativeArray, full: bool, vectors: bool) -> PyResult<Factors> {
    let f = py.detach(|| lapack::gesvd(&a.0, full, vectors)).py()?;
    Ok((
        NativeArray(f.s),
        f.u.map(NativeArray),
        f.vt.map(NativeArray),
        NativeArray(f.info),
    ))
}

/// `(w, v, info)`.
#[pyfunction]
fn lapack_geev(
    py: Python<'_>,
    a: &NativeArray,
    vectors: bool,
) -> PyResult<(NativeArray, Option<NativeArray>, NativeArray)> {
    let e = py.detach(|| lapack::geev(&a.0, vectors)).py()?;
    Ok((NativeArray(e.w), e.v.map(NativeArray), NativeArray(e.info)))
}

/// Which engine factors on device `ordinal`: "cusolver" or "ember".
#[pyfunction]
fn lapack_engine(py: Python<'_>, ordinal: usize) -> PyResult<&'static str> {
    let device = ember_runtime::device(ordinal).py()?;
    Ok(py.detach(|| lapack::engine(device)))
}

/// The order up to which stacks of LUs and solves take cuBLAS's batched routines on CUDA;
/// with `limit`, sets it first.
#[pyfunction]
#[pyo3(signature = (limit=None))]
fn lapack_batched_gesv_limit(limit: Option<usize>) -> usize {
    if let Some(limit) = limit {
        lapack::cusolver::set_batched_gesv_limit(limit);
    }
    lapack::cusolver::batched_gesv_limit()
}

/// Gives back cuSOLVER's handles and work areas (they live in ember's pool).
#[pyfunction]
fn lapack_forget(py: Python<'_>) {
    py.detach(lapack::forget)
}

/// Takes ember's own kernels on every device (`on`), or cuSOLVER where it is found.
#[pyfunction]
fn lapack_use_portable(on: bool) {
    lapack::use_portable(on)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(matmul, m)?)?;
    m.add_function(wrap_pyfunction!(matmul_engine, m)?)?;
    m.add_function(wrap_pyfunction!(orthogonalize_columns, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_getrf, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_getrs, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_inverse, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_triangle, m)?)?;
    m.add("LAPACK_INVERSE_LARGEST", lapack::INVERSE_LARGEST)?;
    m.add_function(wrap_pyfunction!(lapack_potrf, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_geqrf, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_orgqr, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_syevd, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_gesvd, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_geev, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_engine, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_use_portable, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_forget, m)?)?;
    m.add_function(wrap_pyfunction!(lapack_batched_gesv_limit, m)?)?;
    Ok(())
}
