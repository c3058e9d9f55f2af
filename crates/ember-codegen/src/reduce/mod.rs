//! Array reductions (`sum prod max min argmax argmin any all`, and the passes behind `mean var
//! std`): kernel source in either dialect, one emitter.
//!
//! A kernel reduces `m` outputs over `n` elements each. Output `i` sits at byte offset
//! `kept(i)` of the input, its `j`-th element at `kept(i) + reduced(j)`, where `kept` and
//! `reduced` unravel the index over their axes (`_kn*`/`_ks*` and `_rn*`/`_rs*`: extents and
//! byte strides). The reduced range may be split over the second grid axis: split `s` takes
//! elements `[s * chunk, (s + 1) * chunk)` and writes a *partial* result at `s * m + i`, which
//! a second kernel (map [`Map::Partial`]) reduces.
//!
//! Threads map onto the work by layout:
//! - [`Layout::Rows`] (the reduced axis is the contiguous one): `tpr` threads share each
//!   output, striding along it (vector loads when it is contiguous and aligned), then combine
//!   through warp shuffles (CUDA) or a tree in local memory (OpenCL); on CPUs each thread takes
//!   a contiguous range and one thread combines ([`ReduceKernel::cpu`]).
//! - [`Layout::Columns`] (reducing across the contiguous axis): neighbouring threads own
//!   neighbouring outputs (coalesced; [`VECTOR`] outputs each with vector loads when
//!   contiguous), [`COLUMN_LANES`] threads per output stride down the reduced elements, then
//!   combine in a tree in shared memory. On CPUs each work-item owns [`CPU_COLUMNS`]
//!   neighbouring outputs and walks the reduced elements once for all of them.
//!
//! Parameters, in order: `x` (the input or the partial values), `xi` (partial indices, arg
//! reductions of partials), `mu` (per-output means, centred squares), `y` (outputs or partial
//! values), `yi` (partial indices, arg reductions writing partials) — each buffer followed by
//! its byte offset on OpenCL — then `m n chunk tpr` (int64), `divisor` (double), then the kept
//! extents and strides and the reduced extents and strides (int64).

use std::fmt::Write;

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::dialect::Dialect;
use crate::prelude::prelude_for;
use crate::types::{cast, complex_product, component, load, storage_type, store, value_type};

mod columns;
mod columns_cpu;
mod rows;

pub use columns_cpu::CPU_COLUMNS;

/// Threads per block of every reduction kernel.
pub const BLOCK: usize = 256;

/// Threads per output in [`Layout::Columns`].
pub const COLUMN_LANES: usize = 8;

/// Elements per vector load.
pub const VECTOR: usize = 4;

/// Vector loads each thread issues before using them in the vector loops, on GPUs (loads in
/// flight make the bandwidth).
pub const UNROLL: usize = 4;

/// How two values combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combine {
    Add,
    Multiply,
    /// NumPy's `maximum`: NaN propagates.
    Max,
    Min,
    /// The first index of the maximum (of the first NaN, if any).
    ArgMax,
    ArgMin,
    /// Logical or / and of non-zero tests.
    Or,
    And,
}

impl Combine {
    /// True for reductions that find an index.
    pub fn is_arg(self) -> bool {
        matches!(self, Combine::ArgMax | Combine::ArgMin)
    }

    fn name(self) -> &'static str {
        match self {
            Combine::Add => "add",
            Combine::Multiply => "mul",
            Combine::Max => "max",
            Combine::Min => "min",
            Combine::ArgMax => "argmax",
            Combine::ArgMin => "argmin",
            Combine::Or => "or",
            Combine::And => "and",
        }
    }

    /// The combination accumulating in `acc` performs (sums of bools are ors, as in NumPy).
    pub fn on(self, acc: DType) -> Combine {
        match (self, acc) {
            (Combine::Add, DType::Bool) => Combine::Or,
            (Combine::Multiply, DType::Bool) => Combine::And,
            (c, _) => c,
        }
    }
}

