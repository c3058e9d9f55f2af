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
};

impl Dialect {
    /// The dialect's table.
    pub fn table(self) -> &'static Table {
        match self {
            Dialect::Cuda => &CUDA,
            Dialect::OpenCl => &OPENCL,
        }
    }
}
