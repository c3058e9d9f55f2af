//! CUDA's legacy default stream, on OpenCL queues. ember's streams are blocking streams, as
//! CUDA's, Numba's and CuPy's are: work on the default stream waits for the work issued before
//! it on every other stream of the device, and work on another stream waits for the work
//! issued before it on the default stream. (A kernel on `cuda.stream()` and then
//! `copy_to_host()` on the default stream reads the kernel's results.) OpenCL queues are
//! independent of each other, so before a command goes on a queue, that queue waits (a barrier
//! on markers) for what the other side issued since the two last met. A queue used alone pays
//! one lock and a counter.

use std::collections::HashMap;
use std::ptr;
use std::sync::Mutex;

use cl3::command_queue as cq;
use cl3::event as ev;
use cl3::types::{cl_command_queue, cl_event};
use ember_core::Result;

use super::cl_error;

#[derive(Default)]
struct State {
    /// Commands issued on each queue.
    issued: HashMap<usize, u64>,
    /// (waiter, source) -> how many of the source's commands the waiter has waited for.
    met: HashMap<(usize, usize), u64>,
}

/// The order between the default queue and the other queues of one device.
#[derive(Default)]
pub struct StreamOrder {
    state: Mutex<State>,
}

impl StreamOrder {
    /// Call before a command is enqueued on `queue`: orders it after what the default stream
    /// semantics say it follows, and counts it.
    pub fn before(&self, queue: cl_command_queue, default: cl_command_queue) -> Result<()> {
        let (q, d) = (queue as usize, default as usize);
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let State { issued, met } = &mut *state;
        let mut markers: Vec<cl_event> = Vec::new();
        let mut result = Ok(());
        for (&source, &count) in issued.iter() {
            // The default queue follows every other queue; another queue follows the default.
            let follows = if q == d { source != d } else { source == d };
            if !follows {
                continue;
            }
            let seen = met.entry((q, source)).or_insert(0);
            if *seen >= count {
                continue;
            }
            let src = source as cl_command_queue;
            match unsafe { cq::enqueue_marker_with_wait_list(src, 0, ptr::null()) } {
                Ok(marker) => {
                    let _ = cq::flush(src);
                    markers.push(marker);
                    *seen = count;
                }
                Err(c) => {
                    result = Err(cl_error("clEnqueueMarkerWithWaitList", c));
                    break;
                }
            }
        }
        *issued.entry(q).or_insert(0) += 1;
        if result.is_ok() && !markers.is_empty() {
            result = unsafe {
                cq::enqueue_barrier_with_wait_list(queue, markers.len() as u32, markers.as_ptr())
            }
            .map(|barrier| unsafe {
                let _ = ev::release_event(barrier);
            })
            .map_err(|c| cl_error("clEnqueueBarrierWithWaitList", c));
        }
        drop(state);
        for marker in markers {
            unsafe {
                let _ = ev::release_event(marker);
            }
        }
        result
    }

    /// Forgets `queue` (destroyed, or abandoned after a fault).
    pub fn forget(&self, queue: cl_command_queue) {
        let q = queue as usize;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.issued.remove(&q);
        state
            .met
            .retain(|&(waiter, source), _| waiter != q && source != q);
    }
}
