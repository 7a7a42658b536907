//! The seams between the lab and where it runs: the one clock
//! ([`clock`]: `std::time::Instant`, or `performance.now()` in the
//! browser), the page around the browser build ([`browser`]), the counting
//! allocator behind "allocations per frame" ([`alloc_count`]), and files the
//! user asked for, written whole or not at all ([`output_file`]), the
//! hardware cache counters ([`counters`]) and the headless modes' standard
//! output, which never panics ([`stdout`]).

pub mod alloc_count;
pub mod browser;
pub mod clock;
pub mod counters;
pub mod output_file;
pub mod stdout;
