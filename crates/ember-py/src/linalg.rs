//! Bindings of the matrix products (`ember_array::linalg`).

use ember_array::linalg;
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(matmul, m)?)?;
    m.add_function(wrap_pyfunction!(matmul_engine, m)?)?;
    m.add_function(wrap_pyfunction!(orthogonalize_columns, m)?)?;
    Ok(())
}
