//! Binding of `ember_array::xoroshiro` (the states of `ember.cuda.random`).

use ember_array::xoroshiro::fill_xoroshiro128p_states;
use pyo3::prelude::*;

/// `n` xoroshiro128+ states as Numba's `init_xoroshiro128p_states` makes them: a NumPy uint64
/// array of shape `(n, 2)`, one `(s0, s1)` row per state. NumPy allocates it (and raises its
/// own error when `n` is too large); the states are written without the GIL.
#[pyfunction]
fn xoroshiro128p_states<'py>(
    py: Python<'py>,
    n: usize,
    seed: u64,
    subsequence_start: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let out = py
        .import("numpy")?
        .call_method1("empty", ((n, 2), "uint64"))?;
    let address: usize = out
        .getattr("__array_interface__")?
        .get_item("data")?
        .get_item(0)?
        .extract()?;
    py.detach(|| {
        if n == 0 {
            return;
        }
        // NumPy's fresh C-ordered (n, 2) uint64 array: 2n aligned words that only this call
        // sees until it returns.
        let words = unsafe { std::slice::from_raw_parts_mut(address as *mut u64, 2 * n) };
        fill_xoroshiro128p_states(words, seed, subsequence_start);
    });
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(xoroshiro128p_states, m)?)?;
    Ok(())
}
