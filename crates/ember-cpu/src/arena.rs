//! The memory of arrays a compiled function makes (`np.empty`...): taken from the system
//! allocator during a call, kept in the call's arena, and freed when the call ends, except
//! the blocks the caller takes for arrays the function returns.

use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::sync::Mutex;

/// Arrays start on a 64-byte boundary (a cache line; more than any dtype needs).
const ALIGN: usize = 64;

/// One block of memory, freed on drop.
#[derive(Debug)]
pub struct Block {
    ptr: *mut u8,
    size: usize,
}

// A block is plain memory; whoever holds it may free it from any thread.
unsafe impl Send for Block {}
unsafe impl Sync for Block {}

impl Block {
    fn new(size: usize, zeroed: bool) -> Option<Block> {
        let layout = Layout::from_size_align(size.max(1), ALIGN).ok()?;
        let ptr = unsafe {
            if zeroed {
                alloc_zeroed(layout)
            } else {
                alloc(layout)
            }
        };
        (!ptr.is_null()).then_some(Block { ptr, size })
    }

    /// Its first byte.
    pub fn address(&self) -> usize {
        self.ptr as usize
    }

    pub fn size(&self) -> usize {
        self.size
    }

    fn contains(&self, address: usize) -> bool {
        let start = self.ptr as usize;
        address >= start && address < start + self.size.max(1)
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        if let Ok(layout) = Layout::from_size_align(self.size.max(1), ALIGN) {
            unsafe { dealloc(self.ptr, layout) };
        }
    }
}

/// The blocks of one call (chunks of a parallel loop allocate at once: a lock).
#[derive(Debug, Default)]
pub struct Arena {
    blocks: Mutex<Vec<Block>>,
}

impl Arena {
    pub fn new() -> Arena {
        Arena::default()
    }

    /// A new block of `size` bytes (zeroed when asked), or None when memory runs out.
    pub(crate) fn allocate(&self, size: usize, zeroed: bool) -> Option<*mut u8> {
        let block = Block::new(size, zeroed)?;
        let ptr = block.ptr;
        self.blocks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(block);
        Some(ptr)
    }

    /// Takes out of the arena the block holding `address` (an array the call returns).
    pub fn take_containing(&self, address: usize) -> Option<Block> {
        let mut blocks = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        let k = blocks.iter().position(|b| b.contains(address))?;
        Some(blocks.swap_remove(k))
    }
}
