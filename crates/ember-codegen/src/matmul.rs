//! Tiled matrix products `C = op(A) · B` (or `C -= op(A) · B`) in either dialect, one emitter:
//! the kernel behind `matmul` wherever cuBLAS is not used (OpenCL, integer/bool/float16
//! dtypes, no cuBLAS), and behind the LU and Cholesky trailing updates.
//!
//! A block of `threads_m × threads_n` threads computes a `rows × cols` tile of C, each thread
//! `per_thread_m × per_thread_n` elements of it (rows `ty + i·threads_m`, columns
//! `tx + j·threads_n`) held in registers. The shared dimension is walked `depth` at a time: the
//! block stages a `rows × depth` panel of A and a `depth × cols` panel of B in shared memory,
//! then every thread accumulates from there; the next panels are loaded into registers while
//! the current ones are used. Sums are kept in the result's value type, as NumPy does
//! (integers wrap, float16 sums in float, bool is or-of-ands).
//!
//! Staging costs no division in the loop: each thread's offsets into a panel are computed
//! once (consecutive threads walk whichever axis of the operand is contiguous, so loads
//! coalesce for C-ordered and transposed operands alike), then the panel's base pointer moves.
//! Rows of A and columns of B past the matrix read its last row or column (their products
//! fall outside C and are never stored), so only the shared dimension is bounds-checked, and
//! only in the last panel. Offsets inside a tile are 32-bit unless the strides make a tile
//! span more than 2^31 elements ([`MatmulKernel::wide_offsets`]).
//!
//! Every operand is addressed through element strides (batch, row, column), so transposed,
//! sliced and broadcast operands, and blocks of larger matrices, need no copy. The first grid
//! axis enumerates `tiles_n × tiles_m × splits × batch` blocks; split `s` covers `k ∈
//! [s·k_chunk, (s+1)·k_chunk)` and writes its partial product at `c + s·sc_split` (a reduction
//! then sums the splits), which keeps the device busy when C is small and `k` long. `tri`
//! restricts the stores to a triangle: 1 keeps elements with `row - col + shift >= 0`, 2 those
//! with `row - col + shift <= 0` (Cholesky's updates of one triangle), 0 everything.
//!
//! Parameters, in order: `a`, `b`, `c` (each buffer followed by its byte offset on OpenCL),
//! then int64 `m n k k_chunk tiles_n tiles_m splits`, then int64 element strides
//! `sa_batch sa_row sa_col sb_batch sb_row sb_col sc_batch sc_row sc_col sc_split`, then int64
//! `tri shift`.
//!
//! Measuring knob: `EMBER_MATMUL_TILE` (read once, by `ember_array::linalg`) replaces the
//! general tile of every device by `threads_m,threads_n,per_thread_m,per_thread_n,depth`
//! (e.g. `16,16,8,8,16`), or takes the GPU (`gpu`) or CPU (`cpu`) tiles on any device; the
//! narrow tiles (matrix-vector shapes, and on GPUs products of at most 32 rows or columns)
//! stay. For sweeping tiles on a GPU, not for users.

use std::fmt::Write;

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::dialect::Dialect;
use crate::prelude::prelude_for;
use crate::types::{cast, load, storage_type, store, value_type};

/// The shape of the work of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tile {
    pub threads_m: usize,
    pub threads_n: usize,
    pub per_thread_m: usize,
    pub per_thread_n: usize,
    /// Elements of the shared dimension staged per step.
    pub depth: usize,
}

