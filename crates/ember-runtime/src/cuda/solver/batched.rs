//! A call a stack: cuBLAS's batched LU and solve, cuSOLVER's batched Cholesky and Jacobi
//! eigensolver for small matrices, and `XsyevBatched` for larger Hermitian stacks. The
//! matrices are passed as device arrays of their addresses, or stored one after another.

use std::ffi::c_void;

use cudarc::cublas::sys as blas;
use cudarc::cusolver::sys as sol;
use ember_core::{DType, Error, Result};

use crate::device::Device;

use super::{
    check, check_blas, data_type, eig_mode, fill_mode, guarded, int32, real_type, with_solver,
};

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
    with_solver(device, dtype, "getrf_batched", |s| {
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
    with_solver(device, dtype, "getrs_batched", |s| {
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
    with_solver(device, dtype, "potrf_batched", |s| {
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

/// [`syevd`](super::syevd) of `batch` small matrices (`n <= 32`) stored one after another (`lda = n`), in
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
    with_solver(device, dtype, "syevj_batched", |s| {
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

/// [`syevd`](super::syevd) of `batch` matrices stored one after another (`lda = n`) in one call of
/// `cusolverDnXsyevBatched` (CUDA 12.6 or later). `Ok(false)` when it declined before
/// touching anything (an older library, or sizes it does not take): then call [`syevd`](super::syevd).
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
    with_solver(device, dtype, "syev_batched", |s| {
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
