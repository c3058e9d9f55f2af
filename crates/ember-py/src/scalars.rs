//! Python scalars (`bool`, `int`, `float`, `complex`) read as host scalars: the one reading
//! every binding shares (ufunc operands, kernel arguments, fills, user kernels).

use ember_core::Scalar;
use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt};

/// `value` as a host scalar, or `None` when it is not a Python number. An int is `Int`, else
/// `UInt` (up to 2**64 - 1); past 64 bits it is its nearest float, as NumPy converts it for
/// float operations (an integer parameter refuses it: `ember_kernel::scalar_param`).
pub(crate) fn python_scalar(value: &Bound<'_, PyAny>) -> PyResult<Option<Scalar>> {
    Ok(Some(if value.is_instance_of::<PyBool>() {
        Scalar::Bool(value.is_truthy()?)
    } else if value.is_instance_of::<PyInt>() {
        match value.extract::<i64>() {
            Ok(i) => Scalar::Int(i),
            Err(_) => match value.extract::<u64>() {
                Ok(u) => Scalar::UInt(u),
                Err(_) => Scalar::Float(value.extract::<f64>()?),
            },
        }
    } else if value.is_instance_of::<PyFloat>() {
        Scalar::Float(value.extract()?)
    } else if let Ok(c) = value.cast::<PyComplex>() {
        Scalar::Complex(c.real(), c.imag())
    } else {
        return Ok(None);
    }))
}

/// Whether `value` read by [`python_scalar`] was an int past 64 bits.
pub(crate) fn is_wide_int(value: &Bound<'_, PyAny>, read: Scalar) -> bool {
    matches!(read, Scalar::Float(_)) && value.is_instance_of::<PyInt>()
}

/// The error for an int past 64 bits where its exact value is needed, in NumPy's words.
pub(crate) fn wide_int_error(value: &Bound<'_, PyAny>) -> PyErr {
    PyOverflowError::new_err(format!(
        "Python int too large to convert to C long (got {value}; at most 64 bits)"
    ))
}
