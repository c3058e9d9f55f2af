//! Devices: a backend instance with its memory pool and kernel cache, and the process-wide
//! list of devices of the selected backend.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use ember_core::{BackendChoice, Config, Error, Result};

use crate::backend::{
    Backend, BackendKind, DeviceInfo, FunctionAttribute, Handle, KernelArg, KernelParams, NdRange,
};
use crate::cache::{cache_key, CacheKey, CacheStats, DiskCache, Lookup};
use crate::declared::CType;
use crate::guard::Guard;
use crate::pool::{Block, MemoryPool, RawAllocator};
use crate::{cuda, opencl};

/// ember's version, part of every cache key.
pub const EMBER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One device of the selected backend. Devices live for the whole process.
pub struct Device {
    backend: Guard,
    /// The backend's epoch this device's pool and modules belong to (see `guard`).
    epoch: AtomicU64,
    pool: MemoryPool,
    modules: Mutex<HashMap<CacheKey, Arc<Module>>>,
    disk: Option<DiskCache>,
    /// Where sources are saved for reading (`EMBER_CACHE_SAVE_SOURCE`), if anywhere.
    sources: Option<DiskCache>,
    stats: CacheStats,
    last_kernel: Mutex<Option<Arc<str>>>,
}

struct PoolSource<'a>(&'a dyn Backend);

impl RawAllocator for PoolSource<'_> {
    fn raw_alloc(&self, bytes: usize) -> Result<Handle> {
        self.0.alloc(bytes)
    }
    fn raw_free(&self, memory: Handle) {
        self.0.free(memory)
    }
}

impl Device {
    fn new(backend: Box<dyn Backend>, config: &Config) -> Device {
        crate::fork::watch();
        Device {
            backend: Guard::new(backend),
            epoch: AtomicU64::new(0),
            pool: MemoryPool::new(),
            modules: Mutex::new(HashMap::new()),
            disk: config.disk_cache.then(|| DiskCache::new(&config.cache_dir)),
            sources: config
                .save_source
                .then(|| DiskCache::new(&config.cache_dir)),
            stats: CacheStats::default(),
            last_kernel: Mutex::new(None),
        }
    }

    pub fn backend(&self) -> &dyn Backend {
        &self.backend
    }

    /// Runs `f` on the device as an OpenCL device (images, samplers, separate compilation),
    /// through the guard; `what` names the objects for the error on other backends.
    pub fn opencl<T>(
        &self,
        what: &str,
        f: impl FnOnce(&crate::opencl::ClDevice) -> Result<T>,
    ) -> Result<T> {
        self.backend.opencl(what, f)
    }

    /// A module from a program the backend already built (an OpenCL `link_program`'s);
    /// `source` is what its kernels' parameter types are read from.
    pub fn module_from_handle(&'static self, handle: Handle, source: &str) -> Arc<Module> {
        self.epoch();
        let build = Build {
            source,
            name: "linked program",
            options: &[],
            expressions: &[],
        };
        Arc::new(Module::new(self, handle, build, Vec::new()))
    }

    /// Replaces the device's context at the next call, as after a fault (tests of recovery).
    pub fn lose_context(&self) {
        crate::deferred::finish();
        self.backend.drain();
        self.backend
            .lose("a reset asked for by ember._ember.reset_device");
    }

    /// How many times the device's context has been replaced after a fault. Memory and
    /// modules of an older epoch are gone: the pool and module map forget theirs here.
    pub fn epoch(&self) -> u64 {
        let now = self.backend.epoch();
        // A plain load on every call (arrays ask on each use); the swap only after a reset.
        if self.epoch.load(Ordering::Acquire) != now
            && self.epoch.swap(now, Ordering::AcqRel) != now
        {
            self.pool.forget_all();
            // Modules of the old context drop without touching the driver (their epoch).
            self.modules
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clear();
        }
        now
    }

    pub fn info(&self) -> &DeviceInfo {
        self.backend.info()
    }

    pub fn kind(&self) -> BackendKind {
        self.info().backend
    }

    pub fn pool(&self) -> &MemoryPool {
        &self.pool
    }

    pub fn default_stream(&self) -> Handle {
        self.backend.default_stream()
    }

