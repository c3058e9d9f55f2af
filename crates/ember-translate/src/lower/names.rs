//! User names that OpenCL C reserves (its keywords and built-in functions) are renamed, so a
//! CUDA variable called `local` or a device function called `dot` still compiles.

use crate::ast::Type;

/// Words of OpenCL C that a CUDA program may use as names.
const RESERVED: &[&str] = &[
    // keywords and qualifiers
    "kernel",
    "global",
    "local",
    "constant",
    "private",
    "read_only",
    "write_only",
    "read_write",
    "__kernel",
    "__global",
    "__local",
    "__constant",
    "__private",
    "uniform",
    "pipe",
    "restrict",
    // types CUDA does not have
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "half",
    "image2d_t",
    "image3d_t",
    "sampler_t",
    "event_t",
    "quad",
    "complex",
    "imaginary",
    // built-in functions whose names are common words
    "dot",
    "cross",
    "length",
    "distance",
    "normalize",
    "mix",
    "step",
    "smoothstep",
    "sign",
    "clamp",
    "degrees",
    "radians",
    "select",
    "rotate",
    "mad",
    "mad24",
    "mul24",
    "mad_hi",
    "mul_hi",
    "hadd",
    "rhadd",
    "popcount",
    "clz",
    "ctz",
    "abs_diff",
    "add_sat",
    "sub_sat",
    "upsample",
    "bitselect",
    "shuffle",
    "shuffle2",
    "vload",
    "vstore",
    "barrier",
    "mem_fence",
    "read_mem_fence",
    "write_mem_fence",
    "async_work_group_copy",
    "wait_group_events",
    "prefetch",
    "native_exp",
    "maxmag",
    "minmag",
    "fract",
    "pown",
    "powr",
    "rootn",
    "any",
    "all",
    "isequal",
    "isordered",
    "convert_int",
    "as_int",
    "as_float",
    "printf",
    "get_global_id",
    "get_local_id",
    "get_group_id",
];

/// The OpenCL name of a user's name (renamed when OpenCL reserves it).
pub fn user(name: &str) -> String {
    // `__` begins names the implementation reserves (cuda_fp16.h's `__hadd` becomes ours).
    if RESERVED.contains(&name)
        || name.starts_with("vload")
        || name.starts_with("vstore")
        || name.starts_with("__")
    {
        format!("ember_u_{name}")
    } else {
        name.to_string()
    }
}

/// A type as part of a function's name (`fill<float>` -> `fill__float`).
pub fn type_tag(t: &Type) -> String {
    match t {
        Type::Void => "void".into(),
        // Not `opencl()`: a half computes in a float, but `f<__half>` is not `f<float>`.
        Type::Scalar(s) => s.name().into(),
        Type::Vector(s, n) => format!("{}{n}", s.name()),
        Type::Struct(n) => n.clone(),
        Type::Pointer(p) | Type::Ref(p) => format!("{}_ptr", type_tag(&p.ty)),
        Type::Array(e, n) => format!("{}_a{}", type_tag(e), n.unwrap_or(0)),
        Type::Param(n) => n.clone(),
        Type::Value(v) if *v < 0 => format!("m{}", v.unsigned_abs()),
        Type::Value(v) => v.to_string(),
        Type::ValueExpr(_) | Type::SizedBy(..) => "x".into(),
    }
}
