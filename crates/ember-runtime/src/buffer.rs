//! Device memory owned by arrays: a pool block, or memory someone else owns.

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};

use ember_core::{Error, Result};

use crate::backend::{Handle, KernelArg};
use crate::device::Device;
use crate::pool::Block;

enum Origin {
    /// From the device's pool; goes back to it, for reuse on `stream`.
    Pool { block: Block, stream: Handle },
    /// Borrowed (DLPack, `__cuda_array_interface__`, a NumPy array on a CPU device): `owner`
    /// keeps the memory alive and is dropped with the buffer.
    Foreign {
        _owner: Option<Box<dyn Any + Send + Sync>>,
    },
}

/// A span of device memory. Arrays share it through `Arc<Buffer>`.
pub struct Buffer {
    device: &'static Device,
    handle: Handle,
    bytes: usize,
    origin: Origin,
    /// Set once the address has been handed out (DLPack, `data.ptr`): someone else may now
    /// write the memory behind ember's back, so work reading it is never delayed.
    exposed: AtomicBool,
    /// The device's epoch it was made in: memory of an older one was lost with its context.
    epoch: u64,
}

impl Buffer {
    /// `bytes` from the device's pool, for work on `stream`.
    pub fn allocate(device: &'static Device, bytes: usize, stream: Handle) -> Result<Buffer> {
        let block = device.allocate_block(bytes, stream)?;
        Ok(Buffer {
            device,
            handle: block.handle,
            bytes,
            origin: Origin::Pool { block, stream },
            exposed: AtomicBool::new(false),
            epoch: device.epoch(),
        })
    }

    /// Memory at `address` owned by `owner` (a device pointer on CUDA, a host pointer on a CPU
    /// OpenCL device). No copy is made.
    pub fn foreign(
        device: &'static Device,
        address: u64,
        bytes: usize,
        owner: Option<Box<dyn Any + Send + Sync>>,
    ) -> Result<Buffer> {
        let handle = device.backend().wrap_foreign(address, bytes)?;
        Ok(Buffer {
            device,
            handle,
            bytes,
            origin: Origin::Foreign { _owner: owner },
            exposed: AtomicBool::new(true),
            epoch: device.epoch(),
        })
    }

    pub fn device(&self) -> &'static Device {
        self.device
    }

    /// The backend's handle of the memory, for work on it: pending work is queued first.
    /// Memory of an older epoch is an error: it was lost with the device's context.
    pub fn handle(&self) -> Result<Handle> {
        crate::deferred::finish();
        if self.epoch != self.device.epoch() {
            return Err(lost_memory());
        }
        Ok(self.handle)
    }

    /// The memory as a kernel argument at byte `offset` (`Lost` if of an older epoch, which
    /// the launch refuses).
    pub fn arg(&self, offset: usize) -> KernelArg<'static> {
        match self.handle() {
            Ok(handle) => KernelArg::Buffer { handle, offset },
            Err(_) => KernelArg::Lost,
        }
    }

    /// Usable bytes (what was asked for).
    pub fn len(&self) -> usize {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// The address arrays expose (`data.ptr`, DLPack): the device pointer on CUDA, the host
    /// pointer on CPU devices, the handle otherwise.
    pub fn address(&self) -> u64 {
        crate::deferred::finish();
        // Whoever takes the address orders work by its own driver calls: issue ours first;
        // launches over this memory are not queued from now on.
        self.exposed.store(true, Ordering::Relaxed);
        self.device.backend().drain();
        self.layout_address()
    }

    /// The same address, only to check alignment: queues nothing, exposes nothing.
    pub fn layout_address(&self) -> u64 {
        match self.device.backend().host_pointer(self.handle) {
            Some(p) => p as u64,
            None => self.handle,
        }
    }

    /// True when memory may change outside ember's view: borrowed memory, or an address that
    /// has been handed out.
    pub fn is_exposed(&self) -> bool {
        self.exposed.load(Ordering::Relaxed)
    }

    /// True when this buffer came from the pool.
    pub fn is_pooled(&self) -> bool {
        matches!(self.origin, Origin::Pool { .. })
    }
}

/// The error for memory of an older epoch.
pub fn lost_memory() -> Error {
    Error::DeviceReset(
        "this array's memory is gone: its device faulted after it was made, and the device's context was replaced (see the DriverError raised then); compute the array again".into(),
    )
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if self.epoch != self.device.epoch() {
            return; // gone with its context: nothing to give back
        }
        match &self.origin {
            Origin::Pool { block, stream } => self.device.release_block(*block, *stream),
            Origin::Foreign { .. } => self.device.backend().release_foreign(self.handle),
        }
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Buffer({} bytes at {:#x} on {})",
            self.bytes,
            self.handle,
            self.device.info().name
        )
    }
}
