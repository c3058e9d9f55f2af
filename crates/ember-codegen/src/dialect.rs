//! What differs between CUDA C and OpenCL C, as data.

/// The C dialect to emit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    Cuda,
    OpenCl,
}

/// The dialect's spelling of each construct the emitter uses.
pub struct Table {
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
}

const CUDA: Table = Table {
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
};

const OPENCL: Table = Table {
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
};

impl Table {
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
    /// The dialect's table.
    pub fn table(self) -> &'static Table {
        match self {
            Dialect::Cuda => &CUDA,
            Dialect::OpenCl => &OPENCL,
        }
    }
}
