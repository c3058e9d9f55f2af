//! Bindings of the FFT plans (`ember_array::fft`), the engine of `ember.fft`.

use ember_array::fft::{Kind, Layout, Plan, Rows};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::NativeArray;
use crate::errors::IntoPyResult;

fn kind(name: &str) -> PyResult<Kind> {
    match name {
        "C2C" => Ok(Kind::C2C),
        "R2C" => Ok(Kind::R2C),
        "C2R" => Ok(Kind::C2R),
        _ => Err(PyValueError::new_err(format!(
            "an FFT plan's kind is 'C2C', 'R2C' or 'C2R', not {name:?}"
        ))),
    }
}

/// An FFT plan on one device: cuFFT's, or ember's passes for one length.
#[pyclass(name = "FftPlan", module = "ember._ember", frozen)]
pub struct NativeFftPlan(Plan);

#[pymethods]
impl NativeFftPlan {
    /// A cuFFT plan (`cufftMakePlanMany`'s arguments; empty embeds: the packed layout).
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (ordinal, dims, batch, inembed, istride, idist, onembed, ostride, odist, kind_name, double))]
    fn cufft(
        py: Python<'_>,
        ordinal: usize,
        dims: Vec<usize>,
        batch: usize,
        inembed: Vec<usize>,
        istride: usize,
        idist: usize,
        onembed: Vec<usize>,
        ostride: usize,
        odist: usize,
        kind_name: &str,
        double: bool,
    ) -> PyResult<NativeFftPlan> {
        let device = ember_runtime::device(ordinal).py()?;
        let kind = kind(kind_name)?;
        let layout = Layout {
            dims,
            batch,
            inembed,
            istride,
            idist,
            onembed,
            ostride,
            odist,
        };
        py.detach(|| Plan::cufft(device, layout, kind, double))
            .py()
            .map(NativeFftPlan)
    }

    /// A plan of ember's passes: `batch` blocks of `n x inner` complex values transformed
    /// along the axis of `n` (`inner` = 1: rows); `shared_rows` takes the shared-memory tile
    /// passes on every device (tests).
    #[staticmethod]
    #[pyo3(signature = (ordinal, n, batch, double, shared_rows=false, inner=1))]
    fn passes(
        py: Python<'_>,
        ordinal: usize,
        n: usize,
        batch: usize,
        double: bool,
        shared_rows: bool,
        inner: usize,
    ) -> PyResult<NativeFftPlan> {
        let device = ember_runtime::device(ordinal).py()?;
        let rows = if shared_rows {
            Rows::Shared
        } else {
            Rows::Auto
        };
        py.detach(|| Plan::strided(device, n, batch, inner, double, rows))
            .py()
            .map(NativeFftPlan)
    }

    /// Runs the plan from `input` into `output`, unnormalized.
    fn execute(
        &self,
        py: Python<'_>,
        input: &NativeArray,
        output: &NativeArray,
        inverse: bool,
    ) -> PyResult<()> {
        py.detach(|| self.0.execute(&input.0, &output.0, inverse))
            .py()
    }

    /// "cufft" or "passes".
    #[getter]
    fn engine(&self) -> &'static str {
        self.0.engine()
    }

    /// The device's ordinal.
    #[getter]
    fn device(&self) -> usize {
        self.0.device().info().ordinal
    }

    /// Bytes of device memory the plan holds for its work.
    #[getter]
    fn work_bytes(&self) -> usize {
        self.0.work_area().0
    }

    /// The address of the work area (0 for none).
    #[getter]
    fn work_address(&self) -> u64 {
        self.0.work_area().1
    }

    /// The lengths of one transform.
    #[getter]
    fn dims(&self) -> Vec<usize> {
        self.0.layout().dims.clone()
    }

    /// How many transforms one run makes.
    #[getter]
    fn batch(&self) -> usize {
        self.0.layout().batch
    }

    /// "C2C", "R2C" or "C2R".
    #[getter]
    fn kind(&self) -> &'static str {
        match self.0.kind() {
            Kind::C2C => "C2C",
            Kind::R2C => "R2C",
            Kind::C2R => "C2R",
        }
    }
}

/// The DFT of each row (last axis) of a C-contiguous complex array, unnormalized; by
/// ember's passes when `passes`, else by the device's engine; `shared_rows` takes the
/// shared-memory tile passes on every device (tests).
#[pyfunction]
#[pyo3(signature = (a, inverse, passes=false, shared_rows=false))]
fn fft_c2c(
    py: Python<'_>,
    a: &NativeArray,
    inverse: bool,
    passes: bool,
    shared_rows: bool,
) -> PyResult<NativeArray> {
    use ember_array::fft::c2c;
    let rows = if shared_rows {
        Rows::Shared
    } else {
        Rows::Auto
    };
    py.detach(|| c2c(&a.0, inverse, passes, rows))
        .py()
        .map(NativeArray)
}

/// The engine transforms take on device `ordinal`: "cufft" or "passes".
#[pyfunction]
fn fft_engine(py: Python<'_>, ordinal: usize) -> PyResult<&'static str> {
    let device = ember_runtime::device(ordinal).py()?;
    Ok(py.detach(|| ember_array::fft::engine(device)))
}

/// The radices the passes factor `n` into, or None when a prime above 7 divides it.
#[pyfunction]
fn fft_radices(n: usize) -> Option<Vec<usize>> {
    ember_array::fft::radices(n)
}

/// cuFFT's version where it is found, else None.
#[pyfunction]
fn cufft_version(py: Python<'_>) -> Option<i32> {
    py.detach(ember_array::fft::cufft_version)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeFftPlan>()?;
    m.add_function(wrap_pyfunction!(fft_c2c, m)?)?;
    m.add_function(wrap_pyfunction!(fft_radices, m)?)?;
    m.add_function(wrap_pyfunction!(fft_engine, m)?)?;
    m.add_function(wrap_pyfunction!(cufft_version, m)?)?;
    Ok(())
}
