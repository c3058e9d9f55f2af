//! Bindings of `ember_array::result_type`: NumPy 2's promotion and casting rules from the
//! generated tables, for Python code that types a result (matrix products).

use ember_array::result_type::{result_type as promoted, Casting};
use ember_array::ufunc::resolve::OperandType;
use ember_core::DType;
use pyo3::prelude::*;

use crate::errors::IntoPyResult;

/// The dtype NumPy 2 promotes arrays of the dtypes `names` to (`np.result_type`).
#[pyfunction]
fn result_type(names: Vec<String>) -> PyResult<&'static str> {
    let ops = names
        .iter()
        .map(|n| DType::from_name(n).map(OperandType::Strong))
        .collect::<ember_core::Result<Vec<_>>>()
        .py()?;
    Ok(promoted(&ops).py()?.name())
}

/// `np.can_cast(source, target, casting)` for dtype names.
#[pyfunction]
fn can_cast(source: &str, target: &str, casting: &str) -> PyResult<bool> {
    let (f, t) = (
        DType::from_name(source).py()?,
        DType::from_name(target).py()?,
    );
    Ok(Casting::parse(casting).py()?.allows(f, t))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(result_type, m)?)?;
    m.add_function(wrap_pyfunction!(can_cast, m)?)
}
