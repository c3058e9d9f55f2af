//! Streams (CUDA streams, OpenCL command queues) and events.

use std::sync::Mutex;

use ember_core::Result;

use crate::backend::Handle;
use crate::device::Device;

/// An ordered queue of work on one device.
pub struct Stream {
    device: &'static Device,
    handle: Handle,
    owned: bool,
}

impl Stream {
    /// A new stream on `device`.
    pub fn new(device: &'static Device) -> Result<Stream> {
        let handle = device.backend().create_stream()?;
        Ok(Stream {
            device,
            handle,
            owned: true,
        })
    }

    /// The device's default stream (never destroyed).
    pub fn default_for(device: &'static Device) -> Stream {
        Stream {
            device,
            handle: device.default_stream(),
            owned: false,
        }
    }

    pub fn device(&self) -> &'static Device {
        self.device
    }

    pub fn handle(&self) -> Handle {
        self.handle
    }

    /// The handle, for code outside ember: it orders its work by its own driver calls, so
    /// pending and queued work is issued first.
    pub fn handle_for_foreign(&self) -> Handle {
        crate::deferred::finish();
        self.device().backend().drain();
        self.handle
    }

    /// Waits for everything queued so far.
    pub fn synchronize(&self) -> Result<()> {
        self.device.synchronize_stream(self.handle)
    }

    /// True once all work queued so far is done.
    pub fn done(&self) -> Result<bool> {
        crate::deferred::finish();
        self.device
            .backend()
            .query_stream(self.handle)
            .map_err(|e| self.device.annotate(e))
    }

    /// Makes later work on this stream wait for `event`.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        crate::deferred::finish();
        match event.handle() {
            Some(e) => self.device.backend().stream_wait_event(self.handle, e),
            None => Ok(()),
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if self.owned {
            // Work that waits for this stream must be queued on it while it exists.
            crate::deferred::finish();
            self.device.backend().destroy_stream(self.handle);
        }
    }
}

/// A point in a stream's work, for waiting and timing.
pub struct Event {
    device: &'static Device,
    handle: Mutex<Option<Handle>>,
}

impl Event {
    /// An event not yet recorded.
    pub fn new(device: &'static Device) -> Event {
        Event {
            device,
            handle: Mutex::new(None),
        }
    }

    /// The backend's event, once recorded (a `cl_event`, a `CUevent`).
    pub fn handle(&self) -> Option<Handle> {
        *self.handle.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks the current end of `stream`.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        crate::deferred::finish();
        let mut slot = self.handle.lock().unwrap_or_else(|e| e.into_inner());
        *slot = Some(self.device.backend().record_event(stream.handle, *slot)?);
        Ok(())
    }

    /// Waits until the work before the event is done (at once if never recorded).
    pub fn synchronize(&self) -> Result<()> {
        // A launch queued before the record failed when the record issued it: say so.
        crate::deferred::check()?;
        match self.handle() {
            Some(e) => self
                .device
                .backend()
                .synchronize_event(e)
                .map_err(|err| self.device.annotate(err)),
            None => Ok(()),
        }
    }

    /// True when the work before the event is done.
    pub fn done(&self) -> Result<bool> {
        match self.handle() {
            Some(e) => self.device.backend().query_event(e),
            None => Ok(true),
        }
    }

    /// Milliseconds from `start` to this event; both must have been recorded.
    pub fn elapsed_since(&self, start: &Event) -> Result<f32> {
        match (start.handle(), self.handle()) {
            (Some(a), Some(b)) => self.device.backend().elapsed_ms(a, b),
            _ => Err(ember_core::Error::Value(
                "both events must be recorded before their elapsed time can be read; call record() on each".into(),
            )),
        }
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if let Some(h) = self.handle() {
            self.device.backend().destroy_event(h);
        }
    }
}

thread_local! {
    /// The device this thread works on (`with ember.Device(i):` in Python).
    static CURRENT_DEVICE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The ordinal of the device this thread works on.
pub fn current_device() -> usize {
    CURRENT_DEVICE.with(std::cell::Cell::get)
}

/// Makes device `ordinal` this thread's device.
pub fn set_current_device(ordinal: usize) {
    CURRENT_DEVICE.with(|c| c.set(ordinal))
}

/// What a caller hands over with a stream it makes current: kept alive while the stream is
/// current, and given back by [`current_stream_owner`] (the Python bindings keep the Python
/// stream object here, so which object is current has one source: this stack).
pub type StreamOwner = std::sync::Arc<dyn std::any::Any + Send + Sync>;

/// One entry of a thread's stack of current streams.
struct Current {
    device: usize,
    handle: Handle,
    owner: Option<StreamOwner>,
}

thread_local! {
    /// The stream work goes to on this thread, per device (`with stream:` in Python).
    static CURRENT: std::cell::RefCell<Vec<Current>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn key(device: &'static Device) -> usize {
    device as *const Device as usize
}

/// The stream this thread sends work to on `device`: the last one made current, else the
/// device's default stream.
pub fn current_stream(device: &'static Device) -> Handle {
    CURRENT.with(|c| {
        c.borrow()
            .iter()
            .rev()
            .find(|e| e.device == key(device))
            .map_or_else(|| device.default_stream(), |e| e.handle)
    })
}

/// The owner given with the stream current on `device`, if one was (None when the device's
/// default stream is current, or the current one came without an owner).
pub fn current_stream_owner(device: &'static Device) -> Option<StreamOwner> {
    CURRENT.with(|c| {
        c.borrow()
            .iter()
            .rev()
            .find(|e| e.device == key(device))
            .and_then(|e| e.owner.clone())
    })
}

/// Makes `stream` current on this thread for its device until [`pop_current_stream`];
/// `owner` is kept alive meanwhile.
pub fn push_current_stream(stream: &Stream, owner: Option<StreamOwner>) {
    push_entry(stream.device(), stream.handle(), owner);
}

/// Makes the stream `handle` of `device` current, as [`push_current_stream`] does (for work
/// that was asked for on that stream and is queued later).
pub fn push_current_handle(device: &'static Device, handle: Handle) {
    push_entry(device, handle, None);
}

fn push_entry(device: &'static Device, handle: Handle, owner: Option<StreamOwner>) {
    // Pending work belongs to the stream that was current when it was asked for.
    crate::deferred::finish();
    CURRENT.with(|c| {
        c.borrow_mut().push(Current {
            device: key(device),
            handle,
            owner,
        })
    });
}

/// Undoes the last [`push_current_stream`] for `device`.
pub fn pop_current_stream(device: &'static Device) {
    crate::deferred::finish();
    let removed = CURRENT.with(|c| {
        let mut stack = c.borrow_mut();
        stack
            .iter()
            .rposition(|e| e.device == key(device))
            .map(|pos| stack.remove(pos))
    });
    // The owner goes after the stack is released: dropping it may run code that reads it.
    drop(removed);
}
