//! The array: shape, byte strides and an offset over a shared device buffer.

use std::any::Any;
use std::sync::Arc;

use ember_codegen::types::cast;
use ember_codegen::{Dialect, MapKernel, Operand};
use ember_core::shape::{extent, is_c_contiguous, is_f_contiguous, size_of};
use ember_core::{DType, Error, Result};
use ember_runtime::{current_stream, Buffer, Device, KernelArg};

use crate::launch::run_map;
use ember_kernel::dialect;

/// An n-dimensional array on one device. Cloning makes another view of the same memory.
#[derive(Debug)]
pub struct Array {
    buffer: Arc<Buffer>,
    /// Bytes from the buffer's start to element (0, ..., 0).
    offset: usize,
    /// Inline for up to 4 axes: making an array allocates nothing but its buffer.
    shape: Dims,
    /// Bytes between neighbours along each axis (may be negative or zero).
    strides: Strides,
    dtype: DType,
}

impl Clone for Array {
    /// Copies shape and strides as slices (a derived clone goes element by element: this is
    /// on every operation's path).
    fn clone(&self) -> Array {
        Array {
            buffer: self.buffer.clone(),
            offset: self.offset,
            shape: Dims::from_slice(&self.shape),
            strides: Strides::from_slice(&self.strides),
            dtype: self.dtype,
        }
    }
}

/// An array's shape (inline for the usual few axes).
pub type Dims = smallvec::SmallVec<[usize; 4]>;
/// An array's byte strides.
pub type Strides = smallvec::SmallVec<[isize; 4]>;

/// C-order strides in bytes, inline; all 0 for an array with no elements (NumPy 2.4 makes
/// empty arrays so: their strides address nothing).
fn c_strides_inline(shape: &[usize], itemsize: usize) -> Strides {
    let mut strides = Strides::from_elem(0, shape.len());
    if shape.contains(&0) {
        return strides;
    }
    let mut step = itemsize as isize;
    for (stride, &dim) in strides.iter_mut().zip(shape).rev() {
        *stride = step;
        step *= dim.max(1) as isize;
    }
    strides
}

fn checked_nbytes(shape: &[usize], dtype: DType) -> Result<usize> {
    shape
        .iter()
        .try_fold(dtype.itemsize(), |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| {
            Error::Value(format!(
                "array of shape {shape:?} and dtype {dtype} is too big to address"
            ))
        })
}

impl Array {
    /// An uninitialised C-contiguous array.
    pub fn empty(device: &'static Device, shape: &[usize], dtype: DType) -> Result<Array> {
        ember_core::shape::check_ndim(shape.len())?;
        let nbytes = checked_nbytes(shape, dtype)?;
        let buffer = Buffer::allocate(device, nbytes, current_stream(device))?;
        Ok(Array {
            buffer: Arc::new(buffer),
            offset: 0,
            shape: Dims::from_slice(shape),
            strides: c_strides_inline(shape, dtype.itemsize()),
            dtype,
        })
    }

    /// A view of memory someone else owns: `address` is element (0, ..., 0), `strides` in
    /// bytes. `owner` is kept alive as long as any view of the memory.
    pub fn from_foreign(
        device: &'static Device,
        address: u64,
        shape: &[usize],
        strides: Option<&[isize]>,
        dtype: DType,
        owner: Option<Box<dyn Any + Send + Sync>>,
    ) -> Result<Array> {
        checked_nbytes(shape, dtype)?;
        let strides = match strides {
            Some(s) if s.len() != shape.len() => {
                return Err(Error::Value(format!(
                    "{} strides given for a {}-d shape {shape:?}",
                    s.len(),
                    shape.len()
                )))
            }
            Some(s) => s.to_vec(),
            None => c_strides_inline(shape, dtype.itemsize()).to_vec(),
        };
        let (lo, hi) = extent(shape, &strides, dtype.itemsize());
        let start = address.wrapping_add_signed(lo as i64);
        let buffer = Buffer::foreign(device, start, (hi - lo).max(0) as usize, owner)?;
        Ok(Array {
            buffer: Arc::new(buffer),
            offset: (-lo) as usize,
            shape: Dims::from_slice(shape),
            strides: Strides::from_vec(strides),
            dtype,
        })
    }

    pub fn device(&self) -> &'static Device {
        self.buffer.device()
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    pub fn size(&self) -> usize {
        size_of(&self.shape)
    }

    pub fn nbytes(&self) -> usize {
        self.size() * self.dtype.itemsize()
    }

