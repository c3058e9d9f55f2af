//! `@cuda.jit` kernels: `kernel[grid, block, stream, shared](*args)` read in native code,
//! handed to `ember_kernel::Dispatcher`.

use std::sync::{Mutex, MutexGuard, OnceLock};

use ember_core::{DType, Error, Scalar};
use ember_kernel::{Dispatcher, JitArg, LaunchConfig};
use ember_runtime::{FunctionAttribute, Handle};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyTuple};
use smallvec::SmallVec;

use crate::errors::IntoPyResult;
use crate::launch_args::{dims3, known, scalar_value};
use crate::scalars::{is_wide_int, python_scalar, wide_int_error};

/// The native half of `ember.cuda.jit`'s dispatcher (the Python class derives from it).
#[pyclass(name = "JitKernel", module = "ember._ember", subclass, frozen)]
pub struct NativeJitKernel {
    dispatcher: OnceLock<Dispatcher>,
    /// A Python callable returning the kernel's tree as JSON (the front runs on first need,
    /// so names defined after the kernel resolve, as in Numba).
    front: OnceLock<Py<PyAny>>,
    /// The last launch configuration and its launcher: a loop writing `kernel[g, b](...)`
    /// gets it back without parsing the configuration again.
    last_launch: Mutex<Option<(Py<PyAny>, Py<JitLaunch>)>>,
}

impl NativeJitKernel {
    fn dispatcher(&self) -> PyResult<&Dispatcher> {
        self.dispatcher
            .get()
            .ok_or_else(|| PyValueError::new_err("the jit kernel was not initialised"))
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `work` with the Python front available as a callback; a Python exception raised by
/// the front (a `JitError` naming the user's line) comes back as itself.
fn with_front<T>(
    py: Python<'_>,
    front: &Py<PyAny>,
    work: impl FnOnce(&mut dyn FnMut() -> ember_core::Result<String>) -> ember_core::Result<T>,
) -> PyResult<T> {
    let mut raised: Option<PyErr> = None;
    let mut call = || -> ember_core::Result<String> {
        match front.call0(py).and_then(|v| v.extract::<String>(py)) {
            Ok(s) => Ok(s),
            Err(e) => {
                raised = Some(e);
                Err(Error::Jit("the Python front failed".into()))
            }
        }
    };
    let result = work(&mut call);
    match (result, raised) {
        (Ok(v), _) => Ok(v),
        (Err(_), Some(e)) => Err(e),
        (Err(e), None) => Err(crate::errors::to_py(e)),
    }
}

fn current_device() -> PyResult<&'static ember_runtime::Device> {
    ember_runtime::device(ember_runtime::current_device()).py()
}

#[pymethods]
impl NativeJitKernel {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>) -> Self {
        NativeJitKernel {
            dispatcher: OnceLock::new(),
            front: OnceLock::new(),
            last_launch: Mutex::new(None),
        }
    }

    /// Sets the kernel's name, options and front once (from the Python `__init__`).
    #[pyo3(signature = (name, fastmath, boundscheck, front, opt=true))]
    fn _setup(
        &self,
        name: &str,
        fastmath: bool,
        boundscheck: Option<bool>,
        front: Py<PyAny>,
        opt: bool,
    ) -> PyResult<()> {
        let ok = self
            .dispatcher
            .set(Dispatcher::new(name, fastmath, opt, boundscheck))
            .is_ok()
            && self.front.set(front).is_ok();
        if ok {
            Ok(())
        } else {
            Err(PyValueError::new_err("a jit kernel is set up once"))
        }
    }

