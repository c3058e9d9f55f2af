//! OpenCL-only objects for `ember.cl`: images, samplers, compiled program objects and the
//! raw handles PyOpenCL calls `int_ptr`. Host memory is passed as (address, byte count) by
//! the Python side, which checks it, as `NativeArray.to_host` takes it.

use ember_runtime::opencl::{check_region, ClDevice, ImageRegion, ImageShape};
use ember_runtime::{Device, Handle};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::array::NativeArray;
use crate::errors::IntoPyResult;
use crate::kernel::NativeModule;

fn device(ordinal: usize) -> PyResult<&'static Device> {
    ember_runtime::device(ordinal).py()
}

fn on<T>(
    dev: &Device,
    what: &str,
    f: impl FnOnce(&ClDevice) -> ember_core::Result<T>,
) -> PyResult<T> {
    dev.opencl(what, f).py()
}

fn region(origin: [usize; 3], region: [usize; 3]) -> PyResult<ImageRegion> {
    check_region(&region).py()?;
    Ok(ImageRegion { origin, region })
}

/// An OpenCL object of one device, released when the last Python reference goes.
struct Owned {
    device: &'static Device,
    handle: Handle,
    what: &'static str,
    release: fn(&ClDevice, Handle),
}

impl Owned {
    fn new(
        device: &'static Device,
        handle: Handle,
        what: &'static str,
        release: fn(&ClDevice, Handle),
    ) -> Owned {
        Owned {
            device,
            handle,
            what,
            release,
        }
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = self.device.opencl(self.what, |cl| {
            (self.release)(cl, self.handle);
            Ok(())
        });
    }
}

/// An OpenCL image.
#[pyclass(name = "ClImage", module = "ember._ember", frozen)]
pub struct NativeImage(Owned);

#[pymethods]
impl NativeImage {
    /// The `cl_mem` handle (PyOpenCL's `int_ptr`).
    #[getter]
    fn handle(&self) -> Handle {
        self.0.handle
    }

    #[getter]
    fn device(&self) -> usize {
        self.0.device.info().ordinal
    }

    /// The raw bytes of a `clGetImageInfo` parameter.
    fn info<'py>(&self, py: Python<'py>, param: u32) -> PyResult<Bound<'py, PyBytes>> {
        let raw = on(self.0.device, "images", |cl| {
            cl.image_info(self.0.handle, param)
        })?;
        Ok(PyBytes::new(py, &raw))
    }

    /// Reads `region` pixels from `origin` into host memory at `address` (`nbytes`, rows
    /// `row_pitch` apart, slices `slice_pitch`; 0: packed).
    #[allow(clippy::too_many_arguments)]
    fn read(
        &self,
        py: Python<'_>,
        origin: [usize; 3],
        extent: [usize; 3],
        row_pitch: usize,
        slice_pitch: usize,
        address: usize,
        nbytes: usize,
        stream: Handle,
    ) -> PyResult<()> {
        let at = region(origin, extent)?;
        let (dev, image) = (self.0.device, self.0.handle);
        py.detach(|| {
            let host = unsafe { std::slice::from_raw_parts_mut(address as *mut u8, nbytes) };
            on(dev, "images", |cl| {
                cl.read_image(image, &at, (row_pitch, slice_pitch), host, stream)
            })
        })
    }

    /// Writes host memory at `address` into `region` pixels from `origin`.
    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        py: Python<'_>,
        origin: [usize; 3],
        extent: [usize; 3],
        row_pitch: usize,
        slice_pitch: usize,
        address: usize,
        nbytes: usize,
        stream: Handle,
    ) -> PyResult<()> {
        let at = region(origin, extent)?;
        let (dev, image) = (self.0.device, self.0.handle);
        py.detach(|| {
            let host = unsafe { std::slice::from_raw_parts(address as *const u8, nbytes) };
            on(dev, "images", |cl| {
                cl.write_image(image, &at, (row_pitch, slice_pitch), host, stream)
            })
        })
    }

    /// Copies `extent` pixels from `src_origin` of this image to `dst` at `dst_origin`.
    fn copy_to(
        &self,
        dst: &NativeImage,
        src_origin: [usize; 3],
        dst_origin: [usize; 3],
        extent: [usize; 3],
        stream: Handle,
    ) -> PyResult<()> {
        check_region(&extent).py()?;
        on(self.0.device, "images", |cl| {
            cl.copy_image(
                self.0.handle,
                dst.0.handle,
                src_origin,
                dst_origin,
                extent,
                stream,
            )
        })
    }

    /// Copies `extent` pixels from `origin` into `buffer` (an ember byte array) from byte
    /// `offset`, packed.
    fn copy_to_buffer(
        &self,
        buffer: &NativeArray,
        offset: usize,
        origin: [usize; 3],
        extent: [usize; 3],
        stream: Handle,
    ) -> PyResult<()> {
        let at = region(origin, extent)?;
        let memory = buffer.0.buffer().handle().py()?;
        let offset = buffer.0.offset() + offset;
        on(self.0.device, "images", |cl| {
            cl.copy_image_to_buffer(self.0.handle, &at, memory, offset, stream)
        })
    }

    /// Copies packed pixels from `buffer` at byte `offset` into `extent` pixels from `origin`.
    fn copy_from_buffer(
        &self,
        buffer: &NativeArray,
        offset: usize,
        origin: [usize; 3],
        extent: [usize; 3],
        stream: Handle,
    ) -> PyResult<()> {
        let at = region(origin, extent)?;
        let memory = buffer.0.buffer().handle().py()?;
        let offset = buffer.0.offset() + offset;
        on(self.0.device, "images", |cl| {
            cl.copy_buffer_to_image(memory, offset, self.0.handle, &at, stream)
        })
    }

    /// Fills `extent` pixels from `origin` with `color` (16 bytes: four floats, ints or uints).
    fn fill(
        &self,
        color: [u8; 16],
        origin: [usize; 3],
        extent: [usize; 3],
        stream: Handle,
    ) -> PyResult<()> {
        let at = region(origin, extent)?;
        on(self.0.device, "images", |cl| {
            cl.fill_image(self.0.handle, &color, &at, stream)
        })
    }
}