impl Tile {
    /// 64 × 64 tiles, 8 × 8 per thread: the general case on CPU devices (measured on PoCL:
    /// twice the speed of 16 × 16 threads with 4 × 4 each).
    pub const SQUARE: Tile = Tile::new(8, 8, 8, 8, 16);
    /// 32 × 32 tiles, 4 × 4 per thread, for complex dtypes on CPU devices (fewer registers
    /// and a smaller share of shared memory).
    pub const SQUARE_SMALL: Tile = Tile::new(8, 8, 4, 4, 16);
    /// 128 × 4 tiles for products with few columns (matrix · vector).
    pub const TALL: Tile = Tile::new(64, 4, 2, 1, 16);
    /// 4 × 128 tiles for products with few rows (vector · matrix).
    pub const WIDE: Tile = Tile::new(4, 64, 1, 2, 16);
    /// GPUs, float32 and narrower: 128 × 64 tiles of 128 threads, 8 × 8 per thread (H100
    /// through NVIDIA's OpenCL, 4,096² float32: 33.4 TFLOP/s; 128 × 128 tiles of 256
    /// threads 29.0, the CPU devices' 64 × 64 tile 30.0, nine tiles swept).
    pub const GPU: Tile = Tile::new(16, 8, 8, 8, 16);
    /// GPUs, float64: 128 × 128 tiles staged 8 deep (the same shared memory as float32's;
    /// 20.3 TFLOP/s on the H100, within 3% of the best tile swept).
    pub const GPU_DOUBLE: Tile = Tile::new(16, 16, 8, 8, 8);
    /// GPUs, complex: 64 × 64 tiles of 256 threads, 4 × 4 per thread.
    pub const GPU_COMPLEX: Tile = Tile::new(16, 16, 4, 4, 16);
    /// GPUs, products of 9 to 32 columns (LU's panel updates): 128 × 32 tiles.
    pub const GPU_TALL: Tile = Tile::new(32, 8, 4, 4, 16);
    /// GPUs, products of 9 to 32 rows: 32 × 128 tiles.
    pub const GPU_WIDE: Tile = Tile::new(8, 32, 4, 4, 16);

    pub const fn new(
        threads_m: usize,
        threads_n: usize,
        per_thread_m: usize,
        per_thread_n: usize,
        depth: usize,
    ) -> Tile {
        Tile {
            threads_m,
            threads_n,
            per_thread_m,
            per_thread_n,
            depth,
        }
    }

    /// Threads per block.
    pub fn threads(&self) -> usize {
        self.threads_m * self.threads_n
    }

    /// Rows of C per block.
    pub fn rows(&self) -> usize {
        self.threads_m * self.per_thread_m
    }

    /// Columns of C per block.
    pub fn cols(&self) -> usize {
        self.threads_n * self.per_thread_n
    }

    /// Bytes of shared memory a block of `dtype` stages its panels in.
    pub fn local_bytes(&self, dtype: DType) -> usize {
        (self.rows() + self.cols() + 2) * self.depth * dtype.compute().itemsize()
    }

    /// The tile for a product of `m` rows and `n` columns of `dtype` on a GPU (`gpu`) or a
    /// CPU device; `general` (the measuring knob) replaces the tiles of the general case.
    pub fn for_shape(m: usize, n: usize, dtype: DType, gpu: bool, general: Option<Tile>) -> Tile {
        let complex = dtype.kind() == Kind::Complex;
        if n <= 8 && m > 64 {
            Tile::TALL
        } else if m <= 8 && n > 64 {
            Tile::WIDE
        } else if gpu && n <= 32 && m >= 128 {
            Tile::GPU_TALL
        } else if gpu && m <= 32 && n >= 128 {
            Tile::GPU_WIDE
        } else if let Some(tile) = general {
            tile
        } else if !gpu {
            if complex {
                Tile::SQUARE_SMALL
            } else {
                Tile::SQUARE
            }
        } else if complex {
            Tile::GPU_COMPLEX
        } else if dtype == DType::F64 {
            Tile::GPU_DOUBLE
        } else {
            Tile::GPU
        }
    }