    /// Compiles an explicit signature (`"void(float32[:], int32)"`, as Numba writes it) now.
    fn _add_signature(&self, py: Python<'_>, signature: &str) -> PyResult<()> {
        let d = self.dispatcher()?;
        let (ret, tys) = ember_jit::parse_signature(signature).map_err(PyTypeError::new_err)?;
        if let Some(r) = ret {
            return Err(PyTypeError::new_err(format!(
                "a kernel returns nothing, but signature '{signature}' returns {r}: write 'void(...)'"
            )));
        }
        let device = current_device()?;
        let front = self
            .front
            .get()
            .ok_or_else(|| PyValueError::new_err("no front"))?;
        with_front(py, front, |f| d.add_signature(device, tys, f).map(|_| ()))
    }

    /// The generated C of every compiled specialisation, by signature.
    fn _sources(&self) -> PyResult<Vec<(String, String)>> {
        Ok(self.dispatcher()?.sources())
    }

    /// Every compiled specialisation, oldest first, as a dict: `types` (the argument types'
    /// names), `device` (ordinal), `coarsened` (label or None), `checked`, `source` (the
    /// generated C) and `attributes` (what the device's API reports of the compiled kernel,
    /// by CuPy's attribute names; attributes it does not report are absent).
    fn _specialisations<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let mut out = Vec::new();
        for (index, c) in self.dispatcher()?.compiled().iter().enumerate() {
            let d = PyDict::new(py);
            d.set_item("index", index)?;
            let types: Vec<String> = c.types.iter().map(ember_jit::Ty::to_string).collect();
            d.set_item("types", types)?;
            d.set_item("device", c.device_ordinal())?;
            d.set_item("coarsened", c.coarsened())?;
            d.set_item("checked", c.is_checked())?;
            d.set_item("source", &c.source)?;
            let attributes = PyDict::new(py);
            for (attribute, name) in FunctionAttribute::ALL {
                if let Ok(v) = c.attribute(attribute) {
                    attributes.set_item(name, v)?;
                }
            }
            d.set_item("attributes", attributes)?;
            out.push(d);
        }
        Ok(out)
    }

    /// The most blocks of `threads` threads (with `shared_bytes` of dynamic shared memory) a
    /// cooperative launch of specialisation `index` takes (CUDA only).
    fn _max_cooperative_blocks(
        &self,
        index: usize,
        threads: u32,
        shared_bytes: u32,
    ) -> PyResult<u64> {
        let compiled = self.dispatcher()?.compiled();
        let c = compiled
            .get(index)
            .ok_or_else(|| PyValueError::new_err("no such specialisation"))?;
        c.max_cooperative_blocks(threads, shared_bytes).py()
    }

    /// `kernel[griddim, blockdim]` or `kernel[griddim, blockdim, stream, sharedmem]`.
    fn __getitem__(slf: &Bound<'_, Self>, config: &Bound<'_, PyAny>) -> PyResult<Py<JitLaunch>> {
        let py = slf.py();
        {
            let last = lock(&slf.get().last_launch);
            if let Some((cfg, launch)) = last.as_ref() {
                // The same configuration object (a constant tuple), or an equal tuple.
                let same = cfg.bind(py).is(config)
                    || (config.is_instance_of::<PyTuple>()
                        && cfg.bind(py).eq(config).unwrap_or(false));
                if same && !launch.get().has_callbacks(py) {
                    return Ok(launch.clone_ref(py));
                }
            }
        }
        let launch = Py::new(py, Self::configure(slf, config)?)?;
        *lock(&slf.get().last_launch) = Some((config.clone().unbind(), launch.clone_ref(py)));
        Ok(launch)
    }

    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        if let Some(front) = self.front.get() {
            visit.call(front)?;
        }
        if let Some((cfg, launch)) = lock(&self.last_launch).as_ref() {
            visit.call(cfg)?;
            visit.call(launch)?;
        }
        Ok(())
    }

    fn __clear__(&self) {
        lock(&self.last_launch).take();
    }
}