/// A new image on device `ordinal`; `address`/`nbytes` is host data to copy in (0, 0: none);
/// `buffer` is the memory a 1-D buffer image views.
#[pyfunction]
#[pyo3(signature = (ordinal, flags, format, image_type, size, array_size, pitches, address, nbytes, buffer=None))]
#[allow(clippy::too_many_arguments)]
fn cl_create_image(
    ordinal: usize,
    flags: u64,
    format: (u32, u32),
    image_type: u32,
    size: [usize; 3],
    array_size: usize,
    pitches: (usize, usize),
    address: usize,
    nbytes: usize,
    buffer: Option<PyRef<'_, NativeArray>>,
) -> PyResult<NativeImage> {
    let dev = device(ordinal)?;
    let buffer = match buffer {
        None => 0,
        Some(b) if b.0.offset() == 0 => b.0.buffer().handle().py()?,
        Some(_) => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "an image can view only a whole buffer, not a sub-buffer",
            ))
        }
    };
    let shape = ImageShape {
        image_type,
        width: size[0],
        height: size[1],
        depth: size[2],
        array_size,
        row_pitch: pitches.0,
        slice_pitch: pitches.1,
        buffer,
    };
    let host =
        (address != 0).then(|| unsafe { std::slice::from_raw_parts(address as *const u8, nbytes) });
    let handle = on(dev, "images", |cl| {
        cl.create_image(flags, format, &shape, host)
    })?;
    Ok(NativeImage(Owned::new(
        dev,
        handle,
        "images",
        ClDevice::release_mem_object,
    )))
}

/// The (channel order, channel type) pairs device `ordinal` supports.
#[pyfunction]
fn cl_supported_image_formats(
    ordinal: usize,
    flags: u64,
    image_type: u32,
) -> PyResult<Vec<(u32, u32)>> {
    on(device(ordinal)?, "images", |cl| {
        cl.supported_image_formats(flags, image_type)
    })
}

/// An OpenCL sampler.
#[pyclass(name = "ClSampler", module = "ember._ember", frozen)]
pub struct NativeSampler(Owned);

#[pymethods]
impl NativeSampler {
    #[new]
    fn new(ordinal: usize, normalized: bool, addressing: u32, filter: u32) -> PyResult<Self> {
        let dev = device(ordinal)?;
        let handle = on(dev, "samplers", |cl| {
            cl.create_sampler(normalized, addressing, filter)
        })?;
        Ok(NativeSampler(Owned::new(
            dev,
            handle,
            "samplers",
            ClDevice::release_sampler,
        )))
    }

    /// The `cl_sampler` handle (PyOpenCL's `int_ptr`).
    #[getter]
    fn handle(&self) -> Handle {
        self.0.handle
    }

    /// The raw bytes of a `clGetSamplerInfo` parameter.
    fn info<'py>(&self, py: Python<'py>, param: u32) -> PyResult<Bound<'py, PyBytes>> {
        let raw = on(self.0.device, "samplers", |cl| {
            cl.sampler_info(self.0.handle, param)
        })?;
        Ok(PyBytes::new(py, &raw))
    }
}

/// A compiled (not yet linked) OpenCL program object.
#[pyclass(name = "ClObject", module = "ember._ember", frozen)]
pub struct NativeObject(Owned);

#[pymethods]
impl NativeObject {
    /// Compiles `source` on device `ordinal`; `headers` are (include name, source) pairs.
    #[new]
    fn new(
        py: Python<'_>,
        ordinal: usize,
        source: String,
        options: Vec<String>,
        headers: Vec<(String, String)>,
    ) -> PyResult<Self> {
        let dev = device(ordinal)?;
        let handle = py.detach(|| {
            on(dev, "compiled programs", |cl| {
                cl.compile_object(&source, &options, &headers)
            })
        })?;
        Ok(NativeObject(Owned::new(
            dev,
            handle,
            "compiled programs",
            ClDevice::release_program,
        )))
    }

