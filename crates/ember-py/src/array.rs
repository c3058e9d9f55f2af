//! Bindings of `ember_array::Array` and the array constructors.

use ember_array::{creation, Array};
use ember_core::{DType, Scalar};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::errors::IntoPyResult;
use crate::scalars::{is_wide_int, python_scalar, wide_int_error};

/// A device array (the Python `ember.ndarray` holds one).
#[pyclass(name = "Array", module = "ember._ember", frozen)]
pub struct NativeArray(pub Array);

fn device(ordinal: usize) -> PyResult<&'static ember_runtime::Device> {
    ember_runtime::device(ordinal).py()
}

fn dtype(name: &str) -> PyResult<DType> {
    DType::from_name(name).py()
}

/// A Python scalar (bool, int, float, complex) as a host scalar, exactly.
pub fn scalar(value: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    match python_scalar(value)? {
        Some(s) if is_wide_int(value, s) => Err(wide_int_error(value)),
        Some(s) => Ok(s),
        None => Err(PyTypeError::new_err(format!(
            "expected a bool, int, float or complex scalar, got {}",
            value.get_type().name()?
        ))),
    }
}

#[pymethods]
impl NativeArray {
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.0.shape().to_vec()
    }
    #[getter]
    fn strides(&self) -> Vec<isize> {
        self.0.strides().to_vec()
    }
    #[getter]
    fn dtype(&self) -> &'static str {
        self.0.dtype().name()
    }
    #[getter]
    fn offset(&self) -> usize {
        self.0.offset()
    }
    /// Address of element (0, ..., 0).
    #[getter]
    fn address(&self) -> u64 {
        self.0.address()
    }
    /// Which buffer the array views (an identity to compare, not an address: reading it
    /// neither finishes pending work nor hands the memory out).
    #[getter]
    fn buffer_id(&self) -> usize {
        std::sync::Arc::as_ptr(self.0.buffer()) as usize
    }
    /// Address of the start of the underlying buffer.
    #[getter]
    fn buffer_address(&self) -> u64 {
        self.0.buffer().address()
    }
    /// The backend's handle of the memory (a `cl_mem`; CUDA's device pointer), handed out:
    /// from now on ember orders its work on it as for an exposed address.
    #[getter]
    fn memory_handle(&self) -> PyResult<u64> {
        let _ = self.0.buffer().address();
        self.0.buffer().handle().py()
    }
    #[getter]
    fn buffer_nbytes(&self) -> usize {
        self.0.buffer().len()
    }
    #[getter]
    fn device(&self) -> usize {
        self.0.device().info().ordinal
    }
    #[getter]
    fn c_contiguous(&self) -> bool {
        self.0.is_c_contiguous()
    }
    #[getter]
    fn f_contiguous(&self) -> bool {
        self.0.is_f_contiguous()
    }
    #[getter]
    fn owns_pool_memory(&self) -> bool {
        self.0.buffer().is_pooled()
    }

    fn copy(&self, py: Python<'_>) -> PyResult<NativeArray> {
        py.detach(|| self.0.copy()).py().map(NativeArray)
    }

    fn astype(&self, py: Python<'_>, dtype_name: &str) -> PyResult<NativeArray> {
        let d = dtype(dtype_name)?;
        py.detach(|| self.0.astype(d)).py().map(NativeArray)
    }

    /// Writes this array's elements, converted, into `dst` of the same shape (any layouts,
    /// overlapping or not).
    fn copy_into(&self, py: Python<'_>, dst: &NativeArray) -> PyResult<()> {
        py.detach(|| ember_array::shape::copy::assign(&self.0, &dst.0))
            .py()
    }

    fn fill(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = scalar(value)?;
        py.detach(|| ember_array::shape::copy::fill(&self.0, v))
            .py()
    }

    /// A view with another shape, byte strides, byte offset in the buffer and dtype.
    fn view(
        &self,
        shape: Vec<usize>,
        strides: Vec<isize>,
        offset: usize,
        dtype_name: &str,
    ) -> PyResult<NativeArray> {
        self.0
            .view(&shape, &strides, offset, dtype(dtype_name)?)
            .py()
            .map(NativeArray)
    }

    /// Copies `nbytes` of C-ordered host memory at `address` into the array. The caller keeps
    /// that memory alive for the call.
    fn set_from_host(&self, py: Python<'_>, address: usize, nbytes: usize) -> PyResult<()> {
        let src = unsafe { std::slice::from_raw_parts(address as *const u8, nbytes) };
        py.detach(|| self.0.set_from_host(src)).py()
    }

    /// Copies the array, in C order, to `nbytes` of host memory at `address`.
    fn to_host(&self, py: Python<'_>, address: usize, nbytes: usize) -> PyResult<()> {
        let dst = unsafe { std::slice::from_raw_parts_mut(address as *mut u8, nbytes) };
        py.detach(|| self.0.to_host(dst)).py()
    }
}

