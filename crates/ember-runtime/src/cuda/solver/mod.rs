//! cuSOLVER through cudarc: LAPACK's dense factorizations of column-major matrices in device
//! memory (LU, Cholesky, QR, Hermitian eigenproblem, SVD, general eigenproblem) for float32,
//! float64, complex64 and complex128, and cuBLAS's batched LU for stacks of small matrices.
//!
//! cuSOLVER is loaded on first use ([`loader::search_cusolver`]) and checked before any call,
//! as cuBLAS and cuFFT are; the calls run under `catch_unwind` (cudarc panics on a missing
//! library or symbol). One `Solver` is kept per (device, stream): its cuSOLVER handle and
//! parameters, a cuBLAS handle for the batched routines, and its work areas (pool memory,
//! grown as needed, never one allocation per call). The 64-bit generic API (`cusolverDnX*`)
//! serves every dtype through `cudaDataType`; the typed API only where there is no generic
//! one. `info` goes to device memory and is never read here: nothing synchronizes.
//!
//! `dense` holds the routines that take one call a matrix, `batched` those that take a
//! whole stack in one call; this module the handles, work areas, errors and types they share.

use std::collections::{HashMap, VecDeque};
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::null_mut;
use std::sync::{Mutex, OnceLock};

use cudarc::cublas::sys as blas;
use cudarc::cusolver::sys as sol;
use ember_core::{DType, Error, Result};

use super::blas::ContextScope;
use super::loader;
use crate::backend::{BackendKind, Handle};
use crate::buffer::Buffer;
use crate::device::Device;

/// A stack of column-major matrices in device memory.
#[derive(Clone, Copy, Debug)]
pub struct Stack {
    /// Device address of the first element of the first matrix.
    pub ptr: u64,
    /// Leading dimension: elements between columns.
    pub ld: i64,
    /// Elements between consecutive matrices.
    pub stride: i64,
}

/// A stack of vectors (pivots, `tau`, eigenvalues, `info`) in device memory.
#[derive(Clone, Copy, Debug)]
pub struct Vectors {
    /// Device address of the first element.
    pub ptr: u64,
    /// Elements between the vectors of consecutive matrices.
    pub stride: i64,
}

fn element(ptr: u64, index: usize, stride: i64, itemsize: usize) -> *mut c_void {
    (ptr + index as u64 * stride as u64 * itemsize as u64) as usize as *mut c_void
}

impl Stack {
    fn at(&self, index: usize, dtype: DType) -> *mut c_void {
        element(self.ptr, index, self.stride, dtype.itemsize())
    }
}

impl Vectors {
    fn at(&self, index: usize, itemsize: usize) -> *mut c_void {
        element(self.ptr, index, self.stride, itemsize)
    }
}

/// Which triangle of a Hermitian matrix is read and written.
fn fill_mode(lower: bool) -> sol::cublasFillMode_t {
    if lower {
        sol::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER
    } else {
        sol::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER
    }
}

fn eig_mode(vectors: bool) -> sol::cusolverEigMode_t {
    if vectors {
        sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
    } else {
        sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
    }
}

/// Whether cuSOLVER factors matrices of `dtype`.
pub fn supports(dtype: DType) -> bool {
    matches!(dtype, DType::F32 | DType::F64 | DType::C64 | DType::C128)
}

fn data_type(dtype: DType) -> sol::cudaDataType {
    use sol::cudaDataType::*;
    match dtype {
        DType::F32 => CUDA_R_32F,
        DType::F64 => CUDA_R_64F,
        DType::C64 => CUDA_C_32F,
        _ => CUDA_C_64F,
    }
}

/// The real type of a dtype's parts (singular values, Hermitian eigenvalues).
fn real_type(dtype: DType) -> sol::cudaDataType {
    use sol::cudaDataType::*;
    match dtype {
        DType::F32 | DType::C64 => CUDA_R_32F,
        _ => CUDA_R_64F,
    }
}

/// The complex type of a dtype's precision (the eigenvalues of a general matrix).
fn complex_type(dtype: DType) -> sol::cudaDataType {
    use sol::cudaDataType::*;
    match dtype {
        DType::F32 | DType::C64 => CUDA_C_32F,
        _ => CUDA_C_64F,
    }
}

