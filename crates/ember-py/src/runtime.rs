//! Bindings of devices, the memory pool, streams, events, the kernel cache and `ember info`.

use std::path::PathBuf;
use std::sync::Arc;

use ember_runtime::{cuda, probe, Device, Handle};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::errors::IntoPyResult;

fn device(ordinal: usize) -> PyResult<&'static Device> {
    ember_runtime::device(ordinal).py()
}

/// Name of the selected backend (starts it).
#[pyfunction]
fn backend_name() -> PyResult<&'static str> {
    Ok(device(0)?.kind().name())
}

#[pyfunction]
fn device_count() -> PyResult<usize> {
    ember_runtime::device_count().py()
}

/// A device's properties as a dict.
#[pyfunction]
fn device_info(py: Python<'_>, ordinal: usize) -> PyResult<Py<PyDict>> {
    let info = device(ordinal)?.info();
    let d = PyDict::new(py);
    d.set_item("backend", info.backend.name())?;
    d.set_item("ordinal", info.ordinal)?;
    d.set_item("name", &info.name)?;
    d.set_item("arch", &info.arch)?;
    d.set_item("compiler", &info.compiler)?;
    d.set_item("driver_version", &info.driver_version)?;
    d.set_item("total_memory", info.total_memory)?;
    d.set_item("max_allocation", info.max_allocation)?;
    d.set_item("max_threads_per_block", info.max_threads_per_block)?;
    d.set_item("max_block_dims", info.max_block_dims.to_vec())?;
    d.set_item("multiprocessors", info.multiprocessors)?;
    d.set_item("warp_size", info.warp_size)?;
    d.set_item("host_unified", info.host_unified)?;
    d.set_item("is_cpu", info.is_cpu)?;
    Ok(d.unbind())
}

/// The raw bytes of an OpenCL device (or, with `of_platform`, platform) information parameter.
#[pyfunction]
fn opencl_info<'py>(
    py: Python<'py>,
    ordinal: usize,
    of_platform: bool,
    param: u32,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    let raw = device(ordinal)?
        .backend()
        .opencl_info(of_platform, param)
        .py()?;
    Ok(pyo3::types::PyBytes::new(py, &raw))
}

#[pyfunction]
fn synchronize(py: Python<'_>, ordinal: usize) -> PyResult<()> {
    let dev = device(ordinal)?;
    py.detach(|| dev.synchronize()).py()
}

#[pyfunction]
fn memory_info(ordinal: usize) -> PyResult<(usize, usize)> {
    device(ordinal)?.backend().memory_info().py()
}

/// CUDA's interprocess handle of the allocation holding `address`: (64 bytes, base, size).
#[pyfunction]
fn ipc_export(ordinal: usize, address: u64) -> PyResult<(Vec<u8>, u64, usize)> {
    device(ordinal)?.backend().ipc_export(address).py()
}

/// Opens another process's interprocess handle: the allocation's address in this process.
#[pyfunction]
fn ipc_open(ordinal: usize, handle: Vec<u8>) -> PyResult<u64> {
    device(ordinal)?.backend().ipc_open(&handle).py()
}

/// Closes an allocation `ipc_open` opened.
#[pyfunction]
fn ipc_close(ordinal: usize, address: u64) -> PyResult<()> {
    device(ordinal)?.backend().ipc_close(address).py()
}

#[pyfunction]
fn pool_used_bytes(ordinal: usize) -> PyResult<usize> {
    // The pool as eager code would leave it: pending intermediates released.
    ember_runtime::deferred::finish();
    Ok(device(ordinal)?.pool().used_bytes())
}

#[pyfunction]
fn pool_total_bytes(ordinal: usize) -> PyResult<usize> {
    // The pool as eager code would leave it: pending intermediates released.
    ember_runtime::deferred::finish();
    Ok(device(ordinal)?.pool().total_bytes())
}

#[pyfunction]
fn pool_n_free_blocks(ordinal: usize) -> PyResult<usize> {
    // The pool as eager code would leave it: pending intermediates released.
    ember_runtime::deferred::finish();
    Ok(device(ordinal)?.pool().n_free_blocks())
}

