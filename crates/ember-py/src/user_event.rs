//! OpenCL user events for `ember.cl.UserEvent`: the host completes them, and commands made to
//! wait for them (`wait_on`) run after that.

use ember_runtime::{Device, Handle};
use pyo3::prelude::*;

use crate::errors::IntoPyResult;

#[pyclass(name = "UserEvent", module = "ember._ember", frozen)]
pub struct NativeUserEvent {
    device: &'static Device,
    handle: Handle,
}

#[pymethods]
impl NativeUserEvent {
    #[new]
    fn new(ordinal: usize) -> PyResult<Self> {
        let device = ember_runtime::device(ordinal).py()?;
        let handle = device.backend().create_user_event().py()?;
        Ok(NativeUserEvent { device, handle })
    }

    /// The `cl_event` handle.
    #[getter]
    fn handle(&self) -> Handle {
        self.handle
    }

    /// Completes the event (`status` 0) or fails it (a negative status).
    fn set_status(&self, status: i32) -> PyResult<()> {
        self.device
            .backend()
            .set_user_event_status(self.handle, status)
            .py()
    }

    /// Waits until the host has completed the event.
    fn wait(&self, py: Python<'_>) -> PyResult<()> {
        let backend = self.device.backend();
        let handle = self.handle;
        py.detach(|| backend.synchronize_event(handle)).py()
    }

    /// Whether the event is complete.
    fn done(&self) -> PyResult<bool> {
        self.device.backend().query_event(self.handle).py()
    }

    /// Makes later work on the stream `stream` (its handle) wait for the event.
    fn wait_on(&self, stream: Handle) -> PyResult<()> {
        self.device
            .backend()
            .stream_wait_event(stream, self.handle)
            .py()
    }
}

impl Drop for NativeUserEvent {
    fn drop(&mut self) {
        self.device.backend().destroy_event(self.handle);
    }
}
