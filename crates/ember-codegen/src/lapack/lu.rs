//! LU with partial pivoting (LAPACK's `xGETRF`), and the program that holds every kernel of
//! ember's LU and Cholesky factorizations for one dtype ([`FactorProgram`]: one compile gives
//! them all, which matters on PoCL where a build costs about a second).
//!
//! Two shapes of factorization:
//! - [`Kernel::LuSmall`]: a whole matrix of order up to [`Shape::small`] in local memory, one
//!   work-group a matrix (any batch in one launch);
//! - [`Kernel::LuLeaf`]: the leaf of a blocked factorization, a few columns of a tall panel
//!   factored by one group a matrix with the panel in registers (a column step is a few
//!   barriers, not a walk through global memory), its row interchanges applied to the other
//!   columns of the block being factored too (no launches for them);
//! - [`Kernel::LuPanel`]: the same leaf in global memory, for panels taller than the
//!   registers hold, its interchanges applied to its own columns only ([`Kernel::Swap`]
//!   applies them to the others).
//!
//! Both follow `xGETF2`: the pivot is the first entry of largest `|re| + |im|` (found by a
//! reduction over the group), a zero pivot is recorded in `info` (first one only) and the
//! elimination goes on, the column is scaled by the pivot's reciprocal unless the pivot is
//! below the smallest normal number (then divided by it). Pivots are stored 1-based.

use std::fmt::Write;

use ember_core::DType;

use super::cholesky::cholesky_small_kernel;
use super::element::global_barrier;
use super::triangular::{arithmetic, dynamic_local, open_kernel, solve_kernel, Shape};
use crate::dialect::Dialect;

/// One kernel of a [`FactorProgram`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    LuSmall,
    LuLeaf,
    LuPanel,
    Swap,
    Solve,
    CholeskySmall,
}

impl Kernel {
    pub const ALL: [Kernel; 6] = [
        Kernel::LuSmall,
        Kernel::LuLeaf,
        Kernel::LuPanel,
        Kernel::Swap,
        Kernel::Solve,
        Kernel::CholeskySmall,
    ];

    fn stem(self) -> &'static str {
        match self {
            Kernel::LuSmall => "lu_small",
            Kernel::LuLeaf => "lu_leaf",
            Kernel::LuPanel => "lu_panel",
            Kernel::Swap => "lu_swap",
            Kernel::Solve => "tri_solve",
            Kernel::CholeskySmall => "chol_small",
        }
    }
}

/// Every LU and Cholesky kernel for one [`Shape`], in one program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FactorProgram {
    pub shape: Shape,
}

impl FactorProgram {
    /// The name of `kernel` (unique per shape).
    pub fn name(&self, kernel: Kernel) -> String {
        let s = &self.shape;
        format!(
            "ember_{}_{}_{}x{}x{}x{}x{}x{}",
            kernel.stem(),
            s.dtype.name(),
            s.small,
            s.solve,
            s.threads,
            s.wide,
            s.leaf_cols,
            s.leaf_rows
        )
    }

    /// The program's source in `dialect`.
    pub fn source(&self, dialect: Dialect) -> String {
        let shape = &self.shape;
        let mut s = String::from("// ember: LU and Cholesky factorizations\n");
        s.push_str(&arithmetic(shape.dtype, dialect));
        s.push_str(&dynamic_local(dialect));
        s.push_str(&lu_small_kernel(
            shape,
            dialect,
            &self.name(Kernel::LuSmall),
        ));
        s.push_str(&lu_leaf_kernel(shape, dialect, &self.name(Kernel::LuLeaf)));
        s.push_str(&lu_panel_kernel(
            shape,
            dialect,
            &self.name(Kernel::LuPanel),
        ));
        s.push_str(&swap_kernel(shape, dialect, &self.name(Kernel::Swap)));
        s.push_str(&solve_kernel(shape, dialect, &self.name(Kernel::Solve)));
        s.push_str(&cholesky_small_kernel(
            shape,
            dialect,
            &self.name(Kernel::CholeskySmall),
        ));
        s
    }