fn part_size(dtype: DType) -> usize {
    match dtype {
        DType::F32 | DType::C64 => 4,
        _ => 8,
    }
}

/// Whether cuSOLVER can be used: cuSOLVER and cuBLAS found and loadable (searched once).
pub fn available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        let _ = loader::search_cusolver();
        super::blas::available()
            && catch_unwind(|| unsafe { sol::is_culib_present() }).unwrap_or(false)
    })
}

fn unavailable() -> Error {
    let tried: Vec<String> = loader::search_cusolver()
        .attempts
        .iter()
        .map(loader::Attempt::line)
        .collect();
    Error::BackendUnavailable {
        backend: "cuSOLVER".into(),
        reason: format!(
            "cuSOLVER (libcusolver.so, with cuBLAS, cuSPARSE and nvJitLink) was not found; install it with `pip install nvidia-cusolver` (CUDA 12: `nvidia-cusolver-cu12`) or the CUDA toolkit, or set CUDA_PATH. Tried:\n{}",
            tried.join("\n")
        ),
    }
}

/// Runs FFI calls that may panic inside cudarc (a missing symbol) without letting it unwind.
fn guarded<T>(call: &str, f: impl FnOnce() -> T) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| Error::BackendUnavailable {
        backend: "cuSOLVER".into(),
        reason: format!(
            "the cuSOLVER or cuBLAS library that was loaded has no usable {call}; it may be older than this routine needs (cusolverDnXgeev: CUDA 12.6)"
        ),
    })
}

fn check(call: &str, status: sol::cusolverStatus_t) -> Result<()> {
    use sol::cusolverStatus_t::*;
    let message = match status {
        CUSOLVER_STATUS_SUCCESS => return Ok(()),
        CUSOLVER_STATUS_NOT_INITIALIZED => "cuSOLVER could not start (is the CUDA driver working?)",
        CUSOLVER_STATUS_ALLOC_FAILED => "cuSOLVER could not allocate memory",
        CUSOLVER_STATUS_INVALID_VALUE => "a size, leading dimension or option was rejected",
        CUSOLVER_STATUS_ARCH_MISMATCH => "the GPU lacks a feature this routine needs",
        CUSOLVER_STATUS_EXECUTION_FAILED => "the routine's kernel failed to launch",
        CUSOLVER_STATUS_INTERNAL_ERROR => "cuSOLVER failed inside (often a bad device address)",
        CUSOLVER_STATUS_NOT_SUPPORTED => {
            "this combination of types is not supported by the cuSOLVER that was loaded"
        }
        _ => "cuSOLVER call failed",
    };
    Err(Error::driver(
        "cuSOLVER",
        call,
        status as i64,
        &format!("{status:?}"),
        message,
    ))
}

fn check_blas(call: &str, status: blas::cublasStatus_t) -> Result<()> {
    use blas::cublasStatus_t::*;
    let message = match status {
        CUBLAS_STATUS_SUCCESS => return Ok(()),
        CUBLAS_STATUS_NOT_INITIALIZED => "cuBLAS could not start (is the CUDA driver working?)",
        CUBLAS_STATUS_ALLOC_FAILED => "cuBLAS could not allocate its workspace",
        CUBLAS_STATUS_INVALID_VALUE => "a size, leading dimension or batch was rejected",
        CUBLAS_STATUS_EXECUTION_FAILED => "the routine's kernel failed to launch",
        _ => "cuBLAS call failed",
    };
    Err(Error::driver(
        "cuBLAS",
        call,
        status as i64,
        &format!("{status:?}"),
        message,
    ))
}

/// `value` as the 32-bit integer the typed and cuBLAS interfaces take.
fn int32(value: usize, what: &str) -> Result<i32> {
    i32::try_from(value).map_err(|_| {
        Error::Value(format!(
            "{what} {value} is beyond the 32-bit sizes of cuSOLVER's batched routines"
        ))
    })
}

/// At most this many solvers per device; the oldest is destroyed beyond it.
const SOLVERS_PER_DEVICE: usize = 16;