#[pyfunction]
fn pool_free_all_blocks(py: Python<'_>, ordinal: usize) -> PyResult<()> {
    let dev = device(ordinal)?;
    py.detach(|| dev.free_all_blocks());
    Ok(())
}

#[pyfunction]
#[pyo3(signature = (ordinal, limit))]
fn pool_set_limit(ordinal: usize, limit: Option<usize>) -> PyResult<()> {
    device(ordinal)?.pool().set_limit(limit);
    Ok(())
}

#[pyfunction]
fn pool_limit(ordinal: usize) -> PyResult<Option<usize>> {
    Ok(device(ordinal)?.pool().limit())
}

/// (memory hits, disk hits, compiles, corrupt entries) of a device's kernel cache.
#[pyfunction]
fn cache_stats(ordinal: usize) -> PyResult<(u64, u64, u64, u64)> {
    Ok(device(ordinal)?.cache_stats().snapshot())
}

/// Forgets the in-process tier of a device's kernel cache (for tests of the disk tier).
#[pyfunction]
fn clear_module_map(ordinal: usize) -> PyResult<()> {
    device(ordinal)?.clear_module_map();
    Ok(())
}

/// Compiles and loads `source` through the cache; returns its kernel `name`'s launch check.
#[pyfunction]
#[pyo3(signature = (ordinal, source, name, options=Vec::new()))]
fn compile_module(
    py: Python<'_>,
    ordinal: usize,
    source: String,
    name: String,
    options: Vec<String>,
) -> PyResult<()> {
    let dev = device(ordinal)?;
    py.detach(|| {
        dev.module(&source, &name, &options)
            .and_then(|m| m.function(&name))
            .map(|_| ())
    })
    .py()
}

/// The settings read from the `EMBER_*` variables, checked (a bad value raises here, naming
/// the variable and its values).
#[pyfunction]
fn settings(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let c = ember_core::Config::get().py()?;
    let d = pyo3::types::PyDict::new(py);
    d.set_item("backend", c.backend.name())?;
    d.set_item("cache_dir", &c.cache_dir)?;
    d.set_item("disk_cache", c.disk_cache)?;
    d.set_item("save_source", c.save_source)?;
    d.set_item("fusion", c.fusion)?;
    d.set_item("fusion_min_size", c.fusion_min_size)?;
    d.set_item("fusion_after", c.fusion_after)?;
    d.set_item("checked", c.checked)?;
    Ok(d)
}

/// Overrides `EMBER_CHECKED` for kernels compiled from now on (`None`: follow it again);
/// returns the previous override (tests turn checked mode on and off in one process).
#[pyfunction]
#[pyo3(signature = (on))]
fn set_checked(on: Option<bool>) -> Option<bool> {
    ember_kernel::checked::set_checked(on)
}

/// Whether kernels launched now check their indices (`EMBER_CHECKED` or its override).
#[pyfunction]
fn checked_mode() -> PyResult<bool> {
    ember_kernel::checked::checked().py()
}

/// Replaces device `ordinal`'s context at its next call, as after a kernel fault (tests of
/// the recovery, on devices whose faults cannot be provoked safely); returns the new epoch.
#[pyfunction]
fn reset_device(ordinal: usize) -> PyResult<u64> {
    let device = ember_runtime::device(ordinal).py()?;
    device.lose_context();
    device.synchronize().py()?;
    Ok(device.epoch())
}

/// A yes/no `EMBER_*` variable read by the Python side (checked by the same rule as the
/// settings above).
#[pyfunction]
fn env_flag(name: &str, default: bool) -> PyResult<bool> {
    ember_core::config::flag(name, default).py()
}

/// Python's package folders, searched for pip's CUDA libraries.
#[pyfunction]
fn add_python_dirs(dirs: Vec<PathBuf>) {
    cuda::loader::add_python_dirs(dirs)
}

/// CUDA C to cubin through NVRTC, with no device needed (CI's compile check).
#[pyfunction]
#[pyo3(signature = (source, name, arch, options=Vec::new()))]
fn nvrtc_compile<'py>(
    py: Python<'py>,
    source: String,
    name: String,
    arch: String,
    options: Vec<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let cubin = py
        .detach(|| cuda::nvrtc::compile_cubin(&source, &name, &arch, &options))
        .py()?;
    Ok(PyBytes::new(py, &cubin))
}

