//! Kernels around C snippets written by the user: CuPy's `ElementwiseKernel` (an operation per
//! element) and `ReductionKernel` (map, reduce, post-map), in either dialect.
//!
//! The snippet sees what CuPy gives it: inputs as values named as declared, outputs as
//! assignable names (a reference in CUDA, a macro over the element in OpenCL), raw arrays as
//! pointers, scalars by value, type placeholders as typedefs, `i` (elementwise) or
//! `_i`/`_j`/`_J` (reductions), and `_ind.size()`, `_in_ind.size()`, `_out_ind.size()`,
//! `x.size()` of a raw array, rewritten to plain variables so that OpenCL C accepts them.
//!
//! Parameters, in order: each declared parameter (an array: pointer, then its byte offset on
//! OpenCL; a raw array also its element count; a scalar by value), then the loop sizes, then
//! the shape of the unravelled axes and each strided array's byte strides (all int64).

use std::fmt::Write;

use ember_core::DType;

use crate::checked;
use crate::dialect::{Dialect, Table};
use crate::prelude::prelude_for;
use crate::types::{load, storage_type, store, value_type};

/// Elements each thread takes per step of the contiguous loop.
pub const UNROLL: usize = 4;

/// Consecutive elements each thread takes in the vector-load loop.
pub const VECTOR: usize = 4;

/// How the work-items of a launch cover a streaming kernel's elements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Cover {
    /// Each thread steps through the elements a grid apart, so any grid covers them (GPUs:
    /// the grid is sized to the device).
    #[default]
    GridStride,
    /// The launch gives each work-item one step of its own, and the kernel has no loop.
    /// CPU devices: PoCL runs a work-group as a loop over its work-items and vectorises that
    /// loop, which a loop inside the work-item stops (an add of 2^20 float32 at 21 GB/s
    /// with the grid-stride loop, 93 without, PyOpenCL on PoCL 3.1, 2 cores).
    OnePerItem,
}

impl Cover {
    /// Opens the steps of loop variable `var` (declared as `decl`) from `first` while `cond`,
    /// advancing by `step`; returns what closes them.
    fn open(
        self,
        s: &mut String,
        indent: &str,
        decl: &str,
        first: &str,
        cond: &str,
        step: &str,
    ) -> String {
        match self {
            Cover::GridStride => {
                let var = decl.rsplit(' ').next().unwrap_or(decl);
                let _ = writeln!(
                    s,
                    "{indent}for ({decl} = {first}; {cond}; {var} += {step}) {{"
                );
                format!("{indent}}}\n")
            }
            Cover::OnePerItem => {
                let _ = writeln!(s, "{indent}{{ {decl} = {first};");
                let _ = writeln!(s, "{indent}if ({cond}) {{");
                format!("{indent}}}}}\n")
            }
        }
    }
}

/// Elements a work-item takes in a step of the flat (contiguous) loop: [`VECTOR`] with vector
/// loads, else [`UNROLL`] a block apart on GPUs and one on CPU devices (where the work-items
/// of a group are the vectorised loop).
pub fn flat_per_thread(vector: bool, cover: Cover) -> usize {
    match (vector, cover) {
        (true, _) => VECTOR,
        (false, Cover::GridStride) => UNROLL,
        (false, Cover::OnePerItem) => 1,
    }
}

/// Whether inputs of `dtype` can be read with the vector loads of [`UserMap::vector`].
pub fn vector_loadable(dtype: DType) -> bool {
    matches!(
        dtype,
        DType::F32 | DType::I32 | DType::U32 | DType::F64 | DType::I64 | DType::U64
    )
}

/// How a declared parameter reaches the snippet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A broadcast input array: the snippet sees its element's value.
    Input,
    /// An output array: the snippet assigns to its element.
    Output,
    /// A whole array indexed by the snippet (`x[j]`), C-contiguous.
    Raw { writable: bool },
    /// A value.
    Scalar,
}

/// One parameter of a user kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    pub name: String,
    pub dtype: DType,
    pub role: Role,
}

/// Elementwise and reduction kernels share these.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Snippets {
    pub name: String,
    /// Placeholder typedefs (`T` -> float32).
    pub typedefs: Vec<(String, DType)>,
    pub params: Vec<Param>,
    pub preamble: String,
}

