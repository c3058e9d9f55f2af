//! The caching device memory pool.
//!
//! Freed blocks are kept in bins keyed by (stream, size class) and handed out again to
//! allocations of the same class on the same stream, so a block is never reused by another
//! stream while work queued on the first may still touch it (CuPy's rule). When the device has
//! no memory left, or the pool's limit would be passed, the cache is released and the
//! allocation retried once before `Error::OutOfMemory` is raised with the pool's statistics.

use std::collections::HashMap;
use std::sync::Mutex;

use ember_core::{Error, PoolStats, Result};

use crate::backend::Handle;

/// Where a pool gets its memory from (a backend, or a fake in tests).
pub trait RawAllocator {
    fn raw_alloc(&self, bytes: usize) -> Result<Handle>;
    fn raw_free(&self, memory: Handle);
}

/// Smallest block the pool hands out.
pub const MIN_BLOCK: usize = 512;
const MIB: usize = 1 << 20;

/// The size a request of `bytes` is rounded up to. Small sizes get four classes per power of
/// two (at most 25% waste); above 1 MiB, classes are whole MiB.
pub fn size_class(bytes: usize) -> usize {
    if bytes <= MIN_BLOCK {
        return MIN_BLOCK;
    }
    if bytes > MIB {
        return bytes.div_ceil(MIB) * MIB;
    }
    let base = 1usize << (usize::BITS - 1 - (bytes - 1).leading_zeros());
    let step = base / 4;
    bytes.div_ceil(step) * step
}

#[derive(Default)]
struct State {
    /// Cached blocks by (stream, size class); a fast hash: it is looked up on every allocation.
    free: HashMap<(Handle, usize), Vec<Handle>, rustc_hash::FxBuildHasher>,
    used_bytes: usize,
    cached_bytes: usize,
    limit: Option<usize>,
}

impl State {
    fn total(&self) -> usize {
        self.used_bytes + self.cached_bytes
    }

    fn stats(&self) -> PoolStats {
        PoolStats {
            used_bytes: self.used_bytes,
            total_bytes: self.total(),
            limit: self.limit,
        }
    }

    fn drain(&mut self) -> Vec<Handle> {
        self.cached_bytes = 0;
        self.free.drain().flat_map(|(_, blocks)| blocks).collect()
    }
}

/// One device's pool. Thread-safe; allocation from a bin costs a lock and a `Vec::pop`.
#[derive(Default)]
pub struct MemoryPool {
    state: Mutex<State>,
}

/// A block handed out by the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub handle: Handle,
    /// The block's real size (its size class).
    pub size: usize,
}

