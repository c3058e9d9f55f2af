//! Linking relocatable device code with the CUDA device runtime (`libcudadevrt.a`), which
//! kernels that launch kernels (dynamic parallelism) need, through the driver's linker.

use std::ffi::{c_char, c_uint, c_void, CString};
use std::path::PathBuf;

use cudarc::driver::sys;
use ember_core::{Error, Result};

use super::{driver_error, loader};

const DEVICE_RUNTIME: &str = "libcudadevrt.a";

/// Where the device runtime library is, searched like the other CUDA libraries.
pub fn find_device_runtime() -> Result<PathBuf> {
    let dirs = loader::toolkit_dirs();
    dirs.iter()
        .map(|d| d.join(DEVICE_RUNTIME))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            let looked: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            Error::BackendUnavailable {
                backend: "CUDA".into(),
                reason: format!(
                    "this module launches kernels from the device (dynamic parallelism), which needs the CUDA device runtime {DEVICE_RUNTIME}; it was not found. Install the CUDA toolkit (or `pip install nvidia-cuda-runtime`) or set CUDA_PATH. Looked in: {}",
                    if looked.is_empty() { "(no CUDA folder found)".to_string() } else { looked.join(", ") }
                ),
            }
        })
}

/// Links a relocatable cubin with the device runtime into a loadable cubin. Needs a current
/// context.
pub fn link_with_device_runtime(cubin: &[u8], name: &str) -> Result<Vec<u8>> {
    let runtime = find_device_runtime()?;
    let runtime_c = CString::new(runtime.to_string_lossy().as_bytes())
        .map_err(|_| Error::Value("the device runtime's path contains a NUL byte".into()))?;
    let mut log = vec![0u8; 16 * 1024];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values = [
        log.as_mut_ptr() as *mut c_void,
        log.len() as usize as *mut c_void,
    ];
    let mut state: sys::CUlinkState = std::ptr::null_mut();
    unsafe {
        sys::cuLinkCreate_v2(
            options.len() as c_uint,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
            &mut state,
        )
    }
    .result()
    .map_err(|e| driver_error("cuLinkCreate", e))?;
    let linked = (|| {
        let module_name = CString::new(name).unwrap_or_default();
        let fail = |call: &str, e: cudarc::driver::result::DriverError, log: &[u8]| {
            let text =
                String::from_utf8_lossy(log.split(|&b| b == 0).next().unwrap_or(&[])).into_owned();
            if text.trim().is_empty() {
                driver_error(call, e)
            } else {
                Error::compile("CUDA (link)", name, &["-rdc=true".to_string()], text, "")
            }
        };
        unsafe {
            sys::cuLinkAddData_v2(
                state,
                sys::CUjitInputType::CU_JIT_INPUT_CUBIN,
                cubin.as_ptr() as *mut c_void,
                cubin.len(),
                module_name.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .map_err(|e| fail("cuLinkAddData", e, &log))?;
        unsafe {
            sys::cuLinkAddFile_v2(
                state,
                sys::CUjitInputType::CU_JIT_INPUT_LIBRARY,
                runtime_c.as_ptr() as *const c_char,
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .map_err(|e| fail("cuLinkAddFile", e, &log))?;
        let mut out: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        unsafe { sys::cuLinkComplete(state, &mut out, &mut size) }
            .result()
            .map_err(|e| fail("cuLinkComplete", e, &log))?;
        // The linker owns `out` until cuLinkDestroy: copy it.
        Ok(unsafe { std::slice::from_raw_parts(out as *const u8, size) }.to_vec())
    })();
    unsafe {
        let _ = sys::cuLinkDestroy(state);
    }
    linked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_device_runtime_says_what_to_install() {
        match find_device_runtime() {
            Ok(path) => assert!(path.ends_with(DEVICE_RUNTIME) && path.is_file()),
            Err(e) => {
                let text = e.to_string();
                assert!(
                    text.contains("libcudadevrt.a") && text.contains("Install the CUDA toolkit"),
                    "{text}"
                );
            }
        }
    }
}
