//! Bindings of user-written kernels: modules built through the cache, and launches whose
//! arguments are read straight from Python objects (the launch path is the hot path).

use std::sync::{Arc, OnceLock};

use ember_core::{DType, Error, Scalar};
use ember_runtime::{
    kernel_args, Device, Function, FunctionAttribute, KernelArgs, LaunchArg, Module, NdRange,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList, PyTuple, PyType};

use crate::array::NativeArray;
use crate::errors::IntoPyResult;

fn device(ordinal: usize) -> PyResult<&'static Device> {
    ember_runtime::device(ordinal).py()
}

/// Python types the launch path recognises by identity (set once by `ember` at import). The
/// raw type pointers make each check a comparison; the `Py` handles keep the types alive.
struct KnownTypes {
    ndarray: usize,
    host_ndarray: usize,
    scalars: Vec<(usize, DType)>,
    /// `ndarray._a`'s slot descriptor and its getter: reading the slot through them skips
    /// the attribute lookup (the largest cost of an array argument, measured).
    native_slot: Py<PyAny>,
    slot_get: Option<pyo3::ffi::descrgetfunc>,
    _alive: Vec<Py<PyType>>,
}

// The getter is a C function of the interpreter; it is called with the GIL held.
unsafe impl Send for KnownTypes {}
unsafe impl Sync for KnownTypes {}

impl KnownTypes {
    /// The native array inside an `ember.ndarray` (its `_a` slot).
    fn native_array<'py>(&self, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = value.py();
        let slot_get = self.slot_get.ok_or_else(|| {
            pyo3::exceptions::PyRuntimeError::new_err("ember.ndarray's slot getter is missing")
        })?;
        unsafe {
            let raw = slot_get(
                self.native_slot.as_ptr(),
                value.as_ptr(),
                self.ndarray as *mut pyo3::ffi::PyObject,
            );
            Bound::from_owned_ptr_or_err(py, raw)
        }
    }
}

static KNOWN: OnceLock<KnownTypes> = OnceLock::new();

/// Tells the launch path `ember.ndarray`, `numpy.ndarray` and NumPy's scalar types.
#[pyfunction]
fn register_types(
    ndarray: Bound<'_, PyType>,
    host_ndarray: Bound<'_, PyType>,
    scalars: Vec<(Bound<'_, PyType>, String)>,
) -> PyResult<()> {
    let ptr = |t: &Bound<'_, PyType>| t.as_type_ptr() as usize;
    let native_slot = ndarray.getattr("_a")?;
    let slot_get: Option<pyo3::ffi::descrgetfunc> = unsafe {
        let f = pyo3::ffi::PyType_GetSlot(
            native_slot.get_type().as_type_ptr(),
            pyo3::ffi::Py_tp_descr_get,
        );
        if f.is_null() {
            None
        } else {
            Some(std::mem::transmute::<
                *mut std::ffi::c_void,
                pyo3::ffi::descrgetfunc,
            >(f))
        }
    };
    let mut known = KnownTypes {
        ndarray: ptr(&ndarray),
        host_ndarray: ptr(&host_ndarray),
        scalars: Vec::with_capacity(scalars.len()),
        native_slot: native_slot.unbind(),
        slot_get,
        _alive: vec![ndarray.unbind(), host_ndarray.unbind()],
    };
    for (t, name) in scalars {
        known.scalars.push((ptr(&t), DType::from_name(&name).py()?));
        known._alive.push(t.unbind());
    }
    let _ = KNOWN.set(known);
    Ok(())
}

/// A raw device address owned elsewhere (`ember.cuda.driver.DeviceAllocation` derives from it).
#[pyclass(name = "DevicePointer", module = "ember._ember", subclass)]
pub struct DevicePointer {
    #[pyo3(get, set)]
    ptr: u64,
}

#[pymethods]
impl DevicePointer {
    #[new]
    #[pyo3(signature = (ptr=0))]
    fn new(ptr: u64) -> DevicePointer {
        DevicePointer { ptr }
    }
    fn __int__(&self) -> u64 {
        self.ptr
    }
    fn __index__(&self) -> u64 {
        self.ptr
    }
}

/// Who wrote the launch: error messages speak that library's language.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Front {
    CuPy,
    PyCuda,
    OpenCl,
}

