//! DLPack: sharing arrays with other libraries without copying.
//!
//! The structs follow `dlpack.h`: the unversioned `DLManagedTensor` every consumer accepts,
//! and DLPack 1.0's `DLManagedTensorVersioned` (with a version and flags), which consumers
//! ask for with `__dlpack__(max_version=(1, 0))`.

use std::any::Any;
use std::ffi::c_void;

use ember_core::{DType, Error, Result};
use ember_runtime::{BackendKind, Device};

use crate::array::Array;

/// `kDLCPU`
pub const DEVICE_CPU: i32 = 1;
/// `kDLCUDA`
pub const DEVICE_CUDA: i32 = 2;
/// `kDLOpenCL`: a `cl_mem` on an OpenCL device (no consumer other than ember reads one).
pub const DEVICE_OPENCL: i32 = 4;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLDevice {
    pub device_type: i32,
    pub device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLDataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

#[repr(C)]
pub struct DLTensor {
    pub data: *mut c_void,
    pub device: DLDevice,
    pub ndim: i32,
    pub dtype: DLDataType,
    pub shape: *mut i64,
    /// In elements; null means C-contiguous.
    pub strides: *mut i64,
    pub byte_offset: u64,
}

#[repr(C)]
pub struct DLManagedTensor {
    pub dl_tensor: DLTensor,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// DLPack's ABI version, as 1.0 writes it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLPackVersion {
    pub major: u32,
    pub minor: u32,
}

/// The version ember's versioned tensors carry.
pub const VERSION: DLPackVersion = DLPackVersion { major: 1, minor: 0 };

/// `DLPACK_FLAG_BITMASK_IS_COPIED`: the producer copied the data for this export.
pub const FLAG_IS_COPIED: u64 = 1 << 1;

#[repr(C)]
pub struct DLManagedTensorVersioned {
    pub version: DLPackVersion,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    pub flags: u64,
    pub dl_tensor: DLTensor,
}

/// The DLPack device an array's memory is on, or why it cannot be shared.
pub fn dlpack_device(device: &Device) -> Result<DLDevice> {
    let info = device.info();
    match info.backend {
        BackendKind::Cuda => Ok(DLDevice {
            device_type: DEVICE_CUDA,
            device_id: info.ordinal as i32,
        }),
        BackendKind::OpenCl if info.host_unified => Ok(DLDevice {
            device_type: DEVICE_CPU,
            device_id: 0,
        }),
        BackendKind::OpenCl => Ok(DLDevice {
            device_type: DEVICE_OPENCL,
            device_id: info.ordinal as i32,
        }),
    }
}

/// What an exported tensor owns: its header (either ABI), the shape and strides it points
/// at, and the array keeping the memory alive.
struct Export<M> {
    managed: M,
    shape: Vec<i64>,
    strides: Vec<i64>,
    _array: Array,
}

unsafe extern "C" fn delete_export(managed: *mut DLManagedTensor) {
    if !managed.is_null() {
        // `manager_ctx` is the Box<Export> made by `export`.
        drop(Box::from_raw(
            (*managed).manager_ctx as *mut Export<DLManagedTensor>,
        ));
    }
}

unsafe extern "C" fn delete_versioned(managed: *mut DLManagedTensorVersioned) {
    if !managed.is_null() {
        drop(Box::from_raw(
            (*managed).manager_ctx as *mut Export<DLManagedTensorVersioned>,
        ));
    }
}

/// `array` described as a DLPack tensor (shape and strides still to be pointed at), with its
/// shape and strides in elements.
fn describe(array: &Array) -> Result<(DLTensor, Vec<i64>, Vec<i64>)> {
    let code = array.dtype().dlpack_code()?;
    let device = dlpack_device(array.device())?;
    if device.device_type == DEVICE_OPENCL {
        return Err(Error::Value(format!(
            "arrays on the OpenCL device {} cannot be exported through DLPack (its memory is an OpenCL buffer, which NumPy, CuPy and PyTorch cannot read); copy them with get()",
            array.device().info().name
        )));
    }
    let itemsize = array.dtype().itemsize() as isize;
    let dtype = array.dtype();
    let tensor = DLTensor {
        data: array.address() as *mut c_void,
        device,
        ndim: array.ndim() as i32,
        dtype: DLDataType {
            code,
            bits: (dtype.itemsize() * 8) as u8,
            lanes: 1,
        },
        shape: std::ptr::null_mut(),
        strides: std::ptr::null_mut(),
        byte_offset: 0,
    };
    let shape = array.shape().iter().map(|&d| d as i64).collect();
    let strides = array
        .strides()
        .iter()
        .map(|&s| (s / itemsize) as i64)
        .collect();
    Ok((tensor, shape, strides))
}

/// Boxes `export`, points its tensor at its shape and strides and its context at itself;
/// `parts` gives the header's tensor and context fields.
fn boxed<M>(
    export: Export<M>,
    parts: impl Fn(&mut M) -> (&mut DLTensor, &mut *mut c_void),
) -> *mut M {
    let raw = Box::into_raw(Box::new(export));
    // SAFETY: `raw` is a fresh, valid box; its vectors are not moved again.
    unsafe {
        let (shape, strides) = ((*raw).shape.as_mut_ptr(), (*raw).strides.as_mut_ptr());
        let (tensor, ctx) = parts(&mut (*raw).managed);
        tensor.shape = shape;
        tensor.strides = strides;
        *ctx = raw as *mut c_void;
        &mut (*raw).managed
    }
}

/// A DLPack tensor viewing `array`; the consumer calls its deleter when done.
pub fn export(array: &Array) -> Result<*mut DLManagedTensor> {
    let (dl_tensor, shape, strides) = describe(array)?;
    let export = Export {
        managed: DLManagedTensor {
            dl_tensor,
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete_export),
        },
        shape,
        strides,
        _array: array.clone(),
    };
    Ok(boxed(export, |m| (&mut m.dl_tensor, &mut m.manager_ctx)))
}

