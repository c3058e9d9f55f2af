//! A kernel launch kept by value for the launch queue (`crate::launch_queue`): the argument
//! bytes are copied in, so the caller's arguments may go as soon as it is queued.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{result, sys};
use ember_core::Result;

use super::device::bind_context;
use super::driver_error;
use crate::backend::{Handle, KernelArg};

/// Argument bytes a queued launch holds (in 8-byte words), and arguments.
const WORDS: usize = 32;
const ARGS: usize = 24;

/// The streams whose launches may be queued: the legacy default stream (0, or 1 by name).
/// Every blocking stream waits for the work issued on it before, so a launch on another
/// stream — always issued at once, after the queue is drained — stays ordered after the
/// queued work even when something ember does not see (another library's device
/// synchronisation) ordered the two. Other streams' launches go at once.
fn queueable_stream(stream: Handle) -> bool {
    stream == 0 || stream == 1
}

pub(crate) struct QueuedLaunch {
    context: usize,
    /// The kernel's name, for the error of a launch that fails.
    name: Arc<str>,
    function: Handle,
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    stream: Handle,
    words: [u64; WORDS],
    /// Where each argument starts in `words`.
    starts: [u8; ARGS],
    count: u8,
}

impl QueuedLaunch {
    /// The launch as a record, or `None` when it cannot be queued (too many argument bytes,
    /// OpenCL-only arguments, a stream other than the legacy default): then it is issued at
    /// once.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        context: usize,
        name: &Arc<str>,
        function: Handle,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: Handle,
        args: &[KernelArg<'_>],
    ) -> Option<QueuedLaunch> {
        if args.len() > ARGS || !queueable_stream(stream) {
            return None;
        }
        let mut launch = QueuedLaunch {
            context,
            name: Arc::clone(name),
            function,
            grid,
            block,
            shared_bytes,
            stream,
            words: [0; WORDS],
            starts: [0; ARGS],
            count: args.len() as u8,
        };
        let mut next = 0usize;
        for (k, arg) in args.iter().enumerate() {
            launch.starts[k] = next as u8;
            match *arg {
                KernelArg::Buffer { handle, offset } => {
                    *launch.words.get_mut(next)? = handle + offset as u64;
                    next += 1;
                }
                KernelArg::Memory(handle) => {
                    *launch.words.get_mut(next)? = handle;
                    next += 1;
                }
                KernelArg::Bytes(bytes) => {
                    let n = bytes.len().div_ceil(8).max(1);
                    let slot = launch.words.get_mut(next..next + n)?;
                    for (word, chunk) in slot.iter_mut().zip(bytes.chunks(8)) {
                        let mut w = [0u8; 8];
                        w[..chunk.len()].copy_from_slice(chunk);
                        *word = u64::from_le_bytes(w);
                    }
                    next += n;
                }
                KernelArg::Local(_) | KernelArg::Svm(_) | KernelArg::Lost => return None,
            }
        }
        Some(launch)
    }

    /// Sends the launch to the driver from the calling thread.
    pub(crate) fn issue(self) -> Result<()> {
        bind_context(self.context)?;
        let mut params: smallvec::SmallVec<[*mut c_void; ARGS]> = self.starts
            [..self.count as usize]
            .iter()
            .map(|&s| &self.words[s as usize] as *const u64 as *mut c_void)
            .collect();
        unsafe {
            result::launch_kernel(
                self.function as usize as sys::CUfunction,
                (self.grid[0], self.grid[1], self.grid[2]),
                (self.block[0], self.block[1], self.block[2]),
                self.shared_bytes,
                self.stream as usize as sys::CUstream,
                &mut params,
            )
        }
        .map_err(|e| {
            driver_error("cuLaunchKernel (queued)", e).with_last_kernel(Some(self.name.to_string()))
        })
    }
}