impl MemoryPool {
    pub fn new() -> MemoryPool {
        MemoryPool::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic elsewhere while holding the lock leaves counters that are still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A block of at least `bytes` for work on `stream`.
    pub fn allocate(
        &self,
        alloc: &dyn RawAllocator,
        bytes: usize,
        stream: Handle,
        device: &str,
    ) -> Result<Block> {
        let size = size_class(bytes);
        {
            let mut st = self.lock();
            if let Some(handle) = st.free.get_mut(&(stream, size)).and_then(Vec::pop) {
                st.cached_bytes -= size;
                st.used_bytes += size;
                return Ok(Block { handle, size });
            }
            if st.limit.is_some_and(|limit| st.total() + size > limit) {
                let cached = st.drain();
                let over = st.limit.is_some_and(|limit| st.total() + size > limit);
                drop(st);
                cached.into_iter().for_each(|h| alloc.raw_free(h));
                if over {
                    let st = self.lock();
                    return Err(oom(
                        bytes,
                        device,
                        st.stats(),
                        "the pool's limit would be passed",
                    ));
                }
            }
        }
        let handle = match alloc.raw_alloc(size) {
            Ok(h) => h,
            Err(Error::OutOfMemory { .. }) => {
                self.free_all_blocks(alloc);
                alloc.raw_alloc(size).map_err(|e| match e {
                    Error::OutOfMemory { detail, .. } => {
                        oom(bytes, device, self.lock().stats(), &detail)
                    }
                    other => other,
                })?
            }
            Err(e) => return Err(e),
        };
        self.lock().used_bytes += size;
        Ok(Block { handle, size })
    }

    /// Returns a block to the pool for reuse on `stream`.
    pub fn release(&self, block: Block, stream: Handle) {
        let mut st = self.lock();
        st.used_bytes -= block.size;
        st.cached_bytes += block.size;
        st.free
            .entry((stream, block.size))
            .or_default()
            .push(block.handle);
    }

    /// Gives every cached block back to the device.
    pub fn free_all_blocks(&self, alloc: &dyn RawAllocator) {
        let cached = self.lock().drain();
        cached.into_iter().for_each(|h| alloc.raw_free(h));
    }

    /// Forgets every block, cached and in use, without freeing one: the device's context was
    /// replaced and took its memory with it (blocks in use are never given back).
    pub fn forget_all(&self) {
        let mut st = self.lock();
        st.drain();
        st.used_bytes = 0;
    }

    /// Bytes held by live arrays.
    pub fn used_bytes(&self) -> usize {
        self.lock().used_bytes
    }

    /// Bytes held from the device (live plus cached).
    pub fn total_bytes(&self) -> usize {
        self.lock().total()
    }

    /// Number of cached blocks.
    pub fn n_free_blocks(&self) -> usize {
        self.lock().free.values().map(Vec::len).sum()
    }

    /// Caps the bytes the pool holds from the device (`None` or 0: no cap).
    pub fn set_limit(&self, limit: Option<usize>) {
        self.lock().limit = limit.filter(|&l| l > 0);
    }

    pub fn limit(&self) -> Option<usize> {
        self.lock().limit
    }

    pub fn stats(&self) -> PoolStats {
        self.lock().stats()
    }
}

fn oom(requested: usize, device: &str, stats: PoolStats, detail: &str) -> Error {
    Error::OutOfMemory {
        requested,
        device: device.to_string(),
        stats,
        detail: detail.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A device with `capacity` bytes that records what it was asked.
    struct FakeDevice {
        capacity: usize,
        live: RefCell<HashMap<Handle, usize>>,
        next: RefCell<Handle>,
        allocs: RefCell<usize>,
    }

    impl FakeDevice {
        fn new(capacity: usize) -> FakeDevice {
            FakeDevice {
                capacity,
                live: RefCell::default(),
                next: RefCell::new(1),
                allocs: RefCell::new(0),
            }
        }
        fn in_use(&self) -> usize {
            self.live.borrow().values().sum()
        }
    }

    impl RawAllocator for FakeDevice {
        fn raw_alloc(&self, bytes: usize) -> Result<Handle> {
            if self.in_use() + bytes > self.capacity {
                return Err(oom(bytes, "fake", PoolStats::default(), "device full"));
            }
            let h = *self.next.borrow();
            *self.next.borrow_mut() += 1;
            *self.allocs.borrow_mut() += 1;
            self.live.borrow_mut().insert(h, bytes);
            Ok(h)
        }
        fn raw_free(&self, memory: Handle) {
            assert!(
                self.live.borrow_mut().remove(&memory).is_some(),
                "double free of {memory}"
            );
        }
    }

    #[test]
    fn size_classes_round_up_with_bounded_waste() {
        assert_eq!(size_class(1), 512);
        assert_eq!(size_class(513), 640);
        assert_eq!(size_class(1000), 1024);
        assert_eq!(size_class(1025), 1280);
        assert_eq!(size_class(MIB + 1), 2 * MIB);
        for bytes in [3usize, 700, 5000, 77_777, 999_999, 5 * MIB + 3] {
            let c = size_class(bytes);
            assert!(
                c >= bytes && (c - bytes) * 4 <= c.max(4 * MIN_BLOCK),
                "{bytes} -> {c}"
            );
        }
    }

    #[test]
    fn freed_block_is_reused_on_same_stream_only() {
        let dev = FakeDevice::new(1 << 30);
        let pool = MemoryPool::new();
        let a = pool.allocate(&dev, 1000, 0, "fake").unwrap();
        pool.release(a, 0);
        let b = pool.allocate(&dev, 900, 0, "fake").unwrap();
        assert_eq!(a.handle, b.handle);
        pool.release(b, 0);
        let c = pool.allocate(&dev, 1000, 7, "fake").unwrap();
        assert_ne!(
            c.handle, a.handle,
            "a block cached for stream 0 went to stream 7"
        );
        assert_eq!(*dev.allocs.borrow(), 2);
        assert_eq!(pool.used_bytes(), 1024);
        assert_eq!(pool.total_bytes(), 2048);
    }

    #[test]
    fn free_all_blocks_returns_cache_to_device() {
        let dev = FakeDevice::new(1 << 30);
        let pool = MemoryPool::new();
        let blocks: Vec<_> = (0..4)
            .map(|i| pool.allocate(&dev, 4096 * (i + 1), 0, "fake").unwrap())
            .collect();
        let keep = blocks[0];
        blocks[1..].iter().for_each(|&b| pool.release(b, 0));
        assert_eq!(pool.n_free_blocks(), 3);
        pool.free_all_blocks(&dev);
        assert_eq!(pool.n_free_blocks(), 0);
        assert_eq!(dev.in_use(), keep.size);
        assert_eq!(pool.total_bytes(), keep.size);
    }

    #[test]
    fn device_oom_frees_cache_and_retries() {
        let dev = FakeDevice::new(3 * MIB);
        let pool = MemoryPool::new();
        let a = pool.allocate(&dev, 2 * MIB, 0, "fake").unwrap();
        pool.release(a, 0);
        // 2 MiB cached + 2 MiB new would not fit: the pool must free its cache and retry.
        let b = pool.allocate(&dev, 2 * MIB - 10, 5, "fake").unwrap();
        assert_eq!(pool.total_bytes(), 2 * MIB);
        let err = pool.allocate(&dev, 2 * MIB, 5, "fake").unwrap_err();
        match err {
            Error::OutOfMemory {
                requested, stats, ..
            } => {
                assert_eq!(requested, 2 * MIB);
                assert_eq!(stats.used_bytes, 2 * MIB);
            }
            other => panic!("expected OutOfMemory, got {other:?}"),
        }
        pool.release(b, 5);
    }

    #[test]
    fn limit_is_enforced_after_freeing_cache() {
        let dev = FakeDevice::new(1 << 30);
        let pool = MemoryPool::new();
        pool.set_limit(Some(4096));
        let a = pool.allocate(&dev, 3000, 0, "fake").unwrap();
        pool.release(a, 0);
        let b = pool.allocate(&dev, 2048, 1, "fake").unwrap();
        assert_eq!(pool.total_bytes(), 2048, "cache was not freed to make room");
        let msg = pool
            .allocate(&dev, 4000, 1, "fake")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("limit") && msg.contains("in use"), "{msg}");
        pool.release(b, 1);
        pool.set_limit(None);
        assert!(pool.allocate(&dev, 1 << 20, 0, "fake").is_ok());
    }
}
