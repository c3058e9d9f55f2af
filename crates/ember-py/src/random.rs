//! Bindings of `ember_array::random::Philox` (the engine of `ember.random`).

use ember_array::random::{Philox, PhiloxState};
use ember_codegen::philox::{Distribution, RandomKernel};
use ember_codegen::Dialect;
use ember_core::DType;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::NativeArray;
use crate::errors::IntoPyResult;

fn device(ordinal: usize) -> PyResult<&'static ember_runtime::Device> {
    ember_runtime::device(ordinal).py()
}

fn dtype(name: &str) -> PyResult<DType> {
    DType::from_name(name).py()
}

/// A Philox4x32-10 generator: a seed and the offset of its next draw.
#[pyclass(name = "Philox", module = "ember._ember", frozen)]
pub struct NativePhilox(Philox);

#[pymethods]
impl NativePhilox {
    #[new]
    fn new(seed: u64) -> NativePhilox {
        NativePhilox(Philox::new(seed))
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.0.state().seed
    }

    #[getter]
    fn offset(&self) -> u64 {
        self.0.state().offset
    }

    fn set_state(&self, seed: u64, offset: u64) {
        self.0.set_state(PhiloxState { seed, offset });
    }

    fn uniform(
        &self,
        py: Python<'_>,
        device_ordinal: usize,
        shape: Vec<usize>,
        dtype_name: &str,
        low: f64,
        high: f64,
    ) -> PyResult<NativeArray> {
        let (dev, d) = (device(device_ordinal)?, dtype(dtype_name)?);
        py.detach(|| self.0.uniform(dev, &shape, d, low, high))
            .py()
            .map(NativeArray)
    }

    fn normal(
        &self,
        py: Python<'_>,
        device_ordinal: usize,
        shape: Vec<usize>,
        dtype_name: &str,
        loc: f64,
        scale: f64,
    ) -> PyResult<NativeArray> {
        let (dev, d) = (device(device_ordinal)?, dtype(dtype_name)?);
        py.detach(|| self.0.normal(dev, &shape, d, loc, scale))
            .py()
            .map(NativeArray)
    }

    fn integers(
        &self,
        py: Python<'_>,
        device_ordinal: usize,
        shape: Vec<usize>,
        dtype_name: &str,
        low: i128,
        high: i128,
    ) -> PyResult<NativeArray> {
        let (dev, d) = (device(device_ordinal)?, dtype(dtype_name)?);
        py.detach(|| self.0.integers(dev, &shape, d, low, high))
            .py()
            .map(NativeArray)
    }
}

/// The source of a random kernel ("uniform", "normal" or "integers") in a dialect, for
/// compile checks without a device.
#[pyfunction]
fn random_source(
    distribution: &str,
    dtype_name: &str,
    vector: bool,
    dialect: &str,
) -> PyResult<String> {
    let distribution = match distribution {
        "uniform" => Distribution::Uniform,
        "normal" => Distribution::Normal,
        "integers" => Distribution::Integers,
        other => {
            return Err(PyValueError::new_err(format!(
                "no distribution {other:?}; use uniform, normal or integers"
            )))
        }
    };
    let d = Dialect::named(dialect).ok_or_else(|| {
        PyValueError::new_err(format!("no dialect {dialect:?}; use cuda or opencl"))
    })?;
    let spec = RandomKernel {
        distribution,
        dtype: dtype(dtype_name)?,
        vector,
    };
    Ok(spec.source(d))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativePhilox>()?;
    m.add_function(wrap_pyfunction!(random_source, m)?)?;
    Ok(())
}