/// An `ElementwiseKernel` instance: the operation over a loop of `n` elements.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UserMap {
    pub common: Snippets,
    pub operation: String,
    pub loop_prep: String,
    pub after_loop: String,
    /// Axes the loop index is unravelled over; 0 when every array is C-contiguous.
    pub ndim: usize,
    /// Inputs are read [`VECTOR`] consecutive elements at a time with vector loads (every
    /// input a 4- or 8-byte real or integer type). Flat (`ndim` 0): every input contiguous
    /// and 16-byte aligned. Strided: each thread takes [`VECTOR`] consecutive elements of the
    /// innermost axis, along which every array is contiguous, each group 16-byte aligned;
    /// the loop's innermost extent and strides are then given in groups.
    pub vector: bool,
    /// Checked mode (`crate::checked`): the strided loop (`ndim` at least 1) checks each
    /// array's element against its buffer, given as parameters `_{name}_lo`/`_{name}_hi` (the
    /// first and last byte offsets an element may start at), and the snippet's raw-array
    /// indexing is checked against their sizes. Site `k` is parameter `k`.
    pub checked: bool,
    /// How the launch's work-items cover the loop's steps.
    pub cover: Cover,
}

/// A `ReductionKernel` instance: one work-group per output element.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UserReduce {
    pub common: Snippets,
    pub map_expr: String,
    pub reduce_expr: String,
    pub post_map_expr: String,
    /// Empty for "value-initialised".
    pub identity: String,
    /// A C type, or a placeholder.
    pub reduce_type: String,
    /// Output axes then reduced axes that offsets are unravelled over.
    pub out_ndim: usize,
    pub reduce_ndim: usize,
    /// Threads per work-group (a power of two).
    pub block: usize,
}

/// A user's snippet with CUDA's two-word integer types spelt as `dialect` spells them: OpenCL C
/// reserves `long long` (PoCL reads it as 128-bit), so CuPy code's `long long` is OpenCL's
/// `long`.
pub fn spelled(code: &str, dialect: Dialect) -> String {
    let mut out = code.to_string();
    for (cuda, here) in dialect.table().c_type_spellings {
        if cuda.contains(' ') && cuda != here {
            out = out.replace(cuda, here);
        }
    }
    out
}

/// C spelling of a user's C type name in `dialect` (CUDA's `long long` is OpenCL's `long`);
/// NumPy names are accepted too.
pub fn c_type_name(name: &str, dialect: Dialect) -> String {
    if let Ok(d) = DType::from_name(name) {
        return value_type(d, dialect).to_string();
    }
    let name = name.trim();
    let spelt = dialect
        .table()
        .c_type_spellings
        .iter()
        .find(|(cuda, _)| *cuda == name);
    spelt.map_or(name, |&(_, here)| here).to_string()
}

impl Snippets {
    fn arrays(&self) -> impl Iterator<Item = &Param> {
        self.params
            .iter()
            .filter(|p| matches!(p.role, Role::Input | Role::Output))
    }

    /// The kernel header: prelude, typedefs, preamble, signature and OpenCL offset fix-ups.
    fn open(&self, dialect: Dialect, extra_params: &[String], before_preamble: &str) -> String {
        let t = dialect.table();
        let i64t = t.int64;
        let mut params = Vec::new();
        for p in &self.params {
            let st = storage_type(p.dtype, dialect);
            match p.role {
                Role::Scalar => params.push(format!("{} {}", value_type(p.dtype, dialect), p.name)),
                Role::Raw { writable } => {
                    let c = if writable { "" } else { "const " };
                    params.push(format!("{}{c}{st}* {}", t.global, p.name));
                    if t.buffer_offsets {
                        params.push(format!("{i64t} _{}_o", p.name));
                    }
                    params.push(format!("{i64t} _{}_size", p.name));
                }
                Role::Input | Role::Output => {
                    params.push(format!("{}{st}* _{}_p", t.global, p.name));
                    if t.buffer_offsets {
                        params.push(format!("{i64t} _{}_o", p.name));
                    }
                }
            }
        }
        params.extend(extra_params.iter().cloned());
        let dtypes = self
            .params
            .iter()
            .map(|p| p.dtype)
            .chain(self.typedefs.iter().map(|(_, d)| *d));
        let mut s = prelude_for(dialect, dtypes);
        for (name, dtype) in &self.typedefs {
            let _ = writeln!(s, "typedef {} {name};", value_type(*dtype, dialect));
        }
        s.push_str(before_preamble);
        let _ = writeln!(s, "{}", spelled(&self.preamble, dialect));
        let _ = writeln!(
            s,
            "{} {}({}) {{",
            t.kernel_prefix,
            self.name,
            params.join(", ")
        );
        if t.buffer_offsets {
            for p in &self.params {
                let st = storage_type(p.dtype, dialect);
                let (var, c) = match p.role {
                    Role::Scalar => continue,
                    Role::Raw { writable } => {
                        (p.name.clone(), if writable { "" } else { "const " })
                    }
                    _ => (format!("_{}_p", p.name), ""),
                };
                let line = t.offset_pointer(&var, st, !c.is_empty(), &format!("_{}_o", p.name));
                s.push_str(&line.unwrap_or_default());
            }
        }
        s
    }