    /// Byte offset of element (0, ..., 0) in the buffer.
    pub fn offset(&self) -> usize {
        self.offset
    }

    pub fn buffer(&self) -> &Arc<Buffer> {
        &self.buffer
    }

    /// Address of element (0, ..., 0): a device pointer on CUDA, a host pointer on CPU devices.
    pub fn address(&self) -> u64 {
        self.buffer.address() + self.offset as u64
    }

    /// True when both are the same view: one buffer, offset, shape, strides and dtype.
    pub fn is_same_view(&self, other: &Array) -> bool {
        Arc::ptr_eq(&self.buffer, &other.buffer)
            && self.offset == other.offset
            && self.shape == other.shape
            && self.strides == other.strides
            && self.dtype == other.dtype
    }

    /// True when element (0, ..., 0) sits on a multiple of `bytes` (for vector loads; this
    /// neither queues pending work nor hands the address out).
    pub fn is_aligned(&self, bytes: u64) -> bool {
        (self.buffer.layout_address() + self.offset as u64).is_multiple_of(bytes)
    }

    pub fn is_c_contiguous(&self) -> bool {
        is_c_contiguous(&self.shape, &self.strides, self.dtype.itemsize())
    }

    pub fn is_f_contiguous(&self) -> bool {
        is_f_contiguous(&self.shape, &self.strides, self.dtype.itemsize())
    }

    /// True while only ember orders work on this memory: no pointer to it was handed out
    /// and it is not another library's (launches over it may be queued).
    pub fn is_private(&self) -> bool {
        !self.buffer.is_exposed()
    }

    /// Whether its elements could be device addresses (8-byte integers): a user's C kernel
    /// may follow them into memory other libraries use.
    pub fn may_hold_addresses(&self) -> bool {
        matches!(self.dtype, DType::I64 | DType::U64)
    }

