//! One-sided Jacobi (Hestenes' method, as LAPACK's `xGESVJ` and cuSOLVER's `gesvdj`): the
//! columns of a work matrix `W` are rotated pairwise until they are orthogonal; their norms
//! are then the singular values, and the rotations, accumulated in `V`, the right singular
//! vectors (`W = U diag(s)`).
//!
//! The Hermitian eigenproblem runs the same sweeps on `B = A + sigma I` with `sigma` twice
//! the largest column sum of `|A|` (at least `||A||_2`), so `B` is positive definite with a
//! condition number of at most 3: its singular vectors are its eigenvectors, found accurately
//! from `W`'s normalised columns alone (no `V`), and `A`'s eigenvalues are `|W_j| - sigma`, to
//! about `eps sigma`. Complex columns rotate natively: the pair's product `gamma = w_p^H w_q`
//! turns to a real `|gamma|` by its phase `e`, and the unitary rotation `w_p' = c w_p - s
//! conj(e) w_q`, `w_q' = s e w_p + c w_q` zeroes it.
//!
//! A sweep visits every pair of columns once, in `n - 1` steps of `n / 2` disjoint pairs (the
//! round-robin order of a tournament), so the pairs of one step rotate in parallel: one launch
//! a step, block `(matrix, pair)` sums the pair's products over the column with its threads
//! (coalesced, in double for every dtype), then rotates both columns (and `V`'s). Each step
//! also leaves every column's squared norm in `norm2`, exact after a sweep with no rotation.

use std::fmt::Write;

use ember_core::DType;

use super::element::{barrier, element, opening, segment_reduce, signature};
use crate::dialect::Dialect;

/// The prepare kernel's `op`: `dst` (n x n) is the Hermitian matrix whose `lower` (else
/// upper) triangle `src` holds; `aux[j]` (`n + 1` a matrix) the sum of `|dst[:, j]|`.
pub const HERMITIAN: i64 = 0;
/// `aux[n]` becomes `sigma` (twice the largest of `aux[..n]`, or 1 for a zero matrix), added to
/// `dst`'s diagonal (one block a matrix).
pub const SHIFT: i64 = 1;
/// `dst` (m x n) is the conjugate transpose of `src` (n x m).
pub const ADJOINT: i64 = 2;
/// `dst` (m x n) is the identity's first columns.
pub const IDENTITY: i64 = 3;

/// The finish kernel's `op`: eigenvalues ascending (`|W_j| - sigma`) and, with [`VECTORS`],
/// eigenvectors (`W_j / |W_j|`) into `out1`.
pub const EIGH: i64 = 0;
/// Singular values descending and, with [`VECTORS`], `W_j / s_j` (0 where `s_j` is 0) into
/// `out1` and `V`'s columns into `out2`: as rows, conjugated ([`ADJOINT_V`]), or as columns.
pub const SVD: i64 = 1;
/// With [`EIGH`] or [`SVD`]: write the vectors too.
pub const VECTORS: i64 = 2;
/// With [`SVD`]: `V`'s columns go to `out2`'s rows, conjugated.
pub const ADJOINT_V: i64 = 4;

