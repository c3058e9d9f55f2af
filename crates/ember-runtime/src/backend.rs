//! The Backend trait: the few things ember needs from a GPU API, CUDA or OpenCL.
//!
//! Handles are plain integers (a `CUdeviceptr`, a `cl_mem` pointer, ...) so the trait stays
//! object-safe and the layers above never see API types. Each backend instance serves one device.

use std::sync::Arc;

use ember_core::error::DriverFailure;
use ember_core::Result;

/// An opaque backend object: device memory, a module, a function, a stream or an event.
pub type Handle = u64;

/// The GPU API behind a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackendKind {
    Cuda,
    OpenCl,
}

impl BackendKind {
    /// `"cuda"` or `"opencl"`, as `ember.backend()` names it.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Cuda => "cuda",
            BackendKind::OpenCl => "opencl",
        }
    }

    /// `"CUDA"` or `"OpenCL"`, for messages.
    pub fn title(self) -> &'static str {
        match self {
            BackendKind::Cuda => "CUDA",
            BackendKind::OpenCl => "OpenCL",
        }
    }
}

/// What ember knows of a device.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub backend: BackendKind,
    /// Index among the backend's devices.
    pub ordinal: usize,
    pub name: String,
    /// `sm_90` on CUDA; the device name on OpenCL.
    pub arch: String,
    /// Compiler identity and version, part of every cache key (`nvrtc 13.0`, `PoCL 3.1 ...`).
    pub compiler: String,
    pub driver_version: String,
    pub total_memory: usize,
    /// Largest single allocation the device takes.
    pub max_allocation: usize,
    pub max_threads_per_block: usize,
    pub max_block_dims: [usize; 3],
    /// Shared (OpenCL: local) memory one block may use, static and dynamic together, at most
    /// (CUDA: with the kernel's opt-in to more than 48 KiB).
    pub max_shared_per_block: usize,
    pub multiprocessors: usize,
    pub warp_size: usize,
    /// Device memory is host memory (a CPU OpenCL device): arrays are visible to NumPy.
    pub host_unified: bool,
    /// True for CPU devices.
    pub is_cpu: bool,
    /// Float32 division and square root can be correctly rounded (CUDA: always, NVRTC's
    /// default; OpenCL: where `CL_DEVICE_SINGLE_FP_CONFIG` has
    /// `CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT`, when the program is built asking for it).
    pub correctly_rounded_divide_sqrt: bool,
}

/// One kernel argument.
#[derive(Clone, Copy, Debug)]
pub enum KernelArg<'a> {
    /// Device memory at a byte offset. CUDA passes `ptr + offset`; OpenCL passes the `cl_mem` and
    /// then the offset as a `long` (ember's generated OpenCL kernels take both).
    Buffer { handle: Handle, offset: usize },
    /// A bare `cl_mem` (user-written OpenCL kernels) or device pointer (user-written CUDA C).
    Memory(Handle),
    /// A value passed by copy: a scalar or a small struct.
    Bytes(&'a [u8]),
    /// OpenCL `__local` memory of this many bytes.
    Local(usize),
    /// An OpenCL shared-virtual-memory address (`clSetKernelArgSVMPointer`).
    Svm(u64),
    /// Memory lost with a replaced context (an array of an older epoch): launches that see
    /// one fail with `Error::DeviceReset` before reaching the backend.
    Lost,
}

/// A compiled and loaded program.
pub struct Compiled {
    /// What the disk cache keeps (a cubin, an OpenCL program binary).
    pub binary: Vec<u8>,
    pub module: Handle,
    /// The compiler's (mangled) name of each requested name expression, in order.
    pub lowered_names: Vec<String>,
}

/// A property of a compiled kernel, as CUDA's `CUfunction_attribute` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionAttribute {
    MaxThreadsPerBlock,
    SharedSizeBytes,
    ConstSizeBytes,
    LocalSizeBytes,
    NumRegs,
    PtxVersion,
    BinaryVersion,
    CacheModeCa,
    MaxDynamicSharedSizeBytes,
    PreferredSharedMemoryCarveout,
}

