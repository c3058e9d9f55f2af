//! Triangular solves and the pieces every factorization kernel shares: the element arithmetic
//! of a dtype as `LA_*` macros (real and complex alike) and the kernel opening.
//!
//! Matrices are column-major: element `(i, j)` of a matrix with leading dimension `ld` is at
//! `i + j * ld`.

use std::fmt::Write;

use ember_core::DType;

use super::element::signature;
use crate::dialect::Dialect;
use crate::prelude::prelude_for;

/// What a kernel of [`crate::lapack::lu::FactorProgram`] is shaped by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub dtype: DType,
    /// Largest order held whole in local memory (LU and Cholesky of one matrix by one group).
    pub small: usize,
    /// Largest triangle the solve takes (the length of the vectors it holds).
    pub solve: usize,
    /// Threads of a group of the whole-matrix LU (a power of two).
    pub threads: usize,
    /// Threads of a group of every other kernel (a power of two): the panels, solves and
    /// Cholesky blocks on the factorizations' critical path.
    pub wide: usize,
    /// Columns of the register-resident LU leaf ([`crate::lapack::lu::Kernel::LuLeaf`]).
    pub leaf_cols: usize,
    /// Rows each thread of that leaf holds in registers: it takes panels of up to
    /// `leaf_rows * wide` rows.
    pub leaf_rows: usize,
}

impl Shape {
    /// The shape for a device: `gpu` or a CPU device, with `local_bytes` of local memory a
    /// group (CUDA's static limit of 48 KiB taken as the most). GPUs hold whole matrices of
    /// order 64 where they fit (48 or 32 else) and solve with triangles of 128 (the blocked
    /// factorizations' block); CPU devices (PoCL) take 32 and 32 with few threads, so blocked
    /// paths start early and run a group's threads as short loops.
    pub fn for_device(dtype: DType, gpu: bool, local_bytes: usize) -> Shape {
        let (threads, wide, solve, most) = if gpu {
            (64, 256, 128, 64)
        } else {
            (16, 16, 32, 32)
        };
        let room = local_bytes
            .min(48 * 1024)
            .saturating_sub(1024 + threads * 16);
        let small = [64, 48, 32, 16]
            .into_iter()
            .find(|&n| n <= most && n * n * dtype.itemsize() <= room)
            .unwrap_or(8);
        // The leaf keeps `leaf_rows * leaf_cols` elements a thread in registers: up to 16
        // rows of 8 on GPUs (panels of 4,096 rows in 256 threads; float64 getrf 4,096 through
        // NVIDIA's OpenCL on an H200: 44 ms with 16 rows, 56 with 8 and the taller panels
        // in global memory), a few on CPU devices (PoCL builds a kernel slower the more it
        // unrolls: 8 columns of 4 rows cost 5 s more to build than the rest of the program).
        let words = dtype.itemsize() / 4;
        let (leaf_cols, budget) = if gpu { (8, 256) } else { (4, 16) };
        let leaf_rows = (budget / (leaf_cols * words)).clamp(1, 16);
        Shape {
            dtype,
            small,
            solve,
            threads,
            wide,
            leaf_cols,
            leaf_rows,
        }
    }

    /// Rows of the tallest panel the register-resident leaf takes.
    pub fn leaf_reach(&self) -> usize {
        self.leaf_rows * self.wide
    }

    /// Vectors one group of the solve holds in local memory: about 16 KiB of them, at most
    /// one per thread.
    pub fn solve_vectors(&self) -> usize {
        (16384 / (self.solve.max(1) * self.dtype.itemsize())).clamp(1, self.wide)
    }

    /// Columns of the triangle the solve stages in local memory at a time (about 8 KiB of
    /// them): each sequential step then reads local memory, not the device's.
    pub fn solve_slab(&self) -> usize {
        (8192 / (self.solve.max(1) * self.dtype.itemsize())).clamp(1, 16)
    }

    /// Elements of dynamic local memory the solve takes for a triangle of order `s`.
    pub fn solve_local(&self, s: usize) -> usize {
        s * (self.solve_vectors() + self.solve_slab())
    }
}

/// Solve modes: bits of the solve kernel's `mode` argument.
pub const SOLVE_PIVOTS: i64 = 1;
pub const SOLVE_LOWER: i64 = 2;
pub const SOLVE_UPPER: i64 = 4;
pub const SOLVE_UNIT: i64 = 8;
pub const SOLVE_CONJ: i64 = 16;