    #[getter]
    fn handle(&self) -> Handle {
        self.0.handle
    }
}

/// Links compiled objects of device `ordinal` into a module; `source` (the objects' sources
/// together) is where its kernels' parameter types are read from.
#[pyfunction]
fn cl_link(
    py: Python<'_>,
    ordinal: usize,
    objects: Vec<PyRef<'_, NativeObject>>,
    options: Vec<String>,
    source: String,
) -> PyResult<NativeModule> {
    let dev = device(ordinal)?;
    if let Some(other) = objects.iter().find(|o| !std::ptr::eq(o.0.device, dev)) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "a program compiled for device {} cannot be linked on device {ordinal}",
            other.0.device.info().ordinal
        )));
    }
    let handles: Vec<Handle> = objects.iter().map(|o| o.0.handle).collect();
    let module = py.detach(|| {
        on(dev, "linked programs", |cl| {
            cl.link_objects(&handles, &options)
        })
    })?;
    Ok(NativeModule::plain(dev.module_from_handle(module, &source)))
}

/// A new shared-virtual-memory allocation of `bytes` on device `ordinal`: its address.
#[pyfunction]
fn cl_svm_alloc(ordinal: usize, flags: u64, bytes: usize, alignment: u32) -> PyResult<u64> {
    on(device(ordinal)?, "SVM allocations", |cl| {
        cl.svm_alloc(flags, bytes, alignment)
    })
}

/// Frees an SVM allocation (after the device's queued work).
#[pyfunction]
fn cl_svm_free(py: Python<'_>, ordinal: usize, address: u64) -> PyResult<()> {
    let dev = device(ordinal)?;
    py.detach(|| on(dev, "SVM allocations", |cl| cl.svm_free(address)))
}

/// Copies `bytes` from address `src` to `dst` (SVM or host memory) on `stream`; done on return.
#[pyfunction]
fn cl_svm_memcpy(
    py: Python<'_>,
    ordinal: usize,
    dst: u64,
    src: u64,
    bytes: usize,
    stream: Handle,
) -> PyResult<()> {
    let dev = device(ordinal)?;
    py.detach(|| {
        on(dev, "SVM allocations", |cl| {
            cl.svm_memcpy(dst, src, bytes, stream)
        })
    })
}

/// Fills `bytes` at `address` with `pattern` on `stream`.
#[pyfunction]
fn cl_svm_fill(
    ordinal: usize,
    address: u64,
    pattern: Vec<u8>,
    bytes: usize,
    stream: Handle,
) -> PyResult<()> {
    on(device(ordinal)?, "SVM allocations", |cl| {
        cl.svm_fill(address, &pattern, bytes, stream)
    })
}

/// Maps (`unmap` false, with `map_flags`) or unmaps SVM memory for the host on `stream`.
#[pyfunction]
fn cl_svm_map(
    py: Python<'_>,
    ordinal: usize,
    address: u64,
    bytes: usize,
    flags: u64,
    unmap: bool,
    stream: Handle,
) -> PyResult<()> {
    let dev = device(ordinal)?;
    py.detach(|| {
        on(dev, "SVM allocations", |cl| match unmap {
            true => cl.svm_unmap(address, stream),
            false => cl.svm_map(address, bytes, flags, stream),
        })
    })
}

/// Migrates (address, bytes) spans of SVM memory with `flags` on `stream`.
#[pyfunction]
fn cl_svm_migrate(
    ordinal: usize,
    spans: Vec<(u64, usize)>,
    flags: u64,
    stream: Handle,
) -> PyResult<()> {
    on(device(ordinal)?, "SVM allocations", |cl| {
        cl.svm_migrate(&spans, flags, stream)
    })
}

/// The raw handles of device `ordinal`: (platform, device, context).
#[pyfunction]
fn cl_handles(ordinal: usize) -> PyResult<(usize, usize, usize)> {
    on(device(ordinal)?, "raw handles", |cl| Ok(cl.raw_handles()))
}

impl NativeImage {
    pub(crate) fn raw(&self) -> Handle {
        self.0.handle
    }
}

impl NativeSampler {
    pub(crate) fn raw(&self) -> Handle {
        self.0.handle
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeImage>()?;
    m.add_class::<NativeSampler>()?;
    m.add_class::<NativeObject>()?;
    m.add_function(wrap_pyfunction!(cl_create_image, m)?)?;
    m.add_function(wrap_pyfunction!(cl_supported_image_formats, m)?)?;
    m.add_function(wrap_pyfunction!(cl_link, m)?)?;
    m.add_function(wrap_pyfunction!(cl_handles, m)?)?;
    for f in [
        wrap_pyfunction!(cl_svm_alloc, m)?,
        wrap_pyfunction!(cl_svm_free, m)?,
        wrap_pyfunction!(cl_svm_memcpy, m)?,
        wrap_pyfunction!(cl_svm_fill, m)?,
        wrap_pyfunction!(cl_svm_map, m)?,
        wrap_pyfunction!(cl_svm_migrate, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
