//! cuBLAS through cudarc: matrix products (`gemm`, strided-batched `gemm`) for float32,
//! float64, complex64 and complex128.
//!
//! cuBLAS is loaded on first use (see [`loader::search_cublas`]) and checked with
//! `is_culib_present` before any call, because cudarc panics on a missing library or symbol;
//! the calls themselves run under `catch_unwind` for the same reason. One handle is kept per
//! (device, stream): a handle's workspace must not be shared by streams that run at once.
//! Handles use cuBLAS's default math mode with FP32/FP64 compute types, so float32 products
//! are computed in full float32 (no TF32), as NumPy and CuPy compute them.

use std::collections::{HashMap, VecDeque};
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, OnceLock};

use cudarc::cublas::sys as blas;
use cudarc::driver::{result as cu, sys as cusys};
use ember_core::{DType, Error, Result};

use super::{driver_error, loader};
use crate::backend::{BackendKind, Handle};
use crate::device::Device;

/// How a matrix operand enters the product (cuBLAS's `cublasOperation_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// As stored (column-major).
    N,
    /// Transposed.
    T,
    /// Conjugate-transposed.
    C,
}

/// One input matrix of a column-major product.
#[derive(Clone, Copy, Debug)]
pub struct Matrix {
    /// Device address of the first element of the first matrix.
    pub ptr: u64,
    pub op: Op,
    /// Leading dimension (elements between columns as stored).
    pub ld: i64,
    /// Elements between consecutive matrices of a batch (0: one matrix for all).
    pub stride: i64,
}

/// `C[i] = op(A[i]) · op(B[i])` (or `C[i] -= ...` with `subtract`) for `batch` column-major
/// matrices, C being `m × n` and the shared dimension `k`.
#[derive(Clone, Copy, Debug)]
pub struct Gemm {
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub a: Matrix,
    pub b: Matrix,
    /// Device address of the first output element.
    pub c: u64,
    pub ldc: i64,
    pub stride_c: i64,
    pub batch: i64,
    /// `C -= op(A) · op(B)` (`alpha = -1`, `beta = 1`): LAPACK's trailing update.
    pub subtract: bool,
}

impl Gemm {
    /// Whether every size fits cuBLAS's 32-bit interface.
    pub fn fits_32bit(&self) -> bool {
        [
            self.m, self.n, self.k, self.a.ld, self.b.ld, self.ldc, self.batch,
        ]
        .iter()
        .all(|&v| (0..=i32::MAX as i64).contains(&v))
    }
}

/// Whether cuBLAS computes products of `dtype`.
pub fn supports(dtype: DType) -> bool {
    matches!(dtype, DType::F32 | DType::F64 | DType::C64 | DType::C128)
}

/// Whether cuBLAS can be used: found and loadable (searched once).
pub fn available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        let _ = loader::search_cublas();
        catch_unwind(|| unsafe { blas::is_culib_present() }).unwrap_or(false)
    })
}

fn unavailable() -> Error {
    let tried: Vec<String> = loader::search_cublas()
        .attempts
        .iter()
        .map(loader::Attempt::line)
        .collect();
    Error::BackendUnavailable {
        backend: "cuBLAS".into(),
        reason: format!(
            "cuBLAS (libcublas.so) was not found; install it with `pip install nvidia-cublas` or the CUDA toolkit, or set CUDA_PATH. Tried:\n{}",
            tried.join("\n")
        ),
    }
}

fn status_error(call: &str, status: blas::cublasStatus_t) -> Error {
    use blas::cublasStatus_t::*;
    let message = match status {
        CUBLAS_STATUS_NOT_INITIALIZED => "cuBLAS could not start (is the CUDA driver working?)",
        CUBLAS_STATUS_ALLOC_FAILED => "cuBLAS could not allocate its workspace",
        CUBLAS_STATUS_INVALID_VALUE => "a size, stride or leading dimension was rejected",
        CUBLAS_STATUS_ARCH_MISMATCH => "the GPU lacks a feature this product needs",
        CUBLAS_STATUS_EXECUTION_FAILED => "the product's kernel failed to launch",
        CUBLAS_STATUS_NOT_SUPPORTED => "this combination of types and sizes is not supported",
        _ => "cuBLAS call failed",
    };
    Error::driver(
        "cuBLAS",
        call,
        status as i64,
        &format!("{status:?}"),
        message,
    )
}

