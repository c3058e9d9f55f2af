//! Bindings of user-written kernels: modules built through the cache, their kernels launched
//! CUDA's way (grid, block) or OpenCL's (global and local sizes), and pinned host memory.

use std::sync::Arc;

use ember_core::Error;
use ember_kernel::{kernel_args, CudaModule, DynamicShared, KernelArgs};
use ember_runtime::{Device, Function, FunctionAttribute, Module, NdRange};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::IntoPyResult;
use crate::launch_args::{args_of, dims3, Front, LaunchArgs};

fn device(ordinal: usize) -> PyResult<&'static Device> {
    ember_runtime::device(ordinal).py()
}

/// A compiled module (CUDA C, OpenCL C; CUDA C translated to OpenCL C on OpenCL devices).
#[pyclass(name = "Module", module = "ember._ember", frozen)]
pub struct NativeModule(pub(crate) CudaModule);

impl NativeModule {
    pub(crate) fn plain(module: Arc<Module>) -> Self {
        NativeModule(CudaModule::plain(module))
    }
}

#[pymethods]
impl NativeModule {
    /// The backend's module (`cl_program`, `CUmodule`).
    #[getter]
    fn handle(&self) -> u64 {
        self.0.module.handle()
    }

    /// The kernel called `name` (or a name expression given at build time). `front` is
    /// `"cupy"`, `"pycuda"` or `"opencl"`: whose conventions its launches follow.
    #[pyo3(signature = (name, front="cupy", extra=None))]
    fn function(
        &self,
        name: &str,
        front: &str,
        extra: Option<Py<PyTuple>>,
    ) -> PyResult<NativeKernel> {
        let front = match front {
            "cupy" => Front::CuPy,
            "pycuda" => Front::PyCuda,
            "opencl" => Front::OpenCl,
            other => return Err(PyValueError::new_err(format!("unknown front {other:?}"))),
        };
        let (function, shared) = self.0.kernel(name).py()?;
        Ok(NativeKernel {
            function,
            front,
            shared,
            extra,
        })
    }

    /// A translation's module variables (host-filled `__constant__`, `__device__`): (name,
    /// initial bytes) each; the caller keeps a buffer for each (`get_global`).
    fn constants<'py>(&self, py: Python<'py>) -> Vec<(String, Bound<'py, pyo3::types::PyBytes>)> {
        self.0
            .constants()
            .iter()
            .map(|(n, b)| (n.clone(), pyo3::types::PyBytes::new(py, b)))
            .collect()
    }

    /// The `__constant__` buffers kernel `name` takes after its arguments, in order.
    fn kernel_constants(&self, name: &str) -> Vec<String> {
        self.0.kernel_constants(name)
    }

    /// The address and size of global variable `name` (CUDA's `cuModuleGetGlobal`).
    fn global_address(&self, name: &str) -> PyResult<(u64, usize)> {
        self.0.module.global(name).py()
    }

    /// The driver's binary of the module (OpenCL's program binary).
    fn binary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        let raw = self.0.module.device().module_binary(&self.0.module).py()?;
        Ok(pyo3::types::PyBytes::new(py, &raw))
    }

    /// The compiler's name for a name expression, if it was given at build time.
    fn lowered_name(&self, expression: &str) -> Option<String> {
        self.0.module.lowered_name(expression).map(str::to_string)
    }
}

/// Compiles `source` for device `ordinal` through the kernel cache.
#[pyfunction]
#[pyo3(signature = (ordinal, source, name, options=Vec::new(), name_expressions=Vec::new()))]
fn build_module(
    py: Python<'_>,
    ordinal: usize,
    source: String,
    name: String,
    options: Vec<String>,
    name_expressions: Vec<String>,
) -> PyResult<NativeModule> {
    let dev = device(ordinal)?;
    py.detach(|| dev.module_with_names(&source, &name, &options, &name_expressions))
        .py()
        .map(NativeModule::plain)
}

/// Builds CUDA C for device `ordinal`: NVRTC on CUDA, translated to OpenCL C elsewhere.
#[pyfunction]
#[pyo3(signature = (ordinal, source, name, options=Vec::new(), name_expressions=Vec::new()))]
fn build_cuda_module(
    py: Python<'_>,
    ordinal: usize,
    source: String,
    name: String,
    options: Vec<String>,
    name_expressions: Vec<String>,
) -> PyResult<NativeModule> {
    let dev = device(ordinal)?;
    py.detach(|| ember_kernel::cuda_module(dev, &source, &name, &options, &name_expressions))
        .py()
        .map(NativeModule)
}

