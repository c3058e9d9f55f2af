//! CUDA's device functions and what they are in OpenCL C: one row per function. A row's
//! text names the arguments `$0`, `$1`...; each argument appears once (a helper function
//! takes the ones a formula needs twice), so a call evaluates its arguments once, as in CUDA.

use crate::ast::{Scalar, Type};

/// The type a builtin returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Ret {
    /// This scalar.
    Is(Scalar),
    /// The first argument's type, as a floating type (`sin(int)` is a double).
    Floating,
    Void,
}

/// One builtin: CUDA's name, OpenCL C's text, what it returns.
pub(crate) struct Builtin {
    pub cuda: &'static str,
    pub text: &'static str,
    pub ret: Ret,
}

const fn row(cuda: &'static str, text: &'static str, ret: Ret) -> Builtin {
    Builtin { cuda, text, ret }
}

use Ret::{Floating, Is, Void};
use Scalar::{Double as D, Float as F, Int as I, Long as L, UInt as U, ULong as UL};

/// Builtins that are not a `*f` math function or a rounding conversion (those follow patterns:
/// see [`lookup`]).
const TABLE: &[Builtin] = &[
    // synchronisation and memory order
    row(
        "__syncthreads",
        "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)",
        Void,
    ),
    row(
        "__syncthreads_count",
        "ember_syncthreads_count(($0) != 0, ember_shared_ember_vote)",
        Is(I),
    ),
    row(
        "__syncthreads_and",
        "(ember_syncthreads_count(($0) != 0, ember_shared_ember_vote) == (int)(get_local_size(0) * get_local_size(1) * get_local_size(2)))",
        Is(I),
    ),
    row(
        "__syncthreads_or",
        "(ember_syncthreads_count(($0) != 0, ember_shared_ember_vote) != 0)",
        Is(I),
    ),
    row("__threadfence", "mem_fence(CLK_GLOBAL_MEM_FENCE)", Void),
    // half bits and double -> half (the rest of cuda_fp16.h is CUDA C: see headers.rs)
    row("__half_as_ushort", "ember_half_bits($0)", Is(Scalar::UShort)),
    row("__half_as_short", "((short)ember_half_bits($0))", Is(Scalar::Short)),
    row("__ushort_as_half", "ember_bits_half((ushort)($0))", Is(Scalar::Half)),
    row("__short_as_half", "ember_bits_half((ushort)($0))", Is(Scalar::Half)),
    row("__ember_double2half", "ember_round_half_d((double)($0))", Is(Scalar::Half)),
    row(
        "__threadfence_system",
        "mem_fence(CLK_GLOBAL_MEM_FENCE)",
        Void,
    ),
    row(
        "__threadfence_block",
        "mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)",
        Void,
    ),
    // fast math intrinsics
    row("__expf", "native_exp($0)", Is(F)),
    row("__exp10f", "native_exp10($0)", Is(F)),
    row("__logf", "native_log($0)", Is(F)),
    row("__log2f", "native_log2($0)", Is(F)),
    row("__log10f", "native_log10($0)", Is(F)),
    row("__sinf", "native_sin($0)", Is(F)),
    row("__cosf", "native_cos($0)", Is(F)),
    row("__tanf", "native_tan($0)", Is(F)),
    row("__powf", "native_powr($0, $1)", Is(F)),
    row("__fdividef", "native_divide($0, $1)", Is(F)),
    row("__saturatef", "clamp((float)($0), 0.0f, 1.0f)", Is(F)),
    row("__frsqrt_rn", "rsqrt((float)($0))", Is(F)),
    row("__fsqrt_rn", "sqrt((float)($0))", Is(F)),
    // Directed rounding: OpenCL C has no rounding modes for arithmetic, so these compute in
    // double and round with a directed conversion, correcting where the double was inexact.
    row("__fsqrt_rz", "ember_fsqrt_d((float)($0), 0)", Is(F)),
    row("__fsqrt_rd", "ember_fsqrt_d((float)($0), -1)", Is(F)),
    row("__fsqrt_ru", "ember_fsqrt_d((float)($0), 1)", Is(F)),
    row("__fadd_rz", "ember_fadd_d($0, $1, 0)", Is(F)),
    row("__fadd_rd", "ember_fadd_d($0, $1, -1)", Is(F)),
    row("__fadd_ru", "ember_fadd_d($0, $1, 1)", Is(F)),
    row("__fsub_rz", "ember_fadd_d($0, -($1), 0)", Is(F)),
    row("__fsub_rd", "ember_fadd_d($0, -($1), -1)", Is(F)),
    row("__fsub_ru", "ember_fadd_d($0, -($1), 1)", Is(F)),
    row("__fmul_rz", "ember_directed((double)(float)($0) * (float)($1), 0.0, 0)", Is(F)),
    row("__fmul_rd", "ember_directed((double)(float)($0) * (float)($1), 0.0, -1)", Is(F)),
    row("__fmul_ru", "ember_directed((double)(float)($0) * (float)($1), 0.0, 1)", Is(F)),
    row("__fdiv_rz", "ember_fdiv_d($0, $1, 0)", Is(F)),
    row("__fdiv_rd", "ember_fdiv_d($0, $1, -1)", Is(F)),
    row("__fdiv_ru", "ember_fdiv_d($0, $1, 1)", Is(F)),
    row("nearbyintf", "rint((float)($0))", Is(F)),
    row("nearbyint", "rint($0)", Floating),
    row("__frcp_rn", "(1.0f / (float)($0))", Is(F)),
    row("__fadd_rn", "ember_fadd_rn($0, $1)", Is(F)),
    row("__fsub_rn", "ember_fsub_rn($0, $1)", Is(F)),
    row("__fmul_rn", "ember_fmul_rn($0, $1)", Is(F)),
    row("__fdiv_rn", "((float)($0) / (float)($1))", Is(F)),
    row(
        "__fmaf_rn",
        "fma((float)($0), (float)($1), (float)($2))",
        Is(F),
    ),
    row("__dsqrt_rn", "sqrt((double)($0))", Is(D)),
    row("__drcp_rn", "(1.0 / (double)($0))", Is(D)),
    row("__dadd_rn", "ember_dadd_rn($0, $1)", Is(D)),
    row("__dsub_rn", "ember_dsub_rn($0, $1)", Is(D)),
    row("__dmul_rn", "ember_dmul_rn($0, $1)", Is(D)),
    row("__ddiv_rn", "((double)($0) / (double)($1))", Is(D)),
    row(
        "__fma_rn",
        "fma((double)($0), (double)($1), (double)($2))",
        Is(D),
    ),
    // integer intrinsics
    row("__popc", "((int)popcount((uint)($0)))", Is(I)),
    row("__popcll", "((int)popcount((ulong)($0)))", Is(I)),
    row("__clz", "((int)clz((int)($0)))", Is(I)),
    row("__clzll", "((int)clz((long)($0)))", Is(I)),
    row("__ffs", "ember_ffs((int)($0))", Is(I)),
    row("__ffsll", "ember_ffsll((long)($0))", Is(I)),
    row("__brev", "ember_brev((uint)($0))", Is(U)),
    row("__brevll", "ember_brevll((ulong)($0))", Is(UL)),
    // CUDA ignores the high 8 bits (OpenCL's mul24 leaves them undefined).
    row("__mul24", "(int)((uint)(((int)($0) << 8) >> 8) * (uint)(((int)($1) << 8) >> 8))", Is(I)),
    row("__umul24", "(((uint)($0) & 0xFFFFFFU) * ((uint)($1) & 0xFFFFFFU))", Is(U)),
    row("__mulhi", "mul_hi((int)($0), (int)($1))", Is(I)),
    row("__umulhi", "mul_hi((uint)($0), (uint)($1))", Is(U)),
    row("__mul64hi", "mul_hi((long)($0), (long)($1))", Is(L)),
    row("__umul64hi", "mul_hi((ulong)($0), (ulong)($1))", Is(UL)),
    row("__hadd", "hadd((int)($0), (int)($1))", Is(I)),
    row("__rhadd", "rhadd((int)($0), (int)($1))", Is(I)),
    row("__uhadd", "hadd((uint)($0), (uint)($1))", Is(U)),
    row("__urhadd", "rhadd((uint)($0), (uint)($1))", Is(U)),
    row(
        "__sad",
        "(abs_diff((int)($0), (int)($1)) + (uint)($2))",
        Is(U),
    ),
    row(
        "__usad",
        "(abs_diff((uint)($0), (uint)($1)) + (uint)($2))",
        Is(U),
    ),
    row(
        "__byte_perm",
        "ember_byte_perm((uint)($0), (uint)($1), (uint)($2))",
        Is(U),
    ),
    row(
        "__funnelshift_l",
        "ember_funnelshift_l((uint)($0), (uint)($1), (uint)($2))",
        Is(U),
    ),
    row(
        "__funnelshift_r",
        "ember_funnelshift_r((uint)($0), (uint)($1), (uint)($2))",
        Is(U),
    ),
    row(
        "__funnelshift_lc",
        "ember_funnelshift_lc((uint)($0), (uint)($1), (uint)($2))",
        Is(U),
    ),
    row(
        "__funnelshift_rc",
        "ember_funnelshift_rc((uint)($0), (uint)($1), (uint)($2))",
        Is(U),
    ),
    // bits of one type read as another
    row("__float_as_int", "as_int((float)($0))", Is(I)),
    row("__float_as_uint", "as_uint((float)($0))", Is(U)),
    row("__int_as_float", "as_float((int)($0))", Is(F)),
    row("__uint_as_float", "as_float((uint)($0))", Is(F)),
    row("__double_as_longlong", "as_long((double)($0))", Is(L)),
    row("__longlong_as_double", "as_double((long)($0))", Is(D)),
    row(
        "__double2hiint",
        "((int)(as_long((double)($0)) >> 32))",
        Is(I),
    ),
    row("__double2loint", "((int)as_long((double)($0)))", Is(I)),
    row(
        "__hiloint2double",
        "as_double(((long)($0) << 32) | (long)(uint)($1))",
        Is(D),
    ),
    // math whose CUDA name has no `f` pattern or differs
    row("rsqrtf", "rsqrt((float)($0))", Is(F)),
    row("rsqrt", "rsqrt($0)", Floating),
    row("rcbrtf", "(1.0f / cbrt((float)($0)))", Is(F)),
    row("sincosf", "(*($1) = sincos((float)($0), $2))", Void),
    row("sincos", "(*($1) = sincos((double)($0), $2))", Void),
    row("nanf", "NAN", Is(F)),
    row("nan", "((double)NAN)", Is(D)),
    row("isnan", "isnan($0)", Is(I)),
    row("isinf", "isinf($0)", Is(I)),
    row("isfinite", "isfinite($0)", Is(I)),
    row("signbit", "signbit($0)", Is(I)),
    row("__isnanf", "isnan((float)($0))", Is(I)),
    row("__isinff", "isinf((float)($0))", Is(I)),
    row("__finitef", "isfinite((float)($0))", Is(I)),
    row("ldexpf", "ldexp((float)($0), (int)($1))", Is(F)),
    row("ldexp", "ldexp($0, (int)($1))", Floating),
    row("scalbnf", "ldexp((float)($0), (int)($1))", Is(F)),
    row("frexpf", "frexp((float)($0), $1)", Is(F)),
    row("frexp", "frexp($0, $1)", Floating),
    row("modff", "modf((float)($0), $1)", Is(F)),
    row("modf", "modf($0, $1)", Floating),
    row("ilogbf", "ilogb((float)($0))", Is(I)),
    row("ilogb", "ilogb($0)", Is(I)),
    row("llabs", "ember_labs((long)($0))", Is(L)),
    row("labs", "ember_labs((long)($0))", Is(L)),
    row("umin", "min((uint)($0), (uint)($1))", Is(U)),
    row("umax", "max((uint)($0), (uint)($1))", Is(U)),
    row("llmin", "min((long)($0), (long)($1))", Is(L)),
    row("llmax", "max((long)($0), (long)($1))", Is(L)),
    row("ullmin", "min((ulong)($0), (ulong)($1))", Is(UL)),
    row("ullmax", "max((ulong)($0), (ulong)($1))", Is(UL)),
];

