//! Singular values by one-sided Jacobi (Hestenes' method, as LAPACK's `xGESVJ` and cuSOLVER's
//! `gesvdj` use it): the columns of a matrix are rotated pairwise until they are orthogonal;
//! their norms are then the singular values.
//!
//! A sweep visits every pair of columns once, in `n - 1` steps of `n / 2` disjoint pairs (the
//! round-robin order of a tournament), so the pairs of one step rotate in parallel. One launch
//! runs one step: block `(pair, matrix)` reduces the pair's three dot products over the column
//! length with its threads (coalesced), then rotates both columns. The matrices are stored
//! column after column: `w[matrix][column][row]`.

use std::fmt::Write;

use ember_core::DType;

use crate::dialect::Dialect;

/// The kernel's name for `dtype`.
pub fn step_name(dtype: DType) -> String {
    format!("ember_jacobi_step_{}", dtype.name())
}

/// One step of a sweep for float32 or float64 matrices, with `block` threads per pair (a
/// power of two), launched on a grid of (matrices, pairs). Parameters: `w` (the matrices,
/// rotated in place; callers refuse NaN first), `rotated` (one int per matrix, set to 1 when a
/// rotation happens), `m` rows, `n` columns, `step`.
///
/// The dot products and the rotation are computed in double for both types: float32 columns
/// of very different sizes neither underflow in their squares nor lose the rotation. The
/// rotation is applied as `x + ((c - 1) x - s y)`: late rotations are tiny, and `c` itself
/// would round to 1 and let every one of them grow the columns by `1 + t^2`. Columns whose
/// squared norm underflows to 0 (float64 entries below about 1e-154 of the largest) are not
/// rotated.
pub fn step_source(dtype: DType, block: usize, dialect: Dialect) -> String {
    let t = dialect.table();
    let (g, i64t) = (t.global, t.int64);
    let ty = match dtype {
        DType::F32 => "float",
        _ => "double",
    };
    // Columns closer than this to orthogonal are left alone (LAPACK's sqrt(m) * eps).
    let eps = match dtype {
        DType::F32 => "1.1920929e-07f",
        _ => "2.220446049250313e-16",
    };
    // The rotated columns are read by other blocks in the next launch only; within a block
    // the barriers order local memory.
    let name = step_name(dtype);
    let mut params = vec![format!("{g}{ty}* w_p")];
    if t.buffer_offsets {
        params.push(format!("{i64t} w_o"));
    }
    params.push(format!("{g}int* rotated_p"));
    if t.buffer_offsets {
        params.push(format!("{i64t} rotated_o"));
    }
    params.extend([
        format!("{i64t} m"),
        format!("{i64t} n"),
        format!("{i64t} step"),
    ]);
    let mut s = String::from("// ember: one-sided Jacobi step\n");
    if let Some(pragma) = t.fp64_pragma {
        s.push_str(pragma);
    }
    let _ = writeln!(s, "{} {name}({}) {{", t.kernel_prefix, params.join(", "));
    if let Some(line) = t.offset_pointer("w_p", ty, false, "w_o") {
        s.push_str(&line);
    }
    if let Some(line) = t.offset_pointer("rotated_p", "int", false, "rotated_o") {
        s.push_str(&line);
    }
    let lid = t.local_id;
    // Matrices along the grid's first axis (CUDA allows 2^31 - 1 blocks there), pairs along
    // the second (65,535: up to 131,070 columns).
    let (matrix, pair) = (t.group_id[0], t.group_id[1]);
    let barrier = t.barrier;
    let atomic_max = t.atomic_max;
    let shared = t.shared;
    let _ = write!(
        s,
        r#"  {shared} double sums[3 * {block}];
  {shared} double rot[2];
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
  {g}{ty}* wp = w_p + ({matrix} * n + p) * m;
  {g}{ty}* wq = w_p + ({matrix} * n + (active ? q : p)) * m;
  const int lid = {lid};
  double alpha = 0, beta = 0, gamma = 0;
  for ({i64t} i = lid; active && i < m; i += {block}) {{
    const double x = wp[i], y = wq[i];
    alpha += x * x;
    beta += y * y;
    gamma += x * y;
  }}
  sums[lid] = alpha;
  sums[{block} + lid] = beta;
  sums[2 * {block} + lid] = gamma;
  {barrier};
  for (int span = {block} / 2; span > 0; span /= 2) {{
    if (lid < span) {{
      sums[lid] += sums[lid + span];
      sums[{block} + lid] += sums[{block} + lid + span];
      sums[2 * {block} + lid] += sums[2 * {block} + lid + span];
    }}
    {barrier};
  }}
  if (lid == 0) {{
    alpha = sums[0];
    beta = sums[{block}];
    gamma = sums[2 * {block}];
    double cm1 = 0, sn = 0;
    const double tol = sqrt((double)m) * {eps};
    if (!active) {{
      // No rotation: the stand-in pairs with nobody.
    }} else if (alpha > 0 && beta > 0 && gamma != 0 && fabs(gamma) > tol * sqrt(alpha) * sqrt(beta)) {{
      const double zeta = (beta - alpha) / (2 * gamma);
      const double tn = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + hypot(1.0, zeta));
      const double sq = sqrt(1.0 + tn * tn);
      cm1 = -(tn * tn) / (sq * (1.0 + sq));
      sn = tn / sq;
      if (({ty})sn != 0) {atomic_max}(&rotated_p[{matrix}], 1);
    }}
    rot[0] = cm1;
    rot[1] = sn;
  }}
  {barrier};
  const {ty} cm1_t = ({ty})rot[0], sin_t = ({ty})rot[1];
  for ({i64t} i = lid; sin_t != 0 && i < m; i += {block}) {{
    const {ty} u = wp[i], v = wq[i];
    wp[i] = u + (cm1_t * u - sin_t * v);
    wq[i] = v + (sin_t * u + cm1_t * v);
  }}
}}
"#
    );
    s
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
    fn both_dialects_name_their_parameters() {
        let cuda = step_source(DType::F64, 128, Dialect::Cuda);
        assert!(cuda.contains("extern \"C\" __global__ void ember_jacobi_step_float64(double* w_p, int* rotated_p, long long m"), "{cuda}");
        let cl = step_source(DType::F32, 16, Dialect::OpenCl);
        assert!(
            cl.contains("__global float* w_p, long w_o, __global int* rotated_p, long rotated_o"),
            "{cl}"
        );
        assert!(cl.contains("__local double sums[3 * 16]"), "{cl}");
    }
}
