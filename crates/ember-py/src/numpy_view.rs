//! A NumPy array's memory read from its object in place: the fields of `PyArrayObject` and
//! `PyArray_Descr` that NumPy 1.x and 2.x keep at the same offsets (NumPy's stable C ABI, as
//! rust-numpy reads them). The hot path of every `@njit` call with arrays: no attribute
//! lookups, no `__array_interface__` dictionary.

use ember_core::DType;
use pyo3::prelude::*;

/// What a call needs of an array: its fields, pointing into the array object (alive while the
/// caller holds it), so reading one copies nothing.
pub(crate) struct HostView {
    pub data: *mut u8,
    pub dtype: DType,
    pub ndim: usize,
    dimensions: *const isize,
    strides: *const isize,
    pub c_contiguous: bool,
    pub writeable: bool,
}

impl HostView {
    pub fn shape(&self) -> &[isize] {
        // NumPy keeps `ndim` extents there (none for a 0-d array, whose pointer may be null).
        if self.ndim == 0 {
            return &[];
        }
        unsafe { std::slice::from_raw_parts(self.dimensions, self.ndim) }
    }

    pub fn strides(&self) -> &[isize] {
        if self.ndim == 0 {
            return &[];
        }
        unsafe { std::slice::from_raw_parts(self.strides, self.ndim) }
    }
}

// `PyArrayObject_fields` after PyObject_HEAD (two pointers).
#[repr(C)]
struct ArrayFields {
    ob_refcnt: isize,
    ob_type: *mut pyo3::ffi::PyTypeObject,
    data: *mut u8,
    nd: i32,
    dimensions: *const isize,
    strides: *const isize,
    base: *mut pyo3::ffi::PyObject,
    descr: *const DescrFields,
    flags: i32,
}

// `PyArray_Descr` up to `type_num`, the same in NumPy 1.x and 2.x.
#[repr(C)]
struct DescrFields {
    ob_refcnt: isize,
    ob_type: *mut pyo3::ffi::PyTypeObject,
    typeobj: *mut pyo3::ffi::PyTypeObject,
    kind: u8,
    type_: u8,
    byteorder: u8,
    former_flags: u8,
    type_num: i32,
}

const NPY_ARRAY_C_CONTIGUOUS: i32 = 0x0001;
const NPY_ARRAY_WRITEABLE: i32 = 0x0400;

/// The dtype of NumPy's type number on this platform (LP64: `long` is 64 bits).
fn dtype_of_type_num(n: i32) -> Option<DType> {
    Some(match n {
        0 => DType::Bool,
        1 => DType::I8,
        2 => DType::U8,
        3 => DType::I16,
        4 => DType::U16,
        5 => DType::I32,
        6 => DType::U32,
        7 | 9 => DType::I64,
        8 | 10 => DType::U64,
        11 => DType::F32,
        12 => DType::F64,
        14 => DType::C64,
        15 => DType::C128,
        _ => return None,
    })
}

/// The memory of `value`, which the caller has checked is a `numpy.ndarray` (or a subclass),
/// or why it cannot be passed.
pub(crate) fn host_view(value: &Bound<'_, PyAny>) -> Result<HostView, String> {
    // An ndarray's object starts with these fields; the caller checked the type.
    let a = unsafe { &*(value.as_ptr() as *const ArrayFields) };
    let descr = unsafe { &*a.descr };
    let dtype = dtype_of_type_num(descr.type_num).ok_or_else(|| {
        let name = value
            .getattr("dtype")
            .map(|d| d.to_string())
            .unwrap_or_else(|_| "this dtype".into());
        format!("arrays of dtype {name} are not supported by functions compiled for the CPU")
    })?;
    if descr.byteorder == b'>' {
        return Err("arrays in non-native byte order cannot be passed: convert with a.astype(a.dtype.newbyteorder('='))".into());
    }
    Ok(HostView {
        data: a.data,
        dtype,
        ndim: a.nd.max(0) as usize,
        dimensions: a.dimensions,
        strides: a.strides,
        c_contiguous: a.flags & NPY_ARRAY_C_CONTIGUOUS != 0,
        writeable: a.flags & NPY_ARRAY_WRITEABLE != 0,
    })
}
