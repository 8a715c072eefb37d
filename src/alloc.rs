//! The page's allocator: the system one, counting the bytes it holds for
//! the program, so that a run can stop before the tab runs out of memory
//! (`Timeline::set_memory_limit`, set by [`crate::player::Player`]). A
//! wasm32 tab has at most 4 GiB, and a large world's run (its checkpoints,
//! its trace) reaches that long before the page's event cap.
//!
//! Installed in the page only: natively [`held_bytes`] stays 0 and the
//! player's limit never stops a run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting what it holds in [`Counting::held`].
pub struct Counting {
    held: AtomicUsize,
}

impl Counting {
    pub const fn new() -> Counting {
        Counting {
            held: AtomicUsize::new(0),
        }
    }

    /// Bytes allocated and not yet freed.
    pub fn held(&self) -> u64 {
        self.held.load(Relaxed) as u64
    }
}

impl Default for Counting {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every call goes to `System` with the caller's own arguments; the
// count is only arithmetic beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.held.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.held.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        self.held.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            self.held.fetch_add(new_size, Relaxed);
            self.held.fetch_sub(layout.size(), Relaxed);
        }
        p
    }
}

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static PAGE: Counting = Counting::new();

/// Bytes the page holds now (0 natively, where the count is not installed).
pub fn held_bytes() -> u64 {
    #[cfg(target_arch = "wasm32")]
    return PAGE.held();
    #[cfg(not(target_arch = "wasm32"))]
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count follows what is allocated, grown, shrunk and freed, and
    /// what the system allocator hands back works.
    #[test]
    fn the_count_follows_what_is_held() {
        let a = Counting::new();
        let l = Layout::from_size_align(1000, 8).unwrap();
        unsafe {
            let p = a.alloc(l);
            assert!(!p.is_null());
            assert_eq!(a.held(), 1000);
            p.write_bytes(7, 1000);
            let z = a.alloc_zeroed(Layout::from_size_align(24, 8).unwrap());
            assert_eq!((a.held(), *z.add(23)), (1024, 0));
            let p = a.realloc(p, l, 5000);
            assert_eq!((a.held(), *p.add(999)), (5024, 7), "grown, contents kept");
            let p = a.realloc(p, Layout::from_size_align(5000, 8).unwrap(), 10);
            assert_eq!((a.held(), *p.add(9)), (34, 7), "shrunk");
            a.dealloc(p, Layout::from_size_align(10, 8).unwrap());
            a.dealloc(z, Layout::from_size_align(24, 8).unwrap());
        }
        assert_eq!(a.held(), 0);
    }
}