impl NativeJitKernel {
    /// Reads a launch configuration.
    fn configure(slf: &Bound<'_, Self>, config: &Bound<'_, PyAny>) -> PyResult<JitLaunch> {
        let items: Vec<Bound<'_, PyAny>> = match config.cast::<PyTuple>() {
            Ok(t) => t.iter().collect(),
            Err(_) => vec![config.clone()],
        };
        if !(2..=4).contains(&items.len()) {
            return Err(PyValueError::new_err(format!(
                "a launch configuration is kernel[griddim, blockdim] or kernel[griddim, blockdim, stream, sharedmem], got {} item(s)",
                items.len()
            )));
        }
        let grid = dims3(&items[0], "griddim")?;
        let block = dims3(&items[1], "blockdim")?;
        // Checked here, before the first call compiles anything.
        if grid.contains(&0) || block.contains(&0) {
            return Err(PyValueError::new_err(format!(
                "griddim and blockdim must be at least 1 in every dimension, got griddim={} and blockdim={}",
                items[0], items[1]
            )));
        }
        // (handle, whether the stream is ember's own)
        let stream = match items.get(2) {
            None => None,
            Some(s) if s.is_none() => None,
            Some(s) if s.cast::<PyInt>().is_ok() => match s.extract::<u64>()? {
                0 => None,
                h => Some((h as Handle, false)),
            },
            Some(s) => Some(crate::runtime::stream_of(s, current_device()?)?),
        };
        let shared_bytes = match items.get(3) {
            None => 0,
            Some(v) => v.extract::<u32>().map_err(|_| {
                PyValueError::new_err(format!(
                    "sharedmem must be a non-negative number of bytes, got {v}"
                ))
            })?,
        };
        Ok(JitLaunch {
            kernel: slf.clone().unbind(),
            grid,
            block,
            stream,
            shared_bytes,
            callbacks: OnceLock::new(),
        })
    }
}

/// What `JitLaunch.__reduce__` gives pickle: `operator.getitem` and (kernel, configuration).
type Reduced<'py> = (
    Bound<'py, PyAny>,
    (Py<NativeJitKernel>, Bound<'py, PyTuple>),
);

/// A configured launch: `kernel[grid, block](*args)`.
#[pyclass(name = "JitLaunch", module = "ember._ember", frozen)]
pub struct JitLaunch {
    kernel: Py<NativeJitKernel>,
    grid: [u32; 3],
    block: [u32; 3],
    stream: Option<(Handle, bool)>,
    shared_bytes: u32,
    /// Numba's `pre_launch_callbacks`: called as `f(kernel, launch)` before each launch
    /// (made when first asked for).
    callbacks: OnceLock<Py<PyList>>,
}

impl JitLaunch {
    /// Whether callbacks were added (such a launch is not handed out again by `kernel[...]`).
    fn has_callbacks(&self, py: Python<'_>) -> bool {
        self.callbacks.get().is_some_and(|l| !l.bind(py).is_empty())
    }
}

/// An argument read from Python.
enum Owned {
    Array(ember_array::Array),
    Scalar(Scalar, DType),
    /// A tuple: its type, its scalars and its arrays (each depth first), its field names.
    Tuple(
        ember_jit::Ty,
        Vec<(Scalar, DType)>,
        Vec<ember_array::Array>,
        Option<Vec<String>>,
    ),
    /// A device copy of a NumPy structured scalar.
    Record(ember_array::Array),
}

