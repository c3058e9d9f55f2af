//! Scans (`cumsum`): kernel source in either dialect.
//!
//! A kernel scans `m` independent lines of `n` elements. Line `i` starts at byte offset
//! `kept(i)` of the input (unravelled over `_kn*`/`_ks*`), element `j` lies `j * _rs` bytes
//! further. Outputs are C-contiguous in the input's shape: element `(i, j)` is at
//! `(i / inner) * n * inner + i % inner + j * inner`, where `inner` is the number of lines
//! after the scanned axis. Long lines are split over the second grid axis as the reductions
//! split them (same `chunk`): split `s` starts from the combined partials of splits `0..s`,
//! which a split reduction ([`crate::reduce::ReduceKernel`] writing partials) computed first.
//!
//! Parameters: `x`, `p` (partials, when split), `y` — each followed by its byte offset on
//! OpenCL — then `m n chunk inner` (int64), the kept extents and strides, `_rs` (int64).

use std::fmt::Write;

use ember_core::DType;

use crate::dialect::Dialect;
use crate::prelude::prelude_for;
use crate::reduce::{identity, Combine, Layout, Map, Post, ReduceKernel, BLOCK};
use crate::types::{cast, load, storage_type, store};

/// Consecutive elements each thread scans per step in [`Layout::Rows`].
pub const SCAN_ITEMS: usize = 4;

/// One scan kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScanKernel {
    /// [`Combine::Add`] (cumsum) or [`Combine::Multiply`] (cumprod).
    pub combine: Combine,
    pub input: DType,
    pub acc: DType,
    pub output: DType,
    /// Rows: a block scans each line (the scanned axis is the contiguous one); Columns: a
    /// thread scans each line, neighbouring threads neighbouring lines.
    pub layout: Layout,
    /// Lines are split; each split starts from the partials of the splits before it.
    pub split: bool,
    /// Axes the line index unravels over (at least 1).
    pub out_ndim: usize,
    /// Tuned for a CPU device: one thread scans the block's totals (rows) after a single
    /// barrier, as [`ReduceKernel::cpu`] combines.
    pub cpu: bool,
}

impl ScanKernel {
    /// A name that says what the kernel does.
    pub fn name(&self) -> String {
        let layout = match self.layout {
            Layout::Rows => "rows",
            Layout::Columns => "cols",
        };
        let combine = match self.combine {
            Combine::Multiply => "cumprod",
            _ => "cumsum",
        };
        format!(
            "ember_{combine}_{}_{}_{}_{layout}{}{}",
            self.input.name(),
            self.acc.name(),
            self.output.name(),
            if self.split { "_split" } else { "" },
            self.out_ndim
        )
    }

    fn buffers(&self) -> Vec<(&'static str, DType, bool)> {
        let mut out = vec![("x", self.input, true)];
        if self.split {
            out.push(("p", self.acc, true));
        }
        out.push(("y", self.output, false));
        out
    }

