//! Spatial Query Lab: fixed-radius neighbor queries for many moving units
//! (naive scan, uniform grids, SIMD kernels) and the compressed vertex streams
//! that draw them.
//!
//! The crate reads top-down; each layer imports only the layers below it:
//!
//! 1. [`platform`]: the seams to the browser build and the operating system
//!    (the one clock, the page, the counting allocator, files written whole,
//!    standard output that never panics); [`format`](mod@format) and
//!    [`mod@named`]: how numbers and closed sets of names are written.
//! 2. [`engine`]: the point of the lab — the spatial structures and kernels
//!    ([`engine::spatial`]), the simulation and its data layouts
//!    ([`engine::sim`]), vertex compression ([`engine::compress`]).
//! 3. [`settings`]: the one settings table and its surfaces (scenario and
//!    lesson files, links), the view values, the budget rules.
//! 4. [`measure`] and [`mod@bench`]: measuring the engine — plans of variants,
//!    interleaved rounds, verdicts, this machine, its counters and a cache
//!    model; the headless benchmark.
//! 5. [`teaching`]: lessons, their charts and the source excerpts they show.
//! 6. [`window`] (the `window` feature): the frame loop, the overlay's
//!    widgets and the render pipeline; the only part that touches macroquad
//!    and egui.

pub mod platform;

pub mod format;
pub mod named;

pub mod engine;

pub mod settings;

pub mod bench;
pub mod measure;

pub mod teaching;

#[cfg(feature = "window")]
pub mod window;
