//! What the integration tests share: finding NVRTC and the default device (each required
//! when CI says so), and moving typed values to and from the device.

#![allow(dead_code)] // each test binary uses its own part

use ember_array::Array;
use ember_core::DType;
use ember_runtime::cuda::nvrtc;
use ember_runtime::Device;

/// Whether NVRTC is here; without it the test is skipped, unless EMBER_REQUIRE_NVRTC=1
/// (set by CI, which installs pip's NVRTC) makes that a failure.
pub fn nvrtc_here() -> bool {
    if nvrtc::ensure().is_ok() {
        return true;
    }
    assert_ne!(
        std::env::var("EMBER_REQUIRE_NVRTC").as_deref(),
        Ok("1"),
        "NVRTC is required here but was not found"
    );
    eprintln!("NVRTC not found; skipping");
    false
}

/// Compiles generated CUDA C for sm_90 as the runtime does (NVRTC's minimal mode first, then
/// the full mode), panicking with the source on failure.
pub fn compile_cuda(source: &str, name: &str) {
    if nvrtc::compile_cubin(source, name, "sm_90", &["-minimal".to_string()]).is_ok() {
        return;
    }
    if let Err(e) = nvrtc::compile_cubin(source, name, "sm_90", &[]) {
        panic!("{name} did not compile: {e}\n{source}");
    }
}

/// The default device with a private kernel cache; `None` (skip) when there is none, unless
/// EMBER_REQUIRE_DEVICE=1 makes that a failure.
pub fn device(cache_tag: &str) -> Option<&'static Device> {
    std::env::set_var(
        "EMBER_CACHE_DIR",
        std::env::temp_dir().join(format!("ember-rust-{cache_tag}-{}", std::process::id())),
    );
    match ember_runtime::device(0) {
        Ok(d) => Some(d),
        Err(e) if std::env::var("EMBER_REQUIRE_DEVICE").as_deref() != Ok("1") => {
            eprintln!("no device ({e}); set EMBER_REQUIRE_DEVICE=1 to make this a failure");
            None
        }
        Err(e) => panic!("no device: {e}"),
    }
}

pub fn upload<T: Copy>(dev: &'static Device, values: &[T], shape: &[usize], dtype: DType) -> Array {
    let a = Array::empty(dev, shape, dtype).unwrap();
    let bytes = unsafe {
        std::slice::from_raw_parts(values.as_ptr() as *const u8, std::mem::size_of_val(values))
    };
    a.set_from_host(bytes).unwrap();
    a
}

pub fn download<T: Copy + Default>(a: &Array) -> Vec<T> {
    let mut out = vec![T::default(); a.size()];
    let bytes = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut u8, a.nbytes()) };
    a.to_host(bytes).unwrap();
    out
}
