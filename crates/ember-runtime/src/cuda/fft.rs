//! cuFFT through cudarc: batched complex-to-complex transforms of contiguous rows, complex64
//! and complex128.
//!
//! cuFFT is loaded on first use ([`loader::search_cufft`]) and checked before any call, as
//! cuBLAS is (cudarc panics on a missing library or symbol; calls run under `catch_unwind`).
//! Plans are kept per (device, stream, length, rows, type): making one costs far more than
//! running it, and a plan's work area must not serve two streams at once.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, OnceLock};

use cudarc::cufft::sys as fft;
use ember_core::{DType, Error, Result};

use super::blas::ContextScope;
use super::loader;
use crate::backend::{BackendKind, Handle};
use crate::device::Device;

/// Plans kept (the oldest is destroyed beyond this, as CuPy's plan cache bounds itself).
const PLANS: usize = 32;

/// Whether cuFFT can be used: found and loadable (searched once).
pub fn available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        let _ = loader::search_cufft();
        catch_unwind(|| unsafe { fft::is_culib_present() }).unwrap_or(false)
    })
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
        fft::cufftResult::CUFFT_ALLOC_FAILED => "cuFFT could not allocate its work area",
        fft::cufftResult::CUFFT_INVALID_SIZE => "the length or batch was rejected",
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

#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    ordinal: usize,
    stream: Handle,
    n: i32,
    rows: i32,
    double: bool,
}

struct Plan(Key, fft::cufftHandle);

static PLANS_KEPT: OnceLock<Mutex<VecDeque<Plan>>> = OnceLock::new();

fn plans() -> &'static Mutex<VecDeque<Plan>> {
    PLANS_KEPT.get_or_init(|| Mutex::new(VecDeque::new()))
}

/// Destroys every kept plan (their work areas go back to the driver).
pub fn forget_plans() {
    let Some(kept) = PLANS_KEPT.get() else {
        return;
    };
    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
    for plan in kept.drain(..) {
        let _scope = ContextScope::enter(plan.0.ordinal);
        let _ = guarded("cufftDestroy", || unsafe { fft::cufftDestroy(plan.1) });
    }
}

/// Whether cuFFT takes `rows` rows of `n` (its 32-bit plan sizes).
pub fn fits(n: usize, rows: usize) -> bool {
    n <= i32::MAX as usize && rows <= i32::MAX as usize
}

/// Queues the unnormalized DFT of `rows` contiguous rows of `n` complex values at `input`,
/// written to `output` (device addresses), on `device`'s current stream.
pub fn c2c(
    device: &'static Device,
    dtype: DType,
    input: u64,
    output: u64,
    n: usize,
    rows: usize,
    inverse: bool,
) -> Result<()> {
    if device.kind() != BackendKind::Cuda || !matches!(dtype, DType::C64 | DType::C128) {
        return Err(Error::Value(format!(
            "cuFFT transforms complex64/complex128 on CUDA devices, not {dtype} on {}",
            device.info().name
        )));
    }
    if !fits(n, rows) {
        return Err(Error::Value(format!(
            "{rows} rows of {n} are too many for cuFFT's 32-bit plans"
        )));
    }
    if !available() {
        return Err(Error::BackendUnavailable {
            backend: "cuFFT".into(),
            reason: "cuFFT (libcufft.so) was not found; install it with `pip install nvidia-cufft` or the CUDA toolkit, or set CUDA_PATH".into(),
        });
    }
    // cuFFT launches by its own driver calls: queued launches go first.
    crate::deferred::finish();
    device.backend().drain();
    let stream = crate::stream::current_stream(device);
    let ordinal = device.info().ordinal;
    let _scope = ContextScope::enter(ordinal)?;
    let key = Key {
        ordinal,
        stream,
        n: n as i32,
        rows: rows as i32,
        double: dtype == DType::C128,
    };
    let mut kept = plans().lock().unwrap_or_else(|e| e.into_inner());
    let plan = match kept.iter().find(|p| p.0 == key) {
        Some(p) => p.1,
        None => {
            if kept.len() >= PLANS {
                if let Some(old) = kept.pop_front() {
                    let _ = guarded("cufftDestroy", || unsafe { fft::cufftDestroy(old.1) });
                }
            }
            let kind = if key.double {
                fft::cufftType::CUFFT_Z2Z
            } else {
                fft::cufftType::CUFFT_C2C
            };
            let mut plan: fft::cufftHandle = 0;
            let mut length = key.n;
            check(
                "cufftPlanMany",
                guarded("cufftPlanMany", || unsafe {
                    fft::cufftPlanMany(
                        &mut plan,
                        1,
                        &mut length,
                        std::ptr::null_mut(),
                        1,
                        key.n,
                        std::ptr::null_mut(),
                        1,
                        key.n,
                        kind,
                        key.rows,
                    )
                })?,
            )?;
            let set = guarded("cufftSetStream", || unsafe {
                fft::cufftSetStream(plan, stream as usize as fft::cudaStream_t)
            })
            .and_then(|s| check("cufftSetStream", s));
            if let Err(e) = set {
                let _ = guarded("cufftDestroy", || unsafe { fft::cufftDestroy(plan) });
                return Err(e);
            }
            kept.push_back(Plan(key, plan));
            plan
        }
    };
    let direction = if inverse { 1 } else { -1 };
    let status = if key.double {
        guarded("cufftExecZ2Z", || unsafe {
            fft::cufftExecZ2Z(
                plan,
                input as usize as *mut fft::cufftDoubleComplex,
                output as usize as *mut fft::cufftDoubleComplex,
                direction,
            )
        })?
    } else {
        guarded("cufftExecC2C", || unsafe {
            fft::cufftExecC2C(
                plan,
                input as usize as *mut fft::cufftComplex,
                output as usize as *mut fft::cufftComplex,
                direction,
            )
        })?
    };
    check("cufftExec", status)
}