/// The C types `elem_t` and `real_t` and the `LA_*` arithmetic of `dtype` (float32, float64,
/// complex64, complex128), after the prelude. Complex products and quotients are the prelude's
/// (NumPy's product, Smith's quotient); `LA_ABS1` is LAPACK's `|re| + |im|`, which its pivot
/// search (`IxAMAX`) compares.
pub fn arithmetic(dtype: DType, dialect: Dialect) -> String {
    let t = dialect.table();
    let mut s = prelude_for(dialect, [dtype]);
    let (real, sfmin) = match dtype {
        DType::F32 | DType::C64 => ("float", "1.17549435e-38f"),
        _ => ("double", "2.2250738585072014e-308"),
    };
    let _ = writeln!(s, "typedef {real} real_t;");
    let _ = writeln!(s, "#define LA_SFMIN (({real}){sfmin})");
    if dtype.is_complex() {
        let bits = if dtype == DType::C128 { 128 } else { 64 };
        let mk = format!("ember_make_complex{bits}");
        let _ = write!(
            s,
            r#"typedef ember_c{bits} elem_t;
#define LA_ZERO {mk}(0, 0)
#define LA_FROM_REAL(r) {mk}((r), 0)
#define LA_MUL(a, b) ember_cmul{bits}((a), (b))
#define LA_DIV(a, b) ember_cdiv{bits}((a), (b))
#define LA_CONJ(a) {mk}((a).x, -(a).y)
#define LA_RE(a) ((a).x)
#define LA_ABS1(a) (fabs((a).x) + fabs((a).y))
#define LA_ABSV(a) ember_hypot{bits}((a).x, (a).y)
#define LA_NONZERO(a) ((a).x != 0 || (a).y != 0)
#define LA_SCALE(a, r) {mk}((a).x * (r), (a).y * (r))
{dev} elem_t la_sub(elem_t a, elem_t b) {{ return {mk}(a.x - b.x, a.y - b.y); }}
{dev} elem_t la_fms(elem_t c, elem_t a, elem_t b) {{ return la_sub(c, ember_cmul{bits}(a, b)); }}
#define LA_SUB(a, b) la_sub((a), (b))
#define LA_FMS(c, a, b) la_fms((c), (a), (b))
"#,
            dev = t.device_fn
        );
    } else {
        let _ = write!(
            s,
            r#"typedef {real} elem_t;
#define LA_ZERO (({real})0)
#define LA_FROM_REAL(r) (({real})(r))
#define LA_MUL(a, b) ((a) * (b))
#define LA_DIV(a, b) ((a) / (b))
#define LA_CONJ(a) (a)
#define LA_RE(a) (a)
#define LA_ABS1(a) fabs(a)
#define LA_ABSV(a) fabs(a)
#define LA_NONZERO(a) ((a) != 0)
#define LA_SCALE(a, r) ((a) * (r))
#define LA_SUB(a, b) ((a) - (b))
#define LA_FMS(c, a, b) ((c) - (a) * (b))
"#
        );
    }
    s
}

/// A kernel's opening: signature (each buffer `(name, type)` as a pointer, followed on OpenCL
/// by its byte offset; then int64 `scalars`), the offsets applied, and `lid`, `mat` (the
/// group's index on the first axis: one matrix a group, or a row of groups). With `local`,
/// that name is an `elem_t` array in the launch's dynamic local memory (on OpenCL the last
/// parameter, 16-byte aligned; see [`dynamic_local`]), sized to the problem rather than its
/// largest case (an 8 x 8 matrix then takes 256 bytes of a multiprocessor, not 16 KiB).
pub(crate) fn open_kernel(
    dialect: Dialect,
    name: &str,
    buffers: &[(&str, &str)],
    scalars: &[&str],
    local: Option<&str>,
) -> String {
    let t = dialect.table();
    let mut s = signature(dialect, name, buffers, scalars, local.is_some());
    let _ = writeln!(s, "  const int lid = {};", t.local_id);
    let _ = writeln!(s, "  const {} mat = {};", t.int64, t.group_id[0]);
    if let Some(var) = local {
        let sp = t.shared_pointer;
        let _ = writeln!(
            s,
            "  {sp}elem_t* {var} = ({sp}elem_t*)ember_dynamic_shared;"
        );
    }
    s
}

