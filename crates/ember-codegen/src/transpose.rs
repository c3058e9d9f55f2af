//! Transposed copies of stacks of matrices through shared (local) memory: a block reads a
//! 32 x 32 tile along the source's rows and writes it along the destination's rows, so both
//! sides are coalesced (an elementwise copy of a transposed view reads with a stride and
//! runs at a fraction of the memory's speed). Elements move as raw words of their size (1,
//! 2, 4, 8 or 16 bytes): one kernel serves every dtype of a size. Optionally one triangle is
//! kept and the other written as zero bytes (zero in every numeric dtype), which turns a
//! column-major triangular factor into NumPy's C-ordered result in one pass.
//!
//! Source `x`: `batch` matrices of `cols x rows`, C-contiguous (`x[b][c][r]`); destination
//! `y`: `batch` matrices of `rows x cols`, C-contiguous, `y[b][r][c] = x[b][c][r]`.
//! Parameters: `x`, `y` (each followed by its byte offset on OpenCL), int64 `rows cols batch
//! tiles_r tiles_c`. Blocks of [`TransposeKernel::THREADS`]; any grid (blocks loop over
//! tiles).

use std::fmt::Write;

use crate::dialect::Dialect;

/// Which elements of each `rows x cols` result a [`TransposeKernel`] keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Keep {
    All,
    /// On and below the diagonal (`r >= c`).
    Lower,
    /// On and above it (`r <= c`).
    Upper,
}

/// The transposing copy of elements of `unit` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransposeKernel {
    pub unit: usize,
    pub keep: Keep,
}

const TILE: usize = 32;

impl TransposeKernel {
    /// Threads a block: 32 x 8, each moving 4 elements of a tile.
    pub const THREADS: usize = 256;

    /// Tiles along a side of `n` elements.
    pub fn tiles(n: usize) -> usize {
        n.div_ceil(TILE)
    }

    pub fn name(&self) -> String {
        let keep = match self.keep {
            Keep::All => "",
            Keep::Lower => "_lower",
            Keep::Upper => "_upper",
        };
        format!("ember_transpose{}{keep}", self.unit)
    }

    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let (g, l) = (t.global, t.int64);
        // 16-byte elements as a pair of 8-byte words (a struct both dialects know).
        let (word, zero) = match self.unit {
            1 => ("unsigned char", "v = 0;"),
            2 => ("unsigned short", "v = 0;"),
            4 => ("unsigned int", "v = 0;"),
            8 => ("unsigned long long", "v = 0;"),
            _ => ("ember_pair_t", "v.lo = 0; v.hi = 0;"),
        };
        let word = if dialect == Dialect::OpenCl && self.unit == 8 {
            "ulong"
        } else {
            word
        };
        let mut s = String::new();
        if self.unit == 16 {
            let half = if dialect == Dialect::OpenCl {
                "ulong"
            } else {
                "unsigned long long"
            };
            let _ = writeln!(
                s,
                "typedef struct {{ {half} lo; {half} hi; }} ember_pair_t;"
            );
        }
        let mut params = Vec::new();
        let mut offsets = String::new();
        for (name, constant) in [("x", true), ("y", false)] {
            let c = if constant { "const " } else { "" };
            params.push(format!("{g}{c}{word}* {name}_p"));
            if t.buffer_offsets {
                params.push(format!("{l} {name}_o"));
            }
            offsets.push_str(
                &t.offset_pointer(&format!("{name}_p"), word, constant, &format!("{name}_o"))
                    .unwrap_or_default(),
            );
        }
        for name in ["rows", "cols", "batch", "tiles_r", "tiles_c"] {
            params.push(format!("{l} {name}"));
        }
        let drop = match self.keep {
            Keep::All => "0",
            Keep::Lower => "c > r",
            Keep::Upper => "c < r",
        };
        let _ = write!(
            s,
            r#"{prefix} {name}({params}) {{
{offsets}  {shared} {word} tile[{TILE}][{TILE} + 1];
  const int tx = {lid} % {TILE}, ty = {lid} / {TILE};
  const {l} per = tiles_r * tiles_c;
  for ({l} t = {group}; t < batch * per; t += {groups}) {{
    const {l} b = t / per, rest = t - b * per;
    const {l} r0 = (rest / tiles_c) * {TILE}, c0 = (rest % tiles_c) * {TILE};
    for (int j = ty; j < {TILE}; j += {step}) {{
      const {l} c = c0 + j, r = r0 + tx;
      if (c < cols && r < rows) tile[j][tx] = x_p[(b * cols + c) * rows + r];
    }}
    {bar};
    for (int j = ty; j < {TILE}; j += {step}) {{
      const {l} r = r0 + j, c = c0 + tx;
      if (r < rows && c < cols) {{
        {word} v = tile[tx][j];
        if ({drop}) {{ {zero} }}
        y_p[(b * rows + r) * cols + c] = v;
      }}
    }}
    {bar};
  }}
}}
"#,
            prefix = t.kernel_prefix,
            name = self.name(),
            params = params.join(", "),
            shared = t.shared,
            lid = t.local_id,
            group = t.group_id[0],
            groups = t.num_groups[0],
            step = Self::THREADS / TILE,
            bar = t.barrier,
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_kernel_a_size_and_triangle() {
        let names: Vec<String> = [1, 2, 4, 8, 16]
            .iter()
            .flat_map(|&unit| {
                [Keep::All, Keep::Lower, Keep::Upper]
                    .map(|keep| TransposeKernel { unit, keep }.name())
            })
            .collect();
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(unique.len(), 15);
        let pair = TransposeKernel {
            unit: 16,
            keep: Keep::Lower,
        };
        for dialect in [Dialect::Cuda, Dialect::OpenCl] {
            let src = pair.source(dialect);
            assert!(src.contains("ember_pair_t tile[32][32 + 1]"), "{src}");
            assert!(src.contains("if (c > r)"));
        }
    }
}