    /// The checked prelude and an accessor per raw array (checked mode).
    fn checked_accessors(&self, dialect: Dialect) -> String {
        let mut s = checked::prelude(dialect);
        for p in &self.params {
            if let Role::Raw { writable } = p.role {
                let c = if writable { "" } else { "const " };
                let elem = format!("{c}{}", storage_type(p.dtype, dialect));
                s.push_str(&checked::accessor(dialect, &p.name, &elem));
            }
        }
        s
    }

    /// `code` with its raw arrays' indexing checked (site: the parameter's position).
    fn check_raw(&self, code: &str) -> String {
        let counts: Vec<String> = self
            .params
            .iter()
            .map(|p| format!("_{}_size", p.name))
            .collect();
        let raw: Vec<(&str, &str, u32)> = self
            .params
            .iter()
            .zip(&counts)
            .enumerate()
            .filter(|(_, (p, _))| matches!(p.role, Role::Raw { .. }))
            .map(|(k, (p, n))| (p.name.as_str(), n.as_str(), k as u32))
            .collect();
        checked::rewrite_indexing(code, &raw)
    }

    /// Rewrites the size calls CuPy's snippets use into the variables the kernel has.
    fn rewrite(&self, code: &str, sizes: &[(&str, &str)], dialect: Dialect) -> String {
        let mut out = spelled(code, dialect);
        for (call, var) in sizes {
            out = out.replace(call, var);
        }
        for p in &self.params {
            if let Role::Raw { .. } = p.role {
                out = out.replace(&format!("{}.size()", p.name), &format!("_{}_size", p.name));
            }
        }
        out
    }

    /// Declarations giving the snippet its inputs and outputs at the element whose pointer
    /// expression `pointer(param)` returns; and the statements to close them after it.
    fn bind_elements(
        &self,
        dialect: Dialect,
        indent: &str,
        which: &[Role],
        pointer: &dyn Fn(&Param) -> String,
    ) -> (String, String) {
        let (mut open, mut close) = (String::new(), String::new());
        for p in self.arrays().filter(|p| which.contains(&p.role)) {
            let ptr = pointer(p);
            let vt = value_type(p.dtype, dialect);
            match p.role {
                Role::Input => {
                    let _ = writeln!(
                        open,
                        "{indent}const {vt} {} = {};",
                        p.name,
                        load(p.dtype, dialect, &ptr)
                    );
                }
                Role::Output if p.dtype.is_narrow() => {
                    // A narrow float is computed as float: read, let the snippet assign, write
                    // back.
                    let _ = writeln!(
                        open,
                        "{indent}{vt} {} = {};",
                        p.name,
                        load(p.dtype, dialect, &ptr)
                    );
                    let _ = writeln!(close, "{indent}{}", store(p.dtype, dialect, &ptr, &p.name));
                }
                Role::Output if dialect.table().references => {
                    let _ = writeln!(open, "{indent}{vt}& {} = *({ptr});", p.name);
                }
                Role::Output => {
                    let _ = writeln!(open, "#define {} (*({ptr}))", p.name);
                    let _ = writeln!(close, "#undef {}", p.name);
                }
                _ => {}
            }
        }
        (open, close)
    }
}

