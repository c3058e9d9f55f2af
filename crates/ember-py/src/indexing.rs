//! Bindings of the device-side pieces of advanced indexing.

use ember_array::compact::compact;
use pyo3::prelude::*;

use crate::array::NativeArray;
use crate::errors::IntoPyResult;

/// The elements of `values` where `mask` holds (C order), or the flat indices of the true
/// elements when `values` is None.
#[pyfunction]
#[pyo3(signature = (mask, values=None))]
fn mask_compact(
    py: Python<'_>,
    mask: &NativeArray,
    values: Option<&NativeArray>,
) -> PyResult<NativeArray> {
    let (m, v) = (&mask.0, values.map(|v| &v.0));
    py.detach(|| compact(m, v)).py().map(NativeArray)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mask_compact, m)?)?;
    Ok(())
}
