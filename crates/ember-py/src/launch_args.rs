//! Launch arguments read straight from Python objects: the hot path of every user-kernel
//! launch, so types are recognised by identity and arguments are built in place.

use std::sync::OnceLock;

use ember_core::{DType, Scalar};
use ember_kernel::LaunchArg;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyComplex, PyInt, PyList, PyTuple, PyType};

use crate::array::NativeArray;
use crate::errors::IntoPyResult;
use crate::scalars::{is_wide_int, python_scalar};

/// Python types the launch path recognises by identity (set once by `ember` at import). The
/// raw type pointers make each check a comparison; the `Py` handles keep the types alive.
pub(crate) struct KnownTypes {
    ndarray: usize,
    host_ndarray: usize,
    scalars: Vec<(usize, DType)>,
    /// `ndarray._a`'s slot descriptor and its getter: reading the slot through them skips
    /// the attribute lookup (the largest cost of an array argument, measured).
    native_slot: Py<PyAny>,
    /// `ndarray._base`'s slot descriptor: a view keeps the array that owns its memory there.
    base_slot: Py<PyAny>,
    /// `ndarray._cl`'s slot descriptor: an array's PyOpenCL settings (queue, allocator).
    face_slot: Py<PyAny>,
    slot_get: Option<pyo3::ffi::descrgetfunc>,
    /// The slot's setter, to make `ember.ndarray` objects natively (`wrap`).
    slot_set: Option<pyo3::ffi::descrsetfunc>,
    alive: Vec<Py<PyType>>,
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

impl KnownTypes {
    /// An `ember.ndarray`'s PyOpenCL settings (its `_cl` slot), if it has any.
    pub(crate) fn face_state<'py>(&self, value: &Bound<'py, PyAny>) -> Option<Bound<'py, PyAny>> {
        let slot_get = self.slot_get?;
        let raw = unsafe {
            slot_get(
                self.face_slot.as_ptr(),
                value.as_ptr(),
                self.ndarray as *mut pyo3::ffi::PyObject,
            )
        };
        match unsafe { Bound::from_owned_ptr_or_err(value.py(), raw) } {
            Ok(state) if !state.is_none() => Some(state),
            Ok(_) => None,
            Err(_) => None, // never set: the slot is empty
        }
    }

    /// Whether `value` is an `ember.ndarray` (exactly).
    pub(crate) fn is_ndarray(&self, value: &Bound<'_, PyAny>) -> bool {
        value.get_type_ptr() as usize == self.ndarray
    }

    /// The native array of an `ember.ndarray`.
    pub(crate) fn array_of(&self, value: &Bound<'_, PyAny>) -> PyResult<ember_array::Array> {
        Ok(self.native_of(value)?.get().0.clone())
    }

    /// The native object of an `ember.ndarray`, to borrow its array without a copy.
    pub(crate) fn native_of<'py>(
        &self,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, NativeArray>> {
        Ok(self.native_array(value)?.cast_into::<NativeArray>()?)
    }

    /// The dtype of a NumPy scalar type, if `value` is one.
    pub(crate) fn numpy_scalar(&self, value: &Bound<'_, PyAny>) -> Option<DType> {
        let t = value.get_type_ptr() as usize;
        self.scalars.iter().find(|(p, _)| *p == t).map(|(_, d)| *d)
    }

    pub(crate) fn is_host_array(&self, value: &Bound<'_, PyAny>) -> bool {
        value.get_type_ptr() as usize == self.host_ndarray
    }

    /// A new `ember.ndarray` holding `array` (made without calling Python code).
    pub(crate) fn wrap<'py>(
        &self,
        py: Python<'py>,
        array: ember_array::Array,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.wrap_native(&Bound::new(py, NativeArray(array))?)
    }

    /// A new `ember.ndarray` holding the native array object `native` itself.
    pub(crate) fn wrap_native<'py>(
        &self,
        native: &Bound<'py, NativeArray>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = native.py();
        let slot_set = self.slot_set.ok_or_else(|| {
            pyo3::exceptions::PyRuntimeError::new_err("ember.ndarray's slot setter is missing")
        })?;
        unsafe {
            let ty = self.ndarray as *mut pyo3::ffi::PyTypeObject;
            let raw = pyo3::ffi::PyType_GenericAlloc(ty, 0);
            let obj = Bound::from_owned_ptr_or_err(py, raw)?;
            if slot_set(self.native_slot.as_ptr(), obj.as_ptr(), native.as_ptr()) != 0 {
                return Err(PyErr::fetch(py));
            }
            // `_cl` set to None: the operators read it on every call, and an unset slot
            // would raise (and build) an AttributeError each time.
            if slot_set(self.face_slot.as_ptr(), obj.as_ptr(), py.None().as_ptr()) != 0 {
                return Err(PyErr::fetch(py));
            }
            Ok(obj)
        }
    }

    /// A new `ember.ndarray` holding `array`, a view of `parent`'s memory: its `base` is the
    /// array that owns the memory (a view of a view points at the owner, as in NumPy).
    pub(crate) fn wrap_view<'py>(
        &self,
        py: Python<'py>,
        array: ember_array::Array,
        parent: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.set_base(self.wrap(py, array)?, parent)
    }

    /// `obj`'s `base` set to `parent`'s owner of the memory (`parent` itself when it owns it).
    pub(crate) fn set_base<'py>(
        &self,
        obj: Bound<'py, PyAny>,
        parent: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = obj.py();
        let (Some(slot_get), Some(slot_set)) = (self.slot_get, self.slot_set) else {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "ember.ndarray's slot accessors are missing",
            ));
        };
        unsafe {
            let ty = self.ndarray as *mut pyo3::ffi::PyObject;
            let raw = slot_get(self.base_slot.as_ptr(), parent.as_ptr(), ty);
            // An unset slot raises AttributeError: the parent owns its memory.
            let root = match Bound::from_owned_ptr_or_err(py, raw) {
                Ok(base) if !base.is_none() => base,
                _ => parent.clone(),
            };
            if slot_set(self.base_slot.as_ptr(), obj.as_ptr(), root.as_ptr()) != 0 {
                return Err(PyErr::fetch(py));
            }
        }
        Ok(obj)
    }
}

