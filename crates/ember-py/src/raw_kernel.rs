//! CuPy's `RawKernel` with its launch in native code.

use std::sync::{Arc, OnceLock};

use ember_kernel::{kernel_args, DynamicShared, KernelArgs};
use ember_runtime::{Device, Function};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::IntoPyResult;
use crate::kernel::NativeKernel;
use crate::launch_args::{args_of, dims3, Front, LaunchArgs};

fn device(ordinal: usize) -> PyResult<&'static Device> {
    ember_runtime::device(ordinal).py()
}

/// Source, name and options of a `RawKernel`, set once by its Python `__init__`.
struct RawSource {
    code: String,
    name: String,
    options: Vec<String>,
}

/// CuPy's `RawKernel`, with the launch in native code: compiled per device on first use,
/// called as `k(grid, block, args, shared_mem=0, stream=None)`.
#[pyclass(name = "RawKernel", module = "ember._ember", subclass, frozen)]
pub struct NativeRawKernel {
    source: OnceLock<RawSource>,
    /// The kernel on the first device it ran on: read without a lock on the hot path.
    first: OnceLock<(usize, Function, DynamicShared)>,
    /// Kernels on further devices.
    others: std::sync::Mutex<Vec<(usize, Arc<Function>, DynamicShared)>>,
}

/// A kernel found for this launch: borrowed from the fast slot, or shared from the map.
enum Found<'a> {
    First(&'a Function, DynamicShared),
    Other(Arc<Function>, DynamicShared),
}

impl Found<'_> {
    /// How the kernel takes dynamic shared memory on its device.
    fn shared(&self) -> DynamicShared {
        match self {
            Found::First(_, s) | Found::Other(_, s) => *s,
        }
    }
}

impl std::ops::Deref for Found<'_> {
    type Target = Function;
    fn deref(&self) -> &Function {
        match self {
            Found::First(f, _) => f,
            Found::Other(f, _) => f,
        }
    }
}

impl NativeRawKernel {
    fn function(&self, py: Python<'_>) -> PyResult<Found<'_>> {
        let ordinal = ember_runtime::current_device();
        if let Some((d, f, s)) = self.first.get() {
            if *d == ordinal {
                return Ok(Found::First(f, *s));
            }
        }
        if let Some((_, f, s)) = self
            .others
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(d, _, _)| *d == ordinal)
        {
            return Ok(Found::Other(f.clone(), *s));
        }
        let src = self
            .source
            .get()
            .ok_or_else(|| PyValueError::new_err("RawKernel was not initialised"))?;
        let dev = device(ordinal)?;
        let (f, shared) = py
            .detach(|| {
                ember_kernel::cuda_module(dev, &src.code, &src.name, &src.options, &[])
                    .and_then(|m| m.kernel(&src.name))
            })
            .py()?;
        if self.first.set((ordinal, f.clone(), shared)).is_ok() {
            return self.function(py);
        }
        let f = Arc::new(f);
        self.others
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((ordinal, f.clone(), shared));
        Ok(Found::Other(f, shared))
    }
}

#[pymethods]
impl NativeRawKernel {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>) -> Self {
        NativeRawKernel {
            source: OnceLock::new(),
            first: OnceLock::new(),
            others: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Sets the source once (called by the Python `__init__`).
    fn _set_source(&self, code: String, name: String, options: Vec<String>) -> PyResult<()> {
        self.source
            .set(RawSource {
                code,
                name,
                options,
            })
            .map_err(|_| PyValueError::new_err("a RawKernel's source is set once"))
    }

    /// The compiled kernel on the current device (compiles on first use).
    fn _kernel(&self, py: Python<'_>) -> PyResult<NativeKernel> {
        let f = self.function(py)?;
        Ok(NativeKernel {
            function: f.clone(),
            front: Front::CuPy,
            shared: f.shared(),
            extra: None,
        })
    }

    /// The launch, with CuPy's signature.
    #[pyo3(signature = (grid, block, args, *, shared_mem=0, stream=None, enable_cooperative_groups=false))]
    #[allow(clippy::too_many_arguments)]
    fn __call__(
        &self,
        py: Python<'_>,
        grid: &Bound<'_, PyAny>,
        block: &Bound<'_, PyAny>,
        args: &Bound<'_, PyAny>,
        shared_mem: u32,
        stream: Option<&Bound<'_, PyAny>>,
        enable_cooperative_groups: bool,
    ) -> PyResult<()> {
        if enable_cooperative_groups {
            return Err(PyValueError::new_err(
                "cooperative launches (grid-wide synchronisation) are not supported by ember; launch without enable_cooperative_groups",
            ));
        }
        let f = self.function(py)?;
        let grid = dims3(grid, "grid")?;
        let block = dims3(block, "block")?;
        let mut values = LaunchArgs::new();
        args_of(args, f.name(), Front::CuPy, &mut values)?;
        let (shared_mem, local) = f.shared().split(shared_mem);
        values.extend(local);
        ember_kernel::args::match_declared(&f, &mut values).py()?;
        let mut kargs = KernelArgs::new();
        kernel_args(&f, &values, &mut kargs).py()?;
        let dev = f.device();
        // (handle, whether the stream is ember's: only then may the launch be queued)
        let (stream, ember_stream) = match stream {
            Some(s) if !s.is_none() => crate::runtime::stream_of(s, dev)?,
            _ => (ember_runtime::current_stream(dev), true),
        };
        if ember_stream && ember_kernel::args::queueable(&values, &kargs) {
            return dev
                .launch_queued(&f, grid, block, shared_mem, stream, &kargs)
                .py();
        }
        dev.launch(&f, grid, block, shared_mem, stream, &kargs).py()
    }
}

/// Makes device `ordinal` this thread's device for native launches.
#[pyfunction]
fn set_current_device(ordinal: usize) {
    ember_runtime::set_current_device(ordinal)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeRawKernel>()?;
    m.add_function(wrap_pyfunction!(set_current_device, m)?)?;
    Ok(())
}
