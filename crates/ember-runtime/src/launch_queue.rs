//! A launch queue: the thread that asks for a launch goes on with its work while another
//! thread pays the driver's cost of issuing it. On the lent VM `cuLaunchKernel` costs the
//! caller ≈ 3.7 µs, against ≈ 1.5 µs of ember's own work for a small operation, so a burst of
//! small operations runs at the driver's pace instead of at the sum of the two.
//!
//! What keeps it invisible:
//! - Launches leave in the order they were queued, and a backend calls [`LaunchQueue::drain`]
//!   before any other call into its driver (copies, synchronisation, events, frees), so the
//!   device sees the same sequence as without the queue.
//! - Only bursts use it: a launch asked for when nothing is queued and the previous one is
//!   older than [`BURST`] is handed back to be issued at once, so an isolated operation's
//!   latency does not change.
//! - The issuing thread spins for [`SPIN`] after its last launch, then sleeps until the next
//!   burst wakes it. A thread that drains while the issuer is asleep or slow to wake issues
//!   the queued launches itself (one issuer at a time, in order).
//! - A launch that fails from the queue is kept and reported by the next synchronisation,
//!   host read or array operation (`deferred::keep_error`), as CUDA reports kernel faults.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, TryLockError};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crossbeam_queue::ArrayQueue;
use crossbeam_utils::Backoff;
use ember_core::Result;

/// Launches asked for closer together than this form a burst and go through the queue.
pub const BURST: Duration = Duration::from_micros(50);
/// How long the issuing thread waits for more work before it sleeps.
pub const SPIN: Duration = Duration::from_micros(300);
/// Launches the queue holds; a caller further ahead waits for room.
const CAPACITY: usize = 256;

type Issue<L> = dyn Fn(L) -> Result<()> + Send + Sync;

pub struct LaunchQueue<L: Send + 'static> {
    queue: ArrayQueue<L>,
    issue: Box<Issue<L>>,
    burst: Duration,
    /// Serialises callers of [`LaunchQueue::submit`]: the burst clock and the choice between
    /// queueing and launching at once.
    producer: Mutex<Producer>,
    /// Only the holder pops and issues, which keeps the order.
    issuing: Mutex<()>,
    /// Launches reserved in the queue (counted before they are pushed) and issued.
    queued: AtomicU64,
    issued: AtomicU64,
    parked: AtomicBool,
    issuer: OnceLock<Option<Thread>>,
}

struct Producer {
    last: Option<Instant>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<L: Send + 'static> LaunchQueue<L> {
    /// A queue whose launches `issue` sends to the driver (from the issuing thread, or from a
    /// thread that drains).
    pub fn new(issue: impl Fn(L) -> Result<()> + Send + Sync + 'static) -> Arc<Self> {
        Self::with_burst(BURST, issue)
    }

    /// A queue with its own burst window (tests make every launch after the first a burst).
    pub fn with_burst(
        burst: Duration,
        issue: impl Fn(L) -> Result<()> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(LaunchQueue {
            queue: ArrayQueue::new(CAPACITY),
            issue: Box::new(issue),
            burst,
            producer: Mutex::new(Producer { last: None }),
            issuing: Mutex::new(()),
            queued: AtomicU64::new(0),
            issued: AtomicU64::new(0),
            parked: AtomicBool::new(false),
            issuer: OnceLock::new(),
        })
    }

    /// Queues `launch`, or hands it back when the caller should issue it now (nothing is
    /// queued and no burst is on, or no issuing thread could be started).
    pub fn submit(self: &Arc<Self>, launch: L) -> Option<L> {
        let mut producer = lock(&self.producer);
        let now = Instant::now();
        let burst = producer
            .last
            .is_some_and(|t| now.duration_since(t) < self.burst);
        producer.last = Some(now);
        if !burst && !self.pending() {
            return Some(launch);
        }
        let Some(issuer) = self.issuer() else {
            drop(producer);
            self.drain();
            return Some(launch);
        };
        self.queued.fetch_add(1, Ordering::SeqCst);
        let mut launch = launch;
        let backoff = Backoff::new();
        while let Err(back) = self.queue.push(launch) {
            // Full: the issuer is behind (or gone, in a forked child): issue one ourselves.
            launch = back;
            match self.try_turn() {
                Some(_turn) => {
                    if let Some(first) = self.queue.pop() {
                        self.issue_one(first);
                    }
                }
                None => backoff.snooze(),
            }
        }
        if self.parked.load(Ordering::SeqCst) {
            issuer.unpark();
        }
        None
    }

    /// True while some queued launch has not been issued.
    fn pending(&self) -> bool {
        self.issued.load(Ordering::Acquire) < self.queued.load(Ordering::Acquire)
    }

    /// Returns once every launch queued before the call has been issued. Issues them itself
    /// when the issuing thread is not doing so.
    pub fn drain(&self) {
        let target = self.queued.load(Ordering::Acquire);
        if self.issued.load(Ordering::Acquire) >= target {
            return;
        }
        let backoff = Backoff::new();
        while self.issued.load(Ordering::Acquire) < target {
            match self.try_turn() {
                Some(_turn) => self.issue_queued(target),
                None => backoff.snooze(),
            }
        }
    }

    /// The right to pop and issue, if no one else has it (a poisoned turn is still a turn:
    /// the order it guards holds).
    fn try_turn(&self) -> Option<MutexGuard<'_, ()>> {
        match self.issuing.try_lock() {
            Ok(turn) => Some(turn),
            Err(TryLockError::Poisoned(turn)) => Some(turn.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        }
    }

