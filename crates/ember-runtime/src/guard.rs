//! Every call into a device's backend passes here, for two jobs no backend should repeat:
//!
//! - **Fork safety**: in a child forked after the devices opened, calls fail with
//!   [`Error::Forked`] and calls that return nothing are skipped (see `fork`).
//! - **Lost contexts**: a kernel fault can leave a context unusable, so that every later call
//!   fails with some other error. The guard notices the fatal error ([`Backend::is_fatal`]),
//!   says in it that the context is lost, and before the next call tries a new one
//!   ([`Backend::reset`]), counting a new epoch. Memory, modules and streams of an older epoch
//!   are never touched again: the device forgets its pool and modules, and arrays of the old
//!   epoch raise [`Error::DeviceReset`] when used. Where no new context can be had (CUDA, and
//!   NVIDIA's OpenCL on it, after a fault: NVIDIA requires a new process), every later call
//!   raises the same clear [`Error::DeviceReset`] instead of a cascade of driver errors.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ember_core::{Error, Result};

use crate::backend::{
    Backend, Compiled, DeviceInfo, FunctionAttribute, Handle, KernelArg, KernelParams, NdRange,
};
use crate::fork::{check, forked};

/// The context's state, when it is not simply live.
enum Loss {
    Live,
    /// Lost (the fault's call and error name): a new context is tried at the next call.
    Lost(String),
    /// No new context could be opened: the error every later call gets.
    Dead(Error),
}

/// A backend behind the checks above.
pub struct Guard {
    inner: Box<dyn Backend>,
    epoch: AtomicU64,
    /// False while the context is live (read on every call; `loss` is locked only when set).
    is_lost: AtomicBool,
    loss: Mutex<Loss>,
}

impl Guard {
    pub fn new(inner: Box<dyn Backend>) -> Guard {
        Guard {
            inner,
            epoch: AtomicU64::new(0),
            is_lost: AtomicBool::new(false),
            loss: Mutex::new(Loss::Live),
        }
    }

    /// How many times the context has been replaced.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// The backend, once this process may use it and its context is usable.
    fn live(&self) -> Result<&dyn Backend> {
        check(self.inner.info().backend.title())?;
        if !self.is_lost.load(Ordering::Acquire) {
            return Ok(self.inner.as_ref());
        }
        let mut loss = self.loss.lock().unwrap_or_else(|e| e.into_inner());
        match &*loss {
            Loss::Live => {}
            Loss::Dead(e) => return Err(e.clone()),
            Loss::Lost(why) => match self.inner.reset() {
                Ok(()) => {
                    self.epoch.fetch_add(1, Ordering::AcqRel);
                    *loss = Loss::Live;
                    self.is_lost.store(false, Ordering::Release);
                }
                Err(e) => {
                    let e = Error::DeviceReset(format!(
                        "{}'s context was lost ({why}) and no new one can be opened: {e}; save what you can from the host and restart the process",
                        self.inner.info().name
                    ));
                    *loss = Loss::Dead(e.clone());
                    return Err(e);
                }
            },
        }
        Ok(self.inner.as_ref())
    }

    /// Runs `f` on the OpenCL device behind the guard, with the guard's checks.
    pub fn opencl<T>(
        &self,
        what: &str,
        f: impl FnOnce(&crate::opencl::ClDevice) -> Result<T>,
    ) -> Result<T> {
        self.call(|b| match b.as_opencl() {
            Some(cl) => f(cl),
            None => Err(Error::Value(format!(
                "{what} are OpenCL objects; device {} ({}) is on the {} backend",
                b.info().ordinal,
                b.info().name,
                b.info().backend.name()
            ))),
        })
    }

    /// Marks the context lost for `why`, unless it already is.
    fn mark_lost(&self, why: impl FnOnce() -> String) {
        let mut loss = self.loss.lock().unwrap_or_else(|e| e.into_inner());
        if let Loss::Live = *loss {
            *loss = Loss::Lost(why());
            self.is_lost.store(true, Ordering::Release);
        }
    }

