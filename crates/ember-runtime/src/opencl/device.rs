//! One OpenCL device behind the Backend trait.

use std::alloc::Layout;
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use cl3::command_queue as cq;
use cl3::device::*;
use cl3::event::{
    self as ev, CL_COMPLETE, CL_EVENT_COMMAND_EXECUTION_STATUS, CL_PROFILING_COMMAND_END,
};
use cl3::info_type::InfoType;
use cl3::kernel as kn;
use cl3::memory::{self as mem, CL_MEM_READ_WRITE, CL_MEM_USE_HOST_PTR};
use cl3::platform::{CL_PLATFORM_NAME, CL_PLATFORM_VERSION};
use cl3::program as pg;
use cl3::types::{
    cl_command_queue, cl_context, cl_device_id, cl_event, cl_kernel, cl_mem, cl_platform_id,
    cl_program, CL_FALSE,
};
use ember_core::{DriverFailure, Error, PoolStats, Result};

use super::cl_error;
use super::in_flight::{drain, wait_for, InFlight};
use super::info::{device_number, device_sizes, device_text, platform_text};
use super::stream_order::StreamOrder;
use crate::backend::{
    Backend, BackendKind, Compiled, DeviceInfo, FunctionAttribute, Handle, KernelArg, KernelParams,
    NdRange,
};

/// Host memory behind a buffer on a CPU device.
struct HostSpan {
    ptr: *mut u8,
    /// `Some` when ember allocated it (and frees it); `None` for borrowed memory.
    layout: Option<Layout>,
}

/// How long a wait on a CPU device polls before it sleeps: about a small kernel's launch and
/// run (see `in_flight::wait_for`).
const CPU_SPIN: Duration = Duration::from_micros(50);

/// An OpenCL device with its context and default queue.
pub struct ClDevice {
    info: DeviceInfo,
    device: cl_device_id,
    /// The context and its default queue, replaced after a fault (see `reset`).
    context: AtomicUsize,
    default_queue: AtomicUsize,
    queues: Mutex<Vec<cl_command_queue>>,
    host_spans: Mutex<HashMap<Handle, HostSpan>>,
    /// Live SVM allocations (address → bytes): buffers may be made over them on any device.
    pub(super) svm_spans: Mutex<HashMap<u64, usize>>,
    /// `clSetKernelArg` + enqueue must not interleave between threads on one kernel.
    launch_lock: Mutex<()>,
    in_flight: InFlight,
    /// The default queue as CUDA's legacy default stream (see `stream_order`).
    order: StreamOrder,
    /// How long a wait polls before it sleeps (`in_flight::wait_for`): CPU devices only.
    pub(super) spin: Duration,
}

// OpenCL objects are thread-safe (but kernels, guarded by `launch_lock`); host spans are
// plain memory owned by this device.
unsafe impl Send for ClDevice {}
unsafe impl Sync for ClDevice {}

pub(super) fn h<T>(p: *mut T) -> Handle {
    p as usize as Handle
}

pub(super) fn p<T>(handle: Handle) -> *mut T {
    handle as usize as *mut T
}