/// Generated CUDA C compiled as ember compiles it, to PTX (`output="ptx"`) or LTO-IR
/// (`"ltoir"`) for compute capability `cc`, with no device needed.
#[pyfunction]
#[pyo3(signature = (source, name, options, fastmath, optimize, cc, relocatable, output))]
#[allow(clippy::too_many_arguments)]
fn nvrtc_device_code<'py>(
    py: Python<'py>,
    source: String,
    name: String,
    options: Vec<String>,
    fastmath: bool,
    optimize: bool,
    cc: (u32, u32),
    relocatable: bool,
    output: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let output = match output {
        "ptx" => ember_kernel::DeviceCode::Ptx,
        "ltoir" => ember_kernel::DeviceCode::LtoIr,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "output must be 'ptx' or 'ltoir', got {other:?}"
            )))
        }
    };
    let code = py
        .detach(|| {
            ember_kernel::generated_device_code(
                &source,
                &name,
                &options,
                fastmath,
                optimize,
                cc,
                relocatable,
                output,
            )
        })
        .py()?;
    Ok(PyBytes::new(py, &code))
}

/// NVRTC's version as (major, minor).
#[pyfunction]
fn nvrtc_version() -> PyResult<(i32, i32)> {
    cuda::nvrtc::version().py()
}

fn outcome<T: ToString>(r: &Result<T, String>) -> (bool, String) {
    match r {
        Ok(v) => (true, v.to_string()),
        Err(e) => (false, e.clone()),
    }
}

/// Everything `ember info` prints, as plain Python data.
#[pyfunction]
fn info_report(py: Python<'_>) -> PyResult<Py<PyDict>> {
    let r = py.detach(probe::report);
    let d = PyDict::new(py);
    d.set_item("cuda_driver", outcome(&r.cuda_driver))?;
    d.set_item("nvrtc", outcome(&r.nvrtc))?;
    match &r.cuda_devices {
        Ok(devs) => d.set_item("cuda_devices", (true, devs.clone()))?,
        Err(e) => d.set_item("cuda_devices", (false, e.clone()))?,
    }
    let attempts = PyList::empty(py);
    for (lib, location, result) in &r.library_attempts {
        let (ok, why) = match result {
            Ok(()) => (true, "loaded".to_string()),
            Err(e) => (false, e.clone()),
        };
        attempts.append((lib, location, ok, why))?;
    }
    d.set_item("library_attempts", attempts)?;
    match &r.opencl {
        Ok(platforms) => {
            let list = PyList::empty(py);
            for p in platforms {
                list.append((&p.name, &p.version, p.devices.clone()))?;
            }
            d.set_item("opencl", (true, list))?;
        }
        Err(e) => d.set_item("opencl", (false, e.clone()))?,
    }
    Ok(d.unbind())
}

/// A stream on one device.
#[pyclass(name = "Stream", module = "ember._ember", frozen)]
pub struct NativeStream(ember_runtime::Stream);

/// A stream object given to a launch (`stream=` or `kernel[grid, block, stream]`): its
/// handle, and whether it is an `ember.cuda.Stream` of `device`. Such a stream's handle is
/// read without draining the launch queue (work put on it stays ember's to order); another
/// library's stream is read through its `ptr`, and launches on it are never queued.
pub(crate) fn stream_of(obj: &Bound<'_, PyAny>, device: &Device) -> PyResult<(Handle, bool)> {
    let py = obj.py();
    if let Ok(native) = obj.getattr(pyo3::intern!(py, "_native")) {
        if let Ok(native) = native.cast::<NativeStream>() {
            let stream = &native.get().0;
            if std::ptr::eq(stream.device(), device) {
                return Ok((stream.handle(), true));
            }
        }
    }
    Ok((obj.getattr(pyo3::intern!(py, "ptr"))?.extract()?, false))
}

