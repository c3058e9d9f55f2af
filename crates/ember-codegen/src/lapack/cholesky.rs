//! Cholesky factorization (LAPACK's `xPOTRF`) of a block held whole in local memory: a matrix
//! of order up to [`Shape::small`], or the diagonal block of a blocked factorization.
//!
//! The upper case (`A = U^H U`) is the lower one of the conjugate transpose: the block is read
//! transposed and conjugated, factored as `L L^H`, and written back the same way, so one
//! elimination serves both. Only the requested triangle is read or written. As `xPOTF2`: the
//! diagonal's real part alone is read, a non-positive (or NaN) one stops the factorization of
//! that matrix and records its order in `info`, the column is scaled by `1 / sqrt(d)`.

use std::fmt::Write;

use super::element::global_barrier;
use super::triangular::{open_kernel, Shape};
use crate::dialect::Dialect;

/// Cholesky of a block in local memory (`n * n` elements of dynamic local memory), one group
/// a matrix. Parameters: `a` (the block of matrix `mat` at `mat * mstride + off`, leading
/// dimension `ld`, order `n`), `info` (`(batch,)`: a matrix whose `info` is already set is
/// left alone; a failure at the block's column `j` sets `base + j + 1`), then `mstride off ld
/// n base lower`.
pub(crate) fn cholesky_small_kernel(shape: &Shape, dialect: Dialect, name: &str) -> String {
    let t = dialect.table();
    let l = t.int64;
    let threads = shape.wide;
    let (bar, gbar) = (t.barrier, global_barrier(dialect));
    let mut s = open_kernel(
        dialect,
        name,
        &[("a", "elem_t"), ("info", "int")],
        &["mstride", "off", "ld", "n", "base", "lower"],
        Some("A"),
    );
    let _ = write!(
        s,
        r#"  const {l} m = n;
  {g}elem_t* a = a_p + mat * mstride + off;
  int stop = info_p[mat] != 0;
  for ({l} e = lid; e < m * m; e += {threads}) {{
    const {l} i = e % m, j = e / m;
    if (i >= j) A[j * m + i] = lower ? a[j * ld + i] : LA_CONJ(a[i * ld + j]);
  }}
  {gbar};
  for ({l} j = 0; j < m; j++) {{
    const real_t d = LA_RE(A[j * m + j]);
    const int ok = !stop && d > 0;
    if (!stop && !ok) {{
      stop = 1;
      if (lid == 0) info_p[mat] = (int)(base + j + 1);
    }}
    {bar};
    if (ok) {{
      const real_t r = sqrt(d), inv = (real_t)1 / r;
      for ({l} i = j + 1 + lid; i < m; i += {threads}) A[j * m + i] = LA_SCALE(A[j * m + i], inv);
      if (lid == 0) A[j * m + j] = LA_FROM_REAL(r);
    }}
    {bar};
    if (ok) {{
      // The trailing lower triangle element by element.
      for ({l} e = lid, rem = m - j - 1; e < rem * rem; e += {threads}) {{
        const {l} i = j + 1 + e % rem, k = j + 1 + e / rem;
        if (i >= k) A[k * m + i] = LA_FMS(A[k * m + i], A[j * m + i], LA_CONJ(A[j * m + k]));
      }}
    }}
    {bar};
  }}
  for ({l} e = lid; e < m * m; e += {threads}) {{
    const {l} i = e % m, j = e / m;
    if (i >= j) {{
      if (lower) a[j * ld + i] = A[j * m + i];
      else a[i * ld + j] = LA_CONJ(A[j * m + i]);
    }}
  }}
}}
"#,
        g = t.global,
    );
    s
}