    /// Where compiled modules came from so far.
    pub fn cache_stats(&self) -> &CacheStats {
        &self.stats
    }

    pub(crate) fn allocate_block(&self, bytes: usize, stream: Handle) -> Result<Block> {
        self.epoch();
        let allocate = || {
            self.pool.allocate(
                &PoolSource(self.backend()),
                bytes,
                stream,
                &self.info().name,
            )
        };
        allocate().or_else(|err| {
            // Pending work may hold intermediates nobody needs: finishing it frees them.
            if crate::deferred::is_pending() {
                crate::deferred::finish();
                allocate()
            } else {
                Err(err)
            }
        })
    }

    pub(crate) fn release_block(&self, block: Block, stream: Handle) {
        self.pool.release(block, stream)
    }

    /// Gives the pool's cached blocks back to the device.
    pub fn free_all_blocks(&self) {
        crate::deferred::finish();
        self.pool.free_all_blocks(&PoolSource(self.backend()))
    }

    /// Adds the last kernel launched to a driver error.
    pub fn annotate(&self, err: Error) -> Error {
        let last = self
            .last_kernel
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_deref()
            .map(str::to_string);
        err.with_last_kernel(last)
    }

    /// Waits for all work on the device.
    pub fn synchronize(&self) -> Result<()> {
        // A launch that failed from the queue may have been a fault: the guard must see it.
        self.backend
            .seen(crate::deferred::finish_and_check())
            .map_err(|e| self.annotate(e))?;
        self.backend.synchronize().map_err(|e| self.annotate(e))?;
        flush_kernel_output();
        Ok(())
    }

    /// Waits for the work on one stream.
    pub fn synchronize_stream(&self, stream: Handle) -> Result<()> {
        self.backend
            .seen(crate::deferred::finish_and_check())
            .map_err(|e| self.annotate(e))?;
        self.backend
            .synchronize_stream(stream)
            .map_err(|e| self.annotate(e))?;
        flush_kernel_output();
        Ok(())
    }

    /// The module built from `source`, through the cache: this device's map, then disk, then
    /// the compiler. `name` names the source in messages.
    pub fn module(
        &'static self,
        source: &str,
        name: &str,
        options: &[String],
    ) -> Result<Arc<Module>> {
        self.module_with_names(source, name, options, &[])
    }

    /// [`Device::module`], also resolving C++ `name_expressions` (template instances) to the
    /// names the module knows them by.
    /// The driver's binary of `module` (OpenCL's program binary).
    pub fn module_binary(&self, module: &Module) -> Result<Vec<u8>> {
        self.backend.program_binary(module.handle)
    }

    /// A module loaded from a binary [`Device::module_binary`] gave. It has no source, so it
    /// is not rebuilt after a device fault: load it again then.
    pub fn module_from_binary(&'static self, binary: &[u8]) -> Result<Arc<Module>> {
        self.epoch();
        let handle = self.backend.load(binary)?;
        let build = Build {
            source: "",
            name: "program binary",
            options: &[],
            expressions: &[],
        };
        Ok(Arc::new(Module::new(self, handle, build, Vec::new())))
    }

