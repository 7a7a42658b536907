//! A counting global allocator: wraps the system allocator and counts
//! allocation calls, so the overlay and a test can show allocations per frame.
//!
//! A binary opts in with
//! `#[global_allocator] static A: CountingAlloc = CountingAlloc;`; without it the
//! counter stays at zero.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's allocations are not counted ([`exclude_this_thread`]).
    /// A const-initialized `Cell<bool>` needs no allocation and no destructor,
    /// so reading it inside the allocator is sound.
    static EXCLUDED: Cell<bool> = const { Cell::new(false) };
}

/// Stops counting the calling thread's allocations: the window's own thread
/// calls it, so that a measurement stepped on a worker thread counts the
/// engine's allocations (its thread and its pool's) and not the drawing's.
pub fn exclude_this_thread() {
    EXCLUDED.with(|e| e.set(true));
}

/// Counts one allocation call unless the calling thread is excluded.
#[inline]
fn count() {
    if !EXCLUDED.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

/// The system allocator plus a process-wide count of `alloc`, `alloc_zeroed`
/// and `realloc` calls (frees are not counted; nor the calls of a thread
/// that [`exclude_this_thread`] took out).
pub struct CountingAlloc;

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so the GlobalAlloc contract is System's; the counter is a relaxed
// atomic and the exclusion flag a const thread-local `Cell<bool>` (no
// allocation, no destructor, `try_with` during thread teardown), and neither
// touches the memory handed out.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's arguments satisfy GlobalAlloc's contract, which
        // System's method requires as is; the counter is a relaxed atomic.
        unsafe {
            count();
            System.alloc(layout)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's arguments satisfy GlobalAlloc's contract, which
        // System's method requires as is; the counter is a relaxed atomic.
        unsafe {
            count();
            System.alloc_zeroed(layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's arguments satisfy GlobalAlloc's contract, which
        // System's method requires as is; the counter is a relaxed atomic.
        unsafe {
            count();
            System.realloc(ptr, layout, new_size)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's arguments satisfy GlobalAlloc's contract, which
        // System's method requires as is; the counter is a relaxed atomic.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Allocation calls so far in this process (all threads but the excluded
/// ones); 0 unless
/// [`CountingAlloc`] is the global allocator.
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}