    /// A tile written `threads_m,threads_n,per_thread_m,per_thread_n,depth`; `None` unless
    /// every number is positive and the block has at most 1024 threads.
    pub fn parse(text: &str) -> Option<Tile> {
        let v: Vec<usize> = text
            .split(',')
            .map(|p| p.trim().parse().ok())
            .collect::<Option<_>>()?;
        let &[tm, tn, pm, pn, depth] = v.as_slice() else {
            return None;
        };
        let tile = Tile::new(tm, tn, pm, pn, depth);
        (v.iter().all(|&x| x > 0) && tile.threads() <= 1024 && pm * pn <= 256).then_some(tile)
    }

    /// Whether every offset inside a tile and its panels fits 32 bits, given the element
    /// strides (row, column) of A, B and C.
    pub fn offsets_fit_32bit(
        &self,
        a: (isize, isize),
        b: (isize, isize),
        c: (isize, isize),
    ) -> bool {
        let span = |(sr, sc): (isize, isize), rows: usize, cols: usize| {
            (rows as u128) * sr.unsigned_abs() as u128 + (cols as u128) * sc.unsigned_abs() as u128
        };
        let (r, q, d) = (self.rows(), self.cols(), self.depth);
        [span(a, r, d), span(b, d, q), span(c, r, q)]
            .iter()
            .all(|&s| s < i32::MAX as u128)
    }
}

/// A tiled product kernel to generate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MatmulKernel {
    /// The dtype of A, B and of the sums.
    pub dtype: DType,
    /// The dtype C is stored as (float32 partial sums of a float16 product split over `k`).
    pub out_dtype: DType,
    /// Conjugate A's elements (`vdot`, Hermitian updates).
    pub conj_a: bool,
    pub tile: Tile,
    /// `C -= op(A) · B` in place (LAPACK's trailing update) instead of `C = op(A) · B`.
    pub subtract: bool,
    /// 64-bit offsets inside a tile (strides that make a tile span 2^31 elements or more).
    pub wide_offsets: bool,
    /// Load the next panels while the current ones are used (GPUs: hides memory latency;
    /// on PoCL it only adds to what each work-item keeps across barriers).
    pub prefetch: bool,
}

impl MatmulKernel {
    /// The kernel's name (unique per specialisation).
    pub fn name(&self) -> String {
        let t = self.tile;
        format!(
            "ember_matmul_{}_{}{}{}{}{}_{}x{}x{}x{}x{}",
            self.dtype.name(),
            self.out_dtype.name(),
            if self.conj_a { "_conj" } else { "" },
            if self.subtract { "_sub" } else { "" },
            if self.wide_offsets { "_wide" } else { "" },
            if self.prefetch { "_pf" } else { "" },
            t.threads_m,
            t.threads_n,
            t.per_thread_m,
            t.per_thread_n,
            t.depth
        )
    }

    /// The kernel's source in `dialect`, prelude included.
    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let i64t = t.int64;
        let g = t.global;
        let tile = self.tile;
        let value = value_type(self.dtype, dialect);
        let zero = zero(self.dtype, dialect);
        let off = if self.wide_offsets { i64t } else { "int" };

        let mut params = Vec::new();
        for (name, dtype) in [("a", self.dtype), ("b", self.dtype), ("c", self.out_dtype)] {
            params.push(format!("{g}{}* {name}_p", storage_type(dtype, dialect)));
            if t.buffer_offsets {
                params.push(format!("{i64t} {name}_o"));
            }
        }
        for name in [
            "m", "n", "k", "k_chunk", "tiles_n", "tiles_m", "splits", "sa_batch", "sa_row",
            "sa_col", "sb_batch", "sb_row", "sb_col", "sc_batch", "sc_row", "sc_col", "sc_split",
            "tri", "shift",
        ] {
            params.push(format!("{i64t} {name}"));
        }