/// The cuSOLVER state of one (device, stream).
struct Solver {
    device: &'static Device,
    ordinal: usize,
    stream: Handle,
    /// The device's epoch it was made in: a context replaced since took its handles along.
    epoch: u64,
    dn: sol::cusolverDnHandle_t,
    params: sol::cusolverDnParams_t,
    /// Made on first use of a cuBLAS routine.
    blas: blas::cublasHandle_t,
    /// The Jacobi solver's settings, made on first use.
    syevj: sol::syevjInfo_t,
    /// The Jacobi SVD's settings, made on first use.
    gesvdj: sol::gesvdjInfo_t,
    /// Device work area, from the pool for this stream.
    work: Option<Buffer>,
    /// Host work area (the 64-bit API's `bufferOnHost`).
    host: Vec<u8>,
    /// Where routines whose `info` the caller does not take write it.
    spare: Option<Buffer>,
}

// A solver is used only under the `Solvers` lock.
unsafe impl Send for Solver {}

impl Solver {
    fn new(device: &'static Device, ordinal: usize, stream: Handle) -> Result<Solver> {
        let mut dn: sol::cusolverDnHandle_t = null_mut();
        check(
            "cusolverDnCreate",
            guarded("cusolverDnCreate", || unsafe {
                sol::cusolverDnCreate(&mut dn)
            })?,
        )?;
        // From here on, Drop destroys what was made.
        let mut solver = Solver {
            device,
            ordinal,
            stream,
            epoch: device.epoch(),
            dn,
            params: null_mut(),
            blas: null_mut(),
            syevj: null_mut(),
            gesvdj: null_mut(),
            work: None,
            host: Vec::new(),
            spare: None,
        };
        check(
            "cusolverDnSetStream",
            guarded("cusolverDnSetStream", || unsafe {
                sol::cusolverDnSetStream(dn, stream as usize as sol::cudaStream_t)
            })?,
        )?;
        let mut params: sol::cusolverDnParams_t = null_mut();
        check(
            "cusolverDnCreateParams",
            guarded("cusolverDnCreateParams", || unsafe {
                sol::cusolverDnCreateParams(&mut params)
            })?,
        )?;
        solver.params = params;
        Ok(solver)
    }

    /// The cuBLAS handle on this solver's stream.
    fn blas(&mut self) -> Result<blas::cublasHandle_t> {
        if !self.blas.is_null() {
            return Ok(self.blas);
        }
        let mut handle: blas::cublasHandle_t = null_mut();
        check_blas(
            "cublasCreate",
            guarded("cublasCreate", || unsafe {
                blas::cublasCreate_v2(&mut handle)
            })?,
        )?;
        let stream = self.stream;
        let set = guarded("cublasSetStream", || unsafe {
            blas::cublasSetStream_v2(handle, stream as usize as blas::cudaStream_t)
        })
        .and_then(|s| check_blas("cublasSetStream", s));
        if let Err(e) = set {
            let _ = guarded("cublasDestroy", || unsafe {
                blas::cublasDestroy_v2(handle)
            });
            return Err(e);
        }
        self.blas = handle;
        Ok(handle)
    }

    /// The Jacobi settings: tolerance `tolerance`, at most 100 sweeps, eigenvalues sorted.
    fn syevj(&mut self, tolerance: f64) -> Result<sol::syevjInfo_t> {
        if self.syevj.is_null() {
            let mut info: sol::syevjInfo_t = null_mut();
            check(
                "cusolverDnCreateSyevjInfo",
                guarded("cusolverDnCreateSyevjInfo", || unsafe {
                    sol::cusolverDnCreateSyevjInfo(&mut info)
                })?,
            )?;
            self.syevj = info;
        }
        let info = self.syevj;
        let statuses = guarded("cusolverDnXsyevjSetTolerance", || unsafe {
            [
                (
                    "cusolverDnXsyevjSetTolerance",
                    sol::cusolverDnXsyevjSetTolerance(info, tolerance),
                ),
                (
                    "cusolverDnXsyevjSetMaxSweeps",
                    sol::cusolverDnXsyevjSetMaxSweeps(info, 100),
                ),
                (
                    "cusolverDnXsyevjSetSortEig",
                    sol::cusolverDnXsyevjSetSortEig(info, 1),
                ),
            ]
        })?;
        for (call, status) in statuses {
            check(call, status)?;
        }
        Ok(info)
    }