    /// Threads of a group of `kernel`.
    pub fn threads(&self, kernel: Kernel) -> usize {
        match kernel {
            Kernel::LuSmall => self.shape.threads,
            _ => self.shape.wide,
        }
    }

    /// The dtypes a program exists for.
    pub const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C64, DType::C128];
}

/// Each thread's candidate pivot of column `col` (a pointer expression) over its rows of
/// `k..m`: the largest `|re| + |im|` into `best`, the first such row into `bi`.
fn pivot_scan(threads: usize, l: &str, col: &str) -> String {
    format!(
        r#"    best = -1; bi = k;
    for ({l} i = k + lid; i < m; i += {threads}) {{
      const real_t v = LA_ABS1({col}[i]);
      if (v > best) {{ best = v; bi = i; }}
    }}
"#
    )
}

/// The pivot of column `col` from the threads' candidates (`best`, `bi`): a tree over the
/// group keeps the largest, the first row among equals. Leaves `p` (the row), `pivot` (its
/// value) and `nonzero` in every thread. `bar` is the barrier between the tree's steps.
fn pivot_tree(threads: usize, l: &str, col: &str, bar: &str) -> String {
    format!(
        r#"    red_v[lid] = best; red_i[lid] = bi;
    {bar};
    for (int span = {threads} / 2; span > 0; span >>= 1) {{
      if (lid < span) {{
        const real_t v = red_v[lid + span]; const {l} i = red_i[lid + span];
        if (v > red_v[lid] || (v == red_v[lid] && i < red_i[lid])) {{ red_v[lid] = v; red_i[lid] = i; }}
      }}
      {bar};
    }}
    const {l} p = red_i[0];
    const elem_t pivot = {col}[p];
    const int nonzero = LA_NONZERO(pivot);
"#
    )
}

/// Scaling of rows `k + 1..m` of column `col` by the pivot (thread per row, the rows a
/// thread then updates), as `xGETF2` does.
fn scale_rows(threads: usize, l: &str, col: &str) -> String {
    format!(
        r#"    if (nonzero) {{
      if (LA_ABSV(pivot) >= LA_SFMIN) {{
        const elem_t r = LA_DIV(LA_FROM_REAL(1), pivot);
        for ({l} i = k + 1 + lid; i < m; i += {threads}) {col}[i] = LA_MUL({col}[i], r);
      }} else {{
        for ({l} i = k + 1 + lid; i < m; i += {threads}) {col}[i] = LA_DIV({col}[i], pivot);
      }}
    }}
"#
    )
}

/// LU of whole matrices in local memory (`n * n` elements of dynamic local memory).
/// Parameters: `a` (`(batch, n, n)`, column-major matrices, factored in place), `piv`
/// (`(batch, n)`), `info` (`(batch,)`, written), `n`. Grid: one group a matrix.
fn lu_small_kernel(shape: &Shape, dialect: Dialect, name: &str) -> String {
    let t = dialect.table();
    let l = t.int64;
    let threads = shape.threads;
    let bar = t.barrier;
    let mut s = open_kernel(
        dialect,
        name,
        &[("a", "elem_t"), ("piv", "int"), ("info", "int")],
        &["n"],
        Some("A"),
    );
    let _ = write!(
        s,
        r#"  {shared} real_t red_v[{threads}];
  {shared} {l} red_i[{threads}];
  const {l} m = n;
  {g}elem_t* a = a_p + mat * n * n;
  {g}int* piv = piv_p + mat * n;
  int info = 0;
  real_t best; {l} bi;
  for ({l} e = lid; e < m * m; e += {threads}) A[e] = a[e];
  {bar};
  for ({l} k = 0; k < m; k++) {{
{scan}{tree}    {bar};
    if (lid == 0) {{
      piv[k] = (int)(p + 1);
      if (!nonzero && info == 0) info = (int)(k + 1);
    }}
    if (nonzero && p != k) {{
      for ({l} j = lid; j < m; j += {threads}) {{
        const elem_t x = A[j * m + k]; A[j * m + k] = A[j * m + p]; A[j * m + p] = x;
      }}
    }}
    {bar};
{scale}    {bar};
    // The trailing block element by element (a few elements a thread).
    for ({l} e = lid, rem = m - k - 1; e < rem * rem; e += {threads}) {{
      const {l} i = k + 1 + e % rem, j = k + 1 + e / rem;
      A[j * m + i] = LA_FMS(A[j * m + i], A[k * m + i], A[j * m + k]);
    }}
    {bar};
  }}
  for ({l} e = lid; e < m * m; e += {threads}) a[e] = A[e];
  if (lid == 0) info_p[mat] = info;
}}
"#,
        shared = t.shared,
        g = t.global,
        scan = pivot_scan(threads, l, "(A + k * m)"),
        tree = pivot_tree(threads, l, "(A + k * m)", bar),
        scale = scale_rows(threads, l, "(A + k * m)"),
    );
    s
}

