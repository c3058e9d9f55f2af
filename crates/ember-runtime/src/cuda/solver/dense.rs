//! One cuSOLVER call a matrix, through the 64-bit generic API (`cusolverDnX*`, every dtype
//! by its `cudaDataType`; the typed `orgqr`/`ungqr` where there is no generic one).

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::cusolver::sys as sol;
use ember_core::{DType, Error, Result};

use crate::device::Device;

use super::{
    check, complex_type, data_type, eig_mode, fill_mode, guarded, int32, part_size, real_type,
    with_solver, Stack, Vectors,
};

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
    with_solver(device, dtype, "getrf", |s| {
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
    with_solver(device, dtype, "getrs", |s| {
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
    with_solver(device, dtype, "potrf", |s| {
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
    with_solver(device, dtype, "geqrf", |s| {
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
    with_solver(device, dtype, "orgqr", |s| {
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
    with_solver(device, dtype, "syevd", |s| {
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
    pub(super) fn letter(self) -> i8 {
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
    with_solver(device, dtype, "gesvd", |s| {
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
    with_solver(device, dtype, "geev", |s| {
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

/// The singular value decomposition of `batch` `m x n` matrices by one-sided Jacobi, one
/// `cusolverDn<t>gesvdj` each (any shape), `A = U diag(s) V^H`: `s` real and descending, `u`
/// (`m x m`, or `m x min(m, n)` with `econ`) and `v` (`n x n`, or `n x min(m, n)`) hold U
/// and V itself (not V^H); `a` is destroyed. Converged to the dtype's machine precision, at
/// most `sweeps` sweeps (`info` is `min(m, n) + 1` for a matrix that does not converge).
#[allow(clippy::too_many_arguments)]
pub fn gesvdj(
    device: &'static Device,
    dtype: DType,
    econ: bool,
    (m, n): (usize, usize),
    batch: usize,
    a: Stack,
    s_out: Vectors,
    (u, v): (Stack, Stack),
    info: Vectors,
) -> Result<()> {
    let (mi, ni) = (int32(m, "m")?, int32(n, "n")?);
    let (lda, ldu, ldv) = (a.ld as i32, u.ld as i32, v.ld as i32);
    let tolerance = if part_size(dtype) == 4 {
        f64::from(f32::EPSILON)
    } else {
        f64::EPSILON
    };
    with_solver(device, dtype, "gesvdj", |s| {
        let params = s.gesvdj(tolerance, 400)?;
        let (dn, jobz, econ) = (s.dn, eig_mode(true), i32::from(econ));
        let mut lwork: i32 = 0;
        check(
            "cusolverDn<t>gesvdj_bufferSize",
            guarded("cusolverDn<t>gesvdj_bufferSize", || unsafe {
                typed!(
                    dtype,
                    sol::[
                        cusolverDnSgesvdj_bufferSize,
                        cusolverDnDgesvdj_bufferSize,
                        cusolverDnCgesvdj_bufferSize,
                        cusolverDnZgesvdj_bufferSize
                    ],
                    (
                        dn,
                        jobz,
                        econ,
                        mi,
                        ni,
                        a.ptr as usize as _,
                        lda,
                        s_out.ptr as usize as _,
                        u.ptr as usize as _,
                        ldu,
                        v.ptr as usize as _,
                        ldv,
                        &mut lwork,
                        params
                    )
                )
            })?,
        )?;
        let work = s.workspace(lwork.max(1) as usize * dtype.itemsize())?;
        for i in 0..batch {
            let status = guarded("cusolverDn<t>gesvdj", || unsafe {
                typed!(
                    dtype,
                    sol::[
                        cusolverDnSgesvdj,
                        cusolverDnDgesvdj,
                        cusolverDnCgesvdj,
                        cusolverDnZgesvdj
                    ],
                    (
                        dn,
                        jobz,
                        econ,
                        mi,
                        ni,
                        a.at(i, dtype) as _,
                        lda,
                        s_out.at(i, part_size(dtype)) as _,
                        u.at(i, dtype) as _,
                        ldu,
                        v.at(i, dtype) as _,
                        ldv,
                        work as _,
                        lwork,
                        info.at(i, 4) as *mut i32,
                        params
                    )
                )
            })?;
            check("cusolverDn<t>gesvdj", status)?;
        }
        Ok(())
    })
}

/// The singular value decomposition of `batch` `m x n` matrices (`m >= n`) through the
/// polar decomposition, one `cusolverDnXgesvdp` each: as [`gesvdj`]'s results (U and V
/// itself, `econ` likewise); `a` is destroyed.
#[allow(clippy::too_many_arguments)]
pub fn gesvdp(
    device: &'static Device,
    dtype: DType,
    econ: bool,
    (m, n): (usize, usize),
    batch: usize,
    a: Stack,
    s_out: Vectors,
    (u, v): (Stack, Stack),
    info: Vectors,
) -> Result<()> {
    if m < n {
        return Err(Error::Value(format!(
            "cuSOLVER's gesvdp takes matrices with at least as many rows as columns, not {m} x {n}"
        )));
    }
    with_solver(device, dtype, "gesvdp", |s| {
        let (t, rt, mi, ni) = (data_type(dtype), real_type(dtype), m as i64, n as i64);
        let (jobz, econ) = (eig_mode(true), i32::from(econ));
        let (mut device_bytes, mut host_bytes) = (0usize, 0usize);
        check(
            "cusolverDnXgesvdp_bufferSize",
            guarded("cusolverDnXgesvdp_bufferSize", || unsafe {
                sol::cusolverDnXgesvdp_bufferSize(
                    s.dn,
                    s.params,
                    jobz,
                    econ,
                    mi,
                    ni,
                    t,
                    a.ptr as usize as *const c_void,
                    a.ld,
                    rt,
                    s_out.ptr as usize as *const c_void,
                    t,
                    u.ptr as usize as *const c_void,
                    u.ld,
                    t,
                    v.ptr as usize as *const c_void,
                    v.ld,
                    t,
                    &mut device_bytes,
                    &mut host_bytes,
                )
            })?,
        )?;
        let work = s.workspace(device_bytes)?;
        let host = s.host_workspace(host_bytes);
        for i in 0..batch {
            let mut error = 0f64;
            let status = guarded("cusolverDnXgesvdp", || unsafe {
                sol::cusolverDnXgesvdp(
                    s.dn,
                    s.params,
                    jobz,
                    econ,
                    mi,
                    ni,
                    t,
                    a.at(i, dtype),
                    a.ld,
                    rt,
                    s_out.at(i, part_size(dtype)),
                    t,
                    u.at(i, dtype),
                    u.ld,
                    t,
                    v.at(i, dtype),
                    v.ld,
                    t,
                    work,
                    device_bytes,
                    host,
                    host_bytes,
                    info.at(i, 4) as *mut i32,
                    &mut error,
                )
            })?;
            check("cusolverDnXgesvdp", status)?;
        }
        Ok(())
    })
}