impl FunctionAttribute {
    /// Every attribute with its Python name (CuPy's `RawKernel` attribute names).
    pub const ALL: [(FunctionAttribute, &'static str); 10] = [
        (
            FunctionAttribute::MaxThreadsPerBlock,
            "max_threads_per_block",
        ),
        (FunctionAttribute::SharedSizeBytes, "shared_size_bytes"),
        (FunctionAttribute::ConstSizeBytes, "const_size_bytes"),
        (FunctionAttribute::LocalSizeBytes, "local_size_bytes"),
        (FunctionAttribute::NumRegs, "num_regs"),
        (FunctionAttribute::PtxVersion, "ptx_version"),
        (FunctionAttribute::BinaryVersion, "binary_version"),
        (FunctionAttribute::CacheModeCa, "cache_mode_ca"),
        (
            FunctionAttribute::MaxDynamicSharedSizeBytes,
            "max_dynamic_shared_size_bytes",
        ),
        (
            FunctionAttribute::PreferredSharedMemoryCarveout,
            "preferred_shared_memory_carveout",
        ),
    ];

    /// The attribute called `name`.
    pub fn from_name(name: &str) -> Option<FunctionAttribute> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(a, _)| *a)
    }
}

/// A kernel's parameters, as far as the API tells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelParams {
    pub count: usize,
    /// The byte size of each (CUDA 12.4+ drivers tell; OpenCL does not).
    pub sizes: Option<Vec<usize>>,
}

/// OpenCL's way of sizing a launch: work-items in all, optionally per work-group.
#[derive(Clone, Copy, Debug)]
pub struct NdRange {
    /// 1, 2 or 3.
    pub dims: u32,
    pub global: [usize; 3],
    /// `None` lets the implementation choose.
    pub local: Option<[usize; 3]>,
    pub offset: Option<[usize; 3]>,
}

/// The operations ember needs from one device of a GPU API.
pub trait Backend: Send + Sync {
    /// What the device is.
    fn info(&self) -> &DeviceInfo;

    /// Allocates `bytes` of device memory. Failure for lack of memory is `Error::OutOfMemory`.
    fn alloc(&self, bytes: usize) -> Result<Handle>;
    /// Frees memory from [`Backend::alloc`].
    fn free(&self, memory: Handle);
    /// Host address of device memory, where the device shares host memory (CPU devices).
    fn host_pointer(&self, memory: Handle) -> Option<*mut u8>;
    /// Makes memory owned by someone else (a device pointer on CUDA, a host pointer on a CPU
    /// OpenCL device) usable as a buffer handle, without copying.
    fn wrap_foreign(&self, address: u64, bytes: usize) -> Result<Handle>;
    /// Releases a handle from [`Backend::wrap_foreign`] (the memory itself stays).
    fn release_foreign(&self, memory: Handle);

    /// Copies host bytes into device memory. Returns once `src` may be reused; ordered on `stream`.
    fn copy_htod(&self, dst: Handle, dst_offset: usize, src: &[u8], stream: Handle) -> Result<()>;
    /// Copies device memory to the host, after the work queued on `stream`; returns when done.
    fn copy_dtoh(
        &self,
        dst: &mut [u8],
        src: Handle,
        src_offset: usize,
        stream: Handle,
    ) -> Result<()>;
    /// Copies between device buffers, ordered on `stream`.
    #[allow(clippy::too_many_arguments)]
    fn copy_dtod(
        &self,
        dst: Handle,
        dst_offset: usize,
        src: Handle,
        src_offset: usize,
        bytes: usize,
        stream: Handle,
    ) -> Result<()>;

