//! DLPack capsules: the Python side of `ember_array::dlpack`, in both ABIs (the legacy
//! `"dltensor"` and DLPack 1.0's `"dltensor_versioned"`).

use std::ffi::{c_void, CStr};

use ember_array::dlpack::{self, DLManagedTensor, DLManagedTensorVersioned, DLTensor};
use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;

use crate::array::NativeArray;
use crate::errors::IntoPyResult;

/// A managed tensor of one ABI: its capsule names, its tensor, and its deleter.
trait Managed: 'static {
    const NAME: &'static CStr;
    const USED: &'static CStr;
    fn tensor(&self) -> &DLTensor;
    /// Runs the producer's deleter, if any.
    ///
    /// # Safety
    /// `this` must be a live tensor, not freed before.
    unsafe fn free(this: *mut Self);
}

impl Managed for DLManagedTensor {
    const NAME: &'static CStr = c"dltensor";
    const USED: &'static CStr = c"used_dltensor";
    fn tensor(&self) -> &DLTensor {
        &self.dl_tensor
    }
    unsafe fn free(this: *mut Self) {
        if let Some(deleter) = (*this).deleter {
            deleter(this);
        }
    }
}

impl Managed for DLManagedTensorVersioned {
    const NAME: &'static CStr = c"dltensor_versioned";
    const USED: &'static CStr = c"used_dltensor_versioned";
    fn tensor(&self) -> &DLTensor {
        &self.dl_tensor
    }
    unsafe fn free(this: *mut Self) {
        if let Some(deleter) = (*this).deleter {
            deleter(this);
        }
    }
}

/// Frees an exported tensor whose capsule was never consumed.
unsafe extern "C" fn capsule_destructor<M: Managed>(capsule: *mut ffi::PyObject) {
    if ffi::PyCapsule_IsValid(capsule, M::NAME.as_ptr()) == 1 {
        M::free(ffi::PyCapsule_GetPointer(capsule, M::NAME.as_ptr()) as *mut M);
    }
}

/// Calls an imported tensor's deleter, with the GIL held (NumPy's and PyTorch's need it).
struct Imported<M: Managed>(*mut M);

// The producer's deleter may run on any thread once the GIL is held.
unsafe impl<M: Managed> Send for Imported<M> {}
unsafe impl<M: Managed> Sync for Imported<M> {}

impl<M: Managed> Drop for Imported<M> {
    fn drop(&mut self) {
        // The producer's deleter may touch Python objects. At interpreter shutdown there is no
        // Python to attach to: the process is ending, so the tensor is left to it.
        Python::try_attach(|_| unsafe { M::free(self.0) });
    }
}

/// `(device_type, device_id)` of the array's memory, for `__dlpack_device__`.
#[pyfunction]
fn dlpack_device(array: &NativeArray) -> PyResult<(i32, i32)> {
    dlpack::dlpack_device(array.0.device())
        .map(|d| (d.device_type, d.device_id))
        .map_err(|e| PyBufferError::new_err(e.to_string()))
}

/// A capsule owning the exported tensor `managed` (freed here if the capsule cannot be made).
unsafe fn capsule<M: Managed>(py: Python<'_>, managed: *mut M) -> PyResult<Py<PyAny>> {
    let capsule = ffi::PyCapsule_New(
        managed as *mut c_void,
        M::NAME.as_ptr(),
        Some(capsule_destructor::<M>),
    );
    if capsule.is_null() {
        M::free(managed);
        return Err(PyErr::fetch(py));
    }
    Ok(Bound::<PyAny>::from_owned_ptr(py, capsule).unbind())
}

/// A capsule viewing the array: `"dltensor_versioned"` (DLPack 1.0, its flags saying whether
/// the array was `copied` for the export) when `versioned`, else `"dltensor"`.
#[pyfunction]
#[pyo3(signature = (array, versioned=false, copied=false))]
fn to_dlpack(
    py: Python<'_>,
    array: &NativeArray,
    versioned: bool,
    copied: bool,
) -> PyResult<Py<PyAny>> {
    let buffer_error = |e: ember_core::Error| PyBufferError::new_err(e.to_string());
    unsafe {
        if versioned {
            capsule(
                py,
                dlpack::export_versioned(&array.0, copied).map_err(buffer_error)?,
            )
        } else {
            capsule(py, dlpack::export(&array.0).map_err(buffer_error)?)
        }
    }
}

/// The tensor in `cap` if it is an unconsumed capsule of `M`'s ABI.
unsafe fn held<M: Managed>(cap: *mut ffi::PyObject) -> Option<*mut M> {
    (ffi::PyCapsule_IsValid(cap, M::NAME.as_ptr()) == 1)
        .then(|| ffi::PyCapsule_GetPointer(cap, M::NAME.as_ptr()) as *mut M)
}

/// An array viewing `managed`, the tensor of capsule `cap`, which is marked used: the tensor
/// now belongs to the array (or, on error, was freed), so the capsule must not free it again.
unsafe fn import<M: Managed>(
    device: &'static ember_runtime::Device,
    cap: *mut ffi::PyObject,
    managed: *mut M,
) -> PyResult<NativeArray> {
    let array = dlpack::import((*managed).tensor(), device, Box::new(Imported(managed)));
    ffi::PyCapsule_SetName(cap, M::USED.as_ptr());
    array
        .map(NativeArray)
        .map_err(|e| PyBufferError::new_err(e.to_string()))
}

/// An array viewing the tensor in a `"dltensor"` or `"dltensor_versioned"` capsule, which is
/// marked used.
#[pyfunction]
fn from_dlpack_capsule(device_ordinal: usize, capsule: &Bound<'_, PyAny>) -> PyResult<NativeArray> {
    let device = ember_runtime::device(device_ordinal).py()?;
    let cap = capsule.as_ptr();
    unsafe {
        if let Some(m) = held::<DLManagedTensor>(cap) {
            return import(device, cap, m);
        }
        if let Some(m) = held::<DLManagedTensorVersioned>(cap) {
            if (*m).version.major > dlpack::VERSION.major {
                // Not ours to read: the capsule stays unconsumed, and its producer frees it.
                return Err(PyBufferError::new_err(format!(
                    "the DLPack tensor is version {}.{}; ember reads up to {}.x",
                    (*m).version.major,
                    (*m).version.minor,
                    dlpack::VERSION.major
                )));
            }
            return import(device, cap, m);
        }
    }
    Err(PyTypeError::new_err(
        "expected a DLPack capsule named 'dltensor' or 'dltensor_versioned' (each capsule can be consumed once)",
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dlpack_device, m)?)?;
    m.add_function(wrap_pyfunction!(to_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(from_dlpack_capsule, m)?)?;
    Ok(())
}
