//! The CUDA backend: cudarc with dynamic loading, so ember builds and imports with no CUDA
//! installed; NVRTC compiles to cubin for the device's arch.

pub mod blas;
mod device;
pub mod fft;
pub mod link;
pub mod loader;
pub mod nvrtc;
pub mod nvtx;
mod queued;
pub mod solver;
mod staging;

pub use device::CudaDevice;

use cudarc::driver::{result, sys};
use ember_core::{Error, Result};

use crate::backend::Backend;

/// A cudarc driver error as an ember error.
pub(crate) fn driver_error(call: &str, e: result::DriverError) -> Error {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Error::driver("CUDA", call, e.0 as i64, &name, &text)
}

fn unavailable(reason: String) -> Error {
    Error::BackendUnavailable {
        backend: "CUDA".into(),
        reason,
    }
}

/// Loads the driver and initialises it; the reason if that cannot be done.
pub fn init_driver() -> Result<()> {
    let search = loader::search();
    if !search.driver_found || !unsafe { sys::is_culib_present() } {
        return Err(unavailable(
            "libcuda.so.1 (the NVIDIA driver) was not found; this machine has no NVIDIA driver. `ember info` lists where ember looked".into(),
        ));
    }
    result::init().map_err(|e| {
        unavailable(format!(
            "the driver did not start: {}",
            driver_error("cuInit", e)
        ))
    })
}

/// The driver's CUDA version as `13.0`.
pub fn driver_version() -> Result<String> {
    init_driver()?;
    let mut v = 0;
    unsafe { sys::cuDriverGetVersion(&mut v) }
        .result()
        .map_err(|e| driver_error("cuDriverGetVersion", e))?;
    Ok(format!("{}.{}", v / 1000, (v % 1000) / 10))
}

/// Opens every CUDA device.
pub fn open_devices() -> Result<Vec<Box<dyn Backend>>> {
    init_driver()?;
    let count = result::device::get_count().map_err(|e| driver_error("cuDeviceGetCount", e))?;
    if count == 0 {
        return Err(unavailable("the driver reports no CUDA device".into()));
    }
    (0..count as usize)
        .map(|i| CudaDevice::open(i).map(|d| Box::new(d) as Box<dyn Backend>))
        .collect()
}