/// A DLPack 1.0 tensor viewing `array`, its flags saying whether it was `copied` for the
/// export; the consumer calls its deleter when done.
pub fn export_versioned(array: &Array, copied: bool) -> Result<*mut DLManagedTensorVersioned> {
    let (dl_tensor, shape, strides) = describe(array)?;
    let export = Export {
        managed: DLManagedTensorVersioned {
            version: VERSION,
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete_versioned),
            flags: if copied { FLAG_IS_COPIED } else { 0 },
            dl_tensor,
        },
        shape,
        strides,
        _array: array.clone(),
    };
    Ok(boxed(export, |m| (&mut m.dl_tensor, &mut m.manager_ctx)))
}

/// An array viewing a DLPack tensor without copying. `owner` must call the tensor's deleter
/// when dropped.
///
/// # Safety
/// `tensor` must be a valid DLPack tensor that stays valid until `owner` is dropped.
pub unsafe fn import(
    tensor: &DLTensor,
    device: &'static Device,
    owner: Box<dyn Any + Send + Sync>,
) -> Result<Array> {
    let info = device.info();
    let accepted = match info.backend {
        BackendKind::Cuda => {
            tensor.device.device_type == DEVICE_CUDA
                && tensor.device.device_id as usize == info.ordinal
        }
        BackendKind::OpenCl => info.host_unified && tensor.device.device_type == DEVICE_CPU,
    };
    if !accepted {
        return Err(Error::Value(format!(
            "a DLPack tensor on device (type {}, id {}) cannot be viewed on {} ({} backend); copy it with ember.asarray",
            tensor.device.device_type,
            tensor.device.device_id,
            info.name,
            info.backend.name()
        )));
    }
    let dtype = DType::from_dlpack(tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes)?;
    let ndim = tensor.ndim.max(0) as usize;
    let shape: Vec<usize> = if ndim == 0 {
        Vec::new()
    } else {
        std::slice::from_raw_parts(tensor.shape, ndim)
            .iter()
            .map(|&d| d.max(0) as usize)
            .collect()
    };
    let strides: Option<Vec<isize>> = (!tensor.strides.is_null() && ndim > 0).then(|| {
        std::slice::from_raw_parts(tensor.strides, ndim)
            .iter()
            .map(|&s| s as isize * dtype.itemsize() as isize)
            .collect()
    });
    let address = (tensor.data as u64).wrapping_add(tensor.byte_offset);
    Array::from_foreign(
        device,
        address,
        &shape,
        strides.as_deref(),
        dtype,
        Some(owner),
    )
}
