//! Tiled matrix products `C = op(A) · B` in either dialect, one emitter: the kernel behind
//! `matmul` wherever cuBLAS is not used (OpenCL, integer/bool/float16 dtypes, no cuBLAS).
//!
//! A block of `threads_m × threads_n` threads computes a `rows × cols` tile of C, each thread
//! `per_thread_m × per_thread_n` elements of it (rows `ty + i·threads_m`, columns
//! `tx + j·threads_n`) held in registers. The shared dimension is walked `depth` at a time: the
//! block stages a `rows × depth` panel of A and a `depth × cols` panel of B in shared memory,
//! then every thread accumulates from there. Sums are kept in the result's value type, as
//! NumPy does (integers wrap, float16 sums in float, bool is or-of-ands).
//!
//! Every operand is addressed through element strides (batch, row, column), so transposed,
//! sliced and broadcast operands need no copy. The first grid axis enumerates
//! `tiles_n × tiles_m × splits × batch` blocks; split `s` covers `k ∈ [s·k_chunk,
//! (s+1)·k_chunk)` and writes its partial product at `c + s·sc_split` (a reduction then sums
//! the splits), which keeps the device busy when C is small and `k` long.
//!
//! Parameters, in order: `a`, `b`, `c` (each buffer followed by its byte offset on OpenCL),
//! then int64 `m n k k_chunk tiles_n tiles_m splits`, then int64 element strides
//! `sa_batch sa_row sa_col sb_batch sb_row sb_col sc_batch sc_row sc_col sc_split`.

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
    /// 64 × 64 tiles, 8 × 8 per thread: the general case (measured on PoCL: twice the speed
    /// of 16 × 16 threads with 4 × 4 each).
    pub const SQUARE: Tile = Tile::new(8, 8, 8, 8, 16);
    /// 32 × 32 tiles, 4 × 4 per thread, for complex dtypes (fewer registers and a smaller
    /// share of shared memory).
    pub const SQUARE_SMALL: Tile = Tile::new(8, 8, 4, 4, 16);
    /// 128 × 4 tiles for products with few columns (matrix · vector).
    pub const TALL: Tile = Tile::new(64, 4, 2, 1, 16);
    /// 4 × 128 tiles for products with few rows (vector · matrix).
    pub const WIDE: Tile = Tile::new(4, 64, 1, 2, 16);

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

    /// The tile for a product of `m` rows and `n` columns of `dtype`.
    pub fn for_shape(m: usize, n: usize, dtype: DType) -> Tile {
        if n <= 8 && m > 64 {
            Tile::TALL
        } else if m <= 8 && n > 64 {
            Tile::WIDE
        } else if dtype.kind() == Kind::Complex {
            Tile::SQUARE_SMALL
        } else {
            Tile::SQUARE
        }
    }
}

/// A tiled product kernel to generate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MatmulKernel {
    /// The dtype of A, B and of the sums.
    pub dtype: DType,
    /// The dtype C is stored as (float32 partial sums of a float16 product split over `k`).
    pub out_dtype: DType,
    /// Conjugate A's elements (`vdot`).
    pub conj_a: bool,
    pub tile: Tile,
}

