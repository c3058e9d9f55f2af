//! OpenCL images and samplers (PyOpenCL's `Image` and `Sampler`). ember's arrays never use
//! them; the `cl` face creates them, copies between them, host memory and buffers, and passes
//! them to kernels by handle. Commands go on a queue in its order, as buffer copies do.

use std::ffi::c_void;
use std::ptr;

use cl3::command_queue as cq;
use cl3::event as ev;
use cl3::memory::{self as mem, cl_image_desc, cl_image_format};
use cl3::sampler as smp;
use cl3::types::{cl_event, cl_mem, cl_sampler, CL_FALSE};
use ember_core::{Error, Result};

use super::cl_error;
use super::device::{h, p, ClDevice};
use super::in_flight::wait_for;
use crate::backend::Handle;

/// The shape of an image (`cl_image_desc` without mip-maps, samples or a backing buffer).
#[derive(Clone, Copy, Debug)]
pub struct ImageShape {
    /// `CL_MEM_OBJECT_IMAGE2D`, `..._IMAGE3D`, `..._IMAGE2D_ARRAY`, ...
    pub image_type: u32,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub array_size: usize,
    /// Pitches of `host` data at creation (0: tightly packed).
    pub row_pitch: usize,
    pub slice_pitch: usize,
    /// The buffer a 1-D buffer image views (0: none).
    pub buffer: Handle,
}

/// Where in an image a copy starts and how much it covers (pixels; unused axes 0 and 1).
#[derive(Clone, Copy, Debug)]
pub struct ImageRegion {
    pub origin: [usize; 3],
    pub region: [usize; 3],
}

impl ClDevice {
    /// The (channel order, channel type) pairs the device supports for `flags` and `image_type`.
    pub fn supported_image_formats(&self, flags: u64, image_type: u32) -> Result<Vec<(u32, u32)>> {
        mem::get_supported_image_formats(self.context(), flags, image_type)
            .map(|all| {
                all.iter()
                    .map(|f| (f.image_channel_order, f.image_channel_data_type))
                    .collect()
            })
            .map_err(|c| cl_error("clGetSupportedImageFormats", c))
    }

    /// A new image; `host` is read at creation when `flags` has `COPY_HOST_PTR` (ember never
    /// lets the driver keep a host pointer: the face copies for `USE_HOST_PTR`).
    pub fn create_image(
        &self,
        flags: u64,
        format: (u32, u32),
        shape: &ImageShape,
        host: Option<&[u8]>,
    ) -> Result<Handle> {
        let format = cl_image_format {
            image_channel_order: format.0,
            image_channel_data_type: format.1,
        };
        // Zeroed, then filled: the descriptor's last field is a union in some headers.
        let mut desc: cl_image_desc = unsafe { std::mem::zeroed() };
        desc.image_type = shape.image_type;
        desc.image_width = shape.width;
        desc.image_height = shape.height;
        desc.image_depth = shape.depth;
        desc.image_array_size = shape.array_size;
        desc.image_row_pitch = shape.row_pitch;
        desc.image_slice_pitch = shape.slice_pitch;
        desc.buffer = p::<c_void>(shape.buffer) as cl_mem;
        let host_ptr = host.map_or(ptr::null_mut(), |b| b.as_ptr() as *mut c_void);
        unsafe { mem::create_image(self.context(), flags, &format, &desc, host_ptr) }
            .map(h)
            .map_err(|c| cl_error("clCreateImage", c))
    }

    /// Drops ember's reference to an image or buffer object (OpenCL frees it once commands
    /// using it are done).
    pub fn release_mem_object(&self, object: Handle) {
        unsafe {
            let _ = mem::release_mem_object(p(object));
        }
    }

    /// The raw value of a `clGetImageInfo` parameter.
    pub fn image_info(&self, image: Handle, param: u32) -> Result<Vec<u8>> {
        mem::get_image_data(p(image), param).map_err(|c| cl_error("clGetImageInfo", c))
    }

    /// A new sampler.
    pub fn create_sampler(&self, normalized: bool, addressing: u32, filter: u32) -> Result<Handle> {
        #[allow(deprecated)]
        smp::create_sampler(self.context(), normalized as u32, addressing, filter)
            .map(h)
            .map_err(|c| cl_error("clCreateSampler", c))
    }

    pub fn release_sampler(&self, sampler: Handle) {
        unsafe {
            let _ = smp::release_sampler(p::<c_void>(sampler) as cl_sampler);
        }
    }

    /// The raw value of a `clGetSamplerInfo` parameter.
    pub fn sampler_info(&self, sampler: Handle, param: u32) -> Result<Vec<u8>> {
        smp::get_sampler_data(p::<c_void>(sampler) as cl_sampler, param)
            .map_err(|c| cl_error("clGetSamplerInfo", c))
    }