    pub fn module_with_names(
        &'static self,
        source: &str,
        name: &str,
        options: &[String],
        name_expressions: &[String],
    ) -> Result<Arc<Module>> {
        let info = self.info();
        let joined = options.join("\u{0}");
        let names = name_expressions.join("\u{0}");
        let key = cache_key(&[
            EMBER_VERSION.as_bytes(),
            info.backend.name().as_bytes(),
            info.compiler.as_bytes(),
            info.arch.as_bytes(),
            joined.as_bytes(),
            names.as_bytes(),
            source.as_bytes(),
        ]);
        self.epoch();
        if let Some(m) = self
            .modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            CacheStats::bump(&self.stats.memory_hits);
            return Ok(m.clone());
        }
        let module =
            Arc::new(self.load_or_compile(&key, source, name, options, name_expressions)?);
        let mut map = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        Ok(map.entry(key).or_insert(module).clone())
    }

    fn load_or_compile(
        &'static self,
        key: &CacheKey,
        source: &str,
        name: &str,
        options: &[String],
        name_expressions: &[String],
    ) -> Result<Module> {
        let build = Build {
            source,
            name,
            options,
            expressions: name_expressions,
        };
        if let Some(disk) = &self.disk {
            let cached = match disk.get(key) {
                Lookup::Hit(blob) => Some(decode_entry(blob, name_expressions.len())),
                Lookup::Corrupt => Some(None),
                Lookup::Miss => None,
            };
            match cached {
                Some(Some((binary, lowered))) => match self.backend.load(&binary) {
                    Ok(handle) => {
                        CacheStats::bump(&self.stats.disk_hits);
                        return Ok(Module::new(self, handle, build, lowered));
                    }
                    // A binary the driver refuses is as good as corrupt: rebuild it.
                    Err(_) => CacheStats::bump(&self.stats.corrupt),
                },
                Some(None) => CacheStats::bump(&self.stats.corrupt),
                None => {}
            }
        }
        let compiled = self
            .backend
            .compile(source, name, options, name_expressions)?;
        CacheStats::bump(&self.stats.compiles);
        if let Some(sources) = &self.sources {
            let ext = match self.info().backend {
                BackendKind::Cuda => "cu",
                BackendKind::OpenCl => "cl",
            };
            // Saving is for reading only: a failure must not fail the compile.
            let _ = sources.save_source(key, ext, source);
        }
        if let Some(disk) = &self.disk {
            // A cache that cannot be written only costs a compile next time.
            let _ = disk.put(
                key,
                &encode_entry(&compiled.binary, &compiled.lowered_names),
            );
        }
        Ok(Module::new(
            self,
            compiled.module,
            build,
            compiled.lowered_names,
        ))
    }

    /// Forgets the in-process tier of the cache (tests use this to reach the disk tier).
    pub fn clear_module_map(&self) {
        self.modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// The disk tier, if enabled.
    pub fn disk_cache(&self) -> Option<&DiskCache> {
        self.disk.as_ref()
    }

    /// Queues `function` after checking the launch shape against the device's limits.
    pub fn launch(
        &'static self,
        function: &Function,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        self.launch_as(function, [grid, block], shared_bytes, stream, args, false)
    }

    /// [`Device::launch`], cooperatively: every block resident at once (a grid-wide barrier
    /// needs it); a grid larger than the device holds is refused, saying how many fit.
    pub fn launch_cooperative(
        &'static self,
        function: &Function,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        self.launch_as(function, [grid, block], shared_bytes, stream, args, true)
    }

    fn launch_as(
        &'static self,
        function: &Function,
        [grid, block]: [[u32; 3]; 2],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
        cooperative: bool,
    ) -> Result<()> {
        let fresh = self.reloaded(function)?;
        let function = fresh.as_ref().unwrap_or(function);
        self.before_launch(function, grid, block)?;
        self.check_args(function, shared_bytes as usize, args)?;
        if !cooperative {
            return crate::profile::around(
                self,
                || function.name.as_ref().into(),
                [grid, block],
                stream,
                || {
                    self.backend
                        .launch(function.handle, grid, block, shared_bytes, stream, args)
                        .map_err(|e| self.annotate(e))
                },
            );
        }
        let threads: u32 = block.iter().product();
        let most = self
            .backend
            .max_active_blocks(function.handle, threads, shared_bytes)?;
        let blocks: u64 = grid.iter().map(|&g| u64::from(g)).product();
        if blocks > most {
            return Err(Error::Value(format!(
                "a kernel that synchronises its grid (cuda.cg.this_grid().sync()) runs all its blocks at once, and this device holds at most {most} blocks of {threads} threads of it; launch {most} blocks or fewer (kernel.max_cooperative_grid_blocks(blockdim) tells)"
            )));
        }
        crate::profile::around(
            self,
            || function.name.as_ref().into(),
            [grid, block],
            stream,
            || {
                self.backend
                    .launch_cooperative(function.handle, grid, block, shared_bytes, stream, args)
                    .map_err(|e| self.annotate(e))
            },
        )
    }

    /// Refuses a launch over memory lost with a replaced context, or asking for more shared
    /// memory than a block may have: drivers do not all refuse that cleanly (PoCL aborts the
    /// process, NVIDIA's OpenCL leaves the queue unusable). Dynamic memory is `shared_bytes`
    /// plus OpenCL's `__local` arguments.
    fn check_args(
        &self,
        function: &Function,
        shared_bytes: usize,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        if args.iter().any(|a| matches!(a, KernelArg::Lost)) {
            return Err(crate::buffer::lost_memory());
        }
        let limit = self.info().max_shared_per_block;
        let dynamic = shared_bytes
            + args
                .iter()
                .map(|a| match a {
                    KernelArg::Local(bytes) => *bytes,
                    _ => 0,
                })
                .sum::<usize>();
        let fixed = function.static_shared();
        if limit == 0 || fixed + dynamic <= limit {
            return Ok(());
        }
        Err(Error::LaunchConfig(format!(
            "cannot launch {}: it needs {} bytes of shared memory per block ({fixed} declared in the kernel, {dynamic} dynamic), more than the {limit} a block may have on {}; use smaller shared arrays or fewer threads per block",
            function.name,
            fixed + dynamic,
            self.info().name
        )))
    }

    /// `function` loaded again if its module is of an older epoch (gone with a lost
    /// context): callers keep kernels (memos, RawKernel objects) across a reset.
    fn reloaded(&'static self, function: &Function) -> Result<Option<Function>> {
        let m = &function.module;
        if m.epoch == self.epoch() {
            return Ok(None);
        }
        let expressions: Vec<String> = m.lowered.iter().map(|(e, _)| e.clone()).collect();
        let module = self.module_with_names(&m.source, &m.name, &m.options, &expressions)?;
        module.function(&function.name).map(Some)
    }

    /// What every launch does first: queue pending fused work (it comes earlier), check the
    /// shape, note the kernel for driver errors.
    fn before_launch(&self, function: &Function, grid: [u32; 3], block: [u32; 3]) -> Result<()> {
        crate::deferred::finish();
        self.check_launch(&function.name, grid, block)?;
        self.check_kernel_block(function, block)?;
        self.note_launch(&function.name);
        Ok(())
    }

    /// [`Device::launch`] for kernels over memory nothing outside ember sees, whose arguments
    /// hold no pointers of their own (ember's generated kernels, `@jit` kernels, user CUDA C
    /// that `args::queueable` accepts): a burst of
    /// them may be issued from the backend's launch thread ([`Backend::launch_queued`]). A
    /// kernel's first launch in a block shape goes at once, so its errors come at the call.
    pub fn launch_queued(
        &'static self,
        function: &Function,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        let fresh = self.reloaded(function)?;
        let function = fresh.as_ref().unwrap_or(function);
        let key = launch_shape_key(grid, block, shared_bytes);
        // A profile times each launch between events: issued now, not from the launch thread.
        if crate::profile::is_open() {
            return self.launch(function, grid, block, shared_bytes, stream, args);
        }
        if key.is_none() || function.launched.load(Ordering::Relaxed) != key.unwrap_or(0) {
            self.launch(function, grid, block, shared_bytes, stream, args)?;
            if let Some(k) = key {
                function.launched.store(k, Ordering::Relaxed);
            }
            return Ok(());
        }
        self.before_launch(function, grid, block)?;
        // OpenCL's `__local` arguments are outside the shape key.
        self.check_args(function, shared_bytes as usize, args)?;
        self.backend
            .launch_queued(
                &function.name,
                function.handle,
                grid,
                block,
                shared_bytes,
                stream,
                args,
            )
            .map_err(|e| self.annotate(e))
    }

    /// Queues `function` sized as OpenCL sizes work (global and optional local sizes).
    pub fn launch_ndrange(
        &'static self,
        function: &Function,
        range: &NdRange,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        let fresh = self.reloaded(function)?;
        let function = fresh.as_ref().unwrap_or(function);
        let name = &function.name;
        let dims = range.dims as usize;
        if !(1..=3).contains(&dims) {
            return Err(Error::LaunchConfig(format!(
                "cannot launch {name}: a launch has 1, 2 or 3 dimensions, got {dims}"
            )));
        }
        if range.global[..dims].contains(&0) {
            return Err(Error::LaunchConfig(format!(
                "cannot launch {name} with global size {:?}: every dimension must be at least 1",
                &range.global[..dims]
            )));
        }
        if let Some(local) = range.local {
            let block = [0, 1, 2].map(|i| local[i] as u32);
            self.check_launch(name, [1, 1, 1], block)?;
            self.check_kernel_block(function, block)?;
            for d in 0..dims {
                if !range.global[d].is_multiple_of(local[d]) {
                    return Err(Error::LaunchConfig(format!(
                        "cannot launch {name}: global size {:?} is not a multiple of local size {:?} in dimension {d}",
                        &range.global[..dims],
                        &local[..dims]
                    )));
                }
            }
        }
        self.check_args(function, 0, args)?;
        crate::deferred::finish();
        self.note_launch(name);
        let global = [0, 1, 2].map(|i| range.global[i] as u32);
        let (grid, block) = match range.local {
            Some(local) => (
                [0, 1, 2].map(|i| global[i] / local[i].max(1) as u32),
                local.map(|l| l as u32),
            ),
            None => (global, [0; 3]),
        };
        crate::profile::around(
            self,
            || name.as_ref().into(),
            [grid, block],
            stream,
            || {
                self.backend
                    .launch_ndrange(function.handle, range, stream, args)
                    .map_err(|e| self.annotate(e))
            },
        )
    }

    /// Remembers the kernel for driver errors (skipping the write when it is the same one).
    fn note_launch(&self, name: &Arc<str>) {
        let mut last = self.last_kernel.lock().unwrap_or_else(|e| e.into_inner());
        if !last.as_ref().is_some_and(|k| Arc::ptr_eq(k, name)) {
            *last = Some(name.clone());
        }
    }

    /// A block larger than this kernel may have (its registers or private memory per thread
    /// allow fewer threads than the device) is refused here: drivers report it only as
    /// "out of resources".
    fn check_kernel_block(&self, function: &Function, block: [u32; 3]) -> Result<()> {
        let threads: u64 = block.iter().map(|&b| b as u64).product();
        let max = function.max_threads() as u64;
        if max == 0 || threads <= max {
            return Ok(());
        }
        Err(Error::LaunchConfig(format!(
            "cannot launch {}: block {block:?} has {threads} threads, but this kernel may have at most {max} per block on {} (its registers, private memory or launch bounds per thread allow no more); launch it with at most {max} threads per block",
            function.name,
            self.info().name
        )))
    }

    fn check_launch(&self, name: &str, grid: [u32; 3], block: [u32; 3]) -> Result<()> {
        let info = self.info();
        if grid.contains(&0) || block.contains(&0) {
            return Err(Error::LaunchConfig(format!(
                "cannot launch {name} with grid {grid:?} and block {block:?}: every dimension must be at least 1"
            )));
        }
        let threads: u64 = block.iter().map(|&b| b as u64).product();
        if threads > info.max_threads_per_block as u64 {
            return Err(Error::LaunchConfig(format!(
                "cannot launch {name}: block {block:?} has {threads} threads, more than the {} a block may have on {}",
                info.max_threads_per_block, info.name
            )));
        }
        for (axis, (&b, &max)) in block.iter().zip(&info.max_block_dims).enumerate() {
            if b as usize > max {
                return Err(Error::LaunchConfig(format!(
                    "cannot launch {name}: block dimension {axis} is {b}, more than {max} on {}",
                    info.name
                )));
            }
        }
        Ok(())
    }
}

