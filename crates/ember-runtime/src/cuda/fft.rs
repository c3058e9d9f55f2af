//! cuFFT through cudarc: plans of batched complex (C2C/Z2Z) and real (R2C/D2Z, C2R/Z2D)
//! transforms of rank 1 to 3, in cuFFT's advanced data layout (`cufftMakePlanMany`).
//!
//! cuFFT is loaded on first use ([`loader::search_cufft`]) and checked before any call, as
//! cuBLAS is (cudarc panics on a missing library or symbol; calls run under `catch_unwind`).
//! A [`Plan`] makes no work area of its own (auto-allocation is off): its owner gives it one
//! from ember's pool ([`Plan::set_work_area`]), so the pool accounts for it and a plan cache
//! can bound it, as CuPy's does. Dropping a plan destroys it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use cudarc::cufft::sys as fft;
use ember_core::{Error, Result};

use super::blas::ContextScope;
use super::loader;
use crate::backend::BackendKind;
use crate::device::Device;

/// Whether cuFFT can be used: found and loadable (searched once).
pub fn available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        let _ = loader::search_cufft();
        catch_unwind(|| unsafe { fft::is_culib_present() }).unwrap_or(false)
    })
}

/// cuFFT's version (`cufftGetVersion`: 11303 for 11.3.3), or `None` where it is not found.
pub fn version() -> Option<i32> {
    if !available() {
        return None;
    }
    let mut version = 0;
    let status = guarded("cufftGetVersion", || unsafe {
        fft::cufftGetVersion(&mut version)
    })
    .ok()?;
    (status == fft::cufftResult::CUFFT_SUCCESS).then_some(version)
}

fn guarded<T>(call: &str, f: impl FnOnce() -> T) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| Error::BackendUnavailable {
        backend: "cuFFT".into(),
        reason: format!("the cuFFT library that was loaded has no usable {call}"),
    })
}

fn check(call: &str, status: fft::cufftResult) -> Result<()> {
    if status == fft::cufftResult::CUFFT_SUCCESS {
        return Ok(());
    }
    let message = match status {
        fft::cufftResult::CUFFT_ALLOC_FAILED => "cuFFT could not allocate memory",
        fft::cufftResult::CUFFT_INVALID_SIZE => "the lengths or batch were rejected",
        fft::cufftResult::CUFFT_INVALID_VALUE => "a layout value was rejected",
        fft::cufftResult::CUFFT_EXEC_FAILED => "the transform's kernel failed to launch",
        _ => "cuFFT call failed",
    };
    Err(Error::driver(
        "cuFFT",
        call,
        status as i64,
        &format!("{status:?}"),
        message,
    ))
}

/// What a plan transforms: complex to complex, real to complex (the `n / 2 + 1` non-negative
/// frequencies of the last dimension) or complex to real.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    C2C,
    R2C,
    C2R,
}

impl Kind {
    fn cufft_type(self, double: bool) -> fft::cufftType {
        use fft::cufftType::*;
        match (self, double) {
            (Kind::C2C, false) => CUFFT_C2C,
            (Kind::R2C, false) => CUFFT_R2C,
            (Kind::C2R, false) => CUFFT_C2R,
            (Kind::C2C, true) => CUFFT_Z2Z,
            (Kind::R2C, true) => CUFFT_D2Z,
            (Kind::C2R, true) => CUFFT_Z2D,
        }
    }
}

/// cuFFT's advanced layout: element `x` of batch `b` of the input is at
/// `b * idist + (x0 * inembed[1] + x1) * inembed[2] + ...) * istride` (elements, not bytes);
/// empty embeds mean the packed layout (strides and distances are then ignored).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// The logical lengths of one transform (the real lengths for R2C and C2R), 1 to 3 of them.
    pub dims: Vec<usize>,
    pub batch: usize,
    pub inembed: Vec<usize>,
    pub istride: usize,
    pub idist: usize,
    pub onembed: Vec<usize>,
    pub ostride: usize,
    pub odist: usize,
}

fn int(value: usize, what: &str) -> Result<i32> {
    i32::try_from(value).map_err(|_| {
        Error::Value(format!(
            "{what} {value} is too large for cuFFT's 32-bit plans"
        ))
    })
}

/// A cuFFT plan on one device. Its work area is set by its owner before it runs.
pub struct Plan {
    ordinal: usize,
    handle: fft::cufftHandle,
    kind: Kind,
    double: bool,
    work_size: usize,
    /// The stream the plan was last given (`u64::MAX`: none yet): setting it again on every
    /// call costs host time that grows with the plan's kernels (tens of microseconds for
    /// 2^26-point transforms).
    stream: AtomicU64,
}

