//! What the spectral kernels (Householder QR, Jacobi eigh and SVD) share: how their code reads
//! and writes an element of float32, float64, complex64 or complex128 as its real and
//! imaginary parts (real dtypes have no imaginary part and the compiler drops its arithmetic),
//! their opening lines, and block-wide sums in shared memory.

use std::fmt::Write;

use ember_core::DType;

use crate::dialect::Dialect;
use crate::prelude::prelude_for;

/// A matrix element type as the kernels see it.
pub(crate) struct Element {
    /// The storage type (`float`, `ember_c128`, ...).
    pub t: &'static str,
    /// Its real type.
    pub r: &'static str,
    /// Machine epsilon of the real type, as a C literal.
    pub eps: &'static str,
}

pub(crate) fn element(dtype: DType) -> Element {
    let (t, r) = match dtype {
        DType::F32 => ("float", "float"),
        DType::C64 => ("ember_c64", "float"),
        DType::C128 => ("ember_c128", "double"),
        _ => ("double", "double"),
    };
    let eps = if r == "float" {
        "1.1920928955078125e-07"
    } else {
        "2.220446049250313e-16"
    };
    Element { t, r, eps }
}

/// The prelude and the element macros: `EMB_RE(v)` and `EMB_IM(v)` (the parts of a stored
/// value, as doubles), `EMB_MK(re, im)` (a stored value from two doubles).
pub(crate) fn opening(dtype: DType, dialect: Dialect) -> String {
    let e = element(dtype);
    // float64 is always named: sums and rotations of float32 matrices are computed in it.
    let mut s = prelude_for(dialect, [dtype, DType::F64]);
    if dtype.is_complex() {
        let bits = if dtype == DType::C128 { 128 } else { 64 };
        let _ = write!(
            s,
            "#define EMB_RE(v) ((double)(v).x)\n#define EMB_IM(v) ((double)(v).y)\n\
             #define EMB_MK(re, im) ember_make_complex{bits}(({r})(re), ({r})(im))\n",
            r = e.r
        );
    } else {
        let _ = write!(
            s,
            "#define EMB_RE(v) ((double)(v))\n#define EMB_IM(v) 0.0\n#define EMB_MK(re, im) (({t})(re))\n",
            t = e.t
        );
    }
    s
}

/// A kernel's first line and the statements that offset its buffers: `buffers` are (name,
/// element type) of device pointers `name_p` (OpenCL passes each one's byte offset `name_o`
/// after it), then the int64 `scalars` by name, then (`dynamic_local`, where the dialect takes
/// it as a parameter) the launch's dynamic local memory.
pub(crate) fn signature(
    dialect: Dialect,
    name: &str,
    buffers: &[(&str, &str)],
    scalars: &[&str],
    dynamic_local: bool,
) -> String {
    let t = dialect.table();
    let mut params = Vec::new();
    let mut offsets = String::new();
    for (buffer, ty) in buffers {
        params.push(format!("{}{ty}* {buffer}_p", t.global));
        if t.buffer_offsets {
            params.push(format!("{} {buffer}_o", t.int64));
        }
        if let Some(line) =
            t.offset_pointer(&format!("{buffer}_p"), ty, false, &format!("{buffer}_o"))
        {
            offsets.push_str(&line);
        }
    }
    params.extend(scalars.iter().map(|s| format!("{} {s}", t.int64)));
    if dynamic_local && t.dynamic_shared_param {
        params.push(t.dynamic_shared_parameter());
    }
    format!(
        "{} {name}({}) {{\n{offsets}",
        t.kernel_prefix,
        params.join(", ")
    )
}

/// The barrier after which a group's writes to global memory are seen by the group:
/// CUDA's `__syncthreads` orders both memories; OpenCL's local barrier orders local memory
/// only, so the global fence is asked for too.
pub(crate) fn global_barrier(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Cuda => dialect.table().barrier,
        Dialect::OpenCl => "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)",
    }
}

/// The block barrier that also makes the block's writes to device memory visible to its
/// other threads (these kernels read back columns that other threads of the block wrote):
/// CUDA's `__syncthreads` does; OpenCL's `barrier` needs the global fence asked for. Blocks
/// of one thread (CPU devices) have nothing to wait for, and PoCL builds a kernel without
/// barriers in a fraction of the time (the Householder kernel: about 1 s against 12 to 20).
pub(crate) fn barrier(dialect: Dialect, block: usize) -> &'static str {
    if block == 1 {
        ""
    } else {
        global_barrier(dialect)
    }
}

/// Statements summing (or, with `max`, taking the largest of) each shared array of `arrays`
/// over segments of `lanes` consecutive threads (`barrier` the block's, see [`barrier`]): thread `lid`'s own values are at `[lid]`,
/// the segment's result ends at its first index. Every thread of the block must run them.
pub(crate) fn segment_reduce(
    barrier: &str,
    arrays: &[&str],
    lanes: usize,
    lane: &str,
    max: bool,
) -> String {
    if lanes == 1 {
        return String::new();
    }
    let mut s = format!("  {barrier};\n  for (int span = {lanes} / 2; span > 0; span >>= 1) {{\n    if ({lane} < span) {{\n");
    for a in arrays {
        if max {
            let _ = writeln!(s, "      {a}[lid] = fmax({a}[lid], {a}[lid + span]);");
        } else {
            let _ = writeln!(s, "      {a}[lid] += {a}[lid + span];");
        }
    }
    let _ = write!(s, "    }}\n    {barrier};\n  }}\n");
    s
}