/// A disk-cache entry: the lowered names (each preceded by its length), then the binary.
fn encode_entry(binary: &[u8], lowered: &[String]) -> Vec<u8> {
    let mut out = Vec::with_capacity(binary.len() + 64);
    for name in lowered {
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
    }
    out.extend_from_slice(binary);
    out
}

/// Splits an entry from [`encode_entry`] holding `count` names; `None` if malformed.
fn decode_entry(mut blob: Vec<u8>, count: usize) -> Option<(Vec<u8>, Vec<String>)> {
    if count == 0 {
        return Some((blob, Vec::new()));
    }
    let mut rest = blob.as_slice();
    let mut names = Vec::with_capacity(count);
    for _ in 0..count {
        let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let text = rest.get(4..4 + len)?;
        names.push(String::from_utf8(text.to_vec()).ok()?);
        rest = &rest[4 + len..];
    }
    let start = blob.len() - rest.len();
    blob.drain(..start);
    Some((blob, names))
}

struct FunctionEntry {
    handle: Handle,
    params: Arc<OnceLock<Option<KernelParams>>>,
    declared: Declared,
    launched: Arc<AtomicU64>,
    limits: Arc<OnceLock<KernelLimits>>,
}

/// What a compiled kernel allows a launch, asked of the driver once per kernel (0 where the
/// API cannot tell).
#[derive(Clone, Copy)]
struct KernelLimits {
    /// Bytes of shared (OpenCL: local) memory its code declares.
    static_shared: usize,
    /// The most threads a block of it may have: the device's limit, or fewer when its
    /// registers or private memory per thread allow fewer.
    max_threads: usize,
}