#[pyfunction]
fn empty(
    py: Python<'_>,
    device_ordinal: usize,
    shape: Vec<usize>,
    dtype_name: &str,
) -> PyResult<NativeArray> {
    let (dev, d) = (device(device_ordinal)?, dtype(dtype_name)?);
    py.detach(|| Array::empty(dev, &shape, d))
        .py()
        .map(NativeArray)
}

#[pyfunction]
fn full(
    py: Python<'_>,
    device_ordinal: usize,
    shape: Vec<usize>,
    dtype_name: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<NativeArray> {
    let (dev, d, v) = (device(device_ordinal)?, dtype(dtype_name)?, scalar(value)?);
    py.detach(|| creation::full(dev, &shape, d, v))
        .py()
        .map(NativeArray)
}

/// NumPy's `arange` fill from its first two values (already in the dtype).
#[pyfunction]
fn arange(
    py: Python<'_>,
    device_ordinal: usize,
    first: &Bound<'_, PyAny>,
    second: &Bound<'_, PyAny>,
    n: usize,
    dtype_name: &str,
) -> PyResult<NativeArray> {
    let (dev, d) = (device(device_ordinal)?, dtype(dtype_name)?);
    let (a, b) = (scalar(first)?, scalar(second)?);
    py.detach(|| creation::arange(dev, a, b, n, d))
        .py()
        .map(NativeArray)
}

/// NumPy's `linspace`: `start`, `stop`, `scale` and `divisor` (see [`creation::Linspace`])
/// are values of `compute_name`, the dtype NumPy computes in, as NumPy computes them.
#[pyfunction]
#[pyo3(signature = (device_ordinal, num, endpoint, start, stop, scale, divisor, compute_name, dtype_name))]
#[allow(clippy::too_many_arguments)]
fn linspace(
    py: Python<'_>,
    device_ordinal: usize,
    num: usize,
    endpoint: bool,
    start: &Bound<'_, PyAny>,
    stop: &Bound<'_, PyAny>,
    scale: &Bound<'_, PyAny>,
    divisor: Option<&Bound<'_, PyAny>>,
    compute_name: &str,
    dtype_name: &str,
) -> PyResult<NativeArray> {
    let (dev, d) = (device(device_ordinal)?, dtype(dtype_name)?);
    let spec = creation::Linspace {
        start: scalar(start)?,
        stop: scalar(stop)?,
        scale: scalar(scale)?,
        divisor: divisor.map(scalar).transpose()?,
        num,
        endpoint,
        compute: dtype(compute_name)?,
    };
    py.detach(|| creation::linspace(dev, &spec, d))
        .py()
        .map(NativeArray)
}

/// Views memory owned by `owner` (kept alive by the array) at `address`.
#[pyfunction]
#[pyo3(signature = (device_ordinal, address, shape, strides, dtype_name, owner))]
fn from_foreign(
    device_ordinal: usize,
    address: u64,
    shape: Vec<usize>,
    strides: Option<Vec<isize>>,
    dtype_name: &str,
    owner: Py<PyAny>,
) -> PyResult<NativeArray> {
    let (dev, d) = (device(device_ordinal)?, dtype(dtype_name)?);
    Array::from_foreign(
        dev,
        address,
        &shape,
        strides.as_deref(),
        d,
        Some(Box::new(owner)),
    )
    .py()
    .map(NativeArray)
}

/// Checked mode's tests: a 1-d view of `len` elements of `a` that may reach past its buffer
/// (as a bug in planning a view would make). Never use it otherwise.
#[pyfunction]
fn overhanging_view(a: &NativeArray, len: usize) -> NativeArray {
    NativeArray(a.0.overhanging(len))
}

/// Source of one of ember's generated kernels (`kind` "copy" with two dtypes, or "fill" with
/// one), strided over `ndim` axes when `ndim > 0`, in `dialect` ("cuda" or "opencl").
#[pyfunction]
fn generated_source(
    kind: &str,
    dtypes: Vec<String>,
    ndim: usize,
    dialect: &str,
) -> PyResult<String> {
    let d = ember_codegen::Dialect::named(dialect).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "no dialect {dialect:?}; use cuda or opencl"
        ))
    })?;
    let types: Vec<DType> = dtypes.iter().map(|n| dtype(n)).collect::<PyResult<_>>()?;
    let spec = match (kind, types.as_slice()) {
        ("copy", [from, to]) => ember_array::array::copy_spec(*from, *to, d),
        ("fill", [t]) => creation::fill_spec(*t),
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "kind must be 'copy' with two dtypes or 'fill' with one",
            ))
        }
    };
    Ok(spec.source(d, ndim))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(generated_source, m)?)?;
    m.add_class::<NativeArray>()?;
    m.add_function(wrap_pyfunction!(empty, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(linspace, m)?)?;
    m.add_function(wrap_pyfunction!(from_foreign, m)?)?;
    m.add_function(wrap_pyfunction!(overhanging_view, m)?)?;
    Ok(())
}
