//! Spatial Query Lab: fixed-radius neighbor queries for many moving units
//! (naive scan, uniform grids, SIMD kernels) and the compressed vertex streams
//! that draw them.
//!
//! The engine modules ([`sim`], [`spatial`], [`compress`], [`measure`], [`mod@bench`],
//! [`scenario`], [`lesson`], [`format`](mod@format), [`view`], [`machine`]) never touch the
//! window; only [`render`], [`ui`], [`app`] (the frame loop) and the binary
//! do. [`clock`] and [`browser`] are the seams to the browser build: its
//! clock, and the page around it.

pub mod alloc_count;
#[cfg(feature = "window")]
pub mod app;
pub mod bench;
pub mod browser;
pub mod chart;
pub mod clock;
pub mod code;
pub mod compress;
pub mod format;
pub mod lesson;
pub mod machine;
pub mod measure;
pub mod named;
pub mod output_file;
#[cfg(feature = "window")]
pub mod render;
pub mod scenario;
pub mod schema;
pub mod sim;
pub mod spatial;
#[cfg(feature = "window")]
pub mod ui;
pub mod view;