/// Per strided array, the statements that accumulate its byte offset while unravelling
/// `index` (less than `bound`) over axes `first..first+count` (named `shape{k}`, strides
/// `_{name}_s{k}`). Below 2^32 the divisions are 32-bit: a GPU's 64-bit division is a long
/// subroutine, and it dominated strided copies.
fn unravel(
    s: &mut String,
    t: &Table,
    (index, bound): (&str, &str),
    first: usize,
    count: usize,
    arrays: &[&Param],
) {
    if count == 0 {
        return;
    }
    let i64t = t.int64;
    let steps = |s: &mut String, ty: &str| {
        let _ = writeln!(s, "    {{ {ty} _rest = ({ty}){index};");
        for d in (first..first + count).rev() {
            // The outermost axis takes what is left: `index` is below `bound`.
            let step = match d == first {
                true => format!("{ty} _k = _rest;"),
                false => format!("{ty} _k = _rest % ({ty})_shape{d}; _rest /= ({ty})_shape{d};"),
            };
            let _ = writeln!(s, "      {{ {step}");
            for p in arrays {
                let _ = writeln!(s, "        _{0}_off += ({i64t})_k * _{0}_s{d};", p.name);
            }
            let _ = writeln!(s, "      }}");
        }
        let _ = writeln!(s, "    }}");
    };
    if count == 1 {
        // One axis: no division at all.
        let _ = writeln!(s, "    {{ const {i64t} _k = {index};");
        for p in arrays {
            let _ = writeln!(s, "      _{0}_off += _k * _{0}_s{first};", p.name);
        }
        let _ = writeln!(s, "    }}");
        return;
    }
    let _ = writeln!(s, "    if ({bound} <= 4294967295{}) {{", t.int64_suffix);
    steps(s, "unsigned int");
    let _ = writeln!(s, "    }} else {{");
    steps(s, i64t);
    let _ = writeln!(s, "    }}");
}

fn strided_pointer(p: &Param, dialect: Dialect) -> String {
    let g = dialect.table().global;
    let st = storage_type(p.dtype, dialect);
    format!("({g}{st}*)((({g}char*)_{0}_p) + _{0}_off)", p.name)
}

fn shape_params(i64t: &str, ndim: usize, arrays: &[&Param]) -> Vec<String> {
    let mut out: Vec<String> = (0..ndim).map(|d| format!("{i64t} _shape{d}")).collect();
    for p in arrays {
        out.extend((0..ndim).map(|d| format!("{i64t} _{}_s{d}", p.name)));
    }
    out
}