static KNOWN: OnceLock<KnownTypes> = OnceLock::new();

/// The registered types (after `import ember`).
pub(crate) fn known() -> PyResult<&'static KnownTypes> {
    KNOWN.get().ok_or_else(|| {
        pyo3::exceptions::PyRuntimeError::new_err(
            "import ember first: its types are not registered",
        )
    })
}

/// Tells the launch path `ember.ndarray`, `numpy.ndarray` and NumPy's scalar types.
#[pyfunction]
fn register_types(
    ndarray: Bound<'_, PyType>,
    host_ndarray: Bound<'_, PyType>,
    scalars: Vec<(Bound<'_, PyType>, String)>,
) -> PyResult<()> {
    // Modules below the class (it is defined above them) read it here: `_ember.ndarray`.
    ndarray
        .py()
        .import("ember._ember")?
        .setattr("ndarray", &ndarray)?;
    let ptr = |t: &Bound<'_, PyType>| t.as_type_ptr() as usize;
    let native_slot = ndarray.getattr("_a")?;
    let base_slot = ndarray.getattr("_base")?;
    let face_slot = ndarray.getattr("_cl")?;
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
    let slot_set: Option<pyo3::ffi::descrsetfunc> = unsafe {
        let f = pyo3::ffi::PyType_GetSlot(
            native_slot.get_type().as_type_ptr(),
            pyo3::ffi::Py_tp_descr_set,
        );
        if f.is_null() {
            None
        } else {
            Some(std::mem::transmute::<
                *mut std::ffi::c_void,
                pyo3::ffi::descrsetfunc,
            >(f))
        }
    };
    let mut known = KnownTypes {
        ndarray: ptr(&ndarray),
        host_ndarray: ptr(&host_ndarray),
        scalars: Vec::with_capacity(scalars.len()),
        native_slot: native_slot.unbind(),
        base_slot: base_slot.unbind(),
        face_slot: face_slot.unbind(),
        slot_get,
        slot_set,
        alive: vec![ndarray.unbind(), host_ndarray.unbind()],
    };
    for (t, name) in scalars {
        known.scalars.push((ptr(&t), DType::from_name(&name).py()?));
        known.alive.push(t.unbind());
    }
    let _ = KNOWN.set(known);
    Ok(())
}

/// `native` as an `ember.ndarray`: a view of `parent` when given (its `base` is the array
/// that owns the memory).
#[pyfunction]
#[pyo3(signature = (native, parent=None))]
fn wrap<'py>(
    native: &Bound<'py, NativeArray>,
    parent: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let obj = k.wrap_native(native)?;
    match parent {
        Some(p) => k.set_base(obj, p),
        None => Ok(obj),
    }
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
pub(crate) enum Front {
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

/// A NumPy scalar's value as a host scalar of its dtype.
pub(crate) fn scalar_value(value: &Bound<'_, PyAny>, dtype: DType) -> PyResult<Scalar> {
    Ok(match dtype.kind() {
        ember_core::dtype::Kind::Opaque => {
            return Err(PyTypeError::new_err(format!(
                "a {dtype} scalar has no value ember computes with; pass its bits as an integer"
            )))
        }
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
pub(crate) fn launch_arg(
    value: &Bound<'_, PyAny>,
    index: usize,
    kernel: &str,
    front: Front,
) -> PyResult<LaunchArg> {
    let py = value.py();
    let ty_ptr = value.get_type_ptr() as usize;
    if let Some(known) = KNOWN.get() {
        if ty_ptr == known.ndarray {
            return array_arg(&known.native_array(value)?.cast::<NativeArray>()?.get().0);
        }
        if let Some((_, dtype)) = known.scalars.iter().find(|(t, _)| *t == ty_ptr) {
            return Ok(LaunchArg::of_scalar(
                scalar_value(value, *dtype)?,
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
        // Memory ember allocated for PyCUDA code (`mem_alloc`, a GPUArray's `gpudata`) is an
        // ember buffer: passed as one, it works on OpenCL too.
        if let (Ok(owner), Some(known)) = (value.getattr(pyo3::intern!(py, "_array")), KNOWN.get())
        {
            if owner.get_type_ptr() as usize == known.ndarray {
                return array_arg(&known.native_array(&owner)?.cast::<NativeArray>()?.get().0);
            }
        }
        return Ok(LaunchArg::Pointer(p.borrow().ptr));
    }
    if let Ok(a) = value.cast::<NativeArray>() {
        return array_arg(&a.get().0);
    }
    if let Some(s) = python_scalar(value)? {
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
        let dtype = match s {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) if !is_wide_int(value, s) => DType::F64,
            Scalar::UInt(_) | Scalar::Float(_) => {
                return Err(pyo3::exceptions::PyOverflowError::new_err(format!(
                    "argument {index} of kernel {kernel}: the Python int {value} does not fit in int64"
                )))
            }
            Scalar::Complex(..) => DType::C128,
        };
        return Ok(LaunchArg::of_scalar(s, dtype, true));
    }
    if let Ok(cai) = value.getattr(pyo3::intern!(py, "__cuda_array_interface__")) {
        let data = cai.get_item("data")?;
        return Ok(LaunchArg::Pointer(data.get_item(0)?.extract()?));
    }
    if value.get_type().name()? == "void" {
        // A NumPy structured scalar (cltypes.make_float4(...), a record): its bytes by value.
        let bytes: Vec<u8> = value
            .call_method0(pyo3::intern!(py, "tobytes"))?
            .extract()?;
        return Ok(LaunchArg::Struct(bytes));
    }
    // The rarer kinds last: each check that fails costs an AttributeError.
    if let Ok(local) = value.getattr(pyo3::intern!(py, "_ember_local_bytes")) {
        return Ok(LaunchArg::Local(local.extract()?));
    }
    if let Ok(address) = value.getattr(pyo3::intern!(py, "_ember_svm_address")) {
        return Ok(LaunchArg::Svm(address.extract()?));
    }
    // ember.cl's Image and Sampler hold their OpenCL object in `_native`.
    let native = value
        .getattr(pyo3::intern!(py, "_native"))
        .unwrap_or_else(|_| value.clone());
    if let Ok(image) = native.cast::<crate::cl_objects::NativeImage>() {
        return Ok(LaunchArg::Object(image.get().raw()));
    }
    if let Ok(sampler) = native.cast::<crate::cl_objects::NativeSampler>() {
        return Ok(LaunchArg::Object(sampler.get().raw()));
    }
    Err(PyTypeError::new_err(format!(
        "argument {index} of kernel {kernel} has unsupported type {}; kernels take ember arrays, NumPy or Python scalars, None and device pointers",
        value.get_type().name()?
    )))
}

fn array_arg(a: &ember_array::Array) -> PyResult<LaunchArg> {
    Ok(LaunchArg::Array {
        handle: a.buffer().handle().py()?,
        offset: a.offset(),
        device: a.device().info().ordinal,
        // An array of addresses reaches memory of its own: not ember's alone to order.
        private: a.is_private() && !a.may_hold_addresses(),
    })
}

/// `grid`/`block` as CuPy takes them: an int or a tuple of up to three ints.
pub(crate) fn dims3(value: &Bound<'_, PyAny>, what: &str) -> PyResult<[u32; 3]> {
    // A value of the wrong type (a float) is a TypeError, as Numba and CuPy raise; a wrong
    // number of dimensions or an int out of range is a ValueError.
    // Classified only when refusing: this runs on every launch.
    // The messages are Numba's (`griddim must be a sequence of integers, got [2.0]`), with
    // the forms ember takes after them.
    let bad = || {
        let not_int = |v: &Bound<'_, PyAny>| !v.is_instance_of::<PyInt>();
        let items: Vec<Bound<'_, PyAny>> = if let Ok(t) = value.cast::<PyTuple>() {
            t.iter().collect()
        } else if let Ok(l) = value.cast::<PyList>() {
            l.iter().collect()
        } else {
            vec![value.clone()]
        };
        let listed = PyList::new(value.py(), &items)
            .and_then(|l| l.str().map(|s| s.to_string()))
            .unwrap_or_else(|_| value.to_string());
        let forms = "(an int or a tuple of 1 to 3 positive ints)";
        if items.iter().any(not_int) {
            PyTypeError::new_err(format!(
                "{what} must be a sequence of integers, got {listed} {forms}"
            ))
        } else if items.is_empty() || items.len() > 3 {
            PyValueError::new_err(format!(
                "{what} must be a sequence of 1, 2 or 3 integers, got {listed} {forms}"
            ))
        } else {
            PyValueError::new_err(format!(
                "{what} must be positive integers, got {listed} {forms}"
            ))
        }
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

/// Launch arguments, inline for the usual handful.
pub(crate) type LaunchArgs = smallvec::SmallVec<[LaunchArg; 8]>;

/// Converts `args` (a tuple or list) into `out`, in place: launch arguments are built where
/// they are used rather than moved around.
pub(crate) fn args_of(
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DevicePointer>()?;
    m.add_function(wrap_pyfunction!(register_types, m)?)?;
    m.add_function(wrap_pyfunction!(wrap, m)?)?;
    Ok(())
}
