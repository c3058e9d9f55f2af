//! Pinned host staging for copies between pageable host memory and the device.
//!
//! A large copy is cut into chunks that go through a ring of pinned buffers: while the DMA
//! engine moves one chunk, host threads copy the next into (or out of) another buffer. That
//! keeps both the PCIe link and host memory busy, which pageable copies through the driver
//! do not.

use std::ffi::c_void;

use cudarc::driver::{result, sys};
use ember_core::Result;

use super::driver_error;

/// Bytes per chunk.
pub const CHUNK: usize = 16 << 20;
/// Copies below this size go straight through the driver.
pub const THRESHOLD: usize = 4 << 20;
const RING: usize = 3;

/// A ring of pinned buffers, each with the event marking when the device is done with it.
pub struct Staging {
    buffers: Vec<(*mut u8, sys::CUevent)>,
}

// The buffers are owned by this struct and used under the device's lock.
unsafe impl Send for Staging {}

impl Staging {
    pub fn new() -> Result<Staging> {
        let mut buffers = Vec::with_capacity(RING);
        for _ in 0..RING {
            let host = unsafe { result::malloc_host(CHUNK, 0) }
                .map_err(|e| driver_error("cuMemHostAlloc", e))?;
            let event = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .map_err(|e| driver_error("cuEventCreate", e))?;
            buffers.push((host as *mut u8, event));
        }
        Ok(Staging { buffers })
    }

    /// Host to device through the ring; returns once `src` has been read.
    pub fn htod(&mut self, dst: sys::CUdeviceptr, src: &[u8], stream: sys::CUstream) -> Result<()> {
        for (i, chunk) in src.chunks(CHUNK).enumerate() {
            let (buf, event) = self.buffers[i % RING];
            unsafe { result::event::synchronize(event) }
                .map_err(|e| driver_error("cuEventSynchronize", e))?;
            let staged = unsafe { std::slice::from_raw_parts_mut(buf, chunk.len()) };
            parallel_copy(staged, chunk);
            unsafe {
                result::memcpy_htod_async(dst + (i * CHUNK) as u64, &*staged, stream)
                    .map_err(|e| driver_error("cuMemcpyHtoDAsync", e))?;
                result::event::record(event, stream)
                    .map_err(|e| driver_error("cuEventRecord", e))?;
            }
        }
        Ok(())
    }

    /// Device to host through the ring, after the work queued on `stream`.
    pub fn dtoh(
        &mut self,
        dst: &mut [u8],
        src: sys::CUdeviceptr,
        stream: sys::CUstream,
    ) -> Result<()> {
        let chunks: Vec<(usize, usize)> = (0..dst.len())
            .step_by(CHUNK)
            .map(|start| (start, CHUNK.min(dst.len() - start)))
            .collect();
        let issue = |k: usize, buffers: &[(*mut u8, sys::CUevent)]| -> Result<()> {
            let (start, len) = chunks[k];
            let (buf, event) = buffers[k % RING];
            unsafe {
                let staged = std::slice::from_raw_parts_mut(buf, len);
                result::memcpy_dtoh_async(staged, src + start as u64, stream)
                    .map_err(|e| driver_error("cuMemcpyDtoHAsync", e))?;
                result::event::record(event, stream).map_err(|e| driver_error("cuEventRecord", e))
            }
        };
        for k in 0..chunks.len().min(RING) {
            issue(k, &self.buffers)?;
        }
        for k in 0..chunks.len() {
            let (start, len) = chunks[k];
            let (buf, event) = self.buffers[k % RING];
            unsafe { result::event::synchronize(event) }
                .map_err(|e| driver_error("cuEventSynchronize", e))?;
            let staged = unsafe { std::slice::from_raw_parts(buf as *const u8, len) };
            parallel_copy(&mut dst[start..start + len], staged);
            if k + RING < chunks.len() {
                issue(k + RING, &self.buffers)?;
            }
        }
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        for &(buf, event) in &self.buffers {
            unsafe {
                let _ = result::event::synchronize(event);
                let _ = result::event::destroy(event);
                let _ = result::free_host(buf as *mut c_void);
            }
        }
    }
}

/// `dst.copy_from_slice(src)` on the rayon pool's threads: one core cannot keep up with the DMA
/// engine, nor fault in fresh host pages fast enough (a new NumPy array's first touch).
fn parallel_copy(dst: &mut [u8], src: &[u8]) {
    use rayon::prelude::*;
    const PIECE: usize = 1 << 20;
    if src.len() < 2 * PIECE {
        dst.copy_from_slice(src);
        return;
    }
    dst.par_chunks_mut(PIECE)
        .zip(src.par_chunks(PIECE))
        .for_each(|(d, s)| d.copy_from_slice(s));
}
