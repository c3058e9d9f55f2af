//! What differs between CUDA C and OpenCL C, as data.

use ember_core::DType;

/// The C dialect to emit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    Cuda,
    OpenCl,
}

/// How four consecutive 4- or 8-byte elements load at once.
pub struct VectorLoad {
    /// Elements per vector: 4 (one vector holds the group) or 2 (two vectors do).
    pub lanes: usize,
    /// With 4 lanes, the vector of group `{i}` of typed pointer `{p}`; with 2, a pointer to
    /// vectors at `{p}` (vectors `2 * i` and `2 * i + 1` hold group `i`). `{vt}` is the
    /// dtype's vector type ([`crate::dtypes::Columns::vector`]).
    pub template: &'static str,
    /// Whether the load needs the group 16-byte aligned.
    pub aligned: bool,
}

/// A dialect's atomic operations on 4- and 8-byte words.
pub struct Atomics {
    /// Per operation (`add`, `sub`, `max`, `min`, `exch`, `and`, `or`, `xor`): its function
    /// on 4-byte and on 8-byte words.
    pub functions: &'static [(&'static str, &'static str, &'static str)],
    /// The single calls doing an operation, as rows of (operations, empty for any; dtypes;
    /// template), the first match winning; `{f}` is the operation's function, `{p}` the
    /// pointer, `{v}` the operand, `{t}` the value type and `{q}` the pointer's address
    /// space. Anything else loops on compare-and-swap.
    pub native: &'static [(&'static [&'static str], &'static [DType], &'static str)],
    /// Compare-and-swap of the unsigned 4- and 8-byte word at `{p}` (address space `{q}`)
    /// from `{old}` to `{new}`, returning the old word.
    pub cas: [&'static str; 2],
    /// The unsigned 4- and 8-byte word types.
    pub words: [&'static str; 2],
    /// float32's and float64's conversions to their word and back: (to, from); a `from`
    /// may open a parenthesis that the caller closes.
    pub float_bits: [(&'static str, &'static str); 2],
}

/// The dialect's spelling of each construct the emitter uses.
/// A warp's collective operations (32 lanes, all taking part), where the dialect has them.
#[derive(Debug)]
pub struct Warp {
    /// The `{value}` of the lane `{lane}` below (a lane below 0 reads its own).
    pub up: &'static str,
    /// The `{value}` of lane `{lane}`.
    pub from: &'static str,
    /// The mask of the lanes whose `{pred}` holds.
    pub ballot: &'static str,
    /// The lowest lane set in a nonzero `{mask}`.
    pub lowest: &'static str,
    /// The mask of the lanes whose `{value}` equals this lane's.
    pub match_any: &'static str,
    /// The number of lanes set in `{mask}`.
    pub count: &'static str,
    /// Kernel attribute bounding its registers for `{threads}` threads, `{blocks}` blocks
    /// resident on a multiprocessor.
    pub launch_bounds: &'static str,
}

pub struct Table {
    /// The dialect's name, as messages and the prelude's first line write it.
    pub name: &'static str,
    /// The dialect's name in Python's `dialect` arguments.
    pub key: &'static str,
    /// Start of a kernel definition, before the name.
    pub kernel_prefix: &'static str,
    /// Qualifier of a pointer into device memory.
    pub global: &'static str,
    /// 64-bit signed integer type.
    pub int64: &'static str,
    /// This thread's index in the whole launch (first axis), as int64.
    pub global_id: &'static str,
    /// Number of threads in the launch (first axis), as int64.
    pub global_size: &'static str,
    /// Block-level barrier.
    pub barrier: &'static str,
    /// Qualifier of block-shared memory.
    pub shared: &'static str,
    /// Qualifier of a helper function.
    pub device_fn: &'static str,
    /// Whether each buffer parameter is followed by a byte offset (OpenCL cannot offset a
    /// `cl_mem` on the host side).
    pub buffer_offsets: bool,
    /// This thread's index in its block (first axis), as int.
    pub local_id: &'static str,
    /// The block's index along the first and second grid axes, as int64.
    pub group_id: [&'static str; 2],
    /// Number of blocks along the first and second grid axes, as int64.
    pub num_groups: [&'static str; 2],
    /// Exchange of a 32- or 64-bit `{value}` with lane `this ^ {lane}` of the warp, where the
    /// dialect has one (OpenCL C 1.2 does not: reductions go through local memory there).
    pub shuffle_xor: Option<&'static str>,
    /// Positive infinity as a float expression.
    pub infinity: &'static str,
    /// The line that starts a program whose floating-point operations each round on their
    /// own, as NumPy's do, where the dialect says so in the source: OpenCL C contracts
    /// `a * b + c` into one fused multiply-add by default and has no compile option against it.
    pub separate_rounding_pragma: Option<&'static str>,
    /// The compile options for the same: NVRTC contracts across statements by default
    /// (`-fmad=true`) and ignores `#pragma STDC FP_CONTRACT` (checked with NVRTC 13.5).
    /// Explicit `fma()` calls stay fused either way.
    pub separate_rounding_options: &'static [&'static str],
    /// The option asking for correctly rounded float32 division and square root, where they
    /// are not by default and the device offers them (NVIDIA's OpenCL rounds them loosely
    /// without it; NVRTC rounds them correctly unless told otherwise).
    pub correctly_rounded_divide_sqrt_option: Option<&'static str>,
    /// The option relaxing IEEE rules for speed (Numba's `fastmath=True`).
    pub fast_math_option: &'static str,
    /// The option turning the device compiler's optimisation off (Numba's `opt=False`).
    pub no_optimization_option: &'static str,
    /// Suffix of a 64-bit integer literal.
    pub int64_suffix: &'static str,
    /// printf's length modifier of a 64-bit integer (`%lld`: OpenCL C's printf has no `ll`).
    pub printf_int64: &'static str,
    /// printf's conversion of a double as `%f` writes it (PoCL's printf reads a `%f` argument
    /// as a float: `%lf` keeps all of a double).
    pub printf_double: &'static str,
    /// What a source that calls printf starts with (OpenCL compilers are clang: told not to warn
    /// that `%lf` is not OpenCL C's).
    pub printf_preamble: &'static str,
    /// Suffix naming a math function's float32 version (`sqrtf`); empty where one
    /// overloaded name serves every float type.
    pub float32_math_suffix: &'static str,
    /// A quiet NaN as a float expression.
    pub nan: &'static str,
    /// The 32-bit integer atomic maximum function.
    pub atomic_max: &'static str,
    /// The line enabling float64, where the dialect makes it an extension.
    pub fp64_pragma: Option<&'static str>,
    /// The lines enabling 64-bit integer atomics, where the dialect makes them extensions.
    pub int64_atomics_pragma: Option<&'static str>,
    /// Definitions the prelude starts with (integer names, float64, inert CUDA qualifiers),
    /// where the dialect needs them.
    pub prelude_base: Option<&'static str>,
    /// The complex types and their constructors.
    pub complex_types: &'static str,
    /// A complex constant in a constant initializer, from `{type}` (the value type) and
    /// `{parts}` (`re, im`): CUDA's constexpr constructor, or an OpenCL vector literal (where
    /// braces would give each part an element of its own).
    pub complex_initializer: &'static str,
    /// Operators over the complex types, where the dialect has operator overloading.
    pub complex_operators: Option<&'static str>,
    /// Whether float `tanh(+-inf)` and `log1p` of tiny values must be guarded (PoCL's are
    /// off by an ulp or more there).
    pub guard_tanh_log1p: bool,
    /// Whether the dialect has C++ references: a user kernel's output binds as
    /// `T& y = *(p)`; without them, through a macro.
    pub references: bool,
    /// The value-initialised (zero) value of type `{t}`.
    pub zero_value: &'static str,
    /// C type names as user snippets write them (CUDA's), and this dialect's spelling.
    pub c_type_spellings: &'static [(&'static str, &'static str)],
    /// Vector loads of 4-byte and of 8-byte elements.
    pub vector_loads: [VectorLoad; 2],
    /// This thread's index in its block along axis `{x}` (letter) / `{k}` (number).
    pub thread_idx: &'static str,
    /// The block's size along an axis, as [`Table::thread_idx`].
    pub block_dim: &'static str,
    /// The block's index along an axis, as [`Table::thread_idx`].
    pub block_idx: &'static str,
    /// The number of blocks along an axis, as [`Table::thread_idx`].
    pub grid_dim: &'static str,
    /// This thread's index in the whole launch along an axis, as [`Table::thread_idx`].
    pub global_index: &'static str,
    /// The number of threads in the launch along an axis, as [`Table::thread_idx`].
    pub global_extent: &'static str,
    /// Qualifier of a pointer into block-shared memory.
    pub shared_pointer: &'static str,
    /// Qualifier of a pointer into constant memory.
    pub constant_pointer: &'static str,
    /// Qualifier of a program-scope constant array.
    pub constant: &'static str,
    /// Whether a device function may declare block-shared arrays (else only the kernel).
    pub shared_in_device_functions: bool,
    /// Whether dynamic shared memory is a kernel parameter (a pointer and its byte count)
    /// rather than an extern array sized by the launch.
    pub dynamic_shared_param: bool,
    /// The declaration of dynamic shared memory and `ember_dynamic_shared_size()`, `{dev}`
    /// the helper qualifier; empty where it is a parameter.
    pub dynamic_shared_decl: &'static str,
    /// Helper `int ember_laneid(void)`, `{dev}` the helper qualifier.
    pub lane_id_fn: &'static str,
    /// Barrier of the warp's lanes in `{mask}`, where the dialect has warps (else the
    /// block barrier serves).
    pub warp_barrier: Option<&'static str>,
    /// Memory fences: device-wide, block-wide, system-wide.
    pub fences: [&'static str; 3],
    /// Warp operations, where the dialect has them (scans by warps use them).
    pub warp: Option<Warp>,
    /// Prefix of a user-named kernel's symbol, where the dialect has builtins a kernel may
    /// not be named after (OpenCL C's `mad`, `clamp`).
    pub user_symbol_prefix: &'static str,
    /// Whether `@jit` kernels coarsen by default (measured worthwhile through NVRTC on
    /// NVIDIA GPUs; see ember-kernel's `plan`).
    pub coarsen_by_default: bool,
    /// Atomic operations.
    pub atomics: Atomics,
}

const CUDA: Table = Table {
    name: "CUDA",
    key: "cuda",
    kernel_prefix: "extern \"C\" __global__ void",
    global: "",
    int64: "long long",
    global_id: "((long long)blockIdx.x * blockDim.x + threadIdx.x)",
    global_size: "((long long)gridDim.x * blockDim.x)",
    barrier: "__syncthreads()",
    shared: "__shared__",
    device_fn: "static __device__ __forceinline__",
    buffer_offsets: false,
    local_id: "(int)threadIdx.x",
    group_id: ["(long long)blockIdx.x", "(long long)blockIdx.y"],
    num_groups: ["(long long)gridDim.x", "(long long)gridDim.y"],
    shuffle_xor: Some("__shfl_xor_sync(0xffffffffu, {value}, {lane})"),
    infinity: "__int_as_float(0x7f800000)",
    separate_rounding_pragma: None,
    separate_rounding_options: &["-fmad=false"],
    correctly_rounded_divide_sqrt_option: None,
    fast_math_option: "-use_fast_math",
    // NVRTC's one switch for unoptimised device code is debug mode (its -dopt takes only "on").
    no_optimization_option: "-G",
    int64_suffix: "LL",
    printf_int64: "ll",
    printf_double: "%f",
    printf_preamble: "",
    float32_math_suffix: "f",
    nan: "__int_as_float(0x7fffffff)",
    atomic_max: "atomicMax",
    fp64_pragma: None,
    int64_atomics_pragma: None,
    prelude_base: None,
    complex_types: crate::prelude::CUDA_COMPLEX_TYPES,
    complex_initializer: "{type}({parts})",
    complex_operators: Some(crate::prelude::CUDA_COMPLEX_OPERATORS),
    guard_tanh_log1p: false,
    references: true,
    zero_value: "{t}()",
    c_type_spellings: &[],
    vector_loads: [
        VectorLoad {
            lanes: 4,
            template: "reinterpret_cast<const {vt}*>({p})[{i}]",
            aligned: true,
        },
        VectorLoad {
            lanes: 2,
            template: "reinterpret_cast<const {vt}*>({p})",
            aligned: true,
        },
    ],
    thread_idx: "threadIdx.{x}",
    block_dim: "blockDim.{x}",
    block_idx: "blockIdx.{x}",
    grid_dim: "gridDim.{x}",
    global_index: "blockIdx.{x} * blockDim.{x} + threadIdx.{x}",
    global_extent: "gridDim.{x} * blockDim.{x}",
    shared_pointer: "",
    constant_pointer: "",
    constant: "__constant__ ",
    shared_in_device_functions: true,
    dynamic_shared_param: false,
    dynamic_shared_decl: "extern __shared__ __align__(16) unsigned char ember_dynamic_shared[];\n{dev} long long ember_dynamic_shared_size(void) { unsigned int s; asm(\"mov.u32 %0, %%dynamic_smem_size;\" : \"=r\"(s)); return (long long)s; }\n",
    lane_id_fn: "{dev} int ember_laneid(void) { unsigned int l; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(l)); return (int)l; }\n",
    warp_barrier: Some("__syncwarp({mask})"),
    fences: [
        "__threadfence()",
        "__threadfence_block()",
        "__threadfence_system()",
    ],
    warp: Some(Warp {
        up: "__shfl_up_sync(0xffffffffu, {value}, {lane})",
        from: "__shfl_sync(0xffffffffu, {value}, {lane})",
        ballot: "__ballot_sync(0xffffffffu, {pred})",
        lowest: "(__ffs({mask}) - 1)",
        match_any: "__match_any_sync(0xffffffffu, {value})",
        count: "__popc({mask})",
        launch_bounds: "__launch_bounds__({threads}, {blocks})",
    }),
    user_symbol_prefix: "",
    coarsen_by_default: true,
    atomics: Atomics {
        functions: &[
            ("add", "atomicAdd", "atomicAdd"),
            ("sub", "atomicSub", "atomicSub"),
            ("max", "atomicMax", "atomicMax"),
            ("min", "atomicMin", "atomicMin"),
            ("exch", "atomicExch", "atomicExch"),
            ("and", "atomicAnd", "atomicAnd"),
            ("or", "atomicOr", "atomicOr"),
            ("xor", "atomicXor", "atomicXor"),
        ],
        native: &[
            (&[], &[DType::I32, DType::U32], "{f}({p}, {v})"),
            (
                &["sub"],
                &[DType::U64],
                "atomicAdd({p}, (unsigned long long)(0ULL - {v}))",
            ),
            (&[], &[DType::U64], "{f}({p}, {v})"),
            (
                &["add", "exch", "and", "or", "xor"],
                &[DType::I64],
                "(long long){f}((unsigned long long*){p}, (unsigned long long){v})",
            ),
            (
                &["sub"],
                &[DType::I64],
                "(long long)atomicAdd((unsigned long long*){p}, (unsigned long long)(-{v}))",
            ),
            (&["max", "min"], &[DType::I64], "{f}({p}, {v})"),
            (&["add"], &[DType::F32, DType::F64], "atomicAdd({p}, {v})"),
            (&["sub"], &[DType::F32, DType::F64], "atomicAdd({p}, -{v})"),
            (&["exch"], &[DType::F32], "atomicExch({p}, {v})"),
        ],
        cas: [
            "atomicCAS({p}, {old}, {new})",
            "atomicCAS({p}, {old}, {new})",
        ],
        words: ["unsigned int", "unsigned long long"],
        float_bits: [
            ("__float_as_uint", "__uint_as_float"),
            (
                "(unsigned long long)__double_as_longlong",
                "__longlong_as_double((long long)",
            ),
        ],
    },
};

const OPENCL: Table = Table {
    name: "OpenCL",
    key: "opencl",
    kernel_prefix: "__kernel void",
    global: "__global ",
    int64: "long",
    global_id: "((long)get_global_id(0))",
    global_size: "((long)get_global_size(0))",
    barrier: "barrier(CLK_LOCAL_MEM_FENCE)",
    shared: "__local",
    device_fn: "static inline",
    buffer_offsets: true,
    local_id: "(int)get_local_id(0)",
    group_id: ["(long)get_group_id(0)", "(long)get_group_id(1)"],
    num_groups: ["(long)get_num_groups(0)", "(long)get_num_groups(1)"],
    shuffle_xor: None,
    infinity: "INFINITY",
    separate_rounding_pragma: Some("#pragma OPENCL FP_CONTRACT OFF"),
    separate_rounding_options: &[],
    correctly_rounded_divide_sqrt_option: Some("-cl-fp32-correctly-rounded-divide-sqrt"),
    fast_math_option: "-cl-fast-relaxed-math",
    no_optimization_option: "-cl-opt-disable",
    int64_suffix: "L",
    printf_int64: "l",
    printf_double: "%lf",
    printf_preamble: "#pragma clang diagnostic ignored \"-Wformat\"\n",
    float32_math_suffix: "",
    nan: "NAN",
    atomic_max: "atomic_max",
    fp64_pragma: Some("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"),
    int64_atomics_pragma: Some("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"),
    prelude_base: Some(crate::prelude::OPENCL_BASE),
    complex_types: crate::prelude::OPENCL_COMPLEX_TYPES,
    complex_initializer: "({type})({parts})",
    complex_operators: None,
    guard_tanh_log1p: true,
    references: false,
    zero_value: "({t})(0)",
    c_type_spellings: &[
        ("unsigned long long", "ulong"),
        ("long long", "long"),
        ("bool", "uchar"),
    ],
    // vload4 takes any alignment.
    vector_loads: [
        VectorLoad {
            lanes: 4,
            template: "vload4({i}, {p})",
            aligned: false,
        },
        VectorLoad {
            lanes: 4,
            template: "vload4({i}, {p})",
            aligned: false,
        },
    ],
    thread_idx: "get_local_id({k})",
    block_dim: "get_local_size({k})",
    block_idx: "get_group_id({k})",
    grid_dim: "get_num_groups({k})",
    global_index: "get_global_id({k})",
    global_extent: "get_global_size({k})",
    shared_pointer: "__local ",
    constant_pointer: "__constant ",
    constant: "__constant ",
    shared_in_device_functions: false,
    dynamic_shared_param: true,
    dynamic_shared_decl: "",
    lane_id_fn: "{dev} int ember_laneid(void) { return (int)((get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) + get_local_id(0)) & 31; }\n",
    warp_barrier: None,
    fences: [
        "mem_fence(CLK_GLOBAL_MEM_FENCE)",
        "mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)",
        "mem_fence(CLK_GLOBAL_MEM_FENCE)",
    ],
    warp: None,
    user_symbol_prefix: "ember_",
    coarsen_by_default: false,
    atomics: Atomics {
        functions: &[
            ("add", "atomic_add", "atom_add"),
            ("sub", "atomic_sub", "atom_sub"),
            ("max", "atomic_max", "atom_max"),
            ("min", "atomic_min", "atom_min"),
            ("exch", "atomic_xchg", "atom_xchg"),
            ("and", "atomic_and", "atom_and"),
            ("or", "atomic_or", "atom_or"),
            ("xor", "atomic_xor", "atom_xor"),
        ],
        native: &[
            (
                &[],
                &[DType::I32, DType::U32, DType::I64, DType::U64],
                "{f}((volatile {q} {t}*){p}, {v})",
            ),
            (
                &["exch"],
                &[DType::F32],
                "atomic_xchg((volatile {q} float*){p}, {v})",
            ),
        ],
        cas: [
            "atomic_cmpxchg((volatile {q} uint*){p}, {old}, {new})",
            "atom_cmpxchg((volatile {q} ulong*){p}, {old}, {new})",
        ],
        words: ["uint", "ulong"],
        float_bits: [("as_uint", "as_float"), ("as_ulong", "as_double")],
    },
};

impl Table {
    /// The kernel parameter holding dynamic shared memory where it is one (OpenCL): a pointer
    /// to 16-byte vectors, aligned as CUDA's extern array is. NVIDIA's OpenCL places a
    /// `__local` argument right after the kernel's static local memory, aligned only as its
    /// pointee, so a `uchar*` may start at any byte and wider accesses through it fault.
    pub fn dynamic_shared_parameter(&self) -> String {
        format!("{}ulong2* ember_dynamic_shared", self.shared_pointer)
    }

    /// Geometry template `template` (see [`Table::thread_idx`]) along axis `k`.
    pub fn axis(&self, template: &str, k: usize) -> String {
        template
            .replace("{x}", ["x", "y", "z"][k])
            .replace("{k}", &k.to_string())
    }

    /// The statement moving buffer pointer `var` (to `ty`, const when `read_only`) by its
    /// byte-offset parameter `offset`: OpenCL passes a buffer and its offset apart, since a
    /// `cl_mem` cannot be offset on the host. `None` for CUDA, which passes the address.
    pub fn offset_pointer(
        &self,
        var: &str,
        ty: &str,
        read_only: bool,
        offset: &str,
    ) -> Option<String> {
        if !self.buffer_offsets {
            return None;
        }
        let (g, c) = (self.global, if read_only { "const " } else { "" });
        Some(format!(
            "  {var} = ({g}{c}{ty}*)((({g}{c}char*){var}) + {offset});\n"
        ))
    }
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 2] = [Dialect::Cuda, Dialect::OpenCl];

    /// The declaration prefix and suffix aligning an array to `bytes`.
    pub fn aligned(self, bytes: u32) -> (String, String) {
        match self {
            Dialect::Cuda => (format!("__align__({bytes}) "), String::new()),
            Dialect::OpenCl => (String::new(), format!(" __attribute__((aligned({bytes})))")),
        }
    }

    /// The dialect Python calls `key` (`"cuda"`, `"opencl"`).
    pub fn named(key: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.table().key == key)
    }

    /// The statement declaring `{name}0..{name}3`, elements `4 * index ..` of `ptr` (a typed
    /// pointer to `dtype`), read with one or two vector loads.
    pub fn vector_load(self, dtype: DType, ptr: &str, index: &str, name: &str) -> String {
        let st = crate::types::storage_type(dtype, self);
        let decl = |parts: [String; 4]| {
            parts
                .iter()
                .enumerate()
                .map(|(k, part)| format!("const {st} {name}{k} = {part};"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let (load, vt) = self.vector_parts(dtype);
        if load.lanes == 4 {
            format!(
                "const {vt} {name}v = {}; {}",
                load.template
                    .replace("{vt}", vt)
                    .replace("{p}", ptr)
                    .replace("{i}", index),
                decl(["x", "y", "z", "w"].map(|c| format!("{name}v.{c}")))
            )
        } else {
            let q = load.template.replace("{vt}", vt).replace("{p}", ptr);
            format!(
                "const {vt}* {name}q = {q} + 2 * ({index}); const {vt} {name}a = {name}q[0]; const {vt} {name}b = {name}q[1]; {}",
                decl(["a.x", "a.y", "b.x", "b.y"].map(|c| format!("{name}{c}")))
            )
        }
    }

    /// The block reading elements `4 * {index} ..` of `ptr` into `{array}[0..4]`.
    pub fn vector_load_into(self, dtype: DType, ptr: &str, index: &str, array: &str) -> String {
        let (load, vt) = self.vector_parts(dtype);
        if load.lanes == 4 {
            let v = load
                .template
                .replace("{vt}", vt)
                .replace("{p}", ptr)
                .replace("{i}", index);
            format!("{{ {vt} _t = {v}; {array}[0] = _t.x; {array}[1] = _t.y; {array}[2] = _t.z; {array}[3] = _t.w; }}")
        } else {
            let q = load.template.replace("{vt}", vt).replace("{p}", ptr);
            format!("{{ const {vt}* _q = {q} + 2 * ({index}); {vt} _a = _q[0], _b = _q[1]; {array}[0] = _a.x; {array}[1] = _a.y; {array}[2] = _b.x; {array}[3] = _b.y; }}")
        }
    }

    /// The statement writing `values` as elements `4 * index ..` of `ptr` (a typed pointer to
    /// `dtype`, 16-byte aligned there), with one or two vector stores.
    pub fn vector_store(
        self,
        dtype: DType,
        ptr: &str,
        index: &str,
        values: &[String; 4],
    ) -> String {
        let (load, vt) = self.vector_parts(dtype);
        let g = self.table().global;
        let at = format!("(({g}{vt}*)({ptr}))");
        if load.lanes == 4 {
            format!(
                "{{ {vt} _w; _w.x = {}; _w.y = {}; _w.z = {}; _w.w = {}; {at}[{index}] = _w; }}",
                values[0], values[1], values[2], values[3]
            )
        } else {
            format!(
                "{{ {vt} _a, _b; _a.x = {}; _a.y = {}; _b.x = {}; _b.y = {}; {at}[2 * ({index})] = _a; {at}[2 * ({index}) + 1] = _b; }}",
                values[0], values[1], values[2], values[3]
            )
        }
    }

    /// Whether [`Dialect::vector_load`] of `dtype` needs its group 16-byte aligned.
    pub fn vector_load_aligned(self, dtype: DType) -> bool {
        self.vector_parts(dtype).0.aligned
    }

    fn vector_parts(self, dtype: DType) -> (&'static VectorLoad, &'static str) {
        // Callers check `vector_loadable` first; any other dtype reads as 8-byte words.
        let wide = dtype.itemsize() != 4;
        let load = &self.table().vector_loads[usize::from(wide)];
        let columns = crate::dtypes::columns(dtype);
        let vector = columns.vector.or(crate::dtypes::columns(DType::U64).vector);
        let vt = crate::dtypes::pick(vector.expect("uint64 has vector loads"), self);
        (load, vt)
    }

    /// The dialect's table.
    pub fn table(self) -> &'static Table {
        match self {
            Dialect::Cuda => &CUDA,
            Dialect::OpenCl => &OPENCL,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dialect_is_found_by_its_key() {
        for d in Dialect::ALL {
            assert_eq!(Dialect::named(d.table().key), Some(d));
        }
        assert_eq!(Dialect::named("metal"), None);
    }

    #[test]
    fn first_axis_geometry_agrees_with_the_per_axis_templates() {
        for d in Dialect::ALL {
            let t = d.table();
            let cast = |c: &str, template: &str, k: usize| format!("({c}){}", t.axis(template, k));
            assert_eq!(
                t.global_id,
                format!("({})", cast(t.int64, t.global_index, 0))
            );
            assert_eq!(
                t.global_size,
                format!("({})", cast(t.int64, t.global_extent, 0))
            );
            assert_eq!(t.local_id, cast("int", t.thread_idx, 0));
            for k in 0..2 {
                assert_eq!(t.group_id[k], cast(t.int64, t.block_idx, k));
                assert_eq!(t.num_groups[k], cast(t.int64, t.grid_dim, k));
            }
        }
    }

    #[test]
    fn vector_loads_read_four_elements() {
        let cuda = Dialect::Cuda.vector_load(DType::F64, "p", "i", "a");
        assert!(
            cuda.contains("reinterpret_cast<const double2*>(p) + 2 * (i)"),
            "{cuda}"
        );
        assert!(cuda.ends_with("const double a3 = ab.y;"), "{cuda}");
        let cl = Dialect::OpenCl.vector_load(DType::I32, "p", "i", "a");
        assert!(cl.starts_with("const int4 av = vload4(i, p);"), "{cl}");
        assert!(Dialect::Cuda.vector_load_aligned(DType::F32));
        assert!(!Dialect::OpenCl.vector_load_aligned(DType::F32));
    }
}