        let mut s = prelude_for(dialect, [self.dtype, self.out_dtype]);
        let _ = writeln!(
            s,
            "{} {}({}) {{",
            t.kernel_prefix,
            self.name(),
            params.join(", ")
        );
        for (name, dtype) in [("a", self.dtype), ("b", self.dtype), ("c", self.out_dtype)] {
            let st = storage_type(dtype, dialect);
            let line = t.offset_pointer(&format!("{name}_p"), st, false, &format!("{name}_o"));
            s.push_str(&line.unwrap_or_default());
        }
        let (rows, cols, depth, threads) = (tile.rows(), tile.cols(), tile.depth, tile.threads());
        // One extra element per panel row keeps threads storing along k off the same bank.
        let (lda, ldb) = (rows + 1, cols + 1);
        let _ = writeln!(s, "  {} {value} a_s[{}];", t.shared, depth * lda);
        let _ = writeln!(s, "  {} {value} b_s[{}];", t.shared, depth * ldb);
        let _ = writeln!(s, "  const int lid = {};", t.local_id);
        let _ = writeln!(
            s,
            "  const int tx = lid % {0}, ty = lid / {0};",
            tile.threads_n
        );
        let _ = write!(
            s,
            r#"  {i64t} blk = {gid};
  const {i64t} tile_n = blk % tiles_n; blk /= tiles_n;
  const {i64t} tile_m = blk % tiles_m; blk /= tiles_m;
  const {i64t} split = blk % splits, batch = blk / splits;
  const {i64t} row0 = tile_m * {rows}, col0 = tile_n * {cols};
  const {i64t} k_begin = split * k_chunk;
  const {i64t} k_end = k - k_begin < k_chunk ? k : k_begin + k_chunk;
  const int a_last = (int)(m - 1 - row0 < {rows} ? m - 1 - row0 : {rows} - 1);
  const int b_last = (int)(n - 1 - col0 < {cols} ? n - 1 - col0 : {cols} - 1);
  const {off} sar = ({off})sa_row, sac = ({off})sa_col, sbr = ({off})sb_row, sbc = ({off})sb_col;
  {g}{st}* a_t = a_p + batch * sa_batch + row0 * sa_row + k_begin * sa_col;
  {g}{st}* b_t = b_p + batch * sb_batch + k_begin * sb_row + col0 * sb_col;
  // Consecutive threads stage along the operand's contiguous axis.
  const int a_kfast = sa_row == 0 || (sa_col < 0 ? -sa_col : sa_col) <= (sa_row < 0 ? -sa_row : sa_row);
  const int b_kfast = sb_col == 0 || (sb_row < 0 ? -sb_row : sb_row) < (sb_col < 0 ? -sb_col : sb_col);
"#,
            gid = t.group_id[0],
            st = storage_type(self.dtype, dialect),
        );
        let a_panel = Panel {
            name: "a",
            elements: rows * depth,
            threads,
            ld: lda,
            fast_flag: "a_kfast",
            // (row, k) of element e: k fastest, or rows fastest.
            coords: (
                format!("e / {depth}"),
                format!("e % {depth}"),
                format!("e % {rows}"),
                format!("e / {rows}"),
            ),
            offset: "(a_last < r ? a_last : r) * sar + kk * sac",
            shared: "kk * {ld} + r",
        };
        let b_panel = Panel {
            name: "b",
            elements: depth * cols,
            threads,
            ld: ldb,
            fast_flag: "b_kfast",
            coords: (
                format!("e / {depth}"),
                format!("e % {depth}"),
                format!("e % {cols}"),
                format!("e / {cols}"),
            ),
            offset: "(b_last < r ? b_last : r) * sbc + kk * sbr",
            shared: "kk * {ld} + r",
        };
        for p in [&a_panel, &b_panel] {
            self.setup(&mut s, p, off);
        }
        for i in 0..tile.per_thread_m {
            for j in 0..tile.per_thread_n {
                let _ = writeln!(s, "  {value} acc_{i}_{j} = {zero};");
            }
        }
        for p in [&a_panel, &b_panel] {
            for l in 0..p.steps() {
                let _ = writeln!(s, "  {value} v{}{l};", p.name);
            }
        }
        let _ = writeln!(s, "  {i64t} kr = k_end - k_begin;");
        let store_panels = |s: &mut String| {
            for p in [&a_panel, &b_panel] {
                for l in 0..p.steps() {
                    let guard = p.guard(l);
                    let _ = writeln!(s, "      {guard}{0}_s[s{0}{l}] = v{0}{l};", p.name);
                }
            }
            let _ = writeln!(s, "      {};", t.barrier);
            let _ = writeln!(
                s,
                "      a_t += {depth} * sa_col; b_t += {depth} * sb_row; kr -= {depth};"
            );
        };
        if self.prefetch {
            s.push_str("  if (kr > 0) {\n");
            self.prefetch(&mut s, dialect, &[&a_panel, &b_panel]);
            s.push_str("    for (;;) {\n");
            store_panels(&mut s);
            s.push_str("      if (kr > 0) {\n");
            self.prefetch(&mut s, dialect, &[&a_panel, &b_panel]);
            s.push_str("      }\n");
        } else {
            s.push_str("  {\n    while (kr > 0) {\n");
            self.prefetch(&mut s, dialect, &[&a_panel, &b_panel]);
            store_panels(&mut s);
        }
        // Unrolled on GPUs (the shared loads then take constant offsets).
        let unroll = if self.prefetch {
            "#pragma unroll\n"
        } else {
            ""
        };
        let _ = writeln!(s, "{unroll}      for (int kk = 0; kk < {depth}; ++kk) {{");
        for i in 0..tile.per_thread_m {
            let _ = writeln!(
                s,
                "        const {value} a{i} = a_s[kk * {lda} + ty + {}];",
                i * tile.threads_m
            );
        }
        for j in 0..tile.per_thread_n {
            let _ = writeln!(
                s,
                "        const {value} b{j} = b_s[kk * {ldb} + tx + {}];",
                j * tile.threads_n
            );
        }
        for i in 0..tile.per_thread_m {
            for j in 0..tile.per_thread_n {
                let _ = writeln!(
                    s,
                    "        {}",
                    multiply_add(
                        self.dtype,
                        &format!("acc_{i}_{j}"),
                        &format!("a{i}"),
                        &format!("b{j}")
                    )
                );
            }
        }
        s.push_str("      }\n");
        let _ = writeln!(s, "      {};", t.barrier);
        if self.prefetch {
            s.push_str("      if (kr <= 0) break;\n");
        }
        s.push_str("    }\n  }\n");
        self.epilogue(&mut s, dialect, off);
        s.push_str("}\n");
        s
    }

    /// Each thread's offset into the panel and slot in shared memory, per staging step.
    fn setup(&self, s: &mut String, p: &Panel<'_>, off: &str) {
        let (kf_r, kf_k, rf_r, rf_k) = &p.coords;
        for l in 0..p.steps() {
            // A thread past the panel's end (the last step of a ragged panel) takes the last
            // element's place and stores nothing.
            let e = if p.ragged() && l + 1 == p.steps() {
                format!("min(lid + {}, {})", l * p.threads, p.elements - 1)
            } else {
                format!("lid + {}", l * p.threads)
            };
            let _ = writeln!(
                s,
                "  {off} o{name}{l}; int s{name}{l};\n  {{ const int e = {e};\n    const int r = {fast} ? {kf_r} : {rf_r}, kk = {fast} ? {kf_k} : {rf_k};\n    o{name}{l} = ({off})({offset}); s{name}{l} = {shared}; }}",
                name = p.name,
                fast = p.fast_flag,
                offset = p.offset,
                shared = p.shared.replace("{ld}", &p.ld.to_string()),
            );
        }
    }

    /// Loads the next panels into registers: unchecked when a whole panel remains, else
    /// zeros past `k`'s end.
    fn prefetch(&self, s: &mut String, dialect: Dialect, panels: &[&Panel<'_>]) {
        let depth = self.tile.depth;
        let zero = zero(self.dtype, dialect);
        let conj = self.conj_a && self.dtype.kind() == Kind::Complex;
        let _ = writeln!(s, "      if (kr >= {depth}) {{");
        for p in panels {
            for l in 0..p.steps() {
                let v = load(
                    self.dtype,
                    dialect,
                    &format!("{}_t + o{}{l}", p.name, p.name),
                );
                let _ = writeln!(s, "        v{}{l} = {v};", p.name);
            }
        }
        s.push_str("      } else {\n        const int kn = (int)kr;\n");
        for p in panels {
            for l in 0..p.steps() {
                let v = load(
                    self.dtype,
                    dialect,
                    &format!("{}_t + o{}{l}", p.name, p.name),
                );
                let _ = writeln!(
                    s,
                    "        v{0}{l} = s{0}{l} / {ld} < kn ? {v} : {zero};",
                    p.name,
                    ld = p.ld
                );
            }
        }
        s.push_str("      }\n");
        if conj {
            for l in 0..panels[0].steps() {
                let _ = writeln!(s, "      va{l}.y = -va{l}.y;");
            }
        }
    }

    /// Stores (or subtracts) each thread's sums inside the matrix and the triangle asked.
    fn epilogue(&self, s: &mut String, dialect: Dialect, off: &str) {
        let t = dialect.table();
        let i64t = t.int64;
        let tile = self.tile;
        let (rows, cols) = (tile.rows(), tile.cols());
        let st = storage_type(self.out_dtype, dialect);
        let _ = write!(
            s,
            r#"  {g}{st}* c_t = c_p + batch * sc_batch + split * sc_split + row0 * sc_row + col0 * sc_col;
  const int c_rows = (int)(m - row0 < {rows} ? m - row0 : {rows});
  const int c_cols = (int)(n - col0 < {cols} ? n - col0 : {cols});
  const {i64t} diag = row0 - col0 + shift;
  const {off} scr = ({off})sc_row, scc = ({off})sc_col;
"#,
            g = t.global
        );
        for i in 0..tile.per_thread_m {
            for j in 0..tile.per_thread_n {
                let acc = format!("acc_{i}_{j}");
                let value = if self.subtract {
                    subtract(self.dtype, &load(self.dtype, dialect, "c"), &acc)
                } else {
                    cast(&acc, self.dtype, self.out_dtype, dialect)
                };
                let _ = writeln!(
                    s,
                    "  {{ const int r = ty + {}, q = tx + {};\n    if (r < c_rows && q < c_cols && (tri == 0 || (tri == 1 ? r - q + diag >= 0 : r - q + diag <= 0))) {{ {g}{st}* c = c_t + r * scr + q * scc; {} }} }}",
                    i * tile.threads_m,
                    j * tile.threads_n,
                    store(self.out_dtype, dialect, "c", &value),
                    g = t.global,
                );
            }
        }
    }
}

