//! cuSOLVER through cudarc: LAPACK's dense factorizations of column-major matrices in device
//! memory (LU, Cholesky, QR, Hermitian eigenproblem, SVD, general eigenproblem) for float32,
//! float64, complex64 and complex128, and cuBLAS's batched LU for stacks of small matrices.
//!
//! cuSOLVER is loaded on first use ([`loader::search_cusolver`]) and checked before any call,
//! as cuBLAS and cuFFT are; the calls run under `catch_unwind` (cudarc panics on a missing
//! library or symbol). One [`Solver`] is kept per (device, stream): its cuSOLVER handle and
//! parameters, a cuBLAS handle for the batched routines, and its work areas (pool memory,
//! grown as needed, never one allocation per call). The 64-bit generic API (`cusolverDnX*`)
//! serves every dtype through `cudaDataType`; the typed API only where there is no generic
//! one. `info` goes to device memory and is never read here: nothing synchronizes.

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
        .map(|a| {
            format!(
                "  {}: {}",
                a.location,
                a.outcome.as_ref().err().map_or("loaded", String::as_str)
            )
        })
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
        unsafe {
            if !syevj.is_null() {
                let _ = guarded("", || sol::cusolverDnDestroySyevjInfo(syevj));
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
    f(solver)
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

/// LU with partial pivoting of `batch` `n x n` matrices, one `cusolverDnXgetrf` each: int64
/// pivots (`n` a matrix) and int32 `info` (one a matrix).
pub fn getrf(
    device: &'static Device,
    dtype: DType,
    n: usize,
    batch: usize,
    a: Stack,
    ipiv: Vectors,
    info: Vectors,
) -> Result<()> {
    with_solver(device, dtype, |s| {
        let (t, n) = (data_type(dtype), n as i64);
        let (mut device_bytes, mut host_bytes) = (0usize, 0usize);
        check(
            "cusolverDnXgetrf_bufferSize",
            guarded("cusolverDnXgetrf_bufferSize", || unsafe {
                sol::cusolverDnXgetrf_bufferSize(
                    s.dn,
                    s.params,
                    n,
                    n,
                    t,
                    a.ptr as usize as *const c_void,
                    a.ld,
                    t,
                    &mut device_bytes,
                    &mut host_bytes,
                )
            })?,
        )?;
        let work = s.workspace(device_bytes)?;
        let host = s.host_workspace(host_bytes);
        for i in 0..batch {
            let status = guarded("cusolverDnXgetrf", || unsafe {
                sol::cusolverDnXgetrf(
                    s.dn,
                    s.params,
                    n,
                    n,
                    t,
                    a.at(i, dtype),
                    a.ld,
                    ipiv.at(i, 8) as *mut i64,
                    t,
                    work,
                    device_bytes,
                    host,
                    host_bytes,
                    info.at(i, 4) as *mut i32,
                )
            })?;
            check("cusolverDnXgetrf", status)?;
        }
        Ok(())
    })
}

/// Solves `A X = B` for `batch` systems from [`getrf`]'s factors and int64 pivots; `b`
/// (`n x nrhs` each) is overwritten by `X`.
#[allow(clippy::too_many_arguments)]
pub fn getrs(
    device: &'static Device,
    dtype: DType,
    n: usize,
    nrhs: usize,
    batch: usize,
    lu: Stack,
    ipiv: Vectors,
    b: Stack,
) -> Result<()> {
    with_solver(device, dtype, |s| {
        let t = data_type(dtype);
        let spare = s.spare_info()?;
        for i in 0..batch {
            let status = guarded("cusolverDnXgetrs", || unsafe {
                sol::cusolverDnXgetrs(
                    s.dn,
                    s.params,
                    sol::cublasOperation_t::CUBLAS_OP_N,
                    n as i64,
                    nrhs as i64,
                    t,
                    lu.at(i, dtype),
                    lu.ld,
                    ipiv.at(i, 8) as *const i64,
                    t,
                    b.at(i, dtype),
                    b.ld,
                    spare,
                )
            })?;
            check("cusolverDnXgetrs", status)?;
        }
        Ok(())
    })
}

/// LU of `batch` small `n x n` matrices in one call (cuBLAS's `getrfBatched`): `pointers`
/// is a device array of the matrices' addresses; int32 pivots (`n` a matrix, contiguous) and
/// `info` (one a matrix, contiguous).
#[allow(clippy::too_many_arguments)]
pub fn getrf_batched(
    device: &'static Device,
    dtype: DType,
    n: usize,
    batch: usize,
    pointers: u64,
    lda: usize,
    pivots: u64,
    info: u64,
) -> Result<()> {
    let (n, lda, count) = (int32(n, "n")?, int32(lda, "lda")?, int32(batch, "batch")?);
    with_solver(device, dtype, |s| {
        let h = s.blas()?;
        let status = guarded("cublas<t>getrfBatched", || unsafe {
            typed!(
                dtype,
                blas::[
                    cublasSgetrfBatched,
                    cublasDgetrfBatched,
                    cublasCgetrfBatched,
                    cublasZgetrfBatched
                ],
                (
                    h,
                    n,
                    pointers as usize as _,
                    lda,
                    pivots as usize as *mut i32,
                    info as usize as *mut i32,
                    count
                )
            )
        })?;
        check_blas("cublas<t>getrfBatched", status)
    })
}

/// Solves `batch` small systems from [`getrf_batched`]'s factors in one call (cuBLAS's
/// `getrsBatched`): `a_pointers` and `b_pointers` are device arrays of the matrices'
/// addresses, `pivots` int32 (`n` a matrix, contiguous).
#[allow(clippy::too_many_arguments)]
pub fn getrs_batched(
    device: &'static Device,
    dtype: DType,
    n: usize,
    nrhs: usize,
    batch: usize,
    a_pointers: u64,
    lda: usize,
    pivots: u64,
    b_pointers: u64,
    ldb: usize,
) -> Result<()> {
    let (n, nrhs, count) = (int32(n, "n")?, int32(nrhs, "nrhs")?, int32(batch, "batch")?);
    let (lda, ldb) = (int32(lda, "lda")?, int32(ldb, "ldb")?);
    with_solver(device, dtype, |s| {
        let h = s.blas()?;
        // A host int: cuBLAS checks the arguments there, before queuing anything.
        let mut bad: i32 = 0;
        let status = guarded("cublas<t>getrsBatched", || unsafe {
            typed!(
                dtype,
                blas::[
                    cublasSgetrsBatched,
                    cublasDgetrsBatched,
                    cublasCgetrsBatched,
                    cublasZgetrsBatched
                ],
                (
                    h,
                    blas::cublasOperation_t::CUBLAS_OP_N,
                    n,
                    nrhs,
                    a_pointers as usize as _,
                    lda,
                    pivots as usize as *const i32,
                    b_pointers as usize as _,
                    ldb,
                    &mut bad,
                    count
                )
            )
        })?;
        check_blas("cublas<t>getrsBatched", status)?;
        if bad != 0 {
            return Err(Error::Value(format!(
                "cuBLAS getrsBatched rejected its argument {}",
                -bad
            )));
        }
        Ok(())
    })
}

/// Cholesky factors of `batch` `n x n` Hermitian matrices, one `cusolverDnXpotrf` each,
/// reading and writing the `lower` (else upper) triangle only.
#[allow(clippy::too_many_arguments)]
pub fn potrf(
    device: &'static Device,
    dtype: DType,
    lower: bool,
    n: usize,
    batch: usize,
    a: Stack,
    info: Vectors,
) -> Result<()> {
    with_solver(device, dtype, |s| {
        let (t, n, uplo) = (data_type(dtype), n as i64, fill_mode(lower));
        let (mut device_bytes, mut host_bytes) = (0usize, 0usize);
        check(
            "cusolverDnXpotrf_bufferSize",
            guarded("cusolverDnXpotrf_bufferSize", || unsafe {
                sol::cusolverDnXpotrf_bufferSize(
                    s.dn,
                    s.params,
                    uplo,
                    n,
                    t,
                    a.ptr as usize as *const c_void,
                    a.ld,
                    t,
                    &mut device_bytes,
                    &mut host_bytes,
                )
            })?,
        )?;
        let work = s.workspace(device_bytes)?;
        let host = s.host_workspace(host_bytes);
        for i in 0..batch {
            let status = guarded("cusolverDnXpotrf", || unsafe {
                sol::cusolverDnXpotrf(
                    s.dn,
                    s.params,
                    uplo,
                    n,
                    t,
                    a.at(i, dtype),
                    a.ld,
                    t,
                    work,
                    device_bytes,
                    host,
                    host_bytes,
                    info.at(i, 4) as *mut i32,
                )
            })?;
            check("cusolverDnXpotrf", status)?;
        }
        Ok(())
    })
}

/// Cholesky factors of `batch` small matrices in one call (`cusolverDn<t>potrfBatched`).
/// It uses the other triangle as scratch: the caller keeps what it must.
#[allow(clippy::too_many_arguments)]
pub fn potrf_batched(
    device: &'static Device,
    dtype: DType,
    lower: bool,
    n: usize,
    batch: usize,
    pointers: u64,
    lda: usize,
    info: u64,
) -> Result<()> {
    let (n, lda, count) = (int32(n, "n")?, int32(lda, "lda")?, int32(batch, "batch")?);
    with_solver(device, dtype, |s| {
        let dn = s.dn;
        let status = guarded("cusolverDn<t>potrfBatched", || unsafe {
            typed!(
                dtype,
                sol::[
                    cusolverDnSpotrfBatched,
                    cusolverDnDpotrfBatched,
                    cusolverDnCpotrfBatched,
                    cusolverDnZpotrfBatched
                ],
                (
                    dn,
                    fill_mode(lower),
                    n,
                    pointers as usize as _,
                    lda,
                    info as usize as *mut i32,
                    count
                )
            )
        })?;
        check("cusolverDn<t>potrfBatched", status)
    })
}

/// Householder QR of `batch` `m x n` matrices, one `cusolverDnXgeqrf` each; `tau` holds
/// `min(m, n)` scalars a matrix.
pub fn geqrf(
    device: &'static Device,
    dtype: DType,
    m: usize,
    n: usize,
    batch: usize,
    a: Stack,
    tau: Vectors,
) -> Result<()> {
    with_solver(device, dtype, |s| {
        let (t, m, n) = (data_type(dtype), m as i64, n as i64);
        let (mut device_bytes, mut host_bytes) = (0usize, 0usize);
        check(
            "cusolverDnXgeqrf_bufferSize",
            guarded("cusolverDnXgeqrf_bufferSize", || unsafe {
                sol::cusolverDnXgeqrf_bufferSize(
                    s.dn,
                    s.params,
                    m,
                    n,
                    t,
                    a.ptr as usize as *const c_void,
                    a.ld,
                    t,
                    tau.ptr as usize as *const c_void,
                    t,
                    &mut device_bytes,
                    &mut host_bytes,
                )
            })?,
        )?;
        let work = s.workspace(device_bytes)?;
        let host = s.host_workspace(host_bytes);
        let spare = s.spare_info()?;
        for i in 0..batch {
            let status = guarded("cusolverDnXgeqrf", || unsafe {
                sol::cusolverDnXgeqrf(
                    s.dn,
                    s.params,
                    m,
                    n,
                    t,
                    a.at(i, dtype),
                    a.ld,
                    t,
                    tau.at(i, dtype.itemsize()),
                    t,
                    work,
                    device_bytes,
                    host,
                    host_bytes,
                    spare,
                )
            })?;
            check("cusolverDnXgeqrf", status)?;
        }
        Ok(())
    })
}

/// The first `n` columns of Q (`m x n`) from `k` reflectors, `batch` times
/// (`cusolverDn{S,D}orgqr` / `{C,Z}ungqr`: there is no generic one).
#[allow(clippy::too_many_arguments)]
pub fn orgqr(
    device: &'static Device,
    dtype: DType,
    m: usize,
    n: usize,
    k: usize,
    batch: usize,
    a: Stack,
    tau: Vectors,
) -> Result<()> {
    let (m, n, k) = (int32(m, "m")?, int32(n, "n")?, int32(k, "k")?);
    let lda = int32(a.ld as usize, "lda")?;
    with_solver(device, dtype, |s| {
        let dn = s.dn;
        let mut lwork: i32 = 0;
        check(
            "cusolverDn<t>orgqr_bufferSize",
            guarded("cusolverDn<t>orgqr_bufferSize", || unsafe {
                typed!(
                    dtype,
                    sol::[
                        cusolverDnSorgqr_bufferSize,
                        cusolverDnDorgqr_bufferSize,
                        cusolverDnCungqr_bufferSize,
                        cusolverDnZungqr_bufferSize
                    ],
                    (
                        dn,
                        m,
                        n,
                        k,
                        a.ptr as usize as _,
                        lda,
                        tau.ptr as usize as _,
                        &mut lwork
                    )
                )
            })?,
        )?;
        let work = s.workspace(lwork.max(1) as usize * dtype.itemsize())?;
        let spare = s.spare_info()?;
        for i in 0..batch {
            let status = guarded("cusolverDn<t>orgqr", || unsafe {
                typed!(
                    dtype,
                    sol::[
                        cusolverDnSorgqr,
                        cusolverDnDorgqr,
                        cusolverDnCungqr,
                        cusolverDnZungqr
                    ],
                    (
                        dn,
                        m,
                        n,
                        k,
                        a.at(i, dtype) as _,
                        lda,
                        tau.at(i, dtype.itemsize()) as _,
                        work as _,
                        lwork,
                        spare
                    )
                )
            })?;
            check("cusolverDn<t>orgqr", status)?;
        }
        Ok(())
    })
}

/// Eigenvalues (ascending, real: `w`) and, with `vectors`, eigenvectors (over `a`) of
/// `batch` `n x n` Hermitian matrices, one `cusolverDnXsyevd` each.
#[allow(clippy::too_many_arguments)]
pub fn syevd(
    device: &'static Device,
    dtype: DType,
    lower: bool,
    vectors: bool,
    n: usize,
    batch: usize,
    a: Stack,
    w: Vectors,
    info: Vectors,
) -> Result<()> {
    with_solver(device, dtype, |s| {
        let (t, rt, n) = (data_type(dtype), real_type(dtype), n as i64);
        let (jobz, uplo) = (eig_mode(vectors), fill_mode(lower));
        let (mut device_bytes, mut host_bytes) = (0usize, 0usize);
        check(
            "cusolverDnXsyevd_bufferSize",
            guarded("cusolverDnXsyevd_bufferSize", || unsafe {
                sol::cusolverDnXsyevd_bufferSize(
                    s.dn,
                    s.params,
                    jobz,
                    uplo,
                    n,
                    t,
                    a.ptr as usize as *const c_void,
                    a.ld,
                    rt,
                    w.ptr as usize as *const c_void,
                    t,
                    &mut device_bytes,
                    &mut host_bytes,
                )
            })?,
        )?;
        let work = s.workspace(device_bytes)?;
        let host = s.host_workspace(host_bytes);
        for i in 0..batch {
            let status = guarded("cusolverDnXsyevd", || unsafe {
                sol::cusolverDnXsyevd(
                    s.dn,
                    s.params,
                    jobz,
                    uplo,
                    n,
                    t,
                    a.at(i, dtype),
                    a.ld,
                    rt,
                    w.at(i, part_size(dtype)),
                    t,
                    work,
                    device_bytes,
                    host,
                    host_bytes,
                    info.at(i, 4) as *mut i32,
                )
            })?;
            check("cusolverDnXsyevd", status)?;
        }
        Ok(())
    })
}

/// [`syevd`] of `batch` small matrices (`n <= 32`) stored one after another (`lda = n`), in
/// one call of the batched Jacobi solver (`cusolverDn<t>syevjBatched`), converged to
/// `tolerance` (`info` is `n + 1` for a matrix that does not converge in 100 sweeps).
#[allow(clippy::too_many_arguments)]
pub fn syevj_batched(
    device: &'static Device,
    dtype: DType,
    lower: bool,
    vectors: bool,
    n: usize,
    batch: usize,
    a: u64,
    w: u64,
    info: u64,
    tolerance: f64,
) -> Result<()> {
    let (n, count) = (int32(n, "n")?, int32(batch, "batch")?);
    with_solver(device, dtype, |s| {
        let params = s.syevj(tolerance)?;
        let (dn, jobz, uplo) = (s.dn, eig_mode(vectors), fill_mode(lower));
        let mut lwork: i32 = 0;
        check(
            "cusolverDn<t>syevjBatched_bufferSize",
            guarded("cusolverDn<t>syevjBatched_bufferSize", || unsafe {
                typed!(
                    dtype,
                    sol::[
                        cusolverDnSsyevjBatched_bufferSize,
                        cusolverDnDsyevjBatched_bufferSize,
                        cusolverDnCheevjBatched_bufferSize,
                        cusolverDnZheevjBatched_bufferSize
                    ],
                    (
                        dn,
                        jobz,
                        uplo,
                        n,
                        a as usize as _,
                        n,
                        w as usize as _,
                        &mut lwork,
                        params,
                        count
                    )
                )
            })?,
        )?;
        let work = s.workspace(lwork.max(1) as usize * dtype.itemsize())?;
        let status = guarded("cusolverDn<t>syevjBatched", || unsafe {
            typed!(
                dtype,
                sol::[
                    cusolverDnSsyevjBatched,
                    cusolverDnDsyevjBatched,
                    cusolverDnCheevjBatched,
                    cusolverDnZheevjBatched
                ],
                (
                    dn,
                    jobz,
                    uplo,
                    n,
                    a as usize as _,
                    n,
                    w as usize as _,
                    work as _,
                    lwork,
                    info as usize as *mut i32,
                    params,
                    count
                )
            )
        })?;
        check("cusolverDn<t>syevjBatched", status)
    })
}

/// Whether a routine turned the call down before doing anything: missing from the library
/// that was loaded, or refusing these sizes (argument checks run before any launch).
fn declined(outcome: &Result<sol::cusolverStatus_t>) -> bool {
    use sol::cusolverStatus_t::{CUSOLVER_STATUS_INVALID_VALUE, CUSOLVER_STATUS_NOT_SUPPORTED};
    matches!(
        outcome,
        Err(Error::BackendUnavailable { .. })
            | Ok(CUSOLVER_STATUS_INVALID_VALUE | CUSOLVER_STATUS_NOT_SUPPORTED)
    )
}

/// [`syevd`] of `batch` matrices stored one after another (`lda = n`) in one call of
/// `cusolverDnXsyevBatched` (CUDA 12.6 or later). `Ok(false)` when it declined before
/// touching anything (an older library, or sizes it does not take): then call [`syevd`].
#[allow(clippy::too_many_arguments)]
pub fn syev_batched(
    device: &'static Device,
    dtype: DType,
    lower: bool,
    vectors: bool,
    n: usize,
    batch: usize,
    a: u64,
    w: u64,
    info: u64,
) -> Result<bool> {
    with_solver(device, dtype, |s| {
        let (t, rt, n, count) = (data_type(dtype), real_type(dtype), n as i64, batch as i64);
        let (jobz, uplo) = (eig_mode(vectors), fill_mode(lower));
        let (mut device_bytes, mut host_bytes) = (0usize, 0usize);
        let sized = guarded("cusolverDnXsyevBatched_bufferSize", || unsafe {
            sol::cusolverDnXsyevBatched_bufferSize(
                s.dn,
                s.params,
                jobz,
                uplo,
                n,
                t,
                a as usize as *const c_void,
                n,
                rt,
                w as usize as *const c_void,
                t,
                &mut device_bytes,
                &mut host_bytes,
                count,
            )
        });
        if declined(&sized) {
            return Ok(false);
        }
        check("cusolverDnXsyevBatched_bufferSize", sized?)?;
        let work = s.workspace(device_bytes)?;
        let host = s.host_workspace(host_bytes);
        let status = guarded("cusolverDnXsyevBatched", || unsafe {
            sol::cusolverDnXsyevBatched(
                s.dn,
                s.params,
                jobz,
                uplo,
                n,
                t,
                a as usize as *mut c_void,
                n,
                rt,
                w as usize as *mut c_void,
                t,
                work,
                device_bytes,
                host,
                host_bytes,
                info as usize as *mut i32,
                count,
            )
        });
        if declined(&status) {
            return Ok(false);
        }
        check("cusolverDnXsyevBatched", status?)?;
        Ok(true)
    })
}

/// What [`gesvd`] computes of U and of V^H: LAPACK's `jobu`/`jobvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// Every column of U (row of V^H): `'A'`.
    All,
    /// The first `min(m, n)`: `'S'`.
    Some,
    /// None: `'N'`.
    None,
}

impl Job {
    fn letter(self) -> i8 {
        match self {
            Job::All => b'A' as i8,
            Job::Some => b'S' as i8,
            Job::None => b'N' as i8,
        }
    }
}

/// The singular value decomposition of `batch` `m x n` matrices with `m >= n` (cuSOLVER's
/// `gesvd` takes no wide ones), one `cusolverDnXgesvd` each: `s` real, `u`/`vt` as `jobu`
/// and `jobvt` ask (their `ptr` is not read for [`Job::None`]); `a` is destroyed.
#[allow(clippy::too_many_arguments)]
pub fn gesvd(
    device: &'static Device,
    dtype: DType,
    (jobu, jobvt): (Job, Job),
    m: usize,
    n: usize,
    batch: usize,
    a: Stack,
    s_out: Vectors,
    u: Stack,
    vt: Stack,
    info: Vectors,
) -> Result<()> {
    if m < n {
        return Err(Error::Value(format!(
            "cuSOLVER's gesvd takes matrices with at least as many rows as columns, not {m} x {n}"
        )));
    }
    with_solver(device, dtype, |s| {
        let (t, rt, m, n) = (data_type(dtype), real_type(dtype), m as i64, n as i64);
        let (ju, jv) = (jobu.letter(), jobvt.letter());
        let (mut device_bytes, mut host_bytes) = (0usize, 0usize);
        check(
            "cusolverDnXgesvd_bufferSize",
            guarded("cusolverDnXgesvd_bufferSize", || unsafe {
                sol::cusolverDnXgesvd_bufferSize(
                    s.dn,
                    s.params,
                    ju,
                    jv,
                    m,
                    n,
                    t,
                    a.ptr as usize as *const c_void,
                    a.ld,
                    rt,
                    s_out.ptr as usize as *const c_void,
                    t,
                    u.ptr as usize as *const c_void,
                    u.ld,
                    t,
                    vt.ptr as usize as *const c_void,
                    vt.ld,
                    t,
                    &mut device_bytes,
                    &mut host_bytes,
                )
            })?,
        )?;
        let work = s.workspace(device_bytes)?;
        let host = s.host_workspace(host_bytes);
        let matrix = |stack: &Stack, job: Job, i: usize| match job {
            Job::None => null_mut(),
            _ => stack.at(i, dtype),
        };
        for i in 0..batch {
            let status = guarded("cusolverDnXgesvd", || unsafe {
                sol::cusolverDnXgesvd(
                    s.dn,
                    s.params,
                    ju,
                    jv,
                    m,
                    n,
                    t,
                    a.at(i, dtype),
                    a.ld,
                    rt,
                    s_out.at(i, part_size(dtype)),
                    t,
                    matrix(&u, jobu, i),
                    u.ld,
                    t,
                    matrix(&vt, jobvt, i),
                    vt.ld,
                    t,
                    work,
                    device_bytes,
                    host,
                    host_bytes,
                    info.at(i, 4) as *mut i32,
                )
            })?;
            check("cusolverDnXgesvd", status)?;
        }
        Ok(())
    })
}

/// Eigenvalues and, with `vectors`, right eigenvectors of `batch` general `n x n` matrices,
/// one `cusolverDnXgeev` each (CUDA 12.6 or later); `a` is destroyed. `w` is complex (of
/// `dtype`'s precision). `vr` has `dtype`: for a real `dtype` its columns are LAPACK's
/// packed real form (a complex pair `j, j+1` as the real and imaginary parts of vector
/// `j`), which the caller unpacks.
#[allow(clippy::too_many_arguments)]
pub fn geev(
    device: &'static Device,
    dtype: DType,
    vectors: bool,
    n: usize,
    batch: usize,
    a: Stack,
    w: Vectors,
    vr: Stack,
    info: Vectors,
) -> Result<()> {
    with_solver(device, dtype, |s| {
        let (t, ct, n) = (data_type(dtype), complex_type(dtype), n as i64);
        let (jobvl, jobvr) = (eig_mode(false), eig_mode(vectors));
        let (mut device_bytes, mut host_bytes) = (0usize, 0usize);
        let vr_at = |i: usize| if vectors { vr.at(i, dtype) } else { null_mut() };
        check(
            "cusolverDnXgeev_bufferSize",
            guarded("cusolverDnXgeev_bufferSize", || unsafe {
                sol::cusolverDnXgeev_bufferSize(
                    s.dn,
                    s.params,
                    jobvl,
                    jobvr,
                    n,
                    t,
                    a.ptr as usize as *const c_void,
                    a.ld,
                    ct,
                    w.ptr as usize as *const c_void,
                    t,
                    std::ptr::null(),
                    n.max(1),
                    t,
                    vr_at(0),
                    vr.ld,
                    t,
                    &mut device_bytes,
                    &mut host_bytes,
                )
            })?,
        )?;
        let work = s.workspace(device_bytes)?;
        let host = s.host_workspace(host_bytes);
        let complex_size = 2 * part_size(dtype);
        for i in 0..batch {
            let status = guarded("cusolverDnXgeev", || unsafe {
                sol::cusolverDnXgeev(
                    s.dn,
                    s.params,
                    jobvl,
                    jobvr,
                    n,
                    t,
                    a.at(i, dtype),
                    a.ld,
                    ct,
                    w.at(i, complex_size),
                    t,
                    null_mut(),
                    n.max(1),
                    t,
                    vr_at(i),
                    vr.ld,
                    t,
                    work,
                    device_bytes,
                    host,
                    host_bytes,
                    info.at(i, 4) as *mut i32,
                )
            })?;
            check("cusolverDnXgeev", status)?;
        }
        Ok(())
    })
}

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
