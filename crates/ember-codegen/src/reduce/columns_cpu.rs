//! [`Layout::Columns`] on CPU devices: each work-item owns [`CPU_COLUMNS`] neighbouring
//! outputs and walks its split's reduced elements once, folding a whole stretch of a row into
//! its accumulators at each step. A CPU runs a work-group's items one after another, so the
//! GPU form (threads striding down one output each) reads each row once per output there;
//! this form reads each row's stretch once, and the compiler vectorises the inner loop (a
//! 1,024 x 1,024 float32 sum over axis 0: 1-2 GB/s in the GPU form, 45 GB/s in this one,
//! PyOpenCL on PoCL 3.1, 2 cores).

use std::fmt::Write;

use crate::dialect::Dialect;
use crate::types::{load, storage_type, value_type};

use super::{identity, Map, ReduceKernel};

/// Outputs a work-item owns (its accumulators stay in registers and L1 for any dtype).
pub const CPU_COLUMNS: usize = 64;

impl ReduceKernel {
    /// Outputs `_c0 .. _c0 + CPU_COLUMNS` for work-item `_c0 / CPU_COLUMNS` (and every
    /// grid's width of outputs on), elements `[_j0, _j1)` of split `_s`.
    pub(super) fn columns_cpu_body(&self, s: &mut String, dialect: Dialect) {
        let t = dialect.table();
        let i64t = t.int64;
        let w = CPU_COLUMNS;
        let arg = self.combine.is_arg();
        let id = identity(self.combine, self.acc, dialect);
        // A loop over blocks of outputs, once round when the grid covers them.
        let _ = writeln!(
            s,
            "  for ({i64t} _c0 = {} * {w}; _c0 < _m; _c0 += {} * {w}) {{",
            t.global_id, t.global_size
        );
        let _ = writeln!(
            s,
            "  const int _w = _m - _c0 < {w} ? (int)(_m - _c0) : {w};"
        );
        let _ = writeln!(s, "  _acc_t _a[{w}];");
        if arg {
            let _ = writeln!(s, "  _idx_t _ai[{w}];");
        }
        let _ = write!(s, "  for (int _k = 0; _k < {w}; ++_k) {{ _a[_k] = {id};");
        if arg {
            let _ = write!(s, " _ai[_k] = (_idx_t)0x7fffffffffffffff;");
        }
        let _ = writeln!(s, " }}");
        if let Map::CenteredSquare { mean } = self.map {
            let mt = value_type(mean, dialect);
            let _ = writeln!(s, "  {mt} _mu[{w}];");
            let _ = writeln!(
                s,
                "  for (int _k = 0; _k < _w; ++_k) _mu[_k] = {};",
                load(mean, dialect, "mu + _c0 + _k")
            );
        }
        let (a, ai) = ("_a[_k]", "_ai[_k]");
        // A whole stretch of a row with unit stride between outputs: the vectorised loop.
        let itemsize = self.input.itemsize();
        let _ = writeln!(
            s,
            "  if (_w == {w} && {} == 1 && _ks0 == {itemsize}) {{",
            self.out_ndim
        );
        let _ = writeln!(s, "    for ({i64t} _j = _j0; _j < _j1; ++_j) {{");
        let _ = writeln!(s, "      {}", self.offset("_ro", "_j", "_r", dialect));
        let g = t.global;
        let st = storage_type(self.input, dialect);
        let _ = writeln!(
            s,
            "      {g}const {st}* _p = ({g}const {st}*)(({g}const char*)x + _ro) + _c0;"
        );
        let _ = writeln!(s, "      #pragma unroll");
        let _ = writeln!(s, "      for (int _k = 0; _k < {w}; ++_k) {{");
        let value = self.mapped(&load(self.input, dialect, "_p + _k"), "_mu[_k]", dialect);
        let index = if self.map == Map::Partial {
            format!("xi[(_ro / {itemsize}) + _c0 + _k]")
        } else {
            "_j".to_string()
        };
        let _ = writeln!(s, "        {}", self.fold_pair(a, ai, &value, &index));
        let _ = writeln!(s, "      }}\n    }}\n  }} else {{");
        // Any other layout, or the last outputs: each element's offset from its indices.
        let _ = writeln!(s, "    for ({i64t} _j = _j0; _j < _j1; ++_j) {{");
        let _ = writeln!(s, "      {}", self.offset("_ro", "_j", "_r", dialect));
        let _ = writeln!(s, "      for (int _k = 0; _k < _w; ++_k) {{");
        let _ = writeln!(
            s,
            "        {}",
            self.offset("_ko", "_c0 + _k", "_k", dialect)
        );
        let _ = writeln!(
            s,
            "        {}",
            self.fold_element_pair(a, ai, "_ko + _ro", "_j", "_mu[_k]", dialect)
        );
        let _ = writeln!(s, "      }}\n    }}\n  }}");
        let _ = writeln!(
            s,
            "  for (int _k = 0; _k < _w; ++_k) {{ {} }}",
            self.write_pair(a, ai, "_c0 + _k", dialect)
        );
        let _ = writeln!(s, "  }}");
    }
}