/// One panel staged into shared memory.
struct Panel<'a> {
    name: &'a str,
    elements: usize,
    threads: usize,
    /// Elements between the panel's rows of k in shared memory.
    ld: usize,
    /// The kernel's flag: consecutive threads walk k.
    fast_flag: &'a str,
    /// (r, kk) of element `e` when k is the fast axis, then when it is not.
    coords: (String, String, String, String),
    /// The element's offset from the panel's base, of `r` (clamped) and `kk`.
    offset: &'a str,
    /// Its slot in shared memory (`{ld}` filled in).
    shared: &'a str,
}

impl Panel<'_> {
    fn steps(&self) -> usize {
        self.elements.div_ceil(self.threads)
    }

    fn ragged(&self) -> bool {
        !self.elements.is_multiple_of(self.threads)
    }

    /// The condition before a store of step `l`: only the ragged step's spare threads skip.
    fn guard(&self, l: usize) -> String {
        if self.ragged() && l + 1 == self.steps() {
            format!("if (lid < {}) ", self.elements - l * self.threads)
        } else {
            String::new()
        }
    }
}

/// Zero in `dtype`'s value type.
fn zero(dtype: DType, dialect: Dialect) -> String {
    match dtype.kind() {
        Kind::Complex => format!("ember_make_{}(0, 0)", dtype.name()),
        _ => format!("({})0", value_type(dtype, dialect)),
    }
}

