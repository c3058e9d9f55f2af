//! DLPack capsules: the Python side of `ember_array::dlpack`.

use std::ffi::{c_void, CStr};

use ember_array::dlpack::{self, DLManagedTensor};
use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;

use crate::array::NativeArray;
use crate::errors::IntoPyResult;

const NAME: &CStr = c"dltensor";
const USED: &CStr = c"used_dltensor";

/// Frees an exported tensor whose capsule was never consumed.
unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    if ffi::PyCapsule_IsValid(capsule, NAME.as_ptr()) == 1 {
        let managed = ffi::PyCapsule_GetPointer(capsule, NAME.as_ptr()) as *mut DLManagedTensor;
        if let Some(deleter) = (*managed).deleter {
            deleter(managed);
        }
    }
}

/// Calls an imported tensor's deleter, with the GIL held (NumPy's and PyTorch's need it).
struct Imported(*mut DLManagedTensor);

// The producer's deleter may run on any thread once the GIL is held.
unsafe impl Send for Imported {}
unsafe impl Sync for Imported {}

impl Drop for Imported {
    fn drop(&mut self) {
        let managed = self.0;
        // The producer's deleter may touch Python objects. At interpreter shutdown there is no
        // Python to attach to: the process is ending, so the tensor is left to it.
        Python::try_attach(|_| unsafe {
            if let Some(deleter) = (*managed).deleter {
                deleter(managed);
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

/// A `"dltensor"` capsule viewing the array.
#[pyfunction]
fn to_dlpack(py: Python<'_>, array: &NativeArray) -> PyResult<Py<PyAny>> {
    let managed = dlpack::export(&array.0).map_err(|e| PyBufferError::new_err(e.to_string()))?;
    unsafe {
        let capsule = ffi::PyCapsule_New(
            managed as *mut c_void,
            NAME.as_ptr(),
            Some(capsule_destructor),
        );
        if capsule.is_null() {
            if let Some(deleter) = (*managed).deleter {
                deleter(managed);
            }
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::<PyAny>::from_owned_ptr(py, capsule).unbind())
    }
}

/// An array viewing the tensor in a `"dltensor"` capsule, which is marked used.
#[pyfunction]
fn from_dlpack_capsule(device_ordinal: usize, capsule: &Bound<'_, PyAny>) -> PyResult<NativeArray> {
    let device = ember_runtime::device(device_ordinal).py()?;
    let cap = capsule.as_ptr();
    unsafe {
        if ffi::PyCapsule_IsValid(cap, NAME.as_ptr()) != 1 {
            return Err(PyTypeError::new_err(
                "expected a DLPack capsule named 'dltensor' (each capsule can be consumed once)",
            ));
        }
        let managed = ffi::PyCapsule_GetPointer(cap, NAME.as_ptr()) as *mut DLManagedTensor;
        let owner = Imported(managed);
        let array = dlpack::import(&(*managed).dl_tensor, device, Box::new(owner));
        // Either way the tensor now belongs to `owner` (dropped on error, which ran the
        // deleter): the capsule must not run it again.
        ffi::PyCapsule_SetName(cap, USED.as_ptr());
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