    /// Reads `at` of an image into `host` (rows `row_pitch` bytes apart, slices `slice_pitch`;
    /// 0: packed); returns when the data is there.
    pub fn read_image(
        &self,
        image: Handle,
        at: &ImageRegion,
        pitches: (usize, usize),
        host: &mut [u8],
        stream: Handle,
    ) -> Result<()> {
        self.order(stream)?;
        unsafe {
            cq::enqueue_read_image(
                p(stream),
                p(image),
                CL_FALSE,
                at.origin.as_ptr(),
                at.region.as_ptr(),
                pitches.0,
                pitches.1,
                host.as_mut_ptr().cast(),
                0,
                ptr::null(),
            )
            .map_err(|c| cl_error("clEnqueueReadImage", c))
            .and_then(|e| wait_for(p(stream), e, self.spin))
        }
    }

    /// Writes `host` into `at` of an image; returns when the host data may be reused.
    pub fn write_image(
        &self,
        image: Handle,
        at: &ImageRegion,
        pitches: (usize, usize),
        host: &[u8],
        stream: Handle,
    ) -> Result<()> {
        self.order(stream)?;
        unsafe {
            cq::enqueue_write_image(
                p(stream),
                p(image),
                CL_FALSE,
                at.origin.as_ptr(),
                at.region.as_ptr(),
                pitches.0,
                pitches.1,
                host.as_ptr() as *mut c_void,
                0,
                ptr::null(),
            )
            .map_err(|c| cl_error("clEnqueueWriteImage", c))
            .and_then(|e| wait_for(p(stream), e, self.spin))
        }
    }

    /// Copies `region` pixels from `src` at `src_origin` to `dst` at `dst_origin`.
    pub fn copy_image(
        &self,
        src: Handle,
        dst: Handle,
        src_origin: [usize; 3],
        dst_origin: [usize; 3],
        region: [usize; 3],
        stream: Handle,
    ) -> Result<()> {
        self.order(stream)?;
        let event = unsafe {
            cq::enqueue_copy_image(
                p(stream),
                p(src),
                p(dst),
                src_origin.as_ptr(),
                dst_origin.as_ptr(),
                region.as_ptr(),
                0,
                ptr::null(),
            )
        };
        self.queued(stream, event, "clEnqueueCopyImage")
    }

    /// Copies `at` of an image into a buffer from byte `offset`, packed.
    pub fn copy_image_to_buffer(
        &self,
        image: Handle,
        at: &ImageRegion,
        buffer: Handle,
        offset: usize,
        stream: Handle,
    ) -> Result<()> {
        self.order(stream)?;
        let event = unsafe {
            cq::enqueue_copy_image_to_buffer(
                p(stream),
                p(image),
                p::<c_void>(buffer) as cl_mem,
                at.origin.as_ptr(),
                at.region.as_ptr(),
                offset,
                0,
                ptr::null(),
            )
        };
        self.queued(stream, event, "clEnqueueCopyImageToBuffer")
    }

    /// Copies packed pixels from a buffer at byte `offset` into `at` of an image.
    pub fn copy_buffer_to_image(
        &self,
        buffer: Handle,
        offset: usize,
        image: Handle,
        at: &ImageRegion,
        stream: Handle,
    ) -> Result<()> {
        self.order(stream)?;
        let event = unsafe {
            cq::enqueue_copy_buffer_to_image(
                p(stream),
                p::<c_void>(buffer) as cl_mem,
                p(image),
                offset,
                at.origin.as_ptr(),
                at.region.as_ptr(),
                0,
                ptr::null(),
            )
        };
        self.queued(stream, event, "clEnqueueCopyBufferToImage")
    }

    /// Fills `at` of an image with one colour: four floats, ints or uints as the image's
    /// channel type reads them (16 bytes).
    pub fn fill_image(
        &self,
        image: Handle,
        color: &[u8; 16],
        at: &ImageRegion,
        stream: Handle,
    ) -> Result<()> {
        self.order(stream)?;
        let event = unsafe {
            cq::enqueue_fill_image(
                p(stream),
                p(image),
                color.as_ptr().cast(),
                at.origin.as_ptr(),
                at.region.as_ptr(),
                0,
                ptr::null(),
            )
        };
        self.queued(stream, event, "clEnqueueFillImage")
    }

    /// Accounts for a command just enqueued on `stream` (or reports why it was not).
    pub(super) fn queued(
        &self,
        stream: Handle,
        event: std::result::Result<cl_event, i32>,
        call: &str,
    ) -> Result<()> {
        let event = event.map_err(|c| cl_error(call, c))?;
        unsafe { ev::release_event(event) }.map_err(|c| cl_error("clReleaseEvent", c))?;
        self.enqueued_on(stream)
    }
}

/// A region with no pixels is a caller's mistake OpenCL reports obscurely; say it plainly.
pub fn check_region(region: &[usize; 3]) -> Result<()> {
    if region.contains(&0) {
        return Err(Error::Value(format!(
            "the image region {region:?} is empty: every extent must be at least 1 (use 1 for the axes an image does not have)"
        )));
    }
    Ok(())
}
