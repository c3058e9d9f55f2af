//! Bindings of the array reductions (`ember_array::reduction`).

use ember_array::reduction::{self, Reduction};
use ember_core::DType;
use pyo3::prelude::*;

use crate::array::NativeArray;
use crate::errors::IntoPyResult;

fn dtype(name: Option<&str>) -> PyResult<Option<DType>> {
    name.map(DType::from_name).transpose().py()
}

/// `op` ("sum", "argmax", ...) of `a` over `axis` (None: every axis).
#[pyfunction]
#[pyo3(signature = (op, a, axis=None, dtype_name=None, out=None, keepdims=false, ddof=0.0))]
#[allow(clippy::too_many_arguments)]
fn reduce(
    py: Python<'_>,
    op: &str,
    a: &NativeArray,
    axis: Option<Vec<isize>>,
    dtype_name: Option<&str>,
    out: Option<&NativeArray>,
    keepdims: bool,
    ddof: f64,
) -> PyResult<NativeArray> {
    let op = Reduction::from_name(op, ddof).py()?;
    let d = dtype(dtype_name)?;
    py.detach(|| reduction::reduce(&a.0, op, axis.as_deref(), d, out.map(|o| &o.0), keepdims))
        .py()
        .map(NativeArray)
}

/// NumPy's `cumsum` (`op` "sum") or `cumprod` ("prod") of `a` along `axis` (None: of the
/// flattened array).
#[pyfunction]
#[pyo3(signature = (op, a, axis=None, dtype_name=None, out=None))]
fn cumulate(
    py: Python<'_>,
    op: &str,
    a: &NativeArray,
    axis: Option<isize>,
    dtype_name: Option<&str>,
    out: Option<&NativeArray>,
) -> PyResult<NativeArray> {
    let op = Reduction::from_name(op, 0.0).py()?;
    let d = dtype(dtype_name)?;
    py.detach(|| reduction::cumulate(op, &a.0, axis, d, out.map(|o| &o.0)))
        .py()
        .map(NativeArray)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(reduce, m)?)?;
    m.add_function(wrap_pyfunction!(cumulate, m)?)?;
    Ok(())
}
