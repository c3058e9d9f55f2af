//! Every Rust error variant to its Python exception (the classes live in `ember/errors.py`).

use ember_core::Error;
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

fn raise(
    py: Python<'_>,
    class: &str,
    message: String,
    fill: impl FnOnce(&Bound<'_, PyDict>) -> PyResult<()>,
) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let cls = py.import("ember.errors")?.getattr(class)?;
        let kwargs = PyDict::new(py);
        fill(&kwargs)?;
        let exc = cls.call(PyTuple::new(py, [message.clone()])?, Some(&kwargs))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|e| {
        PyRuntimeError::new_err(format!(
            "{message} (and ember.errors.{class} could not be raised: {e})"
        ))
    })
}

/// NumPy's `AxisError(axis, ndim, msg_prefix)` (a `ValueError` and an `IndexError`).
fn axis_error(
    py: Python<'_>,
    axis: i64,
    ndim: usize,
    prefix: Option<&str>,
    message: String,
) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let cls = py.import("numpy.exceptions")?.getattr("AxisError")?;
        Ok(PyErr::from_value(cls.call1((axis, ndim, prefix))?))
    };
    build().unwrap_or_else(|_| PyValueError::new_err(message))
}

/// The Python exception for an ember error.
pub fn to_py(err: Error) -> PyErr {
    Python::attach(|py| {
        let message = err.to_string();
        match err {
            Error::Compile(c) => raise(py, "CompileError", message, |k| {
                k.set_item("backend", &c.backend)?;
                k.set_item("name", &c.name)?;
                k.set_item("options", c.options.clone())?;
                k.set_item("log", &c.log)?;
                k.set_item("source", &c.source)
            }),
            Error::Driver(d) => raise(py, "DriverError", message, |k| {
                k.set_item("backend", &d.backend)?;
                k.set_item("call", &d.call)?;
                k.set_item("code", d.code)?;
                k.set_item("name", &d.name)?;
                k.set_item("last_kernel", d.last_kernel.clone())
            }),
            Error::BackendUnavailable { backend, .. } => {
                raise(py, "BackendUnavailableError", message, |k| {
                    k.set_item("backend", backend)
                })
            }
            Error::OutOfMemory {
                requested, stats, ..
            } => raise(py, "OutOfMemoryError", message, |k| {
                k.set_item("requested", requested)?;
                k.set_item("used_bytes", stats.used_bytes)?;
                k.set_item("total_bytes", stats.total_bytes)?;
                k.set_item("limit", stats.limit)
            }),
            Error::Value(m) => PyValueError::new_err(m),
            Error::Type(m) => PyTypeError::new_err(m),
            Error::Index(m) => PyIndexError::new_err(m),
            Error::Axis { axis, ndim, prefix } => axis_error(py, axis, ndim, prefix, message),
            Error::Overflow(m) => pyo3::exceptions::PyOverflowError::new_err(m),
            Error::Jit(m) => raise(py, "JitError", m, |_| Ok(())),
            Error::LaunchConfig(m) => raise(py, "LaunchConfigurationError", m, |_| Ok(())),
            Error::Forked(_) => raise(py, "ForkedProcessError", message, |_| Ok(())),
            Error::DeviceReset(m) => raise(py, "DeviceResetError", m, |_| Ok(())),
            Error::OutOfBounds(m) => raise(py, "OutOfBoundsError", m, |_| Ok(())),
            // A kernel's own exception: the dispatcher makes it (see jit.rs); elsewhere, its text.
            Error::Raised(_) => pyo3::exceptions::PyRuntimeError::new_err(message),
        }
    })
}

/// `?` on ember results inside binding functions.
pub trait IntoPyResult<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for ember_core::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