/// `c - x` in `dtype`'s value type.
fn subtract(dtype: DType, c: &str, x: &str) -> String {
    match dtype.kind() {
        Kind::Complex => format!(
            "ember_make_{}(({c}).x - {x}.x, ({c}).y - {x}.y)",
            dtype.name()
        ),
        _ => format!("{c} - {x}"),
    }
}

/// `acc += a · b` in `dtype` (or-of-ands for bool, as NumPy's matmul of booleans).
fn multiply_add(dtype: DType, acc: &str, a: &str, b: &str) -> String {
    match dtype.kind() {
        Kind::Bool => format!("{acc} = {acc} | ({a} & {b});"),
        Kind::Complex => format!(
            "{acc}.x += {a}.x * {b}.x - {a}.y * {b}.y; {acc}.y += {a}.x * {b}.y + {a}.y * {b}.x;"
        ),
        _ => format!("{acc} = {acc} + {a} * {b};"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(dtype: DType, tile: Tile) -> MatmulKernel {
        MatmulKernel {
            dtype,
            out_dtype: dtype,
            conj_a: false,
            tile,
            subtract: false,
            wide_offsets: false,
            prefetch: true,
        }
    }

    #[test]
    fn tiles_cover_their_panels() {
        assert_eq!((Tile::SQUARE.rows(), Tile::SQUARE.cols()), (64, 64));
        assert_eq!((Tile::GPU.rows(), Tile::GPU.threads()), (128, 128));
        assert_eq!(Tile::TALL.threads(), 256);
        let cpu = |m, n, d| Tile::for_shape(m, n, d, false, None);
        let gpu = |m, n, d| Tile::for_shape(m, n, d, true, None);
        assert_eq!(cpu(1000, 1, DType::F32), Tile::TALL);
        assert_eq!(gpu(1, 1000, DType::F32), Tile::WIDE);
        assert_eq!(cpu(100, 100, DType::C128), Tile::SQUARE_SMALL);
        assert_eq!(gpu(4096, 4096, DType::F32), Tile::GPU);
        assert_eq!(gpu(4096, 4096, DType::F64), Tile::GPU_DOUBLE);
        assert_eq!(gpu(16, 4000, DType::F64), Tile::GPU_WIDE);
        assert_eq!(gpu(4000, 32, DType::C64), Tile::GPU_TALL);
        let knob = Tile::new(8, 8, 4, 4, 8);
        assert_eq!(
            Tile::for_shape(512, 512, DType::F32, true, Some(knob)),
            knob
        );
        assert_eq!(
            Tile::for_shape(512, 1, DType::F32, true, Some(knob)),
            Tile::TALL
        );
    }

    #[test]
    fn tiles_parse_from_the_measuring_knob() {
        assert_eq!(Tile::parse("16, 8,8,8,16"), Some(Tile::GPU));
        assert_eq!(Tile::parse("16,16,8,8"), None);
        assert_eq!(Tile::parse("64,64,1,1,8"), None);
        assert_eq!(Tile::parse("0,16,8,8,8"), None);
        assert_eq!(Tile::GPU.local_bytes(DType::F32), (129 + 65) * 16 * 4);
    }

    #[test]
    fn offsets_narrow_to_32_bits_where_a_tile_spans_less() {
        let t = Tile::GPU;
        assert!(t.offsets_fit_32bit((4096, 1), (1, 4096), (1, 4096)));
        assert!(!t.offsets_fit_32bit((1 << 24, 1), (1, 4096), (1, 4096)));
        let mut k = kernel(DType::F32, t);
        assert!(k
            .source(Dialect::Cuda)
            .contains("const int sar = (int)sa_row"));
        k.wide_offsets = true;
        let src = k.source(Dialect::Cuda);
        assert!(src.contains("long long oa0;"), "{src}");
        assert!(k.name().ends_with("_wide_pf_16x8x8x8x16"));
    }

    #[test]
    fn cuda_kernel_stages_panels_in_shared_memory() {
        let mut k = kernel(DType::F32, Tile::SQUARE);
        k.prefetch = false;
        let src = k.source(Dialect::Cuda);
        assert!(src.contains("while (kr > 0)"), "{src}");
        assert!(!src.contains("#pragma unroll"), "{src}");
        assert!(src.contains("extern \"C\" __global__ void ember_matmul_float32_float32_8x8x8x8x16(float* a_p, float* b_p, float* c_p, long long m"), "{src}");
        assert!(src.contains("__shared__ float a_s[1040];"), "{src}");
        assert!(src.contains("acc_7_7 = acc_7_7 + a7 * b7;"), "{src}");
        assert!(src.contains("__syncthreads();"));
        // The staging loop divides nothing: offsets are set up once, loads are unchecked
        // but in the last panel.
        assert!(src.contains("va0 = *(a_t + oa0);"), "{src}");
        assert!(
            src.contains("va0 = sa0 / 65 < kn ? *(a_t + oa0) : (float)0;"),
            "{src}"
        );
    }

    #[test]
    fn opencl_kernel_takes_offsets_and_local_memory() {
        let src = kernel(DType::I32, Tile::TALL).source(Dialect::OpenCl);
        assert!(src.contains("__global int* a_p, long a_o"), "{src}");
        assert!(src.contains("__local int b_s[80];"), "{src}");
        assert!(src.contains("min(lid + 0, 63)"), "{src}");
        assert!(src.contains("if (lid < 64) b_s[sb0] = vb0;"), "{src}");
        assert!(src.contains("barrier(CLK_LOCAL_MEM_FENCE);"));
    }

    #[test]
    fn complex_conjugates_a_and_bool_ors() {
        let mut k = kernel(DType::C64, Tile::SQUARE_SMALL);
        k.conj_a = true;
        let src = k.source(Dialect::OpenCl);
        assert!(src.contains("va0.y = -va0.y;"), "{src}");
        assert!(src.contains("acc_0_0.x += a0.x * b0.x - a0.y * b0.y;"));
        let src = kernel(DType::Bool, Tile::SQUARE).source(Dialect::Cuda);
        assert!(src.contains("acc_0_0 = acc_0_0 | (a0 & b0);"), "{src}");
    }

    #[test]
    fn updates_subtract_from_c_in_place() {
        let mut k = kernel(DType::C128, Tile::GPU_COMPLEX);
        k.subtract = true;
        let src = k.source(Dialect::Cuda);
        assert!(
            src.contains(
                "*(c) = ember_make_complex128((*(c)).x - acc_0_0.x, (*(c)).y - acc_0_0.y);"
            ),
            "{src}"
        );
        assert!(src.contains("r - q + diag >= 0"), "{src}");
        k.dtype = DType::F64;
        k.out_dtype = DType::F64;
        assert!(k.source(Dialect::OpenCl).contains("*(c) = *(c) - acc_3_3;"));
    }

    #[test]
    fn float16_sums_in_float_and_may_store_float32_partials() {
        let mut k = kernel(DType::F16, Tile::SQUARE);
        k.out_dtype = DType::F32;
        let src = k.source(Dialect::Cuda);
        assert!(src.contains("float acc_0_0 = (float)0;"), "{src}");
        assert!(src.contains("ember_h2f("), "{src}");
        assert!(src.contains("float* c_p"), "{src}");
    }
}