/// What a program whose kernels take dynamic local memory declares first (CUDA's extern
/// array; nothing where it is a parameter).
pub(crate) fn dynamic_local(dialect: Dialect) -> String {
    let t = dialect.table();
    t.dynamic_shared_decl.replace("{dev}", t.device_fn)
}

/// Solves with one triangle for many vectors, in place (LAPACK's `xTRSM` from the left, or
/// from the right through strides), each group taking [`Shape::solve_vectors`] vectors at a
/// time into local memory and the triangle [`Shape::solve_slab`] columns at a time
/// ([`Shape::solve_local`] elements of dynamic local memory). Grid: (matrices, groups of
/// vectors).
///
/// Triangle element `(i, j)` is at `t + mat * tstride + toff + i * tr + j * tc` (transposes by
/// strides), conjugated with [`SOLVE_CONJ`]; element `i` of vector `v` at `b + mat * bstride +
/// boff + v * bv + i * be`. `mode`: [`SOLVE_PIVOTS`] first applies the row interchanges
/// `piv[mat * pstride + k]` (1-based, `k < s`), [`SOLVE_LOWER`] then solves with the lower
/// triangle (unit diagonal with [`SOLVE_UNIT`]), [`SOLVE_UPPER`] then with the upper one.
pub(crate) fn solve_kernel(shape: &Shape, dialect: Dialect, name: &str) -> String {
    let t = dialect.table();
    let l = t.int64;
    let (threads, cv, slab) = (shape.wide, shape.solve_vectors(), shape.solve_slab());
    let bar = t.barrier;
    let mut s = open_kernel(
        dialect,
        name,
        &[("t", "elem_t"), ("b", "elem_t"), ("piv", "int")],
        &[
            "tstride", "toff", "tr", "tc", "bstride", "boff", "be", "bv", "pstride", "s", "nvec",
            "mode",
        ],
        Some("X"),
    );
    let _ = write!(
        s,
        r#"  const {l} chunk = {gid1}, chunks = {ngroups1};
  {g}const elem_t* tm = t_p + mat * tstride + toff;
  {g}elem_t* bm = b_p + mat * bstride + boff;
  {g}const int* pm = piv_p + mat * pstride;
  const int conj = (mode & {conj}) != 0, unit = (mode & {unit}) != 0;
#define TE(i, j) (conj ? LA_CONJ(tm[(i) * tr + (j) * tc]) : tm[(i) * tr + (j) * tc])
  // The staged slab of the triangle: column j0 + c, row i at T[c * s + i].
  {sp}elem_t* T = X + s * {cv};
#define TS(i, j) T[((j) - j0) * s + (i)]
  for ({l} v0 = chunk * {cv}; v0 < nvec; v0 += chunks * {cv}) {{
    const {l} nv = nvec - v0 < {cv} ? nvec - v0 : {cv};
    // Vectors side by side in memory (a solve from the right) load vector index first.
    for ({l} e = lid; e < s * {cv}; e += {threads}) {{
      const {l} v = bv == 1 ? e % {cv} : e / s, i = bv == 1 ? e / {cv} : e % s;
      if (v < nv) X[i * {cv} + v] = bm[(v0 + v) * bv + i * be];
    }}
    {bar};
    if ((mode & {pivots}) && lid < nv) {{
      for ({l} k = 0; k < s; k++) {{
        const {l} p = pm[k] - 1;
        if (p != k) {{ const elem_t x = X[k * {cv} + lid]; X[k * {cv} + lid] = X[p * {cv} + lid]; X[p * {cv} + lid] = x; }}
      }}
    }}
    {bar};
    if (mode & {lower}) {{
      for ({l} j0 = 0; j0 < s; j0 += {slab}) {{
        const {l} j1 = j0 + {slab} < s ? j0 + {slab} : s;
        // Rows j0..s of columns j0..j1, read down the columns.
        for ({l} e = lid; e < (s - j0) * (j1 - j0); e += {threads}) {{
          const {l} i = j0 + e % (s - j0), j = j0 + e / (s - j0);
          TS(i, j) = TE(i, j);
        }}
        {bar};
        for ({l} j = j0; j < j1; j++) {{
          if (!unit && lid < nv) X[j * {cv} + lid] = LA_DIV(X[j * {cv} + lid], TS(j, j));
          {bar};
          for ({l} e = lid; e < (s - j - 1) * {cv}; e += {threads}) {{
            const {l} i = j + 1 + e / {cv}, v = e % {cv};
            X[i * {cv} + v] = LA_FMS(X[i * {cv} + v], TS(i, j), X[j * {cv} + v]);
          }}
          {bar};
        }}
      }}
    }}
    if (mode & {upper}) {{
      for ({l} j1 = s; j1 > 0; j1 -= {slab}) {{
        const {l} j0 = j1 > {slab} ? j1 - {slab} : 0;
        // Rows 0..j1 of columns j0..j1.
        for ({l} e = lid; e < j1 * (j1 - j0); e += {threads}) {{
          const {l} i = e % j1, j = j0 + e / j1;
          TS(i, j) = TE(i, j);
        }}
        {bar};
        for ({l} j = j1 - 1; j >= j0; j--) {{
          if (lid < nv) X[j * {cv} + lid] = LA_DIV(X[j * {cv} + lid], TS(j, j));
          {bar};
          for ({l} e = lid; e < j * {cv}; e += {threads}) {{
            const {l} i = e / {cv}, v = e % {cv};
            X[i * {cv} + v] = LA_FMS(X[i * {cv} + v], TS(i, j), X[j * {cv} + v]);
          }}
          {bar};
        }}
      }}
    }}
    for ({l} e = lid; e < s * {cv}; e += {threads}) {{
      const {l} v = bv == 1 ? e % {cv} : e / s, i = bv == 1 ? e / {cv} : e % s;
      if (v < nv) bm[(v0 + v) * bv + i * be] = X[i * {cv} + v];
    }}
    {bar};
  }}
#undef TE
#undef TS
}}
"#,
        g = t.global,
        sp = t.shared_pointer,
        gid1 = t.group_id[1],
        ngroups1 = t.num_groups[1],
        pivots = SOLVE_PIVOTS,
        lower = SOLVE_LOWER,
        upper = SOLVE_UPPER,
        unit = SOLVE_UNIT,
        conj = SOLVE_CONJ,
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lapack::element::global_barrier;

    #[test]
    fn complex_arithmetic_uses_the_prelude_helpers() {
        let s = arithmetic(DType::C64, Dialect::OpenCl);
        assert!(s.contains("typedef ember_c64 elem_t;"), "{s}");
        assert!(
            s.contains("#define LA_MUL(a, b) ember_cmul64((a), (b))"),
            "{s}"
        );
        let r = arithmetic(DType::F64, Dialect::Cuda);
        assert!(r.contains("typedef double elem_t;"), "{r}");
    }

    #[test]
    fn whole_matrices_fit_local_memory() {
        let gpu = |d| Shape::for_device(d, true, 48 * 1024).small;
        assert_eq!(
            [gpu(DType::F32), gpu(DType::F64), gpu(DType::C128)],
            [64, 64, 48]
        );
        assert_eq!(Shape::for_device(DType::C128, false, 1 << 20).small, 32);
        assert_eq!(Shape::for_device(DType::F64, true, 32 * 1024).small, 48);
    }

    #[test]
    fn the_solve_holds_about_16_kib_of_vectors() {
        let shape = |dtype, solve| Shape {
            dtype,
            small: 32,
            solve,
            threads: 64,
            wide: 64,
            leaf_cols: 8,
            leaf_rows: 4,
        };
        assert_eq!(shape(DType::F64, 128).solve_vectors(), 16);
        assert_eq!(shape(DType::C128, 128).solve_vectors(), 8);
        assert_eq!(shape(DType::F32, 8).solve_vectors(), 64);
        // The staged slab of the triangle: about 8 KiB, at most 16 columns.
        assert_eq!(shape(DType::F32, 128).solve_slab(), 16);
        assert_eq!(shape(DType::C128, 128).solve_slab(), 4);
        assert_eq!(shape(DType::F64, 128).solve_local(128), 128 * (16 + 8));
    }

    #[test]
    fn opencl_barriers_of_global_work_fence_global_memory() {
        assert_eq!(
            global_barrier(Dialect::OpenCl),
            "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)"
        );
        assert_eq!(global_barrier(Dialect::Cuda), "__syncthreads()");
    }
}