/// What an element becomes before it is combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Map {
    /// The element, converted to the accumulator type (a non-zero test for `Or`/`And`).
    Value,
    /// `|x - mu[i]|^2` with `x` converted to `mean` first: variance's second pass.
    CenteredSquare { mean: DType },
    /// A partial result of an earlier split kernel (with its index, for arg reductions).
    Partial,
    /// 1 where the element is not zero, else 0 (`count_nonzero`).
    NonZero,
    /// The element, with NaN read as 0 (`nansum`).
    NanAsZero,
    /// The pair (element, 1) as a complex accumulator, (0, 0) where the element is NaN:
    /// `nanmean`'s sum and count in one pass.
    NanSumCount,
}

/// What is done to a combined result before it is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Post {
    Keep,
    /// Divided by the `divisor` parameter (mean, variance).
    Divide,
    /// Divided, then the square root (standard deviation).
    DivideSqrt,
}

/// How threads map onto outputs and elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    Rows,
    Columns,
}

/// One reduction kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReduceKernel {
    pub combine: Combine,
    /// The dtype of `x` (the accumulator's, for [`Map::Partial`]).
    pub input: DType,
    /// What values accumulate in.
    pub acc: DType,
    /// The dtype of `y` when writing results (int64 for arg reductions).
    pub output: DType,
    pub map: Map,
    pub post: Post,
    /// Writes partial results (accumulator dtype, and indices) for a later pass.
    pub partial: bool,
    pub layout: Layout,
    /// Vector loads: the reduced axis (rows) or the kept axis (columns) is contiguous and
    /// 16-byte aligned, the input dtype [`vector_loadable`], and one axis on each side.
    pub vector: bool,
    /// Axes the output and the element indices unravel over (at least 1 each).
    pub out_ndim: usize,
    pub red_ndim: usize,
    /// Tuned for a CPU device, which runs a block's threads one after another: each thread
    /// walks a contiguous range of its own (whole cache lines to one thread), loops are not
    /// unrolled, and one thread combines the block's results in the same pairwise order after
    /// a single barrier (several times faster for PoCL to compile than a tree of barriers).
    /// GPUs stride threads over neighbouring elements, keep [`UNROLL`] loads in flight and
    /// combine in trees.
    pub cpu: bool,
}

pub use crate::user_kernel::vector_loadable;

/// The literal of the smallest (`low`) or largest value of a real or integer dtype.
fn extreme(dtype: DType, low: bool, dialect: Dialect) -> String {
    let inf = dialect.table().infinity;
    let lit = match (dtype, low) {
        // A float infinity converts exactly to double.
        (d, true) if d.is_float() => return format!("-{inf}"),
        (d, false) if d.is_float() => return inf.to_string(),
        (DType::Bool | DType::U8 | DType::U16 | DType::U32 | DType::U64, true) => "0",
        (DType::Bool, false) => "1",
        (DType::U8, false) => "255",
        (DType::U16, false) => "65535",
        (DType::U32, false) => "0xffffffffu",
        (DType::U64, false) => "0xffffffffffffffff",
        (DType::I8, true) => "-128",
        (DType::I8, false) => "127",
        (DType::I16, true) => "-32768",
        (DType::I16, false) => "32767",
        (DType::I32, true) => "(-2147483647 - 1)",
        (DType::I32, false) => "2147483647",
        (DType::I64, true) => "(-0x7fffffffffffffff - 1)",
        (DType::I64, false) => "0x7fffffffffffffff",
        // Floats returned above.
        (_, _) => "0",
    };
    lit.to_string()
}

/// The value that leaves any other unchanged under `combine`, in type `acc`.
pub fn identity(combine: Combine, acc: DType, dialect: Dialect) -> String {
    let vt = value_type(acc, dialect);
    let make = |re: &str, im: &str| format!("ember_make_{}({re}, {im})", acc.name());
    match (combine.on(acc), acc.is_complex()) {
        (Combine::Add | Combine::Or, true) => make("0", "0"),
        (Combine::Multiply | Combine::And, true) => make("1", "0"),
        (Combine::Add | Combine::Or, false) => format!("(({vt})0)"),
        (Combine::Multiply | Combine::And, false) => format!("(({vt})1)"),
        (Combine::Max | Combine::ArgMax, true) => {
            let l = extreme(component(acc), true, dialect);
            make(&l, &l)
        }
        (Combine::Min | Combine::ArgMin, true) => {
            let h = extreme(component(acc), false, dialect);
            make(&h, &h)
        }
        (Combine::Max | Combine::ArgMax, false) => {
            format!("(({vt}){})", extreme(acc, true, dialect))
        }
        (Combine::Min | Combine::ArgMin, false) => {
            format!("(({vt}){})", extreme(acc, false, dialect))
        }
    }
}

