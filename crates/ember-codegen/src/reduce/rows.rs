//! [`Layout::Rows`]: `tpr` threads share each output, striding along its elements (vector
//! loads when contiguous), then combine through warp shuffles, a tree in shared memory, or
//! one thread (CPUs).

use std::fmt::Write;

use crate::dialect::Dialect;
use crate::types::{load, storage_type};

use super::{identity, vector_loadable, Combine, Map, ReduceKernel, BLOCK, UNROLL, VECTOR};

/// Vector accumulators of a CPU sum ([`ReduceKernel::wide_sum`]); the sum of them is written
/// for four.
const WIDE: usize = 4;

impl ReduceKernel {
    /// `tpr` threads per output, outputs `_base + _r`.
    pub(super) fn rows_body(&self, s: &mut String, dialect: Dialect) {
        let t = dialect.table();
        let i64t = t.int64;
        let g = t.global;
        let _ = writeln!(s, "  const int _t = _tid & (int)(_tpr - 1);");
        let _ = writeln!(s, "  const int _r = _tid / (int)_tpr;");
        let _ = writeln!(s, "  const {i64t} _rpg = {BLOCK} / _tpr;");
        let _ = writeln!(
            s,
            "  for ({i64t} _base = {} * _rpg; _base < _m; _base += {} * _rpg) {{",
            t.group_id[0], t.num_groups[0]
        );
        let _ = writeln!(s, "    const {i64t} _i = _base + _r;");
        let _ = writeln!(s, "    {}", self.declare("_a", dialect));
        let _ = writeln!(s, "    if (_i < _m) {{");
        let _ = writeln!(s, "      {}", self.offset("_ko", "_i", "_k", dialect));
        let _ = writeln!(s, "      {}", self.mean_of("_i", dialect));
        if let Some((lanes, element)) = self.wide_lanes(dialect) {
            self.wide_sum(s, dialect, lanes, element);
        } else if self.vector {
            let st = storage_type(self.input, dialect);
            let _ = writeln!(
                s,
                "      {g}const {st}* _row = ({g}const {st}*)(({g}const char*)x + _ko);"
            );
            let _ = writeln!(s, "      const {i64t} _v1 = _j1 >> 2;");
            for k in 0..VECTOR {
                let _ = writeln!(s, "      {}", self.declare(&format!("_a{k}"), dialect));
            }
            let fold_vector = |s: &mut String, name: &str, v: &str| {
                for k in 0..VECTOR {
                    let value = self.mapped(&format!("{name}{k}"), "_mu", dialect);
                    let _ = writeln!(
                        s,
                        "        {}",
                        self.fold(&format!("_a{k}"), &value, &format!("4 * ({v}) + {k}"))
                    );
                }
            };
            if self.cpu {
                let _ = writeln!(s, "      {}", self.share("_v", "_j0 >> 2", "_v1", i64t));
            } else {
                // UNROLL loads in flight per step, then one at a time.
                let _ = writeln!(s, "      {i64t} _v = (_j0 >> 2) + _t;");
                let _ = writeln!(
                    s,
                    "      for (; _v + {} * _tpr < _v1; _v += {UNROLL} * _tpr) {{",
                    UNROLL - 1
                );
                for u in 0..UNROLL {
                    let at = format!("_v + {u} * _tpr");
                    let vl = dialect.vector_load(self.input, "_row", &at, &format!("_l{u}_"));
                    let _ = writeln!(s, "        {vl}");
                }
                for u in 0..UNROLL {
                    fold_vector(s, &format!("_l{u}_"), &format!("_v + {u} * _tpr"));
                }
                let _ = writeln!(s, "      }}");
                let _ = writeln!(s, "      for (; _v < _v1; _v += _tpr) {{");
            }
            let vl = dialect.vector_load(self.input, "_row", "_v", "_l0_");
            let _ = writeln!(s, "        {vl}");
            fold_vector(s, "_l0_", "_v");
            let _ = writeln!(s, "      }}");
            let _ = writeln!(s, "      {}", self.merge("_a0", "_a1"));
            let _ = writeln!(s, "      {}", self.merge("_a2", "_a3"));
            let _ = writeln!(s, "      {}", self.merge("_a0", "_a2"));
            let _ = writeln!(s, "      {}", self.merge("_a", "_a0"));
            let _ = writeln!(
                s,
                "      for ({i64t} _j = (_v1 << 2) + _t; _j < _j1; _j += _tpr) {{"
            );
            let x = load(self.input, dialect, "_row + _j");
            let _ = writeln!(
                s,
                "        {}",
                self.fold("_a", &self.mapped(&x, "_mu", dialect), "_j")
            );
            let _ = writeln!(s, "      }}");
        } else {
            let _ = writeln!(s, "      {}", self.share("_j", "_j0", "_j1", i64t));
            let _ = writeln!(s, "        {}", self.offset("_ro", "_j", "_r", dialect));
            let _ = writeln!(
                s,
                "        {}",
                self.fold_element("_a", "_ko + _ro", "_j", "_mu", dialect)
            );
            let _ = writeln!(s, "      }}");
        }
        let _ = writeln!(s, "    }}");
        self.rows_combine(s, dialect);
        let _ = writeln!(
            s,
            "    if (_t == 0 && _i < _m) {{ {} }}",
            self.write("_a", "_i", dialect)
        );
        let _ = writeln!(s, "    {};", t.barrier);
        let _ = writeln!(s, "  }}");
    }