fn host_array_error(front: Front, index: usize, kernel: &str) -> PyErr {
    let what = match front {
        Front::CuPy => "copy it to the device first with ember.asarray(x)",
        Front::PyCuda => "wrap it in drv.In(x), drv.Out(x) or drv.InOut(x) to copy it around the launch, or copy it with gpuarray.to_gpu(x)",
        Front::OpenCl => "copy it into a cl.Buffer (mem_flags.COPY_HOST_PTR) first",
    };
    PyTypeError::new_err(format!(
        "argument {index} of kernel {kernel} is a NumPy array, which lives in host memory; a kernel needs device memory: {what}"
    ))
}

fn scalar_of(value: &Bound<'_, PyAny>, dtype: DType) -> PyResult<Scalar> {
    Ok(match dtype.kind() {
        ember_core::dtype::Kind::Bool => Scalar::Bool(value.is_truthy()?),
        // NumPy integers convert through __index__ at the C level.
        ember_core::dtype::Kind::Int => Scalar::Int(value.extract()?),
        ember_core::dtype::Kind::UInt => Scalar::UInt(value.extract()?),
        ember_core::dtype::Kind::Float => Scalar::Float(value.extract()?),
        ember_core::dtype::Kind::Complex => {
            let c = value.call_method0("__complex__")?;
            let c = c.cast::<PyComplex>()?;
            Scalar::Complex(c.real(), c.imag())
        }
    })
}

/// One Python argument as a launch argument.
fn launch_arg(
    value: &Bound<'_, PyAny>,
    index: usize,
    kernel: &str,
    front: Front,
) -> PyResult<LaunchArg> {
    let py = value.py();
    let ty_ptr = value.get_type_ptr() as usize;
    if let Some(known) = KNOWN.get() {
        if ty_ptr == known.ndarray {
            return Ok(array_arg(
                &known.native_array(value)?.cast::<NativeArray>()?.get().0,
            ));
        }
        if let Some((_, dtype)) = known.scalars.iter().find(|(t, _)| *t == ty_ptr) {
            return Ok(LaunchArg::of_scalar(
                scalar_of(value, *dtype)?,
                *dtype,
                false,
            ));
        }
        if ty_ptr == known.host_ndarray {
            return Err(host_array_error(front, index, kernel));
        }
    }
    if value.is_none() {
        return Ok(LaunchArg::Null);
    }
    if let Ok(p) = value.cast::<DevicePointer>() {
        return Ok(LaunchArg::Pointer(p.borrow().ptr));
    }
    if let Ok(a) = value.cast::<NativeArray>() {
        return Ok(array_arg(&a.get().0));
    }
    if value.is_instance_of::<PyBool>()
        || value.is_instance_of::<PyInt>()
        || value.is_instance_of::<PyFloat>()
        || value.is_instance_of::<PyComplex>()
    {
        if front == Front::PyCuda || front == Front::OpenCl {
            let lib = if front == Front::PyCuda {
                "PyCUDA"
            } else {
                "PyOpenCL"
            };
            return Err(PyTypeError::new_err(format!(
                "argument {index} of kernel {kernel} is a Python {}; as in {lib}, scalar arguments must say their C type: pass numpy.int32(x), numpy.float32(x), ...",
                value.get_type().name()?
            )));
        }
        // CuPy's typing: bool -> bool, int -> int64, float -> float64, complex -> complex128.
        let (s, dtype) = if value.is_instance_of::<PyBool>() {
            (Scalar::Bool(value.extract()?), DType::Bool)
        } else if value.is_instance_of::<PyInt>() {
            let v: i64 = value.extract().map_err(|_| {
                pyo3::exceptions::PyOverflowError::new_err(format!(
                    "argument {index} of kernel {kernel}: the Python int {value} does not fit in int64"
                ))
            })?;
            (Scalar::Int(v), DType::I64)
        } else if value.is_instance_of::<PyFloat>() {
            (Scalar::Float(value.extract()?), DType::F64)
        } else {
            let c = value.cast::<PyComplex>()?;
            (Scalar::Complex(c.real(), c.imag()), DType::C128)
        };
        return Ok(LaunchArg::of_scalar(s, dtype, true));
    }
    if let Ok(cai) = value.getattr(pyo3::intern!(py, "__cuda_array_interface__")) {
        let data = cai.get_item("data")?;
        return Ok(LaunchArg::Pointer(data.get_item(0)?.extract()?));
    }
    if let Ok(local) = value.getattr(pyo3::intern!(py, "_ember_local_bytes")) {
        return Ok(LaunchArg::Local(local.extract()?));
    }
    Err(PyTypeError::new_err(format!(
        "argument {index} of kernel {kernel} has unsupported type {}; kernels take ember arrays, NumPy or Python scalars, None and device pointers",
        value.get_type().name()?
    )))
}