impl ClDevice {
    pub(crate) fn open(
        ordinal: usize,
        platform: cl_platform_id,
        device: cl_device_id,
    ) -> Result<ClDevice> {
        let context = cl3::context::create_context(&[device], ptr::null(), None, ptr::null_mut())
            .map_err(|c| cl_error("clCreateContext", c))?;
        let default_queue = unsafe { Self::new_queue(context, device) }?;
        let is_cpu = device_number(device, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_CPU != 0;
        let name = device_text(device, CL_DEVICE_NAME);
        let platform_name = platform_text(platform, CL_PLATFORM_NAME);
        let driver = device_text(device, CL_DRIVER_VERSION);
        let dims = device_sizes(device, CL_DEVICE_MAX_WORK_ITEM_SIZES);
        let info = DeviceInfo {
            backend: BackendKind::OpenCl,
            ordinal,
            name: name.clone(),
            arch: name.clone(),
            compiler: format!(
                "{platform_name} {} {driver}",
                platform_text(platform, CL_PLATFORM_VERSION)
            ),
            driver_version: format!("{platform_name} {driver}"),
            total_memory: device_number(device, CL_DEVICE_GLOBAL_MEM_SIZE) as usize,
            max_allocation: device_number(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE) as usize,
            max_threads_per_block: device_number(device, CL_DEVICE_MAX_WORK_GROUP_SIZE) as usize,
            max_block_dims: [0, 1, 2].map(|i| dims.get(i).copied().unwrap_or(1)),
            max_shared_per_block: device_number(device, CL_DEVICE_LOCAL_MEM_SIZE) as usize,
            multiprocessors: device_number(device, CL_DEVICE_MAX_COMPUTE_UNITS) as usize,
            warp_size: 1,
            host_unified: is_cpu,
            is_cpu,
            correctly_rounded_divide_sqrt: device_number(device, CL_DEVICE_SINGLE_FP_CONFIG)
                & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT
                != 0,
        };
        Ok(ClDevice {
            info,
            device,
            context: AtomicUsize::new(context as usize),
            default_queue: AtomicUsize::new(default_queue as usize),
            queues: Mutex::new(vec![default_queue]),
            host_spans: Mutex::new(HashMap::new()),
            svm_spans: Mutex::new(HashMap::new()),
            launch_lock: Mutex::new(()),
            in_flight: InFlight::default(),
            order: StreamOrder::default(),
            spin: if is_cpu { CPU_SPIN } else { Duration::ZERO },
        })
    }

    pub(super) fn device_id(&self) -> cl_device_id {
        self.device
    }

    pub(super) fn context(&self) -> cl_context {
        self.context.load(Ordering::Acquire) as cl_context
    }

    unsafe fn new_queue(context: cl_context, device: cl_device_id) -> Result<cl_command_queue> {
        #[allow(deprecated)]
        cq::create_command_queue(context, device, cq::CL_QUEUE_PROFILING_ENABLE)
            .map_err(|c| cl_error("clCreateCommandQueue", c))
    }

    fn spans(&self) -> std::sync::MutexGuard<'_, HashMap<Handle, HostSpan>> {
        self.host_spans.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn oom(&self, bytes: usize, detail: String) -> Error {
        Error::OutOfMemory {
            requested: bytes,
            device: self.info.name.clone(),
            stats: PoolStats::default(),
            detail,
        }
    }

    /// Orders a command about to go on `stream` as CUDA's legacy default stream would.
    pub(super) fn order(&self, stream: Handle) -> Result<()> {
        self.order.before(p(stream), p(self.default_stream()))
    }

    /// Counts a command just enqueued on `stream` (back-pressure, see `in_flight`).
    pub(super) fn enqueued_on(&self, stream: Handle) -> Result<()> {
        self.in_flight.enqueued(p(stream))
    }

    /// The raw OpenCL handles behind this device: (platform, device, context), PyOpenCL's
    /// `int_ptr`s.
    pub fn raw_handles(&self) -> (usize, usize, usize) {
        let platform = match cl3::device::get_device_info(self.device, CL_DEVICE_PLATFORM) {
            Ok(InfoType::Ptr(p)) => p as usize,
            _ => 0,
        };
        (platform, self.device as usize, self.context() as usize)
    }

    pub(super) fn finish_all(&self) -> Result<()> {
        let queues = self
            .queues
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        queues.into_iter().try_for_each(|q| drain(q, self.spin))
    }

    fn build(
        &self,
        program: cl_program,
        options: &[String],
        source: &str,
        name: &str,
    ) -> Result<()> {
        let joined = CString::new(options.join(" "))
            .map_err(|_| Error::Value("compile options may not contain NUL bytes".into()))?;
        if let Err(code) =
            pg::build_program(program, &[self.device], &joined, None, ptr::null_mut())
        {
            let log = self.build_log(program);
            unsafe {
                let _ = pg::release_program(program);
            }
            let log = if log.trim().is_empty() {
                format!(
                    "clBuildProgram returned {}",
                    cl3::error_codes::error_text(code)
                )
            } else {
                log
            };
            return Err(Error::compile("OpenCL", name, options, log, source));
        }
        Ok(())
    }
}

/// Sets a kernel's arguments in order; returns the index after the last.
fn set_args(kernel: cl_kernel, args: &[KernelArg<'_>]) -> Result<u32> {
    let mut index = 0u32;
    // `size` None: `value` is a shared-virtual-memory address, set as one.
    let mut set = |size: Option<usize>, value: *const c_void| -> Result<()> {
        match size {
            Some(size) => unsafe { kn::set_kernel_arg(kernel, index, size, value) }
                .map_err(|c| cl_error(&format!("clSetKernelArg({index})"), c))?,
            None => unsafe { kn::set_kernel_arg_svm_pointer(kernel, index, value) }
                .map_err(|c| cl_error(&format!("clSetKernelArgSVMPointer({index})"), c))?,
        }
        index += 1;
        Ok(())
    };
    for arg in args {
        match *arg {
            KernelArg::Buffer { handle, offset } => {
                let m: cl_mem = p(handle);
                let off = offset as i64;
                set(
                    Some(std::mem::size_of::<cl_mem>()),
                    (&m as *const cl_mem).cast(),
                )?;
                set(Some(8), (&off as *const i64).cast())?;
            }
            KernelArg::Memory(handle) => {
                let m: cl_mem = p(handle);
                set(
                    Some(std::mem::size_of::<cl_mem>()),
                    (&m as *const cl_mem).cast(),
                )?;
            }
            KernelArg::Bytes(bytes) => set(Some(bytes.len()), bytes.as_ptr().cast())?,
            KernelArg::Local(bytes) => set(Some(bytes), ptr::null())?,
            KernelArg::Svm(address) => set(None, address as *const c_void)?,
            KernelArg::Lost => return Err(crate::buffer::lost_memory()),
        }
    }
    Ok(index)
}

fn enqueue(kernel: cl_kernel, range: &NdRange, stream: Handle) -> Result<()> {
    let local = range.local;
    let event = unsafe {
        cq::enqueue_nd_range_kernel(
            p(stream),
            kernel,
            range.dims,
            range.offset.as_ref().map_or(ptr::null(), |o| o.as_ptr()),
            range.global.as_ptr(),
            local.as_ref().map_or(ptr::null(), |l| l.as_ptr()),
            0,
            ptr::null(),
        )
    }
    .map_err(|c| cl_error("clEnqueueNDRangeKernel", c))?;
    unsafe {
        let _ = ev::release_event(event);
    }
    Ok(())
}

impl Backend for ClDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn alloc(&self, bytes: usize) -> Result<Handle> {
        if bytes > self.info.max_allocation {
            return Err(self.oom(
                bytes,
                format!(
                    "larger than the device's largest allocation, {} bytes",
                    self.info.max_allocation
                ),
            ));
        }
        if !self.info.host_unified {
            return match unsafe {
                mem::create_buffer(self.context(), CL_MEM_READ_WRITE, bytes, ptr::null_mut())
            } {
                Ok(m) => Ok(h(m)),
                Err(code @ -6..=-4) => {
                    Err(self.oom(bytes, cl3::error_codes::error_text(code).into()))
                }
                Err(code) => Err(cl_error("clCreateBuffer", code)),
            };
        }
        // CPU device: ember owns the host memory, so NumPy and DLPack can see it directly.
        let layout =
            Layout::from_size_align(bytes, 128).map_err(|e| Error::Value(e.to_string()))?;
        let host = unsafe { std::alloc::alloc(layout) };
        if host.is_null() {
            return Err(self.oom(bytes, "the host has no memory left".into()));
        }
        match unsafe {
            mem::create_buffer(
                self.context(),
                CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                bytes,
                host.cast(),
            )
        } {
            Ok(m) => {
                self.spans().insert(
                    h(m),
                    HostSpan {
                        ptr: host,
                        layout: Some(layout),
                    },
                );
                Ok(h(m))
            }
            Err(code) => {
                unsafe { std::alloc::dealloc(host, layout) };
                Err(cl_error("clCreateBuffer", code))
            }
        }
    }

    fn free(&self, memory: Handle) {
        let span = self.spans().remove(&memory);
        // Work still queued may use host memory we are about to free.
        if span.is_some() {
            let _ = self.finish_all();
        }
        unsafe {
            let _ = mem::release_mem_object(p(memory));
        }
        if let Some(HostSpan {
            ptr,
            layout: Some(layout),
        }) = span
        {
            unsafe { std::alloc::dealloc(ptr, layout) };
        }
    }

    fn host_pointer(&self, memory: Handle) -> Option<*mut u8> {
        self.spans().get(&memory).map(|s| s.ptr)
    }

    fn wrap_foreign(&self, address: u64, bytes: usize) -> Result<Handle> {
        if !self.info.host_unified && self.svm_span_holds(address, bytes) {
            // Shared virtual memory: a buffer over it is the SVM memory itself (OpenCL 2.0).
            return unsafe {
                mem::create_buffer(
                    self.context(),
                    CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                    bytes.max(1),
                    p(address),
                )
            }
            .map(h)
            .map_err(|c| cl_error("clCreateBuffer", c));
        }
        if !self.info.host_unified {
            return Err(Error::Value(format!(
                "{} does not share host memory, so memory at {address:#x} cannot be viewed without a copy: on an OpenCL GPU an integer address names no device memory (they do on the CUDA backend and on CPU devices); copy host data with ember.asarray, and pass ember's arrays and allocations themselves, not their addresses",
                self.info.name
            )));
        }
        let m = unsafe {
            mem::create_buffer(
                self.context(),
                CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                bytes.max(1),
                p(address),
            )
        }
        .map_err(|c| cl_error("clCreateBuffer", c))?;
        self.spans().insert(
            h(m),
            HostSpan {
                ptr: p(address),
                layout: None,
            },
        );
        Ok(h(m))
    }

    fn release_foreign(&self, memory: Handle) {
        self.free(memory)
    }

    fn copy_htod(&self, dst: Handle, dst_offset: usize, src: &[u8], stream: Handle) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        self.order(stream)?;
        unsafe {
            cq::enqueue_write_buffer(
                p(stream),
                p(dst),
                CL_FALSE,
                dst_offset,
                src.len(),
                src.as_ptr().cast(),
                0,
                ptr::null(),
            )
            .map_err(|c| cl_error("clEnqueueWriteBuffer", c))
            .and_then(|e| wait_for(p(stream), e, self.spin))
        }
    }