fn check(call: &str, status: blas::cublasStatus_t) -> Result<()> {
    match status {
        blas::cublasStatus_t::CUBLAS_STATUS_SUCCESS => Ok(()),
        s => Err(status_error(call, s)),
    }
}

/// Runs FFI calls that may panic inside cudarc (a missing symbol) without letting it unwind.
fn guarded<T>(call: &str, f: impl FnOnce() -> T) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| Error::BackendUnavailable {
        backend: "cuBLAS".into(),
        reason: format!(
            "the cuBLAS library that was loaded has no usable {call}; it may be older than CUDA 11"
        ),
    })
}

/// The primary context of device `ordinal` (retained once, for the life of the process).
pub(super) fn primary_context(ordinal: usize) -> Result<cusys::CUcontext> {
    static CONTEXTS: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
    let mut known = CONTEXTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&(_, ctx)) = known.iter().find(|(o, _)| *o == ordinal) {
        return Ok(ctx as cusys::CUcontext);
    }
    let device = cu::device::get(ordinal as i32).map_err(|e| driver_error("cuDeviceGet", e))?;
    let ctx = unsafe { cu::primary_ctx::retain(device) }
        .map_err(|e| driver_error("cuDevicePrimaryCtxRetain", e))?;
    known.push((ordinal, ctx as usize));
    Ok(ctx)
}

/// Keeps a device's context current for a scope, restoring the caller's afterwards.
pub(super) struct ContextScope {
    pushed: bool,
}

impl ContextScope {
    pub(super) fn enter(ordinal: usize) -> Result<ContextScope> {
        let ctx = primary_context(ordinal)?;
        let mut current: cusys::CUcontext = std::ptr::null_mut();
        unsafe { cusys::cuCtxGetCurrent(&mut current) }
            .result()
            .map_err(|e| driver_error("cuCtxGetCurrent", e))?;
        if current == ctx {
            return Ok(ContextScope { pushed: false });
        }
        unsafe { cusys::cuCtxPushCurrent_v2(ctx) }
            .result()
            .map_err(|e| driver_error("cuCtxPushCurrent", e))?;
        Ok(ContextScope { pushed: true })
    }
}

impl Drop for ContextScope {
    fn drop(&mut self) {
        if self.pushed {
            let mut popped: cusys::CUcontext = std::ptr::null_mut();
            unsafe {
                let _ = cusys::cuCtxPopCurrent_v2(&mut popped);
            }
        }
    }
}

/// At most this many handles per device; the oldest is destroyed beyond it (programs rarely
/// use more streams than this for products).
const HANDLES_PER_DEVICE: usize = 16;

struct BlasHandle(blas::cublasHandle_t);

// A handle is used only under the `Handles` lock.
unsafe impl Send for BlasHandle {}

#[derive(Default)]
struct Handles {
    by_stream: HashMap<(usize, Handle), BlasHandle>,
    /// Creation order, for eviction.
    order: VecDeque<(usize, Handle)>,
}