    /// Lanes of each 16-byte vector accumulator of a CPU sum ([`Self::wide_sum`]) and their
    /// OpenCL element type, where one applies: an OpenCL CPU kernel adding contiguous,
    /// vector-loadable values of the accumulator's own type.
    fn wide_lanes(&self, dialect: Dialect) -> Option<(usize, &'static str)> {
        let applies = self.cpu
            && self.vector
            && dialect == Dialect::OpenCl
            && self.combine.on(self.acc) == Combine::Add
            && self.map == Map::Value
            && self.input == self.acc
            && vector_loadable(self.acc);
        // The element type of OpenCL's vector types: `uint` of `uint4`.
        let four = crate::dtypes::columns(self.acc).vector?;
        let element =
            crate::dtypes::pick(four, dialect).trim_end_matches(|c: char| c.is_ascii_digit());
        applies.then(|| (16 / self.acc.itemsize(), element))
    }

    /// A CPU thread's share of a contiguous row added into [`WIDE`] 16-byte vector
    /// accumulators, 64 bytes a step: independent sums, where four scalar accumulators make
    /// each add wait for the one before (a float32 sum of 2^20 at 23 GB/s with four scalars,
    /// 44 GB/s with four `float4`s; PyOpenCL on PoCL 3.1, 2 cores). Wider vectors measured no
    /// faster there, and PoCL 3.0 (pip's) adds `float16`s wrongly.
    fn wide_sum(&self, s: &mut String, dialect: Dialect, lanes: usize, element: &str) {
        let t = dialect.table();
        let (i64t, g) = (t.int64, t.global);
        let st = storage_type(self.input, dialect);
        let vt = format!("{element}{lanes}");
        // Elements a step: WIDE vectors.
        let shift = (WIDE * lanes).trailing_zeros();
        let _ = writeln!(
            s,
            "      {g}const {st}* _row = ({g}const {st}*)(({g}const char*)x + _ko);"
        );
        let _ = writeln!(s, "      const {i64t} _w1 = _j1 >> {shift};");
        let zeros: Vec<String> = (0..WIDE).map(|k| format!("_aw{k} = ({vt})0")).collect();
        let _ = writeln!(s, "      {vt} {};", zeros.join(", "));
        let _ = writeln!(
            s,
            "      {}",
            self.share("_w", &format!("_j0 >> {shift}"), "_w1", i64t)
        );
        for k in 0..WIDE {
            let _ = writeln!(
                s,
                "        _aw{k} += vload{lanes}({WIDE} * _w + {k}, _row);"
            );
        }
        let _ = writeln!(s, "      }}");
        let _ = writeln!(s, "      const {vt} _aw = (_aw0 + _aw1) + (_aw2 + _aw3);");
        // The lanes added pairwise, halves at a time.
        let mut name = "_aw".to_string();
        let mut width = lanes;
        while width > 1 {
            width /= 2;
            let half = match width {
                1 => st.to_string(),
                _ => format!("{element}{width}"),
            };
            let next = format!("_aw_{width}");
            let (lo, hi) = if width > 1 { ("lo", "hi") } else { ("x", "y") };
            let _ = writeln!(s, "      const {half} {next} = {name}.{lo} + {name}.{hi};");
            name = next;
        }
        let _ = writeln!(s, "      _a = _combine(_a, {name});");
        let _ = writeln!(
            s,
            "      for ({i64t} _j = (_w1 << {shift}) + _t; _j < _j1; _j += _tpr) {{"
        );
        let x = load(self.input, dialect, "_row + _j");
        let _ = writeln!(s, "        {}", self.fold("_a", &x, "_j"));
        let _ = writeln!(s, "      }}");
    }