fn array_arg(a: &ember_array::Array) -> LaunchArg {
    LaunchArg::Array {
        handle: a.buffer().handle(),
        offset: a.offset(),
        device: a.device().info().ordinal,
    }
}

/// `grid`/`block` as CuPy takes them: an int or a tuple of up to three ints.
fn dims3(value: &Bound<'_, PyAny>, what: &str) -> PyResult<[u32; 3]> {
    let bad = || {
        PyValueError::new_err(format!(
            "{what} must be a positive int or a tuple of 1 to 3 positive ints, got {value}"
        ))
    };
    let mut out = [1u32; 3];
    if let Ok(t) = value.cast::<PyTuple>() {
        // The usual form, read without collecting the items.
        if t.is_empty() || t.len() > 3 {
            return Err(bad());
        }
        for (k, slot) in out.iter_mut().enumerate().take(t.len()) {
            *slot = t.get_borrowed_item(k)?.extract().map_err(|_| bad())?;
        }
        return Ok(out);
    }
    if let Ok(n) = value.cast::<PyInt>() {
        out[0] = n.extract().map_err(|_| bad())?;
        return Ok(out);
    }
    let items: smallvec::SmallVec<[Bound<'_, PyAny>; 3]> = if let Ok(t) = value.cast::<PyTuple>() {
        t.iter().collect()
    } else if let Ok(l) = value.cast::<PyList>() {
        l.iter().collect()
    } else {
        return Err(bad());
    };
    if items.is_empty() || items.len() > 3 {
        return Err(bad());
    }
    for (slot, item) in out.iter_mut().zip(&items) {
        *slot = item.extract().map_err(|_| bad())?;
    }
    Ok(out)
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
    first: OnceLock<(usize, Function)>,
    /// Kernels on further devices.
    others: std::sync::Mutex<Vec<(usize, Arc<Function>)>>,
}

/// A kernel found for this launch: borrowed from the fast slot, or shared from the map.
enum Found<'a> {
    First(&'a Function),
    Other(Arc<Function>),
}

impl std::ops::Deref for Found<'_> {
    type Target = Function;
    fn deref(&self) -> &Function {
        match self {
            Found::First(f) => f,
            Found::Other(f) => f,
        }
    }
}

impl NativeRawKernel {
    fn function(&self, py: Python<'_>) -> PyResult<Found<'_>> {
        let ordinal = ember_runtime::current_device();
        if let Some((d, f)) = self.first.get() {
            if *d == ordinal {
                return Ok(Found::First(f));
            }
        }
        if let Some((_, f)) = self
            .others
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(d, _)| *d == ordinal)
        {
            return Ok(Found::Other(f.clone()));
        }
        let src = self
            .source
            .get()
            .ok_or_else(|| PyValueError::new_err("RawKernel was not initialised"))?;
        let dev = device(ordinal)?;
        require_cuda(dev, "a RawKernel")?;
        let f = py
            .detach(|| {
                dev.module(&src.code, &src.name, &src.options)
                    .and_then(|m| m.function(&src.name))
            })
            .py()?;
        if self.first.set((ordinal, f.clone())).is_ok() {
            return self.function(py);
        }
        let f = Arc::new(f);
        self.others
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((ordinal, f.clone()));
        Ok(Found::Other(f))
    }
}