    /// The kernel's source in `dialect`.
    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let i64t = t.int64;
        let g = t.global;
        let mut s = prelude_for(dialect, [self.input, self.acc, self.output]);
        // The combining functions are the reductions'.
        ReduceKernel {
            combine: self.combine,
            input: self.input,
            acc: self.acc,
            output: self.output,
            map: Map::Value,
            post: Post::Keep,
            partial: false,
            layout: self.layout,
            vector: false,
            out_ndim: self.out_ndim,
            red_ndim: 1,
            cpu: self.cpu,
        }
        .helpers(&mut s, dialect);
        let mut params = Vec::new();
        for (name, dtype, read_only) in self.buffers() {
            let c = if read_only { "const " } else { "" };
            params.push(format!("{g}{c}{}* {name}", storage_type(dtype, dialect)));
            if t.buffer_offsets {
                params.push(format!("{i64t} _{name}_o"));
            }
        }
        for p in ["_m", "_n", "_chunk", "_inner"] {
            params.push(format!("{i64t} {p}"));
        }
        params.extend((0..self.out_ndim).map(|d| format!("{i64t} _kn{d}")));
        params.extend((0..self.out_ndim).map(|d| format!("{i64t} _ks{d}")));
        params.push(format!("{i64t} _rs"));
        let _ = writeln!(
            s,
            "{} {}({}) {{",
            t.kernel_prefix,
            self.name(),
            params.join(", ")
        );
        for (name, dtype, read_only) in self.buffers() {
            let st = storage_type(dtype, dialect);
            let line = t.offset_pointer(name, st, read_only, &format!("_{name}_o"));
            s.push_str(&line.unwrap_or_default());
        }
        let _ = writeln!(s, "  const int _tid = {};", t.local_id);
        let _ = writeln!(s, "  const {i64t} _s = {};", t.group_id[1]);
        let _ = writeln!(s, "  const {i64t} _j0 = _s * _chunk;");
        let _ = writeln!(
            s,
            "  const {i64t} _j1 = _j0 + _chunk < _n ? _j0 + _chunk : _n;"
        );
        match self.layout {
            Layout::Rows => self.rows_body(&mut s, dialect),
            Layout::Columns => self.columns_body(&mut s, dialect),
        }
        s.push_str("}\n");
        s
    }

    /// Statements declaring `_ko` (input offset of line `i`) and `_ob` (its first output).
    fn line(&self, i: &str, dialect: Dialect) -> String {
        let i64t = dialect.table().int64;
        let mut s = if self.out_ndim <= 1 {
            format!("const {i64t} _ko = ({i}) * _ks0;")
        } else {
            let mut s = format!("{i64t} _ko = 0; {{ {i64t} _q = {i};");
            for d in (0..self.out_ndim).rev() {
                let _ = write!(s, " _ko += (_q % _kn{d}) * _ks{d};");
                if d > 0 {
                    let _ = write!(s, " _q /= _kn{d};");
                }
            }
            s.push_str(" }");
            s
        };
        let _ = write!(
            s,
            " const {i64t} _ob = (({i}) / _inner) * _n * _inner + ({i}) % _inner;"
        );
        s
    }

    /// The mapped input element `j` of the current line.
    fn element(&self, j: &str, dialect: Dialect) -> String {
        let g = dialect.table().global;
        let st = storage_type(self.input, dialect);
        let ptr = format!("({g}const {st}*)(({g}const char*)x + _ko + ({j}) * _rs)");
        cast(
            &load(self.input, dialect, &ptr),
            self.input,
            self.acc,
            dialect,
        )
    }

    /// Statement writing accumulated `value` as output element `j` of the current line.
    fn write(&self, j: &str, value: &str, dialect: Dialect) -> String {
        store(
            self.output,
            dialect,
            &format!("y + _ob + ({j}) * _inner"),
            &cast(value, self.acc, self.output, dialect),
        )
    }

    fn rows_body(&self, s: &mut String, dialect: Dialect) {
        let t = dialect.table();
        let i64t = t.int64;
        let id = identity(self.combine, self.acc, dialect);
        let _ = writeln!(s, "  {} _acc_t _sv[{BLOCK}];", t.shared);
        let _ = writeln!(
            s,
            "  for ({i64t} _i = {}; _i < _m; _i += {}) {{",
            t.group_id[0], t.num_groups[0]
        );
        let _ = writeln!(s, "    {}", self.line("_i", dialect));
        let _ = writeln!(s, "    _acc_t _carry = {id};");
        if self.split {
            let _ = writeln!(s, "    {{ _acc_t _p = {id};");
            let _ = writeln!(
                s,
                "      for ({i64t} _q = _tid; _q < _s; _q += {BLOCK}) _p = _combine(_p, {});",
                load(self.acc, dialect, "p + _q * _m + _i")
            );
            let _ = writeln!(s, "      _sv[_tid] = _p;\n      {};", t.barrier);
            if self.cpu {
                let _ = writeln!(
                    s,
                    "      if (_tid == 0) for (int _w = {}; _w > 0; _w >>= 1) for (int _k = 0; _k < _w; ++_k) _sv[_k] = _combine(_sv[_k], _sv[_k + _w]);\n      {};",
                    BLOCK / 2,
                    t.barrier
                );
            } else {
                let _ = writeln!(
                    s,
                    "      for (int _w = {}; _w > 0; _w >>= 1) {{ if (_tid < _w) _sv[_tid] = _combine(_sv[_tid], _sv[_tid + _w]); {}; }}",
                    BLOCK / 2,
                    t.barrier
                );
            }
            let _ = writeln!(s, "      _carry = _sv[0];\n      {};\n    }}", t.barrier);
        }
        let _ = writeln!(
            s,
            "    for ({i64t} _t0 = _j0; _t0 < _j1; _t0 += {}) {{",
            BLOCK * SCAN_ITEMS
        );
        let _ = writeln!(s, "      const {i64t} _jt = _t0 + _tid * {SCAN_ITEMS};");
        let _ = writeln!(
            s,
            "      _acc_t _v0 = _jt < _j1 ? {} : {id};",
            self.element("_jt", dialect)
        );
        for k in 1..SCAN_ITEMS {
            let _ = writeln!(
                s,
                "      _acc_t _v{k} = _jt + {k} < _j1 ? _combine(_v{}, {}) : _v{};",
                k - 1,
                self.element(&format!("_jt + {k}"), dialect),
                k - 1
            );
        }
        let _ = writeln!(
            s,
            "      _sv[_tid] = _v{};\n      {};",
            SCAN_ITEMS - 1,
            t.barrier
        );
        if self.cpu {
            let _ = writeln!(
                s,
                "      if (_tid == 0) for (int _o = 1; _o < {BLOCK}; ++_o) _sv[_o] = _combine(_sv[_o - 1], _sv[_o]);\n      {};",
                t.barrier
            );
        } else {
            let _ = writeln!(s, "      for (int _o = 1; _o < {BLOCK}; _o <<= 1) {{");
            let _ = writeln!(
                s,
                "        const _acc_t _u = _tid >= _o ? _sv[_tid - _o] : {id};"
            );
            let _ = writeln!(s, "        {};", t.barrier);
            let _ = writeln!(
                s,
                "        if (_tid >= _o) _sv[_tid] = _combine(_u, _sv[_tid]);"
            );
            let _ = writeln!(s, "        {};\n      }}", t.barrier);
        }
        let _ = writeln!(
            s,
            "      const _acc_t _ex = _combine(_carry, _tid > 0 ? _sv[_tid - 1] : {id});"
        );
        for k in 0..SCAN_ITEMS {
            let _ = writeln!(
                s,
                "      if (_jt + {k} < _j1) {{ {} }}",
                self.write(
                    &format!("_jt + {k}"),
                    &format!("_combine(_ex, _v{k})"),
                    dialect
                )
            );
        }
        let _ = writeln!(
            s,
            "      _carry = _combine(_carry, _sv[{}]);\n      {};",
            BLOCK - 1,
            t.barrier
        );
        let _ = writeln!(s, "    }}\n  }}");
    }

    fn columns_body(&self, s: &mut String, dialect: Dialect) {
        let t = dialect.table();
        let i64t = t.int64;
        let id = identity(self.combine, self.acc, dialect);
        let _ = writeln!(
            s,
            "  for ({i64t} _i = {} * {BLOCK} + _tid; _i < _m; _i += {} * {BLOCK}) {{",
            t.group_id[0], t.num_groups[0]
        );
        let _ = writeln!(s, "    {}", self.line("_i", dialect));
        let _ = writeln!(s, "    _acc_t _c = {id};");
        if self.split {
            let _ = writeln!(
                s,
                "    for ({i64t} _q = 0; _q < _s; ++_q) _c = _combine(_c, {});",
                load(self.acc, dialect, "p + _q * _m + _i")
            );
        }
        let _ = writeln!(s, "    for ({i64t} _j = _j0; _j < _j1; ++_j) {{");
        let _ = writeln!(
            s,
            "      _c = _combine(_c, {});",
            self.element("_j", dialect)
        );
        let _ = writeln!(s, "      {}", self.write("_j", "_c", dialect));
        let _ = writeln!(s, "    }}\n  }}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cumsum(layout: Layout, split: bool) -> ScanKernel {
        ScanKernel {
            combine: Combine::Add,
            input: DType::I8,
            acc: DType::I64,
            output: DType::I64,
            layout,
            split,
            out_ndim: 1,
            cpu: false,
        }
    }

    #[test]
    fn rows_scan_in_blocks_and_start_from_earlier_splits() {
        let src = cumsum(Layout::Rows, true).source(Dialect::OpenCl);
        assert!(
            src.contains("_p = _combine(_p, *(p + _q * _m + _i))"),
            "{src}"
        );
        assert!(
            src.contains("if (_tid >= _o) _sv[_tid] = _combine(_u, _sv[_tid]);"),
            "{src}"
        );
        assert!(src.contains("*(y + _ob + (_jt + 3) * _inner) ="), "{src}");
    }

    #[test]
    fn columns_scan_one_line_per_thread() {
        let src = cumsum(Layout::Columns, false).source(Dialect::Cuda);
        assert!(
            src.contains("for (long long _j = _j0; _j < _j1; ++_j)"),
            "{src}"
        );
        assert!(!src.contains("__shared__"), "{src}");
    }
}
