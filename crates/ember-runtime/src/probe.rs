//! What `ember info` reports: each backend, its devices and versions, and every library path
//! tried with why it failed. Probing never panics and never fails as a whole.

use crate::cuda;
use crate::opencl;

/// A report on both backends.
#[derive(Clone, Debug)]
pub struct Report {
    /// CUDA: driver version or why there is none.
    pub cuda_driver: Result<String, String>,
    /// CUDA devices (name, arch, memory bytes) or why there are none.
    pub cuda_devices: Result<Vec<(String, String, usize)>, String>,
    pub nvrtc: Result<String, String>,
    /// (library, location, outcome)
    pub library_attempts: Vec<(String, String, Result<(), String>)>,
    pub opencl: Result<Vec<opencl::PlatformReport>, String>,
}

/// Probes both backends. Starts the CUDA driver if one is installed.
pub fn report() -> Report {
    let guarded = std::panic::catch_unwind(|| {
        let cuda_driver = cuda::driver_version().map_err(|e| e.to_string());
        let cuda_devices = cuda_driver.clone().and_then(|_| {
            cuda::open_devices()
                .map(|devs| {
                    devs.iter()
                        .map(|d| {
                            (
                                d.info().name.clone(),
                                d.info().arch.clone(),
                                d.info().total_memory,
                            )
                        })
                        .collect()
                })
                .map_err(|e| e.to_string())
        });
        let nvrtc = cuda::nvrtc::version()
            .map(|(a, b)| format!("{a}.{b}"))
            .map_err(|e| e.to_string());
        let library_attempts = cuda::loader::search()
            .attempts
            .iter()
            .map(|a| (a.library.to_string(), a.location.clone(), a.outcome.clone()))
            .collect();
        Report {
            cuda_driver,
            cuda_devices,
            nvrtc,
            library_attempts,
            opencl: opencl::describe_platforms(),
        }
    });
    guarded.unwrap_or_else(|_| Report {
        cuda_driver: Err("a CUDA library failed while being probed (missing symbol)".into()),
        cuda_devices: Err("not probed".into()),
        nvrtc: Err("not probed".into()),
        library_attempts: Vec::new(),
        opencl: Err("not probed".into()),
    })
}