/// CUDA C needs the CUDA backend: elsewhere, say what to use instead.
fn require_cuda(dev: &Device, what: &str) -> PyResult<()> {
    if dev.kind() == ember_runtime::BackendKind::Cuda {
        return Ok(());
    }
    Err(Error::BackendUnavailable {
        backend: "cuda".into(),
        reason: format!(
            "{what} is CUDA C, which needs the CUDA backend, but ember is running on {} (no CUDA device here). Write the kernel as an ember.ElementwiseKernel (runs on every backend), in OpenCL C with ember.cl.Program, or in Python with @ember.cuda.jit",
            dev.kind().name()
        ),
    })
    .py()
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
        let mut kargs = KernelArgs::new();
        kernel_args(&f, &values, &mut kargs).py()?;
        let dev = f.device();
        let stream = match stream {
            Some(s) if !s.is_none() => s.getattr(pyo3::intern!(py, "ptr"))?.extract()?,
            _ => ember_runtime::current_stream(dev),
        };
        dev.launch(&f, grid, block, shared_mem, stream, &kargs).py()
    }
}

/// Raises BackendUnavailableError unless device `ordinal` runs CUDA C.
#[pyfunction]
#[pyo3(name = "require_cuda")]
fn require_cuda_py(ordinal: usize, what: &str) -> PyResult<()> {
    require_cuda(device(ordinal)?, what)
}

/// Makes device `ordinal` this thread's device for native launches.
#[pyfunction]
fn set_current_device(ordinal: usize) {
    ember_runtime::set_current_device(ordinal)
}

/// Launch arguments, inline for the usual handful.
type LaunchArgs = smallvec::SmallVec<[LaunchArg; 8]>;

/// Converts `args` (a tuple or list) into `out`, in place: launch arguments are built where
/// they are used rather than moved around.
fn args_of(
    args: &Bound<'_, PyAny>,
    name: &str,
    front: Front,
    out: &mut LaunchArgs,
) -> PyResult<()> {
    if let Ok(t) = args.cast::<PyTuple>() {
        for (i, a) in t.iter().enumerate() {
            out.push(launch_arg(&a, i, name, front)?);
        }
        return Ok(());
    }
    if let Ok(l) = args.cast::<PyList>() {
        for (i, a) in l.iter().enumerate() {
            out.push(launch_arg(&a, i, name, front)?);
        }
        return Ok(());
    }
    Err(PyTypeError::new_err(format!(
        "the arguments of kernel {name} must be a tuple or list, got {}",
        args.get_type().name()?
    )))
}

/// A compiled module (CUDA C, OpenCL C).
#[pyclass(name = "Module", module = "ember._ember", frozen)]
pub struct NativeModule(Arc<Module>);

#[pymethods]
impl NativeModule {
    /// The kernel called `name` (or a name expression given at build time). `front` is
    /// `"cupy"`, `"pycuda"` or `"opencl"`: whose conventions its launches follow.
    #[pyo3(signature = (name, front="cupy"))]
    fn function(&self, name: &str, front: &str) -> PyResult<NativeKernel> {
        let front = match front {
            "cupy" => Front::CuPy,
            "pycuda" => Front::PyCuda,
            "opencl" => Front::OpenCl,
            other => return Err(PyValueError::new_err(format!("unknown front {other:?}"))),
        };
        let function = self.0.function(name).py()?;
        Ok(NativeKernel { function, front })
    }

    /// The compiler's name for a name expression, if it was given at build time.
    fn lowered_name(&self, expression: &str) -> Option<String> {
        self.0.lowered_name(expression).map(str::to_string)
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
        .map(NativeModule)
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
    function: Function,
    front: Front,
}

impl NativeKernel {
    fn args(&self, args: &Bound<'_, PyAny>) -> PyResult<LaunchArgs> {
        let mut out = LaunchArgs::new();
        args_of(args, self.function.name(), self.front, &mut out)?;
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
        let values = self.args(args)?;
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
        let values = self.args(args)?;
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
        let values = self.args(args)?;
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
    m.add_class::<NativeRawKernel>()?;
    m.add_function(wrap_pyfunction!(set_current_device, m)?)?;
    m.add_function(wrap_pyfunction!(require_cuda_py, m)?)?;
    m.add_class::<NativeKernel>()?;
    m.add_class::<DevicePointer>()?;
    m.add_class::<PinnedMemory>()?;
    m.add_function(wrap_pyfunction!(register_types, m)?)?;
    m.add_function(wrap_pyfunction!(build_module, m)?)?;
    m.add_function(wrap_pyfunction!(opencl_device_ids, m)?)?;
    Ok(())
}
