//! Householder QR in LAPACK's storage (`xGEQRF`, `xORGQR` / `xUNGQR`), one kernel a dtype.
//!
//! Step `j` of the factorization makes the reflector `H(j) = I - tau v v^H` that zeroes column
//! `j` below the diagonal (LAPACK's `xLARFG`: `beta = -sign(Re alpha) |(alpha, x)|`, `tau =
//! (beta - alpha) / beta`, `v = x / (alpha - beta)` below the diagonal with an implicit 1 on
//! it, `beta` (real) on it) and applies `H(j)^H` to the columns right of it. Forming Q runs the
//! steps backwards (LAPACK's `xORG2R`): `H(j)` applied to the columns right of `j`, then column
//! `j` becomes `e_j - tau v`.
//!
//! Phases of a step, chosen by the bits of `op` ([`REFLECT`], ...): one launch with one block a
//! matrix runs every step of small matrices (barriers between the phases); large ones launch
//! each phase on its own, the application spread over many blocks. The application splits a
//! block into `teams` teams, one column each: its lanes sum `v^H a_c` down the column
//! (coalesced), then update it. Sums are in double for every dtype.
//!
//! Parameters: `a` (the matrices, `stride` elements apart, each `m` rows, column-major), `tau`
//! (`k` a matrix), then int64 `stride`, `m`, `n` (columns: the matrix's, or Q's), `k`, `j0`
//! (the first step), `count` (steps: `j0, j0 + 1, ...`; for Q `j0, j0 - 1, ...`), `op`.
//! Grid: (matrices, blocks).

use std::fmt::Write;

use ember_core::DType;

use super::element::{barrier, element, opening, segment_reduce, signature};
use crate::dialect::Dialect;

/// Makes step `j`'s reflector from column `j` (one block a matrix).
pub const REFLECT: i64 = 1;
/// Applies step `j`'s reflector to the columns right of `j`: `H(j)^H` (QR) or `H(j)` (Q).
pub const APPLY: i64 = 2;
/// Forms Q (else factors).
pub const FORM_Q: i64 = 4;
/// Turns column `j` of Q's reflectors into Q's column (one block a matrix).
pub const FINISH: i64 = 8;
/// With [`FINISH`]: multiplies Q's column `j` by the sign of `R[j, j]` (still on the
/// diagonal then), so Q's columns are the factored matrix's where its columns were orthonormal.
pub const SIGNS: i64 = 16;
/// Sets Q's columns `k..n` to the identity's.
pub const INIT: i64 = 32;

/// The kernel for one dtype and block shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HouseholderKernel {
    pub dtype: DType,
    /// Threads a block (a power of two).
    pub block: usize,
    /// Columns a block updates at once (a power of two dividing `block`).
    pub teams: usize,
}