impl UserMap {
    /// The kernel's source in `dialect`.
    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let i64t = t.int64;
        let c = &self.common;
        let arrays: Vec<&Param> = if self.ndim > 0 {
            c.arrays().collect()
        } else {
            Vec::new()
        };
        let mut extra = vec![format!("{i64t} _n")];
        extra.extend(shape_params(i64t, self.ndim, &arrays));
        let mut before = String::new();
        if self.checked {
            for p in &arrays {
                extra.push(format!("{i64t} _{}_lo", p.name));
                extra.push(format!("{i64t} _{}_hi", p.name));
            }
            extra.extend(checked::record_kernel_params(dialect));
            before = c.checked_accessors(dialect);
        }
        let mut s = c.open(dialect, &extra, &before);
        let sizes = [("_ind.size()", "_n")];
        let whole = |code: &str| match self.checked {
            true => c.check_raw(&c.rewrite(code, &sizes, dialect)),
            false => c.rewrite(code, &sizes, dialect),
        };
        let _ = writeln!(s, "  {};", whole(&self.loop_prep));
        // Checked kernels are planned strided (their elements' offsets are checked there).
        debug_assert!(!self.checked || self.ndim > 0);
        if self.ndim == 0 && self.vector {
            self.vector_loop(&mut s, dialect, &sizes);
        } else if self.ndim == 0 {
            self.flat_loop(&mut s, dialect, &sizes);
        } else if self.vector {
            self.strided_vector_loop(&mut s, dialect, &arrays, &sizes);
        } else {
            self.strided_loop(&mut s, dialect, &arrays, &sizes);
        }
        let _ = writeln!(s, "  {};", whole(&self.after_loop));
        s.push_str("}\n");
        s
    }

    /// Contiguous, aligned arrays: each thread takes [`VECTOR`] consecutive elements, reading
    /// each input with vector loads (the fastest form measured for streaming kernels).
    fn vector_loop(&self, s: &mut String, dialect: Dialect, sizes: &[(&str, &str)]) {
        let t = dialect.table();
        let i64t = t.int64;
        let inputs = self.inputs();
        let close = self.cover.open(
            s,
            "  ",
            &format!("{i64t} _j"),
            t.global_id,
            &format!("_j * {VECTOR} < _n"),
            t.global_size,
        );
        let _ = writeln!(s, "    const {i64t} _f = _j * {VECTOR};");
        self.declare_values(s, dialect, &inputs, VECTOR);
        let _ = writeln!(s, "    if (_f + {VECTOR} <= _n) {{");
        for p in &inputs {
            let _ = writeln!(
                s,
                "      {}",
                dialect.vector_load_into(
                    p.dtype,
                    &format!("_{}_p", p.name),
                    "_j",
                    &format!("_{}_v", p.name)
                )
            );
        }
        let _ = writeln!(s, "    }} else {{");
        let _ = writeln!(s, "      for (int _u = 0; _u < {VECTOR}; ++_u) {{");
        let _ = writeln!(s, "        if (_f + _u < _n) {{");
        for p in &inputs {
            let ptr = format!("_{}_p + _f + _u", p.name);
            let _ = writeln!(
                s,
                "          _{}_v[_u] = {};",
                p.name,
                load(p.dtype, dialect, &ptr)
            );
        }
        let _ = writeln!(s, "        }}\n      }}\n    }}");
        self.compute_loaded(s, dialect, &inputs, VECTOR, "_f + _u", sizes);
        s.push_str(&close);
    }

    /// Contiguous arrays: a block takes [`UNROLL`] blocks' width of consecutive elements per
    /// step, each thread every block-width-th of them, and loads all their inputs before
    /// computing any, so that many loads are in flight. (Elements a grid apart measured 6%
    /// slower for a misaligned operand, as in `diff`, on an H100.)
    fn flat_loop(&self, s: &mut String, dialect: Dialect, sizes: &[(&str, &str)]) {
        let t = dialect.table();
        let i64t = t.int64;
        let inputs = self.inputs();
        let unroll = flat_per_thread(false, self.cover);
        let _ = writeln!(s, "  const {i64t} _bd = {};", t.axis(t.block_dim, 0));
        let close = self.cover.open(
            s,
            "  ",
            &format!("{i64t} _first"),
            &format!("{} * _bd * {unroll} + {}", t.group_id[0], t.local_id),
            "_first < _n",
            &format!("{} * _bd * {unroll}", t.num_groups[0]),
        );
        self.declare_values(s, dialect, &inputs, unroll);
        let _ = writeln!(s, "    #pragma unroll");
        let _ = writeln!(s, "    for (int _u = 0; _u < {unroll}; ++_u) {{");
        let _ = writeln!(s, "      const {i64t} _e = _first + _u * _bd;");
        let _ = writeln!(s, "      if (_e < _n) {{");
        for p in &inputs {
            let ptr = format!("_{}_p + _e", p.name);
            let _ = writeln!(
                s,
                "        _{}_v[_u] = {};",
                p.name,
                load(p.dtype, dialect, &ptr)
            );
        }
        let _ = writeln!(s, "      }}\n    }}");
        self.compute_loaded(s, dialect, &inputs, unroll, "_first + _u * _bd", sizes);
        s.push_str(&close);
    }

    fn inputs(&self) -> Vec<&Param> {
        self.common
            .params
            .iter()
            .filter(|p| p.role == Role::Input)
            .collect()
    }

    /// The per-thread arrays of `count` loaded values of each input.
    fn declare_values(&self, s: &mut String, dialect: Dialect, inputs: &[&Param], count: usize) {
        for p in inputs {
            let _ = writeln!(
                s,
                "    {} _{}_v[{count}];",
                value_type(p.dtype, dialect),
                p.name
            );
        }
    }

    /// Runs the operation on each of the `count` loaded elements, element `_u` being at flat
    /// index `index`.
    fn compute_loaded(
        &self,
        s: &mut String,
        dialect: Dialect,
        inputs: &[&Param],
        count: usize,
        index: &str,
        sizes: &[(&str, &str)],
    ) {
        let c = &self.common;
        let i64t = dialect.table().int64;
        let _ = writeln!(s, "    #pragma unroll");
        let _ = writeln!(s, "    for (int _u = 0; _u < {count}; ++_u) {{");
        let _ = writeln!(s, "      const {i64t} i = {index};");
        let _ = writeln!(s, "      if (i < _n) {{");
        for p in inputs {
            let vt = value_type(p.dtype, dialect);
            let _ = writeln!(s, "        const {vt} {} = _{}_v[_u];", p.name, p.name);
        }
        let pointer = |p: &Param| format!("_{}_p + i", p.name);
        let (open, close) = c.bind_elements(dialect, "        ", &[Role::Output], &pointer);
        s.push_str(&open);
        let _ = writeln!(s, "        {};", c.rewrite(&self.operation, sizes, dialect));
        s.push_str(&close);
        let _ = writeln!(s, "      }}\n    }}");
    }

    /// Strided arrays contiguous along the innermost axis: each thread takes a group of
    /// [`VECTOR`] consecutive elements there, unravelling its index once for all of them and
    /// reading each input with a vector load. Outputs are written in place element by
    /// element (a snippet may read them), which measured as fast as vector stores for a
    /// broadcast copy (`tile`) on an H100.
    fn strided_vector_loop(
        &self,
        s: &mut String,
        dialect: Dialect,
        arrays: &[&Param],
        sizes: &[(&str, &str)],
    ) {
        let t = dialect.table();
        let i64t = t.int64;
        let c = &self.common;
        let inputs = self.inputs();
        let steps = self.cover.open(
            s,
            "  ",
            &format!("{i64t} _j"),
            t.global_id,
            &format!("_j * {VECTOR} < _n"),
            t.global_size,
        );
        for p in arrays {
            let _ = writeln!(s, "    {i64t} _{}_off = 0;", p.name);
        }
        unravel(s, t, ("_j", "_n"), 0, self.ndim, arrays);
        self.declare_values(s, dialect, &inputs, VECTOR);
        for p in &inputs {
            let _ = writeln!(
                s,
                "    {}",
                dialect.vector_load_into(
                    p.dtype,
                    &strided_pointer(p, dialect),
                    "0",
                    &format!("_{}_v", p.name)
                )
            );
        }
        let _ = writeln!(s, "    #pragma unroll");
        let _ = writeln!(s, "    for (int _u = 0; _u < {VECTOR}; ++_u) {{");
        let _ = writeln!(s, "      const {i64t} i = _j * {VECTOR} + _u;");
        for p in &inputs {
            let vt = value_type(p.dtype, dialect);
            let _ = writeln!(s, "      const {vt} {} = _{}_v[_u];", p.name, p.name);
        }
        let pointer = |p: &Param| format!("{} + _u", strided_pointer(p, dialect));
        let (open, close) = c.bind_elements(dialect, "      ", &[Role::Output], &pointer);
        s.push_str(&open);
        let _ = writeln!(s, "      {};", c.rewrite(&self.operation, sizes, dialect));
        s.push_str(&close);
        let _ = writeln!(s, "    }}");
        s.push_str(&steps);
    }

    /// Any layout: the flat index is unravelled into each array's byte offset.
    fn strided_loop(
        &self,
        s: &mut String,
        dialect: Dialect,
        arrays: &[&Param],
        sizes: &[(&str, &str)],
    ) {
        let t = dialect.table();
        let i64t = t.int64;
        let c = &self.common;
        let steps = self.cover.open(
            s,
            "  ",
            &format!("{i64t} i"),
            t.global_id,
            "i < _n",
            t.global_size,
        );
        for p in arrays {
            let _ = writeln!(s, "    {i64t} _{}_off = 0;", p.name);
        }
        unravel(s, t, ("i", "_n"), 0, self.ndim, arrays);
        if self.checked {
            // An element outside its buffer is recorded (as its byte offset in the buffer,
            // against the buffer's size) and redirected to the record's scratch area.
            for p in arrays {
                let site = c.params.iter().position(|q| q.name == p.name).unwrap_or(0);
                let _ = writeln!(
                    s,
                    "    const int _{0}_bad = _{0}_off < _{0}_lo || _{0}_off > _{0}_hi;
    if (_{0}_bad) ember_fault({rec}, {site}u, _{0}_off - _{0}_lo, _{0}_hi - _{0}_lo + {size});",
                    p.name,
                    rec = checked::RECORD,
                    size = p.dtype.itemsize(),
                );
            }
        }
        let checked = self.checked;
        let pointer = |p: &Param| {
            let ptr = strided_pointer(p, dialect);
            if !checked {
                return ptr;
            }
            let g = dialect.table().global;
            let st = storage_type(p.dtype, dialect);
            format!(
                "(_{}_bad ? ({g}{st}*)({} + {}) : {ptr})",
                p.name,
                checked::RECORD,
                checked::SCRATCH_WORD
            )
        };
        let (open, close) =
            c.bind_elements(dialect, "    ", &[Role::Input, Role::Output], &pointer);
        s.push_str(&open);
        let mut operation = c.rewrite(&self.operation, sizes, dialect);
        if checked {
            operation = c.check_raw(&operation);
        }
        let _ = writeln!(s, "    {operation};");
        s.push_str(&close);
        s.push_str(&steps);
    }
}