impl MatmulKernel {
    /// The kernel's name (unique per specialisation).
    pub fn name(&self) -> String {
        let t = self.tile;
        format!(
            "ember_matmul_{}_{}{}_{}x{}x{}x{}x{}",
            self.dtype.name(),
            self.out_dtype.name(),
            if self.conj_a { "_conj" } else { "" },
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
        let complex = self.dtype.kind() == Kind::Complex;
        let zero = zero(self.dtype, dialect);

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
        // One extra column per panel row keeps the threads storing a panel off the same bank.
        let _ = writeln!(s, "  {} {value} a_s[{depth}][{}];", t.shared, rows + 1);
        let _ = writeln!(s, "  {} {value} b_s[{depth}][{}];", t.shared, cols + 1);
        let _ = writeln!(s, "  int lid = {};", t.local_id);
        let _ = writeln!(s, "  int tx = lid % {0}, ty = lid / {0};", tile.threads_n);
        let _ = writeln!(s, "  {i64t} blk = {};", t.group_id[0]);
        let _ = writeln!(s, "  {i64t} tile_n = blk % tiles_n; blk /= tiles_n;");
        let _ = writeln!(s, "  {i64t} tile_m = blk % tiles_m; blk /= tiles_m;");
        let _ = writeln!(s, "  {i64t} split = blk % splits, batch = blk / splits;");
        let _ = writeln!(
            s,
            "  {i64t} row0 = tile_m * {rows}, col0 = tile_n * {cols};"
        );
        let _ = writeln!(s, "  {i64t} k_begin = split * k_chunk;");
        let _ = writeln!(
            s,
            "  {i64t} k_end = k - k_begin < k_chunk ? k : k_begin + k_chunk;"
        );
        s.push_str("  a_p += batch * sa_batch;\n  b_p += batch * sb_batch;\n");
        s.push_str("  c_p += batch * sc_batch + split * sc_split;\n");
        for i in 0..tile.per_thread_m {
            for j in 0..tile.per_thread_n {
                let _ = writeln!(s, "  {value} acc_{i}_{j} = {zero};");
            }
        }
        let _ = writeln!(
            s,
            "  for ({i64t} k0 = k_begin; k0 < k_end; k0 += {depth}) {{"
        );
        // Stage A's panel: consecutive threads take consecutive k (coalesced for C-order A).
        let conj = if self.conj_a && complex {
            " v.y = -v.y;"
        } else {
            ""
        };
        self.stage(
            &mut s,
            dialect,
            Panel {
                elements: rows * depth,
                threads,
                index: format!("int r = e / {depth}, kk = e % {depth};"),
                bounds: "row0 + r < m && k0 + kk < k_end".into(),
                pointer: "a_p + (row0 + r) * sa_row + (k0 + kk) * sa_col".into(),
                fixup: conj,
                target: "a_s[kk][r]",
            },
        );
        // Stage B's panel: consecutive threads take consecutive columns.
        self.stage(
            &mut s,
            dialect,
            Panel {
                elements: depth * cols,
                threads,
                index: format!("int kk = e / {cols}, q = e % {cols};"),
                bounds: "col0 + q < n && k0 + kk < k_end".into(),
                pointer: "b_p + (k0 + kk) * sb_row + (col0 + q) * sb_col".into(),
                fixup: "",
                target: "b_s[kk][q]",
            },
        );
        let _ = writeln!(s, "    {};", t.barrier);
        let _ = writeln!(s, "    for (int kk = 0; kk < {depth}; ++kk) {{");
        for i in 0..tile.per_thread_m {
            let _ = writeln!(
                s,
                "      {value} a{i} = a_s[kk][ty + {}];",
                i * tile.threads_m
            );
        }
        for j in 0..tile.per_thread_n {
            let _ = writeln!(
                s,
                "      {value} b{j} = b_s[kk][tx + {}];",
                j * tile.threads_n
            );
        }
        for i in 0..tile.per_thread_m {
            for j in 0..tile.per_thread_n {
                let _ = writeln!(
                    s,
                    "      {}",
                    multiply_add(
                        self.dtype,
                        &format!("acc_{i}_{j}"),
                        &format!("a{i}"),
                        &format!("b{j}")
                    )
                );
            }
        }
        s.push_str("    }\n");
        let _ = writeln!(s, "    {};", t.barrier);
        s.push_str("  }\n");
        for i in 0..tile.per_thread_m {
            for j in 0..tile.per_thread_n {
                let _ = writeln!(
                    s,
                    "  {{ {i64t} r = row0 + ty + {}, q = col0 + tx + {};",
                    i * tile.threads_m,
                    j * tile.threads_n
                );
                let value = cast(&format!("acc_{i}_{j}"), self.dtype, self.out_dtype, dialect);
                let _ = writeln!(
                    s,
                    "    if (r < m && q < n) {} }}",
                    store(
                        self.out_dtype,
                        dialect,
                        "c_p + r * sc_row + q * sc_col",
                        &value
                    )
                );
            }
        }
        s.push_str("}\n");
        s
    }

    /// Statements that copy one panel from device memory into shared memory (zero outside
    /// the matrix), each thread taking every `threads`-th element.
    fn stage(&self, s: &mut String, dialect: Dialect, p: Panel<'_>) {
        let value = value_type(self.dtype, dialect);
        let zero = zero(self.dtype, dialect);
        let steps = p.elements.div_ceil(p.threads);
        let _ = writeln!(s, "    for (int l = 0; l < {steps}; ++l) {{");
        let _ = writeln!(s, "      int e = lid + l * {};", p.threads);
        if !p.elements.is_multiple_of(p.threads) {
            let _ = writeln!(s, "      if (e >= {}) break;", p.elements);
        }
        let _ = writeln!(s, "      {}", p.index);
        let _ = writeln!(s, "      {value} v = {zero};");
        let _ = writeln!(
            s,
            "      if ({}) {{ v = {};{} }}",
            p.bounds,
            load(self.dtype, dialect, &p.pointer),
            p.fixup
        );
        let _ = writeln!(s, "      {} = v;", p.target);
        s.push_str("    }\n");
    }
}

/// One panel staged into shared memory.
struct Panel<'a> {
    elements: usize,
    threads: usize,
    /// Declares the panel coordinates of element `e`.
    index: String,
    /// True when the element lies inside the matrix.
    bounds: String,
    /// Its address in device memory.
    pointer: String,
    /// A statement applied to the loaded value `v`.
    fixup: &'a str,
    /// Where it goes in shared memory.
    target: &'a str,
}