    fn copy_dtoh(
        &self,
        dst: &mut [u8],
        src: Handle,
        src_offset: usize,
        stream: Handle,
    ) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        self.order(stream)?;
        unsafe {
            cq::enqueue_read_buffer(
                p(stream),
                p(src),
                CL_FALSE,
                src_offset,
                dst.len(),
                dst.as_mut_ptr().cast(),
                0,
                ptr::null(),
            )
            .map_err(|c| cl_error("clEnqueueReadBuffer", c))
            .and_then(|e| wait_for(p(stream), e, self.spin))
        }
    }

    fn copy_dtod(
        &self,
        dst: Handle,
        dst_offset: usize,
        src: Handle,
        src_offset: usize,
        bytes: usize,
        stream: Handle,
    ) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.order(stream)?;
        unsafe {
            cq::enqueue_copy_buffer(
                p(stream),
                p(src),
                p(dst),
                src_offset,
                dst_offset,
                bytes,
                0,
                ptr::null(),
            )
            .map(|e| ev::release_event(e))
            .map_err(|c| cl_error("clEnqueueCopyBuffer", c))?
            .map_err(|c| cl_error("clReleaseEvent", c))?;
        }
        self.in_flight.enqueued(p(stream))
    }

    fn compile(
        &self,
        source: &str,
        name: &str,
        options: &[String],
        name_expressions: &[String],
    ) -> Result<Compiled> {
        if !name_expressions.is_empty() {
            return Err(Error::Value(
                "name expressions are C++ template names, which only CUDA C has".into(),
            ));
        }
        let program = pg::create_program_with_source(self.context(), &[source])
            .map_err(|c| cl_error("clCreateProgramWithSource", c))?;
        self.build(program, options, source, name)?;
        let binary = match pg::get_program_info(program, pg::CL_PROGRAM_BINARIES) {
            Ok(InfoType::VecVecUchar(mut all)) if !all.is_empty() => all.swap_remove(0),
            _ => Vec::new(),
        };
        Ok(Compiled {
            binary,
            module: h(program),
            lowered_names: Vec::new(),
        })
    }

    fn load(&self, binary: &[u8]) -> Result<Handle> {
        if binary.is_empty() {
            return Err(Error::Value("empty OpenCL program binary".into()));
        }
        let program =
            unsafe { pg::create_program_with_binary(self.context(), &[self.device], &[binary]) }
                .map_err(|c| cl_error("clCreateProgramWithBinary", c))?;
        self.build(program, &[], "", "cached binary")?;
        Ok(h(program))
    }

    fn unload(&self, module: Handle) {
        unsafe {
            let _ = pg::release_program(p(module));
        }
    }

    fn function(&self, module: Handle, name: &str) -> Result<Handle> {
        let cname = CString::new(name)
            .map_err(|_| Error::Value(format!("kernel name {name:?} contains a NUL byte")))?;
        kn::create_kernel(p(module), &cname)
            .map(h)
            .map_err(|c| match c {
                -46 => Error::Value(format!("the program has no kernel named {name:?}")),
                c => cl_error("clCreateKernel", c),
            })
    }

    fn release_function(&self, function: Handle) {
        unsafe {
            let _ = kn::release_kernel(p(function));
        }
    }

    fn launch(
        &self,
        function: Handle,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        let global: [usize; 3] = [0, 1, 2].map(|i| grid[i] as usize * block[i] as usize);
        let dims = (0..3).rev().find(|&i| global[i] > 1).map_or(1, |i| i + 1) as u32;
        let range = NdRange {
            dims,
            global,
            local: Some(block.map(|b| b as usize)),
            offset: None,
        };
        let guard = self.launch_lock.lock().unwrap_or_else(|e| e.into_inner());
        let kernel: cl_kernel = p(function);
        let next = set_args(kernel, args)?;
        if shared_bytes > 0 {
            unsafe { kn::set_kernel_arg(kernel, next, shared_bytes as usize, ptr::null()) }
                .map_err(|c| cl_error(&format!("clSetKernelArg({next})"), c))?;
        }
        self.order(stream)?;
        enqueue(kernel, &range, stream)?;
        drop(guard);
        self.in_flight.enqueued(p(stream))
    }

    fn launch_ndrange(
        &self,
        function: Handle,
        range: &NdRange,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        let guard = self.launch_lock.lock().unwrap_or_else(|e| e.into_inner());
        // SVM arguments go to a kernel object of their own: NVIDIA's driver refuses a kernel
        // whose argument was an SVM pointer once a buffer is set there (found on the H100).
        let svm = args.iter().any(|a| matches!(a, KernelArg::Svm(_)));
        let kernel: cl_kernel = if svm {
            super::svm::fresh_kernel(p(function))?
        } else {
            p(function)
        };
        let launched = set_args(kernel, args)
            .and_then(|_| self.order(stream))
            .and_then(|_| enqueue(kernel, range, stream));
        if svm {
            unsafe {
                let _ = kn::release_kernel(kernel); // the queued launch keeps what it needs
            }
        }
        launched?;
        drop(guard);
        self.in_flight.enqueued(p(stream))
    }

    fn kernel_params(&self, function: Handle) -> Result<Option<KernelParams>> {
        match kn::get_kernel_info(p(function), kn::CL_KERNEL_NUM_ARGS) {
            Ok(InfoType::Uint(n)) => Ok(Some(KernelParams {
                count: n as usize,
                sizes: None,
            })),
            _ => Ok(None),
        }
    }

    fn function_attribute(&self, function: Handle, attribute: FunctionAttribute) -> Result<i64> {
        let query = match attribute {
            FunctionAttribute::MaxThreadsPerBlock => kn::CL_KERNEL_WORK_GROUP_SIZE,
            FunctionAttribute::SharedSizeBytes => kn::CL_KERNEL_LOCAL_MEM_SIZE,
            FunctionAttribute::LocalSizeBytes => kn::CL_KERNEL_PRIVATE_MEM_SIZE,
            other => {
                return Err(Error::Value(format!(
                    "OpenCL does not report the kernel attribute {other:?}"
                )))
            }
        };
        match kn::get_kernel_work_group_info(p(function), self.device, query) {
            Ok(InfoType::Size(v)) => Ok(v as i64),
            Ok(InfoType::Ulong(v)) => Ok(v as i64),
            Ok(_) => Ok(0),
            Err(c) => Err(cl_error("clGetKernelWorkGroupInfo", c)),
        }
    }

    fn set_function_attribute(
        &self,
        _function: Handle,
        attribute: FunctionAttribute,
        _value: i64,
    ) -> Result<()> {
        Err(Error::Value(format!(
            "OpenCL kernels have no settable attribute {attribute:?}"
        )))
    }

    fn alloc_pinned(&self, bytes: usize) -> Result<usize> {
        let layout = Layout::from_size_align(bytes.max(1), 4096)
            .map_err(|_| Error::Value(format!("cannot allocate {bytes} bytes of host memory")))?;
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            return Err(self.oom(bytes, "the host is out of memory".into()));
        }
        Ok(ptr as usize)
    }

    fn free_pinned(&self, address: usize, bytes: usize) {
        if let Ok(layout) = Layout::from_size_align(bytes.max(1), 4096) {
            unsafe { std::alloc::dealloc(address as *mut u8, layout) }
        }
    }

    fn default_stream(&self) -> Handle {
        self.default_queue.load(Ordering::Acquire) as Handle
    }

    fn create_stream(&self) -> Result<Handle> {
        let q = unsafe { Self::new_queue(self.context(), self.device) }?;
        self.queues
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(q);
        Ok(h(q))
    }

    fn destroy_stream(&self, stream: Handle) {
        let q: cl_command_queue = p(stream);
        self.queues
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|&x| x != q);
        let _ = drain(q, self.spin);
        self.in_flight.forget(q);
        self.order.forget(q);
        unsafe {
            let _ = cq::release_command_queue(q);
        }
    }

    fn synchronize_stream(&self, stream: Handle) -> Result<()> {
        self.order(stream)?;
        drain(p(stream), self.spin)
    }

    fn record_event(&self, stream: Handle, reuse: Option<Handle>) -> Result<Handle> {
        if let Some(old) = reuse {
            self.destroy_event(old);
        }
        self.order(stream)?;
        unsafe { cq::enqueue_marker_with_wait_list(p(stream), 0, ptr::null()) }
            .map(h)
            .map_err(|c| cl_error("clEnqueueMarkerWithWaitList", c))
    }

    fn synchronize_event(&self, event: Handle) -> Result<()> {
        ev::wait_for_events(&[p(event)]).map_err(|c| cl_error("clWaitForEvents", c))
    }

    fn query_stream(&self, stream: Handle) -> Result<bool> {
        // OpenCL cannot ask a queue: mark its end, submit, and ask the marker. An idle queue
        // completes a marker within microseconds, but PoCL's worker threads on a loaded machine
        // can take milliseconds to get to it: allow 20 ms before calling the queue busy.
        let marker = self.record_event(stream, None)?;
        let _ = cq::flush(p(stream));
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(20);
        let done = loop {
            match self.query_event(marker) {
                Ok(false) if std::time::Instant::now() < deadline => std::thread::yield_now(),
                other => break other,
            }
        };
        self.destroy_event(marker);
        done
    }

    fn query_event(&self, event: Handle) -> Result<bool> {
        match ev::get_event_info(p(event), CL_EVENT_COMMAND_EXECUTION_STATUS) {
            Ok(InfoType::Int(status)) if status < 0 => {
                Err(cl_error("clGetEventInfo (command status)", status))
            }
            Ok(InfoType::Int(status)) => Ok(status == CL_COMPLETE),
            Ok(_) => Ok(false),
            Err(c) => Err(cl_error("clGetEventInfo", c)),
        }
    }

    fn elapsed_ms(&self, start: Handle, end: Handle) -> Result<f32> {
        let stamp = |e: Handle| -> Result<u64> {
            ev::wait_for_events(&[p(e)]).map_err(|c| cl_error("clWaitForEvents", c))?;
            match ev::get_event_profiling_info(p(e), CL_PROFILING_COMMAND_END) {
                Ok(InfoType::Ulong(t)) => Ok(t),
                Ok(_) => Ok(0),
                Err(c) => Err(cl_error("clGetEventProfilingInfo", c)),
            }
        };
        let (a, b) = (stamp(start)?, stamp(end)?);
        Ok((b as f64 - a as f64) as f32 / 1e6)
    }

    fn destroy_event(&self, event: Handle) {
        unsafe {
            let _ = ev::release_event(p::<c_void>(event) as cl_event);
        }
    }

    fn stream_wait_event(&self, stream: Handle, event: Handle) -> Result<()> {
        let list = [p::<c_void>(event) as cl_event];
        let e = unsafe { cq::enqueue_barrier_with_wait_list(p(stream), 1, list.as_ptr()) }
            .map_err(|c| cl_error("clEnqueueBarrierWithWaitList", c))?;
        unsafe {
            let _ = ev::release_event(e);
        }
        Ok(())
    }

    fn synchronize(&self) -> Result<()> {
        self.finish_all()
    }

    fn memory_info(&self) -> Result<(usize, usize)> {
        // OpenCL has no query for free memory; report the total as free.
        Ok((self.info.total_memory, self.info.total_memory))
    }

    fn is_fatal(&self, failure: &DriverFailure) -> bool {
        // NVIDIA's OpenCL reports a kernel fault as -9999 (or as OUT_OF_RESOURCES from a
        // wait), and its context then fails every call; -36 is a queue the fault left invalid.
        failure.backend == "OpenCL"
            && (failure.code == -9999
                || (matches!(failure.code, -5 | -36)
                    && (failure.call.starts_with("clWait")
                        || failure.call.starts_with("clFinish"))))
    }

    fn create_user_event(&self) -> Result<Handle> {
        ev::create_user_event(self.context())
            .map(h)
            .map_err(|c| cl_error("clCreateUserEvent", c))
    }

    fn set_user_event_status(&self, event: Handle, status: i32) -> Result<()> {
        ev::set_user_event_status(p::<c_void>(event) as cl_event, status)
            .map_err(|c| cl_error("clSetUserEventStatus", c))
    }

    fn program_binary(&self, module: Handle) -> Result<Vec<u8>> {
        match pg::get_program_info(p(module), pg::CL_PROGRAM_BINARIES) {
            Ok(InfoType::VecVecUchar(mut all)) if !all.is_empty() => Ok(all.swap_remove(0)),
            Ok(_) => Err(Error::Value("the driver gave no program binary".into())),
            Err(c) => Err(cl_error("clGetProgramInfo", c)),
        }
    }

    fn as_opencl(&self) -> Option<&ClDevice> {
        Some(self)
    }

    fn opencl_info(&self, of_platform: bool, param: u32) -> Result<Vec<u8>> {
        if !of_platform {
            return cl3::device::get_device_data(self.device, param)
                .map_err(|c| cl_error("clGetDeviceInfo", c));
        }
        let platform = match cl3::device::get_device_info(self.device, CL_DEVICE_PLATFORM) {
            Ok(InfoType::Ptr(p)) => p as cl_platform_id,
            Ok(_) => return Err(Error::Value("the device names no platform".into())),
            Err(c) => return Err(cl_error("clGetDeviceInfo", c)),
        };
        cl3::platform::get_platform_data(platform, param)
            .map_err(|c| cl_error("clGetPlatformInfo", c))
    }

    fn reset(&self) -> Result<()> {
        // The old context and its queues are abandoned, not released: handles to them may
        // still be held (streams, cached kernels), and must not name freed objects.
        let context =
            cl3::context::create_context(&[self.device], ptr::null(), None, ptr::null_mut())
                .map_err(|c| cl_error("clCreateContext", c))?;
        let queue = unsafe { Self::new_queue(context, self.device) }?;
        let old: Vec<_> = std::mem::replace(
            &mut *self.queues.lock().unwrap_or_else(|e| e.into_inner()),
            vec![queue],
        );
        old.into_iter().for_each(|q| {
            self.in_flight.forget(q);
            self.order.forget(q);
        });
        self.context.store(context as usize, Ordering::Release);
        self.default_queue.store(queue as usize, Ordering::Release);
        Ok(())
    }
}

impl Drop for ClDevice {
    fn drop(&mut self) {
        let _ = self.finish_all();
        unsafe {
            for q in self
                .queues
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .drain(..)
            {
                let _ = cq::release_command_queue(q);
            }
            let _ = cl3::context::release_context(self.context());
        }
    }
}