#[pymethods]
impl NativeStream {
    #[new]
    #[pyo3(signature = (ordinal, null=false))]
    fn new(ordinal: usize, null: bool) -> PyResult<NativeStream> {
        let dev = device(ordinal)?;
        if null {
            return Ok(NativeStream(ember_runtime::Stream::default_for(dev)));
        }
        ember_runtime::Stream::new(dev).py().map(NativeStream)
    }
    #[getter]
    fn handle(&self) -> u64 {
        self.0.handle_for_foreign()
    }
    /// The handle, to tell streams apart: unlike `handle`, issues no pending work.
    #[getter]
    fn identity(&self) -> u64 {
        self.0.handle()
    }
    #[getter]
    fn device(&self) -> usize {
        self.0.device().info().ordinal
    }
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.0.synchronize()).py()
    }
    #[getter]
    fn done(&self) -> PyResult<bool> {
        self.0.done().py()
    }
    fn wait_event(&self, event: &NativeEvent) -> PyResult<()> {
        self.0.wait_event(&event.0).py()
    }
    /// Sends this thread's work on the stream's device here until `pop_if`; `owner` (the
    /// Python stream object) is what [`current_stream`] gives back meanwhile.
    fn push(&self, owner: Py<PyAny>) {
        let owner: ember_runtime::StreamOwner = Arc::new(StreamObject(owner));
        ember_runtime::push_current_stream(&self.0, Some(owner))
    }
    /// Undoes `push` when `owner`'s push is the current one on the stream's device.
    fn pop_if(&self, owner: &Bound<'_, PyAny>) {
        let device = self.0.device();
        if current_object(owner.py(), device).is_some_and(|o| o.is(owner)) {
            ember_runtime::pop_current_stream(device)
        }
    }
    /// Makes this stream current in place of the one pushed last on its device.
    fn use_(&self, owner: Py<PyAny>) {
        let device = self.0.device();
        if ember_runtime::current_stream_owner(device).is_some() {
            ember_runtime::pop_current_stream(device)
        }
        self.push(owner)
    }
}

/// A Python stream object kept on the runtime's stack of current streams.
struct StreamObject(Py<PyAny>);

/// The Python stream object current on `device` (None: its default stream).
fn current_object<'py>(py: Python<'py>, device: &'static Device) -> Option<Bound<'py, PyAny>> {
    let owner = ember_runtime::current_stream_owner(device)?;
    let object = (owner.as_ref() as &dyn std::any::Any).downcast_ref::<StreamObject>()?;
    Some(object.0.bind(py).clone())
}

/// The stream object this thread sends work to on device `ordinal`, or None for the
/// device's default stream.
#[pyfunction]
fn current_stream(py: Python<'_>, ordinal: usize) -> PyResult<Option<Bound<'_, PyAny>>> {
    Ok(current_object(py, device(ordinal)?))
}

/// The device this thread works on.
#[pyfunction]
fn current_device() -> usize {
    ember_runtime::current_device()
}

/// Launches device `ordinal`'s queue has taken so far (a diagnostic for tests).
#[pyfunction]
fn queued_launches(ordinal: usize) -> PyResult<u64> {
    Ok(device(ordinal)?.backend().queued_launches())
}

/// Issues the launches still queued (registered to run at exit).
#[pyfunction]
fn drain_launches(py: Python<'_>) {
    py.detach(ember_runtime::device::drain_launches);
}

/// Waits for the work on stream `handle` of device `ordinal` (a handle another library made,
/// wrapped by `ember.cuda.external_stream`).
#[pyfunction]
fn synchronize_stream(py: Python<'_>, ordinal: usize, handle: u64) -> PyResult<()> {
    let dev = device(ordinal)?;
    py.detach(|| dev.synchronize_stream(handle)).py()
}

/// The handle of the stream this thread sends work to on a device.
#[pyfunction]
fn current_stream_handle(ordinal: usize) -> PyResult<u64> {
    Ok(ember_runtime::current_stream(device(ordinal)?))
}

/// An event on one device.
#[pyclass(name = "Event", module = "ember._ember", frozen)]
pub struct NativeEvent(ember_runtime::Event);

#[pymethods]
impl NativeEvent {
    #[new]
    fn new(ordinal: usize) -> PyResult<NativeEvent> {
        Ok(NativeEvent(ember_runtime::Event::new(device(ordinal)?)))
    }
    fn record(&self, stream: &NativeStream) -> PyResult<()> {
        self.0.record(&stream.0).py()
    }
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.0.synchronize()).py()
    }
    #[getter]
    fn done(&self) -> PyResult<bool> {
        self.0.done().py()
    }
    /// The backend's event (`cl_event`, `CUevent`); None before the first record.
    #[getter]
    fn handle(&self) -> Option<u64> {
        self.0.handle()
    }
    fn elapsed_since(&self, py: Python<'_>, start: &NativeEvent) -> PyResult<f32> {
        py.detach(|| self.0.elapsed_since(&start.0)).py()
    }
}