#[pymethods]
impl JitLaunch {
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        visit.call(&self.kernel)?;
        if let Some(list) = self.callbacks.get() {
            visit.call(list)?;
        }
        Ok(())
    }

    /// Numba's list of functions called as `f(kernel, launch)` before each launch.
    #[getter]
    fn pre_launch_callbacks(&self, py: Python<'_>) -> Py<PyList> {
        self.callbacks
            .get_or_init(|| PyList::empty(py).unbind())
            .clone_ref(py)
    }

    /// Numba's names for the configuration: blocks in the grid and threads in a block (x, y, z).
    #[getter]
    fn griddim(&self) -> (u32, u32, u32) {
        (self.grid[0], self.grid[1], self.grid[2])
    }

    #[getter]
    fn blockdim(&self) -> (u32, u32, u32) {
        (self.block[0], self.block[1], self.block[2])
    }

    #[getter]
    fn sharedmem(&self) -> u32 {
        self.shared_bytes
    }

    /// Pickled as the kernel and its configuration (`kernel[grid, block, 0, sharedmem]`); a
    /// stream belongs to this process and does not travel.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        if self.has_callbacks(py) {
            let error = py.import("pickle")?.getattr("PicklingError")?;
            return Err(PyErr::from_value(error.call1((
                "Cannot pickle configured launches with pre-launch callbacks",
            ))?));
        }
        if self.stream.is_some() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "a launch configured with a stream cannot be pickled: streams belong to their process; pickle the kernel and configure it there",
            ));
        }
        let getitem = py.import("operator")?.getattr("getitem")?;
        let config = PyTuple::new(
            py,
            [
                self.griddim().into_pyobject(py)?.into_any(),
                self.blockdim().into_pyobject(py)?.into_any(),
                0u32.into_pyobject(py)?.into_any(),
                self.shared_bytes.into_pyobject(py)?.into_any(),
            ],
        )?;
        Ok((getitem, (self.kernel.clone_ref(py), config)))
    }

    #[pyo3(signature = (*args))]
    fn __call__(slf: &Bound<'_, Self>, args: &Bound<'_, PyTuple>) -> PyResult<()> {
        let py = slf.py();
        let this = slf.get();
        if let Some(list) = this.callbacks.get() {
            for callback in list.bind(py).iter() {
                callback.call1((this.kernel.bind(py), slf))?;
            }
        }
        this.launch(py, args)
    }
}

