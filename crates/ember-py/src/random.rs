//! Bindings of `ember_array::random::Philox` (the engine of `ember.random`).

use ember_array::random::{Philox, PhiloxState};
use ember_array::sampler::{Slot, Vector};
use ember_codegen::philox::{Distribution, RandomKernel};
use ember_codegen::sampler::laws::{law, Param};
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

    fn exponential(
        &self,
        py: Python<'_>,
        device_ordinal: usize,
        shape: Vec<usize>,
        dtype_name: &str,
        scale: f64,
    ) -> PyResult<NativeArray> {
        let (dev, d) = (device(device_ordinal)?, dtype(dtype_name)?);
        py.detach(|| self.0.exponential(dev, &shape, d, scale))
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

    /// A draw from the law `name` (`ember_codegen::sampler::laws`): `params` are arrays (a
    /// value an item, float64 or int64) or numbers; `vector` is a row law's float64 vector,
    /// one for every row or (`per_row`) one a row.
    #[pyo3(signature = (device_ordinal, name, shape, dtype_name, params, vector=None, per_row=false))]
    #[allow(clippy::too_many_arguments)]
    fn sample(
        &self,
        py: Python<'_>,
        device_ordinal: usize,
        name: &str,
        shape: Vec<usize>,
        dtype_name: &str,
        params: Vec<Bound<'_, PyAny>>,
        vector: Option<PyRef<'_, NativeArray>>,
        per_row: bool,
    ) -> PyResult<NativeArray> {
        let (dev, d) = (device(device_ordinal)?, dtype(dtype_name)?);
        let kinds = law(name).map(|(_, l)| l.params).unwrap_or(&[]);
        let given = params
            .iter()
            .zip(kinds.iter().chain(std::iter::repeat(&Param::Real)))
            .map(|(p, k)| given(p, *k))
            .collect::<PyResult<Vec<_>>>()?;
        let slots: Vec<Slot<'_>> = given
            .iter()
            .map(|g| match g {
                Given::Each(a) => Slot::Each(&a.0),
                Given::Value(bits) => Slot::Value(*bits),
            })
            .collect();
        let vector = vector.as_ref().map(|v| Vector {
            values: &v.0,
            per_row,
        });
        py.detach(|| self.0.sample(dev, name, &shape, d, &slots, vector))
            .py()
            .map(NativeArray)
    }
}

/// A parameter from Python: an array, or a value read as the law's parameter type says.
enum Given {
    Each(NativeArray),
    Value(u64),
}

fn given(value: &Bound<'_, PyAny>, param: Param) -> PyResult<Given> {
    if let Ok(a) = value.extract::<PyRef<'_, NativeArray>>() {
        return Ok(Given::Each(NativeArray(a.0.clone())));
    }
    Ok(Given::Value(match param {
        Param::Real => value.extract::<f64>()?.to_bits(),
        Param::Int => value.extract::<i128>()? as u64,
    }))
}

/// The source of a random kernel ("uniform", "normal", "exponential" or "integers") in a dialect, for
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
        "exponential" => Distribution::Exponential,
        "integers" => Distribution::Integers,
        other => {
            return Err(PyValueError::new_err(format!(
                "no distribution {other:?}; use uniform, normal, exponential or integers"
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