/// Opens an NVTX range on this thread (`ember.profiler.time_range`); false without NVTX.
#[pyfunction]
fn nvtx_push(message: &str, argb: u32) -> bool {
    ember_runtime::cuda::nvtx::push(message, argb)
}

/// Closes this thread's innermost NVTX range; false without NVTX.
#[pyfunction]
fn nvtx_pop() -> bool {
    ember_runtime::cuda::nvtx::pop()
}

/// Opens a launch profile (`ember.profiler.profile`): the mark `profile_close` takes.
#[pyfunction]
fn profile_open() -> usize {
    ember_runtime::profile::open()
}

/// One launch of a closed profile: (kernel, device, grid, block, bytes or None, device ms).
type ProfiledLaunch = (String, usize, [u32; 3], [u32; 3], Option<u64>, f64);

/// Closes the profile opened at `mark`, waiting for its launches: their device times.
#[pyfunction]
fn profile_close(py: Python<'_>, mark: usize) -> PyResult<Vec<ProfiledLaunch>> {
    let launches = py.detach(|| ember_runtime::profile::close(mark)).py()?;
    Ok(launches
        .into_iter()
        .map(|l| (l.kernel, l.device, l.grid, l.block, l.bytes, l.ms))
        .collect())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<crate::user_event::NativeUserEvent>()?;
    m.add_class::<NativeStream>()?;
    m.add_class::<NativeEvent>()?;
    for f in [
        wrap_pyfunction!(backend_name, m)?,
        wrap_pyfunction!(device_count, m)?,
        wrap_pyfunction!(device_info, m)?,
        wrap_pyfunction!(opencl_info, m)?,
        wrap_pyfunction!(synchronize, m)?,
        wrap_pyfunction!(memory_info, m)?,
        wrap_pyfunction!(ipc_export, m)?,
        wrap_pyfunction!(ipc_open, m)?,
        wrap_pyfunction!(ipc_close, m)?,
        wrap_pyfunction!(pool_used_bytes, m)?,
        wrap_pyfunction!(pool_total_bytes, m)?,
        wrap_pyfunction!(pool_n_free_blocks, m)?,
        wrap_pyfunction!(pool_free_all_blocks, m)?,
        wrap_pyfunction!(pool_set_limit, m)?,
        wrap_pyfunction!(pool_limit, m)?,
        wrap_pyfunction!(cache_stats, m)?,
        wrap_pyfunction!(clear_module_map, m)?,
        wrap_pyfunction!(compile_module, m)?,
        wrap_pyfunction!(env_flag, m)?,
        wrap_pyfunction!(reset_device, m)?,
        wrap_pyfunction!(settings, m)?,
        wrap_pyfunction!(set_checked, m)?,
        wrap_pyfunction!(checked_mode, m)?,
        wrap_pyfunction!(add_python_dirs, m)?,
        wrap_pyfunction!(nvrtc_compile, m)?,
        wrap_pyfunction!(nvrtc_version, m)?,
        wrap_pyfunction!(nvrtc_device_code, m)?,
        wrap_pyfunction!(info_report, m)?,
        wrap_pyfunction!(current_stream_handle, m)?,
        wrap_pyfunction!(synchronize_stream, m)?,
        wrap_pyfunction!(current_stream, m)?,
        wrap_pyfunction!(current_device, m)?,
        wrap_pyfunction!(drain_launches, m)?,
        wrap_pyfunction!(queued_launches, m)?,
        wrap_pyfunction!(profile_open, m)?,
        wrap_pyfunction!(profile_close, m)?,
        wrap_pyfunction!(nvtx_push, m)?,
        wrap_pyfunction!(nvtx_pop, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