/// A kernel's declared parameter types, read from its module's source on first use (only
/// launches of user-written kernels ask).
type Declared = Arc<OnceLock<Option<Arc<[CType]>>>>;

/// What a module is built from.
#[derive(Clone, Copy)]
struct Build<'a> {
    source: &'a str,
    name: &'a str,
    options: &'a [String],
    expressions: &'a [String],
}

/// A loaded module.
pub struct Module {
    device: &'static Device,
    handle: Handle,
    /// The source it was built from, to read its kernels' declared parameter types.
    source: Arc<str>,
    /// (name expression, the compiler's name for it).
    lowered: Vec<(String, String)>,
    functions: Mutex<HashMap<String, FunctionEntry>>,
    /// The device's epoch it was loaded in, and what it was built with: a module of an older
    /// epoch is gone with its context, and is built again from these.
    epoch: u64,
    name: String,
    options: Vec<String>,
}

impl Module {
    /// The backend's module (a `CUmodule`, a `cl_program`).
    pub fn handle(&self) -> Handle {
        self.handle
    }

    fn new(
        device: &'static Device,
        handle: Handle,
        build: Build<'_>,
        lowered: Vec<String>,
    ) -> Module {
        Module {
            device,
            handle,
            source: Arc::from(build.source),
            lowered: build.expressions.iter().cloned().zip(lowered).collect(),
            functions: Mutex::new(HashMap::new()),
            epoch: device.backend.epoch(),
            name: build.name.to_string(),
            options: build.options.to_vec(),
        }
    }