/// Math functions CUDA has as `name` (double, or the argument's type) and `namef` (float),
/// which OpenCL C has by the same name, overloaded.
const MATH: &[&str] = &[
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "exp",
    "exp2",
    "exp10",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "cbrt",
    "fabs",
    "floor",
    "ceil",
    "round",
    "trunc",
    "rint",
    "erf",
    "erfc",
    "lgamma",
    "tgamma",
    "logb",
    "sinpi",
    "cospi",
    "atan2",
    "pow",
    "hypot",
    "fmod",
    "remainder",
    "fmin",
    "fmax",
    "copysign",
    "fdim",
    "nextafter",
    "fma",
];

/// How many arguments a math function of [`MATH`] takes.
fn math_arity(name: &str) -> usize {
    match name {
        "fma" => 3,
        "atan2" | "pow" | "hypot" | "fmod" | "remainder" | "fmin" | "fmax" | "copysign"
        | "fdim" | "nextafter" => 2,
        _ => 1,
    }
}

/// What a builtin call becomes: the OpenCL text with `$k` for argument k, its return type,
/// the number of arguments it takes.
pub(crate) struct Found {
    pub text: String,
    pub ret: Ret,
    pub arity: usize,
}

/// The builtin named `name`, if CUDA has one.
pub(crate) fn lookup(name: &str) -> Option<Found> {
    if let Some(b) = TABLE.iter().find(|b| b.cuda == name) {
        return Some(Found {
            text: b.text.to_string(),
            ret: b.ret,
            arity: arity_of(b.text),
        });
    }
    if let Some(base) = name.strip_suffix('f').filter(|b| MATH.contains(b)) {
        let n = math_arity(base);
        let args: Vec<String> = (0..n).map(|k| format!("(float)(${k})")).collect();
        return Some(Found {
            text: format!("{base}({})", args.join(", ")),
            ret: Is(F),
            arity: n,
        });
    }
    if MATH.contains(&name) {
        let n = math_arity(name);
        let args: Vec<String> = (0..n).map(|k| format!("${k}")).collect();
        return Some(Found {
            text: format!("{name}({})", args.join(", ")),
            ret: Floating,
            arity: n,
        });
    }
    conversion(name)
}