    /// The Jacobi SVD's settings: converged to `tolerance`, at most `sweeps` sweeps,
    /// singular values sorted (descending).
    fn gesvdj(&mut self, tolerance: f64, sweeps: i32) -> Result<sol::gesvdjInfo_t> {
        if self.gesvdj.is_null() {
            let mut info: sol::gesvdjInfo_t = null_mut();
            check(
                "cusolverDnCreateGesvdjInfo",
                guarded("cusolverDnCreateGesvdjInfo", || unsafe {
                    sol::cusolverDnCreateGesvdjInfo(&mut info)
                })?,
            )?;
            self.gesvdj = info;
        }
        let info = self.gesvdj;
        let statuses = guarded("cusolverDnXgesvdjSetTolerance", || unsafe {
            [
                (
                    "cusolverDnXgesvdjSetTolerance",
                    sol::cusolverDnXgesvdjSetTolerance(info, tolerance),
                ),
                (
                    "cusolverDnXgesvdjSetMaxSweeps",
                    sol::cusolverDnXgesvdjSetMaxSweeps(info, sweeps),
                ),
                (
                    "cusolverDnXgesvdjSetSortEig",
                    sol::cusolverDnXgesvdjSetSortEig(info, 1),
                ),
            ]
        })?;
        for (call, status) in statuses {
            check(call, status)?;
        }
        Ok(info)
    }

    /// A device work area of at least `bytes` (its old one goes back to the pool first: the
    /// pool orders reuse on this stream after the work queued on it).
    fn workspace(&mut self, bytes: usize) -> Result<*mut c_void> {
        if self.work.as_ref().is_none_or(|w| w.len() < bytes) {
            self.work = None;
            self.work = Some(Buffer::allocate(self.device, bytes.max(256), self.stream)?);
        }
        Ok(self.work.as_ref().map_or(0, |w| w.address()) as usize as *mut c_void)
    }

    /// A host work area of at least `bytes` (null when none is needed). It lives as long as
    /// the solver, in case a routine still reads it after returning.
    fn host_workspace(&mut self, bytes: usize) -> *mut c_void {
        if bytes == 0 {
            return null_mut();
        }
        if self.host.len() < bytes {
            self.host.resize(bytes, 0);
        }
        self.host.as_mut_ptr() as *mut c_void
    }

    /// An int the routines whose `info` the caller does not take write to.
    fn spare_info(&mut self) -> Result<*mut i32> {
        if self.spare.is_none() {
            self.spare = Some(Buffer::allocate(self.device, 256, self.stream)?);
        }
        Ok(self.spare.as_ref().map_or(0, |b| b.address()) as usize as *mut i32)
    }
}

impl Drop for Solver {
    fn drop(&mut self) {
        if self.epoch != self.device.epoch() {
            return; // the handles went with their context; destroying them could fault
        }
        let _scope = ContextScope::enter(self.ordinal);
        let (dn, params, blas, syevj) = (self.dn, self.params, self.blas, self.syevj);
        let gesvdj = self.gesvdj;
        unsafe {
            if !syevj.is_null() {
                let _ = guarded("", || sol::cusolverDnDestroySyevjInfo(syevj));
            }
            if !gesvdj.is_null() {
                let _ = guarded("", || sol::cusolverDnDestroyGesvdjInfo(gesvdj));
            }
            if !params.is_null() {
                let _ = guarded("", || sol::cusolverDnDestroyParams(params));
            }
            if !blas.is_null() {
                let _ = guarded("", || blas::cublasDestroy_v2(blas));
            }
            let _ = guarded("", || sol::cusolverDnDestroy(dn));
        }
    }
}

#[derive(Default)]
struct Solvers {
    by_stream: HashMap<(usize, Handle), Solver>,
    /// Creation order, for eviction.
    order: VecDeque<(usize, Handle)>,
}

impl Solvers {
    /// The solver of (`device`, `stream`); the device's context must be current.
    fn get(&mut self, device: &'static Device, stream: Handle) -> Result<&mut Solver> {
        let ordinal = device.info().ordinal;
        let key = (ordinal, stream);
        if self
            .by_stream
            .get(&key)
            .is_some_and(|s| s.epoch != device.epoch())
        {
            self.by_stream.remove(&key);
            self.order.retain(|k| *k != key);
        }
        if !self.by_stream.contains_key(&key) {
            if self.order.iter().filter(|(o, _)| *o == ordinal).count() >= SOLVERS_PER_DEVICE {
                if let Some(pos) = self.order.iter().position(|(o, _)| *o == ordinal) {
                    if let Some(old) = self.order.remove(pos) {
                        self.by_stream.remove(&old);
                    }
                }
            }
            let solver = Solver::new(device, ordinal, stream)?;
            self.by_stream.insert(key, solver);
            self.order.push_back(key);
        }
        self.by_stream
            .get_mut(&key)
            .ok_or_else(|| Error::Value("cuSOLVER's handle for this stream went missing".into()))
    }
}

