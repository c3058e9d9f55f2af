//! `ember._ember`: the native module. Bindings only: each function extracts its arguments,
//! releases the GIL where the call may wait on the device, calls the Rust crates and converts
//! the result back.

mod array;
mod cl_objects;
mod dlpack;
mod errors;
mod fft;
mod host_cache;
mod host_jit;
mod indexing;
mod jit;
mod kernel;
mod launch_args;
mod linalg;
mod numpy_view;
mod operators;
mod promotion;
mod random;
mod raw_kernel;
mod reduction;
mod runtime;
mod scalars;
mod shape;
mod ufunc;
mod user_event;
mod user_kernel;
mod xoroshiro;

use pyo3::prelude::*;

#[pymodule]
fn _ember(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    array::register(m)?;
    cl_objects::register(m)?;
    dlpack::register(m)?;
    fft::register(m)?;
    host_jit::register(m)?;
    kernel::register(m)?;
    launch_args::register(m)?;
    linalg::register(m)?;
    operators::register(m)?;
    promotion::register(m)?;
    raw_kernel::register(m)?;
    reduction::register(m)?;
    ufunc::register(m)?;
    indexing::register(m)?;
    jit::register(m)?;
    random::register(m)?;
    user_kernel::register(m)?;
    runtime::register(m)?;
    shape::register(m)?;
    xoroshiro::register(m)?;
    Ok(())
}