/// A module loaded from a program binary (`Module.binary()`'s) on device `ordinal`.
#[pyfunction]
fn load_module(py: Python<'_>, ordinal: usize, binary: Vec<u8>) -> PyResult<NativeModule> {
    let dev = device(ordinal)?;
    py.detach(|| dev.module_from_binary(&binary))
        .py()
        .map(NativeModule::plain)
}

/// The ordinals of the OpenCL devices (`ember.cl`'s devices).
#[pyfunction]
fn opencl_device_ids() -> PyResult<Vec<usize>> {
    Ok(ember_runtime::opencl_devices()
        .py()?
        .iter()
        .map(|d| d.info().ordinal)
        .collect())
}

/// A kernel of a module, ready to launch.
#[pyclass(name = "Kernel", module = "ember._ember", frozen)]
pub struct NativeKernel {
    pub(crate) function: Function,
    pub(crate) front: Front,
    /// How the kernel takes a launch's dynamic shared memory.
    pub(crate) shared: DynamicShared,
    /// Arguments every launch appends (a translation's `__constant__` buffers).
    pub(crate) extra: Option<Py<PyTuple>>,
}

impl NativeKernel {
    fn args(&self, args: &Bound<'_, PyAny>) -> PyResult<LaunchArgs> {
        let mut out = LaunchArgs::new();
        args_of(args, self.function.name(), self.front, &mut out)?;
        if let Some(extra) = &self.extra {
            args_of(
                extra.bind(args.py()),
                self.function.name(),
                self.front,
                &mut out,
            )?;
        }
        Ok(out)
    }

    fn stream(&self, stream: Option<u64>) -> u64 {
        stream.unwrap_or_else(|| ember_runtime::current_stream(self.function.device()))
    }
}

#[pymethods]
impl NativeKernel {
    #[getter]
    fn name(&self) -> &str {
        self.function.name()
    }

    #[getter]
    fn device(&self) -> usize {
        self.function.device().info().ordinal
    }

    /// The backend's kernel (`cl_kernel`, `CUfunction`).
    #[getter]
    fn handle(&self) -> u64 {
        self.function.handle()
    }

    /// Number of parameters, where the API tells.
    #[getter]
    fn param_count(&self) -> Option<usize> {
        self.function.params().map(|p| p.count)
    }

    /// Queues the kernel: `grid` blocks of `block` threads (ints or tuples of up to 3).
    /// `stream` is a stream handle; `None` means this thread's current stream.
    #[pyo3(signature = (grid, block, args, shared_mem=0, stream=None))]
    fn launch(
        &self,
        grid: &Bound<'_, PyAny>,
        block: &Bound<'_, PyAny>,
        args: &Bound<'_, PyAny>,
        shared_mem: u32,
        stream: Option<u64>,
    ) -> PyResult<()> {
        let grid = dims3(grid, "grid")?;
        let block = dims3(block, "block")?;
        let mut values = self.args(args)?;
        let (shared_mem, local) = self.shared.split(shared_mem);
        values.extend(local);
        ember_kernel::args::match_declared(&self.function, &mut values).py()?;
        let mut kargs = KernelArgs::new();
        kernel_args(&self.function, &values, &mut kargs).py()?;
        let dev = self.function.device();
        dev.launch(
            &self.function,
            grid,
            block,
            shared_mem,
            self.stream(stream),
            &kargs,
        )
        .py()
    }