impl Handles {
    /// The handle for (`ordinal`, `stream`); the device's context must be current.
    fn get(&mut self, ordinal: usize, stream: Handle) -> Result<blas::cublasHandle_t> {
        if let Some(h) = self.by_stream.get(&(ordinal, stream)) {
            return Ok(h.0);
        }
        if self.order.iter().filter(|(o, _)| *o == ordinal).count() >= HANDLES_PER_DEVICE {
            if let Some(pos) = self.order.iter().position(|(o, _)| *o == ordinal) {
                if let Some(key) = self.order.remove(pos) {
                    if let Some(old) = self.by_stream.remove(&key) {
                        let _ =
                            guarded("cublasDestroy", || unsafe { blas::cublasDestroy_v2(old.0) });
                    }
                }
            }
        }
        let mut handle: blas::cublasHandle_t = std::ptr::null_mut();
        check(
            "cublasCreate",
            guarded("cublasCreate", || unsafe {
                blas::cublasCreate_v2(&mut handle)
            })?,
        )?;
        let configured = guarded("cublasSetStream", || unsafe {
            let s = blas::cublasSetStream_v2(handle, stream as usize as blas::cudaStream_t);
            if s != blas::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
                return ("cublasSetStream", s);
            }
            (
                "cublasSetMathMode",
                blas::cublasSetMathMode(handle, blas::cublasMath_t::CUBLAS_DEFAULT_MATH),
            )
        })
        .and_then(|(call, s)| check(call, s));
        if let Err(e) = configured {
            let _ = guarded("cublasDestroy", || unsafe {
                blas::cublasDestroy_v2(handle)
            });
            return Err(e);
        }
        self.by_stream.insert((ordinal, stream), BlasHandle(handle));
        self.order.push_back((ordinal, stream));
        Ok(handle)
    }
}

fn handles() -> &'static Mutex<Handles> {
    static HANDLES: OnceLock<Mutex<Handles>> = OnceLock::new();
    HANDLES.get_or_init(|| Mutex::new(Handles::default()))
}

fn op(o: Op) -> blas::cublasOperation_t {
    match o {
        Op::N => blas::cublasOperation_t::CUBLAS_OP_N,
        Op::T => blas::cublasOperation_t::CUBLAS_OP_T,
        Op::C => blas::cublasOperation_t::CUBLAS_OP_C,
    }
}

/// A host scalar in the compute type's layout (room for a complex128).
#[repr(C, align(16))]
struct HostScalar([u8; 16]);

impl HostScalar {
    fn new(dtype: DType, value: f64) -> HostScalar {
        let mut bytes = [0u8; 16];
        match dtype {
            DType::F32 | DType::C64 => bytes[..4].copy_from_slice(&(value as f32).to_le_bytes()),
            _ => bytes[..8].copy_from_slice(&value.to_le_bytes()),
        }
        HostScalar(bytes)
    }

    fn ptr(&self) -> *const c_void {
        self.0.as_ptr() as *const c_void
    }
}

/// Queues `g` on `device`'s current stream (ember's stream for this thread).
pub fn gemm(device: &'static Device, dtype: DType, g: &Gemm) -> Result<()> {
    use blas::cublasComputeType_t::{CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_64F};
    use blas::cudaDataType_t::{CUDA_C_32F, CUDA_C_64F, CUDA_R_32F, CUDA_R_64F};
    if device.kind() != BackendKind::Cuda {
        return Err(Error::Value(format!(
            "cuBLAS runs on CUDA devices only; {} is an {} device",
            device.info().name,
            device.kind().title()
        )));
    }
    // cuBLAS launches by its own driver calls: queued launches go first.
    crate::deferred::finish();
    device.backend().drain();
    let (data, compute) = match dtype {
        DType::F32 => (CUDA_R_32F, CUBLAS_COMPUTE_32F),
        DType::F64 => (CUDA_R_64F, CUBLAS_COMPUTE_64F),
        DType::C64 => (CUDA_C_32F, CUBLAS_COMPUTE_32F),
        DType::C128 => (CUDA_C_64F, CUBLAS_COMPUTE_64F),
        other => {
            return Err(Error::Type(format!(
                "cuBLAS has no product of {other}; ember computes it with its own kernel"
            )))
        }
    };
    if !g.fits_32bit() {
        return Err(Error::Value(format!(
            "a {} x {} x {} product (batch {}) is too large for cuBLAS's 32-bit sizes",
            g.m, g.n, g.k, g.batch
        )));
    }
    if !available() {
        return Err(unavailable());
    }
    let stream = crate::stream::current_stream(device);
    if crate::profile::is_open() {
        let elements = (g.m * g.k + g.k * g.n + g.m * g.n) * g.batch;
        crate::profile::note_bytes(elements as u64 * dtype.itemsize() as u64);
    }
    crate::profile::around(
        device,
        || format!("cuBLAS gemm {dtype}").into(),
        [[0; 3]; 2],
        stream,
        || call_gemm(device, stream, dtype, data, compute, g),
    )
}