impl ReduceKernel {
    /// A name that says what the kernel does.
    pub fn name(&self) -> String {
        let layout = match (self.layout, self.vector) {
            (Layout::Rows, false) => "rows",
            (Layout::Rows, true) => "rows4",
            (Layout::Columns, false) => "cols",
            (Layout::Columns, true) => "cols4",
        };
        let map = match self.map {
            Map::Value => "",
            Map::CenteredSquare { .. } => "_sq",
            Map::Partial => "_fin",
            Map::NonZero => "_nz",
            Map::NanAsZero => "_nan0",
            Map::NanSumCount => "_nansc",
        };
        format!(
            "ember_reduce_{}_{}_{}{map}{}_{layout}{}{}",
            self.combine.name(),
            self.input.name(),
            self.acc.name(),
            if self.partial { "_part" } else { "" },
            self.out_ndim,
            self.red_ndim
        )
    }

    /// The buffer parameters, in order: (name, storage dtype, read-only).
    fn buffers(&self) -> Vec<(&'static str, DType, bool)> {
        let arg = self.combine.is_arg();
        let mut out = vec![("x", self.input, true)];
        if arg && self.map == Map::Partial {
            out.push(("xi", DType::I64, true));
        }
        if let Map::CenteredSquare { mean } = self.map {
            out.push(("mu", mean, true));
        }
        let y = if self.partial {
            self.acc
        } else if arg {
            DType::I64
        } else {
            self.output
        };
        out.push(("y", y, false));
        if arg && self.partial {
            out.push(("yi", DType::I64, false));
        }
        out
    }