impl JitLaunch {
    fn launch(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<()> {
        let kernel = self.kernel.bind(py);
        let native = kernel.get();
        let dispatcher = native.dispatcher()?;
        let known = known()?;
        let mut owned: SmallVec<[Owned; 8]> = SmallVec::new();
        let mut writebacks: Vec<Bound<'_, PyAny>> = Vec::new();
        let mut read_only_args = 0u64;
        for (k, a) in args.iter().enumerate() {
            let (arg, read_only) = read_arg(&a, known, kernel, &mut writebacks)?;
            if read_only && k < 64 {
                read_only_args |= 1 << k;
            }
            owned.push(arg);
        }
        // The arrays of tuple arguments, as the operands a launch reads.
        let tuple_arrays: SmallVec<[Vec<&dyn ember_kernel::Operand>; 8]> = owned
            .iter()
            .map(|o| match o {
                Owned::Tuple(_, _, arrays, _) => arrays
                    .iter()
                    .map(|a| a as &dyn ember_kernel::Operand)
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        let jit_args: SmallVec<[JitArg<'_>; 8]> = owned
            .iter()
            .zip(&tuple_arrays)
            .map(|(o, arrays)| match o {
                Owned::Array(a) => JitArg::Array(a),
                Owned::Scalar(v, d) => JitArg::Scalar(*v, *d),
                Owned::Tuple(t, items, _, names) => {
                    JitArg::Tuple(t, items, arrays, names.as_deref())
                }
                Owned::Record(a) => JitArg::Record(a),
            })
            .collect();
        let device = current_device()?;
        let config = LaunchConfig {
            grid: self.grid,
            block: self.block,
            shared_bytes: self.shared_bytes,
            stream: self
                .stream
                .map_or_else(|| ember_runtime::current_stream(device), |s| s.0),
            ember_stream: self.stream.is_none_or(|s| s.1),
            read_only_args,
        };
        let front = native
            .front
            .get()
            .ok_or_else(|| PyValueError::new_err("no front"))?;
        let mut raised = None;
        with_front(py, front, |f| {
            match dispatcher.launch(device, &jit_args, &config, f) {
                Err(Error::Raised(r)) => {
                    raised = Some(r);
                    Ok(())
                }
                other => other,
            }
        })?;
        // NumPy arguments were copied in: copy them back, as Numba does.
        for w in writebacks {
            w.call0()?;
        }
        match raised {
            // The kernel's own exception, made by the Python dispatcher that knows its class.
            Some(r) => {
                let exc = kernel.call_method1(
                    pyo3::intern!(py, "_kernel_exception"),
                    (
                        r.exception,
                        r.builtin,
                        (&r.function, &r.file, r.line),
                        r.thread,
                        r.block,
                    ),
                )?;
                Err(PyErr::from_value(exc))
            }
            None => Ok(()),
        }
    }
}

/// One argument: ember arrays and Python/NumPy scalars natively; anything else (NumPy
/// arrays, CUDA-array-interface and DLPack objects) through the kernel's `_convert_arg`.
/// Also whether it is a copy of read-only host memory (which the kernel must not write).
fn read_arg<'py>(
    a: &Bound<'py, PyAny>,
    known: &crate::launch_args::KnownTypes,
    kernel: &Bound<'py, NativeJitKernel>,
    writebacks: &mut Vec<Bound<'py, PyAny>>,
) -> PyResult<(Owned, bool)> {
    if known.is_ndarray(a) {
        return Ok((Owned::Array(known.array_of(a)?), false));
    }
    if let Some((s, d)) = scalar_arg(a, known)? {
        return Ok((Owned::Scalar(s, d), false));
    }
    if let Ok(t) = a.cast::<PyTuple>() {
        return Ok((tuple_arg(t, known, kernel, writebacks)?, false));
    }
    // (device array, write-back or None, whether the source is read-only host memory)
    let converted = kernel.call_method1(pyo3::intern!(a.py(), "_convert_arg"), (a,))?;
    let items = converted.cast::<PyTuple>()?;
    let value = items.get_item(0)?;
    let writeback = items.get_item(1)?;
    if !writeback.is_none() {
        writebacks.push(writeback);
    }
    let read_only = items.len() > 2 && items.get_item(2)?.is_truthy()?;
    let record = items.len() > 3 && items.get_item(3)?.is_truthy()?;
    if record && known.is_ndarray(&value) {
        return Ok((Owned::Record(known.array_of(&value)?), false));
    }
    if known.is_ndarray(&value) {
        return Ok((Owned::Array(known.array_of(&value)?), read_only));
    }
    // What an object stands for (an Enum member's value).
    if let Some((s, d)) = scalar_arg(&value, known)? {
        return Ok((Owned::Scalar(s, d), false));
    }
    if let Ok(t) = value.cast::<PyTuple>() {
        return Ok((tuple_arg(t, known, kernel, writebacks)?, false));
    }
    Err(PyTypeError::new_err(format!(
        "cannot pass {} to a kernel",
        value.get_type().name()?
    )))
}

/// A Python or NumPy scalar as a kernel argument, with its type.
fn scalar_arg(
    a: &Bound<'_, PyAny>,
    known: &crate::launch_args::KnownTypes,
) -> PyResult<Option<(Scalar, DType)>> {
    if let Some(s) = python_scalar(a)? {
        // Numba's types of Python scalars: int64 (uint64 past it), float64, complex128.
        let dtype = match s {
            _ if is_wide_int(a, s) => return Err(wide_int_error(a)),
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::UInt(_) => DType::U64,
            Scalar::Float(_) => DType::F64,
            Scalar::Complex(..) => DType::C128,
        };
        return Ok(Some((s, dtype)));
    }
    if let Some(d) = known.numpy_scalar(a) {
        return Ok(Some((scalar_value(a, d)?, d)));
    }
    datetime_scalar(a)
}

/// A NumPy `datetime64`/`timedelta64` scalar: its int64 count, with its dtype (registered
/// under NumPy's name, as the Python layer registers array dtypes), as Numba passes one.
fn datetime_scalar(a: &Bound<'_, PyAny>) -> PyResult<Option<(Scalar, DType)>> {
    let ty = a.get_type();
    let type_name = ty.name()?;
    if type_name != "datetime64" && type_name != "timedelta64" {
        return Ok(None);
    }
    let dtype = a.getattr(pyo3::intern!(a.py(), "dtype"))?;
    let typestr: String = dtype.getattr(pyo3::intern!(a.py(), "str"))?.extract()?;
    let name = dtype.str()?.to_string();
    let d = DType::Opaque(ember_core::Opaque::register(&name, &typestr, 8).py()?);
    if d.datetime().is_none() {
        return Err(PyTypeError::new_err(format!(
            "cannot pass a {name} scalar to a kernel: kernels compute on datetime64 and timedelta64 of one plain unit (datetime64[D], timedelta64[ns])"
        )));
    }
    let count: i64 = a.call_method1("astype", ("int64",))?.extract()?;
    Ok(Some((Scalar::Int(count), d)))
}

/// A tuple (or namedtuple) of scalars, arrays and such tuples, passed by value as Numba
/// passes it (its arrays as the arrays they are: host arrays copied in and back).
fn tuple_arg<'py>(
    t: &Bound<'py, PyTuple>,
    known: &crate::launch_args::KnownTypes,
    kernel: &Bound<'py, NativeJitKernel>,
    writebacks: &mut Vec<Bound<'py, PyAny>>,
) -> PyResult<Owned> {
    let mut leaves = Vec::with_capacity(t.len());
    let mut arrays = Vec::new();
    let ty = tuple_leaves(t, known, kernel, writebacks, &mut leaves, &mut arrays)?;
    // A namedtuple: `p.x` reads its fields by name (ember_jit::with_named_fields).
    let names = match t.is_exact_instance_of::<PyTuple>() {
        true => None,
        false => match t.getattr(pyo3::intern!(t.py(), "_fields")) {
            Ok(f) => Some(f.extract::<Vec<String>>()?),
            Err(_) => None,
        },
    };
    Ok(Owned::Tuple(ty, leaves, arrays, names))
}

/// The type of tuple `t`, its scalars appended to `leaves` and its arrays to `arrays`, each
/// depth first.
fn tuple_leaves<'py>(
    t: &Bound<'py, PyTuple>,
    known: &crate::launch_args::KnownTypes,
    kernel: &Bound<'py, NativeJitKernel>,
    writebacks: &mut Vec<Bound<'py, PyAny>>,
    leaves: &mut Vec<(Scalar, DType)>,
    arrays: &mut Vec<ember_array::Array>,
) -> PyResult<ember_jit::Ty> {
    let mut items = Vec::with_capacity(t.len());
    for x in t.iter() {
        if let Some((s, d)) = scalar_arg(&x, known)? {
            leaves.push((s, d));
            items.push(ember_jit::Ty::Scalar(d));
        } else if let Ok(inner) = x.cast::<PyTuple>() {
            items.push(tuple_leaves(
                inner, known, kernel, writebacks, leaves, arrays,
            )?);
        } else {
            // An array: ember's as it is; others (NumPy, CUDA array interface, DLPack)
            // through the kernel's conversion, as a kernel argument of their own would be.
            let array = if known.is_ndarray(&x) {
                known.array_of(&x)?
            } else {
                let refused = || -> PyResult<PyErr> {
                    Ok(PyTypeError::new_err(format!(
                        "cannot pass a tuple holding a {} to a kernel: tuples passed to kernels hold numbers, arrays and tuples of them",
                        x.get_type().name()?
                    )))
                };
                let converted =
                    match kernel.call_method1(pyo3::intern!(x.py(), "_convert_arg"), (&x,)) {
                        Ok(c) => c,
                        Err(e) if e.is_instance_of::<PyTypeError>(x.py()) => return Err(refused()?),
                        Err(e) => return Err(e),
                    };
                let parts = converted.cast::<PyTuple>()?;
                let value = parts.get_item(0)?;
                if !known.is_ndarray(&value)
                    || (parts.len() > 3 && parts.get_item(3)?.is_truthy()?)
                {
                    return Err(refused()?);
                }
                let writeback = parts.get_item(1)?;
                if !writeback.is_none() {
                    writebacks.push(writeback);
                }
                known.array_of(&value)?
            };
            let layout = if array.is_c_contiguous() {
                ember_jit::Layout::C
            } else {
                ember_jit::Layout::A
            };
            items.push(ember_jit::Ty::Array(ember_jit::ArrayTy::global(
                array.dtype(),
                array.ndim(),
                layout,
            )));
            arrays.push(array);
        }
    }
    Ok(ember_jit::Ty::Tuple(items))
}

/// The element dtype of a parsed type (arrays give their dtype).
fn dtype_name(t: &ember_jit::Ty) -> PyResult<String> {
    match t {
        ember_jit::Ty::Scalar(d) => Ok(d.name().to_string()),
        ember_jit::Ty::Array(a) => Ok(a.dtype.name().to_string()),
        other => Err(PyTypeError::new_err(format!("{other} has no dtype"))),
    }
}

/// A Numba signature as `(return dtype or None, argument dtypes)`, for `vectorize`.
#[pyfunction]
fn jit_signature(text: &str) -> PyResult<(Option<String>, Vec<String>)> {
    let (ret, args) = ember_jit::parse_signature(text).map_err(PyTypeError::new_err)?;
    let ret = ret.as_ref().map(dtype_name).transpose()?;
    Ok((ret, args.iter().map(dtype_name).collect::<PyResult<_>>()?))
}

fn parse_types(types: &[String]) -> PyResult<Vec<ember_jit::Ty>> {
    types
        .iter()
        .map(|t| ember_jit::parse_arg_type(t).map_err(PyTypeError::new_err))
        .collect()
}

fn dialect_named(name: &str) -> PyResult<ember_codegen::Dialect> {
    ember_codegen::Dialect::named(name).ok_or_else(|| {
        PyValueError::new_err(format!("dialect must be 'cuda' or 'opencl', got {name:?}"))
    })
}

/// The C source of a kernel tree for argument types (Numba spelling), without a device:
/// `(source, kernel name)`. `coarsen` (`"y2"`, `"x4a"`, ...) asks for a coarsened kernel and
/// fails where that is not sound; `checked` for checked mode's kernel.
#[pyfunction]
#[pyo3(signature = (program, types, dialect, coarsen=None, checked=false))]
fn jit_kernel_source(
    program: &str,
    types: Vec<String>,
    dialect: &str,
    coarsen: Option<&str>,
    checked: bool,
) -> PyResult<(String, String)> {
    let program = ember_jit::Program::from_json(program).map_err(PyValueError::new_err)?;
    let plan = match coarsen {
        None => None,
        Some(text) => {
            let plan = ember_jit::Plan::parse(text).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "coarsen must look like 'y2' or 'x4a' (axis, factor 2-16, 'a' for aligned), got {text:?}"
                ))
            })?;
            ember_jit::coarsen::coarsen(&program, &plan).map_err(|why| {
                PyValueError::new_err(format!("coarsening by {text} is not sound here: {why}"))
            })?;
            Some(plan)
        }
    };
    let (types, dialect) = (parse_types(&types)?, dialect_named(dialect)?);
    let k = match (checked, plan) {
        (true, None) => ember_jit::compile_kernel_checked(&program, &types, dialect),
        (false, plan) => {
            ember_jit::compile_kernel_coarse(&program, &types, dialect, plan.as_ref(), true)
        }
        (true, Some(_)) => {
            return Err(PyValueError::new_err(
                "checked kernels are not coarsened: pass coarsen= or checked=True, not both",
            ))
        }
    }
    .py()?;
    Ok((k.source, k.name))
}

