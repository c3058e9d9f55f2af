//! Bindings of the FFT passes (`ember_array::fft`), the engine of `ember.fft`.

use pyo3::prelude::*;

use crate::array::NativeArray;
use crate::errors::IntoPyResult;

/// The DFT of each row (last axis) of a C-contiguous complex array, unnormalized; by
/// ember's passes when `passes`, else by the device's engine; `shared_rows` takes the
/// shared-memory row kernel on every device where the length fits (tests).
#[pyfunction]
#[pyo3(signature = (a, inverse, passes=false, shared_rows=false))]
fn fft_c2c(
    py: Python<'_>,
    a: &NativeArray,
    inverse: bool,
    passes: bool,
    shared_rows: bool,
) -> PyResult<NativeArray> {
    use ember_array::fft::{c2c, Rows};
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

/// Drops the kept twiddle tables and cuFFT plans.
#[pyfunction]
fn fft_forget(py: Python<'_>) {
    py.detach(ember_array::fft::forget)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fft_c2c, m)?)?;
    m.add_function(wrap_pyfunction!(fft_radices, m)?)?;
    m.add_function(wrap_pyfunction!(fft_engine, m)?)?;
    m.add_function(wrap_pyfunction!(fft_forget, m)?)?;
    Ok(())
}