    /// The kernel's source in `dialect`.
    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let i64t = t.int64;
        let g = t.global;
        let mut dtypes = vec![self.input, self.acc, self.output];
        if let Map::CenteredSquare { mean } = self.map {
            dtypes.push(mean);
        }
        let mut s = prelude_for(dialect, dtypes);
        self.helpers(&mut s, dialect);
        let mut params = Vec::new();
        for (name, dtype, read_only) in self.buffers() {
            let c = if read_only { "const " } else { "" };
            params.push(format!("{g}{c}{}* {name}", storage_type(dtype, dialect)));
            if t.buffer_offsets {
                params.push(format!("{i64t} _{name}_o"));
            }
        }
        for p in ["_m", "_n", "_chunk", "_tpr"] {
            params.push(format!("{i64t} {p}"));
        }
        params.push("double _divisor".into());
        for (prefix, ndim) in [("_k", self.out_ndim), ("_r", self.red_ndim)] {
            params.extend((0..ndim).map(|d| format!("{i64t} {prefix}n{d}")));
            params.extend((0..ndim).map(|d| format!("{i64t} {prefix}s{d}")));
        }
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
        let lanes = match self.layout {
            Layout::Rows => BLOCK,
            Layout::Columns if self.vector => BLOCK * VECTOR,
            Layout::Columns => BLOCK,
        };
        let _ = writeln!(s, "  {} _acc_t _sv[{lanes}];", t.shared);
        if self.combine.is_arg() {
            let _ = writeln!(s, "  {} {i64t} _si[{lanes}];", t.shared);
        }
        let _ = writeln!(s, "  const int _tid = {};", t.local_id);
        let _ = writeln!(s, "  const {i64t} _s = {};", t.group_id[1]);
        let _ = writeln!(s, "  const {i64t} _j0 = _s * _chunk;");
        let _ = writeln!(
            s,
            "  const {i64t} _j1 = _j0 + _chunk < _n ? _j0 + _chunk : _n;"
        );
        match (self.layout, self.cpu) {
            (Layout::Rows, _) => self.rows_body(&mut s, dialect),
            (Layout::Columns, false) => self.columns_body(&mut s, dialect),
            (Layout::Columns, true) => self.columns_cpu_body(&mut s, dialect),
        }
        s.push_str("}\n");
        s
    }

    /// Type names and the combining functions the body calls.
    pub(crate) fn helpers(&self, s: &mut String, dialect: Dialect) {
        let t = dialect.table();
        let f = t.device_fn;
        let acc = self.acc;
        let vt = value_type(acc, dialect);
        let _ = writeln!(s, "typedef {vt} _acc_t;");
        let _ = writeln!(s, "typedef {} _idx_t;", t.int64);
        let combine = self.combine.on(acc);
        let complex = acc.is_complex();
        let make = format!("ember_make_{}", acc.name());
        let nan = match acc.kind() {
            Kind::Complex => "v.x != v.x || v.y != v.y",
            Kind::Float => "v != v",
            _ => "0",
        };
        let _ = writeln!(s, "{f} int _nan(_acc_t v) {{ return {nan}; }}");
        let (gt, eq) = if complex {
            (
                "a.x > b.x || (a.x == b.x && a.y > b.y)",
                "a.x == b.x && a.y == b.y",
            )
        } else {
            ("a > b", "a == b")
        };
        let _ = writeln!(
            s,
            "{f} int _gt(_acc_t a, _acc_t b) {{ return {gt}; }}\n{f} int _eq(_acc_t a, _acc_t b) {{ return {eq}; }}"
        );
        let body = match combine {
            Combine::Add if complex => format!("{make}(a.x + b.x, a.y + b.y)"),
            Combine::Multiply if complex => complex_product("a", "b", &make),
            Combine::Add => "(_acc_t)(a + b)".into(),
            // Small unsigned types would multiply as (signed) int and could overflow.
            Combine::Multiply if acc.kind() == Kind::UInt && acc.itemsize() < 4 => {
                "(_acc_t)((unsigned int)a * (unsigned int)b)".into()
            }
            Combine::Multiply => "(_acc_t)(a * b)".into(),
            Combine::Max | Combine::ArgMax => {
                "(_nan(a) || (!_nan(b) && (_gt(a, b) || _eq(a, b)))) ? a : b".into()
            }
            Combine::Min | Combine::ArgMin => {
                "(_nan(a) || (!_nan(b) && !_gt(a, b))) ? a : b".into()
            }
            Combine::Or => "(_acc_t)(a | b)".into(),
            Combine::And => "(_acc_t)(a & b)".into(),
        };
        let _ = writeln!(
            s,
            "{f} _acc_t _combine(_acc_t a, _acc_t b) {{ return {body}; }}"
        );
        if self.combine.is_arg() {
            // Whether (b, ib) should replace (a, ia): NaN first, then the extreme value,
            // ties to the lower index, so any combining order finds NumPy's answer.
            let better = if self.combine == Combine::ArgMax {
                "_gt(b, a)"
            } else {
                "_gt(a, b)"
            };
            let _ = writeln!(
                s,
                "{f} int _take(_acc_t a, _idx_t ia, _acc_t b, _idx_t ib) {{ const int an = _nan(a), bn = _nan(b); if (an || bn) return bn && (!an || ib < ia); return {better} || (_eq(a, b) && ib < ia); }}"
            );
        }
        if let Map::CenteredSquare { mean } = self.map {
            let mt = value_type(mean, dialect);
            let sq = if mean.is_complex() {
                "(_acc_t)(d.x * d.x + d.y * d.y)"
            } else {
                "(_acc_t)(d * d)"
            };
            let _ = writeln!(s, "{f} _acc_t _sq({mt} d) {{ return {sq}; }}");
        }
        if let Some(shuffle) = t.shuffle_xor {
            shuffle_fn(s, dialect, acc, "_shfl", shuffle);
            let sh = |v: &str| shuffle.replace("{value}", v).replace("{lane}", "o");
            if self.combine.is_arg() {
                let _ = writeln!(
                    s,
                    "{f} _idx_t _shfl_idx(_idx_t v, int o) {{ return {}; }}",
                    sh("v")
                );
            }
        }
    }

    /// Statement folding the value `value` at index `index` into accumulator `a` (and `ai`).
    fn fold(&self, a: &str, value: &str, index: &str) -> String {
        self.fold_pair(a, &format!("{a}i"), value, index)
    }

    /// [`Self::fold`] into accumulator `a` whose index (arg reductions) is `ai`.
    fn fold_pair(&self, a: &str, ai: &str, value: &str, index: &str) -> String {
        if self.combine.is_arg() {
            format!("{{ const _acc_t _e = {value}; const _idx_t _ei = {index}; if (_take({a}, {ai}, _e, _ei)) {{ {a} = _e; {ai} = _ei; }} }}")
        } else {
            format!("{a} = _combine({a}, {value});")
        }
    }

    /// Statement merging accumulator `b` (and `bi`) into `a`.
    fn merge(&self, a: &str, b: &str) -> String {
        if self.combine.is_arg() {
            format!("if (_take({a}, {a}i, {b}, {b}i)) {{ {a} = {b}; {a}i = {b}i; }}")
        } else {
            format!("{a} = _combine({a}, {b});")
        }
    }

    /// Declaration of accumulator `a` (and `ai`) at the identity.
    fn declare(&self, a: &str, dialect: Dialect) -> String {
        let id = identity(self.combine, self.acc, dialect);
        if self.combine.is_arg() {
            format!("_acc_t {a} = {id}; _idx_t {a}i = (_idx_t)0x7fffffffffffffff;")
        } else {
            format!("_acc_t {a} = {id};")
        }
    }

    /// The mapped value of a loaded element `x` (a value expression of the input dtype).
    fn mapped(&self, x: &str, mu: &str, dialect: Dialect) -> String {
        let one_or_zero = |test: String| format!("(({test}) ? (_acc_t)1 : (_acc_t)0)");
        let nan = match self.input.kind() {
            Kind::Complex => Some(format!("(isnan(({x}).x) || isnan(({x}).y))")),
            Kind::Float => Some(format!("isnan({x})")),
            _ => None,
        };
        match self.map {
            Map::Value | Map::Partial => cast(x, self.input, self.acc, dialect),
            Map::CenteredSquare { mean } => {
                format!("_sq({} - {mu})", cast(x, self.input, mean, dialect))
            }
            Map::NonZero => one_or_zero(match self.input.kind() {
                Kind::Complex => format!("({x}).x != 0 || ({x}).y != 0"),
                _ => format!("({x}) != 0"),
            }),
            Map::NanAsZero => match nan {
                Some(test) => format!(
                    "({test} ? {} : {})",
                    identity(Combine::Add, self.acc, dialect),
                    cast(x, self.input, self.acc, dialect)
                ),
                None => cast(x, self.input, self.acc, dialect),
            },
            Map::NanSumCount => {
                let make = format!("ember_make_{}", self.acc.name());
                let part = component(self.acc);
                let value = cast(x, self.input, part, dialect);
                let pair = format!("{make}({value}, ({})1)", value_type(part, dialect));
                match nan {
                    Some(test) => format!(
                        "({test} ? {} : {pair})",
                        identity(Combine::Add, self.acc, dialect)
                    ),
                    None => pair,
                }
            }
        }
    }

    /// Pointer to the input element at byte offset `off`.
    fn element(&self, off: &str, dialect: Dialect) -> String {
        let g = dialect.table().global;
        let st = storage_type(self.input, dialect);
        format!("({g}const {st}*)(({g}const char*)x + ({off}))")
    }

    /// Statement folding the input element at byte offset `off` (reduced index `j`) into `a`.
    fn fold_element(&self, a: &str, off: &str, j: &str, mu: &str, dialect: Dialect) -> String {
        self.fold_element_pair(a, &format!("{a}i"), off, j, mu, dialect)
    }

    /// [`Self::fold_element`] into accumulator `a` whose index is `ai`.
    fn fold_element_pair(
        &self,
        a: &str,
        ai: &str,
        off: &str,
        j: &str,
        mu: &str,
        dialect: Dialect,
    ) -> String {
        let x = load(self.input, dialect, &self.element(off, dialect));
        let index = if self.map == Map::Partial {
            format!("xi[({off}) / {}]", self.input.itemsize())
        } else {
            j.to_string()
        };
        self.fold_pair(a, ai, &self.mapped(&x, mu, dialect), &index)
    }

    /// Statement storing accumulator `a` as output `i` (a result, or split `_s`'s partial).
    fn write(&self, a: &str, i: &str, dialect: Dialect) -> String {
        self.write_pair(a, &format!("{a}i"), i, dialect)
    }

    /// [`Self::write`] of accumulator `a` whose index is `ai`.
    fn write_pair(&self, a: &str, ai: &str, i: &str, dialect: Dialect) -> String {
        if self.partial {
            let at = format!("_s * _m + {i}");
            let mut w = store(self.acc, dialect, &format!("y + {at}"), a);
            if self.combine.is_arg() {
                let _ = write!(w, " yi[{at}] = {ai};");
            }
            return w;
        }
        if self.combine.is_arg() {
            return format!("y[{i}] = {ai};");
        }
        let acc = self.acc;
        let divided = match acc.kind() {
            Kind::Complex => {
                let part = value_type(component(acc), dialect);
                format!(
                    "ember_make_{}({a}.x / ({part})_divisor, {a}.y / ({part})_divisor)",
                    acc.name()
                )
            }
            Kind::Float => format!("{a} / (_acc_t)_divisor"),
            _ => format!("(_acc_t)((double){a} / _divisor)"),
        };
        let value = match self.post {
            Post::Keep => a.to_string(),
            Post::Divide => divided,
            Post::DivideSqrt if acc.kind() == Kind::Float => format!("sqrt({divided})"),
            Post::DivideSqrt => format!("(_acc_t)sqrt((double){a} / _divisor)"),
        };
        store(
            self.output,
            dialect,
            &format!("y + {i}"),
            &cast(&format!("({value})"), acc, self.output, dialect),
        )
    }

    /// Statements setting `var` to the byte offset of index `index` over axes `prefix`.
    fn offset(&self, var: &str, index: &str, prefix: &str, dialect: Dialect) -> String {
        let i64t = dialect.table().int64;
        let ndim = if prefix == "_k" {
            self.out_ndim
        } else {
            self.red_ndim
        };
        if ndim <= 1 {
            return format!("const {i64t} {var} = ({index}) * {prefix}s0;");
        }
        let mut s = format!("{i64t} {var} = 0; {{ {i64t} _q = {index};");
        for d in (0..ndim).rev() {
            let _ = write!(s, " {var} += (_q % {prefix}n{d}) * {prefix}s{d};");
            if d > 0 {
                let _ = write!(s, " _q /= {prefix}n{d};");
            }
        }
        s.push_str(" }");
        s
    }

    /// Statement declaring `_mu` for output `i` (centred squares only).
    fn mean_of(&self, i: &str, dialect: Dialect) -> String {
        match self.map {
            Map::CenteredSquare { mean } => format!(
                "const {} _mu = {};",
                value_type(mean, dialect),
                load(mean, dialect, &format!("mu + {i}"))
            ),
            _ => String::new(),
        }
    }

    /// Opens the loop (closed by a `}`) over this thread's share of `[start, end)` as `var`:
    /// every `tpr`-th element on GPUs (neighbouring threads read neighbouring elements), a
    /// contiguous range on CPUs.
    fn share(&self, var: &str, start: &str, end: &str, i64t: &str) -> String {
        if !self.cpu {
            return format!(
                "for ({i64t} {var} = ({start}) + _t; {var} < ({end}); {var} += _tpr) {{"
            );
        }
        let per = format!("_per{var}");
        let last = format!("_end{var}");
        format!(
            "const {i64t} {per} = (({end}) - ({start}) + _tpr - 1) / _tpr; const {i64t} {last} = ({start}) + (_t + 1) * {per} < ({end}) ? ({start}) + (_t + 1) * {per} : ({end});\n      for ({i64t} {var} = ({start}) + _t * {per}; {var} < {last}; ++{var}) {{"
        )
    }

    /// Statement merging shared slot `b` into shared slot `a` (serial combining).
    fn serial_step(&self, a: &str, b: &str) -> String {
        let mut s = format!("_acc_t _x = _sv[{a}]; const _acc_t _b = _sv[{b}];");
        if self.combine.is_arg() {
            let _ = write!(s, " _idx_t _xi = _si[{a}]; const _idx_t _bi = _si[{b}];");
        }
        let _ = write!(s, " {} _sv[{a}] = _x;", self.merge("_x", "_b"));
        if self.combine.is_arg() {
            let _ = write!(s, " _si[{a}] = _xi;");
        }
        s
    }
}