/// Columns `c0..c0 + w` of each matrix factored in global memory, rows `c0..n` (the leaf of
/// the blocked LU): pivots `piv[c0..c0 + w]` (1-based rows of the whole matrix), row
/// interchanges within these columns, `info` set at the first zero pivot if still 0.
/// Parameters: `a`, `piv`, `info`, `n`, `c0`, `w`. Grid: one group a matrix.
fn lu_panel_kernel(shape: &Shape, dialect: Dialect, name: &str) -> String {
    let t = dialect.table();
    let l = t.int64;
    let threads = shape.wide;
    let (bar, gbar) = (t.barrier, global_barrier(dialect));
    let mut s = open_kernel(
        dialect,
        name,
        &[("a", "elem_t"), ("piv", "int"), ("info", "int")],
        &["n", "c0", "w"],
        None,
    );
    let _ = write!(
        s,
        r#"  {shared} real_t red_v[{threads}];
  {shared} {l} red_i[{threads}];
  const {l} m = n;
  {g}elem_t* a = a_p + mat * n * n;
  {g}int* piv = piv_p + mat * n;
  real_t best; {l} bi;
  {{
    const {l} k = c0;
    {g}elem_t* col = a + k * n;
{scan}  }}
  for ({l} k = c0; k < c0 + w; k++) {{
    {g}elem_t* col = a + k * n;
{tree}    {gbar};
    if (lid == 0) {{
      piv[k] = (int)(p + 1);
      if (!nonzero && info_p[mat] == 0) info_p[mat] = (int)(k + 1);
    }}
    if (nonzero && p != k) {{
      for ({l} c = c0 + lid; c < c0 + w; c += {threads}) {{
        const elem_t x = a[c * n + k]; a[c * n + k] = a[c * n + p]; a[c * n + p] = x;
      }}
    }}
    {gbar};
{scale}    // Each thread's rows of the next column are final once updated: its pivot candidates
    // are taken on the way (no second pass over the column).
    best = -1; bi = k + 1;
    for ({l} i = k + 1 + lid; i < m; i += {threads}) {{
      const elem_t li = col[i];
      for ({l} c = k + 1; c < c0 + w; c++) a[c * n + i] = LA_FMS(a[c * n + i], li, a[c * n + k]);
      const real_t v = LA_ABS1(a[(k + 1) * n + i]);
      if (v > best) {{ best = v; bi = i; }}
    }}
    {gbar};
  }}
}}
"#,
        shared = t.shared,
        g = t.global,
        scan = pivot_scan(threads, l, "col"),
        tree = pivot_tree(threads, l, "col", bar),
        scale = scale_rows(threads, l, "col"),
    );
    s
}

