//! [`Layout::Columns`]: neighbouring threads own neighbouring outputs (coalesced), and
//! [`COLUMN_LANES`] threads per output stride down its elements, then combine in shared
//! memory.

use std::fmt::Write;

use crate::dialect::Dialect;
use crate::types::{load, storage_type, value_type};

use super::{Map, ReduceKernel, BLOCK, COLUMN_LANES, UNROLL, VECTOR};

impl ReduceKernel {
    /// [`COLUMN_LANES`] threads per output; neighbouring threads own neighbouring outputs.
    pub(super) fn columns_body(&self, s: &mut String, dialect: Dialect) {
        let t = dialect.table();
        let i64t = t.int64;
        let g = t.global;
        let cx = BLOCK / COLUMN_LANES;
        let v = if self.vector { VECTOR } else { 1 };
        let arg = self.combine.is_arg();
        let _ = writeln!(s, "  const int _tx = _tid % {cx};");
        let _ = writeln!(s, "  const int _ty = _tid / {cx};");
        let _ = writeln!(
            s,
            "  for ({i64t} _base = {} * {}; _base < _m; _base += {} * {}) {{",
            t.group_id[0],
            cx * v,
            t.num_groups[0],
            cx * v
        );
        let _ = writeln!(s, "    const {i64t} _c = _base + _tx * {v};");
        for k in 0..v {
            let _ = writeln!(s, "    {}", self.declare(&format!("_a{k}"), dialect));
        }
        // One output's elements, one at a time.
        let scalar_column = |s: &mut String, k: usize, indent: &str| {
            let _ = writeln!(s, "{indent}if (_c + {k} < _m) {{");
            let _ = writeln!(
                s,
                "{indent}  {}",
                self.offset("_ko", &format!("_c + {k}"), "_k", dialect)
            );
            let _ = writeln!(
                s,
                "{indent}  {}",
                self.mean_of(&format!("_c + {k}"), dialect)
            );
            let _ = writeln!(
                s,
                "{indent}  for ({i64t} _j = _j0 + _ty; _j < _j1; _j += {COLUMN_LANES}) {{"
            );
            let _ = writeln!(s, "{indent}    {}", self.offset("_ro", "_j", "_r", dialect));
            let _ = writeln!(
                s,
                "{indent}    {}",
                self.fold_element(&format!("_a{k}"), "_ko + _ro", "_j", "_mu", dialect)
            );
            let _ = writeln!(s, "{indent}  }}\n{indent}}}");
        };
        if self.vector {
            let st = storage_type(self.input, dialect);
            let _ = writeln!(s, "    if (_c + {} < _m) {{", VECTOR - 1);
            if let Map::CenteredSquare { mean } = self.map {
                let mt = value_type(mean, dialect);
                for k in 0..VECTOR {
                    let _ = writeln!(
                        s,
                        "      const {mt} _mu{k} = {};",
                        load(mean, dialect, &format!("mu + _c + {k}"))
                    );
                }
            }
            let _ = writeln!(
                s,
                "      {g}const char* _col = ({g}const char*)x + _c * _ks0;"
            );
            // UNROLL rows per step on GPUs, so that as many loads are in flight.
            let load_row = |s: &mut String, j: &str, name: &str| {
                let ptr = format!("({g}const {st}*)(_col + ({j}) * _rs0)");
                let vl = dialect.vector_load(self.input, &ptr, "0", name);
                let _ = writeln!(s, "        {vl}");
            };
            let fold_row = |s: &mut String, j: &str, name: &str| {
                for k in 0..VECTOR {
                    let value = self.mapped(&format!("{name}{k}"), &format!("_mu{k}"), dialect);
                    let _ = writeln!(s, "        {}", self.fold(&format!("_a{k}"), &value, j));
                }
            };
            let _ = writeln!(s, "      {i64t} _j = _j0 + _ty;");
            let unroll = if self.cpu { 1 } else { UNROLL };
            if unroll > 1 {
                let _ = writeln!(
                    s,
                    "      for (; _j + {} < _j1; _j += {}) {{",
                    (unroll - 1) * COLUMN_LANES,
                    unroll * COLUMN_LANES
                );
                for u in 0..unroll {
                    load_row(s, &format!("_j + {}", u * COLUMN_LANES), &format!("_l{u}_"));
                }
                for u in 0..unroll {
                    fold_row(s, &format!("_j + {}", u * COLUMN_LANES), &format!("_l{u}_"));
                }
                let _ = writeln!(s, "      }}");
            }
            let _ = writeln!(s, "      for (; _j < _j1; _j += {COLUMN_LANES}) {{");
            load_row(s, "_j", "_l0_");
            fold_row(s, "_j", "_l0_");
            let _ = writeln!(s, "      }}\n    }} else {{");
            for k in 0..VECTOR {
                scalar_column(s, k, "      ");
            }
            let _ = writeln!(s, "    }}");
        } else {
            scalar_column(s, 0, "    ");
        }
        for k in 0..v {
            let _ = write!(s, "    _sv[_tid * {v} + {k}] = _a{k};");
            if arg {
                let _ = write!(s, " _si[_tid * {v} + {k}] = _a{k}i;");
            }
            s.push('\n');
        }
        let _ = writeln!(s, "    {};", t.barrier);
        if self.cpu {
            let _ = writeln!(s, "    if (_ty == 0) {{");
            let _ = writeln!(
                s,
                "      for (int _w = {}; _w > 0; _w >>= 1) for (int _q = 0; _q < _w; ++_q) {{",
                COLUMN_LANES / 2
            );
            for k in 0..v {
                let a = format!("(_tid + _q * {cx}) * {v} + {k}");
                let b = format!("(_tid + (_q + _w) * {cx}) * {v} + {k}");
                let _ = writeln!(s, "        {{ {} }}", self.serial_step(&a, &b));
            }
            let _ = writeln!(s, "      }}");
            for k in 0..v {
                let _ = write!(s, "      _a{k} = _sv[_tid * {v} + {k}];");
                if arg {
                    let _ = write!(s, " _a{k}i = _si[_tid * {v} + {k}];");
                }
                s.push('\n');
            }
            for k in 0..v {
                let _ = writeln!(
                    s,
                    "      if (_c + {k} < _m) {{ {} }}",
                    self.write(&format!("_a{k}"), &format!("_c + {k}"), dialect)
                );
            }
            let _ = writeln!(s, "    }}\n    {};\n  }}", t.barrier);
            return;
        }
        let _ = writeln!(
            s,
            "    for (int _w = {}; _w > 0; _w >>= 1) {{",
            COLUMN_LANES / 2
        );
        let _ = writeln!(s, "      if (_ty < _w) {{");
        for k in 0..v {
            let at = format!("(_tid + _w * {cx}) * {v} + {k}");
            let _ = write!(s, "        {{ _acc_t _b = _sv[{at}];");
            if arg {
                let _ = write!(s, " _idx_t _bi = _si[{at}];");
            }
            let _ = write!(
                s,
                " {} _sv[_tid * {v} + {k}] = _a{k};",
                self.merge(&format!("_a{k}"), "_b")
            );
            if arg {
                let _ = write!(s, " _si[_tid * {v} + {k}] = _a{k}i;");
            }
            let _ = writeln!(s, " }}");
        }
        let _ = writeln!(s, "      }}\n      {};\n    }}", t.barrier);
        let _ = writeln!(s, "    if (_ty == 0) {{");
        for k in 0..v {
            let _ = writeln!(
                s,
                "      if (_c + {k} < _m) {{ {} }}",
                self.write(&format!("_a{k}"), &format!("_c + {k}"), dialect)
            );
        }
        let _ = writeln!(s, "    }}\n  }}");
    }
}