/// Which of the three kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// One step of a sweep. Buffers `w`, `v`, `norm2` (double, `n` a matrix), `rotated` (int,
    /// one a matrix, set to 1 when a rotation happens); int64 `wstride`, `m`, `n`, `vstride`,
    /// `mv` (`V`'s rows; 0: no `V`), `step`. Grid (matrices, (n + 1) / 2).
    Rotate,
    /// Layouts before the sweeps (`op`: [`HERMITIAN`], [`SHIFT`], [`ADJOINT`], [`IDENTITY`]).
    /// Buffers `dst`, `src`, `aux` (double); int64 `dstride`, `sstride`, `m`, `n`, `op`,
    /// `lower`. Grid (matrices, columns of `dst`).
    Prepare,
    /// Values sorted, vectors normalised and placed (`op`: [`EIGH`] or [`SVD`], with
    /// [`VECTORS`], [`ADJOINT_V`]). Buffers `w`, `v`, `norm2`, `aux`, `vals` (real), `out1`,
    /// `out2`; int64 `wstride`, `m`, `n`, `vstride`, `mv`, `o1stride`, `o2stride`, `op`. Grid
    /// (matrices, n).
    Finish,
    /// One step of a sweep over blocks of [`BLOCK_COLUMNS`] columns (large Hermitian
    /// eigenproblems on GPUs): block `(matrix, pair)` forms the Gram matrix `G = X^H X` of
    /// its two column blocks `X` (`2 b` columns), diagonalizes it by two-sided Jacobi sweeps in
    /// shared memory (the same rotations as the one-sided method's, accumulated in `R`), then
    /// writes `X R` back: a sweep is `n / b - 1` launches instead of `n - 1`, each reading the
    /// matrix twice. For well-conditioned `W` only (the shifted `B`): forming `G` squares the
    /// condition number. Buffers `w`, `norm2`, `rotated`; int64 `wstride`, `m`, `n`, `step`.
    /// Grid (matrices, pairs of blocks). Threads: `(2 b)^2`.
    BlockRotate,
}

/// Columns of a block of [`Part::BlockRotate`] (its Gram matrix is 16 x 16, 8 KiB of shared
/// memory for complex128, the same for the rotations and the row tile).
pub const BLOCK_COLUMNS: usize = 8;

/// A Jacobi kernel for one dtype and block size (a power of two).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JacobiKernel {
    pub dtype: DType,
    pub block: usize,
    pub part: Part,
}

impl JacobiKernel {
    pub fn name(&self) -> String {
        let part = match self.part {
            Part::Rotate => "rotate",
            Part::Prepare => "prepare",
            Part::Finish => "finish",
            Part::BlockRotate => "block_rotate",
        };
        format!("ember_jacobi_{part}_{}_{}", self.dtype.name(), self.block)
    }

    pub fn source(&self, dialect: Dialect) -> String {
        let mut s = opening(self.dtype, dialect);
        let body = match self.part {
            Part::Rotate => self.rotate(dialect),
            Part::Prepare => self.prepare(dialect),
            Part::Finish => self.finish(dialect),
            Part::BlockRotate => self.block_rotate(dialect),
        };
        s.push_str(&body);
        s
    }