    pub fn device(&self) -> &'static Device {
        self.device
    }

    /// The compiler's name for a name expression given when the module was built.
    pub fn lowered_name(&self, expression: &str) -> Option<&str> {
        self.lowered
            .iter()
            .find(|(e, _)| e == expression)
            .map(|(_, l)| l.as_str())
    }

    /// The address and size of the module's global variable `name` (CUDA).
    pub fn global(&self, name: &str) -> Result<(u64, usize)> {
        let symbol = self.lowered_name(name).unwrap_or(name);
        self.device.backend.module_global(self.handle, symbol)
    }

    /// The kernel called `name` (or a name expression's kernel).
    pub fn function(self: &Arc<Self>, name: &str) -> Result<Function> {
        let symbol = self.lowered_name(name).unwrap_or(name);
        let mut map = self.functions.lock().unwrap_or_else(|e| e.into_inner());
        let entry = match map.get(symbol) {
            Some(e) => e,
            None => {
                let handle = self.device.backend.function(self.handle, symbol)?;
                map.entry(symbol.to_string()).or_insert(FunctionEntry {
                    handle,
                    params: Arc::new(OnceLock::new()),
                    declared: Arc::new(OnceLock::new()),
                    launched: Arc::new(AtomicU64::new(0)),
                    limits: Arc::new(OnceLock::new()),
                })
            }
        };
        Ok(Function {
            module: self.clone(),
            handle: entry.handle,
            name: Arc::from(name),
            params: entry.params.clone(),
            declared: entry.declared.clone(),
            launched: entry.launched.clone(),
            limits: entry.limits.clone(),
        })
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        if self.epoch != self.device.backend.epoch() {
            return; // gone with its context; its handles may name new objects now
        }
        let backend = self.device.backend();
        for (_, f) in self
            .functions
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
        {
            backend.release_function(f.handle);
        }
        backend.unload(self.handle);
    }
}