/// Columns `c0..c0 + w` (`w <= shape.leaf_cols`) of each matrix factored with rows `c0..n`
/// in registers (`n - c0 <= shape.leaf_reach()`): thread `lid` holds rows `c0 + lid + r *
/// threads` as the scalars `x{r}_{c}`. Pivots `piv[c0..c0 + w]` (1-based), `info` set at the
/// first zero pivot if still 0, the interchanges applied to the leaf's columns and to the
/// others of `p0..p1` (the block being factored; a thread a column, after the leaf).
/// Parameters: `a`, `piv`, `info`, `n`, `c0`, `w`, `p0`, `p1`. Grid: one group a matrix.
///
/// The registers are named, not an array: NVIDIA's OpenCL compiler keeps a private array
/// indexed in unrolled loops in local (stack) memory. The column loop is not unrolled (a
/// straight-line leaf runs from the instruction fetch, ~50 µs on an H200): the current column
/// is always `x{r}_0`, and each step stores it and shifts the others down by one. Its later
/// interchanges are applied in memory at the end, with the block's other columns'.
fn lu_leaf_kernel(shape: &Shape, dialect: Dialect, name: &str) -> String {
    let t = dialect.table();
    let l = t.int64;
    let (threads, rows, cols) = (shape.wide, shape.leaf_rows, shape.leaf_cols);
    let (bar, gbar) = (t.barrier, global_barrier(dialect));
    // The pivot search's second level: `lanes` threads each take `threads / lanes` candidates,
    // then every thread reads the `lanes` results (two barriers, not one a tree level).
    let lanes = threads.min(32);
    let mut s = open_kernel(
        dialect,
        name,
        &[("a", "elem_t"), ("piv", "int"), ("info", "int")],
        &["n", "c0", "w", "p0", "p1"],
        None,
    );
    let _ = write!(
        s,
        r#"  {shared} real_t red_v[{threads} + {lanes}];
  {shared} int red_i[{threads} + {lanes}];
  {shared} elem_t prow[{cols}], krow[{cols}];
  {shared} int pivs[{cols}];
  const {l} m = n;
  {g}elem_t* a = a_p + mat * n * n;
"#,
        shared = t.shared,
        g = t.global,
    );
    let row = |r: usize| format!("(c0 + lid + {})", r * threads);
    // The statements `f(c)` for columns `from..cols`, on one line.
    let each =
        |from: usize, f: &dyn Fn(usize) -> String| -> String { (from..cols).map(f).collect() };
    for r in 0..rows {
        for c in 0..cols {
            let _ = writeln!(
                s,
                "  elem_t x{r}_{c} = ({i} < m && {c} < w) ? a[(c0 + {c}) * n + {i}] : LA_ZERO;",
                i = row(r)
            );
        }
    }
    let _ = write!(
        s,
        r#"  #pragma unroll 1
  for (int k = 0; k < w; k++) {{
    // Candidates at or below the diagonal, in row order (the first of equals wins, as
    // IxAMAX's).
    real_t best = -1; int bi = k;
"#
    );
    for r in 0..rows {
        let d = r * threads;
        let _ = writeln!(
            s,
            "    if (lid + {d} >= k && c0 + lid + {d} < m) {{ const real_t v = LA_ABS1(x{r}_0); if (v > best) {{ best = v; bi = lid + {d}; }} }}"
        );
    }
    let _ = write!(
        s,
        r#"    red_v[lid] = best; red_i[lid] = bi;
    {bar};
    // Both scans unrolled, so that their local loads issue together.
    if (lid < {lanes}) {{
      #pragma unroll
      for (int e = lid + {lanes}; e < {threads}; e += {lanes}) {{
        const real_t v = red_v[e]; const int i = red_i[e];
        if (v > best || (v == best && i < bi)) {{ best = v; bi = i; }}
      }}
      red_v[{threads} + lid] = best; red_i[{threads} + lid] = bi;
    }}
    {bar};
    best = red_v[{threads}]; int p = red_i[{threads}];
    #pragma unroll
    for (int e = 1; e < {lanes}; e++) {{
      const real_t v = red_v[{threads} + e]; const int i = red_i[{threads} + e];
      if (v > best || (v == best && i < p)) {{ best = v; p = i; }}
    }}
    // The owners of row p (thread p % threads, its register row p / threads) and of row k
    // (thread k, row 0) publish them.
    const int owner = p % {threads}, slot = p / {threads};
    if (lid == owner) {{
"#
    );
    for r in 0..rows {
        let put = each(0, &|c| format!(" prow[{c}] = x{r}_{c};"));
        let _ = writeln!(s, "      if (slot == {r}) {{{put} }}");
    }
    let put = each(0, &|c| format!(" krow[{c}] = x0_{c};"));
    let _ = write!(
        s,
        r#"    }}
    if (lid == k) {{{put} }}
    {bar};
    const elem_t pivot = prow[0];
    const int nonzero = LA_NONZERO(pivot);
    if (lid == 0) {{
      pivs[k] = p;
      piv_p[mat * n + c0 + k] = (int)(c0 + p + 1);
      if (!nonzero && info_p[mat] == 0) info_p[mat] = (int)(c0 + k + 1);
    }}
    if (nonzero && p != k) {{
      if (lid == owner) {{
"#
    );
    for r in 0..rows {
        let from_k = each(0, &|c| format!(" x{r}_{c} = krow[{c}];"));
        let _ = writeln!(s, "        if (slot == {r}) {{{from_k} }}");
    }
    let from_p = each(0, &|c| format!(" x0_{c} = prow[{c}];"));
    let _ = write!(
        s,
        r#"      }}
      if (lid == k) {{{from_p} }}
    }}
    // The column below the diagonal scaled (by the reciprocal unless the pivot is tiny, as
    // xGETF2), then the rank-1 update. Rows past m hold zeros and stay zeros.
"#
    );
    let scaled = |op: &str| -> String {
        (0..rows)
            .map(|r| {
                let guard = if r == 0 { "if (lid > k) " } else { "" };
                format!(
                    " {guard}x{r}_0 = {op};",
                    op = op.replace("X", &format!("x{r}_0"))
                )
            })
            .collect()
    };
    let _ = writeln!(
        s,
        "    if (nonzero) {{\n      if (LA_ABSV(pivot) >= LA_SFMIN) {{ const elem_t rcp = LA_DIV(LA_FROM_REAL(1), pivot);{} }}\n      else {{{} }}\n    }}",
        scaled("LA_MUL(X, rcp)"),
        scaled("LA_DIV(X, pivot)")
    );
    for c in 1..cols {
        let _ = writeln!(s, "    const elem_t pr{c} = prow[{c}];");
    }
    for r in 0..rows {
        let update = each(1, &|c| {
            format!(" x{r}_{c} = LA_FMS(x{r}_{c}, x{r}_0, pr{c});")
        });
        if r == 0 {
            let _ = writeln!(s, "    if (lid > k) {{{update} }}");
        } else {
            let _ = writeln!(s, "   {update}");
        }
    }
    let _ = writeln!(
        s,
        "    // Column k is final but for later interchanges: stored, and the rest shift down."
    );
    for r in 0..rows {
        let shift: String = (1..cols)
            .map(|c| format!(" x{r}_{} = x{r}_{c};", c - 1))
            .collect();
        let _ = writeln!(
            s,
            "    if ({i} < m) a[(c0 + k) * n + {i}] = x{r}_0;{shift} x{r}_{last} = LA_ZERO;",
            i = row(r),
            last = cols - 1
        );
    }
    // No barrier at the loop's end: the next column's first barrier comes after every
    // thread has read prow and krow.
    let _ = write!(
        s,
        r#"  }}
  // The interchanges in the leaf's columns (those after each column's own step) and in the
  // block's other columns, a thread a column, once every store is seen.
  {gbar};
  for ({l} j = p0 + lid; j < p1; j += {threads}) {{
    const int first = (j >= c0 && j < c0 + w) ? (int)(j - c0) + 1 : 0;
    {g}elem_t* col = a + j * n + c0;
    for (int k = first; k < w; k++) {{
      const int p = pivs[k];
      if (p != k) {{ const elem_t v = col[k]; col[k] = col[p]; col[p] = v; }}
    }}
  }}
}}
"#,
        g = t.global,
    );
    s
}

/// Row interchanges `k1..k2` of `piv` (LAPACK's `xLASWP`, forward) applied to columns
/// `lo..hi` of each matrix except `s0..s1` (`lo <= s0 <= s1 <= hi`), a thread a column.
/// Parameters: `a` (matrix `mat` at `mat * mstride`, leading dimension `ld`), `piv` (at
/// `mat * pstride`), then `ld mstride pstride lo hi s0 s1 k1 k2`. Grid: (matrices, any).
fn swap_kernel(shape: &Shape, dialect: Dialect, name: &str) -> String {
    let t = dialect.table();
    let l = t.int64;
    let threads = shape.wide;
    let mut s = open_kernel(
        dialect,
        name,
        &[("a", "elem_t"), ("piv", "int")],
        &[
            "ld", "mstride", "pstride", "lo", "hi", "s0", "s1", "k1", "k2",
        ],
        None,
    );
    let _ = write!(
        s,
        r#"  {g}elem_t* a = a_p + mat * mstride;
  {g}const int* piv = piv_p + mat * pstride;
  const {l} count = (hi - lo) - (s1 - s0);
  for ({l} e = {gid1} * {threads} + lid; e < count; e += {ngroups1} * {threads}) {{
    {l} c = lo + e;
    if (c >= s0) c += s1 - s0;
    {g}elem_t* col = a + c * ld;
    for ({l} k = k1; k < k2; k++) {{
      const {l} p = piv[k] - 1;
      if (p != k) {{ const elem_t x = col[k]; col[k] = col[p]; col[p] = x; }}
    }}
  }}
}}
"#,
        g = t.global,
        gid1 = t.group_id[1],
        ngroups1 = t.num_groups[1],
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(dtype: DType) -> FactorProgram {
        FactorProgram {
            shape: Shape {
                dtype,
                small: 32,
                solve: 32,
                threads: 16,
                wide: 16,
                leaf_cols: 8,
                leaf_rows: 2,
            },
        }
    }

    #[test]
    fn every_kernel_is_in_the_program_under_its_name() {
        for dialect in Dialect::ALL {
            let p = program(DType::C128);
            let src = p.source(dialect);
            for k in Kernel::ALL {
                let name = p.name(k);
                assert_eq!(src.matches(&format!(" {name}(")).count(), 1, "{name}");
            }
        }
    }

    #[test]
    fn opencl_kernels_take_offsets_and_local_arrays() {
        let src = program(DType::F32).source(Dialect::OpenCl);
        assert!(
            src.contains("__kernel void ember_lu_small_float32_32x32x16x16x8x2(__global elem_t* a_p, long a_o, __global int* piv_p, long piv_o"),
            "{src}"
        );
        assert!(
            src.contains("long n, __local ulong2* ember_dynamic_shared)"),
            "{src}"
        );
    }

    #[test]
    fn the_leaf_keeps_its_rows_in_named_registers_and_its_column_loop_rolled() {
        for dialect in Dialect::ALL {
            let p = program(DType::F64);
            let src = p.source(dialect);
            let name = p.name(Kernel::LuLeaf);
            let leaf = &src[src.find(&format!(" {name}(")).unwrap()..];
            let leaf = &leaf[..leaf.find("\n}\n").unwrap()];
            // 2 rows of 8 columns a thread, no private array, one loop over the columns.
            assert!(leaf.contains("elem_t x1_7 = "), "{leaf}");
            assert!(!leaf.contains("x2_0"), "{leaf}");
            assert!(!leaf.contains("elem_t x["), "{leaf}");
            assert_eq!(
                leaf.matches("#pragma unroll 1\n  for (int k = 0; k < w; k++)")
                    .count(),
                1
            );
        }
    }
}