    /// Compiles source and loads it. `name` is used in messages only; `name_expressions` are
    /// C++ names (template instances) whose compiled names are wanted (CUDA only).
    fn compile(
        &self,
        source: &str,
        name: &str,
        options: &[String],
        name_expressions: &[String],
    ) -> Result<Compiled>;
    /// Loads a binary from [`Backend::compile`] as a module.
    fn load(&self, binary: &[u8]) -> Result<Handle>;
    /// Unloads a module.
    fn unload(&self, module: Handle);
    /// Finds a kernel in a module.
    fn function(&self, module: Handle, name: &str) -> Result<Handle>;
    /// Releases a function handle (OpenCL kernels are objects; CUDA's need nothing).
    fn release_function(&self, function: Handle);
    /// Queues a kernel: `grid` blocks of `block` threads, CUDA's way of counting.
    fn launch(
        &self,
        function: Handle,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()>;

    /// [`Backend::launch`] for ember's own kernels over memory nothing outside ember can see
    /// (no pointer handed out, none foreign): the backend may issue it later from another
    /// thread, in order with all other work (CUDA does in bursts: `launch_queue`). `name`
    /// names the kernel in the error of a launch that fails from the queue.
    #[allow(clippy::too_many_arguments)]
    fn launch_queued(
        &self,
        _name: &Arc<str>,
        function: Handle,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        self.launch(function, grid, block, shared_bytes, stream, args)
    }

    /// Launches a kernel with every block resident at once (CUDA's cooperative launch, which
    /// a grid-wide barrier needs).
    #[allow(clippy::too_many_arguments)]
    fn launch_cooperative(
        &self,
        _function: Handle,
        _grid: [u32; 3],
        _block: [u32; 3],
        _shared_bytes: u32,
        _stream: Handle,
        _args: &[KernelArg<'_>],
    ) -> Result<()> {
        Err(self.cuda_only("cooperative launches"))
    }

    /// How many blocks of `threads` threads (and `shared_bytes` of dynamic shared memory) can
    /// be resident at once on the whole device: the most a cooperative launch takes.
    fn max_active_blocks(
        &self,
        _function: Handle,
        _threads: u32,
        _shared_bytes: u32,
    ) -> Result<u64> {
        Err(self.cuda_only("cooperative launches"))
    }

    /// Issues every queued launch (before memory or a stream is handed to code outside
    /// ember, which orders its work by its own calls into the driver).
    fn drain(&self) {}

    /// Launches queued so far by [`Backend::launch_queued`] (a diagnostic).
    fn queued_launches(&self) -> u64 {
        0
    }

    /// Queues a kernel sized as OpenCL sizes it (OpenCL only).
    fn launch_ndrange(
        &self,
        _function: Handle,
        _range: &NdRange,
        _stream: Handle,
        _args: &[KernelArg<'_>],
    ) -> Result<()> {
        Err(ember_core::Error::Value(
            "global/local work sizes are OpenCL's launch form; CUDA kernels take grid and block"
                .into(),
        ))
    }

    /// What the API tells of a kernel's parameters (`None` if nothing).
    fn kernel_params(&self, function: Handle) -> Result<Option<KernelParams>>;
    /// A property of a compiled kernel.
    fn function_attribute(&self, function: Handle, attribute: FunctionAttribute) -> Result<i64>;
    /// Changes a settable property (CUDA's `cuFuncSetAttribute`).
    fn set_function_attribute(
        &self,
        function: Handle,
        attribute: FunctionAttribute,
        value: i64,
    ) -> Result<()>;

    /// Page-locked host memory (CUDA); plain host memory elsewhere. Returns its address.
    fn alloc_pinned(&self, bytes: usize) -> Result<usize>;
    /// Frees memory at `address` from [`Backend::alloc_pinned`] (of `bytes` bytes).
    fn free_pinned(&self, address: usize, bytes: usize);

    /// The stream work goes to when none is named.
    fn default_stream(&self) -> Handle;
    fn create_stream(&self) -> Result<Handle>;
    fn destroy_stream(&self, stream: Handle);
    fn synchronize_stream(&self, stream: Handle) -> Result<()>;
    /// True once all work queued on `stream` is done (never blocks).
    fn query_stream(&self, stream: Handle) -> Result<bool>;
    /// Marks the current end of `stream`; returns the event (OpenCL makes a new one each time,
    /// CUDA re-records `reuse` when given).
    fn record_event(&self, stream: Handle, reuse: Option<Handle>) -> Result<Handle>;
    fn synchronize_event(&self, event: Handle) -> Result<()>;
    /// True once the work before the event is done.
    fn query_event(&self, event: Handle) -> Result<bool>;
    /// Milliseconds between two recorded events.
    fn elapsed_ms(&self, start: Handle, end: Handle) -> Result<f32>;
    fn destroy_event(&self, event: Handle);
    /// Makes later work on `stream` wait for `event`.
    fn stream_wait_event(&self, stream: Handle, event: Handle) -> Result<()>;
    /// Waits for all work on the device.
    fn synchronize(&self) -> Result<()>;
    /// (free, total) bytes of device memory.
    fn memory_info(&self) -> Result<(usize, usize)>;

    /// CUDA's interprocess handle of the allocation holding `address`, for another process
    /// to open: (the handle's bytes, the allocation's base address, its size in bytes).
    fn ipc_export(&self, _address: u64) -> Result<(Vec<u8>, u64, usize)> {
        Err(self.cuda_only("interprocess memory handles"))
    }
    /// Opens another process's interprocess handle: the allocation's address here.
    fn ipc_open(&self, _handle: &[u8]) -> Result<u64> {
        Err(self.cuda_only("interprocess memory handles"))
    }
    /// Closes an allocation [`Backend::ipc_open`] opened.
    fn ipc_close(&self, _address: u64) -> Result<()> {
        Err(self.cuda_only("interprocess memory handles"))
    }
    /// OpenCL's user event (`clCreateUserEvent`): commands made to wait for it
    /// ([`Backend::stream_wait_event`]) run once the host completes it.
    fn create_user_event(&self) -> Result<Handle> {
        Err(ember_core::Error::Value(format!(
            "user events are OpenCL's; device {} ({}) is on the {} backend",
            self.info().ordinal,
            self.info().name,
            self.info().backend.name()
        )))
    }
    /// Completes a user event (`status` 0) or fails it (a negative status).
    fn set_user_event_status(&self, _event: Handle, _status: i32) -> Result<()> {
        Err(ember_core::Error::Value("user events are OpenCL's".into()))
    }
    /// The driver's binary of a loaded module (OpenCL's `CL_PROGRAM_BINARIES`), which
    /// [`Backend::load`] takes back.
    fn program_binary(&self, _module: Handle) -> Result<Vec<u8>> {
        Err(ember_core::Error::Value(format!(
            "program binaries are OpenCL's; device {} ({}) is on the {} backend",
            self.info().ordinal,
            self.info().name,
            self.info().backend.name()
        )))
    }
    /// The address and size of a module's global variable (CUDA's `cuModuleGetGlobal`: a
    /// `__constant__` or `__device__` variable the host fills).
    fn module_global(&self, _module: Handle, name: &str) -> Result<(u64, usize)> {
        Err(ember_core::Error::Value(format!(
            "{name}: OpenCL programs have no global variables the host can address (translated CUDA C keeps __constant__ memory in buffers of its module)"
        )))
    }
    /// The OpenCL device itself, for what only OpenCL has (images, samplers, separate
    /// compilation, raw handles); reach it through [`crate::Device::opencl`].
    fn as_opencl(&self) -> Option<&crate::opencl::ClDevice> {
        None
    }
    /// The raw value of an OpenCL `clGetDeviceInfo` parameter of this device, or with
    /// `of_platform` a `clGetPlatformInfo` parameter of its platform (PyOpenCL's `get_info`).
    fn opencl_info(&self, _of_platform: bool, _param: u32) -> Result<Vec<u8>> {
        Err(ember_core::Error::Value(format!(
            "OpenCL device information is for OpenCL devices; device {} ({}) is on the {} backend",
            self.info().ordinal,
            self.info().name,
            self.info().backend.name()
        )))
    }
    /// The error of an operation only CUDA has (`what`: "interprocess memory handles"...).
    fn cuda_only(&self, what: &str) -> ember_core::Error {
        ember_core::Error::Value(format!(
            "{what} are CUDA's; device {} ({}) is on the {} backend",
            self.info().ordinal,
            self.info().name,
            self.info().backend.name()
        ))
    }

    /// Whether `failure` leaves the device's context unusable (a kernel fault): every later
    /// call would fail the same way, so the device opens a new context before its next call.
    fn is_fatal(&self, _failure: &DriverFailure) -> bool {
        false
    }

    /// Replaces a lost context with a new one. Everything made in the old one (memory,
    /// modules, streams, events) is abandoned and never touched again: its handles may be
    /// reused by the new context.
    fn reset(&self) -> Result<()> {
        Err(ember_core::Error::Value(format!(
            "the {} backend cannot open a new context",
            self.info().backend.name()
        )))
    }
}