/// `cublasGemmEx`, or its strided batch, on `stream` (the checks are done).
fn call_gemm(
    device: &'static Device,
    stream: Handle,
    dtype: DType,
    data: blas::cudaDataType_t,
    compute: blas::cublasComputeType_t,
    g: &Gemm,
) -> Result<()> {
    let ordinal = device.info().ordinal;
    let _scope = ContextScope::enter(ordinal)?;
    let mut cache = handles().lock().unwrap_or_else(|e| e.into_inner());
    let handle = cache.get(ordinal, stream)?;
    let (alpha, beta) = if g.subtract { (-1.0, 1.0) } else { (1.0, 0.0) };
    let (alpha, beta) = (HostScalar::new(dtype, alpha), HostScalar::new(dtype, beta));
    let (m, n, k) = (g.m as i32, g.n as i32, g.k as i32);
    let (lda, ldb, ldc) = (g.a.ld as i32, g.b.ld as i32, g.ldc as i32);
    let algo = blas::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT;
    let (a, b, c) = (
        g.a.ptr as usize as *const c_void,
        g.b.ptr as usize as *const c_void,
        g.c as usize as *mut c_void,
    );
    if g.batch == 1 {
        let status = guarded("cublasGemmEx", || unsafe {
            blas::cublasGemmEx(
                handle,
                op(g.a.op),
                op(g.b.op),
                m,
                n,
                k,
                alpha.ptr(),
                a,
                data,
                lda,
                b,
                data,
                ldb,
                beta.ptr(),
                c,
                data,
                ldc,
                compute,
                algo,
            )
        })?;
        return check("cublasGemmEx", status);
    }
    let status = guarded("cublasGemmStridedBatchedEx", || unsafe {
        blas::cublasGemmStridedBatchedEx(
            handle,
            op(g.a.op),
            op(g.b.op),
            m,
            n,
            k,
            alpha.ptr(),
            a,
            data,
            lda,
            g.a.stride,
            b,
            data,
            ldb,
            g.b.stride,
            beta.ptr(),
            c,
            data,
            ldc,
            g.stride_c,
            g.batch as i32,
            compute,
            algo,
        )
    })?;
    check("cublasGemmStridedBatchedEx", status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_beyond_32_bits_are_refused() {
        let m = Matrix {
            ptr: 0,
            op: Op::N,
            ld: 4,
            stride: 0,
        };
        let mut g = Gemm {
            m: 4,
            n: 4,
            k: 4,
            a: m,
            b: m,
            c: 0,
            ldc: 4,
            stride_c: 0,
            batch: 1,
            subtract: false,
        };
        assert!(g.fits_32bit());
        g.k = 1 << 31;
        assert!(!g.fits_32bit());
    }

    #[test]
    fn only_blas_dtypes_are_supported() {
        assert!(supports(DType::F32) && supports(DType::C128));
        assert!(!supports(DType::F16) && !supports(DType::I32));
    }

    #[test]
    fn scalars_take_the_compute_type_layout() {
        assert_eq!(HostScalar::new(DType::F32, 1.0).0[..4], 1f32.to_le_bytes());
        assert_eq!(HostScalar::new(DType::C128, 1.0).0[..8], 1f64.to_le_bytes());
        assert!(HostScalar::new(DType::C64, 1.0).0[4..]
            .iter()
            .all(|&b| b == 0));
    }
}