impl UserReduce {
    /// The kernel's source in `dialect`. Work-group `g` reduces outputs `g, g + groups, ...`;
    /// its threads stride over the reduced elements, then combine in a tree in shared memory.
    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let i64t = t.int64;
        let c = &self.common;
        let ndim = self.out_ndim + self.reduce_ndim;
        let inputs: Vec<&Param> = c.params.iter().filter(|p| p.role == Role::Input).collect();
        let outputs: Vec<&Param> = c.params.iter().filter(|p| p.role == Role::Output).collect();
        let all: Vec<&Param> = inputs.iter().chain(&outputs).copied().collect();
        let mut extra = vec![format!("{i64t} _out_size"), format!("{i64t} _red_size")];
        extra.extend(shape_params(i64t, ndim, &all));
        let rt = c_type_name(&self.reduce_type, dialect);
        let mut head = String::new();
        let _ = writeln!(head, "typedef {rt} _type_reduce;");
        let _ = writeln!(
            head,
            "#define REDUCE(a, b) ({})",
            spelled(&self.reduce_expr, dialect)
        );
        let _ = writeln!(
            head,
            "#define POST_MAP(a) ({})",
            spelled(&self.post_map_expr, dialect)
        );
        let mut s = c.open(dialect, &extra, &head);
        let identity = if self.identity.trim().is_empty() {
            t.zero_value.replace("{t}", "_type_reduce")
        } else {
            format!("(_type_reduce)({})", self.identity)
        };
        let (tid, group, groups) = (t.local_id, t.group_id[0], t.num_groups[0]);
        let block = self.block;
        let sizes = [
            ("_in_ind.size()", "(_out_size * _red_size)"),
            ("_out_ind.size()", "_out_size"),
        ];
        let _ = writeln!(s, "  {} _type_reduce _sdata[{block}];", t.shared);
        let _ = writeln!(s, "  const int _tid = {tid};");
        let _ = writeln!(
            s,
            "  for ({i64t} _i = {group}; _i < _out_size; _i += {groups}) {{"
        );
        let _ = writeln!(s, "    _type_reduce _s = {identity};");
        let _ = writeln!(
            s,
            "    for ({i64t} _J = _tid; _J < _red_size; _J += {block}) {{"
        );
        let _ = writeln!(s, "    {i64t} _j = _J * _out_size + _i;");
        for p in &inputs {
            let _ = writeln!(s, "    {i64t} _{}_off = 0;", p.name);
        }
        unravel(&mut s, t, ("_i", "_out_size"), 0, self.out_ndim, &inputs);
        unravel(
            &mut s,
            t,
            ("_J", "_red_size"),
            self.out_ndim,
            self.reduce_ndim,
            &inputs,
        );
        let pointer = |p: &Param| strided_pointer(p, dialect);
        let (open, _) = c.bind_elements(dialect, "      ", &[Role::Input], &pointer);
        s.push_str(&open);
        let _ = writeln!(
            s,
            "      _type_reduce _a = (_type_reduce)({});",
            c.rewrite(&self.map_expr, &sizes, dialect)
        );
        let _ = writeln!(s, "      _s = REDUCE(_s, _a);");
        let _ = writeln!(s, "    }}");
        let _ = writeln!(s, "    _sdata[_tid] = _s;");
        let _ = writeln!(s, "    {};", t.barrier);
        let _ = writeln!(s, "    for (int _w = {}; _w > 0; _w >>= 1) {{", block / 2);
        let _ = writeln!(s, "      if (_tid < _w) {{ _type_reduce _x = _sdata[_tid], _y = _sdata[_tid + _w]; _sdata[_tid] = REDUCE(_x, _y); }}");
        let _ = writeln!(s, "      {};", t.barrier);
        let _ = writeln!(s, "    }}");
        let _ = writeln!(s, "    if (_tid == 0) {{");
        let _ = writeln!(s, "      _type_reduce _r = _sdata[0];");
        for p in &outputs {
            let _ = writeln!(s, "      {i64t} _{}_off = 0;", p.name);
        }
        unravel(&mut s, t, ("_i", "_out_size"), 0, self.out_ndim, &outputs);
        let (open, close) = c.bind_elements(dialect, "      ", &[Role::Output], &pointer);
        s.push_str(&open);
        let _ = writeln!(s, "      POST_MAP(_r);");
        s.push_str(&close);
        let _ = writeln!(s, "    }}");
        let _ = writeln!(s, "    {};", t.barrier);
        let _ = writeln!(s, "  }}");
        s.push_str("}\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaky(ndim: usize) -> UserMap {
        UserMap {
            common: Snippets {
                name: "leaky".into(),
                typedefs: vec![("T".into(), DType::F32)],
                params: vec![
                    Param {
                        name: "x".into(),
                        dtype: DType::F32,
                        role: Role::Input,
                    },
                    Param {
                        name: "a".into(),
                        dtype: DType::F32,
                        role: Role::Scalar,
                    },
                    Param {
                        name: "y".into(),
                        dtype: DType::F32,
                        role: Role::Output,
                    },
                ],
                preamble: String::new(),
            },
            operation: "y = x > 0 ? x : x * a".into(),
            loop_prep: String::new(),
            after_loop: String::new(),
            ndim,
            vector: false,
            checked: false,
            cover: Cover::GridStride,
        }
    }

