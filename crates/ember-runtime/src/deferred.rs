//! Work the array layer has accepted but not yet queued (automatic fusion keeps large
//! elementwise results pending so that a chain of them can run as one kernel).
//!
//! The runtime knows nothing of what is pending; it only guarantees the rule that makes the
//! delay invisible: before any memory is touched — a launch, a copy, a pointer handed out —
//! and before any synchronisation or stream switch, [`finish`] queues the pending work.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use ember_core::{Error, Result};

static PENDING: AtomicBool = AtomicBool::new(false);
static HOOK: OnceLock<fn()> = OnceLock::new();
/// The first error met while queueing pending work from a place that cannot return one; it is
/// reported by the next synchronisation, host read or ufunc call.
static LATE_ERROR: Mutex<Option<Error>> = Mutex::new(None);
static HAS_ERROR: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// True while this thread queues pending work (its own launches must not re-enter).
    static FINISHING: Cell<bool> = const { Cell::new(false) };
}

/// Installs the function that queues pending work (the array layer does, once).
pub fn set_hook(hook: fn()) {
    let _ = HOOK.set(hook);
}

/// Notes that work is pending.
pub fn mark_pending() {
    PENDING.store(true, Ordering::Release);
}

/// Notes that no work is pending (called by the hook once it has queued everything).
pub fn clear_pending() {
    PENDING.store(false, Ordering::Release);
}

/// True while some work is pending.
pub fn is_pending() -> bool {
    PENDING.load(Ordering::Acquire)
}

/// Queues any pending work. Cheap when there is none (one atomic load).
#[inline]
pub fn finish() {
    if PENDING.load(Ordering::Acquire) && !FINISHING.with(Cell::get) {
        if let Some(hook) = HOOK.get() {
            hook();
        }
    }
}

/// Marks this thread as queueing pending work until the guard drops.
pub fn finishing() -> FinishingGuard {
    FINISHING.with(|f| f.set(true));
    FinishingGuard
}

/// See [`finishing`].
pub struct FinishingGuard;

impl Drop for FinishingGuard {
    fn drop(&mut self) {
        FINISHING.with(|f| f.set(false));
    }
}

/// Keeps `err` for the next synchronisation to report (the first one wins).
pub fn keep_error(err: Error) {
    let mut slot = LATE_ERROR.lock().unwrap_or_else(|e| e.into_inner());
    if slot.is_none() {
        *slot = Some(err);
    }
    HAS_ERROR.store(true, Ordering::Release);
}

/// Queues pending work and issues queued launches, then returns the error kept from earlier
/// pending or queued work, if any (a launch that failed from the queue is reported here, not
/// after the data it did not write was read).
pub fn finish_and_check() -> Result<()> {
    finish();
    crate::device::drain_launches();
    check()
}

/// Returns (once) the error kept from earlier pending work, if any.
#[inline]
pub fn check() -> Result<()> {
    if !HAS_ERROR.load(Ordering::Acquire) {
        return Ok(());
    }
    let mut slot = LATE_ERROR.lock().unwrap_or_else(|e| e.into_inner());
    HAS_ERROR.store(false, Ordering::Release);
    match slot.take() {
        Some(err) => Err(err),
        None => Ok(()),
    }
}
