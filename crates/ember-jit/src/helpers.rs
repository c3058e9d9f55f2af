//! Small C functions generated code calls, each emitted once and only when used: Python's
//! integer division and modulo, negative-index wrapping, atomics per (operation, dtype,
//! memory space), and the like.

use ember_codegen::types::value_type;
use ember_codegen::Dialect;
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::types::Space;

pub use crate::ir::AtomicOp;

impl AtomicOp {
    pub fn named(name: &str) -> Option<AtomicOp> {
        Some(match name {
            "add" => AtomicOp::Add,
            "sub" => AtomicOp::Sub,
            "max" => AtomicOp::Max,
            "min" => AtomicOp::Min,
            "nanmax" => AtomicOp::NanMax,
            "nanmin" => AtomicOp::NanMin,
            "exch" => AtomicOp::Exch,
            "and_" => AtomicOp::And,
            "or_" => AtomicOp::Or,
            "xor" => AtomicOp::Xor,
            "inc" => AtomicOp::Inc,
            "dec" => AtomicOp::Dec,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Sub => "sub",
            AtomicOp::Max => "max",
            AtomicOp::Min => "min",
            AtomicOp::NanMax => "nanmax",
            AtomicOp::NanMin => "nanmin",
            AtomicOp::Exch => "exch",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Inc => "inc",
            AtomicOp::Dec => "dec",
        }
    }

    /// The new value from the old one `o` and the operand `v`, as a C expression.
    fn combine(self, o: &str, v: &str) -> String {
        match self {
            AtomicOp::Add => format!("{o} + {v}"),
            AtomicOp::Sub => format!("{o} - {v}"),
            // Numba's float max/min: with a NaN on either side memory keeps its value; the
            // nan- forms ignore a NaN operand and replace a NaN in memory.
            AtomicOp::Max => format!("{v} > {o} ? {v} : {o}"),
            AtomicOp::Min => format!("{v} < {o} ? {v} : {o}"),
            AtomicOp::NanMax => format!("(({o} != {o}) || {v} > {o}) ? {v} : {o}"),
            AtomicOp::NanMin => format!("(({o} != {o}) || {v} < {o}) ? {v} : {o}"),
            AtomicOp::Exch => v.to_string(),
            AtomicOp::And => format!("{o} & {v}"),
            AtomicOp::Or => format!("{o} | {v}"),
            AtomicOp::Xor => format!("{o} ^ {v}"),
            // Numba's (CUDA's atomicInc/atomicDec, for 64 bits too).
            AtomicOp::Inc => format!("{o} >= {v} ? 0 : {o} + 1"),
            AtomicOp::Dec => format!("({o} == 0 || {o} > {v}) ? {v} : {o} - 1"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Helper {
    /// The struct of an array's shape and byte strides, for `ndim` dimensions.
    Dims(usize),
    /// `ember_wrap(i, n)`: a negative index counted from the end.
    Wrap,
    /// `ember_clamp(i, lo, hi)`: slice bounds.
    Clamp,
    /// `abs` of an integer dtype, keeping the dtype.
    Abs(DType),
    /// Python's `//` in a dtype (int64, uint64 or a float).
    FloorDiv(DType),
    /// Python's `%` in a dtype.
    Mod(DType),
    /// `**` with an integer exponent, in a dtype (int64, uint64 or a float base's).
    IntPow(DType),
    /// Python's `max`/`min` of two values of a dtype (the first wins ties and NaNs).
    Max(DType),
    Min(DType),
    /// `cuda.atomic.<op>` on an element of `dtype` in `space`; returns the old value.
    Atomic(AtomicOp, DType, Space),
    /// `cuda.atomic.cas` on an element of `dtype` in `space`.
    Cas(DType, Space),
    /// The thread's lane in its warp.
    LaneId,
    /// The launch's dynamic shared memory (`cuda.shared.array(0, dtype)`).
    DynamicShared,
    /// `ember_grid_sync()`: a barrier of the whole grid (CUDA, cooperative launches only).
    GridSync,
    /// A float rounded to the nearest value of a narrow float dtype (float16 arithmetic is
    /// done in float and rounded after every operation, as float16 hardware rounds).
    Round(DType),
    /// Device functions written elsewhere (a ufunc's helpers), as they are.
    Text(String),
    /// `ember_round_digits(x, ndigits)`: Python's `round(x, ndigits)` of a float, as Numba
    /// computes it (in double precision).
    RoundDigits,
    /// Python's `math`/`cmath` function (a name of [`crate::pymath`]) of an argument dtype.
    PyMath(&'static str, DType),
    /// The C type of an element of a structured dtype: `size` bytes, aligned to `align`.
    RecordBytes {
        size: usize,
        align: usize,
    },
    /// Loads and stores of a `dtype` value at an address in `space` that may not be aligned
    /// for it (a field of a packed record), byte by byte: wide misaligned accesses fault on
    /// GPUs and are undefined in C.
    Unaligned(DType, Space),
    /// A `datetime64`/`timedelta64` operation ([`crate::datetime`]).
    Datetime(crate::ir::DateOp),
    /// `ember_<op>_b<bits>`: CUDA's cache-hinted load (`op` `ldcs`...) or store (`stcs`...)
    /// of `bits` bits at a global address, as its PTX instruction (nothing elsewhere).
    CacheHint(&'static str, usize),
}

/// [`Helper::GridSync`]: a counter of arrived blocks and a generation, in the module. Each
/// block's first thread arrives; the last to arrive resets the counter and starts the next
/// generation, which the others wait for. A cooperative launch keeps every block resident, so
/// the waiting ends. (Two launches of one such kernel at once would share the counters: ember
/// launches them on one stream, in order.)
const GRID_SYNC: &str = "__device__ unsigned int ember_grid_arrived;
__device__ volatile unsigned int ember_grid_generation;
__device__ void ember_grid_sync() {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
    unsigned int generation = ember_grid_generation;
    __threadfence();
    if (atomicAdd(&ember_grid_arrived, 1u) == blocks - 1) {
      ember_grid_arrived = 0;
      __threadfence();
      atomicAdd((unsigned int*)&ember_grid_generation, 1u);
    } else {
      while (ember_grid_generation == generation) {}
    }
    __threadfence();
  }
  __syncthreads();
}
";

/// The C name of [`Helper::RecordBytes`].
pub fn record_bytes_name(size: usize, align: usize) -> String {
    format!("ember_rec{size}_a{align}")
}

/// The tag of [`Helper::Unaligned`]'s functions (`ember_ldu_<tag>`, `ember_stu_<tag>`).
pub fn unaligned_tag(d: DType, space: Space) -> String {
    let s = match space {
        Space::Global => "g",
        Space::Shared => "s",
        Space::Local => "l",
        Space::Const => "c",
    };
    format!("{}_{s}", name_of(d))
}

fn name_of(d: DType) -> &'static str {
    d.name()
}

impl Helper {
    /// The helper's C definition in `dialect`.
    pub fn source(&self, dialect: Dialect) -> String {
        let dev = dialect.table().device_fn;
        let i64t = value_type(DType::I64, dialect);
        match self {
            Helper::Dims(n) => {
                format!("typedef struct {{ {i64t} shape[{n}]; {i64t} strides[{n}]; }} ember_dims{n};\n")
            }
            Helper::Wrap => format!(
                "{dev} {i64t} ember_wrap({i64t} i, {i64t} n) {{ return i < 0 ? i + n : i; }}\n"
            ),
            Helper::Clamp => format!(
                "{dev} {i64t} ember_clamp({i64t} i, {i64t} lo, {i64t} hi) {{ return i < lo ? lo : (i > hi ? hi : i); }}\n"
            ),
            Helper::Abs(d) => {
                let t = value_type(*d, dialect);
                // Negated in the unsigned type: abs(MIN) wraps to MIN (NumPy, Numba), where a
                // signed overflow would let the compiler assume abs(x) >= 0.
                let u = value_type(d.unsigned_twin(), dialect);
                format!("{dev} {t} ember_abs_{n}({t} x) {{ return x < 0 ? ({t})(0 - ({u})x) : x; }}\n", n = name_of(*d))
            }
            Helper::FloorDiv(d) => floordiv(*d, dialect),
            Helper::Mod(d) => modulo(*d, dialect),
            Helper::IntPow(d) if d.kind() == Kind::Float => {
                // Numba's float ** integer: by squaring, 1 / r for a negative exponent, pow()
                // beyond 2**16.
                let t = value_type(*d, dialect);
                let pow = if *d == DType::F32 { format!("pow{}", dialect.table().float32_math_suffix) } else { "pow".into() };
                format!(
                    "{dev} {t} ember_ipow_{n}({t} b, {i64t} e) {{\n  if (e > 65536 || e < -65536) return {pow}(b, ({t})e);\n  {i64t} n = e < 0 ? -e : e;\n  {t} r = 1;\n  while (n) {{ if (n & 1) r *= b; b *= b; n >>= 1; }}\n  return e < 0 ? ({t})1 / r : r;\n}}\n",
                    n = name_of(*d)
                )
            }
            // Numba's integer power: a negative exponent of 0 gives the minimum int64 (its
            // error model on GPUs: no ZeroDivisionError).
            Helper::IntPow(d) => ember_codegen::arith::int_power(
                *d,
                dialect,
                dev,
                &format!("ember_ipow_{}", name_of(*d)),
                "(-9223372036854775807 - 1)",
            ),
            Helper::Max(d) | Helper::Min(d) => {
                let t = value_type(*d, dialect);
                let (op, which) = if matches!(self, Helper::Max(_)) {
                    (">", "max")
                } else {
                    ("<", "min")
                };
                let body = match d {
                    // Python's rule (the first unless the second beats it: a NaN first wins, a
                    // NaN second loses, a tie keeps the first's sign of zero) around fmax/fmin,
                    // which become one max.f32/min.f64 instruction as Numba's do.
                    DType::F32 | DType::F64 => {
                        let suffix = if *d == DType::F32 {
                            dialect.table().float32_math_suffix
                        } else {
                            ""
                        };
                        format!("return (a != a || a == b) ? a : f{which}{suffix}(a, b);")
                    }
                    _ => format!("return b {op} a ? b : a;"),
                };
                format!(
                    "{dev} {t} ember_{which}_{n}({t} a, {t} b) {{ {body} }}\n",
                    n = name_of(*d)
                )
            }
            Helper::Atomic(op, d, space) => atomic(*op, *d, *space, dialect),
            Helper::Cas(d, space) => cas(*d, *space, dialect),
            Helper::Round(d) => ember_codegen::types::round_function(*d, dialect, dev),
            Helper::Text(text) => text.clone(),
            Helper::RoundDigits => round_digits(dialect),
            Helper::RecordBytes { size, align } => format!(
                "typedef struct __attribute__((aligned({align}))) {{ unsigned char b[{size}]; }} {};\n",
                record_bytes_name(*size, *align)
            ),
            Helper::Unaligned(d, space) => unaligned(*d, *space, dialect),
            Helper::CacheHint(op, bits) => cache_hint(op, *bits, dialect),
            Helper::PyMath(name, d) => crate::pymath::source(name, *d, dialect),
            Helper::Datetime(op) => crate::datetime::source(*op, dialect),
            Helper::LaneId => dialect.table().lane_id_fn.replace("{dev}", dev),
            Helper::DynamicShared => dialect.table().dynamic_shared_decl.replace("{dev}", dev),
            Helper::GridSync => GRID_SYNC.to_string(),
        }
    }
}

/// The register type and inline-PTX constraint `bits` bits move in (8 bits in a 32-bit
/// register, as Numba's: PTX has no 8-bit registers and loads and stores may use wider ones).
pub fn hint_register(bits: usize) -> (&'static str, &'static str) {
    match bits {
        16 => ("unsigned short", "h"),
        64 => ("unsigned long long", "l"),
        _ => ("unsigned int", "r"),
    }
}

/// [`Helper::CacheHint`]: `asm volatile` with a memory clobber, so the compiler never merges,
/// drops or moves one across other memory accesses (a `.cv` load must read memory each time).
fn cache_hint(op: &str, bits: usize, dialect: Dialect) -> String {
    if dialect != Dialect::Cuda {
        return String::new();
    }
    let dev = dialect.table().device_fn;
    let (reg, c) = hint_register(bits);
    let (kind, hint) = op.split_at(2);
    if kind == "ld" {
        format!(
            "{dev} {reg} ember_{op}_b{bits}(const void* p) {{ {reg} v; asm volatile(\"ld.global.{hint}.b{bits} %0, [%1];\" : \"={c}\"(v) : \"l\"(p) : \"memory\"); return v; }}\n"
        )
    } else {
        format!(
            "{dev} void ember_{op}_b{bits}(void* p, {reg} v) {{ asm volatile(\"st.global.{hint}.b{bits} [%0], %1;\" :: \"l\"(p), \"{c}\"(v) : \"memory\"); }}\n"
        )
    }
}

/// The byte-by-byte load and store of [`Helper::Unaligned`].
fn unaligned(d: DType, space: Space, dialect: Dialect) -> String {
    let t = dialect.table();
    let dev = t.device_fn;
    let q = match space {
        Space::Global => t.global,
        Space::Shared => t.shared_pointer,
        Space::Const => t.constant_pointer,
        Space::Local => "",
    };
    let ty = ember_codegen::types::storage_type(d, dialect);
    let (tag, n) = (unaligned_tag(d, space), d.itemsize());
    let mut s = format!(
        "{dev} {ty} ember_ldu_{tag}(const {q}unsigned char* p) {{ {ty} v; unsigned char* b = (unsigned char*)&v; for (int k = 0; k < {n}; ++k) b[k] = p[k]; return v; }}\n"
    );
    if space != Space::Const {
        s.push_str(&format!(
            "{dev} void ember_stu_{tag}({q}unsigned char* p, {ty} v) {{ const unsigned char* b = (const unsigned char*)&v; for (int k = 0; k < {n}; ++k) p[k] = b[k]; }}\n"
        ));
    }
    s
}

/// Numba's `round(x, ndigits)` (CPython's fallback `double_round`): `x` itself where it is
/// not finite or where scaling it overflows, halfway cases to even, scaled by two factors
/// where `10^ndigits` alone would overflow.
fn round_digits(dialect: Dialect) -> String {
    let (dev, l) = (dialect.table().device_fn, dialect.table().int64);
    format!(
        r#"{dev} double ember_round_digits(double x, {l} nd) {{
  if (isinf(x) || isnan(x)) return x;
  double pow1, pow2 = 1.0, y;
  if (nd >= 0) {{
    if (nd > 22) {{ pow1 = pow(10.0, (double)(nd - 22)); pow2 = 1e22; }}
    else pow1 = pow(10.0, (double)nd);
    y = (x * pow1) * pow2;
    if (isinf(y)) return x;
  }} else {{
    pow1 = pow(10.0, (double)(-nd));
    y = x / pow1;
  }}
  double z = rint(y);
  if (fabs(y - z) == 0.5) z = 2.0 * rint(y / 2.0);
  return nd >= 0 ? (z / pow2) / pow1 : z * pow1;
}}
"#
    )
}

fn floordiv(d: DType, dialect: Dialect) -> String {
    let dev = dialect.table().device_fn;
    let t = value_type(d, dialect);
    let n = name_of(d);
    // The unsigned type of `d`'s width: `MIN // -1` wraps to MIN (NumPy) instead of trapping.
    let u = value_type(d.unsigned_twin(), dialect);
    match d.kind() {
        // NumPy's npy_divmod: floor of the quotient, exact at the boundaries.
        Kind::Float => format!(
            "{dev} {t} ember_floordiv_{n}({t} a, {t} b) {{\n  if (b == 0) return a / b;\n  {t} m = fmod(a, b);\n  {t} q = (a - m) / b;\n  if (m != 0 && ((b < 0) != (m < 0))) q -= 1;\n  if (q == 0) return copysign(({t})0, a / b);\n  {t} f = floor(q);\n  if (q - f > ({t})0.5) f += 1;\n  return f;\n}}\n"
        ),
        Kind::Int => format!(
            "{dev} {t} ember_floordiv_{n}({t} a, {t} b) {{\n  if (b == 0) return 0;\n  if (b == -1) return ({t})(0 - ({u})a);\n  {t} q = a / b;\n  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;\n  return q;\n}}\n"
        ),
        _ => format!("{dev} {t} ember_floordiv_{n}({t} a, {t} b) {{ return b == 0 ? 0 : a / b; }}\n"),
    }
}

fn modulo(d: DType, dialect: Dialect) -> String {
    let dev = dialect.table().device_fn;
    let t = value_type(d, dialect);
    let n = name_of(d);
    match d.kind() {
        Kind::Float => format!(
            "{dev} {t} ember_mod_{n}({t} a, {t} b) {{\n  if (b == 0) return fmod(a, b);\n  {t} m = fmod(a, b);\n  if (m != 0) {{ if ((b < 0) != (m < 0)) m += b; }} else {{ m = copysign(({t})0, b); }}\n  return m;\n}}\n"
        ),
        Kind::Int => format!(
            "{dev} {t} ember_mod_{n}({t} a, {t} b) {{\n  if (b == 0 || b == -1) return 0;\n  {t} m = a % b;\n  if (m != 0 && ((m < 0) != (b < 0))) m += b;\n  return m;\n}}\n"
        ),
        _ => format!("{dev} {t} ember_mod_{n}({t} a, {t} b) {{ return b == 0 ? 0 : a % b; }}\n"),
    }
}

/// The unsigned integer type of `d`'s width, and the functions reinterpreting `d`'s bits as
/// it and back (CUDA, OpenCL).
/// The unsigned type `d`'s bits move as, the conversions to and from it, and the `)`s that
/// close a `from_bits(` call (`from_bits` is a function name or a cast that opens its own).
fn bits_type(d: DType, dialect: Dialect) -> (&'static str, String, String, String) {
    let (u, to, from) = bits_conversions(d, dialect);
    let close = ")".repeat(1 + from.matches('(').count() - from.matches(')').count());
    (u, to, from, close)
}

fn bits_conversions(d: DType, dialect: Dialect) -> (&'static str, String, String) {
    let atomics = &dialect.table().atomics;
    let u = atomics.words[usize::from(d.itemsize() == 8)];
    let (to, from) = match d {
        DType::F32 => atomics.float_bits[0],
        DType::F64 => atomics.float_bits[1],
        _ => {
            let vt = value_type(d, dialect);
            return (u, format!("({u})"), format!("({vt})"));
        }
    };
    (u, to.into(), from.into())
}

/// The address-space qualifier of a pointer into `space` (OpenCL names them; CUDA does not).
fn qualifier(space: Space, dialect: Dialect) -> &'static str {
    let t = dialect.table();
    match space {
        Space::Shared => t.shared_pointer,
        _ => t.global,
    }
}

fn pointer(d: DType, space: Space, dialect: Dialect) -> String {
    format!("{}{}*", qualifier(space, dialect), value_type(d, dialect))
}

fn space_name(space: Space) -> &'static str {
    match space {
        Space::Shared => "s",
        Space::Local => "l",
        _ => "g",
    }
}

/// Name of the atomic helper for `op` on `d` in `space`.
pub fn atomic_name(op: AtomicOp, d: DType, space: Space) -> String {
    format!(
        "ember_atomic_{}_{}_{}",
        op.name(),
        d.name(),
        space_name(space)
    )
}

pub fn cas_name(d: DType, space: Space) -> String {
    format!("ember_atomic_cas_{}_{}", d.name(), space_name(space))
}

/// The hardware compare-and-swap of `bits`-wide unsigned words at `p`.
fn cas_call(dialect: Dialect, wide: bool, space: Space, p: &str, old: &str, new: &str) -> String {
    dialect.table().atomics.cas[usize::from(wide)]
        .replace("{q}", qualifier(space, dialect).trim_end())
        .replace("{p}", p)
        .replace("{old}", old)
        .replace("{new}", new)
}

fn atomic(op: AtomicOp, d: DType, space: Space, dialect: Dialect) -> String {
    let dev = dialect.table().device_fn;
    let t = value_type(d, dialect);
    let name = atomic_name(op, d, space);
    let ptr = pointer(d, space, dialect);
    let wide = d.itemsize() == 8;
    // A native instruction where the hardware has one for this type.
    if let Some(call) = native_atomic(op, d, space, dialect) {
        return format!("{dev} {t} {name}({ptr} p, {t} v) {{ return {call}; }}\n");
    }
    let (u, to_bits, from_bits, close) = bits_type(d, dialect);
    let q = qualifier(space, dialect);
    let cas = cas_call(
        dialect,
        wide,
        space,
        "q",
        "assumed",
        &format!("{to_bits}(n)"),
    );
    format!(
        "{dev} {t} {name}({ptr} p, {t} v) {{\n  {q}{u}* q = ({q}{u}*)p;\n  {u} old = *q, assumed;\n  do {{\n    assumed = old;\n    {t} o = {from_bits}(assumed{close};\n    {t} n = {};\n    old = {cas};\n  }} while (assumed != old);\n  return {from_bits}(old{close};\n}}\n",
        op.combine("o", "v")
    )
}

/// The single call that does `op` on `d`, if the dialect has one.
fn native_atomic(op: AtomicOp, d: DType, space: Space, dialect: Dialect) -> Option<String> {
    let atomics = &dialect.table().atomics;
    let op = integer_form(op, d).name();
    let &(_, narrow, wide) = atomics.functions.iter().find(|(name, ..)| *name == op)?;
    let f = if d.itemsize() == 8 { wide } else { narrow };
    let (_, _, template) = atomics
        .native
        .iter()
        .find(|(ops, dtypes, _)| (ops.is_empty() || ops.contains(&op)) && dtypes.contains(&d))?;
    Some(
        template
            .replace("{f}", f)
            .replace("{p}", "p")
            .replace("{v}", "v")
            .replace("{t}", value_type(d, dialect))
            .replace("{q}", qualifier(space, dialect).trim_end()),
    )
}

/// On integers the NaN-aware forms are the plain ones.
fn integer_form(op: AtomicOp, d: DType) -> AtomicOp {
    match op {
        AtomicOp::NanMax if d.kind() != Kind::Float => AtomicOp::Max,
        AtomicOp::NanMin if d.kind() != Kind::Float => AtomicOp::Min,
        other => other,
    }
}

fn cas(d: DType, space: Space, dialect: Dialect) -> String {
    let dev = dialect.table().device_fn;
    let t = value_type(d, dialect);
    let ptr = pointer(d, space, dialect);
    let (u, to_bits, from_bits, close) = bits_type(d, dialect);
    let q = qualifier(space, dialect);
    let call = cas_call(
        dialect,
        d.itemsize() == 8,
        space,
        &format!("({q}{u}*)p"),
        &format!("{to_bits}(expected)"),
        &format!("{to_bits}(v)"),
    );
    format!(
        "{dev} {t} {}({ptr} p, {t} expected, {t} v) {{ return {from_bits}({call}{close}; }}\n",
        cas_name(d, space)
    )
}

/// The OpenCL extensions generated code needs for 64-bit atomics.
pub fn extension_pragmas(helpers: &std::collections::BTreeSet<Helper>, dialect: Dialect) -> String {
    let wide = helpers
        .iter()
        .any(|h| matches!(h, Helper::Atomic(_, d, _) | Helper::Cas(d, _) if d.itemsize() == 8));
    match dialect.table().int64_atomics_pragma {
        Some(pragma) if wide => pragma.into(),
        _ => String::new(),
    }
}