impl HouseholderKernel {
    pub fn name(&self) -> String {
        format!(
            "ember_householder_{}_{}x{}",
            self.dtype.name(),
            self.teams,
            self.block / self.teams
        )
    }

    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let e = element(self.dtype);
        let (g, i64t, barrier, shared) =
            (t.global, t.int64, barrier(dialect, self.block), t.shared);
        let (b, teams) = (self.block, self.teams);
        let lanes = b / teams;
        let mut s = opening(self.dtype, dialect);
        s.push_str(&signature(
            dialect,
            &self.name(),
            &[("a", e.t), ("tau", e.t)],
            &["stride", "m", "n", "k", "j0", "count", "op"],
            false,
        ));
        let ty = e.t;
        let _ = write!(
            s,
            r#"  {shared} double r0[{b}];
  {shared} double r1[{b}];
  {shared} double hh[5];
  const {i64t} mat = {mat}, grp = {grp}, ngrp = {ngrp};
  {g}{ty}* A = a_p + mat * stride;
  {g}{ty}* tau = tau_p + mat * k;
  const int lid = {lid};
  const int team = lid / {lanes}, lane = lid % {lanes};
  const int form_q = (op & {FORM_Q}) != 0;
  if (op & {INIT}) {{
    for ({i64t} c = k + grp; c < n; c += ngrp)
      for ({i64t} i = lid; i < m; i += {b}) A[c * m + i] = EMB_MK(i == c ? 1.0 : 0.0, 0.0);
    {barrier};
  }}
  for ({i64t} s = 0; s < count; s++) {{
    const {i64t} j = form_q ? j0 - s : j0 + s;
    {g}{ty}* v = A + j * m;
    if (op & {REFLECT}) {{
      // |x| below the diagonal, scaled as LAPACK's xNRM2 (float64 squares over- and
      // underflow): each thread keeps (scale, sum of (x / scale)^2).
      double sc = 0, sq = 1;
      for ({i64t} i = j + 1 + lid; i < m; i += {b}) {{
        const {ty} x = v[i];
        const double parts[2] = {{fabs(EMB_RE(x)), fabs(EMB_IM(x))}};
        for (int h = 0; h < 2; h++) {{
          const double y = parts[h];
          if (y != 0) {{
            if (sc < y) {{ sq = 1 + sq * (sc / y) * (sc / y); sc = y; }}
            else sq += (y / sc) * (y / sc);
          }}
        }}
      }}
      r0[lid] = sc;
      r1[lid] = sq;
      {barrier};
      for (int span = {b} / 2; span > 0; span >>= 1) {{
        if (lid < span) {{
          const double s1 = r0[lid], s2 = r0[lid + span];
          if (s1 < s2) {{ r1[lid] = r1[lid + span] + r1[lid] * (s1 / s2) * (s1 / s2); r0[lid] = s2; }}
          else if (s1 > 0) r1[lid] += r1[lid + span] * (s2 / s1) * (s2 / s1);
        }}
        {barrier};
      }}
      if (lid == 0) {{
        const double xnorm = r0[0] * sqrt(r1[0]);
        const {ty} a0 = v[j];
        // Not const: for real dtypes `ai` is 0 and a const would warn in `xnorm != 0 || ai != 0`.
        double ar = EMB_RE(a0), ai = EMB_IM(a0);
        double tr = 0, ti = 0, ir = 0, ii = 0, go = 0;
        if (xnorm != 0 || ai != 0) {{
          const double big = fmax(fmax(fabs(ar), fabs(ai)), xnorm);
          const double beta = -copysign(big * sqrt((ar / big) * (ar / big) + (ai / big) * (ai / big) + (xnorm / big) * (xnorm / big)), ar);
          tr = (beta - ar) / beta;
          ti = -ai / beta;
          // 1 / (alpha - beta), Smith's way.
          const double dr = ar - beta, di = ai;
          if (fabs(di) <= fabs(dr)) {{ const double q = di / dr, d = dr + di * q; ir = 1 / d; ii = -q / d; }}
          else {{ const double q = dr / di, d = dr * q + di; ir = q / d; ii = -1 / d; }}
          go = 1;
          v[j] = EMB_MK(beta, 0.0);
        }}
        tau[j] = EMB_MK(tr, ti);
        hh[0] = ir;
        hh[1] = ii;
        hh[2] = go;
      }}
      {barrier};
      if (hh[2] != 0) {{
        const double ir = hh[0], ii = hh[1];
        for ({i64t} i = j + 1 + lid; i < m; i += {b}) {{
          const {ty} x = v[i];
          const double xr = EMB_RE(x), xi = EMB_IM(x);
          v[i] = EMB_MK(xr * ir - xi * ii, xr * ii + xi * ir);
        }}
      }}
      {barrier};
    }}
    if (op & {APPLY}) {{
      const {ty} tj = tau[j];
      // H(j)^H takes conj(tau) (QR); H(j) takes tau (Q).
      const double cr = EMB_RE(tj), ci = form_q ? EMB_IM(tj) : -EMB_IM(tj);
      if (cr != 0 || ci != 0) {{
        for ({i64t} c0 = j + 1 + grp * {teams}; c0 < n; c0 += ngrp * {teams}) {{
          const {i64t} c = c0 + team;
          const int on = c < n;
          {g}{ty}* ac = A + (on ? c : j) * m;
          double sr = 0, si = 0;
          for ({i64t} i = j + lane; on && i < m; i += {lanes}) {{
            const {ty} vv = v[i];
            const double vr = i == j ? 1.0 : EMB_RE(vv), vi = i == j ? 0.0 : EMB_IM(vv);
            const {ty} x = ac[i];
            const double xr = EMB_RE(x), xi = EMB_IM(x);
            sr += vr * xr + vi * xi;
            si += vr * xi - vi * xr;
          }}
          r0[lid] = sr;
          r1[lid] = si;
{reduce}          const double dr = r0[team * {lanes}], di = r1[team * {lanes}];
          const double fr = cr * dr - ci * di, fi = cr * di + ci * dr;
          for ({i64t} i = j + lane; on && i < m; i += {lanes}) {{
            const {ty} vv = v[i];
            const double vr = i == j ? 1.0 : EMB_RE(vv), vi = i == j ? 0.0 : EMB_IM(vv);
            const {ty} x = ac[i];
            ac[i] = EMB_MK(EMB_RE(x) - (fr * vr - fi * vi), EMB_IM(x) - (fr * vi + fi * vr));
          }}
          {barrier};
        }}
      }}
    }}
    if (op & {FINISH}) {{
      const {ty} tj = tau[j];
      const double tr = EMB_RE(tj), ti = EMB_IM(tj);
      const double d = ((op & {SIGNS}) && EMB_RE(v[j]) < 0) ? -1.0 : 1.0;
      {barrier};
      for ({i64t} i = lid; i < m; i += {b}) {{
        if (i < j) v[i] = EMB_MK(0.0, 0.0);
        else if (i == j) v[i] = EMB_MK(d * (1 - tr), -d * ti);
        else {{
          const {ty} x = v[i];
          const double xr = EMB_RE(x), xi = EMB_IM(x);
          v[i] = EMB_MK(-d * (tr * xr - ti * xi), -d * (tr * xi + ti * xr));
        }}
      }}
      {barrier};
    }}
  }}
}}
"#,
            mat = t.group_id[0],
            grp = t.group_id[1],
            ngrp = t.num_groups[1],
            lid = t.local_id,
            reduce = segment_reduce(barrier, &["r0", "r1"], lanes, "lane", false),
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_source_per_dtype_names_its_parameters_in_both_dialects() {
        for dtype in [DType::F32, DType::F64, DType::C64, DType::C128] {
            let k = HouseholderKernel {
                dtype,
                block: 256,
                teams: 8,
            };
            let cuda = k.source(Dialect::Cuda);
            assert!(cuda.contains(&format!("void {}(", k.name())), "{cuda}");
            let cl = k.source(Dialect::OpenCl);
            assert!(cl.contains("long a_o, __global"), "{cl}");
            assert_eq!(cl.matches('{').count(), cl.matches('}').count());
        }
    }
}