fn solvers() -> &'static Mutex<Solvers> {
    static SOLVERS: OnceLock<Mutex<Solvers>> = OnceLock::new();
    SOLVERS.get_or_init(|| Mutex::new(Solvers::default()))
}

/// Destroys every kept handle; their work areas go back to the pool.
pub fn forget_handles() {
    let mut kept = solvers().lock().unwrap_or_else(|e| e.into_inner());
    kept.by_stream.clear();
    kept.order.clear();
}

/// Runs `f` with the solver of `device`'s current stream, after ember's queued launches
/// (cuSOLVER launches by its own driver calls).
fn with_solver<T>(
    device: &'static Device,
    dtype: DType,
    routine: &str,
    f: impl FnOnce(&mut Solver) -> Result<T>,
) -> Result<T> {
    if device.kind() != BackendKind::Cuda {
        return Err(Error::Value(format!(
            "cuSOLVER runs on CUDA devices only; {} is an {} device",
            device.info().name,
            device.kind().title()
        )));
    }
    if !supports(dtype) {
        return Err(Error::Type(format!(
            "cuSOLVER factors float32, float64, complex64 or complex128 matrices, not {dtype}"
        )));
    }
    if !available() {
        return Err(unavailable());
    }
    crate::deferred::finish();
    device.backend().drain();
    let stream = crate::stream::current_stream(device);
    let _scope = ContextScope::enter(device.info().ordinal)?;
    let mut kept = solvers().lock().unwrap_or_else(|e| e.into_inner());
    let solver = kept.get(device, stream)?;
    crate::profile::around(
        device,
        || format!("cuSOLVER {routine} {dtype}").into(),
        [[0; 3]; 2],
        stream,
        || f(solver),
    )
}

/// Calls the typed routine of `dtype` among `[S, D, C, Z]` (module `m`) with `args` (their
/// pointer casts `as _` take each routine's own element type).
macro_rules! typed {
    ($dtype:expr, $m:ident :: [$s:ident, $d:ident, $c:ident, $z:ident], ($($arg:expr),* $(,)?)) => {
        match $dtype {
            DType::F32 => $m::$s($($arg),*),
            DType::F64 => $m::$d($($arg),*),
            DType::C64 => $m::$c($($arg),*),
            _ => $m::$z($($arg),*),
        }
    };
}

mod batched;
mod dense;

pub use batched::{getrf_batched, getrs_batched, potrf_batched, syev_batched, syevj_batched};
pub use dense::{geev, geqrf, gesvd, gesvdj, gesvdp, getrf, getrs, orgqr, potrf, syevd, Job};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_step_by_matrices_and_items() {
        let a = Stack {
            ptr: 0x1000,
            ld: 3,
            stride: 9,
        };
        assert_eq!(a.at(2, DType::C128) as usize, 0x1000 + 2 * 9 * 16);
        let v = Vectors {
            ptr: 0x2000,
            stride: 5,
        };
        assert_eq!(v.at(3, 4) as usize, 0x2000 + 3 * 5 * 4);
    }

    #[test]
    fn parts_take_the_dtype_precision() {
        assert_eq!(real_type(DType::C64), sol::cudaDataType::CUDA_R_32F);
        assert_eq!(complex_type(DType::F64), sol::cudaDataType::CUDA_C_64F);
        assert_eq!(part_size(DType::C128), 8);
        assert!(supports(DType::F32) && !supports(DType::F16));
    }

    #[test]
    fn jobs_are_lapack_letters() {
        assert_eq!(Job::All.letter(), b'A' as i8);
        assert_eq!(Job::Some.letter(), b'S' as i8);
        assert_eq!(Job::None.letter(), b'N' as i8);
    }

    #[test]
    fn sizes_beyond_32_bits_are_refused() {
        assert_eq!(int32(7, "n").ok(), Some(7));
        assert!(int32(1 << 31, "batch").is_err());
    }
}