/// CUDA's rounding conversions: `__float2int_rn`, `__double2float_rz`, `__int2float_rd`...
fn conversion(name: &str) -> Option<Found> {
    let rest = name.strip_prefix("__")?;
    let (from, rest) = rest.split_once('2')?;
    let (to, rounding) = rest.rsplit_once('_')?;
    let scalar = |s: &str| match s {
        "float" => Some(F),
        "double" => Some(D),
        "int" => Some(I),
        "uint" => Some(U),
        "ll" => Some(L),
        "ull" => Some(UL),
        _ => None,
    };
    let (from, to) = (scalar(from)?, scalar(to)?);
    let mode = match rounding {
        "rn" => "rte",
        "rz" => "rtz",
        "rd" => "rtn",
        "ru" => "rtp",
        _ => return None,
    };
    // OpenCL's rounding modes of int -> float conversions need the `_sat`-free form.
    let text = if to.is_float() && !from.is_float() || from == D && to == F || to == D {
        format!("convert_{}_{mode}(({})($0))", to.opencl(), from.opencl())
    } else {
        format!(
            "convert_{}_sat_{mode}(({})($0))",
            to.opencl(),
            from.opencl()
        )
    };
    Some(Found {
        text,
        ret: Is(to),
        arity: 1,
    })
}

