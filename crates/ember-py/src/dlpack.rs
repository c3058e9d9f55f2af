//! DLPack capsules: the Python side of `ember_array::dlpack`.

use std::ffi::{c_void, CStr};

use ember_array::dlpack::{self, DLManagedTensor, DLManagedTensorVersioned};
use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;

use crate::array::NativeArray;
use crate::errors::IntoPyResult;

const NAME: &CStr = c"dltensor";
const USED: &CStr = c"used_dltensor";
const VERSIONED: &CStr = c"dltensor_versioned";
const USED_VERSIONED: &CStr = c"used_dltensor_versioned";

/// Frees an exported tensor whose capsule was never consumed.
unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    if ffi::PyCapsule_IsValid(capsule, NAME.as_ptr()) == 1 {
        let managed = ffi::PyCapsule_GetPointer(capsule, NAME.as_ptr()) as *mut DLManagedTensor;
        if let Some(deleter) = (*managed).deleter {
            deleter(managed);
        }
    }
}

/// Frees an exported DLPack 1.0 tensor whose capsule was never consumed.
unsafe extern "C" fn versioned_destructor(capsule: *mut ffi::PyObject) {
    if ffi::PyCapsule_IsValid(capsule, VERSIONED.as_ptr()) == 1 {
        let managed =
            ffi::PyCapsule_GetPointer(capsule, VERSIONED.as_ptr()) as *mut DLManagedTensorVersioned;
        if let Some(deleter) = (*managed).deleter {
            deleter(managed);
        }
    }
}

/// An imported tensor of either ABI.
enum Managed {
    Legacy(*mut DLManagedTensor),
    Versioned(*mut DLManagedTensorVersioned),
}

/// Calls an imported tensor's deleter, with the GIL held (NumPy's and PyTorch's need it).
struct Imported(Managed);

// The producer's deleter may run on any thread once the GIL is held.
unsafe impl Send for Imported {}
unsafe impl Sync for Imported {}

impl Drop for Imported {
    fn drop(&mut self) {
        // The producer's deleter may touch Python objects. At interpreter shutdown there is no
        // Python to attach to: the process is ending, so the tensor is left to it.
        Python::try_attach(|_| unsafe {
            match self.0 {
                Managed::Legacy(m) => {
                    if let Some(deleter) = (*m).deleter {
                        deleter(m);
                    }
                }
                Managed::Versioned(m) => {
                    if let Some(deleter) = (*m).deleter {
                        deleter(m);
                    }
                }
            }
        });
    }
}

/// `(device_type, device_id)` of the array's memory, for `__dlpack_device__`.
#[pyfunction]
fn dlpack_device(array: &NativeArray) -> PyResult<(i32, i32)> {
    dlpack::dlpack_device(array.0.device())
        .map(|d| (d.device_type, d.device_id))
        .map_err(|e| PyBufferError::new_err(e.to_string()))
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
        let (pointer, name, destructor, free): (*mut c_void, &CStr, _, Box<dyn Fn()>) = if versioned
        {
            let m = dlpack::export_versioned(&array.0, copied).map_err(buffer_error)?;
            let free = move || {
                if let Some(deleter) = (*m).deleter {
                    deleter(m);
                }
            };
            (
                m as *mut c_void,
                VERSIONED,
                versioned_destructor as _,
                Box::new(free),
            )
        } else {
            let m = dlpack::export(&array.0).map_err(buffer_error)?;
            let free = move || {
                if let Some(deleter) = (*m).deleter {
                    deleter(m);
                }
            };
            (
                m as *mut c_void,
                NAME,
                capsule_destructor as _,
                Box::new(free),
            )
        };
        let capsule = ffi::PyCapsule_New(pointer, name.as_ptr(), Some(destructor));
        if capsule.is_null() {
            free();
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::<PyAny>::from_owned_ptr(py, capsule).unbind())
    }
}

/// An array viewing the tensor in a `"dltensor"` or `"dltensor_versioned"` capsule, which is
/// marked used.
#[pyfunction]
fn from_dlpack_capsule(device_ordinal: usize, capsule: &Bound<'_, PyAny>) -> PyResult<NativeArray> {
    let device = ember_runtime::device(device_ordinal).py()?;
    let cap = capsule.as_ptr();
    unsafe {
        let (owner, tensor, used) = if ffi::PyCapsule_IsValid(cap, NAME.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(cap, NAME.as_ptr()) as *mut DLManagedTensor;
            (Imported(Managed::Legacy(m)), &(*m).dl_tensor, USED)
        } else if ffi::PyCapsule_IsValid(cap, VERSIONED.as_ptr()) == 1 {
            let m =
                ffi::PyCapsule_GetPointer(cap, VERSIONED.as_ptr()) as *mut DLManagedTensorVersioned;
            if (*m).version.major > dlpack::VERSION.major {
                // Not ours to read: the capsule stays unconsumed, and its producer frees it.
                return Err(PyBufferError::new_err(format!(
                    "the DLPack tensor is version {}.{}; ember reads up to {}.x",
                    (*m).version.major,
                    (*m).version.minor,
                    dlpack::VERSION.major
                )));
            }
            (
                Imported(Managed::Versioned(m)),
                &(*m).dl_tensor,
                USED_VERSIONED,
            )
        } else {
            return Err(PyTypeError::new_err(
                "expected a DLPack capsule named 'dltensor' or 'dltensor_versioned' (each capsule can be consumed once)",
            ));
        };
        let array = dlpack::import(tensor, device, Box::new(owner));
        // Either way the tensor now belongs to `owner` (dropped on error, which ran the
        // deleter): the capsule must not run it again.
        ffi::PyCapsule_SetName(cap, used.as_ptr());
        array
            .map(NativeArray)
            .map_err(|e| PyBufferError::new_err(e.to_string()))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dlpack_device, m)?)?;
    m.add_function(wrap_pyfunction!(to_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(from_dlpack_capsule, m)?)?;
    Ok(())
}