/// Reads and sets how launches coarsen `@cuda.jit` kernels (`EMBER_JIT_COARSEN`): `"off"`,
/// `"auto"`, or a plan such as `"y2"` forced wherever sound. Returns the previous mode.
#[pyfunction]
#[pyo3(signature = (mode=None))]
fn jit_coarsening(mode: Option<&str>) -> PyResult<String> {
    use ember_kernel::jit::{coarsening, set_coarsening, Coarsening};
    let old = match mode {
        None => coarsening().py()?,
        Some(text) => set_coarsening(Coarsening::parse(text).ok_or_else(|| {
            PyValueError::new_err(format!(
                "coarsening mode {text:?} is not valid: {}",
                Coarsening::VALUES
            ))
        })?),
    };
    Ok(match old {
        Coarsening::Off => "off".into(),
        Coarsening::Auto => "auto".into(),
        Coarsening::Force((axis, factor)) => format!("{}{factor}", ["x", "y", "z"][axis]),
    })
}

/// A device function tree compiled for argument types: `(preamble, C name, return type)`
/// (the return type as Numba writes it, e.g. `float32`).
#[pyfunction]
fn jit_device_source(
    program: &str,
    types: Vec<String>,
    dialect: &str,
) -> PyResult<(String, String, String)> {
    let program = ember_jit::Program::from_json(program).map_err(PyValueError::new_err)?;
    let d =
        ember_jit::compile_device(&program, &parse_types(&types)?, dialect_named(dialect)?).py()?;
    Ok((d.preamble, d.name, d.ret.to_string()))
}

