//! A counting global allocator: wraps the system allocator and counts
//! allocation calls, so the overlay and a test can show allocations per frame.
//!
//! A binary opts in with
//! `#[global_allocator] static A: CountingAlloc = CountingAlloc;`; without it the
//! counter stays at zero.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// The system allocator plus a process-wide count of `alloc`, `alloc_zeroed`
/// and `realloc` calls (frees are not counted).
pub struct CountingAlloc;

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so the GlobalAlloc contract is System's; the counter is a relaxed
// atomic and never touches the memory handed out.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's arguments satisfy GlobalAlloc's contract, which
        // System's method requires as is; the counter is a relaxed atomic.
        unsafe {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            System.alloc(layout)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's arguments satisfy GlobalAlloc's contract, which
        // System's method requires as is; the counter is a relaxed atomic.
        unsafe {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            System.alloc_zeroed(layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's arguments satisfy GlobalAlloc's contract, which
        // System's method requires as is; the counter is a relaxed atomic.
        unsafe {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            System.realloc(ptr, layout, new_size)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's arguments satisfy GlobalAlloc's contract, which
        // System's method requires as is; the counter is a relaxed atomic.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Allocation calls so far in this process (all threads); 0 unless
/// [`CountingAlloc`] is the global allocator.
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}