impl Plan {
    /// Makes a plan of `kind` (double precision when `double`) for `layout` on `device`.
    pub fn new(device: &'static Device, layout: &Layout, kind: Kind, double: bool) -> Result<Plan> {
        if device.kind() != BackendKind::Cuda {
            return Err(Error::Value(format!(
                "cuFFT plans are made on CUDA devices, not on {}",
                device.info().name
            )));
        }
        if layout.dims.is_empty() || layout.dims.len() > 3 || layout.dims.contains(&0) {
            return Err(Error::Value(format!(
                "cuFFT transforms 1 to 3 dimensions of nonzero length, not {:?}",
                layout.dims
            )));
        }
        if !available() {
            return Err(Error::BackendUnavailable {
                backend: "cuFFT".into(),
                reason: "cuFFT (libcufft.so) was not found; install it with `pip install nvidia-cufft` or the CUDA toolkit, or set CUDA_PATH".into(),
            });
        }
        let mut dims = layout
            .dims
            .iter()
            .map(|&d| int(d, "length"))
            .collect::<Result<Vec<_>>>()?;
        let mut inembed = layout
            .inembed
            .iter()
            .map(|&d| int(d, "embedding"))
            .collect::<Result<Vec<_>>>()?;
        let mut onembed = layout
            .onembed
            .iter()
            .map(|&d| int(d, "embedding"))
            .collect::<Result<Vec<_>>>()?;
        let embed = |e: &mut Vec<i32>| {
            if e.is_empty() {
                std::ptr::null_mut()
            } else {
                e.as_mut_ptr()
            }
        };
        let (istride, idist) = (
            int(layout.istride, "stride")?,
            int(layout.idist, "distance")?,
        );
        let (ostride, odist) = (
            int(layout.ostride, "stride")?,
            int(layout.odist, "distance")?,
        );
        let batch = int(layout.batch, "batch")?;
        let ordinal = device.info().ordinal;
        let _scope = ContextScope::enter(ordinal)?;
        let mut handle: fft::cufftHandle = 0;
        check(
            "cufftCreate",
            guarded("cufftCreate", || unsafe { fft::cufftCreate(&mut handle) })?,
        )?;
        // Owned from here: an early return destroys the handle.
        let mut plan = Plan {
            ordinal,
            handle,
            kind,
            double,
            work_size: 0,
            stream: AtomicU64::new(u64::MAX),
        };
        check(
            "cufftSetAutoAllocation",
            guarded("cufftSetAutoAllocation", || unsafe {
                fft::cufftSetAutoAllocation(handle, 0)
            })?,
        )?;
        let mut make = || -> Result<(fft::cufftResult, usize)> {
            let mut work = 0usize;
            let status = guarded("cufftMakePlanMany", || unsafe {
                fft::cufftMakePlanMany(
                    handle,
                    dims.len() as i32,
                    dims.as_mut_ptr(),
                    embed(&mut inembed),
                    istride,
                    idist,
                    embed(&mut onembed),
                    ostride,
                    odist,
                    kind.cufft_type(double),
                    batch,
                    &mut work,
                )
            })?;
            Ok((status, work))
        };
        let (mut status, mut work) = make()?;
        if status == fft::cufftResult::CUFFT_ALLOC_FAILED {
            // Planning some lengths takes much memory: give the pool's free blocks back, once.
            device.free_all_blocks();
            (status, work) = make()?;
        }
        check("cufftMakePlanMany", status)?;
        // Set in place: `Plan { work_size, ..plan }` would copy the handle and drop `plan`,
        // destroying it.
        plan.work_size = work;
        Ok(plan)
    }

    /// Bytes of work area the plan needs.
    pub fn work_size(&self) -> usize {
        self.work_size
    }

    /// What the plan transforms, and whether in double precision.
    pub fn kind(&self) -> (Kind, bool) {
        (self.kind, self.double)
    }

    /// Gives the plan its work area (`work_size()` bytes at device address `address`, kept
    /// alive by the caller for as long as the plan runs).
    pub fn set_work_area(&self, address: u64) -> Result<()> {
        let _scope = ContextScope::enter(self.ordinal)?;
        check(
            "cufftSetWorkArea",
            guarded("cufftSetWorkArea", || unsafe {
                fft::cufftSetWorkArea(self.handle, address as usize as *mut std::ffi::c_void)
            })?,
        )
    }

    /// Queues the transform of `input` into `output` (device addresses) on `device`'s current
    /// stream; `inverse` is the sign of C2C transforms (R2C is forward, C2R inverse).
    pub fn execute(
        &self,
        device: &'static Device,
        input: u64,
        output: u64,
        inverse: bool,
    ) -> Result<()> {
        if device.info().ordinal != self.ordinal || device.kind() != BackendKind::Cuda {
            return Err(Error::Value(format!(
                "this cuFFT plan belongs to CUDA device {}, not to {}",
                self.ordinal,
                device.info().name
            )));
        }
        // cuFFT launches by its own driver calls: queued launches go first.
        crate::deferred::finish();
        device.backend().drain();
        let stream = crate::stream::current_stream(device);
        let _scope = ContextScope::enter(self.ordinal)?;
        if self.stream.load(Ordering::Relaxed) != stream as u64 {
            check(
                "cufftSetStream",
                guarded("cufftSetStream", || unsafe {
                    fft::cufftSetStream(self.handle, stream as usize as fft::cudaStream_t)
                })?,
            )?;
            self.stream.store(stream as u64, Ordering::Relaxed);
        }
        let (h, i, o) = (self.handle, input as usize, output as usize);
        let direction = if inverse { 1 } else { -1 };
        let name = || {
            let precision = if self.double { "float64" } else { "float32" };
            format!("cuFFT {:?} {precision}", self.kind).into()
        };
        let status = crate::profile::around(device, name, [[0; 3]; 2], stream, || {
            guarded("cufftExec", || unsafe {
                match (self.kind, self.double) {
                    (Kind::C2C, false) => fft::cufftExecC2C(h, i as _, o as _, direction),
                    (Kind::C2C, true) => fft::cufftExecZ2Z(h, i as _, o as _, direction),
                    (Kind::R2C, false) => fft::cufftExecR2C(h, i as _, o as _),
                    (Kind::R2C, true) => fft::cufftExecD2Z(h, i as _, o as _),
                    (Kind::C2R, false) => fft::cufftExecC2R(h, i as _, o as _),
                    (Kind::C2R, true) => fft::cufftExecZ2D(h, i as _, o as _),
                }
            })
        })?;
        check("cufftExec", status)
    }
}

impl Drop for Plan {
    fn drop(&mut self) {
        if let Ok(_scope) = ContextScope::enter(self.ordinal) {
            let _ = guarded("cufftDestroy", || unsafe { fft::cufftDestroy(self.handle) });
        }
    }
}
