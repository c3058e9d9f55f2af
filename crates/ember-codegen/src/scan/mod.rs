//! Scans (`cumsum`, `cumprod`): kernel source in either dialect.
//!
//! A kernel scans `m` independent lines of `n` elements. Line `i` starts at byte offset
//! `kept(i)` of the input (unravelled over `_kn*`/`_ks*`), element `j` lies `j * _rs` bytes
//! further. Outputs are C-contiguous in the input's shape: element `(i, j)` is at
//! `(i / inner) * n * inner + i % inner + j * inner`, where `inner` is the number of lines
//! after the scanned axis.
//!
//! - [`Layout::Rows`] (the scanned axis is the contiguous one) reads the input once: a line
//!   is cut into tiles of `BLOCK * items` elements, one block scanning each. Blocks take tiles in
//!   order from a ticket counter (`w[0]`), so a tile's predecessors have all started; each
//!   tile publishes its total, then looks back over its predecessors' published totals until
//!   one that includes everything before it (the *decoupled look-back* of Merrill and
//!   Garland's single-pass scan, as CUB's). A tile's status is two values in `w` (its total,
//!   then its line's total so far), each as self-validating words ([`ScanKernel::words`]).
//!   With the dialect's warp operations (CUDA), rows are scanned by warps instead
//!   ([`ScanKernel::striped`], in `striped.rs`).
//! - [`Layout::Columns`] (scanning across the contiguous axis): a thread scans each line,
//!   neighbouring threads neighbouring lines. Long lines are split over the second grid axis
//!   as the reductions split them (same `chunk`): split `s` starts from the combined partials
//!   of splits `0..s`, which a split reduction ([`crate::reduce::ReduceKernel`] writing
//!   partials) computed first.
//!
//! Parameters: `x`, then `w` (all zero: rows) or `p` (partials, split columns), then `y` — each
//! followed by its byte offset on OpenCL — then `m n` (int64), `tpl` (tiles per line, rows) or
//! `chunk` (columns), `inner`, the kept extents and strides, `_rs` (int64).

use std::fmt::Write;

use ember_core::DType;

use crate::dialect::Dialect;
use crate::prelude::prelude_for;
use crate::reduce::{identity, Combine, Layout, Map, Post, ReduceKernel, BLOCK};
use crate::types::{cast, load, storage_type, store};

mod striped;

/// The most consecutive elements each thread scans in a tile of [`Layout::Rows`]
/// ([`ScanKernel::items`]).
pub const SCAN_ITEMS: usize = 16;

/// Predecessors a tile reads at once in its look-back ([`Layout::Rows`], not striped).
const WINDOW: usize = 32;