/// Zero in `dtype`'s value type.
fn zero(dtype: DType, dialect: Dialect) -> String {
    match dtype.kind() {
        Kind::Complex => format!("ember_make_{}(0, 0)", dtype.name()),
        _ => format!("({})0", value_type(dtype, dialect)),
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
        }
    }

    #[test]
    fn tiles_cover_their_panels() {
        assert_eq!((Tile::SQUARE.rows(), Tile::SQUARE.cols()), (64, 64));
        assert_eq!(Tile::TALL.threads(), 256);
        assert_eq!(Tile::for_shape(1000, 1, DType::F32), Tile::TALL);
        assert_eq!(Tile::for_shape(1, 1000, DType::F32), Tile::WIDE);
        assert_eq!(Tile::for_shape(100, 100, DType::C128), Tile::SQUARE_SMALL);
    }

    #[test]
    fn cuda_kernel_stages_panels_in_shared_memory() {
        let src = kernel(DType::F32, Tile::SQUARE).source(Dialect::Cuda);
        assert!(src.contains("extern \"C\" __global__ void ember_matmul_float32_float32_8x8x8x8x16(float* a_p, float* b_p, float* c_p, long long m"), "{src}");
        assert!(src.contains("__shared__ float a_s[16][65];"), "{src}");
        assert!(src.contains("acc_7_7 = acc_7_7 + a7 * b7;"), "{src}");
        assert!(src.contains("__syncthreads();"));
    }

    #[test]
    fn opencl_kernel_takes_offsets_and_local_memory() {
        let src = kernel(DType::I32, Tile::TALL).source(Dialect::OpenCl);
        assert!(src.contains("__global int* a_p, long a_o"), "{src}");
        assert!(src.contains("__local int b_s[16][5];"), "{src}");
        assert!(src.contains("if (e >= 64) break;"), "{src}");
        assert!(src.contains("barrier(CLK_LOCAL_MEM_FENCE);"));
    }

    #[test]
    fn complex_conjugates_a_and_bool_ors() {
        let mut k = kernel(DType::C64, Tile::SQUARE_SMALL);
        k.conj_a = true;
        let src = k.source(Dialect::OpenCl);
        assert!(src.contains("v.y = -v.y;"), "{src}");
        assert!(src.contains("acc_0_0.x += a0.x * b0.x - a0.y * b0.y;"));
        let src = kernel(DType::Bool, Tile::SQUARE).source(Dialect::Cuda);
        assert!(src.contains("acc_0_0 = acc_0_0 | (a0 & b0);"), "{src}");
    }

    #[test]
    fn float16_sums_in_float_and_may_store_float32_partials() {
        let k = MatmulKernel {
            dtype: DType::F16,
            out_dtype: DType::F32,
            conj_a: false,
            tile: Tile::SQUARE,
        };
        let src = k.source(Dialect::Cuda);
        assert!(src.contains("float acc_0_0 = (float)0;"), "{src}");
        assert!(src.contains("ember_h2f("), "{src}");
        assert!(src.contains("float* c_p"), "{src}");
    }
}
