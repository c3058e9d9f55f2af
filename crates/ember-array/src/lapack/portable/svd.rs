//! `gesvd` by one-sided Jacobi (Hestenes): the columns of `A` (or of `A^H` when it is wide)
//! are rotated until orthogonal, the rotations accumulated in `V`; then `s_j = |W_j|` and
//! `U_j = W_j / s_j`. Those columns go through ember's Householder QR and are formed back
//! as Q with R's signs: exactly orthonormal, zero columns (zero singular values) replaced by
//! an orthonormal completion, and completed to a square basis when `full`.

use ember_codegen::lapack::jacobi::{Part, ADJOINT, ADJOINT_V, IDENTITY, SVD, VECTORS};
use ember_core::{DType, Result};

use super::eigh::real_of;
use super::qr::{factor, form_q, Stack};
use crate::array::Array;
use crate::lapack::{dims, Svd};
use crate::svd::{launch, sweep, Matrices};

pub fn gesvd(a: &Array, full: bool, vectors: bool) -> Result<Svd> {
    let (batch, cols, rows) = dims(a, "gesvd")?;
    let device = a.device();
    let dtype = a.dtype();
    let k = rows.min(cols);
    let s = Array::empty(device, &[batch, k], real_of(dtype))?;
    // Jacobi works on the taller side: W is `big x k`, V `k x k`.
    let tall = rows >= cols;
    let big = rows.max(cols);
    let w = if tall {
        a.clone()
    } else {
        let w = Array::empty(device, &[batch, k, big], dtype)?;
        let (ws, ss) = ((big * k) as i64, (rows * cols) as i64);
        launch(
            Part::Prepare,
            dtype,
            (batch, k),
            &[&w, a, &w],
            &[ws, ss, big as i64, k as i64, ADJOINT, 0],
        )?;
        w
    };
    let norm2 = Array::empty(device, &[batch, k], DType::F64)?;
    let wm = Matrices {
        a: &w,
        batch,
        stride: big * k,
        rows: big,
        cols: k,
    };
    if !vectors {
        let info = sweep(wm, None, &norm2, false)?;
        launch(
            Part::Finish,
            dtype,
            (batch, k),
            &[&w, &w, &norm2, &norm2, &s, &w, &w],
            &[(big * k) as i64, big as i64, k as i64, 0, 0, 0, 0, SVD],
        )?;
        return Ok(Svd {
            s,
            u: None,
            vt: None,
            info,
        });
    }
    let v = Array::empty(device, &[batch, k, k], dtype)?;
    let kk = (k * k) as i64;
    launch(
        Part::Prepare,
        dtype,
        (batch, k),
        &[&v, &v, &norm2],
        &[kk, kk, k as i64, k as i64, IDENTITY, 0],
    )?;
    let vm = Matrices {
        a: &v,
        batch,
        stride: k * k,
        rows: k,
        cols: k,
    };
    let info = sweep(wm, Some(vm), &norm2, false)?;
    // The side Jacobi left orthonormal by construction (V) and the side built from W (`q`,
    // `big x qcols`): U and V^H when tall, V^H's adjoint and U when wide.
    let qcols = if full { big } else { k };
    let q = Array::empty(device, &[batch, qcols, big], dtype)?;
    let other = Array::empty(device, &[batch, k, k], dtype)?;
    let op = SVD | VECTORS | if tall { ADJOINT_V } else { 0 };
    launch(
        Part::Finish,
        dtype,
        (batch, k),
        &[&w, &v, &norm2, &norm2, &s, &q, &other],
        &[
            (big * k) as i64,
            big as i64,
            k as i64,
            kk,
            k as i64,
            (qcols * big) as i64,
            kk,
            op,
        ],
    )?;
    let stack = Stack {
        a: &q,
        batch,
        stride: qcols * big,
        rows: big,
    };
    let tau = Array::empty(device, &[batch, k], dtype)?;
    factor(&stack, k, &tau)?;
    form_q(&stack, qcols, &tau, k, true)?;
    let (u, vt) = if tall {
        (q, other)
    } else {
        // V^H = Q^H, `qcols x big` stored as `(batch, big, qcols)`.
        let vt = Array::empty(device, &[batch, big, qcols], dtype)?;
        launch(
            Part::Prepare,
            dtype,
            (batch, big),
            &[&vt, &q, &norm2],
            &[
                (big * qcols) as i64,
                (qcols * big) as i64,
                qcols as i64,
                big as i64,
                ADJOINT,
                0,
            ],
        )?;
        (other, vt)
    };
    Ok(Svd {
        s,
        u: Some(u),
        vt: Some(vt),
        info,
    })
}
