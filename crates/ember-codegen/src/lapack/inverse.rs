//! The inverse of many small matrices in one launch: Gauss-Jordan elimination with partial
//! pivoting of `[A | I]` in local memory, several matrices a group. For batches of small
//! matrices one launch beats an LU factorization and a solve with the identity (and what
//! cuSOLVER or cuBLAS would take: two launches and pointer arrays).
//!
//! A matrix's `2n` columns are shared among `lanes` threads of the group (each thread owns
//! its columns, so a step's updates never race); the group holds `per` matrices. At step `k`
//! one thread picks the pivot (the first row of largest `|re| + |im|` in column `k` at or
//! below `k`, as LAPACK's `xGETF2` does, so a zero pivot happens exactly where `xGETRF`
//! finds one and `info` means the same) and saves column `k`; after a barrier every thread
//! swaps, scales and eliminates its own columns. The elimination below the diagonal is
//! LU's; above it, it makes `A` into `I` and `I` into the inverse.
//!
//! Matrices are read as stored (row-major or column-major alike: the inverse of the
//! transpose is the transpose of the inverse).

use std::fmt::Write;

use ember_core::DType;

use super::element::signature;
use super::triangular::{arithmetic, dynamic_local};
use crate::dialect::Dialect;

/// Largest order the kernel takes (`[A | I]` of a complex128 matrix of 32: 32 KiB).
pub const LARGEST: usize = 32;

/// The inverse kernel of one dtype for groups of `threads`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InverseKernel {
    pub dtype: DType,
    pub threads: usize,
}

impl InverseKernel {
    pub fn name(&self) -> String {
        format!("ember_inverse_{}_{}", self.dtype.name(), self.threads)
    }

    /// Threads a matrix and matrices a group for order `n` (`n <= LARGEST`), with at most
    /// `local_bytes` of local memory a group.
    pub fn layout(&self, n: usize, local_bytes: usize) -> (usize, usize) {
        let lanes = (2 * n).min(self.threads).max(1);
        let bytes = n * (2 * n + 1) * self.dtype.itemsize();
        let per = (self.threads / lanes)
            .min(local_bytes / bytes.max(1))
            .max(1);
        (lanes, per)
    }

    /// Elements of dynamic local memory for `per` matrices of order `n`.
    pub fn local_elements(n: usize, per: usize) -> usize {
        per * n * (2 * n + 1)
    }

    /// The source. Parameters: `a` (input), `x` (output), `info` (int32, one a matrix; each
    /// buffer followed by its byte offset on OpenCL), int64 `n batch lanes per`, and the
    /// dynamic local memory. Grid: `ceil(batch / per)` groups of `threads`.
    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let (l, bar, sp) = (t.int64, t.barrier, t.shared_pointer);
        let mut s = String::from("// ember: inverses of small matrices by Gauss-Jordan\n");
        s.push_str(&arithmetic(self.dtype, dialect));
        s.push_str(&dynamic_local(dialect));
        s.push_str(&signature(
            dialect,
            &self.name(),
            &[("a", "elem_t"), ("x", "elem_t"), ("info", "int")],
            &["n", "batch", "lanes", "per"],
            true,
        ));
        let _ = write!(
            s,
            r#"  {shared} int pivot_s[{threads}];
  {sp}elem_t* M = ({sp}elem_t*)ember_dynamic_shared;
  const int lid = {lid};
  const {l} w = 2 * n, slot = lid / lanes, lane = lid % lanes;
  const {l} mat = ({l}){group} * per + slot;
  const int live = slot < per && mat < batch;
  {sp}elem_t* m = M + (live ? slot : 0) * n * w;
  {sp}elem_t* f = M + per * n * w + (live ? slot : 0) * n;
  int info = 0;
  if (live) {{
    for ({l} e = lane; e < n * w; e += lanes) {{
      const {l} r = e / w, c = e - r * w;
      m[e] = c < n ? a_p[mat * n * n + r * n + c] : (c - n == r ? LA_FROM_REAL(1) : LA_ZERO);
    }}
  }}
  {bar};
  for ({l} k = 0; k < n; k++) {{
    if (live && lane == 0) {{
      {l} p = k;
      real_t best = LA_ABS1(m[k * w + k]);
      for ({l} r = k + 1; r < n; r++) {{
        const real_t v = LA_ABS1(m[r * w + k]);
        if (v > best) {{ best = v; p = r; }}
      }}
      if (best == 0 && info == 0) info = (int)(k + 1);
      pivot_s[slot] = (int)p;
      for ({l} r = 0; r < n; r++) f[r] = m[r * w + k];
      const elem_t held = f[k]; f[k] = f[p]; f[p] = held;
    }}
    {bar};
    if (live) {{
      const {l} p = pivot_s[slot];
      const elem_t pivot = f[k];
      for ({l} c = lane; c < w; c += lanes) {{
        const elem_t top = LA_DIV(m[p * w + c], pivot);
        if (p != k) m[p * w + c] = m[k * w + c];
        m[k * w + c] = top;
        for ({l} r = 0; r < n; r++) {{
          if (r != k) m[r * w + c] = LA_FMS(m[r * w + c], f[r], top);
        }}
      }}
    }}
    {bar};
  }}
  if (live) {{
    for ({l} e = lane; e < n * n; e += lanes) {{
      const {l} r = e / n;
      x_p[mat * n * n + e] = m[r * w + n + (e - r * n)];
    }}
    if (lane == 0) info_p[mat] = info;
  }}
}}
"#,
            shared = t.shared,
            threads = self.threads,
            lid = t.local_id,
            group = t.group_id[0],
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_hold_as_many_matrices_as_threads_and_memory_allow() {
        let k = InverseKernel {
            dtype: DType::F64,
            threads: 256,
        };
        let room = 47 * 1024;
        assert_eq!(k.layout(8, room), (16, 16));
        assert_eq!(k.layout(32, room), (64, 2));
        let c = InverseKernel {
            dtype: DType::C128,
            threads: 256,
        };
        assert_eq!(c.layout(32, room), (64, 1));
        assert_eq!(c.layout(1, room), (2, 128));
    }

    #[test]
    fn both_dialects_name_the_dynamic_local_memory() {
        let k = InverseKernel {
            dtype: DType::C64,
            threads: 16,
        };
        for dialect in [Dialect::Cuda, Dialect::OpenCl] {
            let src = k.source(dialect);
            assert!(src.contains("ember_dynamic_shared"), "{src}");
            assert!(src.contains(&k.name()));
        }
    }
}
