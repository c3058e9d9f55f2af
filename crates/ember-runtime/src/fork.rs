//! Fork safety. A child `fork()`ed after ember opened its devices inherits the parent's
//! contexts but not the threads behind them (the driver's, PoCL's workers, ember's launch
//! issuer): its first wait would block for ever. CUDA forbids using a context across a fork,
//! and a PoCL device cannot be reopened in the child either (its worker pool is global), so
//! the child gets a clear error at its first device call instead, saying to use the `spawn`
//! start method (as PyTorch does). Everything the child does not wait on (freeing inherited
//! memory at exit, a stream's destructor) is skipped quietly: the memory is the parent's.
//!
//! Every device call goes through [`ForkGuard`], which costs one atomic load.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};

use ember_core::{Error, Result};

use crate::backend::{
    Backend, Compiled, DeviceInfo, FunctionAttribute, Handle, KernelArg, KernelParams, NdRange,
};

static FORKED: AtomicBool = AtomicBool::new(false);

extern "C" fn in_child() {
    FORKED.store(true, Ordering::Relaxed);
}

/// Starts watching for `fork()` (called when the first device opens: a fork before that
/// leaves the child free to open its own).
pub fn watch() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| unsafe {
        libc::pthread_atfork(None, None, Some(in_child));
    });
}

/// Whether this process is a child forked after ember opened its devices.
pub fn forked() -> bool {
    FORKED.load(Ordering::Relaxed)
}

/// `Err(Error::Forked)` in a forked child.
pub fn check() -> Result<()> {
    if forked() {
        Err(Error::Forked)
    } else {
        Ok(())
    }
}

/// A backend whose calls fail with [`Error::Forked`] in a forked child.
pub struct ForkGuard(pub Box<dyn Backend>);

impl ForkGuard {
    fn live(&self) -> Result<&dyn Backend> {
        check()?;
        Ok(self.0.as_ref())
    }

    /// The backend for a call that returns nothing: skipped in a forked child.
    fn quiet(&self) -> Option<&dyn Backend> {
        (!forked()).then_some(self.0.as_ref())
    }
}

impl Backend for ForkGuard {
    fn info(&self) -> &DeviceInfo {
        self.0.info()
    }
    fn alloc(&self, bytes: usize) -> Result<Handle> {
        self.live()?.alloc(bytes)
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
        self.live()?.wrap_foreign(address, bytes)
    }
    fn release_foreign(&self, memory: Handle) {
        if let Some(b) = self.quiet() {
            b.release_foreign(memory)
        }
    }
    fn copy_htod(&self, dst: Handle, dst_offset: usize, src: &[u8], stream: Handle) -> Result<()> {
        self.live()?.copy_htod(dst, dst_offset, src, stream)
    }
    fn copy_dtoh(
        &self,
        dst: &mut [u8],
        src: Handle,
        src_offset: usize,
        stream: Handle,
    ) -> Result<()> {
        self.live()?.copy_dtoh(dst, src, src_offset, stream)
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
        self.live()?
            .copy_dtod(dst, dst_offset, src, src_offset, bytes, stream)
    }
    fn compile(
        &self,
        source: &str,
        name: &str,
        options: &[String],
        name_expressions: &[String],
    ) -> Result<Compiled> {
        self.live()?
            .compile(source, name, options, name_expressions)
    }
    fn load(&self, binary: &[u8]) -> Result<Handle> {
        self.live()?.load(binary)
    }
    fn unload(&self, module: Handle) {
        if let Some(b) = self.quiet() {
            b.unload(module)
        }
    }
    fn function(&self, module: Handle, name: &str) -> Result<Handle> {
        self.live()?.function(module, name)
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
        self.live()?
            .launch(function, grid, block, shared_bytes, stream, args)
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
        self.live()?
            .launch_queued(name, function, grid, block, shared_bytes, stream, args)
    }
    fn drain(&self) {
        if let Some(b) = self.quiet() {
            b.drain()
        }
    }
    fn queued_launches(&self) -> u64 {
        self.0.queued_launches()
    }
    fn launch_ndrange(
        &self,
        function: Handle,
        range: &NdRange,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        self.live()?.launch_ndrange(function, range, stream, args)
    }
    fn kernel_params(&self, function: Handle) -> Result<Option<KernelParams>> {
        self.live()?.kernel_params(function)
    }
    fn function_attribute(&self, function: Handle, attribute: FunctionAttribute) -> Result<i64> {
        self.live()?.function_attribute(function, attribute)
    }
    fn set_function_attribute(
        &self,
        function: Handle,
        attribute: FunctionAttribute,
        value: i64,
    ) -> Result<()> {
        self.live()?
            .set_function_attribute(function, attribute, value)
    }
    fn alloc_pinned(&self, bytes: usize) -> Result<usize> {
        self.live()?.alloc_pinned(bytes)
    }
    fn free_pinned(&self, address: usize, bytes: usize) {
        if let Some(b) = self.quiet() {
            b.free_pinned(address, bytes)
        }
    }
    fn default_stream(&self) -> Handle {
        self.0.default_stream()
    }
    fn create_stream(&self) -> Result<Handle> {
        self.live()?.create_stream()
    }
    fn destroy_stream(&self, stream: Handle) {
        if let Some(b) = self.quiet() {
            b.destroy_stream(stream)
        }
    }
    fn synchronize_stream(&self, stream: Handle) -> Result<()> {
        self.live()?.synchronize_stream(stream)
    }
    fn query_stream(&self, stream: Handle) -> Result<bool> {
        self.live()?.query_stream(stream)
    }
    fn record_event(&self, stream: Handle, reuse: Option<Handle>) -> Result<Handle> {
        self.live()?.record_event(stream, reuse)
    }
    fn synchronize_event(&self, event: Handle) -> Result<()> {
        self.live()?.synchronize_event(event)
    }
    fn query_event(&self, event: Handle) -> Result<bool> {
        self.live()?.query_event(event)
    }
    fn elapsed_ms(&self, start: Handle, end: Handle) -> Result<f32> {
        self.live()?.elapsed_ms(start, end)
    }
    fn destroy_event(&self, event: Handle) {
        if let Some(b) = self.quiet() {
            b.destroy_event(event)
        }
    }
    fn stream_wait_event(&self, stream: Handle, event: Handle) -> Result<()> {
        self.live()?.stream_wait_event(stream, event)
    }
    fn synchronize(&self) -> Result<()> {
        self.live()?.synchronize()
    }
    fn memory_info(&self) -> Result<(usize, usize)> {
        self.live()?.memory_info()
    }
}
