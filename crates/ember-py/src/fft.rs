//! Bindings of the FFT passes (`ember_array::fft`), the engine of `ember.fft`.

use pyo3::prelude::*;

use crate::array::NativeArray;
use crate::errors::IntoPyResult;

/// The DFT of each row (last axis) of a C-contiguous complex array, unnormalized.
#[pyfunction]
fn fft_c2c(py: Python<'_>, a: &NativeArray, inverse: bool) -> PyResult<NativeArray> {
    py.detach(|| ember_array::fft::c2c(&a.0, inverse))
        .py()
        .map(NativeArray)
}

/// The radices the passes factor `n` into, or None when a prime above 7 divides it.
#[pyfunction]
fn fft_radices(n: usize) -> Option<Vec<usize>> {
    ember_array::fft::radices(n)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fft_c2c, m)?)?;
    m.add_function(wrap_pyfunction!(fft_radices, m)?)?;
    Ok(())
}