    /// Combines the accumulators `_a` of a row's `tpr` threads into thread `_t == 0`'s.
    fn rows_combine(&self, s: &mut String, dialect: Dialect) {
        let t = dialect.table();
        let arg = self.combine.is_arg();
        let id = identity(self.combine, self.acc, dialect);
        if self.cpu {
            let _ = write!(s, "    _sv[_tid] = _a;");
            if arg {
                let _ = write!(s, " _si[_tid] = _ai;");
            }
            let _ = writeln!(s, "\n    {};", t.barrier);
            let _ = writeln!(s, "    if (_t == 0) {{");
            let _ = writeln!(
                s,
                "      for (int _w = (int)(_tpr >> 1); _w > 0; _w >>= 1) for (int _k = 0; _k < _w; ++_k) {{"
            );
            let _ = writeln!(
                s,
                "        {}",
                self.serial_step("_tid + _k", "_tid + _k + _w")
            );
            let _ = write!(s, "      }}\n      _a = _sv[_tid];");
            if arg {
                let _ = write!(s, " _ai = _si[_tid];");
            }
            let _ = writeln!(s, "\n    }}");
        } else if t.shuffle_xor.is_some() {
            let shuffle = |s: &mut String, first: &str| {
                let _ = writeln!(s, "      for (int o = {first}; o > 0; o >>= 1) {{");
                let _ = write!(s, "        _acc_t _b = _shfl(_a, o);");
                if arg {
                    let _ = write!(s, " _idx_t _bi = _shfl_idx(_ai, o);");
                }
                let _ = writeln!(s, " {}\n      }}", self.merge("_a", "_b"));
            };
            let _ = writeln!(s, "    {{");
            shuffle(s, "(_tpr < 32 ? (int)_tpr : 32) >> 1");
            let _ = writeln!(s, "    }}");
            let _ = writeln!(s, "    if (_tpr > 32) {{");
            let _ = write!(s, "      if ((_tid & 31) == 0) {{ _sv[_tid >> 5] = _a;");
            if arg {
                let _ = write!(s, " _si[_tid >> 5] = _ai;");
            }
            let _ = writeln!(s, " }}\n      {};", t.barrier);
            let _ = writeln!(s, "      if (_t < 32) {{");
            let _ = writeln!(s, "        const int _w = (int)(_tpr >> 5);");
            let _ = writeln!(s, "        _a = _t < _w ? _sv[_r * _w + _t] : {id};");
            if arg {
                let _ = writeln!(
                    s,
                    "        _ai = _t < _w ? _si[_r * _w + _t] : (_idx_t)0x7fffffffffffffff;"
                );
            }
            shuffle(s, "16");
            let _ = writeln!(s, "      }}\n    }}");
        } else {
            let _ = write!(s, "    _sv[_tid] = _a;");
            if arg {
                let _ = write!(s, " _si[_tid] = _ai;");
            }
            let _ = writeln!(s, "\n    {};", t.barrier);
            let _ = writeln!(
                s,
                "    for (int _w = (int)(_tpr >> 1); _w > 0; _w >>= 1) {{"
            );
            let _ = write!(s, "      if (_t < _w) {{ _acc_t _b = _sv[_tid + _w];");
            if arg {
                let _ = write!(s, " _idx_t _bi = _si[_tid + _w];");
            }
            let _ = write!(s, " {} _sv[_tid] = _a;", self.merge("_a", "_b"));
            if arg {
                let _ = write!(s, " _si[_tid] = _ai;");
            }
            let _ = writeln!(s, " }}\n      {};\n    }}", t.barrier);
        }
    }
}