/// A kernel ready to launch; keeps its module loaded.
#[derive(Clone)]
pub struct Function {
    module: Arc<Module>,
    handle: Handle,
    name: Arc<str>,
    params: Arc<OnceLock<Option<KernelParams>>>,
    /// The parameter types its source declares, where they could be read.
    declared: Declared,
    /// The block shape and shared memory it last launched with at once, without error
    /// ([`launch_shape_key`]): only such launches may be queued, so a kernel's first launch
    /// in a shape still reports a bad shape (too many registers, too much shared memory) at
    /// the call.
    launched: Arc<AtomicU64>,
    /// Its shared memory and largest block (asked once per kernel).
    limits: Arc<OnceLock<KernelLimits>>,
}

/// `block` and `shared_bytes` packed in 64 bits (never 0), or `None` when they do not fit or
/// the grid is beyond what every CUDA device takes (such launches are never queued).
fn launch_shape_key(grid: [u32; 3], block: [u32; 3], shared_bytes: u32) -> Option<u64> {
    if grid[0] > i32::MAX as u32 || grid[1] > 65535 || grid[2] > 65535 {
        return None;
    }
    if block.iter().any(|&b| b >= 1 << 11) || shared_bytes >= 1 << 20 {
        return None;
    }
    let [x, y, z] = block.map(u64::from);
    Some(1 << 63 | u64::from(shared_bytes) << 33 | z << 22 | y << 11 | x)
}

impl Function {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn device(&self) -> &'static Device {
        self.module.device
    }

    pub fn handle(&self) -> Handle {
        self.handle
    }

    /// Forgets the shape it last launched in at once: after an attribute change (shared
    /// memory allowed, ...) the next launch goes at once again, so its errors come at the call.
    pub fn attributes_changed(&self) {
        self.launched.store(0, Ordering::Relaxed);
    }

    /// Bytes of shared (OpenCL: local) memory its code declares, 0 where the API cannot tell.
    pub fn static_shared(&self) -> usize {
        self.limits().static_shared
    }

    /// The most threads a block of this kernel may have (its registers or private memory
    /// per thread may allow fewer than the device); 0 where the API cannot tell.
    pub fn max_threads(&self) -> usize {
        self.limits().max_threads
    }

    fn limits(&self) -> KernelLimits {
        *self.limits.get_or_init(|| {
            let ask = |a| {
                self.device()
                    .backend()
                    .function_attribute(self.handle, a)
                    .map_or(0, |v| v.max(0) as usize)
            };
            KernelLimits {
                static_shared: ask(FunctionAttribute::SharedSizeBytes),
                max_threads: ask(FunctionAttribute::MaxThreadsPerBlock),
            }
        })
    }

    /// The parameter types the kernel's source declares, where they could be read.
    pub fn declared(&self) -> Option<&[CType]> {
        self.declared
            .get_or_init(|| {
                crate::declared::kernel_params(&self.module.source, &self.name).map(Arc::from)
            })
            .as_deref()
    }

    /// What the API tells of the parameters (asked once per kernel).
    pub fn params(&self) -> Option<&KernelParams> {
        self.params
            .get_or_init(|| {
                self.device()
                    .backend()
                    .kernel_params(self.handle)
                    .ok()
                    .flatten()
            })
            .as_ref()
    }
}

type Registry = Result<Vec<&'static Device>>;

static DEVICES: OnceLock<Registry> = OnceLock::new();

fn registry() -> &'static Registry {
    DEVICES.get_or_init(|| {
        let config = Config::get()?;
        let choice = config.backend;
        // A library's missing symbol panics inside cudarc; never let that reach the user.
        let found = std::panic::catch_unwind(|| open_backends(choice)).unwrap_or_else(|_| {
            Err(Error::BackendUnavailable {
                backend: "GPU".into(),
                reason: "a GPU library failed while starting (missing symbol); run `ember info` to see which libraries were found".into(),
            })
        })?;
        Ok(found
            .into_iter()
            .map(|b| &*Box::leak(Box::new(Device::new(b, config))))
            .collect())
    })
}