    /// Pops and issues launches until `target` have been issued or the queue is empty (a
    /// launch counted but not yet pushed is waited for). Called holding `issuing`.
    fn issue_queued(&self, target: u64) {
        let backoff = Backoff::new();
        while self.issued.load(Ordering::Acquire) < target {
            match self.queue.pop() {
                Some(launch) => {
                    self.issue_one(launch);
                    backoff.reset();
                }
                None => backoff.snooze(),
            }
        }
    }

    fn issue_one(&self, launch: L) {
        // A panic must not leave the launch uncounted: drains would wait for it forever.
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (self.issue)(launch)));
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(err)) => crate::deferred::keep_error(err),
            Err(_) => crate::deferred::keep_error(ember_core::Error::Value(
                "a queued kernel launch panicked inside ember: please report this".into(),
            )),
        }
        self.issued.fetch_add(1, Ordering::Release);
    }

    /// Launches queued so far (a diagnostic: tests check that bursts use the queue).
    pub fn queued(&self) -> u64 {
        self.queued.load(Ordering::Relaxed)
    }

    /// The issuing thread, started at the first burst (`None` if the system refused a thread).
    fn issuer(self: &Arc<Self>) -> Option<&Thread> {
        self.issuer
            .get_or_init(|| {
                let queue = Arc::clone(self);
                std::thread::Builder::new()
                    .name("ember-launch".into())
                    .spawn(move || queue.run())
                    .ok()
                    .map(|h| h.thread().clone())
            })
            .as_ref()
    }

    /// The issuing thread's loop.
    fn run(&self) {
        let mut idle_since: Option<Instant> = None;
        let mut spins = 0u32;
        loop {
            if !self.queue.is_empty() {
                if let Some(_turn) = self.try_turn() {
                    while let Some(launch) = self.queue.pop() {
                        self.issue_one(launch);
                    }
                }
                idle_since = None;
                continue;
            }
            std::hint::spin_loop();
            spins += 1;
            if !spins.is_multiple_of(64) {
                continue;
            }
            let since = *idle_since.get_or_insert_with(Instant::now);
            if since.elapsed() < SPIN {
                continue;
            }
            // Sleep; `submit` sees the flag after pushing and wakes us (the check after the
            // store closes the gap between the two).
            self.parked.store(true, Ordering::SeqCst);
            if self.queue.is_empty() {
                std::thread::park();
            }
            self.parked.store(false, Ordering::SeqCst);
            idle_since = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A queue whose "driver" appends to a log, taking `cost` per launch.
    fn logged(cost: Duration) -> (Arc<LaunchQueue<u32>>, Arc<Mutex<Vec<u32>>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&log);
        let q = LaunchQueue::with_burst(Duration::from_secs(5), move |n: u32| {
            let t = Instant::now();
            while t.elapsed() < cost {
                std::hint::spin_loop();
            }
            sink.lock().unwrap().push(n);
            Ok(())
        });
        (q, log)
    }

    /// Submits like a backend: what comes back is issued by the caller, after a drain.
    fn launch(q: &Arc<LaunchQueue<u32>>, log: &Arc<Mutex<Vec<u32>>>, n: u32) {
        if let Some(n) = q.submit(n) {
            q.drain();
            log.lock().unwrap().push(n);
        }
    }

    #[test]
    fn an_isolated_launch_is_handed_back() {
        let q = LaunchQueue::with_burst(Duration::from_millis(1), |_: u32| Ok(()));
        assert_eq!(q.submit(7), Some(7));
        std::thread::sleep(Duration::from_millis(3));
        assert_eq!(q.submit(8), Some(8));
        assert!(!q.pending());
        assert!(q.issuer.get().is_none(), "no thread for isolated launches");
    }

    #[test]
    fn a_burst_is_issued_in_order_and_drained() {
        let (q, log) = logged(Duration::from_micros(20));
        for n in 0..1000 {
            launch(&q, &log, n);
        }
        q.drain();
        assert!(!q.pending());
        assert_eq!(*log.lock().unwrap(), (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn drain_issues_when_the_issuer_sleeps() {
        let (q, log) = logged(Duration::ZERO);
        launch(&q, &log, 0);
        launch(&q, &log, 1); // a burst: starts the issuer
        q.drain();
        std::thread::sleep(SPIN * 4); // the issuer is asleep now
        for n in 2..50 {
            launch(&q, &log, n);
        }
        q.drain();
        assert_eq!(*log.lock().unwrap(), (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn many_threads_keep_each_threads_order() {
        let (q, log) = logged(Duration::from_micros(2));
        std::thread::scope(|s| {
            for t in 0..4u32 {
                let (q, log) = (Arc::clone(&q), Arc::clone(&log));
                s.spawn(move || {
                    for n in 0..300 {
                        launch(&q, &log, t * 1000 + n);
                    }
                    q.drain();
                });
            }
        });
        let log = log.lock().unwrap();
        assert_eq!(log.len(), 1200);
        for t in 0..4u32 {
            let mine: Vec<u32> = log.iter().copied().filter(|n| n / 1000 == t).collect();
            assert_eq!(mine, (0..300).map(|n| t * 1000 + n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_failed_launch_is_kept_for_the_next_check() {
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&calls);
        let q = LaunchQueue::with_burst(Duration::from_secs(5), move |n: u32| {
            seen.fetch_add(1, Ordering::SeqCst);
            if n == 3 {
                Err(ember_core::Error::Value("launch 3 failed".into()))
            } else {
                Ok(())
            }
        });
        for n in 0..6 {
            if let Some(n) = q.submit(n) {
                q.drain();
                assert_ne!(
                    n, 3,
                    "the failing launch must go through the queue in this test"
                );
            }
        }
        q.drain();
        assert_eq!(calls.load(Ordering::SeqCst), 5);
        let err = crate::deferred::check().expect_err("the failure is kept");
        assert!(err.to_string().contains("launch 3 failed"), "{err}");
    }
}
