//! Fork safety. A child `fork()`ed after ember opened its devices inherits the parent's
//! contexts but not the threads behind them (the driver's, PoCL's workers, ember's launch
//! issuer): its first wait would block for ever. CUDA forbids using a context across a fork,
//! and a PoCL device cannot be reopened in the child either (its worker pool is global), so
//! the child gets a clear error at its first device call instead, saying to use the `spawn`
//! start method (as PyTorch does). Everything the child does not wait on (freeing inherited
//! memory at exit, a stream's destructor) is skipped quietly: the memory is the parent's.
//!
//! Every device call checks [`check`] first (`guard::Guard`), which costs one atomic load.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use ember_core::{Error, Result};

static FORKED: AtomicBool = AtomicBool::new(false);

extern "C" fn in_child() {
    FORKED.store(true, Ordering::Relaxed);
}

/// Starts watching for `fork()` (called when the first device opens: a fork before that
/// leaves the child free to open its own).
pub fn watch() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| unsafe {
        libc::pthread_atfork(None, None, Some(in_child));
    });
}

/// Whether this process is a child forked after ember opened its devices.
pub fn forked() -> bool {
    FORKED.load(Ordering::Relaxed)
}

/// `Err(Error::Forked)` in a forked child (`backend`: the device's API, for the message).
pub fn check(backend: &'static str) -> Result<()> {
    if forked() {
        Err(Error::Forked(backend))
    } else {
        Ok(())
    }
}