/// Defines `_acc_t {name}(_acc_t v, int o)`: `shuffle` (a warp operation's template, of
/// `{value}` and `{lane}`) applied to an accumulator, a complex one part by part and a small
/// one as an `int`.
pub(crate) fn shuffle_fn(s: &mut String, dialect: Dialect, acc: DType, name: &str, shuffle: &str) {
    let f = dialect.table().device_fn;
    let sh = |v: &str| shuffle.replace("{value}", v).replace("{lane}", "o");
    let body = if acc.is_complex() {
        let make = format!("ember_make_{}", acc.name());
        format!("return {make}({}, {});", sh("v.x"), sh("v.y"))
    } else if acc.itemsize() < 4 {
        format!("return (_acc_t){};", sh("(int)v"))
    } else {
        format!("return {};", sh("v"))
    };
    let _ = writeln!(s, "{f} _acc_t {name}(_acc_t v, int o) {{ {body} }}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum_f32(layout: Layout, vector: bool) -> ReduceKernel {
        ReduceKernel {
            combine: Combine::Add,
            input: DType::F32,
            acc: DType::F32,
            output: DType::F32,
            map: Map::Value,
            post: Post::Keep,
            partial: false,
            layout,
            vector,
            out_ndim: 1,
            red_ndim: 1,
            cpu: false,
        }
    }

    #[test]
    fn cpus_combine_in_one_thread_after_one_barrier() {
        let mut k = sum_f32(Layout::Rows, true);
        k.combine = Combine::Max;
        k.cpu = true;
        let cl = k.source(Dialect::OpenCl);
        assert_eq!(cl.matches("barrier(").count(), 2, "{cl}");
        assert!(!cl.contains("_l1_"), "{cl}");
        assert!(
            cl.contains("for (long _v = (_j0 >> 2) + _t * _per_v; _v < _end_v; ++_v)"),
            "{cl}"
        );
    }

    #[test]
    fn cpu_row_sums_add_into_four_vector_accumulators() {
        let mut k = sum_f32(Layout::Rows, true);
        k.cpu = true;
        let cl = k.source(Dialect::OpenCl);
        assert!(
            cl.contains("float4 _aw0 = (float4)0, _aw1 = (float4)0"),
            "{cl}"
        );
        assert!(cl.contains("_aw3 += vload4(4 * _w + 3, _row);"), "{cl}");
        assert!(
            cl.contains("const float _aw_1 = _aw_2.x + _aw_2.y;"),
            "{cl}"
        );
        (k.input, k.acc, k.output) = (DType::F64, DType::F64, DType::F64);
        assert!(k.source(Dialect::OpenCl).contains("double2 _aw0"));
        (k.input, k.acc, k.output) = (DType::U32, DType::U32, DType::U32);
        let cl = k.source(Dialect::OpenCl);
        assert!(cl.contains("uint4 _aw0 = (uint4)0"), "{cl}");
        assert!(
            cl.contains("const unsigned int _aw_1 = _aw_2.x + _aw_2.y;"),
            "{cl}"
        );
        k.combine = Combine::Max;
        assert!(!k.source(Dialect::OpenCl).contains("_aw"));
    }

    #[test]
    fn cpu_columns_fold_a_stretch_of_each_row_without_barriers() {
        let mut k = sum_f32(Layout::Columns, true);
        k.cpu = true;
        let cl = k.source(Dialect::OpenCl);
        assert_eq!(cl.matches("barrier(").count(), 0, "{cl}");
        assert!(cl.contains(&format!("_acc_t _a[{CPU_COLUMNS}];")), "{cl}");
        assert!(cl.contains("_a[_k] = _combine(_a[_k], "), "{cl}");
        k.combine = Combine::ArgMax;
        k.output = DType::I64;
        let cl = k.source(Dialect::OpenCl);
        assert!(cl.contains("if (_take(_a[_k], _ai[_k], _e, _ei))"), "{cl}");
        assert!(cl.contains("y[_c0 + _k] = _ai[_k];"), "{cl}");
    }

    #[test]
    fn cuda_rows_use_shuffles_and_opencl_rows_use_local_memory() {
        let cuda = sum_f32(Layout::Rows, true).source(Dialect::Cuda);
        assert!(
            cuda.contains("__shfl_xor_sync(0xffffffffu, v, o)"),
            "{cuda}"
        );
        assert!(
            cuda.contains("reinterpret_cast<const float4*>(_row)[_v + 3 * _tpr]"),
            "{cuda}"
        );
        let cl = sum_f32(Layout::Rows, true).source(Dialect::OpenCl);
        assert!(!cl.contains("shfl"), "{cl}");
        assert!(cl.contains("vload4(_v + 1 * _tpr, _row)"), "{cl}");
        assert!(cl.contains("_sv[_tid] = _a;"), "{cl}");
    }

    #[test]
    fn columns_read_neighbouring_outputs_with_vectors() {
        let cuda = sum_f32(Layout::Columns, true).source(Dialect::Cuda);
        assert!(cuda.contains("_a3 = _combine(_a3, _l2_3);"), "{cuda}");
        assert!(cuda.contains("__shared__ _acc_t _sv[1024];"), "{cuda}");
    }

    #[test]
    fn sums_of_bools_are_ors_and_identities_fit_the_type() {
        assert_eq!(Combine::Add.on(DType::Bool), Combine::Or);
        assert_eq!(
            identity(Combine::Max, DType::I64, Dialect::OpenCl),
            "((long)(-0x7fffffffffffffff - 1))"
        );
        assert_eq!(
            identity(Combine::Min, DType::F32, Dialect::Cuda),
            "((float)__int_as_float(0x7f800000))"
        );
        assert!(identity(Combine::Multiply, DType::C64, Dialect::Cuda).contains("(1, 0)"));
    }

    #[test]
    fn nan_and_nonzero_maps_test_each_element_once_in_the_fold() {
        let mut k = sum_f32(Layout::Rows, true);
        k.acc = DType::I64;
        k.output = DType::I64;
        k.map = Map::NonZero;
        let src = k.source(Dialect::Cuda);
        assert!(
            src.contains("_a0 = _combine(_a0, (((_l0_0) != 0) ? (_acc_t)1 : (_acc_t)0));"),
            "{src}"
        );
        k.acc = DType::C128;
        k.output = DType::C128;
        k.map = Map::NanSumCount;
        let src = k.source(Dialect::OpenCl);
        assert!(
            src.contains("(isnan(_l0_0) ? ember_make_complex128(0, 0) : ember_make_complex128((double)(_l0_0), (double)1))"),
            "{src}"
        );
        let mut k = sum_f32(Layout::Columns, false);
        k.map = Map::NanAsZero;
        k.input = DType::C64;
        k.acc = DType::C64;
        k.output = DType::C64;
        let src = k.source(Dialect::OpenCl);
        assert!(src.contains("(isnan(("), "{src}");
        assert!(k.name().contains("_nan0"), "{}", k.name());
        // Exact inputs hold no NaN: the value itself, counted.
        let mut k = sum_f32(Layout::Rows, false);
        k.input = DType::I32;
        k.acc = DType::C128;
        k.output = DType::C128;
        k.map = Map::NanSumCount;
        let src = k.source(Dialect::Cuda);
        assert!(
            src.contains("ember_make_complex128((double)(*((const int*)((const char*)x + (_ko + _ro)))), (double)1)"),
            "{src}"
        );
    }

    #[test]
    fn arg_reductions_carry_indices_through_partials() {
        let mut k = sum_f32(Layout::Rows, false);
        k.combine = Combine::ArgMax;
        k.partial = true;
        let src = k.source(Dialect::OpenCl);
        assert!(src.contains("yi[_s * _m + _i] = _ai;"), "{src}");
        k.partial = false;
        k.map = Map::Partial;
        let src = k.source(Dialect::OpenCl);
        assert!(src.contains("xi[(_ko + _ro) / 4]"), "{src}");
    }
}
