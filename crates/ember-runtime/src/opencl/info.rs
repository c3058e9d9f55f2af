//! Reading OpenCL platform and device properties without panicking on odd drivers.

use cl3::device::get_device_info;
use cl3::info_type::InfoType;
use cl3::platform::get_platform_info;
use cl3::types::{cl_device_id, cl_device_info, cl_platform_id, cl_platform_info};

use super::DeviceFilter;

fn text(value: InfoType) -> String {
    match value {
        InfoType::VecUchar(bytes) => String::from_utf8_lossy(&bytes)
            .trim_end_matches('\0')
            .trim()
            .to_string(),
        other => format!("{other}"),
    }
}

fn number(value: InfoType) -> u64 {
    match value {
        InfoType::Uint(v) => v as u64,
        InfoType::Ulong(v) => v,
        InfoType::Size(v) => v as u64,
        InfoType::Int(v) => v.max(0) as u64,
        _ => 0,
    }
}

pub(crate) fn device_text(d: cl_device_id, what: cl_device_info) -> String {
    get_device_info(d, what).map(text).unwrap_or_default()
}

pub(crate) fn device_number(d: cl_device_id, what: cl_device_info) -> u64 {
    get_device_info(d, what).map(number).unwrap_or(0)
}

pub(crate) fn device_sizes(d: cl_device_id, what: cl_device_info) -> Vec<usize> {
    match get_device_info(d, what) {
        Ok(InfoType::VecSize(v)) => v,
        _ => Vec::new(),
    }
}

pub(crate) fn platform_text(p: cl_platform_id, what: cl_platform_info) -> String {
    get_platform_info(p, what).map(text).unwrap_or_default()
}

/// One platform as `ember info` shows it.
#[derive(Clone, Debug)]
pub struct PlatformReport {
    pub name: String,
    pub version: String,
    /// (device name, type, driver version)
    pub devices: Vec<(String, String, String)>,
}

/// Every OpenCL platform and its devices, or why none could be listed.
pub fn describe_platforms() -> Result<Vec<PlatformReport>, String> {
    use cl3::device::*;
    use cl3::platform::{CL_PLATFORM_NAME, CL_PLATFORM_VERSION};
    let all = super::list_devices(DeviceFilter::Any).map_err(|e| e.to_string())?;
    let mut out: Vec<(cl_platform_id, PlatformReport)> = Vec::new();
    for (p, d) in all {
        let kind = match device_number(d, CL_DEVICE_TYPE) {
            t if t & CL_DEVICE_TYPE_GPU != 0 => "GPU",
            t if t & CL_DEVICE_TYPE_CPU != 0 => "CPU",
            t if t & CL_DEVICE_TYPE_ACCELERATOR != 0 => "accelerator",
            _ => "other",
        };
        let entry = (
            device_text(d, CL_DEVICE_NAME),
            kind.to_string(),
            device_text(d, CL_DRIVER_VERSION),
        );
        match out.iter_mut().find(|(q, _)| *q == p) {
            Some((_, r)) => r.devices.push(entry),
            None => out.push((
                p,
                PlatformReport {
                    name: platform_text(p, CL_PLATFORM_NAME),
                    version: platform_text(p, CL_PLATFORM_VERSION),
                    devices: vec![entry],
                },
            )),
        }
    }
    Ok(out.into_iter().map(|(_, r)| r).collect())
}