    #[test]
    fn outputs_are_references_in_cuda_and_macros_in_opencl() {
        let cuda = leaky(0).source(Dialect::Cuda);
        assert!(cuda.contains("typedef float T;"), "{cuda}");
        assert!(cuda.contains("float& y = *(_y_p + i);"), "{cuda}");
        assert!(cuda.contains("_x_v[_u] = *(_x_p + _e);"), "{cuda}");
        assert!(cuda.contains("const float x = _x_v[_u];"), "{cuda}");
        let cl = leaky(0).source(Dialect::OpenCl);
        assert!(cl.contains("#define y (*(_y_p + i))"), "{cl}");
        assert!(cl.contains("#undef y"), "{cl}");
    }

    #[test]
    fn aligned_contiguous_inputs_use_vector_loads() {
        let mut k = leaky(0);
        k.vector = true;
        let cuda = k.source(Dialect::Cuda);
        assert!(
            cuda.contains("float4 _t = reinterpret_cast<const float4*>(_x_p)[_j];"),
            "{cuda}"
        );
        let cl = k.source(Dialect::OpenCl);
        assert!(cl.contains("float4 _t = vload4(_j, _x_p);"), "{cl}");
    }

    #[test]
    fn strided_groups_unravel_once_and_load_a_vector() {
        let mut k = leaky(2);
        k.vector = true;
        let cuda = k.source(Dialect::Cuda);
        // One unravel per group of 4; the outermost axis takes the rest undivided.
        assert!(cuda.contains("unsigned int _k = _rest;"), "{cuda}");
        assert!(
            cuda.contains(
                "float4 _t = reinterpret_cast<const float4*>((float*)(((char*)_x_p) + _x_off))[0];"
            ),
            "{cuda}"
        );
        assert!(
            cuda.contains("float& y = *((float*)(((char*)_y_p) + _y_off) + _u);"),
            "{cuda}"
        );
        let cl = k.source(Dialect::OpenCl);
        assert!(cl.contains("vload4(0, (__global float*)"), "{cl}");
    }

