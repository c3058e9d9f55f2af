//! The threads `prange` loops run on. A loop of a millisecond cannot wait for sleeping threads
//! to be woken one by one (on a virtual machine a woken core can take a hundred microseconds to
//! answer), so, as OpenMP's runtimes do, each worker spins for a while after its chunk before it
//! sleeps, and the caller hands every worker its chunk through a slot of its own and runs the
//! first chunk itself.
//!
//! One loop runs on the pool at a time. A loop started while the pool is busy (another Python
//! thread's, or a parallel function called inside a chunk) runs its chunks one after another in
//! the thread that started it: the same results, on one core. A process forked from one with a
//! pool makes a pool of its own (the parent's threads do not exist in the child).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long a worker spins for the next chunk before it sleeps.
const SPIN: Duration = Duration::from_micros(300);

/// A chunk of a loop: its number (0 .. chunks).
type Job<'a> = &'a (dyn Fn(usize) + Sync);

/// One worker's mailbox: the caller sets `job` and bumps `posted`; the worker runs the chunk
/// and sets `finished` to the same number.
#[repr(align(128))]
struct Slot {
    posted: AtomicU64,
    finished: AtomicU64,
    /// The job (a pointer to a `Job` in the caller's frame, which waits for `finished`).
    job: Mutex<Option<JobPtr>>,
    asleep: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

#[derive(Clone, Copy)]
struct JobPtr(*const Job<'static>);
// The caller's frame outlives every use: it waits until each worker has finished.
unsafe impl Send for JobPtr {}

struct Pool {
    slots: Vec<Arc<Slot>>,
    /// Held by the caller of the loop running on the pool.
    busy: Mutex<()>,
    pid: u32,
}

thread_local! {
    /// Inside a chunk: a loop started here runs in this thread.
    static IN_CHUNK: Cell<bool> = const { Cell::new(false) };
    /// `set_num_threads` of this thread (0: all of the pool's).
    static WANTED: Cell<usize> = const { Cell::new(0) };
}

/// The pool's size with the caller: `EMBER_NUM_THREADS`, else `NUMBA_NUM_THREADS` (programs
/// written for Numba set it), else the cores this process may use.
pub fn pool_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        ["EMBER_NUM_THREADS", "NUMBA_NUM_THREADS"]
            .iter()
            .find_map(|v| std::env::var(v).ok()?.trim().parse::<usize>().ok())
            .filter(|n| *n >= 1)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

/// The threads a loop started in this thread uses (Numba's `get_num_threads`).
pub fn num_threads() -> usize {
    match WANTED.with(Cell::get) {
        0 => pool_threads(),
        n => n.min(pool_threads()),
    }
}

/// Sets how many threads loops started in this thread use, 1 ..= the pool's size (Numba's
/// `set_num_threads`, which is per thread as here).
pub fn set_num_threads(n: i64) -> Result<(), String> {
    let most = pool_threads();
    let Some(n) = usize::try_from(n).ok().filter(|n| (1..=most).contains(n)) else {
        return Err(format!(
            "The number of threads must be between 1 and {most} (the pool's size: set \
             EMBER_NUM_THREADS or NUMBA_NUM_THREADS before the first parallel loop to change it), \
             not {n}"
        ));
    };
    WANTED.with(|w| w.set(n));
    Ok(())
}

/// Runs `job(0) .. job(chunks - 1)`, on the pool's threads when it is free, and returns when
/// all have run.
pub(crate) fn run_chunks(chunks: usize, job: &(dyn Fn(usize) + Sync)) {
    if chunks <= 1 || IN_CHUNK.with(Cell::get) {
        (0..chunks).for_each(job);
        return;
    }
    let pool = pool();
    let Ok(_busy) = pool.busy.try_lock() else {
        (0..chunks).for_each(job);
        return;
    };
    let workers = &pool.slots[..(chunks - 1).min(pool.slots.len())];
    let posted: Vec<u64> = workers
        .iter()
        .map(|slot| {
            // Erased lifetime: this frame waits below until the worker has finished.
            let ptr: *const Job<'_> = &job;
            *slot.job.lock().expect("a slot") = Some(JobPtr(ptr.cast()));
            let n = slot.posted.fetch_add(1, Ordering::SeqCst) + 1;
            if slot.asleep.load(Ordering::SeqCst) {
                let _g = slot.lock.lock().expect("a slot");
                slot.wake.notify_one();
            }
            n
        })
        .collect();
    IN_CHUNK.with(|c| c.set(true));
    job(0);
    // Chunks beyond the workers (a pool smaller than asked): here, in turn.
    (workers.len() + 1..chunks).for_each(job);
    IN_CHUNK.with(|c| c.set(false));
    for (slot, n) in workers.iter().zip(posted) {
        let mut spins = 0u32;
        while slot.finished.load(Ordering::Acquire) != n {
            spins += 1;
            if spins < 1 << 16 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

fn pool() -> Arc<Pool> {
    static POOL: Mutex<Option<Arc<Pool>>> = Mutex::new(None);
    let mut p = POOL.lock().expect("the pool");
    let pid = std::process::id();
    match p.as_ref() {
        Some(pool) if pool.pid == pid => pool.clone(),
        _ => {
            let pool = Arc::new(start(pool_threads() - 1, pid));
            *p = Some(pool.clone());
            pool
        }
    }
}

fn start(workers: usize, pid: u32) -> Pool {
    let slots: Vec<Arc<Slot>> = (0..workers)
        .map(|_| {
            Arc::new(Slot {
                posted: AtomicU64::new(0),
                finished: AtomicU64::new(0),
                job: Mutex::new(None),
                asleep: AtomicBool::new(false),
                lock: Mutex::new(()),
                wake: Condvar::new(),
            })
        })
        .collect();
    for (k, slot) in slots.iter().enumerate() {
        let slot = slot.clone();
        std::thread::Builder::new()
            .name(format!("ember-prange-{}", k + 1))
            .spawn(move || work(&slot, k + 1))
            .expect("a thread for parallel loops");
    }
    Pool {
        slots,
        busy: Mutex::new(()),
        pid,
    }
}

/// Worker `chunk`: waits for a loop (spinning, then asleep), runs its chunk of it, says so.
/// (Worker k always runs chunk k: the caller runs chunk 0.)
fn work(slot: &Slot, chunk: usize) {
    IN_CHUNK.with(|c| c.set(true));
    let mut seen = 0u64;
    loop {
        let since = Instant::now();
        let mut spins = 0u32;
        while slot.posted.load(Ordering::SeqCst) == seen {
            spins = spins.wrapping_add(1);
            std::hint::spin_loop();
            if spins.is_multiple_of(64) && since.elapsed() > SPIN {
                let mut g = slot.lock.lock().expect("a slot");
                slot.asleep.store(true, Ordering::SeqCst);
                while slot.posted.load(Ordering::SeqCst) == seen {
                    g = slot.wake.wait(g).expect("a slot");
                }
                slot.asleep.store(false, Ordering::SeqCst);
            }
        }
        seen = slot.posted.load(Ordering::SeqCst);
        let job = slot.job.lock().expect("a slot").expect("a posted job");
        // The caller waits for `finished` before its frame (and the job) goes.
        unsafe { (*job.0)(chunk) };
        slot.finished.store(seen, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn every_chunk_runs_once() {
        let counts: Vec<AtomicUsize> = (0..13).map(|_| AtomicUsize::new(0)).collect();
        for _ in 0..200 {
            run_chunks(13, &|k| {
                counts[k].fetch_add(1, Ordering::Relaxed);
            });
        }
        assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 200));
    }

    #[test]
    fn a_loop_inside_a_chunk_runs_in_its_thread() {
        let total = AtomicUsize::new(0);
        run_chunks(4, &|_| {
            run_chunks(5, &|k| {
                total.fetch_add(k + 1, Ordering::Relaxed);
            })
        });
        assert_eq!(total.load(Ordering::Relaxed), 4 * 15);
    }

    #[test]
    fn the_number_of_threads_is_checked() {
        assert!(set_num_threads(0).is_err());
        assert!(set_num_threads(pool_threads() as i64 + 1).is_err());
        assert!(set_num_threads(-3).unwrap_err().ends_with("not -3"));
        set_num_threads(1).expect("one thread");
        assert_eq!(num_threads(), 1);
    }
}