/// A device function tree as CUDA C standing alone, entered through `extern "C"` function
/// `entry` by `abi` (`"c"` or `"numba"`): `(source, return type)`. `ret` is the declared return
/// type (None: the function's own).
#[pyfunction]
#[pyo3(signature = (program, types, entry, abi, ret=None, forceinline=false))]
fn jit_device_entry(
    program: &str,
    types: Vec<String>,
    entry: &str,
    abi: &str,
    ret: Option<String>,
    forceinline: bool,
) -> PyResult<(String, String)> {
    let program = ember_jit::Program::from_json(program).map_err(PyValueError::new_err)?;
    let abi = match abi {
        "c" => ember_jit::Abi::C,
        "numba" => ember_jit::Abi::Numba,
        other => {
            return Err(PyValueError::new_err(format!(
                "abi must be 'c' or 'numba', got {other:?}"
            )))
        }
    };
    let ret = ret
        .map(|r| ember_jit::parse_arg_type(&r).map_err(PyTypeError::new_err))
        .transpose()?;
    let (source, ret) = ember_jit::compile_device_entry(
        &program,
        &parse_types(&types)?,
        entry,
        abi,
        ret,
        forceinline,
    )
    .py()?;
    Ok((source, ret.to_string()))
}

/// The names of the intrinsics kernels may call (ember-jit's intrinsic registry).
#[pyfunction]
fn jit_intrinsics() -> Vec<&'static str> {
    ember_jit::intrinsics::INTRINSICS
        .iter()
        .map(|i| i.name)
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(jit_kernel_source, m)?)?;
    m.add_function(wrap_pyfunction!(jit_intrinsics, m)?)?;
    m.add_function(wrap_pyfunction!(jit_coarsening, m)?)?;
    m.add_function(wrap_pyfunction!(jit_device_source, m)?)?;
    m.add_function(wrap_pyfunction!(jit_device_entry, m)?)?;
    m.add_function(wrap_pyfunction!(jit_signature, m)?)?;
    m.add_class::<NativeJitKernel>()?;
    m.add_class::<JitLaunch>()?;
    Ok(())
}
