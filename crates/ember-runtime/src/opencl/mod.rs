//! The OpenCL backend (opencl3, loaded at run time): any ICD, PoCL's CPU device when there is
//! no GPU.

mod device;
mod images;
mod in_flight;
mod info;
mod programs;
mod stream_order;
mod svm;

pub use device::ClDevice;
pub use images::{check_region, ImageRegion, ImageShape};
pub use info::{describe_platforms, PlatformReport};

use cl3::device::{CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU};
use cl3::types::{cl_device_id, cl_device_type, cl_int, cl_platform_id};
use ember_core::{Error, Result};

use crate::backend::Backend;

/// Which OpenCL devices to open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceFilter {
    /// Every device: GPUs first, then accelerators, then CPUs.
    Any,
    GpuOnly,
}

/// An OpenCL error code as an ember error.
pub(crate) fn cl_error(call: &str, code: cl_int) -> Error {
    Error::driver(
        "OpenCL",
        call,
        code as i64,
        cl3::error_codes::error_text(code),
        &advice(code),
    )
}

fn advice(code: cl_int) -> String {
    match code {
        -1001 => {
            "no OpenCL platform is installed (on Debian/Ubuntu: apt-get install pocl-opencl-icd)"
                .into()
        }
        -5 | -6 => "the device ran out of resources".into(),
        -54 => "the work-group size is not valid for this kernel or device".into(),
        _ => "see the OpenCL specification for this error code".into(),
    }
}

fn unavailable(reason: String) -> Error {
    Error::BackendUnavailable {
        backend: "OpenCL".into(),
        reason,
    }
}

/// The platforms' devices in ember's order.
pub(crate) fn list_devices(filter: DeviceFilter) -> Result<Vec<(cl_platform_id, cl_device_id)>> {
    if !cl3::is_opencl_runtime_available() {
        return Err(unavailable(
            "libOpenCL.so.1 (the OpenCL ICD loader) was not found; on Debian/Ubuntu install ocl-icd-libopencl1 and a driver such as pocl-opencl-icd".into(),
        ));
    }
    let platforms = cl3::platform::get_platform_ids().map_err(|c| {
        unavailable(format!(
            "no OpenCL platform ({}); install an ICD such as pocl-opencl-icd",
            cl3::error_codes::error_text(c)
        ))
    })?;
    let order: &[cl_device_type] = match filter {
        DeviceFilter::Any => &[
            CL_DEVICE_TYPE_GPU,
            CL_DEVICE_TYPE_ACCELERATOR,
            CL_DEVICE_TYPE_CPU,
        ],
        DeviceFilter::GpuOnly => &[CL_DEVICE_TYPE_GPU],
    };
    let mut found = Vec::new();
    for &kind in order {
        for &p in &platforms {
            if let Ok(ids) = cl3::device::get_device_ids(p, kind) {
                found.extend(ids.into_iter().map(|d| (p, d)));
            }
        }
    }
    if found.is_empty() {
        let what = if filter == DeviceFilter::GpuOnly {
            "GPU"
        } else {
            ""
        };
        return Err(unavailable(format!(
            "{} OpenCL platform(s) found but no {what} device",
            platforms.len()
        )));
    }
    Ok(found)
}

/// Opens the OpenCL devices that pass `filter`.
pub fn open_devices(filter: DeviceFilter) -> Result<Vec<Box<dyn Backend>>> {
    open_devices_from(0, filter)
}

/// Opens the OpenCL devices that pass `filter`, numbering them from `first`.
pub fn open_devices_from(first: usize, filter: DeviceFilter) -> Result<Vec<Box<dyn Backend>>> {
    list_devices(filter)?
        .into_iter()
        .enumerate()
        .map(|(i, (p, d))| {
            ClDevice::open(first + i, p, d).map(|dev| Box::new(dev) as Box<dyn Backend>)
        })
        .collect()
}
