//! DLPack: sharing arrays with other libraries without copying.
//!
//! The structs follow `dlpack.h` (v0.8, the unversioned ABI every consumer accepts).

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

/// What a [`DLManagedTensor`] from ember owns.
struct Export {
    managed: DLManagedTensor,
    shape: Vec<i64>,
    strides: Vec<i64>,
    _array: Array,
}

unsafe extern "C" fn delete_export(managed: *mut DLManagedTensor) {
    if !managed.is_null() {
        // `manager_ctx` is the Box<Export> made by `export`.
        drop(Box::from_raw((*managed).manager_ctx as *mut Export));
    }
}

/// A DLPack tensor viewing `array`; the consumer calls its deleter when done.
pub fn export(array: &Array) -> Result<*mut DLManagedTensor> {
    let device = dlpack_device(array.device())?;
    if device.device_type == DEVICE_OPENCL {
        return Err(Error::Value(format!(
            "arrays on the OpenCL device {} cannot be exported through DLPack (its memory is an OpenCL buffer, which NumPy, CuPy and PyTorch cannot read); copy them with get()",
            array.device().info().name
        )));
    }
    let itemsize = array.dtype().itemsize() as isize;
    let dtype = array.dtype();
    let mut export = Box::new(Export {
        managed: DLManagedTensor {
            dl_tensor: DLTensor {
                data: array.address() as *mut c_void,
                device,
                ndim: array.ndim() as i32,
                dtype: DLDataType {
                    code: dtype.dlpack_code(),
                    bits: (dtype.itemsize() * 8) as u8,
                    lanes: 1,
                },
                shape: std::ptr::null_mut(),
                strides: std::ptr::null_mut(),
                byte_offset: 0,
            },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete_export),
        },
        shape: array.shape().iter().map(|&d| d as i64).collect(),
        strides: array
            .strides()
            .iter()
            .map(|&s| (s / itemsize) as i64)
            .collect(),
        _array: array.clone(),
    });
    export.managed.dl_tensor.shape = export.shape.as_mut_ptr();
    export.managed.dl_tensor.strides = export.strides.as_mut_ptr();
    let raw = Box::into_raw(export);
    unsafe {
        (*raw).managed.manager_ctx = raw as *mut c_void;
        Ok(&mut (*raw).managed)
    }
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