/// How many arguments a row's text uses.
fn arity_of(text: &str) -> usize {
    (0..10)
        .take_while(|k| text.contains(&format!("${k}")))
        .count()
}

/// The return type of a builtin call given its first argument's type.
pub(crate) fn return_type(ret: Ret, first: Option<&Type>) -> Type {
    match ret {
        Ret::Is(s) => Type::Scalar(s),
        Ret::Void => Type::Void,
        Ret::Floating => match first {
            Some(Type::Scalar(s)) if s.is_float() => Type::Scalar(*s),
            Some(t @ Type::Vector(..)) => t.clone(),
            _ => Type::Scalar(D),
        },
    }
}

/// The helper functions some rows call: name and OpenCL C text (a helper calling another
/// names it in its text; `FnCx::builtin_helpers` emits the callee first).
pub(crate) const HELPERS: &[(&str, &str)] = &[
    ("ember_ffs", "int ember_ffs(int x) { return x == 0 ? 0 : 32 - (int)clz(x & -x); }\n"),
    ("ember_ffsll", "int ember_ffsll(long x) { return x == 0 ? 0 : 64 - (int)clz(x & -x); }\n"),
    ("ember_brev", concat!(
            "uint ember_brev(uint x) {\n",
            "    x = ((x >> 1) & 0x55555555U) | ((x & 0x55555555U) << 1);\n",
            "    x = ((x >> 2) & 0x33333333U) | ((x & 0x33333333U) << 2);\n",
            "    x = ((x >> 4) & 0x0F0F0F0FU) | ((x & 0x0F0F0F0FU) << 4);\n",
            "    x = ((x >> 8) & 0x00FF00FFU) | ((x & 0x00FF00FFU) << 8);\n",
            "    return (x >> 16) | (x << 16);\n}\n"
        )),
    ("ember_brevll", "ulong ember_brevll(ulong x) { return ((ulong)ember_brev((uint)x) << 32) | ember_brev((uint)(x >> 32)); }\n"),
    ("ember_byte_perm", concat!(
            "uint ember_byte_perm(uint x, uint y, uint s) {\n",
            "    ulong v = ((ulong)y << 32) | x; uint r = 0;\n",
            "    for (int i = 0; i < 4; i++) r |= (uint)((v >> (((s >> (4 * i)) & 7) * 8)) & 0xFF) << (8 * i);\n",
            "    return r;\n}\n"
        )),
    ("ember_funnelshift_l", "uint ember_funnelshift_l(uint lo, uint hi, uint s) { return (uint)(((((ulong)hi << 32) | lo) << (s & 31)) >> 32); }\n"),
    ("ember_funnelshift_r", "uint ember_funnelshift_r(uint lo, uint hi, uint s) { return (uint)((((ulong)hi << 32) | lo) >> (s & 31)); }\n"),
    ("ember_funnelshift_lc", "uint ember_funnelshift_lc(uint lo, uint hi, uint s) { return (uint)(((((ulong)hi << 32) | lo) << min(s, 32U)) >> 32); }\n"),
    ("ember_funnelshift_rc", "uint ember_funnelshift_rc(uint lo, uint hi, uint s) { return (uint)((((ulong)hi << 32) | lo) >> min(s, 32U)); }\n"),
    // The block's count of true predicates: reset, count, read, and a last barrier so that no
    // work-item resets the counter for the next vote before every one has read it.
    ("ember_syncthreads_count", concat!(
            "int ember_syncthreads_count(int p, __local int* n) {\n",
            "    if (get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0) *n = 0;\n",
            "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n",
            "    if (p) atomic_inc(n);\n",
            "    barrier(CLK_LOCAL_MEM_FENCE);\n",
            "    int count = *n;\n",
            "    barrier(CLK_LOCAL_MEM_FENCE);\n",
            "    return count;\n}\n"
        )),
    // CUDA never merges these into an fma. OpenCL compilers may contract (NVIDIA's even across
    // inlined functions; a volatile value does not stop it), so each is compiled with
    // contraction off, which NVIDIA's OpenCL keeps (`mul.rn`) after inlining.
    ("ember_fadd_rn", "float ember_fadd_rn(float a, float b) {\n#pragma OPENCL FP_CONTRACT OFF\n    return a + b;\n}\n"),
    ("ember_fsub_rn", "float ember_fsub_rn(float a, float b) {\n#pragma OPENCL FP_CONTRACT OFF\n    return a - b;\n}\n"),
    ("ember_fmul_rn", "float ember_fmul_rn(float a, float b) {\n#pragma OPENCL FP_CONTRACT OFF\n    return a * b;\n}\n"),
    ("ember_dadd_rn", "double ember_dadd_rn(double a, double b) {\n#pragma OPENCL FP_CONTRACT OFF\n    return a + b;\n}\n"),
    ("ember_dsub_rn", "double ember_dsub_rn(double a, double b) {\n#pragma OPENCL FP_CONTRACT OFF\n    return a - b;\n}\n"),
    ("ember_dmul_rn", "double ember_dmul_rn(double a, double b) {\n#pragma OPENCL FP_CONTRACT OFF\n    return a * b;\n}\n"),
    // `exact + error` (the error far below the double's last place) rounded to float toward
    // zero (0), down (-1) or up (1): the directed conversion of the double is right unless the
    // double is itself a float and the error pushes the exact value past it.
    ("ember_directed", concat!(
            "float ember_directed(double v, double err, int mode) {\n",
            "    float f = mode == 0 ? convert_float_rtz(v) : mode < 0 ? convert_float_rtn(v) : convert_float_rtp(v);\n",
            "    if ((double)f != v || err == 0.0) return f;\n",
            "    if (mode < 0 && err < 0.0) return nextafter(f, -INFINITY);\n",
            "    if (mode > 0 && err > 0.0) return nextafter(f, INFINITY);\n",
            "    if (mode == 0 && (err < 0.0) != (v < 0.0) && v != 0.0) return nextafter(f, 0.0f);\n",
            "    return f;\n}\n"
        )),
    // The sum's rounding error by TwoSum (exact in double).
    ("ember_fadd_d", concat!(
            "float ember_fadd_d(float a, float b, int mode) {\n",
            "    double s = (double)a + (double)b, bb = s - a;\n",
            "    return ember_directed(s, ((double)a - (s - bb)) + ((double)b - bb), mode);\n}\n"
        )),
    // The quotient's remainder a - q*b (exact by fma) says on which side the exact value lies.
    ("ember_fdiv_d", concat!(
            "float ember_fdiv_d(float a, float b, int mode) {\n",
            "    double q = (double)a / (double)b;\n",
            "    double r = fma(-q, (double)b, (double)a);\n",
            "    return ember_directed(q, b < 0.0f ? -r : r, mode);\n}\n"
        )),
    ("ember_fsqrt_d", concat!(
            "float ember_fsqrt_d(float x, int mode) {\n",
            "    double s = sqrt((double)x);\n",
            "    return ember_directed(s, fma(-s, s, (double)x), mode);\n}\n"
        )),
    ("ember_labs", "long ember_labs(long x) { return x < 0 ? -x : x; }\n"),
];