    fn rotate(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let e = element(self.dtype);
        let (g, i64t, shared, b, ty, r) = (t.global, t.int64, t.shared, self.block, e.t, e.r);
        let mut s = signature(
            dialect,
            &self.name(),
            &[
                ("w", ty),
                ("v", ty),
                ("norm2", "double"),
                ("rotated", "int"),
            ],
            &["wstride", "m", "n", "vstride", "mv", "step"],
            false,
        );
        let _ = write!(
            s,
            r#"  {shared} double s0[{b}];
  {shared} double s1[{b}];
  {shared} double s2[{b}];
  {shared} double s3[{b}];
  {shared} double rot[3];
  const {i64t} mat = {mat};
  const {i64t} even = n + (n & 1);
  const {i64t} r = even - 1;
  const {i64t} k = {pair};
  const {i64t} a = (step + k) % r;
  const {i64t} b = k == 0 ? r : (step + r - k) % r;
  const {i64t} p = a < b ? a : b;
  const {i64t} q = a < b ? b : a;
  // Column n of an odd n is a stand-in: its block only takes part in the barriers (every
  // thread of a block must reach them; PoCL miscompiles a block that returns before them).
  const int active = q < n;
  {g}{ty}* wp = w_p + mat * wstride + p * m;
  {g}{ty}* wq = w_p + mat * wstride + (active ? q : p) * m;
  const int lid = {lid};
  double alpha = 0, beta = 0, gr = 0, gi = 0;
  for ({i64t} i = lid; i < m; i += {b}) {{
    const {ty} x = wp[i];
    const double xr = EMB_RE(x), xi = EMB_IM(x);
    alpha += xr * xr + xi * xi;
    if (active) {{
      const {ty} y = wq[i];
      const double yr = EMB_RE(y), yi = EMB_IM(y);
      beta += yr * yr + yi * yi;
      gr += xr * yr + xi * yi;
      gi += xr * yi - xi * yr;
    }}
  }}
  s0[lid] = alpha;
  s1[lid] = beta;
  s2[lid] = gr;
  s3[lid] = gi;
{reduce}  if (lid == 0) {{
    alpha = s0[0];
    beta = s1[0];
    gr = s2[0];
    gi = s3[0];
    const double gm = sqrt(gr * gr + gi * gi);
    // Columns closer than this to orthogonal are left alone (LAPACK's sqrt(m) eps).
    const double tol = sqrt((double)m) * {eps};
    double cm1 = 0, sn = 0, tn = 0, er = 1, ei = 0;
    if (active && alpha > 0 && beta > 0 && gm > tol * sqrt(alpha) * sqrt(beta)) {{
      const double zeta = (beta - alpha) / (2 * gm);
      tn = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
      const double sq = sqrt(1.0 + tn * tn);
      // c - 1 without cancellation: late rotations are tiny, and a c rounded to 1 would
      // let each of them grow the columns by 1 + t^2.
      cm1 = -(tn * tn) / (sq * (1.0 + sq));
      sn = tn / sq;
      er = gr / gm;
      ei = gi / gm;
      if (({r})sn != 0) {atomic_max}(&rotated_p[mat], 1);
      else {{ cm1 = 0; sn = 0; tn = 0; }}
    }}
    rot[0] = cm1;
    rot[1] = sn * er;
    rot[2] = sn * ei;
    norm2_p[mat * n + p] = alpha - tn * gm;
    if (active) norm2_p[mat * n + q] = beta + tn * gm;
  }}
  {barrier};
  const {r} c1 = ({r})rot[0], sr = ({r})rot[1], si = ({r})rot[2];
  if (sr != 0 || si != 0) {{
    for (int h = 0; h < 2; h++) {{
      {g}{ty}* xp = h == 0 ? wp : v_p + mat * vstride + p * mv;
      {g}{ty}* xq = h == 0 ? wq : v_p + mat * vstride + q * mv;
      const {i64t} len = h == 0 ? m : mv;
      for ({i64t} i = lid; i < len; i += {b}) {{
        const {ty} x = xp[i], y = xq[i];
        const {r} xr = ({r})EMB_RE(x), xi = ({r})EMB_IM(x), yr = ({r})EMB_RE(y), yi = ({r})EMB_IM(y);
        // x' = x + ((c - 1) x - conj(s e) y), y' = y + (s e x + (c - 1) y)
        xp[i] = EMB_MK(xr + (c1 * xr - (sr * yr + si * yi)), xi + (c1 * xi - (sr * yi - si * yr)));
        xq[i] = EMB_MK(yr + ((sr * xr - si * xi) + c1 * yr), yi + ((sr * xi + si * xr) + c1 * yi));
      }}
    }}
  }}
}}
"#,
            mat = t.group_id[0],
            pair = t.group_id[1],
            lid = t.local_id,
            eps = e.eps,
            atomic_max = t.atomic_max,
            barrier = barrier(dialect, b),
            reduce = segment_reduce(
                barrier(dialect, b),
                &["s0", "s1", "s2", "s3"],
                b,
                "lid",
                false
            ),
        );
        s
    }

    fn prepare(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let e = element(self.dtype);
        let (g, i64t, shared, b, ty) = (t.global, t.int64, t.shared, self.block, e.t);
        let mut s = signature(
            dialect,
            &self.name(),
            &[("dst", ty), ("src", ty), ("aux", "double")],
            &["dstride", "sstride", "m", "n", "op", "lower"],
            false,
        );
        let _ = write!(
            s,
            r#"  {shared} double s0[{b}];
  const {i64t} mat = {mat};
  const int lid = {lid};
  {g}{ty}* D = dst_p + mat * dstride;
  {g}{ty}* S = src_p + mat * sstride;
  {g}double* X = aux_p + mat * (n + 1);
  // Columns beyond the grid's 65,535 blocks loop; the shift runs once a matrix.
  for ({i64t} j = {col}; j < (op == {SHIFT} ? 1 : n); j += {ngroups}) {{
  if (op == {HERMITIAN}) {{
    double acc = 0;
    for ({i64t} i = lid; i < n; i += {b}) {{
      double xr, xi;
      if (i == j) {{ xr = EMB_RE(S[j * n + j]); xi = 0; }}
      else if (lower ? i > j : i < j) {{ const {ty} x = S[j * n + i]; xr = EMB_RE(x); xi = EMB_IM(x); }}
      else {{ const {ty} x = S[i * n + j]; xr = EMB_RE(x); xi = -EMB_IM(x); }}
      D[j * n + i] = EMB_MK(xr, xi);
      acc += sqrt(xr * xr + xi * xi);
    }}
    s0[lid] = acc;
{sum}    if (lid == 0) X[j] = s0[0];
  }} else if (op == {SHIFT}) {{
    double big = 0;
    for ({i64t} i = lid; i < n; i += {b}) big = fmax(big, X[i]);
    s0[lid] = big;
{max}    const double sigma = s0[0] > 0 ? 2 * s0[0] : 1.0;
    if (lid == 0) X[n] = sigma;
    for ({i64t} i = lid; i < n; i += {b}) {{
      const {ty} x = D[i * n + i];
      D[i * n + i] = EMB_MK(EMB_RE(x) + sigma, 0.0);
    }}
  }} else if (op == {ADJOINT}) {{
    for ({i64t} i = lid; i < m; i += {b}) {{
      const {ty} x = S[i * n + j];
      D[j * m + i] = EMB_MK(EMB_RE(x), -EMB_IM(x));
    }}
  }} else {{
    for ({i64t} i = lid; i < m; i += {b}) D[j * m + i] = EMB_MK(i == j ? 1.0 : 0.0, 0.0);
  }}
  {barrier};
  }}
}}
"#,
            mat = t.group_id[0],
            col = t.group_id[1],
            ngroups = t.num_groups[1],
            barrier = barrier(dialect, b),
            lid = t.local_id,
            sum = segment_reduce(barrier(dialect, b), &["s0"], b, "lid", false),
            max = segment_reduce(barrier(dialect, b), &["s0"], b, "lid", true),
        );
        s
    }

    fn block_rotate(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let e = element(self.dtype);
        let (g, i64t, shared, ty, r) = (t.global, t.int64, t.shared, e.t, e.r);
        let (b, k) = (BLOCK_COLUMNS, 2 * BLOCK_COLUMNS);
        let threads = k * k;
        // Rows of X staged in shared memory at a time.
        let tile = 32;
        let barrier = barrier(dialect, threads);
        let mut s = signature(
            dialect,
            &self.name(),
            &[("w", ty), ("norm2", "double"), ("rotated", "int")],
            &["wstride", "m", "n", "step"],
            false,
        );
        let _ = write!(
            s,
            r#"  {shared} double Gr[{k} * {k}];
  {shared} double Gi[{k} * {k}];
  {shared} double Rr[{k} * {k}];
  {shared} double Ri[{k} * {k}];
  {shared} double Xr[{tile} * {k}];
  {shared} double Xi[{tile} * {k}];
  {shared} double rot[3 * {b}];
  {shared} int pq[2 * {b}];
  // Rotated in the first inner sweep (the outer sweeps go on), in this one, in any.
  {shared} int flags[3];
  const {i64t} mat = {mat};
  const int lid = {lid};
  // The pair of column blocks, in the round-robin order over an even number of blocks.
  const {i64t} blocks = (n + {b} - 1) / {b};
  const {i64t} even = blocks + (blocks & 1);
  const {i64t} rr = even - 1;
  const {i64t} kk = {pair};
  const {i64t} ba = (step + kk) % rr;
  const {i64t} bb = kk == 0 ? rr : (step + rr - kk) % rr;
  const {i64t} bp = ba < bb ? ba : bb, bq = ba < bb ? bb : ba;
  {g}{ty}* W = w_p + mat * wstride;
  // Column c of X is column col(c) of W, absent (zero, never written) past n.
#define COL(c) ((c) < {b} ? bp * {b} + (c) : bq * {b} + (c) - {b})
#define HAS(c) (COL(c) < n)
  const int gi = lid / {k}, gj = lid % {k};
  double ar = 0, ai = 0;
  for ({i64t} r0 = 0; r0 < m; r0 += {tile}) {{
    for (int idx = lid; idx < {tile} * {k}; idx += {threads}) {{
      const int c = idx / {tile}, row = idx % {tile};
      double xr = 0, xi = 0;
      if (r0 + row < m && HAS(c)) {{
        const {ty} x = W[COL(c) * m + r0 + row];
        xr = EMB_RE(x);
        xi = EMB_IM(x);
      }}
      Xr[c * {tile} + row] = xr;
      Xi[c * {tile} + row] = xi;
    }}
    {barrier};
    for (int row = 0; row < {tile}; row++) {{
      const double xr = Xr[gi * {tile} + row], xi = Xi[gi * {tile} + row];
      const double yr = Xr[gj * {tile} + row], yi = Xi[gj * {tile} + row];
      ar += xr * yr + xi * yi;
      ai += xr * yi - xi * yr;
    }}
    {barrier};
  }}
  Gr[gi * {k} + gj] = ar;
  Gi[gi * {k} + gj] = ai;
  Rr[gi * {k} + gj] = gi == gj ? 1.0 : 0.0;
  Ri[gi * {k} + gj] = 0;
  if (lid == 0) {{ flags[0] = 0; flags[1] = 0; flags[2] = 0; }}
  {barrier};
  const double tol = sqrt((double)m) * {eps};
  for (int sweep = 0; sweep < 12; sweep++) {{
    for (int st = 0; st < {k} - 1; st++) {{
      if (lid < {b}) {{
        const int a2 = (st + lid) % ({k} - 1);
        const int b2 = lid == 0 ? {k} - 1 : (st + {k} - 1 - lid) % ({k} - 1);
        const int p = a2 < b2 ? a2 : b2, q = a2 < b2 ? b2 : a2;
        const double alpha = Gr[p * {k} + p], beta = Gr[q * {k} + q];
        const double gr = Gr[p * {k} + q], gim = Gi[p * {k} + q];
        const double gm = sqrt(gr * gr + gim * gim);
        double cm1 = 0, sn = 0, er = 1, ei = 0;
        if (alpha > 0 && beta > 0 && gm > tol * sqrt(alpha) * sqrt(beta)) {{
          const double zeta = (beta - alpha) / (2 * gm);
          const double tn = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
          const double sq = sqrt(1.0 + tn * tn);
          cm1 = -(tn * tn) / (sq * (1.0 + sq));
          sn = tn / sq;
          er = gr / gm;
          ei = gim / gm;
          if (({r})sn != 0) {{
            flags[1] = 1;
            flags[2] = 1;
            if (sweep == 0) flags[0] = 1;
          }}
        }}
        rot[3 * lid] = cm1;
        rot[3 * lid + 1] = sn * er;
        rot[3 * lid + 2] = sn * ei;
        pq[2 * lid] = p;
        pq[2 * lid + 1] = q;
      }}
      {barrier};
      // G J and R J: columns p and q of every row.
      if (lid < {k} * {b}) {{
        const int i = lid % {k}, h = lid / {k};
        const int p = pq[2 * h], q = pq[2 * h + 1];
        const double c1 = rot[3 * h], sr = rot[3 * h + 1], si = rot[3 * h + 2];
        if (sr != 0 || si != 0) {{
          for (int z = 0; z < 2; z++) {{
            {shared_ptr}double* Mr = z == 0 ? Gr : Rr;
            {shared_ptr}double* Mi = z == 0 ? Gi : Ri;
            const double xr = Mr[i * {k} + p], xi = Mi[i * {k} + p];
            const double yr = Mr[i * {k} + q], yi = Mi[i * {k} + q];
            Mr[i * {k} + p] = xr + (c1 * xr - (sr * yr + si * yi));
            Mi[i * {k} + p] = xi + (c1 * xi - (sr * yi - si * yr));
            Mr[i * {k} + q] = yr + ((sr * xr - si * xi) + c1 * yr);
            Mi[i * {k} + q] = yi + ((sr * xi + si * xr) + c1 * yi);
          }}
        }}
      }}
      {barrier};
      // J^H G: rows p and q of every column (row p' = row p + ((c - 1) row p - s e row q),
      // row q' = row q + (conj(s e) row p + (c - 1) row q)).
      if (lid < {k} * {b}) {{
        const int i = lid % {k}, h = lid / {k};
        const int p = pq[2 * h], q = pq[2 * h + 1];
        const double c1 = rot[3 * h], sr = rot[3 * h + 1], si = rot[3 * h + 2];
        if (sr != 0 || si != 0) {{
          const double xr = Gr[p * {k} + i], xi = Gi[p * {k} + i];
          const double yr = Gr[q * {k} + i], yi = Gi[q * {k} + i];
          Gr[p * {k} + i] = xr + (c1 * xr - (sr * yr - si * yi));
          Gi[p * {k} + i] = xi + (c1 * xi - (sr * yi + si * yr));
          Gr[q * {k} + i] = yr + ((sr * xr + si * xi) + c1 * yr);
          Gi[q * {k} + i] = yi + ((sr * xi - si * xr) + c1 * yi);
        }}
      }}
      {barrier};
    }}
    const int more = flags[1];
    {barrier};
    if (!more) break;
    if (lid == 0) flags[1] = 0;
    {barrier};
  }}
  if (lid == 0 && flags[0]) {atomic_max}(&rotated_p[mat], 1);
  if (lid < {k} && HAS(lid)) norm2_p[mat * n + COL(lid)] = Gr[lid * {k} + lid];
  // X R, a row a thread, if anything rotated.
  const int moved = flags[2];
  for ({i64t} row = lid; moved && row < m; row += {threads}) {{
    double xr[{k}], xi[{k}];
    for (int c = 0; c < {k}; c++) {{
      xr[c] = 0;
      xi[c] = 0;
      if (HAS(c)) {{
        const {ty} x = W[COL(c) * m + row];
        xr[c] = EMB_RE(x);
        xi[c] = EMB_IM(x);
      }}
    }}
    for (int c = 0; c < {k}; c++) {{
      if (!HAS(c)) continue;
      double yr = 0, yi = 0;
      for (int i = 0; i < {k}; i++) {{
        const double rr2 = Rr[i * {k} + c], ri2 = Ri[i * {k} + c];
        yr += xr[i] * rr2 - xi[i] * ri2;
        yi += xr[i] * ri2 + xi[i] * rr2;
      }}
      W[COL(c) * m + row] = EMB_MK(yr, yi);
    }}
  }}
#undef COL
#undef HAS
}}
"#,
            mat = t.group_id[0],
            pair = t.group_id[1],
            lid = t.local_id,
            eps = e.eps,
            atomic_max = t.atomic_max,
            shared_ptr = t.shared_pointer,
        );
        s
    }

    fn finish(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let e = element(self.dtype);
        let (g, i64t, shared, b, ty, r) = (t.global, t.int64, t.shared, self.block, e.t, e.r);
        let mut s = signature(
            dialect,
            &self.name(),
            &[
                ("w", ty),
                ("v", ty),
                ("norm2", "double"),
                ("aux", "double"),
                ("vals", r),
                ("out1", ty),
                ("out2", ty),
            ],
            &[
                "wstride", "m", "n", "vstride", "mv", "o1stride", "o2stride", "op",
            ],
            false,
        );
        let _ = write!(
            s,
            r#"  {shared} double s0[{b}];
  const {i64t} mat = {mat};
  const int lid = {lid};
  {g}double* N2 = norm2_p + mat * n;
  const int svd = (op & 1) != 0;
  // Columns beyond the grid's 65,535 blocks loop.
  for ({i64t} j = {col}; j < n; j += {ngroups}) {{
  const double nj = N2[j];
  // The rank of column j: eigenvalues ascending, singular values descending, NaN last (as
  // NumPy sorts), ties by index: a permutation whatever the values.
  double before = 0;
  const int jnan = nj != nj;
  for ({i64t} i = lid; i < n; i += {b}) {{
    const double ni = N2[i];
    const int inan = ni != ni;
    const int first = inan ? 0 : jnan ? 1 : (svd ? ni > nj : ni < nj);
    before += first || ((inan == jnan && (inan || ni == nj)) && i < j);
  }}
  s0[lid] = before;
{sum}  const {i64t} rank = ({i64t})s0[0];
  const double sj = sqrt(nj);
  if (lid == 0) vals_p[mat * n + rank] = ({r})(svd ? sj : sj - aux_p[mat * (n + 1) + n]);
  if (op & {VECTORS}) {{
    {g}{ty}* W = w_p + mat * wstride + j * m;
    {g}{ty}* O = out1_p + mat * o1stride + rank * m;
    const double inv = sj > 0 ? 1 / sj : 0.0;
    for ({i64t} i = lid; i < m; i += {b}) {{
      const {ty} x = W[i];
      O[i] = EMB_MK(EMB_RE(x) * inv, EMB_IM(x) * inv);
    }}
    if (svd) {{
      {g}{ty}* V = v_p + mat * vstride + j * mv;
      {g}{ty}* P = out2_p + mat * o2stride;
      for ({i64t} i = lid; i < mv; i += {b}) {{
        const {ty} x = V[i];
        if (op & {ADJOINT_V}) P[i * n + rank] = EMB_MK(EMB_RE(x), -EMB_IM(x));
        else P[rank * mv + i] = x;
      }}
    }}
  }}
  {barrier};
  }}
}}
"#,
            mat = t.group_id[0],
            col = t.group_id[1],
            ngroups = t.num_groups[1],
            barrier = barrier(dialect, b),
            lid = t.local_id,
            sum = segment_reduce(barrier(dialect, b), &["s0"], b, "lid", false),
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's pairing, in Rust: columns `(p, q)` of pair `k` in step `step` of a sweep
    /// over `even` columns (column `n` of an odd `n` is a stand-in).
    fn round_robin(step: usize, k: usize, even: usize) -> (usize, usize) {
        let r = even - 1;
        let a = (step + k) % r;
        let b = if k == 0 { r } else { (step + r - k) % r };
        (a.min(b), a.max(b))
    }

    #[test]
    fn round_robin_meets_every_pair_once_with_disjoint_steps() {
        for n in 1..12usize {
            let even = n + (n & 1);
            if even < 2 {
                continue;
            }
            let mut met = std::collections::HashSet::new();
            for step in 0..even - 1 {
                let mut used = std::collections::HashSet::new();
                for k in 0..even / 2 {
                    let (p, q) = round_robin(step, k, even);
                    assert!(p < q && q < even, "n {n} step {step} pair {k}: {p},{q}");
                    assert!(
                        used.insert(p) && used.insert(q),
                        "n {n} step {step}: {p},{q} reused"
                    );
                    if q < n {
                        assert!(met.insert((p, q)), "n {n}: ({p},{q}) met twice");
                    }
                }
            }
            assert_eq!(met.len(), n * (n - 1) / 2, "n {n}");
        }
    }

    #[test]
    fn every_part_names_its_parameters_in_both_dialects() {
        for part in [Part::Rotate, Part::Prepare, Part::Finish, Part::BlockRotate] {
            for dtype in [DType::F32, DType::F64, DType::C64, DType::C128] {
                let k = JacobiKernel {
                    dtype,
                    block: 16,
                    part,
                };
                let cuda = k.source(Dialect::Cuda);
                assert!(
                    cuda.contains(&format!("__global__ void {}(", k.name())),
                    "{cuda}"
                );
                let cl = k.source(Dialect::OpenCl);
                let aux = matches!(part, Part::Prepare | Part::Finish);
                assert!(
                    cl.contains("__global double* aux_p, long aux_o") == aux,
                    "{cl}"
                );
                assert_eq!(cl.matches('{').count(), cl.matches('}').count());
            }
        }
    }
}