    #[test]
    fn flat_loops_take_consecutive_elements_a_block() {
        let cuda = leaky(0).source(Dialect::Cuda);
        assert!(
            cuda.contains("_first = (long long)blockIdx.x * _bd * 4 + (int)threadIdx.x;"),
            "{cuda}"
        );
        assert!(
            cuda.contains("const long long _e = _first + _u * _bd;"),
            "{cuda}"
        );
    }

    #[test]
    fn strided_loops_unravel_every_array() {
        let src = leaky(2).source(Dialect::Cuda);
        assert!(
            src.contains("long long _shape0, long long _shape1, long long _x_s0"),
            "{src}"
        );
        assert!(src.contains("_y_off += (long long)_k * _y_s1;"), "{src}");
        // 32-bit divisions where the index fits them.
        assert!(src.contains("if (_n <= 4294967295LL)"), "{src}");
        assert!(
            src.contains("unsigned int _k = _rest % (unsigned int)_shape1;"),
            "{src}"
        );
    }

    #[test]
    fn size_calls_are_rewritten() {
        let mut k = leaky(0);
        k.operation = "y = x * _ind.size()".into();
        assert!(k.source(Dialect::OpenCl).contains("y = x * _n;"));
    }

    #[test]
    fn cuda_long_long_is_spelt_as_opencl_long() {
        let mut k = leaky(0);
        k.operation = "long long j = (long long)x; unsigned long long u = j; y = u".into();
        let cl = k.source(Dialect::OpenCl);
        assert!(cl.contains("long j = (long)x; ulong u = j; y = u;"), "{cl}");
        let cuda = k.source(Dialect::Cuda);
        assert!(cuda.contains("long long j = (long long)x;"), "{cuda}");
    }
}
