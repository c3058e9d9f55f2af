//! The launch table of `ember.profiler.profile()`: while a profile is open, every launch is
//! issued at once (not from the launch thread) between two events on its stream, and noted
//! with its grid, block and the bytes its arrays span. Closing the profile waits for the
//! events and gives each launch's device time (CUDA events; markers of OpenCL's profiling
//! queues).

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ember_core::Result;

use crate::backend::Handle;
use crate::device::Device;

/// Open profiles (they nest: each sees the launches made while it is open).
static OPEN: AtomicUsize = AtomicUsize::new(0);
static PENDING: Mutex<Vec<Pending>> = Mutex::new(Vec::new());

thread_local! {
    /// Bytes the next launch on this thread reads and writes, as its caller counted them.
    static BYTES: Cell<Option<u64>> = const { Cell::new(None) };
}

struct Pending {
    device: &'static Device,
    kernel: Box<str>,
    grid: [u32; 3],
    block: [u32; 3],
    bytes: Option<u64>,
    start: Handle,
    end: Handle,
}

/// One launch of a closed profile.
#[derive(Clone, Debug)]
pub struct Launch {
    pub kernel: String,
    pub device: usize,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// The bytes the launch's arrays span, where its caller counted them.
    pub bytes: Option<u64>,
    pub ms: f64,
}

/// Whether a profile is open (launches are then timed one by one).
pub fn is_open() -> bool {
    OPEN.load(Ordering::Relaxed) > 0
}

/// Notes that the next launch on this thread moves about `bytes` (its arrays' spans); a
/// no-op unless a profile is open.
pub fn note_bytes(bytes: u64) {
    if is_open() {
        BYTES.with(|b| b.set(Some(bytes)));
    }
}

/// Opens a profile; the returned mark is what [`close`] takes.
pub fn open() -> usize {
    let mark = PENDING.lock().unwrap_or_else(|e| e.into_inner()).len();
    OPEN.fetch_add(1, Ordering::SeqCst);
    mark
}

/// Closes the profile opened at `mark`: waits for its launches and gives their device times.
pub fn close(mark: usize) -> Result<Vec<Launch>> {
    // Work the block deferred (element-wise expressions waiting to be fused) is the block's:
    // it is launched now, inside the profile.
    crate::deferred::finish();
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let last = OPEN.fetch_sub(1, Ordering::SeqCst) == 1;
    let mine: Vec<&Pending> = pending.iter().skip(mark).collect();
    let mut out = Vec::with_capacity(mine.len());
    let mut failure = None;
    for p in mine {
        match p.device.backend().elapsed_ms(p.start, p.end) {
            Ok(ms) => out.push(Launch {
                kernel: p.kernel.to_string(),
                device: p.device.info().ordinal,
                grid: p.grid,
                block: p.block,
                bytes: p.bytes,
                ms: f64::from(ms),
            }),
            Err(e) => failure = failure.or(Some(e)),
        }
    }
    if last {
        for p in pending.drain(..) {
            p.device.backend().destroy_event(p.start);
            p.device.backend().destroy_event(p.end);
        }
    }
    failure.map_or(Ok(out), Err)
}

/// Runs `launch` between two events on `stream` when a profile is open (else just runs it),
/// noted under `name()`: a kernel of ember's, or a vendor library's call (cuBLAS, cuFFT,
/// cuSOLVER, which have no grid or block of ember's: zeros).
pub fn around<T>(
    device: &'static Device,
    name: impl FnOnce() -> Box<str>,
    [grid, block]: [[u32; 3]; 2],
    stream: Handle,
    launch: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let bytes = BYTES.with(Cell::take);
    if !is_open() {
        return launch();
    }
    let backend = device.backend();
    let start = backend.record_event(stream, None)?;
    let out = match launch() {
        Ok(out) => out,
        Err(e) => {
            backend.destroy_event(start);
            return Err(e);
        }
    };
    let end = backend.record_event(stream, None)?;
    PENDING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Pending {
            device,
            kernel: name(),
            grid,
            block,
            bytes,
            start,
            end,
        });
    Ok(out)
}
