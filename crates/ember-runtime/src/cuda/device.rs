//! One CUDA device behind the Backend trait, in its primary context.

use std::cell::Cell;
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex};

use cudarc::driver::{result, sys};
use ember_core::{DriverFailure, Error, PoolStats, Result};

use super::queued::QueuedLaunch;
use super::staging::{self, Staging};
use super::{driver_error, link, nvrtc};
use crate::backend::{
    Backend, BackendKind, Compiled, DeviceInfo, FunctionAttribute, Handle, KernelArg, KernelParams,
};
use crate::buffer::lost_memory;
use crate::launch_queue::LaunchQueue;

thread_local! {
    /// The context this thread last made current, to skip redundant `cuCtxSetCurrent` calls.
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

/// A CUDA device.
pub struct CudaDevice {
    info: DeviceInfo,
    device: sys::CUdevice,
    context: sys::CUcontext,
    staging: Mutex<Option<Staging>>,
    /// Launches of bursts of ember's own kernels, issued from another thread.
    queue: Arc<LaunchQueue<QueuedLaunch>>,
}

// The primary context may be used from any thread once made current there (see `bind`).
unsafe impl Send for CudaDevice {}
unsafe impl Sync for CudaDevice {}

/// Makes `context` current on the calling thread (once per thread and context).
pub(crate) fn bind_context(context: usize) -> Result<()> {
    if CURRENT.with(Cell::get) != context {
        unsafe { result::ctx::set_current(context as sys::CUcontext) }
            .map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        CURRENT.with(|c| c.set(context));
    }
    Ok(())
}

fn attr(dev: sys::CUdevice, a: sys::CUdevice_attribute) -> usize {
    unsafe { result::device::get_attribute(dev, a) }.map_or(0, |v| v.max(0) as usize)
}

impl CudaDevice {
    pub(crate) fn open(ordinal: usize) -> Result<CudaDevice> {
        use sys::CUdevice_attribute::*;
        let device =
            result::device::get(ordinal as i32).map_err(|e| driver_error("cuDeviceGet", e))?;
        let context = unsafe { result::primary_ctx::retain(device) }
            .map_err(|e| driver_error("cuDevicePrimaryCtxRetain", e))?;
        let major = attr(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
        let minor = attr(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
        let total = unsafe { result::device::total_mem(device) }.unwrap_or(0);
        let compiler = match nvrtc::version() {
            Ok((a, b)) => format!("nvrtc {a}.{b}"),
            Err(_) => "nvrtc (not found)".to_string(),
        };
        let info = DeviceInfo {
            backend: BackendKind::Cuda,
            ordinal,
            name: result::device::get_name(device)
                .unwrap_or_else(|_| format!("CUDA device {ordinal}")),
            arch: format!("sm_{major}{minor}"),
            compiler,
            driver_version: super::driver_version().unwrap_or_default(),
            total_memory: total,
            max_allocation: total,
            max_threads_per_block: attr(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
            max_block_dims: [
                attr(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                attr(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                attr(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z),
            ],
            max_shared_per_block: attr(
                device,
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            ),
            multiprocessors: attr(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
            warp_size: attr(device, CU_DEVICE_ATTRIBUTE_WARP_SIZE),
            host_unified: false,
            is_cpu: false,
            correctly_rounded_divide_sqrt: true,
        };
        Ok(CudaDevice {
            info,
            device,
            context,
            staging: Mutex::new(None),
            queue: LaunchQueue::new(QueuedLaunch::issue),
        })
    }

    /// Readies the calling thread for a driver call: issues the queued launches first (the
    /// device must see work in the order it was asked for), then makes this device's context
    /// current. Every driver call but a queued launch goes through here.
    fn bind(&self) -> Result<()> {
        self.queue.drain();
        bind_context(self.context as usize)
    }

    fn stream(handle: Handle) -> sys::CUstream {
        handle as usize as sys::CUstream
    }

    fn with_staging<T>(&self, f: impl FnOnce(&mut Staging) -> Result<T>) -> Result<T> {
        let mut slot = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(Staging::new()?);
        }
        match slot.as_mut() {
            Some(s) => f(s),
            None => Err(Error::Value(
                "pinned staging buffers could not be created".into(),
            )),
        }
    }

    /// `cuLaunchKernel`, or with `cooperative` `cuLaunchCooperativeKernel` (every block
    /// resident at once, which a grid-wide barrier needs; too large a grid is refused).
    #[allow(clippy::too_many_arguments)]
    fn launch_as(
        &self,
        function: Handle,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
        cooperative: bool,
    ) -> Result<()> {
        self.bind()?;
        // Pointer values live here while the driver reads them through `params`.
        let mut pointers: smallvec::SmallVec<[u64; 16]> = smallvec::SmallVec::new();
        for arg in args {
            pointers.push(match *arg {
                KernelArg::Buffer { handle, offset } => handle + offset as u64,
                KernelArg::Memory(handle) => handle,
                _ => 0,
            });
        }
        let mut params: smallvec::SmallVec<[*mut c_void; 16]> = smallvec::SmallVec::new();
        for (arg, ptr) in args.iter().zip(pointers.iter()) {
            params.push(match *arg {
                KernelArg::Buffer { .. } | KernelArg::Memory(_) => ptr as *const u64 as *mut c_void,
                KernelArg::Bytes(bytes) => bytes.as_ptr() as *mut c_void,
                KernelArg::Local(_) => {
                    return Err(Error::Value("__local memory arguments exist only on OpenCL; CUDA kernels take shared memory through shared_mem".into()))
                }
                KernelArg::Svm(_) => {
                    return Err(Error::Value("shared virtual memory (SVM) arguments exist only on OpenCL".into()))
                }
                KernelArg::Lost => return Err(lost_memory()),
            });
        }
        if cooperative {
            return unsafe {
                sys::cuLaunchCooperativeKernel(
                    function as usize as sys::CUfunction,
                    grid[0],
                    grid[1],
                    grid[2],
                    block[0],
                    block[1],
                    block[2],
                    shared_bytes,
                    Self::stream(stream),
                    params.as_mut_ptr(),
                )
            }
            .result()
            .map_err(|e| driver_error("cuLaunchCooperativeKernel", e));
        }
        unsafe {
            result::launch_kernel(
                function as usize as sys::CUfunction,
                (grid[0], grid[1], grid[2]),
                (block[0], block[1], block[2]),
                shared_bytes,
                Self::stream(stream),
                &mut params,
            )
        }
        .map_err(|e| driver_error("cuLaunchKernel", e))
    }
}

impl Backend for CudaDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn alloc(&self, bytes: usize) -> Result<Handle> {
        self.bind()?;
        match unsafe { result::malloc_sync(bytes) } {
            Ok(p) => Ok(p),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                let (free, _) = result::mem_get_info().unwrap_or((0, 0));
                Err(Error::OutOfMemory {
                    requested: bytes,
                    device: self.info.name.clone(),
                    stats: PoolStats::default(),
                    detail: format!("the device has {free} bytes free"),
                })
            }
            Err(e) => Err(driver_error("cuMemAlloc", e)),
        }
    }

    fn free(&self, memory: Handle) {
        if self.bind().is_ok() {
            unsafe {
                let _ = result::free_sync(memory);
            }
        }
    }

    fn host_pointer(&self, _memory: Handle) -> Option<*mut u8> {
        None
    }

    fn wrap_foreign(&self, address: u64, _bytes: usize) -> Result<Handle> {
        // A device pointer is its own handle; the owner keeps it alive.
        Ok(address)
    }

    fn release_foreign(&self, _memory: Handle) {}

    fn copy_htod(&self, dst: Handle, dst_offset: usize, src: &[u8], stream: Handle) -> Result<()> {
        self.bind()?;
        let dst = dst + dst_offset as u64;
        if src.len() >= staging::THRESHOLD {
            return self.with_staging(|s| s.htod(dst, src, Self::stream(stream)));
        }
        unsafe { result::memcpy_htod_async(dst, src, Self::stream(stream)) }
            .map_err(|e| driver_error("cuMemcpyHtoDAsync", e))
    }

    fn copy_dtoh(
        &self,
        dst: &mut [u8],
        src: Handle,
        src_offset: usize,
        stream: Handle,
    ) -> Result<()> {
        self.bind()?;
        let src = src + src_offset as u64;
        if dst.len() >= staging::THRESHOLD {
            return self.with_staging(|s| s.dtoh(dst, src, Self::stream(stream)));
        }
        unsafe {
            result::memcpy_dtoh_async(dst, src, Self::stream(stream))
                .map_err(|e| driver_error("cuMemcpyDtoHAsync", e))?;
            result::stream::synchronize(Self::stream(stream))
                .map_err(|e| driver_error("cuStreamSynchronize", e))
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
        self.bind()?;
        unsafe {
            result::memcpy_dtod_async(
                dst + dst_offset as u64,
                src + src_offset as u64,
                bytes,
                Self::stream(stream),
            )
        }
        .map_err(|e| driver_error("cuMemcpyDtoDAsync", e))
    }

    fn compile(
        &self,
        source: &str,
        name: &str,
        options: &[String],
        name_expressions: &[String],
    ) -> Result<Compiled> {
        let out = nvrtc::compile(source, name, &self.info.arch, options, name_expressions)?;
        let binary = if out.relocatable {
            self.bind()?;
            link::link_with_device_runtime(&out.cubin, name)?
        } else {
            out.cubin
        };
        let module = self.load(&binary)?;
        Ok(Compiled {
            binary,
            module,
            lowered_names: out.lowered_names,
        })
    }

    fn load(&self, binary: &[u8]) -> Result<Handle> {
        self.bind()?;
        // cuModuleLoadData reads an ELF cubin by its header; keep it in an aligned copy.
        let words: Vec<u64> = binary
            .chunks(8)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(w)
            })
            .collect();
        unsafe { result::module::load_data(words.as_ptr() as *const c_void) }
            .map(|m| m as usize as Handle)
            .map_err(|e| driver_error("cuModuleLoadData", e))
    }

    fn unload(&self, module: Handle) {
        if self.bind().is_ok() {
            unsafe {
                let _ = result::module::unload(module as usize as sys::CUmodule);
            }
        }
    }

    fn function(&self, module: Handle, name: &str) -> Result<Handle> {
        self.bind()?;
        let cname = CString::new(name)
            .map_err(|_| Error::Value(format!("kernel name {name:?} contains a NUL byte")))?;
        unsafe { result::module::get_function(module as usize as sys::CUmodule, cname) }
            .map(|f| f as usize as Handle)
            .map_err(|e| match e.0 {
                sys::CUresult::CUDA_ERROR_NOT_FOUND => Error::Value(format!(
                    "the module has no kernel named {name:?} (is it declared extern \"C\"?)"
                )),
                _ => driver_error("cuModuleGetFunction", e),
            })
    }

    fn module_global(&self, module: Handle, name: &str) -> Result<(u64, usize)> {
        self.bind()?;
        let cname = CString::new(name)
            .map_err(|_| Error::Value(format!("global name {name:?} contains a NUL byte")))?;
        let mut address: sys::CUdeviceptr = 0;
        let mut bytes: usize = 0;
        // SAFETY: the module is loaded in this device's context (bound above); the outputs are
        // locals the call writes.
        unsafe {
            sys::cuModuleGetGlobal_v2(
                &mut address,
                &mut bytes,
                module as usize as sys::CUmodule,
                cname.as_ptr(),
            )
        }
        .result()
        .map_err(|e| match e.0 {
            sys::CUresult::CUDA_ERROR_NOT_FOUND => {
                Error::Value(format!("the module has no global variable named {name:?}"))
            }
            _ => driver_error("cuModuleGetGlobal", e),
        })?;
        Ok((address, bytes))
    }

    fn release_function(&self, _function: Handle) {}

    fn launch(
        &self,
        function: Handle,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        self.launch_as(function, grid, block, shared_bytes, stream, args, false)
    }

    fn launch_cooperative(
        &self,
        function: Handle,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        self.launch_as(function, grid, block, shared_bytes, stream, args, true)
    }

    fn max_active_blocks(&self, function: Handle, threads: u32, shared_bytes: u32) -> Result<u64> {
        self.bind()?;
        let mut per_sm = 0;
        unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut per_sm,
                function as usize as sys::CUfunction,
                threads as i32,
                shared_bytes as usize,
            )
        }
        .result()
        .map_err(|e| driver_error("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?;
        Ok(per_sm.max(0) as u64 * self.info.multiprocessors as u64)
    }

    fn launch_queued(
        &self,
        name: &Arc<str>,
        function: Handle,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        let record = QueuedLaunch::new(
            self.context as usize,
            name,
            function,
            grid,
            block,
            shared_bytes,
            stream,
            args,
        );
        match record.map(|r| self.queue.submit(r)) {
            Some(None) => Ok(()),
            Some(Some(now)) => {
                self.bind()?;
                now.issue()
            }
            None => self.launch(function, grid, block, shared_bytes, stream, args),
        }
    }

    fn drain(&self) {
        self.queue.drain();
    }

    fn queued_launches(&self) -> u64 {
        self.queue.queued()
    }

    fn kernel_params(&self, function: Handle) -> Result<Option<KernelParams>> {
        self.bind()?;
        let f = function as usize as sys::CUfunction;
        let mut sizes = Vec::new();
        loop {
            let (mut offset, mut size) = (0usize, 0usize);
            let r = unsafe { sys::cuFuncGetParamInfo(f, sizes.len(), &mut offset, &mut size) };
            match r {
                sys::CUresult::CUDA_SUCCESS => sizes.push(size),
                // Past the last parameter.
                sys::CUresult::CUDA_ERROR_INVALID_VALUE => {
                    return Ok(Some(KernelParams {
                        count: sizes.len(),
                        sizes: Some(sizes),
                    }))
                }
                // A driver older than 12.4 cannot tell.
                _ => return Ok(None),
            }
        }
    }

    fn function_attribute(&self, function: Handle, attribute: FunctionAttribute) -> Result<i64> {
        self.bind()?;
        let mut value = 0;
        unsafe {
            sys::cuFuncGetAttribute(
                &mut value,
                cu_attribute(attribute),
                function as usize as sys::CUfunction,
            )
        }
        .result()
        .map_err(|e| driver_error("cuFuncGetAttribute", e))?;
        Ok(value as i64)
    }

    fn set_function_attribute(
        &self,
        function: Handle,
        attribute: FunctionAttribute,
        value: i64,
    ) -> Result<()> {
        self.bind()?;
        let value = i32::try_from(value).map_err(|_| {
            Error::Value(format!("attribute value {value} does not fit in 32 bits"))
        })?;
        unsafe {
            sys::cuFuncSetAttribute(
                function as usize as sys::CUfunction,
                cu_attribute(attribute),
                value,
            )
        }
        .result()
        .map_err(|e| driver_error("cuFuncSetAttribute", e))
    }

    fn alloc_pinned(&self, bytes: usize) -> Result<usize> {
        self.bind()?;
        let mut ptr: *mut c_void = std::ptr::null_mut();
        unsafe { sys::cuMemHostAlloc(&mut ptr, bytes.max(1), 0) }
            .result()
            .map_err(|e| match e.0 {
                sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => Error::OutOfMemory {
                    requested: bytes,
                    device: "page-locked host memory".into(),
                    stats: PoolStats::default(),
                    detail: "the driver could not page-lock that much host memory".into(),
                },
                _ => driver_error("cuMemHostAlloc", e),
            })?;
        Ok(ptr as usize)
    }

    fn free_pinned(&self, address: usize, _bytes: usize) {
        if self.bind().is_ok() {
            unsafe {
                let _ = sys::cuMemFreeHost(address as *mut c_void);
            }
        }
    }

    fn default_stream(&self) -> Handle {
        0
    }

    fn create_stream(&self) -> Result<Handle> {
        self.bind()?;
        result::stream::create(result::stream::StreamKind::Default)
            .map(|s| s as usize as Handle)
            .map_err(|e| driver_error("cuStreamCreate", e))
    }

    fn destroy_stream(&self, stream: Handle) {
        if stream != 0 && self.bind().is_ok() {
            unsafe {
                let _ = result::stream::destroy(Self::stream(stream));
            }
        }
    }

    fn synchronize_stream(&self, stream: Handle) -> Result<()> {
        self.bind()?;
        unsafe { result::stream::synchronize(Self::stream(stream)) }
            .map_err(|e| driver_error("cuStreamSynchronize", e))
    }

    fn query_stream(&self, stream: Handle) -> Result<bool> {
        self.bind()?;
        match unsafe { sys::cuStreamQuery(Self::stream(stream)) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            other => Err(driver_error(
                "cuStreamQuery",
                cudarc::driver::result::DriverError(other),
            )),
        }
    }

    fn record_event(&self, stream: Handle, reuse: Option<Handle>) -> Result<Handle> {
        self.bind()?;
        let event = match reuse {
            Some(e) => e as usize as sys::CUevent,
            None => result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
                .map_err(|e| driver_error("cuEventCreate", e))?,
        };
        unsafe { result::event::record(event, Self::stream(stream)) }
            .map_err(|e| driver_error("cuEventRecord", e))?;
        Ok(event as usize as Handle)
    }

    fn synchronize_event(&self, event: Handle) -> Result<()> {
        self.bind()?;
        unsafe { result::event::synchronize(event as usize as sys::CUevent) }
            .map_err(|e| driver_error("cuEventSynchronize", e))
    }

    fn query_event(&self, event: Handle) -> Result<bool> {
        self.bind()?;
        match unsafe { result::event::query(event as usize as sys::CUevent) } {
            Ok(()) => Ok(true),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            Err(e) => Err(driver_error("cuEventQuery", e)),
        }
    }

    fn elapsed_ms(&self, start: Handle, end: Handle) -> Result<f32> {
        self.bind()?;
        unsafe {
            result::event::synchronize(end as usize as sys::CUevent)
                .map_err(|e| driver_error("cuEventSynchronize", e))?;
            result::event::elapsed(start as usize as sys::CUevent, end as usize as sys::CUevent)
                .map_err(|e| driver_error("cuEventElapsedTime", e))
        }
    }

    fn destroy_event(&self, event: Handle) {
        if self.bind().is_ok() {
            unsafe {
                let _ = result::event::destroy(event as usize as sys::CUevent);
            }
        }
    }

    fn stream_wait_event(&self, stream: Handle, event: Handle) -> Result<()> {
        self.bind()?;
        unsafe {
            result::stream::wait_event(
                Self::stream(stream),
                event as usize as sys::CUevent,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .map_err(|e| driver_error("cuStreamWaitEvent", e))
    }

    fn synchronize(&self) -> Result<()> {
        self.bind()?;
        result::ctx::synchronize().map_err(|e| driver_error("cuCtxSynchronize", e))
    }

    fn memory_info(&self) -> Result<(usize, usize)> {
        self.bind()?;
        result::mem_get_info().map_err(|e| driver_error("cuMemGetInfo", e))
    }

    fn ipc_export(&self, address: u64) -> Result<(Vec<u8>, u64, usize)> {
        self.bind()?;
        // A handle names a whole allocation: find the one (an ember pool block) holding `address`.
        let (mut base, mut size) = (0, 0usize);
        unsafe { sys::cuMemGetAddressRange_v2(&mut base, &mut size, address) }
            .result()
            .map_err(|e| driver_error("cuMemGetAddressRange", e))?;
        let mut handle = sys::CUipcMemHandle { reserved: [0; 64] };
        unsafe { sys::cuIpcGetMemHandle(&mut handle, base) }
            .result()
            .map_err(|e| driver_error("cuIpcGetMemHandle", e))?;
        Ok((
            handle.reserved.iter().map(|&c| c as u8).collect(),
            base,
            size,
        ))
    }

    fn ipc_open(&self, bytes: &[u8]) -> Result<u64> {
        let mut handle = sys::CUipcMemHandle { reserved: [0; 64] };
        if bytes.len() != handle.reserved.len() {
            return Err(Error::Value(format!(
                "a CUDA IPC memory handle is 64 bytes, got {}",
                bytes.len()
            )));
        }
        for (slot, &b) in handle.reserved.iter_mut().zip(bytes) {
            *slot = b as std::ffi::c_char;
        }
        self.bind()?;
        let mut address = 0;
        let flags = sys::CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as u32;
        unsafe { sys::cuIpcOpenMemHandle_v2(&mut address, handle, flags) }
            .result()
            .map_err(|e| driver_error("cuIpcOpenMemHandle", e))?;
        Ok(address)
    }

    fn ipc_close(&self, address: u64) -> Result<()> {
        self.bind()?;
        unsafe { sys::cuIpcCloseMemHandle(address) }
            .result()
            .map_err(|e| driver_error("cuIpcCloseMemHandle", e))
    }

    fn is_fatal(&self, failure: &DriverFailure) -> bool {
        // CUDA's sticky errors: a fault in a kernel; the context answers every later call
        // with the same error.
        failure.backend == "CUDA" && matches!(failure.code, 700 | 710 | 714..=719)
    }

    fn reset(&self) -> Result<()> {
        // Tried on an H200 (driver 580): after cuDevicePrimaryCtxReset, retaining the context
        // again still fails with the fault. NVIDIA's documentation of these errors says the
        // same: the process must be restarted to use CUDA again.
        Err(Error::Value(
            "CUDA cannot continue after a kernel fault in the same process (NVIDIA: \"the process must be terminated and relaunched\")".into(),
        ))
    }
}

fn cu_attribute(attribute: FunctionAttribute) -> sys::CUfunction_attribute {
    use sys::CUfunction_attribute::*;
    match attribute {
        FunctionAttribute::MaxThreadsPerBlock => CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        FunctionAttribute::SharedSizeBytes => CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
        FunctionAttribute::ConstSizeBytes => CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
        FunctionAttribute::LocalSizeBytes => CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
        FunctionAttribute::NumRegs => CU_FUNC_ATTRIBUTE_NUM_REGS,
        FunctionAttribute::PtxVersion => CU_FUNC_ATTRIBUTE_PTX_VERSION,
        FunctionAttribute::BinaryVersion => CU_FUNC_ATTRIBUTE_BINARY_VERSION,
        FunctionAttribute::CacheModeCa => CU_FUNC_ATTRIBUTE_CACHE_MODE_CA,
        FunctionAttribute::MaxDynamicSharedSizeBytes => {
            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        }
        FunctionAttribute::PreferredSharedMemoryCarveout => {
            CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
        }
    }
}

impl Drop for CudaDevice {
    fn drop(&mut self) {
        if let Ok(mut slot) = self.staging.lock() {
            slot.take();
        }
        unsafe {
            let _ = result::primary_ctx::release(self.device);
        }
    }
}