fn open_backends(choice: BackendChoice) -> Result<Vec<Box<dyn Backend>>> {
    match choice {
        BackendChoice::Cuda => cuda::open_devices(),
        BackendChoice::OpenCl => opencl::open_devices(opencl::DeviceFilter::Any),
        BackendChoice::Auto => {
            let cuda_err = match cuda::open_devices() {
                Ok(devices) => return Ok(devices),
                Err(e) => e,
            };
            if let Ok(gpus) = opencl::open_devices(opencl::DeviceFilter::GpuOnly) {
                return Ok(gpus);
            }
            opencl::open_devices(opencl::DeviceFilter::Any).map_err(|cl_err| Error::BackendUnavailable {
                backend: "any".into(),
                reason: format!(
                    "no CUDA device ({cuda_err}) and no OpenCL device ({cl_err}); on Debian/Ubuntu `apt-get install pocl-opencl-icd` gives a CPU device, and `ember info` shows what was tried"
                ),
            })
        }
    }
}

/// The OpenCL devices, for `ember.cl`: the selected backend's devices when it is OpenCL;
/// otherwise OpenCL's own devices, numbered after the selected backend's.
pub fn opencl_devices() -> Result<&'static [&'static Device]> {
    static EXTRA: OnceLock<Registry> = OnceLock::new();
    let primary: &'static [&'static Device] = devices().unwrap_or(&[]);
    if primary
        .first()
        .is_some_and(|d| d.kind() == BackendKind::OpenCl)
    {
        return Ok(primary);
    }
    let extra = EXTRA.get_or_init(|| {
        let config = Config::get()?;
        let first = primary.len();
        let found = std::panic::catch_unwind(|| {
            opencl::open_devices_from(first, opencl::DeviceFilter::Any)
        })
        .unwrap_or_else(|_| {
            Err(Error::BackendUnavailable {
                backend: "OpenCL".into(),
                reason: "the OpenCL library failed while starting; run `ember info`".into(),
            })
        })?;
        Ok(found
            .into_iter()
            .map(|b| &*Box::leak(Box::new(Device::new(b, config))))
            .collect())
    });
    extra.as_ref().map(Vec::as_slice).map_err(Clone::clone)
}

fn extra_devices() -> &'static [&'static Device] {
    // Only OpenCL devices opened for ember.cl live beyond the selected backend's.
    match devices() {
        Ok(p) if p.first().is_some_and(|d| d.kind() == BackendKind::OpenCl) => &[],
        _ => opencl_devices().unwrap_or(&[]),
    }
}

/// Issues every queued launch of the devices opened so far (at exit: a launch must not
/// reach the driver while it shuts down).
pub fn drain_launches() {
    if let Some(Ok(devices)) = DEVICES.get() {
        for d in devices {
            d.backend().drain();
        }
    }
}

/// Every device of the selected backend (starts the backend on first use).
pub fn devices() -> Result<&'static [&'static Device]> {
    registry().as_ref().map(Vec::as_slice).map_err(Clone::clone)
}

/// Number of devices of the selected backend.
pub fn device_count() -> Result<usize> {
    devices().map(<[_]>::len)
}

/// Device `i`: of the selected backend, or an OpenCL device opened for `ember.cl`.
pub fn device(i: usize) -> Result<&'static Device> {
    let all = devices()?;
    if let Some(d) = all.get(i) {
        return Ok(d);
    }
    if let Some(d) = extra_devices().iter().find(|d| d.info().ordinal == i) {
        return Ok(d);
    }
    all.get(i).copied().ok_or_else(|| {
        Error::Value(format!(
            "device {i} does not exist: the {} backend has {} device(s), numbered from 0",
            all.first().map(|d| d.kind().name()).unwrap_or("selected"),
            all.len()
        ))
    })
}

/// Kernels' `printf` output (CUDA's driver and OpenCL's runtime write it through the C
/// library's `stdout`, which buffers it when it is a pipe or file) written out at a
/// synchronisation, so what a kernel printed is there when the host goes on (Python's own
/// `print`, pytest's `capfd`, a parent process reading the pipe).
fn flush_kernel_output() {
    // SAFETY: fflush(NULL) flushes every output stream of the C library; it takes no pointer
    // of ours.
    unsafe {
        libc::fflush(std::ptr::null_mut());
    }
}
