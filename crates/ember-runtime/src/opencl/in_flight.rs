//! Back-pressure on OpenCL queues. `clEnqueueNDRangeKernel` never blocks: a thread that
//! issues work in a loop and never reads a result grows the queue without bound (PoCL:
//! ≈ 60 MB/s, and a `synchronize()` half a minute later), and a blocking read from another
//! thread sits behind all of it. CUDA bounds its own queue (a launch blocks when the driver's
//! push buffer is full); here ember does: every [`STEP`] commands it enqueues a marker, and
//! when more than [`MARKERS`] markers are outstanding the issuing thread waits for the oldest.
//! At most ≈ `STEP * (MARKERS + 1)` commands are then in flight per queue, which keeps a GPU
//! busy and bounds the memory and the latency of any read.

use std::collections::{HashMap, VecDeque};
use std::ptr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cl3::command_queue as cq;
use cl3::event as ev;
use cl3::event::{CL_COMPLETE, CL_EVENT_COMMAND_EXECUTION_STATUS};
use cl3::info_type::InfoType;
use cl3::types::{cl_command_queue, cl_event};
use ember_core::Result;

use super::cl_error;

/// Commands between two markers.
pub const STEP: u32 = 64;
/// Markers allowed in flight before the issuer waits for the oldest.
pub const MARKERS: usize = 8;

#[derive(Default)]
struct Queue {
    since_marker: u32,
    markers: VecDeque<usize>,
}

/// The outstanding markers of each queue of one device.
#[derive(Default)]
pub struct InFlight {
    queues: Mutex<HashMap<usize, Queue>>,
}

impl InFlight {
    /// Counts a command just enqueued on `queue`; waits when the queue is too far ahead.
    pub fn enqueued(&self, queue: cl_command_queue) -> Result<()> {
        let oldest = {
            let mut all = self.queues.lock().unwrap_or_else(|e| e.into_inner());
            let q = all.entry(queue as usize).or_default();
            q.since_marker += 1;
            if q.since_marker < STEP {
                return Ok(());
            }
            q.since_marker = 0;
            let marker = unsafe { cq::enqueue_marker_with_wait_list(queue, 0, ptr::null()) }
                .map_err(|c| cl_error("clEnqueueMarkerWithWaitList", c))?;
            // Submitted now, so the device starts on the window while we go on.
            let _ = cq::flush(queue);
            q.markers.push_back(marker as usize);
            if q.markers.len() <= MARKERS {
                return Ok(());
            }
            q.markers.pop_front()
        };
        // Waited for outside the lock: other queues, and reads, go on meanwhile.
        match oldest {
            Some(e) => wait_release(e as cl_event, Duration::ZERO),
            None => Ok(()),
        }
    }

    /// Forgets `queue` (destroyed), releasing its markers.
    pub fn forget(&self, queue: cl_command_queue) {
        let gone = self
            .queues
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(queue as usize));
        for e in gone.into_iter().flat_map(|q| q.markers) {
            unsafe {
                let _ = ev::release_event(e as cl_event);
            }
        }
    }
}

/// Waits for everything enqueued on `queue` before this call, and nothing after it.
/// (`clFinish` waits for the queue to be empty on some drivers, which another thread that
/// keeps issuing can postpone for ever.)
/// `spin`: how long to poll the marker before sleeping on it ([`wait_release`]).
pub fn drain(queue: cl_command_queue, spin: Duration) -> Result<()> {
    let marker = unsafe { cq::enqueue_marker_with_wait_list(queue, 0, ptr::null()) }
        .map_err(|c| cl_error("clEnqueueMarkerWithWaitList", c))?;
    cq::flush(queue).map_err(|c| cl_error("clFlush", c))?;
    wait_release(marker, spin)
}

/// Waits for `event`, a command of `queue` (submitted first), and releases it. Blocking
/// reads and writes are written this way: PoCL's blocking flag waits for the whole queue.
pub fn wait_for(queue: cl_command_queue, event: cl_event, spin: Duration) -> Result<()> {
    let _ = cq::flush(queue);
    wait_release(event, spin)
}

/// Waits for `event` and releases it, polling it for up to `spin` first. On a CPU device the
/// thread that completes a command wakes a sleeping waiter only some tens of microseconds
/// later, which a short wait pays in full (a small launch and its wait on PoCL 3.1, 2 cores:
/// 68 µs sleeping, 38 µs polling). Polling longer would take a core from the device's own
/// threads, so a long wait sleeps after the first `spin`.
fn wait_release(event: cl_event, spin: Duration) -> Result<()> {
    if !spin.is_zero() {
        let until = Instant::now() + spin;
        while Instant::now() < until {
            match ev::get_event_info(event, CL_EVENT_COMMAND_EXECUTION_STATUS) {
                Ok(InfoType::Int(status)) if status == CL_COMPLETE || status < 0 => break,
                Ok(_) => std::hint::spin_loop(),
                Err(_) => break,
            }
        }
    }
    let waited = ev::wait_for_events(&[event]).map_err(|c| cl_error("clWaitForEvents", c));
    unsafe {
        let _ = ev::release_event(event);
    }
    waited
}