    /// Queues the kernel with OpenCL's sizes: `global_size` work-items, optionally in
    /// work-groups of `local_size`, from `global_offset`.
    #[pyo3(signature = (global_size, local_size, args, stream=None, global_offset=None))]
    fn launch_ndrange(
        &self,
        global_size: Vec<usize>,
        local_size: Option<Vec<usize>>,
        args: &Bound<'_, PyAny>,
        stream: Option<u64>,
        global_offset: Option<Vec<usize>>,
    ) -> PyResult<()> {
        let name = self.function.name();
        let dims = global_size.len();
        if !(1..=3).contains(&dims) {
            return Err(PyValueError::new_err(format!(
                "global size of kernel {name} must have 1 to 3 dimensions, got {global_size:?}"
            )));
        }
        let pad = |v: &[usize], what: &str| -> PyResult<[usize; 3]> {
            if v.len() != dims {
                return Err(PyValueError::new_err(format!(
                    "{what} {v:?} of kernel {name} must have as many dimensions as the global size {global_size:?}"
                )));
            }
            let mut out = [1usize; 3];
            out[..dims].copy_from_slice(v);
            Ok(out)
        };
        let range = NdRange {
            dims: dims as u32,
            global: pad(&global_size, "global size")?,
            local: local_size
                .as_deref()
                .map(|l| pad(l, "local size"))
                .transpose()?,
            offset: global_offset
                .as_deref()
                .map(|o| {
                    pad(o, "global offset").map(|mut a| {
                        a[dims..].fill(0);
                        a
                    })
                })
                .transpose()?,
        };
        let mut values = self.args(args)?;
        ember_kernel::args::match_declared(&self.function, &mut values).py()?;
        let mut kargs = KernelArgs::new();
        kernel_args(&self.function, &values, &mut kargs).py()?;
        self.function
            .device()
            .launch_ndrange(&self.function, &range, self.stream(stream), &kargs)
            .py()
    }

    /// Launches `count` times back to back from native code: the launch floor, for
    /// benchmarks (arguments are converted once).
    #[pyo3(signature = (grid, block, args, count, stream=None))]
    fn launch_repeated(
        &self,
        py: Python<'_>,
        grid: &Bound<'_, PyAny>,
        block: &Bound<'_, PyAny>,
        args: &Bound<'_, PyAny>,
        count: usize,
        stream: Option<u64>,
    ) -> PyResult<()> {
        let grid = dims3(grid, "grid")?;
        let block = dims3(block, "block")?;
        let mut values = self.args(args)?;
        values.extend(self.shared.split(0).1);
        ember_kernel::args::match_declared(&self.function, &mut values).py()?;
        let mut kargs = KernelArgs::new();
        kernel_args(&self.function, &values, &mut kargs).py()?;
        let stream = self.stream(stream);
        let dev = self.function.device();
        let handle = self.function.handle();
        py.detach(|| {
            for _ in 0..count {
                dev.backend()
                    .launch(handle, grid, block, 0, stream, &kargs)?;
            }
            Ok::<(), Error>(())
        })
        .py()
    }

    /// A kernel attribute by CuPy's name (`num_regs`, `max_threads_per_block`, ...).
    fn attribute(&self, name: &str) -> PyResult<i64> {
        let attr = attribute(name)?;
        self.function
            .device()
            .backend()
            .function_attribute(self.function.handle(), attr)
            .py()
    }

    fn set_attribute(&self, name: &str, value: i64) -> PyResult<()> {
        let attr = attribute(name)?;
        self.function.attributes_changed();
        self.function
            .device()
            .backend()
            .set_function_attribute(self.function.handle(), attr, value)
            .py()
    }
}

fn attribute(name: &str) -> PyResult<FunctionAttribute> {
    FunctionAttribute::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = FunctionAttribute::ALL.iter().map(|(_, n)| *n).collect();
        PyValueError::new_err(format!(
            "unknown kernel attribute {name:?}; known: {}",
            known.join(", ")
        ))
    })
}

/// Page-locked host memory (CUDA; plain host memory elsewhere), freed when dropped.
#[pyclass(name = "PinnedMemory", module = "ember._ember", frozen)]
pub struct PinnedMemory {
    device: &'static Device,
    address: usize,
    size: usize,
}

#[pymethods]
impl PinnedMemory {
    #[new]
    fn new(py: Python<'_>, ordinal: usize, size: usize) -> PyResult<PinnedMemory> {
        let dev = device(ordinal)?;
        let ptr = py.detach(|| dev.backend().alloc_pinned(size)).py()?;
        Ok(PinnedMemory {
            device: dev,
            address: ptr,
            size,
        })
    }
    #[getter]
    fn address(&self) -> usize {
        self.address
    }
    #[getter]
    fn size(&self) -> usize {
        self.size
    }
}

impl Drop for PinnedMemory {
    fn drop(&mut self) {
        self.device.backend().free_pinned(self.address, self.size);
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeModule>()?;

    m.add_class::<NativeKernel>()?;

    m.add_class::<PinnedMemory>()?;

    m.add_function(wrap_pyfunction!(build_module, m)?)?;
    m.add_function(wrap_pyfunction!(build_cuda_module, m)?)?;
    m.add_function(wrap_pyfunction!(load_module, m)?)?;
    m.add_function(wrap_pyfunction!(opencl_device_ids, m)?)?;
    Ok(())
}