    /// How a kernel receives this array.
    pub fn kernel_arg(&self) -> KernelArg<'static> {
        self.buffer.arg(self.offset)
    }

    /// Reinterprets the memory with another shape, strides and offset (a view). The caller
    /// keeps every element inside the buffer; this is checked.
    pub fn view(
        &self,
        shape: &[usize],
        strides: &[isize],
        offset: usize,
        dtype: DType,
    ) -> Result<Array> {
        if shape.len() != strides.len() {
            return Err(Error::Value(format!(
                "{} strides given for a {}-d shape",
                strides.len(),
                shape.len()
            )));
        }
        let (lo, hi) = extent(shape, strides, dtype.itemsize());
        let first = offset as isize + lo;
        let end = offset as isize + hi;
        if size_of(shape) > 0 && (first < 0 || end as usize > self.buffer.len()) {
            return Err(Error::Value(format!(
                "a view of shape {shape:?} with strides {strides:?} at offset {offset} reaches outside the {}-byte buffer",
                self.buffer.len()
            )));
        }
        Ok(Array {
            buffer: self.buffer.clone(),
            offset,
            shape: Dims::from_slice(shape),
            strides: Strides::from_slice(strides),
            dtype,
        })
    }

    /// A 1-d view of `len` elements from this array's first element, with no check that they
    /// lie inside the buffer: what a bug in planning a view would make. For tests of checked
    /// mode only (without it, kernels over this view touch memory outside the buffer).
    #[doc(hidden)]
    pub fn overhanging(&self, len: usize) -> Array {
        Array {
            buffer: self.buffer.clone(),
            offset: self.offset,
            shape: Dims::from_slice(&[len]),
            strides: Strides::from_slice(&[self.dtype.itemsize() as isize]),
            dtype: self.dtype,
        }
    }

    /// Copies C-ordered host bytes into this array.
    pub fn set_from_host(&self, src: &[u8]) -> Result<()> {
        if src.len() != self.nbytes() {
            return Err(Error::Value(format!(
                "cannot set an array of {} bytes (shape {:?}, {}) from {} bytes",
                self.nbytes(),
                self.shape,
                self.dtype,
                src.len()
            )));
        }
        if self.is_c_contiguous() {
            let device = self.device();
            return device
                .backend()
                .copy_htod(
                    self.buffer.handle()?,
                    self.offset,
                    src,
                    current_stream(device),
                )
                .map_err(|e| device.annotate(e));
        }
        let staged = Array::empty(self.device(), &self.shape, self.dtype)?;
        staged.set_from_host(src)?;
        staged.copy_into(self)
    }

    /// Copies this array to host bytes in C order.
    pub fn to_host(&self, dst: &mut [u8]) -> Result<()> {
        // Pending work that failed must not pass for data.
        ember_runtime::deferred::finish_and_check()?;
        if dst.len() != self.nbytes() {
            return Err(Error::Value(format!(
                "host buffer has {} bytes, the array {}",
                dst.len(),
                self.nbytes()
            )));
        }
        if !self.is_c_contiguous() {
            return self.copy()?.to_host(dst);
        }
        let device = self.device();
        device
            .backend()
            .copy_dtoh(
                dst,
                self.buffer.handle()?,
                self.offset,
                current_stream(device),
            )
            .map_err(|e| device.annotate(e))
    }

    /// A C-contiguous copy.
    pub fn copy(&self) -> Result<Array> {
        self.astype(self.dtype)
    }

    /// A C-contiguous copy converted to `dtype` (NumPy's `astype` rules for the conversion).
    pub fn astype(&self, dtype: DType) -> Result<Array> {
        let out = Array::empty(self.device(), &self.shape, dtype)?;
        self.copy_into(&out)?;
        Ok(out)
    }

    /// Writes this array's elements, converted, into `dst` of the same shape.
    pub fn copy_into(&self, dst: &Array) -> Result<()> {
        if self.shape != dst.shape {
            return Err(Error::Value(format!(
                "could not copy an array of shape {:?} into one of shape {:?}",
                self.shape, dst.shape
            )));
        }
        if !std::ptr::eq(self.device(), dst.device()) {
            return Err(Error::Value(format!(
                "the arrays are on different devices ({} and {}); copy through the host with get()",
                self.device().info().name,
                dst.device().info().name
            )));
        }
        if self.size() == 0 {
            return Ok(());
        }
        let device = self.device();
        if self.dtype == dst.dtype && self.is_c_contiguous() && dst.is_c_contiguous() {
            return device
                .backend()
                .copy_dtod(
                    dst.buffer.handle()?,
                    dst.offset,
                    self.buffer.handle()?,
                    self.offset,
                    self.nbytes(),
                    current_stream(device),
                )
                .map_err(|e| device.annotate(e));
        }
        if self.dtype.is_opaque() || dst.dtype.is_opaque() {
            return crate::opaque::copy_opaque(self, dst);
        }
        if self.dtype == dst.dtype && dst.is_c_contiguous() {
            if let Some((batch, rows, cols)) = crate::transpose::transposed_stack(self) {
                // A transposed view: tiles through local memory, both sides coalesced.
                let item = self.dtype.itemsize() as isize;
                let (r, c) = (rows as isize, cols as isize);
                let source = self.view(
                    &[batch, cols, rows],
                    &[r * c * item, r * item, item],
                    self.offset,
                    self.dtype,
                )?;
                let target = dst.view(
                    &[batch, rows, cols],
                    &[r * c * item, c * item, item],
                    dst.offset,
                    dst.dtype,
                )?;
                return crate::transpose::transpose_into(
                    &source,
                    &target,
                    crate::transpose::Keep::All,
                );
            }
        }
        let spec = copy_spec(self.dtype, dst.dtype, dialect(device));
        run_map(&spec, &[self, dst], &[], &self.shape)
    }
}

/// The kernel that copies `from` elements into `to` elements, converting.
pub fn copy_spec(from: DType, to: DType, dialect: Dialect) -> MapKernel {
    MapKernel {
        name: format!("ember_copy_{}_{}", from.name(), to.name()),
        inputs: vec![Operand::new("x", from)],
        outputs: vec![Operand::new("out", to)],
        scalars: vec![],
        body: format!("out = {};", cast("x", from, to, dialect)),
    }
}

/// The launch layer sees an array as an operand: its memory and layout.
impl ember_kernel::Operand for Array {
    fn device(&self) -> &'static Device {
        Array::device(self)
    }

    fn dtype(&self) -> DType {
        self.dtype
    }

    fn shape(&self) -> &[usize] {
        &self.shape
    }

    fn strides(&self) -> &[isize] {
        &self.strides
    }

    fn is_c_contiguous(&self) -> bool {
        Array::is_c_contiguous(self)
    }

    fn is_aligned(&self, bytes: u64) -> bool {
        Array::is_aligned(self, bytes)
    }

    fn is_private(&self) -> bool {
        Array::is_private(self)
    }

    fn kernel_arg(&self) -> KernelArg<'static> {
        Array::kernel_arg(self)
    }
}