    /// Treats the context as lost, as after a fault (for tests of the recovery on devices
    /// whose faults cannot be provoked safely, such as CPU devices).
    pub fn lose(&self, why: &str) {
        self.mark_lost(|| why.to_string());
    }

    /// Passes `result` on, noting a fatal error (and saying in it what happens next).
    pub fn seen<T>(&self, result: Result<T>) -> Result<T> {
        match result {
            Err(Error::Driver(mut d)) if self.inner.is_fatal(&d) => {
                self.mark_lost(|| format!("{} {}", d.call, d.name));
                d.message.push_str(
                    "; the device's context is lost with it, and the arrays made in it: ember tries a new context at the next call",
                );
                Err(Error::Driver(d))
            }
            other => other,
        }
    }

    fn call<T>(&self, f: impl FnOnce(&dyn Backend) -> Result<T>) -> Result<T> {
        let backend = self.live()?;
        self.seen(f(backend))
    }

    /// The backend for a call that returns nothing: skipped in a forked child.
    fn quiet(&self) -> Option<&dyn Backend> {
        (!forked()).then_some(self.inner.as_ref())
    }
}

impl Backend for Guard {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn alloc(&self, bytes: usize) -> Result<Handle> {
        self.call(|b| b.alloc(bytes))
    }
    fn free(&self, memory: Handle) {
        if let Some(b) = self.quiet() {
            b.free(memory)
        }
    }
    fn host_pointer(&self, memory: Handle) -> Option<*mut u8> {
        self.quiet()?.host_pointer(memory)
    }
    fn wrap_foreign(&self, address: u64, bytes: usize) -> Result<Handle> {
        self.call(|b| b.wrap_foreign(address, bytes))
    }
    fn release_foreign(&self, memory: Handle) {
        if let Some(b) = self.quiet() {
            b.release_foreign(memory)
        }
    }
    fn copy_htod(&self, dst: Handle, dst_offset: usize, src: &[u8], stream: Handle) -> Result<()> {
        self.call(|b| b.copy_htod(dst, dst_offset, src, stream))
    }
    fn copy_dtoh(
        &self,
        dst: &mut [u8],
        src: Handle,
        src_offset: usize,
        stream: Handle,
    ) -> Result<()> {
        self.call(|b| b.copy_dtoh(dst, src, src_offset, stream))
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
        self.call(|b| b.copy_dtod(dst, dst_offset, src, src_offset, bytes, stream))
    }
    fn compile(
        &self,
        source: &str,
        name: &str,
        options: &[String],
        name_expressions: &[String],
    ) -> Result<Compiled> {
        self.call(|b| b.compile(source, name, options, name_expressions))
    }
    fn load(&self, binary: &[u8]) -> Result<Handle> {
        self.call(|b| b.load(binary))
    }
    fn unload(&self, module: Handle) {
        if let Some(b) = self.quiet() {
            b.unload(module)
        }
    }
    fn function(&self, module: Handle, name: &str) -> Result<Handle> {
        self.call(|b| b.function(module, name))
    }
    fn release_function(&self, function: Handle) {
        if let Some(b) = self.quiet() {
            b.release_function(function)
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
        self.call(|b| b.launch(function, grid, block, shared_bytes, stream, args))
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
        self.call(|b| b.launch_queued(name, function, grid, block, shared_bytes, stream, args))
    }
    fn drain(&self) {
        if let Some(b) = self.quiet() {
            b.drain()
        }
    }
    fn queued_launches(&self) -> u64 {
        self.inner.queued_launches()
    }
    fn launch_ndrange(
        &self,
        function: Handle,
        range: &NdRange,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        self.call(|b| b.launch_ndrange(function, range, stream, args))
    }
    fn kernel_params(&self, function: Handle) -> Result<Option<KernelParams>> {
        self.call(|b| b.kernel_params(function))
    }
    fn function_attribute(&self, function: Handle, attribute: FunctionAttribute) -> Result<i64> {
        self.call(|b| b.function_attribute(function, attribute))
    }
    fn set_function_attribute(
        &self,
        function: Handle,
        attribute: FunctionAttribute,
        value: i64,
    ) -> Result<()> {
        self.call(|b| b.set_function_attribute(function, attribute, value))
    }
    fn alloc_pinned(&self, bytes: usize) -> Result<usize> {
        self.call(|b| b.alloc_pinned(bytes))
    }
    fn free_pinned(&self, address: usize, bytes: usize) {
        if let Some(b) = self.quiet() {
            b.free_pinned(address, bytes)
        }
    }
    fn default_stream(&self) -> Handle {
        self.inner.default_stream()
    }
    fn create_stream(&self) -> Result<Handle> {
        self.call(|b| b.create_stream())
    }
    fn destroy_stream(&self, stream: Handle) {
        if let Some(b) = self.quiet() {
            b.destroy_stream(stream)
        }
    }
    fn synchronize_stream(&self, stream: Handle) -> Result<()> {
        self.call(|b| b.synchronize_stream(stream))
    }
    fn query_stream(&self, stream: Handle) -> Result<bool> {
        self.call(|b| b.query_stream(stream))
    }
    fn record_event(&self, stream: Handle, reuse: Option<Handle>) -> Result<Handle> {
        self.call(|b| b.record_event(stream, reuse))
    }
    fn synchronize_event(&self, event: Handle) -> Result<()> {
        self.call(|b| b.synchronize_event(event))
    }
    fn query_event(&self, event: Handle) -> Result<bool> {
        self.call(|b| b.query_event(event))
    }
    fn elapsed_ms(&self, start: Handle, end: Handle) -> Result<f32> {
        self.call(|b| b.elapsed_ms(start, end))
    }
    fn destroy_event(&self, event: Handle) {
        if let Some(b) = self.quiet() {
            b.destroy_event(event)
        }
    }
    fn stream_wait_event(&self, stream: Handle, event: Handle) -> Result<()> {
        self.call(|b| b.stream_wait_event(stream, event))
    }
    fn synchronize(&self) -> Result<()> {
        self.call(|b| b.synchronize())
    }
    fn memory_info(&self) -> Result<(usize, usize)> {
        self.call(|b| b.memory_info())
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
        self.call(|b| b.launch_cooperative(function, grid, block, shared_bytes, stream, args))
    }
    fn max_active_blocks(&self, function: Handle, threads: u32, shared_bytes: u32) -> Result<u64> {
        self.call(|b| b.max_active_blocks(function, threads, shared_bytes))
    }
    fn ipc_export(&self, address: u64) -> Result<(Vec<u8>, u64, usize)> {
        self.call(|b| b.ipc_export(address))
    }
    fn ipc_open(&self, handle: &[u8]) -> Result<u64> {
        self.call(|b| b.ipc_open(handle))
    }
    fn ipc_close(&self, address: u64) -> Result<()> {
        self.call(|b| b.ipc_close(address))
    }
    fn create_user_event(&self) -> Result<Handle> {
        self.call(|b| b.create_user_event())
    }
    fn set_user_event_status(&self, event: Handle, status: i32) -> Result<()> {
        self.call(|b| b.set_user_event_status(event, status))
    }
    fn program_binary(&self, module: Handle) -> Result<Vec<u8>> {
        self.call(|b| b.program_binary(module))
    }
    fn module_global(&self, module: Handle, name: &str) -> Result<(u64, usize)> {
        self.call(|b| b.module_global(module, name))
    }
    fn opencl_info(&self, of_platform: bool, param: u32) -> Result<Vec<u8>> {
        self.call(|b| b.opencl_info(of_platform, param))
    }
}