/// Threads of a block of a striped scan ([`ScanKernel::striped`]).
pub const STRIPED_BLOCK: usize = 512;

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
    /// Rows only: consecutive elements each thread scans (a tile is `BLOCK * items`); at
    /// most [`SCAN_ITEMS`].
    pub items: usize,
    /// Columns only: lines are split; each split starts from the partials of the splits
    /// before it. (Rows always cut lines into tiles.)
    pub split: bool,
    /// Axes the line index unravels over (at least 1).
    pub out_ndim: usize,
    /// Tuned for a CPU device: one thread scans the block's totals (rows) after a single
    /// barrier, as [`ReduceKernel::cpu`] combines.
    pub cpu: bool,
    /// Rows scanned by warps (needs the dialect's [`crate::dialect::Warp`]): each thread
    /// holds groups of 4 consecutive elements, its warp's groups side by side, so that loads
    /// and stores coalesce with no shared memory; a block of [`STRIPED_BLOCK`] threads takes a
    /// tile, in block order; `items` is a multiple of 4.
    pub striped: bool,
    /// Striped only: each group of the input is read with vector loads (a 4- or 8-byte real
    /// or integer input, contiguous along the line, every line 16-byte aligned).
    pub vector_in: bool,
    /// Striped only: each group of the output is written with vector stores (likewise, and
    /// lines next to each other in the output).
    pub vector_out: bool,
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
        let striped = match (self.striped, self.vector_in, self.vector_out) {
            (false, ..) => "",
            (true, false, false) => "_striped",
            (true, true, false) => "_striped_vi",
            (true, false, true) => "_striped_vo",
            (true, true, true) => "_striped_v",
        };
        format!(
            "ember_{combine}_{}_{}_{}_{layout}{striped}{}{}{}",
            self.input.name(),
            self.acc.name(),
            self.output.name(),
            if self.split && self.layout == Layout::Columns {
                "_split"
            } else {
                ""
            },
            if self.layout == Layout::Rows {
                format!("_x{}", self.items)
            } else {
                String::new()
            },
            self.out_ndim
        )
    }

    fn buffers(&self) -> Vec<(&'static str, DType, bool)> {
        let mut out = vec![("x", self.input, true)];
        match self.layout {
            Layout::Rows => out.push(("w", DType::U64, false)),
            Layout::Columns if self.split => out.push(("p", self.acc, true)),
            Layout::Columns => {}
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
        if self.layout == Layout::Rows {
            if let Some(pragma) = t.int64_atomics_pragma {
                s.push_str(pragma);
            }
            self.status_helpers(&mut s, dialect);
            if self.striped {
                self.warp_helpers(&mut s, dialect);
            }
            s.push_str("#define _pad(i) ((i) + ((i) >> 5))\n");
        }
        let mut params = Vec::new();
        for (name, dtype, read_only) in self.buffers() {
            let c = if read_only { "const " } else { "" };
            params.push(format!("{g}{c}{}* {name}", storage_type(dtype, dialect)));
            if t.buffer_offsets {
                params.push(format!("{i64t} _{name}_o"));
            }
        }
        let third = match self.layout {
            Layout::Rows => "_tpl",
            Layout::Columns => "_chunk",
        };
        for p in ["_m", "_n", third, "_inner"] {
            params.push(format!("{i64t} {p}"));
        }
        params.extend((0..self.out_ndim).map(|d| format!("{i64t} _kn{d}")));
        params.extend((0..self.out_ndim).map(|d| format!("{i64t} _ks{d}")));
        params.push(format!("{i64t} _rs"));
        let bounds = match (&t.warp, self.striped) {
            (Some(warp), true) => format!(" {}", self.launch_bounds(warp)),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "{}{bounds} {}({}) {{",
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
        match self.layout {
            Layout::Rows if self.striped => self.striped_body(&mut s, dialect),
            Layout::Rows => self.rows_body(&mut s, dialect),
            Layout::Columns => self.columns_body(&mut s, dialect),
        }
        s.push_str("}\n");
        s
    }

    /// Threads a block of this kernel has.
    pub fn threads(&self) -> usize {
        if self.striped {
            STRIPED_BLOCK
        } else {
            BLOCK
        }
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

    /// 64-bit status words per value (one per 32 bits of the accumulator): rows need a zeroed
    /// buffer of `1 + tiles * 2 * words()` of them.
    pub fn words(&self) -> usize {
        self.acc.itemsize().div_ceil(4)
    }

    /// Helpers publishing and reading a tile's status. A value is held as 64-bit words, each
    /// a 32-bit piece of it with a validity bit above, written and read whole through
    /// volatile pointers (past caches that are not coherent): a reader needs no fence,
    /// since each word proves itself (fences between work-groups are not dependable on
    /// every OpenCL device).
    fn status_helpers(&self, s: &mut String, dialect: Dialect) {
        let t = dialect.table();
        let (f, g) = (t.device_fn, t.global);
        let [w32, w64] = t.atomics.words;
        let (size, words) = (self.acc.itemsize(), self.words());
        let valid = format!("(({w64})1 << 32)");
        let _ = writeln!(
            s,
            "{f} void _wput({g}{w64}* w, _acc_t v) {{ {w32} b[{words}] = {{0}}; for (int k = 0; k < {size}; ++k) ((unsigned char*)b)[k] = ((const unsigned char*)&v)[k]; for (int k = 0; k < {words}; ++k) ((volatile {g}{w64}*)w)[k] = {valid} | b[k]; }}"
        );
        // Reads the value at `w` into `v` if its first word is valid (the rest follow it).
        let _ = writeln!(
            s,
            "{f} int _wget({g}{w64}* w, _acc_t* v) {{ volatile {g}{w64}* u = (volatile {g}{w64}*)w; {w32} b[{words}]; {w64} x = u[0]; if (!(x >> 32)) return 0; b[0] = ({w32})x; for (int k = 1; k < {words}; ++k) {{ do {{ x = u[k]; }} while (!(x >> 32)); b[k] = ({w32})x; }} for (int k = 0; k < {size}; ++k) ((unsigned char*)v)[k] = ((const unsigned char*)b)[k]; return 1; }}"
        );
    }

    /// `_sv[tid]` set to the block's inclusive scan of the threads' totals `total`, ending in
    /// a barrier: a scan in shared memory (on an H100, warp shuffles measured slower here).
    fn block_scan(&self, s: &mut String, dialect: Dialect, total: &str) {
        let t = dialect.table();
        let id = identity(self.combine, self.acc, dialect);
        let _ = writeln!(s, "    _sv[_tid] = {total};\n    {};", t.barrier);
        if self.cpu {
            let _ = writeln!(
                s,
                "    if (_tid == 0) for (int _o = 1; _o < {BLOCK}; ++_o) _sv[_o] = _combine(_sv[_o - 1], _sv[_o]);\n    {};",
                t.barrier
            );
        } else {
            let _ = writeln!(s, "    for (int _o = 1; _o < {BLOCK}; _o <<= 1) {{");
            let _ = writeln!(
                s,
                "      const _acc_t _u = _tid >= _o ? _sv[_tid - _o] : {id};"
            );
            let _ = writeln!(s, "      {};", t.barrier);
            let _ = writeln!(
                s,
                "      if (_tid >= _o) _sv[_tid] = _combine(_u, _sv[_tid]);"
            );
            let _ = writeln!(s, "      {};\n    }}", t.barrier);
        }
    }

    /// The look-back, after the tile's own scan: thread 0 publishes the tile's total (the
    /// inclusive prefix, for a line's first tile); the block then reads its predecessors'
    /// statuses a window at a time ([`ScanKernel::window`]); then thread 0 publishes the
    /// tile's own inclusive prefix. `_sc` ends as the tile's exclusive prefix.
    fn look_back(&self, s: &mut String, dialect: Dialect) {
        let words = self.words();
        let _ = writeln!(s, "    const _acc_t _agg = _sv[{}];", BLOCK - 1);
        // A line's first tile publishes its total as an inclusive prefix; the line's last
        // tile has no successor to publish for.
        let _ = writeln!(
            s,
            "    if (_tid == 0 && _part + 1 < _tpl) _wput({} + (_part == 0 ? {words} : 0), _agg);",
            self.slot("_t", false)
        );
        self.window(s, dialect);
        let _ = writeln!(
            s,
            "    if (_tid == 0 && _part > 0 && _part + 1 < _tpl) _wput({}, _combine(_sc, _agg));",
            self.slot("_t", true)
        );
    }

    /// Where tile `q`'s total (or inclusive prefix) is in the status words `w`.
    fn slot(&self, q: &str, inclusive: bool) -> String {
        let words = self.words();
        format!(
            "w + 1 + ({q}) * {} + {}",
            2 * words,
            if inclusive { words } else { 0 }
        )
    }

    /// The statements in which lane `_lane` reads tile `_q`'s status (spinning until it has
    /// one) into `_val`, `_kind` 2 for an inclusive prefix, 1 for a total; a tile before
    /// the line's start reads as nothing (0).
    fn read_status(&self, dialect: Dialect) -> String {
        let i64t = dialect.table().int64;
        let id = identity(self.combine, self.acc, dialect);
        format!(
            "const {i64t} _q = _top - _lane; _acc_t _val = {id}; int _kind = 0;\n      while (!_kind && _q >= _t - _part) {{ if (_wget({}, &_val)) _kind = 2; else if (_wget({}, &_val)) _kind = 1; }}",
            self.slot("_q", true),
            self.slot("_q", false)
        )
    }

    /// The look-back in windows of [`WINDOW`] predecessors: thread `k` reads the status of
    /// the tile `k + 1` before the window's top, then thread 0 folds the window nearest first
    /// up to its nearest inclusive prefix (else the window moves back). (Measured on an H100
    /// with NVIDIA's OpenCL: 32 fastest. CUDA scans striped, by warps.)
    fn window(&self, s: &mut String, dialect: Dialect) {
        let t = dialect.table();
        let i64t = t.int64;
        let id = identity(self.combine, self.acc, dialect);
        let lanes = WINDOW;
        let _ = writeln!(
            s,
            "    if (_tid == 0) {{ _sc = {id}; _sdone = _part == 0; }}\n    {};",
            t.barrier
        );
        let _ = writeln!(
            s,
            "    for ({i64t} _top = _t - 1; !_sdone; _top -= {lanes}) {{"
        );
        let _ = writeln!(s, "      if (_tid < {lanes}) {{");
        let _ = writeln!(s, "        const int _lane = _tid;");
        let _ = writeln!(s, "        {}", self.read_status(dialect));
        let _ = writeln!(s, "        _lk[_tid] = _kind == 2; _lv[_tid] = _val;");
        let _ = writeln!(s, "      }}\n      {};", t.barrier);
        // The nearer tiles' values absorb the farther ones' until one holds an inclusive
        // prefix; the farther values come first (they are earlier). No `break` here: PoCL runs a loop that breaks inside a loop with barriers once per
        // work-item.
        let _ = writeln!(
            s,
            "      if (_tid == 0) {{ int _g = 0; _acc_t _x = {id}; for (int _k = 0; _k < {lanes}; ++_k) if (!_g) {{ _x = _combine(_lv[_k], _x); _g = _lk[_k]; }} _sc = _combine(_x, _sc); _sdone = _g; }}\n      {};",
            t.barrier
        );
        let _ = writeln!(s, "    }}");
    }

    fn rows_body(&self, s: &mut String, dialect: Dialect) {
        let items = self.items;
        let tile = BLOCK * items;
        let t = dialect.table();
        let i64t = t.int64;
        let id = identity(self.combine, self.acc, dialect);
        let add = t.atomics.functions[0].2;
        // Shared tile, padded one slot in 32 so that a thread's consecutive items fall in
        // different banks.
        if !self.cpu {
            let _ = writeln!(s, "  {} _acc_t _sx[{}];", t.shared, tile + tile / 32);
        }
        let _ = writeln!(s, "  {} _acc_t _sv[{BLOCK}];", t.shared);
        let _ = writeln!(s, "  {} _acc_t _sc;", t.shared);
        let lanes = WINDOW;
        let _ = writeln!(s, "  {} _acc_t _lv[{lanes}];", t.shared);
        let _ = writeln!(s, "  {} int _lk[{lanes}];", t.shared);
        let _ = writeln!(s, "  {} int _sdone;", t.shared);
        let _ = writeln!(s, "  {} {i64t} _st;", t.shared);
        let _ = writeln!(s, "  const {i64t} _tiles = _m * _tpl;");
        let _ = writeln!(
            s,
            "  for ({i64t} _it = {}; ; _it += {}) {{",
            t.group_id[0], t.num_groups[0]
        );
        // A line of one tile looks back at nothing: its tiles go in any order.
        let _ = writeln!(s, "    {i64t} _t = _it;");
        let _ = writeln!(
            s,
            "    if (_tpl > 1) {{ if (_tid == 0) _st = ({i64t}){add}(w, ({})1); {}; _t = _st; }}",
            t.atomics.words[1], t.barrier
        );
        let _ = writeln!(s, "    if (_t >= _tiles) break;");
        let _ = writeln!(
            s,
            "    const {i64t} _i = _t / _tpl, _part = _t % _tpl, _base = _part * {tile};"
        );
        let _ = writeln!(
            s,
            "    const {i64t} _len = _n - _base < {tile} ? _n - _base : {tile};"
        );
        let _ = writeln!(s, "    {}", self.line("_i", dialect));
        // GPUs stage the tile in shared memory so that loads and stores coalesce; a CPU's
        // thread reads its own consecutive elements.
        let own = |k: usize| format!("_tid * {items} + {k}");
        if self.cpu {
            for k in 0..items {
                let prev = if k == 0 {
                    id.clone()
                } else {
                    format!("_v{}", k - 1)
                };
                let e = own(k);
                let _ = writeln!(
                    s,
                    "    _acc_t _v{k} = {e} < _len ? _combine({prev}, {}) : {prev};",
                    self.element(&format!("_base + {e}"), dialect)
                );
            }
        } else {
            for k in 0..items {
                let e = format!("{} + _tid", k * BLOCK);
                let _ = writeln!(
                    s,
                    "    _sx[_pad({e})] = {e} < _len ? {} : {id};",
                    self.element(&format!("_base + {e}"), dialect)
                );
            }
            let _ = writeln!(s, "    {};", t.barrier);
            let _ = writeln!(s, "    _acc_t _v0 = _sx[_pad({})];", own(0));
            for k in 1..items {
                let _ = writeln!(
                    s,
                    "    _acc_t _v{k} = _combine(_v{}, _sx[_pad({})]);",
                    k - 1,
                    own(k)
                );
            }
        }
        self.block_scan(s, dialect, &format!("_v{}", items - 1));
        self.look_back(s, dialect);
        let _ = writeln!(
            s,
            "    const _acc_t _e0 = _combine(_sc, _tid > 0 ? _sv[_tid - 1] : {id});"
        );
        if self.cpu {
            for k in 0..items {
                let e = own(k);
                let _ = writeln!(
                    s,
                    "    if ({e} < _len) {{ {} }}",
                    self.write(
                        &format!("_base + {e}"),
                        &format!("_combine(_e0, _v{k})"),
                        dialect
                    )
                );
            }
        } else {
            for k in 0..items {
                let _ = writeln!(s, "    _sx[_pad({})] = _combine(_e0, _v{k});", own(k));
            }
            let _ = writeln!(s, "    {};", t.barrier);
            for k in 0..items {
                let e = format!("{} + _tid", k * BLOCK);
                let _ = writeln!(
                    s,
                    "    if ({e} < _len) {{ {} }}",
                    self.write(&format!("_base + {e}"), &format!("_sx[_pad({e})]"), dialect)
                );
            }
        }
        let _ = writeln!(s, "    {};\n  }}", t.barrier);
    }

    fn columns_body(&self, s: &mut String, dialect: Dialect) {
        let t = dialect.table();
        let i64t = t.int64;
        let id = identity(self.combine, self.acc, dialect);
        let _ = writeln!(s, "  const {i64t} _s = {};", t.group_id[1]);
        let _ = writeln!(s, "  const {i64t} _j0 = _s * _chunk;");
        let _ = writeln!(
            s,
            "  const {i64t} _j1 = _j0 + _chunk < _n ? _j0 + _chunk : _n;"
        );
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
            items: SCAN_ITEMS,
            striped: false,
            vector_in: false,
            vector_out: false,
        }
    }

    #[test]
    fn rows_scan_tiles_and_look_back_at_their_predecessors() {
        let src = cumsum(Layout::Rows, false).source(Dialect::OpenCl);
        // Tickets order the tiles; a tile publishes its total, reads a window of
        // predecessors at once, then publishes its inclusive prefix.
        assert!(src.contains("_st = (long)atom_add(w, (ulong)1)"), "{src}");
        assert!(
            src.contains("_wput(w + 1 + (_t) * 4 + 0 + (_part == 0 ? 2 : 0), _agg)"),
            "{src}"
        );
        assert!(
            src.contains("if (_wget(w + 1 + (_q) * 4 + 2, &_val)) _kind = 2;"),
            "{src}"
        );
        assert!(
            src.contains("_wput(w + 1 + (_t) * 4 + 2, _combine(_sc, _agg))"),
            "{src}"
        );
        assert!(
            src.contains("if (_tid >= _o) _sv[_tid] = _combine(_u, _sv[_tid]);"),
            "{src}"
        );
        assert!(
            src.contains("*(y + _ob + (_base + 1792 + _tid) * _inner) ="),
            "{src}"
        );
    }

    #[test]
    fn look_back_windows_are_32_tiles_folded_by_one_thread() {
        let cl = cumsum(Layout::Rows, false).source(Dialect::OpenCl);
        assert!(cl.contains("_top -= 32"), "{cl}");
        assert!(
            cl.contains("for (int _k = 0; _k < 32; ++_k) if (!_g)"),
            "{cl}"
        );
    }

    #[test]
    fn striped_rows_scan_by_warps_and_look_back_with_a_ballot() {
        let k = ScanKernel {
            input: DType::F32,
            acc: DType::F32,
            output: DType::F32,
            items: 32,
            striped: true,
            vector_in: true,
            vector_out: true,
            ..cumsum(Layout::Rows, false)
        };
        let src = k.source(Dialect::Cuda);
        assert!(src.contains("__launch_bounds__(512, 2)"), "{src}");
        // Group 1 of a lane: 32 groups of 4 past group 0 of its warp, loaded as a float4.
        assert!(
            src.contains("reinterpret_cast<const float4*>(((const float*)((const char*)x + _ko) + _wb))[32 + _lane]"),
            "{src}"
        );
        assert!(src.contains("_shfl_up(_s7, _o)"), "{src}");
        assert!(
            src.contains("__ballot_sync(0xffffffffu, _kind == 2)"),
            "{src}"
        );
        assert!(
            src.contains("const int _stop = _pm ? (__ffs(_pm) - 1) : 31;"),
            "{src}"
        );
        assert!(!src.contains("atomicAdd"), "tiles go in block order: {src}");
        assert!(src.contains("_w.w = _combine(_p7, _v7_3);"), "{src}");
        // Unaligned lines read element by element.
        let plain = ScanKernel {
            vector_in: false,
            vector_out: false,
            ..k
        }
        .source(Dialect::Cuda);
        assert!(!plain.contains("float4"), "{plain}");
        assert!(
            plain.contains("if (_wb + (32 + _lane) * 4 + 3 < _n)"),
            "{plain}"
        );
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
