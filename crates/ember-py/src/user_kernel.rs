//! Bindings of `ElementwiseKernel` and `ReductionKernel` (CuPy's kernels from C snippets).

use ember_array::user_kernel::{ElementwiseKernel, ReductionKernel, UserArg};
use ember_core::{DType, Scalar};
use ember_kernel::Rounding;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::array::{scalar, NativeArray};
use crate::errors::IntoPyResult;

fn device(ordinal: usize) -> PyResult<&'static ember_runtime::Device> {
    ember_runtime::device(ordinal).py()
}

/// One call argument: a native array, or `(value, dtype name or None)` for a scalar (the
/// Python side unwraps `ember.ndarray` and NumPy scalars).
fn user_arg(value: &Bound<'_, PyAny>) -> PyResult<UserArg> {
    if let Ok(a) = value.cast::<NativeArray>() {
        return Ok(UserArg::Array(a.get().0.clone()));
    }
    if let Ok(t) = value.cast::<PyTuple>() {
        if t.len() == 2 {
            let v: Scalar = scalar(&t.get_item(0)?)?;
            let d: Option<String> = t.get_item(1)?.extract()?;
            let d = d.map(|n| DType::from_name(&n)).transpose().py()?;
            return Ok(UserArg::Scalar(v, d));
        }
    }
    Err(PyTypeError::new_err(format!(
        "Unsupported type {}",
        value.get_type().name()?
    )))
}

fn user_args(args: &Bound<'_, PyTuple>) -> PyResult<Vec<UserArg>> {
    args.iter().map(|a| user_arg(&a)).collect()
}

#[pyclass(name = "ElementwiseKernel", module = "ember._ember", frozen)]
pub struct NativeElementwise(ElementwiseKernel);

#[pymethods]
impl NativeElementwise {
    /// `separate_rounding`: each operation rounded on its own, as NumPy's ufuncs round
    /// (`ember.fuse`); else contracted as the compiler chooses, as CuPy compiles snippets.
    #[new]
    #[pyo3(signature = (in_params, out_params, operation, name, preamble, loop_prep, after_loop, options, separate_rounding=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        in_params: &str,
        out_params: &str,
        operation: &str,
        name: &str,
        preamble: &str,
        loop_prep: &str,
        after_loop: &str,
        options: Vec<String>,
        separate_rounding: bool,
    ) -> PyResult<NativeElementwise> {
        let mut kernel = ElementwiseKernel::new(
            in_params, out_params, operation, name, preamble, loop_prep, after_loop, options,
        )
        .py()?;
        if separate_rounding {
            kernel.rounding = Rounding::Separate;
        }
        Ok(NativeElementwise(kernel))
    }

    #[getter]
    fn nin(&self) -> usize {
        self.0.in_params.len()
    }

    #[getter]
    fn nout(&self) -> usize {
        self.0.out_params.len()
    }

    /// Runs on `args` (native arrays and `(scalar, dtype)` pairs) on device `ordinal` unless
    /// the arrays are elsewhere; returns the outputs.
    #[pyo3(signature = (ordinal, args, size=None))]
    fn call(
        &self,
        py: Python<'_>,
        ordinal: usize,
        args: &Bound<'_, PyTuple>,
        size: Option<usize>,
    ) -> PyResult<Vec<NativeArray>> {
        let dev = device(ordinal)?;
        let args = user_args(args)?;
        let out = py.detach(|| self.0.call(dev, args, size)).py()?;
        Ok(out.into_iter().map(NativeArray).collect())
    }
}

#[pyclass(name = "ReductionKernel", module = "ember._ember", frozen)]
pub struct NativeReduction(ReductionKernel);

#[pymethods]
impl NativeReduction {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name, reduce_type, preamble, options))]
    fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map_expr: &str,
        identity: Option<String>,
        name: &str,
        reduce_type: Option<String>,
        preamble: &str,
        options: Vec<String>,
    ) -> PyResult<NativeReduction> {
        ReductionKernel::new(
            in_params,
            out_params,
            map_expr,
            reduce_expr,
            post_map_expr,
            identity,
            name,
            reduce_type,
            preamble,
            options,
        )
        .py()
        .map(NativeReduction)
    }

    #[getter]
    fn nin(&self) -> usize {
        self.0.in_params.len()
    }

    #[getter]
    fn nout(&self) -> usize {
        self.0.out_params.len()
    }

    #[getter]
    fn reduce_type(&self) -> &str {
        &self.0.reduce_type
    }

    /// Reduces over `axis` (a list of ints, or None for all); returns the first output.
    #[pyo3(signature = (ordinal, args, axis=None, keepdims=false))]
    fn call(
        &self,
        py: Python<'_>,
        ordinal: usize,
        args: &Bound<'_, PyTuple>,
        axis: Option<Vec<isize>>,
        keepdims: bool,
    ) -> PyResult<NativeArray> {
        let dev = device(ordinal)?;
        let args = user_args(args)?;
        py.detach(|| self.0.call(dev, args, axis.as_deref(), keepdims))
            .py()
            .map(NativeArray)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeElementwise>()?;
    m.add_class::<NativeReduction>()?;
    Ok(())
}
